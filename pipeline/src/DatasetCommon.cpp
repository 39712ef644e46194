// Shared machinery of `ptxcast dataset`: source tables, parallel analysis jobs, skip counts,
// feature rows and the atomic CSV write (DatasetCommon.h).
#include "pipeline/DatasetCommon.h"

#include "pipeline/NetworkAnalysis.h"
#include "support/Files.h"
#include "support/Parallel.h"

#include "corpus/KernelGen.h"
#include "hardware/Features.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <charconv>
#include <chrono>
#include <cmath>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace pipeline::dataset {

std::optional<size_t> SourceTable::column(std::string_view Name) const {
  for (size_t I = 0; I < header.size(); ++I)
    if (header[I] == Name)
      return I;
  return std::nullopt;
}

support::Expected<SourceTable> readTable(const std::string &Path,
                                         std::span<const std::string_view> Required) {
  auto Text = support::readFile(Path);
  if (!Text)
    return Text.error();
  auto Records = learners::splitCsv(*Text, Path);
  if (!Records)
    return Records.error();
  if (Records->empty())
    return support::Error(Path, 1, 0, "empty file: expected a header line");
  SourceTable T;
  T.file = Path;
  T.header = std::move((*Records)[0].fields);
  for (std::string &H : T.header) // tolerate a UTF-8 byte-order mark
    if (H.rfind("\xEF\xBB\xBF", 0) == 0)
      H.erase(0, 3);
  std::string Have;
  for (const std::string &H : T.header)
    Have += (Have.empty() ? "" : ", ") + H;
  for (std::string_view Name : Required)
    if (!T.column(Name))
      return support::Error(Path, 1, 0,
                            fmt::format("missing column '{}' (header has: {})", Name, Have));
  for (size_t I = 1; I < Records->size(); ++I) {
    learners::CsvRecord &R = (*Records)[I];
    if (R.fields.size() == 1 && R.fields[0].empty())
      continue; // blank line
    if (R.fields.size() != T.header.size())
      return support::Error(
          Path, R.line, 0,
          fmt::format("row has {} fields, the header {}", R.fields.size(), T.header.size()));
    T.rows.push_back(std::move(R));
  }
  return T;
}

const std::string &textField(const SourceTable &T, const learners::CsvRecord &R,
                             std::string_view Name) {
  std::optional<size_t> C = T.column(Name);
  assert(C && "textField on a column readTable did not require");
  return R.fields[*C];
}

support::Expected<int64_t> intField(const SourceTable &T, const learners::CsvRecord &R,
                                    std::string_view Name) {
  const std::string &Text = textField(T, R, Name);
  int64_t V = 0;
  auto [End, Ec] = std::from_chars(Text.data(), Text.data() + Text.size(), V);
  if (Ec != std::errc() || End != Text.data() + Text.size() || Text.empty())
    return support::Error(T.file, R.line, 0,
                          fmt::format("column '{}': expected an integer, got '{}'", Name, Text));
  return V;
}

support::Expected<double> numberField(const SourceTable &T, const learners::CsvRecord &R,
                                      std::string_view Name) {
  const std::string &Text = textField(T, R, Name);
  double V = 0;
  auto [End, Ec] = std::from_chars(Text.data(), Text.data() + Text.size(), V);
  if (Ec != std::errc() || End != Text.data() + Text.size() || Text.empty() || !std::isfinite(V))
    return support::Error(
        T.file, R.line, 0,
        fmt::format("column '{}': expected a finite number, got '{}'", Name, Text));
  return V;
}

support::Expected<double> timeField(const SourceTable &T, const learners::CsvRecord &R,
                                    std::string_view Name) {
  auto V = numberField(T, R, Name);
  if (V && !(*V > 0))
    return support::Error(T.file, R.line, 0,
                          fmt::format("column '{}': a measured time must be above 0, got '{}'",
                                      Name, textField(T, R, Name)));
  return V;
}

