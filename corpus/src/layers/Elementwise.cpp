// Elementwise layers (LayerKinds.def: Activation, Add, Mul, Div, Pow): the shape rules (numpy
// broadcasting), the standalone elementwise lowering (a convolution's or dense layer's tail is
// fused into its kernel instead, Lower.cpp fuseTail) and the ONNX activations and arithmetic,
// with the swish, hard-swish and GELU patterns.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>

namespace corpus {

namespace layershapes {

namespace {

LayerResult inferEltwise(const InShapes &In, const EltwiseAttrs &A) {
  if (A.constant && A.scalar)
    return fail("has both a constant tensor and a scalar operand");
  const bool OneInput = A.constant || A.scalar;
  if (OneInput && In.size() != 1)
    return fail("expects one input besides its constant operand, got " + str(In.size()));
  if (!OneInput && In.size() != 2)
    return fail("expects two inputs, got " + str(In.size()));
  if (A.scalar) {
    LayerResult R;
    R.shape = *In[0];
    return R;
  }
  const Shape &Other = A.constant ? *A.constant : *In[1];
  LayerResult R = broadcast(*In[0], Other);
  if (A.constant)
    R.params = elementCount(*A.constant);
  return R;
}

} // namespace

LayerResult inferActivation(const InShapes &In, const ActivationAttrs &) {
  LayerResult R;
  R.shape = *In[0];
  return R;
}
LayerResult inferAdd(const InShapes &In, const EltwiseAttrs &A) { return inferEltwise(In, A); }
LayerResult inferMul(const InShapes &In, const EltwiseAttrs &A) { return inferEltwise(In, A); }
LayerResult inferDiv(const InShapes &In, const EltwiseAttrs &A) { return inferEltwise(In, A); }
LayerResult inferPow(const InShapes &In, const EltwiseAttrs &A) { return inferEltwise(In, A); }

} // namespace layershapes

namespace lowering {

namespace {

/// The elementwise op of an Add/Mul/Div/Pow layer with a second layer or a scalar operand.
ElementwiseOp binaryOp(LayerKind Kind, bool Scalar) {
  switch (Kind) {
  case LayerKind::Add:
    return Scalar ? ElementwiseOp::AddScalar : ElementwiseOp::Add;
  case LayerKind::Mul:
    return Scalar ? ElementwiseOp::MulScalar : ElementwiseOp::Mul;
  case LayerKind::Div:
    return Scalar ? ElementwiseOp::DivScalar : ElementwiseOp::Div;
  default:
    assert(Kind == LayerKind::Pow && "not an elementwise layer");
    return Scalar ? ElementwiseOp::PowScalar : ElementwiseOp::Pow;
  }
}

} // namespace

support::MaybeError Lowerer::lowerActivation(LayerId Id) { return lowerElementwise(Id); }
support::MaybeError Lowerer::lowerAdd(LayerId Id) { return lowerElementwise(Id); }
support::MaybeError Lowerer::lowerMul(LayerId Id) { return lowerElementwise(Id); }
support::MaybeError Lowerer::lowerDiv(LayerId Id) { return lowerElementwise(Id); }
support::MaybeError Lowerer::lowerPow(LayerId Id) { return lowerElementwise(Id); }

support::MaybeError Lowerer::lowerElementwise(LayerId Id) {
  const Layer &L = Net.layer(Id);
  ElementwiseSpec S;
  S.dtype = O.dtype;
  S.math = elementwiseMath();
  const Shape &Y = L.shape;
  S.batch = u32(Y[0]);
  S.channels = Y.size() > 1 ? u32(Y[1]) : 1;
  S.spatial = u32(elementCount(Y) / (int64_t(S.batch) * S.channels));
  RoleBuffers In{{ParamRole::Input, BufferOf[L.inputs[0]]}};
  Tail T;
  if (L.kind == LayerKind::Activation) {
    const auto &A = std::get<ActivationAttrs>(L.attrs);
    auto K = kernelActivation(A);
    if (!K)
      return error(Id, "this activation's parameters are not supported by the lowering");
    S.op = ElementwiseOp::Activation;
    S.activation = *K;
    S.scalar = activationTakesAlpha(*K) ? A.alpha : 0.0f; // a kernel constant
    T.last = Id;
    return emit(Id, Emitter.add(S), In, T, 0);
  }
  const auto &A = std::get<EltwiseAttrs>(L.attrs);
  if (A.constant)
    return lowerConstantOperand(Id, S, *A.constant);
  if (!A.scalar)
    return lowerBinary(Id, S);
  S.op = binaryOp(L.kind, true);
  S.scalar = *A.scalar;
  T = fuseTail(Id, TailRoom::Activation);
  S.activation = T.epilogue.activation;
  return emit(Id, Emitter.add(S), In, T, 0);
}

/// An elementwise op of a layer and a constant tensor (ONNX; only the cost matters, not the
/// values): one element is the scalar kernel (with a neutral number; pow's is a general
/// exponent); one value per channel of an NCHW output or per element of its last axis is the
/// per-channel affine kernel, x * scale[c] + shift[c] (not for pow); a constant of the output's
/// shape is the two-operand kernel reading it as a weight.
support::MaybeError Lowerer::lowerConstantOperand(LayerId Id, ElementwiseSpec S, const Shape &C) {
  const Layer &L = Net.layer(Id);
  const Shape &Y = L.shape;
  const int64_t Count = elementCount(C);
  RoleBuffers In{{ParamRole::Input, BufferOf[L.inputs[0]]}};
  Tail T = fuseTail(Id, TailRoom::Activation);
  S.activation = T.epilogue.activation;
  if (Count == 1) {
    S.op = binaryOp(L.kind, true);
    S.scalar = L.kind == LayerKind::Add ? 0.0f : L.kind == LayerKind::Pow ? 1.5f : 1.0f;
    return emit(Id, Emitter.add(S), In, T, 0);
  }
  const Shape Core(std::find_if(C.begin(), C.end(), [](int64_t D) { return D != 1; }), C.end());
  const bool PerChannel = Y.size() == 4 && Core == Shape{Y[1], 1, 1};
  const bool PerLast = Core == Shape{Y.back()};
  if ((PerChannel || PerLast) && L.kind != LayerKind::Pow) {
    S.op = ElementwiseOp::BatchNorm;
    if (PerLast) {
      S.batch = u32(elementCount(Y) / Y.back());
      S.channels = u32(Y.back());
      S.spatial = 1;
    }
    return emit(Id, Emitter.add(S), In, T, 0);
  }
  if (Count == elementCount(Y)) {
    S.op = binaryOp(L.kind, false);
    In[ParamRole::Input2] =
        newBuffer(L.name + ".constant", uint64_t(Count) * dtypeBytes(O.dtype), true, 1.0);
    return emit(Id, Emitter.add(S), In, T, 0);
  }
  return error(Id, "a constant operand of shape " + shapeStr(C) + " broadcast to " + shapeStr(Y) +
                       " is not supported by the lowering");
}

namespace {

/// Y as [outer, mid, inner] when B (numpy-aligned to Y's rank) is Y with the dimensions of one
/// run [p, q) set to 1: CBAM's spatial gate [N, 1, H, W], ConvNeXt V2's [N, 1, 1, C], a per-image
/// [N, 1, 1, 1]. Nullopt for any other broadcast, or a part past 32 bits.
std::optional<AxisSplit> broadcastRun(const Shape &Y, const Shape &B) {
  if (B.size() > Y.size())
    return std::nullopt;
  const Shape Full = alignedTo(B, Y.size());
  size_t P = 0, Q = Y.size();
  while (P < Y.size() && Full[P] == Y[P])
    ++P;
  while (Q > P && Full[Q - 1] == Y[Q - 1])
    --Q;
  for (size_t D = P; D < Q; ++D)
    if (Full[D] != 1)
      return std::nullopt;
  return splitRun(Y, P, Q);
}

} // namespace

bool Lowerer::expandsInPlace(LayerId Id) const {
  const Layer &L = Net.layer(Id);
  const Shape &In = Net.layer(L.inputs[0]).shape;
  if (Consumers[Id].empty() || elementCount(In) == elementCount(L.shape))
    return false;
  for (LayerId C : Consumers[Id]) {
    const Layer &E = Net.layer(C);
    const bool Commutes = E.kind == LayerKind::Add || E.kind == LayerKind::Mul;
    if ((!Commutes && E.kind != LayerKind::Div && E.kind != LayerKind::Pow) ||
        E.inputs.size() != 2 || E.inputs[0] == E.inputs[1] || E.shape != L.shape)
      return false;
    const auto &A = std::get<EltwiseAttrs>(E.attrs);
    if (A.constant || A.scalar || (!Commutes && E.inputs[1] != Id) || !broadcastRun(E.shape, In))
      return false;
    // The other operand must be full-size: another Expand may itself be read in place.
    if (Net.layer(E.inputs[0] == Id ? E.inputs[1] : E.inputs[0]).kind == LayerKind::Expand)
      return false;
  }
  return true;
}

/// An elementwise op of two layers: same shapes; (Mul) a [N, C, 1, 1] channel scale; or an
/// operand broadcast over one run of dimensions (broadcastRun), read in place as [outer, inner]
/// of the output's [outer, mid, inner] (ElementwiseSpec::broadcast). Add and Mul take the
/// full-size operand first.
support::MaybeError Lowerer::lowerBinary(LayerId Id, ElementwiseSpec S) {
  const Layer &L = Net.layer(Id);
  const Shape &Y = L.shape;
  const bool Commutes = L.kind == LayerKind::Add || L.kind == LayerKind::Mul;
  LayerId A = L.inputs[0], B = L.inputs[1];
  // The full-size operand goes first; an Expand read in place is broadcast, so second.
  if (Commutes && (Net.layer(A).shape != Y || ReadInPlace.count(A)))
    std::swap(A, B);
  const Shape &SB = Net.layer(ReadInPlace.count(B) ? Net.layer(B).inputs[0] : B).shape;
  if (Net.layer(A).shape != Y)
    return error(Id, "broadcasting both operands is not supported by the lowering");
  S.op = binaryOp(L.kind, false);
  // An operand with the output's elements has its shape but for leading 1s ([8] against [1, 8]):
  // the two-operand kernel reads it as it is.
  const bool Full = elementCount(SB) == elementCount(Y);
  if (!Full && L.kind == LayerKind::Mul && Y.size() == 4 && SB == Shape{Y[0], Y[1], 1, 1}) {
    S.op = ElementwiseOp::ScaleChannels;
  } else if (!Full) {
    const auto Parts = broadcastRun(Y, SB);
    if (!Parts)
      return error(Id, "broadcast " + shapeStr(SB) + " is not supported by the lowering");
    S.batch = Parts->outer, S.channels = Parts->axis, S.spatial = Parts->inner;
    S.broadcast = true;
  }
  RoleBuffers In = {{ParamRole::Input, BufferOf[A]}, {ParamRole::Input2, BufferOf[B]}};
  Tail T = fuseTail(Id, TailRoom::Activation);
  S.activation = T.epilogue.activation;
  return emit(Id, Emitter.add(S), In, T, 0);
}

} // namespace lowering

namespace onnximport {

namespace {

bool near(std::optional<float> V, double Want) {
  return V && std::fabs(double(*V) - Want) <= 1e-4 * std::fabs(Want);
}

} // namespace

Importer::Result Importer::importRelu(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::Relu}) : X;
}

