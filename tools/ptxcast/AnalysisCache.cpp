// The on-disk analysis cache (AnalysisCache.h). One text file per key: a header line
// "ptxcast-analysis-cache VERSION LAUNCHES", then per launch its kernel name, geometry and every
// counter as decimal integers in a fixed order. Version 1 files lack tensorMacs: they were
// written by an analyzer that could not run tensor instructions, so it is 0 for them. Version 2
// files lack tensorMacsInt8: their kernels had no int8 tensor instructions (none was lowered),
// so it is 0 for them too.
#include "AnalysisCache.h"

#include "support/Files.h"

#include <fmt/core.h>

#include <filesystem>
#include <sstream>

namespace ptxcast {
namespace {

uint64_t fnv1a(uint64_t H, std::string_view Text) {
  for (unsigned char C : Text) {
    H ^= C;
    H *= 0x100000001b3ULL;
  }
  return H;
}

/// Every integer of a profile except the kernel name, in a fixed order, through one visitor so
/// that writing and reading cannot disagree.
template <class P, class F> void visitFields(P &Prof, F &&Visit) {
  for (auto &V : Prof.grid)
    Visit(V);
  for (auto &V : Prof.block)
    Visit(V);
  Visit(Prof.sharedBytes);
  Visit(Prof.ctasRun);
  for (auto &V : Prof.warpInstructions)
    Visit(V);
  for (auto &V : Prof.threadInstructions)
    Visit(V);
  for (auto *V : {&Prof.branches, &Prof.branchesTaken, &Prof.branchesDivergent,
                  &Prof.globalLoadRequests, &Prof.globalStoreRequests, &Prof.globalLoadSectors,
                  &Prof.globalStoreSectors, &Prof.globalAtomicRequests, &Prof.globalAtomicSectors,
                  &Prof.sharedLoadRequests, &Prof.sharedStoreRequests, &Prof.sharedAtomicRequests,
                  &Prof.sharedBankConflicts})
    Visit(*V);
  for (auto &V : Prof.loadBytes)
    Visit(V);
  for (auto &V : Prof.storeBytes)
    Visit(V);
  Visit(Prof.barrierSyncs);
}

/// Counters added after format version 1 that a file of format `Version` has, in the order they
/// were added.
template <class P, class F> void visitLaterFields(P &Prof, int Version, F &&Visit) {
  if (Version >= 2)
    Visit(Prof.tensorMacs);
  if (Version >= 3)
    Visit(Prof.tensorMacsInt8);
}

} // namespace

std::string AnalysisCache::key(std::string_view Settings, std::string_view Manifest,
                               const std::vector<std::string_view> &Ptx) {
  uint64_t H = 0xcbf29ce484222325ULL;
  H = fnv1a(H, fmt::format("v{}|{}|", CountingVersion, Settings));
  H = fnv1a(H, Manifest);
  for (std::string_view T : Ptx)
    H = fnv1a(fnv1a(H, "|"), T);
  return fmt::format("{:016x}", H);
}

/// More launches than any network has: a count past it is a damaged file, not an allocation.
constexpr size_t MaxLaunches = 1u << 20;

std::optional<std::vector<analyzer::KernelProfile>>
AnalysisCache::load(const std::string &Key) const {
  auto Text = support::readFile(Dir + "/" + Key + ".txt");
  if (!Text)
    return std::nullopt;
  std::istringstream In(*Text);
  std::string Magic;
  int Version = 0;
  size_t Count = 0;
  if (!(In >> Magic >> Version >> Count) || Magic != "ptxcast-analysis-cache" || Version < 1 ||
      Version > FormatVersion || Count > MaxLaunches)
    return std::nullopt;
  std::vector<analyzer::KernelProfile> Out(Count);
  for (analyzer::KernelProfile &P : Out) {
    In >> P.kernel;
    visitFields(P, [&](auto &V) { In >> V; });
    visitLaterFields(P, Version, [&](auto &V) { In >> V; });
  }
  if (!In)
    return std::nullopt;
  return Out;
}

void AnalysisCache::store(const std::string &Key,
                          const std::vector<analyzer::KernelProfile> &Profiles) const {
  std::error_code Ec;
  std::filesystem::create_directories(Dir, Ec);
  std::string Text = fmt::format("ptxcast-analysis-cache {} {}\n", FormatVersion, Profiles.size());
  for (const analyzer::KernelProfile &P : Profiles)
    Text += profileLine(P) + '\n';
  (void)support::writeFileAtomically(Dir + "/" + Key + ".txt", Text);
}

std::string AnalysisCache::profileLine(const analyzer::KernelProfile &P) {
  std::string Text = P.kernel;
  visitFields(P, [&](const auto &V) { Text += fmt::format(" {}", V); });
  visitLaterFields(P, FormatVersion, [&](const auto &V) { Text += fmt::format(" {}", V); });
  return Text;
}

std::optional<analyzer::KernelProfile> AnalysisCache::parseProfileLine(const std::string &Line) {
  std::istringstream In(Line);
  analyzer::KernelProfile P;
  In >> P.kernel;
  visitFields(P, [&](auto &V) { In >> V; });
  visitLaterFields(P, FormatVersion, [&](auto &V) { In >> V; });
  std::string Rest;
  if (!In || (In >> Rest))
    return std::nullopt;
  return P;
}

} // namespace ptxcast
