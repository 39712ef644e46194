// Kernel generators: CNN layers with fused epilogues -> LLVM IR (IRBuilder) -> O3 -> PTX (NVPTX).
// Two kernel sets (KernelSet): specialised kernels fold every shape in as constants; library
// kernels take shapes as u32 parameters. See docs/lowering.md.
//
// Index arithmetic is 32-bit unless a tensor the kernel touches has 2^31 elements or more (or the
// spec's `index64` asks for it): then offsets across images, rows and planes are 64-bit (offsets
// inside one image, plane or row stay 32-bit) and the kernel's name ends in `_i64`.
#pragma once

#include "corpus/DType.h"
#include "support/Expected.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corpus {

// DType (f32/f16) comes from corpus/DType.h, shared with the network IR.

/// Activation functions. HardSigmoid is PyTorch's relu6(x + 3) / 6 (ONNX alpha = 1/6, beta = 0.5).
enum class ActivationKind : uint8_t {
  None,
  Relu,
  Relu6,
  Sigmoid,
  HardSigmoid,
  HardSwish,
  Swish,
  Tanh,
  Gelu,     ///< PyTorch's default (erf) form: x * 0.5 * (1 + erf(x / sqrt 2))
  Sqrt,     ///< sqrt(x), IEEE round to nearest (sqrt.rn.f32)
  Softplus, ///< ln(1 + e^x) as max(x, 0) + ln(1 + e^-|x|) (ex2.approx, lg2.approx)
  Exp,      ///< e^x (ex2.approx of x log2 e)
  GeluTanh, ///< GELU's tanh form: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
  Selu,     ///< SeluScale (x > 0 ? x : SeluAlpha (e^x - 1))
  // The kinds below take an alpha per layer (activationTakesAlpha): Epilogue::alpha in a fused
  // epilogue, the ElementwiseSpec's scalar in an elementwise activation kernel; a constant of
  // the kernel either way, and part of its name.
  LeakyRelu, ///< x > 0 ? x : alpha * x
  Elu,       ///< x > 0 ? x : alpha (e^x - 1)
  Celu,      ///< x > 0 ? x : alpha (e^(x / alpha) - 1)
};

/// SELU's constants: PyTorch's, and ONNX Selu's default alpha and gamma.
inline constexpr float SeluAlpha = 1.67326319217681884765625f;
inline constexpr float SeluScale = 1.05070102214813232421875f;

/// How a launch's kernel computes its layers: one enumerator per row of corpus/Strategies.def.
enum class LaunchStrategy : uint8_t {
#define STRATEGY(Id, Name) Id,
#include "corpus/Strategies.def"
};
/// The strategy's name in launches and manifests ("conv_gemm", "eltwise_add", ...).
const char *strategyName(LaunchStrategy S);

/// Where a residual tensor is added: before the activation (ResNet) or after it.
enum class ResidualKind : uint8_t { None, BeforeActivation, AfterActivation };

/// The elementwise tail fused into a kernel, applied to the f32 accumulator in this order:
/// bias, batch norm, residual (before), activation, SE scale, residual (after).
struct Epilogue {
  bool bias = false;      ///< y += bias[c]
  bool batchNorm = false; ///< y = y * bnScale[c] + bnShift[c] (inference BN folded per channel)
  ResidualKind residual = ResidualKind::None; ///< y += residual[i], same shape as the output
  ActivationKind activation = ActivationKind::None;
  /// The activation's alpha where it takes one (activationTakesAlpha): a kernel constant, in the
  /// kernel's name (a leaky relu's slope: `_leakyrelu0p1`).
  float alpha = 0;
  bool seScale = false; ///< y *= seScale[n * C + c] (squeeze-excitation channel scale)
};

/// The tensor-core instructions a tensor-core kernel is written with (docs/lowering.md,
/// "Tensor-core GEMM"): Sm80 mma.m16n8k8 (tf32) or m16n8k16 (f16, bf16), ldmatrix and cp.async
/// double buffering; Sm75 mma.m16n8k8 f16 and ldmatrix with the global tiles staged through
/// registers (no cp.async before sm_80); Sm70 mma.m8n8k4 f16 (no ldmatrix), staged the same way.
/// A kernel runs on its architecture and every later one.
enum class MmaArch : uint8_t { Sm80, Sm75, Sm70 };

