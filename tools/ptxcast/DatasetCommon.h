// Shared by `ptxcast dataset neusight|timm`: source CSV tables with required columns, analysis of
// distinct networks in parallel, skip accounting, the run summary and the atomic CSV write.
#pragma once

#include "analyzer/Counts.h"
#include "corpus/Lower.h"
#include "corpus/Network.h"
#include "learners/Dataset.h"
#include "hardware/GpuCatalog.h"
#include "support/Expected.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxcast::dataset {

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
/// Field `Name` of a record as text (the column must exist).
const std::string &textField(const SourceTable &T, const learners::CsvRecord &R,
                             std::string_view Name);

/// What the analysis of one network gives a feature row: per-launch counts and the footprint
/// (bytes of the distinct workload buffers the launches use).
struct NetworkAnalysis {
  std::vector<analyzer::KernelProfile> launches;
  uint64_t footprintBytes = 0;
};

/// Lowers a network and analyses it in fast mode on `InnerThreads` threads (0 = all cores).
support::Expected<NetworkAnalysis> analyzeNetwork(const corpus::Network &Net,
                                                  const corpus::LowerOptions &Lower,
                                                  unsigned InnerThreads);

/// One distinct network to analyse: how to build it (errors are "rebuild" skips).
using NetworkFactory = std::function<support::Expected<corpus::Network>()>;

/// The outcome of one job: an analysis, or the reason it was skipped.
struct JobResult {
  std::optional<NetworkAnalysis> analysis;
  std::string skipReason; ///< "rebuild failed", "lowering failed", "analysis failed"
  std::string detail;     ///< the error text
  double seconds = 0;     ///< wall time of the job (build, lower, analyse)
};

/// How analysis jobs are spread over threads.
struct JobSettings {
  unsigned threads = 0;       ///< 0 = all cores
  bool perJob = true;         ///< true: jobs in parallel, one thread each; false: one job at a time
                              ///< with all threads inside it (few, large networks)
  corpus::LowerOptions lower; ///< arch, seed; the element type is each network's own
  std::string unit = "analyses"; ///< progress label
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

/// A measured row waiting for its job's analysis: ids, target, job index and GPU.
struct PendingRow {
  std::vector<std::string> ids;
  double target = 0;
  size_t job = 0;
  hardware::GpuSpec gpu;
  std::vector<double> extra; ///< values of columns the caller appended to D.featureNames
};

/// Appends one feature row to D per row whose job was analysed (the others are skipped with the
/// job's reason), then writes D to `Path` atomically. An error is printed; returns the exit
/// status (0 or 1).
int writeJoinedRows(learners::Dataset &D, std::vector<PendingRow> &Rows,
                    const std::vector<JobResult> &Results, SkipLog &Skips, const std::string &Path);

/// Appends one output row: ids, then featureRow(analysis, gpu) and `Extra` (the values of
/// columns the caller appended to D.featureNames), then the target.
void addFeatureRow(learners::Dataset &D, std::vector<std::string> Ids, const NetworkAnalysis &A,
                   const hardware::GpuSpec &Gpu, double Target, std::span<const double> Extra = {});
/// The same for any group of launches (one launch, say) with the bytes of the buffers they use.
void addFeatureRow(learners::Dataset &D, std::vector<std::string> Ids,
                   std::span<const analyzer::KernelProfile> Launches, uint64_t FootprintBytes,
                   const hardware::GpuSpec &Gpu, double Target, std::span<const double> Extra = {});

/// A dataset with the given id columns, the featureNames() features and the target.
learners::Dataset emptyDataset(std::vector<std::string> IdNames, std::string Target);

/// Writes writeCsv(D) to `Path` atomically (a temporary file in the same directory, renamed).
std::optional<support::Error> writeCsvAtomically(const learners::Dataset &D,
                                                 const std::string &Path);

/// "cost per analysis: median 0.12 s, p90 0.4 s, max 3.1 s, total 812 s" over the jobs.
std::string costSummary(const std::vector<JobResult> &Results);

/// Prints the end-of-run summary on stderr.
void printSummary(std::string_view Command, size_t RowsRead, size_t RowsWritten,
                  const SkipLog &Skips, size_t Analyses, double Seconds);

} // namespace ptxcast::dataset
