// `ptxcast train --bundle` and `ptxcast predict` end to end with the synthetic bundle
// (SyntheticBundle.h: every prediction must be twice the network's bound on the GPU). Also
// runtimes, unknown names, bad ONNX files and out-of-range options; compare's matrix and plot
// files are CompareTest.cpp's.
#include "RunPtxcast.h"
#include "SyntheticBundle.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

using clitest::readAll;
using clitest::runPtxcast;
using clitest::RunResult;
using synthbundle::bundlePath;
using synthbundle::Factor;
using synthbundle::predictJson;
using synthbundle::scratch;
using synthbundle::syntheticCsv;
using synthbundle::warns;

/// FILE.onnx in the scratch directory, encoded by protoc from the text ModelProto `Text`; empty
/// where protoc or onnx.proto is missing (protobuf-compiler and libonnx-dev come with
/// scripts/setup.sh).
std::string encodeOnnx(const std::string &Name, const std::string &Text) {
  if (std::system("command -v protoc >/dev/null 2>&1") != 0 ||
      !fs::exists("/usr/include/onnx/onnx.proto"))
    return "";
  fs::path TextFile = scratch() / (Name + ".txt"), Onnx = scratch() / (Name + ".onnx");
  std::ofstream(TextFile) << Text;
  REQUIRE(std::system(("protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto < " +
                       TextFile.string() + " > " + Onnx.string())
                          .c_str()) == 0);
  return Onnx.string();
}

/// A text ModelProto (opset 13) whose graph `GraphName` has `Body`: nodes and value infos.
std::string onnxModel(const std::string &GraphName, const std::string &Body) {
  return "ir_version: 8\nopset_import { domain: \"\" version: 13 }\ngraph {\n  name: \"" +
         GraphName + "\"\n" + Body + "}\n";
}

/// A graph `input` or `output` of fp32 elements named Name with dimensions Dims; -1 is the
/// dynamic batch "N".
std::string valueInfo(const std::string &Role, const std::string &Name,
                      std::initializer_list<int64_t> Dims) {
  std::string Shape;
  for (int64_t D : Dims)
    Shape += D < 0 ? R"( dim { dim_param: "N" })" : " dim { dim_value: " + std::to_string(D) + " }";
  return "  " + Role + " { name: \"" + Name + "\" type { tensor_type { elem_type: 1 shape {" +
         Shape + " } } } }\n";
}

} // namespace

TEST_CASE("predict: the bundle's time is its learned factor times the physical bound") {
  Json J = predictJson("lenet5 --gpu t4");
  double T = J["time_ms"].get<double>(), Bound = J["bound_ms"].get<double>();
  CHECK(Bound > 0);
  CHECK(T == doctest::Approx(Factor * Bound).epsilon(1e-9));
  CHECK(J["gpu_ms"].get<double>() == doctest::Approx(T));
  CHECK(J["host_ms"] == 0);
  CHECK(J["runtime"] == "graph");
  CHECK(J["gpu"] == "t4");
  CHECK(J["math"] == "simt"); // a T4 (sm_75) has no TF32
  CHECK(J["batch"] == 1);
  CHECK(J["images_per_s"].get<double>() == doctest::Approx(1000 / T));
  CHECK(J["images_per_s_per_w"].get<double>() == doctest::Approx(1000 / T / 70)); // T4: 70 W
  // Exact synthetic law: every out-of-fold ratio is 1, so the band collapses onto the time.
  REQUIRE(J["interval_ms"].is_array());
  CHECK(J["interval_ms"][0].get<double>() == doctest::Approx(T).epsilon(1e-6));
  CHECK(J["interval_ms"][1].get<double>() == doctest::Approx(T).epsilon(1e-6));
  CHECK(J["model"]["name"] == "synthetic");
  CHECK(J["model"]["predicts"] == "synthetic: twice the bound");
  CHECK(J["model"]["training_gpus"] == Json::array({"t4", "v100-pcie-32gb"}));
  // Breakdown: every launch once, times summing to the total.
  double Sum = 0;
  size_t Launches = 0;
  for (const Json &K : J["breakdown"]) {
    Sum += K["time_ms"].get<double>();
    Launches += K["launches"].get<size_t>();
  }
  CHECK(Sum == doctest::Approx(T));
  CHECK(Launches == J["launches"].get<size_t>());
}