Importer::Result Importer::importTanh(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::Tanh}) : X;
}

Importer::Result Importer::importSqrt(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::Sqrt}) : X;
}

Importer::Result Importer::importExp(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::Exp}) : X;
}

// Gelu (opset 20; torch.nn.GELU exports it from there): the erf form, or with approximate "tanh"
// the tanh form (GELU(approximate='tanh'), which before opset 20 exports as its separate nodes).
Importer::Result Importer::importGelu(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const std::string Form = attrString(N, "approximate", "none");
  if (Form != "none" && Form != "tanh")
    return nodeError(N, "approximate must be \"none\" or \"tanh\", got \"" + Form + "\"");
  return addLayer(N, LayerKind::Activation, {*X},
                  ActivationAttrs{Form == "tanh" ? ActKind::GeluTanh : ActKind::Gelu});
}

Importer::Result Importer::importSoftplus(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::Softplus}) : X;
}

Importer::Result Importer::importAlphaActivation(const onnx::NodeProto &N, ActKind Kind,
                                                 float Default) {
  Result X = value(N, 0);
  const float Alpha = attrFloat(N, "alpha", Default);
  if (Kind == ActKind::Celu &&
      !(std::isfinite(Alpha) && std::fabs(Alpha) >= std::numeric_limits<float>::min()))
    return nodeError(N, "alpha must be a finite, nonzero (normal) number");
  if (!std::isfinite(Alpha))
    return nodeError(N, "alpha must be a finite number");
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{Kind, Alpha}) : X;
}

