// Model: a regressor plus feature/target names, target transform and description; JSON save/load.
#include "learners/Model.h"
#include "support/Files.h"

#include <nlohmann/json.hpp>

#include <cassert>
#include <cmath>

namespace learners {

using support::Error;
using support::Expected;

std::string_view transformName(TargetTransform T) {
  return T == TargetTransform::Log ? "log" : "none";
}

Expected<TargetTransform> parseTransform(std::string_view Name) {
  if (Name == "none")
    return TargetTransform::None;
  if (Name == "log")
    return TargetTransform::Log;
  return Error("unknown target transform '" + std::string(Name) + "' (valid: log, none)");
}

namespace {

/// sign(x) ln(1 + |x|) of every element (ModelSpec::logFeatures).
Matrix signedLog1p(const Matrix &X) {
  Matrix Out = X;
  for (size_t R = 0; R < Out.rows(); ++R)
    for (double &V : Out.row(R))
      V = std::copysign(std::log1p(std::fabs(V)), V);
  return Out;
}

} // namespace

Expected<Model> Model::fit(const Dataset &D, const ModelSpec &Spec, std::string Predicts) {
  auto Reg = createRegressor(Spec.learner, Spec.params);
  if (!Reg)
    return Reg.error();
  std::vector<double> Y = D.target;
  if (Spec.transform == TargetTransform::Log) {
    for (size_t I = 0; I < Y.size(); ++I) {
      if (!(Y[I] > 0))
        return Error("log target transform needs positive targets; row " + std::to_string(I + 1) +
                     " has " + D.targetName + " = " + nlohmann::json(Y[I]).dump());
      Y[I] = std::log(Y[I]);
    }
  }
  if (auto E = (*Reg)->fit(Spec.logFeatures ? signedLog1p(D.features) : D.features, Y))
    return *E;
  Model M;
  M.Learner = Spec.learner;
  M.Reg = std::move(*Reg);
  M.Features = D.featureNames;
  M.Target = D.targetName;
  M.Transform = Spec.transform;
  M.LogFeatures = Spec.logFeatures;
  M.Predicts = std::move(Predicts);
  return M;
}

std::vector<double> Model::predict(const Matrix &X) const {
  std::vector<double> Y = Reg->predict(LogFeatures ? signedLog1p(X) : X);
  if (Transform == TargetTransform::Log)
    for (double &V : Y)
      V = std::exp(V);
  return Y;
}

Expected<std::vector<double>> Model::predict(const Dataset &D) const {
  if (D.featureNames == Features)
    return predict(D.features);
  auto Selected = D.selectFeatures(Features);
  if (!Selected)
    return Selected.error();
  return predict(Selected->features);
}

std::vector<std::pair<std::string, double>> Model::featureImportance() const {
  std::vector<double> Values = Reg->featureImportance();
  std::vector<std::pair<std::string, double>> Out;
  for (size_t I = 0; I < Values.size() && I < Features.size(); ++I)
    Out.emplace_back(Features[I], Values[I]);
  return Out;
}

std::string Model::toJson() const {
  nlohmann::ordered_json J;
  J["format"] = "ptxcast-model";
  J["version"] = 1;
  J["learner"] = Learner;
  J["params"] = Reg->params();
  J["features"] = Features;
  J["target"] = Target;
  J["target_transform"] = transformName(Transform);
  J["feature_transform"] = LogFeatures ? "log1p" : "none";
  J["predicts"] = Predicts;
  // Metadata indented for people; the fitted state (large for knn and forests) kept compact.
  std::string Text = J.dump(1);
  assert(Text.size() >= 2 && Text.back() == '}' && "model metadata is a JSON object");
  Text.pop_back();
  Text.pop_back(); // "\n}"
  return Text + ",\n \"state\": " + nlohmann::json::parse(Reg->saveState()).dump() + "\n}\n";
}

Expected<Model> Model::fromJson(std::string_view Text, std::string_view File) {
  auto Fail = [&](const std::string &Msg) { return Error(std::string(File), 0, 0, Msg); };
  Model M;
  try {
    auto J = nlohmann::json::parse(Text);
    if (J.value("format", "") != "ptxcast-model" || J.value("version", 0) != 1)
      return Fail("not a ptxcast model (format 'ptxcast-model', version 1)");
    M.Learner = J.at("learner").get<std::string>();
    auto Reg = createRegressor(M.Learner, J.at("params").get<Params>());
    if (!Reg)
      return Fail(Reg.error().message);
    if (auto E = (*Reg)->loadState(J.at("state").dump()))
      return Fail(E->message);
    M.Reg = std::move(*Reg);
    M.Features = J.at("features").get<std::vector<std::string>>();
    M.Target = J.at("target").get<std::string>();
    auto T = parseTransform(J.at("target_transform").get<std::string>());
    if (!T)
      return Fail(T.error().message);
    M.Transform = *T;
    std::string FeatureTransform = J.value("feature_transform", "none");
    if (FeatureTransform != "none" && FeatureTransform != "log1p")
      return Fail("unknown feature transform '" + FeatureTransform + "' (valid: log1p, none)");
    M.LogFeatures = FeatureTransform == "log1p";
    M.Predicts = J.at("predicts").get<std::string>();
  } catch (const nlohmann::json::exception &E) {
    return Fail(std::string("bad model file: ") + E.what());
  }
  return M;
}

std::optional<Error> Model::save(const std::string &Path) const {
  return support::writeFileAtomically(Path, toJson());
}

Expected<Model> Model::load(const std::string &Path) {
  auto Text = support::readFile(Path);
  if (!Text)
    return Text.error();
  return fromJson(*Text, Path);
}

} // namespace learners
