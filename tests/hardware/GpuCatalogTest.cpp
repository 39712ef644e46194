// The GPU catalog (hardware/GpuCatalog.h): required entries, aliases, datasheet consistency.
#include "hardware/GpuCatalog.h"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

using namespace hardware;

namespace {
GpuCatalog catalog() {
  auto C = GpuCatalog::builtin();
  REQUIRE(C);
  return *C;
}

/// Closeness of two rates: |A/B - 1|.
double off(double A, double B) { return std::fabs(A / B - 1); }
} // namespace

TEST_CASE("catalog: every required GPU is present with a source note") {
  GpuCatalog C = catalog();
  for (const char *Name : {"p4",
                           "p100",
                           "t4",
                           "v100",
                           "v100-pcie-32gb",
                           "a100-40gb-pcie",
                           "a100-40gb-sxm",
                           "a100-80gb-pcie",
                           "a100-80gb-sxm",
                           "h100-sxm",
                           "h100-pcie",
                           "h200",
                           "l4",
                           "rtx-3090",
                           "rtx-4090",
                           "jetson-nano",
                           "jetson-tx2",
                           "jetson-xavier-nx",
                           "jetson-agx-orin",
                           "jetson-orin-nano"}) {
    CAPTURE(Name);
    auto G = C.lookup(Name);
    REQUIRE(G);
    CHECK(!G->sources.empty());
    CHECK(G->smCount > 0);
    CHECK(G->memoryBandwidthGBs > 0);
  }
}

TEST_CASE("catalog: names as users and datasets type them") {
  GpuCatalog C = catalog();
  CHECK(C.lookup("H100")->name == "h100-sxm");
  CHECK(C.lookup("h100 pcie")->name == "h100-pcie");
  CHECK(C.lookup("A100_40GB_PCIe")->name == "a100-40gb-pcie");
  CHECK(C.lookup("Jetson AGX Orin")->name == "jetson-agx-orin");
  CHECK(C.lookup("NVIDIA GeForce RTX 4090")->name == "rtx-4090");
  CHECK(C.lookup("rtx3090")->name == "rtx-3090");
  // NeuSight device column strings.
  CHECK(C.lookup("Tesla P4")->name == "p4");
  CHECK(C.lookup("Tesla P100-PCIE-16GB")->name == "p100-pcie-16gb");
  CHECK(C.lookup("Tesla T4")->name == "t4");
  CHECK(C.lookup("Tesla V100-PCIE-32GB")->name == "v100-pcie-32gb");
}

TEST_CASE("catalog: every GPU issue 21 asks for, typed as a user would") {
  GpuCatalog C = catalog();
  CHECK(C.gpus().size() >= 70);
  for (const char *Name :
       {"p4", "p40", "p100", "v100", "v100s", "t4", "a2", "a10", "a16", "a30", "a40",
        "a100-40gb-pcie", "a100-40gb-sxm", "a100-80gb-pcie", "a100-80gb-sxm", "l4", "l40", "l40s",
        "h100 pcie", "h100 sxm", "h100 nvl", "h200", "h20", "gh200", "b200", "gb200",
        "Quadro RTX 4000", "quadro rtx 5000", "quadro rtx 6000", "quadro rtx 8000", "rtx a2000",
        "RTX A4000", "rtx a4500", "rtx a5000", "rtx a6000", "RTX 2000 Ada", "rtx 4000 ada",
        "rtx 4500 ada", "rtx 5000 ada", "rtx 6000 ada", "RTX PRO 4000", "rtx pro 4500",
        "rtx pro 5000", "rtx pro 6000", "rtx-pro-6000-max-q", "GTX 1060", "gtx 1070",
        "gtx 1070 ti", "gtx 1080", "GTX 1080 Ti", "rtx 2060", "rtx 2070", "rtx 2080",
        "rtx 2080 ti", "rtx 3050", "rtx 3060", "rtx 3060 ti", "rtx 3070", "rtx 3080",
        "rtx 3080 ti", "rtx 3090", "rtx 3090 ti", "rtx 4060", "rtx 4060 ti", "rtx 4070",
        "rtx 4080", "rtx 4090", "rtx 5060", "rtx 5060 ti", "rtx 5070", "rtx 5070 ti", "rtx 5080",
        "rtx 5090", "jetson nano", "jetson tx2", "jetson xavier nx", "jetson agx xavier",
        "jetson orin nano", "jetson orin nx", "jetson agx orin", "jetson agx thor"}) {
    auto G = C.lookup(Name);
    CHECK_MESSAGE(G, support::errorText(G));
  }
}

