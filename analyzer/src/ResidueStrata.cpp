// Residue strata (FastSettings::residueStrata, docs/fast-mode.md shortcut 8): a class whose
// per-CTA counts repeat along one grid dimension with a short period (sector alignment that moves
// 4 bytes per CTA repeats every 8; tiles of 64 pixels wrap 224-pixel rows every 7) is weighted
// per residue instead of being scaled from samples that may all share a few residues.
#include "SampleClass.h"

#include "Engine.h"

#include <algorithm>

namespace analyzer {
namespace {

/// 32-byte sectors over 4-byte elements: the alignment period of fp32 data, in CTAs.
constexpr uint32_t Fp32Period = 8;

/// How many of the coordinates [Lo, Lo + N) are congruent to Residue mod P.
uint64_t residueCount(uint64_t Lo, uint64_t N, uint64_t Residue, uint64_t P) {
  auto Below = [&](uint64_t X) { return (X + P - 1 - Residue) / P; };
  return Below(Lo + N) - Below(Lo);
}

/// Runs the CTAs from `First` moved to coordinates Start .. Start + Len - 1 along dimension D
/// into B (in coordinate order); CTAs that ran before come from the cache.
std::optional<Trap> runBlock(const SampleJob &J, uint64_t First, int D, uint64_t Start,
                             uint32_t Len, CtaCache &Cache, ClassRun &R,
                             std::vector<uint64_t> &Used, std::vector<KernelProfile> &B) {
  B.clear();
  for (uint64_t At = Start; At < Start + Len; ++At) {
    Used.push_back(moveCta(First, J.launch.grid, D, uint32_t(At)));
    RunResult Ran = runCta(J, Used.back(), Cache, R);
    if (Ran.trap)
      return Ran.trap;
    widen(R.lo, R.hi, metrics(Ran.profile)); // the class's spread, should the strata fail
    B.push_back(std::move(Ran.profile));
  }
  return std::nullopt;
}

/// The smallest P <= B.size() / 2 with B[i] == B[i + P] for every i; 0 if there is none. A
/// single odd CTA anywhere in B rules out every P (it has a partner P away inside B).
uint32_t findPeriod(const std::vector<KernelProfile> &B) {
  for (uint32_t P = 1; 2 * P <= B.size(); ++P) {
    bool Repeats = true;
    for (size_t I = 0; Repeats && I + P < B.size(); ++I)
      Repeats = sameProfile(B[I], B[I + P]);
    if (Repeats)
      return P;
  }
  return 0;
}

/// Where a repeat block of P CTAs starts along span S: a multiple of P away from the block of
/// Len CTAs at Start, beyond it, as far as fits in half the span; none if none fits.
std::optional<uint64_t> repeatStart(const Span1 &S, uint64_t Start, uint32_t Len, uint32_t P) {
  const uint64_t Last = uint64_t(S.lo) + S.count - P; // the last start that fits
  const uint64_t Min = (Len + P - 1) / P;             // multiples of P past the block
  for (uint64_t M = std::max<uint64_t>(S.count / (2 * P), Min); M >= Min; --M) {
    if (Start + M * P <= Last)
      return Start + M * P;
    if (Start >= S.lo + M * P)
      return Start - M * P;
  }
  return std::nullopt;
}

/// The blocks of one class: along each dimension in which it spans at least 2 x the launch's
/// alignPeriod() A coordinates, A consecutive CTAs from the first sample on (all alike: no
/// variation along it); where they vary, 2A CTAs to find a period up to A and, if they have
/// none, 4A CTAs for one up to 2A (tiles that wrap a row every 15).
struct BlockScan {
  Strata strata = Strata::NotApplicable; ///< Uniform, Weighted (one dimension varies) or Fails
  int varying = -1;                      ///< the dimension whose blocks vary
  uint64_t start = 0;                    ///< where the block that gave the period starts
  uint32_t length = 0;                   ///< and its length
  uint32_t period = 1;                   ///< the period
  std::vector<KernelProfile> ref;        ///< counts by residue mod period (one when uniform)
};

std::optional<Trap> scanBlocks(const SampleJob &J, const Class &C, CtaCache &Cache, ClassRun &R,
                               std::vector<uint64_t> &Used, BlockScan &Out) {
  const uint64_t First = R.sampled.front();
  const std::array<uint64_t, 3> Co = ctaCoords(First, J.launch.grid);
  for (int D = 0; D < 3; ++D) {
    const Span1 &S = C.spans[D];
    const uint32_t A = Cache.period;
    if (S.count < 2 * A || Cache.uniformDims[D])
      continue;
    auto StartFor = [&](uint32_t Len) { return std::min<uint64_t>(Co[D], S.lo + S.count - Len); };
    std::vector<KernelProfile> B;
    if (std::optional<Trap> T = runBlock(J, First, D, StartFor(A), A, Cache, R, Used, B))
      return T;
    if (findPeriod(B) == 1) {
      Cache.uniformDims[D] = true;
      if (Out.strata == Strata::NotApplicable)
        Out = BlockScan{Strata::Uniform, -1, 0, 0, 1, {B.front()}};
      continue;
    }
    if (Out.varying >= 0) {
      Out.strata = Strata::Fails; // a second varying dimension
      return std::nullopt;
    }
    uint32_t P = 0, Len = 2 * A;
    uint64_t Start = 0;
    for (; P == 0 && Len <= std::min<uint64_t>(4 * A, S.count); Len *= 2) {
      Start = StartFor(Len);
      if (std::optional<Trap> T = runBlock(J, First, D, Start, Len, Cache, R, Used, B))
        return T;
      P = findPeriod(B);
    }
    if (P == 0) {
      Out.strata = Strata::Fails;
      return std::nullopt;
    }
    Out = BlockScan{Strata::Weighted, D, Start, Len / 2, P, std::vector<KernelProfile>(P)};
    for (uint32_t I = 0; I < P; ++I)
      Out.ref[(Start + I) % P] = B[I];
  }
  return std::nullopt;
}

/// Whether CTA `Cta` counts as the scan's pattern says. A weighted class's first and last
/// `Ends` coordinates along the varying dimension are run and counted exactly (image borders),
/// so any counts fit there.
bool fits(const SampleJob &J, const Class &C, const BlockScan &Scan, uint64_t Ends, uint64_t Cta,
          const KernelProfile &P) {
  if (Scan.varying < 0)
    return sameProfile(P, Scan.ref.front());
  const Span1 &S = C.spans[Scan.varying];
  const uint64_t X = ctaCoords(Cta, J.launch.grid)[Scan.varying];
  if (X < S.lo + Ends || X >= S.lo + S.count - Ends)
    return true;
  return sameProfile(P, Scan.ref[X % Scan.period]);
}

/// Every sample fits the pattern. When weighted, so does every CTA of `Check`, and a block of
/// one period, a multiple of the period away along the varying dimension, repeats the long
/// block: a pattern that only looks periodic within the long block (tiles that wrap a row every
/// 25 CTAs) has to show nowhere else either.
std::optional<Trap> verify(const SampleJob &J, const Class &C, const std::vector<uint64_t> &Check,
                           const BlockScan &Scan, uint64_t Ends, CtaCache &Cache, ClassRun &R,
                           std::vector<uint64_t> &Used, bool &Ok) {
  Ok = false;
  for (size_t I = 0; I < R.sampled.size(); ++I)
    if (!fits(J, C, Scan, Ends, R.sampled[I], R.perCta[I]))
      return std::nullopt;
  if (Scan.strata == Strata::Uniform) {
    Ok = true;
    return std::nullopt;
  }
  for (uint64_t Cta : Check) {
    Used.push_back(Cta);
    RunResult Ran = runCta(J, Cta, Cache, R);
    if (Ran.trap)
      return Ran.trap;
    if (!fits(J, C, Scan, Ends, Cta, Ran.profile))
      return std::nullopt;
  }
  std::optional<uint64_t> Repeat =
      repeatStart(C.spans[Scan.varying], Scan.start, Scan.length, Scan.period);
  if (!Repeat)
    return std::nullopt;
  std::vector<KernelProfile> Again;
  if (std::optional<Trap> T =
          runBlock(J, R.sampled.front(), Scan.varying, *Repeat, Scan.period, Cache, R, Used, Again))
    return T;
  for (uint32_t I = 0; I < Scan.period; ++I)
    if (!sameProfile(Again[I], Scan.ref[(*Repeat + I) % Scan.period]))
      return std::nullopt;
  Ok = true;
  return std::nullopt;
}

/// R becomes the weighted class: its first and last `Ends` coordinates along the varying
/// dimension run and counted as they are, the middle per residue; the error estimate covers
/// exceptions in the middle that no check hit.
std::optional<Trap> weigh(const SampleJob &J, const Class &C, const BlockScan &Scan, uint64_t Ends,
                          CtaCache &Cache, ClassRun &R, std::vector<uint64_t> &Used) {
  const Span1 &S = C.spans[Scan.varying];
  const double Other = double(C.size / S.count); // CTAs per coordinate along the dimension
  KernelProfile Sum;
  for (uint64_t Start : {uint64_t(S.lo), S.lo + S.count - Ends}) {
    std::vector<KernelProfile> End;
    if (std::optional<Trap> T =
            runBlock(J, R.sampled.front(), Scan.varying, Start, Ends, Cache, R, Used, End))
      return T;
    for (const KernelProfile &P : End)
      addScaled(Sum, P, Other);
  }
  for (uint32_t Residue = 0; Residue < Scan.period; ++Residue)
    addScaled(Sum, Scan.ref[Residue],
              double(residueCount(S.lo + Ends, S.count - 2 * Ends, Residue, Scan.period)) * Other);
  R.sum = std::move(Sum);
  std::sort(Used.begin(), Used.end());
  R.sumCtas = C.size;
  R.ctas = std::unique(Used.begin(), Used.end()) - Used.begin();
  // Exceptions that no check hit are rarer than 3 in the CTAs checked (95 % upper bound with
  // none found); each may be off by the spread between residues.
  R.missShare = std::min(1.0, 3.0 / double(R.ctas));
  R.lo = R.hi = metrics(Scan.ref.front());
  for (const KernelProfile &P : Scan.ref)
    widen(R.lo, R.hi, metrics(P));
  return std::nullopt;
}

} // namespace

std::optional<Trap> residueStrata(const SampleJob &J, const Class &C,
                                  const std::vector<uint64_t> &Check, CtaCache &Cache, ClassRun &R,
                                  Strata &Out) {
  std::vector<uint64_t> Used = R.sampled;
  BlockScan Scan;
  if (std::optional<Trap> T = scanBlocks(J, C, Cache, R, Used, Scan))
    return T;
  Out = Scan.strata;
  if (Out == Strata::NotApplicable || Out == Strata::Fails)
    return std::nullopt;
  // A weighted class's ends: two periods at each end, for the image rows next to a border.
  const uint64_t Ends = Out == Strata::Weighted ? 2 * Scan.period : 0;
  bool Ok = Out == Strata::Uniform || C.spans[Scan.varying].count >= 2 * Ends + Scan.length;
  if (Ok)
    if (std::optional<Trap> T = verify(J, C, Check, Scan, Ends, Cache, R, Used, Ok))
      return T;
  if (!Ok) {
    Out = Strata::Fails;
    return std::nullopt;
  }
  if (Out == Strata::Weighted)
    return weigh(J, C, Scan, Ends, Cache, R, Used);
  return std::nullopt;
}

uint32_t alignPeriod(const ProgramImpl &P, const std::string &Kernel) {
  const DFunction *F = P.kernel(Kernel);
  if (!F)
    return Fp32Period;
  for (uint32_t Pc = F->entry; Pc < F->end; ++Pc) {
    const DInstr &I = P.code[Pc];
    const bool Global = I.cls == ptx::InstrClass::LdGlobal || I.cls == ptx::InstrClass::StGlobal;
    if (Global && I.aux >= 1 && I.aux < 4) // aux: element bytes of ld/st (OpsMemory.cpp)
      return 2 * Fp32Period;
  }
  return Fp32Period;
}

} // namespace analyzer
