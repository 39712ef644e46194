// Arithmetic shared by the two loop-trip extrapolations (LoopSkip.cpp, WarpLoopSkip.cpp): how
// far affine values may advance before a compare outcome changes or a register wraps.
#pragma once

#include "Engine.h"

#include <algorithm>
#include <cstdint>

namespace analyzer::loopmath {

using I128 = __int128;

inline constexpr uint64_t MaxJump = uint64_t(1) << 40; ///< iterations skipped at most at once

/// Calls Fn on every counter of a (const or not) KernelProfile, in a fixed order.
template <class Profile, class F> void forEachCounter(Profile &P, F &&Fn) {
  for (auto &V : P.warpInstructions)
    Fn(V);
  for (auto &V : P.threadInstructions)
    Fn(V);
  for (auto *V :
       {&P.branches, &P.branchesTaken, &P.branchesDivergent, &P.globalLoadRequests,
        &P.globalStoreRequests, &P.globalLoadSectors, &P.globalStoreSectors,
        &P.globalAtomicRequests, &P.globalAtomicSectors, &P.sharedLoadRequests,
        &P.sharedStoreRequests, &P.sharedAtomicRequests, &P.sharedBankConflicts, &P.barrierSyncs})
    Fn(*V);
  for (auto &V : P.loadBytes)
    Fn(V);
  for (auto &V : P.storeBytes)
    Fn(V);
}

/// How many counters forEachCounter visits: where the per-pc counts start in a counter vector.
inline size_t profileCounterCount() {
  KernelProfile Empty;
  size_t N = 0;
  forEachCounter(Empty, [&](uint64_t) { ++N; });
  return N;
}

/// min(J, the largest K such that V + k*D stays inside [Lo, Hi) for every k in [0, K]), for V
/// inside and J <= MaxJump. A linear path that ends inside stays inside, so when V + J*D is
/// inside the answer is J without a division (the common case once J has been lowered).
inline uint64_t stayInside(I128 V, I128 D, I128 Lo, I128 Hi, uint64_t J = MaxJump) {
  if (D == 0)
    return J;
  if (I128 End = V + I128(J) * D; End >= Lo && End < Hi)
    return J;
  I128 K = D > 0 ? (Hi - 1 - V) / D : (V - Lo) / -D;
  return static_cast<uint64_t>(std::min<I128>(K, J));
}

/// min(J, the largest K such that a compare of A + k*DA with B + k*DB (W-bit operands) has the
/// same outcome for every k in [0, K]), whatever the comparison and signedness: both operands
/// stay in their half of the W-bit range (so signed and unsigned order agree with the integer
/// order) and their difference keeps its sign. J <= MaxJump.
inline uint64_t stableCompare(uint64_t A, int64_t DA, uint64_t B, int64_t DB, unsigned W,
                              uint64_t J = MaxJump) {
  I128 Full = I128(1) << W, Half = Full >> 1;
  for (auto [V, D] : {std::pair<uint64_t, int64_t>{A, DA}, {B, DB}}) {
    bool Upper = I128(V) >= Half;
    J = stayInside(V, D, Upper ? Half : 0, Upper ? Full : Half, J);
  }
  I128 Diff = I128(A) - I128(B), Step = I128(DA) - I128(DB);
  if (Step == 0 || J == 0)
    return J;
  if (Diff == 0)
    return 0;
  if ((Diff > 0) == (Step > 0))
    return J;
  if (I128 End = Diff + I128(J) * Step; (End > 0) == (Diff > 0) && End != 0)
    return J;
  I128 K = Diff > 0 ? (Diff - 1) / -Step : (-Diff - 1) / Step;
  return static_cast<uint64_t>(std::min<I128>(K, J));
}

inline int64_t signedStep(uint64_t From, uint64_t To, unsigned W) {
  uint64_t D = To - From;
  if (W >= 64)
    return static_cast<int64_t>(D);
  unsigned Shift = 64 - W;
  return static_cast<int64_t>(D << Shift) >> Shift;
}

inline uint64_t widthMask(unsigned W) { return W >= 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1; }

} // namespace analyzer::loopmath
