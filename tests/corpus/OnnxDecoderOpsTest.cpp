// ONNX operators of decoders and image-to-image networks, each imported as layers the lowering
// has: DepthToSpace (PixelShuffle) and SpaceToDepth (reshape, transpose, reshape), ConvTranspose
// (phase convolutions and a concat before them), InstanceNormalization (a layer norm of each
// plane and a per-channel batch norm), the Reduce operators (CBAM's channel pooling), and LRN
// (the classic classifiers' local response norm, as PyTorch's steps). The CPU network reference
// of the imported layers computes what the ONNX operator defines, element by element, from an
// independent loop over its formula.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include "NetworkRef.h"
#include "OnnxWriter.h"

#include <doctest/doctest.h>

#include <cmath>
#include <map>
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

namespace {

/// A ConvTranspose of Ci -> Co channels on an H x W input: square kernel K, stride S, pads
/// (top, left, bottom, right), output padding Extra on both axes, with a bias.
struct Transposed {
  int64_t Ci, Co, H, W, K, S;
  std::vector<int64_t> Pads;
  int64_t Extra = 0;

  OnnxWriter write() const {
    OnnxWriter Wr(13);
    Wr.input("x", {1, Ci, H, W});
    auto &T = Wr.node("ConvTranspose", {"x", Wr.weight({Ci, Co, K, K}), Wr.weight({Co})}, "up");
    setInts(T, "strides", {S, S});
    setInts(T, "pads", Pads);
    if (Extra)
      setInts(T, "output_padding", {Extra, Extra});
    Wr.output(T.output(0));
    return Wr;
  }
  double weight(int64_t C, int64_t O, int64_t Th, int64_t Tw) const {
    return 0.25 * double((((C * Co + O) * K + Th) * K + Tw) % 7) - 0.5;
  }
  double bias(int64_t O) const { return 0.1 * double(O); }
};

/// ONNX's definition: out[o, y, x] = bias[o] + sum x[c, i, j] w[c, o, th, tw] over i S - top +
/// th = y and j S - left + tw = x.
netref::Tensor transposedConv(const Transposed &T, const netref::Tensor &X, int64_t Ho,
                              int64_t Wo) {
  netref::Tensor Y(static_cast<size_t>(T.Co * Ho * Wo));
  for (int64_t O = 0; O < T.Co; ++O)
    for (int64_t Yy = 0; Yy < Ho; ++Yy)
      for (int64_t Xx = 0; Xx < Wo; ++Xx) {
        double Sum = T.bias(O);
        for (int64_t C = 0; C < T.Ci; ++C)
          for (int64_t I = 0; I < T.H; ++I)
            for (int64_t J = 0; J < T.W; ++J) {
              const int64_t Th = Yy + T.Pads[0] - I * T.S, Tw = Xx + T.Pads[1] - J * T.S;
              if (Th >= 0 && Th < T.K && Tw >= 0 && Tw < T.K)
                Sum += X[size_t((C * T.H + I) * T.W + J)] * T.weight(C, O, Th, Tw);
            }
        Y[size_t((O * Ho + Yy) * Wo + Xx)] = Sum;
      }
  return Y;
}

/// The weights of the imported phase convolutions as docs/onnx.md lays them out: phase (a, b)'s
/// output channel o (channel (a S + b) Co + o of a single convolution for all phases) and tap
/// (u, v) hold w[c, o, r_a + S (taps_a - 1 - u), r_b + S (taps_b - 1 - v)], r_a = (a + top) mod S.
struct PhaseWeights {
  std::map<LayerId, netref::Tensor> weights, biases;
};

PhaseWeights phaseWeights(const Transposed &T, const Network &Net) {
  PhaseWeights P;
  for (LayerId Id = 0; Id < Net.size(); ++Id) {
    const Layer &L = Net.layer(Id);
    if (L.kind != LayerKind::Conv)
      continue;
    const auto &A = std::get<ConvAttrs>(L.attrs);
    const size_t At = L.name.find("/phase");
    netref::Tensor Wt(static_cast<size_t>(A.outChannels * T.Ci * A.kernelH * A.kernelW));
    netref::Tensor B(static_cast<size_t>(A.outChannels));
    for (int64_t Ch = 0; Ch < A.outChannels; ++Ch) {
      const int64_t O = Ch % T.Co, Block = Ch / T.Co; // the phase of a single convolution
      const int64_t Pa = At == std::string::npos ? Block / T.S : L.name[At + 6] - '0';
      const int64_t Pb = At == std::string::npos ? Block % T.S : L.name[At + 8] - '0';
      const int64_t Ra = (Pa + T.Pads[0]) % T.S, Rb = (Pb + T.Pads[1]) % T.S;
      B[size_t(Ch)] = T.bias(O);
      for (int64_t C = 0; C < T.Ci; ++C)
        for (int64_t U = 0; U < A.kernelH; ++U)
          for (int64_t V = 0; V < A.kernelW; ++V)
            Wt[size_t(((Ch * T.Ci + C) * A.kernelH + U) * A.kernelW + V)] =
                T.weight(C, O, Ra + T.S * (A.kernelH - 1 - U), Rb + T.S * (A.kernelW - 1 - V));
    }
    P.weights[Id] = std::move(Wt);
    P.biases[Id] = std::move(B);
  }
  return P;
}

size_t convLayers(const Network &N) {
  size_t C = 0;
  for (const Layer &L : N.layers())
    C += L.kind == LayerKind::Conv;
  return C;
}

} // namespace

