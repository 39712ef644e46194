// An engine's precision through pipeline::predictNetwork (`predict --runtime tensorrt --dtype
// int8|f16`): an int8 engine is bound at the GPU's int8 tensor peak (dp4a without int8 tensor
// cores), says it is unmeasured, and is refused where it cannot run (under PyTorch's runtimes,
// on GPUs without fast int8); an int8 or fp16 engine keeps the wider precision's tactics where
// they are faster, and an fp16 engine is its fp32 engine on a GPU without fast FP16.
#include "pipeline/Documents.h"

#include "hardware/Skeleton.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>

namespace {

pipeline::PredictRequest request(const std::string &Gpu, const std::string &Dtype,
                                 const std::string &Runtime) {
  pipeline::PredictRequest R;
  R.network.input = "resnet50";
  R.network.batch = 8;
  R.network.dtype = Dtype;
  R.network.progress = [](size_t, size_t) {};
  R.gpu = Gpu;
  R.runtime = Runtime;
  return R;
}

/// ResNet-50 at batch 8 as an inference engine of Dtype on Gpu; the prediction must succeed.
pipeline::PredictOutcome engine(const std::string &Gpu, const std::string &Dtype) {
  auto R = pipeline::predictNetwork(request(Gpu, Dtype, "tensorrt"));
  REQUIRE_MESSAGE(R, support::errorText(R));
  return std::move(*R);
}

bool warns(const pipeline::GpuPrediction &G, const std::string &Text) {
  for (const std::string &W : G.warnings)
    if (W.find(Text) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST_CASE("int8 engine: faster than the fp16 engine where int8 tensor cores are twice as fast") {
  // The B200's int8 peak is twice its fp16 peak. ptxcast's int8 convolutions are its tensor-core
  // GEMM kernels: bound by their counted instructions, or featured as ptxcast's own kernels
  // (`other`), the int8 engine was 1.26x slower than the fp16 one; bound and featured as the
  // library GEMMs an engine runs, faster.
  const auto Int8 = engine("b200", "int8");
  const auto F16 = engine("b200", "f16");
  CHECK(Int8.prediction.boundMs < F16.prediction.boundMs);
  CHECK(Int8.prediction.timeMs < F16.prediction.timeMs);
}

TEST_CASE("int8 engine: never slower than the fp16 engine, whose tactics TensorRT keeps there") {
  // The V100 has fp16 tensor cores but runs int8 on the CUDA cores' dp4a: the fp16 engine is
  // faster, and an int8 engine keeps its tactics.
  const auto Int8 = engine("v100-pcie-32gb", "int8");
  const auto F16 = engine("v100-pcie-32gb", "f16");
  const pipeline::GpuPrediction &I = Int8.prediction;
  CHECK(I.timeMs == F16.prediction.timeMs);
  CHECK(I.math == hardware::MathMode::F16);
  CHECK(I.launches == F16.prediction.launches);     // the fp16 engine's, as its breakdown is
  CHECK(I.launches < Int8.network.launches.size()); // the int8 reformats are gone
  CHECK(warns(I, "an int8 engine keeps fp16 tactics where they are faster"));
  CHECK(I.engineDtype == "f16");
  CHECK(warns(I, "dp4a on the CUDA cores"));
  // Where int8 tensor cores are faster, the int8 kernels' own time, and no such warning.
  const auto T4 = engine("t4", "int8");
  CHECK(T4.prediction.math == hardware::MathMode::Int8);
  CHECK_FALSE(warns(T4.prediction, "keeps fp16 tactics"));
  CHECK(T4.prediction.engineDtype == "int8");
}

TEST_CASE("int8 engine: Jetson Xavier's Volta has int8 tensor cores, the V100's has not") {
  // TensorRT's support matrix: INT8 tensor cores on compute capability 7.2, not on 7.0.
  const auto Xavier = engine("jetson-agx-xavier", "int8");
  CHECK(Xavier.prediction.math == hardware::MathMode::Int8);
  CHECK(Xavier.prediction.engineDtype == "int8");
  CHECK(Xavier.prediction.timeMs < engine("jetson-agx-xavier", "f16").prediction.timeMs);
  CHECK(engine("v100-sxm2", "int8").prediction.math != hardware::MathMode::Int8);
}

TEST_CASE("int8 engine: the int8 tensor peak where the GPU has it, dp4a where it does not") {
  const auto Int8 = engine("t4", "int8");
  const auto F16 = engine("t4", "f16");
  const pipeline::GpuPrediction &I = Int8.prediction;
  CHECK(I.math == hardware::MathMode::Int8);
  CHECK(warns(I, "int8 is unmeasured"));
  CHECK(warns(I, "int8 tensor peak (130 TOPS)"));
  // Twice the tensor rate and a quarter of fp32's bytes: the bound is below the fp16 engine's.
  CHECK(I.boundMs < F16.prediction.boundMs);
  CHECK(I.timeMs > 0);
  CHECK(pipeline::predictionJson(Int8.network, Int8.predictor, I)["dtype"] == "int8");
  // The engine's memory: ResNet-50's 25.6 M weights once, in the engine's types (int8 filters,
  // fp16 folded batch norms and biases), not PyTorch's fp32 modules and fp16 copies.
  const pipeline::DeviceMemory &MI = I.memory, &MF = F16.prediction.memory;
  CHECK(MF.weightBytes > 50'000'000);
  CHECK(MF.weightBytes < 52'000'000);
  CHECK(MI.weightBytes < MF.weightBytes * 52 / 100); // + per-channel scales and biases
  CHECK(MI.peak.castBytes == 0);
  CHECK(MI.peak.workspaceBytes == 0);
  CHECK(MI.peak.activationBytes < MF.peak.activationBytes);

  const auto P4 = engine("p4", "int8"); // 6.1: dp4a
  CHECK(P4.prediction.math == hardware::MathMode::Simt);
  CHECK(warns(P4.prediction, "dp4a"));
  const auto P4F32 = engine("p4", "f32");
  CHECK(P4.prediction.boundMs < P4F32.prediction.boundMs);
}

TEST_CASE("int8: refused under PyTorch's runtimes and on GPUs without dp4a") {
  for (const char *Runtime : {"graph", "eager"}) {
    auto R = pipeline::predictNetwork(request("t4", "int8", Runtime));
    REQUIRE(!R);
    CHECK(support::errorText(R).find("use --runtime tensorrt") != std::string::npos);
  }
  auto P100 = pipeline::predictNetwork(request("p100", "int8", "tensorrt"));
  REQUIRE(!P100);
  CHECK(support::errorText(P100).find("the p100-pcie-16gb is 6.0") != std::string::npos);
  auto Tx2 = pipeline::predictNetwork(request("jetson-tx2", "int8", "tensorrt")); // 6.2: no dp4a
  REQUIRE(!Tx2);
  CHECK(support::errorText(Tx2).find("the jetson-tx2 is 6.2") != std::string::npos);
  CHECK(!pipeline::checkDtype("f16", pipeline::Runtime::Eager));
}

TEST_CASE("int8: compare --gpus all leaves out the GPUs that cannot run it, and says which") {
  pipeline::CompareRequest R;
  R.models = {"lenet5"};
  R.gpus = {"all"};
  R.dtype = "int8";
  R.runtime = "tensorrt";
  auto C = pipeline::compareNetworks(R);
  REQUIRE_MESSAGE(C, support::errorText(C));
  CHECK(std::find(C->leftOut.begin(), C->leftOut.end(), "p100-pcie-16gb") != C->leftOut.end());
  CHECK(std::find(C->leftOut.begin(), C->leftOut.end(), "jetson-tx2") != C->leftOut.end());
  for (const pipeline::CompareCell &Cell : C->cells) {
    CHECK(hardware::fastInt8(Cell.prediction.gpu));
    CHECK(std::find(C->leftOut.begin(), C->leftOut.end(), Cell.prediction.gpu.name) ==
          C->leftOut.end());
  }
  // Every int8 cell says whose engine's time it is; the Voltas' is a wider one (dp4a only).
  const nlohmann::ordered_json J = pipeline::compareJson(*C);
  for (const auto &Row : J["results"]) {
    REQUIRE(Row["engine_dtype"].is_string());
    if (Row["gpu"] == "v100-sxm2")
      CHECK(Row["engine_dtype"] != "int8");
  }
  R.gpus = {"p100"}; // named: an error, not a silent omission
  CHECK(!pipeline::compareNetworks(R));
  R.gpus = {"all"};
  R.dtype = "f32"; // every GPU runs f32
  auto F = pipeline::compareNetworks(R);
  REQUIRE(F);
  CHECK(F->leftOut.empty());
}

TEST_CASE("fp16 engine: its fp32 engine on a GPU without fast FP16, its own elsewhere") {
  // The P4 (compute capability 6.1) runs FP16 at 1/64 of FP32 and has no tensor cores: TensorRT
  // builds no fp16 there. ptxcast's fp16 lowering (fp16 data, FP32 math) would be predicted
  // faster than fp32, an engine that does not exist.
  const auto P4 = engine("p4", "f16");
  const auto P4F32 = engine("p4", "f32");
  const pipeline::GpuPrediction &H = P4.prediction;
  CHECK(H.engineDtype == "f32");
  CHECK(H.timeMs == P4F32.prediction.timeMs);
  CHECK(H.memory.weightBytes == P4F32.prediction.memory.weightBytes);
  CHECK(warns(H, "TensorRT builds no fp16 engine for the p4"));
  CHECK(pipeline::predictionJson(P4.network, P4.predictor, H)["engine_dtype"] == "f32");
  // The P100 runs FP16 at twice its FP32 rate, the T4 on tensor cores: their own fp16 engines.
  for (const char *Gpu : {"p100", "t4"}) {
    const auto F16 = engine(Gpu, "f16");
    CAPTURE(Gpu);
    CHECK(F16.prediction.engineDtype == "f16");
    CHECK(F16.prediction.timeMs < engine(Gpu, "f32").prediction.timeMs);
    CHECK_FALSE(warns(F16.prediction, "TensorRT builds no fp16"));
  }
  // An int8 engine on the P4 weighs its dp4a kernels against the fp32 engine, never an fp16 one.
  const auto Int8 = engine("p4", "int8");
  CHECK(Int8.prediction.engineDtype != "f16");
  CHECK(Int8.prediction.timeMs <= H.timeMs);
  // Outside an engine a dtype has no engine precision.
  auto Graph = pipeline::predictNetwork(request("p4", "f16", "graph"));
  REQUIRE(Graph);
  CHECK(Graph->prediction.engineDtype.empty());
  CHECK(
      pipeline::predictionJson(Graph->network, Graph->predictor, Graph->prediction)["engine_dtype"]
          .is_null());
}
