// Private: the concrete regressors behind createRegressor, and helpers they share.
#pragma once

#include "learners/Regressor.h"

#include <nlohmann/json.hpp>

#include <memory>

namespace learners {

/// Fills Out with Defaults overridden by Given; an unknown key or a value outside [Lo, Hi] is an
/// error naming the learner and listing its parameters.
struct ParamRange {
  double defaultValue, lo, hi;
  bool integer = false;
};
support::Expected<Params> resolveParams(std::string_view Learner,
                                        const std::map<std::string, ParamRange> &Spec,
                                        const Params &Given);

/// Checks X, Y and W before a fit: same row count (W may be empty), at least MinRows rows, all
/// values finite, weights >= 0 with a positive sum.
support::MaybeError checkFitData(const Matrix &X, std::span<const double> Y,
                                 std::span<const double> W, size_t MinRows);

/// W, or n weights of 1 when W is empty.
std::vector<double> weightsOr1(std::span<const double> W, size_t N);

/// Column means and standard deviations (population; 1 when a column is constant).
struct Standardizer {
  std::vector<double> mean, scale;
  void fit(const Matrix &X);
  double apply(double V, size_t Col) const { return (V - mean[Col]) / scale[Col]; }
  nlohmann::json toJson() const;
  static std::optional<Standardizer> fromJson(const nlohmann::json &J);
};

support::Expected<std::unique_ptr<Regressor>> createLinear(const Params &P);
support::Expected<std::unique_ptr<Regressor>> createKnn(const Params &P);
/// Name is "tree", "forest" or "xgboost": the three XGBoost configurations.
support::Expected<std::unique_ptr<Regressor>> createXgb(std::string_view Name, const Params &P);
/// Name is "a+b[+...]": an ensemble of distinct non-ensemble learners (EnsembleRegressor.cpp).
support::Expected<std::unique_ptr<Regressor>> createEnsemble(std::string_view Name,
                                                             const Params &P);

} // namespace learners
