// `ptxcast dataset kernels KERNELS.csv -o OUT.csv`: ptxcast's own kernels timed on a real GPU
// (scripts/measure/collect.py's kernels.csv) joined with the fast analysis of the same lowering,
// one row per measured launch (--level launch) or per CUDA-graph run of a network (--level
// network). Each launch row is checked against the lowering by kernel name (docs/datasets.md).
#include "DatasetCommands.h"
#include "DatasetCommon.h"
#include "NetworkAnalysis.h"

#include "corpus/Zoo.h"
#include "support/Parallel.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <map>
#include <optional>

namespace ptxcast::dataset {
namespace {

constexpr std::string_view RequiredColumns[] = {"network",       "batch",  "dtype",    "arch",
                                                "sms_requested", "run",    "sms_used", "scope",
                                                "launch_index",  "kernel", "median_ms"};

/// One distinct lowering: a zoo model at a batch, dtype and target, built at its own resolution.
struct Job {
  std::string network;
  int64_t batch = 0;
  corpus::DType dtype = corpus::DType::F32;
  std::string arch;
};

/// A measured row of the chosen level, parsed.
struct MeasuredRow {
  std::vector<std::string> ids; ///< source, network, batch, dtype, sms, run[, launch_index, kernel]
  std::string config;           ///< "network|batch|dtype|arch|sms|run": the run it belongs to
  std::string kernel;           ///< launch rows: the kernel the GPU ran
  int64_t launchIndex = -1;     ///< launch rows: 0-based manifest index
  int64_t smsUsed = 0;
  double medianMs = 0;
  size_t job = 0;
};

/// What the input files give: rows of the level, the lowerings they need, and for --level
/// network the launch rows of each run (index -> kernel), to check the lowering against.
struct Ingest {
  std::vector<MeasuredRow> rows;
  std::vector<Job> jobs;
  std::map<std::string, size_t> jobIndex;
  std::map<std::string, std::map<int64_t, std::string>> launchKernels;
  SkipLog skips;
  size_t read = 0;
};

/// The outcome of one lowering + analysis.
struct KernelsJobResult {
  std::optional<ptxcast::NetworkAnalysis> analysis;
  std::string skipReason, detail;
  double seconds = 0;
};

support::Expected<corpus::DType> parseDType(const SourceTable &T, const learners::CsvRecord &R) {
  const std::string &Text = textField(T, R, "dtype");
  if (Text == "f32")
    return corpus::DType::F32;
  if (Text == "f16")
    return corpus::DType::F16;
  return support::Error(T.file, R.line, 0,
                        fmt::format("column 'dtype': expected f32 or f16, got '{}'", Text));
}

/// The numbers of a row: batch, sms_used, median_ms and (launch rows) launch_index.
struct RowNumbers {
  int64_t batch = 0, smsUsed = 0, launchIndex = -1;
  double medianMs = 0;
};

support::Expected<RowNumbers> parseNumbers(const SourceTable &T, const learners::CsvRecord &R,
                                           bool IsLaunch) {
  RowNumbers N;
  auto Batch = intField(T, R, "batch");
  auto Sms = intField(T, R, "sms_used");
  auto Median = numberField(T, R, "median_ms");
  if (!Batch || !Sms || !Median)
    return !Batch ? Batch.error() : !Sms ? Sms.error() : Median.error();
  if (*Batch <= 0 || *Sms <= 0)
    return support::Error(T.file, R.line, 0, "batch and sms_used must be positive");
  N.batch = *Batch;
  N.smsUsed = *Sms;
  N.medianMs = *Median;
  if (IsLaunch) {
    auto Index = intField(T, R, "launch_index");
    if (!Index)
      return Index.error();
    if (*Index < 0)
      return support::Error(T.file, R.line, 0, "column 'launch_index': negative");
    N.launchIndex = *Index;
  }
  return N;
}

/// Reads one file into G: rows of the level (the first O.limit of them when set), the jobs they
/// need and, for --level network, every launch row's kernel name.
std::optional<support::Error> readFile(const std::string &Path, const DatasetOptions &O,
                                       const std::string &Source, Ingest &G) {
  auto T = readTable(Path, RequiredColumns);
  if (!T)
    return T.error();
  const bool LaunchLevel = O.level == "launch";
  const std::string Wanted = LaunchLevel ? "launch" : "graph";
  const size_t First = G.rows.size();
  for (const learners::CsvRecord &R : T->rows) {
    const std::string &Scope = textField(*T, R, "scope");
    if (Scope != Wanted && (LaunchLevel || Scope != "launch"))
      continue; // workload rows, or graph rows at launch level
    auto Type = parseDType(*T, R);
    if (!Type)
      return Type.error();
    auto N = parseNumbers(*T, R, Scope == "launch");
    if (!N)
      return N.error();
    auto F = [&](std::string_view Name) { return textField(*T, R, Name); };
    std::string Config = fmt::format("{}|{}|{}|{}|{}|{}", F("network"), N->batch, F("dtype"),
                                     F("arch"), F("sms_requested"), F("run"));
    if (!LaunchLevel && Scope == "launch") {
      G.launchKernels[Config][N->launchIndex] = F("kernel");
      continue;
    }
    if (O.limit && G.rows.size() - First >= O.limit)
      continue; // keep collecting launch rows for the network-level check
    ++G.read;
    std::string Key = fmt::format("{}|{}|{}|{}", F("network"), N->batch, F("dtype"), F("arch"));
    auto [It, New] = G.jobIndex.emplace(Key, G.jobs.size());
    if (New)
      G.jobs.push_back({F("network"), N->batch, *Type, F("arch")});
    MeasuredRow M{
        {Source, F("network"), std::to_string(N->batch), F("dtype"), F("sms_requested"), F("run")},
        Config,
        F("kernel"),
        N->launchIndex,
        N->smsUsed,
        N->medianMs,
        It->second};
    if (LaunchLevel)
      M.ids.insert(M.ids.end(), {std::to_string(N->launchIndex), F("kernel")});
    G.rows.push_back(std::move(M));
  }
  return std::nullopt;
}

KernelsJobResult runOneJob(const Job &J) {
  KernelsJobResult R;
  auto Start = std::chrono::steady_clock::now();
  auto Net = corpus::buildZooModel(J.network, corpus::ZooOptions{J.batch, 0, J.dtype});
  if (!Net) {
    R.skipReason = "rebuild failed";
    R.detail = Net.error().str();
  } else {
    // The settings `ptxcast dataset` and `ptxcast predict` share (analyseLowered).
    corpus::LowerOptions Lower;
    Lower.dtype = J.dtype;
    Lower.arch = J.arch;
    Lower.threads = 1;
    auto A = analyseLowered(*Net, Lower, /*Threads=*/1, /*Progress=*/false);
    if (!A) {
      R.skipReason = "lowering or analysis failed";
      R.detail = A.error().str();
    } else {
      R.analysis = std::move(*A);
    }
  }
  R.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  return R;
}

/// Runs the jobs in parallel, one thread each; results land in their job's slot, so the output
/// does not depend on the thread count.
std::vector<KernelsJobResult> runAll(const std::vector<Job> &Jobs, unsigned Threads) {
  std::vector<KernelsJobResult> Results(Jobs.size());
  support::parallelFor(Jobs.size(), Threads,
                       [&](size_t I, unsigned) { Results[I] = runOneJob(Jobs[I]); });
  return Results;
}

/// Why the lowering's launches differ from the measured ones of a run, or "" when they match.
std::string networkMismatch(const ptxcast::NetworkAnalysis &A,
                            const std::map<int64_t, std::string> *Measured) {
  if (!Measured)
    return "no launch rows to check the lowering against";
  if (Measured->size() != A.launches.size())
    return fmt::format("{} launches measured, {} lowered", Measured->size(), A.launches.size());
  for (const auto &[Index, Kernel] : *Measured)
    if (Index >= int64_t(A.launches.size()) || A.launches[Index].profile.kernel != Kernel)
      return fmt::format("launch {}: measured {}", Index, Kernel);
  return "";
}

/// Appends the output row of one measured row, or counts why it is skipped.
void joinRow(learners::Dataset &D, MeasuredRow &M, const ptxcast::NetworkAnalysis &A,
             const std::vector<analyzer::KernelProfile> &All, const hardware::GpuSpec &Gpu,
             Ingest &G, bool LaunchLevel) {
  hardware::GpuSpec Restricted = hardware::withSmCount(Gpu, double(M.smsUsed));
  if (!LaunchLevel) {
    auto It = G.launchKernels.find(M.config);
    std::string Why = networkMismatch(A, It == G.launchKernels.end() ? nullptr : &It->second);
    if (!Why.empty())
      return G.skips.add("kernel mismatch: lowering changed since measurement",
                         M.config + ": " + Why);
    return addFeatureRow(D, std::move(M.ids), All, A.footprintBytes, Restricted, M.medianMs);
  }
  if (M.launchIndex >= int64_t(A.launches.size()))
    return G.skips.add(
        "kernel mismatch: lowering changed since measurement",
        fmt::format("{}: launch {} of {}", M.config, M.launchIndex, A.launches.size()));
  const LaunchRecord &L = A.launches[M.launchIndex];
  if (L.profile.kernel != M.kernel)
    return G.skips.add("kernel mismatch: lowering changed since measurement",
                       fmt::format("{} launch {}: measured {}, lowered {}", M.config, M.launchIndex,
                                   M.kernel, L.profile.kernel));
  M.ids.push_back(L.strategy);
  addFeatureRow(D, std::move(M.ids), {&L.profile, 1}, L.footprintBytes, Restricted, M.medianMs);
}

/// "h100-kernels" for h100-sxm: the catalog name up to its first '-'.
std::string sourceName(const hardware::GpuSpec &Gpu) {
  return Gpu.name.substr(0, Gpu.name.find('-')) + "-kernels";
}

} // namespace

int runKernels(const DatasetOptions &O) {
  auto Start = std::chrono::steady_clock::now();
  auto Fail = [](const support::Error &E) {
    fmt::print(stderr, "{}\n", E.str());
    return 1;
  };
  if (O.level != "launch" && O.level != "network")
    return Fail(
        support::Error("--level", 0, 0, "expected 'launch' or 'network', got '" + O.level + "'"));
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog)
    return Fail(Catalog.error());
  auto Gpu = Catalog->lookup(O.gpu.empty() ? "h100-sxm" : O.gpu);
  if (!Gpu)
    return Fail(support::Error("--gpu", 0, 0, Gpu.error().message));
  Ingest G;
  for (const std::string &Path : O.inputs)
    if (auto E = readFile(Path, O, sourceName(*Gpu), G))
      return Fail(*E);
  std::vector<KernelsJobResult> Results = runAll(G.jobs, O.threads);