TEST_CASE("onnx: ConvTranspose is its phase convolutions and a pixel shuffle") {
  struct Case {
    const char *label;
    Transposed op;
    size_t convs; ///< phase convolutions imported
  };
  const Case Cases[] = {
      {"U-Net 2x2 / 2: one 1x1 convolution for all phases", {3, 4, 2, 3, 2, 2, {0, 0, 0, 0}}, 1},
      {"DCGAN / pix2pix 4x4 / 2, pad 1: four 2x2 phases", {2, 3, 3, 4, 4, 2, {1, 1, 1, 1}}, 4},
      {"3x3 / 2, pad 1, output_padding 1: 2x2, 2x1, 1x2, 1x1",
       {2, 2, 3, 3, 3, 2, {1, 1, 1, 1}, 1},
       4},
      {"3x3 / 1, pad 1: one convolution, kernel flipped", {2, 3, 4, 3, 3, 1, {1, 1, 1, 1}}, 1},
      {"FCN-style 8x8 / 4, pad 2: sixteen 2x2 phases", {1, 2, 3, 2, 8, 4, {2, 2, 2, 2}}, 16},
  };
  for (const Case &C : Cases) {
    CAPTURE(C.label);
    const Transposed &T = C.op;
    Network Net = import(T.write());
    CHECK(convLayers(Net) == C.convs);
    const Shape &Out = Net.layers().back().shape;
    const int64_t Ho = T.S * (T.H - 1) + T.Extra + T.K - T.Pads[0] - T.Pads[2];
    REQUIRE(Out == Shape{1, T.Co, Ho, T.S * (T.W - 1) + T.Extra + T.K - T.Pads[1] - T.Pads[3]});
    // The taps add up to the transposed convolution's MACs: every input pixel times every tap.
    int64_t Macs = 0;
    for (const Layer &L : Net.layers())
      Macs += L.kind == LayerKind::Conv ? L.macs : 0;
    if (T.Pads == std::vector<int64_t>{0, 0, 0, 0})
      CHECK(Macs == T.H * T.W * T.Ci * T.Co * T.K * T.K);
    const PhaseWeights P = phaseWeights(T, Net);
    netref::NetworkRef Ref(Net, [&](LayerId Id, const std::string &Role) -> const netref::Tensor & {
      return Role == "weight" ? P.weights.at(Id) : P.biases.at(Id);
    });
    const netref::Tensor X = iota({1, T.Ci, T.H, T.W});
    const netref::Tensor Y = Ref.run({X}).back();
    const netref::Tensor Want = transposedConv(T, X, Out[2], Out[3]);
    REQUIRE(Y.size() == Want.size());
    for (size_t I = 0; I < Y.size(); ++I)
      REQUIRE(Y[I] == doctest::Approx(Want[I]));
    auto Wl = lower(Net);
    REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
  }

  // Forms outside the phases: a 1x1 kernel at stride 2 leaves odd outputs without a tap, and
  // groups.
  Transposed Sparse{2, 2, 3, 3, 1, 2, {0, 0, 0, 0}};
  CHECK(importError(Sparse.write()) ==
        "model.onnx: error: node 'up' (ConvTranspose): the output must be a whole number of "
        "stride blocks, each output phase reading at least one kernel tap within its padding "
        "(out 5x5, stride 2)");
  OnnxWriter G = Transposed{4, 2, 3, 3, 2, 2, {0, 0, 0, 0}}.write();
  setInt(*G.G->mutable_node(0), "group", 2);
  CHECK(importError(G).find("no dilation, groups or output_shape is supported") !=
        std::string::npos);
}

