// The lowering of elementwise, normalisation, concatenation and copy layers (Lowerer.h).
#include "Lowerer.h"

#include <algorithm>
#include <cassert>

namespace corpus::lowering {

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

/// A shape as [outer, axis, inner] around one axis (negative counts from the end; the network
/// checked the range), as PyTorch's cat and softmax kernels see any axis; nullopt when a part
/// does not fit the kernels' 32-bit sizes.
struct AxisSplit {
  uint32_t outer, axis, inner;
  size_t at; ///< the axis, resolved
};

std::optional<AxisSplit> splitAround(const Shape &S, int64_t Axis) {
  const size_t At = size_t(Axis < 0 ? Axis + int64_t(S.size()) : Axis);
  int64_t Outer = 1, Inner = 1;
  for (size_t D = 0; D < At; ++D)
    Outer *= S[D];
  for (size_t D = At + 1; D < S.size(); ++D)
    Inner *= S[D];
  if (Outer > UINT32_MAX || Inner > UINT32_MAX || S[At] > UINT32_MAX)
    return std::nullopt;
  return AxisSplit{uint32_t(Outer), uint32_t(S[At]), uint32_t(Inner), At};
}

} // namespace

std::optional<support::Error> Lowerer::lowerElementwise(LayerId Id) {
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
    auto K = kernelActivation(std::get<ActivationAttrs>(L.attrs));
    if (!K)
      return error(Id, "this activation's parameters are not supported by the lowering");
    S.op = ElementwiseOp::Activation;
    S.activation = *K;
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
  T = fuseTail(Id, false, false);
  S.activation = T.epilogue.activation;
  return emit(Id, Emitter.add(S), In, T, 0);
}

