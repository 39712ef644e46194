// The spin ("hold") kernel that keeps a stream busy while timed work is queued behind it.
#pragma once

namespace measure {

/// PTX of `ptxcast_hold(.u64 flag, .u64 timeout_ns)`: one thread spins until the 32-bit word at
/// flag becomes non-zero or %globaltimer says timeout_ns have passed; on a timeout it stores 1 to
/// the word after flag. The host sets the flag once all timed work is queued, so the GPU runs
/// that work back to back and CUDA events time kernels, not the CPU's launch latency
/// (the technique NVIDIA's nvbench calls a blocking kernel).
const char *holdKernelPtx();

/// The kernel's name in holdKernelPtx().
inline constexpr const char *HoldKernelName = "ptxcast_hold";

} // namespace measure
