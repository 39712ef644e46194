// Stable kernel names (the emitter's dedup keys): every spec's name, the epilogue suffix, and the
// number and shape fragments they are built from.
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace corpus::kernels {

namespace {

constexpr size_t MaxNameLength = 100;

std::string num(uint64_t V) { return std::to_string(V); }

/// Name suffix of a kernel with 64-bit index arithmetic.
std::string indexSuffix(bool Wide) { return Wide ? "_i64" : ""; }

const char *strategyName(ConvStrategy S) {
  switch (S) {
  case ConvStrategy::Direct:
    return "direct";
  case ConvStrategy::Depthwise:
    return "dw";
  case ConvStrategy::Gemm:
    return "gemm";
  case ConvStrategy::ImplicitGemm:
    return "igemm";
  case ConvStrategy::Auto:
    break;
  }
  return "auto";
}

} // namespace

std::string pads(uint32_t T, uint32_t L, uint32_t Bm, uint32_t R) {
  if (T == L && L == Bm && Bm == R)
    return num(T);
  return num(T) + "_" + num(L) + "_" + num(Bm) + "_" + num(R);
}

const char *dtypeName(DType T) { return T == DType::F16 ? "f16" : T == DType::I8 ? "s8" : "f32"; }

std::string epilogueSuffix(const Epilogue &E) {
  std::string S;
  if (E.bias)
    S += "_bias";
  if (E.batchNorm)
    S += "_bn";
  if (E.residual == ResidualKind::BeforeActivation)
    S += "_res";
  if (E.activation != ActivationKind::None)
    S += std::string("_") + activationName(E.activation);
  if (activationTakesAlpha(E.activation))
    S += scalarName(E.alpha);
  if (E.seScale)
    S += "_se";
  if (E.residual == ResidualKind::AfterActivation)
    S += "_res";
  return S;
}

std::string shorten(std::string Name) {
  if (Name.size() <= MaxNameLength)
    return Name;
  uint64_t H = 1469598103934665603ull;
  for (unsigned char C : Name)
    H = (H ^ C) * 1099511628211ull;
  char Hex[17];
  std::snprintf(Hex, sizeof(Hex), "%016llx", static_cast<unsigned long long>(H));
  return Name.substr(0, 80) + "_h" + Hex;
}

/// "3" when both are equal, else "3x1".
std::string shapePair(uint32_t A, uint32_t B) { return A == B ? num(A) : num(A) + "x" + num(B); }

/// A float as a PTX identifier fragment: the shortest %g form (6 to 9 significant digits) that
/// reads back as the same float, '.' -> 'p', '-' -> 'm' (0.5 -> "0p5", -1e-05 -> "m1em05").
std::string scalarName(float V) {
  char Buf[32];
  for (int Digits = 6; Digits <= 9; ++Digits) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", Digits, static_cast<double>(V));
    if (std::strtof(Buf, nullptr) == V)
      break;
  }
  std::string N;
  for (const char *C = Buf; *C; ++C)
    if (*C == '.')
      N += 'p';
    else if (*C == '-')
      N += 'm';
    else if (*C != '+')
      N += *C;
  return N;
}

/// "_mma_tf32" for a tensor-core kernel ("_mma_f16_sm75" for the sm_75 and sm_70 kernels), ""
/// for CUDA cores.
std::string tensorCoreInfix(bool TensorCores, MathMode M, MmaArch A) {
  if (!TensorCores)
    return std::string();
  std::string Arch = A == MmaArch::Sm80 ? "" : mmaArchName(A);
  Arch.erase(std::remove(Arch.begin(), Arch.end(), '_'), Arch.end());
  return std::string("_mma_") + mathModeName(M) + (Arch.empty() ? "" : "_" + Arch);
}

bool convPadded(const ConvSpec &S) { return S.padTop || S.padLeft || S.padBottom || S.padRight; }

