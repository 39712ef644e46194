// Running one kernel launch of a decoded Program on a Device, exactly (docs/interpreter.md).
#pragma once

#include "analyzer/Counts.h"
#include "analyzer/Device.h"
#include "analyzer/Program.h"
#include "support/Expected.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace analyzer {

using Dim3 = std::array<uint32_t, 3>;

/// One kernel argument: raw bytes laid out at the parameter's offset (little-endian). Build
/// them with the helpers below; a buffer argument is its 64-bit global address.
struct KernelArg {
  std::vector<uint8_t> bytes;

  static KernelArg u32(uint32_t V);
  static KernelArg s32(int32_t V);
  static KernelArg u64(uint64_t V);
  static KernelArg f32(float V);
  static KernelArg f64(double V);
  static KernelArg pointer(uint64_t Addr) { return u64(Addr); }
  /// Any scalar of `Bits` bits (8, 16, 32, 64) from the low bits of `V`; a wider one (a .b128)
  /// is `V` zero-extended.
  static KernelArg raw(uint64_t V, unsigned Bits);
};

struct LaunchConfig {
  Dim3 grid{1, 1, 1};
  Dim3 block{1, 1, 1};
  uint32_t sharedBytes = 0; ///< dynamic shared memory (extern .shared arrays)
  std::vector<KernelArg> args;
  /// Run only these CTAs (linear index x + y*gx + z*gx*gy), in this order; empty = all CTAs in
  /// linear order. Counts then cover only the CTAs run (for sampling in fast mode).
  std::vector<uint64_t> ctaSubset;
};

/// Limits that keep hostile or runaway PTX bounded. All of them trap when exceeded.
struct RunSettings {
  uint64_t maxWarpInstructions = uint64_t(1) << 40; ///< per launch
  uint32_t maxSharedBytes = 228 * 1024;             ///< static + dynamic shared per CTA
  uint32_t maxLocalBytesPerThread = 512 * 1024;     ///< local + call-param stack per thread
  uint32_t maxRegisterBytesPerThread = 512 * 1024;  ///< registers of all frames, 8 bytes each
  uint32_t maxCallDepth = 1024;
  uint32_t maxThreadsPerBlock = 1024;
  /// No value the kernel computes can change its counts (fast mode, where the data-dependence
  /// analysis proved it): tensor-core products are not computed (their registers read zero).
  bool valuesUnused = false;
  /// Called with (CTAs run, CTAs to run) after every 4,096th CTA of a launch and after its
  /// last, on the thread that runs it; may be empty (a progress line for huge grids).
  std::function<void(uint64_t, uint64_t)> ctaProgress;
};

enum class TrapKind : uint8_t {
  OutOfBounds,
  Misaligned,
  Unsupported,
  BarrierDeadlock,
  BudgetExceeded,
  TrapInstruction, ///< the kernel executed `trap` or `brkpt`
  BadLaunch,       ///< launch configuration does not fit the kernel (args, sizes, limits)
  StackOverflow,   ///< call depth or local memory limit
  Livelock,        ///< every running warp of a CTA loops with its state unchanged
  Undefined,       ///< an operation the PTX ISA leaves undefined (an mbarrier used before init)
};

/// A runtime fault. `str()` renders
/// `k.ptx:57: trap in kernel 'saxpy' (ctaid 3,0,0 tid 17,0,0): out-of-bounds global load of 4
/// bytes at 0x... (buffer 'x' is 4096 bytes)`; the thread part is omitted when no thread was
/// running (bad launch, decode-time unsupported instruction).
struct Trap {
  TrapKind kind = TrapKind::BadLaunch;
  std::string kernel;
  std::string file;
  uint32_t line = 0;      ///< PTX source line, 0 if none
  uint32_t pc = 0;        ///< decoded instruction index
  bool hasThread = false; ///< ctaid/tid are meaningful
  Dim3 ctaid{0, 0, 0};
  Dim3 tid{0, 0, 0};
  std::string reason;

  std::string str() const;
};

/// The outcome of a launch: the counts (partial when trapped) and the trap, if any.
struct RunResult {
  KernelProfile profile;
  std::optional<Trap> trap;
  bool ok() const { return !trap; }
};

/// Runs kernel `Kernel` of `P` with `Launch` on `D`, exactly: every CTA (or `Launch.ctaSubset`),
/// real data, CTAs one after another in linear order. Module .global variables live in `D` as
/// buffers named after the variable (created and initialised on first use, shared by later
/// launches on the same Device); .const variables are read-only and come from the Program.
/// Deterministic: same inputs, same result.
RunResult runKernel(const Program &P, std::string_view Kernel, const LaunchConfig &Launch,
                    Device &D, const RunSettings &Settings = {});

} // namespace analyzer