/// How an int8 engine lowering stores a tensor between kernels (docs/lowering.md, "Int8
/// engines"): f16 in NCHW, as every kernel but the int8 ones reads and writes it, or signed 8-bit
/// integers in NHWC with the channels padded to int8Channels(C) (the padding channels are zeros).
enum class TensorForm : uint8_t { F16Nchw, I8Nhwc };

/// Channels of an int8 NHWC tensor of C channels: 4 for C <= 4 (one dp4a word per pixel, the
/// 3-channel stem), else C rounded up to a multiple of 16 (16-byte copies and 32-deep mma).
uint32_t int8Channels(uint32_t C);

/// Whether an int8 kernel exists for a convolution's grouping: ungrouped, depthwise with one
/// output channel per input channel, or groups of a multiple of 4 input and output channels
/// (the lowering keeps other convolutions in f16).
struct ConvSpec;
bool hasInt8Kernel(const ConvSpec &S);

/// The tensors of an int8 convolution or dense layer (ConvSpec/GemmSpec with dtype I8) that may
/// be in either form: its output (int8 when an int8 layer consumes it, else f16 for the f16
/// layers) and its fused residual (whatever form that tensor has). The input is always int8.
struct Int8Io {
  TensorForm output = TensorForm::I8Nhwc;
  TensorForm residual = TensorForm::I8Nhwc;
};

/// How a convolution is lowered. Auto: Depthwise when groups == inChannels > 1; Gemm (tiled
/// GEMM) for 1x1, stride 1, unpadded, ungrouped; ImplicitGemm (tiled GEMM over an on-the-fly
/// im2col) for other ungrouped convolutions with at least 16 output channels; Direct otherwise.
enum class ConvStrategy : uint8_t { Auto, Direct, Depthwise, Gemm, ImplicitGemm };

/// 2-D convolution, NCHW input [batch, inChannels, inHeight, inWidth], OIHW weights
/// [outChannels, inChannels / groups, kernelH, kernelW], NCHW output.
struct ConvSpec {
  uint32_t batch = 1;
  uint32_t inChannels = 0, inHeight = 0, inWidth = 0;
  uint32_t outChannels = 0;
  uint32_t kernelH = 1, kernelW = 1;
  uint32_t strideH = 1, strideW = 1;
  uint32_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  uint32_t dilationH = 1, dilationW = 1;
  uint32_t groups = 1;
  DType dtype = DType::F32;
  Epilogue epilogue;
  ConvStrategy strategy = ConvStrategy::Auto;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
  /// Tensor-core math for the Gemm and ImplicitGemm strategies (Direct and Depthwise ignore it).
  MathMode math = MathMode::Simt;
  MmaArch mmaArch = MmaArch::Sm80; ///< the tensor-core kernel's instructions (with math != Simt)
  Int8Io int8 = {};                ///< with dtype I8: where the output and the residual live

  uint32_t outHeight() const; ///< 0 when the window does not fit
  uint32_t outWidth() const;
};

/// Dense (fully connected) layer: Y[r][o] = sum_i X[r][i] * W[o][i], X [rows, inFeatures],
/// W [outFeatures, inFeatures] (ONNX Gemm with transB = 1), Y [rows, outFeatures]. The epilogue
/// channel is o; seScale is not allowed. Fewer than 8 rows lower to a GEMV kernel, else to the
/// tiled GEMM (a tensor-core GEMM when `math` is not Simt; the GEMV ignores `math`).
struct GemmSpec {
  uint32_t rows = 1, inFeatures = 0, outFeatures = 0;
  DType dtype = DType::F32;
  Epilogue epilogue;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
  MathMode math = MathMode::Simt;
  MmaArch mmaArch = MmaArch::Sm80; ///< the tensor-core kernel's instructions (with math != Simt)
  Int8Io int8 = {};                ///< with dtype I8: where the output and the residual live
};

/// Batched matrix product, torch.bmm: C[b] = A[b] x B[b] with A [batch, m, n], B [batch, n, k]
/// and C [batch, m, k], all row-major. One launch of the tiled GEMM with the batch on grid z
/// (several batches per CTA beyond 65535); no epilogue.
struct BatchMatMulSpec {
  uint32_t batch = 1, m = 0, n = 0, k = 0;
  DType dtype = DType::F32;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
  /// Tensor-core math (one batch per CTA, so batches beyond 65535 stay on the CUDA-core GEMM).
  MathMode math = MathMode::Simt;
  MmaArch mmaArch = MmaArch::Sm80; ///< the tensor-core kernel's instructions (with math != Simt)
};

