// End-to-end lowering check: a small residual network is lowered, its manifest is run by the
// exact PTX interpreter (analyzer/), and the network output is compared with a double-precision
// CPU evaluation of the same network on the same seeded buffers.
#include "analyzer/Manifest.h"
#include "corpus/Builder.h"
#include "corpus/Lower.h"
#include "corpus/Zoo.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

using namespace corpus;

namespace {

using Tensor = std::vector<double>;

/// conv1(3->4, 3x3 p1)+bn+relu, conv2(4->4)+bn, + residual, relu, global pool, dense 4->5, softmax.
Network tinyResidual() {
  NetworkBuilder B("tiny");
  LayerId X = B.input({2, 3, 6, 5}, "x");
  ConvAttrs C{4, 3, 3, 1, 1, 1, 1, 1, 1};
  LayerId A = B.relu(B.batchNorm(B.add(LayerKind::Conv, {X}, C, "conv1")));
  LayerId Y = B.batchNorm(B.add(LayerKind::Conv, {A}, C, "conv2"));
  LayerId R = B.relu(B.addLayers(Y, A));
  B.softmax(B.add(LayerKind::Dense, {B.flatten(B.globalAvgPool(R))}, DenseAttrs{5, true}, "fc"));
  auto N = B.finish();
  REQUIRE(N);
  return std::move(*N);
}

/// The buffer's initial contents as the interpreter creates them.
Tensor initial(const analyzer::BufferSpec &B) {
  auto Bytes = analyzer::randomBytes(B.init, B.bytes);
  REQUIRE(Bytes);
  Tensor T(B.bytes / 4);
  for (size_t I = 0; I < T.size(); ++I) {
    float F;
    std::memcpy(&F, Bytes->data() + 4 * I, 4);
    T[I] = F;
  }
  return T;
}

/// 3x3 stride-1 pad-1 conv, NCHW / OIHW, then y * scale[c] + shift[c].
Tensor convBn(const Tensor &X, int N, int C, int H, int W, const Tensor &Wt, const Tensor &Sc,
              const Tensor &Sh, int Co) {
  Tensor Y(static_cast<size_t>(N) * Co * H * W);
  for (int n = 0; n < N; ++n)
    for (int o = 0; o < Co; ++o)
      for (int h = 0; h < H; ++h)
        for (int w = 0; w < W; ++w) {
          double S = 0;
          for (int c = 0; c < C; ++c)
            for (int kh = 0; kh < 3; ++kh)
              for (int kw = 0; kw < 3; ++kw) {
                int ih = h + kh - 1, iw = w + kw - 1;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                  S += X[((n * C + c) * H + ih) * W + iw] * Wt[((o * C + c) * 3 + kh) * 3 + kw];
              }
          Y[((n * Co + o) * H + h) * W + w] = S * Sc[o] + Sh[o];
        }
  return Y;
}

} // namespace

