// Regressor mechanics on synthetic data (learners/Regressor.h): linear recovers coefficients,
// knn is exact with k=1, tree fits a step function, forest/xgboost beat the mean predictor.
#include "learners/Regressor.h"

#include "SyntheticData.h"
#include "support/Base64.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <numeric>

using namespace learners;

namespace {

std::unique_ptr<Regressor> make(const std::string &Name, const Params &P = {}) {
  auto R = createRegressor(Name, P);
  REQUIRE(R);
  return std::move(*R);
}

double rmse(const std::vector<double> &A, const std::vector<double> &B) {
  double S = 0;
  for (size_t I = 0; I < A.size(); ++I)
    S += (A[I] - B[I]) * (A[I] - B[I]);
  return std::sqrt(S / double(A.size()));
}

// A knn state's table NAME_f32 or NAME_f64 (base64 of 32- or 64-bit floats).
std::vector<double> floatsOf(const nlohmann::json &State, const std::string &Name) {
  if (State.contains(Name + "_f64")) {
    auto V = support::decodeDoubles(State.at(Name + "_f64").get<std::string>());
    REQUIRE(V);
    return *V;
  }
  auto V = support::decodeFloats(State.at(Name + "_f32").get<std::string>());
  REQUIRE(V);
  return std::vector<double>(V->begin(), V->end());
}

// Rows: the origin and each unit vector, to read intercept and slopes off a linear model.
Matrix probes(size_t P) {
  Matrix M(P + 1, P);
  for (size_t J = 0; J < P; ++J)
    M(J + 1, J) = 1.0;
  return M;
}

} // namespace

TEST_CASE("factory: names, unknown learner, unknown parameter, bad value") {
  CHECK(regressorNames() == std::vector<std::string>{"forest", "knn", "linear", "tree", "xgboost"});
  auto Bad = createRegressor("svm");
  REQUIRE(!Bad);
  CHECK(
      Bad.error().str() ==
      "error: unknown learner 'svm' (valid: forest, knn, linear, tree, xgboost, or an ensemble of "
      "them joined by '+', e.g. knn+forest)");
  auto BadParam = createRegressor("knn", {{"kk", 3}});
  REQUIRE(!BadParam);
  CHECK(BadParam.error().str() ==
        "error: unknown parameter 'kk' for learner 'knn' (valid: k, max_rows, samples, weighted)");
  auto BadValue = createRegressor("knn", {{"k", 2.5}});
  REQUIRE(!BadValue);
  CHECK(BadValue.error().message.find("must be an integer") != std::string::npos);
  auto R = make("xgboost", {{"num_round", 7}});
  CHECK(R->params().at("num_round") == 7);
  CHECK(R->params().at("nthread") == 1);
}

TEST_CASE("factory: parameters from name=value strings") {
  std::vector<std::string> Good = {"k=3", "weighted=1", "eta=1e-2"};
  auto P = parseParams(Good);
  REQUIRE(P);
  CHECK(*P == Params{{"eta", 0.01}, {"k", 3}, {"weighted", 1}});
  for (std::string Bad : {"k", "=3", "k=", "k=3x"}) {
    std::vector<std::string> One = {Bad};
    auto E = parseParams(One);
    REQUIRE(!E);
    CHECK(E.error().message == "parameter '" + Bad + "' must read name=number");
  }
}

TEST_CASE("linear: recovers noise-free coefficients (synthetic)") {
  auto D = synthetic::make(
      60, 3, 11,
      [](const std::vector<double> &X) { return 3.0 + 2.0 * X[0] - 0.5 * X[1] + 0.25 * X[2]; }, -5,
      5);
  auto R = make("linear", {{"lambda", 0}});
  REQUIRE(!R->fit(D.features, D.target));
  auto P = R->predict(probes(3));
  CHECK(P[0] == doctest::Approx(3.0).epsilon(1e-9));
  CHECK(std::fabs(P[1] - P[0] - 2.0) < 1e-6);
  CHECK(std::fabs(P[2] - P[0] + 0.5) < 1e-6);
  CHECK(std::fabs(P[3] - P[0] - 0.25) < 1e-6);
  // Importance is |standardised coefficient| = |b_j| * sd(x_j): x1 > x2 > x3 here.
  auto Imp = R->featureImportance();
  REQUIRE(Imp.size() == 3);
  CHECK(Imp[0] > Imp[1]);
  CHECK(Imp[1] > Imp[2]);
}

