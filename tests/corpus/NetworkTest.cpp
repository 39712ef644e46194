// Network IR tests: shape propagation, parameter/MAC counts derived by hand, and shape errors.
#include "corpus/Network.h"
#include "corpus/Builder.h"

#include <doctest/doctest.h>

#include <limits>

using namespace corpus;

namespace {

LayerId must(support::Expected<LayerId> E) {
  REQUIRE_MESSAGE(bool(E), support::errorText(E));
  return *E;
}

std::string errorOf(support::Expected<LayerId> E) {
  REQUIRE(!E);
  return E.error().str();
}

} // namespace

TEST_CASE("network: convolution shape, parameters and MACs") {
  Network N("t");
  LayerId X = must(N.addInput("x", {2, 3, 224, 224}));
  ConvAttrs A;
  A.outChannels = 64;
  A.kernelH = A.kernelW = 7;
  A.strideH = A.strideW = 2;
  A.padTop = A.padLeft = A.padBottom = A.padRight = 3;
  LayerId C = must(N.add("c", LayerKind::Conv, {X}, A));
  // (224 + 6 - 7) / 2 + 1 = 112; weights 64*3*7*7; MACs per image 64*112*112*3*49, batch 2.
  CHECK(N.layer(C).shape == Shape{2, 64, 112, 112});
  CHECK(N.layer(C).params == 64 * 3 * 49);
  CHECK(N.layer(C).macs == 2LL * 64 * 112 * 112 * 3 * 49);

  // Depthwise, dilated, asymmetric padding, with bias: 64 groups, 3x3 dilation 2, pads 2/1.
  ConvAttrs D;
  D.outChannels = 64;
  D.kernelH = D.kernelW = 3;
  D.dilationH = D.dilationW = 2;
  D.padTop = D.padLeft = 2;
  D.padBottom = D.padRight = 1;
  D.groups = 64;
  D.bias = true;
  LayerId DW = must(N.add("dw", LayerKind::Conv, {C}, D));
  // 112 + 3 - 2*2 - 1 = 110 -> 111 outputs per side.
  CHECK(N.layer(DW).shape == Shape{2, 64, 111, 111});
  CHECK(N.layer(DW).params == 64 * 9 + 64);
  CHECK(N.layer(DW).macs == 2LL * 64 * 111 * 111 * 9);
  CHECK(N.params() == 64 * 3 * 49 + 64 * 9 + 64);
  CHECK(N.computeLayerCount() == 2);
  CHECK(N.outputs() == std::vector<LayerId>{DW});
}

TEST_CASE("network: convolution errors name the layer") {
  Network N("t");
  LayerId X = must(N.addInput("x", {1, 16, 8, 8}));
  ConvAttrs A;
  A.outChannels = 6;
  A.groups = 3;
  CHECK(errorOf(N.add("c", LayerKind::Conv, {X}, A)) ==
        "error: layer 'c' (conv): input has 16 channels, not divisible by groups=3");
  ConvAttrs Big;
  Big.outChannels = 4;
  Big.kernelH = Big.kernelW = 9;
  CHECK(errorOf(N.add("big", LayerKind::Conv, {X}, Big)) ==
        "error: layer 'big' (conv): 9x9 kernel does not fit input [1,16,8,8]");
  LayerId F = must(N.add("f", LayerKind::Flatten, {X}, FlattenAttrs{}));
  CHECK(errorOf(N.add("c2", LayerKind::Conv, {F}, ConvAttrs{4})) ==
        "error: layer 'c2' (conv): expects a 4-d NCHW input, got [1,1024]");
  CHECK(errorOf(N.addInput("bad", {1, 0, 4})) == "error: input 'bad': invalid shape [1,0,4]");
}

