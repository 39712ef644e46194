// ONNX import of layout and transformer-style operators: a ShuffleNetV2 unit (Split, channel
// shuffle as Reshape-Transpose-Reshape) imports to the graph the builder gives, a ConvNeXt block
// (Transpose, LayerNormalization, the five-node erf GELU) to one gelu activation, and both lower
// with strided copies; Sub, Div, Pow and n-ary Sum import, and misuse is an error naming the node.
#include "corpus/Builder.h"
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include "OnnxWriter.h"

#include <onnx/onnx_pb.h>

#include <doctest/doctest.h>

#include <cmath>
#include <map>

using namespace corpus;
using namespace onnxtest;

namespace {

size_t copies(const Network &N) {
  auto W = lower(N);
  REQUIRE_MESSAGE(bool(W), support::errorText(W));
  size_t C = 0;
  for (const WorkloadLaunch &L : W->launches)
    C += L.strategy == "copy_strided";
  return C;
}

/// torchvision's ShuffleNetV2 InvertedResidual (stride 1): x1, x2 = x.chunk(2, dim=1); x2 through
/// 1x1 conv-bn-relu, depthwise 3x3 conv-bn, 1x1 conv-bn-relu; cat(x1, x2); channel_shuffle(2).
OnnxWriter shuffleUnit(int64_t N, int64_t C, int64_t H) {
  OnnxWriter W(13);
  W.input("x", {N, C, H, H});
  auto &Split = W.node("Split", {"x", W.ints({C / 2, C / 2})}, "split");
  setInt(Split, "axis", 1);
  Split.set_output(0, "x1");
  Split.add_output("x2");
  std::string B = unary(W, "Relu", bn(W, conv(W, "x2", C / 2, C / 2, 1, 1, 0), C / 2));
  B = bn(W, conv(W, B, C / 2, C / 2, 3, 1, 1, C / 2), C / 2);
  B = unary(W, "Relu", bn(W, conv(W, B, C / 2, C / 2, 1, 1, 0), C / 2));
  auto &Cat = W.node("Concat", {"x1", B});
  setInt(Cat, "axis", 1);
  std::string X = out(W.node("Reshape", {out(Cat), W.ints({N, 2, C / 2, H, H})}));
  auto &T = W.node("Transpose", {X});
  setInts(T, "perm", {0, 2, 1, 3, 4});
  X = out(W.node("Reshape", {out(T), W.ints({N, C, H, H})}));
  W.output(X);
  return W;
}

/// The same unit through the builder, layer for layer.
Network shuffleUnitBuilt(int64_t N, int64_t C, int64_t H) {
  NetworkBuilder B("built");
  LayerId X = B.input({N, C, H, H}, "x");
  LayerId X1 = B.slice(X, 1, 0, C / 2);
  LayerId X2 = B.slice(X, 1, C / 2, C);
  LayerId Y = B.relu(B.batchNorm(B.conv(X2, C / 2, 1, 1, 0)));
  ConvAttrs Dw{C / 2, 3, 3, 1, 1, 1, 1, 1, 1};
  Dw.groups = C / 2;
  Y = B.batchNorm(B.add(LayerKind::Conv, {Y}, Dw));
  Y = B.relu(B.batchNorm(B.conv(Y, C / 2, 1, 1, 0)));
  LayerId Cat = B.add(LayerKind::Concat, {X1, Y}, ConcatAttrs{1});
  B.reshape(B.transpose(B.reshape(Cat, {N, 2, C / 2, H, H}), {0, 2, 1, 3, 4}), {N, C, H, H});
  auto Net = B.finish();
  REQUIRE_MESSAGE(bool(Net), support::errorText(Net));
  return std::move(*Net);
}

/// torch.nn.GELU() as torch.onnx exports it, on tensor X.
std::string gelu(OnnxWriter &W, const std::string &X) {
  std::string E = unary(W, "Erf", binary(W, "Div", X, W.scalar(1.41421356f)));
  return binary(W, "Mul", binary(W, "Mul", X, binary(W, "Add", E, W.scalar(1.0f))),
                W.scalar(0.5f));
}

/// torchvision's ConvNeXt CNBlock: depthwise 7x7, permute to NHWC, LayerNorm, Linear, GELU,
/// Linear, layer scale, permute back, residual.
OnnxWriter convNextBlock(int64_t C, int64_t H) {
  OnnxWriter W(17);
  W.input("x", {1, C, H, H});
  std::string X = conv(W, "x", C, C, 7, 1, 3, C, true);
  auto &T = W.node("Transpose", {X});
  setInts(T, "perm", {0, 2, 3, 1});
  auto &Ln = W.node("LayerNormalization", {out(T), W.weight({C}), W.weight({C})});
  setFloat(Ln, "epsilon", 1e-6f);
  X = binary(W, "Add", out(W.node("MatMul", {out(Ln), W.weight({C, 4 * C})})), W.weight({4 * C}));
  X = gelu(W, X);
  X = binary(W, "Add", out(W.node("MatMul", {X, W.weight({4 * C, C})})), W.weight({C}));
  X = binary(W, "Mul", X, W.weight({C}));
  auto &Back = W.node("Transpose", {X});
  setInts(Back, "perm", {0, 3, 1, 2});
  W.output(binary(W, "Add", out(Back), "x"));
  return W;
}

} // namespace

