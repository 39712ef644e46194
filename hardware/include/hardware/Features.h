// The feature schema shared by every ptxcast dataset and model: what the analysis of a group of
// launches (one operator, one layer or a whole network) contributes, what a GPU contributes, and
// the roofline-style estimates that combine the two. `ptxcast dataset` writes these columns and
// `ptxcast predict` computes them the same way, through these functions only.
#pragma once

#include "analyzer/Counts.h"
#include "hardware/GpuCatalog.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hardware {

/// What the analysis of a group of launches contributes, summed over the launches. Names
/// (fixed order): launches, ctas, threads, thr_<class> for every ptx::InstrClass, thr_total,
/// warp_total, global_load_requests, global_store_requests, global_load_sectors,
/// global_store_sectors, global_atomic_sectors, shared_requests, shared_bank_conflicts,
/// global_load_bytes, global_store_bytes, shared_bytes, branches, branches_divergent,
/// barrier_syncs, footprint_bytes (bytes of the buffers the launches touch, given by the caller:
/// the compulsory memory traffic).
NamedVector analysisFeatures(std::span<const analyzer::KernelProfile> Launches,
                             uint64_t FootprintBytes);

/// Estimates from analysis features and one GPU's datasheet, in ms unless named otherwise:
/// est_fp_ms (fp32/fp16/fp64 thread instructions at one per core per clock), est_issue_ms (warp
/// instructions at fp32_cores_per_sm / 32 per SM per clock), est_sector_ms (global sectors x 32
/// bytes at peak bandwidth), est_footprint_ms (footprint bytes at peak bandwidth), ctas_per_sm.
NamedVector combinedFeatures(const NamedVector &Analysis, const GpuSpec &Gpu);

/// The full model input: analysisFeatures, then hardwareFeatures(Gpu), then combinedFeatures.
NamedVector featureRow(std::span<const analyzer::KernelProfile> Launches, uint64_t FootprintBytes,
                       const GpuSpec &Gpu);

/// The names of featureRow, in order (the same for every input).
std::vector<std::string> featureNames();

} // namespace hardware
