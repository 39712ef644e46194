// predictOnGpus (pipeline/Prediction.h) with several GPUs, as `compare` calls it: their learned
// times come from one evaluation of the model, and the same bits as one GPU at a time; a GPU
// described in a spec file that carries a catalog GPU's name is predicted as itself, and the
// dominance rule's catalog GPUs keep theirs.
#include "pipeline/Documents.h"
#include "pipeline/NetworkAnalysis.h"
#include "pipeline/Prediction.h"

#include "hardware/GpuCatalog.h"

#include <doctest/doctest.h>

using namespace pipeline;

namespace {

template <class T> T must(support::Expected<T> E) {
  REQUIRE_MESSAGE(E, E.error().str());
  return std::move(*E);
}

/// GPU time of each GPU, `compare`'s way (no per-launch breakdown).
std::vector<double> gpuMs(const NetworkAnalysis &N, const learners::Predictor &P,
                          const std::vector<hardware::GpuSpec> &Gpus,
                          const hardware::GpuCatalog &C) {
  PredictSettings S;
  S.breakdown = false;
  std::vector<double> Out;
  for (const GpuPrediction &G : must(predictOnGpus(N, P, Gpus, S, C)))
    Out.push_back(G.gpuMs);
  return Out;
}

} // namespace

TEST_CASE("predictOnGpus: several GPUs at once predict what each does alone") {
  NetworkRequest R;
  R.input = "mobilenetv2-0.35";
  R.batch = 8;
  const NetworkAnalysis N = must(analyseNetwork(R));
  const hardware::GpuCatalog C = must(hardware::GpuCatalog::builtin());
  const learners::Predictor P = must(choosePredictor(""));
  const hardware::GpuSpec H100 = must(C.lookup("h100-sxm")), B200 = must(C.lookup("b200")),
                          T4 = must(C.lookup("t4"));

  const std::vector<double> Together = gpuMs(N, P, {H100, B200, T4}, C);
  CHECK(Together == std::vector<double>{gpuMs(N, P, {H100}, C)[0], gpuMs(N, P, {B200}, C)[0],
                                        gpuMs(N, P, {T4}, C)[0]});

  // A GPU described under the H100's name, but the B200 with twice its memory bandwidth: faster
  // than the B200 beside it, which keeps its own time (its dominance rule reads the catalog
  // H100, which the B200 dominates, not the described GPU of that name).
  hardware::GpuSpec Described = B200;
  Described.name = H100.name;
  Described.memoryBandwidthGBs *= 2;
  const std::vector<double> Mixed = gpuMs(N, P, {Described, B200}, C);
  REQUIRE(Mixed[0] < Mixed[1]); // read as the catalog H100, it would pull the B200 down
  CHECK(Mixed[1] == Together[1]);
}

TEST_CASE("predict's JSON names the GPU whose efficiency the dominance rule used") {
  // At batch 1 the rule lifts some of the newest GPUs to a GPU they dominate (EfficientNet-B0 on
  // the B200: the GH200's efficiency); the document carries the name, or null.
  size_t Floors = 0;
  for (const std::string Gpu : {"b200", "gb200", "h200", "h100"}) {
    CAPTURE(Gpu);
    PredictRequest R;
    R.network.input = "efficientnet-b0";
    R.network.progress = [](size_t, size_t) {};
    R.gpu = Gpu;
    const PredictOutcome O = must(predictNetwork(R));
    const auto J = predictionJson(O.network, O.predictor, O.prediction)["dominance_floor"];
    Floors += !O.prediction.dominanceFloor.empty();
    if (O.prediction.dominanceFloor.empty())
      CHECK(J.is_null());
    else
      CHECK(J == O.prediction.dominanceFloor);
  }
  CHECK(Floors > 0); // the named case is exercised
}