TEST_CASE("predict: eager PyTorch adds host time per kernel, the slower of host and GPU wins") {
  Json Graph = predictJson("lenet5 --gpu h100");
  Json Eager = predictJson("lenet5 --gpu h100 --runtime eager");
  CHECK(Eager["runtime"] == "eager");
  CHECK(Eager["host"] == "x86-server"); // gpus.json: a data-centre card's host
  // Host time per framework kernel on the measured x86 server (hardware/Host.h): 0.0192 ms.
  const double Kernels = Eager["kernels"].get<double>();
  CHECK(Kernels >= Eager["launches"].get<double>()); // bias adds and activations are kernels too
  const double Host = 0.0192 * Kernels;
  CHECK(Eager["host_ms"].get<double>() == doctest::Approx(Host));
  CHECK(Eager["gpu_ms"].get<double>() == doctest::Approx(Graph["time_ms"].get<double>()));
  CHECK(Eager["time_ms"].get<double>() ==
        doctest::Approx(std::max(Host, Graph["time_ms"].get<double>())));
  // lenet5 on an H100: a few microseconds of GPU work against 19 us of host time per kernel.
  CHECK(Eager["time_ms"].get<double>() == doctest::Approx(Host));
  CHECK(warns(Eager, "host-bound"));
  // Host-bound, the band is the host time's measured spread (hardware/Host.h: 0.818-1.693x).
  REQUIRE(Eager["interval_ms"].is_array());
  CHECK(Eager["interval_ms"][0].get<double>() == doctest::Approx(0.818 * Host));
  CHECK(Eager["interval_ms"][1].get<double>() == doctest::Approx(1.693 * Host));
  // The same launches from a slower host take longer: --host names one from `gpus --hosts`.
  Json Slow = predictJson("lenet5 --gpu h100 --runtime eager --host jetson-agx-orin");
  CHECK(Slow["host"] == "jetson-agx-orin");
  CHECK(Slow["host_ms"].get<double>() > 1.5 * Host);
  // Its speed is a CPU benchmark's estimate, not a PyTorch timing: the warning says so, and
  // the measured host's warning does not.
  CHECK(warns(Slow, "jetson-agx-orin host's speed (0.58x the x86 server's) is an estimate"));
  CHECK_FALSE(warns(Eager, "is an estimate"));
  // A graph replay has no host time: --host there changes nothing, and says so.
  Json Replay = predictJson("lenet5 --gpu h100 --host jetson-agx-orin");
  CHECK(Replay["host_ms"].get<double>() == 0);
  CHECK(warns(Replay, "--host jetson-agx-orin has no effect under the graph runtime"));
  CHECK_FALSE(warns(Slow, "has no effect"));
}

