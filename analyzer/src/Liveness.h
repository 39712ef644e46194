// Which register slots of a function a warp may still read where it can be resumed: backward
// liveness over the decoded instructions (docs/fast-mode.md, shortcut 6). The loop skipper
// snapshots, checks and extrapolates only the registers live there; the others are written
// before they are read on every path on from a barrier release.
#pragma once

#include "Engine.h"

#include <vector>

namespace analyzer {

/// Per register slot of function `Func` (no calls): 1 when some path from a point where a
/// warp's reconvergence stack can hold an entry (the entry, branch targets and reconvergence
/// points, the pc after any branch, exit, return or barrier) reads the slot before writing it
/// with an unguarded plain instruction. The carry flag always counts as read. Conservative:
/// guarded writes and writes by atomics, warp-wide, tensor and other unusual instructions do
/// not end a slot's life.
std::vector<uint8_t> liveAtResumePoints(const ProgramImpl &P, uint32_t Func);

} // namespace analyzer
