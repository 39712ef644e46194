// The physical skeleton of a launch (Skeleton.h): occupancy, waves, per-resource busy times and
// the bound. Every rate comes from the GPU catalog (per-GPU peaks, per-architecture pipe widths);
// docs/cross-gpu.md derives each formula.
#include "hardware/Skeleton.h"

#include "hardware/Power.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <vector>

namespace hardware {

using ptx::InstrClass;

std::string_view mathModeName(MathMode M) {
  switch (M) {
  case MathMode::Simt:
    return "simt";
  case MathMode::Tf32:
    return "tf32";
  case MathMode::F16:
    return "f16";
  case MathMode::Bf16:
    return "bf16";
  case MathMode::Int8:
    return "int8";
  }
  return "simt";
}

support::Expected<MathMode> parseMathMode(std::string_view Name) {
  for (MathMode M : {MathMode::Simt, MathMode::Tf32, MathMode::F16, MathMode::Bf16, MathMode::Int8})
    if (Name == mathModeName(M))
      return M;
  return support::Error("unknown math mode '" + std::string(Name) +
                        "' (valid: simt, tf32, f16, bf16, int8)");
}

MathMode defaultMathMode(std::string_view Dtype, double Cc) {
  if (Dtype == "int8") // s8 tensor cores from Xavier's Volta (7.2) on; before, dp4a
    return Cc >= 7.2 ? MathMode::Int8 : MathMode::Simt;
  if (Dtype == "f16")
    return Cc >= 7.0 ? MathMode::F16 : MathMode::Simt;
  return Cc >= 8.0 ? MathMode::Tf32 : MathMode::Simt;
}

double tensorPeak(const GpuSpec &Gpu, MathMode M) {
  switch (M) {
  case MathMode::Tf32:
    return Gpu.tensor.tf32;
  case MathMode::F16:
    return Gpu.tensor.fp16;
  case MathMode::Bf16:
    return Gpu.tensor.bf16;
  case MathMode::Int8:
    return Gpu.tensor.int8;
  case MathMode::Simt:
    return 0;
  }
  return 0;
}

bool fastFp16(const GpuSpec &Gpu) {
  return Gpu.tensor.fp16 > 0 || Gpu.fp16Tflops >= 0.5 * Gpu.fp32Tflops;
}

bool fastInt8(const GpuSpec &Gpu) {
  const double Cc = Gpu.computeCapability;
  return Gpu.tensor.int8 > 0 || std::abs(Cc - 6.1) < 0.01 || Cc >= 7.0;
}

std::string_view kindFamilyName(KindFamily F) {
  constexpr std::string_view Names[NumKindFamilies] = {
#define KIND_FAMILY(Id, Name) Name,
#include "hardware/LaunchKinds.def"
  };
  return Names[static_cast<size_t>(F)];
}

std::span<const LaunchKind> launchKinds() {
  static constexpr LaunchKind Rows[] = {
#define LAUNCH_KIND(Strategy, Family, Library)                                                     \
  {Strategy, KindFamily::Family, KindFamily::Family, MathLibrary::Library},
#define TENSOR_FORM_KIND(Strategy, Library)                                                        \
  {Strategy, KindFamily::Other, KindFamily::Gemm, MathLibrary::Library},
#include "hardware/LaunchKinds.def"
  };
  return Rows;
}

const LaunchKind *findLaunchKind(std::string_view Strategy) {
  for (const LaunchKind &K : launchKinds())
    if (K.strategy == Strategy)
      return &K;
  return nullptr;
}

KindFamily kindFamily(std::string_view Strategy) {
  const LaunchKind *K = findLaunchKind(Strategy);
  return K ? K->family : KindFamily::Other;
}

std::string_view resourceName(Resource R) {
  constexpr std::string_view Names[NumResources] = {"fma",    "int", "fp16",  "fp64", "sfu",
                                                    "tensor", "lsu", "issue", "l2",   "dram"};
  return Names[static_cast<size_t>(R)];
}

namespace {

/// The tensor rate of math mode M for I's kernels: a framework's libraries (cuDNN, cuBLAS) issue
/// the architecture's fastest tensor instructions (Hopper's warpgroup wgmma: their sm90 kernels,
/// profiled on the H100) and reach the full peak; ptxcast's kernels issue warp-level mma.sync
/// (ArchLimits::mmaSyncShare).
double tensorTflops(const GpuSpec &Gpu, MathMode M, Implementation I) {
  const double Share = I == Implementation::Framework ? 1.0 : Gpu.limits.mmaSyncShare();
  return tensorPeak(Gpu, M) * Share;
}

double ctasOf(const analyzer::KernelProfile &P) {
  return double(P.grid[0]) * P.grid[1] * P.grid[2];
}

/// passSeconds of a framework pass over Elements of F's element type, each read and written once.
double readWriteSeconds(double Elements, const FrameworkPasses &F, const GpuSpec &Gpu) {
  return passSeconds(2.0 * F.elementBytes * Elements, Elements, Gpu);
}

/// The least DRAM time of a framework launch whose first layer runs one element per thread: a
/// batch norm reads and writes each element, a pool reads its input (DramBytes in all), at
/// memory latency (passSeconds). 0 for other launches.
double leadingPassMs(const FrameworkPasses &F, const GpuSpec &Gpu, double DramBytes) {
  double Seconds = 0;
  if (F.leadingLatencyBoundElements > 0)
    Seconds = readWriteSeconds(double(F.leadingLatencyBoundElements), F, Gpu);
  if (F.poolInputElements > 0)
    Seconds = std::max(Seconds, passSeconds(DramBytes, double(F.poolInputElements), Gpu));
  return Seconds * 1e3;
}

/// The launch latency of W and the kernels eager PyTorch runs apart from it (unfusedMs,
/// latencyMs; PassStructure::Eager). A framework runs each fused layer as a kernel of its own,
/// after this one: a launch that reads and writes the output once more; so is a convolution's bias
/// add. Around a tensor-core convolution it transposes input and weights to NHWC and the output
/// back (OnTensor), each tensor read and written once. The passes that run one element per thread
/// (LaunchWork::latencyBoundElements, the transposes) take passSeconds; the others stream at
/// the memory bandwidth. Under autocast the framework also casts the fp32 parameters (and input)
/// of the launch's convolutions and dense layers to fp16 first, a kernel per tensor reading 4
/// and writing 2 bytes per element.
void eagerKernels(const LaunchWork &W, const GpuSpec &Gpu, const Execution &E, bool OnTensor,
                  LaunchBound &B) {
  const FrameworkPasses &F = W.framework;
  const double Bw = Gpu.memoryBandwidthGBs * 1e9;
  const double Output = double(W.profile.storeBytes[size_t(analyzer::MemSpace::Global)]);
  const double Passes = double(W.fusedLayers) + F.biasAdds;
  const double PassSlowBytes = 2.0 * F.elementBytes * double(F.latencyBoundElements);
  const double FastBytes = std::max(0.0, Passes * 2 * Output - PassSlowBytes);
  const double Casts = E.half ? F.castTensors : 0;
  const double CastBytes = E.half ? 6.0 * double(F.castElements) : 0;
  const double Transposes = OnTensor ? F.layoutTensors : 0;
  const double SlowElements =
      double(F.latencyBoundElements) + (OnTensor ? double(F.layoutElements) : 0);
  B.unfusedMs = ((FastBytes + CastBytes) / Bw + readWriteSeconds(SlowElements, F, Gpu)) * 1e3;
  B.unfusedBytes = FastBytes + CastBytes + 2.0 * F.elementBytes * SlowElements;
  B.kernels = 1 + Passes + Casts + Transposes;
  B.latencyMs = launchLatencyMs(Gpu) * B.kernels;
}

/// The same under torch.compile (PassStructure::Inductor). A launch headed by a library kernel
/// (a convolution or GEMM, which inductor calls as cuDNN's or cuBLAS's) runs its fused layers
/// and its bias add as one generated pointwise kernel after it, reading the output and the fused
/// layers' other inputs and writing the output once, vectorised: at the memory bandwidth. Any
/// other launch (pointwise, pool, reduction) is one generated kernel, its fused layers in it.
/// Activations stay channels-last, so no transposes; autocast's weight casts remain, a kernel
/// per weight, while a convolution bias is read in fp32 by the bias add.
void inductorKernels(const LaunchWork &W, const GpuSpec &Gpu, const Execution &E, LaunchBound &B) {
  const FrameworkPasses &F = W.framework;
  const LaunchKind *K = findLaunchKind(W.kind);
  const bool Library = K && K->library != MathLibrary::None;
  const double Output = double(W.profile.storeBytes[size_t(analyzer::MemSpace::Global)]);
  const bool Tail = Library && W.fusedLayers + F.biasAdds > 0;
  const double TailBytes =
      Tail ? 2 * Output + double(F.elementBytes) * double(F.tailInputElements) : 0;
  const double Casts = E.half ? double(F.castTensors - F.biasCastTensors) : 0;
  const double CastBytes = E.half ? 6.0 * double(F.castElements - F.biasCastElements) : 0;
  B.unfusedMs = (TailBytes + CastBytes) / (Gpu.memoryBandwidthGBs * 1e9) * 1e3;
  B.unfusedBytes = TailBytes + CastBytes;
  B.kernels = 1 + (Tail ? 1 : 0) + Casts;
  B.latencyMs = launchLatencyMs(Gpu) * B.kernels;
}

/// An engine copies only the inputs of a concatenation that their producers could not write in
/// place (LaunchWork::inPlaceShare): B's busy times, bytes and operations scaled to the share
/// copied, which is returned (1 for every other launch and runtime).
double chargeCopiedShare(const LaunchWork &W, const Execution &E, LaunchBound &B) {
  const double Copied = E.engine ? 1 - W.inPlaceShare : 1;
  if (Copied < 1) {
    for (double &Ms : B.ms)
      Ms *= Copied;
    B.l2Bytes *= Copied;
    B.dramBytes *= Copied;
    B.laneOps *= Copied;
  }
  return Copied;
}

/// The launch latency of W and the kernels a framework runs apart from it, under E's pass
/// structure; ptxcast's own launch is one kernel.
void separateKernels(const LaunchWork &W, const GpuSpec &Gpu, const Execution &E, bool OnTensor,
                     LaunchBound &B) {
  if (E.impl != Implementation::Framework) {
    B.kernels = 1;
    B.latencyMs = launchLatencyMs(Gpu);
  } else if (E.passes == PassStructure::Inductor) {
    inductorKernels(W, Gpu, E, B);
  } else {
    eagerKernels(W, Gpu, E, OnTensor, B);
  }
}

} // namespace

double libraryTileShare(const GemmShape &G, double Sms) {
  if (!G.known())
    return 0;
  constexpr double Tiles[][2] = {{128, 128}, {128, 64}, {64, 64}, {128, 32}, {32, 128}};
  double Best = 0;
  for (const auto &[Tm, Tn] : Tiles) {
    const double Ctas = G.batch * std::ceil(G.m / Tm) * std::ceil(G.n / Tn);
    const double Busiest = std::ceil(Ctas / Sms) * Tm * Tn; // output elements, K each
    Best = Best == 0 ? Busiest : std::min(Best, Busiest);
  }
  // Never below an even spread of the real work.
  return std::max(Best / (G.batch * G.m * G.n), 1 / Sms);
}

bool usesTensorCores(const LaunchWork &W, const Execution &E) {
  const LaunchKind *K = findLaunchKind(W.kind);
  if (E.impl == Implementation::Ptxcast || E.math == MathMode::Simt || !K ||
      K->boundFamily != KindFamily::Gemm || W.framework.imageConv)
    return false;
  return !(E.math == MathMode::Tf32 && K->library == MathLibrary::Matmul);
}

double passSeconds(double Bytes, double Elements, const GpuSpec &Gpu) {
  const double Dram = Bytes / (Gpu.memoryBandwidthGBs * 1e9);
  const double Latency =
      Elements * MemoryLatencyNs * 1e-9 / (Gpu.smCount * Gpu.limits.maxThreadsPerSm);
  return std::hypot(Dram, Latency);
}

double launchLatencyMs(const GpuSpec &Gpu) {
  return LaunchLatencyCycles / (Gpu.boostClockMhz * 1e3);
}

Occupancy occupancy(const LaunchWork &W, const GpuSpec &Gpu) {
  const ArchLimits &L = Gpu.limits;
  const analyzer::KernelProfile &P = W.profile;
  Occupancy O;
  const double Threads = double(P.block[0]) * P.block[1] * P.block[2];
  O.warpsPerCta = std::ceil(Threads / 32);
  auto Limit = [&](double Ctas, const char *Why) {
    if (Ctas < O.ctasPerSm) {
      O.ctasPerSm = Ctas;
      O.limiter = Why;
    }
  };
  O.ctasPerSm = L.maxCtasPerSm;
  O.limiter = "ctas";
  Limit(std::floor(L.maxWarpsPerSm / O.warpsPerCta), "threads");
  if (P.registersPerThread > 0) {
    double PerWarp =
        std::ceil(P.registersPerThread * 32.0 / L.registerAllocUnit) * L.registerAllocUnit;
    Limit(std::floor(L.registersPerSm / (PerWarp * O.warpsPerCta)), "registers");
  }
  double SharedKB = (P.staticSharedBytes + P.sharedBytes) / 1024.0;
  if (SharedKB > 0)
    Limit(std::floor(L.sharedMemPerSmKB / (SharedKB + L.sharedMemPerCtaReservedKB)), "shared");
  O.ctasPerSm = std::max(1.0, O.ctasPerSm);
  double PerSm = std::ceil(ctasOf(P) / Gpu.smCount);
  Limit(PerSm, "grid");
  return O;
}

namespace {

/// Thread instructions of a class.
double thr(const analyzer::KernelProfile &P, InstrClass C) {
  return double(P.threadInstructions[static_cast<size_t>(C)]);
}

/// Per-SM busy cycles of the pipes, for the whole launch (before taking the busiest SM's share).
std::array<double, NumResources> pipeCycles(const LaunchWork &W, const GpuSpec &Gpu) {
  const analyzer::KernelProfile &P = W.profile;
  const ArchLimits &L = Gpu.limits;
  const double PerSmClock = Gpu.smCount * Gpu.boostClockMhz * 1e6;
  auto Lanes = [&](double Tflops, double Fallback) {
    return Tflops > 0 ? Tflops * 1e12 / 2 / PerSmClock : Fallback;
  };
  std::array<double, NumResources> C{};
  double Fma = thr(P, InstrClass::Fp32) + thr(P, InstrClass::IntMul);
  double Int = thr(P, InstrClass::IntArith) + thr(P, InstrClass::Logic) +
               thr(P, InstrClass::CompareSelect) + thr(P, InstrClass::Convert);
  // Where integer instructions take FP32 lanes (all of them before Volta and on RTX Blackwell,
  // the INT32-capable half on GA10x and AD10x), FP32 and integer work share the FP32 lanes.
  if (L.int32SharesFp32)
    Fma += Int;
  C[size_t(Resource::Fma)] = Fma / Gpu.fp32CoresPerSm;
  // Conversions are mostly integer widening for addresses (cvt.u64.u32), which runs on the
  // integer pipe; float conversions are a minority in CNN kernels.
  C[size_t(Resource::Int)] = Int / L.int32LanesPerSm;
  C[size_t(Resource::Fp16)] = thr(P, InstrClass::Fp16) / Lanes(Gpu.fp16Tflops, Gpu.fp32CoresPerSm);
  C[size_t(Resource::Fp64)] =
      thr(P, InstrClass::Fp64) / Lanes(Gpu.fp64Tflops, Gpu.fp32CoresPerSm / 32);
  // IEEE division and square root expand to a few SFU-class instructions each.
  C[size_t(Resource::Sfu)] =
      (thr(P, InstrClass::SpecialFn) + 4 * thr(P, InstrClass::DivSqrt)) / L.sfuLanesPerSm;
  const double Sectors = double(P.globalLoadSectors + P.globalStoreSectors + P.globalAtomicSectors);
  const double Requests =
      double(P.globalLoadRequests + P.globalStoreRequests + P.globalAtomicRequests);
  C[size_t(Resource::Lsu)] = std::max(Requests, Sectors * 32 / L.l1BytesPerClockPerSm) +
                             double(P.sharedLoadRequests + P.sharedStoreRequests +
                                    P.sharedAtomicRequests + P.sharedBankConflicts);
  C[size_t(Resource::Issue)] = double(P.warpInstructionsTotal()) / L.warpSchedulersPerSm;
  return C;
}

/// The busy cycles of W's arithmetic and issue on one SM (all SMs together), and its lane
/// operations and tensor FLOPs in B (for its energy). Ideal: a framework's GEMM-like launch, only
/// its multiply-adds at the rate of the pipe they run on; otherwise ptxcast's counts per pipe,
/// with the PTX's own tensor instructions at the math mode's tensor rate. Tensor: the math
/// mode's tensor rate (TFLOPS); OnTensor: a GEMM-like launch's multiply-adds run at it.
std::array<double, NumResources> arithmeticCycles(const LaunchWork &W, const GpuSpec &Gpu,
                                                  const Execution &E, bool Ideal, double Tensor,
                                                  bool OnTensor, LaunchBound &B) {
  const analyzer::KernelProfile &P = W.profile;
  const double Hz = Gpu.boostClockMhz * 1e6;
  std::array<double, NumResources> Cycles{};
  if (Ideal) {
    if (OnTensor) {
      Cycles[size_t(Resource::Tensor)] = W.macs / (Tensor * 1e12 / 2 / (Gpu.smCount * Hz));
      B.tensorFlops = 2 * W.macs * Gpu.tensor.fp16 / Tensor;
    } else {
      // One FFMA per multiply-add; an int8 engine's dp4a does four; an engine's Winograd tactic
      // multiplies less.
      const double Winograd = E.engine && !E.int8 && W.winograd ? WinogradMultiplyShare : 1;
      const double Instructions = (E.int8 ? W.macs / 4 : W.macs) * Winograd;
      Cycles[size_t(Resource::Fma)] = Instructions / Gpu.fp32CoresPerSm;
      // Each FFMA brings LibraryGemmOverhead other instructions, and from Volta on a scheduler
      // issues one warp instruction per clock: a 128-lane SM cannot reach its FP32 peak.
      const double Issued = Instructions * (1 + LibraryGemmOverhead);
      if (!Gpu.limits.dualIssue)
        Cycles[size_t(Resource::Issue)] = Issued / 32 / Gpu.limits.warpSchedulersPerSm;
      B.laneOps = Issued;
    }
  } else {
    B.laneOps = double(P.threadInstructionsTotal());
    Cycles = pipeCycles(W, Gpu);
    // Tensor instructions in the PTX itself (the interpreter counts their multiply-adds), at
    // the rate of the math mode, or the FP16 rate when none is set.
    const double Rate = Tensor > 0 ? Tensor : tensorTflops(Gpu, MathMode::F16, E.impl);
    if (P.tensorMacs > 0 && Rate > 0) {
      Cycles[size_t(Resource::Tensor)] =
          double(P.tensorMacs) / (Rate * 1e12 / 2 / (Gpu.smCount * Hz));
      B.tensorFlops = 2 * double(P.tensorMacs) * Gpu.tensor.fp16 / Rate;
    }
  }
  return Cycles;
}

/// B's L2 and DRAM busy times and bytes for W (Ideal: a framework's GEMM-like launch, whose
/// tiled kernel reads its footprint through L2 once).
void memoryTimes(const LaunchWork &W, const GpuSpec &Gpu, const Execution &E, bool Ideal,
                 LaunchBound &B) {
  const analyzer::KernelProfile &P = W.profile;
  const double Hz = Gpu.boostClockMhz * 1e6;
  const double Ctas = std::max(1.0, ctasOf(P));
  // L2: every requested sector, at the bandwidth of the SMs that run CTAs. A library's tiled
  // kernel requests each byte of its footprint from L2 at least once (more, re-reading tiles;
  // those re-reads are its efficiency's business).
  const double ActiveSms = std::min(Ctas, Gpu.smCount);
  B.l2Bytes =
      Ideal ? double(W.footprintBytes)
            : 32.0 * double(P.globalLoadSectors + P.globalStoreSectors + P.globalAtomicSectors);
  B.ms[size_t(Resource::L2)] = B.l2Bytes / (Gpu.limits.l2BytesPerClockPerSm * ActiveSms * Hz) * 1e3;
  // DRAM: the footprint once, less what is still in L2 from the launch before (the layer that
  // wrote this one's input, or the same launch timed again). Re-reads within the launch are
  // short-lived (a stencil's window, a GEMM tile's rows) and hit L1 or L2; the L2 term above
  // charges every requested sector.
  const double Footprint = double(W.footprintBytes);
  const double Resident =
      Footprint > 0 ? std::min(1.0, L2ResidentShare * Gpu.l2MB * 1024 * 1024 / Footprint) : 1;
  B.dramBytes = Footprint * (1 - Resident);
  B.ms[size_t(Resource::Dram)] = B.dramBytes / (Gpu.memoryBandwidthGBs * 1e9) * 1e3;
  // Eager PyTorch's NCHW batch norm and pool kernels run one element or window per thread;
  // inductor's generated kernels are vectorised and stream.
  if (E.impl == Implementation::Framework && E.passes == PassStructure::Eager)
    B.ms[size_t(Resource::Dram)] =
        std::max(B.ms[size_t(Resource::Dram)], leadingPassMs(W.framework, Gpu, B.dramBytes));
}

} // namespace

LaunchBound bound(const LaunchWork &W, const GpuSpec &Gpu, const Execution &E) {
  assert(Gpu.smCount > 0 && Gpu.boostClockMhz > 0 && "GPU spec without SMs or clock");
  const analyzer::KernelProfile &P = W.profile;
  const double Hz = Gpu.boostClockMhz * 1e6;
  const double Ctas = std::max(1.0, ctasOf(P));
  LaunchBound B;
  B.occ = occupancy(W, Gpu);
  B.waves = Ctas / (Gpu.smCount * B.occ.ctasPerSm);
  B.tailFill = B.waves <= 1 ? B.waves : B.waves - std::floor(B.waves);
  if (B.tailFill == 0)
    B.tailFill = 1;

  const LaunchKind *Kind = findLaunchKind(W.kind);
  const KindFamily Family = Kind ? Kind->boundFamily : KindFamily::Other;
  const double Tensor = tensorTflops(Gpu, E.math, E.impl);
  const bool OnTensor = usesTensorCores(W, E) && Tensor > 0;
  // A library's GEMM-like kernel (and its grouped or narrow convolutions, which ptxcast lowers
  // as direct convolutions) is register- and shared-memory-tiled: its instruction issue,
  // load/store and L2 traffic are small next to its multiply-adds, which our plain kernel's
  // counts are not. So for a framework's GEMM-like launch only the multiply-adds (at the rate of
  // the pipe they run on) and the compulsory L2 and DRAM traffic bound the time.
  // ptxcast's GEMV (a layer of fewer than 8 rows) reads the weights once per row and issues more
  // instructions per weight than a library's, which reads them once per product: so a
  // framework's GEMV is bound as its library's (counted as ptxcast's, the bound fell from 1 to 2
  // rows, and from 7 to 8, where the lowering switches to a GEMM).
  const bool Ideal = E.impl == Implementation::Framework &&
                     (Family == KindFamily::Gemm || Family == KindFamily::DirectConv ||
                      (Family == KindFamily::Gemv && W.gemm.known()));
  const std::array<double, NumResources> Cycles =
      arithmeticCycles(W, Gpu, E, Ideal, Tensor, OnTensor, B);
  // The busiest SM runs ceil(CTAs / SMs) of the CTAs.
  const double Busiest = std::ceil(Ctas / Gpu.smCount) / Ctas;
  for (size_t R = 0; R <= size_t(Resource::Issue); ++R)
    B.ms[R] = Cycles[R] * Busiest / Hz * 1e3;

  memoryTimes(W, Gpu, E, Ideal, B);

  const double Copied = chargeCopiedShare(W, E, B);
  B.workMs = *std::max_element(B.ms.begin(), B.ms.end());
  B.computeMs = *std::max_element(B.ms.begin(), B.ms.begin() + size_t(Resource::Tensor) + 1);
  B.memoryMs = std::max(B.ms[size_t(Resource::L2)], B.ms[size_t(Resource::Dram)]);
  separateKernels(W, Gpu, E, OnTensor, B);
  if (Copied <= 0) { // nothing left to copy: no launch
    B.kernels = 0;
    B.latencyMs = 0;
  }
  B.boundMs = B.workMs + B.unfusedMs + B.latencyMs;
  B.busyCycles = B.workMs * 1e-3 * Hz;
  return B;
}

namespace {

/// The lowest SM clock the power model (hardware/Power.h) can give G: a Jetson module runs its
/// power mode's clock, other GPUs never drop below their base clock.
double floorClockMhz(const GpuSpec &G) {
  if (G.formFactor == "module")
    return G.boostClockMhz;
  return G.baseClockMhz > 0 ? G.baseClockMhz : G.boostClockMhz * UnknownBaseClockShare;
}

/// Peak rates are SMs x a per-SM rate x a clock, rounded on datasheets: the H100 SXM's TF32 peak is
/// listed at 494.7 TFLOPS and the GH200's, the same chip at the same clock, at 494.5. Peaks
/// within this share of each other count as equal.
constexpr double DatasheetRounding = 1e-3;

/// One figure dominates() compares, oriented so that larger is better; `peak`: a datasheet's
/// rounded peak rate (DatasheetRounding).
struct SpecLine {
  double value;
  bool peak = false;
};

/// The figures dominates() compares; FloorMhz is the lowest clock G runs the workloads compared
/// at (floorClockMhz for any workload). A fixed-size array: the dominance rule compares every
/// pair of catalog GPUs per network, so no allocation.
std::array<SpecLine, 33> specLines(const GpuSpec &G, double FloorMhz) {
  const ArchLimits &L = G.limits;
  // A module's power mode fixes its clock, so its power figures do not matter: they count as the
  // worst, and its floor (its mode's clock) is what a GPU must match to dominate it.
  const bool Module = G.formFactor == "module";
  const double Mma = L.mmaSyncShare();
  // Tensor-core energy counts only where there are tensor cores: one without them is no better
  // there than any GPU (its tensor peaks, below, are 0).
  const double TensorEnergy = L.tensorFp16FlopsPerClockPerSm > 0 ? tensorEnergyShare(G) : 1e9;
  return {{{G.smCount},
           {Module ? 0.0 : G.tdpW},
           {FloorMhz},
           {Module ? -1e9 : -L.relativeEnergy},
           {Module ? -1e9 : -TensorEnergy},
           {Module ? -1e9 : -G.memoryPjPerBit},
           {L.dualIssue ? 1.0 : 0.0},
           {G.fp32CoresPerSm},
           {G.boostClockMhz},
           {G.maxClockMhz},
           {G.memoryBandwidthGBs},
           {G.l2MB},
           {L.maxThreadsPerSm},
           {L.maxCtasPerSm},
           {L.maxWarpsPerSm},
           {L.registersPerSm},
           {L.sharedMemPerSmKB},
           {L.warpSchedulersPerSm},
           {L.int32LanesPerSm},
           {L.sfuLanesPerSm},
           {L.l1BytesPerClockPerSm},
           {L.l2BytesPerClockPerSm},
           {-L.registerAllocUnit},
           {-L.sharedMemPerCtaReservedKB},
           {L.int32SharesFp32 ? 0.0 : 1.0},
           {G.fp16Tflops, true},
           {G.fp64Tflops, true},
           {G.tensor.fp16, true},
           {G.tensor.bf16, true},
           {G.tensor.tf32, true},
           {G.tensor.fp16 * Mma, true},
           {G.tensor.bf16 * Mma, true},
           {G.tensor.tf32 * Mma, true}}};
}

} // namespace

bool dominates(const GpuSpec &X, const GpuSpec &Y) {
  return dominatesAt(X, floorClockMhz(X), Y, floorClockMhz(Y));
}

bool dominatesAt(const GpuSpec &X, double ClockX, const GpuSpec &Y, double ClockY) {
  const auto A = specLines(X, ClockX), B = specLines(Y, ClockY);
  bool Better = false;
  for (size_t I = 0; I < A.size(); ++I) {
    const double Slack = B[I].peak ? DatasheetRounding * std::abs(B[I].value) : 0;
    if (A[I].value < B[I].value - Slack)
      return false;
    Better |= A[I].value > B[I].value + Slack;
  }
  return Better;
}

} // namespace hardware
