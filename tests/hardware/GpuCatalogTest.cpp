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
    CHECK(!G->source.empty());
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

TEST_CASE("catalog: unknown name lists valid names") {
  auto G = catalog().lookup("rtx-9999");
  REQUIRE(!G);
  CHECK(G.error().message.rfind("unknown gpu 'rtx-9999' (valid: p4, p100-pcie-16gb, ", 0) == 0);
  CHECK(G.error().message.find("jetson-orin-nano)") != std::string::npos);
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

TEST_CASE("catalog: hardware features") {
  GpuCatalog C = catalog();
  auto T4 = C.lookup("t4");
  REQUIRE(T4);
  NamedVector F = hardwareFeatures(*T4);
  REQUIRE(F.size() == 11);
  CHECK(F[0] == std::pair<std::string, double>{"gpu_sm_count", 40});
  CHECK(F[6] == std::pair<std::string, double>{"gpu_memory_bandwidth_gbs", 320});
  CHECK(F[10] == std::pair<std::string, double>{"gpu_compute_capability", 7.5});

}

TEST_CASE("catalog: parse errors") {
  auto Dup = GpuCatalog::parse(R"({"gpus": [
    {"name": "a", "full_name": "A", "aliases": ["x"], "architecture": "t", "sm_count": 1,
     "fp32_cores_per_sm": 1, "boost_clock_mhz": 1, "fp32_tflops": 1, "fp16_tflops": 1,
     "fp16_tensor_tflops": 0, "memory_bandwidth_gbs": 1, "memory_gb": 1, "l2_mb": 1,
     "compute_capability": "5.0", "tdp_w": 1, "source": "s"},
    {"name": "b", "full_name": "B", "aliases": ["X"], "architecture": "t", "sm_count": 1,
     "fp32_cores_per_sm": 1, "boost_clock_mhz": 1, "fp32_tflops": 1, "fp16_tflops": 1,
     "fp16_tensor_tflops": 0, "memory_bandwidth_gbs": 1, "memory_gb": 1, "l2_mb": 1,
     "compute_capability": "5.0", "tdp_w": 1, "source": "s"}]})",
                               "c.json");
  REQUIRE(!Dup);
  CHECK(Dup.error().str() == "c.json: error: name 'X' of 'b' also names 'a'");
  auto Broken = GpuCatalog::parse("{", "c.json");
  REQUIRE(!Broken);
  CHECK(Broken.error().str().rfind("c.json: error: bad gpu catalog:", 0) == 0);
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
