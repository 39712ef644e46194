// ONNX DepthToSpace (PixelShuffle), SpaceToDepth and ConvTranspose with kernel = stride: each
// imports as existing layers (reshape, transpose, reshape; a 1x1 conv before it), and the CPU
// network reference of the imported layers computes what the ONNX operator defines, element by
// element, from an independent loop over the operator's formula.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include "NetworkRef.h"
#include "OnnxWriter.h"

#include <doctest/doctest.h>

#include <numeric>

using namespace corpus;
using namespace onnxtest;

namespace {

/// 0, 1, 2, ... as the network's input.
netref::Tensor iota(const Shape &S) {
  netref::Tensor T(size_t(elementCount(S)));
  std::iota(T.begin(), T.end(), 0.0);
  return T;
}

/// The network's output for an iota input (no weights).
netref::Tensor run(const Network &N) {
  netref::NetworkRef Ref(N, [](LayerId, const std::string &) -> const netref::Tensor & {
    FAIL("no weights expected");
    static const netref::Tensor None;
    return None;
  });
  return Ref.run({iota(N.layer(0).shape)}).back();
}

OnnxWriter depthToSpace(const Shape &In, int64_t Block, const std::string &Mode) {
  OnnxWriter W(13);
  W.input("x", In);
  auto &D = W.node("DepthToSpace", {"x"}, "d2s");
  setInt(D, "blocksize", Block);
  if (!Mode.empty())
    setString(D, "mode", Mode);
  W.output(D.output(0));
  return W;
}

} // namespace

TEST_CASE("onnx: DepthToSpace in DCR and CRD modes moves each element where ONNX says") {
  const int64_t N = 2, C = 3, H = 2, W = 3, B = 2;
  for (const std::string Mode : {"", "DCR", "CRD"}) {
    CAPTURE(Mode);
    Network Net = import(depthToSpace({N, C * B * B, H, W}, B, Mode));
    CHECK(kinds(Net) == std::vector<std::string>{"input", "reshape", "transpose", "reshape"});
    REQUIRE(Net.layers().back().shape == Shape{N, C, H * B, W * B});
    const netref::Tensor Y = run(Net);
    // ONNX: DCR reads input channel (b1 * B + b2) * C + c, CRD reads c * B * B + b1 * B + b2.
    for (int64_t n = 0; n < N; ++n)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t h = 0; h < H * B; ++h)
          for (int64_t w = 0; w < W * B; ++w) {
            const int64_t B1 = h % B, B2 = w % B;
            const int64_t Ci = Mode == "CRD" ? c * B * B + B1 * B + B2 : (B1 * B + B2) * C + c;
            const double Want = double(((n * C * B * B + Ci) * H + h / B) * W + w / B);
            REQUIRE(Y[size_t(((n * C + c) * H * B + h) * W * B + w)] == Want);
          }
    auto Wl = lower(Net);
    REQUIRE(bool(Wl));
    REQUIRE(Wl->launches.size() == 1); // the reshapes are views
    CHECK(Wl->launches[0].strategy == "copy_strided");
  }
  CHECK(importError(depthToSpace({1, 12, 2, 2}, 3, "")) ==
        "model.onnx: error: node 'd2s' (DepthToSpace): needs a 4-d NCHW input whose channels "
        "divide by blocksize^2, got [1,12,2,2] and blocksize 3");
  CHECK(importError(depthToSpace({1, 4, 2, 2}, 2, "XYZ")).find("mode must be DCR or CRD") !=
        std::string::npos);
}

TEST_CASE("onnx: SpaceToDepth is DepthToSpace's inverse in DCR mode") {
  OnnxWriter W(13);
  W.input("x", {2, 3, 4, 6});
  auto &S = W.node("SpaceToDepth", {"x"}, "s2d");
  setInt(S, "blocksize", 2);
  auto &D = W.node("DepthToSpace", {S.output(0)}, "d2s");
  setInt(D, "blocksize", 2);
  W.output(D.output(0));
  Network Net = import(W);
  REQUIRE(Net.layer(3).shape == Shape{2, 12, 2, 3});
  CHECK(run(Net) == iota({2, 3, 4, 6}));
}

