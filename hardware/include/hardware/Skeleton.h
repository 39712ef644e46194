// The physical skeleton of a launch on a GPU (docs/cross-gpu.md): occupancy from the launch's
// threads, registers and shared memory against the architecture's per-SM limits; waves and the
// tail wave; the busy time of every SM resource on the busiest SM (FP32/FMA, integer, FP16, FP64,
// special-function and tensor pipes, the load/store path, instruction issue); L2 and DRAM time
// (DRAM bytes with L2 reuse); and the launch latency. Its bound T_bound is a time in ms on that
// GPU; the learners only predict how far the real time sits above it.
#pragma once

#include "analyzer/Counts.h"
#include "hardware/GpuCatalog.h"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace hardware {

/// How multiply-adds of GEMM-like launches are executed: on the CUDA cores (simt) or on tensor
/// cores with the given input precision (Int8: an int8 engine's s8 tensor cores, int32
/// accumulation, at the catalog's tensor_int8_tops).
enum class MathMode : uint8_t { Simt, Tf32, F16, Bf16, Int8 };
std::string_view mathModeName(MathMode M);
support::Expected<MathMode> parseMathMode(std::string_view Name);

/// What PyTorch does by default on a GPU of compute capability `Cc` for networks of element type
/// `Dtype` ("f32" | "f16"): TF32 tensor cores for fp32 convolutions on sm_80+ (cuDNN's
/// allow_tf32 default), FP16 tensor cores for fp16 on sm_70+, CUDA cores otherwise; and what an
/// int8 engine does ("int8"): s8 tensor cores on sm_72+ (Jetson Xavier's Volta has them, integer
/// WMMA; the V100 has none and its catalog int8 peak is 0), dp4a on the CUDA cores before.
MathMode defaultMathMode(std::string_view Dtype, double Cc);

/// The GPU's dense tensor peak in math mode M, TFLOPS (TOPS for Int8: two operations per
/// multiply-add); 0 for Simt and for a mode the GPU has no tensor cores for.
double tensorPeak(const GpuSpec &Gpu, MathMode M);

/// Whether the GPU runs FP16 math fast: FP16 tensor cores, or FP16 on the CUDA cores at half the
/// FP32 rate or more. Compute capability 6.1 (Tesla P4, P40, GeForce 10) runs it at 1/64 of FP32,
/// and TensorRT builds no FP16 there (its support matrix: FP16 "No" for 6.1).
bool fastFp16(const GpuSpec &Gpu);

/// Whether the GPU runs int8 math fast: dp4a at full rate (compute capability 6.1, and 7.0 on)
/// or int8 tensor cores. The P100 (6.0) and the Jetson TX2 (6.2) have neither, and TensorRT
/// builds no int8 there (its support matrix; NVIDIA's developer forum for the TX2).
bool fastInt8(const GpuSpec &Gpu);
/// fastInt8's rule, for people.
constexpr std::string_view FastInt8Requirement =
    "dp4a or int8 tensor cores, compute capability 6.1, or 7.0 and newer";

/// Whose kernels ran: ptxcast's own lowering (timed with ptxcast-measure), or a framework's
/// (cuDNN / cuBLAS / PyTorch) for the same layers.
enum class Implementation : uint8_t { Ptxcast, Framework };

/// Families of launch kinds (the lowering's strategies), as the features see them
/// (hardware/LaunchKinds.def).
enum class KindFamily : uint8_t {
#define KIND_FAMILY(Id, Name) Id,
#include "hardware/LaunchKinds.def"
};
constexpr size_t NumKindFamilies = size_t(KindFamily::Other) + 1;
std::string_view kindFamilyName(KindFamily F);

/// Which framework library runs the multiply-adds of a layer a strategy lowers: convolutions
/// (cuDNN), matrix products (cuBLAS), or none.
enum class MathLibrary : uint8_t { Conv, Matmul, None };

