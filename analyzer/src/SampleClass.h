// Fast mode internals shared by the class sampler (FastSample.cpp) and residue strata
// (ResidueStrata.cpp): a boundary class of the grid, the counts gathered for it, and single-CTA
// runs through a per-launch cache.
#pragma once

#include "FastSample.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace analyzer {

struct ProgramImpl;

/// A range of coordinates along one grid dimension.
struct Span1 {
  uint32_t lo = 0, count = 1;
};

/// A boundary class of the grid: one category per dimension.
struct Class {
  std::array<Span1, 3> spans;
  uint64_t size = 0;
};

/// Estimated counts of one class and the data check on its first sample.
struct ClassRun {
  KernelProfile sum;
  uint64_t ctas = 0;
  uint64_t interpreted = 0; ///< warp instructions interpreted for this class
  /// Per-CTA spread of the metrics the error estimate covers (see metrics()).
  std::array<uint64_t, 4> lo{~uint64_t(0), ~uint64_t(0), ~uint64_t(0), ~uint64_t(0)}, hi{};
  bool dataDependent = false;
  uint64_t skipped = 0; ///< CTA loop iterations extrapolated (LoopSkip.h)
  uint64_t sumCtas = 0; ///< CTAs `sum` covers when not `ctas` (class transfer, residue strata)
  /// The share of the class's unrun CTAs that may count unlike the estimate: 1 for samples, a
  /// bound for a residue weighting that all its checks confirmed (ResidueStrata.cpp).
  double missShare = 1;
  std::vector<uint64_t> sampled;     ///< the CTAs run one by one (sampled classes)
  std::vector<KernelProfile> perCta; ///< and their counts
};

/// What one launch's classes learn for the next ones.
struct CtaCache {
  /// Counts of single CTAs already run for this launch. With abstract memory a CTA counts the
  /// same whenever it runs (loads yield the pattern, stores are dropped), so escalation rounds,
  /// the data check and class transfers reuse them instead of interpreting the CTA again. Left
  /// empty with real memory or module .global variables, where an earlier CTA's stores may
  /// change a later run.
  std::map<uint64_t, KernelProfile> runs;
  /// Grid dimensions along which a residue-strata block of an earlier class counted alike: a
  /// later class runs no block along them (ResidueStrata.cpp).
  std::array<bool, 3> uniformDims{};
  uint32_t period = 8; ///< alignPeriod() of the launch's kernel
};

/// The period, in CTAs, with which sector alignment repeats when each CTA's addresses move by a
/// multiple of the kernel's smallest global element: 32-byte sectors over 4 bytes (fp32 and
/// wider) = 8, over 2 or 1 bytes = 16 (capped). Residue strata detect periods up to it (and up
/// to 2x from a longer block); denser rounds spread their samples over its residues.
uint32_t alignPeriod(const ProgramImpl &P, const std::string &Kernel);

/// Warp and thread instruction totals, global load and store sectors: the metrics of the error
/// estimate.
std::array<uint64_t, 4> metrics(const KernelProfile &P);

/// Widens the per-metric range [Lo, Hi] to cover M.
inline void widen(std::array<uint64_t, 4> &Lo, std::array<uint64_t, 4> &Hi,
                  const std::array<uint64_t, 4> &M) {
  for (size_t K = 0; K < M.size(); ++K) {
    Lo[K] = std::min(Lo[K], M[K]);
    Hi[K] = std::max(Hi[K], M[K]);
  }
}

/// Every counter equal (kernel name, geometry and ctasRun aside).
bool sameProfile(const KernelProfile &A, const KernelProfile &B);

/// The coordinates of CTA `Cta` (a linear index) in grid G.
std::array<uint64_t, 3> ctaCoords(uint64_t Cta, const Dim3 &G);

/// The linear index of CTA `Cta` moved to coordinate `To` along dimension `D`.
uint64_t moveCta(uint64_t Cta, const Dim3 &G, int D, uint32_t To);

/// One CTA, from the cache when it ran before (abstract memory only); adds the work done to
/// Out's statistics.
RunResult runCta(const SampleJob &J, uint64_t Cta, CtaCache &Cache, ClassRun &Out);

enum class Strata { NotApplicable, Uniform, Weighted, Fails };

/// Residue strata (FastSettings::residueStrata) for class C after its first round of samples
/// (R.sampled, R.perCta): see ResidueStrata.cpp. A weighting must also fit every CTA of `Check`
/// (the next round's samples). Weighted leaves the class's counts in R.sum (covering R.sumCtas
/// == C.size CTAs); Uniform leaves R as it was.
std::optional<Trap> residueStrata(const SampleJob &J, const Class &C,
                                  const std::vector<uint64_t> &Check, CtaCache &Cache, ClassRun &R,
                                  Strata &Out);

} // namespace analyzer