enum class PoolKind : uint8_t { Max, Avg };

/// Windowed pooling over NCHW. Max ignores padding; Avg divides by the window size including
/// padding when countIncludePad (in ceil mode: the window clipped to the padded input, as
/// PyTorch), else by the number of in-bounds elements (ONNX default).
struct PoolSpec {
  PoolKind kind = PoolKind::Max;
  uint32_t batch = 1, channels = 0, inHeight = 0, inWidth = 0;
  uint32_t kernelH = 1, kernelW = 1;
  uint32_t strideH = 1, strideW = 1;
  uint32_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
  bool countIncludePad = false;
  /// Output size rounds up (ONNX ceil_mode = 1, PyTorch's rule: the last window must start inside
  /// the input or its leading padding); windows hanging past the end ignore the missing rows.
  bool ceilMode = false;
  DType dtype = DType::F32;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits

  uint32_t outHeight() const;
  uint32_t outWidth() const;
};

/// Where bilinear upsampling reads along an axis, as PyTorch's area_pixel_compute_source_index:
/// HalfPixel src = max(0, (o + 0.5) / scale - 0.5) (align_corners=False), AlignCorners
/// src = o (in - 1) / (out - 1) (align_corners=True; 0 where out is 1), Asymmetric
/// src = o / scale (ONNX's asymmetric mode).
enum class UpsampleCoords : uint8_t { HalfPixel, AlignCorners, Asymmetric };

/// Bilinear upsampling of NCHW planes by integer factors (torch.nn.Upsample(mode='bilinear');
/// ONNX Resize mode 'linear'): output (oh, ow) reads the input at the source coordinate of
/// `coords` per axis and blends the 2 x 2 neighbours around it (the far one clamped to the edge).
/// One thread per output element, a CTA row per (channel, image) as the pooling kernels.
struct UpsampleSpec {
  uint32_t batch = 1, channels = 0, inHeight = 0, inWidth = 0;
  uint32_t scaleH = 1, scaleW = 1;
  DType dtype = DType::F32;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
  UpsampleCoords coords = UpsampleCoords::HalfPixel;
};

enum class PadKind : uint8_t { Constant, Reflect, Edge };

/// Padding of NCHW planes' H and W, one thread per output element (PyTorch's reflection_pad2d
/// and replication_pad2d; constant_pad_nd writes the same elements): output (oh, ow) reads the
/// input at (oh - top, ow - left), or outside it `value` (Constant), the element mirrored about
/// the edge without repeating it (Reflect: -1 reads 1) or the edge element (Edge).
struct PadSpec {
  PadKind kind = PadKind::Constant;
  uint32_t batch = 1, channels = 0, inHeight = 0, inWidth = 0;
  uint32_t top = 0, left = 0, bottom = 0, right = 0;
  float value = 0;
  DType dtype = DType::F32;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
};

/// Global average pooling: [batch, channels, spatial] -> [batch, channels] (mean over spatial),
/// a block reduction with warp shuffles. The epilogue's channel is c.
struct ReduceSpec {
  uint32_t batch = 1, channels = 0, spatial = 0;
  DType dtype = DType::F32;
  Epilogue epilogue;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
};

enum class ElementwiseOp : uint8_t {
  Add,           ///< out = a + b
  Mul,           ///< out = a * b
  ScaleChannels, ///< out = a * b[n * channels + c] (a is [batch, channels, spatial])
  Activation,    ///< out = act(a)
  BatchNorm,     ///< out = a * bnScale[c] + bnShift[c] (inference BN not after a conv/dense)
  Div,           ///< out = a / b (IEEE division)
  Pow,           ///< out = a^b (ex2(b * lg2 |a|), PyTorch's signs for a < 0)
  AddScalar,     ///< out = a + scalar
  MulScalar,     ///< out = a * scalar
  DivScalar,     ///< out = a * (1 / scalar), as PyTorch divides by a CPU scalar
  PowScalar      ///< out = a^scalar with PyTorch's special exponents (0.5: sqrt, 2: a * a, ...)
};

