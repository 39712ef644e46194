// `ptxcast dataset kernels KERNELS.csv -o OUT.csv`: ptxcast's own kernels timed on a real GPU
// (scripts/measure/collect.py's kernels.csv) joined with the fast analysis of the same lowering,
// one row per measured launch (--level launch) or per CUDA-graph run of a network (--level
// network). Each launch row is checked against the lowering by kernel name (docs/datasets.md).
#include "pipeline/Datasets.h"
#include "pipeline/DatasetCommon.h"
#include "pipeline/DatasetShard.h"
#include "pipeline/NetworkAnalysis.h"

#include "corpus/Zoo.h"
#include "support/Parallel.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <map>
#include <optional>

namespace pipeline::dataset {
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

/// A measured row of the chosen level, parsed, with the lowered kernel it must match.
struct MeasuredRow {
  PendingRow row;
  std::string config; ///< "network|batch|dtype|arch|sms|run": the run it belongs to
  std::string kernel; ///< launch rows: the kernel the GPU ran
};

/// What the input files give: rows of the level, the lowerings they need, and for --level
/// network the launch rows of each run (index -> kernel), to check the lowering against.
struct Ingest {
  std::vector<MeasuredRow> rows;
  std::vector<Job> jobs;
  std::map<std::string, size_t> jobIndex;
  std::map<std::string, std::map<int64_t, std::string>> launchKernels;
  std::string arch; ///< the one target every row was lowered for
  SkipLog skips;
  size_t read = 0;
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
  auto Median = timeField(T, R, "median_ms");
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

/// The row's column `Name`, or `Absent` in files from before the column existed.
std::string optionalField(const SourceTable &T, const learners::CsvRecord &R, std::string_view Name,
                          std::string_view Absent) {
  return T.column(Name) ? textField(T, R, Name) : std::string(Absent);
}

/// The math of the tensor-core launches of a lowering with `--math Math` on `Gpu` (auto: what
/// PyTorch runs there). CUDA-core launches count no tensor instructions, so one mode per run
/// is exact.
hardware::MathMode executedMath(const std::string &Math, corpus::DType T,
                                const hardware::GpuSpec &Gpu) {
  if (Math == "auto")
    return hardware::defaultMathMode(T == corpus::DType::F16 ? "f16" : "f32",
                                     Gpu.computeCapability);
  auto M = hardware::parseMathMode(Math);
  assert(M && "--math is checked by the command line");
  return *M;
}

/// Whether row R comes from another lowering than --math and --kernels ask for. A row of the
/// level asked for is then counted as read and skipped with the reason.
bool otherLowering(const SourceTable &T, const learners::CsvRecord &R, const DatasetOptions &O,
                   bool OfLevel, Ingest &G) {
  std::string Math = optionalField(T, R, "math", "simt");
  std::string Set = optionalField(T, R, "kernel_set", "specialised");
  if (Math == O.math && Set == O.kernelSet)
    return false;
  if (OfLevel) {
    ++G.read;
    G.skips.add("another lowering (--math, --kernels pick which)",
                fmt::format("line {}: math {}, kernels {}", R.line, Math, Set));
  }
  return true;
}

/// "network|batch|dtype|arch|sms|run": the run row R belongs to.
std::string runConfig(const SourceTable &T, const learners::CsvRecord &R, int64_t Batch) {
  auto F = [&](std::string_view Name) { return textField(T, R, Name); };
  return fmt::format("{}|{}|{}|{}|{}|{}", F("network"), Batch, F("dtype"), F("arch"),
                     F("sms_requested"), F("run"));
}

/// What every row of a file shares: the options, the source name and the measured GPU.
struct FileContext {
  const DatasetOptions &options;
  const std::string &source;
  const hardware::GpuSpec &gpu;
};

/// The learner row of measured row R of the level (its numbers N), analysed by job Job. A launch
/// row is one launch between two CUDA events, a network row the whole workload replayed as a
/// CUDA graph.
MeasuredRow measuredRow(const SourceTable &T, const learners::CsvRecord &R, const RowNumbers &N,
                        corpus::DType Type, size_t Job, const FileContext &C) {
  auto F = [&](std::string_view Name) { return textField(T, R, Name); };
  const bool LaunchLevel = C.options.level == "launch";
  const hardware::MathMode Executed = executedMath(C.options.math, Type, C.gpu);
  MeasuredRow M;
  M.row.ids = {
      C.source,
      C.gpu.name,
      F("sms_requested"),
      LaunchLevel ? "launch" : "graph",
      std::string(hardware::mathModeName(Executed)),
      F("dtype"),
      F("network"),
      LaunchLevel ? fmt::format("batch={};launch={};kernel={}", N.batch, N.launchIndex, F("kernel"))
                  : fmt::format("batch={}", N.batch),
      F("run")};
  M.row.measuredMs = N.medianMs;
  M.row.job = Job;
  M.row.gpu = hardware::withSmCount(C.gpu, double(N.smsUsed));
  M.row.exec = {Executed, hardware::Implementation::Ptxcast, Type == corpus::DType::F16};
  M.row.launch = LaunchLevel ? N.launchIndex : -1;
  M.config = runConfig(T, R, N.batch);
  M.kernel = F("kernel");
  return M;
}

/// Reads one file into G: rows of the level (the first O.limit of them when set), the jobs they
/// need and, for --level network, every launch row's kernel name.
support::MaybeError readFile(const std::string &Path, const FileContext &C, Ingest &G) {
  const DatasetOptions &O = C.options;
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
    if (!O.run.empty() && textField(*T, R, "run") != O.run)
      continue;
    auto Type = parseDType(*T, R);
    if (!Type)
      return Type.error();
    if (otherLowering(*T, R, O, Scope == Wanted, G))
      continue;
    auto N = parseNumbers(*T, R, Scope == "launch");
    if (!N)
      return N.error();
    auto F = [&](std::string_view Name) { return textField(*T, R, Name); };
    if (!LaunchLevel && Scope == "launch") {
      G.launchKernels[runConfig(*T, R, N->batch)][N->launchIndex] = F("kernel");
      continue;
    }
    if (O.limit && G.rows.size() - First >= O.limit)
      continue; // keep collecting launch rows for the network-level check
    ++G.read;
    if (G.arch.empty())
      G.arch = F("arch");
    if (F("arch") != G.arch)
      return support::Error(T->file, R.line, 0,
                            fmt::format("column 'arch': '{}' after '{}': one target per run",
                                        F("arch"), G.arch));
    std::string Key = fmt::format("{}|{}|{}", F("network"), N->batch, F("dtype"));
    auto [It, New] = G.jobIndex.emplace(Key, G.jobs.size());
    if (New)
      G.jobs.push_back({F("network"), N->batch, *Type, F("arch")});
    G.rows.push_back(measuredRow(*T, R, *N, *Type, It->second, C));
  }
  return std::nullopt;
}

/// Why the lowering's launches differ from the measured ones of a run, or "" when they match.
std::string networkMismatch(const pipeline::NetworkAnalysis &A,
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

/// Why a measured row does not match the lowering (the lowering changed since it was measured),
/// or "" when it does.
std::string rowMismatch(const MeasuredRow &M, const pipeline::NetworkAnalysis &A, const Ingest &G) {
  if (M.row.launch < 0) {
    auto It = G.launchKernels.find(M.config);
    std::string Why = networkMismatch(A, It == G.launchKernels.end() ? nullptr : &It->second);
    return Why.empty() ? "" : M.config + ": " + Why;
  }
  if (M.row.launch >= int64_t(A.launches.size()))
    return fmt::format("{}: launch {} of {}", M.config, M.row.launch, A.launches.size());
  const std::string &Lowered = A.launches[size_t(M.row.launch)].profile.kernel;
  if (Lowered != M.kernel)
    return fmt::format("{} launch {}: measured {}, lowered {}", M.config, M.row.launch, M.kernel,
                       Lowered);
  return "";
}

/// "h100-kernels" for h100-sxm: the catalog name up to its first '-'; "h100-library" for the
/// library kernels, other kernels than the specialised ones, so a dataset keeps them apart
/// (`--balance source`, `--band-where source=...`).
std::string sourceName(const hardware::GpuSpec &Gpu, corpus::KernelSet Set) {
  return Gpu.name.substr(0, Gpu.name.find('-')) +
         (Set == corpus::KernelSet::Library ? "-library" : "-kernels");
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
  const corpus::KernelSet Set = *corpus::parseKernelSet(O.kernelSet); // checked by the CLI
  const std::string Source = sourceName(*Gpu, Set);
  const FileContext Context{O, Source, *Gpu};
  for (const std::string &Path : O.inputs)
    if (auto E = readFile(Path, Context, G))
      return Fail(*E);
  if (G.rows.empty()) { // an empty dataset is never what was asked for
    printSummary("dataset kernels", G.read, 0, G.skips, 0, 0);
    return Fail(support::Error("no measured row to join: none of the level and run "
                               "asked for, or every one skipped (reasons above)"));
  }
  std::vector<NetworkFactory> Jobs;
  for (const Job &J : G.jobs)
    Jobs.push_back([&J] {
      return corpus::buildZooModel(J.network, corpus::ZooOptions{J.batch, 0, J.dtype});
    });
  JobSettings S;
  S.threads = O.threads;
  S.perJob = true;
  S.lower.arch = G.arch.empty() ? O.arch : G.arch;
  S.lower.math = *corpus::parseMathMode(O.math);
  S.lower.kernels = Set;
  S.unit = "analysed networks";
  JobOutcome Run = runOrShardJobs("kernels", O, Jobs, S);
  if (Run.done)
    return *Run.done;
  const std::vector<JobResult> &Results = Run.results;

  std::vector<PendingRow> Rows;
  for (MeasuredRow &M : G.rows) {
    const JobResult &J = Results[M.row.job];
    if (J.analysis)
      if (std::string Why = rowMismatch(M, *J.analysis, G); !Why.empty()) {
        G.skips.add("kernel mismatch: lowering changed since measurement", Why);
        continue;
      }
    Rows.push_back(std::move(M.row));
  }
  learners::Dataset D = emptyDataset();
  if (writeJoinedRows(D, Rows, Results, G.skips, O.output) != 0)
    return 1;
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  printSummary("dataset kernels", G.read, D.size(), G.skips, G.jobs.size(), Seconds);
  fmt::print(stderr, "{}\n", costSummary(Results));
  return 0;
}

} // namespace pipeline::dataset
