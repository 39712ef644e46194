// Few-shot calibration: timings read from a CSV, each predicted as `predict` would, and per GPU
// the geometric mean of measured / predicted, drawn toward 1, applied to its predictions
// (Calibration.h).
#include "pipeline/Calibration.h"

#include "HostTime.h"

#include "corpus/Network.h"
#include "pipeline/DatasetCommon.h"
#include "pipeline/Documents.h"
#include "pipeline/UserCaches.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace pipeline {

using dataset::intField;
using dataset::readTable;
using dataset::textField;
using dataset::timeField;

support::Expected<std::vector<Measurement>> readMeasurements(const std::string &Path,
                                                             const hardware::GpuCatalog &Catalog,
                                                             const std::string &OnlyGpu) {
  static constexpr std::array<std::string_view, 6> Required = {"gpu",   "network", "batch",
                                                               "dtype", "runtime", "measured_ms"};
  auto T = readTable(Path, Required);
  if (!T)
    return T.error();
  const bool HasSize = T->column("image_size").has_value();
  std::vector<Measurement> Out;
  for (const learners::CsvRecord &R : T->rows) {
    Measurement M;
    M.file = Path;
    M.line = R.line;
    auto Gpu = Catalog.lookup(textField(*T, R, "gpu"));
    if (!Gpu)
      return support::Error(Path, R.line, 0, Gpu.error().message);
    M.gpu = Gpu->name;
    M.network = textField(*T, R, "network");
    const std::string DtypeText = textField(*T, R, "dtype");
    auto Dtype = corpus::parseDTypeSpelling(DtypeText);
    if (!Dtype)
      return support::Error(Path, R.line, 0,
                            "column 'dtype': '" + DtypeText + "' is not " +
                                corpus::dtypeNames(", ", " or ") + " (also " +
                                corpus::dtypeAliases() + ")");
    M.dtype = corpus::dtypeString(*Dtype);
    M.runtime = textField(*T, R, "runtime");
    auto Batch = intField(*T, R, "batch");
    if (!Batch)
      return Batch.error();
    if (*Batch < 1 || *Batch > MaxBatch)
      return support::Error(Path, R.line, 0,
                            fmt::format("column 'batch': {} is not in 1..{}", *Batch, MaxBatch));
    M.batch = *Batch;
    if (HasSize && !textField(*T, R, "image_size").empty()) {
      auto Size = intField(*T, R, "image_size");
      if (!Size)
        return Size.error();
      M.imageSize = *Size;
    }
    auto Ms = timeField(*T, R, "measured_ms");
    if (!Ms)
      return Ms.error();
    M.ms = *Ms;
    Out.push_back(std::move(M));
  }
  if (Out.empty())
    return support::Error(Path, 1, 0, "no timings: expected one row per measured network");
  if (!OnlyGpu.empty()) {
    std::erase_if(Out, [&](const Measurement &M) { return M.gpu != OnlyGpu; });
    if (Out.empty())
      return support::Error(Path, 0, 0, "no timing on " + OnlyGpu + " to calibrate by");
  }
  return Out;
}

double Calibration::weight() const {
  const double K = double(ratios.size());
  return K / (K + TimingNoiseToSpread);
}

double Calibration::factor() const {
  double LogSum = 0;
  for (double R : ratios)
    LogSum += std::log(R);
  return ratios.empty() ? 1.0 : std::exp(weight() * LogSum / double(ratios.size()));
}

namespace {

/// The farthest a timing may lie from its prediction, either way, to calibrate by: the model's
/// band is within 0.93-1.36x and a host-bound time within 0.8-1.7x, so 10x is a unit or
/// setup error, not a GPU's character.
constexpr double MaxTimingRatio = 10;

/// Timing M predicted on its GPU as `ptxcast predict` would, with bundle P.
support::Expected<double> predictTiming(const Measurement &M, const learners::Predictor &P,
                                        const hardware::GpuCatalog &Catalog, UserCaches &Caches) {
  auto In = [&](const support::Error &E) {
    return support::Error(M.file, M.line, 0,
                          "cannot predict this timing: " + (E.file.empty() ? E.message : E.str()));
  };
  auto Gpu = Catalog.lookup(M.gpu);
  auto Settings = predictSettings(M.runtime, "", "", &Catalog);
  if (!Settings)
    return In(Settings.error());
  if (auto E = checkDtype(M.dtype, Settings->runtime, &*Gpu))
    return In(*E);
  NetworkRequest R;
  R.input = M.network;
  R.batch = M.batch;
  R.imageSize = M.imageSize;
  R.dtype = M.dtype;
  R.cache = &Caches.kernels;
  R.analyses = Caches.analysisCache();
  Settings->breakdown = false;
  auto N = analyseFor(R, Settings->runtime, {*Gpu});
  if (!N)
    return In(N.error());
  auto G = predictOnGpus(*N, P, {*Gpu}, *Settings, Catalog);
  if (!G)
    return In(G.error());
  return G->front().timeMs;
}

} // namespace

support::Expected<std::vector<Calibration>> calibrate(const std::vector<Measurement> &Timings,
                                                      const learners::Predictor &P,
                                                      const hardware::GpuCatalog &Catalog,
                                                      UserCaches &Caches) {
  std::map<std::string, Calibration> ByGpu;
  for (const Measurement &M : Timings) {
    auto Predicted = predictTiming(M, P, Catalog, Caches);
    if (!Predicted)
      return Predicted.error();
    const double Ratio = M.ms / *Predicted;
    if (!(Ratio >= 1 / MaxTimingRatio && Ratio <= MaxTimingRatio))
      return support::Error(
          M.file, M.line, 0,
          fmt::format("measured {:.4g} ms is {:.3g}x the predicted {:.4g} ms: a timing that far "
                      "off is in another unit (ms per batch) or of another setup, and would "
                      "scale every prediction on {} by it",
                      M.ms, Ratio, *Predicted, M.gpu));
    Calibration &C = ByGpu[M.gpu];
    C.gpu = M.gpu;
    C.bandMedian = P.info().band ? P.info().band->ratioMedian : 1.0;
    C.ratios.push_back(M.ms / *Predicted);
  }
  std::vector<Calibration> Out;
  for (auto &[Gpu, C] : ByGpu)
    Out.push_back(std::move(C));
  return Out;
}

void applyCalibration(GpuPrediction &G, const Calibration &C) {
  const double F = C.factor();
  const double TimeMs = G.timeMs * F; // both its parts scale by F, so the time does
  rescale(G, {G.gpuMs * F, F, F, F / std::pow(C.bandMedian, C.weight())});
  G.timeMs = TimeMs;
  G.calibrationFactor = F;
  G.calibrationTimings = C.ratios.size();
  const auto [Low, High] = std::minmax_element(C.ratios.begin(), C.ratios.end());
  G.warnings.push_back(fmt::format(
      "calibrated: the prediction is scaled by {:.3g} from {} timing{} on {} (measured / "
      "predicted {:.3g} to {:.3g}, their geometric mean drawn toward 1 by one timing's usual "
      "scatter; more timings, less drawn)",
      F, C.ratios.size(), C.ratios.size() == 1 ? "" : "s", G.gpu.name, *Low, *High));
}

void applyCalibrations(std::vector<GpuPrediction> &Gs, const std::vector<Calibration> &Cs) {
  for (GpuPrediction &G : Gs)
    for (const Calibration &C : Cs)
      if (C.gpu == G.gpu.name)
        applyCalibration(G, C);
}

} // namespace pipeline
