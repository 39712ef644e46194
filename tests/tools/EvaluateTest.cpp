// `ptxcast evaluate` and `ptxcast train` end to end on synthetic rows (for mechanics, not
// accuracy): several learners on the same folds, the JSON contract, --where, --model
// scoring of a trained model or a predictor bundle (held out), the cross-GPU target of
// `ptxcast dataset` files, --report-by, --balance, byte-identical repeats and bad options.
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

std::string number(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof Buf, "%.17g", V);
  return Buf;
}

/// Synthetic rows in `ptxcast dataset`'s schema (ids, two of its features, bound_ms, overhead_ms,
/// measured_ms) whose time is the overhead plus the bound times a factor the features set:
/// measured = overhead + bound exp(0.5 share_fma + 0.3 kind_gemm + Log2x), Log2x = ln 2 when
/// `Scale2` else 0.2, and share_fma, kind_gemm = 0 when `Scale2` (the factor is then exactly 2).
std::string crossGpuCsv(const std::string &Gpu, bool Scale2, int Rows) {
  std::string S = "source,gpu,sms,runtime,math,dtype,workload,config,note,share_fma,kind_gemm,"
                  "bound_ms,overhead_ms,measured_ms\n";
  for (int I = 0; I < Rows; ++I) {
    double Fma = (I * 7 % 10) / 10.0, Gemm = I % 2, Bound = 0.01 * (1 + I % 5),
           Overhead = 0.002 * (I % 3);
    double Factor = Scale2 ? 2 : std::exp(0.5 * Fma + 0.3 * Gemm + 0.2);
    S += "neusight," + Gpu + ",all,op-call,simt,f32,conv,c" + std::to_string(I) + ",k," +
         number(Fma) + "," + number(Gemm) + "," + number(Bound) + "," + number(Overhead) + "," +
         number(Overhead + Bound * Factor) + "\n";
  }
  return S;
}

/// A CSV file without quoted fields by column: name -> values, in row order.
std::map<std::string, std::vector<std::string>> csvColumns(const std::string &Text) {
  std::istringstream Lines(Text);
  std::string Line;
  std::getline(Lines, Line);
  std::vector<std::string> Names;
  std::istringstream Header(Line);
  for (std::string Name; std::getline(Header, Name, ',');)
    Names.push_back(Name);
  std::map<std::string, std::vector<std::string>> Columns;
  while (std::getline(Lines, Line)) {
    std::istringstream Fields(Line);
    std::string F;
    for (size_t C = 0; C < Names.size() && std::getline(Fields, F, ','); ++C)
      Columns[Names[C]].push_back(F);
  }
  return Columns;
}

