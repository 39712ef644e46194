// Checks the smoke-test workload in tests/measure/data/saxpy (for the first run on a GPU box):
// the manifest parses, the committed PTX assembles, and expected_y.bin is what a CPU reference
// computes from the documented fill rule (y = fmaf(x, 2.5, y) for the first 1000 elements).
#include "Manifest.h"
#include "TestUtil.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>

namespace fs = std::filesystem;

namespace {

const fs::path SmokeDir = fs::path(PTXCAST_SOURCE_DIR) / "tests" / "measure" / "data" / "saxpy";

} // namespace

TEST_CASE("measure smoke data: the saxpy manifest and its expected output agree") {
  auto M = measure::loadManifest((SmokeDir / "manifest.json").string());
  REQUIRE(M);
  CHECK(M->warnings.empty());
  REQUIRE(M->buffers.size() == 2);
  REQUIRE(M->launches.size() == 1);
  CHECK(M->launches[0].args[0].bits == 1000);
  auto X = measure::makeInitialBytes(M->buffers[0]);
  auto Y = measure::makeInitialBytes(M->buffers[1]);
  REQUIRE(X);
  REQUIRE(Y);
  // The kernel's fma.rn.f32 %f4, x, a, y for i < n; the last 24 elements stay as filled.
  std::vector<uint8_t> Want = *Y;
  for (size_t I = 0; I < 1000; ++I) {
    float Xv, Yv;
    std::memcpy(&Xv, X->data() + 4 * I, 4);
    std::memcpy(&Yv, Y->data() + 4 * I, 4);
    float R = std::fmaf(Xv, 2.5f, Yv);
    std::memcpy(Want.data() + 4 * I, &R, 4);
  }
  std::string Expected = measure_test::readAll(SmokeDir / "expected_y.bin");
  REQUIRE(Expected.size() == Want.size());
  CHECK(std::memcmp(Expected.data(), Want.data(), Want.size()) == 0);
}

TEST_CASE("measure smoke data: the committed saxpy PTX assembles with ptxas") {
  std::string Ptxas = PTXCAST_PTXAS;
  if (Ptxas.empty() || !fs::exists(Ptxas)) {
    MESSAGE("ptxas not found: skipped");
    return;
  }
  fs::path Dir = measure_test::makeDir("ptxcast_measure_smoke_ptxas");
  for (const char *Arch : {"sm_75", "sm_90"}) {
    auto [Status, Err] = measure_test::runCapture(Ptxas + " -arch=" + Arch + " '" +
                                                      (SmokeDir / "saxpy.ptx").string() + "' -o '" +
                                                      (Dir / "saxpy.cubin").string() + "'",
                                                  Dir);
    CHECK_MESSAGE(Status == 0, Err);
  }
  fs::remove_all(Dir);
}
