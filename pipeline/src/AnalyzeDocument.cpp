// Counts of a zoo model, an ONNX file or a launch manifest, and their JSON document
// (Documents.h). Models and ONNX files are lowered in memory, then analysed in fast mode
// (docs/fast-mode.md) or exactly.
#include "pipeline/Documents.h"
#include "pipeline/ProfileJson.h"

#include "analyzer/Manifest.h"
#include "corpus/KernelGen.h"
#include "corpus/Lower.h"
#include "corpus/Onnx.h"
#include "corpus/Zoo.h"

#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <unistd.h>

namespace pipeline {
namespace {

using OJson = nlohmann::ordered_json;

bool endsWith(const std::string &S, const std::string &Suffix) {
  return S.size() >= Suffix.size() &&
         S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

/// A zoo model or ONNX file lowered in memory, as analysis input.
support::Expected<analyzer::AnalysisInput> lowerInput(const AnalyzeRequest &R) {
  corpus::DType Type = corpus::parseDType(R.dtype).value_or(corpus::DType::F32);
  support::Expected<corpus::Network> N = corpus::Network();
  if (!R.onnxBytes.empty() || endsWith(R.input, ".onnx")) {
    corpus::OnnxImportOptions Opts;
    Opts.batch = R.batch;
    Opts.dtype = Type;
    N = R.onnxBytes.empty() ? corpus::importOnnxFile(R.input, Opts)
                            : corpus::importOnnx(R.onnxBytes, R.input + ".onnx", Opts);
  } else {
    N = corpus::buildZooModel(R.input, corpus::ZooOptions{R.batch, R.imageSize, Type});
  }
  if (!N)
    return N.error();
  corpus::LowerOptions LO;
  LO.dtype = Type;
  LO.arch = R.arch;
  auto Math = corpus::parseMathMode(R.math);
  if (!Math)
    return support::Error("unknown math mode '" + R.math +
                          "' (expected auto, simt, tf32, f16, bf16 or int8)");
  LO.math = *Math;
  auto Kernels = corpus::parseKernelSet(R.kernels);
  if (!Kernels)
    return support::Error("unknown kernel set '" + R.kernels +
                          "' (expected library or specialised)");
  LO.kernels = *Kernels;
  corpus::KernelCache Cache(corpus::kernelCacheDir()); // kernels compiled earlier
  LO.cache = &Cache;
  support::Expected<corpus::Workload> W = corpus::lower(*N, LO);
  if (!W)
    return W.error();
  return analysisInput(*W, R.input);
}

support::Expected<analyzer::AnalysisInput> loadInput(const AnalyzeRequest &R) {
  if (!R.onnxBytes.empty() || !endsWith(R.input, ".json"))
    return lowerInput(R);
  support::Expected<analyzer::Manifest> M =
      analyzer::loadManifest(R.input, {.allowOutsidePaths = R.allowOutsidePaths});
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

/// The fast-mode settings of a request (the flags of `ptxcast analyze`).
analyzer::FastSettings fastSettings(const AnalyzeRequest &R) {
  analyzer::FastSettings S = R.quick ? analyzer::quickSettings() : analyzer::FastSettings{};
  S.abstractMemory = !R.noAbstract;
  S.sampleCtas = !R.noSampling;
  S.checkDataDependence = !R.noDataCheck;
  if (!R.quick) {
    S.interiorSamples = R.samples;
    S.maxInteriorSamples = std::max(R.maxSamples, R.samples);
  }
  S.dedupeLaunches = !R.noDedupe;
  S.skipLoops = !R.noLoopSkip;
  S.skipWarpLoops = !R.noWarpLoopSkip;
  S.transferClasses = !R.noClassTransfer;
  S.residueStrata = S.residueStrata && !R.noResidueStrata; // --quick leaves it off
  S.threads = R.threads;
  return S;
}

} // namespace

support::Expected<analyzer::AnalysisResult> analyzeInput(const AnalyzeRequest &R) {
  support::Expected<analyzer::AnalysisInput> In = loadInput(R);
  if (!In)
    return In.error();
  analyzer::FastSettings S = fastSettings(R);
  if (isatty(STDERR_FILENO))
    S.progress = [](size_t Done, size_t Total) {
      fmt::print(stderr, "\ranalyzed {}/{} launches", Done, Total);
      if (Done == Total)
        fmt::print(stderr, "\n");
    };
  analyzer::AnalysisMode Mode =
      R.mode == "exact" ? analyzer::AnalysisMode::Exact : analyzer::AnalysisMode::Fast;
  if (Mode == analyzer::AnalysisMode::Exact) // one launch at a time: a line for huge grids
    S.run.ctaProgress = terminalCtaProgress();
  return analyzer::analyze(*In, Mode, S);
}

OJson analysisJson(const analyzer::AnalysisResult &R) {
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

support::Expected<OJson> analyzeDocument(const AnalyzeRequest &R) {
  auto A = analyzeInput(R);
  if (!A)
    return A.error();
  return analysisJson(*A);
}

} // namespace pipeline
