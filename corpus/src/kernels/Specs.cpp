// Layer specs: output shapes, validation, stable kernel names and the concat launch plan.
#include "kernels/Specs.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace corpus {

namespace {

uint32_t windowOut(uint32_t In, uint32_t PadA, uint32_t PadB, uint32_t K, uint32_t Stride,
                   uint32_t Dilation, bool Ceil = false) {
  if (Stride == 0 || Dilation == 0 || K == 0)
    return 0;
  uint64_t Padded = uint64_t(In) + PadA + PadB;
  uint64_t Span = uint64_t(Dilation) * (K - 1) + 1;
  if (In == 0 || Padded < Span)
    return 0;
  uint64_t Steps = Ceil ? (Padded - Span + Stride - 1) / Stride : (Padded - Span) / Stride;
  if (Ceil && Steps * Stride >= uint64_t(In) + PadA)
    --Steps; // the last window would start in the trailing padding
  return static_cast<uint32_t>(Steps + 1);
}

} // namespace

uint32_t ConvSpec::outHeight() const {
  return windowOut(inHeight, padTop, padBottom, kernelH, strideH, dilationH);
}
uint32_t ConvSpec::outWidth() const {
  return windowOut(inWidth, padLeft, padRight, kernelW, strideW, dilationW);
}
uint32_t PoolSpec::outHeight() const {
  return windowOut(inHeight, padTop, padBottom, kernelH, strideH, 1, ceilMode);
}
uint32_t PoolSpec::outWidth() const {
  return windowOut(inWidth, padLeft, padRight, kernelW, strideW, 1, ceilMode);
}

uint32_t dtypeBytes(DType T) { return T == DType::F16 ? 2 : 4; }

const char *activationName(ActivationKind K) {
  switch (K) {
  case ActivationKind::None:
    return "none";
  case ActivationKind::Relu:
    return "relu";
  case ActivationKind::Relu6:
    return "relu6";
  case ActivationKind::Sigmoid:
    return "sigmoid";
  case ActivationKind::HardSigmoid:
    return "hardsigmoid";
  case ActivationKind::HardSwish:
    return "hardswish";
  case ActivationKind::Swish:
    return "swish";
  case ActivationKind::Tanh:
    return "tanh";
  }
  return "unknown";
}

const char *paramRoleName(ParamRole R) {
  static constexpr const char *Names[] = {"input",    "input2",   "weight",   "bias",  "bn_scale",
                                          "bn_shift", "se_scale", "residual", "output"};
  return Names[static_cast<unsigned>(R)];
}

std::vector<ConcatSpec> planConcat(uint32_t Batch, const std::vector<uint32_t> &Channels,
                                   uint32_t Spatial, DType T) {
  uint32_t Total = 0;
  for (uint32_t C : Channels)
    Total += C;
  std::vector<ConcatSpec> Plan;
  uint32_t Offset = 0;
  for (size_t First = 0; First < Channels.size(); First += ConcatBatchSize) {
    ConcatSpec S;
    S.batch = Batch;
    S.totalChannels = Total;
    S.channelOffset = Offset;
    S.spatial = Spatial;
    S.dtype = T;
    size_t End = std::min(Channels.size(), First + ConcatBatchSize);
    S.channels.assign(Channels.begin() + First, Channels.begin() + End);
    for (uint32_t C : S.channels)
      Offset += C;
    Plan.push_back(std::move(S));
  }
  return Plan;
}

namespace kernels {

namespace {

constexpr uint64_t MaxElements = uint64_t(1) << 31; // i32 index arithmetic
constexpr uint32_t MaxGridYZ = 65535;
constexpr size_t MaxNameLength = 100;
constexpr uint32_t MinImplicitGemmChannels = 16; // below, most of a 16-row GEMM tile idles

std::string num(uint64_t V) { return std::to_string(V); }

/// "3" when both are equal, else "3x1".
std::string pair(uint32_t A, uint32_t B) { return A == B ? num(A) : num(A) + "x" + num(B); }

std::string pads(uint32_t T, uint32_t L, uint32_t Bm, uint32_t R) {
  if (T == L && L == Bm && Bm == R)
    return num(T);
  return num(T) + "_" + num(L) + "_" + num(Bm) + "_" + num(R);
}

const char *dtypeName(DType T) { return T == DType::F16 ? "f16" : "f32"; }

/// The epilogue in application order, e.g. "_bias_bn_res_relu".
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
  if (E.seScale)
    S += "_se";
  if (E.residual == ResidualKind::AfterActivation)
    S += "_res";
  return S;
}

/// Long names keep their first 80 characters and gain a 64-bit FNV-1a hash of the whole.
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

std::optional<std::string> tooLarge(const char *Layer, uint64_t Elements) {
  if (Elements >= MaxElements)
    return std::string(Layer) + ": tensor with " + num(Elements) +
           " elements exceeds the 2^31 limit of 32-bit indexing";
  return std::nullopt;
}

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

bool isPointwise(const ConvSpec &S) {
  return S.kernelH == 1 && S.kernelW == 1 && S.strideH == 1 && S.strideW == 1 && S.groups == 1 &&
         !S.padTop && !S.padLeft && !S.padBottom && !S.padRight;
}

bool isDepthwise(const ConvSpec &S) {
  return S.groups > 1 && S.groups == S.inChannels && S.outChannels % S.groups == 0;
}

} // namespace