TEST_CASE("onnx: a ShuffleNetV2 unit (Split, channel shuffle) imports and lowers with copies") {
  for (int64_t N : {1, 4}) {
    CAPTURE(N);
    Network Net = import(shuffleUnit(N, 16, 8));
    checkSameGraph(Net, shuffleUnitBuilt(N, 16, 8));
    CHECK(Net.layer(1).name == "split/0");
    CHECK(Net.layer(2).name == "split/1");
    // Two halves of the split and the shuffle's transpose: three strided copies.
    CHECK(copies(Net) == 3);
  }
}

TEST_CASE("onnx: a ConvNeXt block imports its erf GELU as one activation") {
  Network N = import(convNextBlock(8, 7));
  CHECK(kinds(N) == std::vector<std::string>{"input", "conv", "transpose", "layernorm", "dense",
                                             "activation", "dense", "mul", "transpose", "add"});
  CHECK(std::get<ActivationAttrs>(N.layer(5).attrs).kind == ActKind::Gelu);
  CHECK(std::get<LayerNormAttrs>(N.layer(3).attrs).epsilon == 1e-6f);
  CHECK(N.layer(3).shape == Shape{1, 7, 7, 8});
  CHECK(N.layer(4).shape == Shape{1, 7, 7, 32});
  CHECK(N.layer(3).params == 16);
  CHECK(copies(N) == 2);
}

TEST_CASE("onnx: Sub, Div and Pow import: a number as divisor or exponent is a scalar") {
  OnnxWriter W(13);
  W.input("x", {1, 4, 3, 3});
  W.input("y", {1, 4, 3, 3});
  std::string X = binary(W, "Sub", "x", "y");
  X = binary(W, "Pow", X, W.scalar(2.0f));
  X = binary(W, "Div", X, W.scalar(3.0f));
  X = binary(W, "Div", X, "y");
  W.output(binary(W, "Sub", X, W.weight({4, 1, 1})));
  Network N = import(W);
  CHECK(kinds(N) == std::vector<std::string>{"input", "input", "add", "pow", "div", "div", "add"});
  CHECK(std::get<EltwiseAttrs>(N.layer(3).attrs).scalar == 2.0f);
  CHECK(std::get<EltwiseAttrs>(N.layer(4).attrs).scalar == 3.0f);
  CHECK(N.layer(6).params == 4); // a constant tensor operand
  CHECK(bool(lower(N)));
}

TEST_CASE("onnx: Slice with inputs and steps, and before opset 10 with attributes") {
  OnnxWriter W(13);
  W.input("x", {2, 6, 9, 9});
  auto &S = W.node("Slice", {"x", W.ints({1, -8}), W.ints({INT64_MAX, 9}), W.ints({2, 3}),
                             W.ints({2, 3})});
  W.output(out(S));
  Network N = import(W);
  CHECK(N.layer(1).shape == Shape{2, 6, 4, 3}); // rows 1,3,5,7; columns 1,4,7

  OnnxWriter Old(9);
  Old.input("x", {2, 6, 9, 9});
  auto &A = Old.node("Slice", {"x"});
  setInts(A, "starts", {2});
  setInts(A, "ends", {-1});
  setInts(A, "axes", {1});
  Old.output(out(A));
  CHECK(import(Old).layer(1).shape == Shape{2, 3, 9, 9});
}

