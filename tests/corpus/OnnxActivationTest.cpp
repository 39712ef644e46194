// ONNX activation operators: each imports as one activation layer (Mish as its three nodes) with
// its parameters, bad parameters are errors naming the node, and the lowering fuses an activation
// into the layer before it only where the kernel kind has no per-layer parameter.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include "OnnxWriter.h"

#include <doctest/doctest.h>

#include <limits>
#include <string>
#include <vector>

using namespace corpus;
using namespace onnxtest;

TEST_CASE("onnx: LeakyRelu keeps its slope, ONNX's default 0.01 when none is given") {
  OnnxWriter W(13);
  W.input("x", {1, 3, 8, 8});
  onnx::NodeProto &Darknet = W.node("LeakyRelu", {"x"});
  setFloat(Darknet, "alpha", 0.1f);
  W.output(out(W.node("LeakyRelu", {out(Darknet)})));
  const Network N = import(W);
  REQUIRE(N.size() == 3);
  for (size_t I : {1u, 2u}) {
    const auto &A = std::get<ActivationAttrs>(N.layer(LayerId(I)).attrs);
    CHECK(A.kind == ActKind::LeakyRelu);
    CHECK(A.alpha == doctest::Approx(I == 1 ? 0.1 : 0.01));
  }
  CHECK(N.params() == 0);
  OnnxWriter Bad(13);
  Bad.input("x", {1, 3, 8, 8});
  setFloat(Bad.node("LeakyRelu", {"x"}, "lr"), "alpha", std::numeric_limits<float>::infinity());
  CHECK(importError(Bad) == "model.onnx: error: node 'lr' (LeakyRelu): alpha must be a finite "
                            "number");
}

TEST_CASE("onnx: Mish as exported, Softplus -> Tanh -> Mul, imports as three layers") {
  // YOLOv4's activation, x * tanh(softplus(x)), as torch.onnx writes it before opset 18.
  OnnxWriter W(13);
  W.input("x", {1, 8, 8, 8});
  const std::string T = out(W.node("Tanh", {out(W.node("Softplus", {"x"}))}));
  W.output(out(W.node("Mul", {"x", T})));
  const Network N = import(W);
  std::vector<std::string> Kinds;
  for (const Layer &L : N.layers())
    Kinds.push_back(L.kind == LayerKind::Activation
                        ? std::string(actKindName(std::get<ActivationAttrs>(L.attrs).kind))
                        : std::string(layerKindName(L.kind)));
  CHECK(Kinds == std::vector<std::string>{"input", "softplus", "tanh", "mul"});
  CHECK(N.layers().back().shape == Shape{1, 8, 8, 8});
}

TEST_CASE("onnx: Exp, and opset 20's Gelu in its erf and tanh forms, are activations") {
  // YOLOX's box sizes exp(t) after a slice of the head; torch.nn.GELU from opset 20.
  OnnxWriter W(20);
  W.input("x", {1, 8, 6, 6});
  auto &Tanh = W.node("Gelu", {out(W.node("Gelu", {out(W.node("Exp", {"x"}))}))});
  setString(Tanh, "approximate", "tanh");
  W.output(out(Tanh));
  const Network N = import(W);
  std::vector<std::string> Kinds;
  for (const Layer &L : N.layers())
    if (L.kind == LayerKind::Activation)
      Kinds.push_back(std::string(actKindName(std::get<ActivationAttrs>(L.attrs).kind)));
  CHECK(Kinds == std::vector<std::string>{"exp", "gelu", "gelutanh"});
  for (DType T : {DType::F32, DType::F16}) {
    LowerOptions O;
    O.dtype = T;
    auto Wl = lower(N, O);
    REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
    CHECK(Wl->launches.size() == 3); // elementwise kernels of their own
  }
  OnnxWriter Bad(20);
  Bad.input("x", {1, 8});
  auto &G = Bad.node("Gelu", {"x"}, "g");
  setString(G, "approximate", "sigmoid");
  Bad.output(out(G));
  CHECK(importError(Bad) == "model.onnx: error: node 'g' (Gelu): approximate must be \"none\" or "
                            "\"tanh\", got \"sigmoid\"");
}

