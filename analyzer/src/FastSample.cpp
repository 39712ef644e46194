// One launch in fast mode: CTAs grouped by boundary class (first/interior/last per grid
// dimension), representatives interpreted, counts extrapolated by class size, data check.
#include "Engine.h"
#include "LoopSkip.h"
#include "SampleClass.h"

#include <algorithm>
#include <cmath>

namespace analyzer {
namespace {

bool sameCounts(const KernelProfile &A, const KernelProfile &B) {
  return A.warpInstructions == B.warpInstructions && A.threadInstructions == B.threadInstructions &&
         A.branches == B.branches && A.branchesTaken == B.branchesTaken &&
         A.branchesDivergent == B.branchesDivergent && A.globalLoadSectors == B.globalLoadSectors &&
         A.globalStoreSectors == B.globalStoreSectors;
}

LaunchConfig withSubset(const LaunchConfig &L, std::vector<uint64_t> Ctas) {
  LaunchConfig One = L;
  One.ctaSubset = std::move(Ctas);
  return One;
}

/// Runs the CTAs `Sub` in one call, within `Budget` warp instructions when it is not 0 (and
/// the settings' budget); adds the work done to Out's statistics.
RunResult runCtas(const SampleJob &J, std::vector<uint64_t> Sub, ClassRun &Out,
                  uint64_t Budget = 0) {
  J.skipper.setOptions(
      {J.settings.skipLoops, J.device.pattern != AbstractPattern::Zero, J.settings.skipWarpLoops});
  RunSettings Run = J.settings.run;
  if (Budget > 0)
    Run.maxWarpInstructions = std::min(Run.maxWarpInstructions, Budget);
  RunResult R = runKernelSkipping(J.program, J.kernel, withSubset(J.launch, std::move(Sub)),
                                  J.device, Run, &J.skipper);
  const LoopSkipStats &Stats = J.skipper.stats();
  Out.interpreted += Stats.interpreted(R.profile.warpInstructionsTotal());
  Out.skipped += Stats.iterationsSkipped;
  return R;
}

} // namespace

bool sameProfile(const KernelProfile &A, const KernelProfile &B) {
  return sameCounts(A, B) && A.globalLoadRequests == B.globalLoadRequests &&
         A.globalStoreRequests == B.globalStoreRequests &&
         A.globalAtomicRequests == B.globalAtomicRequests &&
         A.globalAtomicSectors == B.globalAtomicSectors &&
         A.sharedLoadRequests == B.sharedLoadRequests &&
         A.sharedStoreRequests == B.sharedStoreRequests &&
         A.sharedAtomicRequests == B.sharedAtomicRequests &&
         A.sharedBankConflicts == B.sharedBankConflicts && A.loadBytes == B.loadBytes &&
         A.storeBytes == B.storeBytes && A.barrierSyncs == B.barrierSyncs &&
         A.tensorMacs == B.tensorMacs && A.tensorMacsInt8 == B.tensorMacsInt8;
}

RunResult runCta(const SampleJob &J, uint64_t Cta, CtaCache &Cache, ClassRun &Out) {
  if (auto It = Cache.runs.find(Cta); It != Cache.runs.end())
    return RunResult{It->second, std::nullopt};
  RunResult R = runCtas(J, {Cta}, Out);
  if (!R.trap && J.settings.abstractMemory && J.program.impl().globals.empty())
    Cache.runs.emplace(Cta, R.profile);
  return R;
}

std::array<uint64_t, 4> metrics(const KernelProfile &P) {
  return {P.warpInstructionsTotal(), P.threadInstructionsTotal(), P.globalLoadSectors,
          P.globalStoreSectors};
}

std::array<uint64_t, 3> ctaCoords(uint64_t Cta, const Dim3 &G) {
  return {Cta % G[0], Cta / G[0] % G[1], Cta / (uint64_t(G[0]) * G[1])};
}

uint64_t moveCta(uint64_t Cta, const Dim3 &G, int D, uint32_t To) {
  std::array<uint64_t, 3> Co = ctaCoords(Cta, G);
  Co[D] = To;
  return Co[0] + Co[1] * G[0] + Co[2] * uint64_t(G[0]) * G[1];
}

namespace {

/// First, interior and last coordinates of a dimension of `N` (fewer when N < 3).
std::vector<Span1> categories(uint32_t N) {
  if (N == 1)
    return {{0, 1}};
  if (N == 2)
    return {{0, 1}, {1, 1}};
  return {{0, 1}, {1, N - 2}, {N - 1, 1}};
}

/// The CTAs (linear indices) interpreted for one class: all of them when there are at most `K`,
/// else K spread along each dimension (a different permutation per dimension). With `Balance`
/// (an alignment period), the J-th stratum's coordinate along a dimension of at least 2 x
/// Balance moves to the nearest one congruent to J mod Balance, so the samples cover the
/// residues of a sector alignment evenly.
std::vector<uint64_t> classSamples(const std::array<Span1, 3> &C, const Dim3 &G, uint32_t K,
                                   uint32_t Balance, bool &Enumerated) {
  uint64_t Size = uint64_t(C[0].count) * C[1].count * C[2].count;
  std::vector<uint64_t> Out;
  auto Linear = [&](uint64_t X, uint64_t Y, uint64_t Z) {
    return X + Y * G[0] + Z * uint64_t(G[0]) * G[1];
  };
  Enumerated = Size <= K;
  if (Enumerated) {
    for (uint32_t Z = 0; Z < C[2].count; ++Z)
      for (uint32_t Y = 0; Y < C[1].count; ++Y)
        for (uint32_t X = 0; X < C[0].count; ++X)
          Out.push_back(Linear(C[0].lo + X, C[1].lo + Y, C[2].lo + Z));
    return Out;
  }
  // Stratified with jitter: sample S lies in the J-th of K equal strata of each dimension, at an
  // offset from an additive recurrence (golden ratio; another irrational per dimension). Evenly
  // spaced samples would alias with a periodic pattern of the grid: maxpool CTAs whose output
  // rows start on a sector boundary every other channel gave 64 samples of one parity and
  // store sectors 8.7 % off. Forward, reversed and rotated strata keep the dimensions from
  // moving in lockstep.
  constexpr double Step[3] = {0.6180339887498949, 0.4142135623730950, 0.7320508075688772};
  for (uint32_t S = 0; S < K; ++S) {
    uint64_t P[3];
    for (int D = 0; D < 3; ++D) {
      uint64_t J = D == 0 ? S : D == 1 ? K - 1 - S : (S + K / 2) % K;
      double Offset = (J + 1) * Step[D];
      Offset -= std::floor(Offset);
      uint64_t At = static_cast<uint64_t>((J + Offset) * C[D].count / K);
      if (Balance && C[D].count >= 2 * Balance) {
        At = At - At % Balance + (C[D].lo + J) % Balance;
        At = At < C[D].count ? At : At - Balance;
      }
      P[D] = C[D].lo + At;
    }
    Out.push_back(Linear(P[0], P[1], P[2]));
  }
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

/// Every CTA of an enumerated class: the uncached ones in one call, plus the cached counts.
RunResult runAll(const SampleJob &J, const std::vector<uint64_t> &Ctas, CtaCache &Cache,
                 ClassRun &Out) {
  std::vector<uint64_t> Fresh;
  for (uint64_t C : Ctas)
    if (!Cache.runs.count(C))
      Fresh.push_back(C);
  RunResult R;
  if (!Fresh.empty())
    R = runCtas(J, std::move(Fresh), Out);
  for (uint64_t C : Ctas)
    if (auto It = Cache.runs.find(C); It != Cache.runs.end())
      R.profile.accumulate(It->second);
  return R;
}

std::optional<Trap> runClass(const SampleJob &J, const std::vector<uint64_t> &Ctas, bool Enumerated,
                             bool Check, CtaCache &Cache, ClassRun &Out) {
  if (Enumerated) { // exact for this class: one call, no spread
    RunResult R = runAll(J, Ctas, Cache, Out);
    if (R.trap)
      return R.trap;
    Out.sum = R.profile;
    Out.ctas = Ctas.size();
    Out.lo = Out.hi = {};
  } else {
    for (uint64_t C : Ctas) {
      RunResult R = runCta(J, C, Cache, Out);
      if (R.trap)
        return R.trap;
      widen(Out.lo, Out.hi, metrics(R.profile));
      if (Out.ctas++ == 0)
        Out.sum = R.profile;
      else
        Out.sum.accumulate(R.profile);
      Out.sampled.push_back(C);
      Out.perCta.push_back(std::move(R.profile));
    }
  }
  if (Check && !Ctas.empty()) {
    RunResult Zero = runCta(J, Ctas[0], Cache, Out);
    J.device.pattern = AbstractPattern::AddressHash;
    // Other data may never let a loop end (a spin lock whose compare-and-swap now fails): far
    // more work than with zeros is data dependence, found without waiting for it to finish.
    const uint64_t Budget = 8 * Zero.profile.warpInstructionsTotal() + (uint64_t(1) << 20);
    RunResult Hashed = runCtas(J, {Ctas[0]}, Out, Budget);
    J.device.pattern = AbstractPattern::Zero;
    // A trap with other data is itself data dependence (e.g. a loaded index out of bounds).
    Out.dataDependent = Hashed.trap.has_value() || !sameCounts(Zero.profile, Hashed.profile);
  }
  return std::nullopt;
}

/// A class whose CTAs were sampled one by one: a reference for class transfers.
struct Sampled {
  std::array<Span1, 3> spans;
  ClassRun run;
};

/// Class transfer (FastSettings::transferClasses): class `C` has a single coordinate along the
/// one dimension D in which it differs from a sampled class. The first, middle and last of
/// that class's samples run again, moved to C's coordinate along D; if each counts exactly like
/// its original (every counter), C takes the sampled class's per-CTA estimate and spread and
/// `Moved` is set. Otherwise Out keeps only the work done.
std::optional<Trap> transfer(const SampleJob &J, const Class &C, const std::vector<Sampled> &Done,
                             CtaCache &Cache, ClassRun &Out, bool &Moved) {
  for (const Sampled &S : Done) {
    int D = -1, Differ = 0;
    for (int K = 0; K < 3; ++K)
      if (S.spans[K].lo != C.spans[K].lo || S.spans[K].count != C.spans[K].count) {
        D = K;
        ++Differ;
      }
    if (Differ != 1 || C.spans[D].count != 1)
      continue;
    size_t N = S.run.sampled.size();
    uint64_t Ran = 0;
    bool Same = true;
    for (size_t Pick : {size_t(0), N / 2, N - 1}) {
      if (Pick == N / 2 && (Pick == 0 || Pick == N - 1))
        continue; // fewer than three samples
      RunResult R =
          runCta(J, moveCta(S.run.sampled[Pick], J.launch.grid, D, C.spans[D].lo), Cache, Out);
      if (R.trap)
        return R.trap;
      ++Ran;
      if (!sameProfile(R.profile, S.run.perCta[Pick])) {
        Same = false;
        break;
      }
    }
    if (!Same)
      return std::nullopt; // one reference tried: sample the class itself
    Out.sum = S.run.sum;
    Out.sumCtas = S.run.sumCtas ? S.run.sumCtas : S.run.ctas;
    Out.ctas = Ran;
    Out.lo = S.run.lo;
    Out.hi = S.run.hi;
    Moved = true;
    return std::nullopt;
  }
  return std::nullopt;
}

/// Every CTA in one run (sampling off).
std::optional<Trap> runWhole(const SampleJob &J, LaunchAnalysis &Out) {
  J.skipper.setOptions({J.settings.skipLoops, false, J.settings.skipWarpLoops});
  RunResult R =
      runKernelSkipping(J.program, J.kernel, J.launch, J.device, J.settings.run, &J.skipper);
  const LoopSkipStats &Stats = J.skipper.stats();
  Out.profile = R.profile;
  Out.ctasSampled = R.profile.ctasRun;
  Out.interpreted = Stats.interpreted(R.profile.warpInstructionsTotal());
  Out.loopIterationsSkipped = Stats.iterationsSkipped;
  return R.trap;
}

/// The boundary classes of grid `G`, largest first (grid order on ties): the data check runs on
/// the first, and class transfers find the sampled interior classes before the border ones.
std::vector<Class> gridClasses(const Dim3 &G) {
  std::vector<Span1> Cat[3] = {categories(G[0]), categories(G[1]), categories(G[2])};
  std::vector<Class> Classes;
  for (const Span1 &Z : Cat[2])
    for (const Span1 &Y : Cat[1])
      for (const Span1 &X : Cat[0])
        Classes.push_back({{X, Y, Z}, uint64_t(X.count) * Y.count * Z.count});
  std::stable_sort(Classes.begin(), Classes.end(),
                   [](const Class &A, const Class &B) { return A.size > B.size; });
  return Classes;
}

/// Whether the neighbour of sample `Cta` (the next CTA along the class's first dimension with
/// more than one coordinate) counts like the samples, which agreed on R.lo. Per-CTA counts
/// that alternate with a coordinate's parity (a plane of 784 bytes starts on a sector boundary
/// every other channel) can make every sample agree on one parity; the neighbour has the
/// other. Not part of the estimate; only a disagreement matters (the class is sampled denser).
std::optional<Trap> neighbourAgrees(const SampleJob &J, const Class &C, uint64_t Cta,
                                    CtaCache &Cache, ClassRun &R, bool &Agrees) {
  const Dim3 &G = J.launch.grid;
  const std::array<uint64_t, 3> Co = ctaCoords(Cta, G);
  for (int D = 0; D < 3; ++D) {
    const Span1 &S = C.spans[D];
    if (S.count < 2)
      continue;
    uint32_t To = Co[D] + 1 < uint64_t(S.lo) + S.count ? uint32_t(Co[D] + 1) : uint32_t(Co[D] - 1);
    RunResult N = runCta(J, moveCta(Cta, G, D, To), Cache, R);
    if (N.trap)
      return N.trap;
    Agrees = metrics(N.profile) == R.lo;
    return std::nullopt;
  }
  return std::nullopt;
}

/// With residue strata, a denser round enumerates a class of at most twice its samples when
/// that costs at most this many warp instructions (at the previous round's cost per CTA).
constexpr uint64_t DenseEnumerationBudget = uint64_t(1) << 17;
/// A class whose samples agree is still counted whole when that costs at most this many warp
/// instructions (at the samples' cost per CTA): agreeing samples can miss CTAs that count
/// differently without a period (64-pixel tiles over 37-pixel rows gather at a different
/// alignment each; Xception's 1x1 stride-2 shortcut was 1.02 % off with an estimate of 0).
constexpr uint64_t SmallClassBudget = uint64_t(1) << 18;

/// Runs `K` CTAs of class `C` (all of them when there are at most K); when the samples
/// disagree, again 4x denser up to maxInteriorSamples. R keeps the work of every round.
std::optional<Trap> sampleClass(const SampleJob &J, const Class &C, uint32_t K, bool Check,
                                CtaCache &Cache, ClassRun &R, bool &Enumerated) {
  uint64_t PerCta = 0; // warp instructions interpreted per sample in the previous round
  // Variation the residue-strata blocks showed without fitting a pattern: later rounds keep
  // that spread, so agreeing samples neither stop the escalation nor shrink the estimate.
  bool Varies = false, ForceAll = false;
  std::array<uint64_t, 4> SeenLo{}, SeenHi{};
  for (uint32_t Kc = K;; Kc = std::min(Kc * 4, J.settings.maxInteriorSamples)) {
    const bool Dense = J.settings.residueStrata && Kc > K;
    const bool All = ForceAll || (Dense && C.size <= 2 * uint64_t(Kc) &&
                                  C.size * PerCta <= DenseEnumerationBudget);
    std::vector<uint64_t> Ctas = classSamples(C.spans, J.launch.grid, All ? uint32_t(C.size) : Kc,
                                              Dense ? Cache.period : 0, Enumerated);
    uint64_t Before = R.interpreted, SkippedBefore = R.skipped;
    R = ClassRun();
    R.interpreted = Before;
    R.skipped = SkippedBefore;
    if (std::optional<Trap> T = runClass(J, Ctas, Enumerated, Check, Cache, R))
      return T;
    PerCta = (R.interpreted - Before) / std::max<uint64_t>(R.ctas, 1);
    if (!Enumerated && Varies) {
      widen(R.lo, R.hi, SeenLo);
      widen(R.lo, R.hi, SeenHi);
    }
    if (Enumerated || Kc >= J.settings.maxInteriorSamples)
      return std::nullopt;
    const uint32_t NextK = std::min(Kc * 4, J.settings.maxInteriorSamples);
    if (Kc == K && J.settings.residueStrata && C.size > NextK) { // else the next round is exact
      Strata St = Strata::NotApplicable;
      // The next round's CTAs check a weighting (and are cached for that round).
      bool NextEnumerated = false; // never: the class has more than NextK CTAs
      const std::vector<uint64_t> Next =
          classSamples(C.spans, J.launch.grid, NextK, Cache.period, NextEnumerated);
      if (std::optional<Trap> T = residueStrata(J, C, Next, Cache, R, St))
        return T;
      if (St == Strata::Uniform || St == Strata::Weighted)
        return std::nullopt;
      if (St == Strata::Fails) {
        Varies = R.lo != R.hi; // the blocks widened R's spread
        SeenLo = R.lo;
        SeenHi = R.hi;
        continue;
      }
    }
    if (R.lo == R.hi) { // a widened spread (Varies) never agrees
      bool Agrees = true;
      if (std::optional<Trap> T = neighbourAgrees(J, C, Ctas.front(), Cache, R, Agrees))
        return T;
      if (Agrees && C.size <= 8 * uint64_t(K) && C.size * PerCta <= SmallClassBudget) {
        ForceAll = true; // the next round enumerates the class
        continue;
      }
      if (Agrees)
        return std::nullopt;
    }
  }
}

} // namespace

std::optional<Trap> sampleLaunch(const SampleJob &J, LaunchAnalysis &Out) {
  const Dim3 &G = J.launch.grid;
  Out.ctasTotal = uint64_t(G[0]) * G[1] * G[2];
  if (!J.settings.sampleCtas)
    return runWhole(J, Out);
  KernelProfile Est;
  Est.kernel = J.kernel;
  Est.grid = G;
  Est.block = J.launch.block;
  Est.sharedBytes = J.launch.sharedBytes;
  if (const DFunction *K = J.program.impl().kernel(J.kernel)) {
    Est.registersPerThread = K->resources.registers;
    Est.staticSharedBytes = K->resources.staticSharedBytes;
  }
  std::array<double, 4> AbsErr{};
  Out.classes = 0;
  uint32_t K = std::max<uint32_t>(J.settings.interiorSamples, 1);
  std::vector<Class> Classes = gridClasses(G);
  std::vector<Sampled> Done;
  CtaCache Cache;
  Cache.period = alignPeriod(J.program.impl(), J.kernel);
  for (size_t Ci = 0; Ci < Classes.size(); ++Ci) {
    const Class &C = Classes[Ci];
    bool Check = J.checkData && Ci == 0;
    ClassRun R;
    bool Enumerated = false, Moved = false;
    if (J.settings.transferClasses && C.size > K)
      if (std::optional<Trap> T = transfer(J, C, Done, Cache, R, Moved))
        return T;
    if (!Moved)
      if (std::optional<Trap> T = sampleClass(J, C, K, Check, Cache, R, Enumerated))
        return T;
    addScaled(Est, R.sum, double(C.size) / double(R.sumCtas ? R.sumCtas : R.ctas));
    if (!Enumerated) {
      Out.extrapolated = true;
      for (size_t M = 0; M < AbsErr.size(); ++M)
        AbsErr[M] += R.missShare * double(C.size - R.ctas) * double(R.hi[M] - R.lo[M]) / 2;
    }
    Out.ctasSampled += R.ctas;
    Out.interpreted += R.interpreted;
    Out.dataDependent |= R.dataDependent;
    Out.loopIterationsSkipped += R.skipped;
    ++Out.classes;
    if (!Enumerated && !Moved && R.sampled.size() >= 2)
      Done.push_back({C.spans, std::move(R)});
  }
  Est.ctasRun = Out.ctasSampled;
  std::array<uint64_t, 4> Totals = metrics(Est);
  Out.errorEstimate = 0;
  for (size_t M = 0; M < AbsErr.size(); ++M)
    if (Totals[M])
      Out.errorEstimate = std::max(Out.errorEstimate, AbsErr[M] / double(Totals[M]));
  Out.profile = std::move(Est);
  return std::nullopt;
}

void addScaled(KernelProfile &Dst, const KernelProfile &Src, double Scale) {
  auto Add = [Scale](uint64_t &D, uint64_t S) {
    D += static_cast<uint64_t>(std::llround(double(S) * Scale));
  };
  for (size_t C = 0; C < Dst.warpInstructions.size(); ++C) {
    Add(Dst.warpInstructions[C], Src.warpInstructions[C]);
    Add(Dst.threadInstructions[C], Src.threadInstructions[C]);
  }
  for (size_t S = 0; S < NumMemSpaces; ++S) {
    Add(Dst.loadBytes[S], Src.loadBytes[S]);
    Add(Dst.storeBytes[S], Src.storeBytes[S]);
  }
  Add(Dst.branches, Src.branches);
  Add(Dst.branchesTaken, Src.branchesTaken);
  Add(Dst.branchesDivergent, Src.branchesDivergent);
  Add(Dst.globalLoadRequests, Src.globalLoadRequests);
  Add(Dst.globalStoreRequests, Src.globalStoreRequests);
  Add(Dst.globalLoadSectors, Src.globalLoadSectors);
  Add(Dst.globalStoreSectors, Src.globalStoreSectors);
  Add(Dst.globalAtomicRequests, Src.globalAtomicRequests);
  Add(Dst.globalAtomicSectors, Src.globalAtomicSectors);
  Add(Dst.sharedLoadRequests, Src.sharedLoadRequests);
  Add(Dst.sharedStoreRequests, Src.sharedStoreRequests);
  Add(Dst.sharedAtomicRequests, Src.sharedAtomicRequests);
  Add(Dst.sharedBankConflicts, Src.sharedBankConflicts);
  Add(Dst.barrierSyncs, Src.barrierSyncs);
  Add(Dst.tensorMacs, Src.tensorMacs);
  Add(Dst.tensorMacsInt8, Src.tensorMacsInt8);
}

} // namespace analyzer
