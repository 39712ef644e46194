// The on-disk analysis cache (AnalysisCache.h). One text file per key: a header line
// "ptxcast-analysis-cache FORMAT LAUNCHES COUNTING CHECKSUM", then per launch its kernel name,
// geometry and every counter as decimal integers in a fixed order. COUNTING is the
// CountingVersion that produced it and CHECKSUM support::checksumHex of the lines after the
// header: an entry of another counting version or a format outside OldestFormat..FormatVersion,
// or one truncated or altered, is analysed again (a note on stderr names it), never used. Format
// 3 lines lack tensorMacsInt8 (format 4 added it): their kernels had no int8 tensor instructions
// (none was lowered then), so it is 0 for them.
#include "pipeline/AnalysisCache.h"

#include "support/Checksum.h"
#include "support/Files.h"

#include <fmt/core.h>

#include <filesystem>
#include <sstream>
#include <variant>

namespace pipeline {
namespace {

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

/// Counters added after the first format, in the order they were added (after visitFields' in
/// a line, as profileLine writes it), as far as a line of format `Format` has them.
template <class P, class F> void visitLaterFields(P &Prof, int Format, F &&Visit) {
  Visit(Prof.tensorMacs);
  if (Format >= 4)
    Visit(Prof.tensorMacsInt8);
}

} // namespace

std::string AnalysisCache::key(std::string_view Settings, std::string_view Manifest,
                               const std::vector<std::string_view> &Ptx) {
  uint64_t H = support::fnv1a64(fmt::format("v{}|{}|", CountingVersion, Settings));
  H = support::fnv1a64(Manifest, H);
  for (std::string_view T : Ptx)
    H = support::fnv1a64(T, support::fnv1a64("|", H));
  return fmt::format("{:016x}", H);
}

namespace {

/// More launches than any network has: a count past it is a damaged file, not an allocation.
constexpr size_t MaxLaunches = 1u << 20;

/// A profile line of format `Format`, or nothing when it is not one.
std::optional<analyzer::KernelProfile> parseLine(const std::string &Line, int Format) {
  std::istringstream In(Line);
  analyzer::KernelProfile P;
  In >> P.kernel;
  visitFields(P, [&](auto &V) { In >> V; });
  visitLaterFields(P, Format, [&](auto &V) { In >> V; });
  std::string Rest;
  if (!In || (In >> Rest))
    return std::nullopt;
  return P;
}

/// The profiles of an entry's text, or why it cannot be used.
std::variant<std::vector<analyzer::KernelProfile>, std::string>
parseEntry(const std::string &Text, int FormatVersion, int CountingVersion) {
  const size_t Eol = Text.find('\n');
  std::istringstream Header(Text.substr(0, Eol));
  std::string Magic, Checksum;
  int Format = 0, Counting = 0;
  size_t Count = 0;
  if (Eol == std::string::npos || !(Header >> Magic >> Format) ||
      Magic != "ptxcast-analysis-cache")
    return std::string("not an analysis cache entry");
  if (Format < AnalysisCache::OldestFormat || Format > FormatVersion ||
      !(Header >> Count >> Counting >> Checksum) || Counting != CountingVersion)
    return std::string("written by another version of ptxcast");
  const std::string Body = Text.substr(Eol + 1);
  if (Checksum != support::checksumHex(Body) || Count > MaxLaunches)
    return std::string("its checksum does not match: truncated or altered");
  std::istringstream In(Body);
  std::vector<analyzer::KernelProfile> Out;
  Out.reserve(Count);
  for (std::string Line; std::getline(In, Line);) {
    auto P = parseLine(Line, Format);
    if (!P)
      return std::string("malformed");
    Out.push_back(std::move(*P));
  }
  if (Out.size() != Count)
    return std::string("malformed");
  return Out;
}

} // namespace

std::optional<std::vector<analyzer::KernelProfile>>
AnalysisCache::load(const std::string &Key) const {
  const std::string Path = Dir + "/" + Key + ".txt";
  auto Text = support::readFile(Path);
  if (!Text)
    return std::nullopt; // not cached yet
  auto Entry = parseEntry(*Text, FormatVersion, CountingVersion);
  if (auto *Problem = std::get_if<std::string>(&Entry)) {
    fmt::print(stderr, "ptxcast: note: analysis cache entry {} is not used ({}); analysing again\n",
               Path, *Problem);
    return std::nullopt;
  }
  return std::move(std::get<0>(Entry));
}

void AnalysisCache::store(const std::string &Key,
                          const std::vector<analyzer::KernelProfile> &Profiles) const {
  std::error_code Ec;
  std::filesystem::create_directories(Dir, Ec);
  std::string Body;
  for (const analyzer::KernelProfile &P : Profiles)
    Body += profileLine(P) + '\n';
  const std::string Text = fmt::format("ptxcast-analysis-cache {} {} {} {}\n", FormatVersion,
                                       Profiles.size(), CountingVersion,
                                       support::checksumHex(Body)) +
                           Body;
  // Best effort: a cache that cannot be written costs a later analysis, nothing else.
  (void)support::writeFileAtomically(Dir + "/" + Key + ".txt", Text);
}

std::string AnalysisCache::profileLine(const analyzer::KernelProfile &P) {
  std::string Text = P.kernel;
  visitFields(P, [&](const auto &V) { Text += fmt::format(" {}", V); });
  visitLaterFields(P, FormatVersion, [&](const auto &V) { Text += fmt::format(" {}", V); });
  return Text;
}

std::optional<analyzer::KernelProfile> AnalysisCache::parseProfileLine(const std::string &Line) {
  if (auto P = parseLine(Line, FormatVersion))
    return P;
  return parseLine(Line, OldestFormat);
}

} // namespace pipeline