/// A row of hardware/LaunchKinds.def: a lowering strategy, its family as the features see it,
/// the family the bound charges it as (the same, but for the tensor-core forms of the GEMMs),
/// and its library.
struct LaunchKind {
  std::string_view strategy;
  KindFamily family;
  KindFamily boundFamily;
  MathLibrary library;
};
/// Every row of hardware/LaunchKinds.def, in order.
std::span<const LaunchKind> launchKinds();
/// The row of a lowering strategy (exact name, "conv_gemm"), or null when it has none.
const LaunchKind *findLaunchKind(std::string_view Strategy);
/// The family of a lowering strategy ("conv_gemm" -> Gemm, "eltwise_add" -> Elementwise, ...);
/// Other for a name without a row (every strategy of this build has one: LaunchKindsTest).
KindFamily kindFamily(std::string_view Strategy);

/// What a framework (PyTorch over cuDNN and cuBLAS) runs apart from a launch's own layers, from
/// the layers alone (pipeline/src/NetworkAnalysis.cpp counts it; docs/cross-gpu.md).
struct FrameworkPasses {
  /// fp32 tensors a framework under autocast (Execution::half) casts to fp16 before the launch
  /// (the weights and biases of its convolutions and dense layers, a network input they read):
  /// one cast kernel per tensor, reading 4 and writing 2 bytes per element.
  uint64_t castElements = 0;
  uint32_t castTensors = 0;
  /// The part of the casts above that are convolution biases: torch.compile (PassStructure::
  /// Inductor) computes a bias add after the convolution and reads the fp32 bias in it, no cast
  /// kernel of its own.
  uint64_t biasCastElements = 0;
  uint32_t biasCastTensors = 0;
  /// Convolutions whose bias the framework adds in a kernel of its own after the convolution
  /// (PyTorch does, broadcasting the bias over N, H and W): each passes the output once more.
  uint32_t biasAdds = 0;
  /// Elements of the framework's per-element passes that run one element per thread (NCHW
  /// batch-norm inference, the broadcast bias add), fused layers and bias adds alike: memory
  /// latency bounds them as well as their DRAM bytes (passSeconds).
  uint64_t latencyBoundElements = 0;
  /// The same for the launch's own first layer (a batch norm that begins a launch): its DRAM
  /// busy time is at least its elements at that rate.
  uint64_t leadingLatencyBoundElements = 0;
  /// Input elements of a max or average pool that begins the launch. PyTorch's pool kernels
  /// (max_pool_forward_nchw, avg_pool2d) compute one output per thread and load its window from
  /// memory: a pass over the input at memory latency (passSeconds). Profiled on the H100 at
  /// batch 64, VGG-16's, ResNet's, AlexNet's, DenseNet-121's and SqueezeNet's pools took
  /// 0.9-1.3x that, in fp16 and fp32 alike.
  uint64_t poolInputElements = 0;
  /// Elements (input, weights, output) of the launch's convolutions that a framework transposes
  /// between NCHW and NHWC around a tensor-core kernel, and how many transposes: cuDNN's
  /// tensor-core convolutions read and write NHWC, PyTorch's default layout is NCHW.
  uint64_t layoutElements = 0;
  uint32_t layoutTensors = 0;
  /// Elements of the fused layers' other inputs (a residual add's shortcut): the one pointwise
  /// kernel torch.compile runs after a library convolution reads them besides its output.
  uint64_t tailInputElements = 0;
  uint32_t elementBytes = 4; ///< bytes per activation element (2 for f16 networks)
  /// The launch's convolution reads an image's few channels (under 8): cuDNN runs it on CUDA
  /// cores in NCHW, whatever the math mode (tensor-core kernels need 8 channels per step;
  /// profiled on the H100: VGG-16's first layer in implicit_convolve_sgemm).
  bool imageConv = false;
};

/// The matrix product a GEMM-like layer is (a convolution as an implicit GEMM, a dense layer, a
/// batched matmul): `batch` independent products of (m x k) by (k x n). All 0 when unknown.
struct GemmShape {
  double batch = 0, m = 0, n = 0, k = 0;
  bool known() const { return batch > 0 && m > 0 && n > 0 && k > 0; }
};

