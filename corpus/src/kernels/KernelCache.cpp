// KernelCache: compiled kernels shared by the lowerings of one process (KernelGen.h).
#include "corpus/KernelGen.h"

namespace corpus {

std::shared_ptr<const CompiledKernel> KernelCache::find(const std::string &Arch,
                                                        const std::string &Kernel) const {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Kernels.find({Arch, Kernel});
  if (It == Kernels.end())
    return nullptr;
  ++Hits;
  return It->second;
}

void KernelCache::insert(const std::string &Arch, const std::string &Kernel,
                         std::shared_ptr<const CompiledKernel> Ptx) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Kernels.emplace(std::make_pair(Arch, Kernel), std::move(Ptx));
}

size_t KernelCache::size() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Kernels.size();
}

size_t KernelCache::hits() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Hits;
}

} // namespace corpus