// ONNX's default slope 0.01 is PyTorch's too.
Importer::Result Importer::importLeakyRelu(const onnx::NodeProto &N) {
  return importAlphaActivation(N, ActKind::LeakyRelu, 0.01f);
}

// Elu(alpha), Celu(alpha) (torch.nn.ELU, CELU; ONNX's default alpha 1 is PyTorch's too) and Selu
// with PyTorch's constants, which torch.nn.SELU exports (within 1e-5 relative: six digits).
Importer::Result Importer::importElu(const onnx::NodeProto &N) {
  return importAlphaActivation(N, ActKind::Elu, 1.0f);
}

Importer::Result Importer::importCelu(const onnx::NodeProto &N) {
  return importAlphaActivation(N, ActKind::Celu, 1.0f);
}

Importer::Result Importer::importSelu(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  // Converters that print the constants to six digits (1.67326) mean PyTorch's too.
  auto Near = [](float V, float Want) { return std::fabs(V - Want) <= 1e-5f * Want; };
  if (!Near(attrFloat(N, "alpha", SeluAlpha), SeluAlpha) ||
      !Near(attrFloat(N, "gamma", SeluScale), SeluScale))
    return nodeError(N, "only PyTorch's alpha " + std::to_string(SeluAlpha) + " and gamma " +
                            std::to_string(SeluScale) + " (ONNX's defaults) are supported");
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::Selu}) : X;
}