ConvStrategy resolveStrategy(const ConvSpec &S) {
  if (S.strategy != ConvStrategy::Auto)
    return S.strategy;
  if (isDepthwise(S))
    return ConvStrategy::Depthwise;
  if (isPointwise(S))
    return ConvStrategy::Gemm;
  if (S.groups == 1 && S.outChannels >= MinImplicitGemmChannels)
    return ConvStrategy::ImplicitGemm;
  return ConvStrategy::Direct;
}

std::optional<std::string> validate(const ConvSpec &S, ConvStrategy Resolved) {
  if (!S.batch || !S.inChannels || !S.inHeight || !S.inWidth || !S.outChannels || !S.kernelH ||
      !S.kernelW || !S.groups)
    return "conv: zero-sized dimension in " + kernelName(S, Resolved);
  if (!S.strideH || !S.strideW || !S.dilationH || !S.dilationW)
    return std::string("conv: stride and dilation must be positive");
  if (S.inChannels % S.groups || S.outChannels % S.groups)
    return "conv: channels " + num(S.inChannels) + " -> " + num(S.outChannels) +
           " not divisible by groups " + num(S.groups);
  if (!S.outHeight() || !S.outWidth())
    return "conv: window " + pair(S.kernelH, S.kernelW) + " does not fit the padded input " +
           num(S.inHeight) + "x" + num(S.inWidth);
  if (S.outChannels > MaxGridYZ || S.batch > MaxGridYZ)
    return "conv: out channels and batch must be at most 65535 (grid y/z)";
  if (Resolved == ConvStrategy::Depthwise && !isDepthwise(S))
    return std::string("conv: depthwise strategy needs groups == in channels > 1");
  if (Resolved == ConvStrategy::ImplicitGemm && S.groups != 1)
    return std::string("conv: implicit gemm strategy needs an ungrouped conv");
  if (Resolved == ConvStrategy::Gemm && !isPointwise(S))
    return std::string("conv: gemm strategy needs a 1x1, stride 1, unpadded, ungrouped conv");
  uint64_t In = uint64_t(S.batch) * S.inChannels * S.inHeight * S.inWidth;
  uint64_t Out = uint64_t(S.batch) * S.outChannels * S.outHeight() * S.outWidth();
  uint64_t W = uint64_t(S.outChannels) * (S.inChannels / S.groups) * S.kernelH * S.kernelW;
  if (auto E = tooLarge("conv", std::max({In, Out, W})))
    return E;
  return std::nullopt;
}

std::optional<std::string> validate(const GemmSpec &S) {
  if (!S.rows || !S.inFeatures || !S.outFeatures)
    return std::string("dense: zero-sized dimension");
  if (S.epilogue.seScale)
    return std::string("dense: squeeze-excitation scale is not supported");
  if (S.rows > MaxGridYZ * 16ull)
    return std::string("dense: at most 1048560 rows (grid y)");
  uint64_t M = std::max({uint64_t(S.rows) * S.inFeatures, uint64_t(S.rows) * S.outFeatures,
                         uint64_t(S.inFeatures) * S.outFeatures});
  return tooLarge("dense", M);
}

std::optional<std::string> validate(const PoolSpec &S) {
  if (!S.batch || !S.channels || !S.inHeight || !S.inWidth || !S.kernelH || !S.kernelW)
    return std::string("pool: zero-sized dimension");
  if (!S.strideH || !S.strideW)
    return std::string("pool: stride must be positive");
  if (S.padTop >= S.kernelH || S.padBottom >= S.kernelH || S.padLeft >= S.kernelW ||
      S.padRight >= S.kernelW)
    return std::string("pool: padding must be smaller than the window");
  if (!S.outHeight() || !S.outWidth())
    return "pool: window " + pair(S.kernelH, S.kernelW) + " does not fit the padded input";
  if (S.channels > MaxGridYZ || S.batch > MaxGridYZ)
    return std::string("pool: channels and batch must be at most 65535 (grid y/z)");
  return tooLarge("pool", uint64_t(S.batch) * S.channels * S.inHeight * S.inWidth);
}

std::optional<std::string> validate(const ReduceSpec &S) {
  if (!S.batch || !S.channels || !S.spatial)
    return std::string("global average pool: zero-sized dimension");
  if (S.batch > MaxGridYZ)
    return std::string("global average pool: batch must be at most 65535 (grid y)");
  return tooLarge("global average pool", uint64_t(S.batch) * S.channels * S.spatial);
}

