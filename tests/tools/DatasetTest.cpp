// `ptxcast dataset neusight|timm` end to end: runs the binary on tiny CSVs in the sources' column
// layouts (synthetic rows, for mechanics; shapes and devices as in the real files) and checks
// columns, ids, skip counting, dedupe, error reporting and features derived independently.
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

using clitest::RunResult;

std::string readText(const fs::path &P) {
  std::ifstream In(P);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

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
    std::ofstream(path / Name) << Text;
    return (path / Name).string();
  }
  std::string file(const std::string &Name) const { return (path / Name).string(); }
};

/// Runs `ptxcast ARGS` (tools/tests/RunPtxcast.h); the directory argument is kept for call sites.
RunResult runPtxcast(const std::string &Args, const ScratchDir &) {
  return clitest::runPtxcast(Args);
}

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
  std::string Text = readText(Path);
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

const std::string NeusightConvHeader =
    "op,latency_ms,device,kernel_name,warps_per_sm,blocks_per_sm,grid_x,grid_y,grid_z,block_x,"
    "block_y,block_z,b,input_channel,output_channel,kernel_size,input_size,stride,padding\n";
const std::string NeusightBhHeader = "op,latency_ms,device,kernel_name,warps_per_sm,blocks_per_sm,"
                                     "grid_x,grid_y,grid_z,block_x,block_y,block_z,b,h\n";
const std::string TimmHeader = "model,infer_img_size,infer_samples_per_sec,infer_step_time,"
                               "infer_batch_size,param_count,infer_gmacs,infer_macts\n";

/// The row of a table whose column `Name` is `Value` (exactly one must match).
size_t rowWhere(const Table &T, const std::string &Name, const std::string &Value) {
  size_t Found = T.rows.size(), Matches = 0;
  for (size_t R = 0; R < T.rows.size(); ++R)
    if (T.at(R, Name) == Value)
      Found = R, ++Matches;
  REQUIRE_MESSAGE(Matches == 1, Name << " = " << Value);
  return Found;
}

} // namespace

TEST_CASE("dataset neusight: conv rows on two GPUs share one analysis; a bad shape is skipped") {
  ScratchDir Dir("conv");
  // Synthetic rows, for mechanics (layout and device strings of the real conv files).
  std::string P4 = Dir.write(
      "p4.csv", NeusightConvHeader + "conv,0.05,Tesla P4,\"k, quoted\",1,1,1,1,1,1,1,1,"
                                     "2,3,4,3,8,1,0\n"
                                     "conv,0.07,Tesla P4,k2,1,1,1,1,1,1,1,1,1,8,32,1,6,2,0\n");
  std::string T4 = Dir.write("t4.csv", NeusightConvHeader +
                                           "conv,0.04,Tesla T4,k1,1,1,1,1,1,1,1,1,2,3,4,3,8,1,0\n"
                                           "conv,0.09,Tesla T4,k3,1,1,1,1,1,1,1,1,1,3,4,5,2,1,0\n");
  std::string Out = Dir.file("out.csv");
  RunResult R =
      runPtxcast("dataset neusight " + P4 + " " + T4 + " -o " + Out + " --threads 2", Dir);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("4 rows read, 3 rows written, 1 rows skipped, 3 distinct analyses") !=
        std::string::npos);
  CHECK(R.err.find("1 rebuild failed") != std::string::npos);

  Table T = readCsv(Out);
  const std::vector<std::string> Ids = {"source", "op", "gpu", "device", "shape", "kernel_name"};
  REQUIRE(T.header.size() > Ids.size() + 2);
  for (size_t I = 0; I < Ids.size(); ++I)
    CHECK(T.header[I] == Ids[I]);
  CHECK(T.header[Ids.size()] == "launches"); // Features.h: analysis features come first
  CHECK(T.header.back() == "latency_ms");
  REQUIRE(T.rows.size() == 3);

  // Rows keep the files' order; the GPU id is the catalog's canonical name.
  CHECK(T.at(0, "gpu") == "p4");
  CHECK(T.at(0, "device") == "Tesla P4");
  CHECK(T.at(0, "kernel_name") == "k, quoted");
  CHECK(T.at(0, "shape") == "b=2;in=3;out=4;k=3;hw=8;s=1;p=0");
  CHECK(T.at(2, "gpu") == "t4");
  CHECK(T.num(2, "latency_ms") == doctest::Approx(0.04));

  // Same shape on two GPUs: identical analysis columns, different hardware columns.
  for (const char *Name : {"thr_fp32", "thr_total", "global_load_sectors", "footprint_bytes"})
    CHECK(T.at(0, Name) == T.at(2, Name));
  CHECK(T.at(0, "gpu_sm_count") != T.at(2, "gpu_sm_count"));

  // Derived by hand: a 3x3 conv, 2x3x8x8 -> 2x4x6x6, no padding: one FMA per MAC, every output
  // stored once, footprint = input + weights + output (fp32).
  const double Macs = 2.0 * 4 * 6 * 6 * 3 * 3 * 3;
  CHECK(T.num(0, "thr_fp32") == Macs);
  CHECK(T.num(0, "global_store_bytes") == 4.0 * 2 * 4 * 6 * 6);
  CHECK(T.num(0, "footprint_bytes") == 4.0 * (2 * 3 * 8 * 8 + 4 * 3 * 3 * 3 + 2 * 4 * 6 * 6));
  CHECK(T.num(0, "launches") == 1);
  // A 1x1 stride-2 conv 1x8x6x6 -> 1x32x3x3.
  CHECK(T.num(1, "thr_fp32") >= 1.0 * 32 * 3 * 3 * 8);
  CHECK(T.num(1, "footprint_bytes") == 4.0 * (8 * 6 * 6 + 32 * 8 + 32 * 3 * 3));
}

