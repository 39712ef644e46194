// ONNX import tests: models written here through libonnx's protobuf API import to the same graph,
// parameters and MACs as the zoo's blocks; malformed files and unsupported ops are rejected with
// the node named.
#include "corpus/Onnx.h"
#include "corpus/Lower.h"
#include "corpus/Zoo.h"

#include "OnnxWriter.h"

#include <onnx/onnx_pb.h>

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <utility>

#include <unistd.h>

using namespace corpus;
using namespace onnxtest;

TEST_CASE("onnx: lenet5 imports to the zoo's graph, with and without weights") {
  auto Zoo = buildZooModel("lenet5");
  REQUIRE(Zoo);
  for (WeightMode Mode :
       {WeightMode::Initializers, WeightMode::GraphInputs, WeightMode::ValueInfo}) {
    CAPTURE(static_cast<int>(Mode));
    checkSameGraph(import(lenet5(Mode)), *Zoo);
  }
}

TEST_CASE("onnx: importOnnxFile reads a file from disk") {
  std::string Path = "/tmp/ptxcast_onnx_test_" + std::to_string(::getpid()) + ".onnx";
  {
    std::ofstream Out(Path, std::ios::binary);
    Out << lenet5(WeightMode::Initializers).bytes();
  }
  auto N = importOnnxFile(Path);
  std::remove(Path.c_str());
  REQUIRE_MESSAGE(bool(N), support::errorText(N));
  CHECK(N->params() == 61706);
  // Named after the file, not the graph ("test"): exporters call every graph "main_graph".
  CHECK(N->name() == "ptxcast_onnx_test_" + std::to_string(::getpid()));
}

TEST_CASE("onnx: mobilenetv2 inverted residual stack (relu6 as Clip)") {
  NetworkBuilder B("ref");
  LayerId X = B.input({1, 16, 28, 28}, "x");
  X = invertedResidual(B, X, 24, 2, 6);
  X = invertedResidual(B, X, 24, 1, 6);
  auto Ref = B.finish();
  REQUIRE(Ref);

  OnnxWriter W;
  W.input("x", {1, 16, 28, 28});
  auto Block = [&](const std::string &In, int64_t C, int64_t Out, int64_t Stride) {
    std::string Y = relu6(W, bn(W, conv(W, In, C, 6 * C, 1, 1, 0), 6 * C));
    Y = relu6(W, bn(W, conv(W, Y, 6 * C, 6 * C, 3, Stride, 1, 6 * C), 6 * C));
    Y = bn(W, conv(W, Y, 6 * C, Out, 1, 1, 0), Out);
    return Stride == 1 && C == Out ? binary(W, "Add", In, Y) : Y;
  };
  std::string Y = Block(Block("x", 16, 24, 2), 24, 24, 1);
  W.output(Y);
  checkSameGraph(import(W), *Ref);
}

TEST_CASE("onnx: resnet bottlenecks with projection shortcuts") {
  NetworkBuilder B("ref");
  LayerId X = B.input({2, 64, 28, 28}, "x");
  X = resnetBottleneck(B, X, 64, 1);
  X = resnetBottleneck(B, X, 128, 2);
  auto Ref = B.finish();
  REQUIRE(Ref);

  OnnxWriter W;
  W.input("x", {-1, 64, 28, 28}); // dynamic batch, fixed by the options
  auto Block = [&](const std::string &In, int64_t C, int64_t Width, int64_t Stride) {
    std::string Y = unary(W, "Relu", bn(W, conv(W, In, C, Width, 1, 1, 0), Width));
    Y = unary(W, "Relu", bn(W, conv(W, Y, Width, Width, 3, Stride, 1), Width));
    Y = bn(W, conv(W, Y, Width, 4 * Width, 1, 1, 0), 4 * Width);
    std::string Short = bn(W, conv(W, In, C, 4 * Width, 1, Stride, 0), 4 * Width);
    return unary(W, "Relu", binary(W, "Add", Y, Short));
  };
  W.output(Block(Block("x", 64, 64, 1), 256, 128, 2));
  OnnxImportOptions O;
  O.batch = 2;
  checkSameGraph(import(W, O), *Ref);

  // The same graph at another image size is the blocks built at that size.
  NetworkBuilder B14("ref");
  LayerId Y = B14.input({2, 64, 14, 14}, "x");
  Y = resnetBottleneck(B14, Y, 64, 1);
  resnetBottleneck(B14, Y, 128, 2);
  auto Ref14 = B14.finish();
  REQUIRE(Ref14);
  O.imageSize = 14;
  checkSameGraph(import(W, O), *Ref14);
}

