// KernelProfile: what one kernel launch executed, counted by the interpreter (docs/interpreter.md).
#pragma once

#include "ptx/Ir.h"

#include <array>
#include <cstdint>
#include <string>

namespace analyzer {

/// Instruction counts indexed by ptx::InstrClass.
using ClassArray = std::array<uint64_t, ptx::NumInstrClasses>;

/// Memory spaces the byte counters distinguish (generic accesses count in the space they hit).
enum class MemSpace : uint8_t { Global, Shared, Local, Param, Const };
constexpr size_t NumMemSpaces = 5;
/// "global", "shared", "local", "param", "const".
const char *memSpaceName(MemSpace S);

/// Dynamic counts of one launch (or of the CTAs of it that were run).
struct KernelProfile {
  std::string kernel;
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t sharedBytes = 0; ///< dynamic shared memory of the launch
  uint64_t ctasRun = 0;     ///< CTAs executed (all of them in exact mode)
  /// The kernel's resources, estimated from its PTX by ptx::estimateResources (ptx/Resources.h)
  /// once per kernel, not counted: registers per thread as ptxas would report them, and static
  /// .shared bytes per CTA (besides sharedBytes). 0 where no kernel was run (e.g. totals).
  uint32_t registersPerThread = 0;
  uint32_t staticSharedBytes = 0;

  /// Warp-level instructions issued per class: +1 each time a warp issues an instruction,
  /// even when its guard predicate is false for every active lane.
  ClassArray warpInstructions{};
  /// Thread-level instructions per class: active lanes whose guard is true (all active lanes for
  /// unguarded instructions).
  ClassArray threadInstructions{};

  uint64_t branches = 0;          ///< warp-level bra/brx executions
  uint64_t branchesTaken = 0;     ///< ... where at least one lane took the branch
  uint64_t branchesDivergent = 0; ///< ... where some active lanes took it and some did not

  uint64_t globalLoadRequests = 0;   ///< warp-level loads that touched global memory
  uint64_t globalStoreRequests = 0;  ///< warp-level stores that touched global memory
  uint64_t globalLoadSectors = 0;    ///< distinct 32-byte sectors per load request, summed
  uint64_t globalStoreSectors = 0;   ///< distinct 32-byte sectors per store request, summed
  uint64_t globalAtomicRequests = 0; ///< warp-level atom/red on global memory
  uint64_t globalAtomicSectors = 0;  ///< distinct sectors per atomic request, summed

  uint64_t sharedLoadRequests = 0;
  uint64_t sharedStoreRequests = 0;
  uint64_t sharedAtomicRequests = 0;
  /// Extra shared-memory wavefronts beyond the minimum per request (32 banks x 4 bytes).
  uint64_t sharedBankConflicts = 0;

  std::array<uint64_t, NumMemSpaces> loadBytes{};  ///< bytes read by threads, per MemSpace
  std::array<uint64_t, NumMemSpaces> storeBytes{}; ///< bytes written by threads (atomics: both)

  uint64_t barrierSyncs = 0; ///< CTA-wide barrier completions (bar.sync released)

  /// Multiply-adds performed by tensor-core instructions (mma, wmma.mma): m*n*k per warp
  /// execution (four m8n8k4 products for mma.m8n8k4 with .f16), for the GPU's tensor rate.
  uint64_t tensorMacs = 0;
  /// The part of tensorMacs with 8-bit integer operands (.s8/.u8 mma and wmma.mma), which run at
  /// the GPU's int8 tensor rate (GpuSpec::tensor.int8) rather than its floating-point one.
  uint64_t tensorMacsInt8 = 0;

  uint64_t warpInstructionsTotal() const;
  uint64_t threadInstructionsTotal() const;
  /// Adds every counter of `O` (kernel name, geometry and resource estimates are kept).
  void accumulate(const KernelProfile &O);
};

} // namespace analyzer