TEST_CASE("catalog: names as users type them, power modes included") {
  GpuCatalog C = catalog();
  for (auto [Typed, Canonical] :
       {std::pair{"5090", "rtx-5090"}, std::pair{"rtx 5090", "rtx-5090"},
        std::pair{"RTX-5090", "rtx-5090"}, std::pair{"NVIDIA GeForce RTX 5090", "rtx-5090"},
        std::pair{"l40s", "l40s"}, std::pair{"NVIDIA L40S", "l40s"},
        std::pair{"1080 Ti", "gtx-1080-ti"}, std::pair{"4070 ti super", "rtx-4070-ti-super"},
        std::pair{"a6000", "rtx-a6000"}, std::pair{"NVIDIA B200", "b200"},
        std::pair{"NVIDIA RTX PRO 6000 Blackwell Server Edition", "rtx-pro-6000"},
        std::pair{"orin-nano@15w", "jetson-orin-nano"}, std::pair{"orin-nano@7w", "jetson-orin-nano@7w"},
        std::pair{"Jetson Orin Nano@25W", "jetson-orin-nano-super@25w"},
        std::pair{"orin-nano@maxn-super", "jetson-orin-nano-super"},
        std::pair{"agx-orin@30w", "jetson-agx-orin@30w"}, std::pair{"orin@50w", "jetson-agx-orin@50w"},
        std::pair{"xavier-nx@10w", "jetson-xavier-nx@10w"}, std::pair{"nano@5w", "jetson-nano@5w"},
        std::pair{"jetson-tx2@maxq", "jetson-tx2@maxq"}, std::pair{"thor", "jetson-agx-thor"}}) {
    CAPTURE(Typed);
    auto G = C.lookup(Typed);
    REQUIRE_MESSAGE(G, support::errorText(G));
    CHECK(G->name == Canonical);
  }
  auto Mode = C.lookup("orin-nano@99w");
  REQUIRE(!Mode);
  CHECK(Mode.error().message.rfind("unknown power mode 'orin-nano@99w' of jetson-orin-nano "
                                   "(modes: @15w, @7w, @maxn-super, @25w",
                                   0) == 0);
}

TEST_CASE("catalog: a power mode has no more SMs, clock, bandwidth or power than its module") {
  GpuCatalog C = catalog();
  size_t Modes = 0;
  for (const GpuSpec &G : C.gpus()) {
    size_t At = G.name.find('@');
    if (At == std::string::npos)
      continue;
    CAPTURE(G.name);
    ++Modes;
    auto Module = C.lookup(G.name.substr(0, At));
    REQUIRE(Module);
    CHECK(Module->name == G.name.substr(0, At));
    CHECK(G.computeCapability == Module->computeCapability);
    CHECK(G.smCount <= Module->smCount);
    CHECK(G.boostClockMhz <= Module->boostClockMhz);
    CHECK(G.memoryBandwidthGBs <= Module->memoryBandwidthGBs);
    CHECK(G.tdpW <= Module->tdpW);
    CHECK(G.memoryGB == Module->memoryGB);
    // Peaks scale with SMs x clock.
    double Scale = G.smCount * G.boostClockMhz / (Module->smCount * Module->boostClockMhz);
    CHECK(off(G.fp32Tflops, Module->fp32Tflops * Scale) < 0.01);
  }
  CHECK(Modes >= 20);
}

TEST_CASE("catalog: each Jetson generation's host is at least as fast as the one before") {
  // Eager PyTorch on a Jetson is host-bound at small batches, so the host's speed orders the
  // generations there: a newer, wider core must not make a newer module the slower one.
  GpuCatalog C = catalog();
  double Before = 0;
  for (const char *Module :
       {"jetson-nano", "jetson-tx2", "jetson-agx-xavier", "jetson-agx-orin", "jetson-agx-thor"}) {
    CAPTURE(Module);
    auto G = C.lookup(Module);
    REQUIRE(G);
    CHECK(G->host.relativeSpeed >= Before);
    Before = G->host.relativeSpeed;
  }
}

