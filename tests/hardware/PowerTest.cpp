// The clock under a power limit (hardware/Power.h), the library GEMM's issue limit, FP32 and
// INT32 sharing lanes on GA10x/AD10x, and the hosts of eager PyTorch (hardware/Host.h). Launch
// counts are synthetic, for mechanics; the GPUs are the catalog's.
#include "hardware/Power.h"
#include "hardware/Features.h"
#include "hardware/Host.h"
#include "hardware/Skeleton.h"

#include <doctest/doctest.h>

#include <string>

using namespace hardware;

namespace {

GpuSpec catalogGpu(const char *Name) {
  auto C = GpuCatalog::builtin();
  REQUIRE(C);
  auto G = C->lookup(Name);
  REQUIRE_MESSAGE(G, support::errorText(G));
  return *G;
}

/// A library SGEMM of 2 x Macs FLOP over 4 MB (a framework's dense layer, CUDA cores).
LaunchWork sgemm(double Macs) {
  LaunchWork W;
  W.kind = "dense_gemm";
  W.profile.grid = {4096, 1, 1};
  W.profile.block = {256, 1, 1};
  W.macs = Macs;
  W.footprintBytes = 4u << 20;
  return W;
}

/// A framework's elementwise pass over Bytes of fp32 (read and written once), 10 instructions
/// per element.
LaunchWork streaming(double Bytes) {
  LaunchWork W;
  W.kind = "eltwise_add";
  W.profile.grid = {65536, 1, 1};
  W.profile.block = {256, 1, 1};
  const double Elements = Bytes / 8;
  W.profile.threadInstructions[size_t(ptx::InstrClass::Fp32)] = uint64_t(10 * Elements);
  W.profile.warpInstructions[size_t(ptx::InstrClass::Fp32)] = uint64_t(10 * Elements / 32);
  W.profile.globalLoadRequests = uint64_t(Elements / 32);
  W.profile.globalLoadSectors = uint64_t(Elements / 8);
  W.footprintBytes = uint64_t(Bytes);
  return W;
}

const Execution Simt{MathMode::Simt, Implementation::Framework, false};

} // namespace

TEST_CASE("power: a compute-bound SGEMM holds the boost clock on a 700 W H100, not on a 70 W T4") {
  LaunchWork W = sgemm(1e12);
  SustainedClock H100 = sustainedClock({&W, 1}, catalogGpu("h100"), Simt);
  CHECK(H100.limiter == "boost");
  CHECK(H100.mhz == 1980);
  CHECK(H100.boardW < 700);
  GpuSpec T4 = catalogGpu("t4");
  SustainedClock C = sustainedClock({&W, 1}, T4, Simt);
  CHECK(C.share < 0.8);
  CHECK(C.mhz >= T4.baseClockMhz);
  // Where the limit sets the clock, the board draws the limit.
  if (C.limiter == "power")
    CHECK(C.boardW == doctest::Approx(T4.tdpW).epsilon(1e-3));
  // The bound at the sustained clock is longer by the clock ratio (compute-bound).
  const double AtBoost = groupFeatures({&W, 1}, T4, Simt, SustainedClock{}).boundMs;
  const double Sustained = groupFeatures({&W, 1}, T4, Simt).boundMs;
  CHECK(Sustained > AtBoost * 1.2);
}