TEST_CASE("linear: ridge shrinks coefficients, constant column is harmless (synthetic)") {
  auto D = synthetic::make(40, 2, 5, [](const std::vector<double> &X) { return 4.0 * X[0]; });
  for (size_t I = 0; I < D.size(); ++I)
    D.features(I, 1) = 7.0; // constant feature
  auto Plain = make("linear", {{"lambda", 0}});
  REQUIRE(!Plain->fit(D.features, D.target));
  auto P = Plain->predict(probes(2));
  CHECK(std::fabs(P[1] - P[0] - 4.0) < 1e-6);
  auto Ridge = make("linear", {{"lambda", 10}});
  REQUIRE(!Ridge->fit(D.features, D.target));
  auto Q = Ridge->predict(probes(2));
  CHECK(Q[1] - Q[0] < 4.0 - 0.1);
  CHECK(Q[1] - Q[0] > 0.0);
}

TEST_CASE("linear: duplicated features share the weight (minimum norm, synthetic)") {
  auto D = synthetic::make(30, 3, 6, [](const std::vector<double> &X) { return 1 + 2 * X[0]; });
  for (size_t I = 0; I < D.size(); ++I)
    D.features(I, 1) = D.features(I, 0); // x2 duplicates x1
  auto R = make("linear", {{"lambda", 0}});
  REQUIRE(!R->fit(D.features, D.target));
  auto P = R->predict(probes(3));
  CHECK(std::fabs(P[1] - P[0] - 1.0) < 1e-6);
  CHECK(std::fabs(P[2] - P[0] - 1.0) < 1e-6);
  CHECK(std::fabs(P[3] - P[0]) < 1e-6);
  auto Imp = R->featureImportance();
  CHECK(Imp[0] == doctest::Approx(Imp[1]));
  CHECK(Imp[2] < 1e-6);
}

TEST_CASE("knn: k=1 is exact on training points, k=3 mean and weighted (synthetic)") {
  auto D = synthetic::make(50, 4, 3, [](const std::vector<double> &X) {
    return std::sin(5 * X[0]) + X[1] * X[2] - X[3];
  });
  auto R = make("knn", {{"k", 1}});
  REQUIRE(!R->fit(D.features, D.target));
  CHECK(R->predict(D.features) == D.target);
  CHECK(R->featureImportance().empty());

  Matrix X(4, 1);
  X(0, 0) = 0, X(1, 0) = 1, X(2, 0) = 2, X(3, 0) = 10;
  std::vector<double> Y = {0, 1, 2, 10};
  Matrix Q(1, 1);
  Q(0, 0) = 1.2; // neighbours 1 (0.2), 2 (0.8), 0 (1.2)
  auto Mean = make("knn", {{"k", 3}});
  REQUIRE(!Mean->fit(X, Y));
  CHECK(Mean->predict(Q)[0] == doctest::Approx(1.0));
  auto Weighted = make("knn", {{"k", 3}, {"weighted", 1}});
  REQUIRE(!Weighted->fit(X, Y));
  // weights 1/0.2, 1/0.8, 1/1.2 (standardising scales all distances alike)
  CHECK(Weighted->predict(Q)[0] == doctest::Approx(7.5 / (5.0 + 1.25 + 1.0 / 1.2)));
  auto Square = make("knn", {{"k", 3}, {"weighted", 2}});
  REQUIRE(!Square->fit(X, Y));
  // weights 1/0.04, 1/0.64, 1/1.44: the closest row counts more than with 1/d
  const double W0 = 1 / 0.04, W1 = 1 / 0.64, W2 = 1 / 1.44;
  CHECK(Square->predict(Q)[0] == doctest::Approx((W0 * 1 + W1 * 2 + W2 * 0) / (W0 + W1 + W2)));
  CHECK(!createRegressor("knn", {{"k", 3}, {"weighted", 3}})); // 0, 1 or 2
}

