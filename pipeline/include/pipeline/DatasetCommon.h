// Shared by `ptxcast dataset neusight|timm`: source CSV tables with required columns, analysis of
// distinct networks in parallel, skip accounting, the run summary and the atomic CSV write.
#pragma once

#include "pipeline/NetworkAnalysis.h"

#include "analyzer/Counts.h"
#include "corpus/Lower.h"
#include "corpus/Network.h"
#include "learners/Dataset.h"
#include "hardware/GpuCatalog.h"
#include "hardware/Skeleton.h"
#include "support/Expected.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pipeline::dataset {

/// A source CSV file: its header and data records (each with its 1-based line).
struct SourceTable {
  std::string file;
  std::vector<std::string> header;
  std::vector<learners::CsvRecord> rows;

  /// Index of a column by exact name.
  std::optional<size_t> column(std::string_view Name) const;
};

/// Reads a CSV file whose header must name every column in `Required` (in any order). A missing
/// column is `FILE:1: error: missing column 'NAME' (...)`; a ragged row is `FILE:LINE: error:`.
support::Expected<SourceTable> readTable(const std::string &Path,
                                         std::span<const std::string_view> Required);

/// Field `Name` of a record of `T` as an integer / a finite number; bad text is a
/// `FILE:LINE: error:` naming the column and the text.
support::Expected<int64_t> intField(const SourceTable &T, const learners::CsvRecord &R,
                                    std::string_view Name);
support::Expected<double> numberField(const SourceTable &T, const learners::CsvRecord &R,
                                      std::string_view Name);
/// Field `Name` as a measured time: a finite number above 0 (a time of 0 or less is a broken
/// measurement, which the log-target learners could not use anyway).
support::Expected<double> timeField(const SourceTable &T, const learners::CsvRecord &R,
                                    std::string_view Name);
/// Field `Name` of a record as text (the column must exist).
const std::string &textField(const SourceTable &T, const learners::CsvRecord &R,
                             std::string_view Name);

/// One distinct network to analyse: how to build it (errors are "rebuild" skips).
using NetworkFactory = std::function<support::Expected<corpus::Network>()>;

/// The outcome of one job: an analysis, or the reason it was skipped.
struct JobResult {
  std::optional<pipeline::NetworkAnalysis> analysis;
  std::string skipReason; ///< "rebuild failed", "lowering failed", "analysis failed"
  std::string detail;     ///< the error text
  double seconds = 0;     ///< wall time of the job (build, lower, analyse)
};

/// Lowering options with simt math.
inline corpus::LowerOptions simtLowering() {
  corpus::LowerOptions O;
  O.math = corpus::MathMode::Simt;
  return O;
}

/// How analysis jobs are spread over threads.
struct JobSettings {
  unsigned threads = 0;       ///< 0 = all cores
  bool perJob = true;         ///< true: jobs in parallel, one thread each; false: one job at a time
                              ///< with all threads inside it (few, large networks)
  /// Arch, seed; the element type is each network's own. Math is simt, whatever the library's
  /// default: dataset rows describe the CUDA-core kernels the shipped model was trained on.
  corpus::LowerOptions lower = simtLowering();
  std::string unit = "analyses"; ///< progress label
  const AnalysisCache *cache = nullptr; ///< on-disk analysis cache (--cache), may be null
};

/// Runs every job; results land in the slot of their job, so they do not depend on threads.
/// Progress goes to stderr when it is a terminal.
std::vector<JobResult> runJobs(const std::vector<NetworkFactory> &Jobs, const JobSettings &S);

/// Counts of skipped rows by reason, and the first detail met per reason.
class SkipLog {
public:
  void add(const std::string &Reason, const std::string &Detail = "");
  size_t total() const;
  /// "3 model not in zoo, 1 lowering failed (layer 'x': ...)", reasons in name order.
  std::string summary() const;

private:
  std::map<std::string, std::pair<size_t, std::string>> Counts;
};

/// The identifier columns of every dataset row (docs/datasets.md), so that files of different
/// sources concatenate: where the time comes from, on which GPU (and how many of its SMs), under
/// which runtime and math mode, for which workload.
struct RowIds {
  std::string source;   ///< neusight, neusight-test, timm, frameworks, h100-kernels, ...
  std::string gpu;      ///< catalog name
  std::string sms = "all"; ///< SMs the run was restricted to, or "all"
  std::string runtime;  ///< how it was timed: op-call, graph, eager, launch
  std::string math;     ///< simt, tf32, f16, bf16 (hardware::MathMode)
  std::string dtype;    ///< f32, f16
  std::string workload; ///< operator or network name
  std::string config;   ///< shape, batch, launch index: what tells rows of a workload apart
  std::string note;     ///< the source's kernel name, file or run
};
std::vector<std::string> idColumns();

/// A measured row waiting for its job's analysis.
struct PendingRow {
  RowIds ids;
  double measuredMs = 0; ///< the time the source reports
  size_t job = 0;
  hardware::GpuSpec gpu; ///< as run (restricted to its SMs where so)
  hardware::Execution exec;
  double overheadMs = 0; ///< runtime overhead included in measuredMs (estimateCallOverheads)
  int64_t launch = -1;   ///< -1: every launch of the job; else that launch alone
};

/// A dataset with idColumns(), the hardware::featureNames() features, then `bound_ms` (the
/// row's physical bound on its GPU) and `overhead_ms`, and the target `measured_ms`.
learners::Dataset emptyDataset();

/// The launches a row covers, as the physical model sees them.
std::vector<hardware::LaunchWork> rowLaunches(const PendingRow &R,
                                              const pipeline::NetworkAnalysis &A);

/// Sets overheadMs of rows timed one framework call at a time (runtime "op-call"): the host's
/// dispatch time between the two CUDA events, which no GPU property explains. Per (gpu,
/// workload) of the rows of `FromSource`: the median of measured - bound over the 5 % of rows
/// with the smallest bound (at least 5 rows), at least 0, provided those operators are tiny
/// (median bound under 20 us). Other rows take the median estimate of their GPU's other
/// workloads, or of every GPU when theirs has none.
void estimateCallOverheads(std::vector<PendingRow> &Rows, const std::vector<JobResult> &Results,
                           std::string_view FromSource);

/// Appends one row per pending row whose job was analysed (the others are skipped with the
/// job's reason), then writes D to `Path` atomically. An error is printed; returns the exit
/// status (0 or 1).
int writeJoinedRows(learners::Dataset &D, const std::vector<PendingRow> &Rows,
                    const std::vector<JobResult> &Results, SkipLog &Skips, const std::string &Path);

/// Writes writeCsv(D) to `Path` atomically (a temporary file in the same directory, renamed).
support::MaybeError writeCsvAtomically(const learners::Dataset &D,
                                       const std::string &Path);

/// "cost per analysis: median 0.12 s, p90 0.4 s, max 3.1 s, total 812 s" over the jobs.
std::string costSummary(const std::vector<JobResult> &Results);

/// Prints the end-of-run summary on stderr.
void printSummary(std::string_view Command, size_t RowsRead, size_t RowsWritten,
                  const SkipLog &Skips, size_t Analyses, double Seconds);

} // namespace pipeline::dataset
