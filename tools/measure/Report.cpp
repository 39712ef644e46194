// Turns a Measurement into the documented CSV layout.
#include "Report.h"

#include <cassert>
#include <cstdio>

namespace measure {

namespace {

std::string ms(double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.6f", V);
  return Buf;
}

std::string knownOrEmpty(int V) { return V < 0 ? "" : std::to_string(V); }

void addMeta(CsvTable &T, const Manifest &M, const Measurement &R) {
  const DeviceInfo &D = R.device;
  auto Add = [&](const char *Key, std::string Value) { T.meta.emplace_back(Key, Value); };
  Add("tool", "ptxcast-measure 0.1.0");
  Add("manifest", M.path);
  Add("date_utc", R.dateUtc);
  Add("device", D.name);
  Add("device_ordinal", std::to_string(D.ordinal));
  Add("compute_capability", std::to_string(D.ccMajor) + "." + std::to_string(D.ccMinor));
  Add("sm_count", std::to_string(D.smCount));
  Add("sms_requested", D.smsRequested == 0 ? "all" : std::to_string(D.smsRequested));
  Add("sms_used", std::to_string(D.smsUsed));
  Add("clock_rate_khz", std::to_string(D.clockRateKhz));
  Add("memory_clock_rate_khz", std::to_string(D.memoryClockRateKhz));
  Add("memory_bus_width_bits", std::to_string(D.memoryBusWidthBits));
  Add("l2_cache_bytes", std::to_string(D.l2CacheBytes));
  Add("total_memory_bytes", std::to_string(D.totalMemoryBytes));
  Add("driver_version", cudaVersionString(D.driverVersion));
  Add("cuda_header_version", cudaVersionString(D.cudaHeaderVersion));
  Add("repeat", std::to_string(R.repeat));
  Add("warmup", std::to_string(R.warmup));
  Add("hold", R.hold ? "on" : "off");
  Add("l2_flush", R.flushL2 ? "on" : "off");
  Add("timer", "cuEventElapsedTime, milliseconds");
  for (const std::string &N : R.notes)
    Add("note", N);
}

// Count, then the statistics; empty statistics when nothing was timed.
std::vector<std::string> summaryFields(const Summary &S) {
  if (S.count == 0)
    return {"0", "", "", "", "", "", "", ""};
  return {std::to_string(S.count),
          ms(S.median),
          ms(S.min),
          ms(S.max),
          ms(S.q1),
          ms(S.q3),
          ms(S.iqr()),
          ms(S.mean)};
}

} // namespace

std::string cudaVersionString(int Version) {
  return std::to_string(Version / 1000) + "." + std::to_string((Version % 1000) / 10);
}

CsvTable buildTable(const Manifest &M, const Measurement &R) {
  assert(R.launches.size() == M.launches.size() && "one summary per manifest launch");
  assert(R.kernels.size() == M.launches.size() && "one kernel record per manifest launch");
  CsvTable T;
  addMeta(T, M, R);
  T.columns = {"scope",       "launch_index", "kernel",    "grid_x",
               "grid_y",      "grid_z",       "block_x",   "block_y",
               "block_z",     "shared_bytes", "registers", "static_shared_bytes",
               "local_bytes", "repeats",      "median_ms", "min_ms",
               "max_ms",      "q1_ms",        "q3_ms",     "iqr_ms",
               "mean_ms",     "device",       "sms"};
  std::string Sms = std::to_string(R.device.smsUsed);
  for (size_t I = 0; I < M.launches.size(); ++I) {
    const Launch &L = M.launches[I];
    const KernelFacts &K = R.kernels[I];
    std::vector<std::string> Row = {"launch",
                                    std::to_string(I),
                                    L.kernel,
                                    std::to_string(L.grid.x),
                                    std::to_string(L.grid.y),
                                    std::to_string(L.grid.z),
                                    std::to_string(L.block.x),
                                    std::to_string(L.block.y),
                                    std::to_string(L.block.z),
                                    std::to_string(L.sharedBytes),
                                    knownOrEmpty(K.registers),
                                    knownOrEmpty(K.staticSharedBytes),
                                    knownOrEmpty(K.localBytes)};
    for (std::string &F : summaryFields(R.launches[I]))
      Row.push_back(std::move(F));
    Row.push_back(R.device.name);
    Row.push_back(Sms);
    T.rows.push_back(std::move(Row));
  }
  for (auto [Scope, S] : {std::pair{"workload", &R.workload}, std::pair{"graph", &R.graph}}) {
    std::vector<std::string> Row = {Scope, "", "", "", "", "", "", "", "", "", "", "", ""};
    for (std::string &F : summaryFields(*S))
      Row.push_back(std::move(F));
    Row.push_back(R.device.name);
    Row.push_back(Sms);
    T.rows.push_back(std::move(Row));
  }
  return T;
}

} // namespace measure