// PRelu(x, slope): PyTorch's nn.PReLU, one slope or one per channel ([C, 1, 1]). Lowered as a
// leaky relu: the same instructions per element; a per-channel slope would add one load from a
// C-element table, which is left out, and the kernel uses the first channel's slope (PyTorch's
// initial 0.25 where the file has no weights). Only the cost is modelled, not the values.
Importer::Result Importer::importPRelu(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  auto S = hasInput(N, 1) ? staticShape(N.input(1)) : std::nullopt;
  if (!S)
    return nodeError(N, "slope must be a weight or constant");
  const int64_t Slopes = elementCount(*S);
  if (Slopes != 1 && (In.size() < 2 || Slopes != In[1]))
    return nodeError(N, "slope of " + std::to_string(Slopes) +
                            " elements: only one, or one per channel, is supported");
  auto V = constFloats(N.input(1));
  const float Alpha = V && !V->empty() ? V->front() : 0.25f;
  if (!std::isfinite(Alpha))
    return nodeError(N, "slope must be a finite number");
  return addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::LeakyRelu, Alpha});
}

Importer::Result Importer::importHardSwish(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::HardSwish}) : X;
}

Importer::Result Importer::fuseGatedActivation(const onnx::NodeProto &N, ActivationAttrs Plain,
                                               ActivationAttrs Fused) {
  Result X = value(N, 0);
  if (!X)
    return X;
  size_t Index;
  const onnx::NodeProto *M = Options.fuseSwish ? soleConsumer(N.output(0), &Index) : nullptr;
  if (M && M->op_type() == "Mul" && M->input_size() == 2 &&
      ((M->input(0) == N.input(0) && M->input(1) == N.output(0)) ||
       (M->input(1) == N.input(0) && M->input(0) == N.output(0)))) {
    this->Fused.insert(Index);
    OutputNode = Index;
    return addLayer(N, LayerKind::Activation, {*X}, Fused);
  }
  return addLayer(N, LayerKind::Activation, {*X}, Plain);
}

Importer::Result Importer::importSigmoid(const onnx::NodeProto &N) {
  return fuseGatedActivation(N, ActivationAttrs{ActKind::Sigmoid}, ActivationAttrs{ActKind::Swish});
}

