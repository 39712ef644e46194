// The lowering of an int8 inference engine (`--dtype int8`, Lowerer.h; docs/lowering.md, "Int8
// engines"): convolutions and dense layers on int8 kernels, every other layer as in an f16
// network, and quantize/dequantize reformats where a tensor crosses from one to the other, as
// TensorRT places reformatting layers at the edges of its int8 regions. A tensor's int8 form is
// NHWC with padded channels for a 4-d tensor, [rows][features] otherwise (reformatOf).
#include "Lowerer.h"

#include <cassert>

namespace corpus::lowering {

namespace {

/// The reformat of a tensor of shape S: a 4-d tensor as [N, C, H x W] (NCHW <-> NHWC), any other
/// as [rows, features, 1] (its last axis padded).
ReformatSpec reformatOf(const Shape &S, bool Quantize) {
  ReformatSpec R;
  R.quantize = Quantize;
  if (S.size() == 4) {
    R.batch = u32(S[0]), R.channels = u32(S[1]), R.spatial = u32(S[2] * S[3]);
    return R;
  }
  R.channels = u32(S.back());
  R.batch = u32(elementCount(S) / S.back());
  return R;
}

bool sameInt8Layout(const Shape &A, const Shape &B) {
  const ReformatSpec X = reformatOf(A, true), Y = reformatOf(B, true);
  return X.batch == Y.batch && X.channels == Y.channels && X.spatial == Y.spatial;
}

bool isView(LayerKind K) {
  return K == LayerKind::Flatten || K == LayerKind::Reshape || K == LayerKind::Identity;
}

} // namespace

LowerOptions Lowerer::f16Options(const LowerOptions &Options) {
  if (Options.dtype != DType::I8)
    return Options;
  LowerOptions F = Options;
  F.dtype = DType::F16;
  if (F.math == MathMode::Int8) // the f16 layers: as PyTorch runs f16 (tensor cores from sm_70)
    F.math = MathMode::Auto;
  return F;
}

MathMode Lowerer::int8Math() const {
  return Requested.math == MathMode::Auto ? autoMath(LayerKind::Conv, DType::I8, O.arch)
                                          : Requested.math;
}

bool Lowerer::int8Layer(LayerId C) const {
  if (!int8())
    return false;
  const Layer &L = Net.layer(C);
  const Shape &X = Net.layer(L.inputs[0]).shape;
  if (L.kind == LayerKind::Dense) // its rows must be the int8 form's (reformatOf)
    return X.size() != 4 || X[2] * X[3] == 1;
  if (L.kind != LayerKind::Conv)
    return false;
  const auto &A = std::get<ConvAttrs>(L.attrs);
  ConvSpec S;
  S.inChannels = u32(X[1]);
  S.outChannels = u32(A.outChannels);
  S.groups = u32(A.groups);
  return hasInt8Kernel(S);
}

bool Lowerer::int8View(LayerId V) const {
  const Layer &L = Net.layer(V);
  return isView(L.kind) && sameInt8Layout(Net.layer(L.inputs[0]).shape, L.shape);
}

TensorForm Lowerer::outputForm(LayerId Id) const {
  for (LayerId C : Consumers[Id]) {
    const Layer &L = Net.layer(C);
    const bool Reads = L.inputs.front() == Id;
    if (Reads && (L.kind == LayerKind::Conv || L.kind == LayerKind::Dense) && int8Layer(C))
      return TensorForm::I8Nhwc;
    const bool Passes = L.kind == LayerKind::Pad || int8View(C); // the same int8 bytes
    if (Reads && Passes && outputForm(C) == TensorForm::I8Nhwc)
      return TensorForm::I8Nhwc;
  }
  return TensorForm::F16Nchw;
}

support::Expected<std::string> Lowerer::reformat(LayerId Id, bool Quantize) {
  const Layer &L = Net.layer(Id);
  auto K = Emitter.add(reformatOf(L.shape, Quantize));
  if (!K)
    return K.error();
  const std::string From = Quantize ? BufferOf[Id] : Int8Of[Id];
  assert(!From.empty() && "a tensor with neither form");
  const KernelParam &Out = K->params.back(), &Scale = K->params[1];
  std::string To =
      newBuffer(L.name + (Quantize ? ".int8" : ".out"), paramBytes(Out), false, 0, Out.dtype);
  WorkloadLaunch R;
  R.kernel = K->kernel;
  R.strategy = K->strategy;
  R.grid = K->grid;
  R.block = K->block;
  R.layers = {L.name};
  R.dtype = DType::I8;
  R.args = {
      {From, 0, "", 0},
      {paramBuffer(L.name + (Quantize ? ".quantize" : ".dequantize"), *K, Scale, 0), 0, "", 0},
      {To, 0, "", 0}};
  appendShapeArgs(*K, R);
  W.launches.push_back(std::move(R));
  (Quantize ? Int8Of : BufferOf)[Id] = To;
  return To;
}

support::Expected<std::string> Lowerer::int8Input(LayerId Id) {
  return Int8Of[Id].empty() ? reformat(Id, true) : Int8Of[Id];
}

support::Expected<std::string> Lowerer::f16Input(LayerId Id) {
  return BufferOf[Id].empty() ? reformat(Id, false) : BufferOf[Id];
}

support::MaybeError Lowerer::prepareInt8(LayerId Id) {
  const Layer &L = Net.layer(Id);
  if (L.kind == LayerKind::Input || int8Layer(Id))
    return std::nullopt; // int8 layers quantize their input themselves
  if (L.kind == LayerKind::Pad && sole(Id) != InvalidLayer && int8Layer(sole(Id)))
    return std::nullopt;                // the convolution reads the pad's input
  if (isView(L.kind) && int8View(Id)) { // the int8 bytes serve the view as they are
    Int8Of[Id] = Int8Of[L.inputs[0]];
    if (!Int8Of[Id].empty())
      return std::nullopt;
  }
  for (LayerId In : L.inputs) // an f16 layer: its inputs in f16
    if (auto B = f16Input(In); !B)
      return error(Id, B.error().message);
  return std::nullopt;
}

template <class Spec>
support::MaybeError Lowerer::lowerInt8(LayerId Id, Spec S, const Tail &T, LayerId Src,
                                       int64_t FanIn) {
  auto In = int8Input(Src);
  if (!In)
    return error(Id, In.error().message);
  S.dtype = DType::I8;
  S.math = int8Math();
  S.int8 = {outputForm(T.last), T.residualForm};
  return emit(Id, Emitter.add(S), {{ParamRole::Input, *In}}, T, FanIn);
}

template support::MaybeError Lowerer::lowerInt8(LayerId, ConvSpec, const Tail &, LayerId, int64_t);
template support::MaybeError Lowerer::lowerInt8(LayerId, GemmSpec, const Tail &, LayerId, int64_t);

} // namespace corpus::lowering