TEST_CASE("catalog: an unknown name lists the closest catalog names") {
  auto G = catalog().lookup("rtx-4099");
  REQUIRE(!G);
  CHECK(G.error().message.rfind("unknown gpu 'rtx-4099' (closest: rtx-4090", 0) == 0);
  CHECK(G.error().message.find("`ptxcast gpus` lists all") != std::string::npos);
}

TEST_CASE("catalog: FP32 peak agrees with SMs x cores x 2 x clock within 3%") {
  GpuCatalog C = catalog();
  for (const GpuSpec &G : C.gpus()) {
    CAPTURE(G.name);
    double Derived = G.smCount * G.fp32CoresPerSm * 2 * G.boostClockMhz * 1e-6;
    CHECK(std::fabs(Derived / G.fp32Tflops - 1) < 0.03);
    CHECK(G.computeCapability >= 5.0);
    CHECK(G.l2MB > 0);
    CHECK(G.tdpW > 0);
  }
}

/// GPUs that run FP16 tensor math with FP32 accumulate at half their architecture's per-SM rate:
/// GeForce parts (the Turing, Ampere and Ada whitepapers) and the L40 (its datasheet rates are
/// half the L40S's at nearly the same clock).
bool halfRateTensor(const GpuSpec &G) {
  return G.fullName.find("GeForce") != std::string::npos || G.name == "l40";
}

TEST_CASE("catalog: FP16 tensor peak = per-SM rate x SMs x a clock between 80% of boost and boost") {
  // Vendors quote tensor peaks at the boost clock or, for Hopper and Blackwell data-centre parts,
  // at a lower sustained clock (H100 SXM: 1830 of 1980 MHz); never above boost, never below base.
  GpuCatalog C = catalog();
  for (const GpuSpec &G : C.gpus()) {
    CAPTURE(G.name);
    double Rate = G.limits.tensorFp16FlopsPerClockPerSm;
    CHECK((Rate > 0) == (G.tensor.fp16 > 0));
    if (Rate == 0)
      continue;
    double PerSm = halfRateTensor(G) ? Rate / 2 : Rate;
    double ClockMhz = G.tensor.fp16 * 1e6 / (PerSm * G.smCount);
    CAPTURE(ClockMhz);
    CHECK(ClockMhz <= G.boostClockMhz * 1.03);
    CHECK(ClockMhz >= G.baseClockMhz * 0.97);
    if (G.name == "h20") // export-capped by firmware far below its SMs' rate
      CHECK(ClockMhz < G.boostClockMhz / 2);
    else
      CHECK(ClockMhz >= G.boostClockMhz * 0.8);
  }
}

TEST_CASE("catalog: tensor rates per precision keep their architecture's ratios") {
  GpuCatalog C = catalog();
  for (const GpuSpec &G : C.gpus()) {
    CAPTURE(G.name);
    const TensorRates &T = G.tensor;
    double Cc = G.computeCapability;
    // BF16 and TF32 tensor math from Ampere (8.0) on, FP8 from Ada (8.9) on (not on Orin, 8.7).
    CHECK((T.bf16 > 0) == (Cc >= 8.0));
    CHECK((T.tf32 > 0) == (Cc >= 8.0));
    CHECK((T.fp8 > 0) == (Cc >= 8.9));
    // INT8 tensor math from Xavier (7.2) on; GV100 (7.0) has none.
    CHECK((T.int8 > 0) == (Cc >= 7.2));
    if (T.bf16 > 0)
      CHECK(off(T.bf16, T.fp16) < 0.02);
    if (T.tf32 > 0)
      CHECK(off(T.tf32, T.fp16 / 2) < 0.03);
    if (T.fp8 > 0)
      CHECK(off(T.fp8, 2 * T.fp16) < 0.03);
    // GeForce parts halve FP16 with FP32 accumulate but not INT8.
    bool GeForce = G.fullName.find("GeForce") != std::string::npos;
    if (T.int8 > 0)
      CHECK(off(T.int8, (GeForce ? 4 : 2) * T.fp16) < 0.03);
    CHECK(G.fp64Tflops <= 0.55 * G.fp32Tflops);
    CHECK(G.fp16Tflops <= 4.05 * G.fp32Tflops);
    CHECK(G.bf16Tflops <= G.fp16Tflops);
  }
}

