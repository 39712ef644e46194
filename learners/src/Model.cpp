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

/// Index of a named column among Names, or nothing.
std::optional<size_t> indexOf(const std::vector<std::string> &Names, const std::string &Name) {
  for (size_t I = 0; I < Names.size(); ++I)
    if (Names[I] == Name)
      return I;
  return std::nullopt;
}

/// The rows to fit and their transformed targets (ModelSpec's baseline, offset, minShare).
struct FitRows {
  std::vector<size_t> rows;
  std::vector<double> y;
};

/// Names row I of D for an error message: its identifiers (the same in every subset of D, so a
/// cross-validation fold's row is found in the file), else its index.
std::string rowName(const Dataset &D, size_t I) {
  if (D.idNames.empty())
    return "row " + std::to_string(I + 1);
  std::string S = "the row";
  for (size_t C = 0; C < D.idNames.size(); ++C)
    S += (C ? ", " : " ") + D.idNames[C] + "=" + D.ids[I][C];
  return S;
}

Expected<FitRows> fitTargets(const Dataset &D, const ModelSpec &Spec) {
  auto Col = [&](const std::string &Name) -> std::optional<size_t> {
    return Name.empty() ? std::nullopt : D.featureIndex(Name);
  };
  std::optional<size_t> B = Col(Spec.baseline), O = Col(Spec.offset);
  const bool Log = Spec.transform == TargetTransform::Log;
  auto NotPositive = [&](size_t I) {
    return Error("log target transform needs positive targets; " + rowName(D, I) + " has " +
                 D.targetName + " = " + nlohmann::json(D.target[I]).dump());
  };
  FitRows F;
  for (size_t I = 0; I < D.size(); ++I) {
    double Y = D.target[I];
    if (Log && !(Y > 0))
      return NotPositive(I);
    if (O) {
      double Rest = Y - D.features(I, *O);
      if (!(Rest > 0) || Rest < Spec.minShare * Y)
        continue; // the offset dominates this row
      Y = Rest;
    }
    if (B) {
      double Base = D.features(I, *B);
      if (!(Base > 0))
        return Error("baseline column '" + Spec.baseline + "' must be positive; " + rowName(D, I) +
                     " has " + nlohmann::json(Base).dump());
      Y /= Base;
    }
    if (Log) {
      if (!(Y > 0)) // a positive target over a huge baseline can still underflow to 0
        return NotPositive(I);
      Y = std::log(Y);
    }
    F.rows.push_back(I);
    F.y.push_back(Y);
  }
  if (F.rows.empty())
    return Error("no row left to fit: the offset column '" + Spec.offset +
                 "' exceeds every target");
  return F;
}

} // namespace

Expected<Model> Model::fit(const Dataset &D, const ModelSpec &Spec, std::string Predicts) {
  for (const std::string *Side : {&Spec.baseline, &Spec.offset, &Spec.weight})
    if (!Side->empty() && !D.featureIndex(*Side))
      return Error("no column '" + *Side + "' in the data");
  if (!Spec.baseline.empty() && Spec.transform != TargetTransform::Log)
    return Error("a baseline column needs the log target transform");
  auto Reg = createRegressor(Spec.learner, Spec.params);
  if (!Reg)
    return Reg.error();
  auto Targets = fitTargets(D, Spec);
  if (!Targets)
    return Targets.error();
  Model M;
  M.Learner = Spec.learner;
  M.Target = D.targetName;
  M.Transform = Spec.transform;
  M.LogFeatures = Spec.logFeatures;
  M.Baseline = Spec.baseline;
  M.Offset = Spec.offset;
  M.Predicts = std::move(Predicts);
  for (const std::string &Name : D.featureNames)
    if (Name != Spec.weight)
      M.Features.push_back(Name);
  auto Inputs = D.subset(Targets->rows).selectFeatures(M.Features);
  if (!Inputs)
    return Inputs.error();
  std::vector<double> W;
  if (auto Wc = D.featureIndex(Spec.weight); Wc && !Spec.weight.empty())
    for (size_t R : Targets->rows)
      W.push_back(D.features(R, *Wc));
  if (auto E = (*Reg)->fit(M.learnerInput(Inputs->features), Targets->y, W))
    return *E;
  M.Reg = std::move(*Reg);
  return M;
}

