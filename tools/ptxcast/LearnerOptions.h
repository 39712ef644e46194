// Options shared by the learner subcommands (train, evaluate): which dataset, which learners,
// which cross-validation protocol.
#pragma once

#include "learners/CrossValidation.h"
#include "learners/Dataset.h"
#include "learners/Model.h"
#include "support/Expected.h"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ptxcast {

/// Where the dataset comes from and how its columns are read.
struct DataOptions {
  std::vector<std::string> files;
  std::string target; ///< empty: the last column (where `ptxcast dataset` writes the target)
  std::vector<std::string> ids, features, ignore;
  /// "COLUMN=VALUE" filters on identifier columns; a row is kept when it matches all of them.
  std::vector<std::string> where;
};

/// How to fit: learner parameters and target transform (the learner names are per command).
struct ModelOptions {
  std::string learner = "xgboost";
  /// "name=value" for every learner, or "learner:name=value" for one of them.
  std::vector<std::string> params;
  bool logTarget = false;
  bool logFeatures = false;
  /// Side columns (learners::ModelSpec). "auto": for a `ptxcast dataset` file (it has
  /// hardware::BoundColumn), the cross-GPU setup: baseline bound_ms, offset overhead_ms and the
  /// log target; for other files none. "none": no such column.
  std::string baseline = "auto", offset = "auto";
  /// Identifier columns (comma separated) whose groups get equal total weight in the fit.
  std::string balance;
};

/// A cross-validation protocol as typed: `--cv K` (shuffled k-fold) or `--cv group=COLUMN`
/// (leave-one-group-out, e.g. group=gpu).
struct CvChoice {
  size_t folds = 5;
  std::string groupColumn; ///< non-empty: leave one group out
  /// non-empty (with groupColumn): each held-out group is split by this column's value, which
  /// training then lacks too (learners::splitUnseen; "workload" values by sameNetworkKey)
  std::string unseenColumn;
};

void addDataOptions(CLI::App &Cmd, DataOptions &Opts);
/// --param, --log-target and --log-features (each command adds its own learner option).
void addModelOptions(CLI::App &Cmd, ModelOptions &Opts);

/// Reads the CSV files (identifier columns inferred: any non-numeric column), keeps the rows
/// --where selects.
support::Expected<learners::Dataset> loadDataset(const DataOptions &Opts);
/// The ModelSpec for learner `Learner` on D: parameters meant for all learners or for this one,
/// side columns resolved (`auto`), and with --balance a weight column appended to D.
support::Expected<learners::ModelSpec> modelSpec(const ModelOptions &Opts,
                                                 const std::string &Learner, learners::Dataset &D);
/// modelSpec for each learner, all checked before any is fitted; an unprefixed --param that
/// none of them takes is an error.
support::Expected<std::vector<learners::ModelSpec>>
learnerSpecs(const ModelOptions &Opts, const std::vector<std::string> &Learners,
             learners::Dataset &D);
/// One line saying how the target is modelled (log target, baseline, offset, balance).
std::string describeSpec(const learners::ModelSpec &Spec, const ModelOptions &Opts);

/// Parses `K` (2 or more) or `group=COLUMN`.
support::Expected<CvChoice> parseCv(const std::string &Text);
/// The folds of a protocol over D, and its description for reports.
struct CvPlan {
  std::vector<learners::Fold> folds;
  std::string protocol;
};
/// One key for the names the datasets give one network: the zoo's (efficientnet-b0,
/// mobilenetv2-1.0), torchvision's (efficientnet_b0, mobilenet_v2) and timm's after mapping.
/// Case, '-' and '_' are ignored, and a width suffix "-1.0" (the default) is dropped.
std::string sameNetworkKey(std::string_view Name);
support::Expected<CvPlan> planCv(const learners::Dataset &D, const CvChoice &Cv, uint64_t Seed);
/// Cross-validation progress of `Learner` on stderr ("knn: 3/8 folds done (last: t4)"), only when
/// stderr is a terminal (empty otherwise); the line is cleared when the last step is done.
learners::CvProgress terminalCvProgress(std::string Learner);

/// Parses `all` or a comma-separated list of learner names (each checked).
support::Expected<std::vector<std::string>> parseLearners(const std::string &Text);

} // namespace ptxcast
