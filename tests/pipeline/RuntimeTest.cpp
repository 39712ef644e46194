// The runtimes of pipeline/Prediction.h: their names, and what torch.compile's pass structure
// (Runtime::Compile, hardware::PassStructure::Inductor) charges on a real network against eager
// PyTorch's: fewer kernels, nothing at memory latency, less host time.
#include "pipeline/Documents.h"
#include "pipeline/NetworkAnalysis.h"
#include "pipeline/Prediction.h"

#include "hardware/GpuCatalog.h"
#include "hardware/Skeleton.h"

#include <doctest/doctest.h>

#include <algorithm>

using namespace pipeline;

TEST_CASE("runtimes: every runtime's name parses back, and an unknown one lists them all") {
  for (Runtime R : {Runtime::Graph, Runtime::Eager, Runtime::Engine, Runtime::Compile}) {
    auto Parsed = parseRuntime(runtimeName(R));
    REQUIRE(Parsed);
    CHECK(*Parsed == R);
  }
  CHECK(runtimeName(Runtime::Compile) == "compile");
  auto Bad = parseRuntime("inductor");
  REQUIRE(!Bad);
  CHECK(Bad.error().message ==
        "unknown runtime 'inductor' (valid: graph, eager, tensorrt, compile)");
}

namespace {

/// MobileNetV2-0.35 at batch 8 in f16 (conv + batch norm + ReLU6 blocks, residual adds): the
/// analysis and the shipped model on the RTX 4090.
struct Fixture {
  NetworkAnalysis net;
  hardware::GpuSpec gpu;
  hardware::GpuCatalog catalog;
  learners::Predictor model;
};

Fixture fixture() {
  NetworkRequest R;
  R.input = "mobilenetv2-0.35";
  R.batch = 8;
  R.dtype = "f16";
  auto N = analyseNetwork(R);
  REQUIRE_MESSAGE(N, N.error().str());
  auto C = hardware::GpuCatalog::builtin();
  REQUIRE(C);
  auto G = C->lookup("rtx4090");
  REQUIRE(G);
  auto P = choosePredictor("");
  REQUIRE(P);
  return {std::move(*N), *G, std::move(*C), std::move(*P)};
}

GpuPrediction predictAs(const Fixture &F, Runtime R) {
  PredictSettings S;
  S.runtime = R;
  auto G = predictOnGpus(F.net, F.model, {F.gpu}, S, F.catalog);
  REQUIRE_MESSAGE(G, G.error().str());
  return G->front();
}

} // namespace

TEST_CASE("runtimes: compile fuses each convolution's tail into one kernel, nothing at latency") {
  const Fixture F = fixture();
  const GpuPrediction Eager = predictAs(F, Runtime::Eager);
  const GpuPrediction Graph = predictAs(F, Runtime::Graph);
  const GpuPrediction Compiled = predictAs(F, Runtime::Compile);
  CHECK(Compiled.runtime == Runtime::Compile);
  CHECK(Compiled.launches == Eager.launches); // the same lowering and analysis
  // Eager: every fused layer, bias add, cast and transpose is a kernel; compile: at most the
  // library kernel, one pointwise kernel and the weight casts per launch (206 against 161: the
  // 52 weight casts stay).
  CHECK(Compiled.kernels < 0.85 * Eager.kernels);
  CHECK(Compiled.boundMs < Graph.boundMs);
  CHECK(Compiled.hostMs > 0);
  CHECK(Compiled.hostMs < Eager.hostMs / 4);
  CHECK(Compiled.timeMs == doctest::Approx(std::max(Compiled.gpuMs, Compiled.hostMs)));
  // Per launch: eager charges MobileNet's batch norms at memory latency, so some separate passes
  // take longer than their bytes at the bandwidth; under compile every one streams.
  const hardware::Execution EagerE{Eager.math, hardware::Implementation::Framework, true};
  hardware::Execution CompiledE = EagerE;
  CompiledE.passes = hardware::PassStructure::Inductor;
  const double Bw = F.gpu.memoryBandwidthGBs * 1e9;
  size_t LatencyBound = 0;
  for (const hardware::LaunchWork &W : F.net.work()) {
    const hardware::LaunchBound E = hardware::bound(W, F.gpu, EagerE);
    const hardware::LaunchBound C = hardware::bound(W, F.gpu, CompiledE);
    LatencyBound += E.unfusedMs > 1.01 * E.unfusedBytes / Bw * 1e3;
    CHECK(C.unfusedMs == doctest::Approx(C.unfusedBytes / Bw * 1e3));
    CHECK(C.kernels <= E.kernels);
  }
  CHECK(LatencyBound > 10);
}

