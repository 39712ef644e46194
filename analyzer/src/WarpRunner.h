// Running one warp: frame setup and the dispatch loop (WarpRunner.cpp).
#pragma once

#include "Engine.h"

namespace analyzer {

/// Resets `W` as warp `Index` of the current CTA, about to run function `Func` (the kernel);
/// false (trap raised) when the kernel's frame does not fit the stack limits.
bool initWarp(Exec &X, Warp &W, uint32_t Index, uint32_t Func);
/// Runs `W` until it exits (state Done), waits at a barrier (AtBarrier) or traps (X.trap).
void runWarp(Exec &X, Warp &W);

} // namespace analyzer
