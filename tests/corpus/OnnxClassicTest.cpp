// The ONNX model zoo's classic networks as their files are laid out: BVLC AlexNet
// (bvlc_alexnet/model.onnx, opset 9, caffe's layers: grouped convolutions, LRN after the first
// two, a Reshape by a constant shape, Gemm with transB, Dropout, Softmax) imports with the
// parameters and multiply-adds its architecture gives, counted here from the layer list, and
// lowers; tiny-YOLOv2's opset-8 ImageScaler imports as the scale and shift it computes.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include "OnnxWriter.h"

#include <onnx/onnx_pb.h>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace corpus;
using namespace onnxtest;

namespace {

/// One caffe convolution layer of AlexNet: filters, kernel, stride, padding, groups.
struct ConvLayer {
  const char *name;
  int64_t out, kernel, stride, pad, groups;
};

std::string lrn(OnnxWriter &W, const std::string &X, const std::string &Name) {
  auto &N = W.node("LRN", {X}, Name); // caffe's norm1 / norm2: size 5, alpha 1e-4, beta 0.75
  setInt(N, "size", 5);
  setFloat(N, "alpha", 1e-4f);
  setFloat(N, "beta", 0.75f);
  setFloat(N, "bias", 1.0f);
  return out(N);
}

std::string maxPool(OnnxWriter &W, const std::string &X, const std::string &Name) {
  auto &P = W.node("MaxPool", {X}, Name);
  setInts(P, "kernel_shape", {3, 3});
  setInts(P, "strides", {2, 2});
  return out(P);
}

OnnxWriter bvlcAlexNet(int64_t Batch) {
  OnnxWriter W(9);
  W.input("data_0", {Batch, 3, 227, 227});
  const ConvLayer Convs[] = {{"conv1", 96, 11, 4, 0, 1},
                             {"conv2", 256, 5, 1, 2, 2},
                             {"conv3", 384, 3, 1, 1, 1},
                             {"conv4", 384, 3, 1, 1, 2},
                             {"conv5", 256, 3, 1, 1, 2}};
  std::string X = "data_0";
  int64_t C = 3;
  for (const ConvLayer &L : Convs) {
    auto &N =
        W.node("Conv", {X, W.weight({L.out, C / L.groups, L.kernel, L.kernel}), W.weight({L.out})},
               L.name);
    setInts(N, "kernel_shape", {L.kernel, L.kernel});
    setInts(N, "strides", {L.stride, L.stride});
    setInts(N, "pads", {L.pad, L.pad, L.pad, L.pad});
    setInt(N, "group", L.groups);
    X = out(W.node("Relu", {out(N)}, std::string(L.name) + "_relu"));
    C = L.out;
    const std::string Name = L.name;
    if (Name == "conv1" || Name == "conv2")
      X = maxPool(W, lrn(W, X, "norm" + Name.substr(4)), "pool" + Name.substr(4));
    else if (Name == "conv5")
      X = maxPool(W, X, "pool5");
  }
  X = out(W.node("Reshape", {X, W.ints({Batch, 9216})}, "flatten"));
  const int64_t Fc[][2] = {{9216, 4096}, {4096, 4096}, {4096, 1000}};
  for (int I = 0; I < 3; ++I) {
    const std::string Name = "fc" + std::to_string(I + 6);
    auto &G = W.node("Gemm", {X, W.weight({Fc[I][1], Fc[I][0]}), W.weight({Fc[I][1]})}, Name);
    setInt(G, "transB", 1);
    X = out(G);
    if (I < 2)
      X = out(W.node("Dropout", {out(W.node("Relu", {X}, Name + "_relu"))}, Name + "_drop"));
  }
  W.output(out(W.node("Softmax", {X}, "prob")));
  return W;
}

} // namespace

