// `ptxcast dataset neusight|timm` end to end: runs the binary on tiny CSVs in the sources' column
// layouts (synthetic rows, for mechanics; shapes, devices and kernel names as in the real files)
// and checks the common schema (ids, hardware::featureNames(), bound_ms, overhead_ms,
// measured_ms), skip counting, one analysis per shape, error reporting, and features and bounds
// against what the shapes and the catalog specs imply.
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

using clitest::runPtxcast;
using clitest::RunResult;

/// A fresh scratch directory for one test case, removed at the end.
struct ScratchDir {
  fs::path path;
  explicit ScratchDir(const std::string &Name)
      : path(fs::temp_directory_path() /
             ("ptxcast_dataset_test_" + Name + "_" + std::to_string(getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~ScratchDir() { fs::remove_all(path); }
  std::string write(const std::string &Name, const std::string &Text) const {
    fs::create_directories((path / Name).parent_path());
    std::ofstream(path / Name) << Text;
    return (path / Name).string();
  }
  std::string file(const std::string &Name) const { return (path / Name).string(); }
};

/// A CSV file read back: header and rows (RFC 4180 quotes, as writeCsv emits them).
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  size_t col(const std::string &Name) const {
    for (size_t I = 0; I < header.size(); ++I)
      if (header[I] == Name)
        return I;
    FAIL("no column " << Name);
    return 0;
  }
  std::string at(size_t Row, const std::string &Name) const { return rows.at(Row).at(col(Name)); }
  double num(size_t Row, const std::string &Name) const { return std::stod(at(Row, Name)); }
};

Table readCsv(const std::string &Path) {
  std::string Text = clitest::readAll(Path);
  std::vector<std::vector<std::string>> Records(1);
  std::string Field;
  bool Quoted = false;
  for (size_t I = 0; I < Text.size(); ++I) {
    char C = Text[I];
    if (Quoted) {
      if (C == '"' && I + 1 < Text.size() && Text[I + 1] == '"')
        Field += '"', ++I;
      else if (C == '"')
        Quoted = false;
      else
        Field += C;
    } else if (C == '"') {
      Quoted = true;
    } else if (C == ',') {
      Records.back().push_back(std::move(Field)), Field.clear();
    } else if (C == '\n') {
      Records.back().push_back(std::move(Field)), Field.clear();
      Records.emplace_back();
    } else if (C != '\r') {
      Field += C;
    }
  }
  if (Records.back().empty())
    Records.pop_back();
  Table T;
  REQUIRE(!Records.empty());
  T.header = Records[0];
  T.rows.assign(Records.begin() + 1, Records.end());
  for (const auto &R : T.rows)
    REQUIRE(R.size() == T.header.size());
  return T;
}

/// The row of a table whose column `Name` is `Value` (exactly one must match).
size_t rowWhere(const Table &T, const std::string &Name, const std::string &Value) {
  size_t Found = T.rows.size(), Matches = 0;
  for (size_t R = 0; R < T.rows.size(); ++R)
    if (T.at(R, Name) == Value)
      Found = R, ++Matches;
  REQUIRE_MESSAGE(Matches == 1, Name << " = " << Value);
  return Found;
}

const std::vector<std::string> Resources = {"fma",    "int", "fp16",  "fp64", "sfu",
                                            "tensor", "lsu", "issue", "l2",   "dram"};
const std::vector<std::string> Kinds = {"gemm", "direct_conv", "depthwise", "gemv", "eltwise",
                                        "pool", "reduce",      "softmax",   "copy", "other"};

/// docs/datasets.md: the identifier columns, hardware::featureNames(), then bound_ms,
/// overhead_ms and the target, for every source.
std::vector<std::string> expectedHeader() {
  std::vector<std::string> H = {"source", "gpu",      "sms",    "runtime", "math",
                                "dtype",  "workload", "config", "note"};
  for (const std::string &R : Resources)
    H.push_back("share_" + R);
  for (const char *F : {"share_latency", "share_unfused", "log2_waves", "tail_fill", "occupancy",
                        "warps_per_scheduler", "log2_busy_cycles", "log2_compute_over_memory",
                        "sectors_per_request", "bank_conflicts_per_request", "divergence",
                        "lane_utilisation", "log2_footprint_over_l2", "log2_tile_waste"})
    H.push_back(F);
  for (const std::string &K : Kinds)
    H.push_back("kind_" + K);
  for (const char *F :
       {"tensor_cores", "framework", "half", "compiled", "bound_ms", "overhead_ms", "measured_ms"})
    H.push_back(F);
  return H;
}

/// Features every row must satisfy: shares of the bound and fractions in [0, 1], the kinds a
/// partition of the bound (they sum to 1), a positive bound and a non-negative overhead.
void checkRowRanges(const Table &T, size_t Row) {
  CAPTURE(Row);
  double KindSum = 0;
  for (const std::string &K : Kinds)
    KindSum += T.num(Row, "kind_" + K);
  CHECK(KindSum == doctest::Approx(1));
  for (const std::string &R : Resources) {
    CAPTURE(R);
    CHECK(T.num(Row, "share_" + R) >= 0);
    CHECK(T.num(Row, "share_" + R) <= 1 + 1e-12);
  }
  for (const char *F : {"share_latency", "share_unfused", "tail_fill", "occupancy", "divergence",
                        "lane_utilisation", "tensor_cores"}) {
    CAPTURE(F);
    CHECK(T.num(Row, F) >= 0);
    CHECK(T.num(Row, F) <= 1 + 1e-12);
  }
  CHECK(T.num(Row, "tail_fill") > 0);
  CHECK(T.num(Row, "bound_ms") > 0);
  CHECK(T.num(Row, "overhead_ms") >= 0);
}

/// A row of one launch: its busiest resource defines the bound (largest share exactly 1) and
/// its kind is one family (`Kind` = 1, the others 0).
void checkOneLaunch(const Table &T, size_t Row, const std::string &Kind) {
  CAPTURE(Row);
  checkRowRanges(T, Row);
  double Largest = 0;
  for (const std::string &R : Resources)
    Largest = std::max(Largest, T.num(Row, "share_" + R));
  CHECK(Largest == doctest::Approx(1));
  for (const std::string &K : Kinds)
    CHECK_MESSAGE(T.num(Row, "kind_" + K) == (K == Kind ? 1 : 0), K);
}

/// Checks the given (column, value) pairs of a row.
void checkColumns(const Table &T, size_t Row,
                  const std::vector<std::pair<std::string, std::string>> &Expected) {
  CAPTURE(Row);
  for (const auto &[Name, Value] : Expected)
    CHECK_MESSAGE(T.at(Row, Name) == Value, Name);
}

/// log2(footprint / L2) as the feature defines it (floor 1 KiB).
double log2FootprintOverL2(double Bytes, double L2MB) {
  return std::log2(std::max(Bytes, 1024.0) / (L2MB * 1024 * 1024));
}

const std::string NeusightConvHeader =
    "op,latency_ms,device,kernel_name,warps_per_sm,blocks_per_sm,grid_x,grid_y,grid_z,block_x,"
    "block_y,block_z,b,input_channel,output_channel,kernel_size,input_size,stride,padding\n";
const std::string NeusightBhHeader = "op,latency_ms,device,kernel_name,warps_per_sm,blocks_per_sm,"
                                     "grid_x,grid_y,grid_z,block_x,block_y,block_z,b,h\n";
const std::string TimmHeader = "model,infer_img_size,infer_samples_per_sec,infer_step_time,"
                               "infer_batch_size,param_count,infer_gmacs,infer_macts\n";

/// A cuDNN kernel name as the conv files log it.
const std::string CudnnName =
    "\"void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, true, "
    "false, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, "
    "unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)\"";

} // namespace

TEST_CASE("dataset neusight: conv rows in the common schema, one analysis per shape") {
  ScratchDir Dir("conv");
  // Synthetic rows, for mechanics (layout and device strings of the real conv files). The last
  // shape is the big one: b=8, 64 -> 64 channels, 3x3, 32x32, padding 1.
  std::string P4 =
      Dir.write("p4.csv", NeusightConvHeader + "conv,0.05,Tesla P4," + CudnnName +
                              ",1,1,1,1,1,1,1,1,2,3,4,3,8,1,0\n"
                              "conv,0.07,Tesla P4,\"k, quoted\",1,1,1,1,1,1,1,1,1,8,32,1,6,2,0\n"
                              "conv,0.07,Tesla P4,k3,1,1,1,1,1,1,1,1,1,3,4,5,2,1,0\n");
  std::string T4 = Dir.write(
      "t4.csv", NeusightConvHeader + "conv,0.04,Tesla T4,k1,1,1,1,1,1,1,1,1,2,3,4,3,8,1,0\n"
                                     "conv,0.9,Tesla T4,k4,1,1,1,1,1,1,1,1,8,64,64,3,32,1,1\n");
  std::string V100 =
      Dir.write("v100.csv", NeusightConvHeader + "conv,0.6,Tesla V100-PCIE-32GB,k4,1,1,1,1,1,1,"
                                                 "1,1,8,64,64,3,32,1,1\n");
  std::string Out = Dir.file("out.csv");
  RunResult R =
      runPtxcast("dataset neusight " + P4 + " " + T4 + " " + V100 + " -o " + Out + " --threads 2");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("6 rows read, 5 rows written, 1 rows skipped, 4 distinct analyses") !=
        std::string::npos);
  CHECK(R.err.find("1 rebuild failed") != std::string::npos);

