// `ptxcast gpus [NAME|FILE.json ...] [--format table|json]`: the GPU catalog. The table gives the
// key figures of each GPU; JSON gives every field, the source note of each figure and the per-SM
// limits of its architecture (docs/gpu-catalog.md explains them). Names and spec files select
// GPUs (a spec file is validated as `--gpu-spec` would read it).
#include "Commands.h"
#include "Documents.h"
#include "GpuOption.h"

#include "hardware/GpuCatalog.h"
#include "hardware/Host.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace ptxcast {
namespace {

using OJson = nlohmann::ordered_json;

struct GpusOptions {
  std::vector<std::string> gpus;
  std::string format = "table";
  bool hosts = false;
};

/// The hosts eager PyTorch's launch time is scaled by (`--hosts`).
void printHosts(const hardware::GpuCatalog &Catalog) {
  fmt::print("{:<18} {:>7} {:>10}  {}\n", "host", "speed", "us/kernel", "cpu");
  for (const hardware::HostSpec &H : Catalog.hosts())
    fmt::print("{:<18} {:>7.3g} {:>10.3g}  {}\n", H.name, H.relativeSpeed,
               1e3 * hardware::eagerHostMsPerKernel(H), H.cpu);
  fmt::print("\nspeed: single-thread speed over the x86 server's; us/kernel: eager PyTorch's host "
             "time per kernel launched (--runtime eager). Sources: `--format json` of a GPU, or "
             "hardware/data/gpus.json.\n");
}

/// A figure as JSON: whole numbers without a fraction (132, not 132.0).
OJson number(double V) {
  return V == std::floor(V) && std::fabs(V) < 1e15 ? OJson(int64_t(V)) : OJson(V);
}

OJson archJson(const hardware::ArchLimits &A) {
  OJson J = {{"compute_capability", A.computeCapability}};
  for (const auto &[Key, Value] : hardware::catalogFields(A))
    J[Key] = number(Value);
  J["int32_shares_fp32"] = A.int32SharesFp32;
  J["dual_issue"] = A.dualIssue;
  J["process"] = A.process;
  J["source"] = A.source;
  return J;
}

OJson gpuJson(const hardware::GpuSpec &G) {
  OJson J = {{"name", G.name},
             {"full_name", G.fullName},
             {"aliases", G.aliases},
             {"architecture", G.architecture},
             {"form_factor", G.formFactor},
             {"memory_type", G.memoryType},
             {"compute_capability", G.limits.computeCapability}};
  for (const auto &[Key, Value] : hardware::catalogFields(G))
    J[Key] = number(Value);
  OJson Sources = OJson::object();
  for (const auto &[Keys, Note] : G.sources)
    Sources[Keys] = Note;
  J["sources"] = Sources;
  // What the power model (hardware/Power.h) reads besides the figures above: the catalog's
  // processes and memory_types tables give each its source.
  J["energy"] = {{"process", G.limits.process},
                 {"process_relative_energy", G.limits.relativeEnergy},
                 {"memory_pj_per_bit", G.memoryPjPerBit}};
  J["host"] = {{"name", G.host.name},
               {"cpu", G.host.cpu},
               {"relative_speed", G.host.relativeSpeed},
               {"source", G.host.source}};
  J["limits"] = archJson(G.limits);
  return J;
}

void printTable(const std::vector<hardware::GpuSpec> &Gpus) {
  fmt::print("{:<28} {:<13} {:>4} {:>4} {:>6} {:>8} {:>9} {:>7} {:>6} {:>6} {:>6}\n", "name",
             "architecture", "CC", "SMs", "boost", "FP32", "FP16 tc", "GB/s", "GB", "L2 MB",
             "TDP W");
  for (const hardware::GpuSpec &G : Gpus)
    fmt::print("{:<28} {:<13} {:>4} {:>4g} {:>6g} {:>8.4g} {:>9.4g} {:>7g} {:>6g} {:>6g} {:>6g}\n",
               G.name, G.architecture, G.limits.computeCapability, G.smCount, G.boostClockMhz,
               G.fp32Tflops, G.tensor.fp16, G.memoryBandwidthGBs, G.memoryGB, G.l2MB, G.tdpW);
  fmt::print("\n{} GPUs. boost in MHz; FP32 and dense FP16 tensor (FP32 accumulate) peaks in "
             "TFLOP/s. `--format json` gives every field with its source.\n",
             Gpus.size());
}

/// The GPUs of `Names` (no names: the whole catalog).
support::Expected<std::vector<hardware::GpuSpec>>
selectGpus(const hardware::GpuCatalog &Catalog, const std::vector<std::string> &Names) {
  if (Names.empty())
    return Catalog.gpus();
  std::vector<hardware::GpuSpec> Gpus;
  for (const std::string &Name : Names) {
    auto G = resolveGpu(Name, Catalog);
    if (!G)
      return G.error();
    Gpus.push_back(*G);
  }
  return Gpus;
}

int runGpus(const GpusOptions &O) {
  if (O.format == "json") {
    auto Doc = gpusDocument(O.gpus);
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
  auto Gpus = selectGpus(*Catalog, O.gpus);
  if (!Gpus) {
    fmt::print(stderr, "{}\n", Gpus.error().str());
    return 1;
  }
  printTable(*Gpus);
  return 0;
}

} // namespace

support::Expected<OJson> gpusDocument(const std::vector<std::string> &Names) {
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog)
    return Catalog.error();
  auto Gpus = selectGpus(*Catalog, Names);
  if (!Gpus)
    return Gpus.error();
  OJson List = OJson::array(), Archs = OJson::array();
  std::set<std::string> Seen;
  for (const hardware::GpuSpec &G : *Gpus)
    List.push_back(gpuJson(G));
  for (const hardware::ArchLimits &A : Catalog->architectures())
    for (const hardware::GpuSpec &G : *Gpus)
      if (G.limits.computeCapability == A.computeCapability && Seen.insert(A.computeCapability).second)
        Archs.push_back(archJson(A));
  return OJson{{"gpus", List}, {"architectures", Archs}};
}

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
