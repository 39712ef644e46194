// A predictor bundle: a fitted Model plus what `ptxcast predict` needs to use it honestly: the
// GPUs it was trained on, per-feature training ranges (for outside-the-data warnings) and the
// cross-validated error band. Saved as one JSON file (docs/predict.md, "Bundle format").
#pragma once

#include "learners/Dataset.h"
#include "learners/Model.h"
#include "support/Expected.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace learners {

/// The smallest and largest value a feature took in the training rows.
struct FeatureRange {
  std::string name;
  double min = 0;
  double max = 0;
};

/// Ranges of every feature of D, in D's feature order (D must have rows).
std::vector<FeatureRange> featureRanges(const Dataset &D);

/// Cross-validated error summary. The band is the central `coverage` fraction of the
/// out-of-fold ratios measured / predicted: a prediction T gets [T * ratioLow, T * ratioHigh].
struct ErrorBand {
  std::string protocol; ///< e.g. "leave-one-group-out by 'gpu'"
  size_t rows = 0;      ///< out-of-fold predictions the band is computed from
  double mape = 0;      ///< pooled out-of-fold MAPE, percent
  double coverage = 0.8;
  double ratioLow = 1;    ///< quantile (1 - coverage) / 2 of measured / predicted
  double ratioMedian = 1; ///< median of measured / predicted
  double ratioHigh = 1;   ///< quantile (1 + coverage) / 2 of measured / predicted
};

/// The band of out-of-fold predictions: quantiles (linear interpolation between order
/// statistics) of Measured[i] / Predicted[i] over rows with both positive, and their MAPE. An
/// error when no row qualifies or the spans differ in length.
support::Expected<ErrorBand> errorBand(std::span<const double> Measured,
                                       std::span<const double> Predicted, std::string Protocol,
                                       double Coverage = 0.8);

/// Everything about a bundle except the fitted model.
struct PredictorInfo {
  std::string name; ///< short name users pass to --model, e.g. "cross-gpu"
  std::string trainingData;              ///< which dataset files, free text
  size_t trainingRows = 0;               ///< rows the final model was fitted on
  std::vector<std::string> trainingGpus; ///< catalog canonical names, sorted, distinct
  std::vector<FeatureRange> ranges;      ///< one per model feature, in the model's order
  std::optional<ErrorBand> band;         ///< absent when the bundle was not cross-validated
};

/// A fitted model with its PredictorInfo. Move-only (like Model).
class Predictor {
public:
  Predictor(Model M, PredictorInfo Info);

  const Model &model() const { return M; }
  const PredictorInfo &info() const { return Info; }

  /// Predictions for rows of D, whose features include the model's (matched by name).
  support::Expected<std::vector<double>> predict(const Dataset &D) const;

  /// The model features of one row (named values, e.g. featureRow output) that lie outside their
  /// training range, in the model's feature order. A feature the row lacks is not reported.
  std::vector<std::string> outsideRange(const NamedVector &Row) const;

  /// [T * ratioLow, T * ratioHigh], or nothing when the bundle has no band.
  std::optional<std::pair<double, double>> interval(double T) const;

  /// {"format": "ptxcast-predictor", "version": 2, "name", "predicts",
  /// "training_data", "training_rows", "training_gpus", "error_band" (or null),
  /// "feature_ranges": {name: [min, max]}, "model": the Model JSON}. Deterministic bytes:
  /// fromJson(toJson()) writes the same bytes again.
  std::string toJson() const;
  /// Parses toJson output; `File` names the source in error messages.
  static support::Expected<Predictor> fromJson(std::string_view Json, std::string_view File);

  support::MaybeError save(const std::string &Path) const;
  static support::Expected<Predictor> load(const std::string &Path);

private:
  Model M;
  PredictorInfo Info;
};

} // namespace learners