TEST_CASE("onnx: efficientnet MBConv with squeeze-excitation (swish as Sigmoid*x)") {
  NetworkBuilder B("ref");
  LayerId X = B.input({1, 16, 56, 56}, "x");
  X = mbconv(B, X, MBConvArgs{3, 2, 6, 24, 0.25});
  X = mbconv(B, X, MBConvArgs{5, 1, 6, 24, 0.25});
  auto Ref = B.finish();
  REQUIRE(Ref);

  OnnxWriter W;
  W.input("x", {1, 16, 56, 56});
  auto Block = [&](const std::string &In, int64_t C, int64_t Out, int64_t K, int64_t Stride) {
    int64_t H = 6 * C, Squeeze = C / 4;
    std::string Y = swish(W, bn(W, conv(W, In, C, H, 1, 1, 0), H, 1e-3f));
    // TF "SAME" padding (odd pixel after) is ONNX auto_pad SAME_UPPER.
    Y = swish(W, bn(W, conv(W, Y, H, H, K, Stride, 0, H, false, "SAME_UPPER"), H, 1e-3f));
    std::string S = unary(W, "GlobalAveragePool", Y);
    S = swish(W, conv(W, S, H, Squeeze, 1, 1, 0, 1, true));
    S = unary(W, "Sigmoid", conv(W, S, Squeeze, H, 1, 1, 0, 1, true));
    Y = binary(W, "Mul", Y, S);
    Y = bn(W, conv(W, Y, H, Out, 1, 1, 0), Out, 1e-3f);
    return Stride == 1 && C == Out ? binary(W, "Add", Y, In) : Y;
  };
  W.output(Block(Block("x", 16, 24, 3, 2), 24, 24, 5, 1));
  Network N = import(W);
  checkSameGraph(N, *Ref);
  // The fused swish keeps the Sigmoid node's name; the SE gate stays a plain sigmoid.
  int Swish = 0, Sigmoid = 0;
  for (const Layer &L : N.layers())
    if (auto *A = std::get_if<ActivationAttrs>(&L.attrs))
      (A->kind == ActKind::Swish ? Swish : Sigmoid) += 1;
  CHECK(Swish == 6);
  CHECK(Sigmoid == 2);

  OnnxImportOptions Keep;
  Keep.fuseSwish = false;
  CHECK(import(W, Keep).size() == N.size() + 6); // six Sigmoid + Mul pairs left apart
}

TEST_CASE("onnx: MatMul+Add, HardSigmoid*x, Reshape, Concat, Pad, Softmax, Dropout, MaxPool") {
  OnnxWriter W(13);
  W.input("x", {1, 4, 9, 9});
  auto &HS = W.node("HardSigmoid", {"x"});
  setFloat(HS, "alpha", 1.0f / 6.0f);
  setFloat(HS, "beta", 0.5f);
  std::string X = binary(W, "Mul", "x", out(HS)); // hardswish
  auto &P = W.node("Pad", {X, W.ints({0, 0, 1, 2, 0, 0, 0, 1})});
  X = out(P); // -> [1,4,10,12]
  auto &MP = W.node("MaxPool", {X});
  setInts(MP, "kernel_shape", {3, 3});
  setInts(MP, "strides", {2, 2});
  setInt(MP, "ceil_mode", 1);
  X = out(MP);                   // -> [1,4,5,6] (ceil mode)
  X = binary(W, "Concat", X, X); // needs axis
  W.G->mutable_node(W.G->node_size() - 1)->clear_attribute();
  setInt(*W.G->mutable_node(W.G->node_size() - 1), "axis", 1); // -> [1,8,5,6]
  X = out(W.node("Dropout", {X}));
  X = out(W.node("Reshape", {X, W.ints({1, -1})}));    // -> [1,240]
  X = out(W.node("MatMul", {X, W.weight({240, 10})})); // + bias below: one dense layer
  X = binary(W, "Add", X, W.weight({10}));
  X = unary(W, "Softmax", X);
  W.output(X);
  Network N = import(W);
  std::vector<std::string> Kinds;
  for (const Layer &L : N.layers())
    Kinds.push_back(std::string(layerKindName(L.kind)));
  CHECK(Kinds == std::vector<std::string>{"input", "activation", "pad", "maxpool", "concat",
                                          "identity", "reshape", "dense", "softmax"});
  CHECK(std::get<ActivationAttrs>(N.layer(1).attrs).kind == ActKind::HardSwish);
  CHECK(N.layer(3).shape == Shape{1, 4, 5, 6});
  CHECK(N.layer(4).shape == Shape{1, 8, 5, 6});
  CHECK(N.layer(7).params == 240 * 10 + 10);
  CHECK(N.layer(8).shape == Shape{1, 10});
}

