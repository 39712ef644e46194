// One launch in fast mode: CTAs grouped by boundary class (first/interior/last per grid
// dimension), representatives interpreted, counts extrapolated by class size, data check.
#include "FastSample.h"
#include "LoopSkip.h"

#include <algorithm>
#include <cmath>

namespace analyzer {
namespace {

/// A range of coordinates along one grid dimension.
struct Span1 {
  uint32_t lo = 0, count = 1;
};

/// First, interior and last coordinates of a dimension of `N` (fewer when N < 3).
std::vector<Span1> categories(uint32_t N) {
  if (N == 1)
    return {{0, 1}};
  if (N == 2)
    return {{0, 1}, {1, 1}};
  return {{0, 1}, {1, N - 2}, {N - 1, 1}};
}

/// The CTAs (linear indices) interpreted for one class: all of them when there are at most `K`,
/// else K spread along each dimension (a different permutation per dimension).
std::vector<uint64_t> classSamples(const std::array<Span1, 3> &C, const Dim3 &G, uint32_t K,
                                   bool &Enumerated) {
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
  for (uint32_t S = 0; S < K; ++S) {
    uint64_t P[3];
    for (int D = 0; D < 3; ++D) {
      // Forward, reversed and rotated orders keep the dimensions from moving in lockstep.
      uint64_t J = D == 0 ? S : D == 1 ? K - 1 - S : (S + K / 2) % K;
      P[D] = C[D].lo + (K > 1 ? (uint64_t(C[D].count) - 1) * J / (K - 1) : 0);
    }
    Out.push_back(Linear(P[0], P[1], P[2]));
  }
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

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

/// Estimated counts of one class and the data check on its first sample.
struct ClassRun {
  KernelProfile sum;
  uint64_t ctas = 0;
  uint64_t interpreted = 0; ///< warp instructions interpreted for this class
  /// Per-CTA spread of the metrics the error estimate covers (see metrics()).
  std::array<uint64_t, 4> lo{~uint64_t(0), ~uint64_t(0), ~uint64_t(0), ~uint64_t(0)}, hi{};
  bool dataDependent = false;
  uint64_t skipped = 0; ///< CTA loop iterations extrapolated (LoopSkip.h)
};

/// Warp and thread instruction totals, global load and store sectors.
std::array<uint64_t, 4> metrics(const KernelProfile &P) {
  return {P.warpInstructionsTotal(), P.threadInstructionsTotal(), P.globalLoadSectors,
          P.globalStoreSectors};
}

std::optional<Trap> runClass(const SampleJob &J, const std::vector<uint64_t> &Ctas, bool Enumerated,
                             bool Check, ClassRun &Out) {
  auto Run = [&](std::vector<uint64_t> Sub) {
    J.skipper.setOptions({J.settings.skipLoops, J.device.pattern != AbstractPattern::Zero});
    RunResult R = runKernelSkipping(J.program, J.kernel, withSubset(J.launch, std::move(Sub)),
                                    J.device, J.settings.run, &J.skipper);
    const LoopSkipStats &Stats = J.skipper.stats();
    Out.interpreted += Stats.interpreted(R.profile.warpInstructionsTotal());
    Out.skipped += Stats.iterationsSkipped;
    return R;
  };
  if (Enumerated) { // exact for this class: one call, no spread
    RunResult R = Run(Ctas);
    if (R.trap)
      return R.trap;
    Out.sum = R.profile;
    Out.ctas = Ctas.size();
    Out.lo = Out.hi = {};
  } else {
    for (uint64_t C : Ctas) {
      RunResult R = Run({C});
      if (R.trap)
        return R.trap;
      std::array<uint64_t, 4> M = metrics(R.profile);
      for (size_t K = 0; K < M.size(); ++K) {
        Out.lo[K] = std::min(Out.lo[K], M[K]);
        Out.hi[K] = std::max(Out.hi[K], M[K]);
      }
      if (Out.ctas++ == 0)
        Out.sum = R.profile;
      else
        Out.sum.accumulate(R.profile);
    }
  }
  if (Check && !Ctas.empty()) {
    RunResult Zero = Run({Ctas[0]});
    J.device.pattern = AbstractPattern::AddressHash;
    RunResult Hashed = Run({Ctas[0]});
    J.device.pattern = AbstractPattern::Zero;
    // A trap with other data is itself data dependence (e.g. a loaded index out of bounds).
    Out.dataDependent = Hashed.trap.has_value() || !sameCounts(Zero.profile, Hashed.profile);
  }
  return std::nullopt;
}

} // namespace

std::optional<Trap> sampleLaunch(const SampleJob &J, LaunchAnalysis &Out) {
  const Dim3 &G = J.launch.grid;
  Out.ctasTotal = uint64_t(G[0]) * G[1] * G[2];
  if (!J.settings.sampleCtas) {
    J.skipper.setOptions({J.settings.skipLoops, false});
    RunResult R =
        runKernelSkipping(J.program, J.kernel, J.launch, J.device, J.settings.run, &J.skipper);
    const LoopSkipStats &Stats = J.skipper.stats();
    Out.profile = R.profile;
    Out.ctasSampled = R.profile.ctasRun;
    Out.interpreted = Stats.interpreted(R.profile.warpInstructionsTotal());
    Out.loopIterationsSkipped = Stats.iterationsSkipped;
    return R.trap;
  }
  std::vector<Span1> Cat[3] = {categories(G[0]), categories(G[1]), categories(G[2])};
  KernelProfile Est;
  Est.kernel = J.kernel;
  Est.grid = G;
  Est.block = J.launch.block;
  Est.sharedBytes = J.launch.sharedBytes;
  std::array<double, 4> AbsErr{};
  Out.classes = 0;
  uint32_t K = std::max<uint32_t>(J.settings.interiorSamples, 1);
  // The data check runs once per launch, on the largest class (the first one on ties).
  uint64_t Largest = 0;
  for (const Span1 &Z : Cat[2])
    for (const Span1 &Y : Cat[1])
      for (const Span1 &X : Cat[0])
        Largest = std::max(Largest, uint64_t(X.count) * Y.count * Z.count);
  bool Checked = !J.checkData;
  for (const Span1 &Z : Cat[2])
    for (const Span1 &Y : Cat[1])
      for (const Span1 &X : Cat[0]) {
        std::array<Span1, 3> C = {X, Y, Z};
        bool Enumerated = false;
        uint64_t Size = uint64_t(X.count) * Y.count * Z.count;
        bool Check = !Checked && Size == Largest;
        Checked |= Check;
        ClassRun R;
        // Sampled CTAs that disagree: sample again, 4x denser, up to maxInteriorSamples.
        for (uint32_t Kc = K;; Kc = std::min(Kc * 4, J.settings.maxInteriorSamples)) {
          std::vector<uint64_t> Ctas = classSamples(C, G, Kc, Enumerated);
          uint64_t Before = R.interpreted, SkippedBefore = R.skipped;
          R = ClassRun();
          R.interpreted = Before;
          R.skipped = SkippedBefore;
          if (std::optional<Trap> T = runClass(J, Ctas, Enumerated, Check, R))
            return T;
          if (Enumerated || R.lo == R.hi || Kc >= J.settings.maxInteriorSamples)
            break;
        }
        addScaled(Est, R.sum, double(Size) / double(R.ctas));
        if (!Enumerated) {
          Out.extrapolated = true;
          for (size_t M = 0; M < AbsErr.size(); ++M)
            AbsErr[M] += double(Size - R.ctas) * double(R.hi[M] - R.lo[M]) / 2;
        }
        Out.ctasSampled += R.ctas;
        Out.interpreted += R.interpreted;
        Out.dataDependent |= R.dataDependent;
        Out.loopIterationsSkipped += R.skipped;
        ++Out.classes;
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
}

} // namespace analyzer
