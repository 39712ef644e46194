// Runs ptxcast-measure end to end against measure_fake_cuda, a CPU test double of libcuda
// (SYNTHETIC: a launch takes one virtual microsecond per block), to check the mechanics the GPU
// would otherwise be the first to exercise: call order, the hold protocol, event arithmetic,
// graph replay, green-context bookkeeping, output buffers, CSV rows and error attribution.
#include "TestUtil.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>

#ifdef PTXCAST_FAKE_CUDA

namespace fs = std::filesystem;
using measure_test::makeDir;
using measure_test::readAll;
using measure_test::runCapture;

namespace {

const char *FakePtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry scale(.param .u64 p0, .param .u32 p1) { ret; }
.visible .entry fake_fault(.param .u64 p0) { ret; }
.visible .entry fake_struct(.param .align 8 .b8 p0[24]) { ret; }
)";

// Writes k.ptx and m.json (with Launches as the "launches" array) into Dir.
fs::path writeCase(const fs::path &Dir, const std::string &Launches) {
  std::ofstream(Dir / "k.ptx") << FakePtx;
  std::ofstream(Dir / "m.json") << R"({"ptx": ["k.ptx"],
 "buffers": [{"name": "x", "bytes": 16, "output": "x_out.bin"},
             {"name": "y", "bytes": 16, "init": {"random": "f32", "seed": 7, "min": -1, "max": 1},
              "output": "y_out.bin"}],
 "launches": )" + Launches + "}";
  return Dir / "m.json";
}

std::pair<int, std::string> runFake(const fs::path &Dir, const std::string &Extra) {
  return runCapture(std::string("'") + PTXCAST_MEASURE_BIN + "' '" + (Dir / "m.json").string() +
                        "' -o '" + (Dir / "t.csv").string() + "' --driver-lib '" +
                        PTXCAST_FAKE_CUDA + "' " + Extra,
                    Dir);
}

const char *TwoLaunches = R"([
  {"kernel": "scale", "grid": [4], "block": [32], "args": [{"buffer": "x"}, {"u32": 4}]},
  {"kernel": "scale", "grid": [2, 3], "block": [64], "args": [{"buffer": "y", "offset": 4}, {"u32": 1}]}])";

} // namespace

TEST_CASE("measure fake driver: a full run writes the expected rows and outputs") {
  fs::path Dir = makeDir("ptxcast_measure_fake_full");
  writeCase(Dir, TwoLaunches);
  auto [Status, Err] = runFake(Dir, "--repeat 5 --warmup 2");
  REQUIRE_MESSAGE(Status == 0, Err);
  std::string Csv = readAll(Dir / "t.csv");
  CHECK(Csv.find("# device: ptxcast fake device\n") != std::string::npos);
  CHECK(Csv.find("# sms_used: 132\n") != std::string::npos);
  CHECK(Csv.find("# driver_version: 12.8\n") != std::string::npos);
  CHECK(Csv.find("# hold: on\n# l2_flush: off\n") != std::string::npos);
  CHECK(Csv.find("# note:") == std::string::npos); // every hold was released before waiting
  // 4 blocks = 4 us; 2 x 3 blocks = 6 us; the workload and its graph are 10 us.
  CHECK(Csv.find("\nlaunch,0,scale,4,1,1,32,1,1,0,10,0,0,5,0.004000,0.004000,0.004000,0.004000,"
                 "0.004000,0.000000,0.004000,ptxcast fake device,132\n") != std::string::npos);
  CHECK(Csv.find("\nlaunch,1,scale,2,3,1,64,1,1,0,10,0,0,5,0.006000,") != std::string::npos);
  CHECK(Csv.find("\nworkload,,,,,,,,,,,,,5,0.010000,") != std::string::npos);
  CHECK(Csv.find("\ngraph,,,,,,,,,,,,,5,0.010000,") != std::string::npos);
  // y round-trips through the fake device: the seed-7 f32 fill (values in FillTest.cpp).
  std::string Out = readAll(Dir / "y_out.bin");
  REQUIRE(Out.size() == 16);
  uint32_t First;
  std::memcpy(&First, Out.data(), 4);
  CHECK(First == 0xBE61A0F8);
  // x has no init: it is cleared on the device (the fake allocates 0xA5 garbage).
  CHECK(readAll(Dir / "x_out.bin") == std::string(16, '\0'));
  CHECK(Err.find("workload median 0.0100 ms") != std::string::npos);
  fs::remove_all(Dir);
}