TEST_CASE("onnx: opsets past libonnx's 17 import (PyTorch's newer exporters write 18 to 21)") {
  // The same network at opset 17 and 21 (IR version 10): the schema check is skipped past 17,
  // libonnx's shape inference still runs, and the graphs agree.
  auto Build = [](int64_t Opset) {
    OnnxWriter W(Opset);
    W.M.set_ir_version(Opset > 17 ? 10 : 8);
    W.input("x", {-1, 3, 16, 16});
    auto &C = W.node("Conv", {"x", W.weight({8, 3, 3, 3}), W.weight({8})}, "conv");
    setInts(C, "kernel_shape", {3, 3});
    setInts(C, "pads", {1, 1, 1, 1});
    std::string X = unary(W, "Relu", out(C));
    auto &MP = W.node("MaxPool", {X}, "pool");
    setInts(MP, "kernel_shape", {2, 2});
    setInts(MP, "strides", {2, 2});
    X = out(W.node("Flatten", {out(MP)}, "flat"));
    auto &G = W.node("Gemm", {X, W.weight({10, 512}), W.weight({10})}, "fc");
    setInt(G, "transB", 1);
    W.output(out(G));
    return W;
  };
  OnnxImportOptions O;
  O.batch = 4;
  Network A = import(Build(17), O), B = import(Build(21), O);
  checkSameGraph(A, B);
  CHECK(B.layer(B.size() - 1).shape == Shape{4, 10});
}

TEST_CASE("onnx: MatMul of two activations is a batched matmul, of a 2-d weight, dense") {
  // Attention scores and context: q [2,4,8] x kt [2,8,4] (both graph inputs: kt, of rank 3 at
  // MatMul's weight position, is an activation), softmax, x v [2,4,8] (a Relu's output).
  OnnxWriter W(13);
  W.input("q", {2, 4, 8});
  W.input("kt", {2, 8, 4});
  W.input("v", {2, 4, 8});
  std::string S = unary(W, "Softmax", binary(W, "MatMul", "q", "kt"));
  std::string C = binary(W, "MatMul", S, unary(W, "Relu", "v"));
  W.output(out(W.node("MatMul", {C, W.weight({8, 5})}))); // a weight: dense, [2,4,5]
  Network N = import(W);
  std::vector<std::string> Kinds;
  for (const Layer &L : N.layers())
    Kinds.push_back(std::string(layerKindName(L.kind)));
  CHECK(Kinds == std::vector<std::string>{"input", "input", "input", "matmul", "softmax",
                                          "activation", "matmul", "dense"});
  CHECK(N.layer(3).shape == Shape{2, 4, 4});
  CHECK(N.layer(3).macs == 2 * 4 * 8 * 4);
  CHECK(N.layer(6).shape == Shape{2, 4, 8});
  CHECK(N.layer(7).shape == Shape{2, 4, 5});
  CHECK(N.layer(7).params == 8 * 5);
}