/// The busiest SM's multiply-adds when a library runs the GEMM G on `Sms` SMs, as a multiple of
/// G's own: a cuBLAS/cuDNN kernel gives each CTA a whole output tile (its rows and columns
/// padded to the tile) and the SMs take the CTAs in turn, so a product of few or ragged tiles
/// leaves SMs idle and computes padding. A framework's batched matmul gives it to the learners as
/// the feature log2_tile_waste (Features.h; docs/cross-gpu.md): a single product of few tiles
/// (a convolution, a dense layer) the library splits along K across CTAs (split-K), which keeps
/// the SMs busy. The library is taken to pick, of the tiles its FP32
/// and tensor-core kernels use (128x128, 128x64, 64x64, 128x32, 32x128), the one that finishes
/// first. 0 when G is unknown. NeuSight's operator profiles show the effect: a bmm of (3 x 26 x
/// 1020) by (1020 x 12) takes 0.38 ms on an A100, one 128x128 tile per batch entry on 3 SMs.
double libraryTileShare(const GemmShape &G, double Sms);

/// One launch, independent of any GPU: the analyzer's counts (with the kernel's estimated
/// registers per thread and static shared memory; registers 0 = unknown, occupancy then ignores
/// them) plus what the lowering knows.
struct LaunchWork {
  analyzer::KernelProfile profile;
  std::string kind;            ///< the lowering's strategy, e.g. "conv_implicit_gemm"
  uint64_t footprintBytes = 0; ///< bytes of the distinct buffers the launch touches
  double macs = 0;             ///< multiply-adds of the layers it computes
  /// Layers the lowering fused into the launch after its first (a convolution's batch norm,
  /// activation, residual add): a framework that runs every layer as its own kernel (eager or
  /// graph-captured PyTorch) launches each again and passes the output through DRAM again.
  uint32_t fusedLayers = 0;
  FrameworkPasses framework; ///< what a framework runs around the launch's layers
  GemmShape gemm;            ///< the launch's first layer as a GEMM, when it is GEMM-like
  /// The launch's first layer is a 3x3, stride-1, undilated convolution of one group: the shape
  /// an engine's Winograd tactic computes (WinogradMultiplyShare).
  bool winograd = false;
  /// A concatenation's share of input bytes an inference engine does not copy, because their
  /// producers write them straight into its output (TensorRT's concat removal: docs/cross-gpu.md,
  /// "Runtimes"); 1 when no input is left to copy, 0 for every other launch.
  double inPlaceShare = 0;
};

/// Which of FrameworkPasses a framework runs around its library kernels.
enum class PassStructure : uint8_t {
  /// PyTorch eager, or a CUDA graph of its kernels: every layer a kernel of its own (a fused
  /// layer, a bias add: one more pass over the output), NCHW batch norms and bias adds at memory
  /// latency, NCHW/NHWC transposes around tensor-core convolutions, autocast's casts.
  Eager,
  /// torch.compile's inductor, default mode (docs/cross-gpu.md, "torch.compile"): the layers
  /// after a library convolution or GEMM (bias, batch norm, activation, residual add) are one
  /// generated pointwise kernel streaming at the memory bandwidth; a pointwise, pool or reduction
  /// launch is one generated kernel with its fused layers; layout optimisation keeps the
  /// activations channels-last (no transposes); batch norm is not folded into the convolution
  /// (inductor folds it only when freezing on the CPU); autocast's weight casts stay, one kernel
  /// per weight, the convolution biases' casts join the bias add.
  Inductor,
};

/// How the launch is run: math mode of its GEMM-like work and whose kernels.
struct Execution {
  MathMode math = MathMode::Simt;
  Implementation impl = Implementation::Framework;
  bool half = false; ///< fp16 networks under autocast (AMP): fp32 parameters cast per pass
  /// An int8 engine: GEMM-like multiply-adds on int8 operands; without int8 tensor cores (math
  /// Simt) on the CUDA cores' dp4a, four multiply-adds per lane and clock (sm_61+).
  bool int8 = false;
  PassStructure passes = PassStructure::Eager; ///< a framework's passes (Implementation::Framework)
  /// An inference engine (TensorRT-style): per layer it keeps the fastest of its tactics; on CUDA
  /// cores that is Winograd for a LaunchWork::winograd convolution (fp16 and TF32 engines run
  /// their convolutions on tensor cores, int8 ones on dp4a or s8 tensor cores: no Winograd).
  bool engine = false;
};

