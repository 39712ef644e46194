// `ptxcast compare --models A,B,... --gpus X,Y,... [--batch N,... | --max-batch] [--budget-ms T]
// [--target-ips N] [--plot FILE.png|FILE.svg] [--format table|json|csv]`: the prediction matrix
// of models x GPUs x batch sizes, device memory, which pairs meet a time budget and an images/s
// target, the largest batch that does, images/s per watt of catalog TDP, and a heat-map plot.
// Each model and batch is analysed once (analysis does not depend on the GPU).
#include "Commands.h"

#include "pipeline/Documents.h"
#include "pipeline/HeatMap.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <map>
#include <memory>
#include <unistd.h>

namespace ptxcast {
namespace {

using pipeline::CompareCell;
using pipeline::CompareResult;
using pipeline::GpuPrediction;

/// The flags of `ptxcast compare`: the engine's request and how to print.
struct CompareFlags {
  pipeline::CompareRequest request;
  std::string plot;
  std::string plotValue; ///< empty: time, or images/s with --target-ips or --max-batch
  std::string format = "table";
};

std::string bandText(const GpuPrediction &G) {
  return G.intervalMs ? fmt::format("{:.4g}..{:.4g}", G.intervalMs->first, G.intervalMs->second)
                      : "-";
}

/// The targets column: "meets" (at the slow end of the band too), "maybe" (at the predicted
/// time only), or the first target missed.
std::string targetsText(const CompareResult &M, const GpuPrediction &G) {
  if (M.meets(G))
    return M.meetsAcrossBand(G) ? "meets" : "maybe";
  if (!G.memory.fits())
    return "no fit";
  return M.request.budgetMs > 0 && !M.withinBudget(G) ? "> budget" : "< target";
}

/// "within 33.3 ms per batch, at least 30 images/s, in memory".
std::string targetsSummary(const pipeline::CompareRequest &O) {
  std::string S;
  if (O.budgetMs > 0)
    S = fmt::format("within {:g} ms per batch, ", O.budgetMs);
  if (O.targetIps > 0)
    S += fmt::format("at least {:g} images/s, ", O.targetIps);
  return S + "in memory";
}

std::string batchText(const CompareCell &C) {
  return C.maxBatch && *C.maxBatch == 0 ? "none" : std::to_string(C.prediction.batch);
}

void printFooter(const CompareResult &M) {
  const pipeline::CompareRequest &O = M.request;
  size_t Meeting = 0, Safe = 0, Warned = 0, Floored = 0, Misfits = 0, Wider = 0;
  size_t LoweringLimited = 0;
  std::map<std::string, std::pair<double, size_t>> Calibrated; // GPU -> factor, timings
  for (const CompareCell &C : M.cells) {
    const GpuPrediction &G = C.prediction;
    Meeting += M.meets(G);
    Safe += M.meetsAcrossBand(G);
    Misfits += !G.memory.fits();
    const size_t Said = size_t(!G.memory.fits()) + size_t(G.calibrationTimings > 0); // own lines
    Warned += G.warnings.size() > Said;
    Floored += !G.dominanceFloor.empty();
    Wider += !G.engineDtype.empty() && G.engineDtype != O.dtype;
    LoweringLimited += C.loweringLimited;
    if (G.calibrationTimings)
      Calibrated[G.gpu.name] = {G.calibrationFactor, G.calibrationTimings};
  }
  const size_t N = M.cells.size();
  if (Floored)
    fmt::print("\n* {} of {}: the learned efficiency would have put the GPU behind one it matches "
               "or beats on every figure the skeleton reads; shown is its own bound at that GPU's "
               "efficiency (dominance_floor in --format csv or json)\n",
               Floored, N);
  fmt::print("\n");
  if (Wider && O.dtype == "int8")
    fmt::print("{} of {} int8 engines are predicted as their fp16 engine (fp32 without fast FP16), "
               "which is faster there: TensorRT keeps those tactics where they are (engine_dtype "
               "in --format json)\n",
               Wider, N);
  else if (Wider)
    fmt::print("{} of {} fp16 engines are predicted as their fp32 engine: TensorRT builds no fp16 "
               "on a GPU without fast FP16 (engine_dtype in --format json)\n",
               Wider, N);
  if (Misfits)
    fmt::print("! {} of {} do not fit in the GPU's memory (weights, peak activations, workspace "
               "and the runtime's reserve; docs/predict.md)\n",
               Misfits, N);
  if (O.maxBatch)
    fmt::print("batch: the largest up to {} that fits in memory{}{}; {} networks analysed to "
               "find them (doubling, then bisection; docs/predict.md)\n",
               pipeline::MaxBatch,
               O.budgetMs > 0 ? fmt::format(" within {:g} ms per batch", O.budgetMs) : "",
               LoweringLimited ? fmt::format(" and that the lowering builds ({} of them stop "
                                             "there: see their warnings)",
                                             LoweringLimited)
                               : "",
               M.analyses);
  if (M.hasTargets())
    fmt::print("{} of {} model/GPU pairs meet the targets ({}){}\n", Meeting, N, targetsSummary(O),
               Meeting > Safe ? fmt::format(", {} of them (\"maybe\") at the predicted time only, "
                                            "not at the slow end of their band",
                                            Meeting - Safe)
                              : "");
  if (Warned)
    fmt::print("{} of {} predictions carry other warnings: outside the training data, "
               "host-bound, ... (see --format json or `ptxcast predict`)\n",
               Warned, N);
  if (!Calibrated.empty()) {
    std::vector<std::string> Each;
    for (const auto &[Gpu, C] : Calibrated)
      Each.push_back(fmt::format("{} x{:.3g} ({} timing{})", Gpu, C.first, C.second,
                                 C.second == 1 ? "" : "s"));
    fmt::print("calibrated by your timings ({}): {}\n", O.calibrate, fmt::join(Each, ", "));
  }
  if (!M.leftOut.empty())
    fmt::print("left out of --gpus all: {} ({})\n", fmt::join(M.leftOut, ", "), M.leftOutWhy);
}

/// The gpu column: the GPU, and its runtime when the matrix has several.
std::string gpuText(const CompareResult &M, const GpuPrediction &G) {
  return M.severalRuntimes ? G.gpu.name + " " + std::string(pipeline::runtimeName(G.runtime))
                           : G.gpu.name;
}

void printTable(const CompareResult &M) {
  const pipeline::CompareRequest &O = M.request;
  fmt::print("{}\n{} runtime{}, {} networks\n\n", pipeline::predictorSummary(M.predictor),
             M.severalRuntimes ? O.runtime : pipeline::runtimeName(M.settings.runtime),
             M.severalRuntimes ? "s" : "",
             M.severalRuntimes && O.dtype == "f16"
                 ? "f16 (autocast under PyTorch, pure fp16 in an engine)"
                 : pipeline::dtypeText(O.dtype, M.settings.runtime));
  const size_t GpuW = M.severalRuntimes ? 27 : 18;
  fmt::print("{:<20} {:>6} {:<{}} {:>11} {:>19} {:>11} {:>10} {:>10}{}\n", "model", "batch", "gpu",
             GpuW, "ms/batch", "band ms", "images/s", "img/s/W", "memory",
             M.hasTargets() ? "  targets" : "");
  for (const CompareCell &C : M.cells) {
    const GpuPrediction &G = C.prediction;
    fmt::print("{:<20} {:>6} {:<{}} {:>10.4g}{} {:>19} {:>11.4g} {:>10.3g} {:>10}{}{}\n", C.input,
               batchText(C), gpuText(M, G), GpuW, G.timeMs, G.dominanceFloor.empty() ? " " : "*",
               bandText(G), G.imagesPerSecond(), G.imagesPerSecondPerWatt(),
               pipeline::bytesText(G.memory.totalBytes()), G.memory.fits() ? " " : "!",
               M.hasTargets() ? "  " + targetsText(M, G) : "");
  }
  printFooter(M);
}

std::string orEmpty(bool Given, bool Value) { return Given ? (Value ? "1" : "0") : ""; }

void printCsv(const CompareResult &M) {
  const pipeline::CompareRequest &O = M.request;
  fmt::print(
      "model,batch,gpu,time_ms,low_ms,high_ms,images_per_s,images_per_s_per_w,"
      "meets_budget,warnings,clock_mhz,dominance_floor,memory_bytes,fits_memory,"
      "meets_target_ips,meets_targets,meets_targets_band,max_batch,runtime,calibration,gpu_ms,"
      "host_ms\n");
  for (const CompareCell &C : M.cells) {
    const GpuPrediction &G = C.prediction;
    fmt::print(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", C.input, G.batch,
        G.gpu.name, G.timeMs, G.intervalMs ? fmt::format("{}", G.intervalMs->first) : "",
        G.intervalMs ? fmt::format("{}", G.intervalMs->second) : "", G.imagesPerSecond(),
        G.imagesPerSecondPerWatt(), orEmpty(O.budgetMs > 0, M.withinBudget(G)), G.warnings.size(),
        G.clock.mhz, G.dominanceFloor, G.memory.totalBytes(), G.memory.fits() ? 1 : 0,
        orEmpty(O.targetIps > 0, M.reachesTarget(G)), orEmpty(M.hasTargets(), M.meets(G)),
        orEmpty(M.hasTargets(), M.meetsAcrossBand(G)),
        C.maxBatch ? std::to_string(*C.maxBatch) : "", pipeline::runtimeName(G.runtime),
        G.calibrationTimings ? fmt::format("{}", G.calibrationFactor) : "", G.gpuMs, G.hostMs);
  }
}

int fail(const support::Error &E) {
  fmt::print(stderr, "{}\n", E.str());
  return 1;
}

/// The progress line on stderr while it is a terminal: which network is being analysed, how
/// many are done; cleared at the end, before the table.
void reportProgress(size_t Done, size_t Total, const std::string &Model, int64_t Batch) {
  if (Model.empty()) {
    fmt::print(stderr, "\r\033[K");
    return;
  }
  if (Total > 0)
    fmt::print(stderr, "\r\033[Kanalysing {} at batch {} (network {} of {})", Model, Batch,
               Done + 1, Total);
  else
    fmt::print(stderr, "\r\033[Kanalysing {} at batch {} (analysis {} of the max-batch search)",
               Model, Batch, Done + 1);
}

int runCompare(CompareFlags &O) {
  // Everything the output needs is checked before the analyses: the plot's file and value.
  if (O.plotValue.empty())
    O.plotValue = O.request.targetIps > 0 || O.request.maxBatch ? "images-per-s" : "time";
  auto Value = pipeline::parsePlotValue(O.plotValue);
  if (!Value)
    return fail(Value.error());
  if (!O.plot.empty())
    if (auto E = pipeline::checkPlotPath(O.plot))
      return fail(*E);
  if (!O.plot.empty() && pipeline::splitRuntimes(O.request.runtime).size() > 1)
    return fail(support::Error("--plot draws one runtime; give --runtime one name"));
  if (isatty(STDERR_FILENO))
    O.request.progress = reportProgress;
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
    if (auto E = pipeline::writePlot(
            pipeline::heatMapSvg(pipeline::compareHeatMap(pipeline::compareJson(*M), *Value)),
            O.plot))
      return fail(*E);
  return 0;
}

} // namespace

void addCompareCommand(CLI::App &App) {
  auto O = std::make_shared<CompareFlags>();
  pipeline::CompareRequest &R = O->request; // the fields CLI11 fills
  CLI::App *Cmd = App.add_subcommand(
      "compare", "predict every model on every GPU (and batch size): the matrix, device memory, "
                 "a time budget and an images/s target, the largest batch that meets them, "
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
  CLI::Option *Batch =
      Cmd->add_option("--batch", R.batches, "batch sizes, comma separated (1..4096)")
          ->delimiter(',')
          ->check(integerIn(1, pipeline::MaxBatch))
          ->capture_default_str();
  Cmd->add_flag("--max-batch", R.maxBatch,
                "per model and GPU, the largest batch (1..4096) that fits in memory and meets "
                "--budget-ms and --target-ips (about 2 log2(batch) analyses per model)")
      ->excludes(Batch);
  Cmd->add_option("--budget-ms", R.budgetMs, "time budget per batch in ms")
      ->check(finitePositive());
  Cmd->add_option("--target-ips", R.targetIps, "images per second to reach")
      ->check(finitePositive());
  Cmd->add_option("--plot", O->plot, "write a heat map of the matrix to FILE.svg or FILE.png");
  Cmd->add_option("--plot-value", O->plotValue,
                  "what the heat map shows: time, images-per-s or images-per-s-per-w (default: "
                  "time; images-per-s with --target-ips or --max-batch)")
      ->check(CLI::IsMember({"time", "images-per-s", "images-per-s-per-w"}));
  Cmd->add_option("--format", O->format, "output format")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  Cmd->add_option("--image-size", R.imageSize,
                  "input height = width, 16..1024 (default: each model's own)")
      ->check(CLI::Range(int64_t(16), int64_t(1024)));
  addDtypeOption(*Cmd, R.dtype);
  addRuntimeOptions(*Cmd, R.runtime, R.math, R.host, true);
  Cmd->add_option("--model", R.model,
                  "shipped model name or a bundle FILE.json (default: the shipped cross-gpu)");
  Cmd->add_option("--calibrate", R.calibrate,
                  "FILE.csv of your own timings (columns gpu, network, batch, dtype, runtime, "
                  "measured_ms): each GPU it names is scaled by its own (docs/predict.md, "
                  "\"Calibration\")")
      ->check(CLI::ExistingFile);
  Cmd->add_option("--threads", R.threads,
                  "analysis worker threads per network, two networks at a time unless 1 (0 = all "
                  "cores)");
  Cmd->callback([O] {
    if (int Status = runCompare(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
