// The measured torchvision ONNX graphs (corpus/data/measured/h100/onnx, weights as graph inputs)
// that need channel concats, ceil-mode pooling, a standalone batch norm and padded average pools
// import and lower; PTX is not emitted to stay fast.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace corpus;

namespace {

/// A measured graph at `Batch`, and at `ImageSize` when it is not 0.
support::Expected<Network> importMeasured(const std::string &Model, int64_t Batch,
                                          int64_t ImageSize = 0) {
  OnnxImportOptions IO;
  IO.batch = Batch;
  IO.imageSize = ImageSize;
  return importOnnxFile(
      std::string(PTXCAST_SOURCE_DIR) + "/corpus/data/measured/h100/onnx/" + Model + ".onnx", IO);
}

Workload lowerMeasured(const std::string &Model, int64_t Batch) {
  auto N = importMeasured(Model, Batch);
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

TEST_CASE("measured onnx: an image size other than the exported one resizes every layer") {
  // resnet18 was exported at 224. At 160 every convolution's output is 5/7 as high and wide
  // (160 and 224 are both multiples of its stride 32), the final dense layer is unchanged.
  auto At224 = importMeasured("resnet18", 2);
  auto At160 = importMeasured("resnet18", 2, 160);
  REQUIRE_MESSAGE(bool(At224), support::errorText(At224));
  REQUIRE_MESSAGE(bool(At160), support::errorText(At160));
  CHECK(At160->layer(At160->inputs().front()).shape == Shape{2, 3, 160, 160});
  CHECK(At224->layer(At224->inputs().front()).shape == Shape{2, 3, 224, 224});
  const double Dense = 2.0 * 512 * 1000;
  CHECK(double(At160->macs()) - Dense ==
        doctest::Approx((double(At224->macs()) - Dense) * 25 / 49));
  // The exported size given explicitly is the same graph.
  auto Same = importMeasured("resnet18", 2, 224);
  REQUIRE(bool(Same));
  CHECK(Same->macs() == At224->macs());
}

TEST_CASE("measured onnx: a graph whose layers fix the image size refuses another one") {
  // vgg16 flattens 512 x 7 x 7 features into a dense layer of 25,088 inputs: at 160 the
  // features are 5 x 5, and the import fails with a shape error naming the file, not a network
  // with a wrong dense layer.
  auto N = importMeasured("vgg16", 2, 160);
  REQUIRE_FALSE(bool(N));
  CHECK(support::errorText(N).find("vgg16.onnx") != std::string::npos);
}

TEST_CASE("measured onnx: weights-free graphs import to the zoo's layers, without weight inputs") {
  // Exported with export_params=False, every parameter is a graph input, and parameters of equal
  // values (batch-norm scales of ones, shifts of zeros) are Identity nodes of one of them: all
  // weights, not network inputs, so a graph has its one image input and the zoo model's layer
  // count and parameters (docs/zoo.md).
  const std::map<std::string, std::pair<size_t, int64_t>> Want = {
      {"resnet50", {175, 25557032}},
      {"efficientnet_b0", {239, 5288548}},
      {"mobilenet_v2", {152, 3504872}}};
  for (const auto &[Model, LayersParams] : Want) {
    CAPTURE(Model);
    auto N = importMeasured(Model, 1);
    REQUIRE_MESSAGE(bool(N), support::errorText(N));
    CHECK(N->inputs().size() == 1);
    CHECK(N->computeLayerCount() == LayersParams.first);
    CHECK(N->params() == LayersParams.second);
  }
}

TEST_CASE("measured onnx: densenet121 and inception_v3 lower, their padded pools one launch each") {
  // DenseNet-121: 3 transitions, each a Pad of nothing before a 2x2 average pool. Inception v3: 9
  // branch pools, each Pad 1 before a 3x3 stride-1 average pool that counts the zeros.
  const std::map<std::string, size_t> AvgPools = {{"densenet121", 3}, {"inception_v3", 9}};
  for (const auto &[Model, Pools] : AvgPools) {
    CAPTURE(Model);
    Workload W = lowerMeasured(Model, 2);
    CHECK(strategies(W)["pool_avg"] == Pools);
  }
}
