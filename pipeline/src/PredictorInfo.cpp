// What a predictor bundle is (Prediction.h): its JSON and its one-line summary.
#include "pipeline/Prediction.h"

#include <fmt/format.h>

namespace pipeline {

using learners::Predictor;
using OJson = nlohmann::ordered_json;

OJson predictorJson(const Predictor &P) {
  const learners::PredictorInfo &I = P.info();
  OJson Band = nullptr;
  if (I.band)
    Band = {{"protocol", I.band->protocol},  {"rows", I.band->rows},
            {"coverage", I.band->coverage},  {"mape", I.band->mape},
            {"ratio_low", I.band->ratioLow}, {"ratio_high", I.band->ratioHigh}};
  return {{"name", I.name},
          {"predicts", P.model().predicts()},
          {"learner", P.model().learner()},
          {"training_data", I.trainingData},
          {"training_rows", I.trainingRows},
          {"training_gpus", I.trainingGpus},
          {"error_band", Band}};
}

std::string predictorSummary(const Predictor &P) {
  const learners::PredictorInfo &I = P.info();
  std::string S = fmt::format("model {} ({}): predicts {}\ntrained on {} rows of {}; GPUs {}",
                              I.name, P.model().learner(), P.model().predicts(), I.trainingRows,
                              I.trainingData, fmt::join(I.trainingGpus, ", "));
  if (I.band)
    S += fmt::format("\nerror band: {:.0f}% of {} out-of-fold ratios fall in [{:.3f}, {:.3f}] "
                     "(MAPE {:.1f}%)",
                     100 * I.band->coverage, I.band->protocol, I.band->ratioLow, I.band->ratioHigh,
                     I.band->mape);
  else
    S += "\nerror band: none (the bundle was trained without --cv)";
  return S;
}

} // namespace pipeline
