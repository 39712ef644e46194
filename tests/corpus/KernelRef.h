// CPU references (double precision) for the generated kernels, written from the layer
// definitions (ONNX operator semantics), independently of the IR builders under test.
#pragma once

#include "corpus/KernelGen.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <tuple>
#include <vector>

namespace kernelref {

using corpus::ParamRole;
using Buffers = std::map<ParamRole, std::vector<float>>;

/// IEEE binary16 <-> binary32, round to nearest even (f16 storage of the kernels).
inline uint16_t floatToHalf(float F) {
  uint32_t X;
  std::memcpy(&X, &F, 4);
  uint32_t Sign = (X >> 16) & 0x8000u;
  int32_t Exp = int32_t((X >> 23) & 0xff) - 127 + 15;
  uint32_t Mant = X & 0x7fffffu;
  if (((X >> 23) & 0xff) == 0xff)
    return uint16_t(Sign | 0x7c00u | (Mant ? 0x200u : 0));
  if (Exp >= 31)
    return uint16_t(Sign | 0x7c00u);
  if (Exp <= 0) { // subnormal half (or zero)
    if (Exp < -10)
      return uint16_t(Sign);
    Mant |= 0x800000u;
    uint32_t Shift = uint32_t(14 - Exp);
    uint32_t H = Mant >> Shift, Rem = Mant & ((1u << Shift) - 1), Half = 1u << (Shift - 1);
    if (Rem > Half || (Rem == Half && (H & 1)))
      ++H;
    return uint16_t(Sign | H);
  }
  uint32_t H = Sign | (uint32_t(Exp) << 10) | (Mant >> 13);
  uint32_t Rem = Mant & 0x1fffu;
  if (Rem > 0x1000u || (Rem == 0x1000u && (H & 1)))
    ++H; // may carry into the exponent, which is correct rounding
  return uint16_t(H);
}

inline float halfToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000u) << 16;
  uint32_t Exp = (H >> 10) & 0x1f, Mant = H & 0x3ffu;
  float F;
  if (Exp == 0) {
    F = std::ldexp(float(Mant), -24);
    return Sign ? -F : F;
  }
  uint32_t X = Sign | ((Exp == 31 ? 255 : Exp - 15 + 127) << 23) | (Mant << 13);
  std::memcpy(&F, &X, 4);
  return F;
}

/// Seeded uniform values in [Lo, Hi), rounded through f16 when the kernel stores f16.
inline std::vector<float> randomData(uint64_t N, uint32_t Seed, float Lo, float Hi,
                                     corpus::DType T) {
  std::mt19937 Gen(Seed);
  std::uniform_real_distribution<float> D(Lo, Hi);
  std::vector<float> V(N);
  for (float &X : V) {
    X = D(Gen);
    if (T == corpus::DType::F16)
      X = halfToFloat(floatToHalf(X));
  }
  return V;
}

inline double activation(corpus::ActivationKind K, double X, double Alpha = 0) {
  using corpus::ActivationKind;
  auto Sigmoid = [](double V) { return 1.0 / (1.0 + std::exp(-V)); };
  auto HardSigmoid = [](double V) { return std::min(std::max(V + 3.0, 0.0), 6.0) / 6.0; };
  switch (K) {
  case ActivationKind::None:
    return X;
  case ActivationKind::Relu:
    return std::max(X, 0.0);
  case ActivationKind::Relu6:
    return std::min(std::max(X, 0.0), 6.0);
  case ActivationKind::Sigmoid:
    return Sigmoid(X);
  case ActivationKind::HardSigmoid:
    return HardSigmoid(X);
  case ActivationKind::HardSwish:
    return X * HardSigmoid(X);
  case ActivationKind::Swish:
    return X * Sigmoid(X);
  case ActivationKind::Tanh:
    return std::tanh(X);
  case ActivationKind::Gelu:
    return X * 0.5 * (1.0 + std::erf(X / std::sqrt(2.0)));
  case ActivationKind::Sqrt:
    return std::sqrt(X);
  case ActivationKind::LeakyRelu:
    return X > 0 ? X : X * Alpha;
  case ActivationKind::Selu: // PyTorch's constants, to double precision
    return 1.0507009873554804934 * (X > 0 ? X : 1.6732632423543772848 * std::expm1(X));
  case ActivationKind::Elu:
    return X > 0 ? X : Alpha * std::expm1(X);
  case ActivationKind::Celu:
    return std::max(0.0, X) + std::min(0.0, Alpha * std::expm1(X / Alpha));
  case ActivationKind::Softplus:
    return std::log1p(std::exp(X));
  case ActivationKind::Exp:
    return std::exp(X);
  case ActivationKind::GeluTanh:
    return 0.5 * X * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (X + 0.044715 * X * X * X)));
  }
  return X;
}

