// Model save/load round trip, log target, determinism (learners/Model.h), on synthetic data.
#include "learners/Model.h"

#include "SyntheticData.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace learners;

namespace {
std::vector<std::string> allLearners() { return {"linear", "knn", "tree", "forest", "xgboost"}; }

Dataset smooth(uint64_t Seed, size_t N = 120) {
  return synthetic::make(
      N, 3, Seed, [](const std::vector<double> &X) { return 0.5 + std::exp(X[0]) + X[1] * X[2]; });
}
} // namespace

TEST_CASE("model: save/load round trip gives identical predictions, every learner") {
  Dataset Train = smooth(1), Test = smooth(2, 30);
  for (const std::string &Name : allLearners()) {
    CAPTURE(Name);
    ModelSpec Spec;
    Spec.learner = Name;
    if (Name == "forest")
      Spec.params = {{"num_parallel_tree", 20}};
    auto M = Model::fit(Train, Spec, "synthetic target");
    REQUIRE(M);
    std::string Json = M->toJson();
    auto Back = Model::fromJson(Json, "m.json");
    REQUIRE(Back);
    CHECK(Back->predict(Test.features) == M->predict(Test.features));
    CHECK(Back->toJson() == Json);
    CHECK(Back->learner() == Name);
    CHECK(Back->featureNames() == Train.featureNames);
    CHECK(Back->targetName() == "y");
    CHECK(Back->predicts() == "synthetic target");
  }
}

TEST_CASE("model: file save/load and bad files") {
  auto M = Model::fit(smooth(3), ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::None});
  REQUIRE(M);
  std::string Path = "learners_model_test.json";
  REQUIRE(!M->save(Path));
  auto Back = Model::load(Path);
  REQUIRE(Back);
  CHECK(Back->toJson() == M->toJson());
  std::remove(Path.c_str());
  auto Missing = Model::load("no/such/model.json");
  REQUIRE(!Missing);
  CHECK(Missing.error().str() == "no/such/model.json: error: cannot open file");
  auto NotModel = Model::fromJson("{\"format\": \"other\"}", "x.json");
  REQUIRE(!NotModel);
  CHECK(NotModel.error().str() ==
        "x.json: error: not a ptxcast model (format 'ptxcast-model', version 1)");
}

TEST_CASE("model: log target fits ln(y), predicts exp, and is recorded") {
  // y = exp(1 + 2 x1 - x2): linear in log space, so the log-linear model is exact.
  auto D = synthetic::make(
      50, 2, 9, [](const std::vector<double> &X) { return std::exp(1.0 + 2.0 * X[0] - X[1]); });
  auto M = Model::fit(D, ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::Log});
  REQUIRE(M);
  auto P = M->predict(D.features);
  for (size_t I = 0; I < P.size(); ++I)
    CHECK(P[I] == doctest::Approx(D.target[I]).epsilon(1e-9));
  CHECK(M->toJson().find("\"target_transform\": \"log\"") != std::string::npos);
  D.target[3] = 0;
  auto Bad = Model::fit(D, ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::Log});
  REQUIRE(!Bad);
  CHECK(Bad.error().message == "log target transform needs positive targets; row 4 has y = 0.0");
}

TEST_CASE("model: log features turn a power law into a linear fit, and survive save/load") {
  // y = e^0.5 (1 + x1)^2 / sqrt(1 + x2): with ln(1 + x) features and a log target, linear is exact.
  auto D = synthetic::make(
      60, 2, 5,
      [](const std::vector<double> &X) {
        return std::exp(0.5) * (1 + X[0]) * (1 + X[0]) / std::sqrt(1 + X[1]);
      },
      10, 5000);
  ModelSpec Spec{"linear", {{"lambda", 0}}, TargetTransform::Log};
  auto Plain = Model::fit(D, Spec);
  Spec.logFeatures = true;
  auto M = Model::fit(D, Spec);
  REQUIRE(M);
  REQUIRE(Plain);
  auto P = M->predict(D.features), Q = Plain->predict(D.features);
  double WorstPlain = 0;
  for (size_t I = 0; I < P.size(); ++I) {
    CHECK(P[I] == doctest::Approx(D.target[I]).epsilon(1e-9));
    WorstPlain = std::max(WorstPlain, std::fabs(Q[I] / D.target[I] - 1));
  }
  CHECK(WorstPlain > 0.1); // without the transform the power law is not linear
  auto Back = Model::fromJson(M->toJson(), "m.json");
  REQUIRE(Back);
  CHECK(Back->logFeatures());
  CHECK(Back->predict(D.features) == P);
  CHECK(M->toJson().find("\"feature_transform\": \"log1p\"") != std::string::npos);
}

TEST_CASE("model: repeated fits are byte-identical; the seed matters for the forest") {
  Dataset D = smooth(4);
  for (const std::string &Name : allLearners()) {
    CAPTURE(Name);
    ModelSpec Spec{Name, {}, TargetTransform::Log};
    if (Name == "forest")
      Spec.params = {{"num_parallel_tree", 10}};
    auto A = Model::fit(D, Spec);
    auto B = Model::fit(D, Spec);
    REQUIRE(A);
    REQUIRE(B);
    CHECK(A->toJson() == B->toJson());
  }
  auto S1 = Model::fit(D, ModelSpec{"forest", {{"num_parallel_tree", 10}, {"seed", 1}}});
  auto S2 = Model::fit(D, ModelSpec{"forest", {{"num_parallel_tree", 10}, {"seed", 2}}});
  REQUIRE(S1);
  REQUIRE(S2);
  CHECK(S1->toJson() != S2->toJson());
}

TEST_CASE("model: predicting a dataset matches features by name") {
  Dataset D = smooth(5);
  auto M = Model::fit(D, ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::None});
  REQUIRE(M);
  std::vector<std::string> Reordered = {"x3", "x1", "x2"};
  auto R = D.selectFeatures(Reordered);
  REQUIRE(R);
  auto P = M->predict(*R);
  REQUIRE(P);
  CHECK(*P == M->predict(D.features));
  std::vector<std::string> Fewer = {"x1"};
  auto Missing = M->predict(*D.selectFeatures(Fewer));
  REQUIRE(!Missing);
  CHECK(Missing.error().message == "dataset has no feature named 'x2'");
}
