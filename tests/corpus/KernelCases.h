// Small layer specs covering every kernel strategy (odd sizes, stride 2, padding, groups,
// batch > 1, every epilogue piece, every elementwise op), shared by the PTX-acceptance and the
// functional tests; wideCases() are the same forced to 64-bit index arithmetic.
#pragma once

#include "corpus/KernelGen.h"

#include <cstdio>
#include <string>
#include <variant>
#include <vector>

namespace kernelcases {

using namespace corpus;
using AnySpec =
    std::variant<ConvSpec, GemmSpec, PoolSpec, ReduceSpec, ElementwiseSpec, ConcatSpec, SoftmaxSpec,
                 BatchMatMulSpec, LayerNormSpec, CopySpec, UpsampleSpec, PadSpec, AxisReduceSpec>;

struct Case {
  std::string label;
  AnySpec spec;
  bool positiveInput = false; ///< the input must be positive (pow with non-integer exponents)
};

inline ConvSpec conv(uint32_t N, uint32_t Cin, uint32_t Cout, uint32_t H, uint32_t W, uint32_t K,
                     uint32_t Stride, uint32_t Pad, uint32_t Groups = 1) {
  ConvSpec S;
  S.batch = N;
  S.inChannels = Cin;
  S.outChannels = Cout;
  S.inHeight = H;
  S.inWidth = W;
  S.kernelH = S.kernelW = K;
  S.strideH = S.strideW = Stride;
  S.padTop = S.padLeft = S.padBottom = S.padRight = Pad;
  S.groups = Groups;
  return S;
}

inline Epilogue epi(ActivationKind A, bool Bias = false, bool Bn = false,
                    ResidualKind R = ResidualKind::None, bool Se = false) {
  Epilogue E;
  E.activation = A;
  E.bias = Bias;
  E.batchNorm = Bn;
  E.residual = R;
  E.seScale = Se;
  return E;
}

/// An epilogue whose activation takes an alpha (a leaky relu's slope, an ELU's scale).
inline Epilogue epiAlpha(ActivationKind A, float Alpha, bool Bias = false, bool Bn = false) {
  Epilogue E = epi(A, Bias, Bn);
  E.alpha = Alpha;
  return E;
}

inline PoolSpec pool(PoolKind K, uint32_t N, uint32_t C, uint32_t H, uint32_t W, uint32_t Win,
                     uint32_t Stride, uint32_t Pad, bool IncludePad = false) {
  PoolSpec S;
  S.kind = K;
  S.batch = N;
  S.channels = C;
  S.inHeight = H;
  S.inWidth = W;
  S.kernelH = S.kernelW = Win;
  S.strideH = S.strideW = Stride;
  S.padTop = S.padLeft = S.padBottom = S.padRight = Pad;
  S.countIncludePad = IncludePad;
  return S;
}

/// 4 -> 6 channels, 5 x 3 window, stride 2 x 1, padding 2/1/1/0, dilation 1 x 2.
inline ConvSpec asymmetricConv() {
  ConvSpec S = conv(1, 4, 6, 8, 9, 3, 1, 0);
  S.kernelH = 5;
  S.strideH = 2;
  S.padTop = 2;
  S.padLeft = 1;
  S.padBottom = 1;
  S.dilationW = 2;
  return S;
}

/// Batched matmul, layer norm, GELU, div, pow and the scalar ops (NeuSight's transformer ops).
inline void addTransformerCases(std::vector<Case> &Cs, DType T) {
  using AK = ActivationKind;
  using Op = ElementwiseOp;
  Cs.push_back({"bmm 16x16 tiles", BatchMatMulSpec{3, 20, 37, 5, T}});
  Cs.push_back({"bmm 64x64 register tiles", BatchMatMulSpec{2, 66, 40, 67, T}});
  Cs.push_back({"bmm one batch, long k", BatchMatMulSpec{1, 9, 70, 17, T}});
  Cs.push_back({"layernorm 300", LayerNormSpec{4, 300, 1e-5f, T}});
  Cs.push_back({"layernorm 10 eps 1e-3", LayerNormSpec{3, 10, 1e-3f, T}});
  Cs.push_back({"layernorm 1000", LayerNormSpec{2, 1000, 1e-5f, T}});
  Cs.push_back({"layernorm 49 without affine (an instance norm's rows)",
                LayerNormSpec{6, 49, 1e-5f, T, false, false}});
  Cs.push_back({"activation gelu", ElementwiseSpec{Op::Activation, 1, 1, 300, AK::Gelu, T}});
  Cs.push_back({"activation sqrt", ElementwiseSpec{Op::Activation, 1, 1, 300, AK::Sqrt, T}, true});
  // The slope is the spec's scalar (ONNX LeakyRelu's alpha; darknet's 0.1).
  Cs.push_back(
      {"activation leaky relu", ElementwiseSpec{Op::Activation, 2, 3, 50, AK::LeakyRelu, T, 0.1f}});
  // ELU's and CELU's alpha is the scalar too; 0.5 makes CELU's e^(x / alpha) differ from ELU's.
  Cs.push_back({"activation elu", ElementwiseSpec{Op::Activation, 1, 2, 150, AK::Elu, T, 1.0f}});
  Cs.push_back({"activation celu", ElementwiseSpec{Op::Activation, 1, 2, 150, AK::Celu, T, 0.5f}});
  Cs.push_back({"activation selu", ElementwiseSpec{Op::Activation, 1, 1, 300, AK::Selu, T}});
  Cs.push_back({"dense gelu", GemmSpec{20, 37, 9, T, epi(AK::Gelu, true)}});
  Cs.push_back({"dense softplus", GemmSpec{20, 37, 9, T, epi(AK::Softplus, true)}});
  Cs.push_back({"div", ElementwiseSpec{Op::Div, 2, 3, 11, AK::None, T}});
  Cs.push_back({"pow", ElementwiseSpec{Op::Pow, 1, 4, 25, AK::None, T}, true});
  Cs.push_back({"add scalar", ElementwiseSpec{Op::AddScalar, 1, 3, 40, AK::None, T, 0.37f}});
  Cs.push_back({"mul scalar relu", ElementwiseSpec{Op::MulScalar, 2, 1, 50, AK::Relu, T, -1.5f}});
  Cs.push_back({"div scalar", ElementwiseSpec{Op::DivScalar, 1, 1, 77, AK::None, T, 0.3f}});
  Cs.push_back(
      {"pow scalar 0.37", ElementwiseSpec{Op::PowScalar, 1, 1, 64, AK::None, T, 0.37f}, true});
  // Integer exponents take negative bases: the general path (4, 5: signs) and PyTorch's
  // special cases; sqrt and rsqrt need a positive base, and so do 1 / x, 1 / x^2 to stay finite
  // in f16.
  auto PowScalar = [&](float E, bool Positive) {
    char Label[32];
    std::snprintf(Label, sizeof(Label), "pow scalar %g", double(E));
    Cs.push_back({Label, ElementwiseSpec{Op::PowScalar, 1, 1, 64, AK::None, T, E}, Positive});
  };
  for (float E : {4.0f, 5.0f, 2.0f, 3.0f, 0.0f, 1.0f})
    PowScalar(E, false);
  for (float E : {0.5f, -0.5f, -1.0f, -2.0f})
    PowScalar(E, true);
}

/// Every strategy on small shapes, all with storage type `T`.
inline std::vector<Case> allCases(DType T) {
  using AK = ActivationKind;
  std::vector<Case> Cs;
  auto addConv = [&](const char *L, ConvSpec S, Epilogue E, ConvStrategy St) {
    S.dtype = T;
    S.epilogue = E;
    S.strategy = St;
    Cs.push_back({L, S});
  };
  addConv("direct 3x3 pad", conv(1, 3, 8, 9, 7, 3, 1, 1), epi(AK::Relu, true), ConvStrategy::Auto);
  addConv("direct grouped stride 2", conv(2, 6, 8, 9, 7, 3, 2, 1, 2),
          epi(AK::Tanh, true, true, ResidualKind::BeforeActivation), ConvStrategy::Auto);
  const ConvSpec Asym = asymmetricConv();
  addConv("direct asymmetric dilated", Asym, epi(AK::HardSwish), ConvStrategy::Auto);
  addConv("direct strided 1x1", conv(2, 3, 4, 7, 7, 1, 2, 0),
          epi(AK::Sigmoid, false, false, ResidualKind::AfterActivation), ConvStrategy::Auto);
  addConv("direct forced 1x1", conv(1, 5, 3, 3, 5, 1, 1, 0), epi(AK::None, true),
          ConvStrategy::Direct);
  addConv("direct 3x3 leaky relu", conv(1, 3, 8, 9, 7, 3, 1, 1),
          epiAlpha(AK::LeakyRelu, 0.1f, true, true), ConvStrategy::Auto);
  addConv("implicit gemm 3x3 stride 2", conv(2, 5, 20, 9, 7, 3, 2, 1), epi(AK::Relu, true, true),
          ConvStrategy::Auto);
  addConv("implicit gemm 64x64 register tiles", conv(1, 8, 64, 10, 9, 3, 1, 1),
          epi(AK::None, false, false, ResidualKind::AfterActivation), ConvStrategy::Auto);
  addConv("implicit gemm forced asymmetric dilated", Asym, epi(AK::Tanh, true),
          ConvStrategy::ImplicitGemm);
  addConv("implicit gemm unpadded 5x5", conv(1, 3, 17, 11, 8, 5, 1, 0), epi(AK::Relu6),
          ConvStrategy::Auto);
  addConv("depthwise 3x3", conv(2, 6, 6, 9, 7, 3, 1, 1, 6), epi(AK::Relu6, false, true),
          ConvStrategy::Auto);
  addConv("depthwise 3x3 elu", conv(1, 6, 6, 9, 7, 3, 1, 1, 6), epiAlpha(AK::Elu, 0.5f),
          ConvStrategy::Auto);
  addConv("depthwise multiplier 2 stride 2", conv(1, 4, 8, 10, 9, 3, 2, 1, 4),
          epi(AK::Swish, false, false, ResidualKind::None, true), ConvStrategy::Auto);
  addConv("gemm 1x1 odd", conv(2, 20, 33, 5, 7, 1, 1, 0), epi(AK::HardSwish, true),
          ConvStrategy::Auto);
  addConv("gemm 1x1 residual", conv(1, 17, 16, 4, 4, 1, 1, 0),
          epi(AK::Relu, false, true, ResidualKind::BeforeActivation), ConvStrategy::Auto);
  addConv("gemm 1x1 se", conv(2, 8, 5, 3, 3, 1, 1, 0),
          epi(AK::HardSigmoid, false, false, ResidualKind::None, true), ConvStrategy::Gemm);
  addConv("gemm 1x1 64x64 register tiles", conv(1, 24, 70, 9, 9, 1, 1, 0),
          epi(AK::Swish, true, true), ConvStrategy::Auto);
  GemmSpec D1{3, 50, 17, T, epi(AK::Sigmoid, true)};
  Cs.push_back({"gemv bias sigmoid", D1});
  GemmSpec D2{20, 37, 5, T, epi(AK::None, false, true, ResidualKind::AfterActivation)};
  Cs.push_back({"dense bn residual", D2});
  GemmSpec D4{20, 37, 5, T, epiAlpha(AK::Celu, 2.0f, true)};
  Cs.push_back({"dense celu", D4});
  GemmSpec D3{66, 40, 67, T, epi(AK::Relu, true, false, ResidualKind::BeforeActivation)};
  Cs.push_back({"dense 64x64 register tiles", D3});
  GemmSpec V1{1, 20, 13, T, epi(AK::HardSwish, false, true)};
  Cs.push_back({"gemv single row short k", V1});
  GemmSpec V2{2, 300, 9, T, epi(AK::Relu, true, false, ResidualKind::AfterActivation)};
  Cs.push_back({"gemv two rows", V2});
  PoolSpec P1 = pool(PoolKind::Max, 2, 3, 9, 8, 3, 2, 1);
  PoolSpec P2 = pool(PoolKind::Avg, 1, 4, 7, 7, 3, 2, 1);
  PoolSpec P3 = pool(PoolKind::Avg, 1, 2, 7, 7, 3, 2, 1, true);
  PoolSpec P4 = pool(PoolKind::Max, 1, 2, 8, 6, 2, 2, 0);
  PoolSpec P5 = pool(PoolKind::Max, 1, 3, 8, 7, 3, 2, 0); // ceil: 4x3 (floor: 3x3)
  P5.ceilMode = true;
  PoolSpec P6 = pool(PoolKind::Avg, 2, 2, 6, 6, 3, 2, 1); // ceil: 4x4 with a clipped last row
  P6.ceilMode = true;
  // 8x8, 3x3 stride 2 pad 1: ceil 5x5 (floor 4x4). The last row/column of windows starts on input
  // row 7 and covers rows 7, 8 (padding) and 9 (past the padded input): divisor 3 x 2 or 2 x 2.
  PoolSpec P7 = pool(PoolKind::Avg, 1, 2, 8, 8, 3, 2, 1, true);
  P7.ceilMode = true;
  for (PoolSpec *P : {&P1, &P2, &P3, &P4, &P5, &P6, &P7})
    P->dtype = T;
  Cs.push_back({"maxpool 3x3 s2 p1", P1});
  Cs.push_back({"avgpool exclude pad", P2});
  Cs.push_back({"avgpool include pad", P3});
  Cs.push_back({"maxpool 2x2", P4});
  Cs.push_back({"maxpool ceil mode", P5});
  Cs.push_back({"avgpool ceil mode", P6});
  Cs.push_back({"avgpool ceil mode include pad", P7});
  Cs.push_back({"gap small bias relu", ReduceSpec{2, 5, 49, T, epi(AK::Relu, true)}});
  Cs.push_back({"gap 300 bn sigmoid", ReduceSpec{1, 3, 300, T, epi(AK::Sigmoid, false, true)}});
  Cs.push_back({"add relu", ElementwiseSpec{ElementwiseOp::Add, 2, 3, 11, AK::Relu, T}});
  Cs.push_back({"mul", ElementwiseSpec{ElementwiseOp::Mul, 1, 4, 25, AK::None, T}});
  Cs.push_back({"scale channels hardsigmoid",
                ElementwiseSpec{ElementwiseOp::ScaleChannels, 2, 3, 10, AK::HardSigmoid, T}});
  // A second operand broadcast over the middle dimension, read in place: CBAM's gate [N, 1, HW]
  // times [N, C, HW], a per-image [N, 1] added (48 elements: the library's vector kernel reads
  // the operand per element), a divide and a pow of a positive input.
  auto Broadcast = [&](ElementwiseOp Op, uint32_t N, uint32_t C, uint32_t S, AK A) {
    ElementwiseSpec E{Op, N, C, S, A, T};
    E.broadcast = true;
    return E;
  };
  Cs.push_back({"broadcast mul", Broadcast(ElementwiseOp::Mul, 2, 3, 10, AK::Sigmoid)});
  Cs.push_back({"broadcast add", Broadcast(ElementwiseOp::Add, 2, 24, 1, AK::Relu)});
  Cs.push_back({"broadcast div", Broadcast(ElementwiseOp::Div, 1, 5, 7, AK::None)});
  Cs.push_back({"broadcast pow", Broadcast(ElementwiseOp::Pow, 2, 3, 5, AK::None), true});
  Cs.push_back(
      {"batch norm relu", ElementwiseSpec{ElementwiseOp::BatchNorm, 2, 3, 10, AK::Relu, T}});
  Cs.push_back(
      {"batch norm single image", ElementwiseSpec{ElementwiseOp::BatchNorm, 1, 5, 7, AK::None, T}});
  // One input of a concatenation alone (the other slices stay 0): the middle input of 3 + 5 + 2
  // channels, batch 2 (element copies), and 4 channels at 8 of 12, 6 pixels (16-byte copies).
  // Several inputs in one launch: KernelGenRunTest's concat test.
  Cs.push_back({"concat middle slice", ConcatSpec{2, {5}, 10, 3, 35, T}});
  Cs.push_back({"concat single image first slice", ConcatSpec{1, {3}, 10, 0, 35, T}});
  Cs.push_back({"concat 16-byte slice", ConcatSpec{2, {4}, 12, 8, 6, T}});
  for (AK A : {AK::Tanh, AK::Swish, AK::Sigmoid, AK::Relu6, AK::HardSwish, AK::Softplus, AK::Exp,
               AK::GeluTanh})
    Cs.push_back({std::string("activation ") + activationName(A),
                  ElementwiseSpec{ElementwiseOp::Activation, 1, 1, 300, A, T}});
  Cs.push_back({"softmax 10", SoftmaxSpec{3, 10, T}});
  Cs.push_back({"softmax 1000", SoftmaxSpec{2, 1000, T}});
  // Over an inner axis (channels of NCHW): PyTorch's spatial softmax, one thread per position.
  Cs.push_back({"spatial softmax", SoftmaxSpec{2, 5, T, false, 7}});
  Cs.push_back({"spatial softmax two blocks", SoftmaxSpec{1, 3, T, false, 300}});
  // Axis reductions: every op over the last axis (a block per row, two warps' partials), the
  // mean and max over an inner axis (CBAM's channel pooling: one thread per position, two
  // blocks), the L2 norm over an inner axis of 33, and the min of 300 columns (a row past one
  // block's 256 threads).
  using RO = AxisReduceOp;
  for (RO Op : {RO::Sum, RO::Mean, RO::Max, RO::Min, RO::SumSquare, RO::L1, RO::L2})
    Cs.push_back({"reduce rows " + std::to_string(int(Op)), AxisReduceSpec{Op, 3, 45, T}});
  Cs.push_back({"reduce inner mean", AxisReduceSpec{RO::Mean, 2, 5, T, false, 300}});
  Cs.push_back({"reduce inner max", AxisReduceSpec{RO::Max, 2, 5, T, false, 7}});
  Cs.push_back({"reduce inner l2", AxisReduceSpec{RO::L2, 3, 4, T, false, 33}});
  Cs.push_back({"reduce long row min", AxisReduceSpec{RO::Min, 2, 300, T}});
  addTransformerCases(Cs, T);
  // Strided copies (transpose, slice, upsample): a [2, 4, 30] -> [4, 2, 30] transpose, rows 1 and
  // 3 of eight 6x5 planes, a contiguous run at an offset, 65,537 rows (grid z), and six 3x4
  // planes upsampled 2x (repeats have stride 0).
  Cs.push_back({"copy transpose", CopySpec{{4, 2, 30}, {30, 120, 1}, 0, 240, T}});
  Cs.push_back({"copy strided slice", CopySpec{{8, 2, 5}, {30, 10, 1}, 5, 240, T}});
  Cs.push_back({"copy contiguous run", CopySpec{{100}, {1}, 20, 150, T}});
  Cs.push_back({"copy rows past grid y", CopySpec{{65537, 2}, {1, 65537}, 0, 131074, T}});
  Cs.push_back({"copy nearest upsample 2x", CopySpec{{6, 2, 4, 2}, {4, 0, 1, 0}, 0, 24, T}});
  // Bilinear upsampling: 2x of 5x7 planes (batch 2, 3 channels), and 3x by 2x of 4x1 planes (a
  // one-element row: both horizontal taps are the edge).
  Cs.push_back({"upsample bilinear 2x", UpsampleSpec{2, 3, 5, 7, 2, 2, T}});
  Cs.push_back({"upsample bilinear 3x2, one column", UpsampleSpec{1, 2, 4, 1, 3, 2, T}});
  // align_corners=True (one column: its axis ratio is 0) and ONNX's asymmetric mode.
  UpsampleSpec Corners{2, 3, 5, 1, 2, 3, T}, Asymmetric{1, 2, 4, 6, 3, 2, T};
  Corners.coords = UpsampleCoords::AlignCorners;
  Asymmetric.coords = UpsampleCoords::Asymmetric;
  Cs.push_back({"upsample bilinear align corners", Corners});
  Cs.push_back({"upsample bilinear asymmetric", Asymmetric});
  // Padding: reflect 3 of a 5x4 plane (as far as it goes: 3 < 4), edge 2/0/1/3, and a constant
  // -1.5 around 3x3 planes, batch 2.
  Cs.push_back({"pad reflect", PadSpec{PadKind::Reflect, 1, 3, 5, 4, 3, 2, 1, 3, 0, T}});
  Cs.push_back({"pad edge", PadSpec{PadKind::Edge, 1, 2, 4, 3, 2, 0, 1, 3, 0, T}});
  Cs.push_back({"pad constant", PadSpec{PadKind::Constant, 2, 2, 3, 3, 1, 2, 2, 1, -1.5f, T}});
  return Cs;
}

/// allCases(T) with 64-bit index arithmetic forced in every kernel.
inline std::vector<Case> wideCases(DType T) {
  std::vector<Case> Cs = allCases(T);
  for (Case &C : Cs) {
    std::visit([](auto &S) { S.index64 = true; }, C.spec);
    C.label += " (64-bit)";
  }
  return Cs;
}

/// Adds `C` to `E` whatever its spec type.
inline support::Expected<KernelLaunch> addCase(KernelEmitter &E, const Case &C) {
  return std::visit([&](const auto &S) { return E.add(S); }, C.spec);
}

} // namespace kernelcases
