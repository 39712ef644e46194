// ONNX forms torchvision's CNNs export (torch 1.13) that need an import or lowering rule:
// F.layer_norm below opset 17 as ReduceMean-Sub-Pow-ReduceMean-Add-Sqrt-Div-Mul-Add (ConvNeXt)
// imports as one layer norm, the same graph as opset 17's LayerNormalization; a Sqrt alone is an
// activation; avg_pool2d's padding exported as Pad -> AveragePool (Inception's branch pools, a
// Pad of nothing in DenseNet's transitions) lowers as one average pool counting the zeros, and
// padding before anything else is an error. scripts/torchvision_cnns.py checks the real models.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include "OnnxWriter.h"

#include <onnx/onnx_pb.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <tuple>

using namespace corpus;
using namespace onnxtest;

namespace {

Workload lowered(const Network &N) {
  LowerOptions O;
  O.emitPtx = false;
  auto W = lower(N, O);
  REQUIRE_MESSAGE(bool(W), support::errorText(W));
  return std::move(*W);
}

std::vector<std::string> strategies(const Workload &W) {
  std::vector<std::string> S;
  for (const WorkloadLaunch &L : W.launches)
    S.push_back(L.strategy);
  return S;
}

/// A ReduceMean over `Axes`: the attribute before opset 18, a constant input from 18 on.
std::string reduceMean(OnnxWriter &W, int64_t Opset, const std::string &X,
                       const std::vector<int64_t> &Axes) {
  if (Opset >= 18)
    return out(W.node("ReduceMean", {X, W.ints(Axes)}));
  auto &R = W.node("ReduceMean", {X});
  setInts(R, "axes", Axes);
  return out(R);
}

/// A Constant node holding F, as torch.onnx writes a Python number: in the graph where it is
/// called, after the nodes written before it.
std::string constantNode(OnnxWriter &W, float F) {
  auto &C = W.node("Constant", {});
  auto *A = C.add_attribute();
  A->set_name("value");
  A->set_type(onnx::AttributeProto::TENSOR);
  A->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  A->mutable_t()->add_float_data(F);
  return out(C);
}

/// F.layer_norm(x, [C], weight, bias, Eps) over the last axis as torch 1.13 exports it below
/// opset 17: (x - mean) / sqrt(var + eps) * weight + bias, var the mean of (x - mean)^2; the
/// exponent and epsilon are Constant nodes just before their Pow and Add.
std::string decomposedLayerNorm(OnnxWriter &W, int64_t Opset, const std::string &X, int64_t C,
                                float Eps) {
  std::string D = binary(W, "Sub", X, reduceMean(W, Opset, X, {-1}));
  std::string Var = reduceMean(W, Opset, binary(W, "Pow", D, constantNode(W, 2.0f)), {-1});
  std::string S = unary(W, "Sqrt", binary(W, "Add", Var, constantNode(W, Eps)));
  return binary(W, "Add", binary(W, "Mul", binary(W, "Div", D, S), W.weight({C})), W.weight({C}));
}

/// torch.nn.GELU() as torch 1.13 exports it: x * 0.5 * (1 + erf(x / sqrt 2)), each number a
/// Constant node just before the node reading it, after the Div that begins the pattern.
std::string geluWithConstantNodes(OnnxWriter &W, const std::string &X) {
  std::string E = unary(W, "Erf", binary(W, "Div", X, constantNode(W, 1.41421356f)));
  std::string Sum = binary(W, "Add", E, constantNode(W, 1.0f));
  return binary(W, "Mul", binary(W, "Mul", X, Sum), constantNode(W, 0.5f));
}

/// torchvision's ConvNeXt CNBlock as torch 1.13 exports it at opset 13: depthwise 7x7, permute
/// to NHWC, the decomposed layer norm, Linear, GELU, Linear, layer scale, permute back, residual.
OnnxWriter convNextBlock13(int64_t C, int64_t H) {
  OnnxWriter W(13);
  W.input("x", {1, C, H, H});
  auto &T = W.node("Transpose", {conv(W, "x", C, C, 7, 1, 3, C, true)});
  setInts(T, "perm", {0, 2, 3, 1});
  std::string X = decomposedLayerNorm(W, 13, out(T), C, 1e-6f);
  X = binary(W, "Add", out(W.node("MatMul", {X, W.weight({C, 4 * C})})), W.weight({4 * C}));
  X = geluWithConstantNodes(W, X);
  X = binary(W, "Add", out(W.node("MatMul", {X, W.weight({4 * C, C})})), W.weight({C}));
  auto &Back = W.node("Transpose", {binary(W, "Mul", X, W.weight({C}))});
  setInts(Back, "perm", {0, 3, 1, 2});
  W.output(binary(W, "Add", out(Back), "x"));
  return W;
}

/// torchvision's ConvNeXt stem and downsampling norm, LayerNorm2d: permute to NHWC, layer norm
/// over channels (LayerNormalization, or the nodes of an export below opset 17), permute back;
/// then a 1x1 convolution.
OnnxWriter convNextNorm(int64_t Opset, bool Decomposed, int64_t C = 8, int64_t H = 6) {
  OnnxWriter W(Opset);
  W.input("x", {-1, C, H, H});
  auto &T = W.node("Transpose", {"x"});
  setInts(T, "perm", {0, 2, 3, 1});
  std::string X;
  if (!Decomposed) {
    auto &Ln = W.node("LayerNormalization", {out(T), W.weight({C}), W.weight({C})});
    setFloat(Ln, "epsilon", 1e-6f);
    X = out(Ln);
  } else {
    X = decomposedLayerNorm(W, Opset, out(T), C, 1e-6f);
  }
  auto &Back = W.node("Transpose", {X});
  setInts(Back, "perm", {0, 3, 1, 2});
  W.output(conv(W, out(Back), C, 2 * C, 1, 1, 0));
  return W;
}

} // namespace

