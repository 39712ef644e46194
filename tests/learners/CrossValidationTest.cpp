// Cross-validation protocols and importance ranking (learners/CrossValidation.h), synthetic data.
#include "learners/CrossValidation.h"

#include "SyntheticData.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>

using namespace learners;

TEST_CASE("k-fold: folds partition the rows, train is the complement, seeded") {
  auto Folds = kFoldSplit(23, 5, 7);
  REQUIRE(Folds);
  REQUIRE(Folds->size() == 5);
  std::vector<int> Seen(23, 0);
  for (const Fold &F : *Folds) {
    CHECK((F.test.size() == 4 || F.test.size() == 5));
    CHECK(F.train.size() + F.test.size() == 23);
    std::set<size_t> Train(F.train.begin(), F.train.end());
    for (size_t R : F.test) {
      ++Seen[R];
      CHECK(Train.count(R) == 0);
    }
  }
  CHECK(std::all_of(Seen.begin(), Seen.end(), [](int C) { return C == 1; }));
  auto Again = kFoldSplit(23, 5, 7);
  auto Other = kFoldSplit(23, 5, 8);
  CHECK((*Again)[0].test == (*Folds)[0].test);
  CHECK((*Other)[0].test != (*Folds)[0].test);
  auto Bad = kFoldSplit(3, 5, 1);
  REQUIRE(!Bad);
  CHECK(Bad.error().message == "k-fold needs 2 <= k <= rows; got k = 5 with 3 rows");
}

TEST_CASE("group split: one fold per group, never split, sorted by value") {
  auto D = synthetic::make(
      30, 2, 1, [](const std::vector<double> &X) { return X[0]; }, 0, 1, 3);
  auto Folds = groupSplit(D, "group");
  REQUIRE(Folds);
  REQUIRE(Folds->size() == 3);
  CHECK((*Folds)[0].name == "g0");
  CHECK((*Folds)[2].name == "g2");
  for (const Fold &F : *Folds) {
    for (size_t R : F.test)
      CHECK(D.ids[R][0] == F.name);
    for (size_t R : F.train)
      CHECK(D.ids[R][0] != F.name);
    CHECK(F.test.size() + F.train.size() == 30);
  }
  // Grouping by a numeric feature column.
  for (size_t R = 0; R < D.size(); ++R)
    D.features(R, 1) = double(R % 2) * 2.5;
  auto ByFeature = groupSplit(D, "x2");
  REQUIRE(ByFeature);
  REQUIRE(ByFeature->size() == 2);
  CHECK((*ByFeature)[0].name == "0");
  CHECK((*ByFeature)[1].name == "2.5");
  CHECK(!groupSplit(D, "nope"));
}

TEST_CASE("unseen split: each group's rows one value at a time, the value out of training too") {
  // Synthetic: 3 GPUs x 4 networks, named two ways ("net-1" and "NET_1" are one network).
  learners::Dataset D;
  D.idNames = {"gpu", "workload"};
  D.featureNames = {"x"};
  D.targetName = "y";
  for (int G = 0; G < 3; ++G)
    for (int W = 0; W < 4; ++W)
      D.addRow({"gpu" + std::to_string(G), (G == 1 ? "NET_" : "net-") + std::to_string(W)},
               std::vector<double>{double(W)}, double(G + W));
  auto Folds = groupSplit(D, "gpu");
  REQUIRE(Folds);
  auto Key = [](std::string_view V) {
    std::string K;
    for (char C : V)
      if (C != '-' && C != '_')
        K += char(std::tolower(static_cast<unsigned char>(C)));
    return K;
  };
  auto Split = splitUnseen(*Folds, D, "workload", Key);
  REQUIRE(Split);
  REQUIRE(Split->size() == 12);
  CHECK((*Split)[0].name == "gpu0 / net0");
  std::vector<int> Seen(D.size(), 0);
  for (const Fold &F : *Split) {
    REQUIRE(F.test.size() == 1);
    const size_t T = F.test[0];
    ++Seen[T];
    CHECK(F.train.size() == 6); // the other 2 GPUs' rows of the other 3 networks
    for (size_t R : F.train) {
      CHECK(D.ids[R][0] != D.ids[T][0]);
      CHECK(Key(D.ids[R][1]) != Key(D.ids[T][1]));
    }
  }
  CHECK(std::all_of(Seen.begin(), Seen.end(), [](int C) { return C == 1; }));
  // Without the key, "NET_0" and "net-0" are different networks: gpu1's NET_0 stays in training.
  auto Raw = splitUnseen(*Folds, D, "workload");
  REQUIRE(Raw);
  CHECK((*Raw)[0].train.size() == 7);
  CHECK(!splitUnseen(*Folds, D, "nope"));
}