TEST_CASE("onnx: opset 10 forms (attribute pads and clip bounds, Constant, softmax axis 1)") {
  OnnxWriter W(10);
  W.input("x", {1, 2, 4, 4});
  auto &P = W.node("Pad", {"x"});
  setInts(P, "pads", {0, 0, 1, 1, 0, 0, 1, 1});
  auto &C = W.node("Clip", {out(P)});
  setFloat(C, "min", 0.0f);
  setFloat(C, "max", 6.0f);
  std::string X = conv(W, out(C), 2, 3, 3, 1, 0); // [1,3,4,4]
  auto &K = W.node("Constant", {});
  auto *V = K.add_attribute();
  V->set_name("value");
  V->set_type(onnx::AttributeProto::TENSOR);
  V->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  V->mutable_t()->add_dims(2);
  V->mutable_t()->add_int64_data(0);
  V->mutable_t()->add_int64_data(-1);
  X = binary(W, "Reshape", X, out(K)); // [1,48]
  X = unary(W, "Softmax", X);
  W.output(X);
  Network N = import(W);
  std::vector<std::string> Kinds;
  for (const Layer &L : N.layers())
    Kinds.push_back(std::string(layerKindName(L.kind)));
  CHECK(Kinds ==
        std::vector<std::string>{"input", "pad", "activation", "conv", "reshape", "softmax"});
  CHECK(N.layer(1).shape == Shape{1, 2, 6, 6});
  const auto &Clip = std::get<ActivationAttrs>(N.layer(2).attrs);
  CHECK((Clip.kind == ActKind::Clip && Clip.alpha == 0.0f && Clip.beta == 6.0f));
  CHECK(N.layer(4).shape == Shape{1, 48});
  CHECK(std::get<SoftmaxAttrs>(N.layer(5).attrs).axis == 1);
}

/// x [2,6,5,4] -> ReduceMean "rm" with `Axes` (an attribute before opset 18, an input from 18).
OnnxWriter reduceMean(int64_t Opset, const std::vector<int64_t> &Axes, int64_t KeepDims) {
  OnnxWriter W(Opset);
  W.input("x", {2, 6, 5, 4});
  onnx::NodeProto *N = nullptr;
  if (Opset < 18) {
    N = &W.node("ReduceMean", {"x"}, "rm");
    setInts(*N, "axes", Axes);
  } else {
    N = &W.node("ReduceMean", {"x", W.ints(Axes)}, "rm");
  }
  setInt(*N, "keepdims", KeepDims);
  W.output(out(*N));
  return W;
}

TEST_CASE("onnx: ReduceMean over H and W is a global average pool") {
  SUBCASE("opset 13, axes attribute [2, 3], keepdims 0: pool then flatten") {
    Network N = import(reduceMean(13, {2, 3}, 0));
    REQUIRE(N.size() == 3);
    CHECK(N.layer(1).kind == LayerKind::GlobalAvgPool);
    CHECK(N.layer(1).shape == Shape{2, 6, 1, 1});
    CHECK(N.layer(2).kind == LayerKind::Flatten);
    CHECK(N.layer(2).name == "rm");
    CHECK(N.layer(2).shape == Shape{2, 6});
  }
  SUBCASE("opset 13, axes [-1, -2], keepdims 1: the pool alone") {
    Network N = import(reduceMean(13, {-1, -2}, 1));
    REQUIRE(N.size() == 2);
    CHECK(N.layer(1).kind == LayerKind::GlobalAvgPool);
    CHECK(N.layer(1).name == "rm");
    CHECK(N.layer(1).shape == Shape{2, 6, 1, 1});
  }
  SUBCASE("opset 18, axes as a constant input") {
    Network N = import(reduceMean(18, {2, 3}, 0));
    REQUIRE(N.size() == 3);
    CHECK(N.layer(1).kind == LayerKind::GlobalAvgPool);
    CHECK(N.layer(2).shape == Shape{2, 6});
  }
  SUBCASE("other contiguous axes are a mean reduction (CBAM's channel mean)") {
    Network C = import(reduceMean(13, {1}, 1));
    REQUIRE(C.size() == 2);
    CHECK(C.layer(1).kind == LayerKind::Reduce);
    CHECK(C.layer(1).shape == Shape{2, 1, 5, 4});
    Network All = import(reduceMean(18, {1, 2, 3}, 0));
    CHECK(All.layer(1).kind == LayerKind::Reduce);
    CHECK(All.layer(1).shape == Shape{2});
  }
  SUBCASE("the batch axis and axes with a gap are refused, naming the node") {
    CHECK(importError(reduceMean(13, {0, 1}, 1)) ==
          "model.onnx: error: node 'rm' (ReduceMean): a reduction over the batch axis is not "
          "supported");
    CHECK(importError(reduceMean(13, {1, 3}, 1)) ==
          "model.onnx: error: node 'rm' (ReduceMean): only a reduction over contiguous axes of "
          "the input is supported");
    CHECK(importError(reduceMean(13, {1, -9}, 1)) ==
          "model.onnx: error: node 'rm' (ReduceMean): axis out of range for a rank-4 input");
    CHECK(importError(reduceMean(18, {2, -2}, 1)) ==
          "model.onnx: error: node 'rm' (ReduceMean): axis 2 is listed twice");
  }
  SUBCASE("opset 18 axes that are not a constant") {
    OnnxWriter W(18, WeightMode::GraphInputs);
    W.input("x", {2, 6, 5, 4});
    W.node("ReduceMean", {"x", W.weight({2})}, "rm");
    CHECK(importError(W) ==
          "model.onnx: error: node 'rm' (ReduceMean): axes must be a constant int64 tensor");
  }
}

