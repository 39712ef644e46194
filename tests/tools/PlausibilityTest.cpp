// What users notice at once, over the whole catalog and the zoo with the shipped model: a GPU at
// least as good as another on every spec line the physical skeleton uses is never predicted
// slower nor tied with it (batch 1, 8 and 32), and a Jetson is never within 2x of an H100 at batch
// 32 unless the network is mostly launch latency (docs/cross-gpu.md, "The dominance rule").
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

using Json = nlohmann::json;
using clitest::runPtxcast;
using clitest::RunResult;

namespace {

/// The figures of a GPU the skeleton reads, each oriented so that larger is better.
std::vector<double> specLines(const Json &G) {
  std::vector<double> V;
  const Json &L = G.at("limits");
  // Tensor multiply-adds run at the rate warp-level mma.sync reaches (half the peak on Hopper).
  const double Full = L.value("tensor_fp16_flops_per_clock_per_sm", 0.0);
  const double MmaSync = L.value("mma_sync_fp16_flops_per_clock_per_sm", 0.0);
  const double Share = MmaSync > 0 && Full > 0 ? MmaSync / Full : 1.0;
  for (const char *Key : {"sm_count", "fp32_cores_per_sm", "boost_clock_mhz", "fp16_tflops",
                          "fp64_tflops", "tensor_fp16_tflops", "tensor_bf16_tflops",
                          "tensor_tf32_tflops", "memory_bandwidth_gbs", "l2_mb"})
    V.push_back(G.at(Key).get<double>() *
                (std::string_view(Key).starts_with("tensor") ? Share : 1.0));
  for (const char *Key :
       {"max_threads_per_sm", "max_ctas_per_sm", "max_warps_per_sm", "registers_per_sm",
        "shared_mem_per_sm_kb", "warp_schedulers_per_sm", "int32_lanes_per_sm", "sfu_lanes_per_sm",
        "l1_bytes_per_clock_per_sm", "l2_bytes_per_clock_per_sm"})
    V.push_back(L.at(Key).get<double>());
  V.push_back(-L.at("register_alloc_unit").get<double>());
  V.push_back(-L.at("shared_mem_per_cta_reserved_kb").get<double>());
  V.push_back(L.value("int32_shares_fp32", false) ? 0 : 1);
  V.push_back(L.value("dual_issue", false) ? 1 : 0);
  // The power model (hardware/Power.h): a Jetson module runs its mode's clock, so its power
  // figures count as the worst and its floor is that clock; other GPUs never drop below base.
  const bool Module = G.at("form_factor") == "module";
  const double Base = G.at("base_clock_mhz").get<double>();
  const double Boost = G.at("boost_clock_mhz").get<double>();
  V.push_back(Module ? 0 : G.at("tdp_w").get<double>());
  V.push_back(Module ? Boost : Base > 0 ? Base : 0.5 * Boost);
  const Json &E = G.at("energy");
  V.push_back(Module ? -1e9 : -E.at("process_relative_energy").get<double>());
  V.push_back(Module ? -1e9 : -E.at("memory_pj_per_bit").get<double>());
  V.push_back(E.at("max_clock_mhz").get<double>()); // GPU Boost's top clock (GeForce: above boost)
  return V;
}

/// X is at least as good as Y on every line, and better on one.
bool dominates(const std::vector<double> &X, const std::vector<double> &Y) {
  bool Better = false;
  for (size_t I = 0; I < X.size(); ++I) {
    if (X[I] < Y[I])
      return false;
    Better |= X[I] > Y[I];
  }
  return Better;
}

} // namespace

