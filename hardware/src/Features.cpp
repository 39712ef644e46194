// The cross-GPU features of a group of launches (Features.h).
#include "hardware/Features.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace hardware {

namespace {

/// The family a launch's `kind_` features name. A framework or an engine runs a tensor-core form
/// of ptxcast's GEMMs as its library's GEMM, which is how the bound charges it: its features say
/// `gemm`. ptxcast's own kernels keep the family their training rows have (TENSOR_FORM_KIND in
/// hardware/LaunchKinds.def: `other`).
KindFamily featureFamily(const LaunchWork &W, const Execution &E) {
  const LaunchKind *K = findLaunchKind(W.kind);
  if (!K)
    return KindFamily::Other;
  return E.impl == Implementation::Framework ? K->boundFamily : K->family;
}

/// One launch's features, in featureNames() order (without the group-level ones).
std::vector<double> launchFeatures(const LaunchWork &W, const LaunchBound &B, const GpuSpec &Gpu,
                                   const Execution &E, bool OnTensor) {
  const analyzer::KernelProfile &P = W.profile;
  std::vector<double> F;
  for (size_t R = 0; R < NumResources; ++R)
    F.push_back(B.workMs > 0 ? B.ms[R] / B.workMs : 0);
  F.push_back(B.latencyMs / B.boundMs);
  F.push_back(B.unfusedMs / B.boundMs);
  F.push_back(std::log2(std::max(B.waves, 1.0 / 64)));
  F.push_back(B.tailFill);
  const double Ctas = double(P.grid[0]) * P.grid[1] * P.grid[2];
  const double Resident =
      std::min(B.occ.ctasPerSm, std::ceil(Ctas / Gpu.smCount)) * B.occ.warpsPerCta;
  F.push_back(Resident / Gpu.limits.maxWarpsPerSm);
  F.push_back(Resident / Gpu.limits.warpSchedulersPerSm);
  F.push_back(std::log2(1 + B.busyCycles));
  const double Tiny = 1e-9;
  F.push_back(std::log2((B.computeMs + Tiny) / (B.memoryMs + Tiny)));
  const double Requests =
      double(P.globalLoadRequests + P.globalStoreRequests + P.globalAtomicRequests);
  const double Sectors = double(P.globalLoadSectors + P.globalStoreSectors + P.globalAtomicSectors);
  F.push_back(Requests > 0 ? Sectors / Requests / 4 : 0);
  const double Shared =
      double(P.sharedLoadRequests + P.sharedStoreRequests + P.sharedAtomicRequests);
  F.push_back(Shared > 0 ? double(P.sharedBankConflicts) / Shared : 0);
  F.push_back(P.branches > 0 ? double(P.branchesDivergent) / double(P.branches) : 0);
  const double Warp = double(P.warpInstructionsTotal());
  F.push_back(Warp > 0 ? double(P.threadInstructionsTotal()) / (32 * Warp) : 0);
  const double L2 = Gpu.l2MB * 1024 * 1024;
  F.push_back(std::log2(std::max(double(W.footprintBytes), 1024.0) / L2));
  // A framework's batched GEMM: how much more than an even spread its library's tiles put on
  // the busiest SM (libraryTileShare; 0 = none, as for every other launch).
  const KindFamily Family = featureFamily(W, E);
  const bool Batched = E.impl == Implementation::Framework && W.gemm.known() && W.gemm.batch > 1 &&
                       Family == KindFamily::Gemm;
  F.push_back(
      Batched ? std::log2(std::max(libraryTileShare(W.gemm, Gpu.smCount) * Gpu.smCount, 1.0)) : 0);
  for (size_t K = 0; K < NumKindFamilies; ++K)
    F.push_back(K == static_cast<size_t>(Family) ? 1 : 0);
  F.push_back(OnTensor ? 1 : 0);
  return F;
}

/// The group-level features: how the work was run.
NamedVector groupLevel(const Execution &E) {
  return {{"framework", E.impl == Implementation::Framework ? 1 : 0},
          {"half", E.half ? 1 : 0},
          // torch.compile's pass structure: its rows (timm's dynamo files) must not stand in for
          // eager PyTorch's, whose efficiency over the bound differs, nor eager rows for them.
          {"compiled", E.passes == PassStructure::Inductor ? 1 : 0}};
}

/// Names of launchFeatures, then the group-level ones.
std::vector<std::string> names() {
  std::vector<std::string> N;
  for (size_t R = 0; R < NumResources; ++R)
    N.push_back("share_" + std::string(resourceName(static_cast<Resource>(R))));
  for (const char *Name : {"share_latency", "share_unfused", "log2_waves", "tail_fill", "occupancy",
                           "warps_per_scheduler", "log2_busy_cycles", "log2_compute_over_memory",
                           "sectors_per_request", "bank_conflicts_per_request", "divergence",
                           "lane_utilisation", "log2_footprint_over_l2", "log2_tile_waste"})
    N.push_back(Name);
  for (size_t K = 0; K < NumKindFamilies; ++K)
    N.push_back("kind_" + std::string(kindFamilyName(static_cast<KindFamily>(K))));
  N.push_back("tensor_cores");
  for (const auto &[Name, Value] : groupLevel(Execution{}))
    N.push_back(Name);
  return N;
}

} // namespace

std::vector<std::string> featureNames() { return names(); }

GroupFeatures groupFeatures(std::span<const LaunchWork> Launches, const GpuSpec &Gpu,
                            const Execution &E) {
  return groupFeatures(Launches, Gpu, E, sustainedClock(Launches, Gpu, E));
}

GroupFeatures groupFeatures(std::span<const LaunchWork> Launches, const GpuSpec &BoostGpu,
                            const Execution &E, const SustainedClock &Clock) {
  const GpuSpec Gpu = Clock.share != 1 ? atClock(BoostGpu, Clock.mhz) : BoostGpu;
  GroupFeatures G;
  G.clock = Clock;
  const std::vector<std::string> Names = names();
  const NamedVector Group = groupLevel(E);
  const size_t PerLaunch = Names.size() - Group.size();
  std::vector<double> Sum(PerLaunch, 0.0);
  for (const LaunchWork &W : Launches) {
    LaunchBound B = bound(W, Gpu, E);
    if (B.boundMs <= 0) { // an engine's concatenation written in place: no launch, no weight
      G.launches.push_back(B);
      continue;
    }
    bool OnTensor = B.ms[size_t(Resource::Tensor)] > 0;
    std::vector<double> F = launchFeatures(W, B, Gpu, E, OnTensor);
    assert(F.size() == PerLaunch && "feature list and names disagree");
    for (size_t I = 0; I < PerLaunch; ++I)
      Sum[I] += B.boundMs * F[I];
    G.boundMs += B.boundMs;
    G.launches.push_back(B);
  }
  for (size_t I = 0; I < PerLaunch; ++I)
    G.features.emplace_back(Names[I], G.boundMs > 0 ? Sum[I] / G.boundMs : 0);
  G.features.insert(G.features.end(), Group.begin(), Group.end());
  return G;
}

} // namespace hardware
