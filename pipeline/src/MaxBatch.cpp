// compare --max-batch: per model and GPU, the largest batch that fits the GPU's memory and meets
// the budget and the images/s target (CompareSearch.h; docs/predict.md, "The largest batch").
//
// Memory needs only the network built at a batch (milliseconds); time needs the network lowered
// and analysed (the expensive step, shared by all GPUs since it does not depend on the GPU). So
// the search bisects memory by building networks, then, under a budget, doubles the batch from 1
// and bisects between the last batch within the budget and the first over it, memoising each
// analysis for every GPU. Time per batch is taken to grow with the batch and images/s not to
// fall with it, so the largest batch within the budget is the one with the most images/s: if it
// misses the images/s target, no batch meets it.
#include "CompareSearch.h"

#include <algorithm>
#include <map>

namespace pipeline {
namespace {

/// One model's search state: analyses and memory per batch, memoised across GPUs.
class ModelSearch {
public:
  ModelSearch(CompareContext &C, size_t Model) : C(C), R(C.request), Model(Model) {}

  /// The cell of GPU `Gpu`: its largest batch and the prediction there.
  support::Expected<CompareCell> cellFor(size_t Gpu) {
    auto One = at(1, Gpu);
    if (!One)
      return One.error();
    CompareCell None{R.models[Model], *One, 0};
    if (!One->memory.fits() || (R.budgetMs > 0 && One->timeMs > R.budgetMs))
      return None;
    auto Hi = memoryLimit(Gpu, One->math != hardware::MathMode::Simt);
    if (!Hi)
      return Hi.error();
    auto Best = R.budgetMs > 0 ? largestWithinBudget(Gpu, *Hi) : *Hi;
    if (!Best)
      return Best.error();
    auto G = at(*Best, Gpu);
    if (!G)
      return G.error();
    const auto Why = Refused.find(*Hi + 1);
    const bool Refusal = Why != Refused.end() && *Best == *Hi;
    if (Refusal)
      G->warnings.push_back("the largest batch is the lowering's, not the memory's: at batch " +
                            std::to_string(*Hi + 1) + " " + Why->second);
    const bool Reaches = R.targetIps <= 0 || G->imagesPerSecond() >= R.targetIps;
    return CompareCell{R.models[Model], *G, Reaches ? *Best : 0, Refusal};
  }

private:
  /// The prediction at Batch on GPU `Gpu` (one analysis per batch, for all GPUs).
  support::Expected<GpuPrediction> at(int64_t Batch, size_t Gpu) {
    auto It = Predicted.find(Batch);
    if (It == Predicted.end()) {
      auto G = C.predict(Model, Batch, /*Total=*/0);
      if (!G)
        return G.error();
      It = Predicted.emplace(Batch, std::move(*G)).first;
    }
    return It->second[Gpu];
  }

  /// Whether the network at Batch fits GPU `Gpu`'s memory (a build, an engine's lowering plan;
  /// no analysis). A batch above 1 the lowering refuses (an int8 engine's kernels index with 32
  /// bits) does not fit either, and the cell says why (Refused).
  support::Expected<bool> fits(int64_t Batch, size_t Gpu, bool TensorCores) {
    if (Refused.count(Batch))
      return false;
    auto It = Memory.find(Batch);
    if (It == Memory.end()) {
      const NetworkRequest Request =
          requestFor(compareNetworkRequest(R, Model, Batch, C.caches), C.settings.runtime);
      auto N = buildNetwork(Request);
      if (!N)
        return inInput(N.error(), R.models[Model]);
      auto M = memoryOf(*N, Request);
      if (!M && Batch > 1) {
        Refused.emplace(Batch, M.error().message);
        return false;
      }
      if (!M)
        return inInput(M.error(), R.models[Model]);
      It = Memory.emplace(Batch, std::move(*M)).first;
    }
    return deviceMemory(It->second, C.gpus[Gpu], TensorCores).fits();
  }

  /// The largest batch up to MaxBatch that fits (batch 1 does): MaxBatch, else bisection.
  support::Expected<int64_t> memoryLimit(size_t Gpu, bool TensorCores) {
    int64_t Good = 1, Bad = MaxBatch + 1;
    while (Bad - Good > 1) {
      const int64_t Mid = Bad == MaxBatch + 1 ? MaxBatch : Good + (Bad - Good) / 2;
      auto F = fits(Mid, Gpu, TensorCores);
      if (!F)
        return F.error();
      (*F ? Good : Bad) = Mid;
    }
    return Good;
  }

  /// The largest batch up to Hi within the budget (batch 1 is): doubling, then bisection.
  support::Expected<int64_t> largestWithinBudget(size_t Gpu, int64_t Hi) {
    int64_t Good = 1, Bad = Hi + 1;
    for (int64_t B = 2; Good < Hi && Bad == Hi + 1; B *= 2) {
      auto G = at(std::min(B, Hi), Gpu);
      if (!G)
        return G.error();
      (G->timeMs <= R.budgetMs ? Good : Bad) = std::min(B, Hi);
    }
    while (Bad - Good > 1) {
      const int64_t Mid = Good + (Bad - Good) / 2;
      auto G = at(Mid, Gpu);
      if (!G)
        return G.error();
      (G->timeMs <= R.budgetMs ? Good : Bad) = Mid;
    }
    return Good;
  }

  CompareContext &C;
  const CompareRequest &R;
  size_t Model;
  std::map<int64_t, std::vector<GpuPrediction>> Predicted;
  std::map<int64_t, NetworkMemory> Memory;
  std::map<int64_t, std::string> Refused; ///< batches the lowering refused, and why
};

} // namespace

support::Expected<std::vector<CompareCell>> searchMaxBatch(CompareContext &C) {
  std::vector<CompareCell> Cells;
  for (size_t M = 0; M < C.request.models.size(); ++M) {
    ModelSearch Search(C, M);
    for (size_t G = 0; G < C.gpus.size(); ++G) {
      auto Cell = Search.cellFor(G);
      if (!Cell)
        return Cell.error();
      Cells.push_back(std::move(*Cell));
    }
  }
  return Cells;
}

} // namespace pipeline