TEST_CASE("plausibility: better GPUs are never slower, and Jetsons are not H100s") {
  RunResult Gpus = runPtxcast("gpus --format json");
  REQUIRE_MESSAGE(Gpus.status == 0, Gpus.err);
  std::map<std::string, std::vector<double>> Specs;
  std::vector<std::string> Jetsons;
  const Json Catalog = Json::parse(Gpus.out);
  for (const Json &G : Catalog["gpus"]) {
    std::string Name = G["name"];
    Specs[Name] = specLines(G);
    if (Name.starts_with("jetson"))
      Jetsons.push_back(Name);
  }
  REQUIRE(Specs.size() >= 70);
  std::vector<std::pair<std::string, std::string>> Pairs; // (better, worse)
  for (const auto &[X, SX] : Specs)
    for (const auto &[Y, SY] : Specs)
      if (dominates(SX, SY))
        Pairs.emplace_back(X, Y);
  MESSAGE(Pairs.size() << " pairs where one GPU dominates another on every spec line");
  REQUIRE(Pairs.size() >= 100);

  RunResult R = runPtxcast("compare --models all --gpus all --batch 1,8,32 --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  // (model, batch) -> gpu -> ms; and the share of the H100's bound that is launch latency
  std::map<std::pair<std::string, int>, std::map<std::string, double>> Ms, Bound;
  std::map<std::pair<std::string, int>, double> H100LatencyShare;
  const Json Results = Json::parse(R.out);
  for (const Json &Row : Results["results"]) {
    std::pair<std::string, int> Key{Row["model"], Row["batch"]};
    Ms[Key][Row["gpu"]] = Row["time_ms"].get<double>();
    Bound[Key][Row["gpu"]] = Row["bound_ms"].get<double>();
    if (Row["gpu"] == "h100-sxm")
      H100LatencyShare[Key] =
          Row["launch_latency_ms"].get<double>() / Row["bound_ms"].get<double>();
  }
  REQUIRE(Ms.size() >= 40);
  size_t Violations = 0;
  for (const auto &[Key, Time] : Ms)
    for (const auto &[Better, Worse] : Pairs)
      if (Time.at(Better) > Time.at(Worse) * (1 + 1e-9)) {
        ++Violations;
        if (Violations <= 10)
          MESSAGE(Key.first << " batch " << Key.second << ": " << Better << " " << Time.at(Better)
                            << " ms, slower than " << Worse << " " << Time.at(Worse) << " ms");
      }
  CHECK(Violations == 0);
  // No two GPUs the skeleton tells apart (a smaller bound for the better one) get the same time:
  // a clamp to a dominated GPU's time would tie them; the dominance rule gives the better GPU its
  // own bound instead. GPUs whose bounds are equal (the A100 40 GB SXM and PCIe both hold their
  // boost clock on a network) may tie.
  size_t Ties = 0;
  for (const auto &[Key, Time] : Ms)
    for (const auto &[Better, Worse] : Pairs)
      if (Time.at(Better) == Time.at(Worse) &&
          Bound.at(Key).at(Better) < Bound.at(Key).at(Worse) * (1 - 1e-9)) {
        ++Ties;
        if (Ties <= 10)
          MESSAGE(Key.first << " batch " << Key.second << ": " << Better << " and " << Worse
                            << " tie at " << Time.at(Better) << " ms");
      }
  CHECK(Ties == 0);
  // A network whose H100 bound is mostly launch latency (LeNet-5: 7 launches and PyTorch's
  // bias adds and activations, of almost no work) is bound by the front end's clock on both GPUs,
  // and a Jetson's clock is within 2x of the H100's; every other network does real work, where a
  // Jetson is far behind.
  for (const auto &[Key, Time] : Ms)
    if (Key.second == 32)
      for (const std::string &J : Jetsons) {
        CAPTURE(Key.first);
        CAPTURE(J);
        if (H100LatencyShare.at(Key) > 0.5)
          CHECK(Time.at(J) >= 1.2 * Time.at("h100-sxm"));
        else
          CHECK(Time.at(J) >= 2 * Time.at("h100-sxm"));
      }
}

TEST_CASE("plausibility: a larger batch does not make a batch's bound smaller") {
  // ptxcast lowers a dense layer of fewer than 8 rows as a GEMV that reads the weights once per
  // row; PyTorch's cuBLAS reads them once per product. Counted as ptxcast's GEMV, AlexNet's
  // bound grew 4x from batch 2 to 7 and fell at 8, where the lowering switches to a GEMM, and
  // `--max-batch` searched a time that was not monotone; and it fell from batch 1 to 2.
  RunResult R = runPtxcast("compare --models alexnet,vgg16 --gpus t4,jetson-agx-orin@15w "
                           "--batch 1,2,4,7,8,16 --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  const Json Doc = Json::parse(R.out);
  std::map<std::pair<std::string, std::string>, std::vector<double>> Bounds;
  for (const Json &C : Doc.at("results"))
    Bounds[{C.at("model").get<std::string>(), C.at("gpu").get<std::string>()}].push_back(
        C.at("bound_ms").get<double>());
  REQUIRE(Bounds.size() == 4);
  for (const auto &[Key, B] : Bounds) {
    CAPTURE(Key.first);
    CAPTURE(Key.second);
    REQUIRE(B.size() == 6);
    for (size_t I = 1; I < B.size(); ++I)
      CHECK(B[I] >= B[I - 1]);
  }
}
