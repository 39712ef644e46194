// `ptxcast analyze MODEL|FILE.onnx|MANIFEST.json [--batch N] [--image-size S]
// [--dtype f32|f16|int8] [--arch sm_XX] [--math auto|simt|tf32|f16|bf16|int8] [--mode fast|exact]
// [--format table|json|csv]`: counts per launch plus network totals, in seconds through fast mode
// (docs/fast-mode.md). Models and ONNX files are lowered in memory.
#include "Commands.h"
#include "Documents.h"
#include "NetworkAnalysis.h"
#include "ProfileJson.h"

#include "analyzer/FastMode.h"
#include "corpus/KernelGen.h"
#include "corpus/Lower.h"
#include "corpus/Onnx.h"
#include "corpus/Zoo.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <unistd.h>

namespace ptxcast {
namespace {

using OJson = nlohmann::ordered_json;

bool endsWith(const std::string &S, const std::string &Suffix) {
  return S.size() >= Suffix.size() &&
         S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

/// A zoo model or ONNX file lowered in memory, as analysis input.
support::Expected<analyzer::AnalysisInput> lowerInput(const AnalyzeOptions &O) {
  corpus::DType Type = *corpus::parseDType(O.dtype); // CLI11 checked the names
  support::Expected<corpus::Network> N = corpus::Network();
  if (!O.onnxBytes.empty() || endsWith(O.input, ".onnx")) {
    corpus::OnnxImportOptions Opts;
    Opts.batch = O.batch;
    Opts.dtype = Type;
    N = O.onnxBytes.empty() ? corpus::importOnnxFile(O.input, Opts)
                            : corpus::importOnnx(O.onnxBytes, O.input + ".onnx", Opts);
  } else {
    N = corpus::buildZooModel(O.input, corpus::ZooOptions{O.batch, O.imageSize, Type});
  }
  if (!N)
    return N.error();
  corpus::LowerOptions LO;
  LO.dtype = Type;
  LO.arch = O.arch;
  auto Math = corpus::parseMathMode(O.math);
  if (!Math)
    return support::Error("unknown math mode '" + O.math +
                          "' (expected auto, simt, tf32, f16 or bf16)");
  LO.math = *Math;
  auto Kernels = corpus::parseKernelSet(O.kernels);
  if (!Kernels)
    return support::Error("unknown kernel set '" + O.kernels +
                          "' (expected library or specialised)");
  LO.kernels = *Kernels;
  corpus::KernelCache Cache(corpus::kernelCacheDir()); // library kernels compiled earlier
  LO.cache = &Cache;
  support::Expected<corpus::Workload> W = corpus::lower(*N, LO);
  if (!W)
    return W.error();
  return analysisInput(*W, O.input);
}

support::Expected<analyzer::AnalysisInput> loadInput(const AnalyzeOptions &O) {
  if (!O.onnxBytes.empty() || !endsWith(O.input, ".json"))
    return lowerInput(O);
  support::Expected<analyzer::Manifest> M = analyzer::loadManifest(O.input);
  if (!M)
    return M.error();
  return analyzer::analysisInput(*M);
}

const char *dataCheckName(analyzer::DataCheck C) {
  switch (C) {
  case analyzer::DataCheck::Proven:
    return "proven";
  case analyzer::DataCheck::Rerun:
    return "rerun";
  case analyzer::DataCheck::Off:
    break;
  }
  return "off";
}

OJson toJson(const analyzer::AnalysisResult &R) {
  OJson Launches = OJson::array();
  double MaxErr = 0;
  size_t DataDep = 0;
  uint64_t Skipped = 0;
  for (const analyzer::LaunchAnalysis &L : R.launches) {
    const analyzer::KernelProfile &P = L.profile;
    OJson J = {{"kernel", P.kernel},
               {"grid", P.grid},
               {"block", P.block},
               {"shared_bytes", P.sharedBytes},
               {"ctas", L.ctasTotal},
               {"ctas_interpreted", L.ctasSampled},
               {"cta_classes", L.classes},
               {"extrapolated", L.extrapolated},
               {"error_estimate", L.errorEstimate},
               {"data_dependent", L.dataDependent},
               {"data_check", dataCheckName(L.dataCheck)},
               {"warp_instructions_interpreted", L.interpreted},
               {"same_as_launch", L.reusedFrom},
               {"loop_iterations_skipped", L.loopIterationsSkipped}};
    J.update(profileResources(P));
    J.update(profileCounters(P));
    Launches.push_back(std::move(J));
    MaxErr = std::max(MaxErr, L.errorEstimate);
    DataDep += L.dataDependent;
    Skipped += L.loopIterationsSkipped;
  }
  OJson Total = {{"launches", R.launches.size()},
                 {"max_error_estimate", MaxErr},
                 {"data_dependent_launches", DataDep},
                 {"loop_iterations_skipped", Skipped}};
  Total.update(profileCounters(R.total));
  return {{"launches", Launches}, {"total", Total}};
}

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

support::Expected<analyzer::AnalysisResult> analyseInput(const AnalyzeOptions &O) {
  support::Expected<analyzer::AnalysisInput> In = loadInput(O);
  if (!In)
    return In.error();
  analyzer::FastSettings S = O.quick ? analyzer::quickSettings() : analyzer::FastSettings{};
  S.abstractMemory = !O.noAbstract;
  S.sampleCtas = !O.noSampling;
  S.checkDataDependence = !O.noDataCheck;
  if (!O.quick) {
    S.interiorSamples = O.samples;
    S.maxInteriorSamples = std::max(O.maxSamples, O.samples);
  }
  S.dedupeLaunches = !O.noDedupe;
  S.skipLoops = !O.noLoopSkip;
  S.skipWarpLoops = !O.noWarpLoopSkip;
  S.transferClasses = !O.noClassTransfer;
  S.residueStrata = S.residueStrata && !O.noResidueStrata; // --quick leaves it off
  S.threads = O.threads;
  if (isatty(STDERR_FILENO))
    S.progress = [](size_t Done, size_t Total) {
      fmt::print(stderr, "\ranalyzed {}/{} launches", Done, Total);
      if (Done == Total)
        fmt::print(stderr, "\n");
    };
  analyzer::AnalysisMode Mode =
      O.mode == "exact" ? analyzer::AnalysisMode::Exact : analyzer::AnalysisMode::Fast;
  if (Mode == analyzer::AnalysisMode::Exact) // one launch at a time: a line for huge grids
    S.run.ctaProgress = terminalCtaProgress();
  return analyzer::analyze(*In, Mode, S);
}

int runAnalyze(const AnalyzeOptions &O) {
  support::Expected<analyzer::AnalysisResult> R = analyseInput(O);
  if (!R) {
    fmt::print(stderr, "{}\n", R.error().str());
    return 1;
  }
  if (O.format == "json")
    fmt::print("{}\n", toJson(*R).dump(2));
  else if (O.format == "csv")
    printCsv(*R);
  else
    printTable(*R);
  return 0;
}

} // namespace

support::Expected<OJson> analyzeDocument(const AnalyzeOptions &O) {
  auto R = analyseInput(O);
  if (!R)
    return R.error();
  return toJson(*R);
}

void addAnalyzeCommand(CLI::App &App) {
  auto O = std::make_shared<AnalyzeOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "analyze", "count executed instructions and memory traffic of a whole network in seconds "
                 "(fast mode: abstract memory, CTA sampling; docs/fast-mode.md)");
  Cmd->add_option("input", O->input, "zoo model name, FILE.onnx or MANIFEST.json")->required();
  Cmd->add_option("--batch", O->batch, "batch size")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  Cmd->add_option("--image-size", O->imageSize,
                  "input height = width (default: the model's own; ONNX: its 4-D input with a "
                  "dynamic batch)")
      ->check(CLI::PositiveNumber);
  Cmd->add_option("--dtype", O->dtype,
                  "element type (int8: an int8 inference engine, docs/lowering.md)")
      ->check(CLI::IsMember({"f32", "f16", "int8"}))
      ->capture_default_str();
  Cmd->add_option("--arch", O->arch, "target architecture")->capture_default_str();
  Cmd->add_option("--math", O->math, "convolution/dense/bmm math (ptxcast lower --math)")
      ->check(CLI::IsMember(lowerMathChoices()))
      ->capture_default_str();
  Cmd->add_option("--kernels", O->kernels, "kernel set (ptxcast lower --kernels)")
      ->check(CLI::IsMember(kernelSetChoices()))
      ->capture_default_str();
  Cmd->add_option("--mode", O->mode, "fast (shortcuts) or exact (real data, every CTA)")
      ->check(CLI::IsMember({"fast", "exact"}))
      ->capture_default_str();
  Cmd->add_option("--format", O->format, "output format")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  Cmd->add_option("--samples", O->samples, "CTAs interpreted per sampled boundary class")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  Cmd->add_option("--threads", O->threads, "worker threads (0 = all cores)")->capture_default_str();
  Cmd->add_flag("--quick", O->quick,
                "fast mode: the sampling of ptxcast dataset/predict (2 samples per class, at most "
                "8; overrides --samples/--max-samples)");
  Cmd->add_flag("--no-abstract-memory", O->noAbstract,
                "fast mode: real buffers and data, launches in order on one thread");
  Cmd->add_flag("--no-sampling", O->noSampling, "fast mode: interpret every CTA");
  Cmd->add_option("--max-samples", O->maxSamples,
                  "CTAs per class when the first samples disagree (sampled again, 4x denser)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  Cmd->add_flag("--no-dedupe", O->noDedupe,
                "fast mode: analyse every launch, also those equivalent to an earlier one");
  Cmd->add_flag("--no-data-check", O->noDataCheck, "fast mode: skip the data-dependence check");
  Cmd->add_flag("--no-loop-skip", O->noLoopSkip,
                "fast mode: interpret every loop iteration (no loop-trip extrapolation)");
  Cmd->add_flag("--no-warp-loop-skip", O->noWarpLoopSkip,
                "fast mode: extrapolate only CTA loops with a barrier, not barrier-free loops");
  Cmd->add_flag("--no-class-transfer", O->noClassTransfer,
                "fast mode: sample every boundary class itself (no class transfer)");
  Cmd->add_flag("--no-residue-strata", O->noResidueStrata,
                "fast mode: no per-residue weighting of classes whose counts vary with a "
                "coordinate mod 8 (sector alignment)");
  Cmd->callback([O] {
    if (int Status = runAnalyze(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
