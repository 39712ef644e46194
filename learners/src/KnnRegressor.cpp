// knn: k-nearest neighbours on standardised features (exact search, deterministic ties by row),
// mean of the neighbours' targets or inverse-distance weighted; max_rows bounds the rows kept
// (and so the saved model) by a weight-proportional sample.
#include "Learners.h"

#include <algorithm>
#include <cmath>

namespace learners {
namespace {

using support::Error;

class KnnRegressor final : public Regressor {
public:
  explicit KnnRegressor(Params P) : Prm(std::move(P)) {}

  std::string_view name() const override { return "knn"; }
  const Params &params() const override { return Prm; }

  support::MaybeError fit(const Matrix &X, std::span<const double> Y,
                          std::span<const double> W) override {
    if (auto E = checkFitData(X, Y, W, 1))
      return E;
    // A row of weight 0 can never count; the others weigh their neighbours' average.
    Scaler.fit(X);
    Train = Matrix();
    Target.clear();
    RowWeight.clear();
    std::vector<double> Keep = keptWeights(weightsOr1(W, X.rows()), size_t(Prm.at("max_rows")));
    for (size_t R = 0; R < X.rows(); ++R)
      if (Keep[R] > 0) {
        auto Row = X.row(R);
        Train.appendRow(std::vector<double>(Row.begin(), Row.end()));
        Target.push_back(Y[R]);
        RowWeight.push_back(Keep[R]);
      }
    standardiseTrain();
    return std::nullopt;
  }

  std::vector<double> predict(const Matrix &X) const override {
    assert(X.cols() == Train.cols() && "predict width differs from the fitted width");
    std::vector<double> Out(X.rows());
    std::vector<double> Query(X.cols());
    std::vector<double> All;                        // one query's distance to every row
    std::vector<std::pair<double, size_t>> Nearest; // and its nearest rows
    for (size_t R = 0; R < X.rows(); ++R) {
      for (size_t C = 0; C < X.cols(); ++C)
        Query[C] = Scaler.apply(X(R, C), C);
      Out[R] = predictOne(Query, All, Nearest);
    }
    return Out;
  }

  std::vector<double> featureImportance() const override { return {}; }

  nlohmann::json saveState() const override {
    nlohmann::json Rows = nlohmann::json::array();
    for (size_t R = 0; R < Train.rows(); ++R) {
      auto Row = Train.row(R);
      Rows.push_back(std::vector<double>(Row.begin(), Row.end()));
    }
    return {{"standardiser", Scaler.toJson()},
            {"train_x", Rows},
            {"train_y", Target},
            {"train_w", RowWeight}};
  }

  support::MaybeError loadState(const nlohmann::json &J) override {
    try {
      auto S = Standardizer::fromJson(J.at("standardiser"));
      Target = J.at("train_y").get<std::vector<double>>();
      RowWeight = J.value("train_w", std::vector<double>(Target.size(), 1.0));
      const nlohmann::json &Rows = J.at("train_x");
      if (!S || Rows.size() != Target.size() || Target.empty() || RowWeight.size() != Target.size())
        return Error("knn model state has inconsistent sizes");
      Train = Matrix(Rows.size(), S->mean.size());
      for (size_t R = 0; R < Rows.size(); ++R) {
        if (Rows[R].size() != Train.cols())
          return Error("knn model state has inconsistent sizes");
        for (size_t C = 0; C < Train.cols(); ++C)
          Train(R, C) = Rows[R][C].get<double>();
      }
      Scaler = *S;
    } catch (const nlohmann::json::exception &E) {
      return Error(std::string("bad knn model state: ") + E.what());
    }
    standardiseTrain();
    return std::nullopt;
  }

private:
  /// The weight each training row keeps: W itself, or with MaxRows > 0 and more positive rows
  /// than that, a weight-proportional systematic sample of about MaxRows rows in row order (row R
  /// is drawn floor(C_R / S + 1/2) - floor(C_{R-1} / S + 1/2) times, C the running weight sum and
  /// S = total / MaxRows) with the draw count as its weight. Every group keeps its share of the
  /// total weight, so a balanced fit stays balanced with a bounded model size.
  static std::vector<double> keptWeights(std::vector<double> W, size_t MaxRows) {
    size_t Positive = size_t(std::count_if(W.begin(), W.end(), [](double V) { return V > 0; }));
    if (MaxRows == 0 || Positive <= MaxRows)
      return W;
    double Total = 0;
    for (double V : W)
      Total += V;
    const double Step = Total / double(MaxRows);
    double Running = 0;
    for (double &V : W) {
      double Before = std::floor(Running / Step + 0.5);
      Running += V;
      V = std::floor(Running / Step + 0.5) - Before;
    }
    return W;
  }

