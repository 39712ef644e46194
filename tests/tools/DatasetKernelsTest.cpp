// `ptxcast dataset kernels` end to end on a tiny SYNTHETIC kernels.csv for lenet5 batch 1 (the
// columns of scripts/measure/collect.py, made-up times): the join on launch_index, the kernel-name
// check, the SM-restricted GPU features, the network level, input errors and determinism.
#include "RunPtxcast.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

using clitest::readAll;
using clitest::runPtxcast;
using clitest::TempDir;

const std::string Header =
    "network,batch,dtype,arch,sms_requested,run,sms_used,scope,launch_index,kernel,grid_x,grid_y,"
    "grid_z,block_x,block_y,block_z,shared_bytes,registers,static_shared_bytes,local_bytes,"
    "repeats,median_ms,min_ms,max_ms,q1_ms,q3_ms,iqr_ms,mean_ms\n";

/// One synthetic row: only the columns the command reads carry meaning.
std::string row(const std::string &Sms, const std::string &Run, int SmsUsed,
                const std::string &Scope, const std::string &Index, const std::string &Kernel,
                const std::string &Median) {
  return "lenet5,1,f32,sm_90," + Sms + "," + Run + "," + std::to_string(SmsUsed) + "," + Scope +
         "," + Index + "," + Kernel + ",1,1,1,32,1,1,0,32,0,0,5," + Median + ",0,0,0,0,0,0\n";
}

/// The seven launches of lenet5 batch 1 as the zoo lowers it (docs/zoo.md), in manifest order.
const std::vector<std::string> Kernels = {"conv_direct_n1_c1x6_h32w32_k5_s1_p0_f32_bias_tanh",
                                          "avgpool_n1_c6_h28w28_k2_s2_p0_f32",
                                          "conv_igemm_n1_c6x16_h14w14_k5_s1_p0_f32_bias_tanh",
                                          "avgpool_n1_c16_h10w10_k2_s2_p0_f32",
                                          "gemv_m1_k400_n120_f32_bias_tanh",
                                          "gemv_m1_k120_n84_f32_bias_tanh",
                                          "gemv_m1_k84_n10_f32_bias"};

/// All SMs: launches 0, 2, 4 and a wrong name at 1; 16 SMs: launch 0; run2: launch 6; plus the
/// workload and graph rows of the all-SM run (ignored at launch level).
std::string launchCsv() {
  return Header + row("all", "run1", 132, "launch", "0", Kernels[0], "0.004") +
         row("all", "run1", 132, "launch", "1", "avgpool_renamed_f32", "0.0039") +
         row("all", "run1", 132, "launch", "2", Kernels[2], "0.008") +
         row("all", "run1", 132, "workload", "", "", "0.03") +
         row("all", "run1", 132, "graph", "", "", "0.02") +
         row("all", "run1", 132, "launch", "4", Kernels[4], "0.0048") +
         row("16", "run1", 16, "launch", "0", Kernels[0], "0.005") +
         row("all", "run2", 132, "launch", "6", Kernels[6], "0.0043");
}

/// A CSV written by the command: header and rows (no quoted fields in these files).
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::string at(size_t Row, const std::string &Name) const {
    for (size_t I = 0; I < header.size(); ++I)
      if (header[I] == Name)
        return rows.at(Row).at(I);
    FAIL("no column " << Name);
    return "";
  }
  double num(size_t Row, const std::string &Name) const { return std::stod(at(Row, Name)); }
};

Table parse(const std::string &Text) {
  Table T;
  std::istringstream In(Text);
  for (std::string Line; std::getline(In, Line);) {
    std::vector<std::string> F;
    std::istringstream L(Line);
    for (std::string Field; std::getline(L, Field, ',');)
      F.push_back(Field);
    if (T.header.empty())
      T.header = F;
    else
      T.rows.push_back(F);
  }
  return T;
}

} // namespace