namespace {

JobResult runJobTimed(const NetworkFactory &Build, const corpus::LowerOptions &Lower,
                      unsigned InnerThreads, const AnalysisCache *Cache);

JobResult runJob(const NetworkFactory &Build, const corpus::LowerOptions &Lower,
                 unsigned InnerThreads, const AnalysisCache *Cache) {
  auto Start = std::chrono::steady_clock::now();
  JobResult R = runJobTimed(Build, Lower, InnerThreads, Cache);
  R.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  return R;
}

JobResult runJobTimed(const NetworkFactory &Build, const corpus::LowerOptions &Lower,
                      unsigned InnerThreads, const AnalysisCache *Cache) {
  JobResult R;
  support::Expected<corpus::Network> N = Build();
  if (!N) {
    R.skipReason = "rebuild failed";
    R.detail = N.error().str();
    return R;
  }
  corpus::LowerOptions Own = Lower;
  Own.dtype = N->dtype(); // each network is lowered in the element type it was built with
  support::Expected<corpus::Workload> Planned = [&] {
    corpus::LowerOptions Plan = Own;
    Plan.emitPtx = false; // cheap check that tells lowering failures from analysis failures
    return corpus::lower(*N, Plan);
  }();
  if (!Planned) {
    R.skipReason = "lowering failed";
    R.detail = Planned.error().str();
    return R;
  }
  auto A = analyseLowered(*N, Own, InnerThreads, /*Progress=*/{}, Cache);
  if (!A) {
    R.skipReason = "analysis failed";
    R.detail = A.error().str();
    return R;
  }
  R.analysis = std::move(*A);
  return R;
}

/// Serialised progress line on stderr, only when stderr is a terminal.
class Progress {
public:
  Progress(size_t Total, std::string Unit)
      : Total(Total), Unit(std::move(Unit)), Tty(isatty(STDERR_FILENO)) {}
  void step() {
    std::lock_guard<std::mutex> Lock(M);
    ++Done;
    if (Tty)
      fmt::print(stderr, "\r{} {}/{}{}", Unit, Done, Total, Done == Total ? "\n" : "");
  }

private:
  std::mutex M;
  size_t Done = 0, Total;
  std::string Unit;
  bool Tty;
};

} // namespace

std::vector<JobResult> runJobs(const std::vector<NetworkFactory> &Jobs, const JobSettings &S) {
  std::vector<JobResult> Results(Jobs.size());
  unsigned Threads = S.threads ? S.threads : std::max(1u, std::thread::hardware_concurrency());
  Progress P(Jobs.size(), S.unit);
  corpus::KernelCache Cache; // networks share many layer shapes: compile each kernel once
  corpus::LowerOptions Lower = S.lower;
  Lower.cache = &Cache;
  if (!S.perJob) {
    for (size_t I = 0; I < Jobs.size(); ++I) {
      Results[I] = runJob(Jobs[I], Lower, Threads, S.cache);
      P.step();
    }
    return Results;
  }
  support::parallelFor(Jobs.size(), Threads, [&](size_t I, unsigned) {
    Results[I] = runJob(Jobs[I], Lower, 1, S.cache);
    P.step();
  });
  return Results;
}

std::vector<std::string> idColumns() {
  return {"source", "gpu", "sms", "runtime", "math", "dtype", "workload", "config", "note"};
}

std::vector<hardware::LaunchWork> rowLaunches(const PendingRow &R, const NetworkAnalysis &A) {
  std::vector<hardware::LaunchWork> All = A.work();
  if (R.launch < 0)
    return All;
  assert(size_t(R.launch) < All.size() && "launch index checked when the row was read");
  return {All[size_t(R.launch)]};
}

namespace {

/// The bound below which an operator's time is mostly the host's call overhead.
constexpr double TinyBoundMs = 0.02;

double median(std::vector<double> V) {
  assert(!V.empty() && "median of nothing");
  std::nth_element(V.begin(), V.begin() + std::ptrdiff_t(V.size() / 2), V.end());
  return V[V.size() / 2];
}

} // namespace

void estimateCallOverheads(std::vector<PendingRow> &Rows, const std::vector<JobResult> &Results,
                           std::string_view FromSource) {
  // (gpu, workload) -> (bound, measured) of the rows that may estimate it.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> Samples;
  for (const PendingRow &R : Rows) {
    const JobResult &J = Results[R.job];
    if (R.ids.runtime != "op-call" || R.ids.source != FromSource || !J.analysis)
      continue;
    double Bound = hardware::groupFeatures(rowLaunches(R, *J.analysis), R.gpu, R.exec).boundMs;
    Samples[{R.ids.gpu, R.ids.workload}].emplace_back(Bound, R.measuredMs);
  }
  std::map<std::pair<std::string, std::string>, double> Overhead;
  std::map<std::string, std::vector<double>> PerGpu;
  std::vector<double> All;
  for (auto &[Key, V] : Samples) {
    std::sort(V.begin(), V.end());
    size_t N = std::max<size_t>(5, V.size() / 20);
    // Only groups whose smallest operators are tiny (a bound under TinyBoundMs) show the host's
    // overhead rather than GPU work.
    if (V.size() < N || V[N / 2].first > TinyBoundMs)
      continue;
    std::vector<double> Gaps;
    for (size_t I = 0; I < N; ++I)
      Gaps.push_back(V[I].second - V[I].first);
    Overhead[Key] = std::max(0.0, median(Gaps));
    PerGpu[Key.first].push_back(Overhead[Key]);
    All.push_back(Overhead[Key]);
  }
  for (PendingRow &R : Rows) {
    if (R.ids.runtime != "op-call")
      continue;
    if (auto It = Overhead.find({R.ids.gpu, R.ids.workload}); It != Overhead.end())
      R.overheadMs = It->second;
    else if (auto G = PerGpu.find(R.ids.gpu); G != PerGpu.end())
      R.overheadMs = median(G->second);
    else if (!All.empty())
      R.overheadMs = median(All);
  }
}

