// The measurement protocol: one checked in-order run (outputs), per-launch timings, the whole
// workload on a stream, and its CUDA-graph replay.
#pragma once

#include "Driver.h"
#include "Manifest.h"
#include "Report.h"

#include <cstdint>
#include <vector>

namespace measure {

struct RunSettings {
  int device = 0;
  uint32_t sms = 0; ///< 0: all SMs
  uint32_t repeat = 20;
  uint32_t warmup = 5;
  bool hold = true;
  bool flushL2 = false; ///< overwrite 2 x L2 bytes before every timed run (outside the events)
};

/// Runs the protocol in docs/measure.md on an initialised driver. Initial holds each buffer's
/// starting bytes; buffers with an output file are written (atomically) after the checked run.
Expected<Measurement> runMeasurement(const Driver &D, const Manifest &M,
                                     const std::vector<std::vector<uint8_t>> &Initial,
                                     const RunSettings &Settings);

} // namespace measure
