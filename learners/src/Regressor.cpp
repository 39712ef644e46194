// The regressor factory, parameter validation and helpers shared by the learners.
#include "learners/Regressor.h"

#include "Learners.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace learners {

using support::Error;

namespace {

struct FactoryEntry {
  const char *Name;
  const char *Description;
};

// Sorted by name; createRegressor dispatches on the same names.
constexpr FactoryEntry Entries[] = {
    {"forest", "random forest: XGBoost num_parallel_tree trees, row subsample + per-node "
               "feature subsample, one round, learning rate 1"},
    {"knn", "k-nearest neighbours on standardised features, exact search, optional inverse-"
            "distance weights"},
    {"linear", "least squares with intercept (Eigen QR), optional ridge penalty on "
               "standardised coefficients"},
    {"tree", "one CART-style regression tree: XGBoost exact greedy splits, one round, "
             "learning rate 1, no leaf shrinkage"},
    {"xgboost", "gradient-boosted trees (XGBoost gbtree, squared error)"},
};

std::string listNames() {
  std::string S;
  for (const auto &E : Entries)
    S += (S.empty() ? "" : ", ") + std::string(E.Name);
  return S;
}

} // namespace

std::vector<std::string> regressorNames() {
  std::vector<std::string> Names;
  for (const auto &E : Entries)
    Names.emplace_back(E.Name);
  return Names;
}

std::string describeRegressors() {
  std::string S;
  for (const auto &E : Entries)
    S += std::string(E.Name) + ": " + E.Description + "\n";
  return S + "a+b[+...]: ensemble, the mean of its members' predictions (the geometric mean of "
             "times under a log target); `key=v` goes to every member that takes it, "
             "`member.key=v` to one\n";
}

support::Expected<std::unique_ptr<Regressor>> createRegressor(std::string_view Name,
                                                              const Params &P) {
  if (Name == "linear")
    return createLinear(P);
  if (Name == "knn")
    return createKnn(P);
  if (Name == "tree" || Name == "forest" || Name == "xgboost")
    return createXgb(Name, P);
  if (Name.find('+') != std::string_view::npos)
    return createEnsemble(Name, P);
  return Error("unknown learner '" + std::string(Name) + "' (valid: " + listNames() +
               ", or an ensemble of them joined by '+', e.g. knn+forest)");
}

bool takesParam(std::string_view Learner, std::string_view Key) {
  auto R = createRegressor(Learner);
  if (!R)
    return false;
  // An ensemble lists its members' parameters as "member.key".
  for (const auto &[K, V] : (*R)->params()) {
    std::string_view Name = K;
    if (Name == Key ||
        (Name.ends_with(Key) && Name.substr(0, Name.size() - Key.size()).ends_with('.')))
      return true;
  }
  return false;
}

support::Expected<Params> parseParams(std::span<const std::string> Assignments) {
  Params Out;
  for (const std::string &A : Assignments) {
    size_t Eq = A.find('=');
    std::string Key = A.substr(0, Eq);
    const char *Begin = Eq == std::string::npos ? nullptr : A.c_str() + Eq + 1;
    char *End = nullptr;
    double V = Begin ? std::strtod(Begin, &End) : 0.0;
    if (!Begin || Key.empty() || End == Begin || *End != '\0')
      return Error("parameter '" + A + "' must read name=number");
    Out[Key] = V;
  }
  return Out;
}

support::Expected<Params> resolveParams(std::string_view Learner,
                                        const std::map<std::string, ParamRange> &Spec,
                                        const Params &Given) {
  Params Out;
  for (const auto &[Key, Range] : Spec)
    Out[Key] = Range.defaultValue;
  std::string Valid;
  for (const auto &[Key, Range] : Spec)
    Valid += (Valid.empty() ? "" : ", ") + Key;
  for (const auto &[Key, Value] : Given) {
    auto It = Spec.find(Key);
    if (It == Spec.end())
      return Error("unknown parameter '" + Key + "' for learner '" + std::string(Learner) +
                   "' (valid: " + Valid + ")");
    const ParamRange &R = It->second;
    if (!std::isfinite(Value) || Value < R.lo || Value > R.hi ||
        (R.integer && Value != std::floor(Value)))
      return Error("parameter '" + Key + "' of learner '" + std::string(Learner) + "' must be " +
                   (R.integer ? "an integer " : "") + "in [" + nlohmann::json(R.lo).dump() + ", " +
                   nlohmann::json(R.hi).dump() + "], got " + nlohmann::json(Value).dump());
    Out[Key] = Value;
  }
  return Out;
}