std::optional<std::string> validate(const ElementwiseSpec &S) {
  if (!S.batch || !S.channels || !S.spatial)
    return std::string("elementwise: zero-sized dimension");
  return tooLarge("elementwise", uint64_t(S.batch) * S.channels * S.spatial);
}

std::optional<std::string> validate(const ConcatSpec &S) {
  if (S.channels.empty() || S.channels.size() > ConcatBatchSize)
    return "concat: one launch copies 1 to " + num(ConcatBatchSize) + " inputs, not " +
           num(S.channels.size());
  uint64_t End = S.channelOffset;
  for (uint32_t C : S.channels) {
    if (!C)
      return std::string("concat: zero-sized dimension");
    End += C;
  }
  if (!S.batch || !S.spatial)
    return std::string("concat: zero-sized dimension");
  if (End > S.totalChannels)
    return "concat: channels [" + num(S.channelOffset) + ", " + num(End) +
           ") exceed the output's " + num(S.totalChannels);
  return tooLarge("concat", uint64_t(S.batch) * S.totalChannels * S.spatial);
}

std::optional<std::string> validate(const SoftmaxSpec &S) {
  if (!S.rows || !S.cols)
    return std::string("softmax: zero-sized dimension");
  return tooLarge("softmax", uint64_t(S.rows) * S.cols);
}

std::string kernelName(const ConvSpec &S, ConvStrategy Resolved) {
  std::string N = std::string("conv_") + strategyName(Resolved) + "_n" + num(S.batch) + "_c" +
                  num(S.inChannels) + "x" + num(S.outChannels) + "_h" + num(S.inHeight) + "w" +
                  num(S.inWidth) + "_k" + pair(S.kernelH, S.kernelW) + "_s" +
                  pair(S.strideH, S.strideW) + "_p" +
                  pads(S.padTop, S.padLeft, S.padBottom, S.padRight);
  if (S.dilationH != 1 || S.dilationW != 1)
    N += "_d" + pair(S.dilationH, S.dilationW);
  if (S.groups != 1)
    N += "_g" + num(S.groups);
  return shorten(N + "_" + dtypeName(S.dtype) + epilogueSuffix(S.epilogue));
}

std::string kernelName(const GemmSpec &S) {
  return shorten(std::string(S.rows < MinGemmRows ? "gemv" : "dense") + "_m" + num(S.rows) + "_k" +
                 num(S.inFeatures) + "_n" + num(S.outFeatures) + "_" + dtypeName(S.dtype) +
                 epilogueSuffix(S.epilogue));
}

std::string kernelName(const PoolSpec &S) {
  std::string N = std::string(S.kind == PoolKind::Max ? "maxpool" : "avgpool") + "_n" +
                  num(S.batch) + "_c" + num(S.channels) + "_h" + num(S.inHeight) + "w" +
                  num(S.inWidth) + "_k" + pair(S.kernelH, S.kernelW) + "_s" +
                  pair(S.strideH, S.strideW) + "_p" +
                  pads(S.padTop, S.padLeft, S.padBottom, S.padRight);
  if (S.kind == PoolKind::Avg && S.countIncludePad)
    N += "_incpad";
  if (S.ceilMode)
    N += "_ceil";
  return shorten(N + "_" + dtypeName(S.dtype));
}

std::string kernelName(const ReduceSpec &S) {
  return shorten("gap_n" + num(S.batch) + "_c" + num(S.channels) + "_s" + num(S.spatial) + "_" +
                 dtypeName(S.dtype) + epilogueSuffix(S.epilogue));
}

std::string kernelName(const ElementwiseSpec &S) {
  static constexpr const char *Ops[] = {"add", "mul", "scalech", "act", "bn"};
  std::string N = std::string("eltwise_") + Ops[static_cast<unsigned>(S.op)];
  // Only the channel scale and batch norm depend on the shape split; the others see a flat
  // element count.
  if (S.op == ElementwiseOp::ScaleChannels || S.op == ElementwiseOp::BatchNorm)
    N += "_n" + num(S.batch) + "_c" + num(S.channels) + "_s" + num(S.spatial);
  else
    N += "_e" + num(uint64_t(S.batch) * S.channels * S.spatial);
  N += std::string("_") + dtypeName(S.dtype);
  if (S.activation != ActivationKind::None)
    N += std::string("_") + activationName(S.activation);
  return shorten(N);
}

std::string kernelName(const ConcatSpec &S) {
  std::string N = "concat_n" + num(S.batch) + "_of" + num(S.totalChannels) + "_at" +
                  num(S.channelOffset) + "_s" + num(S.spatial) + "_c";
  for (size_t K = 0; K < S.channels.size(); ++K) {
    if (K)
      N += '_';
    N += num(S.channels[K]);
  }
  return shorten(N + "_" + dtypeName(S.dtype));
}

std::string kernelName(const SoftmaxSpec &S) {
  return shorten("softmax_r" + num(S.rows) + "_c" + num(S.cols) + "_" + dtypeName(S.dtype));
}

} // namespace kernels
} // namespace corpus
