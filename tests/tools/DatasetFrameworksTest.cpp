// `ptxcast dataset frameworks`: a tiny frameworks CSV in time_frameworks.py's layout (SYNTHETIC
// times, for mechanics) against the real ONNX graph of MobileNetV2 in
// corpus/data/measured/h100/onnx; ids (PyTorch's default math per dtype and GPU), skips, the
// kernels of the ONNX analysis in the bound, --mode, --gpu, --cache and errors.
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
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

/// A row of a CSV file as (column, value) lookups.
struct Row {
  const std::vector<std::string> &header, &values;
  std::string at(const std::string &Name) const { return values.at(column(header, Name)); }
  double num(const std::string &Name) const { return std::stod(at(Name)); }
};

/// hardware::LaunchLatencyCycles (4950) at the H100's 1980 MHz: the bound's share for each
/// kernel launched.
constexpr double LaunchLatencyMs = 4950 / 1980e3;

} // namespace

TEST_CASE("dataset frameworks: graph rows joined with the timed ONNX graph's analysis") {
  TempDir Dir("dataset_frameworks");
  writeFile(Dir / "fw.csv", std::string(Header) +
                                row("mobilenet_v2", 1, "fp32", "graph", "0.5", "ok") +
                                row("mobilenet_v2", 1, "fp32", "eager", "3.0", "ok") +
                                row("mobilenet_v2", 1, "fp16", "graph", "0.4", "ok") +
                                row("mobilenet_v2", 2, "fp16", "graph", "0.7", "out_of_memory") +
                                row("no_such_net", 1, "fp32", "graph", "1.0", "ok"));
  const std::string Cache = " --cache " + (Dir / "cache");
  std::string Args = "dataset frameworks " + (Dir / "fw.csv") + " --onnx-dir " + OnnxDir +
                     " --threads 2" + Cache + " -o ";
  RunResult R = runPtxcast(Args + (Dir / "out.csv"));
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("4 rows read, 2 rows written, 2 rows skipped") != std::string::npos);
  CHECK(R.err.find("1 no ONNX graph") != std::string::npos);
  CHECK(R.err.find("1 not timed (status out_of_memory)") != std::string::npos);
  auto T = cells(readAll(Dir / "out.csv"));
  REQUIRE(T.size() == 3);
  const auto &H = T[0];
  CHECK(H.front() == "source");
  CHECK(H.back() == "measured_ms");
  Row F32{H, T[1]}, F16{H, T[2]};
  for (const Row &V : {F32, F16}) {
    CHECK(V.at("source") == "frameworks");
    CHECK(V.at("gpu") == "h100-sxm"); // the catalog entry of the device's name
    CHECK(V.at("sms") == "all");
    CHECK(V.at("runtime") == "graph");
    CHECK(V.at("workload") == "mobilenet_v2");
    CHECK(V.at("config") == "batch=1");
    CHECK(V.at("note") == "fw.csv");
    CHECK(V.num("framework") == 1);
    CHECK(V.num("overhead_ms") == 0); // CUDA-graph replay: GPU time only
    CHECK(V.num("tensor_cores") > 0); // the pointwise convolutions
    CHECK(V.num("tensor_cores") <= 1);
    CHECK(V.num("bound_ms") > 0);
  }
  // PyTorch's defaults on an sm_90 GPU: TF32 tensor cores for fp32 convolutions, f16 for fp16.
  CHECK(F32.at("math") == "tf32");
  CHECK(F32.at("dtype") == "f32");
  CHECK(F32.num("half") == 0);
  CHECK(F32.num("measured_ms") == 0.5);
  CHECK(F16.at("math") == "f16");
  CHECK(F16.at("dtype") == "f16");
  CHECK(F16.num("half") == 1);
  CHECK(F16.num("measured_ms") == 0.4);

  // The analysis is that of the ONNX graph at batch 1: the launch latencies in the bound count
  // the kernels PyTorch runs, at least as many as the launches of `ptxcast analyze`. fp16 runs
  // under autocast: 55 more, the casts of the 52 convolution weights, the classifier's weight
  // and bias, and the input.
  const double Kernels = F32.num("share_latency") * F32.num("bound_ms") / LaunchLatencyMs;
  CHECK(Kernels == doctest::Approx(std::round(Kernels)));
  CHECK(F16.num("share_latency") * F16.num("bound_ms") / LaunchLatencyMs ==
        doctest::Approx(Kernels + 55));
  RunResult A =
      runPtxcast("analyze " + OnnxDir + "/mobilenet_v2.onnx --batch 1 --format json --threads 2");
  REQUIRE_MESSAGE(A.status == 0, A.err);
  auto J = nlohmann::json::parse(A.out);
  CHECK(Kernels >= J["launches"].size());

  // A second run on the warm cache writes the same bytes.
  RunResult Again = runPtxcast(Args + (Dir / "again.csv"));
  REQUIRE_MESSAGE(Again.status == 0, Again.err);
  CHECK(readAll(Dir / "out.csv") == readAll(Dir / "again.csv"));

  // --mode eager takes the eager row; --gpu puts it on a V100 (sm_70): fp32 stays on the CUDA
  // cores there, and every peak of the V100 is below the H100's, so the bound is larger.
  R = runPtxcast("dataset frameworks " + (Dir / "fw.csv") + " --onnx-dir " + OnnxDir +
                 " --mode eager --gpu v100-pcie-32gb" + Cache + " -o " + (Dir / "v100.csv"));
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.err.find("1 rows read, 1 rows written, 0 rows skipped") != std::string::npos);
  auto V = cells(readAll(Dir / "v100.csv"));
  REQUIRE(V.size() == 2);
  Row Eager{V[0], V[1]};
  CHECK(Eager.at("gpu") == "v100-pcie-32gb");
  CHECK(Eager.at("runtime") == "eager");
  CHECK(Eager.at("math") == "simt");
  CHECK(Eager.num("tensor_cores") == 0);
  CHECK(Eager.num("measured_ms") == 3.0);
  CHECK(Eager.num("bound_ms") > F32.num("bound_ms"));
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
