// `ptxcast train --level`, `ptxcast predict` and `ptxcast compare` end to end: a bundle trained in
// the test on synthetic rows (labelled as such: latency = 2 us + 1 ns per fp32 thread instruction,
// not measurements), applied to lenet5; expected times derived from `ptxcast analyze` counts.
// Also unknown names, bad ONNX files, out-of-range options and the plot files (SVG and PNG).
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

using clitest::readAll;
using clitest::runPtxcast;
using clitest::RunResult;

/// A scratch directory for this test process.
fs::path scratch() {
  struct Dir {
    fs::path path =
        fs::temp_directory_path() / ("ptxcast_predict_test_" + std::to_string(getpid()));
    Dir() { fs::create_directories(path); }
    ~Dir() { fs::remove_all(path); }
  };
  static const Dir D;
  return D.path;
}

constexpr double FpMin = 1000, FpMax = 60000;    // synthetic thr_fp32 range
constexpr double BaseMs = 0.002, PerFpMs = 1e-6; // synthetic latency law

/// Synthetic rows (mechanics only): two catalog GPUs, thr_fp32 spread over [FpMin, FpMax]
/// (both ends included), latency_ms = BaseMs + PerFpMs * thr_fp32 exactly.
fs::path syntheticCsv() {
  fs::path P = scratch() / "synthetic.csv";
  std::ofstream Out(P);
  Out << "gpu,thr_fp32,launches,latency_ms\n";
  uint64_t State = 12345;
  for (const char *Gpu : {"t4", "v100-pcie-32gb"})
    for (int I = 0; I < 40; ++I) {
      State = State * 6364136223846793005ULL + 1442695040888963407ULL;
      double U = I == 0 ? 0 : I == 1 ? 1 : double(State >> 11) / 9007199254740992.0;
      double Fp = std::round(FpMin + (FpMax - FpMin) * U);
      Out << Gpu << "," << Fp << ",1," << BaseMs + PerFpMs * Fp << "\n";
    }
  return P;
}

/// The bundle trained on syntheticCsv (linear, operator level, CV leave-one-GPU-out); made once.
std::string bundlePath() {
  static const std::string Path = [] {
    std::string Out = (scratch() / "synthetic-bundle.json").string();
    RunResult R =
        runPtxcast("train --data " + syntheticCsv().string() +
                   " --target latency_ms --id gpu --features thr_fp32,launches "
                   "--learner linear --param lambda=0 --level operator --dtype f32 --cv group=gpu "
                   "--name synthetic-op --predicts 'synthetic latency' -o " +
                   Out);
    REQUIRE_MESSAGE(R.status == 0, R.err);
    return Out;
  }();
  return Path;
}

struct LenetCounts {
  size_t launches = 0;
  double fp32 = 0;
  size_t outside = 0; ///< launches whose thr_fp32 lies outside [FpMin, FpMax]
};

/// lenet5 batch B counts from `ptxcast analyze` (independent of predict's code path).
LenetCounts lenetCounts(int Batch) {
  RunResult R = runPtxcast("analyze lenet5 --format json --batch " + std::to_string(Batch));
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json J = Json::parse(R.out);
  LenetCounts C;
  for (const Json &L : J["launches"]) {
    double Fp = L["thread_instructions"]["fp32"].get<double>();
    ++C.launches;
    C.fp32 += Fp;
    C.outside += Fp < FpMin || Fp > FpMax;
  }
  return C;
}

double expectedMs(const LenetCounts &C) { return BaseMs * double(C.launches) + PerFpMs * C.fp32; }

