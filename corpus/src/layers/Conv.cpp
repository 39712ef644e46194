// Convolution layers (LayerKinds.def: Conv): the shape rule, the lowering (with a zero Pad folded
// in, Pad.cpp) and ONNX Conv.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

namespace corpus {

namespace layershapes {

LayerResult inferConv(const InShapes &In, const ConvAttrs &A) {
  const Shape &X = *In[0];
  if (auto R = needRank4(X); !R.error.empty())
    return R;
  if (A.outChannels <= 0 || A.kernelH <= 0 || A.kernelW <= 0 || A.strideH <= 0 || A.strideW <= 0 ||
      A.dilationH <= 0 || A.dilationW <= 0 || A.groups <= 0)
    return fail("sizes, strides, dilations and groups must be positive");
  if (A.padTop < 0 || A.padLeft < 0 || A.padBottom < 0 || A.padRight < 0)
    return fail("negative padding");
  int64_t Cin = X[1];
  if (Cin % A.groups != 0)
    return fail("input has " + str(Cin) + " channels, not divisible by groups=" + str(A.groups));
  if (A.outChannels % A.groups != 0)
    return fail(str(A.outChannels) + " output channels, not divisible by groups=" + str(A.groups));
  int64_t Ho = windowOut(X[2], A.padTop, A.padBottom, A.kernelH, A.strideH, A.dilationH, false);
  int64_t Wo = windowOut(X[3], A.padLeft, A.padRight, A.kernelW, A.strideW, A.dilationW, false);
  if (Ho <= 0 || Wo <= 0)
    return fail(str(A.kernelH) + "x" + str(A.kernelW) + " kernel does not fit input " +
                shapeStr(X));
  LayerResult R;
  R.shape = {X[0], A.outChannels, Ho, Wo};
  // Counts saturate: past the limits (Network::add) they are errors, not wrapped values.
  int64_t PerOutput = saturatingMul(saturatingMul(Cin / A.groups, A.kernelH), A.kernelW);
  R.params = saturatingAdd(saturatingMul(A.outChannels, PerOutput), A.bias ? A.outChannels : 0);
  R.macs = saturatingMul(elementCount(R.shape), PerOutput);
  return R;
}

} // namespace layershapes

namespace lowering {

support::MaybeError Lowerer::lowerConv(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const auto &A = std::get<ConvAttrs>(L.attrs);
  LayerId In = L.inputs[0];
  Shape X = Net.layer(In).shape;
  ConvSpec S;
  if (auto P = PadInto.find(Id); P != PadInto.end()) { // input is the folded Pad's input
    X = Net.layer(Net.layer(In).inputs[0]).shape;
    S.padTop = u32(P->second.top), S.padLeft = u32(P->second.left);
    S.padBottom = u32(P->second.bottom), S.padRight = u32(P->second.right);
  }
  S.batch = u32(X[0]), S.inChannels = u32(X[1]), S.inHeight = u32(X[2]), S.inWidth = u32(X[3]);
  S.outChannels = u32(A.outChannels);
  S.kernelH = u32(A.kernelH), S.kernelW = u32(A.kernelW);
  S.strideH = u32(A.strideH), S.strideW = u32(A.strideW);
  S.padTop += u32(A.padTop), S.padLeft += u32(A.padLeft);
  S.padBottom += u32(A.padBottom), S.padRight += u32(A.padRight);
  S.dilationH = u32(A.dilationH), S.dilationW = u32(A.dilationW);
  S.groups = u32(A.groups);
  S.dtype = O.dtype;
  S.math = mathOf(LayerKind::Conv);
  S.mmaArch = mmaArchFor(O.arch);
  const bool Int8 = int8Layer(Id);
  Tail T = fuseTail(Id, true, true, Int8);
  S.epilogue = T.epilogue;
  S.epilogue.bias = A.bias;
  int64_t FanIn = X[1] / A.groups * A.kernelH * A.kernelW;
  if (Int8) // the input is the folded Pad's input
    return lowerInt8(Id, S, T, PadInto.count(Id) ? Net.layer(In).inputs[0] : In, FanIn);
  return emit(Id, Emitter.add(S), {{ParamRole::Input, BufferOf[In]}}, T, FanIn);
}

} // namespace lowering

namespace onnximport {

Importer::Result Importer::importConv(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  if (In.size() != 4)
    return nodeError(N, "only 2-d convolution is supported (input " + shapeStr(In) + ")");
  auto W = hasInput(N, 1) ? staticShape(N.input(1)) : std::nullopt;
  if (!W || W->size() != 4 || !allPositive(*W))
    return nodeError(N, "weight needs a known 4-d shape");
  std::vector<int64_t> K = attrInts(N, "kernel_shape", {(*W)[2], (*W)[3]});
  std::vector<int64_t> S = attrInts(N, "strides", {1, 1});
  std::vector<int64_t> D = attrInts(N, "dilations", {1, 1});
  if (K.size() != 2 || S.size() != 2 || D.size() != 2)
    return nodeError(N, "only 2-d convolution is supported");
  if (K[0] != (*W)[2] || K[1] != (*W)[3])
    return nodeError(N, "kernel_shape disagrees with weight shape " + shapeStr(*W));
  ConvAttrs A;
  A.outChannels = (*W)[0];
  A.kernelH = K[0], A.kernelW = K[1];
  A.strideH = S[0], A.strideW = S[1];
  A.dilationH = D[0], A.dilationW = D[1];
  A.groups = attrInt(N, "group", 1);
  A.bias = hasInput(N, 2);
  if (A.groups <= 0 || In[1] % A.groups != 0 || (*W)[1] != In[1] / A.groups)
    return nodeError(N, "weight " + shapeStr(*W) + " with group=" + std::to_string(A.groups) +
                            " does not match " + std::to_string(In[1]) + " input channels");
  int64_t Pads[4];
  if (auto E = windowPads(N, In, K.data(), S.data(), D.data(), Pads))
    return *E;
  A.padTop = Pads[0], A.padLeft = Pads[1], A.padBottom = Pads[2], A.padRight = Pads[3];
  if (auto B = A.bias ? staticShape(N.input(2)) : std::nullopt; B && *B != Shape{A.outChannels})
    return nodeError(N, "bias shape " + shapeStr(*B) + " does not match " +
                            std::to_string(A.outChannels) + " output channels");
  return addLayer(N, LayerKind::Conv, {*X}, A);
}

/// ConvTranspose whose kernel equals its stride and has no padding (U-Net's 2x2 / 2
/// up-convolution, FCN-style 2x2 and 4x4 ones): each input pixel writes its own s x s block of
/// output, out[n, o, s i + a, s j + b] = sum_c x[n, c, i, j] w[c, o, a, b] (+ bias[o]). That is
/// a 1x1 convolution to O s^2 channels (o, a, b), a GEMM of the transposed convolution's MACs,
/// then DepthToSpace in CRD mode; the bias, one per o, is the 1x1 convolution's repeated s^2
/// times (s^2 - 1 parameters more per output channel than the model has).
Importer::Result Importer::importConvTranspose(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  auto W = hasInput(N, 1) ? staticShape(N.input(1)) : std::nullopt;
  if (In.size() != 4 || !W || W->size() != 4 || !allPositive(*W) || (*W)[0] != In[1])
    return nodeError(N, "needs a 4-d NCHW input and a known weight [C_in, C_out, kH, kW] "
                        "matching its channels");
  const std::vector<int64_t> K = attrInts(N, "kernel_shape", {(*W)[2], (*W)[3]});
  const std::vector<int64_t> S = attrInts(N, "strides", {1, 1});
  const std::vector<int64_t> Pads = attrInts(N, "pads", {0, 0, 0, 0});
  const std::vector<int64_t> Extra = attrInts(N, "output_padding", {0, 0});
  const std::vector<int64_t> D = attrInts(N, "dilations", {1, 1});
  const std::string AutoPad = attrString(N, "auto_pad", "NOTSET");
  const bool Simple = K == std::vector<int64_t>{(*W)[2], (*W)[3]} && S == K && K[0] == K[1] &&
                      Pads == std::vector<int64_t>{0, 0, 0, 0} &&
                      Extra == std::vector<int64_t>{0, 0} && D == std::vector<int64_t>{1, 1} &&
                      attrInt(N, "group", 1) == 1 && (AutoPad == "NOTSET" || AutoPad == "VALID") &&
                      !attr(N, "output_shape");
  if (!Simple)
    return nodeError(N, "only a square kernel equal to the stride, without padding, dilation, "
                        "groups or output_padding, is supported (a U-Net's 2x2 / 2 "
                        "up-convolution)");
  if (K[0] > (int64_t(1) << 20) || (*W)[1] > MaxTensorElements / (K[0] * K[0]))
    return nodeError(N, "weight " + shapeStr(*W) + " is too large");
  ConvAttrs A;
  A.outChannels = (*W)[1] * K[0] * K[1];
  A.bias = hasInput(N, 2);
  if (auto B = A.bias ? staticShape(N.input(2)) : std::nullopt; B && *B != Shape{(*W)[1]})
    return nodeError(N, "bias shape " + shapeStr(*B) + " does not match " +
                            std::to_string((*W)[1]) + " output channels");
  Result Taps = addLayer(N, LayerKind::Conv, {*X}, A, layerName(N) + "/taps");
  return Taps ? depthToSpace(N, *Taps, K[0], /*Crd=*/true) : Taps;
}

} // namespace onnximport

} // namespace corpus