TEST_CASE("runtimes: an engine's enqueue launches one kernel per launch from its host") {
  auto C = hardware::GpuCatalog::builtin();
  REQUIRE(C);
  auto P = choosePredictor("");
  REQUIRE(P);
  NetworkRequest R;
  R.input = "lenet5";
  R.progress = [](size_t, size_t) {};
  auto N = analyseFor(R, Runtime::Engine, {});
  REQUIRE_MESSAGE(N, N.error().str());
  auto B200 = C->lookup("b200");
  REQUIRE(B200);
  PredictSettings S;
  S.runtime = Runtime::Engine;
  auto G = predictOnGpus(*N, *P, {*B200}, S, *C);
  REQUIRE_MESSAGE(G, G.error().str());
  const GpuPrediction &Fast = G->front();
  // One kernel per launch (the engine's bound charges fused layers a pass, not a launch), each
  // costing the x86 server's launch time.
  CHECK(Fast.kernels == double(N->launches.size()));
  CHECK(Fast.hostMs ==
        doctest::Approx(Fast.kernels * hardware::EngineHostMsPerKernel / Fast.host.relativeSpeed));
  // LeNet-5's seven tiny kernels at batch 1 on a B200 are shorter than their launches.
  REQUIRE(Fast.hostMs > Fast.gpuMs);
  CHECK(Fast.timeMs == doctest::Approx(Fast.hostMs));
  REQUIRE(Fast.intervalMs);
  CHECK(Fast.intervalMs->second >= hardware::HostTimeBand.high * Fast.hostMs);
  auto Says = [](const GpuPrediction &X, const std::string &Text) {
    return std::any_of(X.warnings.begin(), X.warnings.end(),
                       [&](const std::string &W) { return W.find(Text) != std::string::npos; });
  };
  CHECK(Says(Fast, "the engine's enqueue is host-bound here"));
  CHECK(Says(Fast, "trtexec --useCudaGraph"));
  // A Jetson module's own Arm cores launch more slowly.
  auto Nano = C->host("jetson-orin-nano");
  REQUIRE(Nano);
  S.host = *Nano;
  auto Slow = predictOnGpus(*N, *P, {*B200}, S, *C);
  REQUIRE_MESSAGE(Slow, Slow.error().str());
  CHECK(Slow->front().hostMs == doctest::Approx(Fast.hostMs / S.host->relativeSpeed));
  // ResNet-50 at batch 32 keeps a T4 busy far longer than its host takes to launch it.
  R.input = "resnet50";
  R.batch = 32;
  R.imageSize = 64;
  auto Big = analyseFor(R, Runtime::Engine, {});
  REQUIRE_MESSAGE(Big, Big.error().str());
  auto T4 = C->lookup("t4");
  REQUIRE(T4);
  S.host.reset();
  auto Busy = predictOnGpus(*Big, *P, {*T4}, S, *C);
  REQUIRE_MESSAGE(Busy, Busy.error().str());
  CHECK(Busy->front().hostMs > 0);
  CHECK(Busy->front().timeMs == doctest::Approx(Busy->front().gpuMs));
  CHECK_FALSE(Says(Busy->front(), "host-bound"));
  // A concatenation written in place is not launched: ShuffleNetV2's enqueue launches its
  // other launches.
  R.input = "shufflenetv2-0.5";
  R.batch = 1;
  auto Shuffle = analyseFor(R, Runtime::Engine, {});
  REQUIRE_MESSAGE(Shuffle, Shuffle.error().str());
  size_t Removed = 0;
  for (const LaunchRecord &L : Shuffle->launches)
    Removed += L.inPlaceShare == 1;
  CHECK(Removed == 16);
  auto Sh = predictOnGpus(*Shuffle, *P, {*T4}, S, *C);
  REQUIRE_MESSAGE(Sh, Sh.error().str());
  CHECK(Sh->front().kernels == double(Shuffle->launches.size() - Removed));
}

