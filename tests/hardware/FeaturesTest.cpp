// The feature schema (hardware/Features.h): sums over launches, names in order, and the
// roofline estimates worked out by hand for one GPU (synthetic profiles, for mechanics).
#include "hardware/Features.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace hardware;

namespace {

double get(const NamedVector &V, const std::string &Name) {
  auto It = std::find_if(V.begin(), V.end(), [&](const auto &P) { return P.first == Name; });
  REQUIRE_MESSAGE(It != V.end(), Name);
  return It->second;
}

analyzer::KernelProfile profile(uint32_t Ctas, uint32_t Threads, uint64_t Fp32, uint64_t Sectors) {
  analyzer::KernelProfile P;
  P.grid = {Ctas, 1, 1};
  P.block = {Threads, 1, 1};
  P.threadInstructions[static_cast<size_t>(ptx::InstrClass::Fp32)] = Fp32;
  P.threadInstructions[static_cast<size_t>(ptx::InstrClass::IntArith)] = 10;
  P.warpInstructions[static_cast<size_t>(ptx::InstrClass::Fp32)] = Fp32 / 32;
  P.globalLoadSectors = Sectors;
  P.globalStoreSectors = 1;
  return P;
}

} // namespace

TEST_CASE("features: launches sum, names match featureNames(), estimates by hand") {
  analyzer::KernelProfile Launches[] = {profile(4, 128, 6400, 99), profile(2, 64, 3200, 0)};
  GpuSpec Gpu;
  Gpu.smCount = 10;
  Gpu.fp32CoresPerSm = 64;
  Gpu.boostClockMhz = 1000;
  Gpu.memoryBandwidthGBs = 100;
  NamedVector Row = featureRow(Launches, 3200, Gpu);
  std::vector<std::string> Names;
  for (const auto &[Name, V] : Row)
    Names.push_back(Name);
  CHECK(Names == featureNames());
  CHECK(get(Row, "launches") == 2);
  CHECK(get(Row, "ctas") == 6);
  CHECK(get(Row, "threads") == 4 * 128 + 2 * 64);
  CHECK(get(Row, "thr_fp32") == 9600);
  CHECK(get(Row, "thr_int") == 20);
  CHECK(get(Row, "thr_total") == 9620);
  CHECK(get(Row, "warp_total") == 300);
  CHECK(get(Row, "global_load_sectors") == 99);
  CHECK(get(Row, "global_store_sectors") == 2);
  CHECK(get(Row, "footprint_bytes") == 3200);
  CHECK(get(Row, "gpu_sm_count") == 10);
  // 9600 fp instructions on 640 cores at 1 GHz = 15 ns; 300 warp instructions at 2 per SM per
  // clock on 10 SMs = 15 ns; 101 sectors x 32 B at 100 GB/s = 32.32 ns; 3200 B = 32 ns.
  CHECK(get(Row, "est_fp_ms") == doctest::Approx(15e-6));
  CHECK(get(Row, "est_issue_ms") == doctest::Approx(15e-6));
  CHECK(get(Row, "est_sector_ms") == doctest::Approx(32.32e-6));
  CHECK(get(Row, "est_footprint_ms") == doctest::Approx(32e-6));
  CHECK(get(Row, "ctas_per_sm") == doctest::Approx(0.6));
}
