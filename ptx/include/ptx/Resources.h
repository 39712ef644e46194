// Per-kernel resources the occupancy model needs, estimated from the PTX alone (no ptxas):
// registers per thread and static shared memory per CTA (docs/ptx-frontend.md, "Resource
// estimate").
#pragma once

#include "ptx/Ir.h"

#include <cstdint>

namespace ptx {

struct KernelResources {
  /// Estimated registers per thread, as `ptxas -v` reports them ("Used N registers").
  uint32_t registers = 0;
  /// Static shared memory per CTA in bytes, as `ptxas -v` reports it ("M bytes smem").
  uint32_t staticSharedBytes = 0;

  bool operator==(const KernelResources &) const = default;
};

/// Estimates the resources of kernel `Kernel` (a function of `M` with a body).
///
/// Shared memory follows ptxas's layout (checked against ptxas 13): the `.shared` variables
/// declared in the kernel's body, then the module's `.shared` variables the kernel or a `.func`
/// it calls (transitively) names, in declaration order, each at its alignment (`.align` or the
/// element size); no padding after the last. `extern .shared` arrays are sized by the launch and
/// count 0, but when the module declares one, a non-zero static size is rounded up to
/// max(16, its alignment), where ptxas starts the dynamic area.
///
/// Registers come from a backward liveness analysis over the CFG: the most 32-bit register
/// units live at once (b64/u64/s64/f64: 2, b128: 4, 8- and 16-bit types and f16/bf16: 1 as ptxas
/// gives each its own 32-bit register, packed f16x2/bf16x2: 1; predicates 0: they live in the
/// predicate file). Values SASS reads from the constant bank or as immediates (kernel parameters,
/// `mov` of constants) count 0, 64-bit shared-memory addresses 1 (32-bit in SASS). At a call, the
/// units live across it plus the callee's estimate count. Registers = units + 3 (what ptxas adds
/// that the PTX does not show, e.g. R1, the stack pointer), clamped to [1, 255], not rounded.
///
/// Accuracy against ptxas 13 (docs/ptx-frontend.md, "Resource estimate"): shared memory exact on
/// every zoo and test kernel; registers in ptxas's occupancy bucket (CTAs per SM) for 97 % of the
/// sm_90 zoo kernels, but typically below ptxas's count (median relative error 29 %), because
/// ptxas spends registers that cost no occupancy on its target GPU (up to 32 for 256-thread CTAs
/// on sm_90, 64 on sm_75): the estimate is the kernel's need, not that fill. It is not a register
/// allocation: calls ptxas cannot inline (recursion) are underestimated.
KernelResources estimateResources(const Module &M, const Function &Kernel);

/// The most 32-bit register units simultaneously live in `F` (a function of `M` with a body)
/// alone (calls not followed, no reserve): the liveness number estimateResources starts from.
uint32_t maxLiveRegisterUnits(const Module &M, const Function &F);

} // namespace ptx