TEST_CASE("onnx: errors name the file, node and operator") {
  SUBCASE("unsupported operator") {
    OnnxWriter W;
    W.input("x", {1, 3, 8, 8});
    W.node("LSTM", {"x"}, "conv_7");
    CHECK(importError(W) == "model.onnx: error: node 'conv_7' (LSTM): unsupported operator");
  }
  SUBCASE("every unsupported operator of the model at once, the first node named") {
    OnnxWriter W; // a recurrent layer and an exporter's contrib GELU
    W.input("x", {1, 4, 8, 8});
    W.node("Relu", {"x"}, "r");
    W.node("GRU", {"r_out"}, "t1");
    W.node("Erf", {"t1_out"}, "e");
    W.node("GRU", {"e_out"}, "t2");
    W.node("Where", {"t2_out"}, "w");
    W.node("Gelu", {"w_out"}, "g").set_domain("com.microsoft");
    CHECK(importError(W) ==
          "model.onnx: error: node 't1' (GRU): unsupported operator; the model has 4 nodes "
          "of 3 unsupported operators: GRU (2), Where (1), com.microsoft:Gelu (1) "
          "(supported operators: docs/onnx.md)");
  }
  SUBCASE("a value written twice") {
    OnnxWriter W; // ONNX assigns each value once: which Relu a reader meant would be a guess
    W.input("x", {1, 3, 8, 8});
    W.node("Relu", {"x"}, "r1");
    W.node("Sigmoid", {"x"}, "r2").set_output(0, "r1_out");
    CHECK(importError(W) == "model.onnx: error: value 'r1_out' is written by node 'r2' (Sigmoid) "
                            "and already by node 'r1' (Relu): an ONNX graph assigns each value "
                            "once");
  }
  SUBCASE("malformed protobuf") {
    auto N = importOnnx(std::string("\xff\xff\xff\xff", 4), "model.onnx");
    REQUIRE(!N);
    CHECK(N.error().str() == "model.onnx: error: malformed file: not an ONNX model protobuf");
  }
  SUBCASE("empty graph") {
    OnnxWriter W;
    CHECK(importError(W) == "model.onnx: error: malformed file: model has no graph nodes");
  }
  SUBCASE("inconsistent weight shape") {
    OnnxWriter W;
    W.input("x", {1, 3, 8, 8});
    auto &C = W.node("Conv", {"x", W.weight({8, 4, 3, 3})}, "c1");
    setInts(C, "kernel_shape", {3, 3});
    CHECK(importError(W) == "model.onnx: error: node 'c1' (Conv): weight [8,4,3,3] with group=1 "
                            "does not match 3 input channels");
  }
  SUBCASE("shape error from propagation") {
    OnnxWriter W;
    W.input("x", {1, 3, 4, 4});
    auto &C = W.node("Conv", {"x", W.weight({8, 3, 5, 5})}, "big");
    (void)C;
    CHECK(importError(W) ==
          "model.onnx: error: node 'big' (Conv): 5x5 kernel does not fit input [1,3,4,4]");
  }
  SUBCASE("unknown tensor") {
    OnnxWriter W;
    W.input("x", {1, 3, 4, 4});
    W.node("Relu", {"x"});
    W.node("Relu", {"nowhere"}, "r");
    CHECK(importError(W) == "model.onnx: error: node 'r' (Relu): unknown input tensor 'nowhere' "
                            "(nodes must be topologically sorted)");
  }
  SUBCASE("used second output") {
    OnnxWriter W;
    W.input("x", {1, 3, 4, 4});
    auto &M = W.node("MaxPool", {"x"}, "mp");
    setInts(M, "kernel_shape", {2, 2});
    M.add_output("indices");
    W.node("Relu", {"indices"}, "r");
    CHECK(importError(W) ==
          "model.onnx: error: node 'mp' (MaxPool): output 1 ('indices') is used but not supported");
  }
  SUBCASE("clip bounds without data") {
    OnnxWriter W(13, WeightMode::GraphInputs);
    W.input("x", {1, 3, 4, 4});
    W.node("Clip", {"x", W.weight({})}, "clip");
    CHECK(importError(W).find("node 'clip' (Clip): bound 'w0' must be a constant") !=
          std::string::npos);
  }
  SUBCASE("Gemm bias that does not broadcast, transB not 0 or 1") {
    OnnxWriter W;
    W.input("x", {1, 16});
    auto &G = W.node("Gemm", {"x", W.weight({8, 16}), W.weight({7})}, "fc");
    setInt(G, "transB", 1);
    CHECK(importError(W) ==
          "model.onnx: error: node 'fc' (Gemm): bias [7] does not broadcast to [1,8]");
    G.mutable_attribute(0)->set_i(2);
    CHECK(importError(W) == "model.onnx: error: node 'fc' (Gemm): transB must be 0 or 1, got 2");
  }
  SUBCASE("clip bound of more than one value") {
    OnnxWriter W;
    W.input("x", {1, 3, 4, 4});
    auto *T = W.G->add_initializer();
    T->set_name("lo");
    T->set_data_type(onnx::TensorProto::FLOAT);
    T->add_dims(2);
    T->add_float_data(0);
    T->add_float_data(1);
    W.node("Clip", {"x", "lo"}, "clip");
    CHECK(importError(W) ==
          "model.onnx: error: node 'clip' (Clip): bound 'lo' must be a constant float with data");
  }
  SUBCASE("unknown spatial dimension") {
    OnnxWriter W;
    W.input("x", {-1, 3, -1, 8}); // symbolic batch is fine, symbolic height is not
    W.node("Relu", {"x"});
    CHECK(importError(W) == "model.onnx: error: graph input 'x' has unknown dimension 2");
  }
  SUBCASE("an image size the graph's input cannot take") {
    // A static batch; NHWC, where resizing dimensions 2 and 3 would change the channels.
    const std::pair<Shape, std::string> Cases[] = {
        {{1, 3, 8, 8}, "no 4-D graph input with a dynamic batch dimension to give image size 16"},
        {{-1, 8, 8, 3},
         "graph input 'x' is 8 x 3 in dimensions 2 and 3: not a square NCHW "
         "image to give image size 16"}};
    for (const auto &[Dims, Message] : Cases) {
      OnnxWriter W;
      W.input("x", Dims);
      W.node("Relu", {"x"});
      OnnxImportOptions O;
      O.imageSize = 16;
      CHECK(importError(W, O) == "model.onnx: error: " + Message);
    }
  }
  SUBCASE("zero stride (libonnx's shape inference would divide by it)") {
    OnnxWriter W;
    W.input("x", {1, 3, 8, 8});
    auto &M = W.node("MaxPool", {"x"}, "mp");
    setInts(M, "kernel_shape", {2, 2});
    setInts(M, "strides", {0, 0});
    CHECK(importError(W) ==
          "model.onnx: error: node 'mp' (MaxPool): strides must be positive, got 0");
  }
  SUBCASE("sizes past 2^40 elements are errors, not wrapped counts") {
    OnnxWriter W;
    W.input("x", {int64_t(1) << 31, 3, 1024, 1024});
    W.node("Relu", {"x"});
    CHECK(importError(W) == "model.onnx: error: graph input 'x': shape [2147483648,3,1024,1024] "
                            "has more than 2^40 elements");
  }
  SUBCASE("initializer data that disagree with its dims (stripped data is fine)") {
    OnnxWriter W;
    W.input("x", {1, 3, 8, 8});
    auto &C = W.node("Conv", {"x", W.weight({8, 3, 3, 3})}, "c1");
    setInts(C, "kernel_shape", {3, 3});
    W.output("c1_out");
    onnx::TensorProto *T = W.G->mutable_initializer(0);
    T->set_raw_data(std::string(40, '\0'));
    CHECK(importError(W) ==
          "model.onnx: error: initializer 'w0': 40 bytes of data for 216 elements of 4 bytes");
    T->set_data_type(99);
    CHECK(importError(W) == "model.onnx: error: initializer 'w0': unsupported data type 99");
    T->set_data_type(onnx::TensorProto::FLOAT);
    T->clear_raw_data();
    CHECK(importOnnx(W.bytes(), "model.onnx"));
  }
  SUBCASE("nodes their operator's schema rejects (libonnx's checker)") {
    OnnxWriter W;
    W.input("x", {1, 3, 8, 8});
    W.node("Relu", {"x", "x"}, "r");
    CHECK(importError(W) == "model.onnx: error: node 'r' (Relu): Node (r) has input size 2 not "
                            "in range [min=1, max=1].");
    W.G->mutable_node(0)->mutable_input()->RemoveLast();
    setInt(*W.G->mutable_node(0), "alpha", 1);
    CHECK(importError(W) ==
          "model.onnx: error: node 'r' (Relu): Unrecognized attribute: alpha for operator Relu");
    // A node folded into the layer before it (MatMul + Add as one dense layer) is checked too.
    OnnxWriter V;
    V.input("x", {1, 16});
    V.node("MatMul", {"x", V.weight({16, 8})}, "mm");
    setInt(V.node("Add", {"mm_out", V.weight({8})}, "bias"), "axis", 1);
    CHECK(importError(V) ==
          "model.onnx: error: node 'bias' (Add): Unrecognized attribute: axis for operator Add");
  }
  SUBCASE("an attribute twice, a flag other than 0 or 1, an attribute of the wrong type") {
    OnnxWriter W;
    W.input("x", {1, 3, 8, 8});
    auto &M = W.node("MaxPool", {"x"}, "mp");
    setInts(M, "kernel_shape", {2, 2});
    setInt(M, "ceil_mode", 7);
    CHECK(importError(W) == "model.onnx: error: node 'mp' (MaxPool): ceil_mode must be 0 or 1, "
                            "got 7");
    M.mutable_attribute(1)->set_i(1);
    setInts(M, "kernel_shape", {3, 3});
    CHECK(importError(W) ==
          "model.onnx: error: node 'mp' (MaxPool): attribute 'kernel_shape' appears twice");
    M.mutable_attribute()->RemoveLast();
    M.mutable_attribute(1)->set_type(onnx::AttributeProto::FLOAT);
    CHECK(importError(W) == "model.onnx: error: node 'mp' (MaxPool): type field and data field "
                            "mismatch in attribute ceil_mode.");
  }
  SUBCASE("a negative opset") {
    OnnxWriter W(-3);
    W.input("x", {1, 3, 8, 8});
    W.node("Relu", {"x"}, "r");
    CHECK(importError(W) == "model.onnx: error: opset version -3 is negative");
  }
  SUBCASE("no graph output") {
    OnnxWriter W;
    W.input("x", {1, 3, 8, 8});
    W.node("Relu", {"x"}, "r");
    W.G->clear_output();
    CHECK(importError(W) == "model.onnx: error: malformed file: graph has no output");
  }
  SUBCASE("control bytes in names are escaped in messages") {
    OnnxWriter W;
    W.input("x", {1, 3, 8, 8});
    W.node("Relu", {"x"});
    W.node("Relu", {"nowhere\x1b[2J"}, std::string("r\n\0", 3));
    CHECK(importError(W) == "model.onnx: error: node 'r\\x0a\\x00' (Relu): unknown input tensor "
                            "'nowhere\\x1b[2J' (nodes must be topologically sorted)");
  }
  SUBCASE("unreadable file") {
    auto N = importOnnxFile("/nonexistent/model.onnx");
    REQUIRE(!N);
    CHECK(N.error().str() == "/nonexistent/model.onnx: error: cannot open file");
  }
}