/// An elementwise op of a layer and a constant tensor (ONNX; only the cost matters, not the
/// values): one element is the scalar kernel (with a neutral number; pow's is a general
/// exponent); one value per channel of an NCHW output or per element of its last axis is the
/// per-channel affine kernel, x * scale[c] + shift[c] (not for pow); a constant of the output's
/// shape is the two-operand kernel reading it as a weight.
std::optional<support::Error> Lowerer::lowerConstantOperand(LayerId Id, ElementwiseSpec S,
                                                            const Shape &C) {
  const Layer &L = Net.layer(Id);
  const Shape &Y = L.shape;
  const int64_t Count = elementCount(C);
  RoleBuffers In{{ParamRole::Input, BufferOf[L.inputs[0]]}};
  Tail T = fuseTail(Id, false, false);
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

/// An elementwise op of two layers: same shapes, or (Mul) a [N, C, 1, 1] channel scale; Add and
/// Mul take the full-size operand first.
std::optional<support::Error> Lowerer::lowerBinary(LayerId Id, ElementwiseSpec S) {
  const Layer &L = Net.layer(Id);
  const Shape &Y = L.shape;
  const bool Commutes = L.kind == LayerKind::Add || L.kind == LayerKind::Mul;
  LayerId A = L.inputs[0], B = L.inputs[1];
  if (Commutes && Net.layer(A).shape != Y) // the full-size operand goes first
    std::swap(A, B);
  const Shape &SB = Net.layer(B).shape;
  if (Net.layer(A).shape != Y)
    return error(Id, "broadcasting both operands is not supported by the lowering");
  if (SB == Y) {
    S.op = binaryOp(L.kind, false);
  } else if (L.kind == LayerKind::Mul && Y.size() == 4 && SB == Shape{Y[0], Y[1], 1, 1}) {
    S.op = ElementwiseOp::ScaleChannels;
  } else {
    return error(Id, "broadcast " + shapeStr(SB) + " is not supported by the lowering");
  }
  RoleBuffers In = {{ParamRole::Input, BufferOf[A]}, {ParamRole::Input2, BufferOf[B]}};
  Tail T = fuseTail(Id, false, false);
  S.activation = T.epilogue.activation;
  return emit(Id, Emitter.add(S), In, T, 0);
}

std::optional<support::Error> Lowerer::lowerLayerNorm(LayerId Id) {
  const Layer &L = Net.layer(Id);
  LayerNormSpec S;
  S.cols = u32(L.shape.back());
  S.rows = u32(elementCount(L.shape) / L.shape.back());
  S.epsilon = std::get<LayerNormAttrs>(L.attrs).epsilon;
  S.dtype = O.dtype;
  return emitAlone(Id, Emitter.add(S), 1);
}

std::optional<support::Error> Lowerer::lowerBatchNorm(LayerId Id) {
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
  Tail T = fuseTail(Id, false, false);
  S.activation = T.epilogue.activation;
  return emit(Id, Emitter.add(S), {{ParamRole::Input, BufferOf[L.inputs[0]]}}, T, 0);
}

std::optional<support::Error> Lowerer::lowerConcat(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const int64_t Given = std::get<ConcatAttrs>(L.attrs).axis;
  // Any axis is [outer, axis, inner] (PyTorch's CatArrayBatchedCopy takes the dimension too):
  // channels are axis 1 of NCHW, a YOLO head's boxes the last axis (inner 1).
  const std::optional<AxisSplit> Split = splitAround(L.shape, Given);
  if (!Split)
    return error(Id, "concatenation of " + shapeStr(L.shape) + " along axis " +
                         std::to_string(Given) + ": a dimension past 2^32 elements");
  const std::string Out =
      newBuffer(L.name + ".out", static_cast<uint64_t>(elementCount(L.shape)) * dtypeBytes(O.dtype),
                false, 0);
  std::vector<uint32_t> Channels;
  for (LayerId In : L.inputs)
    Channels.push_back(u32(Net.layer(In).shape[Split->at]));
  // PyTorch's torch.cat: one batched copy launch per run of up to 128 inputs, each input into its
  // channel slice of the one output (emit() maps a role to one buffer, so the launch is built
  // here).
  size_t Next = 0; // the first input of the next launch
  for (const ConcatSpec &S : planConcat(Split->outer, Channels, Split->inner, O.dtype)) {
    auto K = Emitter.add(S);
    if (!K)
      return error(Id, K.error().message);
    assert(K->params.size() == S.channels.size() + 1 && "concat: inputs, then the output");
    WorkloadLaunch Launch{K->kernel,      K->strategy, K->grid,  K->block,
                          K->sharedBytes, {},          {L.name}, Next ? 0 : L.macs};
    Launch.dtype = K->dtype;
    for (size_t I = 0; I < S.channels.size(); ++I)
      Launch.args.push_back({BufferOf[L.inputs[Next + I]], 0, "", 0});
    Launch.args.push_back({Out, 0, "", 0});
    appendShapeArgs(*K, Launch);
    W.launches.push_back(std::move(Launch));
    Next += S.channels.size();
  }
  BufferOf[Id] = Out;
  return std::nullopt;
}

std::optional<support::Error> Lowerer::lowerSoftmax(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const std::optional<AxisSplit> Split = splitAround(L.shape, std::get<SoftmaxAttrs>(L.attrs).axis);
  if (!Split)
    return error(Id, "softmax of " + shapeStr(L.shape) + ": a dimension past 2^32 elements");
  SoftmaxSpec S;
  S.rows = Split->outer;
  S.cols = Split->axis;
  S.inner = Split->inner;
  S.dtype = O.dtype;
  return emitAlone(Id, Emitter.add(S));
}

std::optional<support::Error> Lowerer::lowerPad(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const auto &P = std::get<PadAttrs>(L.attrs);
  LayerId C = sole(Id);
  if (C == InvalidLayer || Net.layer(C).kind != LayerKind::Conv || P.mode != PadMode::Constant ||
      P.value != 0.0f)
    return error(Id, "only zero padding feeding a convolution is supported by the lowering");
  PadInto[C] = P;
  BufferOf[Id] = BufferOf[L.inputs[0]];
  return std::nullopt;
}

std::optional<support::Error> Lowerer::lowerCopy(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const Shape &X = Net.layer(L.inputs[0]).shape;
  std::vector<uint64_t> In(X.begin(), X.end());
  std::optional<CopySpec> S;
  if (const auto *U = std::get_if<UpsampleAttrs>(&L.attrs)) {
    S = planUpsample(In[0] * In[1], In[2], In[3], uint64_t(U->scaleH), uint64_t(U->scaleW),
                     O.dtype);
  } else {
    std::vector<CopyAxis> Axes(X.size());
    std::vector<size_t> Perm(X.size());
    for (size_t D = 0; D < X.size(); ++D) {
      Axes[D].count = In[D];
      Perm[D] = D;
    }
    if (const auto *T = std::get_if<TransposeAttrs>(&L.attrs)) {
      const std::vector<int64_t> P = resolvePerm(*T, X.size());
      Perm.assign(P.begin(), P.end());
    } else {
      auto Ranges = resolveSlice(X, std::get<SliceAttrs>(L.attrs));
      assert(Ranges && "Network::add validated the slice");
      for (size_t D = 0; D < X.size(); ++D)
        Axes[D] = {uint64_t((*Ranges)[D].start), uint64_t((*Ranges)[D].count),
                   uint64_t((*Ranges)[D].step)};
    }
    S = planCopy(In, Axes, Perm, O.dtype);
  }
  if (!S) { // the same elements in the same order
    BufferOf[Id] = BufferOf[L.inputs[0]];
    return std::nullopt;
  }
  return emitAlone(Id, Emitter.add(*S));
}

} // namespace corpus::lowering
