// `ptxcast predict MODEL|FILE.onnx --gpu NAME [--batch N] [--image-size S] [--dtype f32|f16]
// [--runtime graph|eager] [--math MODE] [--model NAME|FILE.json] [--format table|json]`: time
// per batch and per image, images/s, device memory and whether it fits, the leave-one-GPU-out
// error band, a per-launch-kind breakdown and warnings when the GPU or the network lies outside
// the training data (docs/predict.md).
#include "Commands.h"

#include "pipeline/Documents.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <chrono>
#include <memory>

namespace ptxcast {
namespace {

/// Why the SM clock is what it is, for people.
std::string clockText(const pipeline::GpuPrediction &G) {
  const hardware::SustainedClock &C = G.clock;
  if (C.limiter == "mode")
    return "(the power mode's clock: the module's mode caps it)";
  if (C.limiter == "boost" && C.share > 1)
    return fmt::format("(GPU Boost above the rated {:g}: about {:.0f} W of the {:g} W limit)",
                       G.gpu.boostClockMhz, C.boardW, G.gpu.tdpW);
  if (C.limiter == "boost")
    return fmt::format("(boost: about {:.0f} W of the {:g} W limit)", C.boardW, G.gpu.tdpW);
  if (C.limiter == "base")
    return fmt::format("(the {:g} W limit would take it lower; held at the base clock, boost {:g})",
                       G.gpu.tdpW, G.gpu.boostClockMhz);
  return fmt::format("(held down by the {:g} W power limit; boost {:g})", G.gpu.tdpW,
                     G.gpu.boostClockMhz);
}

/// The device-memory line and what makes it up.
void printMemory(const pipeline::DeviceMemory &M) {
  using pipeline::bytesText;
  std::string Fit = M.capacityBytes == 0 ? std::string("(the GPU's memory size is unknown)")
                    : M.fits()
                        ? fmt::format("fits in the GPU's {}", bytesText(M.capacityBytes))
                        : fmt::format("DOES NOT FIT in the GPU's {}", bytesText(M.capacityBytes));
  fmt::print("device memory   {:>12}     {}{}\n", bytesText(M.totalBytes()), Fit,
             M.shared ? ", shared with the OS" : "");
  std::string Weights = bytesText(M.weightBytes);
  if (M.peak.castBytes > 0)
    Weights += fmt::format(" + {} fp16 copies", bytesText(M.peak.castBytes));
  fmt::print("  weights {}, activations {} and workspace {} at layer '{}', runtime reserve {}\n",
             Weights, bytesText(M.peak.activationBytes), bytesText(M.peak.workspaceBytes),
             M.peak.layer, bytesText(M.reserveBytes));
}

void printTable(const pipeline::NetworkAnalysis &N, const learners::Predictor &P,
                const pipeline::GpuPrediction &G) {
  std::string Dtype = pipeline::dtypeText(N.dtype, G.runtime);
  if (!G.engineDtype.empty() && G.engineDtype != N.dtype) // a wider engine's time (warnings)
    Dtype += fmt::format(", given as its {} engine", G.engineDtype);
  fmt::print("{} ({}x{}, batch {}, {}, {} math, {} launches) on {} ({}), {} runtime\n", N.network,
             N.imageSize, N.imageSize, N.batch, Dtype, hardware::mathModeName(G.math), G.launches,
             G.gpu.fullName, G.gpu.name, pipeline::runtimeName(G.runtime));
  fmt::print("{}\n\n", pipeline::predictorSummary(P));
  std::string Band = G.intervalMs ? fmt::format("   band {:.4g} .. {:.4g} ms", G.intervalMs->first,
                                                G.intervalMs->second)
                                  : std::string("   (no error band)");
  fmt::print("time per batch  {:>12.4g} ms{}\n", G.timeMs, Band);
  if (G.runtime != pipeline::Runtime::Graph) // eager, compile and an engine's enqueue
    fmt::print("  on the GPU    {:>12.4g} ms   host launch overhead {:.4g} ms ({:.0f} kernels on "
               "the {} host: {})\n",
               G.gpuMs, G.hostMs, G.kernels, G.host.name, G.host.cpu);
  fmt::print("physical bound  {:>12.4g} ms   (the skeleton's T_bound; time / bound {:.2f})\n",
             G.boundMs, G.boundMs > 0 ? G.gpuMs / G.boundMs : 0.0);
  fmt::print("SM clock        {:>12.4g} MHz  {}\n", G.clock.mhz, clockText(G));
  fmt::print("time per image  {:>12.4g} ms\n", G.perImageMs());
  fmt::print("throughput      {:>12.4g} images/s", G.imagesPerSecond());
  if (G.gpu.tdpW > 0)
    fmt::print("   {:.3g} images/s per W at {:g} W TDP", G.imagesPerSecondPerWatt(), G.gpu.tdpW);
  fmt::print("\n");
  printMemory(G.memory);
  fmt::print("\nby launch kind (GPU time split by each launch's own prediction):\n");
  fmt::print("  {:<24} {:>8} {:>12} {:>7}\n", "kind", "launches", "time ms", "share");
  for (const pipeline::KindTime &K : G.breakdown)
    fmt::print("  {:<24} {:>8} {:>12.4g} {:>6.1f}%\n", K.kind, K.launches, K.ms,
               G.timeMs > 0 ? 100 * K.ms / G.timeMs : 0.0);
  for (const std::string &W : G.warnings)
    fmt::print("warning: {}\n", W);
}

/// The flags of `ptxcast predict`: the engine's request and how to print.
struct PredictFlags {
  pipeline::PredictRequest request;
  std::string format = "table";
  bool timings = false;
};

int runPredict(const PredictFlags &O) {
  auto Start = std::chrono::steady_clock::now();
  auto R = pipeline::predictNetwork(O.request);
  if (!R) {
    fmt::print(stderr, "{}\n", R.error().str());
    return 1;
  }
  if (O.format == "json")
    fmt::print("{}\n", pipeline::predictionJson(R->network, R->predictor, R->prediction).dump(2));
  else
    printTable(R->network, R->predictor, R->prediction);
  if (O.timings) {
    double Total = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    fmt::print(stderr, "timings: build+lower {:.3f} s, fast analysis {:.3f} s, total {:.3f} s\n",
               R->network.lowerSeconds, R->network.analyseSeconds, Total);
  }
  return 0;
}

} // namespace

void addPredictCommand(CLI::App &App) {
  auto O = std::make_shared<PredictFlags>();
  pipeline::PredictRequest &R = O->request; // the fields CLI11 fills
  CLI::App *Cmd = App.add_subcommand(
      "predict", "predict a network's time per batch on a GPU, with an error band, a per-kind "
                 "breakdown and outside-the-data warnings (docs/predict.md)");
  Cmd->add_option("input", R.network.input, "zoo model name (see `ptxcast zoo`) or FILE.onnx")
      ->required();
  CLI::Option_group *Gpu = Cmd->add_option_group("gpu", "the GPU to predict for (one of)");
  Gpu->add_option("--gpu", R.gpu,
                  "catalog name (`ptxcast gpus`: h100, rtx-5090, orin-nano@15w, ...) or a GPU spec "
                  "FILE.json");
  Gpu->add_option("--gpu-spec", R.gpu, "a GPU described in FILE.json (docs/gpu-catalog.md)")
      ->check(CLI::ExistingFile);
  Gpu->require_option(1);
  Cmd->add_option("--batch", R.network.batch, "batch size (1..4096)")
      ->check(integerIn(1, pipeline::MaxBatch))
      ->capture_default_str();
  Cmd->add_option("--image-size", R.network.imageSize,
                  "input height = width, 16..1024 (default: the model's own; ONNX: its 4-D input "
                  "with a dynamic batch)")
      ->check(CLI::Range(int64_t(16), int64_t(1024)));
  addDtypeOption(*Cmd, R.network.dtype);
  addRuntimeOptions(*Cmd, R.runtime, R.math, R.host);
  Cmd->add_option("--model", R.model,
                  "shipped model name or a bundle FILE.json (default: the shipped cross-gpu)");
  Cmd->add_option("--calibrate", R.calibrate,
                  "FILE.csv of your own timings on this GPU (columns gpu, network, batch, dtype, "
                  "runtime, measured_ms): the prediction is scaled by their geometric-mean "
                  "measured / predicted ratio, drawn toward 1 when they are few (docs/predict.md, "
                  "\"Calibration\")")
      ->check(CLI::ExistingFile);
  Cmd->add_option("--format", O->format, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  Cmd->add_option("--threads", R.network.threads, "analysis worker threads (0 = all cores)");
  Cmd->add_flag("--timings", O->timings, "print where the time went to stderr");
  Cmd->callback([O] {
    if (int Status = runPredict(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
