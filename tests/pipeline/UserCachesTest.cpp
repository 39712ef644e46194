// pipeline/UserCaches.h through predictNetwork: a second prediction reads the per-user caches
// and answers byte for byte the same; a truncated analysis entry is analysed again, never used;
// PTXCAST_CACHE=off writes nothing.
#include "pipeline/UserCaches.h"
#include "pipeline/Documents.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// PTXCAST_CACHE set to Value for the scope.
class CacheEnv {
public:
  explicit CacheEnv(const std::string &Value) {
    if (const char *Old = std::getenv("PTXCAST_CACHE"))
      Saved = Old;
    setenv("PTXCAST_CACHE", Value.c_str(), 1);
  }
  ~CacheEnv() {
    Saved ? (void)setenv("PTXCAST_CACHE", Saved->c_str(), 1) : (void)unsetenv("PTXCAST_CACHE");
  }

private:
  std::optional<std::string> Saved;
};

pipeline::PredictRequest request(const std::string &Runtime) {
  pipeline::PredictRequest R;
  R.network.input = "lenet5";
  R.network.batch = 4;
  R.network.threads = 1;
  R.network.progress = [](size_t, size_t) {};
  R.gpu = "t4";
  R.runtime = Runtime;
  return R;
}

/// The prediction's JSON document, and whether its counts came from the analysis cache.
std::pair<std::string, bool> predict(const std::string &Runtime) {
  auto O = pipeline::predictNetwork(request(Runtime));
  REQUIRE_MESSAGE(O, support::errorText(O));
  return {pipeline::predictionJson(O->network, O->predictor, O->prediction).dump(),
          O->network.fromCache};
}

/// The analysis entries in Dir: batch 4's and the batch-1 analysis its batch floor reads.
std::vector<fs::path> entries(const fs::path &Dir) {
  std::vector<fs::path> Out;
  for (const auto &E : fs::directory_iterator(Dir))
    Out.push_back(E.path());
  REQUIRE(Out.size() == 2);
  std::sort(Out.begin(), Out.end()); // the directory's order is unspecified
  return Out;
}

} // namespace

TEST_CASE("per-user caches: a warm prediction is the cold one, read back") {
  const fs::path Root = fs::temp_directory_path() / ("ptxcast_ucache_" + std::to_string(getpid()));
  fs::remove_all(Root);
  CacheEnv Env(Root.string());
  const fs::path Analyses = pipeline::analysisCacheDir();
  REQUIRE(Analyses.parent_path() == Root);
  for (const char *Runtime : {"graph", "tensorrt"}) {
    CAPTURE(Runtime);
    fs::remove_all(Root);
    const auto [Cold, ColdCached] = predict(Runtime);
    CHECK(!ColdCached);
    const auto [Warm, WarmCached] = predict(Runtime);
    CHECK(WarmCached);
    CHECK(Warm == Cold);
    // Truncated: analysed again (a note on stderr), the same answer, the entries written whole.
    std::vector<std::uintmax_t> Sizes;
    for (const fs::path &Entry : entries(Analyses)) {
      Sizes.push_back(fs::file_size(Entry));
      fs::resize_file(Entry, Sizes.back() / 2);
    }
    const auto [Again, AgainCached] = predict(Runtime);
    CHECK(!AgainCached);
    CHECK(Again == Cold);
    std::vector<std::uintmax_t> After;
    for (const fs::path &Entry : entries(Analyses))
      After.push_back(fs::file_size(Entry));
    CHECK(After == Sizes);
  }
  fs::remove_all(Root);
}

TEST_CASE("per-user caches: PTXCAST_CACHE=off keeps nothing on disk") {
  CacheEnv Env("off");
  CHECK(pipeline::analysisCacheDir().empty());
  pipeline::UserCaches Caches;
  CHECK(!Caches.analysisCache());
  CHECK(Caches.kernels.directory().empty());
  CHECK(!predict("graph").second);
  CHECK(!predict("graph").second);
}