TEST_CASE("knn: equally near rows count in row order, and a NaN query predicts NaN (synthetic)") {
  // Rows 1, 2, 3 and 4 are all 1 away from the query 1 (x = 0, 2, 0, 2); k = 2 takes row 0
  // (distance 0.5) and the first of the ties, row 1, whatever the rows after it hold. The
  // column's mean is 1 exactly, so standardising leaves the ties exact (-1/s and 1/s about 0).
  Matrix X(7, 1);
  X(0, 0) = 0.5, X(1, 0) = 0, X(2, 0) = 2, X(3, 0) = 0, X(4, 0) = 2, X(5, 0) = 9, X(6, 0) = -6.5;
  Matrix Q(2, 1);
  Q(0, 0) = 1;
  Q(1, 0) = std::nan("");
  auto R = make("knn", {{"k", 2}});
  REQUIRE(!R->fit(X, std::vector<double>{10, 20, 30, 40, 50, 60, 70}));
  auto P = R->predict(Q);
  CHECK(P[0] == doctest::Approx(15.0));
  CHECK(std::isnan(P[1]));
  // Nine rows, so the four-row blocks of the distance loop end with a partial one.
  Matrix X9(9, 2);
  std::vector<double> Y9;
  for (size_t I = 0; I < 9; ++I) {
    X9(I, 0) = double(I % 3), X9(I, 1) = double(I / 3);
    Y9.push_back(double(I));
  }
  auto One = make("knn", {{"k", 1}});
  REQUIRE(!One->fit(X9, Y9));
  CHECK(One->predict(X9) == Y9);
}

TEST_CASE("knn: many queries, in blocks on all cores, give the bits each gives alone (synthetic)") {
  // 100 queries are seven blocks of 16 (the last partial) that predict() runs on all cores.
  auto D = synthetic::make(300, 3, 11, [](const std::vector<double> &X) { return X[0] * X[1]; });
  auto R = make("knn", {{"k", 7}, {"weighted", 1}, {"max_rows", 120}, {"samples", 3}});
  REQUIRE(!R->fit(D.features, D.target));
  Matrix Q(100, 3);
  for (size_t I = 0; I < 100; ++I)
    for (size_t C = 0; C < 3; ++C)
      Q(I, C) = D.features(I * 3, C) + 0.01 * double(C);
  const std::vector<double> All = R->predict(Q);
  REQUIRE(All.size() == 100);
  for (size_t I = 0; I < 100; ++I) {
    Matrix One(1, 3);
    for (size_t C = 0; C < 3; ++C)
      One(0, C) = Q(I, C);
    CAPTURE(I);
    CHECK(R->predict(One)[0] == All[I]);
  }
}