TEST_CASE("network: broadcasting add/mul (squeeze-excitation scaling)") {
  Network N("t");
  LayerId X = must(N.addInput("x", {2, 32, 14, 14}));
  LayerId G = must(N.add("g", LayerKind::GlobalAvgPool, {X}, GlobalPoolAttrs{}));
  CHECK(N.layer(G).shape == Shape{2, 32, 1, 1});
  LayerId M = must(N.add("m", LayerKind::Mul, {X, G}, EltwiseAttrs{}));
  CHECK(N.layer(M).shape == Shape{2, 32, 14, 14});
  CHECK(N.layer(M).macs == 0);
  // A constant operand of shape [32,1,1] counts as 32 parameters.
  LayerId B = must(N.add("b", LayerKind::Add, {M}, EltwiseAttrs{Shape{32, 1, 1}}));
  CHECK(N.layer(B).shape == Shape{2, 32, 14, 14});
  CHECK(N.layer(B).params == 32);
  LayerId Other = must(N.addInput("y", {2, 16, 1, 1}));
  CHECK(errorOf(N.add("bad", LayerKind::Add, {X, Other}, EltwiseAttrs{})) ==
        "error: layer 'bad' (add): shapes [2,32,14,14] and [2,16,1,1] do not broadcast");
  CHECK(errorOf(N.add("one", LayerKind::Add, {X}, EltwiseAttrs{})) ==
        "error: layer 'one' (add): expects two inputs, got 1");
}

TEST_CASE("network: div and pow of two layers, scalar operands, layer norm, gelu") {
  Network N("t");
  LayerId X = must(N.addInput("x", {8192, 768}));
  LayerId Y = must(N.addInput("y", {8192, 768}));
  LayerId D = must(N.add("d", LayerKind::Div, {X, Y}, EltwiseAttrs{}));
  LayerId P = must(N.add("p", LayerKind::Pow, {D, Y}, EltwiseAttrs{}));
  CHECK(N.layer(P).shape == Shape{8192, 768});
  // A Python float operand: one input, same shape, no parameters and no MACs.
  LayerId S = must(N.add("s", LayerKind::Pow, {P}, EltwiseAttrs{std::nullopt, 0.5f}));
  CHECK(N.layer(S).shape == Shape{8192, 768});
  CHECK(N.layer(S).params == 0);
  CHECK(N.layer(S).macs == 0);
  CHECK(errorOf(N.add("two", LayerKind::Add, {X, Y}, EltwiseAttrs{std::nullopt, 1.0f})) ==
        "error: layer 'two' (add): expects one input besides its constant operand, got 2");
  CHECK(errorOf(N.add("both", LayerKind::Mul, {X}, EltwiseAttrs{Shape{768}, 1.0f})) ==
        "error: layer 'both' (mul): has both a constant tensor and a scalar operand");
  // LayerNorm(768): a scale and a shift per feature.
  LayerId L = must(N.add("ln", LayerKind::LayerNorm, {S}, LayerNormAttrs{}));
  CHECK(N.layer(L).shape == Shape{8192, 768});
  CHECK(N.layer(L).params == 2 * 768);
  CHECK(std::get<LayerNormAttrs>(N.layer(L).attrs).epsilon == 1e-5f);
  LayerId G = must(N.add("g", LayerKind::Activation, {L}, ActivationAttrs{ActKind::Gelu}));
  CHECK(actKindName(ActKind::Gelu) == "gelu");
  CHECK(layerKindName(N.layer(G).kind) == "activation");
  CHECK(layerKindName(LayerKind::Pow) == "pow");
}

TEST_CASE("network: batched matmul shapes, MACs and errors") {
  Network N("t");
  LayerId A = must(N.addInput("a", {12, 128, 64}));
  LayerId B = must(N.addInput("b", {12, 64, 256}));
  LayerId C = must(N.add("c", LayerKind::MatMul, {A, B}, MatMulAttrs{}));
  CHECK(N.layer(C).shape == Shape{12, 128, 256});
  CHECK(N.layer(C).macs == 12LL * 128 * 64 * 256);
  CHECK(N.layer(C).params == 0);
  // Any equal leading dimensions (batch x heads), and plain 2-d matrices.
  LayerId A4 = must(N.addInput("a4", {2, 3, 5, 7}));
  LayerId B4 = must(N.addInput("b4", {2, 3, 7, 4}));
  CHECK(N.layer(must(N.add("c4", LayerKind::MatMul, {A4, B4}, MatMulAttrs{}))).shape ==
        Shape{2, 3, 5, 4});
  LayerId A2 = must(N.addInput("a2", {5, 7}));
  LayerId B2 = must(N.addInput("b2", {7, 3}));
  LayerId C2 = must(N.add("c2", LayerKind::MatMul, {A2, B2}, MatMulAttrs{}));
  CHECK(N.layer(C2).shape == Shape{5, 3});
  CHECK(N.layer(C2).macs == 5 * 7 * 3);
  CHECK(errorOf(N.add("k", LayerKind::MatMul, {A, A}, MatMulAttrs{})) ==
        "error: layer 'k' (matmul): cannot multiply [12,128,64] by [12,128,64]");
  CHECK(errorOf(N.add("r", LayerKind::MatMul, {A, B2}, MatMulAttrs{})) ==
        "error: layer 'r' (matmul): expects two inputs of the same rank >= 2, got [12,128,64] "
        "and [7,3]");
  CHECK(errorOf(N.add("one", LayerKind::MatMul, {A}, MatMulAttrs{})) ==
        "error: layer 'one' (matmul): expects two inputs, got 1");
}

