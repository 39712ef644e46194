// Regression error metrics: MAPE, RMSE, MAE, R^2 and adjusted R^2 (formulas in docs/learners.md).
#pragma once

#include <cstddef>
#include <span>

namespace learners {

/// Metrics of predictions against measured values. Undefined values are NaN (written as null in
/// JSON): r2 when all measured values are equal; adjustedR2 when n - p - 1 <= 0; mape when every
/// measured value is 0.
struct Metrics {
  size_t n = 0;           ///< rows compared
  size_t p = 0;           ///< number of features (for adjusted R^2)
  double mape = 0;        ///< mean absolute percentage error, percent, over rows with y != 0
  double rmse = 0;        ///< root mean squared error, target units
  double mae = 0;         ///< mean absolute error, target units
  double r2 = 0;          ///< 1 - SS_res / SS_tot
  double adjustedR2 = 0;  ///< 1 - (1 - R^2) (n - 1) / (n - p - 1)
  size_t zeroTargets = 0; ///< rows with y == 0, left out of MAPE
};

/// Computes every metric. Measured and Predicted have equal, non-zero length; P = feature count.
Metrics computeMetrics(std::span<const double> Measured, std::span<const double> Predicted,
                       size_t P);

} // namespace learners