TEST_CASE("runtimes: a host-bound engine raised to batch 1's GPU time keeps batch 1's band") {
  auto C = hardware::GpuCatalog::builtin();
  REQUIRE(C);
  auto P = choosePredictor("");
  REQUIRE(P);
  auto Gh200 = C->lookup("gh200");
  REQUIRE(Gh200);
  PredictSettings S;
  S.runtime = Runtime::Engine;
  NetworkRequest R;
  R.input = "lenet5";
  R.dtype = "f16";
  R.progress = [](size_t, size_t) {};
  auto Predict = [&](int64_t Batch) {
    R.batch = Batch;
    auto N = analyseFor(R, Runtime::Engine, {*Gh200});
    REQUIRE_MESSAGE(N, N.error().str());
    auto G = predictOnGpus(*N, *P, {*Gh200}, S, *C);
    REQUIRE_MESSAGE(G, G.error().str());
    return G->front();
  };
  const GpuPrediction One = Predict(1), Sixteen = Predict(16);
  // LeNet-5's engine on a Grace host: the host sets the time at both batches, and batch 16's
  // GPU time, learned under batch 1's, is raised to it.
  REQUIRE(One.hostMs > One.gpuMs);
  REQUIRE(Sixteen.gpuMs == doctest::Approx(One.gpuMs));
  CHECK(Sixteen.timeMs == doctest::Approx(One.timeMs));
  REQUIRE(One.intervalMs);
  REQUIRE(Sixteen.intervalMs);
  CHECK(Sixteen.intervalMs->first == doctest::Approx(One.intervalMs->first));
  CHECK(Sixteen.intervalMs->second == doctest::Approx(One.intervalMs->second));
  CHECK(Sixteen.intervalMs->first <= Sixteen.timeMs);
  // An engine's host time is a floor: its band starts there.
  CHECK(One.intervalMs->first == doctest::Approx(One.hostMs));
}

TEST_CASE("runtimes: every compile prediction says how far it was validated") {
  pipeline::PredictRequest R;
  R.network.input = "lenet5";
  R.network.progress = [](size_t, size_t) {};
  R.gpu = "rtx4090";
  R.runtime = "compile";
  auto O = pipeline::predictNetwork(R);
  REQUIRE_MESSAGE(O, support::errorText(O));
  bool Says = false;
  for (const std::string &W : O->prediction.warnings)
    Says |= W.find("the compile runtime is learnt from one GPU's torch.compile timings") !=
            std::string::npos;
  CHECK(Says);
}

TEST_CASE("runtimes: an engine's 3x3 stride-1 convolutions are Winograd-shaped, no others") {
  NetworkRequest R;
  R.input = "resnet50";
  R.imageSize = 32;
  R.progress = [](size_t, size_t) {};
  auto N = analyseFor(R, Runtime::Engine, {});
  REQUIRE_MESSAGE(N, N.error().str());
  // ResNet-50: 16 3x3 convolutions, one per bottleneck, of which the first of stages 2-4 has
  // stride 2; the 7x7 stem and the 1x1 convolutions are not Winograd-shaped either.
  size_t Winograd = 0;
  for (const LaunchRecord &L : N->launches)
    Winograd += L.winograd;
  CHECK(Winograd == 13);
  // On a T4 in fp32 (CUDA cores) the engine's bound multiplies less; PyTorch's does not.
  auto C = hardware::GpuCatalog::builtin();
  REQUIRE(C);
  auto T4 = C->lookup("t4");
  REQUIRE(T4);
  hardware::Execution E{hardware::MathMode::Simt, hardware::Implementation::Framework, false};
  double Direct = 0, Engine = 0;
  for (const hardware::LaunchWork &W : N->work()) {
    Direct += hardware::bound(W, *T4, E).ms[size_t(hardware::Resource::Fma)];
    hardware::Execution Tactics = E;
    Tactics.engine = true;
    Engine += hardware::bound(W, *T4, Tactics).ms[size_t(hardware::Resource::Fma)];
  }
  CHECK(Engine < 0.7 * Direct);
}