TEST_CASE("onnx: InstanceNormalization is a layer norm of each plane and a per-channel affine") {
  // CycleGAN's and fast style transfer's InstanceNorm2d(affine=True).
  const int64_t N = 2, C = 3, H = 4, W = 5;
  OnnxWriter Wr(13);
  Wr.input("x", {N, C, H, W});
  auto &I = Wr.node("InstanceNormalization", {"x", Wr.weight({C}), Wr.weight({C})}, "in");
  setFloat(I, "epsilon", 1e-3f);
  Wr.output(I.output(0));
  Network Net = import(Wr);
  CHECK(kinds(Net) ==
        std::vector<std::string>{"input", "reshape", "layernorm", "reshape", "batchnorm"});
  CHECK(Net.params() == 2 * C); // the model's scale and B; the layer norm has none
  REQUIRE(Net.layers().back().shape == Shape{N, C, H, W});
  const netref::Tensor Scale = {0.5, 2.0, -1.0}, Shift = {0.1, -0.2, 0.3};
  netref::NetworkRef Ref(Net, [&](LayerId, const std::string &Role) -> const netref::Tensor & {
    REQUIRE((Role == "bn_scale" || Role == "bn_shift"));
    return Role == "bn_scale" ? Scale : Shift;
  });
  netref::Tensor X(static_cast<size_t>(N * C * H * W));
  for (size_t K = 0; K < X.size(); ++K)
    X[K] = double((K * 7) % 11) - 3.0 + 0.01 * double(K);
  const netref::Tensor Y = Ref.run({X}).back();
  // ONNX: y = scale[c] (x - mean_nc) / sqrt(var_nc + epsilon) + B[c] over each (n, c) plane.
  const int64_t Plane = H * W;
  for (int64_t P = 0; P < N * C; ++P) {
    double Mean = 0, Var = 0;
    for (int64_t K = 0; K < Plane; ++K)
      Mean += X[size_t(P * Plane + K)] / double(Plane);
    for (int64_t K = 0; K < Plane; ++K)
      Var += std::pow(X[size_t(P * Plane + K)] - Mean, 2) / double(Plane);
    const int64_t Ch = P % C;
    for (int64_t K = 0; K < Plane; ++K) {
      const double Want =
          Scale[size_t(Ch)] * (X[size_t(P * Plane + K)] - Mean) / std::sqrt(Var + 1e-3) +
          Shift[size_t(Ch)];
      REQUIRE(Y[size_t(P * Plane + K)] == doctest::Approx(Want));
    }
  }
  auto Wl = lower(Net);
  REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
  REQUIRE(Wl->launches.size() == 2);
  CHECK(Wl->launches[0].kernel == "layernorm_r6_c20_eps0p001_noaffine_f32");
  CHECK(Wl->launches[1].strategy == "eltwise_batch_norm");

  OnnxWriter Bad(13);
  Bad.input("x", {N, C, H, W});
  Bad.output(Bad.node("InstanceNormalization", {"x", Bad.weight({C + 1}), Bad.weight({C})}, "in")
                 .output(0));
  CHECK(importError(Bad) ==
        "model.onnx: error: node 'in' (InstanceNormalization): scale must have shape [3]");
}

namespace {

/// CBAM's spatial attention as torch.onnx exports it (opset `Opset`): torch.mean and torch.max
/// over channels (ReduceMean, ReduceMax with keepdims), concatenated, a 7x7 convolution, a
/// sigmoid, and the gate [N, 1, H, W] multiplied into the features.
OnnxWriter cbam(int64_t Opset) {
  OnnxWriter W(Opset);
  W.input("x", {2, 8, 6, 5});
  auto Reduce = [&](const char *Op) {
    onnx::NodeProto *R = nullptr;
    if (Opset < 18) {
      R = &W.node(Op, {"x"});
      setInts(*R, "axes", {1});
    } else {
      R = &W.node(Op, {"x", W.ints({1})});
    }
    setInt(*R, "keepdims", 1);
    return out(*R);
  };
  auto &Cat = W.node("Concat", {Reduce("ReduceMean"), Reduce("ReduceMax")});
  setInt(Cat, "axis", 1);
  const std::string Pooled = out(Cat);
  W.output(binary(W, "Mul", "x", unary(W, "Sigmoid", conv(W, Pooled, 2, 1, 7, 1, 3))));
  return W;
}

} // namespace

