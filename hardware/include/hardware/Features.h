// The features the cross-GPU model sees for a group of launches (one operator, one launch or a
// whole network) on one GPU, and the group's physical bound. Every feature is dimensionless: a
// resource's share of the bound, waves, occupancy, arithmetic intensity against the GPU's ridge
// point, coalescing, the kind of work. Raw catalog numbers never appear, so a model cannot key on
// GPU identity (docs/cross-gpu.md). `ptxcast dataset` writes these columns and `ptxcast predict`
// computes them the same way, through these functions only.
#pragma once

#include "hardware/GpuCatalog.h"
#include "hardware/Power.h"
#include "hardware/Skeleton.h"

#include <span>
#include <string>
#include <vector>

namespace hardware {

/// A group of launches on one GPU: the sum of their bounds and the features.
struct GroupFeatures {
  double boundMs = 0;        ///< sum of the launches' T_bound, ms
  NamedVector features;      ///< featureNames() order
  std::vector<LaunchBound> launches; ///< the skeleton of each launch, in order
  SustainedClock clock;      ///< the clock the group runs at (hardware/Power.h)
};

/// The features of the launches (in order) on Gpu under E, at the clock they sustain together
/// under Gpu's power limit (sustainedClock). Per-launch features are averaged with each launch's
/// T_bound as its weight, so a network's features describe where its time goes.
GroupFeatures groupFeatures(std::span<const LaunchWork> Launches, const GpuSpec &Gpu,
                            const Execution &E);
/// The same at a given clock: a launch of a network runs at the network's clock.
GroupFeatures groupFeatures(std::span<const LaunchWork> Launches, const GpuSpec &Gpu,
                            const Execution &E, const SustainedClock &Clock);

/// The names of GroupFeatures::features, in order (the same for every input).
std::vector<std::string> featureNames();

/// The column holding a group's bound (ms) in datasets: the learners' baseline.
constexpr const char *BoundColumn = "bound_ms";

} // namespace hardware
