// KernelProfile totals and accumulation.
#include "analyzer/Counts.h"

#include <numeric>

namespace analyzer {

const char *memSpaceName(MemSpace S) {
  constexpr const char *Names[] = {"global", "shared", "local", "param", "const"};
  return Names[static_cast<size_t>(S)];
}

uint64_t KernelProfile::warpInstructionsTotal() const {
  return std::accumulate(warpInstructions.begin(), warpInstructions.end(), uint64_t(0));
}

uint64_t KernelProfile::threadInstructionsTotal() const {
  return std::accumulate(threadInstructions.begin(), threadInstructions.end(), uint64_t(0));
}

void KernelProfile::accumulate(const KernelProfile &O) {
  ctasRun += O.ctasRun;
  for (size_t C = 0; C < warpInstructions.size(); ++C) {
    warpInstructions[C] += O.warpInstructions[C];
    threadInstructions[C] += O.threadInstructions[C];
  }
  branches += O.branches;
  branchesTaken += O.branchesTaken;
  branchesDivergent += O.branchesDivergent;
  globalLoadRequests += O.globalLoadRequests;
  globalStoreRequests += O.globalStoreRequests;
  globalLoadSectors += O.globalLoadSectors;
  globalStoreSectors += O.globalStoreSectors;
  globalAtomicRequests += O.globalAtomicRequests;
  globalAtomicSectors += O.globalAtomicSectors;
  sharedLoadRequests += O.sharedLoadRequests;
  sharedStoreRequests += O.sharedStoreRequests;
  sharedAtomicRequests += O.sharedAtomicRequests;
  sharedBankConflicts += O.sharedBankConflicts;
  for (size_t S = 0; S < NumMemSpaces; ++S) {
    loadBytes[S] += O.loadBytes[S];
    storeBytes[S] += O.storeBytes[S];
  }
  barrierSyncs += O.barrierSyncs;
  tensorMacs += O.tensorMacs;
  tensorMacsInt8 += O.tensorMacsInt8;
}

} // namespace analyzer
