// `ptxcast predict --runtime compile` and `compare --runtime eager,compile` end to end with the
// shipped model: torch.compile's pass structure launches fewer kernels than eager PyTorch, its
// bound is below the graph replay's, its host time is the generated wrapper's, and compare
// puts it beside the other runtimes.
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

using Json = nlohmann::json;
using clitest::runPtxcast;
using clitest::RunResult;

namespace {

Json predictJson(const std::string &Args) {
  RunResult R = runPtxcast("predict " + Args + " --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  return Json::parse(R.out);
}

} // namespace

TEST_CASE("predict --runtime compile: fewer kernels than eager, the wrapper's host time") {
  const std::string Net = "mobilenetv2-0.35 --gpu rtx4090 --dtype f16 --batch 4";
  Json Eager = predictJson(Net + " --runtime eager");
  Json Graph = predictJson(Net);
  Json Compiled = predictJson(Net + " --runtime compile");
  CHECK(Compiled["runtime"] == "compile");
  CHECK(Compiled["host"] == "x86-desktop"); // a GeForce card's host, as for eager
  CHECK(Compiled["kernels"].get<double>() < 0.85 * Eager["kernels"].get<double>());
  CHECK(Compiled["bound_ms"].get<double>() < Graph["bound_ms"].get<double>());
  CHECK(Compiled["launch_latency_ms"].get<double>() < Graph["launch_latency_ms"].get<double>());
  // Host time: per call and per kernel of the generated wrapper (hardware/Host.h), on the
  // desktop host's 1.65x speed, far below eager's 19.2 us per kernel.
  const double Kernels = Compiled["kernels"].get<double>();
  CHECK(Compiled["host_ms"].get<double>() ==
        doctest::Approx((0.035 * 0.4 + Kernels * 0.0091 * 0.4) / 1.65));
  CHECK(Compiled["host_ms"].get<double>() < Eager["host_ms"].get<double>() / 4);
  CHECK(Compiled["time_ms"].get<double>() ==
        doctest::Approx(std::max(Compiled["gpu_ms"].get<double>(),
                                 Compiled["host_ms"].get<double>())));
  RunResult Table = runPtxcast("predict " + Net + " --runtime compile");
  REQUIRE(Table.status == 0);
  CHECK(Table.out.find("compile runtime") != std::string::npos);
  CHECK(Table.out.find("host launch overhead") != std::string::npos);
}

TEST_CASE("compare --runtime eager,graph,compile,tensorrt: compile beside the others") {
  RunResult R = runPtxcast("compare --models mobilenetv2-0.35 --gpus rtx4090,h100 --dtype f16 "
                           "--batch 4 --runtime eager,graph,compile,tensorrt --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  const Json Doc = Json::parse(R.out);
  CHECK(Doc["runtime"] == "eager,graph,compile,tensorrt");
  REQUIRE(Doc["results"].size() == 8); // runtime x GPU, in the order asked
  CHECK(Doc["results"][4]["runtime"] == "compile");
  std::map<std::string, std::map<std::string, double>> Bound; // runtime -> gpu -> bound ms
  for (const Json &Row : Doc["results"])
    Bound[Row["runtime"]][Row["gpu"]] = Row["bound_ms"].get<double>();
  for (const std::string Gpu : {"rtx-4090", "h100-sxm"}) {
    CAPTURE(Gpu);
    CHECK(Bound["compile"][Gpu] < Bound["graph"][Gpu]);
  }
  // An unknown runtime lists compile among the valid ones (Python repeats these words).
  RunResult Bad = runPtxcast("predict lenet5 --gpu t4 --runtime jit");
  CHECK(Bad.status != 0);
  CHECK(Bad.err.find("jit not in {graph,eager,tensorrt,compile}") != std::string::npos);
}