TEST_CASE("onnx: ConvNeXt's layer norm below opset 17 imports as one layernorm layer") {
  const Network Want = import(convNextNorm(17, false));
  for (int64_t Opset : {13, 18}) { // ReduceMean's axes: an attribute, an input
    CAPTURE(Opset);
    Network N = import(convNextNorm(Opset, true));
    checkSameGraph(N, Want);
    CHECK(kinds(N) ==
          std::vector<std::string>{"input", "transpose", "layernorm", "transpose", "conv"});
    CHECK(N.layer(2).name.rfind("ReduceMean_", 0) == 0); // named after the node beginning it
    CHECK(std::get<LayerNormAttrs>(N.layer(2).attrs).epsilon == 1e-6f);
    CHECK(N.layer(2).params == 16);
    CHECK(strategies(lowered(N)) ==
          std::vector<std::string>{"copy_strided", "layernorm", "copy_strided", "conv_gemm"});
  }
}

TEST_CASE("onnx: a ConvNeXt block at opset 13 (constants as late Constant nodes) imports") {
  Network N = import(convNextBlock13(8, 7));
  CHECK(kinds(N) == std::vector<std::string>{"input", "conv", "transpose", "layernorm", "dense",
                                             "activation", "dense", "mul", "transpose", "add"});
  CHECK(std::get<ActivationAttrs>(N.layer(5).attrs).kind == ActKind::Gelu);
  CHECK(std::get<LayerNormAttrs>(N.layer(3).attrs).epsilon == 1e-6f);
  CHECK(N.layer(3).params == 16);
  CHECK(strategies(lowered(N)) == std::vector<std::string>{"conv_depthwise", "copy_strided",
                                                           "layernorm", "dense_gemm", "dense_gemm",
                                                           "eltwise_batch_norm", "copy_strided",
                                                           "eltwise_add"});
}