  Table T = readCsv(Out);
  CHECK(T.header == expectedHeader());
  REQUIRE(T.rows.size() == 5);
  // Rows keep the files' order; the GPU id is the catalog's name; NeuSight timed one fp32 call
  // at a time on every SM with TF32 off; the note is the measured kernel without its template
  // and parameter lists.
  for (size_t Row = 0; Row < T.rows.size(); ++Row)
    checkColumns(T, Row,
                 {{"source", "neusight"},
                  {"sms", "all"},
                  {"runtime", "op-call"},
                  {"math", "simt"},
                  {"dtype", "f32"},
                  {"workload", "conv"},
                  {"framework", "1"},
                  {"half", "0"},
                  {"tensor_cores", "0"}});
  CHECK(T.at(0, "gpu") == "p4");
  CHECK(T.at(0, "config") == "b=2;in=3;out=4;k=3;hw=8;s=1;p=0");
  CHECK(T.at(0, "note") == "cudnn::detail::implicit_convolve_sgemm");
  CHECK(T.at(1, "note") == "k, quoted");
  CHECK(T.at(2, "gpu") == "t4");
  CHECK(T.at(4, "gpu") == "v100-pcie-32gb");
  CHECK(T.num(2, "measured_ms") == doctest::Approx(0.04));

