// The lowering driver: walks a Network in order, lowers each layer through its kind's lowering
// (src/layers/), which fuses a conv/dense layer's elementwise tail into one kernel, and collects
// kernels, buffers and launches into a Workload.
#include "Lowerer.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <thread>

namespace corpus {
namespace lowering {

std::optional<ActivationKind> kernelActivation(const ActivationAttrs &A) {
  switch (A.kind) {
  case ActKind::Relu:
    return ActivationKind::Relu;
  case ActKind::Sigmoid:
    return ActivationKind::Sigmoid;
  case ActKind::HardSwish:
    return ActivationKind::HardSwish;
  case ActKind::Swish:
    return ActivationKind::Swish;
  case ActKind::Tanh:
    return ActivationKind::Tanh;
  case ActKind::Gelu:
    return ActivationKind::Gelu;
  case ActKind::Sqrt:
    return ActivationKind::Sqrt;
  case ActKind::Softplus:
    return ActivationKind::Softplus;
  case ActKind::Exp:
    return ActivationKind::Exp;
  case ActKind::GeluTanh:
    return ActivationKind::GeluTanh;
  case ActKind::Clip:
    if (A.alpha == 0.0f && A.beta == 6.0f)
      return ActivationKind::Relu6;
    if (A.alpha == 0.0f && std::isinf(A.beta) && A.beta > 0)
      return ActivationKind::Relu;
    return std::nullopt;
  case ActKind::HardSigmoid:
    if (std::fabs(A.alpha - 1.0f / 6.0f) < 1e-6f && std::fabs(A.beta - 0.5f) < 1e-6f)
      return ActivationKind::HardSigmoid;
    return std::nullopt;
  case ActKind::LeakyRelu:
    return ActivationKind::LeakyRelu;
  case ActKind::Elu:
    return ActivationKind::Elu;
  case ActKind::Celu:
    return ActivationKind::Celu;
  case ActKind::Selu:
    return ActivationKind::Selu;
  }
  return std::nullopt;
}

void appendShapeArgs(const KernelLaunch &K, WorkloadLaunch &L) {
  for (const ShapeArg &A : K.shapeArgs)
    L.args.push_back({"", 0, A.name, A.value});
}

std::optional<AxisSplit> splitAround(const Shape &S, int64_t Axis) {
  const size_t At = size_t(Axis < 0 ? Axis + int64_t(S.size()) : Axis);
  return splitRun(S, At, At + 1);
}

std::optional<AxisSplit> splitRun(const Shape &S, size_t First, size_t Last) {
  assert(First <= Last && Last <= S.size() && "a run of the shape's dimensions");
  uint64_t Parts[3] = {1, 1, 1};
  for (size_t D = 0; D < S.size(); ++D) {
    uint64_t &Part = Parts[D < First ? 0 : D < Last ? 1 : 2];
    Part *= uint64_t(S[D]);
    if (Part > UINT32_MAX)
      return std::nullopt;
  }
  return AxisSplit{uint32_t(Parts[0]), uint32_t(Parts[1]), uint32_t(Parts[2]), First};
}

Shape alignedTo(const Shape &S, size_t Rank) {
  assert(Rank >= S.size() && "aligning to a smaller rank");
  Shape Full(Rank - S.size(), 1);
  Full.insert(Full.end(), S.begin(), S.end());
  return Full;
}

std::string Lowerer::newBuffer(const std::string &Base, uint64_t Bytes, bool Random, double Range,
                               DType Type) {
  std::string Name;
  for (char C : Base)
    Name +=
        std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '.' || C == '-' ? C : '_';
  std::string Unique = Name;
  for (int I = 2; Names.count(Unique); ++I)
    Unique = Name + "_" + std::to_string(I);
  Names.insert(Unique);
  WorkloadBuffer B;
  B.name = Unique;
  B.bytes = Bytes;
  B.random = Random;
  B.dtype = Type;
  if (Random) {
    B.seed = O.seed + W.buffers.size();
    B.min = -Range;
    B.max = Range;
  }
  W.buffers.push_back(B);
  return Unique;
}

Tail Lowerer::fuseTail(LayerId Head, TailRoom Room, bool Int8Head) const {
  const bool Full = Room == TailRoom::Epilogue; // a batch norm and residual adds too
  Tail T;
  LayerId Cur = Head;
  auto Take = [&](LayerId Next) {
    T.layers.push_back(Next);
    Cur = Next;
  };
  auto ResidualOf = [&](LayerId Next) -> std::string {
    const Layer &A = Net.layer(Next);
    if (!Full || A.kind != LayerKind::Add || A.inputs.size() != 2)
      return "";
    LayerId Other = A.inputs[0] == Cur ? A.inputs[1] : A.inputs[0];
    if (Other == Cur || Net.layer(Other).shape != A.shape || Net.layer(Cur).shape != A.shape ||
        ReadInPlace.count(Other)) // an Expand's small buffer is no full-size residual
      return "";
    if (Int8Head && !Int8Of[Other].empty()) { // an int8 kernel reads either form, int8 first
      T.residualForm = TensorForm::I8Nhwc;
      return Int8Of[Other];
    }
    T.residualForm = TensorForm::F16Nchw;
    return BufferOf[Other]; // empty when not computed yet
  };
  auto TakeResidual = [&](ResidualKind Where) {
    if (LayerId N = sole(Cur); N != InvalidLayer)
      if (std::string R = ResidualOf(N); !R.empty()) {
        T.epilogue.residual = Where;
        T.residual = R;
        Take(N);
      }
  };
  if (LayerId N = sole(Cur);
      Full && N != InvalidLayer && Net.layer(N).kind == LayerKind::BatchNorm) {
    T.epilogue.batchNorm = true;
    Take(N);
  }
  TakeResidual(ResidualKind::BeforeActivation);
  if (LayerId N = sole(Cur); N != InvalidLayer && Net.layer(N).kind == LayerKind::Activation) {
    // An alpha (a leaky relu's slope) is a constant of the kernel, as TensorRT and inductor
    // fuse conv -> leaky relu; an elementwise kernel's one scalar may be its own.
    const auto &A = std::get<ActivationAttrs>(Net.layer(N).attrs);
    auto K = kernelActivation(A);
    if (K && (!activationTakesAlpha(*K) || Room != TailRoom::Activation)) {
      T.epilogue.activation = *K;
      T.epilogue.alpha = activationTakesAlpha(*K) ? A.alpha : 0.0f;
      Take(N);
    }
  }
  if (T.epilogue.residual == ResidualKind::None)
    TakeResidual(ResidualKind::AfterActivation);
  T.last = Cur;
  return T;
}

std::string Lowerer::paramBuffer(const std::string &Head, const KernelLaunch &K,
                                 const KernelParam &P, int64_t FanIn) {
  // Weights: seeded random, fan-in scaled (variance 1 / fan-in), near 1 for BN scales.
  const bool BnScale = P.role == ParamRole::BnScale;
  const double Range = P.role == ParamRole::Weight ? std::sqrt(3.0 / std::max<int64_t>(FanIn, 1))
                       : BnScale                   ? 0.5
                                                   : 0.1;
  std::string Buf =
      newBuffer(Head + "." + paramRoleName(P.role), paramBytes(P), true, Range, P.dtype);
  WorkloadBuffer &B = W.buffers.back();
  if (P.role == ParamRole::Weight && K.filtersBlocked)
    B.layout = "oihw16i";
  if (P.role == ParamRole::Weight && K.dtype == DType::I8) // int8 filters (Int8Gemm.h)
    B.layout = K.strategy == "conv_depthwise"                              ? "dw_c4t4"
               : K.strategy == "conv_direct" || K.strategy == "dense_gemm" ? "hwc4k4"
                                                                           : "ohwi";
  if (BnScale) { // BN scale in [0.5, 1.5]
    B.min = 0.5;
    B.max = 1.5;
  }
  if (P.dtype == DType::I8) { // int8 weights: symmetric quantisation uses [-127, 127]
    B.min = -127;
    B.max = 127;
  }
  if (P.role == ParamRole::Scale) { // quantisation scales
    B.min = 1.0 / 1024;
    B.max = 1.0 / 64;
  }
  return Buf;
}

support::MaybeError Lowerer::emit(LayerId Head, support::Expected<KernelLaunch> K, RoleBuffers In,
                                  const Tail &T, int64_t FanIn, const std::string &Into) {
  if (!K)
    return error(Head, K.error().message);
  const uint64_t Elem = dtypeBytes(O.dtype);
  const Layer &Out = Net.layer(T.last);
  const auto OutParam = std::find_if(K->params.begin(), K->params.end(), [](const KernelParam &P) {
    return P.role == ParamRole::Output;
  });
  const bool Int8Out = OutParam != K->params.end() && OutParam->dtype == DType::I8;
  std::string OutBuf =
      !Into.empty() ? Into
      : Int8Out     ? newBuffer(Out.name + ".int8", paramBytes(*OutParam), false, 0, DType::I8)
                    : newBuffer(Out.name + ".out",
                                static_cast<uint64_t>(elementCount(Out.shape)) * Elem, false, 0);
  if (!T.residual.empty())
    In[ParamRole::Residual] = T.residual;
  WorkloadLaunch L;
  L.kernel = K->kernel;
  L.strategy = K->strategy;
  L.math = K->math;
  L.grid = K->grid;
  L.block = K->block;
  L.sharedBytes = K->sharedBytes;
  L.dtype = K->dtype;
  const std::string &HeadName = Net.layer(Head).name;
  for (const KernelParam &P : K->params) {
    std::string Buf;
    if (P.role == ParamRole::Output)
      Buf = OutBuf;
    else if (auto It = In.find(P.role); It != In.end())
      Buf = It->second;
    else
      Buf = paramBuffer(HeadName, *K, P, FanIn);
    L.args.push_back({Buf, 0, "", 0});
  }
  appendShapeArgs(*K, L);
  L.layers.push_back(HeadName);
  L.macs = Net.layer(Head).macs;
  std::vector<std::string> &Holds = Int8Out ? Int8Of : BufferOf; // the output's form
  Holds[Head] = OutBuf;
  for (LayerId F : T.layers) {
    L.layers.push_back(Net.layer(F).name);
    L.macs += Net.layer(F).macs;
    Fused.insert(F);
    Holds[F] = OutBuf;
  }
  W.launches.push_back(std::move(L));
  return std::nullopt;
}

support::MaybeError Lowerer::emitAlone(LayerId Id, support::Expected<KernelLaunch> K,
                                       int64_t FanIn) {
  Tail T;
  T.last = Id;
  return emit(Id, std::move(K), {{ParamRole::Input, BufferOf[Net.layer(Id).inputs[0]]}}, T, FanIn);
}

support::MaybeError Lowerer::lowerLayer(LayerId Id) {
  if (int8())
    if (auto E = prepareInt8(Id))
      return E;
  switch (Net.layer(Id).kind) {
#define LAYER_KIND(Kind, Name, Attrs, Inputs)                                                      \
  case LayerKind::Kind:                                                                            \
    return lower##Kind(Id);
#include "corpus/LayerKinds.def"
  }
  return error(Id, "not supported by the lowering");
}

support::MaybeError Lowerer::lowerInput(LayerId Id) {
  const Layer &L = Net.layer(Id);
  BufferOf[Id] = newBuffer(
      L.name, static_cast<uint64_t>(elementCount(L.shape)) * dtypeBytes(O.dtype), true, 1.0);
  return std::nullopt;
}

support::MaybeError Lowerer::lowerView(LayerId Id) { // same bytes, new shape
  BufferOf[Id] = BufferOf[Net.layer(Id).inputs[0]];
  return std::nullopt;
}

support::Expected<Workload> Lowerer::run() {
  W.network = Net.name();
  W.arch = O.arch;
  W.dtype = Requested.dtype;
  W.math = Requested.math;
  W.kernels = O.kernels;
  if (auto E = mathModeError(Requested.math, Requested.dtype, O.arch))
    return support::Error("lower: " + *E);
  for (LayerId Id = 0; Id < Net.size(); ++Id)
    if (!Fused.count(Id))
      if (auto E = lowerLayer(Id))
        return *E;
  if (O.emitPtx) {
    unsigned Threads = O.threads ? O.threads : std::thread::hardware_concurrency();
    auto Ptx = Emitter.emitPtxModules(O.arch, Threads, O.cache);
    if (!Ptx)
      return Ptx.error();
    W.ptx = std::move(*Ptx);
  }
  W.kernelCount = Emitter.kernelCount();
  return std::move(W);
}

} // namespace lowering

support::Expected<Workload> lower(const Network &Net, const LowerOptions &Options) {
  lowering::Lowerer L(Net, Options);
  return L.run();
}

} // namespace corpus
