// Layer specs: output shapes, validation and the concat launch plan (names: KernelNames.cpp).
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <algorithm>
#include <cmath>
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

uint32_t dtypeBytes(DType T) { return T == DType::F16 ? 2 : T == DType::I8 ? 1 : 4; }

uint64_t paramBytes(const KernelParam &P) { return P.elements * dtypeBytes(P.dtype); }

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
  case ActivationKind::Gelu:
    return "gelu";
  case ActivationKind::Sqrt:
    return "sqrt";
  case ActivationKind::LeakyRelu:
    return "leakyrelu";
  case ActivationKind::Softplus:
    return "softplus";
  case ActivationKind::Exp:
    return "exp";
  case ActivationKind::GeluTanh:
    return "gelutanh";
  case ActivationKind::Selu:
    return "selu";
  case ActivationKind::Elu:
    return "elu";
  case ActivationKind::Celu:
    return "celu";
  }
  return "unknown";
}

bool activationTakesAlpha(ActivationKind K) {
  return K == ActivationKind::LeakyRelu || K == ActivationKind::Elu || K == ActivationKind::Celu;
}

const char *paramRoleName(ParamRole R) {
  static constexpr const char *Names[] = {"input",    "input2",   "weight",   "scale",    "bias",
                                          "bn_scale", "bn_shift", "se_scale", "residual", "output"};
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

/// Offsets inside one image, plane or row stay 32-bit (signed: padding makes them negative).
constexpr uint64_t MaxInnerElements = uint64_t(1) << 31;
constexpr uint64_t WideElements = uint64_t(1) << 31; // from here on, 64-bit index arithmetic
constexpr uint32_t MinImplicitGemmChannels = 16; // below, most of a 16-row GEMM tile idles

std::string num(uint64_t V) { return std::to_string(V); }

} // namespace

namespace {

/// The part of a tensor whose offsets stay 32-bit (an image, a plane, a row) must stay below 2^31.
std::optional<std::string> innerTooLarge(const char *Layer, const char *What, uint64_t Elements) {
  if (Elements >= MaxInnerElements)
    return std::string(Layer) + ": " + What + " of " + num(Elements) +
           " elements exceeds 2^31 (offsets inside it are 32-bit)";
  return std::nullopt;
}

uint64_t convInput(const ConvSpec &S) {
  return uint64_t(S.batch) * S.inChannels * S.inHeight * S.inWidth;
}
uint64_t convOutput(const ConvSpec &S) {
  return uint64_t(S.batch) * S.outChannels * S.outHeight() * S.outWidth();
}
uint64_t convWeights(const ConvSpec &S) {
  return uint64_t(S.outChannels) * (S.inChannels / std::max(S.groups, 1u)) * S.kernelH * S.kernelW;
}

/// What the tensor-core kernels of A take in mode M: a resolved mode, data of a type the mode
/// can take, an architecture that has the mode.
std::optional<std::string> mathDataError(const char *Layer, MathMode M, MmaArch A, DType T) {
  if (M == MathMode::Auto)
    return std::string(Layer) +
           ": --math auto is chosen per layer by the lowering; a kernel takes simt, tf32, f16 "
           "or bf16";
  if (auto E = mathModeError(M, T, mmaArchName(A)))
    return std::string(Layer) + ": " + *E;
  return std::nullopt;
}

bool isPointwise(const ConvSpec &S) {
  return S.kernelH == 1 && S.kernelW == 1 && S.strideH == 1 && S.strideW == 1 && S.groups == 1 &&
         !S.padTop && !S.padLeft && !S.padBottom && !S.padRight;
}

bool isDepthwise(const ConvSpec &S) {
  return S.groups > 1 && S.groups == S.inChannels && S.outChannels % S.groups == 0;
}

} // namespace

bool halfActivation(ActivationKind A) {
  return A == ActivationKind::None || A == ActivationKind::Relu || A == ActivationKind::Relu6;
}

uint64_t elementwiseCount(const ElementwiseSpec &S) {
  return uint64_t(S.batch) * S.channels * S.spatial;
}