TEST_CASE("onnx: PRelu is lowered as a leaky relu, one slope or one per channel") {
  // Per channel ([C, 1, 1], nn.PReLU(C)): the first channel's slope (the writer's weights are 0).
  OnnxWriter W(13);
  W.input("x", {1, 4, 6, 6});
  const std::string Y = out(W.node("PRelu", {"x", W.weight({4, 1, 1})}));
  W.output(out(W.node("PRelu", {Y, W.scalar(0.2f)})));
  const Network N = import(W);
  REQUIRE(N.size() == 3);
  const auto &A = std::get<ActivationAttrs>(N.layer(1).attrs);
  CHECK(A.kind == ActKind::LeakyRelu);
  CHECK(A.alpha == 0.0f);
  CHECK(std::get<ActivationAttrs>(N.layer(2).attrs).alpha == doctest::Approx(0.2));
  // A file without weights: PyTorch's initial slope, 0.25.
  OnnxWriter Bare(13, WeightMode::GraphInputs);
  Bare.input("x", {1, 4, 6, 6});
  Bare.output(out(Bare.node("PRelu", {"x", Bare.weight({4, 1, 1})})));
  CHECK(std::get<ActivationAttrs>(import(Bare).layer(1).attrs).alpha == 0.25f);
  OnnxWriter Bad(13);
  Bad.input("x", {1, 4, 6, 6});
  Bad.node("PRelu", {"x", Bad.weight({3, 1, 1})}, "p");
  CHECK(importError(Bad) == "model.onnx: error: node 'p' (PRelu): slope of 3 elements: only one, "
                            "or one per channel, is supported");
}

TEST_CASE("onnx: Elu Celu and Selu keep their constants and fuse into a conv before them") {
  // torch.nn.ELU(alpha=0.5) after a conv, CELU(2.0), SELU: the kinds, their alpha, and where
  // they run (after a conv in its epilogue, alpha a constant of the kernel; after another
  // activation, a kernel of their own).
  OnnxWriter W(13);
  W.input("x", {1, 3, 8, 8});
  auto &Elu = W.node("Elu", {out(W.node("Conv", {"x", W.weight({4, 3, 3, 3})}))});
  setFloat(Elu, "alpha", 0.5f);
  auto &Celu = W.node("Celu", {out(Elu)});
  setFloat(Celu, "alpha", 2.0f);
  const std::string Plain = out(W.node("Elu", {out(Celu)})); // ONNX's default alpha, 1
  W.output(out(W.node("Selu", {out(W.node("Conv", {Plain, W.weight({4, 4, 1, 1})}))})));
  const Network N = import(W);
  std::vector<std::pair<std::string, float>> Acts;
  for (const Layer &L : N.layers())
    if (L.kind == LayerKind::Activation) {
      const auto &A = std::get<ActivationAttrs>(L.attrs);
      Acts.emplace_back(actKindName(A.kind), A.alpha);
    }
  CHECK(Acts == std::vector<std::pair<std::string, float>>{
                    {"elu", 0.5f}, {"celu", 2.0f}, {"elu", 1.0f}, {"selu", 0.0f}});
  for (DType T : {DType::F32, DType::F16}) {
    LowerOptions O;
    O.dtype = T;
    auto Wl = lower(N, O);
    REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
    std::vector<std::string> Kernels;
    for (const auto &L : Wl->launches)
      Kernels.push_back(L.kernel);
    REQUIRE(Kernels.size() == 4); // conv + elu, celu, elu, conv + selu
    CHECK(Kernels[0].rfind("conv", 0) == 0);
    CHECK(Kernels[0].find("elu0p5") != std::string::npos);
    CHECK(Kernels[1].find("celu2") != std::string::npos);
    CHECK(Kernels[2].find("elu1") != std::string::npos);
    CHECK(Kernels[3].find("selu") != std::string::npos);
  }
  auto Refused = [](const char *Op, const char *Attr, float V) {
    OnnxWriter Bad(13);
    Bad.input("x", {1, 3, 8, 8});
    setFloat(Bad.node(Op, {"x"}, "a"), Attr, V);
    return importError(Bad);
  };
  CHECK(Refused("Elu", "alpha", std::numeric_limits<float>::quiet_NaN()) ==
        "model.onnx: error: node 'a' (Elu): alpha must be a finite number");
  CHECK(Refused("Celu", "alpha", 0.0f) ==
        "model.onnx: error: node 'a' (Celu): alpha must be a finite, nonzero (normal) number");
  CHECK(Refused("Celu", "alpha", 1e-40f) ==
        "model.onnx: error: node 'a' (Celu): alpha must be a finite, nonzero (normal) number");
  OnnxWriter Six(13); // a converter's six printed digits mean PyTorch's constant
  Six.input("x", {1, 3, 8, 8});
  auto &Selu = Six.node("Selu", {"x"}, "a");
  setFloat(Selu, "alpha", 1.67326f);
  Six.output(out(Selu));
  CHECK(std::get<ActivationAttrs>(import(Six).layer(1).attrs).kind == ActKind::Selu);
  CHECK(Refused("Selu", "gamma", 2.0f) ==
        "model.onnx: error: node 'a' (Selu): only PyTorch's alpha 1.673263 and gamma 1.050701 "
        "(ONNX's defaults) are supported");
}