TEST_CASE("onnx: Split, Slice, LayerNormalization and Erf misuse name the node") {
  OnnxWriter Erf(13);
  Erf.input("x", {1, 4});
  auto &E = Erf.node("Erf", {"x"}, "e");
  Erf.output(unary(Erf, "Relu", out(E)));
  CHECK(importError(Erf) ==
        "model.onnx: error: node 'e' (Erf): Erf is supported only inside GELU, x * 0.5 * (1 + "
        "erf(x / sqrt 2)) as torch.nn.GELU exports it (Div, Erf, Add, Mul, Mul)");

  OnnxWriter Ln(17);
  Ln.input("x", {1, 4, 5});
  auto &L = Ln.node("LayerNormalization", {"x", Ln.weight({4, 5})}, "ln");
  setInt(L, "axis", 1);
  Ln.output(out(L));
  CHECK(importError(Ln) == "model.onnx: error: node 'ln' (LayerNormalization): only a "
                           "normalisation over the last axis is supported (axis -1), got axis 1");

  OnnxWriter Sp(13);
  Sp.input("x", {1, 6});
  auto &P = Sp.node("Split", {"x", Sp.ints({2, 2})}, "sp");
  setInt(P, "axis", 1);
  P.add_output("b");
  Sp.output(out(P));
  Sp.output("b");
  CHECK(importError(Sp).find("model.onnx: error: node 'sp' (Split): ") == 0);

  OnnxWriter Sl(13);
  Sl.input("x", {1, 6});
  Sl.input("s", {1});
  auto &Q = Sl.node("Slice", {"x", "s", Sl.ints({4})}, "sl");
  Sl.output(out(Q));
  CHECK(importError(Sl) == "model.onnx: error: node 'sl' (Slice): input 's' must be a constant "
                           "integer tensor with data");
}

TEST_CASE("onnx: linear Resize is bilinear upsampling in each coordinate mode PyTorch has") {
  // torchvision's DeepLabV3 and FCN heads: F.interpolate(mode='bilinear', align_corners=False),
  // exported as Resize(mode='linear', coordinate_transformation_mode='pytorch_half_pixel');
  // PSPNet's and HRNet's align_corners=True; opset 10's asymmetric mapping.
  auto resize = [](int Opset, const std::string &Coords) {
    OnnxWriter W(Opset);
    W.input("x", {1, 4, 5, 6});
    auto &R = W.node("Resize", {"x", "", "", W.ints({1, 4, 40, 48})}, "r"); // 8x
    setString(R, "mode", "linear");
    if (!Coords.empty())
      setString(R, "coordinate_transformation_mode", Coords);
    W.output(out(R));
    return W;
  };
  // Opset 10's Resize has no coordinate modes: its linear mode is asymmetric (o / scale).
  OnnxWriter Old(10);
  Old.input("x", {1, 4, 5, 6});
  auto &R = Old.node("Resize", {"x", Old.floats({1, 1, 8, 8})}, "r");
  setString(R, "mode", "linear");
  Old.output(out(R));
  const std::pair<Network, ResizeCoords> Cases[] = {
      {import(resize(13, "pytorch_half_pixel")), ResizeCoords::HalfPixel},
      {import(resize(13, "half_pixel")), ResizeCoords::HalfPixel},
      {import(resize(13, "")), ResizeCoords::HalfPixel},
      {import(resize(13, "align_corners")), ResizeCoords::AlignCorners},
      {import(resize(13, "asymmetric")), ResizeCoords::Asymmetric},
      {import(Old), ResizeCoords::Asymmetric}};
  std::vector<std::string> Kernels;
  for (const auto &[N, Coords] : Cases) {
    REQUIRE(kinds(N) == std::vector<std::string>{"input", "upsample"});
    const auto &A = std::get<UpsampleAttrs>(N.layer(1).attrs);
    CHECK(A.linear);
    CHECK(A.scaleH == 8);
    CHECK(A.coords == Coords);
    auto W = lower(N);
    REQUIRE(bool(W));
    REQUIRE(W->launches.size() == 1);
    CHECK(W->launches[0].strategy == "upsample_bilinear");
    Kernels.push_back(W->launches[0].kernel);
  }
  // Each mode is its own kernel: the same name for the same mode, another for another.
  CHECK(Kernels[0] == Kernels[2]);
  CHECK(Kernels[3] != Kernels[0]);
  CHECK(Kernels[4] != Kernels[0]);
  CHECK(Kernels[4] != Kernels[3]);
  CHECK(importError(resize(13, "tf_crop_and_resize")) ==
        "model.onnx: error: node 'r' (Resize): linear resizing is supported with half_pixel, "
        "pytorch_half_pixel, align_corners or asymmetric coordinates, not 'tf_crop_and_resize'");
}

