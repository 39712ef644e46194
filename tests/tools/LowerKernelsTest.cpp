// `ptxcast lower --kernels library|specialised`: library kernels take their shapes as u32
// arguments in the manifest, persist in the kernel-cache directory ($PTXCAST_CACHE), and
// a second run finds every one of them there (docs/lowering.md, "Kernel library").
#include "RunPtxcast.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>

using namespace clitest;
using Json = nlohmann::json;

namespace {

/// Sets an environment variable for the life of the object (the previous value restored).
struct ScopedEnv {
  std::string name, old;
  bool had = false;
  ScopedEnv(const std::string &Name, const std::string &Value) : name(Name) {
    if (const char *V = std::getenv(Name.c_str()))
      had = true, old = V;
    setenv(Name.c_str(), Value.c_str(), 1);
  }
  ~ScopedEnv() { had ? (void)setenv(name.c_str(), old.c_str(), 1) : (void)unsetenv(name.c_str()); }
};

} // namespace

TEST_CASE("lower --kernels library: shapes as u32 arguments, kernels reused from the cache") {
  TempDir Dir("lowerkernels");
  ScopedEnv Cache("PTXCAST_CACHE", Dir / "cache");
  RunResult First = runPtxcast("lower lenet5 -o " + Dir / "a");
  REQUIRE_MESSAGE(First.status == 0, First.err);
  CHECK(First.out.find("6 distinct library kernels (0 from the kernel cache)") !=
        std::string::npos);
  RunResult Second = runPtxcast("lower lenet5 -o " + Dir / "b");
  REQUIRE_MESSAGE(Second.status == 0, Second.err);
  CHECK(Second.out.find("6 distinct library kernels (6 from the kernel cache)") !=
        std::string::npos);
  CHECK(readAll(Dir / "a/kernels.ptx") == readAll(Dir / "b/kernels.ptx"));
  // A cached kernel truncated to 300 bytes, or altered in place, is compiled again, with a note
  // naming the file, never used; the file is rewritten whole.
  std::filesystem::path Entry;
  for (const auto &E : std::filesystem::recursive_directory_iterator(Dir / "cache"))
    if (E.is_regular_file() && Entry.empty())
      Entry = E.path();
  REQUIRE(!Entry.empty());
  const std::string Whole = readAll(Entry);
  REQUIRE(Whole.size() > 400);
  std::string Altered = Whole;
  Altered[Altered.size() / 2] ^= 1;
  for (const std::string &Damaged : {Whole.substr(0, 300), Altered}) {
    clitest::writeFile(Entry, Damaged);
    RunResult Again = runPtxcast("lower lenet5 -o " + Dir / "c");
    REQUIRE_MESSAGE(Again.status == 0, Again.err);
    CHECK(Again.out.find("6 distinct library kernels (5 from the kernel cache)") !=
          std::string::npos);
    CHECK(Again.err.find("ptxcast: note: kernel cache entry " + Entry.string() +
                         " is not used (its checksum does not match: truncated or altered)") !=
          std::string::npos);
    CHECK(readAll(Dir / "c/kernels.ptx") == readAll(Dir / "a/kernels.ptx"));
    CHECK(readAll(Entry) == Whole);
  }
  const Json M = Json::parse(readAll(Dir / "b/manifest.json"));
  const Json W = Json::parse(readAll(Dir / "b/workload.json"));
  CHECK(W["kernel_set"] == "library");
  // The first convolution: input, weight, bias, output, then its shapes.
  const Json &Args = M["launches"][0]["args"];
  REQUIRE(Args.size() > 4);
  CHECK(Args[3].contains("buffer"));
  CHECK(Args[4].contains("u32"));
  CHECK(W["launches"][0]["kernel"].get<std::string>().rfind("lib_conv_direct_k5_s1", 0) == 0);
  CHECK(W["launches"][0]["shape_args"]["c_in"] == 1);
  CHECK(W["launches"][0]["shape_args"]["h"] == 32);
  // Specialised kernels: one per layer shape, no shape arguments; they persist too.
  RunResult Spec = runPtxcast("lower lenet5 --kernels specialised -o " + Dir / "s");
  REQUIRE_MESSAGE(Spec.status == 0, Spec.err);
  CHECK(Spec.out.find("7 distinct specialised kernels (0 from the kernel cache), ") !=
        std::string::npos);
  RunResult Again = runPtxcast("lower lenet5 --kernels specialised -o " + Dir / "s2");
  REQUIRE_MESSAGE(Again.status == 0, Again.err);
  CHECK(Again.out.find("7 distinct specialised kernels (7 from the kernel cache), ") !=
        std::string::npos);
  const Json SM = Json::parse(readAll(Dir / "s/manifest.json"));
  for (const Json &A : SM["launches"][0]["args"])
    CHECK(A.contains("buffer"));
  RunResult Bad = runPtxcast("lower lenet5 --kernels generic -o " + Dir / "x");
  CHECK(Bad.status != 0);
  CHECK(Bad.err.find("--kernels") != std::string::npos);
}
