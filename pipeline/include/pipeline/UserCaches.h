// The caches `predict`, `compare` and the Python API use by default: compiled kernels and fast
// analyses kept across processes in the per-user cache directory (support/CacheDir.h:
// $PTXCAST_CACHE, `off` for none, else $XDG_CACHE_HOME/ptxcast or ~/.cache/ptxcast). A second
// prediction of the same network at the same batch, dtype and architecture compiles nothing and
// analyses nothing. Both are versioned by the sources that produce their entries and checksum
// every entry, so a rebuilt ptxcast or a damaged file costs a new analysis, never a wrong count.
#pragma once

#include "pipeline/AnalysisCache.h"

#include "corpus/KernelGen.h"

#include <optional>
#include <string>

namespace pipeline {

/// The per-user analysis cache's directory for this build's analyzer: `analyses-VERSION`,
/// VERSION a hash of the PTX parser's and the analyzer's sources. Empty when there is none.
std::string analysisCacheDir();

/// The kernels and analyses one command shares: on disk in the per-user directories, or the
/// kernels in memory alone when there is no per-user cache. Neither copyable nor movable (the
/// kernel cache holds a mutex): construct it where it is used.
struct UserCaches {
  UserCaches();
  corpus::KernelCache kernels;
  std::optional<AnalysisCache> analyses;
  const AnalysisCache *analysisCache() const { return analyses ? &*analyses : nullptr; }
};

} // namespace pipeline
