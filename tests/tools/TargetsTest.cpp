// The buyer's questions end to end with the shipped model: does a batch fit in the GPU's memory
// (`predict` and `compare` say so), which pairs meet an images/s target, the largest batch that
// fits and meets the targets (`compare --max-batch`); and the command line's small manners:
// dtype spellings, integer options, unknown commands and models, plot paths checked before any
// work, the progress line on a terminal.
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>

using Json = nlohmann::json;
using clitest::runPtxcast;
using clitest::RunResult;

namespace {

Json jsonOf(const std::string &Args) {
  RunResult R = runPtxcast(Args + " --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  return Json::parse(R.out);
}

/// The memory object's parts add up to its total.
void checkMemorySums(const Json &M) {
  CHECK(M["total_bytes"].get<uint64_t>() ==
        M["weights_bytes"].get<uint64_t>() + M["weight_copies_bytes"].get<uint64_t>() +
            M["activations_bytes"].get<uint64_t>() + M["workspace_bytes"].get<uint64_t>() +
            M["reserve_bytes"].get<uint64_t>());
}

} // namespace

TEST_CASE("predict: device memory in the JSON and the table: a batch that does not fit warns") {
  const Json J = jsonOf("predict lenet5 --gpu t4");
  const Json &M = J["memory"];
  checkMemorySums(M);
  CHECK(M["fits"] == true);
  CHECK(M["capacity_bytes"] == 16ull << 30);
  CHECK(M["reserve_bytes"] == 512ull << 20);
  CHECK(M["shared_with_os"] == false);
  CHECK(M["weight_copies_bytes"] == 0);

  const Json Half = jsonOf("predict lenet5 --gpu t4 --dtype f16");
  CHECK(Half["memory"]["weight_copies_bytes"].get<uint64_t>() > 0); // autocast's fp16 copies
  CHECK(Half["memory"]["weights_bytes"] == M["weights_bytes"]);     // fp32 weights kept

  // VGG-16 at batch 256: about 28 GiB of fp32 activations, on a 4 GB Jetson.
  const std::string Big = "predict vgg16 --gpu jetson-orin-nano-4gb --batch 256";
  const Json Over = jsonOf(Big);
  CHECK(Over["memory"]["fits"] == false);
  CHECK(Over["memory"]["shared_with_os"] == true);
  checkMemorySums(Over["memory"]);
  bool Warned = false;
  for (const Json &W : Over["warnings"])
    Warned |= W.get<std::string>().starts_with("does not fit: needs ");
  CHECK(Warned);
  RunResult T = runPtxcast(Big);
  REQUIRE(T.status == 0);
  CHECK(T.out.find("DOES NOT FIT in the GPU's 4.00 GiB, shared with the OS") != std::string::npos);
  CHECK(T.out.find("runtime reserve 2.50 GiB") != std::string::npos);
}

TEST_CASE("predict: --dtype f16 says it is autocast: fp16 and half spell it, fp32 and float f32") {
  RunResult R = runPtxcast("predict lenet5 --gpu t4 --dtype fp16");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(R.out.find("batch 1, f16 (PyTorch autocast: fp32 weights cast to fp16 every pass),") !=
        std::string::npos);
  CHECK(jsonOf("predict lenet5 --gpu t4 --dtype half") ==
        jsonOf("predict lenet5 --gpu t4 --dtype f16"));
  CHECK(jsonOf("predict lenet5 --gpu t4 --dtype float")["dtype"] == "f32");
  RunResult Bad = runPtxcast("predict lenet5 --gpu t4 --dtype f8");
  CHECK(Bad.status != 0);
  CHECK(Bad.err.find("--dtype: f8 not in {f32,f16,int8} (also fp32, float") != std::string::npos);
}

TEST_CASE("options: integers, unknown commands and unknown models are explained") {
  RunResult Abc = runPtxcast("predict lenet5 --gpu t4 --batch abc");
  CHECK(Abc.status != 0);
  CHECK(Abc.err.find("--batch: 'abc' is not an integer (give one from 1 to 4096)") !=
        std::string::npos);
  RunResult List = runPtxcast("compare --models lenet5 --gpus t4 --batch 1,2x");
  CHECK(List.err.find("--batch: '2x' is not an integer") != std::string::npos);
  RunResult Range = runPtxcast("predict lenet5 --gpu t4 --batch 0");
  CHECK(Range.err.find("--batch: Value 0 not in range 1 to 4096") != std::string::npos);

  RunResult Cmd = runPtxcast("frobnicate");
  CHECK(Cmd.status == 1);
  CHECK(Cmd.err.starts_with("error: unknown command 'frobnicate' (closest: "));
  CHECK(Cmd.err.find("commands: zoo, lower, inspect, run, analyze, train, evaluate, dataset, "
                     "predict, compare, gpus") != std::string::npos);
  CHECK(runPtxcast("compar --models lenet5").err.find("(closest: compare;") != std::string::npos);

  RunResult Model = runPtxcast("predict efficientnet-b9 --gpu t4");
  CHECK(Model.status == 1);
  CHECK(Model.err.starts_with("error: unknown model 'efficientnet-b9' (closest: efficientnet-b"));
  CHECK(Model.err.find("`ptxcast zoo` lists all") != std::string::npos);
  CHECK(Model.err.find("xception") == std::string::npos); // not the whole zoo
  RunResult InCompare = runPtxcast("compare --models lenet5,resnet5O --gpus t4");
  CHECK(InCompare.err.starts_with("error: unknown model 'resnet5O' (closest: resnet50"));
}

TEST_CASE("compare: an images/s target beside the budget, and memory per cell") {
  const Json One = jsonOf("predict lenet5 --gpu t4");
  const double Ips = One["images_per_s"].get<double>();
  const Json J =
      jsonOf("compare --models lenet5 --gpus t4 --batch 1 --target-ips " + std::to_string(Ips * 2));
  CHECK(J["target_ips"].get<double>() == doctest::Approx(Ips * 2));
  CHECK(J["budget_ms"].is_null());
  const Json &Row = J["results"][0];
  CHECK(Row["meets_target_ips"] == false);
  CHECK(Row["meets_targets"] == false);
  CHECK(Row["meets_budget"].is_null());
  CHECK(Row["memory"] == One["memory"]);
  RunResult T =
      runPtxcast("compare --models lenet5 --gpus t4 --target-ips " + std::to_string(Ips / 2));
  REQUIRE(T.status == 0);
  CHECK(T.out.find("  targets\n") != std::string::npos);
  CHECK(T.out.find("  meets\n") != std::string::npos);
  CHECK(T.out.find("1 of 1 model/GPU pairs meet the targets (at least ") != std::string::npos);
}

TEST_CASE("compare: a pair that meets the budget only at its predicted time is a \"maybe\"") {
  const Json One = jsonOf("predict lenet5 --gpu t4");
  const double Time = One["time_ms"].get<double>();
  const double Slow = One["interval_ms"][1].get<double>();
  REQUIRE(Slow > Time * 1.05);
  // Between the predicted time and the slow end of its band; then past the band.
  const std::string Between = std::to_string(0.5 * (Time + Slow));
  const Json Row = jsonOf("compare --models lenet5 --gpus t4 --budget-ms " + Between)["results"][0];
  CHECK(Row["meets_targets"] == true);
  CHECK(Row["meets_targets_band"] == false);
  RunResult T = runPtxcast("compare --models lenet5 --gpus t4 --budget-ms " + Between);
  REQUIRE(T.status == 0);
  CHECK(T.out.find("  maybe\n") != std::string::npos);
  CHECK(T.out.find("in memory), 1 of them (\"maybe\") at the predicted time only, not at the "
                   "slow end of their band\n") != std::string::npos);
  RunResult Csv = runPtxcast("compare --models lenet5 --gpus t4 --format csv --budget-ms " +
                             std::to_string(Slow * 1.01));
  REQUIRE(Csv.status == 0);
  CHECK(Csv.out.find(",meets_targets,meets_targets_band,") != std::string::npos);
  CHECK(Csv.out.find(",1,,1,1,,graph,,") != std::string::npos); // fits, meets, across the band
  const Json Under = jsonOf("compare --models lenet5 --gpus t4")["results"][0];
  CHECK(Under["meets_targets_band"].is_null()); // no targets asked
}

TEST_CASE("compare --max-batch: the largest batch that fits and meets the budget") {
  // A hair over batch 6's time: std::to_string keeps 6 decimals, which may round it below.
  const double Budget =
      jsonOf("predict resnet50 --gpu t4 --batch 6")["time_ms"].get<double>() * (1 + 1e-6);
  const Json J = jsonOf("compare --models resnet50 --gpus t4,a100 --max-batch --budget-ms " +
                        std::to_string(Budget));
  CHECK(J["max_batch"] == true);
  REQUIRE(J["results"].size() == 2);
  for (const Json &Row : J["results"]) {
    const int64_t B = Row["max_batch"].get<int64_t>();
    INFO(Row.dump());
    REQUIRE(B > 0);
    CHECK(Row["batch"] == B);
    CHECK(Row["meets_targets"] == true);
    // One more image breaks the budget or the memory.
    const Json Next = jsonOf("predict resnet50 --gpu " + Row["gpu"].get<std::string>() +
                             " --batch " + std::to_string(B + 1));
    CHECK((Next["time_ms"].get<double>() > Budget || Next["memory"]["fits"] == false));
  }
  CHECK(J["results"][0]["max_batch"].get<int64_t>() >= 6); // T4: batch 6 is the budget itself
  // The search: batch 1 for both GPUs, then doubling and bisection, shared between the GPUs.
  CHECK(J["analyses"].get<size_t>() <= 2 * (1 + 2 * 12));

  // Without a budget, memory alone: the Jetson's 4 GB hold a few hundred ResNet-18 images.
  const Json Memory = jsonOf("compare --models resnet50 --gpus jetson-orin-nano-4gb --max-batch");
  const Json &Row = Memory["results"][0];
  const int64_t B = Row["max_batch"].get<int64_t>();
  CHECK(B > 16);
  CHECK(B < 4096);
  CHECK(Row["memory"]["fits"] == true);
  CHECK(Memory["analyses"] == 2); // batch 1 and the answer: memory needs no analysis
  CHECK(jsonOf("predict resnet50 --gpu jetson-orin-nano-4gb --batch " +
               std::to_string(B + 1))["memory"]["fits"] == false);

  RunResult Both = runPtxcast("compare --models lenet5 --gpus t4 --batch 2 --max-batch");
  CHECK(Both.status != 0);
  CHECK(Both.err.find("excludes") != std::string::npos);
}

TEST_CASE("compare --max-batch: a batch the int8 lowering refuses does not fit, and says why") {
  // MobileNetV2's int8 engine fits an A100's 40 GB far past the batch at which a tensor reaches
  // 2^31 elements, which its kernels' 32-bit indices cannot address.
  const Json J = jsonOf(
      "compare --models mobilenetv2 --gpus a100 --max-batch --runtime tensorrt --dtype int8");
  const Json &Row = J["results"][0];
  const int64_t B = Row["max_batch"].get<int64_t>();
  CHECK(B > 1000);
  CHECK(B < 4096);
  bool Says = false;
  for (const Json &W : Row["warnings"])
    Says |= W.get<std::string>().find("the largest batch is the lowering's, not the memory's: at "
                                      "batch " +
                                      std::to_string(B + 1)) != std::string::npos;
  CHECK(Says);
  RunResult Next = runPtxcast("predict mobilenetv2 --gpu a100 --runtime tensorrt --dtype int8 "
                              "--batch " +
                              std::to_string(B + 1));
  CHECK(Next.status != 0);
  CHECK(Next.err.find("int8 kernels index with 32 bits") != std::string::npos);
}

TEST_CASE("compare: the plot's path is checked before any work and errors name it") {
  RunResult Pdf = runPtxcast("compare --models lenet5 --gpus t4 --plot x.pdf");
  CHECK(Pdf.status == 1);
  CHECK(Pdf.out.empty()); // no table printed before the refusal
  CHECK(Pdf.err == "x.pdf: error: plot files end in .svg or .png\n");
  RunResult Dir = runPtxcast("compare --models lenet5 --gpus t4 --plot /no/such/dir/m.png");
  CHECK(Dir.status == 1);
  CHECK(Dir.out.empty());
  CHECK(Dir.err == "/no/such/dir/m.png: error: cannot write the plot: no folder '/no/such/dir'\n");
  RunResult Value = runPtxcast("compare --models lenet5 --gpus t4 --plot-value watts");
  CHECK(Value.status != 0);
  CHECK(Value.err.find("--plot-value") != std::string::npos);
}

TEST_CASE("compare: on a terminal the progress line names the network and is cleared") {
  if (std::system("command -v script >/dev/null 2>&1") != 0)
    return; // util-linux's `script` gives the command a terminal
  clitest::TempDir Dir("progress");
  const std::string Log = Dir / "typescript";
  const std::string Cmd =
      std::string(PTXCAST_BIN) + " compare --models lenet5,alexnet --gpus t4 --batch 1 --threads 1";
  REQUIRE(std::system(("script -qec '" + Cmd + "' " + Log + " >/dev/null 2>&1").c_str()) == 0);
  const std::string Out = clitest::readAll(Log);
  CHECK(Out.find("analysing lenet5 at batch 1 (network 1 of 2)") != std::string::npos);
  CHECK(Out.find("analysing alexnet at batch 1 (network 2 of 2)") != std::string::npos);
  CHECK(Out.find("\r\033[Kmodel cross-gpu") != std::string::npos); // cleared before the table
  CHECK(Out.find("analysed ") == std::string::npos);               // no per-launch line of its own
}

TEST_CASE("compare: networks analysed side by side print what one thread prints, and the "
          "first failing model in request order is the error") {
  // Without a cache, so that both runs compile and count every kernel themselves.
  setenv("PTXCAST_CACHE", "off", 1);
  const std::string Args = "compare --models lenet5,alexnet,mobilenetv2 --gpus t4,h100 "
                           "--batch 1,4 --format csv --threads ";
  RunResult One = runPtxcast(Args + "1");
  RunResult Two = runPtxcast(Args + "2");
  REQUIRE_MESSAGE(One.status == 0, One.err);
  REQUIRE_MESSAGE(Two.status == 0, Two.err);
  CHECK(One.out.size() > 500);
  CHECK(One.out == Two.out);
  // Two ONNX files that import but do not lower: whichever finishes first, the error names the
  // first of them.
  clitest::TempDir Dir("side_by_side");
  for (const char *Name : {"b.onnx", "a.onnx"})
    clitest::writeFile(Dir / Name, clitest::unlowerableOnnx());
  RunResult Bad = runPtxcast("compare --models lenet5," + Dir / "b.onnx" + "," + Dir / "a.onnx" +
                             " --gpus t4 --threads 2");
  CHECK(Bad.status == 1);
  CHECK(Bad.out.empty());
  CHECK_MESSAGE(Bad.err.rfind(Dir / "b.onnx" + ": error: layer 'c'", 0) == 0, Bad.err);
}

TEST_CASE("compare: a GPU with no published base clock is not slower than one it beats at the "
          "clocks a network runs at") {
  // The B200 beats the H100 on every figure but the base clock (unpublished). At batch 1 the
  // learned efficiency put EfficientNet-B0 on it at 0.75 ms against the H100's 0.70; both run
  // it at their boost clock, so the rule holds it to its own bound at the H100's efficiency.
  // The GH200 too, whose TF32 peak a datasheet rounds 0.04 % under the H100's.
  Json J = jsonOf("compare --models efficientnet-b0,mobilenetv2 --gpus h100,b200,gh200 --batch 1");
  std::map<std::string, std::map<std::string, double>> Ms;
  for (const Json &Row : J["results"])
    Ms[Row["model"]][Row["gpu"]] = Row["time_ms"].get<double>();
  REQUIRE(Ms.size() == 2);
  for (const auto &[Model, Time] : Ms) {
    CHECK_MESSAGE(Time.at("b200") <= Time.at("h100-sxm"), Model);
    CHECK_MESSAGE(Time.at("gh200") <= Time.at("h100-sxm"), Model);
  }
}
