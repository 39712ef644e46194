// Metrics on hand-computed examples (learners/Metrics.h).
#include "learners/Metrics.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace learners;

TEST_CASE("metrics: hand-computed example") {
  // y = 1, 2, 3, 4; yhat = 1.5, 2, 2, 5. Errors 0.5, 0, -1, 1.
  std::vector<double> Y = {1, 2, 3, 4}, P = {1.5, 2, 2, 5};
  Metrics M = computeMetrics(Y, P, 1);
  // MAPE = 100/4 (0.5/1 + 0 + 1/3 + 1/4) = 25 * 1.0833333 = 27.083333
  CHECK(M.mape == doctest::Approx(27.0833333333));
  // RMSE = sqrt((0.25 + 0 + 1 + 1) / 4) = sqrt(0.5625) = 0.75
  CHECK(M.rmse == doctest::Approx(0.75));
  // MAE = 2.5 / 4
  CHECK(M.mae == doctest::Approx(0.625));
  // SS_tot = 2.25 + 0.25 + 0.25 + 2.25 = 5; SS_res = 2.25; R2 = 1 - 0.45 = 0.55
  CHECK(M.r2 == doctest::Approx(0.55));
  // adjusted (n=4, p=1): 1 - 0.45 * 3 / 2 = 0.325
  CHECK(M.adjustedR2 == doctest::Approx(0.325));
}

TEST_CASE("metrics: undefined values are NaN") {
  std::vector<double> Y = {2, 2, 2}, P = {2, 2, 3};
  Metrics M = computeMetrics(Y, P, 2); // n - p - 1 = 0
  CHECK(std::isnan(M.r2));             // SS_tot = 0
  CHECK(std::isnan(M.adjustedR2));
  CHECK(M.mape == doctest::Approx(100.0 / 6.0));
  std::vector<double> Z = {0, 1}, Q = {1, 1};
  Metrics N = computeMetrics(Z, Q, 0);
  CHECK(N.zeroTargets == 1);
  CHECK(N.mape == doctest::Approx(0.0)); // only the y=1 row counts
}

TEST_CASE("metrics: perfect predictions") {
  std::vector<double> Y = {1, 5, 9, 2, 7};
  Metrics M = computeMetrics(Y, Y, 2);
  CHECK(M.mape == 0.0);
  CHECK(M.rmse == 0.0);
  CHECK(M.r2 == 1.0);
  CHECK(M.adjustedR2 == 1.0);
}
