// MAPE, RMSE, MAE, R^2 and adjusted R^2 of predictions against measured values.
#include "learners/Metrics.h"

#include <cassert>
#include <cmath>
#include <limits>

namespace learners {

Metrics computeMetrics(std::span<const double> Measured, std::span<const double> Predicted,
                       size_t P) {
  assert(Measured.size() == Predicted.size() && "measured and predicted differ in length");
  assert(!Measured.empty() && "metrics of zero rows");
  const double NaN = std::numeric_limits<double>::quiet_NaN();
  Metrics M;
  M.n = Measured.size();
  M.p = P;
  double N = double(M.n), Mean = 0;
  for (double Y : Measured)
    Mean += Y / N;
  double SsRes = 0, SsTot = 0, AbsSum = 0, PctSum = 0;
  for (size_t I = 0; I < M.n; ++I) {
    double Err = Predicted[I] - Measured[I];
    SsRes += Err * Err;
    SsTot += (Measured[I] - Mean) * (Measured[I] - Mean);
    AbsSum += std::fabs(Err);
    if (Measured[I] == 0)
      ++M.zeroTargets;
    else
      PctSum += std::fabs(Err / Measured[I]);
  }
  size_t NonZero = M.n - M.zeroTargets;
  M.mape = NonZero ? 100.0 * PctSum / double(NonZero) : NaN;
  M.rmse = std::sqrt(SsRes / N);
  M.mae = AbsSum / N;
  M.r2 = SsTot > 0 ? 1.0 - SsRes / SsTot : NaN;
  double Dof = N - double(P) - 1.0;
  M.adjustedR2 = Dof > 0 ? 1.0 - (1.0 - M.r2) * (N - 1.0) / Dof : NaN;
  return M;
}

} // namespace learners