bool halfElementwise(const ElementwiseSpec &S) {
  if (S.math != MathMode::F16 || S.dtype != DType::F16 || !halfActivation(S.activation) ||
      S.broadcast)
    return false;
  switch (S.op) {
  case ElementwiseOp::Add:
  case ElementwiseOp::Mul:
  case ElementwiseOp::AddScalar:
  case ElementwiseOp::MulScalar:
  case ElementwiseOp::Activation:
    return true;
  case ElementwiseOp::ScaleChannels:
  case ElementwiseOp::BatchNorm:
    return S.spatial % 2 == 0;
  default:
    return false;
  }
}

bool usesTensorCores(const ConvSpec &S, ConvStrategy Resolved) {
  return S.math != MathMode::Simt &&
         (Resolved == ConvStrategy::Gemm || Resolved == ConvStrategy::ImplicitGemm);
}

bool blockedFilters(const ConvSpec &S, ConvStrategy Resolved) {
  return usesTensorCores(S, Resolved) && Resolved == ConvStrategy::ImplicitGemm && S.groups == 1 &&
         S.inChannels % MmaKStep == 0;
}

bool usesTensorCores(const GemmSpec &S) {
  return S.math != MathMode::Simt && S.rows >= MinGemmRows;
}

bool usesTensorCores(const BatchMatMulSpec &S) {
  return S.math != MathMode::Simt && S.batch <= MaxGridYZ;
}

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
    return "conv: window " + shapePair(S.kernelH, S.kernelW) + " does not fit the padded input " +
           num(S.inHeight) + "x" + num(S.inWidth);
  if (S.outChannels > MaxGridYZ || S.batch > MaxGridYZ)
    return "conv: out channels and batch must be at most 65535 (grid y/z)";
  if (Resolved == ConvStrategy::Depthwise && !isDepthwise(S))
    return std::string("conv: depthwise strategy needs groups == in channels > 1");
  if (Resolved == ConvStrategy::ImplicitGemm && S.groups != 1)
    return std::string("conv: implicit gemm strategy needs an ungrouped conv");
  if (Resolved == ConvStrategy::Gemm && !isPointwise(S))
    return std::string("conv: gemm strategy needs a 1x1, stride 1, unpadded, ungrouped conv");
  if (auto E = mathDataError("conv", S.math, S.mmaArch, S.dtype))
    return E;
  if (auto E =
          innerTooLarge("conv", "an input image", uint64_t(S.inChannels) * S.inHeight * S.inWidth))
    return E;
  return innerTooLarge("conv", "an output plane", uint64_t(S.outHeight()) * S.outWidth());
}

std::optional<std::string> validate(const GemmSpec &S) {
  if (!S.rows || !S.inFeatures || !S.outFeatures)
    return std::string("dense: zero-sized dimension");
  if (S.epilogue.seScale)
    return std::string("dense: squeeze-excitation scale is not supported");
  if (S.rows > MaxGridYZ * 16ull)
    return std::string("dense: at most 1048560 rows (grid y)");
  if (S.inFeatures >= MaxInnerElements || S.outFeatures >= MaxInnerElements)
    return std::string("dense: features must be below 2^31");
  return mathDataError("dense", S.math, S.mmaArch, S.dtype);
}

std::optional<std::string> validate(const BatchMatMulSpec &S) {
  if (!S.batch || !S.m || !S.n || !S.k)
    return std::string("bmm: zero-sized dimension");
  if (S.m > MaxGridYZ * 16ull)
    return std::string("bmm: at most 1048560 rows (grid y)");
  if (S.n >= MaxInnerElements || S.k >= MaxInnerElements)
    return std::string("bmm: inner and column dimensions must be below 2^31");
  return mathDataError("bmm", S.math, S.mmaArch, S.dtype);
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
    return "pool: window " + shapePair(S.kernelH, S.kernelW) + " does not fit the padded input";
  if (S.channels > MaxGridYZ || S.batch > MaxGridYZ)
    return std::string("pool: channels and batch must be at most 65535 (grid y/z)");
  if (auto E = innerTooLarge("pool", "an input plane", uint64_t(S.inHeight) * S.inWidth))
    return E;
  return innerTooLarge("pool", "an output plane", uint64_t(S.outHeight()) * S.outWidth());
}