TEST_CASE("predict: --runtime tensorrt drops PyTorch's casts and passes, is pure fp16, and says "
          "it is experimental") {
  Json Engine = predictJson("alexnet --gpu h100 --dtype f16 --runtime tensorrt");
  Json Torch = predictJson("alexnet --gpu h100 --dtype f16");
  CHECK(Engine["runtime"] == "tensorrt");
  CHECK(Engine["math"] == "f16");
  // No bias adds, casts or layout transposes around the layers: fewer kernels than PyTorch's.
  CHECK(Engine["kernels"].get<double>() < Torch["kernels"].get<double>());
  // Its enqueue launches each kernel from the host, ahead of the GPU here.
  CHECK(Engine["host_ms"].get<double>() > 0);
  CHECK(Engine["host_ms"].get<double>() < Engine["gpu_ms"].get<double>());
  CHECK(Engine["time_ms"].get<double>() == doctest::Approx(Engine["gpu_ms"].get<double>()));
  // AlexNet's 61 M fp32 parameters cast to fp16 every pass dominate autocast's bound at batch 1
  // (the test below); an engine holds fp16 weights.
  CHECK(Engine["bound_ms"].get<double>() < 0.5 * Torch["bound_ms"].get<double>());
  CHECK(warns(Engine, "tensorrt runtime is experimental"));
  RunResult Table = runPtxcast("predict alexnet --gpu t4 --dtype f16 --runtime tensorrt");
  REQUIRE(Table.status == 0);
  CHECK(Table.out.find("host launch overhead") != std::string::npos); // the enqueue's
  CHECK(Table.out.find("f16 (engine: fp16 weights and tensors, no casts)") != std::string::npos);
  CHECK(Table.out.find("tensorrt runtime") != std::string::npos);
  // compare runs every GPU under the engine and names the runtime.
  RunResult C =
      runPtxcast("compare --models lenet5 --gpus t4,h100 --runtime tensorrt --format json");
  REQUIRE(C.status == 0);
  const Json Doc = Json::parse(C.out);
  CHECK(Doc["runtime"] == "tensorrt");
  CHECK(Doc["results"].size() == 2);
  // Each cell's time is the larger of the GPU's and the engine enqueue's host time.
  for (const Json &Cell : Doc["results"]) {
    CHECK(Cell["gpu_ms"].get<double>() > 0);
    CHECK(Cell["host_ms"].get<double>() > 0);
    CHECK(Cell["time_ms"].get<double>() ==
          doctest::Approx(std::max(Cell["gpu_ms"].get<double>(), Cell["host_ms"].get<double>())));
  }
  // An unknown runtime lists the valid ones.
  RunResult Bad = runPtxcast("predict lenet5 --gpu t4 --runtime onnxruntime");
  CHECK(Bad.status != 0);
  CHECK(Bad.err.find("tensorrt") != std::string::npos);
}