TEST_CASE("measure fake driver: --flush-l2 flushes outside the timed span") {
  fs::path Dir = makeDir("ptxcast_measure_fake_flush");
  writeCase(Dir, TwoLaunches);
  auto [Status, Err] = runFake(Dir, "--repeat 4 --flush-l2");
  REQUIRE_MESSAGE(Status == 0, Err);
  std::string Csv = readAll(Dir / "t.csv");
  CHECK(Csv.find("# l2_flush: on\n") != std::string::npos);
  // Each flush costs the fake 1000 us; none of it may show in the samples.
  CHECK(Csv.find("\nlaunch,0,scale,4,1,1,32,1,1,0,10,0,0,4,0.004000,0.004000,0.004000,") !=
        std::string::npos);
  CHECK(Csv.find("\nworkload,,,,,,,,,,,,,4,0.010000,0.010000,0.010000,") != std::string::npos);
  CHECK(Csv.find("\ngraph,,,,,,,,,,,,,4,0.010000,0.010000,0.010000,") != std::string::npos);
  fs::remove_all(Dir);
}

TEST_CASE("measure fake driver: --sms records what the split granted") {
  fs::path Dir = makeDir("ptxcast_measure_fake_sms");
  writeCase(Dir, TwoLaunches);
  auto [Status, Err] = runFake(Dir, "--repeat 2 --sms 66");
  REQUIRE_MESSAGE(Status == 0, Err);
  std::string Csv = readAll(Dir / "t.csv");
  CHECK(Csv.find("# sms_requested: 66\n# sms_used: 66\n") != std::string::npos);
  CHECK(Csv.find(",ptxcast fake device,66\n") != std::string::npos);
  auto [Status13, Err13] = runFake(Dir, "--repeat 2 --sms 13");
  REQUIRE_MESSAGE(Status13 == 0, Err13);
  CHECK(readAll(Dir / "t.csv").find("# note: --sms 13: the driver granted 14 SMs\n") !=
        std::string::npos);
  auto [StatusBig, ErrBig] = runFake(Dir, "--sms 200");
  CHECK(StatusBig == 1);
  CHECK(ErrBig == "ptxcast-measure: error: --sms 200 exceeds the 132 SMs of the device\n");
  fs::remove_all(Dir);
}

TEST_CASE("measure fake driver: faults and mismatches name their launch") {
  fs::path Dir = makeDir("ptxcast_measure_fake_errors");
  writeCase(
      Dir,
      R"([{"kernel": "scale", "grid": [1], "block": [1], "args": [{"buffer": "x"}, {"u32": 1}]},
                     {"kernel": "fake_fault", "grid": [1], "block": [1], "args": [{"buffer": "x"}]}])");
  auto [Status, Err] = runFake(Dir, "");
  CHECK(Status == 1);
  CHECK(Err == "ptxcast-measure: error: launch 1 ('fake_fault') failed: synchronize failed: "
               "CUDA_ERROR_ILLEGAL_ADDRESS (fake)\n");
  CHECK_FALSE(fs::exists(Dir / "t.csv"));

  writeCase(Dir, R"([{"kernel": "scale", "grid": [1], "block": [1], "args": [{"buffer": "x"}]}])");
  auto [S1, E1] = runFake(Dir, "");
  CHECK(S1 == 1);
  CHECK(E1 == "ptxcast-measure: error: launch 0 ('scale') passes 1 arguments, the kernel has 2 "
              "parameters\n");
  writeCase(
      Dir,
      R"([{"kernel": "scale", "grid": [1], "block": [1], "args": [{"buffer": "x"}, {"u64": 1}]}])");
  auto [S2, E2] = runFake(Dir, "");
  CHECK(S2 == 1);
  CHECK(E2 == "ptxcast-measure: error: launch 0 ('scale'): argument 1 has 8 bytes, the kernel "
              "parameter has 4\n");
  writeCase(Dir, R"([{"kernel": "nope", "grid": [1], "block": [1], "args": []}])");
  auto [S3, E3] = runFake(Dir, "");
  CHECK(S3 == 1);
  CHECK(E3 == "ptxcast-measure: error: kernel 'nope' is in none of the PTX files (" +
                  (Dir / "k.ptx").string() + ")\n");
  fs::remove_all(Dir);
}

