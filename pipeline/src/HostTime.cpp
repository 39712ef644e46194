// Host time per runtime (HostTime.h).
#include "HostTime.h"

#include "hardware/Host.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace pipeline {

double hostKernels(Runtime R, std::span<const hardware::LaunchBound> Launches) {
  double Kernels = 0;
  for (const hardware::LaunchBound &B : Launches)
    Kernels += R == Runtime::Engine ? (B.kernels > 0 ? 1 : 0) : B.kernels;
  return Kernels;
}

double runtimeHostMs(Runtime R, double Kernels, const hardware::HostSpec &H) {
  switch (R) {
  case Runtime::Eager:
    return Kernels * hardware::eagerHostMsPerKernel(H);
  case Runtime::Compile:
    return hardware::compiledHostMs(Kernels, H);
  case Runtime::Engine:
    return hardware::engineHostMs(Kernels, H);
  case Runtime::Graph:
    return 0;
  }
  return 0;
}

hardware::HostTimeSpread hostSpread(Runtime R) {
  return R == Runtime::Engine ? hardware::HostTimeSpread{1, hardware::HostTimeBand.high}
                              : hardware::HostTimeBand;
}

std::pair<double, double> withHost(std::pair<double, double> Gpu, double HostMs, Runtime R) {
  const hardware::HostTimeSpread S = hostSpread(R);
  return {std::max(Gpu.first, HostMs * S.low), std::max(Gpu.second, HostMs * S.high)};
}

namespace {

std::string_view hostRuntimeName(Runtime R) {
  switch (R) {
  case Runtime::Eager:
    return "eager PyTorch";
  case Runtime::Compile:
    return "torch.compile";
  case Runtime::Engine:
    return "the engine's enqueue";
  case Runtime::Graph:
    break;
  }
  assert(false && "a graph replay has no host time");
  return "the host";
}

} // namespace

std::string hostBoundWarning(const GpuPrediction &P) {
  const Runtime R = P.runtime;
  const hardware::HostTimeSpread S = hostSpread(R);
  std::string W = fmt::format(
      "{} is host-bound here ({:.3g} ms of launch overhead for {:.0f} kernels on the {} host "
      "({}) against {:.3g} ms on the GPU): the host's CPU, not the GPU, sets the time, and the "
      "band is {}, {:.2f}-{:.2f}x (docs/cross-gpu.md)",
      hostRuntimeName(R), P.hostMs, P.kernels, P.host.name, P.host.cpu, P.gpuMs,
      R == Runtime::Engine ? "the host time up to eager PyTorch's measured spread above it"
                           : "the host time's own measured spread",
      S.low, S.high);
  if (R == Runtime::Engine)
    W += "; that time is a kernel launch's from C for each kernel, under TensorRT's setup per "
         "layer, and an engine replayed as one CUDA graph (trtexec --useCudaGraph) has none of "
         "it";
  if (!P.host.speedFromPyTorch)
    W += fmt::format("; the {} host's speed ({:.2g}x the x86 server's) is an estimate from CPU "
                     "benchmarks (on Arm they overstated Grace's PyTorch speed about 3x), so the "
                     "time may lie above the band",
                     P.host.name, P.host.relativeSpeed);
  return W;
}

void rescale(GpuPrediction &G, const Rescale &R) {
  std::vector<std::string> &W = G.warnings;
  auto HostBound =
      G.hostMs > G.gpuMs ? std::find(W.begin(), W.end(), hostBoundWarning(G)) : W.end();
  G.gpuMs = R.gpuMs;
  G.hostMs *= R.host;
  for (KindTime &K : G.breakdown)
    K.ms *= R.breakdown;
  G.timeMs = std::max(G.gpuMs, G.hostMs);
  if (G.gpuIntervalMs) {
    G.gpuIntervalMs = {G.gpuIntervalMs->first * R.band, G.gpuIntervalMs->second * R.band};
    G.intervalMs = withHost(*G.gpuIntervalMs, G.hostMs, G.runtime);
  } else if (G.intervalMs) {
    G.intervalMs = std::make_pair(G.intervalMs->first * R.band, G.intervalMs->second * R.band);
  }
  if (HostBound != W.end() && G.hostMs > G.gpuMs)
    *HostBound = hostBoundWarning(G);
  else if (HostBound != W.end())
    W.erase(HostBound);
  else if (G.hostMs > G.gpuMs)
    W.push_back(hostBoundWarning(G));
}

} // namespace pipeline
