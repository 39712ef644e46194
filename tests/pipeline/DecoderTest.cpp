// ONNX forms beyond the zoo's classifiers through pipeline::predictNetwork, each predicted under
// every runtime and precision on a T4, a Jetson and a laptop GPU: a segmentation-style decoder
// (a reflect Pad, a strided Conv, a 4x4 / 2 ConvTranspose, a bilinear Resize, a PixelShuffle)
// and attention blocks built on reductions (CBAM's spatial gate, ConvNeXt V2's response norm);
// and a network of views alone, which has nothing to predict.
#include "pipeline/Documents.h"
#include "pipeline/NetworkAnalysis.h"

#include "../corpus/OnnxWriter.h"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

using namespace onnxtest;

namespace {

/// [N, 3, 32, 32] -> reflect pad 1 -> conv 3x3 / 2 -> relu -> ConvTranspose 4x4 / 2 pad 1 ->
/// relu -> bilinear 2x -> conv 1x1 to 12 channels -> DepthToSpace 2 (CRD): [N, 3, 128, 128].
std::string decoder() {
  OnnxWriter W(13);
  W.input("x", {-1, 3, 32, 32});
  auto &Pad = W.node("Pad", {"x", W.ints({0, 0, 1, 1, 0, 0, 1, 1})}, "pad");
  setString(Pad, "mode", "reflect");
  auto &Down = W.node("Conv", {Pad.output(0), W.weight({16, 3, 3, 3}), W.weight({16})}, "down");
  setInts(Down, "strides", {2, 2});
  auto &R1 = W.node("Relu", {Down.output(0)});
  auto &Up = W.node("ConvTranspose", {R1.output(0), W.weight({16, 8, 4, 4}), W.weight({8})}, "up");
  setInts(Up, "strides", {2, 2});
  setInts(Up, "pads", {1, 1, 1, 1});
  auto &R2 = W.node("Relu", {Up.output(0)});
  auto &Resize = W.node("Resize", {R2.output(0), "", W.floats({1, 1, 2, 2})}, "resize");
  setString(Resize, "mode", "linear");
  setString(Resize, "coordinate_transformation_mode", "pytorch_half_pixel");
  auto &Head = W.node("Conv", {Resize.output(0), W.weight({12, 8, 1, 1}), W.weight({12})}, "head");
  auto &Shuffle = W.node("DepthToSpace", {Head.output(0)}, "shuffle");
  setInt(Shuffle, "blocksize", 2);
  setString(Shuffle, "mode", "CRD");
  W.output(Shuffle.output(0));
  return W.bytes();
}

/// [N, 16, 28, 28] -> CBAM's spatial gate (ReduceMean and ReduceMax over channels, concat, 7x7
/// conv, sigmoid, times x) -> channels-last -> GRN (ReduceL2 over H and W, divided by its
/// ReduceMean over channels plus 1e-6, x + x * that) -> NCHW.
std::string attention() {
  OnnxWriter W(13);
  W.input("x", {-1, 16, 28, 28});
  auto Reduce = [&](const char *Op, const std::string &X, std::vector<int64_t> Axes) {
    auto &R = W.node(Op, {X});
    setInts(R, "axes", Axes);
    return out(R);
  };
  auto &Cat = W.node("Concat", {Reduce("ReduceMean", "x", {1}), Reduce("ReduceMax", "x", {1})});
  setInt(Cat, "axis", 1);
  const std::string Gated =
      binary(W, "Mul", "x", unary(W, "Sigmoid", conv(W, out(Cat), 2, 1, 7, 1, 3)));
  auto &Nhwc = W.node("Transpose", {Gated});
  setInts(Nhwc, "perm", {0, 2, 3, 1});
  const std::string G = Reduce("ReduceL2", out(Nhwc), {1, 2});
  const std::string Norm =
      binary(W, "Div", G, binary(W, "Add", Reduce("ReduceMean", G, {-1}), W.scalar(1e-6f)));
  auto &Nchw =
      W.node("Transpose", {binary(W, "Add", out(Nhwc), binary(W, "Mul", out(Nhwc), Norm))});
  setInts(Nchw, "perm", {0, 3, 1, 2});
  W.output(out(Nchw));
  return W.bytes();
}

/// Predicts the ONNX model Bytes at batch 4 on every GPU and runtime above; Check(P) looks at
/// each prediction's launches.
void predictEverywhere(const std::string &Bytes,
                       const std::function<void(const pipeline::PredictOutcome &)> &Check) {
  struct Run {
    const char *runtime, *dtype;
  };
  for (const char *Gpu : {"t4", "jetson-orin-nano", "rtx-4090-laptop@80w"})
    for (const Run &R : {Run{"graph", "f32"}, Run{"eager", "f16"}, Run{"compile", "f16"},
                         Run{"tensorrt", "f32"}, Run{"tensorrt", "f16"}, Run{"tensorrt", "int8"}}) {
      CAPTURE(Gpu);
      CAPTURE(R.runtime);
      CAPTURE(R.dtype);
      pipeline::PredictRequest Q;
      Q.network.input = "onnx";
      Q.network.onnxBytes = Bytes;
      Q.network.batch = 4;
      Q.network.dtype = R.dtype;
      Q.network.progress = [](size_t, size_t) {};
      Q.gpu = Gpu;
      Q.runtime = R.runtime;
      auto P = pipeline::predictNetwork(Q);
      REQUIRE_MESSAGE(P, support::errorText(P));
      const pipeline::GpuPrediction &G = P->prediction;
      CHECK(std::isfinite(G.timeMs));
      CHECK(G.timeMs > 0);
      CHECK(G.timeMs >= G.boundMs * 0.5);
      Check(*P);
    }
}

} // namespace

