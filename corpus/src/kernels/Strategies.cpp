// The names of the kernel strategies (corpus/Strategies.def).
#include "kernels/Strategies.h"

#include <cassert>

namespace corpus {

const char *strategyName(LaunchStrategy S) {
  static constexpr const char *Names[] = {
#define STRATEGY(Id, Name) Name,
#include "corpus/Strategies.def"
  };
  assert(static_cast<size_t>(S) < std::size(Names) && "strategy out of range");
  return Names[static_cast<size_t>(S)];
}

} // namespace corpus
