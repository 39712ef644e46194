// `ptxcast run MANIFEST.json [--format text|json] [--budget N] [--allow-outside-paths]`: runs a
// launch manifest exactly on the interpreter, writes the output buffers, and prints the dynamic
// counts of every launch. The manifest's paths stay inside its folder unless allowed.
#include "Commands.h"

#include "pipeline/NetworkAnalysis.h"
#include "pipeline/ProfileJson.h"

#include "analyzer/Manifest.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace ptxcast {
namespace {

using OJson = nlohmann::ordered_json;

struct RunOptions {
  std::string manifest;
  std::string format = "text";
  uint64_t budget = uint64_t(1) << 40;
  bool allowOutsidePaths = false;
};

OJson toJson(const analyzer::KernelProfile &P) {
  OJson J = {{"kernel", P.kernel},
             {"grid", P.grid},
             {"block", P.block},
             {"shared_bytes", P.sharedBytes},
             {"ctas_run", P.ctasRun}};
  J.update(pipeline::profileResources(P));
  J.update(pipeline::profileCounters(P));
  return J;
}

void printText(const analyzer::KernelProfile &P, size_t Index) {
  fmt::print("launch {}: {} grid [{},{},{}] block [{},{},{}] shared {} B\n", Index, P.kernel,
             P.grid[0], P.grid[1], P.grid[2], P.block[0], P.block[1], P.block[2], P.sharedBytes);
  fmt::print("  {:<10} {:>16} {:>18}\n", "class", "warp instr", "thread instr");
  for (size_t C = 0; C < P.warpInstructions.size(); ++C)
    if (P.warpInstructions[C])
      fmt::print("  {:<10} {:>16} {:>18}\n", ptx::className(static_cast<ptx::InstrClass>(C)),
                 P.warpInstructions[C], P.threadInstructions[C]);
  fmt::print("  {:<10} {:>16} {:>18}\n", "total", P.warpInstructionsTotal(),
             P.threadInstructionsTotal());
  fmt::print("  branches {} (taken {}, divergent {}), barrier syncs {}\n", P.branches,
             P.branchesTaken, P.branchesDivergent, P.barrierSyncs);
  fmt::print("  global: {} load requests / {} sectors, {} store requests / {} sectors, "
             "{} atomic requests\n",
             P.globalLoadRequests, P.globalLoadSectors, P.globalStoreRequests, P.globalStoreSectors,
             P.globalAtomicRequests);
  fmt::print("  shared: {} loads, {} stores, {} bank conflicts\n", P.sharedLoadRequests,
             P.sharedStoreRequests, P.sharedBankConflicts);
  if (P.tensorMacs)
    fmt::print("  tensor cores: {} multiply-adds\n", P.tensorMacs);
  if (P.tensorMacsInt8)
    fmt::print("  of them int8: {}\n", P.tensorMacsInt8);
}

int runRun(const RunOptions &Opts) {
  support::Expected<analyzer::Manifest> M =
      analyzer::loadManifest(Opts.manifest, {.allowOutsidePaths = Opts.allowOutsidePaths});
  if (!M) {
    fmt::print(stderr, "{}\n", M.error().str());
    return 1;
  }
  analyzer::RunSettings S;
  S.maxWarpInstructions = Opts.budget;
  S.ctaProgress = pipeline::terminalCtaProgress();
  support::Expected<analyzer::ManifestRun> R = analyzer::runManifest(*M, S);
  if (!R) {
    fmt::print(stderr, "{}\n", R.error().str());
    return 1;
  }
  if (Opts.format == "json") {
    OJson Launches = OJson::array();
    for (const analyzer::KernelProfile &P : R->launches)
      Launches.push_back(toJson(P));
    fmt::print("{}\n", OJson{{"launches", Launches}}.dump(2));
  } else {
    for (size_t K = 0; K < R->launches.size(); ++K)
      printText(R->launches[K], K);
  }
  return 0;
}

} // namespace

void addRunCommand(CLI::App &App) {
  auto Opts = std::make_shared<RunOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "run", "run a launch manifest on the PTX interpreter (every CTA, real data), write its "
             "output buffers and print executed instructions per class and memory traffic");
  Cmd->add_option("manifest", Opts->manifest, "launch manifest (JSON, see docs/manifest.md)")
      ->required();
  Cmd->add_option("--format", Opts->format, "output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  Cmd->add_option("--budget", Opts->budget, "warp instructions allowed per launch")
      ->capture_default_str();
  Cmd->add_flag("--allow-outside-paths", Opts->allowOutsidePaths,
                "accept manifest paths outside the manifest's folder (absolute, or leaving it "
                "with '..'); refused by default");
  Cmd->callback([Opts] {
    if (int Status = runRun(*Opts); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