TEST_CASE("cross-validation: linear on noise-free data is exact out of fold (synthetic)") {
  auto D = synthetic::make(
      40, 2, 3, [](const std::vector<double> &X) { return 1.0 + 3.0 * X[0] + 0.1 * X[1]; });
  auto Folds = kFoldSplit(D.size(), 4, 1);
  REQUIRE(Folds);
  auto R = crossValidate(D, ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::None}, *Folds,
                         "k-fold");
  REQUIRE(R);
  CHECK(R->folds.size() == 4);
  CHECK(R->pooled.n == 40);
  CHECK(R->pooled.p == 2);
  CHECK(R->pooled.mape < 1e-8);
  CHECK(R->pooled.r2 == doctest::Approx(1.0));
  for (size_t I = 0; I < D.size(); ++I)
    CHECK(R->predictions[I] == doctest::Approx(D.target[I]));
  REQUIRE(R->importance.size() == 2);
  CHECK(R->importance[0].first == "x1");
  // Reports are deterministic and carry the protocol.
  auto Again = crossValidate(D, ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::None}, *Folds,
                             "k-fold");
  REQUIRE(Again);
  CHECK(reportJson({&*R, 1}) == reportJson({&*Again, 1}));
  CHECK(reportTable({&*R, 1}).find("most influencing predictors (linear):\n   1. x1") !=
        std::string::npos);
}

TEST_CASE("cross-validation: progress after every fold and after the full fit (synthetic)") {
  auto D = synthetic::make(30, 2, 5, [](const std::vector<double> &X) { return X[0] + X[1]; });
  auto Folds = kFoldSplit(D.size(), 3, 1);
  REQUIRE(Folds);
  std::vector<std::tuple<size_t, size_t, std::string>> Steps;
  auto R = crossValidate(D, ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::None}, *Folds,
                         "k-fold", 1, [&](size_t Done, size_t Total, std::string_view Step) {
                           Steps.emplace_back(Done, Total, std::string(Step));
                         });
  REQUIRE(R);
  REQUIRE(Steps.size() == 4);
  for (size_t I = 0; I < 3; ++I)
    CHECK(Steps[I] == std::make_tuple(I + 1, size_t(4), (*Folds)[I].name));
  CHECK(Steps[3] == std::make_tuple(size_t(4), size_t(4), std::string("all rows")));
  // A failing fold reports no progress past it.
  Steps.clear();
  std::vector<Fold> Bad = {(*Folds)[0], {"empty", {0, 1}, {}}};
  CHECK(!crossValidate(D, ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::None}, Bad, "x", 1,
                       [&](size_t Done, size_t Total, std::string_view Step) {
                         Steps.emplace_back(Done, Total, std::string(Step));
                       }));
  REQUIRE(Steps.size() == 1);
  CHECK(std::get<2>(Steps[0]) == (*Folds)[0].name);
}

TEST_CASE("cross-validation: overlapping test folds are rejected") {
  auto D = synthetic::make(10, 1, 3, [](const std::vector<double> &X) { return X[0]; });
  std::vector<Fold> Folds = {{"a", {0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}}, {"b", {0, 1, 2, 3, 4}, {9}}};
  auto R = crossValidate(D, ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::None}, Folds,
                         "custom");
  REQUIRE(!R);
  CHECK(R.error().message == "row 10 is in more than one test fold");
}

TEST_CASE("importance: permutation ranks the only informative feature first (synthetic)") {
  auto D =
      synthetic::make(80, 3, 4, [](const std::vector<double> &X) { return 5.0 * X[1] * X[1]; });
  auto M = Model::fit(D, ModelSpec{"knn", {{"k", 3}}, TargetTransform::None});
  REQUIRE(M);
  auto Rank = rankImportance(*M, D, 1); // knn has no native importance: permutation
  REQUIRE(Rank);
  REQUIRE(Rank->size() == 3);
  CHECK((*Rank)[0].first == "x2");
  CHECK((*Rank)[0].second > 5 * std::max((*Rank)[1].second, 0.0));
  auto Xgb = Model::fit(D, ModelSpec{"xgboost", {{"num_round", 30}}, TargetTransform::None});
  REQUIRE(Xgb);
  auto Native = rankImportance(*Xgb, D, 1);
  REQUIRE(Native);
  CHECK((*Native)[0].first == "x2");
  double Sum = 0;
  for (const auto &[Name, V] : *Native)
    Sum += V;
  CHECK(Sum == doctest::Approx(1.0));
}

TEST_CASE("cross-validation: tree ensembles give byte-identical reports run to run (synthetic)") {
  auto D = synthetic::make(
      90, 3, 8, [](const std::vector<double> &X) { return 1.0 + std::sin(4 * X[0]) + X[1] * X[2]; },
      0, 1, 3);
  auto Folds = groupSplit(D, "group");
  REQUIRE(Folds);
  for (const std::string &Name : std::vector<std::string>{"forest", "xgboost"}) {
    CAPTURE(Name);
    ModelSpec Spec{
        Name, {{"num_parallel_tree", Name == "forest" ? 20.0 : 1.0}}, TargetTransform::Log};
    auto A = crossValidate(D, Spec, *Folds, "leave-one-group-out");
    auto B = crossValidate(D, Spec, *Folds, "leave-one-group-out");
    REQUIRE(A);
    REQUIRE(B);
    CHECK(reportJson({&*A, 1}) == reportJson({&*B, 1}));
    CHECK(A->predictions == B->predictions);
    CHECK(A->folds.size() == 3);
  }
}