Matrix Model::learnerInput(const Matrix &X) const {
  std::optional<size_t> B = indexOf(Features, Baseline), O = indexOf(Features, Offset);
  Matrix Out;
  std::vector<double> Row;
  for (size_t R = 0; R < X.rows(); ++R) {
    Row.clear();
    for (size_t C = 0; C < X.cols(); ++C)
      if (C != B && C != O) {
        double V = X(R, C);
        Row.push_back(LogFeatures ? std::copysign(std::log1p(std::fabs(V)), V) : V);
      }
    Out.appendRow(Row);
  }
  return Out;
}

std::vector<double> Model::predict(const Matrix &X) const {
  std::vector<double> Y = Reg->predict(learnerInput(X));
  std::optional<size_t> B = indexOf(Features, Baseline), O = indexOf(Features, Offset);
  for (size_t R = 0; R < Y.size(); ++R) {
    if (Transform == TargetTransform::Log)
      Y[R] = std::exp(Y[R]);
    if (B)
      Y[R] *= X(R, *B);
    if (O)
      Y[R] += X(R, *O);
  }
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
  std::vector<std::string> Names;
  for (const std::string &F : Features)
    if (F != Baseline && F != Offset)
      Names.push_back(F);
  std::vector<std::pair<std::string, double>> Out;
  for (size_t I = 0; I < Values.size() && I < Names.size(); ++I)
    Out.emplace_back(Names[I], Values[I]);
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
  J["baseline"] = Baseline;
  J["offset"] = Offset;
  J["predicts"] = Predicts;
  // Metadata indented for people; the fitted state (large for knn and forests) kept compact.
  std::string Text = J.dump(1);
  assert(Text.size() >= 2 && Text.back() == '}' && "model metadata is a JSON object");
  Text.pop_back();
  Text.pop_back(); // "\n}"
  return Text + ",\n \"state\": " + Reg->saveState().dump() + "\n}\n";
}

Expected<Model> Model::fromJson(std::string_view Text, std::string_view File) {
  try {
    return fromParsed(nlohmann::json::parse(Text), File);
  } catch (const nlohmann::json::exception &E) {
    return Error(std::string(File), 0, 0, std::string("bad model file: ") + E.what());
  }
}

Expected<Model> Model::fromParsed(const nlohmann::json &J, std::string_view File) {
  auto Fail = [&](const std::string &Msg) { return Error(std::string(File), 0, 0, Msg); };
  Model M;
  try {
    if (J.value("format", "") != "ptxcast-model" || J.value("version", 0) != 1)
      return Fail("not a ptxcast model (format 'ptxcast-model', version 1)");
    M.Learner = J.at("learner").get<std::string>();
    auto Reg = createRegressor(M.Learner, J.at("params").get<Params>());
    if (!Reg)
      return Fail(Reg.error().message);
    if (auto E = (*Reg)->loadState(J.at("state")))
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
    M.Baseline = J.value("baseline", "");
    M.Offset = J.value("offset", "");
    for (const std::string *Side : {&M.Baseline, &M.Offset})
      if (!Side->empty() && !indexOf(M.Features, *Side))
        return Fail("side column '" + *Side + "' is not among the model's features");
    // The state was fitted on the features less the side columns, in order: a list of another
    // length would feed it other columns than it learnt from.
    const size_t Sides = !M.Baseline.empty() + !M.Offset.empty();
    if (M.Features.size() <= Sides || M.Reg->inputWidth() != M.inputCount())
      return Fail("'features' names " +
                  std::to_string(M.Features.size() - std::min(Sides, M.Features.size())) +
                  " learner input(s) but the model's state takes " +
                  std::to_string(M.Reg->inputWidth()));
    M.Predicts = J.at("predicts").get<std::string>();
  } catch (const nlohmann::json::exception &E) {
    return Fail(std::string("bad model file: ") + E.what());
  }
  return M;
}

support::MaybeError Model::save(const std::string &Path) const {
  return support::writeFileAtomically(Path, toJson());
}

Expected<Model> Model::load(const std::string &Path) {
  auto Text = support::readFile(Path);
  if (!Text)
    return Text.error();
  return fromJson(*Text, Path);
}

} // namespace learners