TEST_CASE("catalog: every GPU has its architecture's per-SM limits") {
  GpuCatalog C = catalog();
  for (const GpuSpec &G : C.gpus()) {
    CAPTURE(G.name);
    CHECK(G.limits.maxThreadsPerSm == 32 * G.limits.maxWarpsPerSm);
    CHECK(G.limits.registersPerSm == 65536);
    CHECK(G.limits.maxSharedMemPerCtaKB <= G.limits.sharedMemPerSmKB);
    CHECK(G.limits.warpSchedulersPerSm * 32 >= G.fp32CoresPerSm / 2);
    auto L = C.limits(G.limits.computeCapability);
    REQUIRE(L);
    CHECK(std::fabs(std::stod(L->computeCapability) - G.computeCapability) < 1e-9);
  }
  CHECK(C.lookup("a100")->limits.maxThreadsPerSm == 2048);
  CHECK(C.lookup("rtx-3090")->limits.maxThreadsPerSm == 1536);
  CHECK(C.lookup("t4")->limits.maxCtasPerSm == 16);
  auto Bad = C.limits("4.2");
  REQUIRE(!Bad);
  CHECK(Bad.error().message.rfind("unknown compute capability '4.2' (known: ", 0) == 0);
}

TEST_CASE("catalog: a green context of N SMs scales the SM-proportional peaks only") {
  auto H = catalog().lookup("h100-sxm");
  REQUIRE(H);
  GpuSpec R = withSmCount(*H, 33);
  CHECK(R.smCount == 33);
  CHECK(R.fp32Tflops == doctest::Approx(H->fp32Tflops / 4));
  CHECK(R.tensor.tf32 == doctest::Approx(H->tensor.tf32 / 4));
  CHECK(R.memoryBandwidthGBs == H->memoryBandwidthGBs);
  CHECK(R.l2MB == H->l2MB);
  CHECK(R.boostClockMhz == H->boostClockMhz);
}

TEST_CASE("catalog: a user spec file inherits its architecture's limits, bad fields are named") {
  GpuCatalog C = catalog();
  const char *Spec = R"({"name": "h100-capped", "compute_capability": "9.0", "sm_count": 132,
    "fp32_cores_per_sm": 128, "base_clock_mhz": 1000, "boost_clock_mhz": 1400,
    "fp32_tflops": 47.3, "fp16_tflops": 94.6, "bf16_tflops": 94.6, "fp64_tflops": 24,
    "tensor_tf32_tflops": 350, "memory_bandwidth_gbs": 3350, "memory_gb": 80, "l2_mb": 50,
    "tdp_w": 700})";
  auto G = C.parseSpec(Spec, "capped.json");
  REQUIRE(G);
  CHECK(G->name == "h100-capped");
  CHECK(G->limits.sharedMemPerSmKB == 228);
  CHECK(G->tensor.tf32 == 350);
  CHECK(G->tensor.fp16 == 0);
  std::string Missing = Spec;
  const std::string SmCount = "\"sm_count\": 132,";
  Missing.replace(Missing.find(SmCount), SmCount.size(), "");
  auto E1 = C.parseSpec(Missing, "capped.json");
  REQUIRE(!E1);
  CHECK(E1.error().str() == "capped.json: error: gpu 'h100-capped': field 'sm_count' is missing");
  std::string Negative = Spec;
  const std::string L2 = "\"l2_mb\": 50";
  Negative.replace(Negative.find(L2), L2.size(), "\"l2_mb\": -5");
  auto E2 = C.parseSpec(Negative, "capped.json");
  REQUIRE(!E2);
  CHECK(E2.error().str() == "capped.json:4:88: error: gpu 'h100-capped': field 'l2_mb' must be a "
                            "positive number, got -5");
  std::string Arch = Spec;
  Arch.replace(Arch.find("\"9.0\""), 5, "\"4.2\"");
  auto E3 = C.parseSpec(Arch, "capped.json");
  REQUIRE(!E3);
  CHECK(E3.error().message.find("compute capability 4.2 is not in the catalog") != std::string::npos);
  CHECK(!C.parseSpec("{", "capped.json"));
  // A figure set twice is an error (JSON readers differ on which one wins); both it and a syntax
  // error have their line and column.
  std::string Twice = Spec;
  Twice.replace(Twice.find(L2), L2.size(), "\"l2_mb\": 50, \"l2_mb\": 60");
  auto E4 = C.parseSpec(Twice, "capped.json");
  REQUIRE(!E4);
  CHECK(E4.error().str() == "capped.json:4:92: error: duplicate key 'l2_mb'");
  auto E5 = C.parseSpec("{\"name\": \"g\",\n \"sm_count\": }", "capped.json");
  REQUIRE(!E5);
  CHECK(E5.error().str() == "capped.json:2:14: error: unexpected '}', expected a JSON value");
}