TEST_CASE("power: a dense FP16 GEMM on the T4 sustains its users' 24 TFLOPS, near base clock") {
  // 4096 x 4096 x 4096 in pure fp16 (an engine's GEMM: no autocast casts) on tensor cores. Its
  // users measure about 24 TFLOPS of the 65 peak, power-capped (gpus.json, architecture 7.5).
  LaunchWork W = sgemm(4096.0 * 4096 * 4096);
  Execution Engine{MathMode::F16};
  Engine.engine = true;
  GpuSpec T4 = catalogGpu("t4");
  CHECK(tensorEnergyShare(T4) == 0.21);
  SustainedClock C = sustainedClock({&W, 1}, T4, Engine);
  CHECK(C.limiter == "power");
  CHECK(C.mhz > T4.baseClockMhz);
  CHECK(C.mhz < 0.45 * T4.boostClockMhz);
  const double Tflops = 2 * W.macs / (groupFeatures({&W, 1}, T4, Engine).boundMs * 1e9);
  CHECK(Tflops > 20);
  CHECK(Tflops < 30);
  // At the share of the architectures nobody measured it would hold a higher clock.
  GpuSpec Unmeasured = T4;
  Unmeasured.limits.tensorFlopEnergyShare = 0;
  CHECK(tensorEnergyShare(Unmeasured) == TensorFlopEnergyShare);
  CHECK(sustainedClock({&W, 1}, Unmeasured, Engine).mhz > 1.4 * C.mhz);
  // A GPU's tensor energy is a figure the dominating GPU must match, where it has tensor cores.
  CHECK(dominates(Unmeasured, T4));
  CHECK(!dominates(T4, Unmeasured));
  GpuSpec NoTensorCores = Unmeasured;
  NoTensorCores.limits.tensorFp16FlopsPerClockPerSm = 0;
  NoTensorCores.tensor = TensorRates{};
  CHECK(dominates(T4, NoTensorCores));
  // The H100 SXM, with 700 W for its tensor cores, holds its boost clock; so does a 250 W V100
  // PCIe at the default share, whose users measure 101 TFLOPS in FP16 GEMMs, 90 % of its peak.
  CHECK(sustainedClock({&W, 1}, catalogGpu("h100"), Engine).limiter == "boost");
  GpuSpec V100 = catalogGpu("v100-pcie-32gb");
  CHECK(tensorEnergyShare(V100) == TensorFlopEnergyShare);
  CHECK(sustainedClock({&W, 1}, V100, Engine).limiter == "boost");
}

TEST_CASE("power: a memory-bound pass keeps its speed where a compute-bound one slows down") {
  GpuSpec T4 = catalogGpu("t4");
  LaunchWork Stream = streaming(1e9);
  SustainedClock C = sustainedClock({&Stream, 1}, T4, Simt);
  const double Boost = groupFeatures({&Stream, 1}, T4, Simt, SustainedClock{}).boundMs;
  const double Sustained = groupFeatures({&Stream, 1}, T4, Simt).boundMs;
  CHECK(Sustained <= Boost * 1.05); // its DRAM time does not depend on the SM clock
  LaunchWork Gemm = sgemm(1e12);
  CHECK(sustainedClock({&Gemm, 1}, T4, Simt).share <= C.share);
}

TEST_CASE("power: the clock never drops below the base clock, and a Jetson runs its mode's") {
  LaunchWork W = sgemm(1e13);
  GpuSpec L4 = catalogGpu("l4"); // 72 W for 58 Ada SMs at 2040 MHz
  SustainedClock C = sustainedClock({&W, 1}, L4, Simt);
  CHECK(C.mhz >= L4.baseClockMhz);
  CHECK(C.mhz < L4.boostClockMhz);
  GpuSpec Orin = catalogGpu("orin-nano@7w");
  SustainedClock M = sustainedClock({&W, 1}, Orin, Simt);
  CHECK(M.limiter == "mode");
  CHECK(M.mhz == Orin.boostClockMhz);
}

TEST_CASE("power: more power limit never means a slower clock") {
  LaunchWork W = sgemm(1e12);
  GpuSpec T4 = catalogGpu("t4");
  double Last = 0;
  for (double Watts : {40.0, 70.0, 100.0, 200.0, 400.0}) {
    T4.tdpW = Watts;
    const double Mhz = sustainedClock({&W, 1}, T4, Simt).mhz;
    CHECK(Mhz >= Last);
    Last = Mhz;
  }
  CHECK(Last == T4.boostClockMhz);
}

