// Cross-validation reports of several learners as deterministic JSON and as a readable table.
#include "learners/CrossValidation.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace learners {

using support::Expected;

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
  const bool HeldOut = First.folds.empty();
  std::string S = First.protocol + ", target transform " + First.transform + ", " +
                  std::to_string(First.pooled.n) + " rows x " + std::to_string(First.pooled.p) +
                  (HeldOut ? " features (held-out scoring)\n" : " features (out-of-fold metrics)\n");
  S += line("%-10s %9s %12s %12s %8s %8s\n", "learner", "MAPE%", "RMSE", "MAE", "R2", "adjR2");
  for (const CvReport &R : Reports)
    S += line("%-10s %9.2f %12.5g %12.5g %8.4f %8.4f\n", R.learner.c_str(), R.pooled.mape,
              R.pooled.rmse, R.pooled.mae, R.pooled.r2, R.pooled.adjustedR2);
  if (HeldOut)
    return S;
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

namespace {

/// Rows of D per distinct tuple of the named identifier columns, in sorted tuple order.
Expected<std::map<std::vector<std::string>, std::vector<size_t>>>
groupsOf(const Dataset &D, const std::vector<std::string> &Columns) {
  std::vector<size_t> Cols;
  for (const std::string &C : Columns) {
    auto I = D.idIndex(C);
    if (!I)
      return support::Error("no identifier column '" + C + "' to break the report down by");
    Cols.push_back(*I);
  }
  std::map<std::vector<std::string>, std::vector<size_t>> Groups;
  for (size_t R = 0; R < D.size(); ++R) {
    std::vector<std::string> Key;
    for (size_t C : Cols)
      Key.push_back(D.ids[R][C]);
    Groups[Key].push_back(R);
  }
  return Groups;
}

/// MAPE of one report over some rows, and the median of measured / predicted.
std::pair<double, double> groupError(const CvReport &R, const Dataset &D,
                                     const std::vector<size_t> &Rows) {
  std::vector<double> Y, P, Ratio;
  for (size_t I : Rows) {
    Y.push_back(D.target[I]);
    P.push_back(R.predictions[I]);
    if (R.predictions[I] > 0)
      Ratio.push_back(D.target[I] / R.predictions[I]);
  }
  std::sort(Ratio.begin(), Ratio.end());
  double Median = Ratio.empty() ? NAN : Ratio[Ratio.size() / 2];
  return {computeMetrics(Y, P, 0).mape, Median};
}

} // namespace

Expected<std::string> breakdownTable(std::span<const CvReport> Reports, const Dataset &D,
                                     const std::vector<std::string> &Columns) {
  auto Groups = groupsOf(D, Columns);
  if (!Groups)
    return Groups.error();
  std::string By;
  for (const std::string &C : Columns)
    By += (By.empty() ? "" : ",") + C;
  std::string S = line("\nMAPE%% by %s\n%-40s %7s", By.c_str(), "group", "rows");
  for (const CvReport &R : Reports)
    S += line(" %9s", R.learner.c_str());
  const CvReport &Best = mostAccurate(Reports);
  S += line(" %13s\n", ("ratio " + Best.learner).c_str());
  for (const auto &[Key, Rows] : *Groups) {
    std::string Name;
    for (const std::string &K : Key)
      Name += (Name.empty() ? "" : ",") + K;
    S += line("%-40s %7zu", Name.c_str(), Rows.size());
    for (const CvReport &R : Reports)
      S += line(" %9.2f", groupError(R, D, Rows).first);
    S += line(" %13.3f\n", groupError(Best, D, Rows).second);
  }
  return S;
}

Expected<std::string> breakdownJson(std::span<const CvReport> Reports, const Dataset &D,
                                    const std::vector<std::string> &Columns) {
  auto Groups = groupsOf(D, Columns);
  if (!Groups)
    return Groups.error();
  nlohmann::ordered_json J;
  J["by"] = Columns;
  J["groups"] = nlohmann::ordered_json::array();
  const CvReport &Best = mostAccurate(Reports);
  for (const auto &[Key, Rows] : *Groups) {
    nlohmann::ordered_json G;
    G["group"] = Key;
    G["rows"] = Rows.size();
    for (const CvReport &R : Reports)
      G["mape"][R.learner] = groupError(R, D, Rows).first;
    G["median_ratio"] = groupError(Best, D, Rows).second;
    J["groups"].push_back(std::move(G));
  }
  return J.dump(1) + "\n";
}

} // namespace learners