TEST_CASE("catalog: a spec's figures must be in range and agree with each other") {
  GpuCatalog C = catalog();
  const std::string Spec = R"({"name": "g", "compute_capability": "8.6", "sm_count": 10,
    "fp32_cores_per_sm": 128, "base_clock_mhz": 1000, "boost_clock_mhz": 1500,
    "fp32_tflops": 3.84, "fp16_tflops": 3.84, "bf16_tflops": 0, "fp64_tflops": 0.06,
    "memory_bandwidth_gbs": 300, "memory_gb": 8, "l2_mb": 2, "tdp_w": 100})";
  REQUIRE(C.parseSpec(Spec, "g.json"));
  // Each edit turns the valid spec into one that gave an infinite or NaN time, or a time from
  // figures that contradict each other, before these checks.
  auto Error = [&](const std::string &From, const std::string &To) {
    std::string Bad = Spec;
    Bad.replace(Bad.find(From), From.size(), To);
    auto G = C.parseSpec(Bad, "g.json");
    REQUIRE(!G);
    return G.error().str();
  };
  CHECK(Error("\"sm_count\": 10", "\"sm_count\": 1e300") ==
        "g.json:1:56: error: gpu 'g': field 'sm_count' must be a whole number from 1 to 4096, got "
        "1e+300");
  CHECK(Error("\"sm_count\": 10", "\"sm_count\": 0.5") ==
        "g.json:1:56: error: gpu 'g': field 'sm_count' must be a whole number from 1 to 4096, got "
        "0.5");
  CHECK(
      Error("\"boost_clock_mhz\": 1500", "\"boost_clock_mhz\": 1e-300") ==
      "g.json:2:74: error: gpu 'g': field 'boost_clock_mhz' must be a number from 10 to 10000, got "
      "1e-300");
  CHECK(Error("\"fp16_tflops\": 3.84", "\"fp16_tflops\": 1e9") ==
        "g.json:3:41: error: gpu 'g': field 'fp16_tflops' must be a number from 1e-05 to 1e+06 (or "
        "0), "
        "got 1000000000.0");
  CHECK(Error("\"fp32_tflops\": 3.84", "\"fp32_tflops\": 38.4") ==
        "g.json: error: gpu 'g': fp32_tflops 38.4 disagrees with sm_count x fp32_cores_per_sm x 2 "
        "x boost_clock_mhz = 3.84 TFLOPS (more than 10 % apart)");
  CHECK(Error("\"base_clock_mhz\": 1000", "\"base_clock_mhz\": 2000") ==
        "g.json: error: gpu 'g': base_clock_mhz 2000 is above boost_clock_mhz 1500");
  CHECK(Error("\"sm_count\": 10", "\"sm_count\": 10, \"max_threads_per_sm\": 1e300")
            .find("field 'max_threads_per_sm' must be a whole number from 1 to 1e+07") !=
        std::string::npos);
  // Per-SM limits under which no CTA fits (occupancy would be forced to one CTA per SM).
  CHECK(Error("\"sm_count\": 10", "\"sm_count\": 10, \"registers_per_sm\": 1") ==
        "g.json: error: gpu 'g': registers_per_sm (1) cannot hold one warp at "
        "max_registers_per_thread (255)");
  CHECK(Error("\"sm_count\": 10", "\"sm_count\": 10, \"max_threads_per_sm\": 1") ==
        "g.json: error: gpu 'g': max_threads_per_sm (1) must be 32 x max_warps_per_sm (48)");
  CHECK(Error("\"sm_count\": 10", "\"sm_count\": 10, \"max_shared_mem_per_cta_kb\": 1000") ==
        "g.json: error: gpu 'g': max_shared_mem_per_cta_kb (1000) is above shared_mem_per_sm_kb "
        "(100)");
  // A misspelt field is an error, not a figure left at 0; the flags are read and checked.
  CHECK(Error("\"l2_mb\": 2", "\"l2_mb\": 2, \"tensor_tf32_tflop\": 35") ==
        "g.json:4:83: error: gpu 'g': unknown field 'tensor_tf32_tflop' (docs/gpu-catalog.md lists "
        "the fields)");
  CHECK(Error("\"l2_mb\": 2", "\"l2_mb\": 2, \"dual_issue\": 1") ==
        "g.json:4:76: error: gpu 'g': field 'dual_issue' must be true or false, got 1");
  for (bool Flag : {false, true}) {
    std::string WithFlag = Spec;
    const std::string L2 = "\"l2_mb\": 2";
    WithFlag.replace(WithFlag.find(L2), L2.size(),
                     std::string("\"l2_mb\": 2, \"dual_issue\": ") + (Flag ? "true" : "false") +
                         ", \"int32_shares_fp32\": " + (Flag ? "true" : "false"));
    auto G = C.parseSpec(WithFlag, "g.json");
    REQUIRE(G);
    CHECK(G->limits.dualIssue == Flag);
    CHECK(G->limits.int32SharesFp32 == Flag);
  }
}

