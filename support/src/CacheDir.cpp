// The per-user cache directory and its bounds (support/CacheDir.h).
#include "support/CacheDir.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <system_error>
#include <utility>
#include <vector>

namespace support {

namespace fs = std::filesystem;

std::string userCacheDir(std::string_view Name) {
  std::string Root;
  if (const char *Env = std::getenv("PTXCAST_CACHE")) {
    if (std::string_view(Env).empty() || std::string_view(Env) == "off")
      return {};
    Root = Env;
  } else if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg) {
    Root = std::string(Xdg) + "/ptxcast";
  } else if (const char *Home = std::getenv("HOME"); Home && *Home) {
    Root = std::string(Home) + "/.cache/ptxcast";
  } else {
    return {};
  }
  return (fs::path(Root) / std::string(Name)).string();
}

namespace {

/// The entries of Dir that Keep says to look at, newest first.
template <class KeepFn>
std::vector<std::pair<fs::file_time_type, fs::path>> newestFirst(const fs::path &Dir, KeepFn Keep) {
  std::error_code Ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> Out;
  for (const fs::directory_entry &E : fs::directory_iterator(Dir, Ec))
    if (Keep(E, Ec))
      Out.emplace_back(E.last_write_time(Ec), E.path());
  // Newest first; equal times by name, so that every process removes the same entries.
  std::sort(Out.begin(), Out.end(), std::greater<>());
  return Out;
}

} // namespace

void pruneVersions(const std::string &Dir, std::string_view Prefix, size_t Keep) {
  const fs::path Self(Dir);
  auto Versions =
      newestFirst(Self.parent_path(), [&](const fs::directory_entry &E, std::error_code &Ec) {
        return E.is_directory(Ec) && E.path().filename().string().rfind(Prefix, 0) == 0;
      });
  std::error_code Ec;
  size_t Kept = 0;
  for (const auto &[Time, Path] : Versions) {
    if (Path == Self || Kept + 1 < Keep) { // Dir always stays, and Keep - 1 others
      Kept += Path != Self;
      continue;
    }
    fs::remove_all(Path, Ec);
  }
}

void pruneEntries(const std::string &Dir, size_t MaxEntries) {
  // Every process opening a cache calls this: count first (the directory listing alone), and read
  // the files' times only when there is something to remove.
  std::error_code Ec;
  size_t Count = 0;
  for (const fs::directory_entry &E : fs::directory_iterator(Dir, Ec))
    Count += E.is_regular_file(Ec);
  if (Count <= MaxEntries)
    return;
  auto Entries = newestFirst(
      Dir, [](const fs::directory_entry &E, std::error_code &Ec) { return E.is_regular_file(Ec); });
  for (size_t I = MaxEntries / 2; I < Entries.size(); ++I)
    fs::remove(Entries[I].second, Ec);
}

} // namespace support
