// What one measurement run produced (device facts, timing summaries) and its CSV form.
#pragma once

#include "Csv.h"
#include "Manifest.h"
#include "Stats.h"

#include <cstdint>
#include <string>
#include <vector>

namespace measure {

/// Facts about the device and software a run used (docs/measure.md, "CSV metadata").
struct DeviceInfo {
  std::string name;
  int ordinal = 0;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;      ///< SMs on the device
  int smsRequested = 0; ///< --sms (0: all)
  int smsUsed = 0;      ///< SMs of the context the kernels ran in
  int clockRateKhz = 0; ///< CU_DEVICE_ATTRIBUTE_CLOCK_RATE
  int memoryClockRateKhz = 0;
  int memoryBusWidthBits = 0;
  int l2CacheBytes = 0;
  uint64_t totalMemoryBytes = 0;
  int driverVersion = 0;     ///< cuDriverGetVersion, e.g. 12040
  int cudaHeaderVersion = 0; ///< CUDA_VERSION of the cuda.h the tool was built with
};

/// Per-kernel facts the driver reports after loading the PTX.
struct KernelFacts {
  int registers = -1; ///< per thread; -1 unknown
  int staticSharedBytes = -1;
  int localBytes = -1;
};

/// Everything a run measured, in milliseconds.
struct Measurement {
  DeviceInfo device;
  uint32_t repeat = 0, warmup = 0;
  bool hold = true;
  bool flushL2 = false;
  std::string dateUtc;              ///< ISO 8601, when the run started
  std::vector<Summary> launches;    ///< one per manifest launch, in order
  std::vector<KernelFacts> kernels; ///< one per manifest launch
  Summary workload;                 ///< all launches back to back on one stream
  Summary graph;                    ///< the same, captured once and replayed as a CUDA graph
  std::vector<std::string> notes;   ///< warnings to keep with the data (also in the CSV header)
};

/// "12.4" for 12040.
std::string cudaVersionString(int Version);

/// The CSV: metadata comment block, then one row per launch (scope "launch") and one row each
/// for the whole workload (scope "workload") and its graph replay (scope "graph").
CsvTable buildTable(const Manifest &M, const Measurement &R);

} // namespace measure