  // Fewer than 16 output channels: a direct convolution; 32 channels, 1x1: a GEMM.
  checkOneLaunch(T, 0, "direct_conv");
  checkOneLaunch(T, 1, "gemm");
  checkOneLaunch(T, 2, "direct_conv");
  checkOneLaunch(T, 3, "gemm");
  checkOneLaunch(T, 4, "gemm");

  // Same shape on P4 and T4, one analysis: the launch's own counts agree, and the footprint
  // (2x3x8x8 input, 4x3x3x3 weights, 2x4x6x6 output, fp32) is measured against each L2 (2 and
  // 4 MB in the catalog).
  for (const char *Name :
       {"sectors_per_request", "bank_conflicts_per_request", "divergence", "lane_utilisation"})
    CHECK_MESSAGE(T.num(0, Name) == doctest::Approx(T.num(2, Name)), Name);
  const double Footprint = 4.0 * (2 * 3 * 8 * 8 + 4 * 3 * 3 * 3 + 2 * 4 * 6 * 6);
  CHECK(T.num(0, "log2_footprint_over_l2") == doctest::Approx(log2FootprintOverL2(Footprint, 2)));
  CHECK(T.num(2, "log2_footprint_over_l2") == doctest::Approx(log2FootprintOverL2(Footprint, 4)));

  // The big conv is multiply-add bound on the CUDA cores of both GPUs, so its bound follows
  // their FP32 peaks: V100 (14 TFLOPS, 900 GB/s) below T4 (8.1 TFLOPS, 320 GB/s), neither under
  // the time its multiply-adds take at peak nor under its footprint at full bandwidth.
  const double Macs = 8.0 * 64 * 32 * 32 * 64 * 3 * 3;
  const double BigFootprint = 4.0 * (8 * 64 * 32 * 32 * 2 + 64 * 64 * 3 * 3);
  const size_t OnT4 = 3, OnV100 = 4;
  CHECK(T.at(OnT4, "config") == T.at(OnV100, "config"));
  CHECK(T.num(OnV100, "bound_ms") < T.num(OnT4, "bound_ms"));
  for (auto [Row, Tflops, GBs] : {std::tuple{OnT4, 8.1, 320.0}, std::tuple{OnV100, 14.0, 900.0}}) {
    CAPTURE(Row);
    CHECK(T.num(Row, "share_fma") == 1);
    CHECK(T.num(Row, "log2_compute_over_memory") > 0);
    CHECK(T.num(Row, "bound_ms") >= 0.98 * 2 * Macs / (Tflops * 1e12) * 1e3);
    CHECK(T.num(Row, "bound_ms") >= BigFootprint / (GBs * 1e9) * 1e3);
  }
}

