// The host side of eager PyTorch, of torch.compile's wrapper and of an engine's enqueue: every
// kernel it launches costs CPU time (Python, the dispatcher, the driver), single-thread bound,
// so that time belongs to the host's CPU, not to the GPU (docs/cross-gpu.md, "Runtimes"). A
// catalog GPU names its host (gpus.json "hosts": an x86 server by default, an x86 desktop for
// GeForce cards, Grace for superchips, its own Arm cores for a Jetson module).
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

/// How far a host time strays from its prediction: the 10th and 90th percentiles of measured /
/// predicted over the 109 eager rows of corpus/data/measured/h100/frameworks.csv whose
/// prediction is host-bound (scripts/eager-check.py: 12 networks, batch 1-64, fp32 and fp16;
/// median 1.10). The host time per kernel differs between networks, and the VM's timings move
/// from run to run (EfficientNet-B1 in fp16: 0.83-1.57x over its batches). A host-bound
/// prediction's band is its host time times these; torch.compile's wrapper, never measured, is
/// given the same.
struct HostTimeSpread {
  double low, high;
};
constexpr HostTimeSpread HostTimeBand = {0.818, 1.693};

/// Eager host time per kernel on host H: EagerHostMsPerKernel over its relative speed.
inline double eagerHostMsPerKernel(const HostSpec &H) {
  return EagerHostMsPerKernel / H.relativeSpeed;
}

/// Host time torch.compile's generated wrapper (inductor, default mode: no CUDA graphs) spends
/// per kernel it launches, on the x86 server host, ms. Not measured by the project: the wrapper
/// calls each kernel directly, without nn.Module and eager dispatch, and inductor's own
/// profile of it (meta-pytorch/tritonbench#1017, a GB200's Grace host) puts a generated
/// kernel's launch at 6.8-9.1 us there (CachingAutotuner.run, 0 to 19 arguments) where eager
/// PyTorch takes EagerHostMsPerKernel over Grace's speed (0.4): 48 us. 9.1 us at Grace's speed is
/// 3.6 us on the x86 server. Library kernels called from the wrapper (cuDNN's convolutions) are
/// taken at the same cost: a lower bound for them.
constexpr double CompiledHostMsPerKernel = 0.0091 * 0.4;
/// Host time of one call of a compiled graph besides its kernels (guards, the wrapper's
/// prologue), ms on the x86 server: 42-44 us end to end for a graph of one kernel on Grace in
/// the same profile, less that kernel's 7-9 us, at Grace's speed.
constexpr double CompiledHostMsPerCall = 0.035 * 0.4;

/// Host time of one call of a network of Kernels compiled by torch.compile, on host H.
inline double compiledHostMs(double Kernels, const HostSpec &H) {
  return (CompiledHostMsPerCall + Kernels * CompiledHostMsPerKernel) / H.relativeSpeed;
}

/// Host time an inference engine's enqueue (TensorRT's enqueueV3, without a CUDA graph) spends
/// per kernel it launches, on the x86 server host, ms. Not measured by the project: enqueue
/// launches each layer's kernel from compiled C++ after some setup per layer, whose cost
/// "depends on your CPU" (NVIDIA/TensorRT#1256), so a kernel launch from C is its floor. Public
/// measurements of that floor: 2.6-2.8 us per asynchronous launch on a laptop's desktop-class
/// x86 CPU (ahrefs/ocannl#488, CUDA 13.3; 4.5 us at the x86 server's speed, 1.65x slower), and
/// 4.9 us for statically compiled C (JuliaGPU/CUDAdrv.jl#15). A lower bound for TensorRT.
constexpr double EngineHostMsPerKernel = 0.0027 * 1.65;

/// Host time of one enqueue of an engine of Kernels kernels on host H.
inline double engineHostMs(double Kernels, const HostSpec &H) {
  return Kernels * EngineHostMsPerKernel / H.relativeSpeed;
}

} // namespace hardware
