// Predictor bundles (learners/Predictor.h): error band quantiles by hand, training ranges,
// outside-range checks, and a byte-identical JSON round trip, on synthetic data (not measurements).
#include "learners/Predictor.h"

#include "SyntheticData.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

using namespace learners;

namespace {

Dataset smooth(uint64_t Seed, size_t N = 80) {
  return synthetic::make(N, 3, Seed,
                         [](const std::vector<double> &X) { return 1 + 2 * X[0] + X[1] * X[2]; });
}

Predictor bundle(const std::string &Learner) {
  Dataset D = smooth(1);
  ModelSpec Spec;
  Spec.learner = Learner;
  if (Learner == "forest")
    Spec.params = {{"num_parallel_tree", 10}};
  auto M = Model::fit(D, Spec, "synthetic y");
  REQUIRE(M);
  PredictorInfo I;
  I.name = "synthetic-" + Learner;
  I.trainingData = "synthetic rows";
  I.trainingRows = D.size();
  I.trainingGpus = {"rtx-3090", "rtx-4090"};
  I.ranges = featureRanges(D);
  ErrorBand B;
  B.protocol = "4-fold";
  B.rows = 80;
  B.mape = 12.5;
  B.ratioLow = 0.8;
  B.ratioMedian = 1.01;
  B.ratioHigh = 1.3;
  I.band = B;
  return Predictor(std::move(*M), std::move(I));
}

} // namespace

TEST_CASE("predictor: error band quantiles of measured/predicted, worked by hand") {
  // Ratios 0.5, 1, 1.5, 2, 4 (sorted); one row with a zero prediction is left out.
  std::vector<double> Measured = {1, 2, 3, 4, 8, 5};
  std::vector<double> Predicted = {2, 2, 2, 2, 2, 0};
  auto B = errorBand(Measured, Predicted, "by hand", 0.5);
  REQUIRE_MESSAGE(B, support::errorText(B));
  CHECK(B->rows == 5);
  CHECK(B->protocol == "by hand");
  // Quantile 0.25 at position 0.25 * 4 = 1 -> 1.0; 0.75 at position 3 -> 2.0; median 1.5.
  CHECK(B->ratioLow == doctest::Approx(1.0));
  CHECK(B->ratioMedian == doctest::Approx(1.5));
  CHECK(B->ratioHigh == doctest::Approx(2.0));
  // MAPE over the five rows: |1-2|/1, 0, |3-2|/3, |4-2|/4, |8-2|/8 -> (1 + 0 + 1/3 + 1/2 + 3/4)/5.
  CHECK(B->mape == doctest::Approx(100 * (1 + 1.0 / 3 + 0.5 + 0.75) / 5));
  // The 80% band interpolates: position 0.1 * 4 = 0.4 -> 0.5 + 0.4 * 0.5 = 0.7.
  auto B80 = errorBand(Measured, Predicted, "by hand");
  REQUIRE(B80);
  CHECK(B80->ratioLow == doctest::Approx(0.7));
  CHECK(B80->ratioHigh == doctest::Approx(2 + 0.6 * 2));
}

TEST_CASE("predictor: error band rejects unusable input") {
  std::vector<double> One = {1}, Two = {1, 2}, Zero = {0};
  CHECK(!errorBand(One, Two, "p"));
  CHECK(!errorBand(Zero, One, "p"));
  CHECK(!errorBand(One, One, "p", 1.0));
}

TEST_CASE("predictor: feature ranges and outside-range features") {
  Dataset D;
  D.featureNames = {"a", "b"};
  D.targetName = "y";
  D.addRow({}, std::vector<double>{1, -5}, 0);
  D.addRow({}, std::vector<double>{3, 2}, 0);
  D.addRow({}, std::vector<double>{2, 7}, 0);
  auto R = featureRanges(D);
  REQUIRE(R.size() == 2);
  CHECK(R[0].name == "a");
  CHECK(R[0].min == 1);
  CHECK(R[0].max == 3);
  CHECK(R[1].min == -5);
  CHECK(R[1].max == 7);

  auto M = Model::fit(synthetic::make(20, 2, 3, [](const auto &X) { return X[0]; }),
                      ModelSpec{"linear", {{"lambda", 0}}, TargetTransform::None});
  REQUIRE(M);
  PredictorInfo I;
  I.ranges = {{"x1", 0, 1}, {"x2", 10, 20}};
  Predictor P(std::move(*M), I);
  CHECK(P.outsideRange({{"x1", 0.5}, {"x2", 15}}).empty());
  CHECK(P.outsideRange({{"x1", 1.5}, {"x2", 15}}) == std::vector<std::string>{"x1"});
  CHECK(P.outsideRange({{"x2", 9}, {"x1", -1}}) == std::vector<std::string>{"x1", "x2"});
  CHECK(P.outsideRange({{"other", 1e9}}).empty());
  CHECK(!P.interval(2.0)); // no band
}

