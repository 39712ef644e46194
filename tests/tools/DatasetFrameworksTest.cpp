// `ptxcast dataset frameworks` and `ptxcast evaluate --model BUNDLE`: a tiny frameworks CSV in
// time_frameworks.py's layout (SYNTHETIC times, for mechanics) against the real ONNX graph of
// MobileNetV2 in corpus/data/measured/h100/onnx; rows, ids, skips, the ONNX analysis and errors.
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace {

using clitest::readAll;
using clitest::runPtxcast;
using clitest::RunResult;
using clitest::TempDir;
using clitest::writeFile;

const std::string OnnxDir = std::string(PTXCAST_SOURCE_DIR) + "/corpus/data/measured/h100/onnx";

const char *Header = "model,batch,dtype,image_size,mode,median_ms,p10_ms,p90_ms,mean_ms,repeats,"
                     "status,device,torch_version,cuda_version,cudnn_version,library,"
                     "library_version,cudnn_benchmark,date_utc\n";

std::string row(const std::string &Model, int Batch, const std::string &Dtype,
                const std::string &Mode, const std::string &Ms, const std::string &Status) {
  return Model + "," + std::to_string(Batch) + "," + Dtype + ",224," + Mode + "," + Ms +
         ",0,0,0,20," + Status + ",NVIDIA H100 80GB HBM3,2.11,13.0,91900,torchvision,0.26,0,x\n";
}

/// Column values of a CSV file (no quoted fields in these files), by header name.
std::vector<std::vector<std::string>> cells(const std::string &Text) {
  std::vector<std::vector<std::string>> Out;
  std::stringstream Lines(Text);
  for (std::string Line; std::getline(Lines, Line);) {
    Out.emplace_back();
    std::stringstream Fields(Line);
    for (std::string F; std::getline(Fields, F, ',');)
      Out.back().push_back(F);
  }
  return Out;
}

size_t column(const std::vector<std::string> &Header, const std::string &Name) {
  for (size_t I = 0; I < Header.size(); ++I)
    if (Header[I] == Name)
      return I;
  FAIL("no column " << Name);
  return 0;
}

} // namespace

TEST_CASE("dataset frameworks: graph rows joined with the timed ONNX graph's analysis") {
  TempDir Dir("dataset_frameworks");
  writeFile(Dir / "fw.csv", std::string(Header) +
                                row("mobilenet_v2", 1, "fp32", "graph", "0.5", "ok") +
                                row("mobilenet_v2", 1, "fp32", "eager", "3.0", "ok") +
                                row("mobilenet_v2", 2, "fp16", "graph", "0.7", "out_of_memory") +
                                row("no_such_net", 1, "fp32", "graph", "1.0", "ok"));
  std::string Args = "dataset frameworks " + (Dir / "fw.csv") + " --onnx-dir " + OnnxDir +
                     " --threads 2 -o " + (Dir / "out.csv");
  RunResult R = runPtxcast(Args);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("3 rows read, 1 rows written, 2 rows skipped") != std::string::npos);
  CHECK(R.err.find("1 no ONNX graph") != std::string::npos);
  CHECK(R.err.find("1 not timed (status out_of_memory)") != std::string::npos);
  auto T = cells(readAll(Dir / "out.csv"));
  REQUIRE(T.size() == 2);
  const auto &H = T[0], &V = T[1];
  CHECK(V[column(H, "source")] == "frameworks");
  CHECK(V[column(H, "model")] == "mobilenet_v2");
  CHECK(V[column(H, "dtype")] == "f32");
  CHECK(V[column(H, "mode")] == "graph");
  CHECK(V[column(H, "gpu")] == "h100-sxm"); // the catalog entry of the device's name
  CHECK(H.back() == "median_ms");
  CHECK(V.back() == "0.5");
  CHECK(std::stod(V[column(H, "gpu_sm_count")]) == 132);
  // The analysis is that of the ONNX graph at batch 1: as many launches as `ptxcast analyze`.
  RunResult A =
      runPtxcast("analyze " + OnnxDir + "/mobilenet_v2.onnx --batch 1 --format json --threads 2");
  REQUIRE_MESSAGE(A.status == 0, A.err);
  auto J = nlohmann::json::parse(A.out);
  CHECK(std::stod(V[column(H, "launches")]) == J["launches"].size());
  CHECK(std::stod(V[column(H, "thr_total")]) > 0);

  RunResult Again = runPtxcast(Args + "2");
  REQUIRE_MESSAGE(Again.status == 0, Again.err);
  CHECK(readAll(Dir / "out.csv") == readAll(Dir / "out.csv2"));
}

TEST_CASE("dataset frameworks: bad rows are file:line errors") {
  TempDir Dir("dataset_frameworks_bad");
  writeFile(Dir / "fw.csv",
            std::string(Header) + row("mobilenet_v2", 1, "int8", "graph", "0.5", "ok"));
  RunResult R = runPtxcast("dataset frameworks " + (Dir / "fw.csv") + " -o " + (Dir / "o.csv"));
  CHECK(R.status == 1);
  CHECK(R.err.find("fw.csv:2:") != std::string::npos);
  CHECK(R.err.find("dtype 'int8': expected fp32 or fp16") != std::string::npos);
  writeFile(Dir / "gpu.csv",
            std::string(Header) + row("mobilenet_v2", 1, "fp32", "graph", "0.5", "ok"));
  RunResult G =
      runPtxcast("dataset frameworks " + (Dir / "gpu.csv") + " --gpu nosuch -o " + (Dir / "o.csv"));
  CHECK(G.status == 1);
  CHECK(G.err.find("device 'nosuch' is not in the GPU catalog") != std::string::npos);
  writeFile(Dir / "cols.csv", "model,batch\nx,1\n");
  RunResult C = runPtxcast("dataset frameworks " + (Dir / "cols.csv") + " -o " + (Dir / "o.csv"));
  CHECK(C.status == 1);
  CHECK(C.err.find("missing column 'dtype'") != std::string::npos);
}

TEST_CASE("evaluate --model: network bundles score network rows; operator bundles refuse") {
  TempDir Dir("evaluate_bundle");
  std::string Data = std::string(PTXCAST_SOURCE_DIR) + "/models/";
  // Synthetic rows, exactly linear: median_ms = 0.5 + 0.25 launches.
  writeFile(Dir / "d.csv", "gpu,launches,median_ms\nh100,2,1.0\nh100,6,2.0\nh100,10,3.0\n"
                           "t4,14,4.0\nt4,18,5.0\nt4,22,6.0\n");
  RunResult Train = runPtxcast("train --data " + (Dir / "d.csv") +
                               " --learner linear --param lambda=0 --level network --dtype f32 "
                               "--name synthetic-net -o " +
                               (Dir / "b.json"));
  REQUIRE_MESSAGE(Train.status == 0, Train.err);
  RunResult Score = runPtxcast("evaluate --model " + (Dir / "b.json") + " --data " +
                               (Dir / "d.csv") + " --format json");
  REQUIRE_MESSAGE(Score.status == 0, Score.err);
  auto J = nlohmann::json::parse(Score.out);
  CHECK(J["learners"][0]["name"] == "linear");
  CHECK(J["learners"][0]["mape"].get<double>() < 1e-6);
  // An operator-level bundle predicts per launch and sums: rows of a dataset cannot say that.
  RunResult Op = runPtxcast("evaluate --model " + Data + "neusight-operator-f32.json --data " +
                            (Dir / "d.csv"));
  CHECK(Op.status == 1);
  CHECK(Op.err.find("an operator-level predictor bundle predicts each launch") !=
        std::string::npos);
}