TEST_CASE("compare --runtime eager,graph,tensorrt: the runtimes side by side") {
  RunResult R = runPtxcast("compare --models alexnet --gpus t4,h100 --dtype f16 "
                           "--runtime eager,graph,tensorrt --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  const Json Doc = Json::parse(R.out);
  CHECK(Doc["runtime"] == "eager,graph,tensorrt");
  REQUIRE(Doc["results"].size() == 6);                     // runtime x GPU, in the order asked
  std::map<std::string, std::map<std::string, double>> Ms; // runtime -> gpu -> ms
  for (const Json &Row : Doc["results"])
    Ms[Row["runtime"]][Row["gpu"]] = Row["time_ms"].get<double>();
  CHECK(Doc["results"][0]["runtime"] == "eager");
  CHECK(Doc["results"][5]["runtime"] == "tensorrt");
  for (const std::string Gpu : {"t4", "h100-sxm"}) {
    CAPTURE(Gpu);
    CHECK(Ms["eager"][Gpu] >= Ms["graph"][Gpu]);   // host time only adds
    CHECK(Ms["tensorrt"][Gpu] < Ms["graph"][Gpu]); // no autocast casts of 61 M parameters
  }
  RunResult Csv =
      runPtxcast("compare --models lenet5 --gpus t4 --runtime graph,eager --format csv");
  REQUIRE(Csv.status == 0);
  CHECK(Csv.out.find(",max_batch,runtime,calibration,gpu_ms,host_ms\n") != std::string::npos);
  CHECK(Csv.out.find(",graph,,") != std::string::npos);
  // The last two columns: the GPU's time, and the host's (eager's, none in a graph replay).
  for (const std::string Runtime : {",graph,,", ",eager,,"}) {
    const size_t At = Csv.out.find(Runtime);
    REQUIRE(At != std::string::npos);
    const std::string Rest =
        Csv.out.substr(At + Runtime.size(), Csv.out.find('\n', At) - At - Runtime.size());
    const double Gpu = std::stod(Rest.substr(0, Rest.find(','))),
                 Host = std::stod(Rest.substr(Rest.find(',') + 1));
    CHECK(Gpu > 0);
    CHECK((Runtime == ",graph,," ? Host == 0 : Host > Gpu)); // LeNet-5 is host-bound eager
  }
  // predict takes one runtime; a plot draws one; --max-batch searches one.
  CHECK(runPtxcast("predict lenet5 --gpu t4 --runtime eager,graph").err.find("not a list") !=
        std::string::npos);
  CHECK(runPtxcast("compare --models lenet5 --gpus t4 --runtime eager,graph --plot x.svg")
            .err.find("--plot draws one runtime") != std::string::npos);
  CHECK(runPtxcast("compare --models lenet5 --gpus t4 --runtime eager,graph --max-batch")
            .err.find("one runtime at a time") != std::string::npos);
}

TEST_CASE("predict: under autocast (--dtype f16) the bound pays PyTorch's fp32->fp16 casts") {
  // AlexNet: 61,100,840 parameters in 5 convolutions and 3 dense layers, all with a bias. Each
  // forward pass casts them (and the input) to fp16, a kernel per tensor reading 4 and writing 2
  // bytes per element: at the H100's 3,350 GB/s and 2.5 us per launch (4,950 cycles at 1,980
  // MHz) that alone is 0.109 ms + 17 x 2.5 us, more than the rest of AlexNet's bound at batch 1.
  const double Casts = (61100840.0 + 3 * 224 * 224) * 6 / 3350e9 * 1e3 + 17 * 4950 / 1980e3;
  const double F16 = predictJson("alexnet --gpu h100 --dtype f16")["bound_ms"].get<double>();
  const double F32 = predictJson("alexnet --gpu h100")["bound_ms"].get<double>();
  CHECK(F16 > Casts);
  CHECK(F16 - Casts < F32); // what is left: fp16 layers, faster than the fp32 ones
}

TEST_CASE("predict: math modes follow PyTorch's defaults unless --math says otherwise") {
  CHECK(predictJson("lenet5 --gpu a100")["math"] == "tf32");
  CHECK(predictJson("lenet5 --gpu a100 --dtype f16")["math"] == "f16");
  CHECK(predictJson("lenet5 --gpu v100 --dtype f16")["math"] == "f16");
  CHECK(predictJson("lenet5 --gpu a100 --math simt")["math"] == "simt");
  Json NoTf32 = predictJson("lenet5 --gpu v100 --math tf32");
  CHECK(NoTf32["math"] == "simt");
  CHECK(warns(NoTf32, "has no tf32 tensor cores"));
  // A math mode the data cannot take is refused, as `lower` refuses it, by predict and compare.
  for (const char *Args : {"predict lenet5 --gpu a100 --dtype f16 --math tf32",
                           "compare --models lenet5 --gpus a100 --dtype f16 --math bf16"}) {
    RunResult R = runPtxcast(Args);
    CHECK(R.status != 0);
    CHECK(R.err.find("needs f32 data (f16 data would be rounded twice)") != std::string::npos);
  }
  RunResult Int8 = runPtxcast("predict lenet5 --gpu t4 --dtype int8 --runtime tensorrt --math f16");
  CHECK(Int8.status != 0);
  CHECK(Int8.err.find("--math f16 does not take int8 data") != std::string::npos);
  CHECK(predictJson("lenet5 --gpu t4 --dtype int8 --runtime tensorrt --math simt")["math"] ==
        "simt");
}

TEST_CASE("predict: an ONNX file (encoded by protoc from a text ModelProto) with a dynamic batch") {
  const std::string Onnx =
      encodeOnnx("tiny", onnxModel("tinyconv", R"(
  node { input: "x" input: "w" output: "y" name: "conv1" op_type: "Conv"
         attribute { name: "kernel_shape" ints: 3 ints: 3 type: INTS }
         attribute { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 type: INTS } }
  node { input: "y" output: "z" name: "relu1" op_type: "Relu" }
)" + valueInfo("input", "x", {-1, 3, 64, 64}) + valueInfo("input", "w", {16, 3, 3, 3}) +
                                                   valueInfo("output", "z", {-1, 16, 64, 64})));
  if (Onnx.empty())
    return;
  Json J = predictJson(Onnx + " --gpu t4 --batch 4");
  CHECK(J["network"] == "tiny"); // named after the file, not the graph
  CHECK(J["batch"] == 4);
  CHECK(J["image_size"] == 64);
  CHECK(J["launches"] == 1); // conv with relu fused
  CHECK(J["time_ms"].get<double>() == doctest::Approx(Factor * J["bound_ms"].get<double>()));
  // --image-size resizes the dynamic-batch input: 4x the pixels, more time.
  Json Large = predictJson(Onnx + " --gpu t4 --batch 4 --image-size 128");
  CHECK(Large["image_size"] == 128);
  CHECK(Large["time_ms"].get<double>() > J["time_ms"].get<double>());
}