TEST_CASE("onnx: Identity of a weight is that weight (PyTorch 1.13 shares weights this way)") {
  OnnxWriter W(13);
  W.input("x", {1, 4, 8, 8});
  std::string Weight = W.weight({4, 4, 1, 1});
  std::string Shared = out(W.node("Identity", {Weight}));
  std::string X = out(W.node("Conv", {"x", Weight}));
  X = out(W.node("Conv", {X, Shared}));
  W.output(X);
  Network N = import(W);
  std::vector<std::string> Kinds;
  for (const Layer &L : N.layers())
    Kinds.push_back(std::string(layerKindName(L.kind)));
  CHECK(Kinds == std::vector<std::string>{"input", "conv", "conv"});
  CHECK(N.layer(2).params == 16);
}

namespace {

/// An int8 initializer of shape S (zero-filled), as a QDQ model stores its quantized weights.
std::string int8Weight(OnnxWriter &W, const std::string &Name, const Shape &S) {
  auto *T = W.G->add_initializer();
  T->set_name(Name);
  T->set_data_type(onnx::TensorProto::INT8);
  for (int64_t D : S)
    T->add_dims(D);
  T->set_raw_data(std::string(static_cast<size_t>(elementCount(S)), '\0'));
  return Name;
}

/// x -> QuantizeLinear -> DequantizeLinear (an activation's fake quantization, per tensor).
std::string qdq(OnnxWriter &W, const std::string &X) {
  const std::string Scale = W.scalar(0.05f);
  return out(W.node("DequantizeLinear", {out(W.node("QuantizeLinear", {X, Scale})), Scale}));
}

} // namespace