/// Standalone elementwise kernel over a [batch, channels, spatial] tensor; the activation is
/// applied last for every op. The scalar ops take `scalar` as a kernel constant.
struct ElementwiseSpec {
  ElementwiseOp op = ElementwiseOp::Add;
  uint32_t batch = 1, channels = 1, spatial = 0;
  ActivationKind activation = ActivationKind::None;
  DType dtype = DType::F32;
  float scalar = 0;     ///< the second operand of AddScalar ... PowScalar
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
  /// Simt: f32 arithmetic on the loaded values. F16 (f16 networks under f16 tensor math) with f16
  /// data: f16x2 arithmetic on element pairs where the op allows (add, mul, their scalar forms,
  /// channel scale, batch norm; activations none, relu, relu6); the name's dtype reads `f16x2`.
  MathMode math = MathMode::Simt;
  /// Add, mul, div, pow: the second operand is [batch, spatial], the same for every channel (an
  /// operand broadcast over a run of middle dimensions, CBAM's [N, 1, H, W] gate), read in place
  /// as PyTorch's broadcasting kernel does; f32 arithmetic, one element per thread.
  bool broadcast = false;
};

/// Most inputs one concatenation launch copies: PyTorch's CAT_ARRAY_BATCH_SIZE
/// (aten/src/ATen/native/cuda/Shape.cu); a longer concatenation takes several launches.
constexpr size_t ConcatBatchSize = 128;

/// A run of up to ConcatBatchSize inputs of a channel concatenation, copied by ONE launch as
/// PyTorch's CatArrayBatchedCopy does: input k, a [batch, channels[k], spatial] tensor, goes to
/// channels [channelOffset + channels[0] + ... + channels[k - 1], ... + channels[k]) of a
/// [batch, totalChannels, spatial] output. The kernel takes one pointer parameter per input, then
/// the output; grid y is the input, grid x strides over it (never fused into producers).
struct ConcatSpec {
  uint32_t batch = 1;
  std::vector<uint32_t> channels; ///< channels of each input of this launch, in order
  uint32_t totalChannels = 0;     ///< channels of the whole output
  uint32_t channelOffset = 0;     ///< output channel of this launch's first input
  uint32_t spatial = 0;
  DType dtype = DType::F32;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
};

/// The launches of a channel concatenation of inputs with `Channels` channels each (in order):
/// runs of at most ConcatBatchSize inputs, each with its channel offset in the output.
std::vector<ConcatSpec> planConcat(uint32_t Batch, const std::vector<uint32_t> &Channels,
                                   uint32_t Spatial, DType T);

/// Most dimensions a strided copy indexes (after merging); PyTorch's OffsetCalculator allows 25,
/// a CNN's permutes and slices need at most 5.
constexpr size_t MaxCopyRank = 6;

/// A strided gather into a new contiguous tensor, as PyTorch's `contiguous()` of a permuted or
/// sliced view (its elementwise copy kernel with an offset calculator): output element
/// (i_0, ..., i_r-1) of `dims` (outermost first) is input element offset + sum_k i_k strides[k].
/// Transpose, Slice and Split lower to it (planCopy). One thread per output element; each
/// output coordinate but the outermost costs one division by its dimension.
struct CopySpec {
  std::vector<uint64_t> dims;    ///< output dimensions, 1 to MaxCopyRank
  std::vector<uint64_t> strides; ///< input element stride of each output dimension
  uint64_t offset = 0;           ///< input element of output element 0
  uint64_t inputElements = 0;    ///< elements of the input tensor
  DType dtype = DType::F32;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
};

/// What a copy reads of one input axis: elements start, start + step, ... (count of them).
struct CopyAxis {
  uint64_t start = 0, count = 1, step = 1;
};
/// The copy that reads `Axes` (one per dimension) of a contiguous tensor of shape `In` in the
/// dimension order `Perm` (output dimension k is input dimension Perm[k]), with dimensions of
/// one element dropped and neighbours that stay neighbours in the input merged; nullopt when the
/// result is the whole input in its own order (a view: no copy).
std::optional<CopySpec> planCopy(const std::vector<uint64_t> &In, const std::vector<CopyAxis> &Axes,
                                 const std::vector<size_t> &Perm, DType T);
/// Nearest-neighbour upsampling of `Planes` H x W planes by integer factors as a copy whose
/// repeated coordinates have stride 0 (merged like planCopy; nullopt for factors 1 x 1).
std::optional<CopySpec> planUpsample(uint64_t Planes, uint64_t H, uint64_t W, uint64_t ScaleH,
                                     uint64_t ScaleW, DType T);