TEST_CASE("dataset kernels: launch rows join on launch_index, with the SM-restricted GPU") {
  TempDir Dir("dataset_kernels_join");
  clitest::writeFile(Dir / "kernels.csv", launchCsv());
  auto R = runPtxcast("dataset kernels " + Dir / "kernels.csv" + " -o " + Dir / "out.csv");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("6 rows read, 5 rows written, 1 rows skipped") != std::string::npos);
  CHECK(R.err.find("1 kernel mismatch: lowering changed since measurement") != std::string::npos);
  Table T = parse(readAll(Dir / "out.csv"));
  REQUIRE(T.rows.size() == 5);
  CHECK(T.header.front() == "source");
  CHECK(T.header.back() == "median_ms");
  const char *Launch[] = {"0", "2", "4", "0", "6"};
  const char *Strategy[] = {"conv_direct", "conv_implicit_gemm", "dense_gemv", "conv_direct",
                            "dense_gemv"};
  const char *Run[] = {"run1", "run1", "run1", "run1", "run2"};
  const double Median[] = {0.004, 0.008, 0.0048, 0.005, 0.0043};
  for (size_t I = 0; I < 5; ++I) {
    CHECK(T.at(I, "source") == "h100-kernels");
    CHECK(T.at(I, "network") == "lenet5");
    CHECK(T.at(I, "batch") == "1");
    CHECK(T.at(I, "dtype") == "f32");
    CHECK(T.at(I, "launch_index") == Launch[I]);
    CHECK(T.at(I, "kernel") == Kernels[std::stoi(Launch[I])]);
    CHECK(T.at(I, "strategy") == Strategy[I]);
    CHECK(T.at(I, "run") == Run[I]);
    CHECK(T.num(I, "median_ms") == doctest::Approx(Median[I]));
    CHECK(T.num(I, "launches") == 1);
  }
  CHECK(T.at(3, "sms") == "16");
  // learners/data/gpus.json, h100-sxm: 132 SMs, 67 / 133.8 / 989.4 TFLOPS, 3350 GB/s, 50 MB L2.
  CHECK(T.num(0, "gpu_sm_count") == 132);
  CHECK(T.num(0, "gpu_fp32_tflops") == doctest::Approx(67.0));
  CHECK(T.num(3, "gpu_sm_count") == 16);
  CHECK(T.num(3, "gpu_fp32_tflops") == doctest::Approx(67.0 * 16 / 132));
  CHECK(T.num(3, "gpu_fp16_tflops") == doctest::Approx(133.8 * 16 / 132));
  CHECK(T.num(3, "gpu_fp16_tensor_tflops") == doctest::Approx(989.4 * 16 / 132));
  CHECK(T.num(3, "gpu_memory_bandwidth_gbs") == 3350);
  CHECK(T.num(3, "gpu_l2_mb") == 50);
  // Same launch, same counts; CTAs per SM follows the SM count.
  CHECK(T.at(3, "thr_total") == T.at(0, "thr_total"));
  CHECK(T.num(3, "ctas_per_sm") == doctest::Approx(T.num(0, "ctas") / 16));
  // conv 1->6, 5x5, 32x32 input, bias: f32 input 32*32, weights 6*25, bias 6, output 6*28*28.
  CHECK(T.num(0, "footprint_bytes") == 4 * (32 * 32 + 6 * 25 + 6 + 6 * 28 * 28));
}

TEST_CASE("dataset kernels: network level takes graph rows and checks every launch") {
  TempDir Dir("dataset_kernels_network");
  std::string Csv = Header;
  for (size_t I = 0; I < Kernels.size(); ++I) {
    Csv += row("all", "run1", 132, "launch", std::to_string(I), Kernels[I], "0.004");
    if (I != 3) // the 32-SM run misses launch 3: it cannot be checked, so it is skipped
      Csv += row("32", "run1", 32, "launch", std::to_string(I), Kernels[I], "0.005");
  }
  Csv += row("all", "run1", 132, "graph", "", "", "0.0172") +
         row("32", "run1", 32, "graph", "", "", "0.019") +
         row("all", "run1", 132, "workload", "", "", "0.025");
  clitest::writeFile(Dir / "kernels.csv", Csv);
  auto R = runPtxcast("dataset kernels " + Dir / "kernels.csv" + " --level network -o " +
                      Dir / "net.csv");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("2 rows read, 1 rows written, 1 rows skipped") != std::string::npos);
  Table T = parse(readAll(Dir / "net.csv"));
  REQUIRE(T.rows.size() == 1);
  CHECK(T.at(0, "sms") == "all");
  CHECK(T.num(0, "launches") == 7);
  CHECK(T.num(0, "median_ms") == doctest::Approx(0.0172));
  CHECK(T.num(0, "gpu_sm_count") == 132);
}

TEST_CASE("dataset kernels: bad input is FILE:LINE: error") {
  TempDir Dir("dataset_kernels_errors");
  std::string NoMedian = Header;
  NoMedian.replace(NoMedian.find("median_ms"), 9, "median");
  clitest::writeFile(Dir / "nomedian.csv", NoMedian);
  auto R = runPtxcast("dataset kernels " + Dir / "nomedian.csv" + " -o " + Dir / "o.csv");
  CHECK(R.status == 1);
  CHECK(R.err.find(Dir / "nomedian.csv" + ":1:") != std::string::npos);
  CHECK(R.err.find("error: missing column 'median_ms'") != std::string::npos);

  clitest::writeFile(Dir / "badnum.csv",
                     Header + row("all", "run1", 132, "launch", "0", Kernels[0], "0.004") +
                         row("all", "run1", 132, "launch", "1", Kernels[1], "fast"));
  R = runPtxcast("dataset kernels " + Dir / "badnum.csv" + " -o " + Dir / "o.csv");
  CHECK(R.status == 1);
  CHECK(R.err.find(Dir / "badnum.csv" +
                   ":3: error: column 'median_ms': expected a finite number, got 'fast'") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(Dir / "o.csv"));
}

TEST_CASE("dataset kernels: same input, same bytes, whatever the thread count") {
  TempDir Dir("dataset_kernels_determinism");
  clitest::writeFile(Dir / "kernels.csv", launchCsv());
  auto A =
      runPtxcast("dataset kernels " + Dir / "kernels.csv" + " --threads 1 -o " + Dir / "a.csv");
  auto B =
      runPtxcast("dataset kernels " + Dir / "kernels.csv" + " --threads 2 -o " + Dir / "b.csv");
  REQUIRE(A.status == 0);
  REQUIRE(B.status == 0);
  std::string First = readAll(Dir / "a.csv");
  CHECK(!First.empty());
  CHECK(First == readAll(Dir / "b.csv"));
}
