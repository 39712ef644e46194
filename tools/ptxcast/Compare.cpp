// `ptxcast compare --models A,B,... --gpus X,Y,... [--batch N,...] [--budget-ms T]
// [--plot FILE.png|FILE.svg] [--format table|json|csv]`: the prediction matrix of models x GPUs x
// batch sizes, which pairs meet a time budget, images/s per watt of catalog TDP, and a heat-map
// plot. Each model and batch is analysed once (analysis does not depend on the GPU).
#include "Commands.h"
#include "Documents.h"
#include "GpuOption.h"
#include "NetworkAnalysis.h"
#include "Prediction.h"
#include "SvgChart.h"

#include "corpus/Zoo.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cmath>
#include <memory>

namespace ptxcast {
namespace {

using OJson = nlohmann::ordered_json;

struct Cell {
  std::string input;
  GpuPrediction prediction;
};

bool meets(const CompareOptions &O, const GpuPrediction &G) {
  return O.budgetMs > 0 && G.timeMs <= O.budgetMs;
}

/// Expands "all" and checks every name before any analysis runs.
support::Expected<std::vector<hardware::GpuSpec>> resolve(CompareOptions &O,
                                                          const hardware::GpuCatalog &Catalog) {
  if (O.models.size() == 1 && O.models[0] == "all") {
    O.models.clear();
    for (const corpus::ZooModel &M : corpus::zooModels())
      O.models.push_back(M.name);
  }
  for (size_t I = 0; I < O.models.size(); ++I)
    if (!isOnnxPath(O.models[I]) && (I >= O.modelBytes.size() || O.modelBytes[I].empty()))
      if (auto N = corpus::buildZooModel(O.models[I]); !N)
        return N.error();
  if (O.gpus.size() == 1 && O.gpus[0] == "all")
    O.gpus = Catalog.names();
  O.gpus.insert(O.gpus.end(), O.gpuSpecs.begin(), O.gpuSpecs.end());
  std::vector<hardware::GpuSpec> Gpus;
  for (const std::string &Name : O.gpus) {
    auto G = resolveGpu(Name, Catalog);
    if (!G)
      return G.error();
    Gpus.push_back(*G);
  }
  return Gpus;
}

support::Expected<std::vector<Cell>> predictAll(const CompareOptions &O,
                                                const learners::Predictor &P,
                                                const std::vector<hardware::GpuSpec> &Gpus,
                                                const hardware::GpuCatalog &Catalog) {
  std::vector<Cell> Cells;
  corpus::KernelCache Cache; // models share layer shapes (EfficientNet-B0..B7 at one batch)
  const size_t Total = O.models.size() * O.batches.size();
  size_t Done = 0;
  for (size_t I = 0; I < O.models.size(); ++I)
    for (int64_t Batch : O.batches) {
      const std::string &Model = O.models[I];
      NetworkRequest R;
      R.input = Model;
      R.batch = Batch;
      R.imageSize = O.imageSize;
      R.dtype = O.dtype;
      R.threads = O.threads;
      R.cache = &Cache;
      if (I < O.modelBytes.size())
        R.onnxBytes = O.modelBytes[I];
      if (O.progress)
        R.progress = [](size_t, size_t) {}; // the caller reports per network instead
      auto N = analyseNetwork(R);
      if (!N)
        return N.error();
      auto G = predictOnGpus(*N, P, Gpus, O.settings, Catalog);
      if (!G)
        return G.error();
      for (GpuPrediction &X : *G)
        Cells.push_back({Model, std::move(X)});
      if (O.progress)
        O.progress(++Done, Total);
    }
  return Cells;
}

std::string bandText(const GpuPrediction &G) {
  return G.intervalMs ? fmt::format("{:.4g}..{:.4g}", G.intervalMs->first, G.intervalMs->second)
                      : "-";
}

void printTable(const CompareOptions &O, const learners::Predictor &P,
                const std::vector<Cell> &Cells) {
  fmt::print("{}\n{} runtime, {} networks\n\n", predictorSummary(P),
             runtimeName(O.settings.runtime), O.dtype);
  fmt::print("{:<20} {:>6} {:<18} {:>11} {:>19} {:>11} {:>10}{}\n", "model", "batch", "gpu",
             "ms/batch", "band ms", "images/s", "img/s/W", O.budgetMs > 0 ? "  budget" : "");
  size_t Meeting = 0, Warned = 0, Floored = 0;
  for (const Cell &C : Cells) {
    const GpuPrediction &G = C.prediction;
    const bool Floor = !G.dominanceFloor.empty();
    fmt::print("{:<20} {:>6} {:<18} {:>10.4g}{} {:>19} {:>11.4g} {:>10.3g}{}\n", C.input, G.batch,
               G.gpu.name, G.timeMs, Floor ? "*" : " ", bandText(G), G.imagesPerSecond(),
               G.imagesPerSecondPerWatt(), O.budgetMs > 0 ? (meets(O, G) ? "  meets" : "  over") : "");
    Meeting += meets(O, G);
    Warned += !G.warnings.empty();
    Floored += Floor;
  }
  if (Floored)
    fmt::print("\n* {} of {} times: the learned efficiency would have put the GPU behind one it "
               "matches or beats on every figure the skeleton reads; shown is its own bound at that "
               "GPU's learned efficiency (dominance_floor in --format csv or json)\n",
               Floored, Cells.size());
  if (O.budgetMs > 0)
    fmt::print("\n{} of {} model/GPU pairs meet the budget of {:g} ms per batch\n", Meeting,
               Cells.size(), O.budgetMs);
  if (Warned)
    fmt::print("{} of {} predictions carry outside-the-training-data warnings (see --format "
               "json or `ptxcast predict`)\n",
               Warned, Cells.size());
}

void printCsv(const std::vector<Cell> &Cells, const CompareOptions &O) {
  fmt::print("model,batch,gpu,time_ms,low_ms,high_ms,images_per_s,images_per_s_per_w,"
             "meets_budget,warnings,clock_mhz,dominance_floor\n");
  for (const Cell &C : Cells) {
    const GpuPrediction &G = C.prediction;
    fmt::print("{},{},{},{},{},{},{},{},{},{},{},{}\n", C.input, G.batch, G.gpu.name, G.timeMs,
               G.intervalMs ? fmt::format("{}", G.intervalMs->first) : "",
               G.intervalMs ? fmt::format("{}", G.intervalMs->second) : "", G.imagesPerSecond(),
               G.imagesPerSecondPerWatt(), O.budgetMs > 0 ? (meets(O, G) ? "1" : "0") : "",
               G.warnings.size(), G.clock.mhz, G.dominanceFloor);
  }
}

OJson resultsJson(const CompareOptions &O, const learners::Predictor &P,
                  const std::vector<Cell> &Cells) {
  OJson Rows = OJson::array();
  for (const Cell &C : Cells) {
    const GpuPrediction &G = C.prediction;
    OJson Band = G.intervalMs ? OJson{G.intervalMs->first, G.intervalMs->second} : OJson(nullptr);
    Rows.push_back({{"model", C.input},
                    {"batch", G.batch},
                    {"gpu", G.gpu.name},
                    {"math", hardware::mathModeName(G.math)},
                    {"launches", G.launches},
                    {"time_ms", G.timeMs},
                    {"bound_ms", G.boundMs},
                    {"launch_latency_ms", G.launchLatencyMs},
                    {"interval_ms", Band},
                    {"images_per_s", G.imagesPerSecond()},
                    {"tdp_w", G.gpu.tdpW},
                    {"clock_mhz", G.clock.mhz},
                    {"clock_limiter", G.clock.limiter},
                    {"images_per_s_per_w", G.imagesPerSecondPerWatt()},
                    {"dominance_floor", G.dominanceFloor.empty() ? OJson(nullptr)
                                                                 : OJson(G.dominanceFloor)},
                    {"meets_budget", O.budgetMs > 0 ? OJson(meets(O, G)) : OJson(nullptr)},
                    {"warnings", G.warnings}});
  }
  return {{"model", predictorJson(P)},
          {"runtime", runtimeName(O.settings.runtime)},
          {"dtype", O.dtype},
          {"budget_ms", O.budgetMs > 0 ? OJson(O.budgetMs) : OJson(nullptr)},
          {"results", Rows}};
}

HeatMap heatMap(const CompareOptions &O, const learners::Predictor &P,
                const std::vector<Cell> &Cells) {
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
    const Cell &First = Cells[Row * NumGpus];
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

/// The bundle and every cell, with O's names expanded ("all") and settings parsed.
struct Matrix {
  learners::Predictor predictor;
  std::vector<Cell> cells;
};

support::Expected<Matrix> predictMatrix(CompareOptions &O) {
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog)
    return Catalog.error();
  auto Gpus = resolve(O, *Catalog);
  if (!Gpus)
    return Gpus.error();
  auto Settings = predictSettings(O.runtime, O.math, O.host, &*Catalog);
  if (!Settings)
    return Settings.error();
  O.settings = *Settings;
  O.settings.breakdown = false; // a cell shows the network's total only
  auto P = choosePredictor(O.model);
  if (!P)
    return P.error();
  auto Cells = predictAll(O, *P, *Gpus, *Catalog);
  if (!Cells)
    return Cells.error();
  return Matrix{std::move(*P), std::move(*Cells)};
}

int fail(const support::Error &E) {
  fmt::print(stderr, "{}\n", E.str());
  return 1;
}

int runCompare(CompareOptions O) {
  auto M = predictMatrix(O);
  if (!M)
    return fail(M.error());
  if (O.format == "json")
    fmt::print("{}\n", resultsJson(O, M->predictor, M->cells).dump(2));
  else if (O.format == "csv")
    printCsv(M->cells, O);
  else
    printTable(O, M->predictor, M->cells);
  if (!O.plot.empty())
    if (auto E = writePlot(heatMapSvg(heatMap(O, M->predictor, M->cells)), O.plot))
      return fail(*E);
  return 0;
}

} // namespace

support::Expected<OJson> compareDocument(CompareOptions O) {
  auto M = predictMatrix(O);
  if (!M)
    return M.error();
  return resultsJson(O, M->predictor, M->cells);
}

void addCompareCommand(CLI::App &App) {
  auto O = std::make_shared<CompareOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "compare", "predict every model on every GPU (and batch size): the matrix, a time budget, "
                 "images/s per watt, and a heat-map plot (docs/predict.md)");
  Cmd->add_option("--models", O->models, "zoo models or FILE.onnx, comma separated, or all")
      ->delimiter(',')
      ->required();
  CLI::Option_group *Gpus = Cmd->add_option_group("gpus", "the GPUs to predict for");
  Gpus->add_option("--gpus", O->gpus,
                   "catalog GPU names or GPU spec FILE.json, comma separated, or all")
      ->delimiter(',');
  Gpus->add_option("--gpu-spec", O->gpuSpecs, "GPUs described in FILE.json (docs/gpu-catalog.md)")
      ->check(CLI::ExistingFile);
  Gpus->require_option();
  Cmd->add_option("--batch", O->batches, "batch sizes, comma separated (1..4096)")
      ->delimiter(',')
      ->check(CLI::Range(int64_t(1), int64_t(4096)))
      ->capture_default_str();
  Cmd->add_option("--budget-ms", O->budgetMs, "time budget per batch in ms")
      ->check(CLI::PositiveNumber);
  Cmd->add_option("--plot", O->plot, "write a heat map of the matrix to FILE.svg or FILE.png");
  Cmd->add_option("--format", O->format, "output format")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  Cmd->add_option("--image-size", O->imageSize,
                  "input height = width, 16..1024 (default: each model's own)")
      ->check(CLI::Range(int64_t(16), int64_t(1024)));
  Cmd->add_option("--dtype", O->dtype, "element type: f32, or f16 (PyTorch autocast / half)")
      ->check(CLI::IsMember({"f32", "f16"}))
      ->capture_default_str();
  addRuntimeOptions(*Cmd, O->runtime, O->math, O->host);
  Cmd->add_option("--model", O->model,
                  "shipped model name or a bundle FILE.json (default: the shipped cross-gpu)");
  Cmd->add_option("--threads", O->threads, "analysis worker threads (0 = all cores)");
  Cmd->callback([O] {
    if (int Status = runCompare(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
