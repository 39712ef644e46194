// Tests for CSV rendering (quoting, metadata block, the documented columns) and atomic writes.
#include "Csv.h"
#include "Report.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace measure;

namespace {

std::string readAll(const std::filesystem::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::stringstream Ss;
  Ss << In.rdbuf();
  return Ss.str();
}

} // namespace

TEST_CASE("measure csv: fields are quoted only when needed") {
  CHECK(csvField("plain") == "plain");
  CHECK(csvField("a,b") == "\"a,b\"");
  CHECK(csvField("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csvField("two\nlines") == "\"two\nlines\"");
  CHECK(csvField("") == "");
}

TEST_CASE("measure csv: a table renders its comment block, header and rows") {
  CsvTable T;
  T.meta = {{"device", "GPU, rev 1"}};
  T.columns = {"a", "b"};
  T.rows = {{"1", "x,y"}, {"2", ""}};
  CHECK(T.render() == "# device: GPU, rev 1\na,b\n1,\"x,y\"\n2,\n");
}

TEST_CASE("measure csv: a measurement becomes launch, workload and graph rows") {
  Manifest M;
  M.path = "m.json";
  Launch L;
  L.kernel = "saxpy";
  L.grid = {4, 2, 1};
  L.block = {256, 1, 1};
  L.sharedBytes = 128;
  M.launches = {L};
  Measurement R;
  R.device.name = "Test GPU";
  R.device.smCount = 132;
  R.device.smsRequested = 66;
  R.device.smsUsed = 66;
  R.device.driverVersion = 12040;
  R.device.cudaHeaderVersion = 13000;
  R.repeat = 4;
  R.warmup = 1;
  R.dateUtc = "2026-01-01T00:00:00Z";
  R.launches = {summarize({1, 2, 3, 4})};
  R.kernels = {KernelFacts{32, 0, -1}};
  R.workload = summarize({10});
  R.notes = {"synthetic numbers for a unit test"};
  std::string Text = buildTable(M, R).render();
  CHECK(Text.find("# device: Test GPU\n") != std::string::npos);
  CHECK(Text.find("# sms_requested: 66\n# sms_used: 66\n") != std::string::npos);
  CHECK(Text.find("# driver_version: 12.4\n") != std::string::npos);
  CHECK(Text.find("# cuda_header_version: 13.0\n") != std::string::npos);
  CHECK(Text.find("# note: synthetic numbers for a unit test\n") != std::string::npos);
  CHECK(Text.find("scope,launch_index,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
                  "shared_bytes,registers,static_shared_bytes,local_bytes,repeats,median_ms,"
                  "min_ms,max_ms,q1_ms,q3_ms,iqr_ms,mean_ms,device,sms\n") != std::string::npos);
  CHECK(Text.find("launch,0,saxpy,4,2,1,256,1,1,128,32,0,,4,2.500000,1.000000,4.000000,1.750000,"
                  "3.250000,1.500000,2.500000,Test GPU,66\n") != std::string::npos);
  CHECK(Text.find("workload,,,,,,,,,,,,,1,10.000000,10.000000,10.000000,10.000000,10.000000,"
                  "0.000000,10.000000,Test GPU,66\n") != std::string::npos);
  CHECK(Text.find("graph,,,,,,,,,,,,,0,,,,,,,,Test GPU,66\n") != std::string::npos);
  CHECK(cudaVersionString(12080) == "12.8");
}

TEST_CASE("measure csv: writeFileAtomic replaces the file and leaves no temporary behind") {
  auto Dir = std::filesystem::temp_directory_path() / "ptxcast_measure_csv_test";
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);
  auto Path = Dir / "t.csv";
  REQUIRE(!writeFileAtomic(Path.string(), "first\n")); // empty: no error
  CHECK(readAll(Path) == "first\n");
  REQUIRE(!writeFileAtomic(Path.string(), "second\n"));
  CHECK(readAll(Path) == "second\n");
  size_t Files = 0;
  for (const auto &E : std::filesystem::directory_iterator(Dir)) {
    (void)E;
    ++Files;
  }
  CHECK(Files == 1);
  auto Bad = writeFileAtomic((Dir / "no" / "such" / "dir.csv").string(), "x");
  REQUIRE(Bad);
  CHECK(Bad->message.find("cannot write") == 0);
  CHECK_FALSE(std::filesystem::exists(Dir / "no"));
  std::filesystem::remove_all(Dir);
}
