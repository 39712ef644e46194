// Few-shot calibration (docs/predict.md, "Calibration"): a user who can time a few networks on a
// GPU hands ptxcast those timings, and every prediction on that GPU is scaled by the geometric mean
// of their measured / predicted ratios, drawn toward 1 the fewer they are. Most of what the model
// misses on a GPU it never saw is one factor per GPU (docs/accuracy.md); a few timings pin it down.
#pragma once

#include "hardware/GpuCatalog.h"
#include "learners/Predictor.h"
#include "pipeline/Prediction.h"
#include "support/Expected.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pipeline {

struct UserCaches;

/// One timing: `network` (a zoo name or FILE.onnx) at `batch` (and `imageSize`, 0 = its own) in
/// `dtype` under `runtime` took `ms` per batch on catalog GPU `gpu` (canonical name).
struct Measurement {
  std::string gpu, network, dtype, runtime;
  int64_t batch = 1;
  int64_t imageSize = 0;
  double ms = 0;
  std::string file; ///< where it was read, for messages
  uint32_t line = 0;
};

/// The timings of a CSV file with columns gpu, network, batch, dtype, runtime and measured_ms
/// (image_size optional); with `OnlyGpu`, those on that GPU (canonical name), an error when none
/// is. A GPU the catalog lacks, a bad number or a missing column is an error naming the file and
/// line.
support::Expected<std::vector<Measurement>> readMeasurements(const std::string &Path,
                                                             const hardware::GpuCatalog &Catalog,
                                                             const std::string &OnlyGpu = "");

/// How much one timing's own scatter weighs against the GPU's factor: sigma^2 / tau^2, the
/// variance of log(measured / predicted) among one GPU's network rows over the variance of the
/// GPU's mean log ratio across GPUs, both from the shipped model's leave-one-GPU-out predictions
/// of the network rows (0.0139 / 0.0068; scripts/calibration-check.py prints them).
constexpr double TimingNoiseToSpread = 2.06;

/// One GPU's calibration: each of its timings over its prediction, and the factor they give.
struct Calibration {
  std::string gpu;
  std::vector<double> ratios; ///< measured / predicted, one per timing
  /// The bundle's band median (measured / predicted on GPUs left out): the typical bias the
  /// timings measure, so the band moves by the share w of it they took out.
  double bandMedian = 1;
  /// w = k / (k + TimingNoiseToSpread) for k timings (one timing: 0.33; three: 0.59).
  double weight() const;
  /// The geometric mean of the ratios, shrunk toward 1 as the posterior mean of a normal prior
  /// on the GPU's log factor: exp(w mean(log ratio)).
  double factor() const;
};

/// The calibration of every GPU the timings name, in name order: each timing predicted with P
/// (analyses shared through Caches).
support::Expected<std::vector<Calibration>> calibrate(const std::vector<Measurement> &Timings,
                                                      const learners::Predictor &P,
                                                      const hardware::GpuCatalog &Catalog,
                                                      UserCaches &Caches);

/// G scaled by C's factor (time, GPU and host time, breakdown), recorded in G.calibration and said
/// in a warning line. The band is scaled too and divided by bandMedian^w: the timings took that
/// part of the typical bias out (leaving GPUs out, 77-79 % of the other networks then fall in the
/// 80 % band; scripts/calibration-check.py).
void applyCalibration(GpuPrediction &G, const Calibration &C);

/// Every prediction in Gs on a GPU that Cs calibrates, calibrated.
void applyCalibrations(std::vector<GpuPrediction> &Gs, const std::vector<Calibration> &Cs);

} // namespace pipeline
