// One interface for every regressor (linear, knn, tree, forest, xgboost), created by name.
#pragma once

#include "learners/Matrix.h"
#include "support/Expected.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace learners {

/// Learner parameters by name. Every value is numeric (flags are 0/1). A learner fills in its
/// defaults, so params() of a created regressor lists every parameter it uses.
using Params = std::map<std::string, double>;

/// A regression model y ~ f(x). Implementations are deterministic: the same data, parameters and
/// seed give the same predictions and byte-identical saved state.
class Regressor {
public:
  virtual ~Regressor() = default;

  /// The factory name ("linear", "knn", "tree", "forest", "xgboost", or an ensemble "a+b").
  virtual std::string_view name() const = 0;
  /// Every parameter with its effective value.
  virtual const Params &params() const = 0;

  /// Fits on X (n x p) and y (n), each row weighted by W (n non-negative weights; empty = all 1):
  /// a row of weight 2 counts as two copies of it. Bad data (empty, NaN, negative weights, too
  /// few rows) is an error.
  virtual support::MaybeError fit(const Matrix &X, std::span<const double> Y,
                                  std::span<const double> W = {}) = 0;
  /// Predicts one value per row of X; X must have the fitted width.
  virtual std::vector<double> predict(const Matrix &X) const = 0;
  /// The fitted (or loaded) width: the columns predict takes; 0 before a fit.
  virtual size_t inputWidth() const = 0;

  /// Native importance per feature (p values, larger = more influential), or empty when the
  /// learner has none (knn): then use permutationImportance (CrossValidation.h).
  virtual std::vector<double> featureImportance() const = 0;

  /// The fitted state as a JSON value, and its inverse (a value, not text: a model file is parsed
  /// once). Saving the same fit twice gives the same value.
  virtual nlohmann::json saveState() const = 0;
  virtual support::MaybeError loadState(const nlohmann::json &State) = 0;
};

/// Creates an unfitted regressor by name: a learner of regressorNames(), or an ensemble "a+b"
/// of distinct ones whose prediction is the mean of its members'. An unknown learner lists the
/// valid names; an unknown parameter lists the learner's parameters; out-of-range values are
/// errors.
support::Expected<std::unique_ptr<Regressor>> createRegressor(std::string_view Name,
                                                              const Params &P = {});

/// Whether learner `Learner` (for an ensemble: one of its members) takes parameter `Key`.
bool takesParam(std::string_view Learner, std::string_view Key);

/// Parses "name=value" strings (as typed on a command line) into Params; a value must be a number.
support::Expected<Params> parseParams(std::span<const std::string> Assignments);

/// The learner names createRegressor accepts, sorted.
std::vector<std::string> regressorNames();

/// One line per learner describing it (for --help and docs).
std::string describeRegressors();

} // namespace learners
