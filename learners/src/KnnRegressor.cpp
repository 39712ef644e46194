// knn: k-nearest neighbours on standardised features (exact search, deterministic ties by row),
// mean of the neighbours' targets or inverse-distance weighted; max_rows bounds the rows kept
// (and so the saved model) by a weight-proportional sample, and samples=B averages B such
// samples, their grids shifted by 1/B of a step.
#include "Learners.h"

#include "support/Base64.h"
#include "support/Parallel.h"

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
    Samples = size_t(Prm.at("samples"));
    const std::vector<double> Weights = weightsOr1(W, X.rows());
    std::vector<std::vector<double>> Keep; // per sample, each row's kept weight
    for (size_t S = 0; S < Samples; ++S)
      Keep.push_back(keptWeights(Weights, size_t(Prm.at("max_rows")), (S + 0.5) / Samples));
    for (size_t R = 0; R < X.rows(); ++R) {
      if (std::none_of(Keep.begin(), Keep.end(), [&](const auto &K) { return K[R] > 0; }))
        continue; // in no sample
      // Kept as 32-bit floats, as the saved model stores them: a loaded model predicts the same.
      std::vector<double> Row;
      for (double V : X.row(R))
        Row.push_back(double(float(V)));
      Train.appendRow(std::move(Row));
      Target.push_back(Y[R]);
      for (const auto &K : Keep)
        RowWeight.push_back(double(float(K[R])));
    }
    standardiseTrain();
    return std::nullopt;
  }

  std::vector<double> predict(const Matrix &X) const override {
    assert(X.cols() == Train.cols() && "predict width differs from the fitted width");
    std::vector<double> Out(X.rows());
    // Blocks of queries on all cores. A query's arithmetic does not depend on its block or
    // thread, and each block writes only its own queries' slots: the same bits on any machine.
    const size_t Blocks = (X.rows() + QueryBlock - 1) / QueryBlock;
    std::vector<Scratch> PerWorker(support::workerCount(Blocks, 0));
    support::parallelFor(Blocks, 0, [&](size_t B, unsigned W) {
      predictBlock(X, B * QueryBlock, Out, PerWorker[W]);
    });
    return Out;
  }

  std::vector<double> featureImportance() const override { return {}; }

  nlohmann::json saveState() const override {
    // The tables as base64 (rows row-major; rows and weights 32-bit, as fit() rounds them,
    // targets 64-bit): a fraction of the size of decimal JSON, and read in milliseconds where
    // parsing a number per value took a process 0.2 s.
    std::vector<float> Rows(Train.rows() * Train.cols());
    for (size_t R = 0; R < Train.rows(); ++R)
      for (size_t C = 0; C < Train.cols(); ++C)
        Rows[R * Train.cols() + C] = float(Train(R, C));
    nlohmann::json State = {{"standardiser", Scaler.toJson()},
                            {"train_x_f32", support::encodeFloats(Rows)},
                            {"train_y_f64", support::encodeDoubles(Target)},
                            {"train_w_f32", encoded(RowWeight)}};
    if (Samples > 1)
      State["samples"] = Samples; // train_w holds each row's weight in every sample, row-major
    return State;
  }

  size_t inputWidth() const override { return Train.cols(); }

  support::MaybeError loadState(const nlohmann::json &J) override {
    try {
      auto S = Standardizer::fromJson(J.at("standardiser"));
      auto Y = numbers(J, "train_y");
      if (!Y)
        return Y.error();
      Target = std::move(*Y);
      Samples = J.value("samples", size_t(1));
      if (J.contains("train_w") || J.contains("train_w_f32")) { // saved without: all 1
        auto W = numbers(J, "train_w");
        if (!W)
          return W.error();
        RowWeight = std::move(*W);
      } else {
        RowWeight.assign(Target.size() * Samples, 1.0);
      }
      if (!S || Target.empty() || Samples == 0 || RowWeight.size() != Target.size() * Samples)
        return Error("knn model state has inconsistent sizes");
      Scaler = *S;
      if (auto E = loadRows(J))
        return E;
    } catch (const nlohmann::json::exception &E) {
      return Error(std::string("bad knn model state: ") + E.what());
    }
    standardiseTrain();
    return std::nullopt;
  }

