// Static facts about a function: instruction counts per class, declared registers.
#pragma once

#include "ptx/Ir.h"

#include <array>
#include <cstdint>

namespace ptx {

using ClassCounts = std::array<uint64_t, NumInstrClasses>;

/// Instructions of each class in the function body (each instruction counted once).
ClassCounts staticCounts(const Function &F);
/// Total number of registers the .reg declarations declare (ranges expanded).
uint64_t declaredRegisters(const Function &F);

} // namespace ptx