TEST_CASE("onnx: parameters exported as graph inputs, shared through Identity, are parameters") {
  // torch.onnx.export(export_params=False) makes every parameter a graph input without data and
  // writes parameters of equal values as Identity nodes of one of them: ConvNeXt's layer norms
  // and layer scales, beside the image with its dynamic batch.
  OnnxWriter W(13, WeightMode::GraphInputs);
  W.input("x", {-1, 8, 6, 6});
  auto &T = W.node("Transpose", {"x"});
  setInts(T, "perm", {0, 2, 3, 1});
  std::string Y = decomposedLayerNorm(W, 13, out(T), 8, 1e-6f);
  auto &Back = W.node("Transpose", {Y});
  setInts(Back, "perm", {0, 3, 1, 2});
  std::string Scale = W.weight({8, 1, 1});
  std::string Shared = out(W.node("Identity", {Scale})); // a second user of the same values
  W.output(
      binary(W, "Add", binary(W, "Mul", out(Back), Scale), binary(W, "Mul", out(Back), Shared)));
  Network N = import(W, OnnxImportOptions{4});
  CHECK(N.inputs().size() == 1);
  CHECK(kinds(N) == std::vector<std::string>{"input", "transpose", "layernorm", "transpose", "mul",
                                             "mul", "add"});
  CHECK(N.layer(4).params == 8); // the layer scale is a constant operand
  CHECK(N.layer(0).shape == Shape{4, 8, 6, 6});
  CHECK(strategies(lowered(N)) == std::vector<std::string>{"copy_strided", "layernorm",
                                                           "copy_strided", "eltwise_batch_norm",
                                                           "eltwise_batch_norm", "eltwise_add"});
  // Without an input of dynamic batch, a graph input at an arithmetic operand stays an input.
  OnnxWriter Fixed(13, WeightMode::GraphInputs);
  Fixed.input("x", {2, 8});
  Fixed.input("y", {8});
  Fixed.output(binary(Fixed, "Mul", "x", "y"));
  CHECK(import(Fixed).inputs().size() == 2);
}

TEST_CASE("onnx: a ReduceMean that does not begin the whole layer-norm pattern is its nodes") {
  // (x - mean) / sqrt(var + eps) * w + b over `Axis` with (x - mean)^Exponent, its output added
  // to x - mean when `Reuse` (a third use of it).
  auto Norm = [](int64_t Axis, float Exponent, bool Reuse) {
    OnnxWriter W(13);
    W.input("x", {1, 4, 8});
    std::string D = binary(W, "Sub", "x", reduceMean(W, 13, "x", {Axis}));
    std::string V = reduceMean(W, 13, binary(W, "Pow", D, W.scalar(Exponent)), {Axis});
    std::string Y = binary(W, "Div", D, unary(W, "Sqrt", binary(W, "Add", V, W.scalar(1e-5f))));
    Y = binary(W, "Add", binary(W, "Mul", Y, W.weight({8})), W.weight({8}));
    W.output(Reuse ? binary(W, "Add", Y, D) : Y);
    return W;
  };
  CHECK(kinds(import(Norm(-1, 2.0f, false))) == std::vector<std::string>{"input", "layernorm"});
  // Anything else computes the same formula node by node: two mean reductions among them, and
  // no layer norm.
  for (const auto &[Axis, Exponent, Reuse] :
       {std::tuple{-1, 2.0f, true}, {-1, 3.0f, false}, {1, 2.0f, false}}) {
    CAPTURE(Axis);
    CAPTURE(Exponent);
    const Network N = import(Norm(Axis, Exponent, Reuse));
    const std::vector<std::string> K = kinds(N);
    CHECK(std::count(K.begin(), K.end(), "reduce") == 2);
    CHECK(std::count(K.begin(), K.end(), "layernorm") == 0);
    CHECK(N.layers().back().shape == Shape{1, 4, 8});
  }
}

TEST_CASE("onnx: Sqrt alone is a sqrt activation, lowered as an elementwise kernel") {
  OnnxWriter W(13);
  W.input("x", {2, 3, 5, 5});
  W.output(unary(W, "Sqrt", unary(W, "Sigmoid", "x")));
  Network N = import(W);
  CHECK(kinds(N) == std::vector<std::string>{"input", "activation", "activation"});
  CHECK(std::get<ActivationAttrs>(N.layer(2).attrs).kind == ActKind::Sqrt);
  CHECK(actKindName(ActKind::Sqrt) == "sqrt");
  CHECK(strategies(lowered(N)) ==
        std::vector<std::string>{"eltwise_activation", "eltwise_activation"});
}

namespace {

/// Pad(Pads: top, left, bottom, right) of x [1, 4, 7, 7] in `Mode`, then `Consumer`: an
/// AveragePool 3x3 stride 1 (its own pads 0 unless `PoolPad`), a MaxPool or a Relu.
OnnxWriter padBefore(const std::string &Consumer, std::vector<int64_t> Pads,
                     const std::string &Mode = "constant", int64_t PoolPad = 0,
                     int64_t CountIncludePad = 0) {
  OnnxWriter W(13);
  W.input("x", {1, 4, 7, 7});
  auto &P = W.node("Pad", {"x", W.ints({0, 0, Pads[0], Pads[1], 0, 0, Pads[2], Pads[3]})}, "pad");
  setString(P, "mode", Mode);
  auto &C = W.node(Consumer, {out(P)}, "next");
  if (Consumer != "Relu") {
    setInts(C, "kernel_shape", {3, 3});
    setInts(C, "pads", {PoolPad, PoolPad, PoolPad, PoolPad});
  }
  if (Consumer == "AveragePool")
    setInt(C, "count_include_pad", CountIncludePad);
  W.output(out(C));
  return W;
}

} // namespace