TEST_CASE("onnx: an explicitly quantized (QDQ) model imports as its float graph") {
  // TensorRT's explicit int8 form: Q/DQ pairs on the activations, int8 weights behind a
  // per-channel DequantizeLinear. The float graph is the same network without them.
  OnnxWriter Q(13), F(13);
  for (OnnxWriter *W : {&Q, &F})
    W->input("x", {1, 3, 16, 16});
  const std::string Scales = Q.weight({8}); // per output channel
  onnx::NodeProto &Dq = Q.node("DequantizeLinear", {int8Weight(Q, "w_q", {8, 3, 3, 3}), Scales});
  setInt(Dq, "axis", 0);
  std::string X = out(Q.node("Conv", {qdq(Q, "x"), out(Dq)}));
  X = out(Q.node("Relu", {qdq(Q, X)}));
  Q.output(X);
  F.output(out(F.node("Relu", {out(F.node("Conv", {"x", F.weight({8, 3, 3, 3})}))})));
  const Network NQ = import(Q), NF = import(F);
  std::vector<std::string> Kinds;
  for (const Layer &L : NQ.layers())
    if (L.kind != LayerKind::Identity)
      Kinds.push_back(std::string(layerKindName(L.kind)));
  CHECK(Kinds == std::vector<std::string>{"input", "conv", "activation"});
  CHECK(NQ.macs() == NF.macs());
  CHECK(NQ.params() == NF.params()); // the weight's 216; scales are not layers
  CHECK(NQ.layers().back().shape == Shape{1, 8, 14, 14});
}

TEST_CASE("onnx: GlobalMaxPool is a max pool whose window is the whole image") {
  OnnxWriter W(13);
  W.input("x", {2, 8, 7, 5});
  W.output(out(W.node("GlobalMaxPool", {"x"})));
  const Network N = import(W);
  REQUIRE(N.size() == 2);
  const Layer &P = N.layer(1);
  CHECK(P.kind == LayerKind::MaxPool);
  const auto &A = std::get<PoolAttrs>(P.attrs);
  CHECK(A.kernelH == 7);
  CHECK(A.kernelW == 5);
  CHECK(P.shape == Shape{2, 8, 1, 1});
}
