// Functional tests: CNN-style test kernels (nvcc 13, sm_75 and sm_90) run in the interpreter on
// seeded random inputs, compared with CPU references (tolerances: docs/semantics.md).
#include "ReferenceKernels.h"
#include "ReferenceRunner.h"

#include <tuple>

using analyzer::Device;
using analyzer::KernelArg;
using namespace reftest;

namespace {

/// The references reproduce each kernel's association order and rounding, so fp32 results must be
/// bit-identical (0 ulp); only softmax, whose expf uses ex2.approx, gets a tolerance.
constexpr double Exact = 0.0;
constexpr double ApproxTol = 1e-5;

int ceilDiv(int A, int B) { return (A + B - 1) / B; }

} // namespace

TEST_CASE("functional: matmul_tiled (shared-memory tiled GEMM)") {
  if (!haveNvcc())
    return;
  // Edges in every dimension; exact tiles; a single-column K.
  for (auto [M, N, K] : {std::tuple{37, 29, 45}, std::tuple{32, 16, 16}, std::tuple{5, 40, 1}}) {
    auto A = randomFloats(size_t(M) * K, 1), B = randomFloats(size_t(K) * N, 2);
    auto Want = matmul(A, B, M, N, K);
    for (const std::string &Arch : nvccArchs()) {
      INFO("arch " << Arch << " M N K " << M << " " << N << " " << K);
      auto P = loadKernel(kernelPath("matmul", Arch), "matmul_tiled");
      if (!P)
        continue;
      Device D;
      std::vector<KernelArg> Args = {
          upload(D, "A", A), upload(D, "B", B), upload(D, "C", std::vector<float>(size_t(M) * N)),
          KernelArg::s32(M), KernelArg::s32(N), KernelArg::s32(K)};
      if (launch(*P, "matmul_tiled", {uint32_t(ceilDiv(N, 16)), uint32_t(ceilDiv(M, 16)), 1},
                 {16, 16, 1}, Args, D))
        CHECK(checkClose(download<float>(D, "C"), Want, Exact, "matmul " + Arch));
    }
  }
}

TEST_CASE("functional: conv2d_nchw (direct convolution, padding and stride)") {
  if (!haveNvcc())
    return;
  for (ConvShape S :
       {ConvShape{1, 3, 9, 9, 4, 3, 3, 1, 1, 2, 2}, ConvShape{2, 2, 6, 7, 3, 3, 2, 0, 1, 1, 1}}) {
    auto In = randomFloats(size_t(S.n) * S.c * S.h * S.w, 3);
    auto W = randomFloats(size_t(S.k) * S.c * S.r * S.s, 4);
    auto Bias = randomFloats(size_t(S.k), 5);
    auto Want = conv2d(In, W, Bias, S);
    int Total = int(Want.size());
    for (const std::string &Arch : nvccArchs()) {
      INFO("arch " << Arch);
      auto P = loadKernel(kernelPath("conv2d", Arch), "conv2d_nchw");
      if (!P)
        continue;
      Device D;
      std::vector<KernelArg> Args = {upload(D, "in", In), upload(D, "w", W),
                                     upload(D, "bias", Bias),
                                     upload(D, "out", std::vector<float>(Want.size()))};
      for (int V :
           {S.n, S.c, S.h, S.w, S.k, S.r, S.s, S.padH, S.padW, S.strideH, S.strideW, S.p(), S.q()})
        Args.push_back(KernelArg::s32(V));
      if (launch(*P, "conv2d_nchw", {uint32_t(ceilDiv(Total, 64)), 1, 1}, {64, 1, 1}, Args, D))
        CHECK(checkClose(download<float>(D, "out"), Want, Exact, "conv2d " + Arch));
    }
  }
}

TEST_CASE("functional: depthwise3x3_nchw") {
  if (!haveNvcc())
    return;
  const int N = 2, C = 3, H = 8, W = 7, Pad = 1, Stride = 1;
  const int P = (H + 2 * Pad - 3) / Stride + 1, Q = (W + 2 * Pad - 3) / Stride + 1;
  auto In = randomFloats(size_t(N) * C * H * W, 6), Wt = randomFloats(size_t(C) * 9, 7);
  auto Want = depthwise3x3(In, Wt, N, C, H, W, Pad, Stride);
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto Prog = loadKernel(kernelPath("depthwise", Arch), "depthwise3x3_nchw");
    if (!Prog)
      continue;
    Device D;
    std::vector<KernelArg> Args = {upload(D, "in", In), upload(D, "w", Wt),
                                   upload(D, "out", std::vector<float>(Want.size()))};
    for (int V : {N, C, H, W, Pad, Stride, P, Q})
      Args.push_back(KernelArg::s32(V));
    if (launch(*Prog, "depthwise3x3_nchw", {uint32_t(ceilDiv(int(Want.size()), 96)), 1, 1},
               {96, 1, 1}, Args, D))
      CHECK(checkClose(download<float>(D, "out"), Want, Exact, "depthwise " + Arch));
  }
}