int writeJoinedRows(learners::Dataset &D, const std::vector<PendingRow> &Rows,
                    const std::vector<JobResult> &Results, SkipLog &Skips,
                    const std::string &Path) {
  std::vector<double> Values;
  for (const PendingRow &R : Rows) {
    const JobResult &J = Results[R.job];
    if (!J.analysis) {
      Skips.add(J.skipReason, J.detail);
      continue;
    }
    hardware::GroupFeatures F =
        hardware::groupFeatures(rowLaunches(R, *J.analysis), R.gpu, R.exec);
    Values.clear();
    for (const auto &[Name, V] : F.features)
      Values.push_back(V);
    Values.push_back(F.boundMs);
    Values.push_back(R.overheadMs);
    assert(Values.size() == D.featureNames.size() && "row does not match the dataset's columns");
    const RowIds &I = R.ids;
    D.addRow({I.source, I.gpu, I.sms, I.runtime, I.math, I.dtype, I.workload, I.config, I.note},
             Values, R.measuredMs);
  }
  if (auto E = writeCsvAtomically(D, Path)) {
    fmt::print(stderr, "{}\n", E->str());
    return 1;
  }
  return 0;
}

std::string costSummary(const std::vector<JobResult> &Results) {
  if (Results.empty())
    return "no analyses";
  std::vector<double> T;
  double Sum = 0;
  for (const JobResult &R : Results) {
    T.push_back(R.seconds);
    Sum += R.seconds;
  }
  std::sort(T.begin(), T.end());
  auto At = [&](double Q) { return T[std::min(T.size() - 1, size_t(Q * T.size()))]; };
  return fmt::format("cost per analysis: median {:.3g} s, p90 {:.3g} s, p99 {:.3g} s, max {:.3g} "
                     "s, sum {:.1f} s",
                     At(0.5), At(0.9), At(0.99), T.back(), Sum);
}

void SkipLog::add(const std::string &Reason, const std::string &Detail) {
  auto &[N, First] = Counts[Reason];
  if (N++ == 0)
    First = Detail;
}

size_t SkipLog::total() const {
  size_t N = 0;
  for (const auto &[Reason, C] : Counts)
    N += C.first;
  return N;
}

std::string SkipLog::summary() const {
  std::string S;
  for (const auto &[Reason, C] : Counts) {
    S += fmt::format("{}{} {}", S.empty() ? "" : ", ", C.first, Reason);
    if (!C.second.empty())
      S += " (first: " + C.second + ")";
  }
  return S;
}

learners::Dataset emptyDataset() {
  learners::Dataset D;
  D.idNames = idColumns();
  D.featureNames = hardware::featureNames();
  D.featureNames.push_back(hardware::BoundColumn);
  D.featureNames.push_back("overhead_ms");
  D.targetName = "measured_ms";
  return D;
}

support::MaybeError writeCsvAtomically(const learners::Dataset &D,
                                       const std::string &Path) {
  return support::writeFileAtomically(Path, learners::writeCsv(D));
}

void printSummary(std::string_view Command, size_t RowsRead, size_t RowsWritten,
                  const SkipLog &Skips, size_t Analyses, double Seconds) {
  fmt::print(stderr,
             "{}: {} rows read, {} rows written, {} rows skipped, {} distinct analyses, "
             "{:.1f} s\n",
             Command, RowsRead, RowsWritten, Skips.total(), Analyses, Seconds);
  if (Skips.total())
    fmt::print(stderr, "skipped: {}\n", Skips.summary());
}

} // namespace pipeline::dataset
