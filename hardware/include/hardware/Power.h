// The clock a GPU sustains under its board power limit (docs/cross-gpu.md, "Clocks under a power
// limit"). A launch's energy is what its SMs execute (thread instructions and tensor-core FLOP,
// at the energy per operation of the chip's process) and the bytes it moves to and from DRAM (at
// the memory type's energy per bit); divided by its time it is a power. Board power is the idle
// share of the power limit plus that power. When it would exceed the limit at the boost clock,
// the SM clock drops until it fits: compute-bound work slows down, memory-bound work hardly does
// (its DRAM time does not depend on the SM clock, and its power is mostly the memory's). The
// clock never falls below the vendor's base clock. A group of launches (a network, an operator
// timed in a loop) runs at one clock: the power controller averages over milliseconds, longer
// than most launches.
#pragma once

#include "hardware/GpuCatalog.h"
#include "hardware/Skeleton.h"

#include <span>
#include <string_view>

namespace hardware {

/// Energy of one FP32 FLOP on the SMs of a TSMC 16FF+ chip, pJ, board level at full load (the
/// datapath, register files, scheduling and on-chip data movement that go with it; one thread
/// instruction costs two FLOPs' worth). Fitted, the one free constant of the model: it is where
/// the efficiency (time over bound) of NeuSight's large GEMMs and convolutions (over 2^35 FLOP,
/// 50 per operator and GPU; P4, P100, T4, V100, A100, H100) varies least across the GPUs: the
/// spread (standard deviation of log efficiency) of bmm falls from 0.32 at the boost clock to
/// 0.08, of convolutions from 0.14 to 0.10, of linear layers from 0.58 to 0.46 (the P4's heated
/// linear rows aside; docs/cross-gpu.md, "Clocks under a power limit").
constexpr double FlopEnergyPj16nm = 15;

/// A tensor-core FLOP (FP16 inputs, FP32 accumulate) costs this share of a CUDA-core FP32 FLOP
/// on the same process: the tensor cores amortise operand delivery over a whole matrix tile. An
/// estimate: with it a dense FP16 GEMM at the H100 SXM's full tensor rate draws about 650 W of
/// its 700 W and an H100 PCIe (350 W) runs it at about 0.75 of its boost clock, as public burn
/// tests of those cards report (dense GEMMs are what drive them to their power limit; an H100
/// PCIe averaged 1,384 of 1,755 MHz in the bee benchmark's clock notes, 2026). It fits Volta
/// too: a 250 W V100 PCIe keeps its boost clock in FP16 GEMMs, where its users measure 101
/// TFLOPS, 90 % of its peak (NVIDIA Developer Forums, topic 79781); at 0.21 it would be held
/// under its base clock. An architecture with a measurement that disagrees has its own share in
/// the catalog (gpus.json "architectures", tensor_flop_energy_share: Turing's is 0.21).
constexpr double TensorFlopEnergyShare = 0.13;

/// The tensor-core energy share of Gpu's architecture: its catalog figure where one was measured
/// (gpus.json "architectures", tensor_flop_energy_share), else TensorFlopEnergyShare.
double tensorEnergyShare(const GpuSpec &Gpu);

/// Board power with the clocks up and nothing running, as a share of the power limit (fans,
/// voltage regulation, memory refresh, leakage): nvidia-smi shows 71 W of 700 on the H100 SXM
/// and 80 W on the H200 before the project's runs (corpus/data/measured/*/system.txt).
constexpr double IdlePowerShare = 0.11;

/// The lowest clock share the model allows a GPU whose vendor publishes no base clock (B200,
/// GH200, the NVL cards): a guard, not a measurement; no catalog GPU of that kind reaches it.
constexpr double UnknownBaseClockShare = 0.5;

/// The clock a group of launches sustains on a GPU, and why.
struct SustainedClock {
  double mhz = 0;    ///< the SM clock the group runs at
  double share = 1;  ///< mhz over the boost clock (above 1 on a GeForce card with power to spare)
  double boardW = 0; ///< estimated board power at that clock; 0 (not modelled) under "mode"
  /// "boost": the power fits at the top clock; "power": the limit sets the clock; "base": the
  /// limit would set it below the base clock, which holds; "mode": a Jetson module, whose power
  /// mode fixes its clocks.
  std::string_view limiter = "boost";
};

/// The clock at which the launches (run back to back under E) keep Gpu's board power within its
/// limit, no higher than its top clock (GpuSpec::maxClockMhz: a GeForce card's is above its rated
/// boost) and no lower than the base clock.
SustainedClock sustainedClock(std::span<const LaunchWork> Launches, const GpuSpec &Gpu,
                              const Execution &E);

/// Gpu running at Mhz instead of its boost clock: the clock-proportional peaks (FP32, FP16, BF16,
/// FP64, tensor) scale with it; memory bandwidth and per-SM limits stay.
GpuSpec atClock(GpuSpec Gpu, double Mhz);

} // namespace hardware
