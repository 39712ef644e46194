// `ptxcast analyze` flags that choose the fast-mode settings (docs/fast-mode.md).
#include "RunPtxcast.h"

#include <nlohmann/json.hpp>

using namespace clitest;

namespace {

/// Network totals of `ptxcast analyze ARGS --format json`.
nlohmann::json totals(const std::string &Args) {
  RunResult R = runPtxcast("analyze " + Args + " --format json --threads 2");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  return nlohmann::json::parse(R.out)["total"];
}

} // namespace

TEST_CASE("analyze --quick leaves residue strata off, like dataset and predict") {
  // MobileNetV2-0.35 at 96x96 has classes long enough for residue strata, which change its
  // totals; --quick must analyse as the quick settings that dataset and predict use (no
  // strata), so its features match the shipped bundles'.
  const std::string Model = "mobilenetv2-0.35 --image-size 96 --math simt";
  nlohmann::json Quick = totals(Model + " --quick");
  CHECK(Quick == totals(Model + " --quick --no-residue-strata"));
  nlohmann::json Default = totals(Model);
  CHECK(Default != totals(Model + " --no-residue-strata")); // the strata matter here
}
