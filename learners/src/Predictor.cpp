// Predictor bundles (learners/Predictor.h): error band, training ranges, JSON save/load.
#include "learners/Predictor.h"
#include "support/Files.h"

#include "learners/Metrics.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>

namespace learners {

using support::Error;
using support::Expected;
using OJson = nlohmann::ordered_json;

std::vector<FeatureRange> featureRanges(const Dataset &D) {
  assert(D.size() > 0 && "feature ranges of an empty dataset");
  std::vector<FeatureRange> Out;
  for (size_t C = 0; C < D.featureNames.size(); ++C) {
    FeatureRange R{D.featureNames[C], D.features(0, C), D.features(0, C)};
    for (size_t I = 1; I < D.size(); ++I) {
      R.min = std::min(R.min, D.features(I, C));
      R.max = std::max(R.max, D.features(I, C));
    }
    Out.push_back(std::move(R));
  }
  return Out;
}

namespace {

/// Quantile Q of sorted values, interpolating linearly between order statistics.
double quantile(const std::vector<double> &Sorted, double Q) {
  assert(!Sorted.empty() && "quantile of no values");
  double Pos = Q * double(Sorted.size() - 1);
  size_t Lo = size_t(std::floor(Pos));
  size_t Hi = std::min(Lo + 1, Sorted.size() - 1);
  double Frac = Pos - double(Lo);
  return Sorted[Lo] + (Sorted[Hi] - Sorted[Lo]) * Frac;
}

OJson bandJson(const ErrorBand &B) {
  return {{"protocol", B.protocol},   {"rows", B.rows},          {"mape", B.mape},
          {"coverage", B.coverage},   {"ratio_low", B.ratioLow}, {"ratio_median", B.ratioMedian},
          {"ratio_high", B.ratioHigh}};
}

ErrorBand bandFromJson(const OJson &J) {
  ErrorBand B;
  B.protocol = J.at("protocol").get<std::string>();
  B.rows = J.at("rows").get<size_t>();
  B.mape = J.at("mape").get<double>();
  B.coverage = J.at("coverage").get<double>();
  B.ratioLow = J.at("ratio_low").get<double>();
  B.ratioMedian = J.at("ratio_median").get<double>();
  B.ratioHigh = J.at("ratio_high").get<double>();
  return B;
}

/// Why a band read from a bundle cannot be used (a hand-edited or corrupted file), or nothing:
/// its ratios must be positive and ordered, its coverage a fraction, its MAPE >= 0. A band
/// [3, 1.3] would print a lower edge above the upper one; a negative ratio, a negative time.
std::optional<std::string> badBand(const ErrorBand &B) {
  if (!(B.ratioLow > 0 && B.ratioLow <= B.ratioMedian && B.ratioMedian <= B.ratioHigh &&
        std::isfinite(B.ratioHigh)))
    return "error_band needs 0 < ratio_low <= ratio_median <= ratio_high";
  if (!(B.coverage > 0 && B.coverage <= 1) || !(B.mape >= 0))
    return "error_band needs a coverage in (0, 1] and a mape >= 0";
  return std::nullopt;
}

} // namespace

Expected<ErrorBand> errorBand(std::span<const double> Measured, std::span<const double> Predicted,
                              std::string Protocol, double Coverage) {
  if (Measured.size() != Predicted.size())
    return Error("error band: " + std::to_string(Measured.size()) + " measured values but " +
                 std::to_string(Predicted.size()) + " predictions");
  if (!(Coverage > 0 && Coverage < 1))
    return Error("error band: coverage must lie in (0, 1)");
  std::vector<double> Ratios, Y, P;
  for (size_t I = 0; I < Measured.size(); ++I) {
    if (!(Measured[I] > 0 && Predicted[I] > 0))
      continue;
    Ratios.push_back(Measured[I] / Predicted[I]);
    Y.push_back(Measured[I]);
    P.push_back(Predicted[I]);
  }
  if (Ratios.empty())
    return Error("error band: no row with a positive measured value and prediction");
  std::sort(Ratios.begin(), Ratios.end());
  ErrorBand B;
  B.protocol = std::move(Protocol);
  B.rows = Ratios.size();
  B.mape = computeMetrics(Y, P, 0).mape;
  B.coverage = Coverage;
  B.ratioLow = quantile(Ratios, (1 - Coverage) / 2);
  B.ratioMedian = quantile(Ratios, 0.5);
  B.ratioHigh = quantile(Ratios, (1 + Coverage) / 2);
  return B;
}

Predictor::Predictor(Model Fitted, PredictorInfo I) : M(std::move(Fitted)), Info(std::move(I)) {
  assert(Info.ranges.empty() ||
         Info.ranges.size() == M.featureNames().size() && "one training range per model feature");
}

Expected<std::vector<double>> Predictor::predict(const Dataset &D) const { return M.predict(D); }

std::vector<std::string> Predictor::outsideRange(const NamedVector &Row) const {
  std::vector<std::string> Out;
  for (const FeatureRange &R : Info.ranges) {
    auto It =
        std::find_if(Row.begin(), Row.end(), [&](const auto &P) { return P.first == R.name; });
    if (It != Row.end() && (It->second < R.min || It->second > R.max))
      Out.push_back(R.name);
  }
  return Out;
}

std::optional<std::pair<double, double>> Predictor::interval(double T) const {
  if (!Info.band)
    return std::nullopt;
  return std::make_pair(T * Info.band->ratioLow, T * Info.band->ratioHigh);
}

std::string Predictor::toJson() const {
  OJson J;
  J["format"] = "ptxcast-predictor";
  J["version"] = 2;
  J["name"] = Info.name;
  J["predicts"] = M.predicts();
  J["training_data"] = Info.trainingData;
  J["training_rows"] = Info.trainingRows;
  J["training_gpus"] = Info.trainingGpus;
  J["error_band"] = Info.band ? bandJson(*Info.band) : OJson(nullptr);
  OJson Ranges = OJson::object();
  for (const FeatureRange &R : Info.ranges)
    Ranges[R.name] = {R.min, R.max};
  J["feature_ranges"] = Ranges;
  // Metadata indented for people; the model keeps its own layout (Model::toJson).
  std::string Text = J.dump(1);
  assert(Text.size() >= 2 && Text.back() == '}' && "bundle metadata is a JSON object");
  Text.resize(Text.size() - 2); // "\n}"
  return Text + ",\n \"model\": " + M.toJson() + "}\n";
}

Expected<Predictor> Predictor::fromJson(std::string_view Text, std::string_view File) {
  auto Fail = [&](const std::string &Msg) { return Error(std::string(File), 0, 0, Msg); };
  try {
    auto J = OJson::parse(Text);
    if (J.value("format", "") != "ptxcast-predictor" || J.value("version", 0) != 2)
      return Fail("not a ptxcast predictor bundle (format 'ptxcast-predictor', version 2)");
    auto Fitted = Model::fromParsed(nlohmann::json(J.at("model")), File);
    if (!Fitted)
      return Fitted.error();
    PredictorInfo I;
    I.name = J.at("name").get<std::string>();
    I.trainingData = J.at("training_data").get<std::string>();
    I.trainingRows = J.at("training_rows").get<size_t>();
    I.trainingGpus = J.at("training_gpus").get<std::vector<std::string>>();
    if (!J.at("error_band").is_null())
      I.band = bandFromJson(J.at("error_band"));
    if (I.band)
      if (auto Why = badBand(*I.band))
        return Fail(*Why);
    for (const auto &[Name, MinMax] : J.at("feature_ranges").items()) {
      I.ranges.push_back({Name, MinMax.at(0).get<double>(), MinMax.at(1).get<double>()});
      if (!(I.ranges.back().min <= I.ranges.back().max))
        return Fail("feature_ranges: the range of '" + Name +
                    "' has its minimum above its maximum");
    }
    std::vector<std::string> RangeNames;
    for (const FeatureRange &R : I.ranges)
      RangeNames.push_back(R.name);
    if (!I.ranges.empty() && RangeNames != Fitted->featureNames())
      return Fail("feature_ranges must name the model's features, in the model's order");
    return Predictor(std::move(*Fitted), std::move(I));
  } catch (const nlohmann::json::exception &E) {
    return Fail(std::string("bad predictor bundle: ") + E.what());
  }
}

support::MaybeError Predictor::save(const std::string &Path) const {
  return support::writeFileAtomically(Path, toJson());
}

Expected<Predictor> Predictor::load(const std::string &Path) {
  auto Text = support::readFile(Path);
  if (!Text)
    return Text.error();
  return fromJson(*Text, Path);
}

} // namespace learners