/// A catalog entry with every field, named `Name` with one alias (synthetic, for mechanics).
std::string entry(const std::string &Name, const std::string &Alias) {
  return R"({"name": ")" + Name + R"(", "full_name": ")" + Name + R"(", "aliases": [")" + Alias +
         R"("], "architecture": "t", "form_factor": "pcie", "memory_type": "HBM",
    "compute_capability": "5.0", "sm_count": 1, "fp32_cores_per_sm": 128, "base_clock_mhz": 500,
    "boost_clock_mhz": 1000, "fp32_tflops": 0.256, "fp16_tflops": 1, "bf16_tflops": 0, "fp64_tflops": 0,
    "tensor_fp16_tflops": 0, "tensor_bf16_tflops": 0, "tensor_tf32_tflops": 0,
    "tensor_int8_tops": 0, "tensor_fp8_tflops": 0, "memory_bandwidth_gbs": 1, "memory_gb": 1,
    "l2_mb": 1, "tdp_w": 1, "sources": {")" +
         "sm_count,fp32_cores_per_sm,base_clock_mhz,boost_clock_mhz,fp32_tflops,fp16_tflops,"
         "bf16_tflops,fp64_tflops,tensor_fp16_tflops,tensor_bf16_tflops,tensor_tf32_tflops,"
         "tensor_int8_tops,tensor_fp8_tflops,memory_bandwidth_gbs,memory_gb,l2_mb,tdp_w" +
         R"(": "s", "compute_capability": "s"}})";
}

/// An architecture row with every required field (synthetic, for mechanics).
std::string syntheticArch() {
  return R"({"compute_capability": "5.0", "max_threads_per_sm": 2048,
    "max_ctas_per_sm": 32, "max_warps_per_sm": 64, "registers_per_sm": 65536,
    "max_registers_per_thread": 255, "register_alloc_unit": 256, "shared_mem_per_sm_kb": 64,
    "max_shared_mem_per_cta_kb": 48, "shared_mem_per_cta_reserved_kb": 0,
    "warp_schedulers_per_sm": 4, "int32_lanes_per_sm": 128, "sfu_lanes_per_sm": 32,
    "l1_bytes_per_clock_per_sm": 128, "l2_bytes_per_clock_per_sm": 16, "process": "P",
    "source": "s"})";
}

/// The side tables a catalog needs (processes, memory types, hosts), opening the JSON object.
const std::string SideTables =
    R"({"processes": [{"name": "P", "relative_energy": 1, "source": "s"}],
  "memory_types": [{"name": "HBM", "pj_per_bit": 4, "source": "s"}],
  "hosts": [{"name": "x86-server", "cpu": "c", "relative_speed": 1, "speed_basis": "pytorch",
             "source": "s"}], )";

