// Options shared by the learner subcommands (train, evaluate): which dataset, which model.
#pragma once

#include "learners/Dataset.h"
#include "learners/Model.h"
#include "support/Expected.h"

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace ptxcast {

/// Where the dataset comes from and how its columns are read.
struct DataOptions {
  std::vector<std::string> files;
  std::string target;
  std::vector<std::string> ids, features, ignore;
  std::string gpuColumn; ///< identifier column naming the GPU: add catalog hardware features
};

/// Which learner to fit.
struct ModelOptions {
  std::string learner = "xgboost";
  std::vector<std::string> params; ///< name=value
  bool logTarget = false;
};

void addDataOptions(CLI::App &Cmd, DataOptions &Opts);
void addModelOptions(CLI::App &Cmd, ModelOptions &Opts);

/// Reads the CSV files and, with --gpu-column, appends the GPU catalog's hardware features.
support::Expected<learners::Dataset> loadDataset(const DataOptions &Opts);
/// The ModelSpec the options describe (parameters parsed, learner not yet checked).
support::Expected<learners::ModelSpec> modelSpec(const ModelOptions &Opts);

} // namespace ptxcast
