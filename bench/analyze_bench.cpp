// Fast-mode wall time: lower + analyze EfficientNet-B7 at batch 1 and 64, and every zoo model at
// batch 1 (docs/fast-mode.md). Usage: analyze_bench [--no-loop-skip] [--no-warp-loop-skip]
// [--no-class-transfer] [--no-residue-strata] [--no-kernel-cache] [--library] [--math=MODE]
// [--disk-cache=DIR] [MODEL BATCH ...] (default: the set above, specialised simt kernels as
// `ptxcast predict` lowers them; --library --math=auto is what `ptxcast analyze` lowers). Like
// `ptxcast compare`, the models of the zoo set (or of the command line) share one KernelCache: a
// kernel already compiled for an earlier model is reused; --disk-cache also keeps library kernels
// in DIR across runs (the second run of a command finds them all). Besides wall time it prints
// the warp instructions interpreted, a measure of the work that does not depend on the machine's
// load.
#include "analyzer/FastMode.h"
#include "corpus/KernelGen.h"
#include "corpus/Lower.h"
#include "corpus/Zoo.h"

#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point A, Clock::time_point B) {
  return std::chrono::duration<double>(B - A).count();
}

/// Lowers and analyses one model, reusing the kernels Cache holds (may be null); prints one
/// line; returns the wall seconds (< 0 on error).
double benchOne(const std::string &Model, int64_t Batch, const analyzer::FastSettings &S,
                const corpus::LowerOptions &Lower, corpus::KernelCache *Cache) {
  auto T0 = Clock::now();
  auto N = corpus::buildZooModel(Model, corpus::ZooOptions{Batch, 0, corpus::DType::F32});
  if (!N) {
    fmt::print("{}: {}\n", Model, N.error().str());
    return -1;
  }
  corpus::LowerOptions LO = Lower;
  LO.cache = Cache;
  auto W = corpus::lower(*N, LO);
  auto TL = Clock::now();
  if (!W) {
    fmt::print("{}: {}\n", Model, W.error().str());
    return -1;
  }
  auto M = analyzer::parseManifest(corpus::manifestJson(*W), Model + "/manifest.json");
  if (!M) {
    fmt::print("{}: {}\n", Model, M.error().str());
    return -1;
  }
  analyzer::AnalysisInput In;
  std::vector<std::string> Names = corpus::ptxFileNames(*W);
  for (size_t K = 0; K < W->ptx.size(); ++K)
    In.ptx.push_back({Names[K], std::move(W->ptx[K])});
  In.buffers = std::move(M->buffers);
  In.launches = std::move(M->launches);
  auto T1 = Clock::now();
  auto R = analyzer::analyze(In, analyzer::AnalysisMode::Fast, S);
  auto T2 = Clock::now();
  if (!R) {
    fmt::print("{}: {}\n", Model, R.error().str());
    return -1;
  }
  uint64_t Ctas = 0, Run = 0, Interpreted = 0, Skipped = 0;
  double Err = 0;
  for (const analyzer::LaunchAnalysis &L : R->launches) {
    Ctas += L.ctasTotal;
    Run += L.ctasSampled;
    Interpreted += L.interpreted;
    Skipped += L.loopIterationsSkipped;
    Err = std::max(Err, L.errorEstimate);
  }
  fmt::print(
      "{:<22} batch {:>3}: lower {:6.2f} s (LLVM and lookup {:6.3f} s), analyze {:6.2f} s, total "
      "{:6.2f} s; {} launches, {} of {} CTAs interpreted, {:.3e} warp instr, {:.3e} interpreted, "
      "{} loop iterations skipped, max error estimate {:.2f}%\n",
      Model, Batch, seconds(T0, T1), seconds(T0, TL), seconds(T1, T2), seconds(T0, T2),
      R->launches.size(), Run, Ctas, double(R->total.warpInstructionsTotal()), double(Interpreted),
      Skipped, 100 * Err);
  std::fflush(stdout);
  return seconds(T0, T2);
}

} // namespace

int main(int Argc, char **Argv) {
  analyzer::FastSettings S;
  corpus::LowerOptions Lower;
  std::string DiskCache;
  bool NoCache = false;
  int First = 1;
  for (; First < Argc && std::string(Argv[First]).rfind("--", 0) == 0; ++First) {
    std::string Flag = Argv[First];
    if (Flag == "--no-loop-skip") {
      S.skipLoops = false;
    } else if (Flag == "--no-warp-loop-skip") {
      S.skipWarpLoops = false;
    } else if (Flag == "--no-class-transfer") {
      S.transferClasses = false;
    } else if (Flag == "--no-residue-strata") {
      S.residueStrata = false;
    } else if (Flag == "--no-kernel-cache") {
      NoCache = true;
    } else if (Flag == "--library") {
      Lower.kernels = corpus::KernelSet::Library;
    } else if (Flag.rfind("--math=", 0) == 0 && corpus::parseMathMode(Flag.substr(7))) {
      Lower.math = *corpus::parseMathMode(Flag.substr(7));
    } else if (Flag.rfind("--disk-cache=", 0) == 0) {
      DiskCache = Flag.substr(13);
    } else {
      fmt::print("unknown option '{}' (--no-loop-skip, --no-warp-loop-skip, --no-class-transfer, "
                 "--no-residue-strata, --no-kernel-cache, --library, --math=MODE, "
                 "--disk-cache=DIR)\n",
                 Flag);
      return 1;
    }
  }
  // As in `ptxcast compare`, the models of one set share a cache: a kernel is compiled once.
  corpus::KernelCache Cache(DiskCache);
  corpus::KernelCache *Share = NoCache ? nullptr : &Cache;
  if (Argc > First) {
    for (int I = First; I + 1 < Argc; I += 2)
      if (benchOne(Argv[I], std::atoll(Argv[I + 1]), S, Lower, Share) < 0)
        return 1;
    return 0;
  }
  // Without a disk cache, B7 compiles its own kernels (a fresh process); with one, it reads them.
  corpus::KernelCache B7(DiskCache);
  benchOne("efficientnet-b7", 1, S, Lower, DiskCache.empty() ? nullptr : &B7);
  benchOne("efficientnet-b7", 64, S, Lower, DiskCache.empty() ? nullptr : &B7);
  double All = 0;
  for (const corpus::ZooModel &Z : corpus::zooModels()) {
    double T = benchOne(Z.name, 1, S, Lower, Share);
    if (T < 0)
      return 1;
    All += T;
  }
  fmt::print("all zoo models at batch 1: {:.2f} s ({} kernels compiled, {} reused)\n", All,
             Cache.size(), Cache.hits());
  return 0;
}