std::string convWindowKeys(const ConvSpec &S) {
  std::string N = "_k" + shapePair(S.kernelH, S.kernelW) + "_s" + shapePair(S.strideH, S.strideW);
  if (S.dilationH != 1 || S.dilationW != 1)
    N += "_d" + shapePair(S.dilationH, S.dilationW);
  return convPadded(S) ? N + "_pad" : N;
}

std::string libraryKernelName(const std::string &Body, DType T, const Epilogue &E, bool Wide) {
  return shorten("lib_" + Body + "_" + dtypeName(T) + epilogueSuffix(E) + indexSuffix(Wide));
}

std::string kernelName(const ConvSpec &S, ConvStrategy Resolved, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S, Resolved);
  std::string N = std::string("conv_") + strategyName(Resolved) +
                  tensorCoreInfix(usesTensorCores(S, Resolved), S.math, S.mmaArch) +
                  (blockedFilters(S, Resolved) ? "_oihw16i" : "") + "_n" + num(S.batch) + "_c" +
                  num(S.inChannels) + "x" + num(S.outChannels) + "_h" + num(S.inHeight) + "w" +
                  num(S.inWidth) + "_k" + shapePair(S.kernelH, S.kernelW) + "_s" +
                  shapePair(S.strideH, S.strideW) + "_p" +
                  pads(S.padTop, S.padLeft, S.padBottom, S.padRight);
  if (S.dilationH != 1 || S.dilationW != 1)
    N += "_d" + shapePair(S.dilationH, S.dilationW);
  if (S.groups != 1)
    N += "_g" + num(S.groups);
  return shorten(N + "_" + dtypeName(S.dtype) + epilogueSuffix(S.epilogue) +
                 indexSuffix(wideIndex(S)));
}

std::string kernelName(const GemmSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  return shorten(std::string(S.rows < MinGemmRows ? "gemv" : "dense") +
                 tensorCoreInfix(usesTensorCores(S), S.math, S.mmaArch) + "_m" + num(S.rows) +
                 "_k" + num(S.inFeatures) + "_n" + num(S.outFeatures) + "_" + dtypeName(S.dtype) +
                 epilogueSuffix(S.epilogue) + indexSuffix(wideIndex(S)));
}

std::string kernelName(const BatchMatMulSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  return shorten("bmm" + tensorCoreInfix(usesTensorCores(S), S.math, S.mmaArch) + "_b" +
                 num(S.batch) + "_m" + num(S.m) + "_n" + num(S.n) + "_k" + num(S.k) + "_" +
                 dtypeName(S.dtype) + indexSuffix(wideIndex(S)));
}

std::string kernelName(const PoolSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  std::string N = std::string(S.kind == PoolKind::Max ? "maxpool" : "avgpool") + "_n" +
                  num(S.batch) + "_c" + num(S.channels) + "_h" + num(S.inHeight) + "w" +
                  num(S.inWidth) + "_k" + shapePair(S.kernelH, S.kernelW) + "_s" +
                  shapePair(S.strideH, S.strideW) + "_p" +
                  pads(S.padTop, S.padLeft, S.padBottom, S.padRight);
  if (S.kind == PoolKind::Avg && S.countIncludePad)
    N += "_incpad";
  if (S.ceilMode)
    N += "_ceil";
  return shorten(N + "_" + dtypeName(S.dtype) + indexSuffix(wideIndex(S)));
}

const char *upsampleCoordsSuffix(UpsampleCoords C) {
  switch (C) {
  case UpsampleCoords::HalfPixel:
    return "";
  case UpsampleCoords::AlignCorners:
    return "_ac";
  case UpsampleCoords::Asymmetric:
    return "_as";
  }
  return "";
}

std::string kernelName(const UpsampleSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  return shorten("upsample_bilinear" + std::string(upsampleCoordsSuffix(S.coords)) + "_n" +
                 num(S.batch) + "_c" + num(S.channels) + "_h" + num(S.inHeight) + "w" +
                 num(S.inWidth) + "_x" + shapePair(S.scaleH, S.scaleW) + "_" + dtypeName(S.dtype) +
                 indexSuffix(wideIndex(S)));
}

