// `ptxcast analyze MODEL|FILE.onnx|MANIFEST.json [--batch N] [--image-size S]
// [--dtype f32|f16|int8] [--arch sm_XX] [--math auto|simt|tf32|f16|bf16|int8] [--mode fast|exact]
// [--format table|json|csv]`: counts per launch plus network totals, in seconds through fast mode
// (docs/fast-mode.md). Models and ONNX files are lowered in memory.
#include "Commands.h"

#include "pipeline/Documents.h"

#include "analyzer/FastMode.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>
#include <string>

namespace ptxcast {
namespace {

/// The flags of `ptxcast analyze`: the engine's request and how to print.
struct AnalyzeFlags {
  pipeline::AnalyzeRequest request;
  std::string format = "table";
};

void printCsv(const analyzer::AnalysisResult &R) {
  fmt::print("launch,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z,ctas,ctas_interpreted,"
             "error_estimate,data_dependent,warp_instructions,thread_instructions");
  for (size_t C = 0; C < ptx::NumInstrClasses; ++C)
    fmt::print(",warp_{0},thread_{0}", ptx::className(static_cast<ptx::InstrClass>(C)));
  fmt::print(",global_load_sectors,global_store_sectors,shared_bank_conflicts,branches,"
             "branches_divergent\n");
  auto Row = [](const std::string &Id, const analyzer::LaunchAnalysis &L) {
    const analyzer::KernelProfile &P = L.profile;
    fmt::print("{},{},{},{},{},{},{},{},{},{},{:.6g},{},{},{}", Id, P.kernel, P.grid[0], P.grid[1],
               P.grid[2], P.block[0], P.block[1], P.block[2], L.ctasTotal, L.ctasSampled,
               L.errorEstimate, int(L.dataDependent), P.warpInstructionsTotal(),
               P.threadInstructionsTotal());
    for (size_t C = 0; C < ptx::NumInstrClasses; ++C)
      fmt::print(",{},{}", P.warpInstructions[C], P.threadInstructions[C]);
    fmt::print(",{},{},{},{},{}\n", P.globalLoadSectors, P.globalStoreSectors,
               P.sharedBankConflicts, P.branches, P.branchesDivergent);
  };
  for (size_t K = 0; K < R.launches.size(); ++K)
    Row(std::to_string(K), R.launches[K]);
  analyzer::LaunchAnalysis Total;
  Total.profile = R.total;
  for (const analyzer::LaunchAnalysis &L : R.launches) {
    Total.ctasTotal += L.ctasTotal;
    Total.ctasSampled += L.ctasSampled;
    Total.errorEstimate = std::max(Total.errorEstimate, L.errorEstimate);
    Total.dataDependent |= L.dataDependent;
  }
  Row("total", Total);
}

void printTable(const analyzer::AnalysisResult &R) {
  fmt::print("{:>4} {:<40} {:>14} {:>9} {:>16} {:>18} {:>14} {:>7} {}\n", "#", "kernel", "grid",
             "ctas run", "warp instr", "thread instr", "ld/st sectors", "err", "data-dep");
  auto Row = [](const std::string &Id, const analyzer::KernelProfile &P, uint64_t Run, double Err,
                bool Dep) {
    std::string Grid =
        P.grid[0] ? fmt::format("{}x{}x{}", P.grid[0], P.grid[1], P.grid[2]) : std::string();
    fmt::print("{:>4} {:<40} {:>14} {:>9} {:>16} {:>18} {:>14} {:>6.2f}% {}\n", Id,
               P.kernel.substr(0, 40), Grid, Run, P.warpInstructionsTotal(),
               P.threadInstructionsTotal(), P.globalLoadSectors + P.globalStoreSectors, 100 * Err,
               Dep ? "yes" : "no");
  };
  uint64_t Run = 0;
  double Err = 0;
  bool Dep = false;
  for (size_t K = 0; K < R.launches.size(); ++K) {
    const analyzer::LaunchAnalysis &L = R.launches[K];
    Row(std::to_string(K), L.profile, L.ctasSampled, L.errorEstimate, L.dataDependent);
    Run += L.ctasSampled;
    Err = std::max(Err, L.errorEstimate);
    Dep |= L.dataDependent;
  }
  analyzer::KernelProfile T = R.total;
  T.grid = {0, 0, 0};
  Row("", T, Run, Err, Dep);
}

int runAnalyze(const AnalyzeFlags &O) {
  support::Expected<analyzer::AnalysisResult> R = pipeline::analyzeInput(O.request);
  if (!R) {
    fmt::print(stderr, "{}\n", R.error().str());
    return 1;
  }
  if (O.format == "json")
    fmt::print("{}\n", pipeline::analysisJson(*R).dump(2));
  else if (O.format == "csv")
    printCsv(*R);
  else
    printTable(*R);
  return 0;
}

} // namespace

void addAnalyzeCommand(CLI::App &App) {
  auto O = std::make_shared<AnalyzeFlags>();
  pipeline::AnalyzeRequest &R = O->request; // the fields CLI11 fills
  CLI::App *Cmd = App.add_subcommand(
      "analyze", "count executed instructions and memory traffic of a whole network in seconds "
                 "(fast mode: abstract memory, CTA sampling; docs/fast-mode.md)");
  Cmd->add_option("input", R.input, "zoo model name, FILE.onnx or MANIFEST.json")->required();
  Cmd->add_option("--batch", R.batch, "batch size")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  Cmd->add_option("--image-size", R.imageSize,
                  "input height = width (default: the model's own; ONNX: its 4-D input with a "
                  "dynamic batch)")
      ->check(CLI::PositiveNumber);
  Cmd->add_option("--dtype", R.dtype,
                  "element type (int8: an int8 inference engine, docs/lowering.md)")
      ->check(CLI::IsMember({"f32", "f16", "int8"}))
      ->capture_default_str();
  Cmd->add_option("--arch", R.arch, "target architecture")->capture_default_str();
  Cmd->add_option("--math", R.math, "convolution/dense/bmm math (ptxcast lower --math)")
      ->check(CLI::IsMember(lowerMathChoices()))
      ->capture_default_str();
  Cmd->add_option("--kernels", R.kernels, "kernel set (ptxcast lower --kernels)")
      ->check(CLI::IsMember(kernelSetChoices()))
      ->capture_default_str();
  Cmd->add_option("--mode", R.mode, "fast (shortcuts) or exact (real data, every CTA)")
      ->check(CLI::IsMember({"fast", "exact"}))
      ->capture_default_str();
  Cmd->add_option("--format", O->format, "output format")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  Cmd->add_option("--samples", R.samples, "CTAs interpreted per sampled boundary class")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  Cmd->add_option("--threads", R.threads, "worker threads (0 = all cores)")->capture_default_str();
  Cmd->add_flag("--quick", R.quick,
                "fast mode: the sampling of ptxcast dataset/predict (2 samples per class, at most "
                "8; overrides --samples/--max-samples)");
  Cmd->add_flag("--no-abstract-memory", R.noAbstract,
                "fast mode: real buffers and data, launches in order on one thread");
  Cmd->add_flag("--no-sampling", R.noSampling, "fast mode: interpret every CTA");
  Cmd->add_option("--max-samples", R.maxSamples,
                  "CTAs per class when the first samples disagree (sampled again, 4x denser)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  Cmd->add_flag("--no-dedupe", R.noDedupe,
                "fast mode: analyse every launch, also those equivalent to an earlier one");
  Cmd->add_flag("--no-data-check", R.noDataCheck, "fast mode: skip the data-dependence check");
  Cmd->add_flag("--no-loop-skip", R.noLoopSkip,
                "fast mode: interpret every loop iteration (no loop-trip extrapolation)");
  Cmd->add_flag("--no-warp-loop-skip", R.noWarpLoopSkip,
                "fast mode: extrapolate only CTA loops with a barrier, not barrier-free loops");
  Cmd->add_flag("--no-class-transfer", R.noClassTransfer,
                "fast mode: sample every boundary class itself (no class transfer)");
  Cmd->add_flag("--allow-outside-paths", R.allowOutsidePaths,
                "a manifest's paths may be outside its folder (absolute, or leaving it with "
                "'..'); refused by default");
  Cmd->add_flag("--no-residue-strata", R.noResidueStrata,
                "fast mode: no per-residue weighting of classes whose counts vary with a "
                "coordinate mod 8 (sector alignment)");
  Cmd->callback([O] {
    if (int Status = runAnalyze(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
