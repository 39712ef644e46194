// Layer specs: validation (malformed spec -> message) and stable kernel names (dedup keys).
#pragma once

#include "corpus/KernelGen.h"

#include <optional>
#include <string>
#include <string_view>

namespace corpus::kernels {

/// CUDA's grid limits: x up to 2^31 - 1 blocks, y and z up to 65535.
constexpr uint32_t MaxGridX = 2147483647;
constexpr uint32_t MaxGridYZ = 65535;

/// Dense layers with fewer rows use the warp-per-output GEMV kernel instead of the tiled GEMM.
constexpr uint32_t MinGemmRows = 8;

/// AddScalar, MulScalar, DivScalar, PowScalar: one tensor and ElementwiseSpec::scalar.
bool isScalarOp(ElementwiseOp Op);

/// 75 for "sm_75" and so on; 0 when Arch is not of that form.
unsigned smVersion(std::string_view Arch);
/// Why a tensor-core kernel of mode M written for A cannot be compiled for Arch (an older
/// architecture: the NVPTX backend would abort on its instructions), nullopt when it can.
std::optional<std::string> mmaArchError(MathMode M, MmaArch A, std::string_view Arch);

/// Whether the kernel for a spec runs on tensor cores: math is not Simt and the strategy is a
/// GEMM (1x1 or implicit-GEMM conv; dense with at least MinGemmRows rows; bmm of at most 65535
/// batches).
bool usesTensorCores(const ConvSpec &S, ConvStrategy Resolved);
/// K per shared-memory stage of the tensor-core GEMM.
constexpr uint32_t MmaKStep = 16;
/// Whether a tensor-core implicit GEMM runs channel-blocked (k = (ci / 16, kh, kw, ci mod 16), its
/// filters stored [cout][cin / 16][kh][kw][16], oneDNN's OIhw16i): when the input channels fill
/// whole K stages, so that a stage is one window tap of 16 consecutive channels
/// (docs/lowering.md, "Tensor-core GEMM").
bool blockedFilters(const ConvSpec &S, ConvStrategy Resolved);
bool usesTensorCores(const GemmSpec &S);
bool usesTensorCores(const BatchMatMulSpec &S);

/// Whether an activation has an f16 form in the kernels: none, relu and relu6 (max and min).
/// Sigmoid, swish, tanh, gelu, hardsigmoid and hardswish stay f32, as PyTorch computes them (in
/// float).
bool halfActivation(ActivationKind A);
/// "" (half-pixel, the default), "_ac" (align corners) or "_as" (asymmetric): kernel names'.
const char *upsampleCoordsSuffix(UpsampleCoords C);
/// Whether an elementwise kernel computes in f16x2 (docs/lowering.md, "Half-precision math"):
/// math F16 on f16 data, an add, multiply or fma (add, mul, their scalar forms, the channel
/// scale, batch norm, a lone activation) and an activation with an f16 form; the channel scale
/// and batch norm need an even spatial size (the two elements of a pair then share a channel).
bool halfElementwise(const ElementwiseSpec &S);
/// Elements an elementwise op computes: batch x channels x spatial.
uint64_t elementwiseCount(const ElementwiseSpec &S);

/// The strategy Auto picks for `S` (an explicit strategy is returned unchanged).
ConvStrategy resolveStrategy(const ConvSpec &S);

/// A lower-case message when the spec cannot be lowered, nullopt when it is fine.
std::optional<std::string> validate(const ConvSpec &S, ConvStrategy Resolved);
std::optional<std::string> validate(const GemmSpec &S);
std::optional<std::string> validate(const BatchMatMulSpec &S);
std::optional<std::string> validate(const PoolSpec &S);
std::optional<std::string> validate(const UpsampleSpec &S);
std::optional<std::string> validate(const PadSpec &S);
std::optional<std::string> validate(const ReduceSpec &S);
std::optional<std::string> validate(const ElementwiseSpec &S);
std::optional<std::string> validate(const ConcatSpec &S);
std::optional<std::string> validate(const SoftmaxSpec &S);
std::optional<std::string> validate(const AxisReduceSpec &S);
std::optional<std::string> validate(const LayerNormSpec &S);
std::optional<std::string> validate(const CopySpec &S);

/// Whether the kernel for a spec uses 64-bit index arithmetic: the spec asks for it, or a tensor
/// it touches has 2^31 elements or more.
bool wideIndex(const ConvSpec &S);
bool wideIndex(const GemmSpec &S);
bool wideIndex(const BatchMatMulSpec &S);
bool wideIndex(const PoolSpec &S);
bool wideIndex(const UpsampleSpec &S);
bool wideIndex(const PadSpec &S);
bool wideIndex(const ReduceSpec &S);
bool wideIndex(const ElementwiseSpec &S);
bool wideIndex(const ConcatSpec &S);
bool wideIndex(const SoftmaxSpec &S);
bool wideIndex(const AxisReduceSpec &S);
bool wideIndex(const LayerNormSpec &S);
bool wideIndex(const CopySpec &S);

/// Stable kernel names: every field that changes the code appears in the name, so equal names
/// mean equal kernels (64-bit index arithmetic appends `_i64`). Names longer than 100
/// characters keep a prefix plus an FNV-1a hash. A library kernel's name (Strategies.h,
/// libraryName) starts with `lib_` and spells out its specialisations, not its shapes.
std::string kernelName(const ConvSpec &S, ConvStrategy Resolved,
                       KernelSet Set = KernelSet::Specialised);
std::string kernelName(const GemmSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const BatchMatMulSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const PoolSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const UpsampleSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const PadSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const ReduceSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const ElementwiseSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const ConcatSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const SoftmaxSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const AxisReduceSpec &S, KernelSet Set = KernelSet::Specialised);
/// "sum", "mean", "max", ... (kernel names).
std::string_view axisReduceOpName(AxisReduceOp Op);
std::string kernelName(const LayerNormSpec &S, KernelSet Set = KernelSet::Specialised);
std::string kernelName(const CopySpec &S, KernelSet Set = KernelSet::Specialised);
/// Names past 100 characters keep their first 80 and gain a 64-bit FNV-1a hash of the whole.
std::string shorten(std::string Name);

/// "pad_reflect", "pad_edge", or "pad_const" and the value ("pad_const0", "pad_constm1").
std::string padKindName(const PadSpec &S);
/// Name pieces: "3" when both are equal, else "3x1"; a float as an identifier fragment ("0p5");
/// "_mma_tf32" for a tensor-core kernel ("_mma_f16_sm75" for the sm_75 and sm_70 kernels), ""
/// for CUDA cores.
std::string shapePair(uint32_t A, uint32_t B);
std::string scalarName(float V);
std::string tensorCoreInfix(bool TensorCores, MathMode M, MmaArch A);
/// A library convolution's window specialisations: "_k3_s1", then "_d2" for a dilation and
/// "_pad" when the window can leave the input (convPadded).
std::string convWindowKeys(const ConvSpec &S);
bool convPadded(const ConvSpec &S);
/// Padding as "1" when all four are equal, else "top_left_bottom_right".
std::string pads(uint32_t Top, uint32_t Left, uint32_t Bottom, uint32_t Right);
/// "f32", "f16", "s8".
const char *dtypeName(DType T);
/// The epilogue in application order, e.g. "_bias_bn_res_relu".
std::string epilogueSuffix(const Epilogue &E);
/// "lib_" + Body + data type + epilogue + index suffix, shortened like every name.
std::string libraryKernelName(const std::string &Body, DType T, const Epilogue &E, bool Wide);

} // namespace corpus::kernels