private:
  /// Values (rounded to floats already) as base64 of 32-bit floats.
  static std::string encoded(const std::vector<double> &Values) {
    return support::encodeFloats(std::vector<float>(Values.begin(), Values.end()));
  }

  /// The numbers of NAME_f64 or NAME_f32 (base64 doubles or floats, saveState's) or NAME (a
  /// JSON array: models saved before it) in the state J.
  static support::Expected<std::vector<double>> numbers(const nlohmann::json &J,
                                                        const std::string &Name) {
    if (J.contains(Name + "_f64")) {
      auto Doubles = support::decodeDoubles(J.at(Name + "_f64").get<std::string>());
      if (!Doubles)
        return Error("bad knn model state: " + Name + "_f64: " + Doubles.error().message);
      return std::move(*Doubles);
    }
    if (!J.contains(Name + "_f32"))
      return J.at(Name).get<std::vector<double>>();
    auto Floats = support::decodeFloats(J.at(Name + "_f32").get<std::string>());
    if (!Floats)
      return Error("bad knn model state: " + Name + "_f32: " + Floats.error().message);
    return std::vector<double>(Floats->begin(), Floats->end());
  }

  /// Train from the state's rows: `train_x_f32` (saveState's) or `train_x`, an array of arrays of
  /// numbers (models saved before it).
  support::MaybeError loadRows(const nlohmann::json &J) {
    Train = Matrix(Target.size(), Scaler.mean.size());
    if (J.contains("train_x_f32")) {
      auto Rows = support::decodeFloats(J.at("train_x_f32").get<std::string>());
      if (!Rows)
        return Error("bad knn model state: train_x_f32: " + Rows.error().message);
      if (Rows->size() != Train.rows() * Train.cols())
        return Error("knn model state has inconsistent sizes");
      for (size_t R = 0; R < Train.rows(); ++R)
        for (size_t C = 0; C < Train.cols(); ++C)
          Train(R, C) = (*Rows)[R * Train.cols() + C];
      return std::nullopt;
    }
    const nlohmann::json &Rows = J.at("train_x");
    if (Rows.size() != Train.rows())
      return Error("knn model state has inconsistent sizes");
    for (size_t R = 0; R < Train.rows(); ++R) {
      if (Rows[R].size() != Train.cols())
        return Error("knn model state has inconsistent sizes");
      for (size_t C = 0; C < Train.cols(); ++C)
        Train(R, C) = Rows[R][C].get<double>();
    }
    return std::nullopt;
  }

  /// The weight each training row keeps: W itself, or with MaxRows > 0 and more positive rows
  /// than that, a weight-proportional systematic sample of about MaxRows rows in row order (row R
  /// is drawn floor(C_R / S + Phase) - floor(C_{R-1} / S + Phase) times, C the running weight
  /// sum and S = total / MaxRows) with the draw count as its weight. Every group keeps its share
  /// of the total weight, so a balanced fit stays balanced with a bounded model size.
  static std::vector<double> keptWeights(std::vector<double> W, size_t MaxRows, double Phase) {
    size_t Positive = size_t(std::count_if(W.begin(), W.end(), [](double V) { return V > 0; }));
    if (MaxRows == 0 || Positive <= MaxRows)
      return W;
    double Total = 0;
    for (double V : W)
      Total += V;
    const double Step = Total / double(MaxRows);
    double Running = 0;
    for (double &V : W) {
      double Before = std::floor(Running / Step + Phase);
      Running += V;
      V = std::floor(Running / Step + Phase) - Before;
    }
    return W;
  }

  /// Z, the standardised rows, and each sample's rows.
  void standardiseTrain() {
    Z = Matrix(Train.rows(), Train.cols());
    for (size_t R = 0; R < Train.rows(); ++R)
      for (size_t C = 0; C < Train.cols(); ++C)
        Z(R, C) = Scaler.apply(Train(R, C), C);
    Members.assign(Samples, {});
    for (size_t R = 0; R < Train.rows(); ++R)
      for (size_t S = 0; S < Samples; ++S)
        if (weightOf(R, S) > 0)
          Members[S].push_back(R);
  }

  /// What one thread of predict() reuses from block to block.
  struct Scratch {
    std::vector<double> dist;                       ///< a block's distances, query by query
    std::vector<std::pair<double, size_t>> nearest; ///< one query's nearest rows in one sample
  };

  /// Predicts the queries of X from First on (QueryBlock of them, or the rest) into Out.
  void predictBlock(const Matrix &X, size_t First, std::vector<double> &Out, Scratch &T) const {
    const size_t Count = std::min(QueryBlock, X.rows() - First), N = Train.rows();
    distances(X, First, Count, T.dist);
    for (size_t Q = 0; Q < Count; ++Q) {
      const std::span<const double> All(T.dist.data() + Q * N, N);
      // The samples' mean (in the target's space: with a log target, the geometric mean).
      double Sum = 0;
      for (size_t S = 0; S < Samples; ++S)
        Sum += predictOne(S, All, T.nearest);
      Out[First + Q] = Sum / double(Samples);
    }
  }

  /// Four doubles, one vector register with AVX (two SSE registers without): the lanes of
  /// four queries' distance sums (a GCC and Clang vector extension).
  using Lanes4 = double __attribute__((vector_size(32)));

  /// Queries predicted together: each training row is read once for all of them, so the rows
  /// (megabytes, more than a core's cache) stream from memory once per block, not per query.
  static constexpr size_t QueryBlock = 16, VectorsPerBlock = QueryBlock / 4;

  /// Dist[Q * rows + I]: the squared distance from query First + Q of X (Count of them, at most
  /// QueryBlock) to training row I, its terms added in column order as one query alone would.
  void distances(const Matrix &X, size_t First, size_t Count, std::vector<double> &Dist) const {
    const size_t Cols = Train.cols();
    std::vector<Lanes4> Qs(Cols * VectorsPerBlock); // column C: the block's queries, 4 per vector
    for (size_t C = 0; C < Cols; ++C)
      for (size_t Q = 0; Q < Count; ++Q)
        Qs[C * VectorsPerBlock + Q / 4][Q % 4] = Scaler.apply(X(First + Q, C), C);
    Dist.resize(Count * Train.rows());
    switch ((Count + 3) / 4) { // the vectors the queries fill, so that a lone query costs one
    case 1:
      return distancesOf<1>(Qs, Count, Dist);
    case 2:
      return distancesOf<2>(Qs, Count, Dist);
    case 3:
      return distancesOf<3>(Qs, Count, Dist);
    default:
      return distancesOf<4>(Qs, Count, Dist);
    }
  }

  /// distances() with the queries in the first Vectors vectors of each column of Qs.
  template <size_t Vectors>
  void distancesOf(const std::vector<Lanes4> &Qs, size_t Count, std::vector<double> &Dist) const {
    static_assert(Vectors <= VectorsPerBlock);
    const size_t N = Train.rows(), Cols = Train.cols();
    for (size_t I = 0; I < N; ++I) {
      const double *Row = Z.row(I).data();
      Lanes4 Sum[Vectors] = {};
      for (size_t C = 0; C < Cols; ++C) {
        const Lanes4 *Q = Qs.data() + C * VectorsPerBlock;
        for (size_t V = 0; V < Vectors; ++V) {
          const Lanes4 D = Row[C] - Q[V];
          Sum[V] += D * D;
        }
      }
      for (size_t Q = 0; Q < Count; ++Q)
        Dist[Q * N + I] = Sum[Q / 4][Q % 4];
    }
  }

  /// Row R's weight in sample S (0: not drawn in it).
  double weightOf(size_t R, size_t S) const { return RowWeight[R * Samples + S]; }

  /// The K nearest rows of sample S as (squared distance, row), nearest first, ties by row: the
  /// K smallest pairs of Dist over the sample's rows, as sorting them would give, kept in a heap.
  void nearest(std::span<const double> Dist, size_t S, size_t K,
               std::vector<std::pair<double, size_t>> &Best) const {
    Best.clear();
    for (size_t I : Members[S]) {
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

  /// Sample S's prediction from the query's distances All.
  double predictOne(size_t S, std::span<const double> All,
                    std::vector<std::pair<double, size_t>> &Nearest) const {
    nearest(All, S, std::min<size_t>(size_t(Prm.at("k")), Train.rows()), Nearest);
    if (Nearest.empty())
      return NAN;                            // a query feature is NaN: no distance compares
    const double Power = Prm.at("weighted"); // weights 1 / distance^Power
    if (Power == 0 || Nearest[0].first == 0.0)
      return meanOf(Nearest, S, Power != 0);
    double Num = 0, Den = 0;
    for (const auto &[D, Row] : Nearest) {
      // D is a squared distance: 1/d is 1/sqrt(D), 1/d^2 is 1/D.
      double W = weightOf(Row, S) / (Power == 1 ? std::sqrt(D) : D);
      Num += W * Target[Row];
      Den += W;
    }
    return Num / Den;
  }

  /// Mean target of the nearest rows; with weights and exact matches, the mean of the exact
  /// matches (nearest first, so they lead).
  double meanOf(const std::vector<std::pair<double, size_t>> &Nearest, size_t S,
                bool ExactOnly) const {
    double Sum = 0, Den = 0;
    for (const auto &[D, Row] : Nearest) {
      if (ExactOnly && D != 0.0)
        break;
      Sum += weightOf(Row, S) * Target[Row];
      Den += weightOf(Row, S);
    }
    return Sum / Den;
  }

  Params Prm;
  Standardizer Scaler;
  Matrix Train, Z; ///< the rows, and the rows standardised
  std::vector<double> Target;
  size_t Samples = 1;            ///< samples averaged (samples=B)
  std::vector<double> RowWeight; ///< per training row, its weight in each sample (row-major)
  std::vector<std::vector<size_t>> Members; ///< per sample, its rows in order
};

} // namespace

support::Expected<std::unique_ptr<Regressor>> createKnn(const Params &P) {
  static const std::map<std::string, ParamRange> Spec = {{"k", {5, 1, 1e6, true}},
                                                         {"weighted", {0, 0, 2, true}},
                                                         {"max_rows", {0, 0, 1e9, true}},
                                                         {"samples", {1, 1, 64, true}}};
  auto Resolved = resolveParams("knn", Spec, P);
  if (!Resolved)
    return Resolved.error();
  if (Resolved->at("samples") > 1 && Resolved->at("max_rows") == 0) // B copies of every row
    return support::Error("parameter 'samples' of learner 'knn' averages samples of max_rows "
                          "rows: set max_rows too");
  return std::unique_ptr<Regressor>(new KnnRegressor(std::move(*Resolved)));
}

} // namespace learners