TEST_CASE("attention: CBAM's gate and ConvNeXt V2's response norm predict under every runtime") {
  predictEverywhere(attention(), [](const pipeline::PredictOutcome &P) {
    size_t Reductions = 0;
    for (const pipeline::LaunchRecord &L : P.network.launches)
      Reductions += L.strategy == "reduce_axis";
    CHECK(Reductions == 4); // channel mean and max, the L2 norm, its mean
  });
}

TEST_CASE("decoder: reflect Pad, ConvTranspose, bilinear Resize and PixelShuffle predict under "
          "every runtime") {
  predictEverywhere(decoder(), [](const pipeline::PredictOutcome &P) {
    // The pad, the phases' concatenation, the bilinear kernel and the shuffles are launched.
    size_t Pads = 0, Bilinear = 0, Copies = 0;
    for (const pipeline::LaunchRecord &L : P.network.launches) {
      Pads += L.strategy == "pad";
      Bilinear += L.strategy == "upsample_bilinear";
      Copies += L.strategy == "copy_strided" || L.strategy == "concat";
    }
    CHECK(Pads == 1);
    CHECK(Bilinear == 1);
    CHECK(Copies >= 3); // the phases' concat and two shuffles
  });
}

TEST_CASE("analysis: a network with no GPU work is an error that says so, not a bad manifest") {
  // x -> Flatten -> Identity: views of the input, nothing to launch.
  OnnxWriter W(13);
  W.input("x", {1, 8, 4, 4});
  auto &Flat = W.node("Flatten", {"x"});
  auto &Same = W.node("Identity", {out(Flat)});
  W.output(out(Same));
  pipeline::NetworkRequest R;
  R.input = "views";
  R.onnxBytes = W.bytes();
  R.progress = [](size_t, size_t) {};
  auto N = pipeline::analyseNetwork(R);
  REQUIRE_FALSE(N);
  CHECK(N.error().str() == "views.onnx: error: the network has no GPU work: every layer is a "
                           "view of its input or folds into a constant");
}