TEST_CASE("predictor: interval scales the prediction by the band's ratios") {
  Predictor P = bundle("linear");
  auto I = P.interval(10);
  REQUIRE(I);
  CHECK(I->first == doctest::Approx(8));
  CHECK(I->second == doctest::Approx(13));
}

TEST_CASE("predictor: JSON round trip is byte-identical and keeps every field, every learner") {
  Dataset Test = smooth(2, 20);
  for (std::string Learner : {"linear", "knn", "tree", "forest", "xgboost"}) {
    CAPTURE(Learner);
    Predictor P = bundle(Learner);
    std::string Json = P.toJson();
    auto Back = Predictor::fromJson(Json, "b.json");
    REQUIRE_MESSAGE(Back, support::errorText(Back));
    CHECK(Back->toJson() == Json);
    CHECK(*Back->predict(Test) == *P.predict(Test));
    const PredictorInfo &I = Back->info();
    CHECK(I.name == "synthetic-" + Learner);
    CHECK(I.trainingRows == 80);
    CHECK(I.trainingGpus == std::vector<std::string>{"rtx-3090", "rtx-4090"});
    REQUIRE(I.band);
    CHECK(I.band->ratioHigh == 1.3);
    CHECK(I.band->mape == 12.5);
    REQUIRE(I.ranges.size() == 3);
    CHECK(I.ranges[2].name == "x3");
    CHECK(Back->model().predicts() == "synthetic y");
  }
}

TEST_CASE("predictor: file save/load and bad bundles") {
  Predictor P = bundle("tree");
  std::string Path = "learners_predictor_test.json";
  REQUIRE(!P.save(Path));
  auto Back = Predictor::load(Path);
  REQUIRE(Back);
  CHECK(Back->toJson() == P.toJson());
  std::remove(Path.c_str());

  auto Missing = Predictor::load("no/such/bundle.json");
  REQUIRE(!Missing);
  CHECK(Missing.error().str() == "no/such/bundle.json: error: cannot open file");
  auto NotBundle = Predictor::fromJson(P.model().toJson(), "m.json");
  REQUIRE(!NotBundle);
  CHECK(NotBundle.error().message.find("not a ptxcast predictor bundle") != std::string::npos);
  std::string Json = P.toJson();
  std::string Old = Json;
  Old.replace(Old.find("\"version\": 2"), 12, "\"version\": 1");
  auto V1 = Predictor::fromJson(Old, "old.json");
  REQUIRE(!V1);
  CHECK(V1.error().str() == "old.json: error: not a ptxcast predictor bundle (format "
                            "'ptxcast-predictor', version 2)");
  std::string BadRanges = Json;
  BadRanges.replace(BadRanges.find("\"x3\""), 4, "\"x9\"");
  auto R = Predictor::fromJson(BadRanges, "r.json");
  REQUIRE(!R);
  CHECK(R.error().message.find("feature_ranges must name the model's features") !=
        std::string::npos);
}

TEST_CASE("predictor: a bundle whose band or ranges cannot be right is refused") {
  const nlohmann::json Good = nlohmann::json::parse(bundle("linear").toJson());
  auto Edited = [&](const std::string &Section, const std::string &Key, nlohmann::json Value) {
    nlohmann::json Bad = Good;
    REQUIRE(Bad.at(Section).contains(Key));
    Bad[Section][Key] = std::move(Value);
    auto P = Predictor::fromJson(Bad.dump(), "b.json");
    REQUIRE(!P);
    return P.error().str();
  };
  // Accepted, these printed a band of "0 .. 13" and "30 .. 13" ms for a 10 ms prediction.
  const std::string Ordered =
      "b.json: error: error_band needs 0 < ratio_low <= ratio_median <= ratio_high";
  CHECK(Edited("error_band", "ratio_low", -5) == Ordered);
  CHECK(Edited("error_band", "ratio_low", 3) == Ordered);
  CHECK(Edited("error_band", "coverage", 80) ==
        "b.json: error: error_band needs a coverage in (0, 1] and a mape >= 0");
  CHECK(Edited("feature_ranges", "x1", {2, 1}) ==
        "b.json: error: feature_ranges: the range of 'x1' has its minimum above its maximum");
}
