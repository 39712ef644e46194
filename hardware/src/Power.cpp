// The clock under a board power limit (Power.h): energy of the launches from the skeleton's
// counts, time as a function of the SM clock, and the highest clock whose power fits.
#include "hardware/Power.h"

#include <algorithm>
#include <cassert>
#include <vector>

namespace hardware {

namespace {

/// One launch as the power model sees it: its time at a clock share X of the boost clock is
/// max(sm / X, dram) + fixed + latency / X (ms), and it spends `joules` whatever the clock.
struct LaunchPower {
  double sm = 0;      ///< largest busy time of a clock-proportional resource (pipes, issue, L2)
  double dram = 0;    ///< DRAM time
  double fixed = 0;   ///< a framework's separate passes (DRAM or memory latency bound)
  double latency = 0; ///< launch latency (the front end runs at the SM clock)
  double joules = 0;
};

double timeMs(const std::vector<LaunchPower> &L, double X) {
  double T = 0;
  for (const LaunchPower &P : L)
    T += std::max(P.sm / X, P.dram) + P.fixed + P.latency / X;
  return T;
}

LaunchPower launchPower(const LaunchWork &W, const GpuSpec &Gpu, const Execution &E) {
  const LaunchBound B = bound(W, Gpu, E);
  LaunchPower P;
  for (Resource R : {Resource::Fma, Resource::Int, Resource::Fp16, Resource::Fp64, Resource::Sfu,
                     Resource::Tensor, Resource::Lsu, Resource::Issue, Resource::L2})
    P.sm = std::max(P.sm, B.ms[size_t(R)]);
  P.dram = B.ms[size_t(Resource::Dram)];
  P.fixed = B.unfusedMs;
  P.latency = B.latencyMs;
  const double FlopJ = FlopEnergyPj16nm * Gpu.limits.relativeEnergy * 1e-12;
  const double Bytes = B.dramBytes + B.unfusedBytes;
  P.joules = 2 * B.laneOps * FlopJ + B.tensorFlops * FlopJ * tensorEnergyShare(Gpu) +
             8 * Bytes * Gpu.memoryPjPerBit * 1e-12;
  return P;
}

/// Board power (W) of the launches at clock share X.
double boardWatts(const std::vector<LaunchPower> &L, double Joules, const GpuSpec &Gpu, double X) {
  const double Seconds = timeMs(L, X) * 1e-3;
  return IdlePowerShare * Gpu.tdpW + (Seconds > 0 ? Joules / Seconds : 0);
}

} // namespace

double tensorEnergyShare(const GpuSpec &Gpu) {
  return Gpu.limits.tensorFlopEnergyShare > 0 ? Gpu.limits.tensorFlopEnergyShare
                                              : TensorFlopEnergyShare;
}

GpuSpec atClock(GpuSpec Gpu, double Mhz) {
  assert(Mhz > 0 && Gpu.boostClockMhz > 0 && "a clock must be positive");
  const double Scale = Mhz / Gpu.boostClockMhz;
  Gpu.boostClockMhz = Mhz;
  Gpu.maxClockMhz = Mhz;
  for (double *Peak :
       {&Gpu.fp32Tflops, &Gpu.fp16Tflops, &Gpu.bf16Tflops, &Gpu.fp64Tflops, &Gpu.tensor.fp16,
        &Gpu.tensor.bf16, &Gpu.tensor.tf32, &Gpu.tensor.int8, &Gpu.tensor.fp8})
    *Peak *= Scale;
  return Gpu;
}

SustainedClock sustainedClock(std::span<const LaunchWork> Launches, const GpuSpec &Gpu,
                              const Execution &E) {
  SustainedClock C;
  C.mhz = Gpu.boostClockMhz;
  if (Gpu.formFactor == "module") {
    C.limiter = "mode";
    return C;
  }
  std::vector<LaunchPower> L;
  double Joules = 0;
  for (const LaunchWork &W : Launches) {
    L.push_back(launchPower(W, Gpu, E));
    Joules += L.back().joules;
  }
  // GPU Boost runs the clock up to the GPU's top one (above the rated boost on GeForce cards)
  // while the power fits.
  const double Top = std::max(Gpu.maxClockMhz / Gpu.boostClockMhz, 1.0);
  C.share = Top;
  C.mhz = Gpu.boostClockMhz * Top;
  C.boardW = boardWatts(L, Joules, Gpu, Top);
  if (C.boardW <= Gpu.tdpW || L.empty())
    return C;
  // Board power falls as the clock does (the same energy over a longer time): bisect for the
  // clock share at which it meets the limit.
  const double Floor =
      Gpu.baseClockMhz > 0 ? Gpu.baseClockMhz / Gpu.boostClockMhz : UnknownBaseClockShare;
  double Lo = Floor, Hi = Top;
  if (boardWatts(L, Joules, Gpu, Lo) > Gpu.tdpW) {
    C.share = Lo;
    C.limiter = "base";
  } else {
    for (int I = 0; I < 40; ++I) {
      const double Mid = 0.5 * (Lo + Hi);
      (boardWatts(L, Joules, Gpu, Mid) > Gpu.tdpW ? Hi : Lo) = Mid;
    }
    C.share = Lo;
    C.limiter = "power";
  }
  C.mhz = Gpu.boostClockMhz * C.share;
  C.boardW = boardWatts(L, Joules, Gpu, C.share);
  return C;
}

} // namespace hardware
