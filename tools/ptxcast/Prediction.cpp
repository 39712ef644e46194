// Bundle choice and per-GPU prediction (Prediction.h).
#include "Prediction.h"

#include "hardware/Features.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace ptxcast {
namespace {

using learners::Predictor;
using OJson = nlohmann::ordered_json;

bool endsWith(const std::string &S, std::string_view Suffix) {
  return S.size() >= Suffix.size() &&
         S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

std::string describe(const Predictor &P) {
  const learners::PredictorInfo &I = P.info();
  return fmt::format("{} ({}, {}, {})", I.name, I.dtype, learners::levelName(I.level),
                     P.model().learner());
}

support::Expected<std::vector<Predictor>> shippedPredictors() {
  std::vector<Predictor> Out;
  for (const EmbeddedFile &F : embeddedModels()) {
    auto P = Predictor::fromJson(F.text, "models/" + std::string(F.name));
    if (!P)
      return P.error();
    Out.push_back(std::move(*P));
  }
  return Out;
}

std::string shippedList(const std::vector<Predictor> &All) {
  std::string S;
  for (const Predictor &P : All)
    S += (S.empty() ? "" : ", ") + describe(P);
  return S.empty() ? "none" : S;
}

/// A bundle that fits the choice's dtype and learner, or why not.
std::optional<support::Error> checkFits(const Predictor &P, const PredictorChoice &C) {
  if (!C.dtype.empty() && P.info().dtype != C.dtype)
    return support::Error(fmt::format(
        "model '{}' predicts {} networks, not {}: pass --dtype {} or choose another model",
        P.info().name, P.info().dtype, C.dtype, P.info().dtype));
  if (!C.learner.empty() && P.model().learner() != C.learner)
    return support::Error(fmt::format("model '{}' is a {} model, not {}", P.info().name,
                                      P.model().learner(), C.learner));
  return std::nullopt;
}

} // namespace

support::Expected<Predictor> choosePredictor(const PredictorChoice &C) {
  if (endsWith(C.model, ".json")) {
    auto P = Predictor::load(C.model);
    if (!P)
      return P.error();
    if (auto E = checkFits(*P, C))
      return *E;
    return P;
  }
  auto All = shippedPredictors();
  if (!All)
    return All.error();
  std::optional<size_t> Best;
  auto Rank = [&C](const Predictor &P) {
    const auto &Gpus = P.info().trainingGpus;
    bool OnGpu = std::find(Gpus.begin(), Gpus.end(), C.gpu) != Gpus.end();
    return std::tuple(P.info().dtype == "f32" ? 0 : 1, OnGpu ? 0 : 1, Gpus.size() > 1 ? 0 : 1);
  };
  for (size_t I = 0; I < All->size(); ++I) {
    Predictor &P = (*All)[I];
    if (!C.model.empty() && P.info().name != C.model)
      continue;
    if (auto E = checkFits(P, C)) {
      if (!C.model.empty())
        return *E;
      continue;
    }
    if (!Best || Rank(P) < Rank((*All)[*Best]))
      Best = I;
  }
  if (Best)
    return std::move((*All)[*Best]);
  if (!C.model.empty())
    return support::Error(fmt::format("unknown model '{}' (shipped: {}); or pass a bundle file "
                                      "--model FILE.json",
                                      C.model, shippedList(*All)));
  std::string Want = C.dtype.empty() ? "" : C.dtype + " ";
  if (!C.learner.empty())
    Want += C.learner + " ";
  return support::Error(fmt::format(
      "no shipped model predicts {}networks (shipped: {}); train one with "
      "scripts/train-models.sh or `ptxcast train --level ...` and pass --model FILE.json",
      Want, shippedList(*All)));
}

namespace {

/// The feature rows of the launches (operator level) or of the whole network (network level).
learners::Dataset featureTable(const NetworkAnalysis &N, const hardware::GpuSpec &Gpu,
                               bool PerLaunch) {
  learners::Dataset D;
  D.featureNames = hardware::featureNames();
  D.featureNames.push_back(hardware::BoundColumn);
  D.targetName = "time_ms";
  hardware::Execution E{hardware::defaultMathMode(N.dtype, Gpu.computeCapability),
                        hardware::Implementation::Framework, N.dtype == "f16"};
  std::vector<hardware::LaunchWork> Work = N.work();
  std::vector<double> Values;
  auto Add = [&](std::span<const hardware::LaunchWork> Launches) {
    hardware::GroupFeatures F = hardware::groupFeatures(Launches, Gpu, E);
    Values.clear();
    for (const auto &[Name, V] : F.features)
      Values.push_back(V);
    Values.push_back(F.boundMs);
    D.addRow({}, Values, 0);
  };
  if (PerLaunch) {
    for (const hardware::LaunchWork &W : Work)
      Add({&W, 1});
    return D;
  }
  Add(Work);
  return D;
}

learners::NamedVector rowOf(const learners::Dataset &D, size_t I) {
  learners::NamedVector Row;
  for (size_t C = 0; C < D.featureNames.size(); ++C)
    Row.emplace_back(D.featureNames[C], D.features(I, C));
  return Row;
}

bool isGpuFeature(const std::string &Name) { return Name.starts_with("gpu_"); }

std::string joined(const std::vector<std::string> &V) {
  std::string S;
  for (const std::string &X : V)
    S += (S.empty() ? "" : ", ") + X;
  return S;
}

/// Warnings about the GPU and about rows whose features lie outside the training ranges.
std::vector<std::string> dataWarnings(const Predictor &P, const learners::Dataset &Rows,
                                      const hardware::GpuSpec &Gpu, bool PerLaunch) {
  std::vector<std::string> W;
  const auto &Trained = P.info().trainingGpus;
  std::vector<std::string> GpuOut, Any;
  std::map<std::string, size_t> Count; // non-GPU feature -> rows outside
  size_t RowsOut = 0;
  for (size_t I = 0; I < Rows.size(); ++I) {
    bool Out = false;
    for (const std::string &F : P.outsideRange(rowOf(Rows, I))) {
      if (isGpuFeature(F)) {
        if (I == 0)
          GpuOut.push_back(F);
        continue;
      }
      ++Count[F];
      Out = true;
    }
    RowsOut += Out;
  }
  if (!Trained.empty() && std::find(Trained.begin(), Trained.end(), Gpu.name) == Trained.end())
    W.push_back(
        fmt::format("gpu '{}' is not among the training GPUs ({}): the prediction "
                    "extrapolates from its catalog features{}",
                    Gpu.name, joined(Trained),
                    GpuOut.empty() ? "" : "; outside the training range: " + joined(GpuOut)));
  if (RowsOut == 0)
    return W;
  std::vector<std::pair<std::string, size_t>> Top(Count.begin(), Count.end());
  std::stable_sort(Top.begin(), Top.end(),
                   [](const auto &A, const auto &B) { return A.second > B.second; });
  std::string Names;
  for (size_t K = 0; K < Top.size() && K < 3; ++K)
    Names += fmt::format("{}{} ({})", K ? ", " : "", Top[K].first, Top[K].second);
  if (PerLaunch)
    W.push_back(fmt::format("{} of {} launches have features outside the training range "
                            "(most often: {})",
                            RowsOut, Rows.size(), Names));
  else
    W.push_back(fmt::format("the network's features lie outside the training range: {}", Names));
  return W;
}

std::vector<KindTime> byKind(const NetworkAnalysis &N, const std::vector<double> &Ms) {
  std::map<std::string, KindTime> Kinds;
  for (size_t K = 0; K < N.launches.size(); ++K) {
    KindTime &T = Kinds[N.launches[K].strategy];
    T.kind = N.launches[K].strategy;
    T.launches += 1;
    T.ms += Ms[K];
  }
  std::vector<KindTime> Out;
  for (auto &[Name, T] : Kinds)
    Out.push_back(T);
  std::stable_sort(Out.begin(), Out.end(),
                   [](const KindTime &A, const KindTime &B) { return A.ms > B.ms; });
  return Out;
}

/// Roofline-style weight of each launch: the largest of its compute, issue and traffic
/// estimates (used to split a whole-network prediction over launch kinds).
std::vector<double> rooflineWeights(const learners::Dataset &PerLaunch) {
  std::vector<double> W;
  auto Col = [&](const char *Name) { return *PerLaunch.featureIndex(Name); };
  size_t Bound = Col(hardware::BoundColumn);
  for (size_t I = 0; I < PerLaunch.size(); ++I)
    W.push_back(PerLaunch.features(I, Bound));
  return W;
}

} // namespace

support::Expected<GpuPrediction> predictOnGpu(const NetworkAnalysis &N, const Predictor &P,
                                              const hardware::GpuSpec &Gpu) {
  bool PerLaunch = P.info().level == learners::PredictLevel::Operator;
  learners::Dataset Rows = featureTable(N, Gpu, PerLaunch);
  auto Pred = P.predict(Rows);
  if (!Pred)
    return Pred.error();
  GpuPrediction Out;
  Out.gpu = Gpu;
  Out.batch = size_t(N.batch);
  Out.warnings = dataWarnings(P, Rows, Gpu, PerLaunch);
  size_t Clamped = 0;
  for (double &V : *Pred)
    if (!(V > 0)) {
      V = 0;
      ++Clamped;
    }
  if (Clamped)
    Out.warnings.push_back(fmt::format("{} of {} predictions were not positive and count as 0 ms",
                                       Clamped, Pred->size()));
  std::vector<double> LaunchMs = *Pred;
  if (PerLaunch) {
    Out.breakdownBasis = "model applied per launch";
  } else {
    LaunchMs = rooflineWeights(featureTable(N, Gpu, true));
    double Sum = 0;
    for (double V : LaunchMs)
      Sum += V;
    for (double &V : LaunchMs)
      V = Sum > 0 ? V / Sum * Pred->front() : 0;
    Out.breakdownBasis = "network time split by each launch's roofline estimate";
  }
  for (double V : *Pred)
    Out.timeMs += V;
  Out.intervalMs = P.interval(Out.timeMs);
  Out.breakdown = byKind(N, LaunchMs);
  return Out;
}

OJson predictorJson(const Predictor &P) {
  const learners::PredictorInfo &I = P.info();
  OJson Band = nullptr;
  if (I.band)
    Band = {{"protocol", I.band->protocol},
            {"coverage", I.band->coverage},
            {"mape", I.band->mape},
            {"ratio_low", I.band->ratioLow},
            {"ratio_high", I.band->ratioHigh}};
  return {{"name", I.name},
          {"predicts", P.model().predicts()},
          {"learner", P.model().learner()},
          {"level", learners::levelName(I.level)},
          {"dtype", I.dtype},
          {"training_data", I.trainingData},
          {"training_rows", I.trainingRows},
          {"training_gpus", I.trainingGpus},
          {"error_band", Band}};
}

std::string predictorSummary(const Predictor &P) {
  const learners::PredictorInfo &I = P.info();
  std::string S =
      fmt::format("model {} ({}, {} level, {}): predicts {}\ntrained on {} rows of "
                  "{}; GPUs {}",
                  I.name, P.model().learner(), learners::levelName(I.level), I.dtype,
                  P.model().predicts(), I.trainingRows, I.trainingData, joined(I.trainingGpus));
  if (I.band)
    S += fmt::format("\nerror band: {:.0f}% of {} out-of-fold ratios fall in [{:.3f}, {:.3f}] "
                     "(MAPE {:.1f}%)",
                     100 * I.band->coverage, I.band->protocol, I.band->ratioLow, I.band->ratioHigh,
                     I.band->mape);
  else
    S += "\nerror band: none (the bundle was trained without --cv)";
  return S;
}

} // namespace ptxcast
