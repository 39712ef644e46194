// Options shared by the learner subcommands: dataset files and schema, learners and parameters,
// cross-validation protocol.
#include "LearnerOptions.h"

#include "hardware/GpuCatalog.h"
#include "learners/Regressor.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <map>

#include <unistd.h>

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
  Cmd.add_option("--baseline", Opts.baseline,
                 "column the target is measured against: fit ln((target - offset) / baseline); "
                 "auto = bound_ms in ptxcast datasets, none = no baseline")
      ->capture_default_str();
  Cmd.add_option("--offset", Opts.offset,
                 "column added to every prediction (a known overhead); auto = overhead_ms in "
                 "ptxcast datasets, none = no offset")
      ->capture_default_str();
  Cmd.add_option("--balance", Opts.balance,
                 "identifier columns, comma separated, whose groups weigh the same in the fit "
                 "(e.g. source,gpu)");
}

namespace {

/// A side column option: "auto" picks `Default` when the data has it, "none" none.
std::string sideColumn(const std::string &Option, const learners::Dataset &D, const char *Default) {
  if (Option == "none")
    return "";
  if (Option == "auto")
    return D.featureIndex(Default) ? Default : "";
  return Option;
}

/// Appends the column "balance_weight": N / (G x rows of the row's group) for the G groups of
/// the identifier columns `Columns`, so that every group weighs the same in total.
support::MaybeError appendBalanceWeights(learners::Dataset &D,
                                         const std::string &Columns) {
  std::vector<size_t> Cols;
  for (size_t Start = 0; Start <= Columns.size();) {
    size_t End = std::min(Columns.find(',', Start), Columns.size());
    std::string Name = Columns.substr(Start, End - Start);
    auto C = D.idIndex(Name);
    if (!C)
      return support::Error("--balance: no identifier column '" + Name + "'");
    Cols.push_back(*C);
    Start = End + 1;
  }
  std::map<std::vector<std::string>, size_t> Count;
  auto KeyOf = [&](size_t R) {
    std::vector<std::string> K;
    for (size_t C : Cols)
      K.push_back(D.ids[R][C]);
    return K;
  };
  for (size_t R = 0; R < D.size(); ++R)
    ++Count[KeyOf(R)];
  learners::Dataset Out;
  Out.idNames = D.idNames;
  Out.featureNames = D.featureNames;
  Out.featureNames.push_back("balance_weight");
  Out.targetName = D.targetName;
  std::vector<double> Row;
  for (size_t R = 0; R < D.size(); ++R) {
    auto Base = D.features.row(R);
    Row.assign(Base.begin(), Base.end());
    Row.push_back(double(D.size()) / (double(Count.size()) * double(Count[KeyOf(R)])));
    Out.addRow(D.ids[R], Row, D.target[R]);
  }
  D = std::move(Out);
  return std::nullopt;
}

} // namespace

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
                                                 const std::string &Learner, learners::Dataset &D) {
  // An unprefixed parameter goes to the learners that take it (`--param nthread=2` with
  // `--learners all` sets XGBoost's threads); learnerSpecs checks that one of them does.
  std::vector<std::string> Mine;
  for (const std::string &P : Opts.params) {
    size_t Colon = P.find(':');
    if (Colon == std::string::npos) {
      if (learners::takesParam(Learner, P.substr(0, P.find('='))))
        Mine.push_back(P);
    } else if (P.substr(0, Colon) == Learner) {
      Mine.push_back(P.substr(Colon + 1));
    }
  }
  learners::ModelSpec Spec;
  Spec.learner = Learner;
  auto Parsed = learners::parseParams(Mine);
  if (!Parsed)
    return Parsed.error();
  Spec.params = *Parsed;
  Spec.baseline = sideColumn(Opts.baseline, D, "bound_ms");
  Spec.offset = sideColumn(Opts.offset, D, "overhead_ms");
  Spec.transform = Opts.logTarget || !Spec.baseline.empty() ? learners::TargetTransform::Log
                                                            : learners::TargetTransform::None;
  Spec.logFeatures = Opts.logFeatures;
  if (!Opts.balance.empty()) {
    if (!D.featureIndex("balance_weight"))
      if (auto E = appendBalanceWeights(D, Opts.balance))
        return *E;
    Spec.weight = "balance_weight";
  }
  if (auto R = learners::createRegressor(Learner, Spec.params); !R)
    return R.error();
  return Spec;
}

