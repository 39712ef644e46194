// Every model on every GPU at every batch size: the matrix and its JSON document (Documents.h).
// Each model and batch is analysed once (analysis does not depend on the GPU).
#include "pipeline/Documents.h"
#include "pipeline/GpuSelection.h"

#include "corpus/Zoo.h"

namespace pipeline {
namespace {

using OJson = nlohmann::ordered_json;

/// Expands "all" and checks every name before any analysis runs.
support::Expected<std::vector<hardware::GpuSpec>> resolve(CompareRequest &R,
                                                          const hardware::GpuCatalog &Catalog) {
  if (R.models.size() == 1 && R.models[0] == "all") {
    R.models.clear();
    for (const corpus::ZooModel &M : corpus::zooModels())
      R.models.push_back(M.name);
  }
  for (size_t I = 0; I < R.models.size(); ++I)
    if (!isOnnxPath(R.models[I]) && (I >= R.modelBytes.size() || R.modelBytes[I].empty()))
      if (auto N = corpus::buildZooModel(R.models[I]); !N)
        return N.error();
  if (R.gpus.size() == 1 && R.gpus[0] == "all")
    R.gpus = Catalog.names();
  R.gpus.insert(R.gpus.end(), R.gpuSpecs.begin(), R.gpuSpecs.end());
  std::vector<hardware::GpuSpec> Gpus;
  for (const std::string &Name : R.gpus) {
    auto G = resolveGpu(Name, Catalog);
    if (!G)
      return G.error();
    Gpus.push_back(*G);
  }
  return Gpus;
}

support::Expected<std::vector<CompareCell>>
predictAll(const CompareRequest &R, const PredictSettings &S, const learners::Predictor &P,
           const std::vector<hardware::GpuSpec> &Gpus, const hardware::GpuCatalog &Catalog) {
  std::vector<CompareCell> Cells;
  corpus::KernelCache Cache; // models share layer shapes (EfficientNet-B0..B7 at one batch)
  const size_t Total = R.models.size() * R.batches.size();
  size_t Done = 0;
  for (size_t I = 0; I < R.models.size(); ++I)
    for (int64_t Batch : R.batches) {
      const std::string &Model = R.models[I];
      NetworkRequest N;
      N.input = Model;
      N.batch = Batch;
      N.imageSize = R.imageSize;
      N.dtype = R.dtype;
      N.threads = R.threads;
      N.cache = &Cache;
      if (I < R.modelBytes.size())
        N.onnxBytes = R.modelBytes[I];
      if (R.progress)
        N.progress = [](size_t, size_t) {}; // the caller reports per network instead
      auto A = analyseNetwork(N);
      if (!A)
        return A.error();
      auto G = predictOnGpus(*A, P, Gpus, S, Catalog);
      if (!G)
        return G.error();
      for (GpuPrediction &X : *G)
        Cells.push_back({Model, std::move(X)});
      if (R.progress)
        R.progress(++Done, Total);
    }
  return Cells;
}

} // namespace

support::Expected<CompareResult> compareNetworks(CompareRequest R) {
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog)
    return Catalog.error();
  auto Gpus = resolve(R, *Catalog);
  if (!Gpus)
    return Gpus.error();
  auto Settings = predictSettings(R.runtime, R.math, R.host, &*Catalog);
  if (!Settings)
    return Settings.error();
  Settings->breakdown = false; // a cell shows the network's total only
  auto P = choosePredictor(R.model);
  if (!P)
    return P.error();
  auto Cells = predictAll(R, *Settings, *P, *Gpus, *Catalog);
  if (!Cells)
    return Cells.error();
  return CompareResult{std::move(R), *Settings, std::move(*P), std::move(*Cells)};
}

OJson compareJson(const CompareResult &C) {
  OJson Rows = OJson::array();
  for (const CompareCell &Cell : C.cells) {
    const GpuPrediction &G = Cell.prediction;
    OJson Band = G.intervalMs ? OJson{G.intervalMs->first, G.intervalMs->second} : OJson(nullptr);
    Rows.push_back({{"model", Cell.input},
                    {"batch", G.batch},
                    {"gpu", G.gpu.name},
                    {"math", hardware::mathModeName(G.math)},
                    {"launches", G.launches},
                    {"time_ms", G.timeMs},
                    {"bound_ms", G.boundMs},
                    {"launch_latency_ms", G.launchLatencyMs},
                    {"interval_ms", Band},
                    {"images_per_s", G.imagesPerSecond()},
                    {"tdp_w", G.gpu.tdpW},
                    {"clock_mhz", G.clock.mhz},
                    {"clock_limiter", G.clock.limiter},
                    {"dominance_floor", G.dominanceFloor.empty() ? OJson(nullptr)
                                                                 : OJson(G.dominanceFloor)},
                    {"images_per_s_per_w", G.imagesPerSecondPerWatt()},
                    {"meets_budget", C.request.budgetMs > 0 ? OJson(C.meets(G)) : OJson(nullptr)},
                    {"warnings", G.warnings}});
  }
  const double Budget = C.request.budgetMs;
  return {{"model", predictorJson(C.predictor)},
          {"runtime", runtimeName(C.settings.runtime)},
          {"dtype", C.request.dtype},
          {"budget_ms", Budget > 0 ? OJson(Budget) : OJson(nullptr)},
          {"results", Rows}};
}

support::Expected<OJson> compareDocument(CompareRequest R) {
  auto C = compareNetworks(std::move(R));
  if (!C)
    return C.error();
  return compareJson(*C);
}

} // namespace pipeline