TEST_CASE("power: a GeForce card runs above its rated boost while the power fits") {
  GpuSpec Rtx4090 = catalogGpu("rtx-4090");
  CHECK(Rtx4090.maxClockMhz == 2850); // its own published top clock
  GpuSpec Rtx3090 = catalogGpu("rtx-3090");
  CHECK(Rtx3090.maxClockMhz == doctest::Approx(Rtx3090.boostClockMhz * 1.13)); // the headroom
  CHECK(catalogGpu("h100").maxClockMhz == 1980); // a data-centre card's boost is its top
  CHECK(catalogGpu("t4").maxClockMhz == catalogGpu("t4").boostClockMhz);
  CHECK(catalogGpu("p4").maxClockMhz == 1114); // deviceQuery's maximum, above the 1063 boost
  LaunchWork Light = streaming(1e8);
  SustainedClock C = sustainedClock({&Light, 1}, Rtx4090, Simt);
  CHECK(C.limiter == "boost");
  CHECK(C.mhz == 2850);
  CHECK(C.share == doctest::Approx(2850.0 / 2520));
  // The bound is taken at that clock: a compute-bound launch is shorter than at the rated boost.
  LaunchWork Gemm = sgemm(1e10);
  const double AtRated = groupFeatures({&Gemm, 1}, Rtx4090, Simt, SustainedClock{}).boundMs;
  CHECK(groupFeatures({&Gemm, 1}, Rtx4090, Simt).boundMs < AtRated);
  // With too little power the limit still sets the clock, below the top one.
  Rtx4090.tdpW = 60;
  SustainedClock Held = sustainedClock({&Gemm, 1}, Rtx4090, Simt);
  CHECK(Held.limiter != "boost");
  CHECK(Held.mhz < 2850);
}

TEST_CASE("power: a GPU at another clock scales its clock-proportional peaks only") {
  GpuSpec H100 = catalogGpu("h100");
  GpuSpec Slow = atClock(H100, 990);
  CHECK(Slow.boostClockMhz == 990);
  CHECK(Slow.maxClockMhz == 990);
  CHECK(Slow.fp32Tflops == doctest::Approx(H100.fp32Tflops / 2));
  CHECK(Slow.tensor.fp16 == doctest::Approx(H100.tensor.fp16 / 2));
  CHECK(Slow.memoryBandwidthGBs == H100.memoryBandwidthGBs);
  CHECK(Slow.smCount == H100.smCount);
}

TEST_CASE("skeleton: a library SGEMM is issue-bound on 128-lane SMs, lane-bound on 64-lane ones") {
  LaunchWork W = sgemm(1e11);
  auto Shares = [&](const char *Gpu) {
    LaunchBound B = bound(W, catalogGpu(Gpu), Simt);
    return B.ms[size_t(Resource::Issue)] / B.ms[size_t(Resource::Fma)];
  };
  CHECK(Shares("h100") == doctest::Approx(1 + LibraryGemmOverhead)); // 128 lanes, 4 x 32 issue
  CHECK(Shares("a100") < 1);                                         // 64 lanes: slots to spare
  CHECK(Shares("rtx-4090") > 1);
  CHECK(Shares("p100") == 0); // Pascal dual-issues the loads beside the FFMAs
}

TEST_CASE("skeleton: FP32 and INT32 share the dual lanes on GA10x and AD10x, not on GA100") {
  LaunchWork W;
  W.kind = "eltwise_add";
  W.profile.grid = {1024, 1, 1};
  W.profile.block = {256, 1, 1};
  W.profile.threadInstructions[size_t(ptx::InstrClass::Fp32)] = 1u << 28;
  LaunchWork WithInt = W;
  WithInt.profile.threadInstructions[size_t(ptx::InstrClass::IntArith)] = 1u << 28;
  const Execution Own{MathMode::Simt, Implementation::Ptxcast, false};
  auto Fma = [&](const LaunchWork &X, const char *Gpu) {
    return bound(X, catalogGpu(Gpu), Own).ms[size_t(Resource::Fma)];
  };
  // AD102: the integer instructions take FP32 lanes; GA100: they run beside them.
  CHECK(Fma(WithInt, "rtx-4090") == doctest::Approx(2 * Fma(W, "rtx-4090")));
  CHECK(Fma(WithInt, "a100") == doctest::Approx(Fma(W, "a100")));
}