TEST_CASE("lower+analyzer: a lowered residual network computes what the network says") {
  namespace fs = std::filesystem;
  Network Net = tinyResidual();
  auto W = lower(Net);
  REQUIRE_MESSAGE(bool(W), support::errorText(W));
  fs::path Dir = fs::temp_directory_path() / ("ptxcast_lowerrun_" + std::to_string(::getpid()));
  REQUIRE(!writeWorkload(*W, Dir.string()));
  auto M = analyzer::loadManifest((Dir / "manifest.json").string());
  REQUIRE_MESSAGE(bool(M), support::errorText(M));
  std::map<std::string, Tensor> Buf;
  for (const analyzer::BufferSpec &B : M->buffers)
    Buf[B.name] = initial(B);
  const std::string Out = outputBuffer(W->launches.back());
  for (analyzer::BufferSpec &B : M->buffers)
    if (B.name == Out)
      B.output = (Dir / "out.bin").string();
  auto Run = analyzer::runManifest(*M);
  REQUIRE_MESSAGE(bool(Run), support::errorText(Run));
  CHECK(Run->launches.size() == W->launches.size());

  // CPU reference in double precision.
  const int N = 2, C = 3, H = 6, Wd = 5, K = 4, F = 5;
  Tensor A = convBn(Buf["x"], N, C, H, Wd, Buf["conv1.weight"], Buf["conv1.bn_scale"],
                    Buf["conv1.bn_shift"], K);
  for (double &V : A)
    V = std::max(V, 0.0);
  Tensor Y =
      convBn(A, N, K, H, Wd, Buf["conv2.weight"], Buf["conv2.bn_scale"], Buf["conv2.bn_shift"], K);
  for (size_t I = 0; I < Y.size(); ++I)
    Y[I] = std::max(Y[I] + A[I], 0.0);
  std::vector<double> Expected;
  for (int n = 0; n < N; ++n) {
    std::vector<double> Logit(F);
    double Max = -1e300, Sum = 0;
    for (int f = 0; f < F; ++f) {
      double S = Buf["fc.bias"][f];
      for (int k = 0; k < K; ++k) {
        double Mean = 0;
        for (int P = 0; P < H * Wd; ++P)
          Mean += Y[(n * K + k) * H * Wd + P];
        S += Mean / (H * Wd) * Buf["fc.weight"][f * K + k];
      }
      Logit[f] = S;
      Max = std::max(Max, S);
    }
    for (double &L : Logit)
      Sum += (L = std::exp(L - Max));
    for (double L : Logit)
      Expected.push_back(L / Sum);
  }

  std::ifstream In(Dir / "out.bin", std::ios::binary);
  std::vector<float> Got(Expected.size());
  In.read(reinterpret_cast<char *>(Got.data()), static_cast<std::streamsize>(Got.size() * 4));
  REQUIRE(In);
  for (size_t I = 0; I < Got.size(); ++I) {
    CAPTURE(I);
    CHECK(std::fabs(Got[I] - Expected[I]) <= 1e-4 * std::max(1.0, std::fabs(Expected[I])));
  }
  fs::remove_all(Dir);
}

TEST_CASE("lower+analyzer: zoo models at small sizes run without traps") {
  namespace fs = std::filesystem;
  // lenet5: tanh, average pooling, flatten, dense. efficientnet-b0 at 32x32: SAME padding,
  // depthwise, swish, squeeze-excitation (channel scale), skip adds. mobilenetv2-0.35: relu6.
  const std::pair<const char *, int64_t> Models[] = {
      {"lenet5", 32}, {"efficientnet-b0", 32}, {"mobilenetv2-0.35", 32}};
  for (const auto &[Name, Size] : Models) {
    CAPTURE(Name);
    ZooOptions ZO;
    ZO.imageSize = Size;
    auto Net = buildZooModel(Name, ZO);
    REQUIRE(Net);
    auto W = lower(*Net);
    REQUIRE_MESSAGE(bool(W), support::errorText(W));
    fs::path Dir = fs::temp_directory_path() /
                   ("ptxcast_lowerzoo_" + std::string(Name) + "_" + std::to_string(::getpid()));
    REQUIRE(!writeWorkload(*W, Dir.string()));
    auto M = analyzer::loadManifest((Dir / "manifest.json").string());
    REQUIRE(M);
    const std::string Out = outputBuffer(W->launches.back());
    for (analyzer::BufferSpec &B : M->buffers)
      if (B.name == Out)
        B.output = (Dir / "out.bin").string();
    auto Run = analyzer::runManifest(*M);
    REQUIRE_MESSAGE(bool(Run), support::errorText(Run));
    CHECK(Run->launches.size() == W->launches.size());
    std::ifstream In(Dir / "out.bin", std::ios::binary);
    std::vector<float> Got(static_cast<size_t>(elementCount(Net->layer(Net->outputs()[0]).shape)));
    In.read(reinterpret_cast<char *>(Got.data()), static_cast<std::streamsize>(Got.size() * 4));
    REQUIRE(In);
    for (float V : Got)
      CHECK(std::isfinite(V));
    fs::remove_all(Dir);
  }
}