namespace {

/// V as printf's %g writes it.
std::string numberText(double V) {
  char Buffer[32];
  std::snprintf(Buffer, sizeof Buffer, "%g", V);
  return Buffer;
}

} // namespace

support::MaybeError checkFitData(const Matrix &X, std::span<const double> Y,
                                 std::span<const double> W, size_t MinRows) {
  if (X.rows() != Y.size())
    return Error("feature rows (" + std::to_string(X.rows()) + ") and targets (" +
                 std::to_string(Y.size()) + ") differ in number");
  if (X.rows() < MinRows)
    return Error("need at least " + std::to_string(MinRows) + " rows to fit, got " +
                 std::to_string(X.rows()));
  // Beyond MaxMagnitude a value overflows what the learners compute from it (a float in the
  // kNN's saved rows, sums of squares when standardising): refused, not fitted into a NaN state.
  constexpr double MaxMagnitude = 1e30;
  for (size_t R = 0; R < X.rows(); ++R)
    for (size_t C = 0; C < X.cols(); ++C)
      if (!std::isfinite(X(R, C)) || std::abs(X(R, C)) > MaxMagnitude)
        return Error("features contain " + numberText(X(R, C)) + " (row " + std::to_string(R + 1) +
                     ", column " + std::to_string(C + 1) +
                     "): every value must be finite and within +-1e30");
  for (double V : Y)
    if (!std::isfinite(V) || std::abs(V) > MaxMagnitude)
      return Error("targets contain " + numberText(V) +
                   ": every value must be finite and within +-1e30");
  if (!W.empty()) {
    if (W.size() != Y.size())
      return Error("weights (" + std::to_string(W.size()) + ") and targets (" +
                   std::to_string(Y.size()) + ") differ in number");
    double Sum = 0;
    for (double V : W) {
      if (!(V >= 0) || !std::isfinite(V))
        return Error("weights must be finite and >= 0");
      Sum += V;
    }
    if (!(Sum > 0))
      return Error("weights sum to 0");
  }
  return std::nullopt;
}

std::vector<double> weightsOr1(std::span<const double> W, size_t N) {
  return W.empty() ? std::vector<double>(N, 1.0) : std::vector<double>(W.begin(), W.end());
}

void Standardizer::fit(const Matrix &X) {
  size_t N = X.rows(), P = X.cols();
  mean.assign(P, 0.0);
  scale.assign(P, 1.0);
  for (size_t C = 0; C < P; ++C) {
    double Sum = 0;
    for (size_t R = 0; R < N; ++R)
      Sum += X(R, C);
    double M = N ? Sum / double(N) : 0.0;
    double Sq = 0;
    for (size_t R = 0; R < N; ++R)
      Sq += (X(R, C) - M) * (X(R, C) - M);
    double Sd = N ? std::sqrt(Sq / double(N)) : 0.0;
    mean[C] = M;
    // A column that varies only by rounding (a spread below 1e-9 of its magnitude) is constant:
    // dividing by its spread would turn rounding noise into huge standardised values.
    scale[C] = Sd > 1e-9 * (std::fabs(M) + 1e-300) && Sd > 0 ? Sd : 1.0;
  }
}

nlohmann::json Standardizer::toJson() const { return {{"mean", mean}, {"scale", scale}}; }

std::optional<Standardizer> Standardizer::fromJson(const nlohmann::json &J) {
  if (!J.is_object() || !J.contains("mean") || !J.contains("scale"))
    return std::nullopt;
  Standardizer S;
  S.mean = J["mean"].get<std::vector<double>>();
  S.scale = J["scale"].get<std::vector<double>>();
  if (S.mean.size() != S.scale.size())
    return std::nullopt;
  return S;
}

} // namespace learners
