// linear: least squares with intercept, optional ridge penalty, solved as a minimum-norm problem
// (Eigen complete orthogonal decomposition) on standardised features; importance =
// |standardised coefficient|.
#include "Learners.h"

#include <Eigen/Dense>

#include <cmath>

namespace learners {
namespace {

using support::Error;

/// Relative size below which a pivot counts as zero (numerical rank of the design matrix).
constexpr double RankThreshold = 1e-10;

class LinearRegressor final : public Regressor {
public:
  explicit LinearRegressor(Params P) : Prm(std::move(P)) {}

  std::string_view name() const override { return "linear"; }
  const Params &params() const override { return Prm; }

  support::MaybeError fit(const Matrix &X, std::span<const double> Y,
                          std::span<const double> W) override {
    if (auto E = checkFitData(X, Y, W, 1))
      return E;
    // Weighted least squares: each row scaled by sqrt(w), the ridge rows by sqrt(mean w) so the
    // penalty keeps its strength relative to one average row.
    std::vector<double> Weight = weightsOr1(W, Y.size());
    double MeanWeight = 0;
    for (double V : Weight)
      MeanWeight += V / double(Weight.size());
    Scaler.fit(X);
    size_t N = X.rows(), P = X.cols();
    double Lambda = Prm.at("lambda");
    size_t Extra = Lambda > 0 ? P : 0;
    // Design [1 | Z] with sqrt(lambda) I rows appended for ridge (intercept not penalised).
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(Eigen::Index(N + Extra), Eigen::Index(P + 1));
    Eigen::VectorXd B = Eigen::VectorXd::Zero(Eigen::Index(N + Extra));
    for (size_t R = 0; R < N; ++R) {
      const double S = std::sqrt(Weight[R]);
      A(Eigen::Index(R), 0) = S;
      for (size_t C = 0; C < P; ++C)
        A(Eigen::Index(R), Eigen::Index(C + 1)) = S * Scaler.apply(X(R, C), C);
      B(Eigen::Index(R)) = S * Y[R];
    }
    for (size_t C = 0; C < Extra; ++C)
      A(Eigen::Index(N + C), Eigen::Index(C + 1)) = std::sqrt(Lambda * MeanWeight);
    // Minimum-norm least squares: collinear features (e.g. GPU features that are constant per
    // GPU) share their weight instead of cancelling with huge opposite coefficients.
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> Cod;
    Cod.setThreshold(RankThreshold);
    Cod.compute(A);
    Eigen::VectorXd Beta = Cod.solve(B);
    StdCoef.assign(P, 0.0);
    Coef.assign(P, 0.0);
    Intercept = Beta(0);
    for (size_t C = 0; C < P; ++C) {
      StdCoef[C] = Beta(Eigen::Index(C + 1));
      Coef[C] = StdCoef[C] / Scaler.scale[C];
      Intercept -= Coef[C] * Scaler.mean[C];
    }
    return std::nullopt;
  }

  std::vector<double> predict(const Matrix &X) const override {
    assert(X.cols() == Coef.size() && "predict width differs from the fitted width");
    std::vector<double> Out(X.rows(), Intercept);
    for (size_t R = 0; R < X.rows(); ++R)
      for (size_t C = 0; C < Coef.size(); ++C)
        Out[R] += Coef[C] * X(R, C);
    return Out;
  }

  std::vector<double> featureImportance() const override {
    std::vector<double> Out;
    for (double B : StdCoef)
      Out.push_back(std::fabs(B));
    return Out;
  }

  nlohmann::json saveState() const override {
    return {{"intercept", Intercept},
            {"coefficients", Coef},
            {"standardised_coefficients", StdCoef},
            {"standardiser", Scaler.toJson()}};
  }

  size_t inputWidth() const override { return Coef.size(); }

  support::MaybeError loadState(const nlohmann::json &J) override {
    try {
      Intercept = J.at("intercept").get<double>();
      Coef = J.at("coefficients").get<std::vector<double>>();
      StdCoef = J.at("standardised_coefficients").get<std::vector<double>>();
      auto S = Standardizer::fromJson(J.at("standardiser"));
      if (!S || S->mean.size() != Coef.size() || StdCoef.size() != Coef.size())
        return Error("linear model state has inconsistent sizes");
      Scaler = *S;
    } catch (const nlohmann::json::exception &E) {
      return Error(std::string("bad linear model state: ") + E.what());
    }
    return std::nullopt;
  }

  /// Coefficients on the original feature scale and the intercept.
  const std::vector<double> &coefficients() const { return Coef; }

private:
  Params Prm;
  Standardizer Scaler;
  double Intercept = 0;
  std::vector<double> Coef, StdCoef;
};

} // namespace

support::Expected<std::unique_ptr<Regressor>> createLinear(const Params &P) {
  static const std::map<std::string, ParamRange> Spec = {{"lambda", {1.0, 0.0, 1e12}}};
  auto Resolved = resolveParams("linear", Spec, P);
  if (!Resolved)
    return Resolved.error();
  return std::unique_ptr<Regressor>(new LinearRegressor(std::move(*Resolved)));
}

} // namespace learners
