// `ptxcast evaluate --data CSV... [--learners all|A,B] [--cv K | --cv group=COL [--unseen COL]]`:
// cross-validates learners on a dataset and reports MAPE, RMSE, MAE, R^2 and adjusted R^2 per
// learner, per fold, and the most influencing predictors. `ptxcast evaluate --model MODEL.json
// --data CSV...` scores a trained model on new data.
#include "Commands.h"
#include "LearnerOptions.h"

#include "learners/CrossValidation.h"
#include "learners/Predictor.h"
#include "support/Files.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>

namespace ptxcast {
namespace {

struct EvaluateOptions {
  DataOptions data;
  ModelOptions model;
  std::string learners = "all";
  std::string cv = "5";
  std::string unseen; ///< --unseen COLUMN
  uint64_t seed = 1;
  std::string format = "table";
  std::string predictions;
  std::string trained; ///< --model: score this model instead of cross-validating
  std::vector<std::string> reportBy; ///< identifier columns to break the metrics down by
};

/// Predictions as CSV: identifiers, measured target, then one column per learner.
learners::Dataset predictionTable(const learners::Dataset &D,
                                  const std::vector<learners::CvReport> &Reports) {
  learners::Dataset Out;
  Out.idNames = D.idNames;
  Out.featureNames = {D.targetName};
  for (size_t L = 0; L + 1 < Reports.size(); ++L)
    Out.featureNames.push_back("predicted_" + Reports[L].learner);
  Out.targetName = "predicted_" + Reports.back().learner;
  for (size_t I = 0; I < D.size(); ++I) {
    std::vector<double> Row = {D.target[I]};
    for (size_t L = 0; L + 1 < Reports.size(); ++L)
      Row.push_back(Reports[L].predictions[I]);
    Out.addRow(D.ids[I], Row, Reports.back().predictions[I]);
  }
  return Out;
}

/// A trained model's predictions on D, reported like a cross-validation without folds.
support::Expected<learners::CvReport> scoreModel(const learners::Model &M, const std::string &File,
                                                 const learners::Dataset &D) {
  auto P = M.predict(D);
  if (!P)
    return P.error();
  learners::CvReport R;
  R.learner = M.learner();
  R.transform = std::string(learners::transformName(M.transform()));
  R.protocol = "trained model " + File + " (" + M.predicts() + ") on new data";
  R.predictions = std::move(*P);
  R.pooled = learners::computeMetrics(D.target, R.predictions, M.inputCount());
  for (const auto &[Name, V] : M.featureImportance())
    R.importance.emplace_back(Name, V);
  std::stable_sort(R.importance.begin(), R.importance.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  return R;
}

/// Scores File on D: a trained model (`ptxcast train -o`), or the model of a predictor bundle
/// (models/*.json), which applies to a dataset row (one operator, launch or network) as-is.
support::Expected<learners::CvReport> scoreFile(const std::string &File,
                                                const learners::Dataset &D) {
  auto Text = support::readFile(File);
  if (!Text)
    return Text.error();
  auto M = learners::Model::fromJson(*Text, File);
  if (M)
    return scoreModel(*M, File, D);
  auto B = learners::Predictor::fromJson(*Text, File);
  if (!B)
    return M.error();
  return scoreModel(B->model(), File, D);
}

support::Expected<std::vector<learners::CvReport>> evaluate(const EvaluateOptions &Opts,
                                                            learners::Dataset &D) {
  if (!Opts.trained.empty()) {
    auto R = scoreFile(Opts.trained, D);
    if (!R)
      return R.error();
    return std::vector<learners::CvReport>{std::move(*R)};
  }
  auto Names = parseLearners(Opts.learners);
  auto Cv = parseCv(Opts.cv);
  if (!Names || !Cv)
    return !Names ? Names.error() : Cv.error();
  Cv->unseenColumn = Opts.unseen;
  auto Plan = planCv(D, *Cv, Opts.seed);
  if (!Plan)
    return Plan.error();
  auto Specs = learnerSpecs(Opts.model, *Names, D);
  if (!Specs)
    return Specs.error();
  if (Opts.format == "table")
    fmt::print("{}\n", describeSpec(Specs->front(), Opts.model));
  std::vector<learners::CvReport> Reports;
  for (const learners::ModelSpec &Spec : *Specs) {
    auto R = learners::crossValidate(D, Spec, Plan->folds, Plan->protocol, Opts.seed,
                                     terminalCvProgress(Spec.learner));
    if (!R)
      return R.error();
    Reports.push_back(std::move(*R));
  }
  return Reports;
}

int runEvaluate(const EvaluateOptions &Opts) {
  auto D = loadDataset(Opts.data);
  if (D)
    for (const std::string &C : Opts.reportBy)
      if (!D->idIndex(C)) {
        fmt::print(stderr, "error: --report-by: no identifier column '{}'\n", C);
        return 1;
      }
  auto Reports = D ? evaluate(Opts, *D) : D.error();
  if (!Reports) {
    fmt::print(stderr, "{}\n", Reports.error().str());
    return 1;
  }
  if (Opts.format == "json") {
    // One JSON document: the report, with the breakdown under "breakdown" when asked for.
    nlohmann::ordered_json J = nlohmann::ordered_json::parse(learners::reportJson(*Reports));
    if (!Opts.reportBy.empty())
      J["breakdown"] = nlohmann::ordered_json::parse(
          *learners::breakdownJson(*Reports, *D, Opts.reportBy));
    fmt::print("{}\n", J.dump(1));
  } else {
    fmt::print("{}", learners::reportTable(*Reports));
    if (!Opts.reportBy.empty())
      fmt::print("{}", *learners::breakdownTable(*Reports, *D, Opts.reportBy));
  }
  if (!Opts.predictions.empty())
    if (auto E = support::writeFileAtomically(Opts.predictions,
                                              learners::writeCsv(predictionTable(*D, *Reports)))) {
      fmt::print(stderr, "{}\n", E->str());
      return 1;
    }
  return 0;
}

} // namespace

void addEvaluateCommand(CLI::App &App) {
  auto Opts = std::make_shared<EvaluateOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "evaluate", "cross-validate regressors on a dataset CSV (MAPE, RMSE, MAE, R2, adjusted R2, "
                  "most influencing predictors), or score a trained model on new data");
  addDataOptions(*Cmd, Opts->data);
  Cmd->add_option("--learners", Opts->learners,
                  "all, or a comma-separated list of linear, knn, tree, forest, xgboost")
      ->capture_default_str();
  addModelOptions(*Cmd, Opts->model);
  Cmd->add_option("--cv", Opts->cv,
                  "K (shuffled K-fold) or group=COLUMN (leave one group out, e.g. group=gpu)")
      ->capture_default_str();
  Cmd->add_option("--unseen", Opts->unseen,
                  "with --cv group=: hold out each group's rows one value of this identifier "
                  "column at a time, training on neither (e.g. --cv group=gpu --unseen workload: "
                  "each network on each GPU, both unseen)");
  Cmd->add_option("--seed", Opts->seed, "shuffle and permutation seed")->capture_default_str();
  Cmd->add_option("--model", Opts->trained,
                  "score this trained model (ptxcast train -o) on the data instead of "
                  "cross-validating");
  Cmd->add_option("--format", Opts->format, "report format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  Cmd->add_option("--report-by", Opts->reportBy,
                  "also break the metrics down by these identifier columns, comma separated "
                  "(e.g. gpu,source)")
      ->delimiter(',');
  Cmd->add_option("--predictions", Opts->predictions,
                  "write predictions (ids, measured, one column per learner) to this CSV");
  Cmd->callback([Opts] {
    if (int Status = runEvaluate(*Opts); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