TEST_CASE("dataset neusight: linear, bmm and every (b, h) operator give a row of its kind") {
  ScratchDir Dir("ops");
  // Synthetic rows, for mechanics: every operator of the training and test splits.
  std::string Mm = Dir.write("mm.csv", "op,latency_ms,device,kernel_name,warps_per_sm,"
                                       "blocks_per_sm,grid_x,grid_y,grid_z,block_x,block_y,"
                                       "block_z,b,m,n,k\n"
                                       "linear,0.046,Tesla V100-PCIE-32GB,sgemm,1,1,1,1,1,1,1,1,"
                                       "2,5,13,7\n"
                                       "bmm,0.02,Tesla V100-PCIE-32GB,sgemm,1,1,1,1,1,1,1,1,"
                                       "2,5,13,7\n");
  const std::vector<std::string> Ops = {"relu", "gelu", "tanh", "add",  "mul",     "div", "pow",
                                        "addu", "mulu", "divu", "powu", "softmax", "ln"};
  std::string Bh = NeusightBhHeader;
  for (const std::string &Op : Ops)
    Bh += Op + ",0.03,Tesla T4,k,1,1,1,1,1,1,1,1,4,64\n";
  Bh += "sigmoid,0.03,Tesla T4,k,1,1,1,1,1,1,1,1,4,64\n";
  std::string BhFile = Dir.write("bh.csv", Bh);
  std::string Out = Dir.file("out.csv");
  RunResult R = runPtxcast("dataset neusight " + Mm + " " + BhFile + " -o " + Out);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("16 rows read, 15 rows written, 1 rows skipped, 15 distinct analyses") !=
        std::string::npos);
  CHECK(R.err.find("1 unsupported op (first: sigmoid)") != std::string::npos);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 15);

  // Linear(13, 7) on (2, 5, 13): 10 rows, a GEMM; input, weights, bias and output buffers.
  // bmm (2, 5, 13) x (2, 13, 7): a GEMM over a, b and the output. The V100 has 6 MB of L2.
  size_t L = rowWhere(T, "workload", "linear");
  CHECK(T.at(L, "gpu") == "v100-pcie-32gb");
  CHECK(T.at(L, "config") == "b=2;m=5;n=13;k=7");
  checkOneLaunch(T, L, "gemm");
  CHECK(T.num(L, "log2_footprint_over_l2") ==
        doctest::Approx(log2FootprintOverL2(4.0 * (10 * 13 + 7 * 13 + 7 + 10 * 7), 6)));
  size_t B = rowWhere(T, "workload", "bmm");
  CHECK(T.at(B, "config") == "b=2;m=5;n=13;k=7");
  checkOneLaunch(T, B, "gemm");
  CHECK(T.num(B, "log2_footprint_over_l2") ==
        doctest::Approx(log2FootprintOverL2(4.0 * (2 * 5 * 13 + 2 * 13 * 7 + 2 * 5 * 7), 6)));
  // Two one-tile products on the V100's 80 SMs: each computes a whole 64x64 tile for its 5x7
  // outputs (hardware::libraryTileShare); the linear layer, a single product, has no such waste.
  CHECK(T.num(B, "log2_tile_waste") == doctest::Approx(std::log2(64.0 * 64 / (2 * 5 * 7) * 80)));
  CHECK(T.num(L, "log2_tile_waste") == 0);

  // (4, 64) tensors of 1 KiB on the T4 (4 MB of L2): unary and scalar operators touch input
  // and output, binary ones a second input, layer norm its weight and bias as well.
  for (const std::string &Op : Ops) {
    CAPTURE(Op);
    size_t Row = rowWhere(T, "workload", Op);
    CHECK(T.at(Row, "gpu") == "t4");
    CHECK(T.at(Row, "config") == "b=4;h=64");
    const bool Softmax = Op == "softmax" || Op == "ln";
    checkOneLaunch(T, Row, Softmax ? "softmax" : "eltwise");
    const bool Binary = Op == "add" || Op == "mul" || Op == "div" || Op == "pow";
    double Bytes = Binary ? 3 * 1024 : Op == "ln" ? 2 * 1024 + 2 * 4 * 64 : 2 * 1024;
    CHECK(T.num(Row, "log2_footprint_over_l2") == doctest::Approx(log2FootprintOverL2(Bytes, 4)));
  }
}