  void standardiseTrain() {
    Z = Matrix(Train.rows(), Train.cols());
    for (size_t R = 0; R < Train.rows(); ++R)
      for (size_t C = 0; C < Train.cols(); ++C)
        Z(R, C) = Scaler.apply(Train(R, C), C);
  }

  /// The K nearest training rows to Query as (squared distance, row), nearest first, ties by
  /// row: the K smallest pairs, as sorting every distance would give, kept in a heap of K.
  void nearest(const std::vector<double> &Query, size_t K, std::vector<double> &Dist,
               std::vector<std::pair<double, size_t>> &Best) const {
    // Four rows at a time: four independent sums, each added in column order as one row alone.
    Dist.resize(Z.rows());
    const size_t Cols = Query.size();
    size_t I = 0;
    for (; I + 4 <= Z.rows(); I += 4) {
      const double *R0 = Z.row(I).data(), *R1 = R0 + Cols, *R2 = R1 + Cols, *R3 = R2 + Cols;
      double D0 = 0, D1 = 0, D2 = 0, D3 = 0;
      for (size_t C = 0; C < Cols; ++C) {
        const double Q = Query[C];
        D0 += (R0[C] - Q) * (R0[C] - Q);
        D1 += (R1[C] - Q) * (R1[C] - Q);
        D2 += (R2[C] - Q) * (R2[C] - Q);
        D3 += (R3[C] - Q) * (R3[C] - Q);
      }
      Dist[I] = D0, Dist[I + 1] = D1, Dist[I + 2] = D2, Dist[I + 3] = D3;
    }
    for (; I < Z.rows(); ++I) {
      const double *Row = Z.row(I).data();
      double D = 0;
      for (size_t C = 0; C < Cols; ++C)
        D += (Row[C] - Query[C]) * (Row[C] - Query[C]);
      Dist[I] = D;
    }
    Best.clear();
    for (size_t I = 0; I < Dist.size(); ++I) {
      if (Best.size() == K) {
        if (!(Dist[I] < Best.front().first))
          continue; // no nearer than the K-th best (a tie loses: its row comes later)
        std::pop_heap(Best.begin(), Best.end());
        Best.pop_back();
      } else if (std::isnan(Dist[I])) {
        continue; // a NaN query feature
      }
      Best.emplace_back(Dist[I], I);
      std::push_heap(Best.begin(), Best.end());
    }
    std::sort_heap(Best.begin(), Best.end());
  }

  double predictOne(const std::vector<double> &Query, std::vector<double> &All,
                    std::vector<std::pair<double, size_t>> &Nearest) const {
    nearest(Query, std::min<size_t>(size_t(Prm.at("k")), Z.rows()), All, Nearest);
    if (Nearest.empty())
      return NAN; // a query feature is NaN: no distance compares
    const double Power = Prm.at("weighted"); // weights 1 / distance^Power
    if (Power == 0 || Nearest[0].first == 0.0)
      return meanOf(Nearest, Power != 0);
    double Num = 0, Den = 0;
    for (const auto &[D, Row] : Nearest) {
      // D is a squared distance: 1/d is 1/sqrt(D), 1/d^2 is 1/D.
      double W = RowWeight[Row] / (Power == 1 ? std::sqrt(D) : D);
      Num += W * Target[Row];
      Den += W;
    }
    return Num / Den;
  }

  /// Mean target of the nearest rows; with weights and exact matches, the mean of the exact
  /// matches (nearest first, so they lead).
  double meanOf(const std::vector<std::pair<double, size_t>> &Nearest, bool ExactOnly) const {
    double Sum = 0, Den = 0;
    for (const auto &[D, Row] : Nearest) {
      if (ExactOnly && D != 0.0)
        break;
      Sum += RowWeight[Row] * Target[Row];
      Den += RowWeight[Row];
    }
    return Sum / Den;
  }

  Params Prm;
  Standardizer Scaler;
  Matrix Train, Z;
  std::vector<double> Target;
  std::vector<double> RowWeight; ///< per training row, > 0
};

} // namespace

support::Expected<std::unique_ptr<Regressor>> createKnn(const Params &P) {
  static const std::map<std::string, ParamRange> Spec = {
      {"k", {5, 1, 1e6, true}}, {"weighted", {0, 0, 2, true}}, {"max_rows", {0, 0, 1e9, true}}};
  auto Resolved = resolveParams("knn", Spec, P);
  if (!Resolved)
    return Resolved.error();
  return std::unique_ptr<Regressor>(new KnnRegressor(std::move(*Resolved)));
}

} // namespace learners
