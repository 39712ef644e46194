// CPU reference and runner for the int8 kernels (KernelGenInt8Test.cpp): seeded int8 data in
// the kernels' layouts (NHWC with padded channels, OHWI or depthwise filters), exact int32 sums,
// and an epilogue whose every step is exact in f32 (power-of-two scales, dyadic biases and
// batch-norm factors), so the int8 (or f16) outputs must equal the reference byte for byte.
#pragma once

#include "KernelRef.h"

#include "analyzer/Device.h"
#include "analyzer/Interpreter.h"
#include "analyzer/Program.h"
#include "corpus/KernelGen.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

namespace int8ref {

using namespace corpus;

/// The bytes of every buffer of one launch, by parameter role.
using Bytes = std::map<ParamRole, std::vector<uint8_t>>;

/// splitmix64: integers in [Lo, Hi].
struct Rng {
  uint64_t State;
  int32_t in(int32_t Lo, int32_t Hi) {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    Z ^= Z >> 31;
    return Lo + int32_t(Z % uint64_t(Hi - Lo + 1));
  }
};

/// What the reference needs of a layer: the GEMM view (Int8Gemm.h's, from public fields).
struct Layer {
  const ConvSpec *conv = nullptr; ///< null: the dense layer
  const GemmSpec *dense = nullptr;
  uint32_t m = 0, n = 0, cinPad = 0, nPad = 0, pixels = 1;
  Epilogue epilogue;
  Int8Io io;
  bool directFilters = false; ///< filters [tap][word][n_pad][4] (the dp4a direct kernel's)
};

inline Layer layerOf(const ConvSpec &S) {
  Layer L;
  L.conv = &S;
  L.pixels = S.outHeight() * S.outWidth();
  L.m = S.batch * L.pixels;
  L.n = S.outChannels;
  L.cinPad = int8Channels(S.inChannels);
  L.nPad = int8Channels(S.outChannels);
  L.epilogue = S.epilogue;
  L.io = S.int8;
  return L;
}

inline Layer layerOf(const GemmSpec &S) {
  Layer L;
  L.dense = &S;
  L.m = S.rows;
  L.n = S.outFeatures;
  L.cinPad = int8Channels(S.inFeatures);
  L.nPad = int8Channels(S.outFeatures);
  L.epilogue = S.epilogue;
  L.io = S.int8;
  return L;
}

inline void put(std::vector<uint8_t> &B, size_t I, float V) { std::memcpy(&B[4 * I], &V, 4); }
inline float f32At(const std::vector<uint8_t> &B, size_t I) {
  float V;
  std::memcpy(&V, &B[4 * I], 4);
  return V;
}
inline uint16_t u16At(const std::vector<uint8_t> &B, size_t I) {
  uint16_t V;
  std::memcpy(&V, &B[2 * I], 2);
  return V;
}

/// Seeded data for every parameter but the output: int8 activations (padding channels 0),
/// weights in [-127, 127], per-channel scales 2^-9 ... 2^-11 (n_pad of them), residual scale
/// 2^-4, output reciprocal scale 2, biases and batch-norm shifts k / 16, batch-norm scales 0.5, 1
/// or 2, f16 residuals k / 8.
inline Bytes seeded(const KernelLaunch &K, const Layer &L, uint64_t Seed) {
  Rng R{Seed};
  Bytes Out;
  for (const KernelParam &P : K.params) {
    std::vector<uint8_t> &B = Out[P.role];
    B.assign(paramBytes(P), 0);
    if (P.role == ParamRole::Output)
      continue;
    for (uint64_t I = 0; I < P.elements; ++I) {
      if (P.dtype == DType::I8) {
        B[I] = uint8_t(int8_t(R.in(P.role == ParamRole::Weight ? -127 : -128, 127)));
      } else if (P.dtype == DType::F16) {
        const uint16_t H = kernelref::floatToHalf(float(R.in(-200, 200)) / 8);
        std::memcpy(&B[2 * I], &H, 2);
      } else if (P.role == ParamRole::Scale) { // [n_pad] channels, residual, 1 / output
        put(B, I, I < L.nPad ? std::ldexp(1.0f, -R.in(9, 11)) : I == L.nPad ? 0.0625f : 2.0f);
      } else if (P.role == ParamRole::BnScale) {
        put(B, I, std::ldexp(1.0f, R.in(-1, 1)));
      } else {
        put(B, I, float(R.in(-64, 64)) / 16);
      }
    }
  }
  // The engine's int8 activations have zero padding channels (Reformat.cpp writes them).
  std::vector<uint8_t> &In = Out[ParamRole::Input];
  const uint32_t Real = L.conv ? L.conv->inChannels : L.dense->inFeatures;
  for (size_t I = 0; I < In.size(); ++I)
    if (I % L.cinPad >= Real)
      In[I] = 0;
  return Out;
}

/// Runs launch K on the data (all buffers allocated at their parameter sizes); returns the
/// output's bytes, or nothing after reporting a trap.
inline std::vector<uint8_t> run(const analyzer::Program &Prog, const KernelLaunch &K,
                                const Bytes &Data, analyzer::KernelProfile *Profile = nullptr) {
  analyzer::Device D;
  analyzer::LaunchConfig Cfg;
  Cfg.grid = K.grid;
  Cfg.block = K.block;
  for (const KernelParam &P : K.params) {
    auto Base = D.allocate(paramRoleName(P.role), paramBytes(P));
    REQUIRE(Base);
    REQUIRE(D.write(*Base, Data.at(P.role)));
    Cfg.args.push_back(analyzer::KernelArg::pointer(*Base));
  }
  for (const ShapeArg &A : K.shapeArgs)
    Cfg.args.push_back(analyzer::KernelArg::u32(A.value));
  analyzer::RunResult R = analyzer::runKernel(Prog, K.kernel, Cfg, D);
  if (Profile)
    *Profile = R.profile;
  if (!R.ok()) {
    FAIL_CHECK(K.kernel << ": " << R.trap->str());
    return {};
  }
  return D.find("output")->data;
}

/// The exact int32 sum of output (m, n).
inline int64_t accumulator(const Layer &L, const Bytes &D, uint32_t M, uint32_t N) {
  const std::vector<uint8_t> &X = D.at(ParamRole::Input), &W = D.at(ParamRole::Weight);
  auto In = [&](size_t I) { return int64_t(int8_t(X[I])); };
  auto Wt = [&](size_t I) { return int64_t(int8_t(W[I])); };
  int64_t Acc = 0;
  // The direct kernel's filters: word j of tap t for channel n at ((t x words + j) x n_pad + n).
  auto Direct = [&](size_t Tap, size_t Words, size_t C) {
    return ((Tap * Words + C / 4) * L.nPad + N) * 4 + C % 4;
  };
  if (L.dense) {
    for (uint32_t K = 0; K < L.cinPad; ++K)
      Acc += In(size_t(M) * L.cinPad + K) *
             Wt(L.directFilters ? Direct(0, L.cinPad / 4, K) : size_t(N) * L.cinPad + K);
    return Acc;
  }
  const ConvSpec &S = *L.conv;
  const uint32_t Img = M / L.pixels, Oh = M % L.pixels / S.outWidth(),
                 Ow = M % L.pixels % S.outWidth(), Taps = S.kernelH * S.kernelW;
  const bool Depthwise = S.groups > 1 && S.groups == S.inChannels;
  const uint32_t Cg = S.groups == 1 ? L.cinPad : S.inChannels / S.groups;
  const uint32_t C0 = S.groups == 1 ? 0 : N / (S.outChannels / S.groups) * Cg;
  for (uint32_t Tap = 0; Tap < Taps; ++Tap) {
    const int64_t Ih = int64_t(Oh) * S.strideH - S.padTop + Tap / S.kernelW * S.dilationH;
    const int64_t Iw = int64_t(Ow) * S.strideW - S.padLeft + Tap % S.kernelW * S.dilationW;
    if (Ih < 0 || Iw < 0 || Ih >= S.inHeight || Iw >= S.inWidth)
      continue;
    const size_t Pixel = (size_t(Img) * S.inHeight + size_t(Ih)) * S.inWidth + size_t(Iw);
    if (Depthwise) { // filters [tap groups][c_pad / 4][4 channels][4 taps]
      const size_t Q = L.cinPad / 4;
      Acc += In(Pixel * L.cinPad + N) * Wt(((Tap / 4 * Q + N / 4) * 4 + N % 4) * 4 + Tap % 4);
      continue;
    }
    for (uint32_t C = 0; C < Cg; ++C)
      Acc += In(Pixel * L.cinPad + C0 + C) *
             Wt(L.directFilters ? Direct(Tap, Cg / 4, C) : (size_t(N) * Taps + Tap) * Cg + C);
  }
  return Acc;
}

/// The residual at (m, n) as the kernel reads it.
inline double residual(const Layer &L, const Bytes &D, uint32_t M, uint32_t N) {
  const std::vector<uint8_t> &R = D.at(ParamRole::Residual);
  if (L.io.residual == TensorForm::I8Nhwc)
    return double(int8_t(R[size_t(M) * L.nPad + N])) * f32At(D.at(ParamRole::Scale), L.nPad);
  const size_t Img = M / L.pixels, Pix = M % L.pixels;
  return kernelref::halfToFloat(u16At(R, (Img * L.n + N) * L.pixels + Pix));
}

/// The epilogue's value of output (m, n) in double (every step exact for the seeded data but
/// the transcendental activations, which kernelref evaluates).
inline double value(const Layer &L, const Bytes &D, uint32_t M, uint32_t N) {
  const Epilogue &E = L.epilogue;
  double Y = double(accumulator(L, D, M, N)) * f32At(D.at(ParamRole::Scale), N);
  if (E.bias)
    Y += f32At(D.at(ParamRole::Bias), N);
  if (E.batchNorm)
    Y = Y * f32At(D.at(ParamRole::BnScale), N) + f32At(D.at(ParamRole::BnShift), N);
  if (E.residual == ResidualKind::BeforeActivation)
    Y += residual(L, D, M, N);
  Y = kernelref::activation(E.activation, Y, E.alpha);
  if (E.residual == ResidualKind::AfterActivation)
    Y += residual(L, D, M, N);
  return Y;
}

/// The expected output buffer: int8 NHWC (round to nearest even, saturated; padding channels
/// 0) or f16 NCHW.
inline std::vector<uint8_t> reference(const Layer &L, const Bytes &D) {
  const bool Int8 = L.io.output == TensorForm::I8Nhwc;
  std::vector<uint8_t> Out(size_t(L.m) * (Int8 ? L.nPad : 2 * L.n), 0);
  const float Inv = f32At(D.at(ParamRole::Scale), L.nPad + 1);
  for (uint32_t M = 0; M < L.m; ++M)
    for (uint32_t N = 0; N < L.n; ++N) {
      const double Y = value(L, D, M, N);
      if (Int8) {
        Out[size_t(M) * L.nPad + N] =
            uint8_t(int8_t(std::clamp(std::nearbyint(Y * Inv), -128.0, 127.0)));
        continue;
      }
      const uint16_t H = kernelref::floatToHalf(float(Y));
      const size_t I = (size_t(M / L.pixels) * L.n + N) * L.pixels + M % L.pixels;
      std::memcpy(&Out[2 * I], &H, 2);
    }
  return Out;
}

} // namespace int8ref