TEST_CASE("onnx: zero padding before an average pool is the pool's padding, its zeros counted") {
  // Inception's branch pool: avg_pool2d(x, 3, stride=1, padding=1) exports as Pad -> AveragePool;
  // lowered, it is the pool that counts its padding, one launch.
  Network N = import(padBefore("AveragePool", {1, 1, 1, 1}));
  CHECK(kinds(N) == std::vector<std::string>{"input", "pad", "avgpool"});
  CHECK(N.layer(2).shape == Shape{1, 4, 7, 7});
  Workload W = lowered(N);
  REQUIRE(W.launches.size() == 1);
  CHECK(W.launches[0].layers == std::vector<std::string>{"next"});
  CHECK(W.launches[0].args[0].buffer == "x"); // reads the unpadded input
  // The same launch as the pool with the padding of its own.
  OnnxWriter Own(13);
  Own.input("x", {1, 4, 7, 7});
  auto &P = Own.node("AveragePool", {"x"}, "next");
  setInts(P, "kernel_shape", {3, 3});
  setInts(P, "pads", {1, 1, 1, 1});
  setInt(P, "count_include_pad", 1);
  Own.output(out(P));
  Workload Same = lowered(import(Own));
  CHECK(W.launches[0].kernel == Same.launches[0].kernel);
  CHECK(W.launches[0].grid == Same.launches[0].grid);
  // Asymmetric padding, and a pool that counts padding of its own too.
  CHECK(lowered(import(padBefore("AveragePool", {0, 1, 1, 0}))).launches.size() == 1);
  CHECK(lowered(import(padBefore("AveragePool", {1, 1, 1, 1}, "constant", 1, 1))).launches.size() ==
        1);
}

TEST_CASE("onnx: a Pad of nothing is a view, and padding no conv or pool takes is a pad kernel") {
  // DenseNet's transitions: avg_pool2d(x, 2, 2) exports a Pad of zeros before the pool.
  for (const std::string Next : {"AveragePool", "MaxPool", "Relu"}) {
    CAPTURE(Next);
    Workload W = lowered(import(padBefore(Next, {0, 0, 0, 0}, "reflect")));
    REQUIRE(W.launches.size() == 1);
    CHECK(W.launches[0].args[0].buffer == "x");
  }
  // CycleGAN's reflection pads, replication pads, zeros before a max pool (which would ignore
  // them as padding of its own), and padding an average pool cannot count as its own.
  struct Case {
    const char *next, *mode;
    int64_t countIncludePad, poolPad;
    const char *kernel;
  };
  for (const Case &C : {Case{"MaxPool", "constant", 1, 0, "pad_const0_n1_c4_h7w7_p1_f32"},
                        Case{"Relu", "constant", 1, 0, "pad_const0_n1_c4_h7w7_p1_f32"},
                        Case{"AveragePool", "reflect", 1, 0, "pad_reflect_n1_c4_h7w7_p1_f32"},
                        Case{"Relu", "edge", 1, 0, "pad_edge_n1_c4_h7w7_p1_f32"},
                        Case{"AveragePool", "constant", 0, 1, "pad_const0_n1_c4_h7w7_p1_f32"}}) {
    CAPTURE(C.next);
    CAPTURE(C.mode);
    Workload W =
        lowered(import(padBefore(C.next, {1, 1, 1, 1}, C.mode, C.poolPad, C.countIncludePad)));
    REQUIRE(W.launches.size() == 2);
    CHECK(W.launches[0].strategy == "pad");
    CHECK(W.launches[0].kernel == C.kernel);
    CHECK(W.launches[0].grid == std::array<uint32_t, 3>{1, 4, 1}); // 81 pixels, 4 planes
    CHECK(W.launches[1].args[0].buffer == W.launches[0].args[1].buffer);
  }
}
