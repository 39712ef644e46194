// Cross-validation reports of several learners as deterministic JSON and as a readable table.
#include "learners/CrossValidation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace learners {
namespace {

/// Metrics under the names of the JSON contract; NaN becomes null.
void putMetrics(nlohmann::ordered_json &J, const Metrics &M) {
  auto Num = [](double V) {
    return std::isnan(V) ? nlohmann::ordered_json() : nlohmann::ordered_json(V);
  };
  J["mape"] = Num(M.mape);
  J["rmse"] = Num(M.rmse);
  J["mae"] = Num(M.mae);
  J["r2"] = Num(M.r2);
  J["adj_r2"] = Num(M.adjustedR2);
  J["n"] = M.n;
  J["p"] = M.p;
  J["zero_targets"] = M.zeroTargets;
}

nlohmann::ordered_json learnerJson(const CvReport &R) {
  nlohmann::ordered_json J;
  J["name"] = R.learner;
  putMetrics(J, R.pooled);
  J["folds"] = nlohmann::ordered_json::array();
  for (const auto &[Name, M] : R.folds) {
    nlohmann::ordered_json F;
    F["name"] = Name;
    putMetrics(F, M);
    J["folds"].push_back(std::move(F));
  }
  J["importance"] = nlohmann::ordered_json::array();
  for (const auto &[Name, V] : R.importance)
    J["importance"].push_back({{"feature", Name}, {"value", V}});
  return J;
}

std::string line(const char *Format, auto... Args) {
  char Buf[512];
  std::snprintf(Buf, sizeof(Buf), Format, Args...);
  return Buf;
}

/// The report with the lowest pooled MAPE (NaN last; ties: the first).
const CvReport &mostAccurate(std::span<const CvReport> Reports) {
  auto Key = [](const CvReport &R) { return std::isnan(R.pooled.mape) ? INFINITY : R.pooled.mape; };
  return *std::min_element(Reports.begin(), Reports.end(),
                           [&](const auto &A, const auto &B) { return Key(A) < Key(B); });
}

} // namespace

std::string reportJson(std::span<const CvReport> Reports) {
  nlohmann::ordered_json J;
  J["protocol"] = Reports.empty() ? "" : Reports.front().protocol;
  J["target_transform"] = Reports.empty() ? "" : Reports.front().transform;
  J["learners"] = nlohmann::ordered_json::array();
  for (const CvReport &R : Reports)
    J["learners"].push_back(learnerJson(R));
  return J.dump(1) + "\n";
}

std::string reportTable(std::span<const CvReport> Reports, size_t TopFeatures) {
  if (Reports.empty())
    return "no learners evaluated\n";
  const CvReport &First = Reports.front();
  std::string S = First.protocol + ", target transform " + First.transform + ", " +
                  std::to_string(First.pooled.n) + " rows x " + std::to_string(First.pooled.p) +
                  " features (out-of-fold metrics)\n";
  S += line("%-10s %9s %12s %12s %8s %8s\n", "learner", "MAPE%", "RMSE", "MAE", "R2", "adjR2");
  for (const CvReport &R : Reports)
    S += line("%-10s %9.2f %12.5g %12.5g %8.4f %8.4f\n", R.learner.c_str(), R.pooled.mape,
              R.pooled.rmse, R.pooled.mae, R.pooled.r2, R.pooled.adjustedR2);
  S += line("\nMAPE%% per fold\n%-24s", "fold");
  for (const CvReport &R : Reports)
    S += line(" %9s", R.learner.c_str());
  S += "\n";
  for (size_t F = 0; F < First.folds.size(); ++F) {
    S += line("%-24s", First.folds[F].first.c_str());
    for (const CvReport &R : Reports)
      S += line(" %9.2f", F < R.folds.size() ? R.folds[F].second.mape : NAN);
    S += "\n";
  }
  const CvReport &Best = mostAccurate(Reports);
  S += "\nmost influencing predictors (" + Best.learner + "):\n";
  for (size_t I = 0; I < Best.importance.size() && I < TopFeatures; ++I)
    S += line("  %2zu. %-32s %.4g\n", I + 1, Best.importance[I].first.c_str(),
              Best.importance[I].second);
  return S;
}

} // namespace learners
