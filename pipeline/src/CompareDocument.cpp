// Every model on every GPU at every batch size (or at the largest batch that fits and meets the
// targets): the matrix and its JSON document (Documents.h). Each model and batch is analysed
// once (analysis does not depend on the GPU).
#include "pipeline/Documents.h"
#include "pipeline/GpuSelection.h"

#include "CompareSearch.h"

#include "corpus/Zoo.h"

#include "support/Parallel.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>

namespace pipeline {
namespace {

using OJson = nlohmann::ordered_json;

/// The request's runtimes that parse (an unknown one is predictSettings' error to report).
std::vector<Runtime> askedRuntimes(const CompareRequest &R) {
  std::vector<Runtime> Out;
  for (const std::string &Name : splitRuntimes(R.runtime))
    if (auto X = parseRuntime(Name))
      Out.push_back(*X);
  return Out;
}

/// Whether the GPU, and not the request itself, keeps the dtype from one of the runtimes.
bool cannotRun(const std::string &Dtype, const std::vector<Runtime> &Asked,
               const hardware::GpuSpec &Gpu) {
  return std::any_of(Asked.begin(), Asked.end(), [&](Runtime X) {
    return !checkDtype(Dtype, X) && checkDtype(Dtype, X, &Gpu);
  });
}

/// What the GPUs left out lack, for people: "int8 needs ...; compile needs ...".
std::string leftOutWhy(const CompareRequest &R) {
  std::string Why;
  const auto Add = [&Why](const std::string &Who, const std::string &Needs) {
    if (!Needs.empty())
      Why += (Why.empty() ? "" : "; ") + Who + " needs " + Needs;
  };
  Add(R.dtype, dtypeRequirement(R.dtype));
  for (Runtime X : askedRuntimes(R))
    Add(std::string(runtimeName(X)), runtimeRequirement(X));
  return Why;
}

/// Expands "all" and checks every name before any analysis runs. "all" leaves out, into LeftOut,
/// the catalog GPUs that cannot run the request's dtype under its runtimes (cannotRun); a GPU
/// named so is an error instead.
support::Expected<std::vector<hardware::GpuSpec>>
resolve(CompareRequest &R, const hardware::GpuCatalog &Catalog, std::vector<std::string> &LeftOut) {
  if (R.models.size() == 1 && R.models[0] == "all") {
    R.models.clear();
    for (const corpus::ZooModel &M : corpus::zooModels())
      R.models.push_back(M.name);
  }
  for (size_t I = 0; I < R.models.size(); ++I)
    if (I >= R.modelBytes.size() || R.modelBytes[I].empty())
      if (auto E = checkModelName(R.models[I]))
        return *E;
  if (R.gpus.size() == 1 && R.gpus[0] == "all") {
    R.gpus.clear();
    const std::vector<Runtime> Asked = askedRuntimes(R);
    for (const hardware::GpuSpec &G : Catalog.gpus())
      (cannotRun(R.dtype, Asked, G) ? LeftOut : R.gpus).push_back(G.name);
  }
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

support::Expected<std::vector<CompareCell>> predictAll(CompareContext &C) {
  const CompareRequest &R = C.request;
  if (auto E = C.analyseAll())
    return *E;
  std::vector<CompareCell> Cells;
  for (size_t I = 0; I < R.models.size(); ++I)
    for (int64_t Batch : R.batches) {
      auto G = C.predict(I, Batch, R.models.size() * R.batches.size());
      if (!G)
        return G.error();
      for (GpuPrediction &X : *G)
        Cells.push_back({R.models[I], std::move(X), std::nullopt});
    }
  return Cells;
}

OJson orNull(bool Given, bool Value) { return Given ? OJson(Value) : OJson(nullptr); }

} // namespace

NetworkRequest compareNetworkRequest(const CompareRequest &R, size_t Model, int64_t Batch,
                                     UserCaches &Caches) {
  NetworkRequest N;
  N.input = R.models[Model];
  N.batch = Batch;
  N.imageSize = R.imageSize;
  N.dtype = R.dtype;
  N.threads = R.threads;
  N.cache = &Caches.kernels;
  N.analyses = Caches.analysisCache();
  if (Model < R.modelBytes.size())
    N.onnxBytes = R.modelBytes[Model];
  if (R.progress)
    N.progress = [](size_t, size_t) {}; // the caller reports per network instead
  return N;
}

support::Expected<std::vector<GpuPrediction>> CompareContext::predict(size_t Model, int64_t Batch,
                                                                      size_t Total) {
  const bool Engine = settings.runtime == Runtime::Engine;
  auto It = analysed.find({Model, Batch, Engine});
  if (It == analysed.end()) {
    if (request.progress)
      request.progress(analyses, Total, request.models[Model], Batch);
    NetworkRequest N = compareNetworkRequest(request, Model, Batch, caches);
    auto A = analyseFor(N, settings.runtime, gpus, Batch > 1 ? batchOneOf(Model) : nullptr);
    if (!A)
      return A.error();
    ++analyses;
    It = analysed
             .emplace(std::make_tuple(Model, Batch, Engine),
                      std::make_shared<const NetworkAnalysis>(std::move(*A)))
             .first;
  }
  auto Gs = predictOnGpus(*It->second, predictor, gpus, settings, catalog);
  if (Gs)
    applyCalibrations(*Gs, calibrations);
  return Gs;
}

std::shared_ptr<const NetworkAnalysis> CompareContext::batchOneOf(size_t Model) const {
  auto It = analysed.find({Model, 1, settings.runtime == Runtime::Engine});
  return It == analysed.end() ? nullptr : It->second;
}

support::MaybeError CompareContext::analyseAll() {
  if (auto E = analyseMissing(true))
    return E;
  return analyseMissing(false);
}

support::MaybeError CompareContext::analyseMissing(bool Ones) {
  const bool Engine = settings.runtime == Runtime::Engine;
  std::vector<std::pair<size_t, int64_t>> Missing;
  std::vector<std::shared_ptr<const NetworkAnalysis>> BatchOne; // per Missing entry
  for (size_t I = 0; I < request.models.size(); ++I)
    for (int64_t Batch : request.batches)
      if ((Batch == 1) == Ones && !analysed.count({I, Batch, Engine})) {
        Missing.emplace_back(I, Batch);
        BatchOne.push_back(Batch > 1 ? batchOneOf(I) : nullptr);
      }
  const size_t Total = request.models.size() * request.batches.size();
  std::vector<std::optional<support::Expected<NetworkAnalysis>>> Out(Missing.size());
  std::mutex Reporting;
  size_t Started = analyses;
  std::atomic<size_t> FirstFailed{Missing.size()};      // later analyses are not started
  const unsigned Beside = request.threads == 1 ? 1 : 2; // --threads 1: one thread in all
  support::parallelFor(Missing.size(), Beside, [&](size_t K, unsigned) {
    if (K > FirstFailed)
      return;
    const auto [Model, Batch] = Missing[K];
    if (request.progress) {
      std::lock_guard<std::mutex> Lock(Reporting);
      request.progress(Started++, Total, request.models[Model], Batch);
    }
    Out[K] = analyseFor(compareNetworkRequest(request, Model, Batch, caches), settings.runtime,
                        gpus, BatchOne[K]);
    if (!*Out[K]) { // the lowest failing index wins
      size_t F = FirstFailed;
      while (K < F && !FirstFailed.compare_exchange_weak(F, K)) {
      }
    }
  });
  for (size_t K = 0; K < Missing.size(); ++K) {
    if (K == FirstFailed)
      return Out[K]->error();
    analysed.emplace(std::make_tuple(Missing[K].first, Missing[K].second, Engine),
                     std::make_shared<const NetworkAnalysis>(std::move(**Out[K])));
    ++analyses;
  }
  return std::nullopt;
}

support::Expected<CompareResult> compareNetworks(CompareRequest R) {
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog)
    return Catalog.error();
  std::vector<std::string> LeftOut;
  auto Gpus = resolve(R, *Catalog, LeftOut);
  if (!Gpus)
    return Gpus.error();
  // Several runtimes side by side ("eager,graph,tensorrt"): the whole matrix once per runtime.
  std::vector<PredictSettings> Runtimes;
  for (const std::string &Name : splitRuntimes(R.runtime)) {
    auto S = predictSettings(Name, R.math, R.host, &*Catalog);
    if (!S)
      return S.error();
    S->breakdown = false;                      // a cell shows the network's total only
    for (const hardware::GpuSpec &Gpu : *Gpus) // the dtype under this runtime, on each GPU
      if (auto E = checkDtype(R.dtype, S->runtime, &Gpu, S->math))
        return *E;
    Runtimes.push_back(*S);
  }
  if (Runtimes.size() > 1 && R.maxBatch)
    return support::Error("--max-batch searches one runtime at a time (got --runtime " + R.runtime +
                          ")");
  auto P = choosePredictor(R.model);
  if (!P)
    return P.error();
  std::vector<CompareCell> Cells;
  size_t Analyses = 0;
  std::map<std::tuple<size_t, int64_t, bool>, std::shared_ptr<const NetworkAnalysis>> Analysed;
  UserCaches Caches;
  std::vector<Calibration> Calibrations;
  if (!R.calibrate.empty()) {
    auto Timings = readMeasurements(R.calibrate, *Catalog);
    if (!Timings)
      return Timings.error();
    std::erase_if(*Timings, [&](const Measurement &M) { // only the GPUs compared are calibrated
      return std::none_of(Gpus->begin(), Gpus->end(),
                          [&](const hardware::GpuSpec &G) { return G.name == M.gpu; });
    });
    auto C = calibrate(*Timings, *P, *Catalog, Caches);
    if (!C)
      return C.error();
    Calibrations = std::move(*C);
  }
  for (const PredictSettings &S : Runtimes) {
    CompareContext Context{R, S, *P, *Gpus, *Catalog, Analysed, Caches, Calibrations};
    auto More = R.maxBatch ? searchMaxBatch(Context) : predictAll(Context);
    if (!More)
      return More.error();
    std::move(More->begin(), More->end(), std::back_inserter(Cells));
    Analyses += Context.analyses;
  }
  if (R.progress)
    R.progress(Analyses, Analyses, "", 0);
  std::string Why = LeftOut.empty() ? "" : leftOutWhy(R);
  return CompareResult{std::move(R), Runtimes.front(),    std::move(*P),      std::move(Cells),
                       Analyses,     Runtimes.size() > 1, std::move(LeftOut), std::move(Why)};
}

std::vector<std::string> splitRuntimes(const std::string &List) {
  std::vector<std::string> Out;
  size_t Start = 0;
  while (Start <= List.size()) {
    const size_t End = std::min(List.find(',', Start), List.size());
    Out.push_back(List.substr(Start, End - Start));
    Start = End + 1;
  }
  return Out;
}

OJson compareJson(const CompareResult &C) {
  OJson Rows = OJson::array();
  const CompareRequest &R = C.request;
  for (const CompareCell &Cell : C.cells) {
    const GpuPrediction &G = Cell.prediction;
    OJson Band = G.intervalMs ? OJson{G.intervalMs->first, G.intervalMs->second} : OJson(nullptr);
    Rows.push_back(
        {{"model", Cell.input},
         {"batch", G.batch},
         {"gpu", G.gpu.name},
         {"runtime", runtimeName(G.runtime)},
         {"math", hardware::mathModeName(G.math)},
         {"launches", G.launches},
         {"time_ms", G.timeMs},
         {"gpu_ms", G.gpuMs},
         {"host_ms", G.hostMs},
         {"bound_ms", G.boundMs},
         {"launch_latency_ms", G.launchLatencyMs},
         {"interval_ms", Band},
         {"calibration", calibrationJson(G)},
         {"images_per_s", G.imagesPerSecond()},
         {"tdp_w", G.gpu.tdpW},
         {"clock_mhz", G.clock.mhz},
         {"clock_limiter", G.clock.limiter},
         {"dominance_floor", G.dominanceFloor.empty() ? OJson(nullptr) : OJson(G.dominanceFloor)},
         {"engine_dtype", G.engineDtype.empty() ? OJson(nullptr) : OJson(G.engineDtype)},
         {"images_per_s_per_w", G.imagesPerSecondPerWatt()},
         {"memory", memoryJson(G.memory)},
         {"meets_budget", orNull(R.budgetMs > 0, C.withinBudget(G))},
         {"meets_target_ips", orNull(R.targetIps > 0, C.reachesTarget(G))},
         {"meets_targets", orNull(C.hasTargets(), C.meets(G))},
         {"meets_targets_band", orNull(C.hasTargets(), C.meetsAcrossBand(G))},
         {"max_batch", Cell.maxBatch ? OJson(*Cell.maxBatch) : OJson(nullptr)},
         {"warnings", G.warnings}});
  }
  return {{"model", predictorJson(C.predictor)},
          {"runtime", C.severalRuntimes ? R.runtime : std::string(runtimeName(C.settings.runtime))},
          {"dtype", R.dtype},
          {"budget_ms", R.budgetMs > 0 ? OJson(R.budgetMs) : OJson(nullptr)},
          {"target_ips", R.targetIps > 0 ? OJson(R.targetIps) : OJson(nullptr)},
          {"max_batch", R.maxBatch},
          {"analyses", C.analyses},
          {"left_out", C.leftOut},
          {"left_out_why", C.leftOut.empty() ? OJson(nullptr) : OJson(C.leftOutWhy)},
          {"results", Rows}};
}

support::Expected<OJson> compareDocument(CompareRequest R) {
  auto C = compareNetworks(std::move(R));
  if (!C)
    return C.error();
  return compareJson(*C);
}

} // namespace pipeline
