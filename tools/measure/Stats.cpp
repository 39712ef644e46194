// Order statistics for repeated timings.
#include "Stats.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace measure {

double quantileSorted(const std::vector<double> &Sorted, double P) {
  assert(!Sorted.empty() && "quantile of an empty sample");
  assert(P >= 0.0 && P <= 1.0 && "quantile probability out of [0, 1]");
  double H = P * static_cast<double>(Sorted.size() - 1);
  size_t Lo = static_cast<size_t>(std::floor(H));
  if (Lo + 1 >= Sorted.size())
    return Sorted.back();
  return Sorted[Lo] + (H - static_cast<double>(Lo)) * (Sorted[Lo + 1] - Sorted[Lo]);
}

Summary summarize(std::vector<double> Samples) {
  Summary S;
  if (Samples.empty())
    return S;
  std::sort(Samples.begin(), Samples.end());
  S.count = Samples.size();
  S.min = Samples.front();
  S.max = Samples.back();
  S.median = quantileSorted(Samples, 0.5);
  S.q1 = quantileSorted(Samples, 0.25);
  S.q3 = quantileSorted(Samples, 0.75);
  S.mean = std::accumulate(Samples.begin(), Samples.end(), 0.0) / static_cast<double>(S.count);
  return S;
}

} // namespace measure