TEST_CASE("dataset neusight: linear, relu, add and softmax rows") {
  ScratchDir Dir("ops");
  // Synthetic rows, for mechanics.
  std::string Lin =
      Dir.write("linear.csv",
                "op,latency_ms,device,kernel_name,warps_per_sm,blocks_per_sm,grid_x,grid_y,grid_z,"
                "block_x,block_y,block_z,b,m,n,k\n"
                "linear,0.046,Tesla V100-PCIE-32GB,sgemm,1,1,1,1,1,1,1,1,2,5,13,7\n");
  std::string Bh = Dir.write("bh.csv", NeusightBhHeader +
                                           "relu,0.03,Tesla P100-PCIE-16GB,r,1,1,1,1,1,1,1,1,3,40\n"
                                           "add,0.03,Tesla P100-PCIE-16GB,a,1,1,1,1,1,1,1,1,3,40\n"
                                           "softmax,0.03,Tesla T4,s,1,1,1,1,1,1,1,1,3,40\n"
                                           "gelu,0.03,Tesla T4,g,1,1,1,1,1,1,1,1,3,40\n");
  std::string Out = Dir.file("out.csv");
  RunResult R = runPtxcast("dataset neusight " + Lin + " " + Bh + " -o " + Out, Dir);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("5 rows read, 4 rows written, 1 rows skipped, 4 distinct analyses") !=
        std::string::npos);
  CHECK(R.err.find("1 unsupported op (first: gelu)") != std::string::npos);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 4);
  size_t L = rowWhere(T, "op", "linear");
  CHECK(T.at(L, "gpu") == "v100-pcie-32gb");
  CHECK(T.at(L, "shape") == "b=2;m=5;n=13;k=7");
  // Linear(13, 7) on (2, 5, 13): 10 rows; input, weights, bias and output buffers.
  CHECK(T.num(L, "footprint_bytes") == 4.0 * (10 * 13 + 7 * 13 + 7 + 10 * 7));
  CHECK(T.num(L, "thr_fp32") >= 10.0 * 13 * 7);
  CHECK(T.num(L, "global_store_bytes") == 4.0 * 10 * 7);
  size_t A = rowWhere(T, "op", "add");
  CHECK(T.at(A, "shape") == "b=3;h=40");
  CHECK(T.at(A, "gpu") == "p100-pcie-16gb");
  CHECK(T.num(A, "footprint_bytes") == 4.0 * 3 * 120);
  CHECK(T.num(A, "global_load_bytes") == 4.0 * 2 * 120);
  CHECK(T.num(A, "global_store_bytes") == 4.0 * 120);
  size_t U = rowWhere(T, "op", "relu");
  CHECK(T.num(U, "footprint_bytes") == 4.0 * 2 * 120);
  CHECK(T.num(U, "global_store_bytes") == 4.0 * 120);
  size_t S = rowWhere(T, "op", "softmax");
  CHECK(T.num(S, "footprint_bytes") == 4.0 * 2 * 120);
  CHECK(T.num(S, "thr_sfu") >= 120); // one exponential per element at least
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
  RunResult R = runPtxcast("dataset neusight --limit 1 " + T4 + " " + P4 + " -o " + Out, Dir);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("2 rows read, 2 rows written, 0 rows skipped, 1 distinct analyses") !=
        std::string::npos);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 2);
  CHECK(T.at(0, "gpu") == "t4");
  CHECK(T.at(1, "gpu") == "p4");
  CHECK(T.at(1, "shape") == "b=3;h=40");
}

