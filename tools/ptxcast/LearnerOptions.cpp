// Options shared by the learner subcommands: dataset files and schema, learner and parameters.
#include "LearnerOptions.h"

#include "learners/GpuCatalog.h"

#include <CLI/CLI.hpp>

namespace ptxcast {

void addDataOptions(CLI::App &Cmd, DataOptions &Opts) {
  Cmd.add_option("--data", Opts.files, "dataset CSV file(s) with one header (repeatable)")
      ->required();
  Cmd.add_option("--target", Opts.target, "target column (e.g. latency_ms)")->required();
  Cmd.add_option("--id", Opts.ids, "identifier (string) columns, comma separated")->delimiter(',');
  Cmd.add_option("--features", Opts.features,
                 "feature columns, comma separated (default: every other column)")
      ->delimiter(',');
  Cmd.add_option("--ignore", Opts.ignore, "columns to drop, comma separated")->delimiter(',');
  Cmd.add_option("--gpu-column", Opts.gpuColumn,
                 "identifier column naming the GPU: append the GPU catalog's hardware features");
}

void addModelOptions(CLI::App &Cmd, ModelOptions &Opts) {
  Cmd.add_option("--learner", Opts.learner, "linear, knn, tree, forest or xgboost")
      ->capture_default_str();
  Cmd.add_option("--param", Opts.params, "learner parameter name=value (repeatable)");
  Cmd.add_flag("--log-target", Opts.logTarget, "fit ln(target) and predict exp(model)");
}

support::Expected<learners::Dataset> loadDataset(const DataOptions &Opts) {
  learners::CsvSchema Schema;
  Schema.target = Opts.target;
  Schema.idColumns = Opts.ids;
  Schema.featureColumns = Opts.features;
  Schema.ignoreColumns = Opts.ignore;
  auto D = learners::readCsvFiles(Opts.files, Schema);
  if (!D || Opts.gpuColumn.empty())
    return D;
  auto Catalog = learners::GpuCatalog::builtin();
  if (!Catalog)
    return Catalog.error();
  return learners::addGpuFeatures(*D, Opts.gpuColumn, *Catalog);
}

support::Expected<learners::ModelSpec> modelSpec(const ModelOptions &Opts) {
  learners::ModelSpec Spec;
  Spec.learner = Opts.learner;
  auto P = learners::parseParams(Opts.params);
  if (!P)
    return P.error();
  Spec.params = *P;
  Spec.transform =
      Opts.logTarget ? learners::TargetTransform::Log : learners::TargetTransform::None;
  return Spec;
}

} // namespace ptxcast