TEST_CASE("dataset neusight: --limit takes the first rows of each file") {
  ScratchDir Dir("limit");
  // Synthetic rows, for mechanics: two GPU files listing the same shapes in the same order.
  std::string Rows = "relu,0.03,{},r,1,1,1,1,1,1,1,1,3,40\nrelu,0.05,{},r,1,1,1,1,1,1,1,1,5,40\n";
  auto Fill = [&](const std::string &Device) {
    std::string S = Rows;
    for (size_t P; (P = S.find("{}")) != std::string::npos;)
      S.replace(P, 2, Device);
    return NeusightBhHeader + S;
  };
  std::string T4 = Dir.write("t4.csv", Fill("Tesla T4"));
  std::string P4 = Dir.write("p4.csv", Fill("Tesla P4"));
  std::string Out = Dir.file("out.csv");
  RunResult R = runPtxcast("dataset neusight --limit 1 " + T4 + " " + P4 + " -o " + Out);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("2 rows read, 2 rows written, 0 rows skipped, 1 distinct analyses") !=
        std::string::npos);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 2);
  CHECK(T.at(0, "gpu") == "t4");
  CHECK(T.at(1, "gpu") == "p4");
  CHECK(T.at(1, "config") == "b=3;h=40");
  CHECK(T.num(1, "measured_ms") == doctest::Approx(0.03));
}

TEST_CASE("dataset neusight: op-call rows carry the host overhead the smallest operators show") {
  ScratchDir Dir("overhead");
  // Synthetic rows, for mechanics: six tiny relu calls on the T4 (about 10 us, where their bound
  // is about the 2.5 us launch latency), one large relu, and rows that take the estimate from
  // elsewhere: another T4 operator, a P4 row, and a row of the test split (its folder name).
  std::string T4 = NeusightBhHeader;
  const double Tiny[] = {0.011, 0.012, 0.010, 0.013, 0.0125, 0.014};
  for (int I = 0; I < 6; ++I)
    T4 += "relu," + std::to_string(Tiny[I]) + ",Tesla T4,r,1,1,1,1,1,1,1,1," +
          std::to_string(I + 1) + ",32\n";
  T4 += "relu,0.5,Tesla T4,r,1,1,1,1,1,1,1,1,4096,4096\n"
        "add,0.02,Tesla T4,a,1,1,1,1,1,1,1,1,2,32\n";
  std::string T4File = Dir.write("t4.csv", T4);
  std::string P4 =
      Dir.write("p4.csv", NeusightBhHeader + "relu,0.02,Tesla P4,r,1,1,1,1,1,1,1,1,2,32\n");
  std::string Test = Dir.write("neusight-testsplit/gelu/t4.csv",
                               NeusightBhHeader + "gelu,0.02,Tesla T4,g,1,1,1,1,1,1,1,1,2,32\n");
  std::string Out = Dir.file("out.csv");
  RunResult R = runPtxcast("dataset neusight " + T4File + " " + P4 + " " + Test + " -o " + Out);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 10);
  CHECK(T.at(9, "source") == "neusight-test");

  // estimateCallOverheads: the median of measured - bound over the five T4 relu rows with the
  // smallest bound (the six tiny ones but the largest).
  std::vector<std::pair<double, double>> ByBound; // (bound, measured - bound)
  for (size_t Row = 0; Row < 6; ++Row) {
    CHECK(T.num(Row, "bound_ms") < 0.02); // tiny: the overhead shows
    ByBound.emplace_back(T.num(Row, "bound_ms"),
                         T.num(Row, "measured_ms") - T.num(Row, "bound_ms"));
  }
  std::sort(ByBound.begin(), ByBound.end());
  std::vector<double> Gaps;
  for (size_t I = 0; I < 5; ++I)
    Gaps.push_back(ByBound[I].second);
  std::sort(Gaps.begin(), Gaps.end());
  const double Overhead = Gaps[2];
  CHECK(Overhead > 0.005); // about 10 us measured over a 2.5 us bound
  for (size_t Row = 0; Row < 6; ++Row) {
    CAPTURE(Row);
    CHECK(T.num(Row, "overhead_ms") == doctest::Approx(Overhead));
    CHECK(T.num(Row, "overhead_ms") < T.num(Row, "measured_ms"));
  }
  // The large relu (16 Mi elements, 128 MiB through the T4's 320 GB/s, of which half its 4 MB
  // L2 is still resident from the call before) is DRAM bound; its (gpu, op) group carries the
  // same overhead as its small rows.
  CHECK(T.num(6, "share_dram") == 1);
  CHECK(T.num(6, "bound_ms") >= (2.0 * 4 * 4096 * 4096 - 2 * 1024 * 1024) / 320e9 * 1e3);
  // Another T4 operator takes the T4's estimate, the P4 (no estimate of its own) the median
  // over every GPU, the test split the training split's.
  for (size_t Row = 6; Row < 10; ++Row)
    CHECK(T.num(Row, "overhead_ms") == doctest::Approx(Overhead));
}