TEST_CASE("predict: PyTorch adds a convolution's bias in a latency-bound kernel of its own") {
  // One 3x3 convolution, 16 -> 16 channels at 64x64, with and without a bias.
  auto Encode = [](const std::string &Name, bool Bias) {
    const std::string BiasInput = Bias ? R"(input: "b" )" : "";
    const std::string BiasDecl = Bias ? valueInfo("input", "b", {16}) : "";
    return encodeOnnx(Name, onnxModel("conv", R"(  node { input: "x" input: "w" )" + BiasInput +
                                                  R"(output: "y" name: "conv1" op_type: "Conv"
         attribute { name: "kernel_shape" ints: 3 ints: 3 type: INTS }
         attribute { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 type: INTS } }
)" + valueInfo("input", "x", {-1, 16, 64, 64}) + valueInfo("input", "w", {16, 16, 3, 3}) +
                                                  BiasDecl +
                                                  valueInfo("output", "y", {-1, 16, 64, 64})));
  };
  const std::string With = Encode("biased", true), Without = Encode("plain", false);
  if (With.empty())
    return;
  // The add passes 4 x 16 x 64 x 64 = 262,144 fp32 outputs, one per thread: on the H100 memory
  // latency (830 ns per element for 2,048 threads on each of 132 SMs: 0.80 us) and the 2 MB it
  // moves (0.63 us) bound it together, sqrt(0.80^2 + 0.63^2) = 1.02 us; plus a launch of 2.5 us.
  const double Elements = 4 * 16 * 64 * 64;
  const double Add =
      std::hypot(Elements * 830e-9 / (132 * 2048), 8 * Elements / 3.35e12) * 1e3 + 4950 / 1980e3;
  const Json Biased = predictJson(With + " --gpu h100 --batch 4");
  const Json Plain = predictJson(Without + " --gpu h100 --batch 4");
  const double Extra = Biased["bound_ms"].get<double>() - Plain["bound_ms"].get<double>();
  CHECK(Extra == doctest::Approx(Add).epsilon(0.01));
  // One kernel more: the launch latency the output reports grows by one launch.
  CHECK(Biased["launch_latency_ms"].get<double>() - Plain["launch_latency_ms"].get<double>() ==
        doctest::Approx(4950 / 1980e3));
  CHECK(Biased["launches"] == Plain["launches"]);
}