TEST_CASE("functional: maxpool2d_nchw and avgpool2d_nchw") {
  if (!haveNvcc())
    return;
  ConvShape S{1, 2, 7, 7, 0, 3, 3, 1, 1, 2, 2}; // k unused; window 3x3, pad 1, stride 2
  auto In = randomFloats(size_t(S.n) * S.c * S.h * S.w, 8);
  for (bool Max : {true, false}) {
    std::string Kernel = Max ? "maxpool2d_nchw" : "avgpool2d_nchw";
    auto Want = pool2d(In, Max, S);
    for (const std::string &Arch : nvccArchs()) {
      INFO("arch " << Arch << " kernel " << Kernel);
      auto P = loadKernel(kernelPath("pooling", Arch), Kernel);
      if (!P)
        continue;
      Device D;
      std::vector<KernelArg> Args = {upload(D, "in", In),
                                     upload(D, "out", std::vector<float>(Want.size()))};
      for (int V :
           {S.n, S.c, S.h, S.w, S.r, S.s, S.strideH, S.strideW, S.padH, S.padW, S.p(), S.q()})
        Args.push_back(KernelArg::s32(V));
      if (launch(*P, Kernel, {1, 1, 1}, {64, 1, 1}, Args, D))
        CHECK(checkClose(download<float>(D, "out"), Want, Exact, Kernel + " " + Arch));
    }
  }
}

TEST_CASE("functional: softmax_rows (warp shuffles, expf)") {
  if (!haveNvcc())
    return;
  const int Rows = 5, Cols = 70, Block = 64;
  auto In = randomFloats(size_t(Rows) * Cols, 9, -5, 5);
  auto Want = softmaxRows(In, Rows, Cols);
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("softmax", Arch), "softmax_rows");
    if (!P)
      continue;
    Device D;
    std::vector<KernelArg> Args = {upload(D, "in", In),
                                   upload(D, "out", std::vector<float>(In.size())),
                                   KernelArg::s32(Rows), KernelArg::s32(Cols)};
    if (launch(*P, "softmax_rows", {uint32_t(ceilDiv(Rows, Block / 32)), 1, 1},
               {uint32_t(Block), 1, 1}, Args, D))
      CHECK(checkClose(download<float>(D, "out"), Want, ApproxTol, "softmax " + Arch));
  }
}

TEST_CASE("functional: reduce_sum (shfl.down tree and shared memory)") {
  if (!haveNvcc())
    return;
  const int N = 5000, Grid = 4, Block = 128;
  auto In = randomFloats(N, 10);
  auto Want = reduceSum(In, Grid, Block);
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("reduction", Arch), "reduce_sum");
    if (!P)
      continue;
    Device D;
    std::vector<KernelArg> Args = {
        upload(D, "in", In), upload(D, "partial", std::vector<float>(Grid)), KernelArg::s32(N)};
    if (launch(*P, "reduce_sum", {Grid, 1, 1}, {Block, 1, 1}, Args, D))
      CHECK(checkClose(download<float>(D, "partial"), Want, Exact, "reduce_sum " + Arch));
  }
}

TEST_CASE("functional: saxpy and bias_relu (grid-stride elementwise)") {
  if (!haveNvcc())
    return;
  const int N = 1000;
  const float A = 1.75f;
  auto X = randomFloats(N, 11), Y = randomFloats(N, 12);
  const int C = 3, Inner = 25, M = 2 * C * Inner;
  auto Xb = randomFloats(M, 13), Bias = randomFloats(C, 14);
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("elementwise", Arch), "saxpy");
    if (!P)
      continue;
    Device D;
    std::vector<KernelArg> Args = {KernelArg::s32(N), KernelArg::f32(A), upload(D, "x", X),
                                   upload(D, "y", Y)};
    if (launch(*P, "saxpy", {2, 1, 1}, {128, 1, 1}, Args, D))
      CHECK(checkClose(download<float>(D, "y"), saxpy(A, X, Y), Exact, "saxpy " + Arch));
    // Partial warps: 100 threads per block, so every block ends in a 4-lane warp.
    std::vector<KernelArg> ArgsP = {KernelArg::s32(N), KernelArg::f32(A), upload(D, "xp", X),
                                    upload(D, "yp", Y)};
    if (launch(*P, "saxpy", {3, 1, 1}, {100, 1, 1}, ArgsP, D))
      CHECK(checkClose(download<float>(D, "yp"), saxpy(A, X, Y), Exact,
                       "saxpy partial warps " + Arch));
    std::vector<KernelArg> Args2 = {
        KernelArg::s32(M),   KernelArg::s32(C),       KernelArg::s32(Inner),
        upload(D, "xb", Xb), upload(D, "bias", Bias), upload(D, "yb", std::vector<float>(M))};
    if (launch(*P, "bias_relu", {1, 1, 1}, {64, 1, 1}, Args2, D))
      CHECK(checkClose(download<float>(D, "yb"), biasRelu(Xb, Bias, C, Inner), Exact,
                       "bias_relu " + Arch));
  }
}

TEST_CASE("functional: half_ops and bf16_convert (f16/bf16 conversions and arithmetic)") {
  if (!haveNvcc())
    return;
  const int N = 100;
  auto X = randomFloats(N, 15, -4, 4), Y = randomFloats(N, 16, -4, 4);
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("half", Arch), "half_ops");
    if (!P)
      continue;
    Device D;
    std::vector<KernelArg> Args = {upload(D, "x", X), upload(D, "y", Y),
                                   upload(D, "out", std::vector<float>(4 * N)), KernelArg::s32(N)};
    if (launch(*P, "half_ops", {2, 1, 1}, {64, 1, 1}, Args, D))
      CHECK(checkClose(download<float>(D, "out"), halfOps(X, Y), Exact, "half_ops " + Arch));
    std::vector<KernelArg> Args2 = {
        upload(D, "xb", X), upload(D, "outb", std::vector<float>(2 * N)), KernelArg::s32(N)};
    if (launch(*P, "bf16_convert", {2, 1, 1}, {64, 1, 1}, Args2, D))
      CHECK(checkClose(download<float>(D, "outb"), bf16Convert(X), Exact, "bf16_convert " + Arch));
  }
}