/// Tags of an XML document must nest; returns the element names in document order.
std::vector<std::string> xmlElements(const std::string &Text) {
  std::vector<std::string> Stack, All;
  std::regex Tag(R"(<(/?)([a-zA-Z][\w:-]*)[^>]*?(/?)>)");
  for (auto It = std::sregex_iterator(Text.begin(), Text.end(), Tag); It != std::sregex_iterator();
       ++It) {
    std::string Name = (*It)[2];
    if ((*It)[1] == "/") {
      REQUIRE_MESSAGE(!Stack.empty(), (std::string("closing tag without an opening one: ") + Name));
      REQUIRE(Stack.back() == Name);
      Stack.pop_back();
      continue;
    }
    All.push_back(Name);
    if ((*It)[3] != "/")
      Stack.push_back(Name);
  }
  CHECK(Stack.empty());
  return All;
}

uint32_t bigEndian32(const std::string &S, size_t At) {
  return uint32_t(uint8_t(S[At])) << 24 | uint32_t(uint8_t(S[At + 1])) << 16 |
         uint32_t(uint8_t(S[At + 2])) << 8 | uint32_t(uint8_t(S[At + 3]));
}

} // namespace

TEST_CASE("predict: operator bundle summed over launches matches the analysis counts") {
  LenetCounts C = lenetCounts(1);
  REQUIRE(C.launches > 0);
  RunResult R = runPtxcast("predict lenet5 --gpu t4 --model " + bundlePath() + " --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json J = Json::parse(R.out);
  double T = J["time_ms"].get<double>();
  CHECK(T == doctest::Approx(expectedMs(C)).epsilon(1e-6));
  CHECK(J["launches"] == C.launches);
  CHECK(J["gpu"] == "t4");
  CHECK(J["batch"] == 1);
  CHECK(J["images_per_s"].get<double>() == doctest::Approx(1000 / T));
  CHECK(J["images_per_s_per_w"].get<double>() == doctest::Approx(1000 / T / 70)); // T4: 70 W
  // Exact synthetic law: every out-of-fold ratio is 1, so the band collapses onto the time.
  REQUIRE(J["interval_ms"].is_array());
  CHECK(J["interval_ms"][0].get<double>() == doctest::Approx(T).epsilon(1e-6));
  CHECK(J["interval_ms"][1].get<double>() == doctest::Approx(T).epsilon(1e-6));
  CHECK(J["model"]["name"] == "synthetic-op");
  CHECK(J["model"]["predicts"] == "synthetic latency");
  CHECK(J["model"]["training_gpus"] == Json::array({"t4", "v100-pcie-32gb"}));
  // Breakdown: every launch once, times summing to the total.
  double Sum = 0;
  size_t Launches = 0;
  for (const Json &K : J["breakdown"]) {
    Sum += K["time_ms"].get<double>();
    Launches += K["launches"].get<size_t>();
  }
  CHECK(Sum == doctest::Approx(T));
  CHECK(Launches == C.launches);
  // t4 was trained on: the only warning can be about launches outside the thr_fp32 range.
  std::string Outside = std::to_string(C.outside) + " of " + std::to_string(C.launches) +
                        " launches have features outside the training range";
  CHECK(J["warnings"].size() == (C.outside ? 1 : 0));
  if (C.outside)
    CHECK(J["warnings"][0].get<std::string>().starts_with(Outside));
}

TEST_CASE("predict: an ONNX file (encoded by protoc from a text ModelProto) with a dynamic batch") {
  if (std::system("command -v protoc >/dev/null 2>&1") != 0 ||
      !fs::exists("/usr/include/onnx/onnx.proto"))
    return; // protobuf-compiler and libonnx-dev come with scripts/setup.sh
  fs::path Text = scratch() / "tiny.txt", Onnx = scratch() / "tiny.onnx";
  std::ofstream(Text) << R"(ir_version: 8
opset_import { domain: "" version: 13 }
graph {
  name: "tinyconv"
  node { input: "x" input: "w" output: "y" name: "conv1" op_type: "Conv"
         attribute { name: "kernel_shape" ints: 3 ints: 3 type: INTS }
         attribute { name: "pads" ints: 1 ints: 1 ints: 1 ints: 1 type: INTS } }
  node { input: "y" output: "z" name: "relu1" op_type: "Relu" }
  input { name: "x" type { tensor_type { elem_type: 1 shape { dim { dim_param: "N" }
    dim { dim_value: 3 } dim { dim_value: 64 } dim { dim_value: 64 } } } } }
  input { name: "w" type { tensor_type { elem_type: 1 shape { dim { dim_value: 16 }
    dim { dim_value: 3 } dim { dim_value: 3 } dim { dim_value: 3 } } } } }
  output { name: "z" type { tensor_type { elem_type: 1 shape { dim { dim_param: "N" }
    dim { dim_value: 16 } dim { dim_value: 64 } dim { dim_value: 64 } } } } }
})";
  REQUIRE(std::system(("protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto < " +
                       Text.string() + " > " + Onnx.string())
                          .c_str()) == 0);
  RunResult A = runPtxcast("analyze " + Onnx.string() + " --batch 4 --format json");
  REQUIRE_MESSAGE(A.status == 0, A.err);
  Json Counts = Json::parse(A.out);
  REQUIRE(Counts["launches"].size() == 1); // conv with relu fused
  double Fp = Counts["launches"][0]["thread_instructions"]["fp32"].get<double>();
  RunResult R = runPtxcast("predict " + Onnx.string() + " --gpu t4 --batch 4 --model " +
                           bundlePath() + " --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json J = Json::parse(R.out);
  CHECK(J["network"] == "tinyconv");
  CHECK(J["batch"] == 4);
  CHECK(J["image_size"] == 64);
  CHECK(J["time_ms"].get<double>() == doctest::Approx(BaseMs + PerFpMs * Fp).epsilon(1e-6));
}

TEST_CASE("predict: batch, GPU outside the training data, table output") {
  LenetCounts C = lenetCounts(4);
  RunResult R =
      runPtxcast("predict lenet5 --gpu H100 --batch 4 --model " + bundlePath() + " --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json J = Json::parse(R.out);
  double T = J["time_ms"].get<double>();
  CHECK(T == doctest::Approx(expectedMs(C)).epsilon(1e-6));
  CHECK(J["time_per_image_ms"].get<double>() == doctest::Approx(T / 4));
  REQUIRE(!J["warnings"].empty());
  std::string W = J["warnings"][0];
  CHECK(W.find("is not among the training GPUs (t4, v100-pcie-32gb)") != std::string::npos);

  RunResult Table = runPtxcast("predict lenet5 --gpu t4 --model " + bundlePath());
  REQUIRE_MESSAGE(Table.status == 0, Table.err);
  CHECK(Table.out.find("time per batch") != std::string::npos);
  CHECK(Table.out.find("images/s") != std::string::npos);
  CHECK(Table.out.find("predicts synthetic latency") != std::string::npos);
  CHECK(Table.out.find("by launch kind") != std::string::npos);
}

TEST_CASE("predict: unknown names list the valid or closest ones") {
  RunResult Model = runPtxcast("predict nosuchnet --gpu t4 --model " + bundlePath());
  CHECK(Model.status == 1);
  CHECK(Model.err.find("nosuchnet") != std::string::npos);
  for (const char *Name : {"lenet5", "resnet50", "efficientnet-b7", "xception"})
    CHECK_MESSAGE(Model.err.find(Name) != std::string::npos, Name);
  RunResult Gpu = runPtxcast("predict lenet5 --gpu rtx-3099 --model " + bundlePath());
  CHECK(Gpu.status == 1);
  CHECK(Gpu.err.find("unknown gpu 'rtx-3099' (closest: rtx-3090") != std::string::npos);
  RunResult Bundle = runPtxcast("predict lenet5 --gpu t4 --model no-such-bundle");
  CHECK(Bundle.status == 1);
  CHECK(Bundle.err.find("unknown model 'no-such-bundle' (shipped: ") != std::string::npos);
  RunResult Dtype = runPtxcast("predict lenet5 --gpu t4 --dtype f16 --model " + bundlePath());
  CHECK(Dtype.status == 1);
  CHECK(Dtype.err.find("model 'synthetic-op' predicts f32 networks, not f16") != std::string::npos);
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
  CHECK(Size.err.find("--image-size applies to zoo models") != std::string::npos);
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
  RunResult Plot = runPtxcast("compare --models lenet5 --gpus t4 --model " + bundlePath() +
                              " --plot " + (scratch() / "plot.gif").string());
  CHECK(Plot.status == 1);
  CHECK(Plot.err.find("plot files end in .svg or .png") != std::string::npos);
}

TEST_CASE("train: --cv without --level and schema checks") {
  RunResult R = runPtxcast("train --data " + syntheticCsv().string() +
                           " --target latency_ms --cv 2 -o " + (scratch() / "m.json").string());
  CHECK(R.status == 1);
  CHECK(R.err.find("--cv measures a predictor bundle's error band; it needs --level") !=
        std::string::npos);
  fs::path Odd = scratch() / "odd.csv";
  std::ofstream(Odd) << "gpu,my_feature,latency_ms\nt4,1,2\nt4,2,3\nt4,3,4\n";
  RunResult S = runPtxcast("train --data " + Odd.string() +
                           " --target latency_ms --learner "
                           "linear --level operator -o " +
                           (scratch() / "o.json").string());
  CHECK(S.status == 1);
  CHECK(S.err.find("feature 'my_feature' is not in ptxcast's feature schema") != std::string::npos);
}

TEST_CASE("compare: matrix, budget, images/s per watt and an SVG heat map") {
  double T1 = expectedMs(lenetCounts(1)), T2 = expectedMs(lenetCounts(2));
  double Budget = (T1 + T2) / 2; // batch 1 meets it, batch 2 does not
  fs::path Svg = scratch() / "matrix.svg";
  RunResult R = runPtxcast("compare --models lenet5 --gpus t4,a100 --batch 1,2 --model " +
                           bundlePath() + " --format json --budget-ms " + std::to_string(Budget) +
                           " --plot " + Svg.string());
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json J = Json::parse(R.out);
  REQUIRE(J["results"].size() == 4);
  for (const Json &Row : J["results"]) {
    double T = Row["time_ms"].get<double>();
    int Batch = Row["batch"].get<int>();
    CHECK(T == doctest::Approx(Batch == 1 ? T1 : T2).epsilon(1e-6));
    CHECK(Row["meets_budget"] == (Batch == 1));
    double Ips = 1000.0 * Batch / T;
    CHECK(Row["images_per_s"].get<double>() == doctest::Approx(Ips));
    CHECK(Row["images_per_s_per_w"].get<double>() ==
          doctest::Approx(Ips / Row["tdp_w"].get<double>()));
  }
  CHECK(J["results"][0]["gpu"] == "t4");
  std::string Text = readAll(Svg);
  REQUIRE(!Text.empty());
  std::vector<std::string> Elements = xmlElements(Text);
  REQUIRE(!Elements.empty());
  CHECK(Elements.front() == "svg");
  std::regex Cell(R"(<rect class="cell( meets)?")"), Meets(R"(<rect class="cell meets")");
  auto Count = [&](const std::regex &Re) {
    return std::distance(std::sregex_iterator(Text.begin(), Text.end(), Re),
                         std::sregex_iterator());
  };
  CHECK(Count(Cell) == 4);
  CHECK(Count(Meets) == 2);
  CHECK(Text.find(">lenet5 (batch 2)</text>") != std::string::npos);
  CHECK(Text.find(">t4</text>") != std::string::npos);

  RunResult Csv =
      runPtxcast("compare --models lenet5 --gpus t4 --model " + bundlePath() + " --format csv");
  REQUIRE(Csv.status == 0);
  CHECK(Csv.out.starts_with("model,batch,gpu,time_ms,low_ms,high_ms,images_per_s,"));
  CHECK(Csv.out.find("\nlenet5,1,t4,") != std::string::npos);
}

TEST_CASE("compare: PNG plot has the PNG signature and the SVG's size") {
  fs::path Png = scratch() / "matrix.png", Svg = scratch() / "same.svg";
  std::string Args = "compare --models lenet5 --gpus t4,h100,orin --model " + bundlePath();
  RunResult R = runPtxcast(Args + " --plot " + Png.string());
  bool HaveRsvg = std::system("command -v rsvg-convert >/dev/null 2>&1") == 0;
  if (!HaveRsvg) {
    CHECK(R.status == 1);
    CHECK(R.err.find("rsvg-convert (Debian package librsvg2-bin) is not installed") !=
          std::string::npos);
    return;
  }
  REQUIRE_MESSAGE(R.status == 0, R.err);
  REQUIRE(runPtxcast(Args + " --plot " + Svg.string()).status == 0);
  std::string Bytes = readAll(Png);
  REQUIRE(Bytes.size() > 33);
  CHECK(Bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(Bytes.substr(12, 4) == "IHDR");
  std::smatch M;
  std::string SvgText = readAll(Svg);
  REQUIRE(
      std::regex_search(SvgText, M, std::regex(R"re(<svg [^>]*width="(\d+)" height="(\d+)")re")));
  CHECK(bigEndian32(Bytes, 16) == std::stoul(M[1]));
  CHECK(bigEndian32(Bytes, 20) == std::stoul(M[2]));
}

TEST_CASE("predict: the shipped default bundle loads and says what it predicts") {
  RunResult R = runPtxcast("predict lenet5 --gpu t4 --format json");
  if (R.status != 0) { // a checkout without models/*.json
    CHECK(R.err.find("no shipped model predicts networks (shipped: none)") != std::string::npos);
    return;
  }
  Json J = Json::parse(R.out);
  CHECK(J["time_ms"].get<double>() > 0);
  CHECK(!J["model"]["name"].get<std::string>().empty());
  CHECK(!J["model"]["predicts"].get<std::string>().empty());
  CHECK(!J["model"]["training_gpus"].empty());
  RunResult F16 = runPtxcast("predict lenet5 --gpu t4 --dtype f16 --learner knn");
  CHECK(F16.status == 1);
  CHECK(F16.err.find("no shipped model predicts f16 knn networks (shipped: ") != std::string::npos);
}

TEST_CASE("predict: the shipped bundle trained on the target GPU is preferred, f32 by default") {
  auto Chosen = [](const std::string &Args) {
    RunResult R = runPtxcast("predict lenet5 " + Args + " --format json");
    REQUIRE_MESSAGE(R.status == 0, R.err);
    Json J = Json::parse(R.out);
    return std::pair(J["model"]["name"].get<std::string>(),
                     J["model"]["training_gpus"].get<std::vector<std::string>>());
  };
  auto Has = [](const std::vector<std::string> &Gpus, const std::string &G) {
    return std::find(Gpus.begin(), Gpus.end(), G) != Gpus.end();
  };
  // Without --dtype every GPU gets an f32 bundle; the H100 the one trained on H100 measurements.
  auto [H100, H100Gpus] = Chosen("--gpu h100");
  auto [T4, T4Gpus] = Chosen("--gpu t4");
  CHECK(H100.find("f32") != std::string::npos);
  CHECK(T4.find("f32") != std::string::npos);
  CHECK(T4Gpus.size() > 1); // a single-GPU bundle is never chosen for another GPU
  CHECK(Has(H100Gpus, "h100-sxm"));
  CHECK(!Has(T4Gpus, "h100-sxm"));
  auto [F16, F16Gpus] = Chosen("--gpu h100 --dtype f16");
  CHECK(F16.find("f16") != std::string::npos);
  CHECK(Has(F16Gpus, "h100-sxm"));
  auto [Other, OtherGpus] = Chosen("--gpu t4 --dtype f16");
  CHECK(OtherGpus.size() > 1);
}
