// Sharded `ptxcast dataset` runs and their merge (DatasetShard.h).
#include "pipeline/DatasetShard.h"

#include "pipeline/AnalysisCache.h"
#include "support/Files.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <type_traits>

namespace pipeline::dataset {
namespace {

using Json = nlohmann::json;
using OJson = nlohmann::ordered_json;

/// Identifies the file format; bump when the layout changes. Format 1 had no framework passes
/// per launch, format 2 no GEMM shape: their merge would give other features than a
/// one-process run, so they are refused.
constexpr int ShardFormat = 3;

std::optional<size_t> positive(std::string_view Text) {
  size_t V = 0;
  auto [End, Ec] = std::from_chars(Text.data(), Text.data() + Text.size(), V);
  if (Ec != std::errc() || End != Text.data() + Text.size() || Text.empty() || V == 0)
    return std::nullopt;
  return V;
}

/// The flags that decide a command's rows (not --threads, --cache or -o).
OJson optionsJson(const DatasetOptions &O) {
  return {{"inputs", O.inputs},       {"arch", O.arch},   {"gpu", O.gpu},
          {"level", O.level},         {"run", O.run},     {"mode", O.mode},
          {"onnx_dir", O.onnxDir},    {"limit", O.limit}, {"math", O.math},
          {"kernel_set", O.kernelSet}};
}

void readOptions(const Json &J, DatasetOptions &O) {
  O.inputs = J.at("inputs").get<std::vector<std::string>>();
  O.arch = J.at("arch").get<std::string>();
  O.gpu = J.at("gpu").get<std::string>();
  O.level = J.at("level").get<std::string>();
  O.run = J.at("run").get<std::string>();
  O.mode = J.at("mode").get<std::string>();
  O.onnxDir = J.at("onnx_dir").get<std::string>();
  O.limit = J.at("limit").get<size_t>();
  O.math = J.value("math", std::string("simt")); // shards from before the option
  O.kernelSet = J.value("kernel_set", std::string("specialised"));
}

/// Every field of what PyTorch runs around a launch's layers (hardware::FrameworkPasses), with
/// its key, through one visitor so that writing and reading cannot disagree. The fields only the
/// compile runtime reads (Optional) may be missing from a shard written before them: 0.
template <class P, class F> void visitPasses(P &Passes, F &&Visit) {
  constexpr bool Required = false, Optional = true;
  Visit("cast_elements", Passes.castElements, Required);
  Visit("cast_tensors", Passes.castTensors, Required);
  Visit("bias_cast_elements", Passes.biasCastElements, Optional);
  Visit("bias_cast_tensors", Passes.biasCastTensors, Optional);
  Visit("bias_adds", Passes.biasAdds, Required);
  Visit("latency_bound_elements", Passes.latencyBoundElements, Required);
  Visit("leading_latency_bound_elements", Passes.leadingLatencyBoundElements, Required);
  Visit("pool_input_elements", Passes.poolInputElements, Required);
  Visit("layout_elements", Passes.layoutElements, Required);
  Visit("layout_tensors", Passes.layoutTensors, Required);
  Visit("tail_input_elements", Passes.tailInputElements, Optional);
  Visit("element_bytes", Passes.elementBytes, Required);
  Visit("image_conv", Passes.imageConv, Required);
}

OJson passesJson(const hardware::FrameworkPasses &F) {
  OJson J = OJson::object();
  visitPasses(F, [&](const char *Key, const auto &V, bool) { J[Key] = V; });
  return J;
}

hardware::FrameworkPasses readPasses(const Json &J) {
  hardware::FrameworkPasses F;
  visitPasses(F, [&](const char *Key, auto &V, bool Optional) {
    if (!Optional || J.contains(Key))
      V = J.at(Key).get<std::decay_t<decltype(V)>>();
  });
  return F;
}

OJson analysisJson(const NetworkAnalysis &A) {
  OJson Launches = OJson::array();
  for (const LaunchRecord &L : A.launches)
    Launches.push_back({{"strategy", L.strategy},
                        {"layers", L.layers},
                        {"footprint_bytes", L.footprintBytes},
                        {"macs", L.macs},
                        {"registers", L.profile.registersPerThread},
                        {"static_shared_bytes", L.profile.staticSharedBytes},
                        {"framework", passesJson(L.framework)},
                        {"gemm", {L.gemm.batch, L.gemm.m, L.gemm.n, L.gemm.k}},
                        {"winograd", L.winograd},
                        {"counts", AnalysisCache::profileLine(L.profile)}});
  return {{"network", A.network},
          {"batch", A.batch},
          {"image_size", A.imageSize},
          {"dtype", A.dtype},
          {"footprint_bytes", A.footprintBytes},
          {"lower_seconds", A.lowerSeconds},
          {"analyse_seconds", A.analyseSeconds},
          {"from_cache", A.fromCache},
          {"launches", Launches}};
}

/// Throws (nlohmann::json::exception, or std::runtime_error for bad counts): readShard turns
/// either into an Error naming the file.
NetworkAnalysis readAnalysis(const Json &J) {
  NetworkAnalysis A;
  A.network = J.at("network").get<std::string>();
  A.batch = J.at("batch").get<int64_t>();
  A.imageSize = J.at("image_size").get<int64_t>();
  A.dtype = J.at("dtype").get<std::string>();
  A.footprintBytes = J.at("footprint_bytes").get<uint64_t>();
  A.lowerSeconds = J.at("lower_seconds").get<double>();
  A.analyseSeconds = J.at("analyse_seconds").get<double>();
  A.fromCache = J.at("from_cache").get<bool>();
  for (const Json &L : J.at("launches")) {
    auto P = AnalysisCache::parseProfileLine(L.at("counts").get<std::string>());
    if (!P)
      throw std::runtime_error("malformed counts of a launch of '" + A.network + "'");
    LaunchRecord &R = A.launches.emplace_back();
    R.profile = std::move(*P);
    R.profile.registersPerThread = L.at("registers").get<uint32_t>();
    R.profile.staticSharedBytes = L.at("static_shared_bytes").get<uint32_t>();
    R.strategy = L.at("strategy").get<std::string>();
    R.layers = L.at("layers").get<std::vector<std::string>>();
    R.footprintBytes = L.at("footprint_bytes").get<uint64_t>();
    R.macs = L.at("macs").get<int64_t>();
    R.framework = readPasses(L.at("framework"));
    const auto G = L.at("gemm").get<std::array<double, 4>>();
    R.gemm = {G[0], G[1], G[2], G[3]};
    R.winograd = L.at("winograd").get<bool>();
  }
  return A;
}

OJson resultJson(size_t Job, const JobResult &R) {
  return {{"job", Job},
          {"seconds", R.seconds},
          {"skip_reason", R.skipReason},
          {"detail", R.detail},
          {"analysis", R.analysis ? analysisJson(*R.analysis) : OJson(nullptr)}};
}

/// Runs the shard's slice of the jobs and writes the shard file; the exit status.
int runShard(std::string_view Command, const DatasetOptions &O, const ShardSpec &Spec,
             const std::vector<NetworkFactory> &Jobs, const JobSettings &S) {
  auto Start = std::chrono::steady_clock::now();
  std::vector<NetworkFactory> Slice;
  std::vector<size_t> Index;
  for (size_t J = 0; J < Jobs.size(); ++J)
    if (Spec.contains(J)) {
      Slice.push_back(Jobs[J]);
      Index.push_back(J);
    }
  std::vector<JobResult> Results = runJobs(Slice, S);
  OJson Rows = OJson::array();
  for (size_t I = 0; I < Results.size(); ++I)
    Rows.push_back(resultJson(Index[I], Results[I]));
  OJson Doc = {{"ptxcast_dataset_shard", ShardFormat},
               {"command", Command},
               {"options", optionsJson(O)},
               {"shard", fmt::format("{}/{}", Spec.index, Spec.count)},
               {"jobs", Jobs.size()},
               {"results", Rows}};
  if (auto E = support::writeFileAtomically(O.output, Doc.dump() + "\n")) {
    fmt::print(stderr, "{}\n", E->str());
    return 1;
  }
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  fmt::print(stderr, "dataset {} --shard {}/{}: {} of {} distinct analyses, {:.1f} s\n", Command,
             Spec.index, Spec.count, Slice.size(), Jobs.size(), Seconds);
  return 0;
}

/// One shard file as read.
struct ShardFile {
  std::string path, command;
  DatasetOptions options;
  ShardSpec spec;
  size_t jobs = 0;
  std::vector<std::pair<size_t, JobResult>> results;
};

ShardFile readShardJson(const std::string &Path, const Json &J) {
  const int Format = J.is_object() ? J.value("ptxcast_dataset_shard", 0) : 0;
  if (Format == 1 || Format == 2)
    throw std::runtime_error(fmt::format("a shard of format {}, from an older ptxcast that did not "
                                         "store {} per launch: run its shard again",
                                         Format,
                                         Format == 1 ? "PyTorch's passes" : "the GEMM shape"));
  if (Format != ShardFormat)
    throw std::runtime_error(
        fmt::format("not a ptxcast dataset shard file (format {})", ShardFormat));
  ShardFile F;
  F.path = Path;
  F.command = J.at("command").get<std::string>();
  readOptions(J.at("options"), F.options);
  auto Spec = parseShard(J.at("shard").get<std::string>());
  if (!Spec)
    throw std::runtime_error(Spec.error().message);
  F.spec = *Spec;
  F.jobs = J.at("jobs").get<size_t>();
  for (const Json &R : J.at("results")) {
    JobResult Result;
    Result.seconds = R.at("seconds").get<double>();
    Result.skipReason = R.at("skip_reason").get<std::string>();
    Result.detail = R.at("detail").get<std::string>();
    if (!R.at("analysis").is_null())
      Result.analysis = readAnalysis(R.at("analysis"));
    const size_t Job = R.at("job").get<size_t>();
    if (Job >= F.jobs || !F.spec.contains(Job))
      throw std::runtime_error(
          fmt::format("job {} does not belong to shard {}/{}", Job, F.spec.index, F.spec.count));
    F.results.emplace_back(Job, std::move(Result));
  }
  size_t Expected = 0;
  for (size_t Job = 0; Job < F.jobs; ++Job)
    Expected += F.spec.contains(Job);
  if (F.results.size() != Expected)
    throw std::runtime_error(fmt::format("{} results, shard {}/{} of {} jobs has {}",
                                         F.results.size(), F.spec.index, F.spec.count, F.jobs,
                                         Expected));
  return F;
}

support::Expected<ShardFile> readShard(const std::string &Path) {
  auto Text = support::readFile(Path);
  if (!Text)
    return Text.error();
  try {
    return readShardJson(Path, Json::parse(*Text));
  } catch (const std::exception &E) {
    return support::Error(Path, 0, 0, std::string("malformed shard file: ") + E.what());
  }
}

/// Checks that the files are the N shards of one run, each once, and returns every job's
/// result in job order (the first file's command and options go to `First`).
support::Expected<std::vector<JobResult>> mergeShards(const std::vector<std::string> &Paths,
                                                      ShardFile &First) {
  std::vector<ShardFile> Files;
  for (const std::string &Path : Paths) {
    auto F = readShard(Path);
    if (!F)
      return F.error();
    Files.push_back(std::move(*F));
  }
  First = Files.front();
  std::map<size_t, std::string> Seen; // shard index -> file
  for (const ShardFile &F : Files) {
    if (F.command != First.command || optionsJson(F.options) != optionsJson(First.options) ||
        F.jobs != First.jobs || F.spec.count != First.spec.count)
      return support::Error(F.path, 0, 0,
                            fmt::format("shard of another run than {} (command, flags, sources or "
                                        "shard count differ)",
                                        First.path));
    if (auto [It, New] = Seen.emplace(F.spec.index, F.path); !New)
      return support::Error(
          F.path, 0, 0,
          fmt::format("shard {}/{} is also {}", F.spec.index, F.spec.count, It->second));
  }
  for (size_t K = 1; K <= First.spec.count; ++K)
    if (!Seen.count(K))
      return support::Error("dataset merge", 0, 0,
                            fmt::format("shard {}/{} is missing", K, First.spec.count));
  std::vector<JobResult> Results(First.jobs);
  for (ShardFile &F : Files)
    for (auto &[Job, R] : F.results)
      Results[Job] = std::move(R);
  return Results;
}

} // namespace

int runMerge(const std::vector<std::string> &Shards, const std::string &Output, unsigned Threads) {
  ShardFile First;
  auto Results = mergeShards(Shards, First);
  if (!Results) {
    fmt::print(stderr, "{}\n", Results.error().str());
    return 1;
  }
  const std::map<std::string, std::function<int(const DatasetOptions &)>> Commands = {
      {"neusight", runNeusight},
      {"timm", runTimm},
      {"kernels", runKernels},
      {"frameworks", runFrameworks}};
  auto Run = Commands.find(First.command);
  if (Run == Commands.end()) {
    fmt::print(stderr, "{}: error: unknown dataset command '{}'\n", First.path, First.command);
    return 1;
  }
  DatasetOptions O = First.options;
  O.output = Output;
  O.threads = Threads;
  O.merged = &*Results;
  return Run->second(O);
}

support::Expected<ShardSpec> parseShard(std::string_view Text) {
  const size_t Slash = Text.find('/');
  std::optional<size_t> K, N;
  if (Slash != std::string_view::npos) {
    K = positive(Text.substr(0, Slash));
    N = positive(Text.substr(Slash + 1));
  }
  if (!K || !N || *K > *N)
    return support::Error(fmt::format("expected K/N with 1 <= K <= N (e.g. 2/8), got '{}'", Text));
  return ShardSpec{*K, *N};
}

JobOutcome runOrShardJobs(std::string_view Command, const DatasetOptions &O,
                          const std::vector<NetworkFactory> &Jobs, const JobSettings &Settings) {
  JobOutcome Out;
  JobSettings S = Settings;
  std::optional<AnalysisCache> Cache; // --cache: lives as long as the jobs that read and fill it
  if (!O.cacheDir.empty())
    S.cache = &Cache.emplace(O.cacheDir);
  if (O.merged) {
    if (O.merged->size() != Jobs.size()) {
      fmt::print(stderr,
                 "dataset merge: error: the shards hold {} distinct analyses, the sources give "
                 "{}: the sources changed since the shards were built\n",
                 O.merged->size(), Jobs.size());
      Out.done = 1;
      return Out;
    }
    Out.results = *O.merged;
    return Out;
  }
  if (O.shard.empty()) {
    Out.results = runJobs(Jobs, S);
    return Out;
  }
  auto Spec = parseShard(O.shard);
  if (!Spec) {
    fmt::print(stderr, "--shard: {}\n", Spec.error().message);
    Out.done = 1;
    return Out;
  }
  Out.done = runShard(Command, O, *Spec, Jobs, S);
  return Out;
}

} // namespace pipeline::dataset
