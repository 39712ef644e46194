// What compareNetworks shares with its max-batch search (MaxBatch.cpp): one model analysed at
// one batch and predicted on every GPU, and the search itself. Internal to pipeline/.
#pragma once

#include "pipeline/Calibration.h"
#include "pipeline/Documents.h"

#include "pipeline/UserCaches.h"

#include <map>
#include <tuple>

namespace pipeline {

/// Model `Model` of R at `Batch`, sharing `Caches`' kernels and analyses with the other requests.
NetworkRequest compareNetworkRequest(const CompareRequest &R, size_t Model, int64_t Batch,
                                     UserCaches &Caches);

/// What every analysis of one compare shares, and how many networks it has analysed.
struct CompareContext {
  const CompareRequest &request;
  const PredictSettings &settings;
  const learners::Predictor &predictor;
  const std::vector<hardware::GpuSpec> &gpus;
  const hardware::GpuCatalog &catalog;
  /// Analyses by (model, batch, engine lowering), shared by the runtimes of one request (eager
  /// and graph predict from the same analysis) and batch 1's with the larger batches' floor.
  std::map<std::tuple<size_t, int64_t, bool>, std::shared_ptr<const NetworkAnalysis>> &analysed;
  UserCaches &caches; ///< models share layer shapes (EfficientNet-B0..B7 at one batch)
  const std::vector<Calibration> &calibrations; ///< applied to their GPUs' predictions
  size_t analyses = 0;

  /// Model `Model` at `Batch` analysed (reported to the request's progress as one of `Total`,
  /// 0 = unknown, unless analysed before) and predicted on every GPU, in the order of `gpus`.
  support::Expected<std::vector<GpuPrediction>> predict(size_t Model, int64_t Batch, size_t Total);
  /// Analyses every model at every batch of the request that `analysed` lacks, two networks at
  /// a time on two cores (one network's serial steps, building its kernels' IR and reading its
  /// PTX, leave a core the other's compiling and counting take); the first failure in request
  /// order. An analysis does not depend on what runs beside it, so neither does the result.
  /// Batch 1 goes first: a larger batch's floor reads it (batchOneOf) rather than analysing it
  /// again.
  support::MaybeError analyseAll();
  /// Model `Model`'s analysis at batch 1 when `analysed` has it (for analyseFor), else null.
  std::shared_ptr<const NetworkAnalysis> batchOneOf(size_t Model) const;

private:
  /// analyseAll's missing analyses at batch 1 (`Ones`) or at the other batches.
  support::MaybeError analyseMissing(bool Ones);
};

/// Per model and GPU, the largest batch that fits the GPU's memory and meets the request's
/// budget and images/s target (CompareCell::maxBatch).
support::Expected<std::vector<CompareCell>> searchMaxBatch(CompareContext &C);

} // namespace pipeline
