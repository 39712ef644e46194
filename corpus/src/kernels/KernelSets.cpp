// Kernel sets (`--kernels`): names, and the fast-division constants library kernels take
// (KernelGen.h).
#include "corpus/KernelGen.h"

#include <bit>
#include <cassert>

namespace corpus {

const char *kernelSetName(KernelSet K) {
  return K == KernelSet::Library ? "library" : "specialised";
}

std::optional<KernelSet> parseKernelSet(std::string_view Name) {
  for (KernelSet K : {KernelSet::Specialised, KernelSet::Library})
    if (Name == kernelSetName(K))
      return K;
  return std::nullopt;
}

FastDivisor fastDivisor(uint32_t D) {
  assert(D >= 1 && D < (1u << 31) && "fast division needs 1 <= divisor < 2^31");
  // l = ceil(log2 D); m = floor(2^32 (2^l - D) / D) + 1 < 2^32 (Granlund and Montgomery, 4.1).
  const uint32_t L = D == 1 ? 0 : 32 - std::countl_zero(D - 1);
  const uint64_t M = ((uint64_t(1) << 32) * ((uint64_t(1) << L) - D)) / D + 1;
  assert(M <= UINT32_MAX && "fast-division multiplier past 32 bits");
  return {static_cast<uint32_t>(M), L};
}

} // namespace corpus