TEST_CASE("dataset neusight: --launch-columns appends the measured kernel's launch record") {
  ScratchDir Dir("launch");
  // Synthetic rows, for mechanics, with kernel names as in the real conv files.
  std::string Conv = Dir.write(
      "t4.csv",
      NeusightConvHeader +
          "conv,0.5,Tesla T4,volta_sgemm_128x64_nn,32.4,16.2,3,6,36,64,2,1,2,3,4,3,8,1,0\n"
          "conv,0.7,Tesla T4,cudnn_infer_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_"
          "tile148t_nt_v1,8,2,5,1,1,256,1,1,2,3,4,3,8,1,1\n"
          "conv,0.9,Tesla T4,cudnn_infer_volta_scudnn_sliced1x4_ldg4_relu_exp_small_"
          "nhwc_tn_v1,8,2,5,1,1,128,1,1,2,3,4,3,8,2,1\n");
  std::string Out = Dir.file("out.csv");
  RunResult R = runPtxcast("dataset neusight --launch-columns " + Conv + " -o " + Out, Dir);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 3);
  CHECK(T.header.back() == "latency_ms"); // the target stays last
  CHECK(T.at(0, "launch_grid_z") == "36");
  CHECK(T.at(0, "launch_warps_per_sm") == "32.4");
  CHECK(T.at(0, "launch_ctas") == "648");
  CHECK(T.at(0, "launch_threads_per_cta") == "128");
  CHECK(T.at(0, "launch_tile_m") == "128");
  CHECK(T.at(0, "launch_tile_n") == "64");
  CHECK(T.at(0, "launch_gemm") == "1");
  CHECK(T.at(0, "launch_implicit_gemm") == "0");
  CHECK(T.at(1, "launch_winograd") == "1"); // the first family that matches, only
  CHECK(T.at(1, "launch_implicit_gemm") == "0");
  CHECK(T.at(2, "launch_implicit_gemm") == "1");
  CHECK(T.at(2, "launch_tile_m") == "0"); // "sliced1x4" is not a tile
  // Without the flag the columns are absent; a file without launch columns is an error with it.
  R = runPtxcast("dataset neusight " + Conv + " -o " + Out, Dir);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(readText(Out).find("launch_") == std::string::npos);
  std::string Bare = Dir.write("bare.csv", "op,latency_ms,device,kernel_name,b,h\n"
                                           "relu,0.03,Tesla T4,r,3,40\n");
  R = runPtxcast("dataset neusight --launch-columns " + Bare + " -o " + Out, Dir);
  CHECK(R.status == 1);
  CHECK(R.err.find(Bare + ":1: error: --launch-columns needs column 'grid_x'") !=
        std::string::npos);
}