TEST_CASE("onnx: nearest Resize and Upsample by integer factors, from scales or sizes") {
  OnnxWriter W(13);
  W.input("x", {1, 4, 5, 6});
  auto &R = W.node("Resize", {"x", "", W.floats({1, 1, 2, 2})});
  setString(R, "mode", "nearest");
  std::string X = out(R);                                          // [1, 4, 10, 12]
  auto &S = W.node("Resize", {X, "", "", W.ints({1, 4, 30, 12})}); // sizes: 3x rows only
  W.output(out(S));
  Network N = import(W);
  CHECK(kinds(N) == std::vector<std::string>{"input", "upsample", "upsample"});
  CHECK(N.layer(1).shape == Shape{1, 4, 10, 12});
  CHECK(N.layer(2).shape == Shape{1, 4, 30, 12});
  auto Wl = lower(N);
  REQUIRE(bool(Wl));
  REQUIRE(Wl->launches.size() == 2);
  CHECK(Wl->launches[0].strategy == "copy_strided");

  OnnxWriter U(9); // Upsample with scales as an input
  U.input("x", {2, 3, 4, 4});
  U.output(out(U.node("Upsample", {"x", U.floats({1, 1, 2, 2})})));
  CHECK(import(U).layer(1).shape == Shape{2, 3, 8, 8});

  OnnxWriter C(13);
  C.input("x", {1, 4, 5, 6});
  auto &Cubic = C.node("Resize", {"x", "", C.floats({1, 1, 2, 2})}, "r");
  setString(Cubic, "mode", "cubic");
  C.output(out(Cubic));
  CHECK(importError(C) == "model.onnx: error: node 'r' (Resize): only nearest-neighbour and "
                          "linear resizing are supported, not mode 'cubic'");
  OnnxWriter H(13);
  H.input("x", {1, 4, 5, 6});
  H.output(out(H.node("Resize", {"x", "", H.floats({1, 1, 1.5f, 2})}, "h")));
  CHECK(importError(H) == "model.onnx: error: node 'h' (Resize): only upsampling H and W by "
                          "integer factors is supported");
}

