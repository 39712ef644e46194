// NVPTX output cut into one section per kernel, as if each kernel had been compiled alone, and
// put back together (KernelEmitter, KernelCache).
#pragma once

#include "corpus/KernelGen.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corpus::kernels {

/// Body with its block labels `$L__BB<From>_<n>` renamed `$L__BB<To>_<n>`: the NVPTX printer
/// numbers labels by the function's place in its module.
std::string renumberLabels(std::string_view Body, size_t From, size_t To);

/// Splits a module's PTX into its header and one section per kernel (from its `// .globl` line),
/// each numbered as function 0 and without the module-level notes `// X has been demoted` (and
/// the blank line after them), which list the module's variables, not one kernel's. Null when
/// the text does not hold exactly `Kernels` sections.
std::optional<std::vector<CompiledKernel>> splitPtx(std::string_view Ptx, size_t Kernels);

} // namespace corpus::kernels
