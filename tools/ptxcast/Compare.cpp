// `ptxcast compare --models A,B,... --gpus X,Y,... [--batch N,...] [--budget-ms T]
// [--plot FILE.png|FILE.svg] [--format table|json|csv]`: the prediction matrix of models x GPUs x
// batch sizes, which pairs meet a time budget, images/s per watt of catalog TDP, and a heat-map
// plot. Each model and batch is analysed once (analysis does not depend on the GPU).
#include "Commands.h"
#include "SvgChart.h"

#include "pipeline/Documents.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cmath>
#include <memory>

namespace ptxcast {
namespace {

using pipeline::CompareCell;
using pipeline::CompareResult;
using pipeline::GpuPrediction;

/// The flags of `ptxcast compare`: the engine's request and how to print.
struct CompareFlags {
  pipeline::CompareRequest request;
  std::string plot;
  std::string format = "table";
};

std::string bandText(const GpuPrediction &G) {
  return G.intervalMs ? fmt::format("{:.4g}..{:.4g}", G.intervalMs->first, G.intervalMs->second)
                      : "-";
}

void printTable(const CompareResult &M) {
  const pipeline::CompareRequest &O = M.request;
  const std::vector<CompareCell> &Cells = M.cells;
  fmt::print("{}\n{} runtime, {} networks\n\n", pipeline::predictorSummary(M.predictor),
             pipeline::runtimeName(M.settings.runtime), O.dtype);
  fmt::print("{:<20} {:>6} {:<18} {:>11} {:>19} {:>11} {:>10}{}\n", "model", "batch", "gpu",
             "ms/batch", "band ms", "images/s", "img/s/W", O.budgetMs > 0 ? "  budget" : "");
  size_t Meeting = 0, Warned = 0, Floored = 0;
  for (const CompareCell &C : Cells) {
    const GpuPrediction &G = C.prediction;
    const bool Floor = !G.dominanceFloor.empty();
    fmt::print("{:<20} {:>6} {:<18} {:>10.4g}{} {:>19} {:>11.4g} {:>10.3g}{}\n", C.input, G.batch,
               G.gpu.name, G.timeMs, Floor ? "*" : " ", bandText(G), G.imagesPerSecond(),
               G.imagesPerSecondPerWatt(),
               O.budgetMs > 0 ? (M.meets(G) ? "  meets" : "  over") : "");
    Meeting += M.meets(G);
    Warned += !G.warnings.empty();
    Floored += Floor;
  }
  if (Floored)
    fmt::print("\n* {} of {}: the learned efficiency would have put the GPU behind one it matches "
               "or beats on every figure the skeleton reads; shown is its own bound at that GPU's "
               "efficiency (dominance_floor in --format csv or json)\n",
               Floored, Cells.size());
  if (O.budgetMs > 0)
    fmt::print("\n{} of {} model/GPU pairs meet the budget of {:g} ms per batch\n", Meeting,
               Cells.size(), O.budgetMs);
  if (Warned)
    fmt::print("{} of {} predictions carry outside-the-training-data warnings (see --format "
               "json or `ptxcast predict`)\n",
               Warned, Cells.size());
}

void printCsv(const CompareResult &M) {
  const pipeline::CompareRequest &O = M.request;
  const std::vector<CompareCell> &Cells = M.cells;
  fmt::print("model,batch,gpu,time_ms,low_ms,high_ms,images_per_s,images_per_s_per_w,"
             "meets_budget,warnings,clock_mhz,dominance_floor\n");
  for (const CompareCell &C : Cells) {
    const GpuPrediction &G = C.prediction;
    fmt::print("{},{},{},{},{},{},{},{},{},{},{},{}\n", C.input, G.batch, G.gpu.name, G.timeMs,
               G.intervalMs ? fmt::format("{}", G.intervalMs->first) : "",
               G.intervalMs ? fmt::format("{}", G.intervalMs->second) : "", G.imagesPerSecond(),
               G.imagesPerSecondPerWatt(), O.budgetMs > 0 ? (M.meets(G) ? "1" : "0") : "",
               G.warnings.size(), G.clock.mhz, G.dominanceFloor);
  }
}

HeatMap heatMap(const CompareResult &M) {
  const pipeline::CompareRequest &O = M.request;
  const std::vector<CompareCell> &Cells = M.cells;
  const learners::Predictor &P = M.predictor;
  HeatMap H;
  H.title = "Predicted time per batch (ms)";
  H.subtitle = fmt::format("model {}: {}", P.info().name, P.model().predicts());
  H.unit = "ms";
  if (O.budgetMs > 0)
    H.budget = O.budgetMs;
  size_t NumGpus = O.gpus.size();
  for (size_t I = 0; I < NumGpus && I < Cells.size(); ++I)
    H.columns.push_back(Cells[I].prediction.gpu.name);
  for (size_t Row = 0; Row * NumGpus < Cells.size(); ++Row) {
    const CompareCell &First = Cells[Row * NumGpus];
    H.rows.push_back(O.batches.size() > 1
                         ? fmt::format("{} (batch {})", First.input, First.prediction.batch)
                         : First.input);
    std::vector<double> Values;
    for (size_t C = 0; C < NumGpus; ++C)
      Values.push_back(Cells[Row * NumGpus + C].prediction.timeMs);
    H.values.push_back(std::move(Values));
  }
  return H;
}

int fail(const support::Error &E) {
  fmt::print(stderr, "{}\n", E.str());
  return 1;
}

int runCompare(const CompareFlags &O) {
  auto M = pipeline::compareNetworks(O.request);
  if (!M)
    return fail(M.error());
  if (O.format == "json")
    fmt::print("{}\n", pipeline::compareJson(*M).dump(2));
  else if (O.format == "csv")
    printCsv(*M);
  else
    printTable(*M);
  if (!O.plot.empty())
    if (auto E = writePlot(heatMapSvg(heatMap(*M)), O.plot))
      return fail(*E);
  return 0;
}

} // namespace

void addCompareCommand(CLI::App &App) {
  auto O = std::make_shared<CompareFlags>();
  pipeline::CompareRequest &R = O->request; // the fields CLI11 fills
  CLI::App *Cmd = App.add_subcommand(
      "compare", "predict every model on every GPU (and batch size): the matrix, a time budget, "
                 "images/s per watt, and a heat-map plot (docs/predict.md)");
  Cmd->add_option("--models", R.models, "zoo models or FILE.onnx, comma separated, or all")
      ->delimiter(',')
      ->required();
  CLI::Option_group *Gpus = Cmd->add_option_group("gpus", "the GPUs to predict for");
  Gpus->add_option("--gpus", R.gpus,
                   "catalog GPU names or GPU spec FILE.json, comma separated, or all")
      ->delimiter(',');
  Gpus->add_option("--gpu-spec", R.gpuSpecs, "GPUs described in FILE.json (docs/gpu-catalog.md)")
      ->check(CLI::ExistingFile);
  Gpus->require_option();
  Cmd->add_option("--batch", R.batches, "batch sizes, comma separated (1..4096)")
      ->delimiter(',')
      ->check(CLI::Range(int64_t(1), int64_t(4096)))
      ->capture_default_str();
  Cmd->add_option("--budget-ms", R.budgetMs, "time budget per batch in ms")
      ->check(CLI::PositiveNumber);
  Cmd->add_option("--plot", O->plot, "write a heat map of the matrix to FILE.svg or FILE.png");
  Cmd->add_option("--format", O->format, "output format")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  Cmd->add_option("--image-size", R.imageSize,
                  "input height = width, 16..1024 (default: each model's own)")
      ->check(CLI::Range(int64_t(16), int64_t(1024)));
  Cmd->add_option("--dtype", R.dtype, "element type: f32, or f16 (PyTorch autocast / half)")
      ->check(CLI::IsMember({"f32", "f16"}))
      ->capture_default_str();
  addRuntimeOptions(*Cmd, R.runtime, R.math, R.host);
  Cmd->add_option("--model", R.model,
                  "shipped model name or a bundle FILE.json (default: the shipped cross-gpu)");
  Cmd->add_option("--threads", R.threads, "analysis worker threads (0 = all cores)");
  Cmd->callback([O] {
    if (int Status = runCompare(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
