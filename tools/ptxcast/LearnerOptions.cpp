// Options shared by the learner subcommands: dataset files and schema, learners and parameters,
// cross-validation protocol.
#include "LearnerOptions.h"

#include "hardware/GpuCatalog.h"
#include "learners/Regressor.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <charconv>

namespace ptxcast {

namespace {

/// The rows of D whose identifier columns match every COLUMN=VALUE filter.
support::Expected<learners::Dataset> selectRows(const learners::Dataset &D,
                                                const std::vector<std::string> &Filters) {
  std::vector<std::pair<size_t, std::string>> Tests;
  for (const std::string &F : Filters) {
    size_t Eq = F.find('=');
    auto Col = Eq == std::string::npos ? std::nullopt : D.idIndex(F.substr(0, Eq));
    if (!Col)
      return support::Error("--where takes COLUMN=VALUE with an identifier column; got '" + F +
                            "'");
    Tests.emplace_back(*Col, F.substr(Eq + 1));
  }
  std::vector<size_t> Keep;
  for (size_t R = 0; R < D.size(); ++R)
    if (std::all_of(Tests.begin(), Tests.end(),
                    [&](const auto &T) { return D.ids[R][T.first] == T.second; }))
      Keep.push_back(R);
  if (Keep.empty())
    return support::Error("no rows match the --where filters");
  return D.subset(Keep);
}

} // namespace

void addDataOptions(CLI::App &Cmd, DataOptions &Opts) {
  Cmd.add_option("--data", Opts.files, "dataset CSV file(s) with one header (repeatable)")
      ->required();
  Cmd.add_option("--target", Opts.target, "target column (default: the last column)");
  Cmd.add_option("--id", Opts.ids,
                 "identifier (string) columns, comma separated (non-numeric columns are "
                 "identifiers anyway)")
      ->delimiter(',');
  Cmd.add_option("--features", Opts.features,
                 "feature columns, comma separated (default: every other numeric column)")
      ->delimiter(',');
  Cmd.add_option("--ignore", Opts.ignore, "columns to drop, comma separated")->delimiter(',');
  Cmd.add_option("--where", Opts.where,
                 "keep rows whose identifier COLUMN equals VALUE (COLUMN=VALUE, repeatable: all "
                 "must hold), e.g. --where gpu=t4");
}

void addModelOptions(CLI::App &Cmd, ModelOptions &Opts) {
  Cmd.add_option("--param", Opts.params,
                 "learner parameter name=value, or learner:name=value for one learner "
                 "(repeatable)");
  Cmd.add_flag("--log-target", Opts.logTarget, "fit ln(target) and predict exp(model)");
  Cmd.add_flag("--log-features", Opts.logFeatures,
               "feed the learner sign(x) ln(1 + |x|) of every feature");
}

support::Expected<learners::Dataset> loadDataset(const DataOptions &Opts) {
  learners::CsvSchema Schema;
  Schema.target = Opts.target;
  Schema.idColumns = Opts.ids;
  Schema.featureColumns = Opts.features;
  Schema.ignoreColumns = Opts.ignore;
  Schema.inferIds = true;
  auto D = learners::readCsvFiles(Opts.files, Schema);
  if (D && !Opts.where.empty())
    D = selectRows(*D, Opts.where);
  return D;
}

support::Expected<learners::ModelSpec> modelSpec(const ModelOptions &Opts,
                                                 const std::string &Learner) {
  std::vector<std::string> Mine;
  for (const std::string &P : Opts.params) {
    size_t Colon = P.find(':');
    if (Colon == std::string::npos)
      Mine.push_back(P);
    else if (P.substr(0, Colon) == Learner)
      Mine.push_back(P.substr(Colon + 1));
  }
  learners::ModelSpec Spec;
  Spec.learner = Learner;
  auto Parsed = learners::parseParams(Mine);
  if (!Parsed)
    return Parsed.error();
  Spec.params = *Parsed;
  Spec.transform =
      Opts.logTarget ? learners::TargetTransform::Log : learners::TargetTransform::None;
  Spec.logFeatures = Opts.logFeatures;
  if (auto R = learners::createRegressor(Learner, Spec.params); !R)
    return R.error();
  return Spec;
}

support::Expected<CvChoice> parseCv(const std::string &Text) {
  CvChoice Cv;
  if (Text.starts_with("group=")) {
    Cv.groupColumn = Text.substr(6);
    if (Cv.groupColumn.empty())
      return support::Error("--cv group= needs a column name, e.g. --cv group=gpu");
    return Cv;
  }
  auto [Ptr, Ec] = std::from_chars(Text.data(), Text.data() + Text.size(), Cv.folds);
  if (Ec != std::errc() || Ptr != Text.data() + Text.size() || Cv.folds < 2)
    return support::Error("--cv takes a fold count of 2 or more, or group=COLUMN; got '" + Text +
                          "'");
  return Cv;
}

support::Expected<CvPlan> planCv(const learners::Dataset &D, const CvChoice &Cv, uint64_t Seed) {
  CvPlan Plan;
  auto Folds = Cv.groupColumn.empty() ? learners::kFoldSplit(D.size(), Cv.folds, Seed)
                                      : learners::groupSplit(D, Cv.groupColumn);
  if (!Folds)
    return Folds.error();
  Plan.folds = std::move(*Folds);
  Plan.protocol = Cv.groupColumn.empty()
                      ? fmt::format("{}-fold cross-validation (shuffle seed {})", Cv.folds, Seed)
                      : fmt::format("leave-one-group-out by '{}'", Cv.groupColumn);
  return Plan;
}

support::Expected<std::vector<std::string>> parseLearners(const std::string &Text) {
  if (Text == "all")
    return learners::regressorNames();
  std::vector<std::string> Names;
  size_t Start = 0;
  while (Start <= Text.size()) {
    size_t End = std::min(Text.find(',', Start), Text.size());
    std::string Name = Text.substr(Start, End - Start);
    if (auto R = learners::createRegressor(Name); !R)
      return R.error();
    Names.push_back(Name);
    Start = End + 1;
  }
  return Names;
}

} // namespace ptxcast