TEST_CASE("network: pooling floor and ceil modes") {
  Network N("t");
  LayerId X = must(N.addInput("x", {1, 8, 112, 112}));
  PoolAttrs P;
  P.kernelH = P.kernelW = 3;
  P.strideH = P.strideW = 2;
  CHECK(N.layer(must(N.add("floor", LayerKind::MaxPool, {X}, P))).shape ==
        Shape{1, 8, 55, 55}); // (112 - 3) / 2 + 1
  P.ceilMode = true;
  CHECK(N.layer(must(N.add("ceil", LayerKind::AvgPool, {X}, P))).shape ==
        Shape{1, 8, 56, 56}); // ceil(109 / 2) + 1
  // Ceil mode never starts a window in the trailing padding: 5 wide, k2 s2 p1 -> 3 (not 4).
  LayerId Y = must(N.addInput("y", {1, 1, 5, 5}));
  PoolAttrs Q;
  Q.kernelH = Q.kernelW = 2;
  Q.strideH = Q.strideW = 2;
  Q.padTop = Q.padLeft = Q.padBottom = Q.padRight = 1;
  Q.ceilMode = true;
  CHECK(N.layer(must(N.add("edge", LayerKind::MaxPool, {Y}, Q))).shape == Shape{1, 1, 3, 3});
}

TEST_CASE("network: flatten, reshape, concat, softmax, pad, batch-norm, dense") {
  Network N("t");
  LayerId X = must(N.addInput("x", {2, 4, 6, 6}));
  LayerId R = must(N.add("r", LayerKind::Reshape, {X}, ReshapeAttrs{{0, -1, 9}}));
  CHECK(N.layer(R).shape == Shape{2, 16, 9});
  CHECK(errorOf(N.add("r2", LayerKind::Reshape, {X}, ReshapeAttrs{{5, -1}})) ==
        "error: layer 'r2' (reshape): cannot reshape [2,4,6,6] to [5,-1]");
  LayerId Y = must(N.addInput("y", {2, 3, 6, 6}));
  LayerId C = must(N.add("c", LayerKind::Concat, {X, Y}, ConcatAttrs{1}));
  CHECK(N.layer(C).shape == Shape{2, 7, 6, 6});
  CHECK(errorOf(N.add("c2", LayerKind::Concat, {X, Y}, ConcatAttrs{2})) ==
        "error: layer 'c2' (concat): cannot concatenate [2,4,6,6] and [2,3,6,6] on axis 2");
  LayerId P = must(N.add("p", LayerKind::Pad, {C}, PadAttrs{1, 2, 0, 1}));
  CHECK(N.layer(P).shape == Shape{2, 7, 7, 9});
  LayerId B = must(N.add("bn", LayerKind::BatchNorm, {P}, BatchNormAttrs{}));
  CHECK(N.layer(B).params == 2 * 7); // gamma and beta
  LayerId F = must(N.add("f", LayerKind::Flatten, {B}, FlattenAttrs{1}));
  CHECK(N.layer(F).shape == Shape{2, 7 * 7 * 9});
  LayerId D = must(N.add("d", LayerKind::Dense, {F}, DenseAttrs{10, true}));
  CHECK(N.layer(D).shape == Shape{2, 10});
  CHECK(N.layer(D).params == 441 * 10 + 10);
  CHECK(N.layer(D).macs == 2 * 441 * 10);
  LayerId S = must(N.add("s", LayerKind::Softmax, {D}, SoftmaxAttrs{-1}));
  CHECK(N.layer(S).shape == Shape{2, 10});
  CHECK(errorOf(N.add("s2", LayerKind::Softmax, {D}, SoftmaxAttrs{2})) ==
        "error: layer 's2' (softmax): axis 2 out of range for [2,10]");
}