TEST_CASE("hosts: every GPU has one: Jetsons their own Arm cores, GeForce a desktop") {
  auto C = GpuCatalog::builtin();
  REQUIRE(C);
  for (const GpuSpec &G : C->gpus()) {
    CHECK_MESSAGE(G.host.relativeSpeed > 0, G.name);
    if (G.formFactor == "module")
      CHECK_MESSAGE(G.host.name.rfind("jetson-", 0) == 0, G.name);
  }
  CHECK(catalogGpu("rtx-4090").host.name == "x86-desktop");
  CHECK(catalogGpu("h100").host.name == "x86-server");
  CHECK(catalogGpu("gh200").host.name == "grace");
  CHECK(catalogGpu("orin-nano@7w").host.name == "jetson-orin-nano");
  // Only the x86 server's and Grace's speeds come from PyTorch's own host time.
  for (const HostSpec &H : C->hosts())
    CHECK_MESSAGE(H.speedFromPyTorch == (H.name == "x86-server" || H.name == "grace"), H.name);
  // A slower CPU takes longer per kernel.
  CHECK(eagerHostMsPerKernel(catalogGpu("jetson-agx-orin").host) >
        eagerHostMsPerKernel(catalogGpu("h100").host));
  CHECK(eagerHostMsPerKernel(catalogGpu("h100").host) == doctest::Approx(EagerHostMsPerKernel));
  auto Unknown = C->host("pentium");
  REQUIRE_FALSE(Unknown);
  CHECK(Unknown.error().message.find("x86-server") != std::string::npos);
}

TEST_CASE("catalog: a spec file's memory type, process, host and top clock must be valid") {
  auto C = GpuCatalog::builtin();
  REQUIRE(C);
  const std::string Base = R"({"name": "x", "compute_capability": "8.9", "sm_count": 10,
    "fp32_cores_per_sm": 128, "base_clock_mhz": 1000, "boost_clock_mhz": 2000,
    "fp32_tflops": 5.12, "fp16_tflops": 5.12, "bf16_tflops": 5.12, "fp64_tflops": 0.08,
    "memory_bandwidth_gbs": 100, "memory_gb": 8, "l2_mb": 8, "tdp_w": 50)";
  auto Plain = C->parseSpec(Base + "}", "x.json");
  REQUIRE_MESSAGE(Plain, support::errorText(Plain));
  CHECK(Plain->memoryPjPerBit == 0); // no memory type: memory power not charged
  CHECK(Plain->limits.process == "TSMC 4N");
  CHECK(Plain->host.name == "x86-server");
  auto Hbm = C->parseSpec(Base + R"(, "memory_type": "HBM3", "process": "TSMC N7"})", "x.json");
  REQUIRE_MESSAGE(Hbm, support::errorText(Hbm));
  CHECK(Hbm->memoryPjPerBit > 0);
  CHECK(Hbm->limits.relativeEnergy == doctest::Approx(0.4));
  CHECK(Plain->maxClockMhz == 2000); // a spec without a form factor: its boost is its top
  auto Top = C->parseSpec(Base + R"(, "form_factor": "desktop"})", "x.json");
  REQUIRE_MESSAGE(Top, support::errorText(Top));
  CHECK(Top->maxClockMhz == doctest::Approx(2000 * 1.13));
  auto Own = C->parseSpec(Base + R"(, "form_factor": "desktop", "max_clock_mhz": 2100})", "x.json");
  REQUIRE_MESSAGE(Own, support::errorText(Own));
  CHECK(Own->maxClockMhz == 2100);
  for (const char *Bad : {R"(, "memory_type": "HBM9"})", R"(, "process": "3 nm"})",
                          R"(, "host": "pentium"})", R"(, "max_clock_mhz": 1500})",
                          R"(, "max_clock_mhz": 1e9})", R"(, "max_clock_mhz": "2100"})"}) {
    auto E = C->parseSpec(Base + Bad, "x.json");
    REQUIRE_FALSE(E);
    CHECK(E.error().str().find("x.json") == 0);
  }
}

