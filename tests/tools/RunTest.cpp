// `ptxcast run` end to end: a manifest whose paths leave its folder is refused with an error
// naming the field, and nothing is written; --allow-outside-paths runs it.
#include "RunPtxcast.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

namespace {

using clitest::TempDir;
using clitest::writeFile;

/// A kernel that stores 1.0f to its buffer's first element.
const char *OnePtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry one(.param .u64 p)
{
  .reg .b64 %rd<2>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [p];
  mov.f32 %f1, 0f3F800000;
  st.global.f32 [%rd1], %f1;
  ret;
}
)";

} // namespace

TEST_CASE("run: a manifest path outside the manifest's folder is refused unless allowed") {
  TempDir Dir("run_outside");
  std::filesystem::create_directories(Dir.path / "m");
  writeFile(Dir / "m/k.ptx", OnePtx);
  const std::string Manifest = Dir / "m/manifest.json";
  writeFile(Manifest, R"({"ptx": "k.ptx",
 "buffers": [{"name": "y", "bytes": 4, "output": "../escaped.bin"}],
 "launches": [{"kernel": "one", "grid": [1], "block": [1], "args": [{"buffer": "y"}]}]})");

  clitest::RunResult R = clitest::runPtxcast("run '" + Manifest + "'");
  CHECK(R.status == 1);
  CHECK(R.err == Manifest + ":2:50: error: buffers[0].output: '../escaped.bin' is outside the "
                            "manifest's folder ('..' leaves it; --allow-outside-paths accepts "
                            "it)\n");
  CHECK(!std::filesystem::exists(Dir.path / "escaped.bin"));

  R = clitest::runPtxcast("run '" + Manifest + "' --allow-outside-paths");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(std::filesystem::file_size(Dir.path / "escaped.bin") == 4);

  // An init file and a PTX file are paths too.
  writeFile(Manifest, R"({"ptx": "/etc/k.ptx",
 "launches": [{"kernel": "one", "grid": [1], "block": [1]}]})");
  R = clitest::runPtxcast("run '" + Manifest + "'");
  CHECK(R.status == 1);
  CHECK(R.err.find(":1:9: error: ptx: '/etc/k.ptx' is outside the manifest's folder (an "
                   "absolute path;") != std::string::npos);
}