  const bool LaunchLevel = O.level == "launch";
  std::vector<std::string> Ids = {"source", "network", "batch", "dtype", "sms", "run"};
  if (LaunchLevel)
    Ids.insert(Ids.end(), {"launch_index", "kernel", "strategy"});
  learners::Dataset D = emptyDataset(Ids, "median_ms");
  std::vector<std::vector<analyzer::KernelProfile>> Profiles(G.jobs.size());
  for (size_t J = 0; J < G.jobs.size() && !LaunchLevel; ++J)
    if (Results[J].analysis)
      for (const LaunchRecord &L : Results[J].analysis->launches)
        Profiles[J].push_back(L.profile);
  for (MeasuredRow &M : G.rows) {
    const KernelsJobResult &J = Results[M.job];
    if (!J.analysis)
      G.skips.add(J.skipReason, J.detail);
    else
      joinRow(D, M, *J.analysis, Profiles[M.job], *Gpu, G, LaunchLevel);
  }
  if (auto E = writeCsvAtomically(D, O.output))
    return Fail(*E);
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  printSummary("dataset kernels", G.read, D.size(), G.skips, G.jobs.size(), Seconds);
  std::vector<JobResult> Costs(Results.size());
  for (size_t I = 0; I < Results.size(); ++I)
    Costs[I].seconds = Results[I].seconds;
  fmt::print(stderr, "{}\n", costSummary(Costs));
  return 0;
}

} // namespace ptxcast::dataset