/// True when a framework runs W's multiply-adds on tensor cores in this math mode: convolutions
/// and GEMMs, except fp32 dense layers and batched matmuls (PyTorch's matmul TF32 default is off)
/// and convolutions of an image's few channels (FrameworkPasses::imageConv). ptxcast's own
/// kernels use tensor cores only where their PTX has tensor instructions.
bool usesTensorCores(const LaunchWork &W, const Execution &E);

/// The GPU-side latency of one kernel launch in SM clock cycles: what a kernel of no work takes
/// between two others in a stream or CUDA graph. The front end and the CTA launch run at the
/// core clock, so a slower clock launches more slowly: 2.5 us at the H100's 1980 MHz (measured
/// there: the shortest launches take 3-4 us with events around them, 2-3 us apiece in graph
/// replay), 3.5 us on an A100, 8 us on a Jetson Orin Nano at 625 MHz.
constexpr double LaunchLatencyCycles = 4950;
/// LaunchLatencyCycles at the GPU's boost clock, ms.
double launchLatencyMs(const GpuSpec &Gpu);

/// How long a thread of a one-element-per-thread pass waits for its element from DRAM, ns. Such
/// a pass (LaunchWork::latencyBoundElements, and a framework's NCHW/NHWC transposes) has at most
/// max threads per SM x SMs elements in flight, so it retires at most that many per
/// MemoryLatencyNs, however high the bandwidth. Fitted on the H100's profile
/// (corpus/data/measured/h100/profile-kernels.csv, docs/cross-gpu.md): cuDNN's NCHW batch norm
/// and its layout transposes in five networks at batch 64, fp16 and fp32 alike, 743-968 ns
/// (median 830). The latency is the memory system's, in ns, not a number of SM clock cycles:
/// counted in cycles of the H100's clock it made the RTX 3090's (lower-clocked) passes
/// latency-bound, and that GPU 17 % off held out instead of 11 %.
constexpr double MemoryLatencyNs = 830;

/// Seconds a one-element-per-thread pass over Elements that moves Bytes takes on Gpu: its DRAM
/// time and its latency time (Elements at max threads per SM x SMs per MemoryLatencyNs) combined
/// as sqrt(dram^2 + latency^2). Neither alone: the loaded latency grows as the pass nears the
/// bandwidth, so fp32's twice the bytes cost the H100's batch norm 1.2-1.3x fp16's time, not
/// 1.0x (latency alone) or 2x (bandwidth alone).
double passSeconds(double Bytes, double Elements, const GpuSpec &Gpu);

/// Instructions other than FFMA that a library's SIMT GEMM issues per FFMA (cuBLAS, cuDNN,
/// CUTLASS sgemm): an 8x8 register tile per thread reads its 16 operands of each k step from
/// shared memory as 4 vector loads for 64 FFMAs, and the tile's global loads, shared stores,
/// barriers and loop count add about as many again over an 8-deep k slice: about one in eight.
/// From Volta on a scheduler issues one warp instruction per clock, so on a 128-lane SM (GA10x,
/// AD10x, GH100, Blackwell) such a GEMM is issue-bound at 1 / 1.125 = 0.89 of the FP32 peak,
/// where a 64-lane SM (GV100, TU10x, GA100) has issue slots to spare (docs/cross-gpu.md).
constexpr double LibraryGemmOverhead = 0.125;