TEST_CASE("dataset neusight: malformed input is a file:line error") {
  ScratchDir Dir("bad");
  std::string Out = Dir.file("out.csv");
  struct Case {
    std::string file, text, error; ///< the error after "FILE:"
  } Cases[] = {
      {"nolat.csv", "op,device,kernel_name,b,h\nrelu,Tesla T4,r,1,2\n",
       "1: error: missing column 'latency_ms'"},
      {"unknown.csv",
       NeusightBhHeader + "relu,0.03,Tesla T4,r,1,1,1,1,1,1,1,1,3,40\n"
                          "relu,0.03,Tesla Q9,r,1,1,1,1,1,1,1,1,3,40\n",
       "3: error: column 'device': unknown gpu 'Tesla Q9'"},
      {"badnum.csv", NeusightBhHeader + "relu,0.03,Tesla T4,r,1,1,1,1,1,1,1,1,3,4x0\n",
       "2: error: column 'h': expected an integer, got '4x0'"},
      {"noshape.csv", NeusightBhHeader + "bmm,0.03,Tesla T4,r,1,1,1,1,1,1,1,1,3,40\n",
       "2: error: op 'bmm' needs column 'm', which the header lacks"},
  };
  for (const Case &C : Cases) {
    CAPTURE(C.file);
    std::string File = Dir.write(C.file, C.text);
    RunResult R = runPtxcast("dataset neusight " + File + " -o " + Out);
    CHECK(R.status == 1);
    CHECK(R.err.find(File + ":" + C.error) != std::string::npos);
    CHECK(!fs::exists(Out)); // nothing written on error
  }
}

// Regression: a name in an anonymous namespace was cut at the '(' of "(anonymous namespace)",
// so every softmax row of the real files got an empty note or "at::native::".
TEST_CASE("dataset neusight: kernel names in anonymous namespaces keep their own name") {
  ScratchDir Dir("names");
  // Kernel names as the real softmax files log them; synthetic times.
  std::string Softmax = Dir.write(
      "softmax.csv",
      NeusightBhHeader +
          "softmax,0.03,Tesla T4,\"void (anonymous namespace)::softmax_warp_forward<float, float, "
          "float, 8, false, false>(float*, float const*, int, int, int, bool const*, int, "
          "bool)\",1,1,1,1,1,1,1,1,3,40\n"
          "softmax,0.03,Tesla T4,\"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, "
          "float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, "
          "float const*, int)\",1,1,1,1,1,1,1,1,3,4000\n");
  std::string Out = Dir.file("out.csv");
  RunResult R = runPtxcast("dataset neusight " + Softmax + " -o " + Out);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 2);
  CHECK(T.at(0, "note").find("softmax_warp_forward") != std::string::npos);
  CHECK(T.at(1, "note").find("cunn_SoftMaxForward") != std::string::npos);
}

