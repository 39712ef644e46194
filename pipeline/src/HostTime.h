// The host side of a prediction: how long the runtime's CPU takes to launch a network's kernels,
// the band when that time sets the prediction, the warning that says so, and scaling a
// prediction's times with all three kept in step. Internal to pipeline/ (Prediction.cpp,
// Calibration.cpp); the per-kernel costs are hardware/Host.h's.
#pragma once

#include "pipeline/Prediction.h"

#include <span>
#include <string>
#include <utility>

namespace pipeline {

/// Kernels the runtime's host launches for launches bound as `Launches`: a framework's every
/// kernel (its separate passes too), an engine's one kernel per launch it runs (a concatenation
/// written in place runs none).
double hostKernels(Runtime R, std::span<const hardware::LaunchBound> Launches);

/// Host time of the runtime for Kernels launches on host H: eager PyTorch's per kernel,
/// torch.compile's wrapper's per call and per kernel, an engine's enqueue per kernel; none for a
/// graph replay.
double runtimeHostMs(Runtime R, double Kernels, const hardware::HostSpec &H);

/// How far the runtime's host time may lie from its prediction: eager's measured spread
/// (hardware::HostTimeBand), which torch.compile's wrapper is given too; an engine's enqueue is
/// taken at a launch's floor (hardware::EngineHostMsPerKernel), so never below it.
hardware::HostTimeSpread hostSpread(Runtime R);

/// The band of a prediction whose GPU time lies in Gpu and whose host time is HostMs: at each
/// end the slower of the two, the host time spread by hostSpread(R). A prediction without host
/// time keeps the GPU's band.
std::pair<double, double> withHost(std::pair<double, double> Gpu, double HostMs, Runtime R);

/// Why the host sets prediction P's time (under P.runtime), and how sure the band is of the
/// host's speed.
std::string hostBoundWarning(const GpuPrediction &P);

/// How rescale changes a prediction's times.
struct Rescale {
  double gpuMs;     ///< the new GPU time
  double breakdown; ///< factor on the breakdown by launch kind
  double host;      ///< factor on the host time
  double band;      ///< factor on the GPU's band
};
/// G's times changed after predictWork made them, as R says; then the time, the band with the
/// host time's spread, and the host-bound warning made anew (replaced, dropped or added). The
/// one way the dominance rule, the batch floor and calibration change a prediction.
void rescale(GpuPrediction &G, const Rescale &R);

} // namespace pipeline