Importer::Result Importer::importHardSigmoid(const onnx::NodeProto &N) {
  float Alpha = attrFloat(N, "alpha", 0.2f), Beta = attrFloat(N, "beta", 0.5f);
  ActivationAttrs Plain{ActKind::HardSigmoid, Alpha, Beta};
  // x * hardsigmoid(x; 1/6, 1/2) = x * relu6(x + 3) / 6 = hardswish(x).
  if (std::fabs(Alpha - 1.0f / 6.0f) < 1e-6f && std::fabs(Beta - 0.5f) < 1e-6f)
    return fuseGatedActivation(N, Plain, ActivationAttrs{ActKind::HardSwish});
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, Plain) : X;
}

Importer::Result Importer::importClip(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const float Inf = std::numeric_limits<float>::infinity();
  ActivationAttrs A{ActKind::Clip, -Inf, Inf};
  if (Opset < 11) {
    A.alpha = attrFloat(N, "min", -Inf);
    A.beta = attrFloat(N, "max", Inf);
  } else {
    for (int I = 1; I <= 2; ++I) {
      if (!hasInput(N, I))
        continue;
      auto V = constFloat(N.input(I));
      if (!V)
        return nodeError(N, "bound '" + N.input(I) + "' must be a constant float with data");
      (I == 1 ? A.alpha : A.beta) = *V;
    }
  }
  return addLayer(N, LayerKind::Activation, {*X}, A);
}

Importer::Result Importer::importAdd(const onnx::NodeProto &N) { return importEltwise(N); }
Importer::Result Importer::importSub(const onnx::NodeProto &N) { return importEltwise(N); }
Importer::Result Importer::importMul(const onnx::NodeProto &N) { return importEltwise(N); }
Importer::Result Importer::importDiv(const onnx::NodeProto &N) { return importEltwise(N); }
Importer::Result Importer::importPow(const onnx::NodeProto &N) { return importEltwise(N); }

// ImageScaler (an experimental operator of opsets 1-9, the ONNX model zoo's tiny-YOLOv2 scales its
// input by it): x * scale as a scalar multiply, then + bias[c] as an add of a [1, C, 1, 1]
// constant (its C values count as parameters, as any constant operand's) where any is nonzero.
Importer::Result Importer::importImageScaler(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape In = Net.layer(*X).shape;
  const float Scale = attrFloat(N, "scale", 1.0f);
  std::vector<float> Bias;
  if (const onnx::AttributeProto *A = attr(N, "bias"))
    Bias.assign(A->floats().begin(), A->floats().end());
  if (In.size() != 4)
    return nodeError(N, "expects an [N, C, H, W] input, got " + shapeStr(In));
  if (!Bias.empty() && int64_t(Bias.size()) != In[1])
    return nodeError(N, "bias has " + std::to_string(Bias.size()) + " values for " +
                            std::to_string(In[1]) + " channels");
  if (!std::isfinite(Scale) ||
      std::any_of(Bias.begin(), Bias.end(), [](float B) { return !std::isfinite(B); }))
    return nodeError(N, "scale and bias must be finite numbers");
  const bool Shift = std::any_of(Bias.begin(), Bias.end(), [](float B) { return B != 0.0f; });
  Result Y = addLayer(N, LayerKind::Mul, {*X}, EltwiseAttrs{std::nullopt, Scale},
                      Shift ? layerName(N) + "/scale" : "");
  return Y && Shift ? addLayer(N, LayerKind::Add, {*Y}, EltwiseAttrs{Shape{1, In[1], 1, 1}}) : Y;
}

// Sum of any number of activations (caffe2's exports, such as the ONNX model zoo's ResNet-50, write
// residual adds so): add layers left to right, each as Add's, the last named after the node; one
// input passes through as an identity.
Importer::Result Importer::importSum(const onnx::NodeProto &N) {
  if (N.input_size() < 1)
    return nodeError(N, "expects at least one input");
  for (const std::string &In : N.input())
    if (!isLayer(In))
      return nodeError(N, "operand '" + In +
                              "' is not an activation: only sums of layers are "
                              "supported");
  if (N.input_size() == 1)
    return addLayer(N, LayerKind::Identity, {Values[N.input(0)]}, IdentityAttrs{});
  Result Y = Values[N.input(0)];
  for (int I = 1; Y && I < N.input_size(); ++I)
    Y = addLayer(N, LayerKind::Add, {*Y, Values[N.input(I)]}, EltwiseAttrs{},
                 I + 1 < N.input_size() ? layerName(N) + "/sum" + std::to_string(I) : "");
  return Y;
}

