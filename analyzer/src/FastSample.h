// Fast mode internals: sampling the CTAs of one launch (FastSample.cpp).
#pragma once

#include "analyzer/FastMode.h"

#include <optional>

namespace analyzer {

class LoopSkipper;

/// One launch to analyse on its own Device.
struct SampleJob {
  const Program &program;
  std::string kernel;
  LaunchConfig launch;
  Device &device;
  const FastSettings &settings;
  bool checkData = false; ///< run the data-dependence check (abstract memory only)
  LoopSkipper &skipper;   ///< loop-trip extrapolation state, reused over the launch's runs
};

/// Runs the launch per FastSettings (sampled by boundary class or every CTA) into `Out`.
std::optional<Trap> sampleLaunch(const SampleJob &J, LaunchAnalysis &Out);

} // namespace analyzer
