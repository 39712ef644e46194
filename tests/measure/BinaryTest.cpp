// Runs the built ptxcast-measure: on a machine without a GPU it must fail cleanly and say why;
// the hold kernel's PTX must assemble with the real ptxas.
#include "HoldKernel.h"
#include "TestUtil.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;
using measure_test::makeDir;
using measure_test::readAll;
using measure_test::runCapture;

TEST_CASE("measure binary: the hold kernel's PTX assembles with ptxas") {
  std::string Ptxas = PTXCAST_PTXAS;
  if (Ptxas.empty() || !fs::exists(Ptxas)) {
    MESSAGE("ptxas not found: skipped");
    return;
  }
  fs::path Dir = makeDir("ptxcast_measure_hold_test");
  std::ofstream(Dir / "hold.ptx") << measure::holdKernelPtx();
  for (const char *Arch : {"sm_75", "sm_90"}) {
    auto [Status, Err] = runCapture(Ptxas + " -arch=" + Arch + " '" + (Dir / "hold.ptx").string() +
                                        "' -o '" + (Dir / "hold.cubin").string() + "'",
                                    Dir);
    CHECK_MESSAGE(Status == 0, Err);
  }
  fs::remove_all(Dir);
}

#ifdef PTXCAST_MEASURE_BIN
namespace {

// A valid manifest with a real kernel (the hold kernel's PTX) and every init kind.
fs::path writeManifest(const fs::path &Dir) {
  std::ofstream(Dir / "k.ptx") << measure::holdKernelPtx();
  std::ofstream(Dir / "z.bin", std::ios::binary) << std::string(16, '\0');
  std::ofstream(Dir / "m.json") << R"({"ptx": ["k.ptx"],
 "buffers": [{"name": "flag", "bytes": 16, "init": "zero"},
             {"name": "y", "bytes": 16, "init": {"random": "f32", "seed": 7, "min": -1, "max": 1}},
             {"name": "z", "bytes": 16, "init": {"file": "z.bin"}, "output": "z_out.bin"}],
 "launches": [{"kernel": "ptxcast_hold", "grid": [1], "block": [1],
               "args": [{"buffer": "flag"}, {"u64": 0}]}]})";
  return Dir / "m.json";
}

std::string binary() { return std::string("'") + PTXCAST_MEASURE_BIN + "'"; }

} // namespace

TEST_CASE("measure binary: a missing driver library is a clear error") {
  fs::path Dir = makeDir("ptxcast_measure_bin_nodriver");
  fs::path M = writeManifest(Dir);
  auto [Status, Err] =
      runCapture(binary() + " '" + M.string() + "' -o '" + (Dir / "t.csv").string() +
                     "' --driver-lib /nonexistent/libcuda.so.1",
                 Dir);
  CHECK(Status == 1);
  CHECK(Err.find("ptxcast-measure: error: no CUDA driver found (/nonexistent/libcuda.so.1): "
                 "this tool needs an NVIDIA GPU") != std::string::npos);
  CHECK_FALSE(fs::exists(Dir / "t.csv"));
  fs::remove_all(Dir);
}

TEST_CASE(
    "measure binary: the toolkit's stub libcuda resolves every entry point, then says no driver") {
  fs::path Stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!fs::exists(Stub)) {
    MESSAGE("no stub libcuda: skipped");
    return;
  }
  fs::path Dir = makeDir("ptxcast_measure_bin_stub");
  fs::path M = writeManifest(Dir);
  auto [Status, Err] = runCapture(binary() + " '" + M.string() + "' -o '" +
                                      (Dir / "t.csv").string() + "' --driver-lib " + Stub.string(),
                                  Dir);
  CHECK(Status == 1);
  CHECK(Err.find("lacks") == std::string::npos); // every symbol was found
  CHECK(Err.find("no CUDA driver found (" + Stub.string() +
                 " is the CUDA toolkit's stub library, not a driver)") != std::string::npos);
  fs::remove_all(Dir);
}

TEST_CASE("measure binary: the default driver either measures or names what is missing") {
  fs::path Dir = makeDir("ptxcast_measure_bin_default");
  fs::path M = writeManifest(Dir);
  auto [Status, Err] = runCapture(binary() + " '" + M.string() + "' -o '" +
                                      (Dir / "t.csv").string() + "' --repeat 3 --warmup 1",
                                  Dir);
  if (Status == 0) { // a machine with a GPU: the CSV and the output buffer exist
    CHECK(readAll(Dir / "t.csv").find("launch,0,ptxcast_hold,") != std::string::npos);
    CHECK(fs::file_size(Dir / "z_out.bin") == 16);
  } else {
    CHECK(Status == 1);
    bool Named = Err.find("no CUDA driver found") != std::string::npos ||
                 Err.find("no CUDA device") != std::string::npos;
    CHECK_MESSAGE(Named, Err);
    CHECK_FALSE(fs::exists(Dir / "t.csv"));
  }
  fs::remove_all(Dir);
}

TEST_CASE("measure binary: a malformed manifest fails before the driver is touched") {
  fs::path Dir = makeDir("ptxcast_measure_bin_badmanifest");
  std::ofstream(Dir / "m.json") << "{\"ptx\": [\"k.ptx\"],\n \"launches\": [}";
  auto [Status, Err] = runCapture(
      binary() + " '" + (Dir / "m.json").string() + "' -o '" + (Dir / "t.csv").string() + "'", Dir);
  CHECK(Status == 1);
  CHECK(Err == (Dir / "m.json").string() + ":2:15: error: unexpected '}', expected a JSON value\n");
  auto [UStatus, UErr] = runCapture(binary() + " --bogus", Dir);
  CHECK(UStatus == 2);
  CHECK(UErr == "ptxcast-measure: error: unknown option '--bogus' (see --help)\n");
  fs::remove_all(Dir);
}
#endif
