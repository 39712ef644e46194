// pipeline/AnalysisCache.h: entries round-trip; a truncated, altered or stale entry, or a file
// that is not an entry, is never used; a format-3 entry (before tensorMacsInt8) is read with it 0.
#include "pipeline/AnalysisCache.h"

#include "support/Checksum.h"
#include "support/Files.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>
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
  A.tensorMacsInt8 = 40;
  analyzer::KernelProfile B = A;
  B.kernel = "relu";
  B.barrierSyncs = 7;
  B.tensorMacsInt8 = 0;
  return {A, B};
}

/// Profile line `Line` without its last field (tensorMacsInt8): the line format 3 wrote.
std::string format3Line(const std::string &Line) { return Line.substr(0, Line.rfind(' ')); }

/// An entry of format 3 (header "FORMAT LAUNCHES COUNTING CHECKSUM") holding P, as a ptxcast
/// before int8 engines wrote it.
std::string format3Entry(const std::vector<analyzer::KernelProfile> &P) {
  std::string Body;
  for (const analyzer::KernelProfile &Prof : P)
    Body += format3Line(pipeline::AnalysisCache::profileLine(Prof)) + '\n';
  return "ptxcast-analysis-cache 3 " + std::to_string(P.size()) + " " +
         std::to_string(pipeline::AnalysisCache::CountingVersion) + " " +
         support::checksumHex(Body) + "\n" + Body;
}

} // namespace

TEST_CASE("analysis cache: an entry round-trips, a damaged or stale one is a miss") {
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
  CHECK(Entry->rfind("ptxcast-analysis-cache 4 2 2 ", 0) == 0); // format, launches, counting
  CHECK((*Back)[0].tensorMacsInt8 == 40);
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

TEST_CASE("analysis cache: a format-3 entry is read with int8 tensor MACs 0, unknown formats not") {
  const fs::path Dir = fs::temp_directory_path() / ("ptxcast_acache3_" + std::to_string(getpid()));
  fs::remove_all(Dir);
  pipeline::AnalysisCache Cache(Dir.string());
  const std::string Key = pipeline::AnalysisCache::key("quick", "{}", {"ptx3"});
  const std::string Path = (Dir / (Key + ".txt")).string();
  const std::vector<analyzer::KernelProfile> P = profiles();
  fs::create_directories(Dir);
  REQUIRE(!support::writeFileAtomically(Path, format3Entry(P)));
  auto Back = Cache.load(Key);
  REQUIRE(Back);
  REQUIRE(Back->size() == 2);
  for (size_t I = 0; I < P.size(); ++I) {
    CHECK((*Back)[I].tensorMacsInt8 == 0);
    CHECK((*Back)[I].tensorMacs == 42);
    analyzer::KernelProfile Expected = P[I];
    Expected.tensorMacsInt8 = 0;
    CHECK(pipeline::AnalysisCache::profileLine((*Back)[I]) ==
          pipeline::AnalysisCache::profileLine(Expected));
  }

  // The checksum still guards a format-3 entry; a format-4 header over format-3 lines, and
  // formats before 3 or after 4, are misses.
  std::string Altered = format3Entry(P);
  Altered[Altered.find("123456")] = '9';
  std::string Mislabelled = format3Entry(P);
  Mislabelled.replace(0, std::string("ptxcast-analysis-cache 3").size(), "ptxcast-analysis-cache 4");
  std::string Older = format3Entry(P), Newer = format3Entry(P);
  Older[std::string("ptxcast-analysis-cache ").size()] = '2';
  Newer[std::string("ptxcast-analysis-cache ").size()] = '5';
  for (const std::string &Bad : {Altered, Mislabelled, Older, Newer}) {
    REQUIRE(!support::writeFileAtomically(Path, Bad));
    CHECK(!Cache.load(Key));
  }
  fs::remove_all(Dir);
}

TEST_CASE("analysis cache: profile lines of format 4 and of format 3 (older dataset shards)") {
  const analyzer::KernelProfile A = profiles()[0];
  const std::string Line = pipeline::AnalysisCache::profileLine(A);
  std::istringstream Fields(Line);
  std::string Last;
  for (std::string F; Fields >> F;)
    Last = F;
  CHECK(Last == "40"); // tensorMacsInt8 ends the line
  auto Four = pipeline::AnalysisCache::parseProfileLine(Line);
  REQUIRE(Four);
  CHECK(Four->tensorMacsInt8 == 40);
  CHECK(Four->tensorMacs == 42);
  auto Three = pipeline::AnalysisCache::parseProfileLine(format3Line(Line));
  REQUIRE(Three);
  CHECK(Three->tensorMacsInt8 == 0);
  CHECK(Three->tensorMacs == 42);
  CHECK(Three->warpInstructions[0] == 123456);
  CHECK(!pipeline::AnalysisCache::parseProfileLine(format3Line(format3Line(Line))));
  CHECK(!pipeline::AnalysisCache::parseProfileLine(Line + " 1"));
}