TEST_CASE("network: transpose and slice shapes, ONNX clamping, and errors") {
  Network N("t");
  LayerId X = must(N.addInput("x", {2, 3, 5, 7}));
  CHECK(N.layer(must(N.add("t", LayerKind::Transpose, {X}, TransposeAttrs{{0, 2, 3, 1}}))).shape ==
        Shape{2, 5, 7, 3});
  CHECK(N.layer(must(N.add("r", LayerKind::Transpose, {X}, TransposeAttrs{}))).shape ==
        Shape{7, 5, 3, 2}); // no perm: reversed
  // Negative positions count from the end; INT64_MAX and INT64_MIN clamp to the axis.
  constexpr int64_t Max = std::numeric_limits<int64_t>::max();
  constexpr int64_t Min = std::numeric_limits<int64_t>::min();
  LayerId S = must(N.add("s", LayerKind::Slice, {X},
                         SliceAttrs{{-1, 2, 1}, {-6, Min, 1}, {Max, -1, 2}, {3, 2, 1}}));
  CHECK(N.layer(S).shape == Shape{2, 1, 2, 2}); // C [1, 2); H 0, 2 (of [0, 4)); W 1, 4 (of [1, 7))
  auto R = resolveSlice({2, 3, 5, 7}, SliceAttrs{{-1}, {-6}, {Max}, {3}});
  REQUIRE(R);
  CHECK((*R)[3].start == 1);
  CHECK((*R)[3].count == 2); // 1, 4 (7 is past the end)
  CHECK((*R)[0].count == 2); // unlisted axes are whole

  CHECK(errorOf(N.add("p", LayerKind::Transpose, {X}, TransposeAttrs{{0, 1, 1, 3}})) ==
        "error: layer 'p' (transpose): perm is not a permutation of the 4 dimensions");
  CHECK(errorOf(N.add("q", LayerKind::Transpose, {X}, TransposeAttrs{{1, 0}})) ==
        "error: layer 'q' (transpose): perm has 2 entries for [2,3,5,7]");
  CHECK(errorOf(N.add("e", LayerKind::Slice, {X}, SliceAttrs{{1}, {2}, {2}, {}})) ==
        "error: layer 'e' (slice): slice [2, 2) of axis 1 of [2,3,5,7] is empty");
  CHECK(errorOf(N.add("z", LayerKind::Slice, {X}, SliceAttrs{{1}, {2}, {0}, {-1}})) ==
        "error: layer 'z' (slice): step -1 on axis 1: only positive steps are supported");
  CHECK(errorOf(N.add("a", LayerKind::Slice, {X}, SliceAttrs{{1, -3}, {0, 0}, {1, 1}, {}})) ==
        "error: layer 'a' (slice): axis -3 is out of range or repeated for [2,3,5,7]");
  CHECK(errorOf(N.add("l", LayerKind::Slice, {X}, SliceAttrs{{1}, {0, 1}, {1}, {}})) ==
        "error: layer 'l' (slice): axes, starts, ends and steps differ in length");
}

TEST_CASE("network: TensorFlow SAME padding") {
  CHECK(samePadding(56, 3, 2) == std::pair<int64_t, int64_t>{0, 1});  // out 28: 27*2+3-56 = 1
  CHECK(samePadding(147, 3, 2) == std::pair<int64_t, int64_t>{1, 1}); // out 74: 73*2+3-147 = 2
  CHECK(samePadding(224, 7, 2) == std::pair<int64_t, int64_t>{2, 3}); // out 112: 222+7-224 = 5
  CHECK(samePadding(14, 5, 1) == std::pair<int64_t, int64_t>{2, 2});
  CHECK(samePadding(14, 1, 2) == std::pair<int64_t, int64_t>{0, 0});
}

