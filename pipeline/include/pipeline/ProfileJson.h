// JSON for analyzer counts, shared by `ptxcast run` and `ptxcast analyze` (one schema).
#pragma once

#include "analyzer/Counts.h"

#include <nlohmann/json.hpp>

namespace pipeline {

/// A launch's counters: thread_instructions and warp_instructions (every class plus "total"),
/// branches, global, shared, bytes_loaded, bytes_stored, barrier_syncs — in that order; then
/// tensor_macs (tensor-core multiply-adds) when it is not 0.
nlohmann::ordered_json profileCounters(const analyzer::KernelProfile &P);

/// A launch's kernel resources, estimated from the PTX (ptx::estimateResources):
/// registers_per_thread and static_shared_bytes. Launches only, not totals.
nlohmann::ordered_json profileResources(const analyzer::KernelProfile &P);

} // namespace pipeline
