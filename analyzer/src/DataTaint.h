// Whether loaded data can steer a kernel (docs/fast-mode.md, shortcut 2): a static taint analysis
// that lets fast mode skip the data-dependence rerun when no loaded value can reach control flow
// or an address.
#pragma once

#include "Engine.h"

#include <string>

namespace analyzer {

/// False when no value loaded from memory (or derived from one) can reach a guard predicate, a
/// branch, call or barrier operand, or the address of a memory access in kernel `Kernel`: then
/// its counts are the same for any data, and a rerun with other data must count alike. True
/// otherwise, for kernels that call functions (not analysed), and when P has no such kernel.
bool dataMaySteer(const ProgramImpl &P, const std::string &Kernel);

} // namespace analyzer