/// Softmax over the middle axis of a [rows, cols, inner] tensor. inner = 1 (the last axis): one
/// block per row with block all-reductions. inner > 1 (an inner axis, e.g. channels of NCHW):
/// PyTorch's spatial softmax, one thread per (row, inner) position looping over the cols.
struct SoftmaxSpec {
  uint32_t rows = 1, cols = 0;
  DType dtype = DType::F32;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
  uint32_t inner = 1;   ///< elements between neighbours along the softmax axis
};

/// What an axis reduction computes of the values along its axis, accumulated in f32 (ONNX
/// ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceSumSquare, ReduceL1, ReduceL2).
enum class AxisReduceOp : uint8_t { Sum, Mean, Max, Min, SumSquare, L1, L2 };

/// A reduction over the middle axis of a [rows, cols, inner] tensor to [rows, inner] (torch.sum,
/// mean, amax, amin, norm over contiguous dimensions). inner = 1 (the last axis): one block per
/// row with block all-reductions; inner > 1: one thread per (row, inner) position looping over
/// the cols, neighbouring threads reading neighbouring elements (PyTorch's reduction over an
/// outer axis).
struct AxisReduceSpec {
  AxisReduceOp op = AxisReduceOp::Sum;
  uint32_t rows = 1, cols = 0;
  DType dtype = DType::F32;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
  uint32_t inner = 1;   ///< elements between neighbours along the reduced axis
};

/// Layer normalisation over the last (contiguous) axis of a [rows, cols] tensor with a learned
/// scale (Weight) and shift (Bias) of `cols` elements each, torch.nn.LayerNorm(cols):
/// y = (x - mean) / sqrt(var + epsilon) * weight[c] + bias[c], var biased. One block per row.
struct LayerNormSpec {
  uint32_t rows = 1, cols = 0;
  float epsilon = 1e-5f;
  DType dtype = DType::F32;
  bool index64 = false; ///< 64-bit index arithmetic even when every tensor fits 32 bits
  bool affine = true;   ///< scale and shift per column (Weight, Bias); false: neither parameter
};

/// An int8 engine's reformat between the two tensor forms (TensorForm), as TensorRT's
/// reformatting layers at the edges of its int8 regions: quantize an f16 NCHW [batch, channels,
/// spatial] tensor into int8 NHWC with int8Channels(channels) channels, q = round(x / s) saturated
/// to [-128, 127] (padding channels 0), or dequantize it back, x = q s. s is the tensor's scale
/// (per tensor: the Scale parameter holds 1 / s for quantize, s for dequantize). One thread per
/// four channels of a pixel.
struct ReformatSpec {
  bool quantize = true; ///< f16 NCHW -> int8 NHWC, else int8 NHWC -> f16 NCHW
  uint32_t batch = 1, channels = 0, spatial = 1;
};

/// KernelSet (corpus/DType.h): specialised or library kernels.

/// "specialised", "library".
const char *kernelSetName(KernelSet K);
/// The set named `Name` (as kernelSetName spells it), or nullopt.
std::optional<KernelSet> parseKernelSet(std::string_view Name);

/// The multiplier and shift that divide by `D` (1 <= D < 2^31) without a division instruction:
/// for every x < 2^31, x / D == (umulhi(x, multiplier) + x) >> shift (Granlund and Montgomery,
/// "Division by invariant integers using multiplication", 1994, section 4). Library kernels get
/// these as parameters beside each divisor, as CUTLASS's FastDivmod precomputes them on the host.
struct FastDivisor {
  uint32_t multiplier = 0;
  uint32_t shift = 0;
};
FastDivisor fastDivisor(uint32_t D);

/// What a kernel parameter points to. Parameters appear in this order (absent ones skipped):
/// Input, Input2, Weight, Scale, Bias, BnScale, BnShift, SeScale, Residual, Output. A concatenation
/// kernel has one Input parameter per input, in input order, then Output.
enum class ParamRole : uint8_t {
  Input,
  Input2,
  Weight,
  Scale, ///< int8 kernels: f32 quantisation scales (docs/lowering.md, "Int8 engines")
  Bias,
  BnScale,
  BnShift,
  SeScale,
  Residual,
  Output
};