TEST_CASE("dominance: power limits and base clocks are figures a dominating GPU must match") {
  GpuSpec H100 = catalogGpu("h100");
  GpuSpec LowPower = H100;
  LowPower.tdpW = 300;
  CHECK(dominates(H100, LowPower));
  CHECK_FALSE(dominates(LowPower, H100));
  GpuSpec LowBase = H100;
  LowBase.baseClockMhz = 1000;
  CHECK(dominates(H100, LowBase));
  GpuSpec LowTop = H100;
  LowTop.maxClockMhz = 1900;
  CHECK(dominates(H100, LowTop));
  CHECK_FALSE(dominates(LowTop, H100));
  // A data-centre card dominates a Jetson only with a base clock above the module's clock.
  CHECK(dominates(H100, catalogGpu("orin-nano@7w")));
  // The B200 matches or beats the H100 on every figure but the base clock, which is not
  // published: on any workload it may fall to half its boost, so it does not dominate; on a
  // workload the power model runs at its boost and the H100 at its own, it does.
  GpuSpec B200 = catalogGpu("b200");
  CHECK_FALSE(dominates(B200, H100));
  CHECK(dominatesAt(B200, 2111, H100, 1980));
  CHECK_FALSE(dominatesAt(B200, 1900, H100, 1980)); // a power-limited B200 at a lower clock
  CHECK_FALSE(dominatesAt(H100, 1980, B200, 1000)); // every other figure still counts
  // Peaks are rounded on datasheets: the GH200's TF32 (494.5) and the H100's (494.7) are the
  // same chip at the same clock, so the GH200's bandwidth and power make it dominate; a peak 1 %
  // lower is a real difference.
  GpuSpec GH200 = catalogGpu("gh200");
  CHECK(GH200.tensor.tf32 < H100.tensor.tf32);
  CHECK(dominatesAt(GH200, 1980, H100, 1980));
  GpuSpec SlowerTf32 = GH200;
  SlowerTf32.tensor.tf32 = H100.tensor.tf32 * 0.99;
  CHECK_FALSE(dominatesAt(SlowerTf32, 1980, H100, 1980));
}

TEST_CASE("power: a laptop GPU at the bottom of its power range runs an SGEMM far below boost") {
  // One chip, two makers' limits: the RTX 4090 Laptop GPU at 150 W (boost 2040 MHz) and at 80 W
  // (boost 1455). An SGEMM draws more than either limit at its boost, so both run it below boost,
  // and the 80 W laptop is slower than the 150 W one by more than the boost clocks' ratio.
  LaunchWork W = sgemm(4096.0 * 4096 * 4096);
  GpuSpec Top = catalogGpu("rtx-4090-laptop"), Low = catalogGpu("rtx-4090-laptop@80w");
  CHECK(Top.formFactor == "laptop");
  CHECK(Top.maxClockMhz == Top.boostClockMhz); // no GeForce desktop headroom in a laptop
  CHECK(Top.host.name == "x86-desktop");       // a gaming laptop's H/HX CPU
  CHECK(dominates(Top, Low));
  for (const GpuSpec *G : {&Top, &Low}) {
    SustainedClock C = sustainedClock({&W, 1}, *G, Simt);
    CHECK(C.limiter == "power");
    CHECK(C.mhz < G->boostClockMhz);
    CHECK(C.boardW == doctest::Approx(G->tdpW).epsilon(1e-3));
  }
  const double TopMs = groupFeatures({&W, 1}, Top, Simt).boundMs;
  const double LowMs = groupFeatures({&W, 1}, Low, Simt).boundMs;
  CHECK(LowMs > 1.2 * TopMs * Top.boostClockMhz / Low.boostClockMhz);
}
