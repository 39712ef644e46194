// `ptxcast dataset kernels` end to end on a tiny SYNTHETIC kernels.csv for lenet5 batch 1 (the
// columns of scripts/measure/collect.py, made-up times): the join on launch_index, the kernel-name
// check, ids and bounds on the SM-restricted GPU, the network level as the sum of its launches,
// --run and --limit, input errors and determinism.
#include "RunPtxcast.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
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

/// Rows of T whose column `Name` is `Value`, in order.
std::vector<size_t> rowsWhere(const Table &T, const std::string &Name, const std::string &Value) {
  std::vector<size_t> Rows;
  for (size_t R = 0; R < T.rows.size(); ++R)
    if (T.at(R, Name) == Value)
      Rows.push_back(R);
  return Rows;
}

const std::vector<std::string> Kinds = {"gemm", "direct_conv", "depthwise", "gemv", "eltwise",
                                        "pool", "reduce",      "softmax",   "copy", "other"};

/// hardware::LaunchLatencyCycles (4950) at the H100's 1980 MHz: the bound's share for each
/// kernel launched.
constexpr double LaunchLatencyMs = 4950 / 1980e3;

} // namespace

TEST_CASE("dataset kernels: launch rows join on launch_index, on the GPU restricted to its SMs") {
  TempDir Dir("dataset_kernels_join");
  clitest::writeFile(Dir / "kernels.csv", launchCsv());
  auto R = runPtxcast("dataset kernels " + Dir / "kernels.csv" + " -o " + Dir / "out.csv");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("6 rows read, 5 rows written, 1 rows skipped") != std::string::npos);
  CHECK(R.err.find("1 kernel mismatch: lowering changed since measurement") != std::string::npos);
  Table T = parse(readAll(Dir / "out.csv"));
  REQUIRE(T.rows.size() == 5);
  CHECK(T.header.front() == "source");
  CHECK(T.header.back() == "measured_ms");
  const char *Launch[] = {"0", "2", "4", "0", "6"};
  const char *Kind[] = {"direct_conv", "gemm", "gemv", "direct_conv", "gemv"};
  const char *Sms[] = {"all", "all", "all", "16", "all"};
  const char *Run[] = {"run1", "run1", "run1", "run1", "run2"};
  const double Median[] = {0.004, 0.008, 0.0048, 0.005, 0.0043};
  for (size_t I = 0; I < 5; ++I) {
    CAPTURE(I);
    CHECK(T.at(I, "source") == "h100-kernels");
    CHECK(T.at(I, "gpu") == "h100-sxm");
    CHECK(T.at(I, "sms") == Sms[I]);
    CHECK(T.at(I, "runtime") == "launch");
    CHECK(T.at(I, "math") == "simt");
    CHECK(T.at(I, "dtype") == "f32");
    CHECK(T.at(I, "workload") == "lenet5");
    CHECK(T.at(I, "config") ==
          std::string("batch=1;launch=") + Launch[I] + ";kernel=" + Kernels[std::stoul(Launch[I])]);
    CHECK(T.at(I, "note") == Run[I]);
    CHECK(T.num(I, "measured_ms") == doctest::Approx(Median[I]));
    // ptxcast's own fp32 kernels on the CUDA cores, timed launch by launch on the GPU alone.
    CHECK(T.num(I, "framework") == 0);
    CHECK(T.num(I, "half") == 0);
    CHECK(T.num(I, "tensor_cores") == 0);
    CHECK(T.num(I, "overhead_ms") == 0);
    CHECK(T.num(I, "bound_ms") > 0);
    double Largest = 0;
    for (const char *Res :
         {"fma", "int", "fp16", "fp64", "sfu", "tensor", "lsu", "issue", "l2", "dram"}) {
      CHECK(T.num(I, std::string("share_") + Res) <= 1);
      Largest = std::max(Largest, T.num(I, std::string("share_") + Res));
    }
    CHECK(Largest == doctest::Approx(1)); // one launch: its busiest resource is the bound
    for (const std::string &K : Kinds)
      CHECK_MESSAGE(T.num(I, "kind_" + K) == (K == Kind[I] ? 1 : 0), K);
  }
  // conv 1->6, 5x5, 32x32 input, bias: f32 input 32*32, weights 6*25, bias 6, output 6*28*28,
  // against the H100's 50 MB of L2, which a green context does not divide.
  const double Footprint = 4.0 * (32 * 32 + 6 * 25 + 6 + 6 * 28 * 28);
  for (size_t I : {0, 3})
    CHECK(T.num(I, "log2_footprint_over_l2") ==
          doctest::Approx(std::log2(Footprint / (50.0 * 1024 * 1024))));

  // Launch 0 on 16 SMs and on all 132: the same counts, more waves, and a larger bound, as its
  // grid has more CTAs than 16 SMs hold at once (one wave or less on 132 SMs is CTAs / 132).
  for (const char *Name : {"sectors_per_request", "divergence", "lane_utilisation"})
    CHECK_MESSAGE(T.num(3, Name) == doctest::Approx(T.num(0, Name)), Name);
  REQUIRE(T.num(0, "log2_waves") <= 0);
  const double Ctas = 132 * std::exp2(T.num(0, "log2_waves"));
  REQUIRE(Ctas > 16);
  CHECK(T.num(3, "log2_waves") > T.num(0, "log2_waves"));
  CHECK(T.num(3, "bound_ms") > T.num(0, "bound_ms"));
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
  CHECK(T.at(0, "runtime") == "graph");
  CHECK(T.at(0, "config") == "batch=1");
  CHECK(T.at(0, "note") == "run1");
  CHECK(T.num(0, "measured_ms") == doctest::Approx(0.0172));

  // The network row is its seven launches: the bound is the sum of theirs, seven launch
  // latencies (ptxcast's kernels have no unfused layers), and each feature their bound-weighted
  // mean.
  R = runPtxcast("dataset kernels " + Dir / "kernels.csv" + " -o " + Dir / "launches.csv");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Table L = parse(readAll(Dir / "launches.csv"));
  std::vector<size_t> All = rowsWhere(L, "sms", "all");
  REQUIRE(All.size() == Kernels.size());
  double Bound = 0;
  for (size_t I : All)
    Bound += L.num(I, "bound_ms");
  CHECK(T.num(0, "bound_ms") == doctest::Approx(Bound));
  CHECK(T.num(0, "share_latency") * T.num(0, "bound_ms") ==
        doctest::Approx(Kernels.size() * LaunchLatencyMs));
  CHECK(T.num(0, "share_unfused") == 0);
  for (const char *Name : {"kind_gemm", "kind_direct_conv", "kind_gemv", "kind_pool", "share_fma",
                           "share_l2", "log2_waves"}) {
    double Weighted = 0;
    for (size_t I : All)
      Weighted += L.num(I, "bound_ms") * L.num(I, Name);
    CHECK_MESSAGE(T.num(0, Name) == doctest::Approx(Weighted / Bound), Name);
  }
}