/// The fused epilogue for output element `Out` of channel `C` in image `N` (C channels total).
inline double epilogue(const corpus::Epilogue &E, const Buffers &B, double Y, uint64_t C,
                       uint64_t N, uint64_t Channels, uint64_t Out) {
  using corpus::ResidualKind;
  if (E.bias)
    Y += B.at(ParamRole::Bias)[C];
  if (E.batchNorm)
    Y = Y * B.at(ParamRole::BnScale)[C] + B.at(ParamRole::BnShift)[C];
  if (E.residual == ResidualKind::BeforeActivation)
    Y += B.at(ParamRole::Residual)[Out];
  Y = activation(E.activation, Y, E.alpha);
  if (E.seScale)
    Y *= B.at(ParamRole::SeScale)[N * Channels + C];
  if (E.residual == ResidualKind::AfterActivation)
    Y += B.at(ParamRole::Residual)[Out];
  return Y;
}

/// Filters stored [cout][cin / 16][kh][kw][16] (KernelLaunch::filtersBlocked, Taps = kh x kw) in
/// ONNX's [cout][cin][kh][kw].
template <class T>
std::vector<T> blockedToOihw(uint64_t Cout, uint64_t Cin, uint64_t Taps,
                             const std::vector<T> &Blocked) {
  std::vector<T> Oihw(Blocked.size());
  for (uint64_t Co = 0; Co < Cout; ++Co)
    for (uint64_t Ci = 0; Ci < Cin; ++Ci)
      for (uint64_t K = 0; K < Taps; ++K)
        Oihw[(Co * Cin + Ci) * Taps + K] =
            Blocked.at(((Co * (Cin / 16) + Ci / 16) * Taps + K) * 16 + Ci % 16);
  return Oihw;
}

/// Grouped, strided, padded, dilated NCHW convolution (ONNX Conv).
inline std::vector<double> conv(const corpus::ConvSpec &S, const Buffers &B) {
  const auto &In = B.at(ParamRole::Input), &W = B.at(ParamRole::Weight);
  const int64_t Ho = S.outHeight(), Wo = S.outWidth();
  const int64_t CinG = S.inChannels / S.groups, CoutG = S.outChannels / S.groups;
  std::vector<double> Out(size_t(S.batch) * S.outChannels * Ho * Wo);
  for (int64_t N = 0; N < S.batch; ++N)
    for (int64_t Co = 0; Co < S.outChannels; ++Co)
      for (int64_t Oh = 0; Oh < Ho; ++Oh)
        for (int64_t Ow = 0; Ow < Wo; ++Ow) {
          double Acc = 0;
          int64_t G = Co / CoutG;
          for (int64_t Ci = 0; Ci < CinG; ++Ci)
            for (int64_t Kh = 0; Kh < S.kernelH; ++Kh)
              for (int64_t Kw = 0; Kw < S.kernelW; ++Kw) {
                int64_t Ih = Oh * S.strideH - int64_t(S.padTop) + Kh * S.dilationH;
                int64_t Iw = Ow * S.strideW - int64_t(S.padLeft) + Kw * S.dilationW;
                if (Ih < 0 || Iw < 0 || Ih >= S.inHeight || Iw >= S.inWidth)
                  continue;
                int64_t C = G * CinG + Ci;
                Acc += double(In[((N * S.inChannels + C) * S.inHeight + Ih) * S.inWidth + Iw]) *
                       W[((Co * CinG + Ci) * S.kernelH + Kh) * S.kernelW + Kw];
              }
          uint64_t O = ((N * S.outChannels + Co) * Ho + Oh) * Wo + Ow;
          Out[O] = epilogue(S.epilogue, B, Acc, Co, N, S.outChannels, O);
        }
  return Out;
}

