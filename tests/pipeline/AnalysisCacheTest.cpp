// pipeline/AnalysisCache.h: entries round-trip; a truncated, altered or stale entry, or a file
// that is not an entry, is never used.
#include "pipeline/AnalysisCache.h"

#include "support/Files.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::vector<analyzer::KernelProfile> profiles() {
  analyzer::KernelProfile A;
  A.kernel = "conv_k3";
  A.grid = {4, 2, 1};
  A.block = {128, 1, 1};
  A.warpInstructions[0] = 123456;
  A.globalLoadSectors = 789;
  A.tensorMacs = 42;
  analyzer::KernelProfile B = A;
  B.kernel = "relu";
  B.barrierSyncs = 7;
  return {A, B};
}

} // namespace

TEST_CASE("analysis cache: an entry round-trips; a damaged or stale one is a miss") {
  const fs::path Dir = fs::temp_directory_path() / ("ptxcast_acache_" + std::to_string(getpid()));
  fs::remove_all(Dir);
  pipeline::AnalysisCache Cache(Dir.string());
  const std::string Key = pipeline::AnalysisCache::key("quick", "{}", {"ptx"});
  CHECK(Key.size() == 16);
  CHECK(!Cache.load(Key)); // nothing stored yet

  const std::vector<analyzer::KernelProfile> P = profiles();
  Cache.store(Key, P);
  auto Back = Cache.load(Key);
  REQUIRE(Back);
  REQUIRE(Back->size() == 2);
  CHECK(pipeline::AnalysisCache::profileLine((*Back)[0]) ==
        pipeline::AnalysisCache::profileLine(P[0]));
  CHECK(pipeline::AnalysisCache::profileLine((*Back)[1]) ==
        pipeline::AnalysisCache::profileLine(P[1]));

  const std::string Path = (Dir / (Key + ".txt")).string();
  auto Entry = support::readFile(Path);
  REQUIRE(Entry);
  CHECK(Entry->rfind("ptxcast-analysis-cache 3 2 2 ", 0) == 0); // format, launches, counting
  std::string Altered = *Entry;
  Altered[Altered.find("123456")] = '9';
  std::string Stale = *Entry;
  Stale.replace(Stale.find(" 2 2 "), 5, " 2 1 "); // another counting version
  for (const std::string &Bad : {Entry->substr(0, Entry->size() - 10), Altered, Stale,
                                 std::string("conv_k3 1 2 3\n")}) {
    REQUIRE(!support::writeFileAtomically(Path, Bad));
    CHECK(!Cache.load(Key));
  }
  fs::remove_all(Dir);
}
