// `ptxcast train --data D.csv --target COL [...] -o model.json`: fits one learner on a dataset
// CSV and saves the model (learner, params, features, target, transform, "predicts", state).
#include "Commands.h"
#include "LearnerOptions.h"

#include "learners/CrossValidation.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>

namespace ptxcast {
namespace {

struct TrainOptions {
  DataOptions data;
  ModelOptions model;
  std::string output;
  std::string predicts;
};

int runTrain(const TrainOptions &Opts) {
  auto D = loadDataset(Opts.data);
  auto Spec = modelSpec(Opts.model, Opts.model.learner);
  if (!D || !Spec) {
    fmt::print(stderr, "{}\n", !D ? D.error().str() : Spec.error().str());
    return 1;
  }
  std::string Predicts = Opts.predicts.empty() ? D->targetName : Opts.predicts;
  auto M = learners::Model::fit(*D, *Spec, Predicts);
  if (!M) {
    fmt::print(stderr, "{}\n", M.error().str());
    return 1;
  }
  if (auto E = M->save(Opts.output)) {
    fmt::print(stderr, "{}\n", E->str());
    return 1;
  }
  auto Fit = learners::computeMetrics(D->target, M->predict(D->features), D->featureNames.size());
  fmt::print("trained {} (target transform {}) on {} rows x {} features -> {}\n", M->learner(),
             learners::transformName(M->transform()), D->size(), D->featureNames.size(),
             Opts.output);
  fmt::print("training-set fit (optimistic; use `ptxcast evaluate` for CV): MAPE {:.3f}%  "
             "RMSE {:.5g}  R2 {:.4f}\n",
             Fit.mape, Fit.rmse, Fit.r2);
  auto Rank = learners::rankImportance(*M, *D, 1);
  if (Rank) {
    fmt::print("most influencing predictors:\n");
    for (size_t I = 0; I < Rank->size() && I < 10; ++I)
      fmt::print("  {:>2}. {:<32} {:.4g}\n", I + 1, (*Rank)[I].first, (*Rank)[I].second);
  }
  return 0;
}

} // namespace

void addTrainCommand(CLI::App &App) {
  auto Opts = std::make_shared<TrainOptions>();
  CLI::App *Cmd = App.add_subcommand("train", "fit a regressor on a dataset CSV and save it");
  addDataOptions(*Cmd, Opts->data);
  Cmd->add_option("--learner", Opts->model.learner, "linear, knn, tree, forest or xgboost")
      ->capture_default_str();
  addModelOptions(*Cmd, Opts->model);
  Cmd->add_option("-o,--output", Opts->output, "model JSON file to write")->required();
  Cmd->add_option("--predicts", Opts->predicts,
                  "free-text description of what the model predicts (saved in the model)");
  Cmd->callback([Opts] {
    if (int Status = runTrain(*Opts); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