/// Y = X W^T with the epilogue per output feature.
inline std::vector<double> dense(const corpus::GemmSpec &S, const Buffers &B) {
  const auto &X = B.at(ParamRole::Input), &W = B.at(ParamRole::Weight);
  std::vector<double> Out(size_t(S.rows) * S.outFeatures);
  for (uint64_t R = 0; R < S.rows; ++R)
    for (uint64_t O = 0; O < S.outFeatures; ++O) {
      double Acc = 0;
      for (uint64_t I = 0; I < S.inFeatures; ++I)
        Acc += double(X[R * S.inFeatures + I]) * W[O * S.inFeatures + I];
      uint64_t Idx = R * S.outFeatures + O;
      Out[Idx] = epilogue(S.epilogue, B, Acc, O, 0, S.outFeatures, Idx);
    }
  return Out;
}

/// ONNX MaxPool / AveragePool (count_include_pad as in the spec: the divisor counts the window
/// positions inside the padded input, which is KH x KW unless a ceil-mode window runs past it).
inline std::vector<double> pool(const corpus::PoolSpec &S, const Buffers &B) {
  const auto &In = B.at(ParamRole::Input);
  const int64_t Ho = S.outHeight(), Wo = S.outWidth();
  std::vector<double> Out(size_t(S.batch) * S.channels * Ho * Wo);
  for (int64_t P = 0; P < int64_t(S.batch) * S.channels; ++P)
    for (int64_t Oh = 0; Oh < Ho; ++Oh)
      for (int64_t Ow = 0; Ow < Wo; ++Ow) {
        double Max = -std::numeric_limits<double>::infinity(), Sum = 0;
        int64_t Count = 0, PadCount = 0;
        for (int64_t Kh = 0; Kh < S.kernelH; ++Kh)
          for (int64_t Kw = 0; Kw < S.kernelW; ++Kw) {
            int64_t Ih = Oh * S.strideH - int64_t(S.padTop) + Kh;
            int64_t Iw = Ow * S.strideW - int64_t(S.padLeft) + Kw;
            PadCount += Ih < S.inHeight + S.padBottom && Iw < S.inWidth + S.padRight;
            if (Ih < 0 || Iw < 0 || Ih >= S.inHeight || Iw >= S.inWidth)
              continue;
            double V = In[(P * S.inHeight + Ih) * S.inWidth + Iw];
            Max = std::max(Max, V);
            Sum += V;
            ++Count;
          }
        double Div = S.countIncludePad ? double(PadCount) : double(Count);
        Out[(P * Ho + Oh) * Wo + Ow] = S.kind == corpus::PoolKind::Max ? Max : Sum / Div;
      }
  return Out;
}

/// Bilinear upsampling (PyTorch's upsample_bilinear2d): output (oh, ow) blends the 2 x 2 inputs
/// around src per axis: max(0, (o + 0.5) / scale - 0.5) (align_corners = False), o (in - 1) /
/// (out - 1) (align_corners = True), o / scale (ONNX's asymmetric mode).
inline double upsampleSource(corpus::UpsampleCoords C, int64_t O, int64_t Scale, int64_t N) {
  switch (C) {
  case corpus::UpsampleCoords::AlignCorners:
    return N * Scale > 1 ? double(O) * double(N - 1) / double(N * Scale - 1) : 0.0;
  case corpus::UpsampleCoords::Asymmetric:
    return double(O) / double(Scale);
  case corpus::UpsampleCoords::HalfPixel:
    break;
  }
  return std::max(0.0, (double(O) + 0.5) / double(Scale) - 0.5);
}

