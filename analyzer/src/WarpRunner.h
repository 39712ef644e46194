// Running one warp: frame setup and the dispatch loop (WarpRunner.cpp).
#pragma once

#include "Engine.h"

namespace analyzer {

/// The lanes whose predicate (32 lanes at P) is true, or false when `Neg`.
inline uint32_t guardMask(const uint64_t *P, bool Neg) {
  uint32_t M = 0;
  for (unsigned L = 0; L < 32; ++L)
    M |= static_cast<uint32_t>(P[L] & 1) << L;
  return Neg ? ~M : M;
}

/// Resets `W` as warp `Index` of the current CTA, about to run function `Func` (the kernel);
/// false (trap raised) when the kernel's frame does not fit the stack limits.
bool initWarp(Exec &X, Warp &W, uint32_t Index, uint32_t Func);
/// Runs `W` until it exits (state Done), waits at a barrier (AtBarrier) or traps (X.trap).
void runWarp(Exec &X, Warp &W);
/// After `W` yielded (runWarp returned with it Ready): whether its state (pc, reconvergence
/// stack, registers, local memory) and the launch's count of global and shared stores are what
/// they were when it yielded last time. Atomics are not counted: a failing compare-and-swap
/// writes nothing, and one that writes returns a value that changes a register.
bool yieldedUnchanged(const Exec &X, Warp &W);
/// Points `W`'s operand bases at its innermost frame again (after `W` was copied).
void rebindWarp(Exec &X, Warp &W);

/// What advanceCta stopped at.
enum class CtaEvent : uint8_t { Finished, Released, Failed };

/// Runs the current CTA's first `N` warps round-robin from scheduler position `Pos` (a warp
/// index). Returns Finished when every warp is done, Failed on a trap (deadlock included), and
/// Released right after a barrier release completed by warp `Pos`; `ReleasePc` is then the pc
/// the lowest released warp continues at. Resume with `++Pos`.
CtaEvent advanceCta(Exec &X, std::vector<Warp> &Warps, size_t N, size_t &Pos, uint32_t &ReleasePc);

} // namespace analyzer
