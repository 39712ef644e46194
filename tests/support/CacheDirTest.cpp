// support/CacheDir.h: where the per-user cache lives ($PTXCAST_CACHE, off, $XDG_CACHE_HOME,
// $HOME), and the bounds: old versions' folders and the oldest entries past a limit go.
#include "support/CacheDir.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

/// Sets (or, with nullopt, unsets) an environment variable for the scope, restoring it after.
class ScopedEnv {
public:
  ScopedEnv(const char *Name, std::optional<std::string> Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    Value ? (void)setenv(Name, Value->c_str(), 1) : (void)unsetenv(Name);
  }
  ~ScopedEnv() { Saved ? (void)setenv(Name, Saved->c_str(), 1) : (void)unsetenv(Name); }

private:
  const char *Name;
  std::optional<std::string> Saved;
};

/// A fresh folder under the system's temporary directory, removed at the end of the scope.
struct TempDir {
  fs::path path;
  explicit TempDir(const char *Tag) {
    std::string Name = "ptxcast_";
    Name += Tag;
    Name += '_';
    Name += std::to_string(getpid());
    path = fs::temp_directory_path() / Name;
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

/// Names of what Dir holds.
std::set<std::string> names(const fs::path &Dir) {
  std::set<std::string> Out;
  for (const auto &E : fs::directory_iterator(Dir))
    Out.insert(E.path().filename().string());
  return Out;
}

} // namespace

TEST_CASE("userCacheDir: PTXCAST_CACHE, then XDG_CACHE_HOME, then HOME, and off for none") {
  ScopedEnv Xdg("XDG_CACHE_HOME", "/xdg");
  ScopedEnv Home("HOME", "/home/u");
  {
    ScopedEnv Own("PTXCAST_CACHE", "/tmp/own");
    CHECK(support::userCacheDir("kernels-1") == "/tmp/own/kernels-1");
  }
  for (const char *Off : {"off", ""}) {
    ScopedEnv Own("PTXCAST_CACHE", std::string(Off));
    CHECK(support::userCacheDir("kernels-1").empty());
  }
  ScopedEnv Own("PTXCAST_CACHE", std::nullopt);
  CHECK(support::userCacheDir("analyses-2") == "/xdg/ptxcast/analyses-2");
  {
    ScopedEnv NoXdg("XDG_CACHE_HOME", "");
    CHECK(support::userCacheDir("analyses-2") == "/home/u/.cache/ptxcast/analyses-2");
    ScopedEnv NoHome("HOME", std::nullopt);
    CHECK(support::userCacheDir("analyses-2").empty());
  }
}

TEST_CASE("pruneEntries: past the limit, the oldest written go until half the limit is left") {
  TempDir Dir("prune_entries");
  const auto Now = fs::file_time_type::clock::now();
  for (int I = 0; I < 6; ++I) { // e0 the oldest, e5 the newest
    const fs::path P = Dir.path / std::string{'e', char('0' + I)};
    std::ofstream(P) << I;
    fs::last_write_time(P, Now - std::chrono::hours(10 - I));
  }
  fs::create_directories(Dir.path / "sub"); // folders are not entries
  support::pruneEntries(Dir.path.string(), 6);
  CHECK(names(Dir.path).size() == 7); // at the limit: nothing goes
  support::pruneEntries(Dir.path.string(), 5);
  CHECK(names(Dir.path) == std::set<std::string>{"e4", "e5", "sub"});
  support::pruneEntries((Dir.path / "missing").string(), 1); // no folder: nothing to do
}

TEST_CASE("pruneVersions: the folder itself and the newest others stay, other prefixes too") {
  TempDir Root("prune_versions");
  const auto Now = fs::file_time_type::clock::now();
  int Age = 10;
  for (const char *Old : {"analyses-a", "analyses-b", "analyses-c", "kernels-x"}) {
    fs::create_directories(Root.path / Old);
    fs::last_write_time(Root.path / Old, Now - std::chrono::hours(Age--));
  }
  // The folder being opened is older than all: it stays whatever its age.
  fs::create_directories(Root.path / "analyses-self");
  fs::last_write_time(Root.path / "analyses-self", Now - std::chrono::hours(50));
  support::pruneVersions((Root.path / "analyses-self").string(), "analyses-", 2);
  CHECK(names(Root.path) == std::set<std::string>{"analyses-c", "analyses-self", "kernels-x"});
}
