// Register pressure of one PTX function: backward liveness over its CFG, in 32-bit register
// units (the register half of ptx::estimateResources; see ptx/Resources.h).
#pragma once

#include "RegisterAccess.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptx {

struct Cfg;

namespace detail {

/// A call site of a function: whom it calls and how many units are live across the call.
struct CallPressure {
  std::string callee; ///< empty for an indirect call
  uint32_t liveAcross = 0;
};

/// The result of the liveness walk over one function body.
struct FunctionPressure {
  /// Most 32-bit register units live at once: at a point between two instructions, or during
  /// an instruction (the values live past it plus the values it writes).
  uint32_t maxLive = 0;
  std::vector<CallPressure> calls;
};

/// Runs the liveness analysis of F (a function of M with a body) over its CFG G, with the machine
/// widths of applyMachineWidths.
FunctionPressure measurePressure(const Module &M, const Function &F, const Cfg &G);

} // namespace detail
} // namespace ptx