/// One kernel parameter: a global buffer of `elements` values of type `dtype` (the launch's
/// dtype, except in int8 kernels: I8 activations and weights, F32 scales and epilogue
/// parameters, F16 outputs and residuals in the f16 form).
struct KernelParam {
  ParamRole role = ParamRole::Input;
  uint64_t elements = 0;
  DType dtype = DType::F32;
};

/// A u32 scalar argument of a library kernel: a shape (`wo`), or a divisor's fast-division
/// multiplier (`wo_mul`) or shift (`wo_shr`).
struct ShapeArg {
  std::string name;
  uint32_t value = 0;
};

/// How to launch an emitted kernel: the buffer parameters, then (library kernels) the shape
/// arguments.
struct KernelLaunch {
  std::string kernel;   ///< the PTX entry name, stable for a spec (dedup key)
  std::string strategy; ///< strategyName() of one LaunchStrategy (corpus/Strategies.def)
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  uint32_t sharedBytes = 0; ///< dynamic shared memory (always 0: tiles are static)
  DType dtype = DType::F32;
  MathMode math = MathMode::Simt;  ///< tensor-core operand type; Simt for CUDA-core kernels
  MmaArch mmaArch = MmaArch::Sm80; ///< the tensor-core instructions used (with math != Simt)
  /// The weight parameter holds the filters as [cout][cin / 16][kh][kw][16] (a channel-blocked
  /// tensor-core implicit GEMM, docs/lowering.md) instead of ONNX's [cout][cin][kh][kw].
  bool filtersBlocked = false;
  std::vector<KernelParam> params;
  std::vector<ShapeArg> shapeArgs; ///< u32 parameters after the buffers; empty when specialised
};

/// Bytes of one element of `T`.
uint32_t dtypeBytes(DType T);
/// Bytes of the buffer a parameter points to.
uint64_t paramBytes(const KernelParam &P);
/// "relu", "hardswish", ...; "none" for None.
const char *activationName(ActivationKind K);
/// Whether `K` takes an alpha per layer (LeakyRelu, Elu, Celu): Epilogue::alpha, or an
/// elementwise activation kernel's scalar.
bool activationTakesAlpha(ActivationKind K);
/// "input", "weight", "bn_scale", ...
const char *paramRoleName(ParamRole R);
/// "simt", "tf32", "f16", "bf16", "auto", "int8".
const char *mathModeName(MathMode M);
/// The mode named `Name` (as mathModeName spells it), or nullopt.
std::optional<MathMode> parseMathMode(std::string_view Name);
/// Why `M` cannot run on data of type `T` for `Arch` (sm_70 ... sm_90), nullopt when it can:
/// tf32 and bf16 tensor cores need sm_80, f16 tensor cores sm_70, int8 tensor cores sm_75; tf32
/// and bf16 take f32 data (f16 data would be rounded twice); int8 data takes Simt (dp4a), Int8 or
/// Auto, and Int8 int8 data only. Simt and Auto run everywhere.
std::optional<std::string> mathModeError(MathMode M, DType T, std::string_view Arch);
/// The tensor-core kernels written for `Arch`: Sm70 for sm_70, Sm75 for sm_75, Sm80 for sm_80
/// and newer.
MmaArch mmaArchFor(std::string_view Arch);
/// "sm_80", "sm_75", "sm_70": the oldest architecture a kernel of `A` runs on.
const char *mmaArchName(MmaArch A);

/// One kernel's PTX as the NVPTX backend prints it alone in a module: the module header
/// (`.version`, `.target`, `.address_size`) and the rest, with block labels `$L__BB0_*`.
struct CompiledKernel {
  std::string header;
  std::string body;
};

/// Compiled kernels shared by several lowerings in one process (every model of `ptxcast
/// compare`, the zoo in analyze_bench): a kernel already compiled for the same architecture is
/// reused, not compiled again. A kernel's name spells out every parameter of its IR, so it is the
/// key. Thread-safe.
///
/// With a directory, kernels also persist across processes, one file per architecture and kernel
/// (DIR/sm_90/NAME.ptx, written atomically), so that lowering with a warm cache compiles nothing.
/// The directory must be specific to the kernels' version (kernelCacheDir()); an unreadable,
/// truncated or altered file is a miss (a note on stderr names it). Creating a version's
/// directory removes its `kernels-*` siblings but the three most recent; opening one with more
/// than 10,000 kernels of an architecture removes the oldest half (support/CacheDir.h).
class KernelCache {
public:
  KernelCache() = default;
  explicit KernelCache(std::string Dir);

