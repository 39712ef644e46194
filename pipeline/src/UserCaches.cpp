// The per-user kernel and analysis caches (UserCaches.h).
#include "pipeline/UserCaches.h"

#include "support/CacheDir.h"

#include <filesystem>
#include <system_error>

namespace pipeline {
namespace {

constexpr const char *AnalyzerVersion =
#include "AnalyzerVersion.inc"
    ;

/// Analysis entries kept: one per network, batch, dtype and architecture predicted (EfficientNet-B7
/// at batch 1 is about 60 KB), the oldest forgotten past this (about 100 MB at most).
constexpr size_t MaxAnalyses = 2000;
/// Versions of the analyzer kept side by side (builds used in turn).
constexpr size_t KeptVersions = 3;

} // namespace

std::string analysisCacheDir() {
  return support::userCacheDir(std::string("analyses-") + AnalyzerVersion);
}

UserCaches::UserCaches() : kernels(corpus::kernelCacheDir()) {
  const std::string Dir = analysisCacheDir();
  if (Dir.empty())
    return;
  std::error_code Ec;
  if (std::filesystem::exists(Dir, Ec))
    support::pruneEntries(Dir, MaxAnalyses);
  else // a new analyzer: the oldest versions' entries go
    support::pruneVersions(Dir, "analyses-", KeptVersions);
  analyses.emplace(Dir);
}

} // namespace pipeline