TEST_CASE("onnx: CBAM's channel mean and max are reductions, its gate a broadcast multiply") {
  for (int64_t Opset : {13, 18}) { // axes: an attribute, an input
    CAPTURE(Opset);
    Network Net = import(cbam(Opset));
    CHECK(kinds(Net) == std::vector<std::string>{"input", "reduce", "reduce", "concat", "conv",
                                                 "activation", "mul"});
    CHECK(std::get<ReduceAttrs>(Net.layer(1).attrs).op == ReduceOp::Mean);
    CHECK(std::get<ReduceAttrs>(Net.layer(2).attrs).op == ReduceOp::Max);
    CHECK(Net.layer(2).shape == Shape{2, 1, 6, 5});
    CHECK(Net.layers().back().shape == Shape{2, 8, 6, 5});
  }
  // Lowered in every precision: two axis reductions, and the multiply reading the gate in place
  // (an int8 engine runs them in f16, the convolution in int8).
  Network Net = import(cbam(13));
  for (DType T : {DType::F32, DType::F16, DType::I8}) {
    CAPTURE(dtypeString(T));
    LowerOptions O;
    O.dtype = T;
    O.arch = "sm_80";
    O.emitPtx = false;
    auto W = lower(Net, O);
    REQUIRE_MESSAGE(bool(W), support::errorText(W));
    int Reductions = 0, Copies = 0, Broadcasts = 0;
    for (const WorkloadLaunch &L : W->launches) {
      Reductions += L.strategy == "reduce_axis";
      Copies += L.strategy == "copy_strided";
      Broadcasts += L.strategy == "eltwise_mul" && L.kernel.find("_bc") != std::string::npos;
    }
    CHECK(Reductions == 2);
    CHECK(Copies == 0);
    CHECK(Broadcasts == 1);
  }
}

TEST_CASE("onnx: ReduceSum, ReduceMin, ReduceSumSquare, ReduceL1 and ReduceL2 over any axes run") {
  struct Op {
    const char *name;
    ReduceOp op;
    int64_t axesInputFrom; // ReduceSum's axes are an input from opset 13, the others' from 18
  };
  for (const Op &R : {Op{"ReduceSum", ReduceOp::Sum, 13}, Op{"ReduceMin", ReduceOp::Min, 18},
                      Op{"ReduceSumSquare", ReduceOp::SumSquare, 18},
                      Op{"ReduceL1", ReduceOp::L1, 18}, Op{"ReduceL2", ReduceOp::L2, 18}}) {
    CAPTURE(R.name);
    OnnxWriter W(13);
    W.input("x", {2, 3, 4, 5});
    onnx::NodeProto *N = nullptr;
    if (R.axesInputFrom <= 13) {
      N = &W.node(R.name, {"x", W.ints({-3, -2})}, "r");
    } else {
      N = &W.node(R.name, {"x"}, "r");
      setInts(*N, "axes", {-3, -2});
    }
    setInt(*N, "keepdims", 0);
    W.output(out(*N));
    Network Net = import(W);
    REQUIRE(Net.size() == 2);
    const auto &A = std::get<ReduceAttrs>(Net.layer(1).attrs);
    CHECK(A.op == R.op);
    CHECK(A.first == 1);
    CHECK(A.last == 3);
    CHECK(Net.layer(1).shape == Shape{2, 5});
    // [2, 3, 4, 5] with x = index: output (n, w) reduces x = 60 n + 5 k + w, k = 0 .. 11.
    const netref::Tensor Y = run(Net);
    REQUIRE(Y.size() == 10);
    for (int64_t Out = 0; Out < 10; ++Out) {
      double Want = 0;
      for (int K = 0; K < 12; ++K) {
        const double X = double(60 * (Out / 5) + 5 * K + Out % 5);
        Want = R.op == ReduceOp::Min                           ? (K == 0 ? X : std::min(Want, X))
               : R.op == ReduceOp::Sum || R.op == ReduceOp::L1 ? Want + X
                                                               : Want + X * X;
      }
      CHECK(Y[size_t(Out)] == doctest::Approx(R.op == ReduceOp::L2 ? std::sqrt(Want) : Want));
    }
  }
  SUBCASE("noop_with_empty_axes and no axes: the input unchanged") {
    OnnxWriter W(18);
    W.input("x", {2, 3});
    auto &N = W.node("ReduceMax", {"x"}, "r");
    setInt(N, "noop_with_empty_axes", 1);
    W.output(out(N));
    CHECK(kinds(import(W)) == std::vector<std::string>{"input", "identity"});
  }
}