  /// The kernel compiled for Arch, or null.
  std::shared_ptr<const CompiledKernel> find(const std::string &Arch,
                                             const std::string &Kernel) const;
  void insert(const std::string &Arch, const std::string &Kernel,
              std::shared_ptr<const CompiledKernel> Ptx);
  /// Kernels held, and finds that returned one.
  size_t size() const;
  size_t hits() const;
  const std::string &directory() const { return Dir; }

private:
  std::string Dir;
  mutable std::mutex Mutex;
  mutable size_t Hits = 0;
  mutable std::map<std::pair<std::string, std::string>, std::shared_ptr<const CompiledKernel>>
      Kernels; ///< mutable: find() adds what it reads from the directory
};

/// The persistent kernel cache's directory for this build's kernels: `kernels-VERSION` in the
/// per-user cache (support::userCacheDir: $PTXCAST_CACHE, off for none), VERSION a hash of the
/// kernel generators' sources and LLVM's version. Empty when there is none.
std::string kernelCacheDir();

/// Collects kernels, each in an LLVM module of its own, and emits them as PTX modules (one unless
/// split). A spec added twice yields the same launch and one kernel. Not thread-safe; one emitter
/// per thread.
class KernelEmitter {
public:
  KernelEmitter();
  ~KernelEmitter();
  KernelEmitter(KernelEmitter &&) noexcept;
  KernelEmitter &operator=(KernelEmitter &&) noexcept;

  /// Each adds (once) the kernel for a layer and returns its launch; malformed specs are errors.
  support::Expected<KernelLaunch> add(const ConvSpec &S);
  support::Expected<KernelLaunch> add(const GemmSpec &S);
  support::Expected<KernelLaunch> add(const BatchMatMulSpec &S);
  support::Expected<KernelLaunch> add(const PoolSpec &S);
  support::Expected<KernelLaunch> add(const UpsampleSpec &S);
  support::Expected<KernelLaunch> add(const PadSpec &S);
  support::Expected<KernelLaunch> add(const ReduceSpec &S);
  support::Expected<KernelLaunch> add(const ElementwiseSpec &S);
  support::Expected<KernelLaunch> add(const ConcatSpec &S);
  support::Expected<KernelLaunch> add(const SoftmaxSpec &S);
  support::Expected<KernelLaunch> add(const AxisReduceSpec &S);
  support::Expected<KernelLaunch> add(const LayerNormSpec &S);
  support::Expected<KernelLaunch> add(const CopySpec &S);
  support::Expected<KernelLaunch> add(const ReformatSpec &S);

  /// The kernels added from now on (default Specialised). Call before adding kernels.
  void useKernelSet(KernelSet K);
  /// Builds every added layer's IR, also when a kernel of its name exists, and fails when the
  /// IR differs from that kernel's: a check that names carry every specialisation (tests).
  void checkNames(bool On);

  /// Spreads the kernels over up to four PTX modules, runs of `KernelsPerModule` kernels each
  /// in turn. Call before adding kernels.
  /// The split depends only on the kernels added, never on the machine.
  void splitModules(size_t KernelsPerModule);
  /// Number of distinct kernels, and of modules holding them.
  size_t kernelCount() const;
  size_t moduleCount() const;
  /// The unoptimised kernel modules as LLVM IR text, in the order the kernels were added.
  std::string irText() const;
  /// Runs LLVM's module verifier; an empty string when the modules are well formed, else the
  /// report.
  std::string verify() const;
  /// Optimises a copy of the module with the O3 pipeline for `Arch` (sm_70, sm_75, sm_80, sm_86,
  /// sm_87, sm_89, sm_90) and returns the PTX text. The module itself is left unoptimised.
  /// Needs a single module (no splitModules, or few enough kernels).
  support::Expected<std::string> emitPtx(const std::string &Arch = "sm_90") const;
  /// emitPtx for every module; one PTX text per module, in order. Kernels are compiled one by
  /// one, on up to `Threads` threads; those `Cache` holds for Arch are reused, and the others
  /// added to it. The text is the same whatever the threads and the cache.
  support::Expected<std::vector<std::string>>
  emitPtxModules(const std::string &Arch, unsigned Threads, KernelCache *Cache = nullptr) const;

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace corpus