TEST_CASE("runtimes: an engine's band reaches to the engine timings' measured spread") {
  const Fixture F = fixture(); // f16: an fp16 engine
  const GpuPrediction Graph = predictAs(F, Runtime::Graph);
  const GpuPrediction Engine = predictAs(F, Runtime::Engine);
  REQUIRE(Graph.intervalMs);
  REQUIRE(Engine.intervalMs);
  // The model's band alone reaches 1.33x the time; the T4's fp16 engines ran up to 2.9x.
  CHECK(Graph.intervalMs->second < 1.5 * Graph.gpuMs);
  CHECK(Engine.intervalMs->second == doctest::Approx(Engine.gpuMs * EngineTimeBandF16.high));
  // Below, the model's band stays: the engines never ran faster than predicted by more.
  CHECK(Engine.intervalMs->first < Engine.gpuMs);
  CHECK(Engine.intervalMs->first > 0.8 * Engine.gpuMs);
  // An fp32 engine takes the fp32 spread, narrower than fp16's (on a network the GPU takes longer
  // to run than its host to launch: LeNet-5's band is its host time's).
  NetworkRequest R;
  R.input = "mobilenetv2-0.35";
  R.batch = 8;
  R.imageSize = 96;
  R.progress = [](size_t, size_t) {};
  auto N = analyseFor(R, Runtime::Engine, {F.gpu});
  REQUIRE_MESSAGE(N, N.error().str());
  PredictSettings S;
  S.runtime = Runtime::Engine;
  auto G = predictOnGpus(*N, F.model, {F.gpu}, S, F.catalog);
  REQUIRE_MESSAGE(G, G.error().str());
  const GpuPrediction &F32 = G->front();
  REQUIRE(F32.intervalMs);
  REQUIRE(F32.hostMs < F32.gpuMs);
  CHECK(F32.intervalMs->second == doctest::Approx(F32.gpuMs * EngineTimeBandF32.high));
  CHECK(EngineTimeBandF32.high < EngineTimeBandF16.high);
}

TEST_CASE("tensorrt: an fp16 engine analysed without its fp32 engine is refused on a GPU that "
          "runs the fp32 one") {
  // The fixture's fp16 network was analysed alone (analyseNetwork, as analyseFor does for GPUs
  // with fast FP16); the P4 has none, and its fp16 engine's time would be one TensorRT never
  // builds.
  const Fixture F = fixture();
  auto P4 = F.catalog.lookup("p4");
  REQUIRE(P4);
  PredictSettings S;
  S.runtime = Runtime::Engine;
  auto G = predictOnGpus(F.net, F.model, {*P4}, S, F.catalog);
  REQUIRE(!G);
  CHECK(G.error().message.find("without the fp32 engine the p4 runs instead") != std::string::npos);
  CHECK(predictOnGpus(F.net, F.model, {F.gpu}, S, F.catalog)); // the RTX 4090 has fast FP16
}

TEST_CASE("compile: refused on GPUs older than Triton's compute capability 7.0, left out of all") {
  auto C = hardware::GpuCatalog::builtin();
  REQUIRE(C);
  auto P4 = C->lookup("p4"), T4 = C->lookup("t4");
  REQUIRE(P4);
  REQUIRE(T4);
  auto E = checkDtype("f32", Runtime::Compile, &*P4);
  REQUIRE(E);
  CHECK(E->message.find("the p4 is 6.1") != std::string::npos);
  CHECK(!checkDtype("f16", Runtime::Compile, &*T4));
  CHECK(!checkDtype("f32", Runtime::Eager, &*P4)); // eager PyTorch runs there

  CompareRequest R;
  R.models = {"lenet5"};
  R.gpus = {"all"};
  R.runtime = "eager,compile";
  auto M = compareNetworks(R);
  REQUIRE_MESSAGE(M, support::errorText(M));
  CHECK(std::find(M->leftOut.begin(), M->leftOut.end(), "p4") != M->leftOut.end());
  CHECK(std::find(M->leftOut.begin(), M->leftOut.end(), "t4") == M->leftOut.end());
  CHECK(M->leftOutWhy.find("compile needs compute capability 7.0") != std::string::npos);
  for (const CompareCell &Cell : M->cells)
    CHECK(Cell.prediction.gpu.computeCapability >= 7.0);
  R.runtime = "eager"; // every GPU runs eager PyTorch
  auto Eager = compareNetworks(R);
  REQUIRE(Eager);
  CHECK(Eager->leftOut.empty());
  CHECK(Eager->leftOutWhy.empty());
}
