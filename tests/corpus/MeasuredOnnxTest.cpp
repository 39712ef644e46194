// The measured torchvision ONNX graphs that need channel concats, ceil-mode pooling and a
// standalone batch norm (corpus/data/measured/h100/onnx) import and lower; PTX is not emitted to
// stay fast.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace corpus;

namespace {

Workload lowerMeasured(const std::string &Model, int64_t Batch) {
  OnnxImportOptions IO;
  IO.batch = Batch;
  auto N = importOnnxFile(
      std::string(PTXCAST_SOURCE_DIR) + "/corpus/data/measured/h100/onnx/" + Model + ".onnx", IO);
  REQUIRE_MESSAGE(bool(N), support::errorText(N));
  LowerOptions O;
  O.emitPtx = false;
  auto W = lower(*N, O);
  REQUIRE_MESSAGE(bool(W), support::errorText(W));
  return std::move(*W);
}

std::map<std::string, size_t> strategies(const Workload &W) {
  std::map<std::string, size_t> S;
  for (const WorkloadLaunch &L : W.launches)
    ++S[L.strategy];
  return S;
}

} // namespace

TEST_CASE("measured onnx: squeezenet1_1 lowers with one batched copy launch per concat") {
  // conv1 + relu; three ceil-mode 3x3/2 max pools; 8 fire modules, each a squeeze conv + relu,
  // two expand convs + relu and a 2-input concat (one batched copy launch, as PyTorch's cat);
  // the classifier conv + relu; the global average pool. 1 + 3 + 8 * 4 + 1 + 1 = 38 launches,
  // 8 of them concat copies.
  // The pools see 111, 55 and 27 pixels: (In - 3) / 2 is whole, so ceil mode changes nothing
  // and the floor-mode kernels serve.
  for (int64_t Batch : {1, 8}) {
    CAPTURE(Batch);
    Workload W = lowerMeasured("squeezenet1_1", Batch);
    CHECK(W.launches.size() == 38);
    auto S = strategies(W);
    CHECK(S["concat"] == 8);
    CHECK(S["pool_max"] == 3);
    CHECK(S["global_avg_pool"] == 1);
    for (const WorkloadLaunch &L : W.launches)
      if (L.strategy == "pool_max")
        CHECK_MESSAGE(L.kernel.find("_ceil") == std::string::npos, L.kernel);
  }
}