TEST_CASE("measure fake driver: a struct argument arrives laid out as C lays it out") {
  // struct { uint32_t n; float a; uint16_t tag[3]; float *out; }: tag at 8, out at 16 after
  // two bytes of padding, 24 bytes. The fake kernel copies the first 16 bytes to `out`.
  fs::path Dir = makeDir("ptxcast_measure_fake_struct");
  writeCase(Dir, R"([{"kernel": "fake_struct", "grid": [1], "block": [1],
    "args": [{"struct": [{"u32": 7}, {"f32": 2.0}, {"u16": [1, 2, 3]}, {"buffer": "x"}]}]}])");
  auto [Status, Err] = runFake(Dir, "--repeat 1 --warmup 0");
  REQUIRE_MESSAGE(Status == 0, Err);
  std::string X = readAll(Dir / "x_out.bin");
  REQUIRE(X.size() == 16);
  const uint8_t Want[16] = {7, 0, 0, 0, 0, 0, 0, 0x40, 1, 0, 2, 0, 3, 0, 0, 0};
  CHECK(std::memcmp(X.data(), Want, 16) == 0);
  // A struct of another size is the parameter size check's error.
  writeCase(Dir, R"([{"kernel": "fake_struct", "grid": [1], "block": [1],
    "args": [{"struct": [{"u32": 7}, {"buffer": "x"}]}]}])");
  auto [S1, E1] = runFake(Dir, "");
  CHECK(S1 == 1);
  CHECK(E1 == "ptxcast-measure: error: launch 0 ('fake_struct'): argument 0 has 16 bytes, the "
              "kernel parameter has 24\n");
  fs::remove_all(Dir);
}

TEST_CASE("measure fake driver: the saxpy smoke workload runs with nvcc's PTX") {
  fs::path Src = fs::path(PTXCAST_SOURCE_DIR) / "tests" / "measure" / "data" / "saxpy";
  fs::path Dir = makeDir("ptxcast_measure_fake_saxpy");
  fs::copy_file(Src / "manifest.json", Dir / "m.json");
  fs::copy_file(Src / "saxpy.ptx", Dir / "saxpy.ptx");
  auto [Status, Err] = runFake(Dir, "--repeat 3");
  REQUIRE_MESSAGE(Status == 0, Err);
  CHECK(readAll(Dir / "t.csv").find("\nlaunch,0,saxpy,4,1,1,256,1,1,0,10,0,0,3,0.004000,") !=
        std::string::npos);
  CHECK(fs::file_size(Dir / "y_out.bin") == 4096);
  fs::remove_all(Dir);
}

TEST_CASE("measure fake driver: a manifest path outside its folder is refused unless allowed") {
  fs::path Dir = makeDir("ptxcast_measure_fake_outside");
  fs::path Run = Dir / "run";
  fs::create_directories(Run);
  std::ofstream(Run / "k.ptx") << FakePtx;
  std::ofstream(Run / "m.json") << R"({"ptx": ["k.ptx"],
 "buffers": [{"name": "x", "bytes": 16, "output": "../escaped.bin"}],
 "launches": [{"kernel": "scale", "grid": [1], "block": [32], "args": [{"buffer": "x"}, {"u32": 4}]}]})";
  auto [Status, Err] = runFake(Run, "--repeat 2");
  CHECK(Status == 1);
  CHECK(Err == (Run / "m.json").string() +
                   ":2:51: error: buffers[0].output: '../escaped.bin' is outside the manifest's "
                   "folder ('..' leaves it; --allow-outside-paths accepts it)\n");
  CHECK_FALSE(fs::exists(Dir / "escaped.bin"));
  CHECK_FALSE(fs::exists(Run / "t.csv"));
  auto [Allowed, AllowedErr] = runFake(Run, "--repeat 2 --allow-outside-paths");
  REQUIRE_MESSAGE(Allowed == 0, AllowedErr);
  CHECK(fs::file_size(Dir / "escaped.bin") == 16);
  fs::remove_all(Dir);
}

#endif
