// `ptxcast evaluate --data D.csv --target COL [--kfold K | --group-by COL] [...]`: cross-validates
// one learner on a dataset CSV and reports MAPE, RMSE, MAE, R^2, adjusted R^2 per fold and pooled,
// plus the most influencing predictors.
#include "Commands.h"
#include "LearnerOptions.h"

#include "learners/CrossValidation.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <fstream>
#include <memory>

namespace ptxcast {
namespace {

struct EvaluateOptions {
  DataOptions data;
  ModelOptions model;
  size_t kfold = 5;
  uint64_t seed = 1;
  std::string groupBy;
  std::string format = "text";
  std::string predictions;
};

/// Out-of-fold predictions as CSV: identifiers, measured target, prediction.
learners::Dataset predictionTable(const learners::Dataset &D, const learners::CvReport &R) {
  learners::Dataset Out;
  Out.idNames = D.idNames;
  Out.featureNames = {D.targetName};
  Out.targetName = "predicted";
  for (size_t I = 0; I < D.size(); ++I)
    Out.addRow(D.ids[I], std::vector<double>{D.target[I]}, R.predictions[I]);
  return Out;
}

int runEvaluate(const EvaluateOptions &Opts) {
  auto D = loadDataset(Opts.data);
  auto Spec = modelSpec(Opts.model);
  if (!D || !Spec) {
    fmt::print(stderr, "{}\n", !D ? D.error().str() : Spec.error().str());
    return 1;
  }
  bool Grouped = !Opts.groupBy.empty();
  auto Folds = Grouped ? learners::groupSplit(*D, Opts.groupBy)
                       : learners::kFoldSplit(D->size(), Opts.kfold, Opts.seed);
  std::string Protocol =
      Grouped ? fmt::format("leave-one-group-out by '{}'", Opts.groupBy)
              : fmt::format("{}-fold cross-validation (shuffle seed {})", Opts.kfold, Opts.seed);
  if (!Folds) {
    fmt::print(stderr, "error: {}\n", Folds.error().message);
    return 1;
  }
  auto R = learners::crossValidate(*D, *Spec, *Folds, Protocol, Opts.seed);
  if (!R) {
    fmt::print(stderr, "{}\n", R.error().str());
    return 1;
  }
  fmt::print("{}", Opts.format == "json" ? learners::reportJson(*R) : learners::reportText(*R));
  if (!Opts.predictions.empty()) {
    std::ofstream Out(Opts.predictions, std::ios::binary);
    Out << learners::writeCsv(predictionTable(*D, *R));
    if (!Out) {
      fmt::print(stderr, "{}: error: cannot write file\n", Opts.predictions);
      return 1;
    }
  }
  return 0;
}

} // namespace

void addEvaluateCommand(CLI::App &App) {
  auto Opts = std::make_shared<EvaluateOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "evaluate", "cross-validate a regressor on a dataset CSV: MAPE, RMSE, MAE, R2, adjusted R2 "
                  "and the most influencing predictors");
  addDataOptions(*Cmd, Opts->data);
  addModelOptions(*Cmd, Opts->model);
  Cmd->add_option("--kfold", Opts->kfold, "number of folds (shuffled k-fold)")
      ->capture_default_str();
  Cmd->add_option("--seed", Opts->seed, "shuffle and permutation seed")->capture_default_str();
  Cmd->add_option("--group-by", Opts->groupBy,
                  "leave-one-group-out by this column instead of k-fold (e.g. device)");
  Cmd->add_option("--format", Opts->format, "report format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  Cmd->add_option("--predictions", Opts->predictions,
                  "write out-of-fold predictions (ids, measured, predicted) to this CSV");
  Cmd->callback([Opts] {
    if (int Status = runEvaluate(*Opts); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
