// `ptxcast evaluate` and `ptxcast train` end to end on synthetic rows (for mechanics, not
// accuracy): several learners on the same folds, the JSON contract, --where, --model
// scoring of a trained model, byte-identical repeats, and errors for bad options.
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

using namespace clitest;

namespace {

/// Synthetic rows: ms = 2 x1 + 3 x2 (+1 on t4), with string identifiers the reader must infer.
std::string syntheticCsv() {
  std::string S = "gpu,op,x1,x2,ms\n";
  for (int I = 0; I < 40; ++I) {
    double X1 = 1 + (I * 7) % 10, X2 = 1 + (I * 3) % 11;
    bool T4 = I % 2 == 0;
    S += std::string(T4 ? "t4" : "v100") + ",conv," + std::to_string(X1) + "," +
         std::to_string(X2) + "," + std::to_string(2 * X1 + 3 * X2 + (T4 ? 1 : 0)) + "\n";
  }
  return S;
}

} // namespace

TEST_CASE("evaluate: several learners, one JSON record each, the same bytes twice") {
  TempDir Dir("evaluate");
  writeFile(Dir / "d.csv", syntheticCsv());
  std::string Args =
      "evaluate --data " + (Dir / "d.csv") + " --learners linear,knn,xgboost --cv 4 --format json";
  RunResult A = runPtxcast(Args), B = runPtxcast(Args);
  REQUIRE_MESSAGE(A.status == 0, A.err);
  CHECK(A.out == B.out);
  auto J = nlohmann::json::parse(A.out);
  CHECK(J["protocol"] == "4-fold cross-validation (shuffle seed 1)");
  REQUIRE(J["learners"].size() == 3);
  CHECK(J["learners"][0]["name"] == "linear");
  CHECK(J["learners"][2]["name"] == "xgboost");
  for (const auto &L : J["learners"]) {
    for (const char *Key : {"mape", "rmse", "mae", "r2", "adj_r2"})
      CHECK_MESSAGE(L.contains(Key), Key);
    CHECK(L["n"] == 40);
    CHECK(L["p"] == 2); // gpu and op were inferred as identifiers
    CHECK(L["folds"].size() == 4);
  }
  // The per-GPU offset is invisible to the features, so linear is off by about 0.5 ms per row.
  CHECK(J["learners"][0]["mae"].get<double>() == doctest::Approx(0.5).epsilon(0.1));
}

TEST_CASE("evaluate: --where selects rows; leave-one-group-out; table output") {
  TempDir Dir("evaluate_where");
  writeFile(Dir / "d.csv", syntheticCsv());
  RunResult T4 =
      runPtxcast("evaluate --data " + (Dir / "d.csv") +
                 " --where gpu=t4 --learners linear --param lambda=0 --cv 3 --format json");
  REQUIRE_MESSAGE(T4.status == 0, T4.err);
  auto J = nlohmann::json::parse(T4.out);
  CHECK(J["learners"][0]["n"] == 20);
  CHECK(J["learners"][0]["mape"].get<double>() < 1e-6); // exactly linear within one GPU
  RunResult Logo =
      runPtxcast("evaluate --data " + (Dir / "d.csv") + " --learners all --cv group=gpu");
  REQUIRE_MESSAGE(Logo.status == 0, Logo.err);
  CHECK(Logo.out.find("leave-one-group-out by 'gpu'") != std::string::npos);
  for (const char *Name : {"linear", "knn", "tree", "forest", "xgboost", "t4", "v100"})
    CHECK_MESSAGE(Logo.out.find(Name) != std::string::npos, Name);
}

TEST_CASE("evaluate --model: a trained model scored on new data") {
  TempDir Dir("evaluate_model");
  writeFile(Dir / "d.csv", syntheticCsv());
  RunResult Train =
      runPtxcast("train --data " + (Dir / "d.csv") +
                 " --where gpu=v100 --learner linear --param lambda=0 -o " + (Dir / "m.json"));
  REQUIRE_MESSAGE(Train.status == 0, Train.err);
  RunResult Score = runPtxcast("evaluate --model " + (Dir / "m.json") + " --data " +
                               (Dir / "d.csv") + " --where gpu=t4 --format json");
  REQUIRE_MESSAGE(Score.status == 0, Score.err);
  auto J = nlohmann::json::parse(Score.out);
  REQUIRE(J["learners"].size() == 1);
  CHECK(J["learners"][0]["name"] == "linear");
  // Fitted on v100 rows, the model misses the t4 offset of exactly 1 ms on every row.
  CHECK(J["learners"][0]["mae"].get<double>() == doctest::Approx(1.0).epsilon(1e-6));
}

TEST_CASE("evaluate: bad options are clear errors") {
  TempDir Dir("evaluate_bad");
  writeFile(Dir / "d.csv", syntheticCsv());
  std::string Data = " --data " + (Dir / "d.csv");
  struct Case {
    std::string args, message;
  } Cases[] = {
      {"--learners bogus", "unknown learner 'bogus' (valid: forest, knn, linear, tree, xgboost)"},
      {"--cv 1", "--cv takes a fold count of 2 or more, or group=COLUMN; got '1'"},
      {"--cv group=nope", "nope"},
      {"--where gpu=a100", "no rows match the --where filters"},
      {"--where x1=3", "--where takes COLUMN=VALUE with an identifier column; got 'x1=3'"},
      {"--param knn:k=0", "k"},
  };
  for (const Case &C : Cases) {
    CAPTURE(C.args);
    RunResult R = runPtxcast("evaluate" + Data + " " + C.args);
    CHECK(R.status != 0);
    CHECK(R.err.find(C.message) != std::string::npos);
    CHECK(R.err.find("error") != std::string::npos);
  }
}