TEST_CASE("onnx: a YOLOv5 neck and Detect head (Resize, concat on the last axis) lower") {
  // Neck: upsample a deep map 2x and concatenate it with a shallow one. Head (export mode):
  // conv to 3 anchors x 7 outputs, view [1, 3, 7, ny, nx], permute to [1, 3, ny, nx, 7],
  // sigmoid, xy = y[..., 0:2] * 2 + grid, wh = (y[..., 2:4] * 2) ** 2 * anchor_grid,
  // cat(xy, wh, y[..., 4:]) on the last axis, view [1, -1, 7].
  OnnxWriter W(13);
  W.input("deep", {1, 8, 4, 4});
  W.input("shallow", {1, 4, 8, 8});
  auto Scales = W.G->add_initializer();
  Scales->set_name("scales");
  Scales->set_data_type(onnx::TensorProto::FLOAT);
  Scales->add_dims(4);
  for (float F : {1.0f, 1.0f, 2.0f, 2.0f})
    Scales->add_float_data(F);
  auto &Up = W.node("Resize", {"deep", "", "scales"});
  setString(Up, "mode", "nearest");
  auto &Neck = W.node("Concat", {out(Up), "shallow"});
  setInt(Neck, "axis", 1);
  std::string X = swish(W, conv(W, out(Neck), 12, 21, 1, 1, 0, 1, true));
  X = out(W.node("Reshape", {X, W.ints({1, 3, 7, 8, 8})}));
  auto &P = W.node("Transpose", {X});
  setInts(P, "perm", {0, 1, 3, 4, 2});
  std::string Y = unary(W, "Sigmoid", out(P));
  auto Last = [&](int64_t A, int64_t B) {
    return out(W.node("Slice", {Y, W.ints({A}), W.ints({B}), W.ints({-1})}));
  };
  std::string Xy =
      binary(W, "Add", binary(W, "Mul", Last(0, 2), W.scalar(2)), W.weight({1, 3, 8, 8, 2}));
  std::string Wh =
      binary(W, "Mul", binary(W, "Pow", binary(W, "Mul", Last(2, 4), W.scalar(2)), W.scalar(2)),
             W.weight({1, 3, 8, 8, 2}));
  auto &Cat = W.node("Concat", {Xy, Wh, Last(4, 7)});
  setInt(Cat, "axis", -1);
  W.output(out(W.node("Reshape", {out(Cat), W.ints({1, -1, 7})})));
  Network N = import(W);
  CHECK(N.layer(N.outputs().at(0)).shape == Shape{1, 192, 7});
  auto Wl = lower(N);
  REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
  std::map<std::string, int> Strategies;
  for (const WorkloadLaunch &L : Wl->launches)
    ++Strategies[L.strategy];
  CHECK(Strategies["copy_strided"] == 5); // the upsample, the permute, three slices
  CHECK(Strategies["concat"] == 2);       // the neck on channels, the head on the last axis
}

TEST_CASE("onnx: Expand of an activation (an SE block's y.expand_as(x)) is read in place") {
  // x * y.expand_as(x) as torch.onnx writes it: Shape(x) folds to a constant, Expand(y, it).
  OnnxWriter W(13);
  W.input("x", {2, 8, 5, 5});
  std::string Y = out(W.node("GlobalAveragePool", {"x"}));
  Y = unary(W, "Sigmoid", conv(W, unary(W, "Relu", conv(W, Y, 8, 2, 1, 1, 0)), 2, 8, 1, 1, 0));
  auto &E = W.node("Expand", {Y, out(W.node("Shape", {"x"}))}, "expand");
  W.output(binary(W, "Mul", "x", out(E)));
  Network N = import(W);
  const Layer &Ex = N.layer(N.size() - 2);
  CHECK(Ex.kind == LayerKind::Expand);
  CHECK(Ex.shape == Shape{2, 8, 5, 5});
  CHECK(N.layers().back().shape == Shape{2, 8, 5, 5});
  // No copy: the multiply reads the gate in place, the SE channel scale the zoo's blocks get.
  CHECK(copies(N) == 0);
  auto Wl = lower(N);
  REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
  CHECK(Wl->launches.back().strategy == "eltwise_scale_channels");

  // Where a consumer cannot broadcast it (a divide by x, here as the dividend; the network's
  // output), the expansion is a copy. Expand broadcasts both ways, and a target of the input's
  // shape is a view.
  OnnxWriter Div(13);
  Div.input("x", {2, 8, 5, 5});
  Div.input("g", {2, 1, 5, 5});
  auto &G = Div.node("Expand", {"g", Div.ints({2, 8, 5, 5})});
  Div.output(binary(Div, "Div", out(G), "x"));
  CHECK(copies(import(Div)) == 1);
  OnnxWriter First(13); // an add with the expansion first: commutes, read in place
  First.input("x", {2, 8, 5, 5});
  First.input("g", {2, 1, 5, 5});
  auto &F = First.node("Expand", {"g", First.ints({2, 8, 5, 5})});
  First.output(binary(First, "Add", out(F), "x"));
  CHECK(copies(import(First)) == 0);
  OnnxWriter Two(13); // two expansions added: neither is full-size for the other, both copied
  Two.input("a", {2, 1, 5});
  Two.input("b", {1, 3, 1});
  auto &Ea = Two.node("Expand", {"a", Two.ints({2, 3, 5})});
  auto &Eb = Two.node("Expand", {"b", Two.ints({2, 3, 5})});
  Two.output(binary(Two, "Add", out(Ea), out(Eb)));
  CHECK(copies(import(Two)) == 2);
  OnnxWriter Both(13);
  Both.input("x", {3, 1, 4});
  Both.output(out(Both.node("Expand", {"x", Both.ints({2, 1, 5, 1})})));
  Network B = import(Both);
  CHECK(B.layers().back().shape == Shape{2, 3, 5, 4});
  CHECK(copies(B) == 1);
  OnnxWriter Same(13);
  Same.input("x", {3, 1, 4});
  Same.output(out(Same.node("Expand", {"x", Same.ints({1, 4})})));
  CHECK(copies(import(Same)) == 0);

  OnnxWriter Bad(13);
  Bad.input("x", {3, 2, 4});
  Bad.output(out(Bad.node("Expand", {"x", Bad.ints({5, 4})}, "e")));
  CHECK(importError(Bad) ==
        "model.onnx: error: node 'e' (Expand): shapes [3,2,4] and [5,4] do not broadcast");
  OnnxWriter Const(13);
  Const.input("x", {2, 4});
  Const.output(binary(Const, "Add", "x",
                      out(Const.node("Expand", {Const.weight({1, 4}), Const.ints({2, 4})}, "e"))));
  CHECK(importError(Const) ==
        "model.onnx: error: node 'e' (Expand): only an activation can be expanded, not a constant");
}

