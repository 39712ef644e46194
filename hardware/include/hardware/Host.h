// The host side of eager PyTorch: every kernel it launches costs the CPU time in Python, the
// dispatcher and the driver, single-thread bound, so that time belongs to the host's CPU, not to
// the GPU (docs/cross-gpu.md, "Runtimes"). A catalog GPU names its host (gpus.json "hosts": an
// x86 server by default, an x86 desktop for GeForce cards, Grace for superchips, its own Arm
// cores for a Jetson module).
#pragma once

#include "hardware/GpuCatalog.h"

namespace hardware {

/// Host time eager PyTorch spends per kernel it launches on the x86 server the project measured
/// (the H100 VM), ms: the median over the 12 zoo counterparts timed in eager mode at batch 1, fp32
/// and fp16 autocast (corpus/data/measured/h100/frameworks.csv), each time divided by the
/// framework kernels of the network (LaunchBound::kernels: its layers, bias adds, casts and
/// layout transposes): 11-38 us, median 19.2. Per kernel, not per layer: fp16's casts cost host
/// time too (fp16 eager took 1.15-1.8x fp32's time; per kernel, 0.8-1.2x).
constexpr double EagerHostMsPerKernel = 0.0192;

/// Eager host time per kernel on host H: EagerHostMsPerKernel over its relative speed.
inline double eagerHostMsPerKernel(const HostSpec &H) {
  return EagerHostMsPerKernel / H.relativeSpeed;
}

} // namespace hardware