TEST_CASE("catalog: parse errors") {
  const std::string Arch = syntheticArch();
  std::string FastMma = Arch;
  FastMma.replace(FastMma.find(R"("source")"), 0,
                  R"("tensor_fp16_flops_per_clock_per_sm": 1024,
                     "mma_sync_fp16_flops_per_clock_per_sm": 2048, )");
  auto Mma = GpuCatalog::parse(
      SideTables + R"("architectures": [)" + FastMma + R"(], "gpus": []})", "c.json");
  REQUIRE(!Mma);
  CHECK(Mma.error().str() == "c.json: error: architecture '5.0': "
                             "mma_sync_fp16_flops_per_clock_per_sm exceeds "
                             "tensor_fp16_flops_per_clock_per_sm");
  auto Ok = GpuCatalog::parse(SideTables + R"("architectures": [)" + Arch + R"(], "gpus": [)" +
                                  entry("a", "x") + "]}",
                              "c.json");
  CHECK(Ok);
  auto Dup = GpuCatalog::parse(SideTables + R"("architectures": [)" + Arch + R"(], "gpus": [)" +
                                   entry("a", "x") + "," + entry("b", "X") + "]}",
                               "c.json");
  REQUIRE(!Dup);
  CHECK(Dup.error().str() == "c.json: error: name 'X' of 'b' also names 'a'");
  std::string NoSource = entry("a", "x");
  NoSource.replace(NoSource.find("\"compute_capability\": \"s\""), 25, "\"memory_gb\": \"s\"");
  auto Unsourced = GpuCatalog::parse(
      SideTables + R"("architectures": [)" + Arch + R"(], "gpus": [)" + NoSource + "]}", "c.json");
  REQUIRE(!Unsourced);
  CHECK(Unsourced.error().str() ==
        "c.json: error: gpu 'a': sources: no source names field 'compute_capability'");
  // A host's speed says where it comes from: PyTorch's own host time or an estimate.
  std::string Guessed = SideTables;
  Guessed.replace(Guessed.find("pytorch"), 7, "guess");
  auto Basis = GpuCatalog::parse(Guessed + R"("architectures": [)" + Arch + R"(], "gpus": []})",
                                 "c.json");
  REQUIRE(!Basis);
  CHECK(Basis.error().str() ==
        "c.json: error: hosts 'x86-server': speed_basis 'guess' is not pytorch or estimate");
  auto Broken = GpuCatalog::parse("{", "c.json");
  REQUIRE(!Broken);
  CHECK(Broken.error().str().rfind("c.json: error: bad gpu catalog:", 0) == 0);
}

TEST_CASE("catalog: a power mode may name its module by any of its names") {
  const std::string Arch = syntheticArch();
  auto C = GpuCatalog::parse(SideTables + R"("architectures": [)" + Arch + R"(], "gpus": [)" +
                                 entry("jetson-m", "m") + "," + entry("jetson-m@low", "m-low") +
                                 "," + entry("jetson-m-super", "jetson-m@max") + "]}",
                             "c.json");
  REQUIRE(C);
  CHECK(C->lookup("jetson-m@low")->name == "jetson-m@low");
  CHECK(C->lookup("M@Low")->name == "jetson-m@low");
  CHECK(C->lookup("m@max")->name == "jetson-m-super"); // an alias spelled as a mode
  CHECK(C->limits("5.0")->tensorFp16FlopsPerClockPerSm == 0); // optional, absent
  CHECK(C->limits("5.0")->mmaSyncShare() == 1);               // optional, absent: full rate
  auto Bad = C->lookup("m@99w");
  REQUIRE(!Bad);
  CHECK(Bad.error().message == "unknown power mode 'm@99w' of jetson-m (modes: @low, @max)");
}

TEST_CASE("real data: NeuSight device strings all map to the catalog") {
  // Real measurements (../shared/datasets, see SOURCES.md); skipped where absent.
  std::filesystem::path Dir = std::filesystem::path(PTXCAST_SOURCE_DIR) / "../shared/datasets/neusight";
  if (!std::filesystem::exists(Dir))
    return;
  GpuCatalog C = catalog();
  for (const char *Device :
       {"Tesla P4", "Tesla P100-PCIE-16GB", "Tesla T4", "Tesla V100-PCIE-32GB", "NVIDIA H100 80GB HBM3"})
    CHECK_MESSAGE(C.lookup(Device), Device);
}