TEST_CASE("dataset timm: zoo models at the row's batch and size, one analysis per network") {
  ScratchDir Dir("timm");
  // Synthetic rows, for mechanics (column layout of the real infer files, small sizes).
  std::string R3090 = Dir.write("benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv",
                                TimmHeader + "densenet121,32,1.0,2.5,2,7.98,2.87,6.9\n"
                                             "mobilenetv2_035,32,100.0,1.5,2,1.68,0.07,2.86\n"
                                             "efficientnet_b8,32,1.0,2.5,2,87.41,63.48,442.89\n");
  std::string R4090 = Dir.write("benchmark-infer-amp-nhwc-pt291-cu128-4090.csv",
                                TimmHeader + "mobilenetv2_035,32,150.0,1.25,2,1.68,0.07,2.86\n");
  std::string Out = Dir.file("timm.csv");
  RunResult R = runPtxcast("dataset timm " + R3090 + " " + R4090 + " -o " + Out);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("4 rows read, 2 rows written, 2 rows skipped, 1 distinct analyses") !=
        std::string::npos);
  CHECK(R.err.find("2 model not in zoo") != std::string::npos);
  Table T = readCsv(Out);
  CHECK(T.header == expectedHeader());
  REQUIRE(T.rows.size() == 2);
  // AMP inference in eager PyTorch: f16 tensors, f16 tensor-core math, no host overhead term.
  for (size_t Row = 0; Row < 2; ++Row) {
    checkColumns(T, Row,
                 {{"source", "timm"},
                  {"sms", "all"},
                  {"runtime", "eager"},
                  {"math", "f16"},
                  {"dtype", "f16"},
                  {"workload", "mobilenetv2-0.35"},
                  {"half", "1"},
                  {"framework", "1"},
                  {"overhead_ms", "0"}});
    CHECK(T.num(Row, "tensor_cores") > 0); // the pointwise convolutions
    checkRowRanges(T, Row);
  }
  CHECK(T.at(0, "gpu") == "rtx-3090");
  CHECK(T.at(0, "config") == "batch=2;image=32;layout=nchw");
  CHECK(T.at(0, "note") == "mobilenetv2_035 benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv");
  CHECK(T.at(1, "gpu") == "rtx-4090");
  CHECK(T.at(1, "config") == "batch=2;image=32;layout=nhwc");
  CHECK(T.num(1, "measured_ms") == doctest::Approx(1.25));

  // The launch latency in the bound counts the kernels PyTorch runs: as many on both GPUs, and
  // at least the launches of the same network through `ptxcast analyze` (f16, batch 2, 32x32).
  // hardware::LaunchLatencyCycles (4950) at each GPU's top clock: GPU Boost runs the RTX 3090 at
  // its 1695 MHz boost x the catalog's 1.13 GeForce headroom and the RTX 4090 at its published
  // 2850 MHz (a small network: the power limit does not bind).
  const double Latency3090 = 4950 / (1695e3 * 1.13), Latency4090 = 4950 / 2850e3;
  const double Kernels = T.num(0, "share_latency") * T.num(0, "bound_ms") / Latency3090;
  CHECK(Kernels == doctest::Approx(std::round(Kernels)));
  CHECK(T.num(1, "share_latency") * T.num(1, "bound_ms") / Latency4090 == doctest::Approx(Kernels));
  RunResult A =
      runPtxcast("analyze mobilenetv2-0.35 --batch 2 --image-size 32 --dtype f16 --format json");
  REQUIRE_MESSAGE(A.status == 0, A.err);
  nlohmann::json J = nlohmann::json::parse(A.out);
  CHECK(Kernels >= J["total"]["launches"].get<double>());
}

TEST_CASE(
    "dataset timm: a -dynamo file's rows are torch.compile's, with the compile pass structure") {
  ScratchDir Dir("timmdynamo");
  // Synthetic rows, for mechanics: one network, eager and compiled.
  const std::string Row = "mobilenetv2_035,32,150.0,1.25,2,1.68,0.07,2.86\n";
  std::string Eager = Dir.write("benchmark-infer-amp-nchw-pt291-cu128-4090.csv", TimmHeader + Row);
  std::string Compiled =
      Dir.write("benchmark-infer-amp-nchw-pt291-cu128-4090-dynamo.csv", TimmHeader + Row);
  std::string Out = Dir.file("timm.csv");
  RunResult R = runPtxcast("dataset timm " + Eager + " " + Compiled + " -o " + Out);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 2);
  checkColumns(T, 0, {{"runtime", "eager"}, {"compiled", "0"}, {"gpu", "rtx-4090"}});
  checkColumns(T, 1, {{"runtime", "compile"}, {"compiled", "1"}, {"gpu", "rtx-4090"}});
  checkRowRanges(T, 1);
  // Inductor fuses each convolution's tail into one kernel and keeps nothing at memory latency:
  // the same network's bound is smaller than eager PyTorch's.
  CHECK(T.num(1, "bound_ms") < T.num(0, "bound_ms"));
}

