// `ptxcast train --data D.csv [--target COL] [...] -o model.json`: fits one learner on a dataset
// CSV and saves the model (learner, params, features, target, transform, "predicts", state). With
// --bundle it writes a predictor bundle for `ptxcast predict` instead (learners/Predictor.h):
// training GPUs and feature ranges and, with --cv, the error band measured by cross-validation
// (on the rows --band-where selects) before the final fit on every row.
#include "Commands.h"
#include "LearnerOptions.h"

#include "learners/CrossValidation.h"
#include "hardware/Features.h"
#include "learners/Predictor.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>

namespace ptxcast {
namespace {

struct TrainOptions {
  DataOptions data;
  ModelOptions model;
  std::string output;
  std::string predicts;
  // Bundle options (a bundle is written with --bundle).
  bool bundle = false;
  std::string name;
  std::vector<std::string> bandWhere; ///< COLUMN=VALUE: the rows the band is measured on
  std::string cv;
  std::string gpuId = "gpu";
  uint64_t seed = 1;
};

void printFit(const learners::Model &M, const learners::Dataset &D, const std::string &Output) {
  auto Fit = learners::computeMetrics(D.target, *M.predict(D), M.inputCount());
  fmt::print("trained {} (target transform {}) on {} rows x {} features -> {}\n", M.learner(),
             learners::transformName(M.transform()), D.size(), M.inputCount(), Output);
  fmt::print("training-set fit (optimistic; use `ptxcast evaluate` for CV): MAPE {:.3f}%  "
             "RMSE {:.5g}  R2 {:.4f}\n",
             Fit.mape, Fit.rmse, Fit.r2);
  auto Rank = learners::rankImportance(M, D, 1);
  if (Rank) {
    fmt::print("most influencing predictors:\n");
    for (size_t I = 0; I < Rank->size() && I < 10; ++I)
      fmt::print("  {:>2}. {:<32} {:.4g}\n", I + 1, (*Rank)[I].first, (*Rank)[I].second);
  }
}

/// Distinct values of identifier column `Column`, sorted (empty when the column is absent).
std::vector<std::string> distinctIds(const learners::Dataset &D, const std::string &Column) {
  auto Col = D.idIndex(Column);
  std::set<std::string> Values;
  if (Col)
    for (const auto &Row : D.ids)
      Values.insert(Row[*Col]);
  return {Values.begin(), Values.end()};
}

/// Every feature of D must be one `ptxcast predict` can compute.
support::MaybeError checkSchema(const learners::Dataset &D,
                                const learners::ModelSpec &Spec) {
  std::vector<std::string> Schema = hardware::featureNames();
  Schema.insert(Schema.end(), {hardware::BoundColumn, "overhead_ms", Spec.weight});
  for (const std::string &F : D.featureNames)
    if (std::find(Schema.begin(), Schema.end(), F) == Schema.end())
      return support::Error("feature '" + F +
                            "' is not in ptxcast's feature schema (hardware/Features.h), so "
                            "predict could not compute it; drop it with --ignore");
  return std::nullopt;
}

/// True when row I's identifier columns match every COLUMN=VALUE[|VALUE...] (unknown columns
/// never match).
bool matchesAll(const learners::Dataset &D, size_t I, const std::vector<std::string> &Where) {
  for (const std::string &W : Where) {
    size_t Eq = W.find('=');
    auto Col = Eq == std::string::npos ? std::nullopt : D.idIndex(W.substr(0, Eq));
    if (!Col)
      return false;
    const std::string Values = "|" + W.substr(Eq + 1) + "|";
    if (Values.find("|" + D.ids[I][*Col] + "|") == std::string::npos)
      return false;
  }
  return true;
}

/// The error band from out-of-fold predictions of the protocol `--cv` names.
support::Expected<learners::ErrorBand>
measureBand(const TrainOptions &Opts, const learners::Dataset &D, const learners::ModelSpec &Spec) {
  auto Choice = parseCv(Opts.cv);
  if (!Choice)
    return Choice.error();
  auto Plan = planCv(D, *Choice, Opts.seed);
  if (!Plan)
    return Plan.error();
  auto R = learners::crossValidate(D, Spec, Plan->folds, Plan->protocol, Opts.seed,
                                   terminalCvProgress(Spec.learner));
  if (!R)
    return R.error();
  std::vector<double> Measured, Predicted;
  for (size_t I = 0; I < D.size(); ++I)
    if (matchesAll(D, I, Opts.bandWhere)) {
      Measured.push_back(D.target[I]);
      Predicted.push_back(R->predictions[I]);
    }
  std::string Protocol = Plan->protocol;
  for (const std::string &W : Opts.bandWhere)
    Protocol += ", rows " + W;
  return learners::errorBand(Measured, Predicted, Protocol);
}

std::string dataDescription(const std::vector<std::string> &Files) {
  std::string Out;
  for (const std::string &F : Files)
    Out += (Out.empty() ? "" : ", ") + std::filesystem::path(F).filename().string();
  return Out;
}

int writeBundle(const TrainOptions &Opts, const learners::Dataset &D,
                const learners::ModelSpec &Spec, const std::string &Predicts) {
  if (auto Bad = checkSchema(D, Spec)) {
    fmt::print(stderr, "{}\n", Bad->str());
    return 1;
  }
  learners::PredictorInfo Info;
  if (!Opts.cv.empty()) {
    auto Band = measureBand(Opts, D, Spec);
    if (!Band) {
      fmt::print(stderr, "{}\n", Band.error().str());
      return 1;
    }
    Info.band = *Band;
    fmt::print("{}: out-of-fold MAPE {:.2f}%, measured/predicted {:.0f}% band [{:.3f}, {:.3f}] "
               "(median {:.3f}) over {} rows\n",
               Band->protocol, Band->mape, 100 * Band->coverage, Band->ratioLow, Band->ratioHigh,
               Band->ratioMedian, Band->rows);
  }
  auto M = learners::Model::fit(D, Spec, Predicts);
  if (!M) {
    fmt::print(stderr, "{}\n", M.error().str());
    return 1;
  }
  Info.name = Opts.name.empty() ? std::filesystem::path(Opts.output).stem().string() : Opts.name;
  Info.trainingData = dataDescription(Opts.data.files);
  Info.trainingRows = D.size();
  Info.trainingGpus = distinctIds(D, Opts.gpuId);
  Info.ranges = learners::featureRanges(*D.selectFeatures(M->featureNames()));
  learners::Predictor P(std::move(*M), std::move(Info));
  if (auto E = P.save(Opts.output)) {
    fmt::print(stderr, "{}\n", E->str());
    return 1;
  }
  printFit(P.model(), D, Opts.output);
  return 0;
}

int runTrain(const TrainOptions &Opts) {
  auto D = loadDataset(Opts.data);
  if (!D) {
    fmt::print(stderr, "{}\n", D.error().str());
    return 1;
  }
  auto Specs = learnerSpecs(Opts.model, {Opts.model.learner}, *D);
  if (!Specs) {
    fmt::print(stderr, "{}\n", Specs.error().str());
    return 1;
  }
  const learners::ModelSpec *Spec = &Specs->front();
  std::string Predicts = Opts.predicts.empty() ? D->targetName : Opts.predicts;
  if (Opts.bundle)
    return writeBundle(Opts, *D, *Spec, Predicts);
  if (!Opts.cv.empty()) {
    fmt::print(stderr, "error: --cv measures a predictor bundle's error band; it needs --bundle\n");
    return 1;
  }
  auto M = learners::Model::fit(*D, *Spec, Predicts);
  if (!M) {
    fmt::print(stderr, "{}\n", M.error().str());
    return 1;
  }
  if (auto E = M->save(Opts.output)) {
    fmt::print(stderr, "{}\n", E->str());
    return 1;
  }
  printFit(*M, *D, Opts.output);
  return 0;
}

} // namespace

void addTrainCommand(CLI::App &App) {
  auto Opts = std::make_shared<TrainOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "train", "fit a regressor on a dataset CSV and save it (with --bundle: a predictor bundle "
               "for `ptxcast predict`, docs/predict.md)");
  addDataOptions(*Cmd, Opts->data);
  Cmd->add_option("--learner", Opts->model.learner, "linear, knn, tree, forest or xgboost")
      ->capture_default_str();
  addModelOptions(*Cmd, Opts->model);
  Cmd->add_option("-o,--output", Opts->output, "model JSON file to write")->required();
  Cmd->add_option("--predicts", Opts->predicts,
                  "free-text description of what the model predicts (saved in the model)");
  Cmd->add_flag("--bundle", Opts->bundle,
                "write a predictor bundle for `ptxcast predict` (features must be those of "
                "`ptxcast dataset`)");
  Cmd->add_option("--band-where", Opts->bandWhere,
                  "bundle: measure the band on the out-of-fold rows whose identifier COLUMN equals "
                  "one of the VALUEs (COLUMN=VALUE[|VALUE...], repeatable), e.g. "
                  "'runtime=graph|eager' for whole networks");
  Cmd->add_option("--name", Opts->name, "bundle: name for --model (default: the file's stem)");
  Cmd->add_option("--cv", Opts->cv,
                  "bundle: measure the error band by cross-validation first: K folds or "
                  "group=COLUMN (leave one group out, e.g. group=gpu)");
  Cmd->add_option("--gpu-id", Opts->gpuId,
                  "bundle: identifier column naming each row's GPU (the training GPUs)")
      ->capture_default_str();
  Cmd->add_option("--seed", Opts->seed, "cross-validation shuffle seed")->capture_default_str();
  Cmd->callback([Opts] {
    if (int Status = runTrain(*Opts); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
