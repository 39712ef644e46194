// Summary statistics of repeated timings: median and spread (min, max, quartiles, mean).
#pragma once

#include <cstddef>
#include <vector>

namespace measure {

/// Summary of a sample. Quartiles use linear interpolation between order statistics
/// (Hyndman-Fan type 7, numpy's default): q(p) = x[floor(h)] + (h - floor(h)) * (x[floor(h)+1] -
/// x[floor(h)]) with h = p * (n - 1) on the sorted sample; the median is q(0.5).
struct Summary {
  size_t count = 0;
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0, mean = 0;
  double iqr() const { return q3 - q1; }
};

/// The p-quantile (0 <= p <= 1) of an ascending, non-empty sample (type 7, see Summary).
double quantileSorted(const std::vector<double> &Sorted, double P);

/// Summary of Samples (in any order); all zero for an empty sample.
Summary summarize(std::vector<double> Samples);

} // namespace measure
