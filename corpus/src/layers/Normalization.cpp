// Normalisation layers (LayerKinds.def: BatchNorm, LayerNorm): the shape rules, the lowerings (a
// batch norm after a convolution or dense layer is fused into its kernel; one alone is an
// elementwise kernel) and the ONNX normalisations: BatchNormalization, LayerNormalization, and
// InstanceNormalization, GroupNormalization and LRN as the layers that compute them.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

#include <algorithm>
#include <cmath>

namespace corpus {

namespace layershapes {

LayerResult inferBatchNorm(const InShapes &In, const BatchNormAttrs &) {
  const Shape &X = *In[0];
  if (X.size() < 2)
    return fail("expects an input with a channel dimension, got " + shapeStr(X));
  LayerResult R;
  R.shape = X;
  R.params = 2 * X[1]; // gamma and beta (trainable); running mean/var are not parameters
  return R;
}

LayerResult inferLayerNorm(const InShapes &In, const LayerNormAttrs &A) {
  LayerResult R;
  R.shape = *In[0];
  R.params = A.affine ? 2 * R.shape.back() : 0; // scale and shift per feature
  return R;
}

} // namespace layershapes

namespace lowering {

support::MaybeError Lowerer::lowerBatchNorm(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const Shape &Y = L.shape;
  if (Y.size() < 2)
    return error(Id, "batch-norm needs a channel dimension");
  ElementwiseSpec S;
  S.op = ElementwiseOp::BatchNorm;
  S.dtype = O.dtype;
  S.math = elementwiseMath();
  S.batch = u32(Y[0]);
  S.channels = u32(Y[1]);
  S.spatial = u32(elementCount(Y) / (Y[0] * Y[1]));
  Tail T = fuseTail(Id, TailRoom::Activation);
  S.activation = T.epilogue.activation;
  return emit(Id, Emitter.add(S), {{ParamRole::Input, BufferOf[L.inputs[0]]}}, T, 0);
}

support::MaybeError Lowerer::lowerLayerNorm(LayerId Id) {
  const Layer &L = Net.layer(Id);
  LayerNormSpec S;
  S.cols = u32(L.shape.back());
  S.rows = u32(elementCount(L.shape) / L.shape.back());
  S.epsilon = std::get<LayerNormAttrs>(L.attrs).epsilon;
  S.affine = std::get<LayerNormAttrs>(L.attrs).affine;
  S.dtype = O.dtype;
  return emitAlone(Id, Emitter.add(S), 1);
}

} // namespace lowering

namespace onnximport {

Importer::Result Importer::importBatchNormalization(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  for (int I = 1; I <= 4; ++I) {
    auto S = hasInput(N, I) ? staticShape(N.input(I)) : std::nullopt;
    if (!hasInput(N, I))
      return nodeError(N, "missing input " + std::to_string(I));
    if (S && In.size() >= 2 && *S != Shape{In[1]})
      return nodeError(N, "parameter '" + N.input(I) + "' has shape " + shapeStr(*S) + ", not [" +
                              std::to_string(In[1]) + "]");
  }
  return addLayer(N, LayerKind::BatchNorm, {*X}, BatchNormAttrs{attrFloat(N, "epsilon", 1e-5f)});
}

Importer::Result Importer::importLayerNormalization(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const int64_t Rank = int64_t(Net.layer(*X).shape.size()), Given = attrInt(N, "axis", -1);
  if ((Given < 0 ? Given + Rank : Given) != Rank - 1)
    return nodeError(N,
                     "only a normalisation over the last axis is supported (axis -1), got axis " +
                         std::to_string(Given));
  if (!hasInput(N, 1) || !staticShape(N.input(1)))
    return nodeError(N, "the scale must be an initializer or have a known shape");
  return addLayer(N, LayerKind::LayerNorm, {*X}, LayerNormAttrs{attrFloat(N, "epsilon", 1e-5f)});
}

// InstanceNormalization (CycleGAN's and fast style transfer's InstanceNorm2d): each (n, c) plane
// normalised by its own mean and variance, then scale[c] and B[c]. Imported as its computation:
// the planes as rows of [N, C, H x W] (a view), a layer norm of each row without a learned
// affine, the view back, and the per-channel scale and shift as a batch norm (2 C parameters, as
// the model's). PyTorch computes it as a batch norm in training mode over [1, N C, H, W]: one
// statistics pass and one normalising pass, as the layer norm and batch norm kernels here.
Importer::Result Importer::importInstanceNormalization(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape In = Net.layer(*X).shape;
  if (In.size() < 3)
    return nodeError(N, "expects an input with spatial dimensions, got " + shapeStr(In));
  for (int I = 1; I <= 2; ++I) {
    auto S = hasInput(N, I) ? staticShape(N.input(I)) : std::nullopt;
    if (!S || *S != Shape{In[1]})
      return nodeError(N, std::string(I == 1 ? "scale" : "B") + " must have shape [" +
                              std::to_string(In[1]) + "]");
  }
  return normaliseGroups(N, *X, In[1], true, "/rows");
}

// LRN (AlexNet's, GoogLeNet's and ZFNet's local response normalisation, in the ONNX model zoo's
// classics): y = x / (bias + alpha / size * sum of x^2 over a window of `size` channels)^beta.
// Imported as PyTorch's F.local_response_norm computes it, a kernel per step: x * x; the mean of
// each window as an average pool of (size, 1) over [N, 1, C, H x W] (views either side), its
// zeros counted, with ONNX's window (floor((size - 1) / 2) channels before, ceil after: PyTorch's
// for odd sizes); * alpha, + bias, ^ beta; x divided by it. The last layer is named after the node.
Importer::Result Importer::importLRN(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape In = Net.layer(*X).shape;
  const int64_t Size = attrInt(N, "size", 0);
  const float Alpha = attrFloat(N, "alpha", 1e-4f), Beta = attrFloat(N, "beta", 0.75f),
              Bias = attrFloat(N, "bias", 1.0f);
  if (In.size() != 4)
    return nodeError(N, "expects an [N, C, H, W] input, got " + shapeStr(In));
  if (Size <= 0 || Size > 2 * In[1] + 1)
    return nodeError(N, "size must be in 1.." + std::to_string(2 * In[1] + 1) + ", got " +
                            std::to_string(Size));
  if (!std::isfinite(Alpha) || !std::isfinite(Beta) || !std::isfinite(Bias))
    return nodeError(N, "alpha, beta and bias must be finite numbers");
  const std::string Name = layerName(N);
  Result Y = addLayer(N, LayerKind::Mul, {*X, *X}, EltwiseAttrs{}, Name + "/square");
  if (Y)
    Y = addLayer(N, LayerKind::Reshape, {*Y}, ReshapeAttrs{{In[0], 1, In[1], In[2] * In[3]}},
                 Name + "/channels");
  PoolAttrs Window;
  Window.kernelH = Size;
  Window.padTop = (Size - 1) / 2;
  Window.padBottom = Size / 2;
  Window.countIncludePad = true;
  if (Y)
    Y = addLayer(N, LayerKind::AvgPool, {*Y}, Window, Name + "/window");
  if (Y)
    Y = addLayer(N, LayerKind::Reshape, {*Y}, ReshapeAttrs{In}, Name + "/planes");
  const std::pair<LayerKind, float> Steps[] = {
      {LayerKind::Mul, Alpha}, {LayerKind::Add, Bias}, {LayerKind::Pow, Beta}};
  for (const auto &[Kind, Scalar] : Steps)
    if (Y)
      Y = addLayer(N, Kind, {*Y}, EltwiseAttrs{std::nullopt, Scalar},
                   Name + "/" + std::string(layerKindName(Kind)));
  return Y ? addLayer(N, LayerKind::Div, {*X, *Y}, EltwiseAttrs{}) : Y;
}

Importer::Result Importer::normaliseGroups(const onnx::NodeProto &N, LayerId X, int64_t Groups,
                                           bool PerChannel, const std::string &RowsSuffix) {
  const Shape In = Net.layer(X).shape;
  const std::string Name = layerName(N);
  Result Y =
      addLayer(N, LayerKind::Reshape, {X}, ReshapeAttrs{{In[0], Groups, -1}}, Name + RowsSuffix);
  if (Y)
    Y = addLayer(N, LayerKind::LayerNorm, {*Y},
                 LayerNormAttrs{attrFloat(N, "epsilon", 1e-5f), /*affine=*/false}, Name + "/norm");
  // The last layer is named after the node.
  if (Y && !PerChannel)
    Y = addLayer(N, LayerKind::BatchNorm, {*Y}, BatchNormAttrs{}, Name + "/affine");
  if (Y)
    Y = addLayer(N, LayerKind::Reshape, {*Y}, ReshapeAttrs{In}, PerChannel ? Name + "/planes" : "");
  if (Y && PerChannel)
    Y = addLayer(N, LayerKind::BatchNorm, {*Y}, BatchNormAttrs{});
  return Y;
}

// GroupNormalization (opset 18; torch.nn.GroupNorm: ResNets with group norm, detection heads,
// U-Nets): each image's channels in num_groups groups, each group normalised by its own mean and
// variance, then the affine. Imported as the instance norm above, over groups: [N, G, C / G x
// H x W] (a view), a layer norm of each row without affine, then scale and bias as a batch
// norm, per group on the rows (opsets 18-20, whose scale and bias have one value per group) or
// per channel on the view back (opset 21 on: one per channel), with the model's parameters.
// Before opset 18 torch exports GroupNorm as Reshape, InstanceNormalization, Reshape, Mul, Add,
// which import node by node to the same layers.
Importer::Result Importer::importGroupNormalization(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape In = Net.layer(*X).shape;
  const int64_t Groups = attrInt(N, "num_groups", 0);
  if (In.size() < 3)
    return nodeError(N, "expects an input with spatial dimensions, got " + shapeStr(In));
  if (Groups <= 0 || In[1] % Groups)
    return nodeError(N, "num_groups must be positive and divide the " + std::to_string(In[1]) +
                            " channels, got " + std::to_string(Groups));
  std::optional<Shape> Params[2];
  for (int I = 1; I <= 2; ++I)
    Params[I - 1] = hasInput(N, I) ? staticShape(N.input(I)) : std::nullopt;
  const bool PerChannel = Params[0] == Shape{In[1]} && Params[1] == Shape{In[1]};
  const bool PerGroup = Params[0] == Shape{Groups} && Params[1] == Shape{Groups};
  if (!PerChannel && !PerGroup)
    return nodeError(N, "scale and bias must have shape [" + std::to_string(Groups) + "] or [" +
                            std::to_string(In[1]) + "]");
  return normaliseGroups(N, *X, Groups, PerChannel, "/groups");
}

// F.layer_norm(x, [C], weight, bias, eps) exported below opset 17 (torch 1.13, ConvNeXt's norms
// after their NCHW -> NHWC transpose):
//   m = ReduceMean(x, last axis); d = Sub(x, m); v = ReduceMean(Pow(d, 2), last axis);
//   y = Div(d, Sqrt(Add(v, eps))); out = Add(Mul(y, weight), bias)
// with each node the only consumer of the one before, except d (Pow and Div).
std::optional<Importer::LayerNormNodes> Importer::layerNormPattern(const onnx::NodeProto &N) const {
  if (!hasInput(N, 0) || !isLayer(N.input(0)))
    return std::nullopt;
  const Shape &X = Net.layer(Values.at(N.input(0))).shape;
  const int64_t Rank = int64_t(X.size());
  auto OverLast = [&](const onnx::NodeProto *R) {
    auto A = R ? reduceAxes(*R, Rank) : std::nullopt;
    return A && R->op_type() == "ReduceMean" && attrInt(*R, "keepdims", 1) == 1 &&
           *A == std::vector<int64_t>{Rank - 1};
  };
  LayerNormNodes P;
  std::array<size_t, 8> &I = P.nodes;
  const onnx::NodeProto *Sub = OverLast(&N) ? soleConsumerOp(&N, "Sub", I[0]) : nullptr;
  if (!Sub || Sub->input(0) != N.input(0) || Sub->input(1) != N.output(0))
    return std::nullopt;
  const std::string &D = Sub->output(0); // x - mean: read by Pow and by Div
  auto Users = Consumers.find(D);
  if (Users == Consumers.end() || Users->second.size() != 2 || GraphOutputs.count(D))
    return std::nullopt;
  I[1] = Users->second[0];
  const onnx::NodeProto *Pow = &Graph.node(int(I[1]));
  if (Pow->op_type() != "Pow")
    Pow = &Graph.node(int(I[1] = Users->second[1]));
  if (Pow->op_type() != "Pow" || Pow->input(0) != D || constFloat(otherOperand(*Pow, D)) != 2.0f)
    return std::nullopt;
  const onnx::NodeProto *Var = soleConsumerOp(Pow, "ReduceMean", I[2]);
  const onnx::NodeProto *Eps = OverLast(Var) ? soleConsumerOp(Var, "Add", I[3]) : nullptr;
  const std::optional<float> Epsilon =
      Eps ? constFloat(otherOperand(*Eps, Var->output(0))) : std::nullopt;
  const onnx::NodeProto *Sqrt = Epsilon ? soleConsumerOp(Eps, "Sqrt", I[4]) : nullptr;
  const onnx::NodeProto *Div = soleConsumerOp(Sqrt, "Div", I[5]);
  if (!Div || Div->input(0) != D || Div->input(1) != Sqrt->output(0) ||
      std::count(Users->second.begin(), Users->second.end(), I[5]) != 1 ||
      !layerNormAffine(*Div, X.back(), I[6], I[7]))
    return std::nullopt;
  P.epsilon = *Epsilon;
  return P;
}

bool Importer::layerNormAffine(const onnx::NodeProto &Div, int64_t C, size_t &Mul,
                               size_t &Add) const {
  // One weight, then one bias, per element of the last axis: constants of C elements.
  auto PerFeature = [&](const onnx::NodeProto *Op, const std::string &From) {
    const std::string Other = Op ? otherOperand(*Op, From) : "";
    auto S = Other.empty() || isLayer(Other) ? std::nullopt : staticShape(Other);
    return S && elementCount(*S) == C && !S->empty() && S->back() == C;
  };
  const onnx::NodeProto *Scale = soleConsumerOp(&Div, "Mul", Mul);
  const onnx::NodeProto *Shift =
      PerFeature(Scale, Div.output(0)) ? soleConsumerOp(Scale, "Add", Add) : nullptr;
  return PerFeature(Shift, Scale ? Scale->output(0) : "");
}

Importer::Result Importer::fuseLayerNorm(const onnx::NodeProto &N, const LayerNormNodes &P) {
  Fused.insert(P.nodes.begin(), P.nodes.end());
  OutputNode = P.nodes.back();
  return addLayer(N, LayerKind::LayerNorm, {Values[N.input(0)]}, LayerNormAttrs{P.epsilon});
}

} // namespace onnximport

} // namespace corpus
