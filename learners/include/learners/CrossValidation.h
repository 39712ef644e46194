// Cross-validation protocols (seeded k-fold, leave-one-group-out by any column) and feature
// importance ranking ("most influencing predictors").
#pragma once

#include "learners/Dataset.h"
#include "learners/Metrics.h"
#include "learners/Model.h"
#include "support/Expected.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace learners {

/// One split: fit on `train`, predict `test` (row indices into the dataset).
struct Fold {
  std::string name; ///< "fold 1".."fold k" or the held-out group's value
  std::vector<size_t> train;
  std::vector<size_t> test;
};

/// k folds over n rows after a seeded shuffle; every row is in exactly one test set. Fold sizes
/// differ by at most one. Needs 2 <= k <= n.
support::Expected<std::vector<Fold>> kFoldSplit(size_t N, size_t K, uint64_t Seed);

/// Leave-one-group-out: one fold per distinct value of `Column` (an identifier or a feature
/// column), folds sorted by that value; a group is never split. Needs at least two groups.
support::Expected<std::vector<Fold>> groupSplit(const Dataset &D, std::string_view Column);

/// Each fold split by the key of identifier `Column` among its test rows: fold "G / K" tests
/// G's rows whose value has key K and trains on G's training rows whose value has another key.
/// `Key` maps a value to its key (names that mean the same thing get one key; identity when
/// empty). Leaving a GPU out with Column "workload" so leaves each (GPU, network) pair out:
/// every network is predicted on a GPU and as a network that training never saw. A fold left
/// without training rows is an error.
support::Expected<std::vector<Fold>>
splitUnseen(const std::vector<Fold> &Folds, const Dataset &D, std::string_view Column,
            const std::function<std::string(std::string_view)> &Key = {});

/// Feature importance as (name, value) sorted by value, descending (ties by name).
using Ranking = std::vector<std::pair<std::string, double>>;

/// Rows permutation importance uses at most (a seeded sample of D beyond that).
constexpr size_t PermutationRows = 2000;

/// Importance by permutation: the increase of the model's RMSE on D (at most PermutationRows rows,
/// a seeded sample) when one feature's column is shuffled (seeded), one feature at a time. Works
/// for every learner.
support::Expected<Ranking> permutationImportance(const Model &M, const Dataset &D, uint64_t Seed);

/// The ranking of a model's native importance (normalised to sum 1), or of permutation importance
/// on D when the learner has none.
support::Expected<Ranking> rankImportance(const Model &M, const Dataset &D, uint64_t Seed);

/// Result of a cross-validation run.
struct CvReport {
  std::string learner;
  std::string transform;
  std::string protocol;                               ///< "k-fold (k=5, seed=1)", ...
  std::vector<std::pair<std::string, Metrics>> folds; ///< per fold, on its test rows
  Metrics pooled;                                     ///< over all out-of-fold predictions
  std::vector<double> predictions;                    ///< out-of-fold prediction per row
  Ranking importance;                                 ///< model fitted on all rows
};

/// Told after each fold is fitted and scored, and after the fit on all rows that ranks the
/// features: (steps done, steps in all = folds + 1, the fold's name or "all rows").
using CvProgress = std::function<void(size_t Done, size_t Total, std::string_view Step)>;

/// Fits Spec on each fold's train rows and predicts its test rows. `Protocol` is recorded.
support::Expected<CvReport> crossValidate(const Dataset &D, const ModelSpec &Spec,
                                          const std::vector<Fold> &Folds, std::string Protocol,
                                          uint64_t Seed = 1, const CvProgress &Progress = {});

/// Reports of learners evaluated on the same data under the same protocol, as JSON
/// (deterministic bytes; NaN metrics as null):
/// {"protocol", "target_transform", "learners": [{"name", "mape" (percent), "rmse", "mae",
/// "r2", "adj_r2", "n", "p", "folds": [{"name", "mape", ...}], "importance": [...]}]}
/// and as a readable table (one line per learner, per-fold MAPE, the predictors the most
/// accurate learner leans on most).
std::string reportJson(std::span<const CvReport> Reports);
std::string reportTable(std::span<const CvReport> Reports, size_t TopFeatures = 10);

/// The pooled predictions of each report broken down by the values of identifier columns of D
/// (rows in D's order, as the reports' predictions): one line per group with its rows, each
/// learner's MAPE and the median measured / predicted of the most accurate learner. As a table,
/// or JSON {"by": [...], "groups": [{"group": [...], "rows", "mape": {learner: %},
/// "median_ratio"}]}. Unknown columns are an error.
support::Expected<std::string> breakdownTable(std::span<const CvReport> Reports, const Dataset &D,
                                              const std::vector<std::string> &Columns);
support::Expected<std::string> breakdownJson(std::span<const CvReport> Reports, const Dataset &D,
                                             const std::vector<std::string> &Columns);

} // namespace learners