std::string kernelName(const PadSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  return shorten(padKindName(S) + "_n" + num(S.batch) + "_c" + num(S.channels) + "_h" +
                 num(S.inHeight) + "w" + num(S.inWidth) + "_p" +
                 pads(S.top, S.left, S.bottom, S.right) + "_" + dtypeName(S.dtype) +
                 indexSuffix(wideIndex(S)));
}

std::string kernelName(const ReduceSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  return shorten("gap_n" + num(S.batch) + "_c" + num(S.channels) + "_s" + num(S.spatial) + "_" +
                 dtypeName(S.dtype) + epilogueSuffix(S.epilogue) + indexSuffix(wideIndex(S)));
}

std::string kernelName(const ElementwiseSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  static constexpr const char *Ops[] = {"add", "mul",  "scalech", "act",  "bn",  "div",
                                        "pow", "adds", "muls",    "divs", "pows"};
  std::string N = std::string("eltwise_") + Ops[static_cast<unsigned>(S.op)];
  // Only the channel scale and batch norm depend on the shape split; the others see a flat
  // element count.
  if (S.op == ElementwiseOp::ScaleChannels || S.op == ElementwiseOp::BatchNorm || S.broadcast)
    N += "_n" + num(S.batch) + "_c" + num(S.channels) + "_s" + num(S.spatial) +
         (S.broadcast ? "_bc" : "");
  else
    N += "_e" + num(elementwiseCount(S));
  if (isScalarOp(S.op))
    N += "_s" + scalarName(S.scalar);
  N += std::string("_") + dtypeName(S.dtype) + (halfElementwise(S) ? "x2" : "");
  if (S.activation != ActivationKind::None)
    N += std::string("_") + activationName(S.activation);
  if (activationTakesAlpha(S.activation)) // a kernel constant
    N += scalarName(S.scalar);
  return shorten(N + indexSuffix(wideIndex(S)));
}

std::string kernelName(const ConcatSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  std::string N = "concat_n" + num(S.batch) + "_of" + num(S.totalChannels) + "_at" +
                  num(S.channelOffset) + "_s" + num(S.spatial) + "_c";
  for (size_t K = 0; K < S.channels.size(); ++K) {
    if (K)
      N += '_';
    N += num(S.channels[K]);
  }
  return shorten(N + "_" + dtypeName(S.dtype) + indexSuffix(wideIndex(S)));
}

std::string kernelName(const SoftmaxSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  return shorten("softmax_r" + num(S.rows) + "_c" + num(S.cols) +
                 (S.inner > 1 ? "_i" + num(S.inner) : "") + "_" + dtypeName(S.dtype) +
                 indexSuffix(wideIndex(S)));
}

std::string_view axisReduceOpName(AxisReduceOp Op) {
  switch (Op) {
  case AxisReduceOp::Sum:
    return "sum";
  case AxisReduceOp::Mean:
    return "mean";
  case AxisReduceOp::Max:
    return "max";
  case AxisReduceOp::Min:
    return "min";
  case AxisReduceOp::SumSquare:
    return "sumsq";
  case AxisReduceOp::L1:
    return "l1";
  case AxisReduceOp::L2:
    return "l2";
  }
  assert(false && "unknown reduction");
  return "sum";
}

std::string kernelName(const AxisReduceSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  return shorten("reduce_" + std::string(axisReduceOpName(S.op)) + "_r" + num(S.rows) + "_c" +
                 num(S.cols) + (S.inner > 1 ? "_i" + num(S.inner) : "") + "_" + dtypeName(S.dtype) +
                 indexSuffix(wideIndex(S)));
}

std::string kernelName(const LayerNormSpec &S, KernelSet Set) {
  if (Set == KernelSet::Library)
    return libraryName(S);
  std::string N = "layernorm_r" + num(S.rows) + "_c" + num(S.cols);
  if (S.epsilon != 1e-5f)
    N += "_eps" + scalarName(S.epsilon);
  if (!S.affine)
    N += "_noaffine";
  return shorten(N + "_" + dtypeName(S.dtype) + indexSuffix(wideIndex(S)));
}

} // namespace corpus::kernels