/// Multiplies of Winograd's F(2x2,3x3) per multiply-add of the direct 3x3 convolution: a 4x4
/// input tile gives a 2x2 output tile with 16 multiplies per channel pair instead of 36 (Lavin
/// and Gray, "Fast Algorithms for Convolutional Neural Networks", 2016); the tile transforms'
/// additions are small beside them when the layer has many channels. An inference engine times
/// its Winograd tactic beside its implicit GEMMs and keeps the faster (Execution::engine).
constexpr double WinogradMultiplyShare = 16.0 / 36.0;

/// The share of the L2 a launch can count on to still hold data from the launch before it (its
/// input, just written, or itself timed again: every measurement ptxcast learns from is warm).
/// A launch whose footprint fits in this much of the L2 reads nothing from DRAM.
constexpr double L2ResidentShare = 0.5;

/// Occupancy of one launch on one GPU.
struct Occupancy {
  double ctasPerSm = 0; ///< CTAs resident per SM (>= 1)
  double warpsPerCta = 0;
  std::string limiter; ///< "threads", "ctas", "registers", "shared", "grid"
};
Occupancy occupancy(const LaunchWork &W, const GpuSpec &Gpu);

/// Per-resource busy time, ms. The SM resources are the busiest SM's (ceil(CTAs / SMs) CTAs);
/// L2 and DRAM are the whole GPU's.
enum class Resource : uint8_t { Fma, Int, Fp16, Fp64, Sfu, Tensor, Lsu, Issue, L2, Dram };
constexpr size_t NumResources = 10;
std::string_view resourceName(Resource R);

/// The skeleton of one launch on one GPU.
struct LaunchBound {
  std::array<double, NumResources> ms{}; ///< busy time per Resource
  double workMs = 0;                     ///< the largest busy time
  double unfusedMs = 0; ///< a framework's separate kernels: fused layers, bias adds, autocast
                        ///< casts, layout transposes (DRAM, or memory latency)
  double kernels = 1;   ///< kernels the launch stands for (a framework's separate passes too)
  double latencyMs = 0; ///< launchLatencyMs per kernel the launch stands for
  double boundMs = 0;   ///< workMs + unfusedMs + latencyMs: T_bound
  Occupancy occ;
  double waves = 0;      ///< CTAs / (SMs x CTAs per SM)
  double tailFill = 0;   ///< fill of the last wave, (0, 1]
  double dramBytes = 0;  ///< estimated DRAM traffic
  double l2Bytes = 0;    ///< global sectors x 32; a framework's GEMM-like launch: its footprint
  double computeMs = 0;  ///< largest of the arithmetic pipes
  double memoryMs = 0;   ///< largest of L2 and DRAM
  double busyCycles = 0; ///< workMs in clock cycles of one SM
  // What the launch does, for its energy (hardware/Power.h):
  double laneOps = 0;      ///< thread instructions the SMs execute (a library GEMM: its FFMAs
                           ///< and their LibraryGemmOverhead)
  double tensorFlops = 0;  ///< tensor-core FLOP, counted at the FP16 rate's cost (a TF32 FLOP,
                           ///< at half the FP16 rate, counts 2)
  double unfusedBytes = 0; ///< DRAM bytes of a framework's separate kernels (unfusedMs)
};

/// The skeleton of launch W on Gpu under execution E.
LaunchBound bound(const LaunchWork &W, const GpuSpec &Gpu, const Execution &E);

/// True when X is at least as good as Y on every figure the skeleton reads (SMs, cores and
/// clock, FP16/FP64 and tensor peaks, memory bandwidth, L2, every per-SM limit and pipe width)
/// and better on one: X can then run anything at least as fast as Y, and every bound on X is at
/// most the same bound on Y. Peaks within a datasheet's rounding (0.1 %) count as equal.
bool dominates(const GpuSpec &X, const GpuSpec &Y);

/// dominates() for one workload, which the power model runs at ClockX MHz on X and ClockY on Y:
/// the clocks stand for the lowest clock each GPU could run anything at (its base clock, or
/// half its boost when no base clock is published). A GPU without a published base clock can
/// then dominate one with, on a workload both run at the clock it matches or beats.
bool dominatesAt(const GpuSpec &X, double ClockX, const GpuSpec &Y, double ClockY);

} // namespace hardware