TEST_CASE("tree: fits a step function exactly (synthetic)") {
  learners::Dataset D;
  D.featureNames = {"x"};
  D.targetName = std::string("y");
  for (int I = 0; I < 40; ++I) {
    double X = I / 40.0;
    double Y = X < 0.3 ? 1.0 : (X < 0.7 ? 5.0 : 2.0);
    D.addRow({}, std::vector<double>{X}, Y);
  }
  auto R = make("tree");
  REQUIRE(!R->fit(D.features, D.target));
  auto P = R->predict(D.features);
  for (size_t I = 0; I < P.size(); ++I)
    CHECK(P[I] == doctest::Approx(D.target[I]).epsilon(1e-6));
  Matrix Between(3, 1);
  Between(0, 0) = 0.1, Between(1, 0) = 0.5, Between(2, 0) = 0.9;
  auto Q = R->predict(Between);
  CHECK(Q[0] == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(Q[1] == doctest::Approx(5.0).epsilon(1e-6));
  CHECK(Q[2] == doctest::Approx(2.0).epsilon(1e-6));
  auto Imp = R->featureImportance();
  REQUIRE(Imp.size() == 1);
  CHECK(Imp[0] > 0);
}

TEST_CASE("xgboost and the forest split on histogram bins by default, the tree exactly "
          "(synthetic)") {
  // 2048 distinct x with a step between two neighbours: an exact split finds it; 256 quantile
  // bins hold 8 points each, so a histogram split cannot separate x = 1029 / 2048 from 1028.
  learners::Dataset D;
  D.featureNames = {"x"};
  D.targetName = std::string("y");
  for (int I = 0; I < 2048; ++I)
    D.addRow({}, std::vector<double>{I / 2048.0}, I >= 1029 ? 1.0 : 0.0);
  auto worstError = [&](const std::string &Name, learners::Params P) {
    auto R = make(Name, std::move(P));
    REQUIRE(!R->fit(D.features, D.target));
    double Worst = 0;
    auto Pred = R->predict(D.features);
    for (size_t I = 0; I < Pred.size(); ++I)
      Worst = std::max(Worst, std::abs(Pred[I] - D.target[I]));
    return Worst;
  };
  const learners::Params Stump = {{"num_round", 1}, {"eta", 1}, {"lambda", 0}, {"max_depth", 1}};
  CHECK(make("tree")->params().at("hist") == 0);
  CHECK(make("forest")->params().at("hist") == 1);
  CHECK(make("xgboost")->params().at("hist") == 1);
  CHECK(worstError("tree", {{"max_depth", 1}}) < 1e-6);
  CHECK(worstError("xgboost", Stump) > 0.1);
  learners::Params Exact = Stump;
  Exact["hist"] = 0;
  CHECK(worstError("xgboost", Exact) < 1e-6);
}

TEST_CASE("forest and xgboost beat the mean predictor on a nonlinear function (synthetic)") {
  auto F = [](const std::vector<double> &X) {
    return std::sin(6 * X[0]) + 2 * X[1] * X[1] + (X[2] > 0.5 ? 1.0 : 0.0);
  };
  auto Train = synthetic::make(300, 4, 21, F);
  auto Test = synthetic::make(100, 4, 22, F);
  double Mean = 0;
  for (double Y : Train.target)
    Mean += Y / double(Train.size());
  double Baseline = rmse(Test.target, std::vector<double>(Test.size(), Mean));
  for (const char *Name : {"forest", "xgboost"}) {
    CAPTURE(Name);
    auto R = make(Name);
    REQUIRE(!R->fit(Train.features, Train.target));
    double E = rmse(Test.target, R->predict(Test.features));
    CHECK(E < 0.5 * Baseline);
    auto Imp = R->featureImportance();
    REQUIRE(Imp.size() == 4);
    CHECK(Imp[3] < Imp[0]); // x4 is noise
  }
}

TEST_CASE("fit rejects mismatched or non-finite data") {
  Matrix X(2, 1);
  std::vector<double> Y = {1};
  auto R = make("linear", {{"lambda", 0}});
  auto E = R->fit(X, Y);
  REQUIRE(E);
  CHECK(E->message == "feature rows (2) and targets (1) differ in number");
  std::vector<double> Nan = {1, std::nan("")};
  auto F = make("xgboost")->fit(X, Nan);
  REQUIRE(F);
  CHECK(F->message == "targets contain nan: every value must be finite and within +-1e30");
  // A finite value too large to standardise (or to keep as a float) is refused by every
  // learner, not fitted into a state of NaNs.
  Matrix Huge(2, 1);
  Huge(1, 0) = 1e308;
  for (const char *Name : {"linear", "knn", "xgboost"}) {
    CAPTURE(Name);
    auto G = make(Name)->fit(Huge, std::vector<double>{1, 2});
    REQUIRE(G);
    CHECK(G->message ==
          "features contain 1e+308 (row 2, column 1): every value must be finite and within "
          "+-1e30");
  }
}

TEST_CASE("knn: max_rows keeps a weight-proportional sample of the rows (synthetic)") {
  // 200 rows of y = x1 in two groups: rows 0-99 weigh 1 each, rows 100-199 weigh 3 each, so a
  // 40-row sample keeps about 10 rows of the first and 30 of the second.
  auto D = synthetic::make(200, 1, 3, [](const std::vector<double> &X) { return X[0]; });
  std::vector<double> W(200, 1.0);
  std::fill(W.begin() + 100, W.end(), 3.0);
  auto Full = make("knn", {{"k", 1}});
  auto Small = make("knn", {{"k", 1}, {"max_rows", 40}});
  REQUIRE(!Full->fit(D.features, D.target, W));
  REQUIRE(!Small->fit(D.features, D.target, W));
  const nlohmann::json State = Small->saveState();
  auto Kept = floatsOf(State, "train_w");
  CHECK(Kept.size() == 40);
  CHECK(std::accumulate(Kept.begin(), Kept.end(), 0.0) == 40);
  // Each group keeps its share of the weight: a quarter for the first, three quarters after.
  // The rows are stored as base64 of 32-bit floats (one feature here).
  auto Xs = floatsOf(State, "train_x");
  REQUIRE(Xs.size() == 40);
  double FirstGroup = 0;
  for (size_t I = 0; I < Xs.size(); ++I)
    for (size_t R = 0; R < 100; ++R)
      if (Xs[I] == double(float(D.features(R, 0))))
        FirstGroup += Kept[I];
  CHECK(FirstGroup == doctest::Approx(10).epsilon(0.1));
  // The full model is exact on its training rows; the sample is not, but still close to y = x.
  CHECK(rmse(Full->predict(D.features), D.target) < 1e-12);
  double Err = rmse(Small->predict(D.features), D.target);
  CHECK(Err > 0);
  CHECK(Err < 0.05);
  // Fewer rows than max_rows: nothing is dropped.
  auto Loose = make("knn", {{"k", 1}, {"max_rows", 1000}});
  REQUIRE(!Loose->fit(D.features, D.target, W));
  CHECK(floatsOf(Loose->saveState(), "train_y").size() == 200);
}

TEST_CASE("knn: samples=B averages B weight-proportional samples on shifted grids (synthetic)") {
  // 200 rows of y = x1, weighing 1 (rows 0-99) and 3 (rows 100-199), as above.
  auto D = synthetic::make(200, 1, 3, [](const std::vector<double> &X) { return X[0]; });
  std::vector<double> W(200, 1.0);
  std::fill(W.begin() + 100, W.end(), 3.0);
  auto One = make("knn", {{"k", 1}, {"max_rows", 40}});
  auto Four = make("knn", {{"k", 1}, {"max_rows", 40}, {"samples", 4}});
  REQUIRE(!One->fit(D.features, D.target, W));
  REQUIRE(!Four->fit(D.features, D.target, W));
  const nlohmann::json State = Four->saveState();
  CHECK(State.at("samples") == 4);
  const size_t Rows = floatsOf(State, "train_y").size();
  auto Kept = floatsOf(State, "train_w");
  REQUIRE(Kept.size() == Rows * 4);
  // The samples draw different rows (their union is larger than one), each about 40 draws.
  CHECK(Rows > 40);
  CHECK(Rows <= 160);
  for (size_t S = 0; S < 4; ++S) {
    double Sum = 0;
    for (size_t R = 0; R < Rows; ++R)
      Sum += Kept[R * 4 + S];
    CHECK(Sum == doctest::Approx(40).epsilon(0.05));
  }
  // The mean of four 1-nearest-neighbour predictions is closer to y = x than one sample's.
  const double ErrOne = rmse(One->predict(D.features), D.target);
  const double ErrFour = rmse(Four->predict(D.features), D.target);
  CHECK(ErrFour < ErrOne);
  // Saved and loaded, it predicts the same; a state whose weights do not fit is refused.
  auto Again = make("knn", {{"k", 1}, {"max_rows", 40}, {"samples", 4}});
  REQUIRE(!Again->loadState(State));
  CHECK(Again->predict(D.features) == Four->predict(D.features));
  nlohmann::json Bad = State;
  Bad["samples"] = 3;
  CHECK(Again->loadState(Bad).has_value());
  // Without max_rows every sample would be every row: refused, not computed five times over.
  auto NoRows = createRegressor("knn", {{"samples", 4}});
  REQUIRE(!NoRows);
  CHECK(NoRows.error().message ==
        "parameter 'samples' of learner 'knn' averages samples of max_rows rows: set max_rows too");
  Bad = State;
  Bad["train_x_f32"] = "AACAPw=="; // one float for many rows
  CHECK(Again->loadState(Bad).has_value());
}

TEST_CASE(
    "knn: a model saved with decimal tables (train_x, train_y, train_w) loads and predicts the "
    "same (synthetic)") {
  auto D = synthetic::make(30, 2, 5, [](const std::vector<double> &X) { return X[0] - X[1]; });
  auto R = make("knn", {{"k", 3}, {"weighted", 1}});
  REQUIRE(!R->fit(D.features, D.target));
  nlohmann::json State = R->saveState();
  auto Xs = floatsOf(State, "train_x");
  nlohmann::json Rows = nlohmann::json::array();
  for (size_t I = 0; I < 30; ++I)
    Rows.push_back({Xs[2 * I], Xs[2 * I + 1]});
  nlohmann::json Old = State;
  Old.erase("train_x_f32");
  Old["train_x"] = Rows;
  Old["train_y"] = floatsOf(State, "train_y");
  Old["train_w"] = floatsOf(State, "train_w");
  Old.erase("train_y_f64");
  Old.erase("train_w_f32");
  auto Loaded = make("knn", {{"k", 3}, {"weighted", 1}});
  REQUIRE(!Loaded->loadState(Old));
  CHECK(Loaded->predict(D.features) == R->predict(D.features));
  Old["train_x"].erase(29);
  CHECK(Loaded->loadState(Old).has_value());
  nlohmann::json Bad = State;
  Bad["train_y_f64"] = "Zm9v*mFy";
  auto E = Loaded->loadState(Bad);
  REQUIRE(E.has_value());
  CHECK(E->message == "bad knn model state: train_y_f64: invalid base64 character at offset 4");
}

TEST_CASE("ensemble: the mean of its members, parameters routed by name (synthetic)") {
  auto D = synthetic::make(
      300, 2, 9, [](const std::vector<double> &X) { return std::sin(6 * X[0]) + X[1] * X[1]; });
  Params P = {{"k", 3}, {"nthread", 1}, {"forest.max_depth", 5}};
  auto E = make("knn+forest", P);
  CHECK(E->name() == "knn+forest");
  CHECK(E->params().at("knn.k") == 3);
  CHECK(E->params().at("forest.max_depth") == 5);
  CHECK(E->params().at("forest.nthread") == 1);
  REQUIRE(!E->fit(D.features, D.target));
  auto Knn = make("knn", {{"k", 3}});
  auto Forest = make("forest", {{"max_depth", 5}});
  REQUIRE(!Knn->fit(D.features, D.target));
  REQUIRE(!Forest->fit(D.features, D.target));
  auto PE = E->predict(D.features), PK = Knn->predict(D.features), PF = Forest->predict(D.features);
  for (size_t I = 0; I < PE.size(); ++I)
    CHECK(PE[I] == doctest::Approx((PK[I] + PF[I]) / 2).epsilon(1e-12));
  // Saved and re-created from its own params(), it predicts the same.
  auto Again = make("knn+forest", E->params());
  REQUIRE(!Again->loadState(E->saveState()));
  CHECK(Again->predict(D.features) == PE);
  // knn has no native importance, so the ensemble has none either.
  CHECK(E->featureImportance().empty());
  auto Trees = make("tree+xgboost");
  REQUIRE(!Trees->fit(D.features, D.target));
  auto Imp = Trees->featureImportance();
  REQUIRE(Imp.size() == 2);
  CHECK(Imp[0] + Imp[1] == doctest::Approx(1.0));
  CHECK(takesParam("knn+forest", "k"));
  CHECK(takesParam("knn+forest", "max_depth"));
  CHECK(!takesParam("knn+linear", "num_round"));
}

TEST_CASE("ensemble: bad names and parameters are errors") {
  for (std::string Bad : {"knn+", "+knn", "knn+knn", "knn++forest"}) {
    auto E = createRegressor(Bad);
    REQUIRE(!E);
    CHECK(E.error().message.find("distinct learner names joined by '+'") != std::string::npos);
  }
  auto Unknown = createRegressor("knn+svm");
  REQUIRE(!Unknown);
  CHECK(Unknown.error().message.find("unknown learner 'svm'") != std::string::npos);
  auto NoTaker = createRegressor("knn+linear", {{"num_round", 1}});
  REQUIRE(!NoTaker);
  CHECK(NoTaker.error().message ==
        "no member of ensemble 'knn+linear' takes a parameter 'num_round'");
  auto Range = createRegressor("knn+forest", {{"k", 0}});
  REQUIRE(!Range);
  auto Wrong = make("knn+forest");
  CHECK(Wrong->loadState(nlohmann::json::parse(R"({"members": []})")).has_value());
}
