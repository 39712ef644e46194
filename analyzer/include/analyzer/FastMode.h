// Fast mode: whole-network counts in seconds through abstract memory, CTA sampling by boundary
// class and launches analysed in parallel (docs/fast-mode.md).
#pragma once

#include "analyzer/Manifest.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace analyzer {

/// PTX modules (file name for diagnostics + text), buffers and launches: a manifest whose PTX
/// is already in memory (a lowered Workload or a loaded manifest).
struct AnalysisInput {
  struct PtxText {
    std::string file;
    std::string text;
  };
  std::vector<PtxText> ptx;
  std::vector<BufferSpec> buffers;
  std::vector<LaunchSpec> launches;
};

/// Reads the PTX files a manifest names.
support::Expected<AnalysisInput> analysisInput(const Manifest &M);

enum class AnalysisMode : uint8_t {
  Fast,  ///< the shortcuts switched on in FastSettings
  Exact, ///< real data, every CTA, launches in order on one Device (like runManifest)
};

/// Fast-mode switches; each shortcut can be turned off on its own.
struct FastSettings {
  /// Buffers without backing store; loads yield zeros. Off: real data (random/zero/file init),
  /// launches run in order on one thread so data flows between them.
  bool abstractMemory = true;
  /// Interpret representative CTAs per boundary class and extrapolate. Off: every CTA.
  bool sampleCtas = true;
  /// Interior samples per class (first/last coordinates are always classes of their own).
  uint32_t interiorSamples = 3;
  /// When a class's samples disagree, it is sampled again 4x denser up to this many CTAs.
  uint32_t maxInteriorSamples = 64;
  /// Rerun one CTA per class with address-hashed load values; differing counts mark the launch
  /// data-dependent (only with abstractMemory).
  bool checkDataDependence = true;
  /// Class transfer: a class with a single coordinate along the one grid dimension in which it
  /// differs from a sampled class takes that class's estimate when three of its samples, moved
  /// to that coordinate, count exactly alike (docs/fast-mode.md). Off: such classes are
  /// sampled themselves.
  bool transferClasses = true;
  /// Residue strata: a class at least 2 x 8 CTAs long in some grid dimension also runs 8
  /// consecutive CTAs along it. When counts vary only with that coordinate mod 8 (a channel
  /// plane whose size is not a multiple of the 32-byte sector puts every CTA at another
  /// alignment) and every sample obeys that, the class is weighted per residue instead of
  /// scaled from samples that may all share one residue (docs/fast-mode.md). Off: samples and
  /// the neighbour check only.
  bool residueStrata = true;
  /// Analyse only the first of launches that must count alike (same kernel, geometry,
  /// scalars and buffer alignment; abstract memory only) and copy its counts to the others.
  bool dedupeLaunches = true;
  /// Loop-trip extrapolation (abstract memory only): a CTA loop with a barrier whose state
  /// advances affinely is jumped over after probes verify it; exact under the assumptions in
  /// docs/fast-mode.md. Off: every iteration is interpreted.
  bool skipLoops = true;
  /// With skipLoops: also barrier-free loops of one warp whose body is straight-line code (the
  /// K steps of a GEMM tile, GEMV rows), jumped over the same way. Off: only CTA loops.
  bool skipWarpLoops = true;
  /// Worker threads over launches; 0 = std::thread::hardware_concurrency(). Results do not
  /// depend on it.
  unsigned threads = 0;
  /// Cap on a Device's real allocations (Device(MaxBytes)): buffers with real memory and
  /// module .global variables, which stay real under abstract memory.
  uint64_t deviceBytes = uint64_t(16) << 30;
  RunSettings run;
  /// Called after each launch with (launches done, launches total), from worker threads but
  /// serialised; may be empty.
  std::function<void(size_t, size_t)> progress;
};

/// The settings `ptxcast dataset` and `ptxcast predict` analyse with: 2 samples per CTA class,
/// escalating to at most 8 (instead of 3 and 64), no residue strata, every other shortcut as in
/// FastSettings{}. About 3x less interpretation for network totals within ~0.1 % of the
/// defaults (docs/fast-mode.md, "Quick settings"); features for a learner need no more.
FastSettings quickSettings();

/// How a launch's dependence on loaded data was decided (FastSettings::checkDataDependence).
enum class DataCheck : uint8_t {
  Off,    ///< not checked (the check off, no sampling, exact mode or real memory)
  Proven, ///< no loaded value can reach control flow or an address (static taint analysis)
  Rerun,  ///< a CTA ran again with other data (dataDependent: its counts changed)
};

/// One launch's (estimated) counts and how they were obtained.
struct LaunchAnalysis {
  KernelProfile profile;     ///< counts for the whole grid (extrapolated when sampled)
  uint64_t ctasTotal = 0;    ///< CTAs in the grid
  uint64_t ctasSampled = 0;  ///< CTAs interpreted (== ctasTotal when not extrapolated)
  uint32_t classes = 1;      ///< boundary classes of the grid
  bool extrapolated = false; ///< some class was sampled, not enumerated
  /// Estimated relative error: per sampled class, (unsampled CTAs) x (max - min) / 2 of the
  /// sampled CTAs, summed and divided by the launch total; the largest over warp and thread
  /// instruction totals and global load and store sectors. 0 when nothing was extrapolated.
  double errorEstimate = 0;
  bool dataDependent = false; ///< counts changed with the loaded values
  DataCheck dataCheck = DataCheck::Off;
  uint64_t interpreted = 0; ///< warp instructions actually interpreted (samples and checks)
  /// The earlier equivalent launch whose counts were copied (dedupeLaunches), or -1.
  int64_t reusedFrom = -1;
  /// CTA loop iterations counted by loop-trip extrapolation instead of being interpreted
  /// (summed over the CTAs run, data checks included).
  uint64_t loopIterationsSkipped = 0;
};

struct AnalysisResult {
  std::vector<LaunchAnalysis> launches;
  KernelProfile total; ///< sum over launches
};

/// Analyses every launch. Traps and parse errors are Errors naming the launch (the first one in
/// launch order, whatever the thread count).
support::Expected<AnalysisResult> analyze(const AnalysisInput &In, AnalysisMode Mode,
                                          const FastSettings &Settings = {});

/// Adds `Scale` times every counter of `Src` into `Dst` (rounded; geometry and name kept).
void addScaled(KernelProfile &Dst, const KernelProfile &Src, double Scale);

} // namespace analyzer