support::Expected<std::vector<learners::ModelSpec>>
learnerSpecs(const ModelOptions &Opts, const std::vector<std::string> &Learners,
             learners::Dataset &D) {
  std::vector<learners::ModelSpec> Specs;
  for (const std::string &Name : Learners) {
    auto Spec = modelSpec(Opts, Name, D);
    if (!Spec)
      return Spec.error();
    Specs.push_back(std::move(*Spec));
  }
  for (const std::string &P : Opts.params) {
    if (P.find(':') != std::string::npos)
      continue;
    const std::string Name = P.substr(0, P.find('='));
    // modelSpec kept the parameter for exactly the learners that take it.
    if (std::none_of(Specs.begin(), Specs.end(),
                     [&](const learners::ModelSpec &S) { return S.params.contains(Name); }))
      return support::Error(fmt::format("--param {}: no learner of {} takes a parameter '{}'", P,
                                        fmt::join(Learners, ", "), Name));
  }
  return Specs;
}

std::string describeSpec(const learners::ModelSpec &Spec, const ModelOptions &Opts) {
  std::string S = "target: ";
  std::string Y = Spec.offset.empty() ? "target" : "(target - " + Spec.offset + ")";
  if (!Spec.baseline.empty())
    Y += " / " + Spec.baseline;
  S += Spec.transform == learners::TargetTransform::Log ? "ln(" + Y + ")" : Y;
  if (!Opts.balance.empty())
    S += "; rows weighted so that every (" + Opts.balance + ") group weighs the same";
  return S;
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

std::string sameNetworkKey(std::string_view Name) {
  std::string Key;
  if (Name.ends_with("-1.0")) // the default width multiplier: mobilenetv2-1.0 is mobilenetv2
    Name.remove_suffix(4);
  for (char C : Name)
    if (C != '-' && C != '_')
      Key += char(std::tolower(static_cast<unsigned char>(C)));
  return Key;
}

support::Expected<CvPlan> planCv(const learners::Dataset &D, const CvChoice &Cv, uint64_t Seed) {
  CvPlan Plan;
  auto Folds = Cv.groupColumn.empty() ? learners::kFoldSplit(D.size(), Cv.folds, Seed)
                                      : learners::groupSplit(D, Cv.groupColumn);
  if (!Folds)
    return Folds.error();
  if (!Cv.unseenColumn.empty()) {
    if (Cv.groupColumn.empty())
      return support::Error("--unseen needs --cv group=COLUMN");
    std::function<std::string(std::string_view)> Key;
    if (Cv.unseenColumn == "workload")
      Key = sameNetworkKey;
    Folds = learners::splitUnseen(*Folds, D, Cv.unseenColumn, Key);
    if (!Folds)
      return Folds.error();
  }
  Plan.folds = std::move(*Folds);
  Plan.protocol = Cv.groupColumn.empty()
                      ? fmt::format("{}-fold cross-validation (shuffle seed {})", Cv.folds, Seed)
                      : fmt::format("leave-one-group-out by '{}'", Cv.groupColumn);
  if (!Cv.unseenColumn.empty())
    Plan.protocol +=
        fmt::format(" and one '{}' value with it (neither in training)", Cv.unseenColumn);
  return Plan;
}

learners::CvProgress terminalCvProgress(std::string Learner) {
  if (!isatty(STDERR_FILENO))
    return {};
  return [Learner = std::move(Learner)](size_t Done, size_t Total, std::string_view Step) {
    const size_t Folds = Total - 1;
    if (Done == Total)
      fmt::print(stderr, "\r\033[K");
    else if (Done == Folds)
      fmt::print(stderr, "\r\033[K{}: {} folds done; fitting all rows to rank the features",
                 Learner, Folds);
    else
      fmt::print(stderr, "\r\033[K{}: {}/{} folds done (last: {})", Learner, Done, Folds, Step);
  };
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
