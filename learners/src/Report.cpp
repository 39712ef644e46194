// Cross-validation reports as deterministic JSON and as a readable text table.
#include "learners/CrossValidation.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace learners {
namespace {

nlohmann::ordered_json metricsJson(const Metrics &M) {
  nlohmann::ordered_json J;
  J["n"] = M.n;
  J["p"] = M.p;
  J["mape_percent"] = M.mape;
  J["rmse"] = M.rmse;
  J["mae"] = M.mae;
  J["r2"] = M.r2;
  J["adjusted_r2"] = M.adjustedR2;
  J["zero_targets"] = M.zeroTargets;
  return J;
}

std::string metricsLine(const std::string &Name, const Metrics &M) {
  char Buf[256];
  std::snprintf(Buf, sizeof(Buf), "%-24s %8zu %10.3f %12.5g %12.5g %8.4f %8.4f\n", Name.c_str(),
                M.n, M.mape, M.rmse, M.mae, M.r2, M.adjustedR2);
  return Buf;
}

} // namespace

std::string reportJson(const CvReport &R) {
  nlohmann::ordered_json J;
  J["learner"] = R.learner;
  J["target_transform"] = R.transform;
  J["protocol"] = R.protocol;
  J["pooled"] = metricsJson(R.pooled);
  J["folds"] = nlohmann::ordered_json::array();
  for (const auto &[Name, M] : R.folds)
    J["folds"].push_back({{"name", Name}, {"metrics", metricsJson(M)}});
  J["importance"] = nlohmann::ordered_json::array();
  for (const auto &[Name, V] : R.importance)
    J["importance"].push_back({{"feature", Name}, {"value", V}});
  return J.dump(1) + "\n";
}

std::string reportText(const CvReport &R, size_t TopFeatures) {
  std::string S =
      "learner " + R.learner + ", target transform " + R.transform + ", " + R.protocol + "\n";
  char Head[256];
  std::snprintf(Head, sizeof(Head), "%-24s %8s %10s %12s %12s %8s %8s\n", "fold", "n", "MAPE%",
                "RMSE", "MAE", "R2", "adjR2");
  S += Head;
  for (const auto &[Name, M] : R.folds)
    S += metricsLine(Name, M);
  S += metricsLine("pooled (out-of-fold)", R.pooled);
  S += "most influencing predictors:\n";
  for (size_t I = 0; I < R.importance.size() && I < TopFeatures; ++I) {
    char Line[256];
    std::snprintf(Line, sizeof(Line), "  %2zu. %-32s %.4g\n", I + 1, R.importance[I].first.c_str(),
                  R.importance[I].second);
    S += Line;
  }
  return S;
}

} // namespace learners
