// `ptxcast predict MODEL|FILE.onnx --gpu NAME [--batch N] [--image-size S] [--dtype f32|f16]
// [--learner NAME] [--model NAME|FILE.json] [--format table|json]`: time per batch and per image,
// images/s, the cross-validated error band, a per-launch-kind breakdown and warnings when the GPU
// or the network lies outside the training data (docs/predict.md).
#include "Commands.h"
#include "GpuOption.h"
#include "NetworkAnalysis.h"
#include "Prediction.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <chrono>
#include <memory>

namespace ptxcast {
namespace {

using OJson = nlohmann::ordered_json;

struct PredictOptions {
  NetworkRequest network;
  std::string gpu;
  PredictorChoice choice;
  std::string format = "table";
  bool timings = false;
};

OJson intervalJson(const GpuPrediction &G) {
  if (!G.intervalMs)
    return nullptr;
  return {G.intervalMs->first, G.intervalMs->second};
}

OJson predictionJson(const NetworkAnalysis &N, const learners::Predictor &P,
                     const GpuPrediction &G) {
  OJson Kinds = OJson::array();
  for (const KindTime &K : G.breakdown)
    Kinds.push_back({{"kind", K.kind},
                     {"launches", K.launches},
                     {"time_ms", K.ms},
                     {"share", G.timeMs > 0 ? K.ms / G.timeMs : 0}});
  return {{"network", N.network},
          {"gpu", G.gpu.name},
          {"gpu_full_name", G.gpu.fullName},
          {"batch", N.batch},
          {"image_size", N.imageSize},
          {"dtype", N.dtype},
          {"launches", N.launches.size()},
          {"time_ms", G.timeMs},
          {"interval_ms", intervalJson(G)},
          {"time_per_image_ms", G.perImageMs()},
          {"images_per_s", G.imagesPerSecond()},
          {"tdp_w", G.gpu.tdpW},
          {"images_per_s_per_w", G.imagesPerSecondPerWatt()},
          {"breakdown_basis", G.breakdownBasis},
          {"breakdown", Kinds},
          {"warnings", G.warnings},
          {"model", predictorJson(P)}};
}

void printTable(const NetworkAnalysis &N, const learners::Predictor &P, const GpuPrediction &G) {
  fmt::print("{} ({}x{}, batch {}, {}, {} launches) on {} ({})\n", N.network, N.imageSize,
             N.imageSize, N.batch, N.dtype, N.launches.size(), G.gpu.fullName, G.gpu.name);
  fmt::print("{}\n\n", predictorSummary(P));
  std::string Band = G.intervalMs ? fmt::format("   band {:.4g} .. {:.4g} ms", G.intervalMs->first,
                                                G.intervalMs->second)
                                  : std::string("   (no error band)");
  fmt::print("time per batch  {:>12.4g} ms{}\n", G.timeMs, Band);
  fmt::print("time per image  {:>12.4g} ms\n", G.perImageMs());
  fmt::print("throughput      {:>12.4g} images/s", G.imagesPerSecond());
  if (G.gpu.tdpW > 0)
    fmt::print("   {:.3g} images/s per W at {:g} W TDP", G.imagesPerSecondPerWatt(), G.gpu.tdpW);
  fmt::print("\n\nby launch kind ({}):\n", G.breakdownBasis);
  fmt::print("  {:<24} {:>8} {:>12} {:>7}\n", "kind", "launches", "time ms", "share");
  for (const KindTime &K : G.breakdown)
    fmt::print("  {:<24} {:>8} {:>12.4g} {:>6.1f}%\n", K.kind, K.launches, K.ms,
               G.timeMs > 0 ? 100 * K.ms / G.timeMs : 0.0);
  for (const std::string &W : G.warnings)
    fmt::print("warning: {}\n", W);
}

int fail(const support::Error &E) {
  fmt::print(stderr, "{}\n", E.str());
  return 1;
}

int runPredict(PredictOptions O) {
  auto Start = std::chrono::steady_clock::now();
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog)
    return fail(Catalog.error());
  auto Gpu = resolveGpu(O.gpu, *Catalog);
  if (!Gpu)
    return fail(Gpu.error());
  O.choice.gpu = Gpu->name;
  auto P = choosePredictor(O.choice);
  if (!P)
    return fail(P.error());
  O.network.dtype = P->info().dtype;
  auto N = analyseNetwork(O.network);
  if (!N)
    return fail(N.error());
  auto G = predictOnGpu(*N, *P, *Gpu);
  if (!G)
    return fail(G.error());
  if (O.format == "json")
    fmt::print("{}\n", predictionJson(*N, *P, *G).dump(2));
  else
    printTable(*N, *P, *G);
  if (O.timings) {
    double Total = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    fmt::print(stderr, "timings: build+lower {:.3f} s, fast analysis {:.3f} s, total {:.3f} s\n",
               N->lowerSeconds, N->analyseSeconds, Total);
  }
  return 0;
}

} // namespace

void addPredictCommand(CLI::App &App) {
  auto O = std::make_shared<PredictOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "predict", "predict a network's time per batch on a GPU, with an error band, a per-kind "
                 "breakdown and outside-the-data warnings (docs/predict.md)");
  Cmd->add_option("input", O->network.input, "zoo model name (see `ptxcast zoo`) or FILE.onnx")
      ->required();
  CLI::Option_group *Gpu = Cmd->add_option_group("gpu", "the GPU to predict for (one of)");
  Gpu->add_option("--gpu", O->gpu,
                  "catalog name (`ptxcast gpus`: h100, rtx-5090, orin-nano@15w, ...) or a GPU spec "
                  "FILE.json");
  Gpu->add_option("--gpu-spec", O->gpu, "a GPU described in FILE.json (docs/gpu-catalog.md)")
      ->check(CLI::ExistingFile);
  Gpu->require_option(1);
  Cmd->add_option("--batch", O->network.batch, "batch size (1..4096)")
      ->check(CLI::Range(int64_t(1), int64_t(4096)))
      ->capture_default_str();
  Cmd->add_option("--image-size", O->network.imageSize,
                  "input height = width, zoo models (16..1024; default: the model's own)")
      ->check(CLI::Range(int64_t(16), int64_t(1024)));
  Cmd->add_option("--dtype", O->choice.dtype,
                  "element type (default: that of the chosen model, f32 for the shipped default)")
      ->check(CLI::IsMember({"f32", "f16"}));
  Cmd->add_option("--learner", O->choice.learner,
                  "use the shipped model of this learner (linear, knn, tree, forest, xgboost)");
  Cmd->add_option("--model", O->choice.model, "shipped model name or a bundle FILE.json");
  Cmd->add_option("--format", O->format, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  Cmd->add_option("--threads", O->network.threads, "analysis worker threads (0 = all cores)");
  Cmd->add_flag("--timings", O->timings, "print where the time went to stderr");
  Cmd->callback([O] {
    if (int Status = runPredict(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