inline std::vector<double> upsample(const corpus::UpsampleSpec &S, const Buffers &B) {
  const auto &In = B.at(ParamRole::Input);
  const int64_t H = S.inHeight, W = S.inWidth, Ho = H * S.scaleH, Wo = W * S.scaleW;
  auto Tap = [&](int64_t O, int64_t Scale, int64_t N) {
    const double Src = upsampleSource(S.coords, O, Scale, N);
    const int64_t Near = int64_t(Src);
    return std::tuple(Near, std::min(Near + 1, N - 1), Src - double(Near));
  };
  std::vector<double> Out(size_t(S.batch) * S.channels * Ho * Wo);
  for (int64_t P = 0; P < int64_t(S.batch) * S.channels; ++P)
    for (int64_t Oh = 0; Oh < Ho; ++Oh)
      for (int64_t Ow = 0; Ow < Wo; ++Ow) {
        const auto [Y0, Y1, Wy] = Tap(Oh, S.scaleH, H);
        const auto [X0, X1, Wx] = Tap(Ow, S.scaleW, W);
        auto Row = [&, X0 = X0, X1 = X1, Wx = Wx](int64_t Y) {
          return (1 - Wx) * In[(P * H + Y) * W + X0] + Wx * In[(P * H + Y) * W + X1];
        };
        Out[(P * Ho + Oh) * Wo + Ow] = (1 - Wy) * Row(Y0) + Wy * Row(Y1);
      }
  return Out;
}

/// Padding of H and W: output (oh, ow) reads (oh - top, ow - left), outside the input the value
/// (constant), the mirror image without the edge (reflect) or the edge (edge).
inline std::vector<double> pad(const corpus::PadSpec &S, const Buffers &B) {
  const auto &In = B.at(ParamRole::Input);
  const int64_t H = S.inHeight, W = S.inWidth, Ho = H + S.top + S.bottom, Wo = W + S.left + S.right;
  auto Source = [&](int64_t I, int64_t N) -> int64_t {
    if (S.kind == corpus::PadKind::Reflect)
      return I < 0 ? -I : I >= N ? 2 * (N - 1) - I : I;
    if (S.kind == corpus::PadKind::Edge)
      return std::min(std::max<int64_t>(I, 0), N - 1);
    return I >= 0 && I < N ? I : -1;
  };
  std::vector<double> Out(size_t(S.batch) * S.channels * Ho * Wo);
  for (int64_t P = 0; P < int64_t(S.batch) * S.channels; ++P)
    for (int64_t Oh = 0; Oh < Ho; ++Oh)
      for (int64_t Ow = 0; Ow < Wo; ++Ow) {
        const int64_t Ih = Source(Oh - S.top, H), Iw = Source(Ow - S.left, W);
        Out[(P * Ho + Oh) * Wo + Ow] = Ih < 0 || Iw < 0 ? S.value : In[(P * H + Ih) * W + Iw];
      }
  return Out;
}

/// Mean over the spatial axis, then the epilogue per channel.
inline std::vector<double> globalAvgPool(const corpus::ReduceSpec &S, const Buffers &B) {
  const auto &In = B.at(ParamRole::Input);
  std::vector<double> Out(size_t(S.batch) * S.channels);
  for (uint64_t N = 0; N < S.batch; ++N)
    for (uint64_t C = 0; C < S.channels; ++C) {
      uint64_t O = N * S.channels + C;
      double Sum = 0;
      for (uint64_t I = 0; I < S.spatial; ++I)
        Sum += In[O * S.spatial + I];
      Out[O] = epilogue(S.epilogue, B, Sum / S.spatial, C, N, S.channels, O);
    }
  return Out;
}