TEST_CASE("dataset neusight: --shape-columns appends each operator's shape, 0 for other ops") {
  ScratchDir Dir("shapecols");
  // Synthetic rows, for mechanics: one conv and one relu, then the launch columns as well.
  std::string Conv = Dir.write(
      "conv.csv",
      NeusightConvHeader +
          "conv,0.5,Tesla T4,volta_sgemm_128x64_nn,32.4,16.2,3,6,36,64,2,1,2,3,4,3,8,1,0\n");
  std::string Relu = Dir.write("relu.csv", "op,latency_ms,device,kernel_name,b,h\n"
                                           "relu,0.03,Tesla T4,r,3,40\n");
  std::string Out = Dir.file("out.csv");
  RunResult R =
      runPtxcast("dataset neusight --shape-columns --launch-columns " + Conv + " -o " + Out, Dir);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 1);
  CHECK(T.header.back() == "latency_ms");
  // b=2, input_channel=3, output_channel=4, kernel_size=3, input_size=8, stride=1, padding=0
  CHECK(T.at(0, "shape_conv_b") == "2");
  CHECK(T.at(0, "shape_conv_in") == "3");
  CHECK(T.at(0, "shape_conv_out") == "4");
  CHECK(T.at(0, "shape_conv_k") == "3");
  CHECK(T.at(0, "shape_conv_hw") == "8");
  CHECK(T.at(0, "shape_conv_s") == "1");
  CHECK(T.at(0, "shape_conv_p") == "0");
  CHECK(T.at(0, "launch_grid_z") == "36");
  CHECK(readText(Out).find("shape_relu") == std::string::npos); // only the ops present
  R = runPtxcast("dataset neusight --shape-columns " + Conv + " " + Relu + " -o " + Out, Dir);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  T = readCsv(Out);
  REQUIRE(T.rows.size() == 2);
  CHECK(T.at(0, "shape_relu_b") == "0");
  CHECK(T.at(1, "shape_conv_in") == "0");
  CHECK(T.at(1, "shape_relu_b") == "3");
  CHECK(T.at(1, "shape_relu_h") == "40");
}

TEST_CASE("dataset neusight: malformed input is a file:line error") {
  ScratchDir Dir("bad");
  std::string Out = Dir.file("out.csv");
  std::string NoLatency =
      Dir.write("nolat.csv", "op,device,kernel_name,b,h\nrelu,Tesla T4,r,1,2\n");
  RunResult R = runPtxcast("dataset neusight " + NoLatency + " -o " + Out, Dir);
  CHECK(R.status == 1);
  CHECK(R.err.find(NoLatency + ":1: error: missing column 'latency_ms'") != std::string::npos);

  std::string Unknown =
      Dir.write("unknown.csv", NeusightBhHeader + "relu,0.03,Tesla T4,r,1,1,1,1,1,1,1,1,3,40\n"
                                                  "relu,0.03,Tesla Q9,r,1,1,1,1,1,1,1,1,3,40\n");
  R = runPtxcast("dataset neusight " + Unknown + " -o " + Out, Dir);
  CHECK(R.status == 1);
  CHECK(R.err.find(Unknown + ":3: error: column 'device': unknown gpu 'Tesla Q9'") !=
        std::string::npos);

  std::string BadNumber =
      Dir.write("badnum.csv", NeusightBhHeader + "relu,0.03,Tesla T4,r,1,1,1,1,1,1,1,1,3,4x0\n");
  R = runPtxcast("dataset neusight " + BadNumber + " -o " + Out, Dir);
  CHECK(R.status == 1);
  CHECK(R.err.find(BadNumber + ":2: error: column 'h': expected an integer, got '4x0'") !=
        std::string::npos);
  CHECK(!fs::exists(Out)); // nothing written on error
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
  RunResult R = runPtxcast("dataset timm " + R3090 + " " + R4090 + " -o " + Out, Dir);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("4 rows read, 2 rows written, 2 rows skipped, 1 distinct analyses") !=
        std::string::npos);
  CHECK(R.err.find("2 model not in zoo") != std::string::npos);
  Table T = readCsv(Out);
  const std::vector<std::string> Ids = {"source", "model", "zoo_model", "gpu", "file", "layout"};
  for (size_t I = 0; I < Ids.size(); ++I)
    CHECK(T.header[I] == Ids[I]);
  CHECK(T.header.back() == "infer_step_time_ms");
  REQUIRE(T.rows.size() == 2);
  CHECK(T.at(0, "zoo_model") == "mobilenetv2-0.35");
  CHECK(T.at(0, "gpu") == "rtx-3090");
  CHECK(T.at(0, "layout") == "nchw");
  CHECK(T.at(0, "file") == "benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv");
  CHECK(T.at(1, "gpu") == "rtx-4090");
  CHECK(T.at(1, "layout") == "nhwc");
  CHECK(T.num(1, "infer_step_time_ms") == doctest::Approx(1.25));
  CHECK(T.at(0, "thr_total") == T.at(1, "thr_total"));

  // The same network through `ptxcast analyze` (f16, batch 2, 32x32): the same totals.
  RunResult A = runPtxcast(
      "analyze mobilenetv2-0.35 --batch 2 --image-size 32 --dtype f16 --format json", Dir);
  REQUIRE_MESSAGE(A.status == 0, A.err);
  nlohmann::json J = nlohmann::json::parse(A.out);
  const nlohmann::json &Total = J["total"];
  CHECK(T.num(0, "launches") == Total["launches"].get<double>());
  CHECK(T.num(0, "thr_total") == Total["thread_instructions"]["total"].get<double>());
  CHECK(T.num(0, "thr_fp16") == Total["thread_instructions"]["fp16"].get<double>());
  CHECK(T.num(0, "warp_total") == Total["warp_instructions"]["total"].get<double>());
  CHECK(T.num(0, "global_load_sectors") == Total["global"]["load_sectors"].get<double>());
  CHECK(T.num(0, "thr_convert") > 0); // AMP: f16 tensors, converted to f32 to accumulate
}

