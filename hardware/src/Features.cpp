// The feature schema (hardware/Features.h): analysis, hardware and combined features.
#include "hardware/Features.h"

#include <cassert>
#include <string_view>

namespace hardware {

namespace {

double valueOf(const NamedVector &V, std::string_view Name) {
  for (const auto &[Key, Value] : V)
    if (Key == Name)
      return Value;
  assert(false && "feature missing from the schema");
  return 0;
}

/// Per-launch counters that are plain sums.
void addCounters(NamedVector &Out, const analyzer::KernelProfile &P) {
  using analyzer::MemSpace;
  const auto Global = static_cast<size_t>(MemSpace::Global);
  const auto Shared = static_cast<size_t>(MemSpace::Shared);
  const double Values[] = {
      double(P.warpInstructionsTotal()),
      double(P.globalLoadRequests),
      double(P.globalStoreRequests),
      double(P.globalLoadSectors),
      double(P.globalStoreSectors),
      double(P.globalAtomicSectors),
      double(P.sharedLoadRequests + P.sharedStoreRequests + P.sharedAtomicRequests),
      double(P.sharedBankConflicts),
      double(P.loadBytes[Global]),
      double(P.storeBytes[Global]),
      double(P.loadBytes[Shared] + P.storeBytes[Shared]),
      double(P.branches),
      double(P.branchesDivergent),
      double(P.barrierSyncs),
  };
  const size_t First = Out.size() - std::size(Values);
  for (size_t I = 0; I < std::size(Values); ++I)
    Out[First + I].second += Values[I];
}

/// The GPU's datasheet numbers (the schema of the bundles trained before the physical skeleton).
NamedVector hardwareFeatures(const GpuSpec &Gpu) {
  return {{"gpu_sm_count", Gpu.smCount},
          {"gpu_fp32_cores_per_sm", Gpu.fp32CoresPerSm},
          {"gpu_boost_clock_mhz", Gpu.boostClockMhz},
          {"gpu_fp32_tflops", Gpu.fp32Tflops},
          {"gpu_fp16_tflops", Gpu.fp16Tflops},
          {"gpu_fp16_tensor_tflops", Gpu.tensor.fp16},
          {"gpu_memory_bandwidth_gbs", Gpu.memoryBandwidthGBs},
          {"gpu_memory_gb", Gpu.memoryGB},
          {"gpu_l2_mb", Gpu.l2MB},
          {"gpu_tdp_w", Gpu.tdpW},
          {"gpu_compute_capability", Gpu.computeCapability}};
}

} // namespace

NamedVector analysisFeatures(std::span<const analyzer::KernelProfile> Launches,
                             uint64_t FootprintBytes) {
  NamedVector Out;
  Out.emplace_back("launches", double(Launches.size()));
  Out.emplace_back("ctas", 0.0);
  Out.emplace_back("threads", 0.0);
  for (size_t C = 0; C < ptx::NumInstrClasses; ++C)
    Out.emplace_back("thr_" + std::string(ptx::className(static_cast<ptx::InstrClass>(C))), 0.0);
  Out.emplace_back("thr_total", 0.0);
  const size_t FirstCounter = Out.size();
  for (const char *Name :
       {"warp_total", "global_load_requests", "global_store_requests", "global_load_sectors",
        "global_store_sectors", "global_atomic_sectors", "shared_requests", "shared_bank_conflicts",
        "global_load_bytes", "global_store_bytes", "shared_bytes", "branches", "branches_divergent",
        "barrier_syncs"})
    Out.emplace_back(Name, 0.0);
  for (const analyzer::KernelProfile &P : Launches) {
    const double Ctas = double(P.grid[0]) * P.grid[1] * P.grid[2];
    Out[1].second += Ctas;
    Out[2].second += Ctas * P.block[0] * P.block[1] * P.block[2];
    for (size_t C = 0; C < ptx::NumInstrClasses; ++C)
      Out[3 + C].second += double(P.threadInstructions[C]);
    Out[FirstCounter - 1].second += double(P.threadInstructionsTotal());
    addCounters(Out, P);
  }
  Out.emplace_back("footprint_bytes", double(FootprintBytes));
  return Out;
}

NamedVector combinedFeatures(const NamedVector &Analysis, const GpuSpec &Gpu) {
  const double Hz = Gpu.boostClockMhz * 1e6;
  const double Cores = Gpu.smCount * Gpu.fp32CoresPerSm;
  const double BytesPerMs = Gpu.memoryBandwidthGBs * 1e9 / 1e3;
  const double Fp =
      valueOf(Analysis, "thr_fp32") + valueOf(Analysis, "thr_fp16") + valueOf(Analysis, "thr_fp64");
  const double Sectors =
      valueOf(Analysis, "global_load_sectors") + valueOf(Analysis, "global_store_sectors");
  NamedVector Out;
  Out.emplace_back("est_fp_ms", Fp / (Cores * Hz) * 1e3);
  Out.emplace_back("est_issue_ms", valueOf(Analysis, "warp_total") /
                                       (Gpu.smCount * (Gpu.fp32CoresPerSm / 32) * Hz) * 1e3);
  Out.emplace_back("est_sector_ms", Sectors * 32 / BytesPerMs);
  Out.emplace_back("est_footprint_ms", valueOf(Analysis, "footprint_bytes") / BytesPerMs);
  Out.emplace_back("ctas_per_sm", valueOf(Analysis, "ctas") / Gpu.smCount);
  return Out;
}

NamedVector featureRow(std::span<const analyzer::KernelProfile> Launches, uint64_t FootprintBytes,
                       const GpuSpec &Gpu) {
  NamedVector Row = analysisFeatures(Launches, FootprintBytes);
  NamedVector Combined = combinedFeatures(Row, Gpu);
  NamedVector Hardware = hardwareFeatures(Gpu);
  Row.insert(Row.end(), Hardware.begin(), Hardware.end());
  Row.insert(Row.end(), Combined.begin(), Combined.end());
  return Row;
}

std::vector<std::string> featureNames() {
  GpuSpec Any;
  Any.smCount = Any.fp32CoresPerSm = Any.boostClockMhz = Any.memoryBandwidthGBs = 1;
  std::vector<std::string> Names;
  for (const auto &[Name, Value] : featureRow({}, 0, Any))
    Names.push_back(Name);
  return Names;
}

} // namespace hardware