TEST_CASE("dataset timm: --limit, --gpu and bad files") {
  ScratchDir Dir("timmbad");
  std::string Out = Dir.file("timm.csv");
  std::string Infer = Dir.write("benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv",
                                TimmHeader + "mobilenetv2_035,32,100.0,1.5,1,1.68,0.07,2.86\n"
                                             "mobilenetv2_050,32,100.0,1.5,1,1.97,0.1,3.64\n");
  // --limit counts per file: the first zoo row of each of the two files, one analysis.
  RunResult R =
      runPtxcast("dataset timm " + Infer + " " + Infer + " --limit 1 --gpu a100 -o " + Out);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("2 rows read, 2 rows written, 0 rows skipped, 1 distinct analyses") !=
        std::string::npos);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 2);
  CHECK(T.at(0, "gpu") == "a100-40gb-sxm");
  CHECK(T.at(1, "workload") == "mobilenetv2-0.35");
  CHECK(T.at(1, "note").rfind("mobilenetv2_035 ", 0) == 0);

  std::string Train = Dir.write("benchmark-train-amp-nchw-pt112-cu113-rtx3090.csv",
                                "model,train_samples_per_sec,train_step_time,train_batch_size,"
                                "train_img_size,param_count\nresnet50,1.0,2.0,32,224,25.56\n");
  R = runPtxcast("dataset timm " + Train + " -o " + Out);
  CHECK(R.status == 1);
  CHECK(R.err.find(Train + ": error: a training benchmark") != std::string::npos);

  std::string Missing = Dir.write("benchmark-infer-amp-nchw-x-rtx3090.csv",
                                  "model,infer_img_size,infer_batch_size\nresnet50,224,1\n");
  R = runPtxcast("dataset timm " + Missing + " -o " + Out);
  CHECK(R.status == 1);
  CHECK(R.err.find(Missing + ":1: error: missing column 'infer_step_time'") != std::string::npos);

  std::string NoGpu = Dir.write("benchmark-infer-amp-nchw-x-y.csv", TimmHeader);
  R = runPtxcast("dataset timm " + NoGpu + " -o " + Out);
  CHECK(R.status == 1);
  CHECK(R.err.find("no GPU of the catalog in the file name") != std::string::npos);
}

TEST_CASE("dataset timm: --onnx-dir takes torchvision architectures from their graphs") {
  ScratchDir Dir("timmonnx");
  // Synthetic rows, for mechanics: resnet18 at two sizes the graph was not exported at (one
  // analysis each), vgg11 at a size its dense layer cannot take, resnet34 absent from the folder.
  std::string Infer = Dir.write("benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv",
                                TimmHeader + "resnet18,64,1.0,2.5,16,11.69,1.82,2.48\n"
                                             "resnet18,128,1.0,3.5,16,11.69,1.82,2.48\n"
                                             "vgg11,64,1.0,2.5,16,132.86,7.61,7.44\n");
  std::string Out = Dir.file("timm.csv");
  const std::string Onnx = std::string(PTXCAST_SOURCE_DIR) + "/corpus/data/measured/h100/onnx";
  RunResult Without = runPtxcast("dataset timm " + Infer + " -o " + Out);
  REQUIRE_MESSAGE(Without.status == 0, Without.err);
  CHECK(Without.err.find("0 rows written, 3 rows skipped") != std::string::npos);
  CHECK(Without.err.find("3 model not in zoo") != std::string::npos);

  RunResult R = runPtxcast("dataset timm " + Infer + " --onnx-dir " + Onnx + " -o " + Out);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("3 rows read, 2 rows written, 1 rows skipped, 3 distinct analyses") !=
        std::string::npos);
  CHECK(R.err.find("1 rebuild failed (first: " + Onnx + "/vgg11.onnx: error:") !=
        std::string::npos);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 2);
  for (size_t Row = 0; Row < 2; ++Row) {
    // Named as the frameworks rows of the same graph are, so a network left out is left out
    // under both names.
    checkColumns(T, Row, {{"source", "timm"}, {"workload", "resnet18"}, {"math", "f16"}});
    checkRowRanges(T, Row);
  }
  CHECK(T.at(0, "config") == "batch=16;image=64;layout=nchw");
  CHECK(T.at(1, "config") == "batch=16;image=128;layout=nchw");
  // 4x the convolutions' work at 128: the bound grows by over half (launch latency and the
  // weights' casts are the same at both sizes).
  CHECK(T.num(1, "bound_ms") > 1.5 * T.num(0, "bound_ms"));

  std::string Empty = Dir.file("no-graphs");
  std::filesystem::create_directory(Empty);
  RunResult Missing = runPtxcast("dataset timm " + Infer + " --onnx-dir " + Empty + " -o " + Out);
  REQUIRE_MESSAGE(Missing.status == 0, Missing.err);
  CHECK(Missing.err.find("3 no ONNX graph (first: " + Empty + "/resnet18.onnx)") !=
        std::string::npos);
}
