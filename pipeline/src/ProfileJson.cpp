// JSON for analyzer counts, shared by `ptxcast run` and `ptxcast analyze`.
#include "pipeline/ProfileJson.h"

#include "ptx/Ir.h"

#include <string>

namespace pipeline {
namespace {

using OJson = nlohmann::ordered_json;

OJson classCounts(const analyzer::ClassArray &A, uint64_t Total) {
  OJson J = OJson::object();
  for (size_t C = 0; C < A.size(); ++C)
    J[std::string(ptx::className(static_cast<ptx::InstrClass>(C)))] = A[C];
  J["total"] = Total;
  return J;
}

OJson bytesPerSpace(const std::array<uint64_t, analyzer::NumMemSpaces> &B) {
  OJson J = OJson::object();
  for (size_t S = 0; S < B.size(); ++S)
    J[analyzer::memSpaceName(static_cast<analyzer::MemSpace>(S))] = B[S];
  return J;
}

} // namespace

OJson profileCounters(const analyzer::KernelProfile &P) {
  OJson J = {
      {"thread_instructions", classCounts(P.threadInstructions, P.threadInstructionsTotal())},
      {"warp_instructions", classCounts(P.warpInstructions, P.warpInstructionsTotal())},
      {"branches",
       {{"executed", P.branches}, {"taken", P.branchesTaken}, {"divergent", P.branchesDivergent}}},
      {"global",
       {{"load_requests", P.globalLoadRequests},
        {"load_sectors", P.globalLoadSectors},
        {"store_requests", P.globalStoreRequests},
        {"store_sectors", P.globalStoreSectors},
        {"atomic_requests", P.globalAtomicRequests},
        {"atomic_sectors", P.globalAtomicSectors}}},
      {"shared",
       {{"load_requests", P.sharedLoadRequests},
        {"store_requests", P.sharedStoreRequests},
        {"atomic_requests", P.sharedAtomicRequests},
        {"bank_conflicts", P.sharedBankConflicts}}},
      {"bytes_loaded", bytesPerSpace(P.loadBytes)},
      {"bytes_stored", bytesPerSpace(P.storeBytes)},
      {"barrier_syncs", P.barrierSyncs}};
  if (P.tensorMacs) // only tensor-core kernels have the key: other outputs keep their bytes
    J["tensor_macs"] = P.tensorMacs;
  if (P.tensorMacsInt8) // of tensor_macs, the int8 ones (int8 tensor-core kernels only)
    J["tensor_macs_int8"] = P.tensorMacsInt8;
  return J;
}

OJson profileResources(const analyzer::KernelProfile &P) {
  return {{"registers_per_thread", P.registersPerThread},
          {"static_shared_bytes", P.staticSharedBytes}};
}

} // namespace pipeline