TEST_CASE("onnx: ConvTranspose with kernel = stride is a 1x1 convolution and a pixel shuffle") {
  // U-Net's up-convolution: ConvTranspose2d(3, 4, kernel_size=2, stride=2) with a bias.
  const int64_t N = 1, Ci = 3, Co = 4, H = 2, Wd = 3, S = 2;
  OnnxWriter W(13);
  W.input("x", {N, Ci, H, Wd});
  auto &T = W.node("ConvTranspose", {"x", W.weight({Ci, Co, S, S}), W.weight({Co})}, "up");
  setInts(T, "strides", {S, S});
  W.output(T.output(0));
  Network Net = import(W);
  CHECK(kinds(Net) == std::vector<std::string>{"input", "conv", "reshape", "transpose", "reshape"});
  REQUIRE(Net.layers().back().shape == Shape{N, Co, H * S, Wd * S});
  const auto &Conv = std::get<ConvAttrs>(Net.layer(1).attrs);
  CHECK(Conv.outChannels == Co * S * S);
  CHECK(Conv.kernelH == 1);
  // The MACs are the transposed convolution's: every input pixel times every tap.
  CHECK(Net.layer(1).macs == N * H * Wd * Ci * Co * S * S);

  // Weights w[c, o, a, b] and bias[o] of the ConvTranspose, handed to the 1x1 convolution as
  // the importer lays them out (output channel (o, a, b), bias repeated per tap).
  netref::Tensor Wt(static_cast<size_t>(Ci * Co * S * S)), Bias(static_cast<size_t>(Co));
  for (size_t I = 0; I < Wt.size(); ++I)
    Wt[I] = 0.25 * double(I % 7) - 0.5;
  for (int64_t o = 0; o < Co; ++o)
    Bias[size_t(o)] = 0.1 * double(o);
  netref::Tensor ConvW(Wt.size()), ConvBias(static_cast<size_t>(Co * S * S));
  for (int64_t c = 0; c < Ci; ++c)
    for (int64_t o = 0; o < Co; ++o)
      for (int64_t Tap = 0; Tap < S * S; ++Tap) {
        ConvW[size_t((o * S * S + Tap) * Ci + c)] = Wt[size_t((c * Co + o) * S * S + Tap)];
        ConvBias[size_t(o * S * S + Tap)] = Bias[size_t(o)];
      }
  netref::NetworkRef Ref(Net, [&](LayerId, const std::string &Role) -> const netref::Tensor & {
    return Role == "weight" ? ConvW : ConvBias;
  });
  const netref::Tensor X = iota({N, Ci, H, Wd});
  const netref::Tensor Y = Ref.run({X}).back();
  // ONNX ConvTranspose: out[n, o, s i + a, s j + b] = bias[o] + sum_c x[n, c, i, j] w[c, o, a, b].
  for (int64_t o = 0; o < Co; ++o)
    for (int64_t h = 0; h < H * S; ++h)
      for (int64_t w = 0; w < Wd * S; ++w) {
        double Want = Bias[size_t(o)];
        for (int64_t c = 0; c < Ci; ++c)
          Want += X[size_t((c * H + h / S) * Wd + w / S)] *
                  Wt[size_t(((c * Co + o) * S + h % S) * S + w % S)];
        REQUIRE(Y[size_t((o * H * S + h) * Wd * S + w)] == doctest::Approx(Want));
      }
  auto Wl = lower(Net);
  REQUIRE(bool(Wl));
  REQUIRE(Wl->launches.size() == 2);
  CHECK(Wl->launches[1].strategy == "copy_strided");

  OnnxWriter P(13); // a DCGAN-style 4x4 / 2 with padding 1: refused, not mis-modelled
  P.input("x", {1, 3, 4, 4});
  auto &Pt = P.node("ConvTranspose", {"x", P.weight({3, 4, 4, 4})}, "up");
  setInts(Pt, "strides", {2, 2});
  setInts(Pt, "pads", {1, 1, 1, 1});
  P.output(Pt.output(0));
  CHECK(importError(P) ==
        "model.onnx: error: node 'up' (ConvTranspose): only a square kernel equal to the stride, "
        "without padding, dilation, groups or output_padding, is supported (a U-Net's 2x2 / 2 "
        "up-convolution)");
}