/// One element of an elementwise op: a (and b, a tensor's element or the scalar) -> value
/// before the activation. Pow is std::pow (NaN for a negative base and a non-integer exponent).
inline double elementwiseValue(const corpus::ElementwiseSpec &S, const Buffers &B, uint64_t I) {
  using corpus::ElementwiseOp;
  const double A = B.at(ParamRole::Input)[I], C = S.scalar;
  // A broadcast second operand is [batch, spatial]: element (n, c, s) reads (n, s).
  const uint64_t J =
      S.broadcast ? I / (uint64_t(S.channels) * S.spatial) * S.spatial + I % S.spatial : I;
  switch (S.op) {
  case ElementwiseOp::Add:
    return A + B.at(ParamRole::Input2)[J];
  case ElementwiseOp::Mul:
    return A * B.at(ParamRole::Input2)[J];
  case ElementwiseOp::ScaleChannels:
    return A * B.at(ParamRole::Input2)[I / S.spatial];
  case ElementwiseOp::Activation:
    return A;
  case ElementwiseOp::BatchNorm: // channel c = (I / spatial) mod channels
    return A * B.at(ParamRole::BnScale)[I / S.spatial % S.channels] +
           B.at(ParamRole::BnShift)[I / S.spatial % S.channels];
  case ElementwiseOp::Div:
    return A / B.at(ParamRole::Input2)[J];
  case ElementwiseOp::Pow:
    return std::pow(A, double(B.at(ParamRole::Input2)[J]));
  case ElementwiseOp::AddScalar:
    return A + C;
  case ElementwiseOp::MulScalar:
    return A * C;
  case ElementwiseOp::DivScalar:
    return A / C;
  case ElementwiseOp::PowScalar:
    return std::pow(A, C);
  }
  return A;
}

inline std::vector<double> elementwise(const corpus::ElementwiseSpec &S, const Buffers &B) {
  std::vector<double> Out(B.at(ParamRole::Input).size());
  for (uint64_t I = 0; I < Out.size(); ++I)
    Out[I] = activation(S.activation, elementwiseValue(S, B, I), S.scalar);
  return Out;
}

/// The output of a one-input concatenation launch: its channels at channelOffset of each image of
/// a [batch, totalChannels, spatial] tensor, zero elsewhere (an allocated buffer starts zeroed).
inline std::vector<double> concat(const corpus::ConcatSpec &S, const Buffers &B) {
  const auto &In = B.at(ParamRole::Input);
  const uint64_t Channels = S.channels.at(0); // Buffers holds one tensor per role: one input
  std::vector<double> Out(size_t(S.batch) * S.totalChannels * S.spatial, 0.0);
  for (uint64_t N = 0; N < S.batch; ++N)
    for (uint64_t C = 0; C < Channels; ++C)
      for (uint64_t I = 0; I < S.spatial; ++I)
        Out[(N * S.totalChannels + S.channelOffset + C) * S.spatial + I] =
            In[(N * Channels + C) * S.spatial + I];
  return Out;
}

inline std::vector<double> softmax(const corpus::SoftmaxSpec &S, const Buffers &B) {
  const auto &In = B.at(ParamRole::Input);
  std::vector<double> Out(In.size());
  for (uint64_t R = 0; R < S.rows; ++R)
    for (uint64_t X = 0; X < S.inner; ++X) {
      auto At = [&](uint64_t C) { return (R * S.cols + C) * S.inner + X; };
      double Max = -std::numeric_limits<double>::infinity(), Sum = 0;
      for (uint64_t C = 0; C < S.cols; ++C)
        Max = std::max(Max, double(In[At(C)]));
      for (uint64_t C = 0; C < S.cols; ++C)
        Sum += std::exp(In[At(C)] - Max);
      for (uint64_t C = 0; C < S.cols; ++C)
        Out[At(C)] = std::exp(In[At(C)] - Max) / Sum;
    }
  return Out;
}

/// A reduction of each (row, inner) position's cols elements of [rows, cols, inner].
inline std::vector<double> axisReduce(const corpus::AxisReduceSpec &S, const Buffers &B) {
  using Op = corpus::AxisReduceOp;
  const auto &In = B.at(ParamRole::Input);
  std::vector<double> Out(size_t(S.rows) * S.inner);
  for (uint64_t R = 0; R < S.rows; ++R)
    for (uint64_t X = 0; X < S.inner; ++X) {
      double Acc = S.op == Op::Max   ? -std::numeric_limits<double>::infinity()
                   : S.op == Op::Min ? std::numeric_limits<double>::infinity()
                                     : 0.0;
      for (uint64_t C = 0; C < S.cols; ++C) {
        const double V = In[(R * S.cols + C) * S.inner + X];
        if (S.op == Op::Max)
          Acc = std::max(Acc, V);
        else if (S.op == Op::Min)
          Acc = std::min(Acc, V);
        else if (S.op == Op::SumSquare || S.op == Op::L2)
          Acc += V * V;
        else
          Acc += S.op == Op::L1 ? std::fabs(V) : V;
      }
      if (S.op == Op::Mean)
        Acc /= double(S.cols);
      if (S.op == Op::L2)
        Acc = std::sqrt(Acc);
      Out[R * S.inner + X] = Acc;
    }
  return Out;
}