std::optional<std::string> validate(const UpsampleSpec &S) {
  if (!S.batch || !S.channels || !S.inHeight || !S.inWidth || !S.scaleH || !S.scaleW)
    return std::string("upsample: zero-sized dimension or scale");
  if (S.channels > MaxGridYZ || S.batch > MaxGridYZ)
    return std::string("upsample: channels and batch must be at most 65535 (grid y/z)");
  const uint64_t OutH = uint64_t(S.inHeight) * S.scaleH, OutW = uint64_t(S.inWidth) * S.scaleW;
  if (OutH >= MaxInnerElements || OutW >= MaxInnerElements) // also keeps OutH x OutW in 64 bits
    return std::string("upsample: an output side of 2^31 elements or more");
  return innerTooLarge("upsample", "an output plane", OutH * OutW);
}

std::string padKindName(const PadSpec &S) {
  switch (S.kind) {
  case PadKind::Reflect:
    return "pad_reflect";
  case PadKind::Edge:
    return "pad_edge";
  case PadKind::Constant:
    break;
  }
  return "pad_const" + scalarName(S.value);
}

std::optional<std::string> validate(const PadSpec &S) {
  if (!S.batch || !S.channels || !S.inHeight || !S.inWidth)
    return std::string("pad: zero-sized dimension");
  if (S.channels > MaxGridYZ || S.batch > MaxGridYZ)
    return std::string("pad: channels and batch must be at most 65535 (grid y/z)");
  if (S.kind == PadKind::Reflect && (S.top >= S.inHeight || S.bottom >= S.inHeight ||
                                     S.left >= S.inWidth || S.right >= S.inWidth))
    return std::string("pad: reflect padding must be smaller than the input");
  const uint64_t OutH = uint64_t(S.inHeight) + S.top + S.bottom;
  const uint64_t OutW = uint64_t(S.inWidth) + S.left + S.right;
  if (OutH >= MaxInnerElements || OutW >= MaxInnerElements) // also keeps OutH x OutW in 64 bits
    return std::string("pad: an output side of 2^31 elements or more");
  if (auto E = innerTooLarge("pad", "an input plane", uint64_t(S.inHeight) * S.inWidth))
    return E;
  return innerTooLarge("pad", "an output plane", OutH * OutW);
}

std::optional<std::string> validate(const ReduceSpec &S) {
  if (!S.batch || !S.channels || !S.spatial)
    return std::string("global average pool: zero-sized dimension");
  if (S.batch > MaxGridYZ)
    return std::string("global average pool: batch must be at most 65535 (grid y)");
  if (S.channels > MaxGridX)
    return std::string("global average pool: at most 2^31 - 1 channels (grid x)");
  return innerTooLarge("global average pool", "a plane", S.spatial);
}

bool isScalarOp(ElementwiseOp Op) {
  return Op == ElementwiseOp::AddScalar || Op == ElementwiseOp::MulScalar ||
         Op == ElementwiseOp::DivScalar || Op == ElementwiseOp::PowScalar;
}

std::optional<std::string> validate(const ElementwiseSpec &S) {
  if (!S.batch || !S.channels || !S.spatial)
    return std::string("elementwise: zero-sized dimension");
  if ((elementwiseCount(S) + 255) / 256 > MaxGridX)
    return std::string("elementwise: more than 2^31 - 1 blocks of 256 threads (grid x)");
  if (isScalarOp(S.op) && !std::isfinite(S.scalar))
    return std::string("elementwise: the scalar operand must be finite");
  if (S.op == ElementwiseOp::DivScalar && S.scalar == 0.0f)
    return std::string("elementwise: division by the scalar 0");
  if (S.broadcast && S.op != ElementwiseOp::Add && S.op != ElementwiseOp::Mul &&
      S.op != ElementwiseOp::Div && S.op != ElementwiseOp::Pow)
    return std::string("elementwise: only add, mul, div and pow broadcast their second operand");
  if (S.math != MathMode::Simt && S.math != MathMode::F16)
    return std::string("elementwise: --math ") + mathModeName(S.math) +
           " has no elementwise form (simt: f32 arithmetic, f16: f16x2 arithmetic)";
  return std::nullopt;
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
  return std::nullopt;
}