TEST_CASE("dataset timm: --limit, --gpu and bad files") {
  ScratchDir Dir("timmbad");
  std::string Out = Dir.file("timm.csv");
  std::string Infer = Dir.write("benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv",
                                TimmHeader + "mobilenetv2_035,32,100.0,1.5,1,1.68,0.07,2.86\n"
                                             "mobilenetv2_050,32,100.0,1.5,1,1.97,0.1,3.64\n");
  // --limit counts per file: the first zoo row of each of the two files, one analysis.
  RunResult R =
      runPtxcast("dataset timm " + Infer + " " + Infer + " --limit 1 --gpu a100 -o " + Out, Dir);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("2 rows read, 2 rows written, 0 rows skipped, 1 distinct analyses") !=
        std::string::npos);
  Table T = readCsv(Out);
  REQUIRE(T.rows.size() == 2);
  CHECK(T.at(0, "gpu") == "a100-40gb-sxm");
  CHECK(T.at(1, "model") == "mobilenetv2_035");

  std::string Train = Dir.write("benchmark-train-amp-nchw-pt112-cu113-rtx3090.csv",
                                "model,train_samples_per_sec,train_step_time,train_batch_size,"
                                "train_img_size,param_count\nresnet50,1.0,2.0,32,224,25.56\n");
  R = runPtxcast("dataset timm " + Train + " -o " + Out, Dir);
  CHECK(R.status == 1);
  CHECK(R.err.find(Train + ": error: a training benchmark") != std::string::npos);

  std::string Missing = Dir.write("benchmark-infer-amp-nchw-x-rtx3090.csv",
                                  "model,infer_img_size,infer_batch_size\nresnet50,224,1\n");
  R = runPtxcast("dataset timm " + Missing + " -o " + Out, Dir);
  CHECK(R.status == 1);
  CHECK(R.err.find(Missing + ":1: error: missing column 'infer_step_time'") != std::string::npos);

  std::string NoGpu = Dir.write("benchmark-infer-amp-nchw-x-y.csv", TimmHeader);
  R = runPtxcast("dataset timm " + NoGpu + " -o " + Out, Dir);
  CHECK(R.status == 1);
  CHECK(R.err.find("no GPU of the catalog in the file name") != std::string::npos);
}