Importer::Result Importer::importEltwise(const onnx::NodeProto &N) {
  const std::string &Op = N.op_type();
  if (Op == "Div")
    if (auto Gelu = geluPattern(N)) {
      Fused.insert(Gelu->begin(), Gelu->end());
      OutputNode = Gelu->back();
      return addLayer(N, LayerKind::Activation, {Values[N.input(0)]},
                      ActivationAttrs{ActKind::Gelu});
    }
  // Sub is an add layer: the same kernel, and operand values are never used.
  const LayerKind Kind = Op == "Mul"   ? LayerKind::Mul
                         : Op == "Div" ? LayerKind::Div
                         : Op == "Pow" ? LayerKind::Pow
                                       : LayerKind::Add;
  if (N.input_size() != 2)
    return nodeError(N, "expects two inputs");
  bool L0 = isLayer(N.input(0)), L1 = isLayer(N.input(1));
  if (L0 && L1)
    return addLayer(N, Kind, {Values[N.input(0)], Values[N.input(1)]}, EltwiseAttrs{});
  if (!L0 && !L1) { // shape arithmetic
    if (auto E = foldArithmetic(N))
      return *E;
    return InvalidLayer;
  }
  const std::string &Const = L0 ? N.input(1) : N.input(0);
  // x / c and x ** c with one known number: the scalar kernels (x ** 2 is x * x, as PyTorch's).
  if (L0 && (Kind == LayerKind::Div || Kind == LayerKind::Pow))
    if (auto C = constFloat(Const); C && std::isfinite(*C) && (Kind == LayerKind::Pow || *C != 0))
      return addLayer(N, Kind, {Values[N.input(0)]}, EltwiseAttrs{std::nullopt, *C});
  auto S = staticShape(Const);
  if (!S)
    return nodeError(N, "operand '" + Const + "' is neither an activation nor a known constant");
  return addLayer(N, Kind, {Values[L0 ? N.input(0) : N.input(1)]}, EltwiseAttrs{*S});
}

std::optional<std::array<size_t, 4>> Importer::geluPattern(const onnx::NodeProto &N) const {
  // torch.nn.GELU() as torch.onnx exports it: Div(x, sqrt 2) -> Erf -> Add(., 1) -> Mul(x, .)
  // -> Mul(., 0.5), each step the only consumer of the one before.
  if (N.input_size() != 2 || !isLayer(N.input(0)) || !near(constFloat(N.input(1)), std::sqrt(2.0)))
    return std::nullopt;
  const std::string &X = N.input(0);
  std::array<size_t, 4> Nodes;
  const onnx::NodeProto *Erf = soleConsumer(N.output(0), &Nodes[0]);
  if (!Erf || Erf->op_type() != "Erf")
    return std::nullopt;
  const onnx::NodeProto *Add = soleConsumer(Erf->output(0), &Nodes[1]);
  if (!Add || Add->op_type() != "Add" || !near(constFloat(otherOperand(*Add, Erf->output(0))), 1))
    return std::nullopt;
  const onnx::NodeProto *Mul = soleConsumer(Add->output(0), &Nodes[2]);
  if (!Mul || Mul->op_type() != "Mul" || otherOperand(*Mul, Add->output(0)) != X)
    return std::nullopt;
  const onnx::NodeProto *Half = soleConsumer(Mul->output(0), &Nodes[3]);
  if (!Half || Half->op_type() != "Mul" ||
      !near(constFloat(otherOperand(*Half, Mul->output(0))), 0.5))
    return std::nullopt;
  return Nodes;
}

/// Erf outside the GELU pattern (whose Div imports it, importEltwise): an error naming the pattern.
Importer::Result Importer::importErf(const onnx::NodeProto &N) {
  return nodeError(N, "Erf is supported only inside GELU, x * 0.5 * (1 + erf(x / sqrt 2)) as "
                      "torch.nn.GELU exports it (Div, Erf, Add, Mul, Mul)");
}

} // namespace onnximport

} // namespace corpus
