// Model save/load round trip, log target, determinism (learners/Model.h), on synthetic data.
#include "learners/Model.h"

#include "SyntheticData.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

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

TEST_CASE("model: a feature list that does not match the state is refused, every learner") {
  for (const std::string &Name : allLearners()) {
    CAPTURE(Name);
    auto M = Model::fit(smooth(4), ModelSpec{Name, {}, TargetTransform::None});
    REQUIRE(M);
    auto J = nlohmann::json::parse(M->toJson());
    for (auto Features : {nlohmann::json::array(), nlohmann::json::array({"x1", "x2"}),
                          nlohmann::json::array({"x1", "x2", "x3", "x4"})}) {
      J["features"] = Features;
      auto Back = Model::fromJson(J.dump(), "m.json");
      REQUIRE(!Back);
      CHECK(Back.error().message.find("the model's state takes 3") != std::string::npos);
    }
  }
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
  CHECK(Bad.error().message ==
        "log target transform needs positive targets; the row group=g3 has y = 0.0");
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

TEST_CASE("model: repeated fits are byte-identical, the seed matters for the forest") {
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

TEST_CASE("model: a baseline and an offset column: fit ln((y - o) / b), predict o + b exp(f)") {
  // Synthetic rows: y = o + b * exp(0.3 + 0.5 x); b spans orders of magnitude, o is constant
  // except in the last rows, where it exceeds y (those rows cannot be fitted but are predicted).
  Dataset D;
  D.featureNames = {"x", "b", "o"};
  D.targetName = std::string("y");
  for (int I = 0; I < 40; ++I) {
    double X = I / 10.0, B = std::pow(10.0, I % 5), O = I < 36 ? 0.02 : 1e6;
    D.addRow({}, std::vector<double>{X, B, O}, (I < 36 ? O : 0.02) + B * std::exp(0.3 + 0.5 * X));
  }
  ModelSpec Spec{.learner = "linear",
                 .params = {{"lambda", 0}},
                 .transform = TargetTransform::Log,
                 .baseline = "b",
                 .offset = "o"};
  auto M = Model::fit(D, Spec);
  REQUIRE_MESSAGE(M, support::errorText(M));
  auto P = M->predict(D);
  REQUIRE(P);
  for (int I = 0; I < 36; ++I)
    CHECK((*P)[size_t(I)] == doctest::Approx(D.target[size_t(I)]).epsilon(1e-9));
  CHECK((*P)[39] > 1e6); // the offset is added to a row the fit left out
  auto Imp = M->featureImportance();
  REQUIRE(Imp.size() == 1); // the learner saw x only
  CHECK(Imp[0].first == "x");
  auto Back = Model::fromJson(M->toJson(), "m.json");
  REQUIRE(Back);
  CHECK(Back->baseline() == "b");
  CHECK(Back->offset() == "o");
  CHECK(*Back->predict(D) == *P);
  Spec.transform = TargetTransform::None;
  auto NoLog = Model::fit(D, Spec);
  REQUIRE(!NoLog);
  CHECK(NoLog.error().message == "a baseline column needs the log target transform");
  ModelSpec Bad{.transform = TargetTransform::Log, .baseline = "zzzz"};
  auto Unknown = Model::fit(D, Bad);
  REQUIRE(!Unknown);
  CHECK(Unknown.error().message == "no column 'zzzz' in the data");
  // A time of 0 or less is bad data, not a row the offset dominates: it was left out silently.
  Spec.transform = TargetTransform::Log;
  D.target[5] = -1;
  auto Negative = Model::fit(D, Spec);
  REQUIRE(!Negative);
  CHECK(Negative.error().message ==
        "log target transform needs positive targets; row 6 has y = -1.0");
}

TEST_CASE("model: row weights pull the fit towards the heavy rows, every learner") {
  // Two groups with the same x and different y: the fit lands near the heavier group's y.
  Dataset D;
  D.featureNames = {"x", "w"};
  D.targetName = std::string("y");
  for (int I = 0; I < 60; ++I) {
    bool Heavy = I % 2 == 0;
    D.addRow({}, std::vector<double>{double(I / 2 % 3), Heavy ? 9.0 : 1.0}, Heavy ? 10.0 : 20.0);
  }
  for (const std::string &Name : allLearners()) {
    CAPTURE(Name);
    ModelSpec Spec{.learner = Name, .weight = "w"};
    if (Name == "knn")
      Spec.params = {{"k", 10}};
    if (Name == "xgboost")
      Spec.params = {{"num_round", 50}};
    auto M = Model::fit(D, Spec);
    REQUIRE_MESSAGE(M, support::errorText(M));
    CHECK(M->featureNames() == std::vector<std::string>{"x"});
    auto P = M->predict(D);
    REQUIRE(P);
    CHECK((*P)[0] == doctest::Approx(11.0).epsilon(0.05)); // 0.9 x 10 + 0.1 x 20
  }
}