/// Synthetic rows for --balance: 30 rows of gpu a with ms = x + 1, 10 of gpu b with ms = x + 3,
/// x = 1..10 in both, so that a linear fit's slope is 1 and its intercept the weighted mean offset.
std::string balanceCsv() {
  std::string S = "gpu,x,ms\n";
  for (int Copy = 0; Copy < 4; ++Copy)
    for (int X = 1; X <= 10; ++X)
      S += std::string(Copy < 3 ? "a," : "b,") + std::to_string(X) + "," +
           std::to_string(X + (Copy < 3 ? 1 : 3)) + "\n";
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

TEST_CASE("evaluate: a parameter for all learners goes to those that take it, checked first") {
  TempDir Dir("evaluate_params");
  writeFile(Dir / "d.csv", syntheticCsv());
  std::string Args = "evaluate --data " + (Dir / "d.csv") + " --learners linear,knn,xgboost --cv 4";
  RunResult Threads = runPtxcast(Args + " --param nthread=2 --format json");
  REQUIRE_MESSAGE(Threads.status == 0, Threads.err);
  RunResult One = runPtxcast(Args + " --format json");
  REQUIRE(One.status == 0);
  CHECK(Threads.out == One.out); // XGBoost's threads do not change its fit
  // No learner takes it: an error before any learner is fitted (nothing on stdout).
  RunResult Bad = runPtxcast(Args + " --param nthreads=2");
  CHECK(Bad.status == 1);
  CHECK(Bad.out.empty());
  CHECK(Bad.err.find("--param nthreads=2: no learner of linear, knn, xgboost takes a parameter "
                     "'nthreads'") != std::string::npos);
  RunResult Prefixed = runPtxcast(Args + " --param knn:kk=3");
  CHECK(Prefixed.status == 1);
  CHECK(Prefixed.err.find("unknown parameter 'kk' for learner 'knn'") != std::string::npos);
}

TEST_CASE("evaluate: an ensemble learner takes its members' parameters") {
  TempDir Dir("evaluate_ensemble");
  writeFile(Dir / "d.csv", syntheticCsv());
  std::string Args = "evaluate --data " + (Dir / "d.csv") + " --cv 4 --format json";
  RunResult R = runPtxcast(Args + " --learners knn,knn+linear --param k=3 --param lambda=0");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  nlohmann::json J = nlohmann::json::parse(R.out);
  REQUIRE(J["learners"].size() == 2);
  CHECK(J["learners"][1]["name"] == "knn+linear");
  // k reached the ensemble's knn: with k=1 instead its predictions (and MAE) change.
  RunResult K1 = runPtxcast(Args + " --learners knn+linear --param k=1 --param lambda=0");
  REQUIRE(K1.status == 0);
  CHECK(nlohmann::json::parse(K1.out)["learners"][0]["mae"] != J["learners"][1]["mae"]);
  RunResult Bad = runPtxcast(Args + " --learners knn+linear --param num_round=3");
  CHECK(Bad.status == 1);
  CHECK(Bad.err.find("no learner of knn+linear takes a parameter 'num_round'") !=
        std::string::npos);
}

TEST_CASE("evaluate: --where selects rows, leave-one-group-out, table output") {
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
  CHECK(J["learners"][0]["folds"].empty());
  // Scoring is not cross-validation: the table says so and has no fold table.
  RunResult Table = runPtxcast("evaluate --model " + (Dir / "m.json") + " --data " +
                               (Dir / "d.csv") + " --where gpu=t4");
  REQUIRE_MESSAGE(Table.status == 0, Table.err);
  CHECK(Table.out.find("(held-out scoring)") != std::string::npos);
  CHECK(Table.out.find("out-of-fold") == std::string::npos);
  CHECK(Table.out.find("per fold") == std::string::npos);
}

TEST_CASE("evaluate --model: a predictor bundle scores dataset rows by column name") {
  TempDir Dir("evaluate_bundle");
  // Synthetic rows whose time is exactly the overhead plus twice the bound.
  writeFile(Dir / "train.csv", crossGpuCsv("t4", true, 12));
  RunResult Train =
      runPtxcast("train --data " + (Dir / "train.csv") +
                 " --bundle --learner linear --param lambda=0 --name twice -o " + (Dir / "b.json"));
  REQUIRE_MESSAGE(Train.status == 0, Train.err);
  // Other rows, another GPU, the columns in another order and one more feature.
  writeFile(Dir / "new.csv", "gpu,overhead_ms,bound_ms,occupancy,kind_gemm,share_fma,measured_ms\n"
                             "v100,0.003,0.02,0.5,1,0.9,0.05\n"
                             "v100,0,0.5,0.25,0,0.1,1.2\n");
  RunResult Score = runPtxcast("evaluate --model " + (Dir / "b.json") + " --data " +
                               (Dir / "new.csv") + " --predictions " + (Dir / "p.csv"));
  REQUIRE_MESSAGE(Score.status == 0, Score.err);
  CHECK(Score.out.find("(held-out scoring)") != std::string::npos);
  CHECK(Score.out.find("per fold") == std::string::npos);
  auto Predicted = csvColumns(clitest::readAll(Dir / "p.csv"))["predicted_linear"];
  REQUIRE(Predicted.size() == 2);
  CHECK(std::stod(Predicted[0]) == doctest::Approx(0.003 + 2 * 0.02));
  CHECK(std::stod(Predicted[1]) == doctest::Approx(2 * 0.5));
}

TEST_CASE("evaluate --unseen: each held-out GPU's rows one workload at a time, neither in "
          "training") {
  TempDir Dir("evaluate_unseen");
  std::string V100 = crossGpuCsv("v100", false, 8);
  writeFile(Dir / "d.csv", crossGpuCsv("t4", false, 8) + V100.substr(V100.find('\n') + 1));
  RunResult R = runPtxcast("evaluate --data " + (Dir / "d.csv") +
                           " --learners linear --param lambda=0 --cv group=gpu --unseen config "
                           "--format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  auto J = nlohmann::json::parse(R.out);
  CHECK(J["protocol"] ==
        "leave-one-group-out by 'gpu' and one 'config' value with it (neither in training)");
  const auto &Folds = J["learners"][0]["folds"];
  REQUIRE(Folds.size() == 16);
  CHECK(Folds[0]["name"] == "t4 / c0");
  CHECK(Folds[0]["n"] == 1);
  // Every workload is "conv": holding it out leaves nothing to train on.
  RunResult Empty = runPtxcast("evaluate --data " + (Dir / "d.csv") +
                               " --learners linear --cv group=gpu --unseen workload");
  CHECK(Empty.status != 0);
  CHECK(Empty.err.find("fold 't4 / conv' has no training rows left") != std::string::npos);
}

TEST_CASE("evaluate: ptxcast dataset files default to ln((measured - overhead) / bound)") {
  TempDir Dir("evaluate_cross_gpu");
  writeFile(Dir / "d.csv", crossGpuCsv("t4", false, 24));
  std::string Args =
      "evaluate --data " + (Dir / "d.csv") + " --learners linear --param lambda=0 --cv 4";
  // The default: overhead_ms is the offset, bound_ms the baseline, a log target; the factor
  // over the bound is exactly linear in the features, so linear predicts every row.
  RunResult Auto = runPtxcast(Args);
  REQUIRE_MESSAGE(Auto.status == 0, Auto.err);
  CHECK(Auto.out.rfind("target: ln((target - overhead_ms) / bound_ms)\n", 0) == 0);
  RunResult Json = runPtxcast(Args + " --format json");
  REQUIRE_MESSAGE(Json.status == 0, Json.err);
  auto J = nlohmann::json::parse(Json.out);
  CHECK(J["target_transform"] == "log");
  CHECK(J["learners"][0]["mape"].get<double>() < 1e-6);
  // Without them, the raw time is not linear in these columns.
  RunResult None = runPtxcast(Args + " --baseline none --offset none --format json");
  REQUIRE_MESSAGE(None.status == 0, None.err);
  J = nlohmann::json::parse(None.out);
  CHECK(J["target_transform"] == "none");
  CHECK(J["learners"][0]["mape"].get<double>() > 1);
  // A baseline column named outright.
  RunResult Named = runPtxcast(Args + " --baseline bound_ms --offset none");
  REQUIRE_MESSAGE(Named.status == 0, Named.err);
  CHECK(Named.out.rfind("target: ln(target / bound_ms)\n", 0) == 0);
}

TEST_CASE("evaluate --report-by: each group's MAPE of the pooled predictions") {
  TempDir Dir("evaluate_report_by");
  writeFile(Dir / "d.csv", syntheticCsv());
  std::string Args = "evaluate --data " + (Dir / "d.csv") +
                     " --learners linear,knn --param linear:lambda=0 --cv 4 --report-by gpu";
  RunResult R = runPtxcast(Args + " --format json --predictions " + (Dir / "p.csv"));
  REQUIRE_MESSAGE(R.status == 0, R.err);
  // One JSON document: the report, with the breakdown under "breakdown".
  nlohmann::json Report = nlohmann::json::parse(R.out);
  nlohmann::json Breakdown = Report["breakdown"];
  CHECK(Breakdown["by"] == nlohmann::json::array({"gpu"}));
  REQUIRE(Breakdown["groups"].size() == 2);

  // Recomputed from the predictions file: per gpu, MAPE of each learner and the median of
  // measured / predicted of the more accurate one.
  auto P = csvColumns(clitest::readAll(Dir / "p.csv"));
  for (const char *C : {"gpu", "ms", "predicted_linear", "predicted_knn"})
    REQUIRE_MESSAGE(P[C].size() == 40, C);
  const bool LinearBest =
      Report["learners"][0]["mape"].get<double>() <= Report["learners"][1]["mape"].get<double>();
  const char *Gpus[] = {"t4", "v100"};
  for (size_t G = 0; G < 2; ++G) {
    CAPTURE(Gpus[G]);
    const auto &Group = Breakdown["groups"][G];
    CHECK(Group["group"] == nlohmann::json::array({Gpus[G]}));
    CHECK(Group["rows"] == 20);
    std::map<std::string, double> Sum;
    std::vector<double> Ratios;
    for (size_t Row = 0; Row < 40; ++Row) {
      if (P["gpu"][Row] != Gpus[G])
        continue;
      double Y = std::stod(P["ms"][Row]), Linear = std::stod(P["predicted_linear"][Row]),
             Knn = std::stod(P["predicted_knn"][Row]);
      Sum["linear"] += std::fabs(Y - Linear) / Y;
      Sum["knn"] += std::fabs(Y - Knn) / Y;
      Ratios.push_back(Y / (LinearBest ? Linear : Knn));
    }
    for (const char *L : {"linear", "knn"})
      CHECK(Group["mape"][L].get<double>() == doctest::Approx(100 * Sum[L] / 20));
    std::sort(Ratios.begin(), Ratios.end());
    CHECK(Group["median_ratio"].get<double>() == doctest::Approx(Ratios[Ratios.size() / 2]));
  }
  // The table: a line per group with its row count, and two columns of groups.
  RunResult Table = runPtxcast(Args);
  REQUIRE_MESSAGE(Table.status == 0, Table.err);
  CHECK(Table.out.find("MAPE% by gpu") != std::string::npos);
  for (const char *G : {"\nt4 ", "\nv100 "})
    CHECK_MESSAGE(Table.out.find(G) != std::string::npos, G);
  RunResult Two = runPtxcast(Args + ",op --format json");
  REQUIRE_MESSAGE(Two.status == 0, Two.err);
  CHECK(nlohmann::json::parse(Two.out)["breakdown"]["groups"][0]["group"] ==
        nlohmann::json::array({"t4", "conv"}));
}

TEST_CASE("train and evaluate --balance: every group weighs the same in the fit") {
  TempDir Dir("evaluate_balance");
  writeFile(Dir / "d.csv", balanceCsv());
  std::string Data = " --data " + (Dir / "d.csv");
  // Plain least squares: the intercept is the row-weighted offset (30 x 1 + 10 x 3) / 40 = 1.5;
  // balanced by gpu, the two groups weigh the same: (1 + 3) / 2 = 2.
  for (auto [Flags, Offset] : {std::pair{"", 1.5}, std::pair{" --balance gpu", 2.0}}) {
    CAPTURE(Flags);
    RunResult Train = runPtxcast("train" + Data + " --learner linear --param lambda=0" + Flags +
                                 " -o " + (Dir / "m.json"));
    REQUIRE_MESSAGE(Train.status == 0, Train.err);
    RunResult Score = runPtxcast("evaluate --model " + (Dir / "m.json") + Data + " --predictions " +
                                 (Dir / "p.csv"));
    REQUIRE_MESSAGE(Score.status == 0, Score.err);
    auto Predicted = csvColumns(clitest::readAll(Dir / "p.csv"))["predicted_linear"];
    REQUIRE(Predicted.size() == 40);
    for (size_t Row : {0, 9, 30, 39}) // x = 1 and 10 of gpu a, then of gpu b
      CHECK(std::stod(Predicted[Row]) == doctest::Approx(double(Row % 10 + 1) + Offset));
  }
  RunResult Cv = runPtxcast("evaluate" + Data + " --learners linear --cv 4 --balance gpu");
  REQUIRE_MESSAGE(Cv.status == 0, Cv.err);
  CHECK(Cv.out.find("rows weighted so that every (gpu) group weighs the same") !=
        std::string::npos);
}

// Regression: --balance appends its weight column to the dataset, and the reports counted it
// among the predictors (p, adjusted R^2).
TEST_CASE("evaluate --balance: the weight column is not a predictor") {
  TempDir Dir("evaluate_balance_p");
  writeFile(Dir / "d.csv", balanceCsv());
  RunResult R = runPtxcast("evaluate --data " + (Dir / "d.csv") +
                           " --learners linear --cv 4 --balance gpu --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  CHECK(nlohmann::json::parse(R.out)["learners"][0]["p"] == 1);
}

TEST_CASE("evaluate: bad options are clear errors") {
  TempDir Dir("evaluate_bad");
  writeFile(Dir / "d.csv", syntheticCsv());
  std::string Data = " --data " + (Dir / "d.csv");
  struct Case {
    std::string args, message;
  } Cases[] = {
      {"--learners bogus",
       "unknown learner 'bogus' (valid: forest, knn, linear, tree, xgboost, or an "
       "ensemble of them joined by '+', e.g. knn+forest)"},
      {"--cv 1", "--cv takes a fold count of 2 or more, or group=COLUMN; got '1'"},
      {"--cv group=nope", "nope"},
      {"--cv 3 --unseen gpu", "--unseen needs --cv group=COLUMN"},
      {"--cv group=gpu --unseen nope", "no identifier column named 'nope'"},
      {"--where gpu=a100", "no rows match the --where filters"},
      {"--where x1=3", "--where takes COLUMN=VALUE with an identifier column; got 'x1=3'"},
      {"--param knn:k=0", "k"},
      {"--report-by nope", "--report-by: no identifier column 'nope'"},
      {"--balance nope", "--balance: no identifier column 'nope'"},
  };
  for (const Case &C : Cases) {
    CAPTURE(C.args);
    RunResult R = runPtxcast("evaluate" + Data + " " + C.args);
    CHECK(R.status != 0);
    CHECK(R.err.find(C.message) != std::string::npos);
    CHECK(R.err.find("error") != std::string::npos);
  }
}