TEST_CASE("builder: one call per NeuSight operator") {
  NetworkBuilder B("ops");
  LayerId X = B.input({4, 16}, "x");
  LayerId Y = B.input({4, 16}, "y");
  LayerId L = B.layerNorm(B.gelu(X));
  LayerId D = B.powLayers(B.divLayers(L, Y), Y);
  LayerId S = B.powScalar(B.divScalar(B.mulScalar(B.addScalar(D, 0.5f), 2.0f), 3.0f), 0.7f);
  LayerId A = B.input({3, 5, 6}, "a");
  LayerId M = B.batchMatMul(A, B.input({3, 6, 2}, "b"));
  auto N = B.finish();
  REQUIRE_MESSAGE(N, support::errorText(N));
  CHECK(N->layer(L).kind == LayerKind::LayerNorm);
  CHECK(N->layer(D).kind == LayerKind::Pow);
  CHECK(N->layer(S).kind == LayerKind::Pow);
  CHECK(std::get<EltwiseAttrs>(N->layer(S).attrs).scalar == 0.7f);
  CHECK(N->layer(N->layer(S).inputs[0]).kind == LayerKind::Div);
  CHECK(N->layer(M).shape == Shape{3, 5, 2});
  CHECK(N->layer(M).kind == LayerKind::MatMul);
}

TEST_CASE("builder: keeps the first error and names layers") {
  NetworkBuilder B("b");
  LayerId X = B.input({1, 3, 8, 8});
  LayerId C = B.conv(X, 4, 3, 1, 1);
  CHECK(B.shape(C) == Shape{1, 4, 8, 8});
  LayerId Bad = B.conv(C, 6, 3, 1, 1, 4); // 4 channels, groups 4, 6 outputs: not divisible
  CHECK(Bad == InvalidLayer);
  CHECK(B.relu(Bad) == InvalidLayer);
  CHECK(B.failed());
  auto N = B.finish();
  REQUIRE(!N);
  CHECK(N.error().str() == "error: layer 'conv_2' (conv): 6 output channels, not divisible by "
                           "groups=4");
}

TEST_CASE("network: sizes that overflow or pass 2^40 elements are errors, never wrapped counts") {
  Network N("t");
  LayerId X = must(N.addInput("x", {1, 3, 8, 8}));
  // A reshape target whose known dimensions overflow int64 (2^62 x 4) cannot hold 192 elements.
  CHECK(errorOf(N.add("r", LayerKind::Reshape, {X}, ReshapeAttrs{{int64_t(1) << 62, 4, -1}})) ==
        "error: layer 'r' (reshape): cannot reshape [1,3,8,8] to [4611686018427387904,4,-1]");
  // Broadcasting against a large operand: 2^20 x 192 elements are fine, 2^34 x 192 are not.
  LayerId Big = must(N.addInput("big", {int64_t(1) << 20, 1, 1, 1}));
  LayerId A = must(N.add("a", LayerKind::Add, {X, Big}, EltwiseAttrs{}));
  CHECK(N.layer(A).shape == Shape{int64_t(1) << 20, 3, 8, 8}); // 2^20 x 192: fine
  LayerId Huge = must(N.addInput("huge", {int64_t(1) << 34, 1, 1, 1}));
  CHECK(errorOf(N.add("a2", LayerKind::Add, {X, Huge}, EltwiseAttrs{})) ==
        "error: layer 'a2' (add): output [17179869184,3,8,8] has more than 2^40 elements");
  CHECK(errorOf(N.addInput("y", {int64_t(1) << 40, 2})) ==
        "error: input 'y': shape [1099511627776,2] has more than 2^40 elements");
  CHECK(elementCount({int64_t(1) << 32, int64_t(1) << 32}) == std::numeric_limits<int64_t>::max());
  // Parameter counts saturate, the bias included: wrapped, the convolution's was negative (and
  // imported), the dense layer's bias overflowed a saturated count (UBSan).
  ConvAttrs Wide;
  Wide.outChannels = 4;
  Wide.kernelH = Wide.kernelW = (int64_t(1) << 31) - 1; // 4 x 4 x (2^31 - 1)^2: past int64
  Wide.padTop = Wide.padBottom = Wide.padLeft = Wide.padRight = int64_t(1) << 30;
  Wide.bias = true;
  LayerId Pixel = must(N.addInput("p", {1, 4, 1, 1}));
  CHECK(errorOf(N.add("c", LayerKind::Conv, {Pixel}, Wide)) ==
        "error: layer 'c' (conv): more than 2^40 parameters or 2^60 multiply-adds");
  LayerId Row = must(N.addInput("row", {1, int64_t(1) << 40}));
  CHECK(errorOf(N.add("d", LayerKind::Dense, {Row}, DenseAttrs{int64_t(1) << 24, true})) ==
        "error: layer 'd' (dense): more than 2^40 parameters or 2^60 multiply-adds");
}
