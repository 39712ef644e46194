// A fitted regressor with everything needed to use it later: feature and target names, the
// target transform, and a description of what it predicts. Saved and loaded as one JSON file.
#pragma once

#include "learners/Dataset.h"
#include "learners/Regressor.h"
#include "support/Expected.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace learners {

/// How the target is transformed before fitting. Log: fit on ln(y), predict exp(f(x)); needs y > 0.
/// Errors are then multiplicative, which suits latencies spanning orders of magnitude.
enum class TargetTransform { None, Log };

std::string_view transformName(TargetTransform T);
support::Expected<TargetTransform> parseTransform(std::string_view Name);

/// What to fit: learner name, parameters, target transform, and optional side columns of the
/// dataset that are not learner inputs.
struct ModelSpec {
  std::string learner = "xgboost";
  Params params = {};
  TargetTransform transform = TargetTransform::None;
  /// Feed the learner sign(x) ln(1 + |x|) of every feature: counts and bytes spanning orders of
  /// magnitude become comparable (kNN distances) and power laws become linear (linear).
  bool logFeatures = false;
  /// A column b the target is measured against: the learner fits f(x) = ln((y - o) / b) and the
  /// model predicts o + b exp(f(x)). Needs the log transform.
  std::string baseline = {};
  /// A column o added to every prediction and subtracted from the target before the transform
  /// (a known additive part, e.g. an overhead).
  std::string offset = {};
  /// A column of row weights for the fit (a row of weight 2 counts twice).
  std::string weight = {};
  /// With an offset: rows whose y - o is below this share of y teach the learner nothing it can
  /// trust (the offset dominates them) and are left out of the fit; they are still predicted.
  double minShare = 0.1;
};

/// A fitted model. Move-only.
class Model {
public:
  /// Fits the learner on every row of D. `Predicts` is free text saved with the model
  /// (e.g. "PyTorch conv2d latency in ms on the named GPU").
  static support::Expected<Model> fit(const Dataset &D, const ModelSpec &Spec,
                                      std::string Predicts = "");

  /// Predictions in target units (the transform undone) for rows of X in featureNames() order
  /// (which includes the baseline and offset columns).
  std::vector<double> predict(const Matrix &X) const;
  /// Predictions for a dataset whose features include this model's (matched by name, any order).
  support::Expected<std::vector<double>> predict(const Dataset &D) const;

  /// Native importance per feature (name, value), in feature order; empty if the learner has none.
  std::vector<std::pair<std::string, double>> featureImportance() const;

  const std::string &learner() const { return Learner; }
  const Params &params() const { return Reg->params(); }
  const std::vector<std::string> &featureNames() const { return Features; }
  /// The learner's inputs: featureNames() without the baseline and offset columns.
  size_t inputCount() const { return Features.size() - !Baseline.empty() - !Offset.empty(); }
  const std::string &targetName() const { return Target; }
  TargetTransform transform() const { return Transform; }
  bool logFeatures() const { return LogFeatures; }
  const std::string &predicts() const { return Predicts; }
  const std::string &baseline() const { return Baseline; }
  const std::string &offset() const { return Offset; }

  /// The model as JSON: {"format": "ptxcast-model", "version": 1, "learner", "params",
  /// "features", "target", "target_transform", "feature_transform" ("log1p" or "none"),
  /// "baseline", "offset" (column names or ""), "predicts", "state"}. Deterministic bytes.
  std::string toJson() const;
  /// Parses toJson output; `File` names the source in error messages.
  static support::Expected<Model> fromJson(std::string_view Json, std::string_view File);
  /// The same from a parsed value (a model inside a predictor bundle).
  static support::Expected<Model> fromParsed(const nlohmann::json &J, std::string_view File);

  /// toJson to a file (written atomically: a temporary file renamed) / fromJson from a file.
  support::MaybeError save(const std::string &Path) const;
  static support::Expected<Model> load(const std::string &Path);

private:
  Model() = default;
  std::string Learner;
  std::unique_ptr<Regressor> Reg;
  std::vector<std::string> Features;
  std::string Target;
  TargetTransform Transform = TargetTransform::None;
  bool LogFeatures = false;
  std::string Baseline, Offset;
  std::string Predicts;

  /// The learner's input: X without the baseline and offset columns (log1p'd if so).
  Matrix learnerInput(const Matrix &X) const;
};

} // namespace learners