TEST_CASE("lower: operands of the output's elements are read as they are, never expanded") {
  // Two [N, C, 1, 1] layers multiply in the two-operand kernel (not as a channel scale), and a
  // [3, 4] operand of a [1, 3, 4] output needs no copy: only a broadcast over a run is expanded.
  NetworkBuilder B("same-elements");
  LayerId X = B.input({2, 8, 1, 1});
  LayerId G = B.sigmoid(X);
  B.mulLayers(X, G);
  auto N = B.finish();
  REQUIRE(N);
  auto W = lower(*N);
  REQUIRE_MESSAGE(bool(W), support::errorText(W));
  CHECK(W->launches.back().strategy == "eltwise_mul");

  NetworkBuilder R("rank");
  LayerId A = R.input({1, 3, 4}, "a");
  LayerId C = R.input({3, 4}, "c");
  R.addLayers(A, C);
  auto M = R.finish();
  REQUIRE(M);
  CHECK(copies(*M) == 0);
}

TEST_CASE("onnx: Sum adds any number of layers left to right and its residual add fuses") {
  // caffe2's ResNet exports: Sum(conv, shortcut) -> Relu; then a three-way and a one-way Sum.
  OnnxWriter W(13);
  W.input("x", {1, 4, 6, 6});
  auto &Conv = W.node("Conv", {"x", W.weight({4, 4, 3, 3})}, "conv");
  setInts(Conv, "pads", {1, 1, 1, 1});
  const std::string C = out(Conv);
  const std::string R = out(W.node("Relu", {out(W.node("Sum", {C, "x"}, "res"))}, "relu"));
  const std::string S3 = out(W.node("Sum", {R, "x", R}, "three"));
  W.output(out(W.node("Sum", {S3}, "one")));
  const Network N = import(W);
  CHECK(kinds(N) ==
        std::vector<std::string>{"input", "conv", "add", "activation", "add", "add", "identity"});
  std::vector<std::string> Names;
  for (const Layer &L : N.layers())
    Names.push_back(L.name);
  CHECK(Names[4] == "three/sum1");
  CHECK(Names[5] == "three");
  CHECK(N.layers().back().shape == Shape{1, 4, 6, 6});
  auto Wl = lower(N);
  REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
  // The first Sum and the ReLU run in the conv's epilogue, as Add's would; the three-way sum is
  // two add kernels.
  std::vector<std::string> Strategies;
  for (const WorkloadLaunch &L : Wl->launches)
    Strategies.push_back(L.strategy);
  CHECK(Strategies == std::vector<std::string>{"conv_direct", "eltwise_add", "eltwise_add"});
  OnnxWriter Bad(13);
  Bad.input("x", {1, 4, 6, 6});
  Bad.node("Sum", {"x", Bad.weight({1, 4, 1, 1})}, "s");
  CHECK(importError(Bad) == "model.onnx: error: node 's' (Sum): operand 'w0' is not an "
                            "activation: only sums of layers are supported");
}