TEST_CASE("predict: PyTorch's pools read their input at memory latency, fp16 as fp32") {
  // One 3x3 stride-2 max pool over 64 x 16 x 64 x 64 elements (21 MB in and out in fp32: still
  // in the H100's L2, so no DRAM time): 4,194,304 input elements, one latency (830 ns) each for
  // 2,048 threads on each of 132 SMs, 12.9 us, plus a launch of 2.5 us, in both precisions.
  const std::string Onnx = encodeOnnx("pool", onnxModel("pool", R"(
  node { input: "x" output: "y" name: "pool1" op_type: "MaxPool"
         attribute { name: "kernel_shape" ints: 3 ints: 3 type: INTS }
         attribute { name: "strides" ints: 2 ints: 2 type: INTS }
         attribute { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 type: INTS } }
)" + valueInfo("input", "x", {-1, 16, 64, 64}) + valueInfo("output", "y", {-1, 16, 32, 32})));
  if (Onnx.empty())
    return;
  const double Pass = 64.0 * 16 * 64 * 64 * 830e-9 / (132 * 2048) * 1e3 + 4950 / 1980e3;
  for (const char *Dtype : {"f32", "f16"}) {
    const Json J = predictJson(Onnx + " --gpu h100 --batch 64 --dtype " + Dtype);
    CHECK(J["launches"] == 1);
    CHECK(J["bound_ms"].get<double>() == doctest::Approx(Pass).epsilon(0.01));
  }
}

TEST_CASE("predict: batch, GPU outside the training data, table output") {
  Json J = predictJson("lenet5 --gpu H100 --batch 4");
  double T = J["time_ms"].get<double>();
  // LeNet-5's bound on the H100 is a little shorter at batch 4 than at batch 1, so Factor x the
  // bound falls under batch 1's time: the batch floor gives batch 4 batch 1's time.
  const double One = predictJson("lenet5 --gpu H100")["time_ms"].get<double>();
  REQUIRE(Factor * J["bound_ms"].get<double>() < One);
  CHECK(T == doctest::Approx(One).epsilon(1e-9));
  CHECK(std::any_of(J["warnings"].begin(), J["warnings"].end(), [](const Json &X) {
    return X.get<std::string>().rfind("batch floor: batch 4", 0) == 0;
  }));
  CHECK(J["time_per_image_ms"].get<double>() == doctest::Approx(T / 4));
  REQUIRE(!J["warnings"].empty());
  std::string W = J["warnings"][0];
  CHECK(W.find("gpu 'h100-sxm' was not measured") != std::string::npos);
  CHECK(W.find("learned on t4, v100-pcie-32gb") != std::string::npos);
  CHECK(J["board_w"].get<double>() > 0);

  // A Jetson's power mode fixes its clocks: its board power is not modelled, so it is null.
  Json Module = predictJson("lenet5 --gpu jetson-agx-orin");
  CHECK(Module["clock_limiter"] == "mode");
  CHECK(Module["board_w"].is_null());

  RunResult Table = runPtxcast("predict lenet5 --gpu t4 --model " + bundlePath());
  REQUIRE_MESSAGE(Table.status == 0, Table.err);
  CHECK(Table.out.find("time per batch") != std::string::npos);
  CHECK(Table.out.find("physical bound") != std::string::npos);
  CHECK(Table.out.find("images/s") != std::string::npos);
  CHECK(Table.out.find("predicts synthetic: twice the bound") != std::string::npos);
  CHECK(Table.out.find("by launch kind") != std::string::npos);
}

TEST_CASE("predict: unknown names list the valid or closest ones") {
  RunResult Model = runPtxcast("predict nosuchnet --gpu t4 --model " + bundlePath());
  CHECK(Model.status == 1);
  CHECK(Model.err.starts_with("error: unknown model 'nosuchnet' (closest: "));
  CHECK(Model.err.find("`ptxcast zoo` lists all") != std::string::npos);
  RunResult Gpu = runPtxcast("predict lenet5 --gpu rtx-3099 --model " + bundlePath());
  CHECK(Gpu.status == 1);
  CHECK(Gpu.err.find("unknown gpu 'rtx-3099' (closest: rtx-3090") != std::string::npos);
  RunResult Bundle = runPtxcast("predict lenet5 --gpu t4 --model no-such-bundle");
  CHECK(Bundle.status == 1);
  CHECK(Bundle.err.find("unknown model 'no-such-bundle' (shipped: ") != std::string::npos);
  RunResult Runtime = runPtxcast("predict lenet5 --gpu t4 --runtime jit --model " + bundlePath());
  CHECK(Runtime.status != 0);
  CHECK(Runtime.err.find("--runtime") != std::string::npos);
}

TEST_CASE("predict: bad ONNX files and out-of-range options are clear errors") {
  fs::path Bad = scratch() / "garbage.onnx";
  std::ofstream(Bad) << "this is not a protobuf";
  RunResult R = runPtxcast("predict " + Bad.string() + " --gpu t4 --model " + bundlePath());
  CHECK(R.status == 1);
  CHECK(R.err.starts_with(Bad.string() + ": error: "));
  RunResult Missing = runPtxcast("predict /no/such/model.onnx --gpu t4 --model " + bundlePath());
  CHECK(Missing.status == 1);
  CHECK(Missing.err.find("/no/such/model.onnx") != std::string::npos);
  RunResult Size =
      runPtxcast("predict " + Bad.string() + " --gpu t4 --image-size 64 --model " + bundlePath());
  CHECK(Size.status == 1);
  CHECK(Size.err.starts_with(Bad.string() + ": error: ")); // the file is read first
  for (std::string Opt : {"--batch 0", "--batch 5000", "--image-size 4", "--dtype f8"}) {
    RunResult O = runPtxcast("predict lenet5 --gpu t4 " + Opt + " --model " + bundlePath());
    CHECK_MESSAGE(O.status != 0, Opt);
    CHECK_MESSAGE(O.err.find(Opt.substr(0, Opt.find(' '))) != std::string::npos, O.err);
  }
  RunResult Small = runPtxcast("predict alexnet --gpu t4 --image-size 16 --model " + bundlePath());
  CHECK(Small.status == 1);
  CHECK(Small.err.find("error: layer 'maxpool_6' (maxpool): 3x3 window does not fit input") !=
        std::string::npos);
  RunResult Budget = runPtxcast("compare --models lenet5 --gpus t4 --budget-ms -1");
  CHECK(Budget.status != 0);
  CHECK(Budget.err.find("--budget-ms") != std::string::npos);
  for (const char *Bad : {"nan", "inf", "1x"}) { // CLI::PositiveNumber passed nan
    RunResult NotANumber =
        runPtxcast(std::string("compare --models lenet5 --gpus t4 --target-ips ") + Bad);
    CHECK_MESSAGE(NotANumber.status != 0, Bad);
    CHECK(NotANumber.err.find("--target-ips") != std::string::npos);
  }
  RunResult Plot = runPtxcast("compare --models lenet5 --gpus t4 --model " + bundlePath() +
                              " --plot " + (scratch() / "plot.gif").string());
  CHECK(Plot.status == 1);
  CHECK(Plot.err.find("plot files end in .svg or .png") != std::string::npos);
}

TEST_CASE("train: --cv without --bundle and schema checks") {
  RunResult R = runPtxcast("train --data " + syntheticCsv().string() + " --cv 2 -o " +
                           (scratch() / "m.json").string());
  CHECK(R.status == 1);
  CHECK(R.err.find("--cv measures a predictor bundle's error band; it needs --bundle") !=
        std::string::npos);
  fs::path Odd = scratch() / "odd.csv";
  std::ofstream(Odd) << "gpu,my_feature,latency_ms\nt4,1,2\nt4,2,3\nt4,3,4\n";
  RunResult S = runPtxcast("train --data " + Odd.string() +
                           " --target latency_ms --learner linear --bundle -o " +
                           (scratch() / "o.json").string());
  CHECK(S.status == 1);
  CHECK(S.err.find("feature 'my_feature' is not in ptxcast's feature schema") != std::string::npos);
}

TEST_CASE("predict: the shipped default model loads and says what it predicts") {
  RunResult R = runPtxcast("predict lenet5 --gpu t4 --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json J = Json::parse(R.out);
  CHECK(J["time_ms"].get<double>() > 0);
  CHECK(J["model"]["name"] == "cross-gpu");
  CHECK(!J["model"]["predicts"].get<std::string>().empty());
  CHECK(J["model"]["training_gpus"].size() >= 5);
  REQUIRE(J["model"]["error_band"].is_object());
  CHECK(J["model"]["error_band"]["protocol"].get<std::string>().find("leave-one-group-out by "
                                                                     "'gpu'") == 0);
  // compare uses the same model: its cells equal predict's.
  RunResult C = runPtxcast("compare --models lenet5 --gpus t4,h100 --format json");
  REQUIRE_MESSAGE(C.status == 0, C.err);
  Json Cmp = Json::parse(C.out);
  CHECK(Cmp["model"]["name"] == "cross-gpu");
  CHECK(Cmp["results"][0]["time_ms"].get<double>() == doctest::Approx(J["time_ms"].get<double>()));
  // compare predicts the network total only (no per-launch breakdown) but counts every launch.
  CHECK(Cmp["results"][0]["launches"] == J["launches"]);
  CHECK(J["launches"].get<size_t>() > 0);
  RunResult H = runPtxcast("predict lenet5 --gpu h100 --format json");
  REQUIRE(H.status == 0);
  CHECK(Cmp["results"][1]["time_ms"].get<double>() ==
        doctest::Approx(Json::parse(H.out)["time_ms"].get<double>()));
}

TEST_CASE("predict: no batch is predicted faster than batch 1 (the batch floor)") {
  // The shipped model's learned efficiency puts LeNet-5 at batch 8 in fp16 on the H100 under its
  // batch-1 time (launch-latency-bound launches whose nearest rows differ): batch 8 is given batch
  // 1's time, with a warning, and compare agrees.
  auto Time = [](const std::string &Args) {
    RunResult R = runPtxcast("predict lenet5 --gpu h100 --dtype f16 --format json " + Args);
    REQUIRE_MESSAGE(R.status == 0, R.err);
    return Json::parse(R.out);
  };
  const Json One = Time(""), Eight = Time("--batch 8");
  CHECK(Eight["time_ms"].get<double>() == doctest::Approx(One["time_ms"].get<double>()));
  const auto &W = Eight["warnings"];
  CHECK(std::any_of(W.begin(), W.end(), [](const Json &X) {
    return X.get<std::string>().rfind("batch floor: batch 8", 0) == 0;
  }));
  RunResult C =
      runPtxcast("compare --models lenet5 --gpus h100 --dtype f16 --batch 1,8 --format json");
  REQUIRE_MESSAGE(C.status == 0, C.err);
  const Json Cells = Json::parse(C.out)["results"];
  REQUIRE(Cells.size() == 2);
  CHECK(Cells[1]["time_ms"].get<double>() >= Cells[0]["time_ms"].get<double>());
  CHECK(Cells[1]["time_ms"].get<double>() == doctest::Approx(Eight["time_ms"].get<double>()));
}

TEST_CASE("predict and lower name the ONNX file when one of its layers does not lower") {
  std::filesystem::path Dir =
      std::filesystem::temp_directory_path() / ("ptxcast_clip_" + std::to_string(getpid()));
  std::filesystem::create_directories(Dir);
  std::filesystem::path File = Dir / "clip.onnx";
  clitest::writeFile(File, clitest::unlowerableOnnx());
  RunResult P = runPtxcast("predict " + File.string() + " --gpu t4 --model " + bundlePath());
  RunResult L = runPtxcast("lower " + File.string() + " -o " + (Dir / "out").string());
  std::filesystem::remove_all(Dir);
  const std::string Want = File.string() + ": error: layer 'c' (activation): ";
  CHECK(P.status == 1);
  CHECK_MESSAGE(P.err.rfind(Want, 0) == 0, P.err);
  CHECK(L.status == 1);
  CHECK_MESSAGE(L.err.rfind(Want, 0) == 0, L.err);
}