TEST_CASE("dataset kernels: --run keeps one run, --limit the first rows") {
  TempDir Dir("dataset_kernels_run");
  clitest::writeFile(Dir / "kernels.csv", launchCsv());
  auto R =
      runPtxcast("dataset kernels " + Dir / "kernels.csv" + " --run run2 -o " + Dir / "run2.csv");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("1 rows read, 1 rows written, 0 rows skipped") != std::string::npos);
  Table T = parse(readAll(Dir / "run2.csv"));
  REQUIRE(T.rows.size() == 1);
  CHECK(T.at(0, "note") == "run2");
  CHECK(T.at(0, "config") == "batch=1;launch=6;kernel=" + Kernels[6]);
  R = runPtxcast("dataset kernels " + Dir / "kernels.csv" + " --run run1 --limit 2 -o " +
                 Dir / "first.csv");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("2 rows read, 1 rows written, 1 rows skipped") != std::string::npos);
  T = parse(readAll(Dir / "first.csv"));
  REQUIRE(T.rows.size() == 1);
  CHECK(T.at(0, "config") == "batch=1;launch=0;kernel=" + Kernels[0]);
}

TEST_CASE("dataset kernels: --math and --kernels pick the lowering: other rows are skipped") {
  // collect.py's math and kernel_set columns: one f16 library run of lenet5 on an H200, one of
  // the CUDA-core kernels (SYNTHETIC times).
  const std::string Head = "network,batch,dtype,arch,math,kernel_set,sms_requested,run,sms_used,"
                           "scope,launch_index,kernel,median_ms\n";
  const std::string Csv = Head + "lenet5,1,f16,sm_90,auto,library,all,run1,132,launch,2," +
                          "lib_conv_igemm_k5_s1_mma_f16_t32x32_f16_bias_tanh,0.006\n" +
                          "lenet5,1,f32,sm_90,simt,specialised,all,run1,132,launch,2," +
                          Kernels[2] + ",0.008\n";
  TempDir Dir("dataset_kernels_math");
  clitest::writeFile(Dir / "kernels.csv", Csv);
  auto R = runPtxcast("dataset kernels " + Dir / "kernels.csv" +
                      " --gpu h200 --math auto --kernels library -o " + Dir / "lib.csv");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("2 rows read, 1 rows written, 1 rows skipped") != std::string::npos);
  CHECK(R.err.find("another lowering (--math, --kernels pick which)") != std::string::npos);
  Table T = parse(readAll(Dir / "lib.csv"));
  REQUIRE(T.rows.size() == 1);
  CHECK(T.at(0, "source") == "h200-library"); // other kernels than the specialised ones
  CHECK(T.at(0, "math") == "f16"); // auto on sm_90 with f16 data: f16 tensor cores
  CHECK(T.at(0, "dtype") == "f16");
  CHECK(T.num(0, "share_tensor") > 0); // the mma.sync the interpreter counted bound the time
  // Nothing of the lowering asked for: an error, not an empty dataset.
  R = runPtxcast("dataset kernels " + Dir / "kernels.csv" + " --math tf32 --kernels library -o " +
                 Dir / "none.csv");
  CHECK(R.status == 1);
  CHECK(R.err.find("2 rows read, 0 rows written, 2 rows skipped") != std::string::npos);
  CHECK(R.err.find("error: no measured row to join") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(Dir / "none.csv"));
  // The defaults (simt, specialised) take the other row, as for files without the columns.
  R = runPtxcast("dataset kernels " + Dir / "kernels.csv" + " -o " + Dir / "simt.csv");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  T = parse(readAll(Dir / "simt.csv"));
  REQUIRE(T.rows.size() == 1);
  CHECK(T.at(0, "math") == "simt");
  CHECK(T.num(0, "share_tensor") == 0);
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

  // The second launch's time is Median: the run fails at line 3 with Message, writing nothing.
  auto BadTime = [&](const std::string &Name, const std::string &Median,
                     const std::string &Message) {
    clitest::writeFile(Dir / Name, Header +
                                       row("all", "run1", 132, "launch", "0", Kernels[0], "0.004") +
                                       row("all", "run1", 132, "launch", "1", Kernels[1], Median));
    auto Run = runPtxcast("dataset kernels " + Dir / Name + " -o " + Dir / "o.csv");
    CHECK(Run.status == 1);
    CHECK(Run.err.find(Dir / Name + ":3: error: column 'median_ms': " + Message) !=
          std::string::npos);
    CHECK_FALSE(std::filesystem::exists(Dir / "o.csv"));
  };
  BadTime("badnum.csv", "fast", "expected a finite number, got 'fast'");
  // A time of 0 or less is a broken measurement: it used to become a row (and the learners then
  // dropped it without a word).
  BadTime("zero.csv", "-0.5", "a measured time must be above 0, got '-0.5'");
  BadTime("nought.csv", "0", "a measured time must be above 0, got '0'");
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