/// torch.bmm: C[b] = A[b] x B[b], A [batch, m, n], B [batch, n, k], row-major.
inline std::vector<double> batchMatMul(const corpus::BatchMatMulSpec &S, const Buffers &B) {
  const auto &A = B.at(ParamRole::Input), &Bm = B.at(ParamRole::Input2);
  std::vector<double> Out(size_t(S.batch) * S.m * S.k);
  for (uint64_t N = 0; N < S.batch; ++N)
    for (uint64_t R = 0; R < S.m; ++R)
      for (uint64_t C = 0; C < S.k; ++C) {
        double Acc = 0;
        for (uint64_t I = 0; I < S.n; ++I)
          Acc += double(A[(N * S.m + R) * S.n + I]) * Bm[(N * S.n + I) * S.k + C];
        Out[(N * S.m + R) * S.k + C] = Acc;
      }
  return Out;
}

/// torch.nn.LayerNorm over each row: (x - mean) / sqrt(biased var + eps) * weight + bias (weight
/// 1 and bias 0 without affine).
inline std::vector<double> layerNorm(const corpus::LayerNormSpec &S, const Buffers &B) {
  const auto &In = B.at(ParamRole::Input);
  const std::vector<float> Ones(S.cols, 1.0f), Zeros(S.cols, 0.0f);
  const auto &W = S.affine ? B.at(ParamRole::Weight) : Ones;
  const auto &Bias = S.affine ? B.at(ParamRole::Bias) : Zeros;
  std::vector<double> Out(In.size());
  for (uint64_t R = 0; R < S.rows; ++R) {
    const float *Row = &In[R * S.cols];
    double Mean = 0, Var = 0;
    for (uint64_t C = 0; C < S.cols; ++C)
      Mean += Row[C];
    Mean /= S.cols;
    for (uint64_t C = 0; C < S.cols; ++C)
      Var += (Row[C] - Mean) * (Row[C] - Mean);
    const double Rstd = 1.0 / std::sqrt(Var / S.cols + S.epsilon);
    for (uint64_t C = 0; C < S.cols; ++C)
      Out[R * S.cols + C] = (Row[C] - Mean) * Rstd * W[C] + Bias[C];
  }
  return Out;
}

/// out[i_0, ..., i_r-1] (row-major over dims) = in[offset + sum i_k strides[k]].
inline std::vector<double> copy(const corpus::CopySpec &S, const Buffers &B) {
  const auto &In = B.at(ParamRole::Input);
  uint64_t Count = 1;
  for (uint64_t D : S.dims)
    Count *= D;
  std::vector<double> Out(Count);
  for (uint64_t I = 0; I < Count; ++I) {
    uint64_t Rest = I, From = S.offset;
    for (size_t K = S.dims.size(); K-- > 0;) {
      From += (Rest % S.dims[K]) * S.strides[K];
      Rest /= S.dims[K];
    }
    Out[I] = In.at(From);
  }
  return Out;
}

/// Largest |Got - Ref| / max(|Ref|, mean |Ref|): relative error, with outputs much smaller than
/// the tensor's typical magnitude (cancellation) measured against that magnitude instead.
inline double maxRelError(const std::vector<float> &Got, const std::vector<double> &Ref) {
  double Mean = 0;
  for (double R : Ref)
    Mean += std::fabs(R);
  Mean = Ref.empty() ? 1.0 : std::max(Mean / Ref.size(), 1e-30);
  double Worst = Got.size() == Ref.size() ? 0.0 : std::numeric_limits<double>::infinity();
  for (size_t I = 0; I < std::min(Got.size(), Ref.size()); ++I) {
    double E = std::fabs(Got[I] - Ref[I]) / std::max(std::fabs(Ref[I]), Mean);
    Worst = std::isnan(E) ? std::numeric_limits<double>::infinity() : std::max(Worst, E);
  }
  return Worst;
}

} // namespace kernelref