TEST_CASE("onnx: GroupNormalization normalises each group of channels, then the affine") {
  // torch.nn.GroupNorm(3, 6): an affine per group in opsets 18-20, per channel from opset 21.
  const int64_t N = 2, C = 6, G = 3, H = 2, W = 3;
  for (const bool PerChannel : {false, true}) {
    CAPTURE(PerChannel);
    const int64_t P = PerChannel ? C : G;
    OnnxWriter Wr(PerChannel ? 21 : 18);
    Wr.input("x", {N, C, H, W});
    auto &Gn = Wr.node("GroupNormalization", {"x", Wr.weight({P}), Wr.weight({P})}, "gn");
    setInt(Gn, "num_groups", G);
    Wr.output(Gn.output(0));
    Network Net = import(Wr);
    CHECK(kinds(Net) == (PerChannel ? std::vector<std::string>{"input", "reshape", "layernorm",
                                                               "reshape", "batchnorm"}
                                    : std::vector<std::string>{"input", "reshape", "layernorm",
                                                               "batchnorm", "reshape"}));
    CHECK(Net.params() == 2 * P); // the model's scale and bias
    CHECK(Net.layers().back().name == "gn");
    REQUIRE(Net.layers().back().shape == Shape{N, C, H, W});
    netref::Tensor Scale(static_cast<size_t>(P)), Shift(static_cast<size_t>(P));
    for (int64_t K = 0; K < P; ++K)
      Scale[size_t(K)] = 0.5 + 0.25 * double(K), Shift[size_t(K)] = 0.1 * double(K) - 0.2;
    netref::NetworkRef Ref(Net, [&](LayerId, const std::string &Role) -> const netref::Tensor & {
      REQUIRE((Role == "bn_scale" || Role == "bn_shift"));
      return Role == "bn_scale" ? Scale : Shift;
    });
    netref::Tensor X(static_cast<size_t>(N * C * H * W));
    for (size_t K = 0; K < X.size(); ++K)
      X[K] = double((K * 7) % 13) - 4.0 + 0.02 * double(K);
    const netref::Tensor Y = Ref.run({X}).back();
    // ONNX: each (n, g) group of C / G channels by its own mean and biased variance, epsilon
    // 1e-5, then scale and bias of the group (opset 18) or of the channel (opset 21).
    const int64_t Size = C / G * H * W;
    for (int64_t Gr = 0; Gr < N * G; ++Gr) {
      double Mean = 0, Var = 0;
      for (int64_t K = 0; K < Size; ++K)
        Mean += X[size_t(Gr * Size + K)] / double(Size);
      for (int64_t K = 0; K < Size; ++K)
        Var += std::pow(X[size_t(Gr * Size + K)] - Mean, 2) / double(Size);
      for (int64_t K = 0; K < Size; ++K) {
        const size_t At = size_t(Gr * Size + K);
        const size_t A = PerChannel ? size_t((int64_t(At) / (H * W)) % C) : size_t(Gr % G);
        const double Want = Scale[A] * (X[At] - Mean) / std::sqrt(Var + 1e-5) + Shift[A];
        REQUIRE(Y[At] == doctest::Approx(Want));
      }
    }
    auto Wl = lower(Net);
    REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
    CHECK(Wl->launches.size() == 2); // the layer norm of the groups, the affine
  }
  SUBCASE("num_groups must divide the channels; the affine has one of the two sizes") {
    OnnxWriter Bad(18);
    Bad.input("x", {N, C, H, W});
    auto &Four = Bad.node("GroupNormalization", {"x", Bad.weight({4}), Bad.weight({4})}, "gn");
    setInt(Four, "num_groups", 4);
    Bad.output(Four.output(0));
    CHECK(importError(Bad) == "model.onnx: error: node 'gn' (GroupNormalization): num_groups "
                              "must be positive and divide the 6 channels, got 4");
    OnnxWriter Odd(18);
    Odd.input("x", {N, C, H, W});
    auto &Five = Odd.node("GroupNormalization", {"x", Odd.weight({5}), Odd.weight({5})}, "gn");
    setInt(Five, "num_groups", 3);
    Odd.output(Five.output(0));
    CHECK(importError(Odd) == "model.onnx: error: node 'gn' (GroupNormalization): scale and bias "
                              "must have shape [3] or [6]");
  }
}

