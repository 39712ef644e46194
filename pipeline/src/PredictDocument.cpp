// One network on one GPU: the prediction and its JSON document (Documents.h).
#include "pipeline/Calibration.h"
#include "pipeline/Documents.h"
#include "pipeline/GpuSelection.h"
#include "pipeline/UserCaches.h"

namespace pipeline {
namespace {

using OJson = nlohmann::ordered_json;

OJson intervalJson(const GpuPrediction &G) {
  if (!G.intervalMs)
    return nullptr;
  return {G.intervalMs->first, G.intervalMs->second};
}

} // namespace

std::string dtypeText(const std::string &Dtype, Runtime R) {
  if (Dtype == "int8")
    return "int8 (engine: int8 convolutions and dense layers, int32 accumulation; other layers "
           "fp16)";
  if (Dtype != "f16")
    return Dtype;
  return R == Runtime::Engine ? "f16 (engine: fp16 weights and tensors, no casts)"
                              : "f16 (PyTorch autocast: fp32 weights cast to fp16 every pass)";
}

OJson memoryJson(const DeviceMemory &M) {
  return {{"total_bytes", M.totalBytes()},
          {"capacity_bytes", M.capacityBytes > 0 ? OJson(M.capacityBytes) : OJson(nullptr)},
          {"fits", M.fits()},
          {"weights_bytes", M.weightBytes},
          {"weight_copies_bytes", M.peak.castBytes},
          {"activations_bytes", M.peak.activationBytes},
          {"workspace_bytes", M.peak.workspaceBytes},
          {"peak_layer", M.peak.layer},
          {"reserve_bytes", M.reserveBytes},
          {"shared_with_os", M.shared}};
}

OJson calibrationJson(const GpuPrediction &G) {
  if (G.calibrationTimings == 0)
    return nullptr;
  return {{"factor", G.calibrationFactor}, {"timings", G.calibrationTimings}};
}

support::Expected<PredictOutcome> predictNetwork(const PredictRequest &R) {
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog)
    return Catalog.error();
  auto Gpu = resolveGpu(R.gpu, *Catalog);
  if (!Gpu)
    return Gpu.error();
  auto Settings = predictSettings(R.runtime, R.math, R.host, &*Catalog);
  if (!Settings)
    return Settings.error();
  if (auto E = checkDtype(R.network.dtype, Settings->runtime, &*Gpu, Settings->math))
    return *E;
  auto P = choosePredictor(R.model);
  if (!P)
    return P.error();
  std::vector<Measurement> Timings; // read before the analysis: a bad file fails fast
  if (!R.calibrate.empty()) {
    auto T = readMeasurements(R.calibrate, *Catalog, Gpu->name);
    if (!T)
      return T.error();
    Timings = std::move(*T);
  }
  UserCaches Caches;
  NetworkRequest Request = R.network;
  if (!Request.cache && !Request.analyses) { // the caller's caches, or the per-user ones
    Request.cache = &Caches.kernels;
    Request.analyses = Caches.analysisCache();
  }
  auto N = analyseFor(Request, Settings->runtime, {*Gpu});
  if (!N)
    return N.error();
  auto Gs = predictOnGpus(*N, *P, {*Gpu}, *Settings, *Catalog);
  if (!Gs)
    return Gs.error();
  if (!Timings.empty()) {
    auto C = calibrate(Timings, *P, *Catalog, Caches);
    if (!C)
      return C.error();
    applyCalibrations(*Gs, *C);
  }
  return PredictOutcome{std::move(*N), std::move(*P), std::move(Gs->front())};
}

OJson predictionJson(const NetworkAnalysis &N, const learners::Predictor &P,
                     const GpuPrediction &G) {
  OJson Kinds = OJson::array();
  for (const KindTime &K : G.breakdown)
    Kinds.push_back({{"kind", K.kind},
                     {"launches", K.launches},
                     {"time_ms", K.ms},
                     {"share", G.timeMs > 0 ? K.ms / G.timeMs : 0}});
  return {{"network", N.network},
          {"gpu", G.gpu.name},
          {"gpu_full_name", G.gpu.fullName},
          {"batch", N.batch},
          {"image_size", N.imageSize},
          {"dtype", N.dtype},
          {"math", hardware::mathModeName(G.math)},
          {"runtime", runtimeName(G.runtime)},
          {"launches", G.launches},
          {"time_ms", G.timeMs},
          {"interval_ms", intervalJson(G)},
          {"gpu_ms", G.gpuMs},
          {"host_ms", G.hostMs},
          {"host", G.host.name},
          {"kernels", G.kernels},
          {"bound_ms", G.boundMs},
          {"launch_latency_ms", G.launchLatencyMs},
          {"time_per_image_ms", G.perImageMs()},
          {"images_per_s", G.imagesPerSecond()},
          {"tdp_w", G.gpu.tdpW},
          {"clock_mhz", G.clock.mhz},
          {"clock_limiter", G.clock.limiter},
          {"board_w", G.clock.limiter == "mode" ? OJson(nullptr) : OJson(G.clock.boardW)},
          {"dominance_floor", G.dominanceFloor.empty() ? OJson(nullptr) : OJson(G.dominanceFloor)},
          {"engine_dtype", G.engineDtype.empty() ? OJson(nullptr) : OJson(G.engineDtype)},
          {"images_per_s_per_w", G.imagesPerSecondPerWatt()},
          {"memory", memoryJson(G.memory)},
          {"breakdown", Kinds},
          {"calibration", calibrationJson(G)},
          {"warnings", G.warnings},
          {"model", predictorJson(P)}};
}

support::Expected<OJson> predictDocument(const PredictRequest &R) {
  auto O = predictNetwork(R);
  if (!O)
    return O.error();
  return predictionJson(O->network, O->predictor, O->prediction);
}

} // namespace pipeline
