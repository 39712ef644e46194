// `ptxcast gpus [NAME|FILE.json ...] [--format table|json]`: the GPU catalog. The table gives the
// key figures of each GPU; JSON gives every field, the source note of each figure and the per-SM
// limits of its architecture (docs/gpu-catalog.md explains them). Names and spec files select
// GPUs (a spec file is validated as `--gpu-spec` would read it).
#include "Commands.h"

#include "pipeline/Documents.h"
#include "pipeline/GpuSelection.h"

#include "hardware/GpuCatalog.h"
#include "hardware/Host.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>
#include <string>
#include <vector>

namespace ptxcast {
namespace {

struct GpusOptions {
  std::vector<std::string> gpus;
  std::string format = "table";
  bool hosts = false;
};

/// The hosts whose eager launch time --runtime eager charges (`--hosts`).
void printHosts(const hardware::GpuCatalog &Catalog) {
  fmt::print("{:<18} {:>7} {:<8} {:>10}  {}\n", "host", "speed", "from", "us/kernel", "cpu");
  for (const hardware::HostSpec &H : Catalog.hosts())
    fmt::print("{:<18} {:>7.3g} {:<8} {:>10.3g}  {}\n", H.name, H.relativeSpeed,
               H.speedFromPyTorch ? "pytorch" : "estimate", 1e3 * hardware::eagerHostMsPerKernel(H),
               H.cpu);
  fmt::print("\nspeed: single-thread speed over the x86 server's, from PyTorch's own host time or "
             "an estimate (CPU benchmarks: an upper bound on Arm); us/kernel: eager PyTorch's host "
             "time per kernel it launches (--runtime eager). Sources: hardware/data/gpus.json, or "
             "a GPU's `--format json`.\n");
}

void printTable(const std::vector<hardware::GpuSpec> &Gpus) {
  fmt::print("{:<28} {:<13} {:>4} {:>4} {:>6} {:>5} {:>8} {:>9} {:>7} {:>6} {:>6} {:>6}\n", "name",
             "architecture", "CC", "SMs", "boost", "top", "FP32", "FP16 tc", "GB/s", "GB", "L2 MB",
             "TDP W");
  for (const hardware::GpuSpec &G : Gpus)
    fmt::print("{:<28} {:<13} {:>4} {:>4g} {:>6g} {:>5.0f} {:>8.4g} {:>9.4g} {:>7g} {:>6g} {:>6g} "
               "{:>6g}\n",
               G.name, G.architecture, G.limits.computeCapability, G.smCount, G.boostClockMhz,
               G.maxClockMhz, G.fp32Tflops, G.tensor.fp16, G.memoryBandwidthGBs, G.memoryGB, G.l2MB,
               G.tdpW);
  fmt::print("\n{} GPUs. boost (the clock the peaks are quoted at) and top (GPU Boost's highest, "
             "above boost on GeForce cards and a few others) in MHz; FP32 and dense FP16 tensor "
             "(FP32 accumulate) peaks in TFLOP/s. `--format json` gives every field with its "
             "source.\n",
             Gpus.size());
}

int runGpus(const GpusOptions &O) {
  if (O.format == "json") {
    auto Doc = pipeline::gpusDocument(O.gpus);
    if (!Doc) {
      fmt::print(stderr, "{}\n", Doc.error().str());
      return 1;
    }
    fmt::print("{}\n", Doc->dump(2));
    return 0;
  }
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog) {
    fmt::print(stderr, "{}\n", Catalog.error().str());
    return 1;
  }
  if (O.hosts) {
    printHosts(*Catalog);
    return 0;
  }
  auto Gpus = pipeline::selectGpus(*Catalog, O.gpus);
  if (!Gpus) {
    fmt::print(stderr, "{}\n", Gpus.error().str());
    return 1;
  }
  printTable(*Gpus);
  return 0;
}

} // namespace

void addGpusCommand(CLI::App &App) {
  auto O = std::make_shared<GpusOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "gpus", "list the GPU catalog: key figures, or every field with its source (JSON); a "
              "spec FILE.json is validated and shown (docs/gpu-catalog.md)");
  Cmd->add_option("gpu", O->gpus, "GPU names or spec files to show (default: the whole catalog)");
  Cmd->add_option("--format", O->format, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  Cmd->add_flag("--hosts", O->hosts,
                "list the hosts (CPUs) whose eager launch time --runtime eager charges");
  Cmd->callback([O] {
    if (int Status = runGpus(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