/// Row kernels (softmax, layer norm): one block per row on grid x, 32-bit offsets in a row.
static std::optional<std::string> validateRows(const char *Layer, uint32_t Rows, uint32_t Cols) {
  if (!Rows || !Cols)
    return std::string(Layer) + ": zero-sized dimension";
  if (Rows > MaxGridX)
    return std::string(Layer) + ": at most 2^31 - 1 rows (grid x)";
  return innerTooLarge(Layer, "a row", Cols);
}

std::optional<std::string> validate(const SoftmaxSpec &S) {
  if (S.inner == 1)
    return validateRows("softmax", S.rows, S.cols);
  if (!S.rows || !S.cols || !S.inner)
    return std::string("softmax: zero-sized dimension");
  if (S.rows > uint64_t(MaxGridYZ) * MaxGridYZ)
    return std::string("softmax: more than 65535 x 65535 rows (grid y and z)");
  return innerTooLarge("softmax", "a row", uint64_t(S.cols) * S.inner);
}

std::optional<std::string> validate(const AxisReduceSpec &S) {
  if (S.inner == 1)
    return validateRows("reduce", S.rows, S.cols);
  if (!S.rows || !S.cols || !S.inner)
    return std::string("reduce: zero-sized dimension");
  if (S.rows > uint64_t(MaxGridYZ) * MaxGridYZ)
    return std::string("reduce: more than 65535 x 65535 rows (grid y and z)");
  return innerTooLarge("reduce", "a row", uint64_t(S.cols) * S.inner);
}

std::optional<std::string> validate(const LayerNormSpec &S) {
  if (!std::isfinite(S.epsilon) || S.epsilon < 0)
    return std::string("layer norm: epsilon must be finite and not negative");
  return validateRows("layer norm", S.rows, S.cols);
}

bool wideIndex(const ConvSpec &S) {
  return S.index64 || std::max({convInput(S), convOutput(S), convWeights(S)}) >= WideElements;
}

bool wideIndex(const GemmSpec &S) {
  return S.index64 || std::max({uint64_t(S.rows) * S.inFeatures, uint64_t(S.rows) * S.outFeatures,
                                uint64_t(S.inFeatures) * S.outFeatures}) >= WideElements;
}

bool wideIndex(const BatchMatMulSpec &S) {
  const uint64_t B = S.batch;
  return S.index64 || std::max({B * S.m * S.n, B * S.n * S.k, B * S.m * S.k}) >= WideElements;
}

bool wideIndex(const PoolSpec &S) {
  const uint64_t Planes = uint64_t(S.batch) * S.channels;
  return S.index64 || std::max(Planes * S.inHeight * S.inWidth,
                               Planes * S.outHeight() * S.outWidth()) >= WideElements;
}

bool wideIndex(const UpsampleSpec &S) {
  const uint64_t Plane = uint64_t(S.inHeight) * S.inWidth, Planes = uint64_t(S.batch) * S.channels;
  return S.index64 || Planes * Plane * S.scaleH * S.scaleW >= WideElements;
}

bool wideIndex(const PadSpec &S) {
  const uint64_t Planes = uint64_t(S.batch) * S.channels;
  const uint64_t Out =
      (uint64_t(S.inHeight) + S.top + S.bottom) * (uint64_t(S.inWidth) + S.left + S.right);
  return S.index64 || Planes * Out >= WideElements;
}

bool wideIndex(const ReduceSpec &S) {
  return S.index64 || uint64_t(S.batch) * S.channels * S.spatial >= WideElements;
}

bool wideIndex(const ElementwiseSpec &S) {
  return S.index64 || elementwiseCount(S) >= WideElements;
}

bool wideIndex(const ConcatSpec &S) {
  return S.index64 || uint64_t(S.batch) * S.totalChannels * S.spatial >= WideElements;
}

bool wideIndex(const SoftmaxSpec &S) {
  return S.index64 || uint64_t(S.rows) * S.cols * S.inner >= WideElements;
}

bool wideIndex(const AxisReduceSpec &S) {
  return S.index64 || uint64_t(S.rows) * S.cols * S.inner >= WideElements;
}

bool wideIndex(const LayerNormSpec &S) {
  return S.index64 || uint64_t(S.rows) * S.cols >= WideElements;
}

} // namespace kernels
} // namespace corpus