TEST_CASE("onnx: GroupNorm as torch exports it before opset 18 imports node by node") {
  // Reshape to [N, G, -1], InstanceNormalization with unit scale and zero bias per group, Reshape
  // back to the input's shape, Mul by the weight and Add the bias ([C, 1, 1] constants).
  const int64_t C = 8, G = 4;
  OnnxWriter W(13);
  W.input("x", {2, C, 5, 5});
  auto &Rows = W.node("Reshape", {"x", W.ints({0, G, -1})});
  auto &In = W.node("InstanceNormalization", {out(Rows), W.weight({G}), W.weight({G})});
  auto &Back = W.node("Reshape", {out(In), W.ints({2, C, 5, 5})});
  W.output(binary(W, "Add", binary(W, "Mul", out(Back), W.weight({C, 1, 1})), W.weight({C, 1, 1})));
  Network Net = import(W);
  CHECK(kinds(Net) == std::vector<std::string>{"input", "reshape", "reshape", "layernorm",
                                               "reshape", "batchnorm", "reshape", "mul", "add"});
  CHECK(Net.layers().back().shape == Shape{2, C, 5, 5});
  auto Wl = lower(Net);
  REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
  CHECK(Wl->launches[0].strategy == "layernorm"); // over each group's 2 x 25 elements
}

TEST_CASE("onnx: LRN imports as PyTorch's local_response_norm over ONNX's channel window") {
  // AlexNet's and GoogLeNet's normalisation, with an even size (the window's halves differ) and
  // a large alpha so that every term shows: y = x / (bias + alpha / size * sum x^2)^beta.
  const int64_t N = 2, C = 6, H = 2, W = 3, Size = 4;
  const double Alpha = double(0.02f), Beta = 0.75, Bias = 2.0; // the attributes are floats
  OnnxWriter Wr(13);
  Wr.input("x", {N, C, H, W});
  auto &L = Wr.node("LRN", {"x"}, "norm1");
  setInt(L, "size", Size);
  setFloat(L, "alpha", float(Alpha));
  setFloat(L, "beta", float(Beta));
  setFloat(L, "bias", float(Bias));
  Wr.output(out(L));
  const Network Net = import(Wr);
  CHECK(kinds(Net) == std::vector<std::string>{"input", "mul", "reshape", "avgpool", "reshape",
                                               "mul", "add", "pow", "div"});
  CHECK(Net.layers().back().name == "norm1");
  REQUIRE(Net.layers().back().shape == Shape{N, C, H, W});
  const netref::Tensor Y = run(Net);
  const netref::Tensor X = iota({N, C, H, W});
  auto At = [&](int64_t n, int64_t c, int64_t p) { return size_t((n * C + c) * H * W + p); };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t p = 0; p < H * W; ++p) {
        double Sum = 0; // ONNX: channels c - floor((size - 1) / 2) .. c + ceil((size - 1) / 2)
        for (int64_t k = std::max<int64_t>(0, c - (Size - 1) / 2);
             k <= std::min(C - 1, c + Size / 2); ++k)
          Sum += X[At(n, k, p)] * X[At(n, k, p)];
        const double Want = X[At(n, c, p)] / std::pow(Bias + Alpha / Size * Sum, Beta);
        REQUIRE(Y[At(n, c, p)] == doctest::Approx(Want).epsilon(1e-9));
      }
  for (DType T : {DType::F32, DType::F16}) {
    LowerOptions O;
    O.dtype = T;
    auto Wl = lower(Net, O);
    REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
    CHECK(Wl->launches.size() == 6); // square, window, * alpha, + bias, ^ beta, divide
  }
  OnnxWriter Bad(13);
  Bad.input("x", {1, 3, 4, 4});
  setInt(Bad.node("LRN", {"x"}, "lrn"), "size", 0);
  CHECK(importError(Bad) == "model.onnx: error: node 'lrn' (LRN): size must be in 1..7, got 0");
}