TEST_CASE("onnx: BVLC AlexNet from the ONNX model zoo imports with caffe's parameters and MACs") {
  const Network N = import(bvlcAlexNet(2));
  // Per image, from the layer list: conv1 96x3x11x11 on 55x55, conv2 256x48x5x5 on 27x27, conv3
  // 384x256x3x3, conv4 384x192x3x3 and conv5 256x192x3x3 on 13x13, then 9216x4096, 4096x4096 and
  // 4096x1000; parameters are the weights and biases.
  const int64_t Macs = 96 * 3 * 121 * 55 * 55 + 256 * 48 * 25 * 27 * 27 +
                       (384 * 256 + 384 * 192 + 256 * 192) * 9 * 13 * 13 + 9216 * 4096 +
                       4096 * 4096 + 4096 * 1000;
  CHECK(N.params() == 60965224);
  CHECK(N.macs() == 2 * Macs);
  CHECK(N.layers().back().shape == Shape{2, 1000});
  int Lrns = 0;
  for (const Layer &L : N.layers())
    Lrns += L.name == "norm1" || L.name == "norm2";
  CHECK(Lrns == 2);
  for (DType T : {DType::F32, DType::F16}) {
    LowerOptions O;
    O.dtype = T;
    auto Wl = lower(N, O);
    REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
    // Five convs with their ReLU, six launches per LRN, three pools, three dense layers, the
    // softmax.
    CHECK(Wl->launches.size() == 5 + 2 * 6 + 3 + 3 + 1);
  }
}

TEST_CASE("onnx: ImageScaler of opset 8 scales tiny-YOLOv2's input and shifts where bias is set") {
  // tiny-YOLOv2's stem: ImageScaler(1/255, zero bias), a conv, batch norm, LeakyRelu(0.1), pool.
  auto Stem = [](const std::vector<float> &Bias) {
    OnnxWriter W(8);
    W.input("image", {1, 3, 416, 416});
    auto &S = W.node("ImageScaler", {"image"}, "scaler");
    setFloat(S, "scale", 1.0f / 255);
    auto *B = S.add_attribute();
    B->set_name("bias");
    B->set_type(onnx::AttributeProto::FLOATS);
    for (float V : Bias)
      B->add_floats(V);
    auto &Conv = W.node("Conv", {out(S), W.weight({16, 3, 3, 3})}, "conv1");
    setInts(Conv, "pads", {1, 1, 1, 1});
    const std::string Bn =
        out(W.node("BatchNormalization",
                   {out(Conv), W.weight({16}), W.weight({16}), W.weight({16}), W.weight({16})}));
    auto &Leaky = W.node("LeakyRelu", {Bn});
    setFloat(Leaky, "alpha", 0.1f);
    W.output(maxPool(W, out(Leaky), "pool1"));
    return W;
  };
  const Network Plain = import(Stem({0, 0, 0}));
  CHECK(kinds(Plain) ==
        std::vector<std::string>{"input", "mul", "conv", "batchnorm", "activation", "maxpool"});
  const auto &A = std::get<EltwiseAttrs>(Plain.layer(1).attrs);
  CHECK(A.scalar == 1.0f / 255);
  CHECK(Plain.layer(1).name == "scaler");
  const Network Shifted = import(Stem({-0.5f, 0, 0.25f}));
  CHECK(kinds(Shifted) == std::vector<std::string>{"input", "mul", "add", "conv", "batchnorm",
                                                   "activation", "maxpool"});
  CHECK(Shifted.params() == Plain.params() + 3); // the bias, a constant operand
  auto Wl = lower(Shifted);
  REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
  CHECK(Wl->launches.size() == 4); // scale, shift, conv + batch norm + leaky relu, pool
  OnnxWriter Bad(8);
  Bad.input("image", {1, 3, 8, 8});
  auto &S = Bad.node("ImageScaler", {"image"}, "s");
  auto *B = S.add_attribute();
  B->set_name("bias");
  B->set_type(onnx::AttributeProto::FLOATS);
  B->add_floats(1.0f);
  CHECK(importError(Bad) == "model.onnx: error: node 's' (ImageScaler): bias has 1 values for 3 "
                            "channels");
}
