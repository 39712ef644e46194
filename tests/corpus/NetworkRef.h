// A double-precision CPU executor for the Network IR, written from the layer semantics in
// corpus/Network.h (and ONNX) without any lowering code: the reference for end-to-end tests.
//
// Parameters come from a callback that, given a layer and a role ("weight", "bias", "bn_scale",
// "bn_shift"), returns that tensor. A BatchNorm layer is evaluated as the per-channel affine map
// it means at inference, y = x * scale[c] + shift[c] with scale = gamma / sqrt(var + eps) and
// shift = beta - mean * scale; the callback supplies scale and shift for the BatchNorm layer.
#pragma once

#include "corpus/Network.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace netref {

using Tensor = std::vector<double>;
/// (layer id, role) -> parameter tensor.
using ParamFn = std::function<const Tensor &(corpus::LayerId, const std::string &)>;

/// Dimension I of S as a 4-D NCHW shape (missing leading dimensions are 1).
inline int64_t dim4(const corpus::Shape &S, int I) {
  int Off = 4 - static_cast<int>(S.size());
  return I < Off ? 1 : S[static_cast<size_t>(I - Off)];
}

/// Evaluates every layer of a network in order; `values()[id]` is layer id's output.
class NetworkRef {
public:
  NetworkRef(const corpus::Network &Net, ParamFn Params) : Net(Net), Params(std::move(Params)) {}

  /// Runs the network; `Inputs[k]` feeds the k-th Input layer (Network::inputs() order).
  const std::vector<Tensor> &run(const std::vector<Tensor> &Inputs) {
    Values.assign(Net.size(), {});
    size_t NextInput = 0;
    for (corpus::LayerId Id = 0; Id < Net.size(); ++Id) {
      const corpus::Layer &L = Net.layer(Id);
      if (L.kind == corpus::LayerKind::Input)
        Values[Id] = Inputs.at(NextInput++);
      else
        Values[Id] = eval(Id, L);
      assert(Values[Id].size() == static_cast<size_t>(corpus::elementCount(L.shape)) &&
             "reference produced the wrong element count");
    }
    return Values;
  }
  const std::vector<Tensor> &values() const { return Values; }

private:
  const corpus::Network &Net;
  ParamFn Params;
  std::vector<Tensor> Values;

  const Tensor &in(const corpus::Layer &L, size_t K) const { return Values[L.inputs.at(K)]; }
  const corpus::Shape &inShape(const corpus::Layer &L, size_t K) const {
    return Net.layer(L.inputs.at(K)).shape;
  }

  Tensor eval(corpus::LayerId Id, const corpus::Layer &L) {
    using corpus::LayerKind;
    switch (L.kind) {
    case LayerKind::Conv:
      return conv(Id, L, std::get<corpus::ConvAttrs>(L.attrs));
    case LayerKind::Dense:
      return dense(Id, L, std::get<corpus::DenseAttrs>(L.attrs));
    case LayerKind::BatchNorm:
      return batchNorm(Id, L);
    case LayerKind::Activation:
      return activation(in(L, 0), std::get<corpus::ActivationAttrs>(L.attrs));
    case LayerKind::Add:
    case LayerKind::Mul:
    case LayerKind::Div:
    case LayerKind::Pow:
      return binary(L);
    case LayerKind::MatMul:
      return matMul(L);
    case LayerKind::LayerNorm:
      return layerNorm(Id, L, std::get<corpus::LayerNormAttrs>(L.attrs));
    case LayerKind::MaxPool:
    case LayerKind::AvgPool:
      return pool(L, std::get<corpus::PoolAttrs>(L.attrs), L.kind == LayerKind::MaxPool);
    case LayerKind::GlobalAvgPool:
      return globalAvgPool(L);
    case LayerKind::Softmax:
      return softmax(L, std::get<corpus::SoftmaxAttrs>(L.attrs));
    case LayerKind::Pad:
      return pad(L, std::get<corpus::PadAttrs>(L.attrs));
    case LayerKind::Concat:
      return concat(L, std::get<corpus::ConcatAttrs>(L.attrs));
    case LayerKind::Flatten:
    case LayerKind::Reshape:
    case LayerKind::Identity:
      return in(L, 0); // same elements in the same (row-major) order
    case LayerKind::Transpose:
    case LayerKind::Slice:
      return gather(L);
    case LayerKind::Upsample:
      return upsample(L, std::get<corpus::UpsampleAttrs>(L.attrs));
    case LayerKind::Expand:
      return expand(L);
    case LayerKind::Reduce:
      return reduce(L, std::get<corpus::ReduceAttrs>(L.attrs));
    case LayerKind::Input:
      break;
    }
    assert(false && "unhandled layer kind");
    return {};
  }

  Tensor conv(corpus::LayerId Id, const corpus::Layer &L, const corpus::ConvAttrs &A) {
    const Tensor &X = in(L, 0);
    const corpus::Shape &S = inShape(L, 0);
    const int64_t N = S[0], C = S[1], H = S[2], W = S[3];
    const int64_t Co = L.shape[1], Ho = L.shape[2], Wo = L.shape[3];
    const int64_t Cg = C / A.groups, Cog = Co / A.groups;
    const Tensor &Wt = Params(Id, "weight"); // OIHW: {Co, C/groups, kh, kw}
    const Tensor *Bias = A.bias ? &Params(Id, "bias") : nullptr;
    Tensor Y(static_cast<size_t>(N * Co * Ho * Wo));
    for (int64_t n = 0; n < N; ++n)
      for (int64_t o = 0; o < Co; ++o)
        for (int64_t oh = 0; oh < Ho; ++oh)
          for (int64_t ow = 0; ow < Wo; ++ow) {
            double Sum = Bias ? (*Bias)[o] : 0.0;
            const int64_t G = o / Cog;
            for (int64_t c = 0; c < Cg; ++c)
              for (int64_t kh = 0; kh < A.kernelH; ++kh)
                for (int64_t kw = 0; kw < A.kernelW; ++kw) {
                  int64_t ih = oh * A.strideH - A.padTop + kh * A.dilationH;
                  int64_t iw = ow * A.strideW - A.padLeft + kw * A.dilationW;
                  if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                    continue;
                  Sum += X[((n * C + G * Cg + c) * H + ih) * W + iw] *
                         Wt[((o * Cg + c) * A.kernelH + kh) * A.kernelW + kw];
                }
            Y[((n * Co + o) * Ho + oh) * Wo + ow] = Sum;
          }
    return Y;
  }

  /// Y[r, f] = sum_k X[r, k] * W[f, k] (+ bias[f]); the weight is stored [out, in].
  Tensor dense(corpus::LayerId Id, const corpus::Layer &L, const corpus::DenseAttrs &A) {
    const Tensor &X = in(L, 0);
    const int64_t K = inShape(L, 0).back(), F = A.outFeatures;
    const int64_t Rows = static_cast<int64_t>(X.size()) / K;
    const Tensor &Wt = Params(Id, "weight");
    const Tensor *Bias = A.bias ? &Params(Id, "bias") : nullptr;
    Tensor Y(static_cast<size_t>(Rows * F));
    for (int64_t r = 0; r < Rows; ++r)
      for (int64_t f = 0; f < F; ++f) {
        double Sum = Bias ? (*Bias)[f] : 0.0;
        for (int64_t k = 0; k < K; ++k)
          Sum += X[r * K + k] * Wt[f * K + k];
        Y[r * F + f] = Sum;
      }
    return Y;
  }

  Tensor batchNorm(corpus::LayerId Id, const corpus::Layer &L) {
    const Tensor &X = in(L, 0);
    const Tensor &Scale = Params(Id, "bn_scale");
    const Tensor &Shift = Params(Id, "bn_shift");
    const int64_t C = L.shape[1];
    const int64_t Inner = corpus::elementCount(L.shape) / (L.shape[0] * C);
    Tensor Y(X.size());
    for (size_t I = 0; I < X.size(); ++I) {
      int64_t c = (static_cast<int64_t>(I) / Inner) % C;
      Y[I] = X[I] * Scale[c] + Shift[c];
    }
    return Y;
  }

  static double sigmoid(double X) { return 1.0 / (1.0 + std::exp(-X)); }

  static Tensor activation(const Tensor &X, const corpus::ActivationAttrs &A) {
    Tensor Y(X.size());
    for (size_t I = 0; I < X.size(); ++I) {
      double V = X[I];
      switch (A.kind) {
      case corpus::ActKind::Relu:
        V = std::max(V, 0.0);
        break;
      case corpus::ActKind::Clip:
        V = std::min(std::max(V, double(A.alpha)), double(A.beta));
        break;
      case corpus::ActKind::Sigmoid:
        V = sigmoid(V);
        break;
      case corpus::ActKind::HardSigmoid:
        V = std::max(0.0, std::min(1.0, double(A.alpha) * V + double(A.beta)));
        break;
      case corpus::ActKind::HardSwish:
        V = V * std::min(std::max(V + 3.0, 0.0), 6.0) / 6.0;
        break;
      case corpus::ActKind::Swish:
        V = V * sigmoid(V);
        break;
      case corpus::ActKind::Tanh:
        V = std::tanh(V);
        break;
      case corpus::ActKind::Gelu:
        V = V * 0.5 * (1.0 + std::erf(V / std::sqrt(2.0)));
        break;
      case corpus::ActKind::Sqrt:
        V = std::sqrt(V);
        break;
      case corpus::ActKind::LeakyRelu:
        V = V > 0 ? V : V * double(A.alpha);
        break;
      case corpus::ActKind::Softplus:
        V = std::log1p(std::exp(V));
        break;
      case corpus::ActKind::Exp:
        V = std::exp(V);
        break;
      case corpus::ActKind::GeluTanh:
        V = 0.5 * V * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (V + 0.044715 * V * V * V)));
        break;
      case corpus::ActKind::Elu:
        V = V > 0 ? V : double(A.alpha) * std::expm1(V);
        break;
      case corpus::ActKind::Selu:
        V = 1.0507009873554804934 * (V > 0 ? V : 1.6732632423543772848 * std::expm1(V));
        break;
      case corpus::ActKind::Celu:
        V = std::max(0.0, V) + std::min(0.0, double(A.alpha) * std::expm1(V / double(A.alpha)));
        break;
      }
      Y[I] = V;
    }
    return Y;
  }

  static double apply(corpus::LayerKind Kind, double A, double B) {
    switch (Kind) {
    case corpus::LayerKind::Mul:
      return A * B;
    case corpus::LayerKind::Div:
      return A / B;
    case corpus::LayerKind::Pow:
      return std::pow(A, B);
    default:
      return A + B;
    }
  }

  /// Add / Mul / Div / Pow with numpy broadcasting over up to 4 dimensions, or with a scalar.
  Tensor binary(const corpus::Layer &L) {
    const auto &Attrs = std::get<corpus::EltwiseAttrs>(L.attrs);
    if (Attrs.scalar) {
      Tensor Y = in(L, 0);
      for (double &V : Y)
        V = apply(L.kind, V, *Attrs.scalar);
      return Y;
    }
    assert(L.inputs.size() == 2 && "constant operands are not modelled by the reference");
    const Tensor &A = in(L, 0), &B = in(L, 1);
    const corpus::Shape &SA = inShape(L, 0), &SB = inShape(L, 1), &SY = L.shape;
    Tensor Y(static_cast<size_t>(corpus::elementCount(SY)));
    int64_t D[4], DA[4], DB[4];
    for (int I = 0; I < 4; ++I)
      D[I] = dim4(SY, I), DA[I] = dim4(SA, I), DB[I] = dim4(SB, I);
    for (size_t Lin = 0; Lin < Y.size(); ++Lin) {
      int64_t Idx[4], R = static_cast<int64_t>(Lin);
      for (int I = 3; I >= 0; --I)
        Idx[I] = R % D[I], R /= D[I];
      int64_t IA = 0, IB = 0;
      for (int I = 0; I < 4; ++I) {
        IA = IA * DA[I] + (DA[I] == 1 ? 0 : Idx[I]);
        IB = IB * DB[I] + (DB[I] == 1 ? 0 : Idx[I]);
      }
      Y[Lin] = apply(L.kind, A[IA], B[IB]);
    }
    return Y;
  }

  /// [..., m, n] x [..., n, k]: one matrix product per leading index.
  Tensor matMul(const corpus::Layer &L) {
    const Tensor &A = in(L, 0), &B = in(L, 1);
    const corpus::Shape &SA = inShape(L, 0);
    const int64_t M = SA[SA.size() - 2], N = SA.back(), K = L.shape.back();
    const int64_t Batch = static_cast<int64_t>(A.size()) / (M * N);
    Tensor Y(static_cast<size_t>(Batch * M * K), 0.0);
    for (int64_t b = 0; b < Batch; ++b)
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < K; ++j)
          for (int64_t n = 0; n < N; ++n)
            Y[(b * M + i) * K + j] += A[(b * M + i) * N + n] * B[(b * N + n) * K + j];
    return Y;
  }

  /// Over the last dimension: (x - mean) / sqrt(biased variance + eps) * weight + bias.
  Tensor layerNorm(corpus::LayerId Id, const corpus::Layer &L, const corpus::LayerNormAttrs &A) {
    const Tensor &X = in(L, 0);
    const int64_t H = L.shape.back(), Rows = static_cast<int64_t>(X.size()) / H;
    const Tensor Ones(static_cast<size_t>(H), 1.0), Zeros(static_cast<size_t>(H), 0.0);
    const Tensor &W = A.affine ? Params(Id, "weight") : Ones;
    const Tensor &Bias = A.affine ? Params(Id, "bias") : Zeros;
    Tensor Y(X.size());
    for (int64_t r = 0; r < Rows; ++r) {
      double Mean = 0, Var = 0;
      for (int64_t h = 0; h < H; ++h)
        Mean += X[r * H + h] / static_cast<double>(H);
      for (int64_t h = 0; h < H; ++h)
        Var += (X[r * H + h] - Mean) * (X[r * H + h] - Mean) / static_cast<double>(H);
      for (int64_t h = 0; h < H; ++h)
        Y[r * H + h] = (X[r * H + h] - Mean) / std::sqrt(Var + A.epsilon) * W[h] + Bias[h];
    }
    return Y;
  }

  Tensor pool(const corpus::Layer &L, const corpus::PoolAttrs &A, bool Max) {
    const Tensor &X = in(L, 0);
    const corpus::Shape &S = inShape(L, 0);
    const int64_t NC = S[0] * S[1], H = S[2], W = S[3], Ho = L.shape[2], Wo = L.shape[3];
    Tensor Y(static_cast<size_t>(NC * Ho * Wo));
    for (int64_t p = 0; p < NC; ++p)
      for (int64_t oh = 0; oh < Ho; ++oh)
        for (int64_t ow = 0; ow < Wo; ++ow) {
          double Acc = Max ? -std::numeric_limits<double>::infinity() : 0.0;
          int64_t Count = 0, PadCount = 0;
          for (int64_t kh = 0; kh < A.kernelH; ++kh)
            for (int64_t kw = 0; kw < A.kernelW; ++kw) {
              int64_t ih = oh * A.strideH - A.padTop + kh, iw = ow * A.strideW - A.padLeft + kw;
              if (ih < H + A.padBottom && iw < W + A.padRight)
                ++PadCount; // inside the padded input
              if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                continue;
              double V = X[(p * H + ih) * W + iw];
              Acc = Max ? std::max(Acc, V) : Acc + V;
              ++Count;
            }
          Y[(p * Ho + oh) * Wo + ow] =
              Max ? Acc : Acc / static_cast<double>(A.countIncludePad ? PadCount : Count);
        }
    return Y;
  }

  Tensor globalAvgPool(const corpus::Layer &L) {
    const Tensor &X = in(L, 0);
    const corpus::Shape &S = inShape(L, 0);
    const int64_t NC = S[0] * S[1], HW = S[2] * S[3];
    Tensor Y(static_cast<size_t>(NC), 0.0);
    for (int64_t p = 0; p < NC; ++p) {
      for (int64_t i = 0; i < HW; ++i)
        Y[p] += X[p * HW + i];
      Y[p] /= static_cast<double>(HW);
    }
    return Y;
  }

  Tensor softmax(const corpus::Layer &L, const corpus::SoftmaxAttrs &A) {
    const Tensor &X = in(L, 0);
    const int64_t Rank = static_cast<int64_t>(L.shape.size());
    const int64_t Axis = A.axis < 0 ? A.axis + Rank : A.axis;
    int64_t Inner = 1;
    for (int64_t I = Axis + 1; I < Rank; ++I)
      Inner *= L.shape[I];
    const int64_t Len = L.shape[Axis], Outer = static_cast<int64_t>(X.size()) / (Len * Inner);
    Tensor Y(X.size());
    for (int64_t o = 0; o < Outer; ++o)
      for (int64_t i = 0; i < Inner; ++i) {
        auto At = [&](int64_t k) { return (o * Len + k) * Inner + i; };
        double M = -std::numeric_limits<double>::infinity(), Sum = 0;
        for (int64_t k = 0; k < Len; ++k)
          M = std::max(M, X[At(k)]);
        for (int64_t k = 0; k < Len; ++k)
          Sum += (Y[At(k)] = std::exp(X[At(k)] - M));
        for (int64_t k = 0; k < Len; ++k)
          Y[At(k)] /= Sum;
      }
    return Y;
  }

  /// ONNX Expand: output element (i_0, ..., i_r-1) reads the input at i_k, or 0 where the
  /// input's dimension (aligned to the right) is 1.
  Tensor expand(const corpus::Layer &L) {
    const Tensor &X = in(L, 0);
    corpus::Shape S(L.shape.size() - inShape(L, 0).size(), 1);
    S.insert(S.end(), inShape(L, 0).begin(), inShape(L, 0).end());
    Tensor Y(static_cast<size_t>(corpus::elementCount(L.shape)));
    for (size_t I = 0; I < Y.size(); ++I) {
      int64_t Rest = int64_t(I), Source = 0, Stride = 1;
      for (size_t D = S.size(); D-- > 0;) {
        const int64_t Coord = Rest % L.shape[D];
        Rest /= L.shape[D];
        Source += (S[D] == 1 ? 0 : Coord) * Stride;
        Stride *= S[D];
      }
      Y[I] = X[size_t(Source)];
    }
    return Y;
  }

  /// ONNX ReduceSum, ReduceMean, ...: each output gathers the elements that differ from it only
  /// on the axes [first, last).
  Tensor reduce(const corpus::Layer &L, const corpus::ReduceAttrs &A) {
    using Op = corpus::ReduceOp;
    const Tensor &X = in(L, 0);
    const corpus::Shape &S = inShape(L, 0);
    int64_t Len = 1, Inner = 1;
    for (int64_t D = A.first; D < A.last; ++D)
      Len *= S[size_t(D)];
    for (size_t D = size_t(A.last); D < S.size(); ++D)
      Inner *= S[D];
    const int64_t Outer = static_cast<int64_t>(X.size()) / (Len * Inner);
    Tensor Y(static_cast<size_t>(Outer * Inner));
    for (int64_t o = 0; o < Outer; ++o)
      for (int64_t i = 0; i < Inner; ++i) {
        std::vector<double> V;
        for (int64_t k = 0; k < Len; ++k)
          V.push_back(X[(o * Len + k) * Inner + i]);
        double R = 0;
        if (A.op == Op::Max || A.op == Op::Min)
          R = A.op == Op::Max ? *std::max_element(V.begin(), V.end())
                              : *std::min_element(V.begin(), V.end());
        for (double E : V)
          R += A.op == Op::Sum || A.op == Op::Mean  ? E
               : A.op == Op::L1                     ? std::fabs(E)
               : A.op == Op::Max || A.op == Op::Min ? 0.0
                                                    : E * E;
        Y[o * Inner + i] = A.op == Op::Mean ? R / double(Len) : A.op == Op::L2 ? std::sqrt(R) : R;
      }
    return Y;
  }

  /// ONNX Pad: constant (the value), reflect (mirrored without the edge: -1 reads 1) or edge
  /// (the nearest edge element).
  Tensor pad(const corpus::Layer &L, const corpus::PadAttrs &A) {
    const Tensor &X = in(L, 0);
    const corpus::Shape &S = inShape(L, 0);
    const int64_t NC = S[0] * S[1], H = S[2], W = S[3], Ho = L.shape[2], Wo = L.shape[3];
    auto Source = [&](int64_t I, int64_t N) -> int64_t {
      switch (A.mode) {
      case corpus::PadMode::Reflect:
        return I < 0 ? -I : (I >= N ? 2 * (N - 1) - I : I);
      case corpus::PadMode::Edge:
        return std::clamp<int64_t>(I, 0, N - 1);
      case corpus::PadMode::Constant:
        break;
      }
      return I >= 0 && I < N ? I : -1;
    };
    Tensor Y(static_cast<size_t>(NC * Ho * Wo), A.value);
    for (int64_t p = 0; p < NC; ++p)
      for (int64_t h = 0; h < Ho; ++h)
        for (int64_t w = 0; w < Wo; ++w) {
          const int64_t Ih = Source(h - A.top, H), Iw = Source(w - A.left, W);
          if (Ih >= 0 && Iw >= 0)
            Y[size_t((p * Ho + h) * Wo + w)] = X[size_t((p * H + Ih) * W + Iw)];
        }
    return Y;
  }

  Tensor concat(const corpus::Layer &L, const corpus::ConcatAttrs &A) {
    const int64_t Rank = static_cast<int64_t>(L.shape.size());
    const int64_t Axis = A.axis < 0 ? A.axis + Rank : A.axis;
    int64_t Outer = 1;
    for (int64_t I = 0; I < Axis; ++I)
      Outer *= L.shape[I];
    Tensor Y;
    Y.reserve(static_cast<size_t>(corpus::elementCount(L.shape)));
    for (int64_t o = 0; o < Outer; ++o)
      for (size_t K = 0; K < L.inputs.size(); ++K) {
        const Tensor &X = in(L, K);
        const int64_t Chunk = static_cast<int64_t>(X.size()) / Outer;
        Y.insert(Y.end(), X.begin() + o * Chunk, X.begin() + (o + 1) * Chunk);
      }
    return Y;
  }

  /// Nearest: out[n, c, h, w] = in[n, c, h / scaleH, w / scaleW]. Bilinear (as PyTorch's
  /// upsample_bilinear2d and ONNX's linear Resize): the 2 x 2 inputs around the source coordinate
  /// per axis, weighted by the distance, the far one clamped to the edge; ONNX's
  /// coordinate_transformation_mode gives the source of output o: half_pixel max(0, (o + 0.5) /
  /// scale - 0.5) (ONNX clamps below zero), align_corners o (in - 1) / (out - 1), asymmetric
  /// o / scale.
  Tensor upsample(const corpus::Layer &L, const corpus::UpsampleAttrs &A) {
    const Tensor &X = in(L, 0);
    const corpus::Shape &S = inShape(L, 0);
    const int64_t Planes = S[0] * S[1], H = L.shape[2], W = L.shape[3];
    struct Tap {
      int64_t near, far;
      double weight; ///< of the far one
    };
    auto TapOf = [&](int64_t O, int64_t Scale, int64_t In) {
      const int64_t Out = In * Scale;
      const double Src = A.coords == corpus::ResizeCoords::AlignCorners
                             ? (Out > 1 ? double(O) * double(In - 1) / double(Out - 1) : 0.0)
                         : A.coords == corpus::ResizeCoords::Asymmetric
                             ? double(O) / double(Scale)
                             : std::max(0.0, (double(O) + 0.5) / double(Scale) - 0.5);
      const int64_t Near = int64_t(Src);
      return Tap{Near, std::min(Near + 1, In - 1), Src - double(Near)};
    };
    Tensor Y(static_cast<size_t>(Planes * H * W));
    for (int64_t P = 0; P < Planes; ++P)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t w = 0; w < W; ++w) {
          double &Out = Y[size_t((P * H + h) * W + w)];
          if (!A.linear) {
            Out = X[size_t((P * S[2] + h / A.scaleH) * S[3] + w / A.scaleW)];
            continue;
          }
          const Tap Ty = TapOf(h, A.scaleH, S[2]), Tx = TapOf(w, A.scaleW, S[3]);
          auto At = [&](int64_t Row, int64_t Col) {
            return X[size_t((P * S[2] + Row) * S[3] + Col)];
          };
          auto Blend = [&](int64_t Row) {
            return (1 - Tx.weight) * At(Row, Tx.near) + Tx.weight * At(Row, Tx.far);
          };
          Out = (1 - Ty.weight) * Blend(Ty.near) + Ty.weight * Blend(Ty.far);
        }
    return Y;
  }

  /// Transpose (output dim k is input dim perm[k], reversed when perm is empty) and Slice (ONNX:
  /// negative positions count from the end, clamped to the axis; steps default to 1): every
  /// output element read from its input coordinates.
  Tensor gather(const corpus::Layer &L) {
    const corpus::Shape &S = inShape(L, 0);
    const size_t Rank = S.size();
    std::vector<int64_t> Perm(Rank), Start(Rank, 0), Step(Rank, 1);
    for (size_t D = 0; D < Rank; ++D)
      Perm[D] = static_cast<int64_t>(L.kind == corpus::LayerKind::Transpose ? Rank - 1 - D : D);
    if (const auto *T = std::get_if<corpus::TransposeAttrs>(&L.attrs); T && !T->perm.empty())
      Perm = T->perm;
    if (const auto *A = std::get_if<corpus::SliceAttrs>(&L.attrs))
      for (size_t I = 0; I < A->axes.size(); ++I) {
        const int64_t Ax = A->axes[I] < 0 ? A->axes[I] + int64_t(Rank) : A->axes[I];
        const int64_t Dim = S[size_t(Ax)];
        const int64_t P = A->starts[I] < -Dim ? 0
                          : A->starts[I] < 0  ? A->starts[I] + Dim
                                              : A->starts[I];
        Start[size_t(Ax)] = std::min(P, Dim);
        Step[size_t(Ax)] = A->steps.empty() ? 1 : A->steps[I];
      }
    const Tensor &X = in(L, 0);
    Tensor Y(static_cast<size_t>(corpus::elementCount(L.shape)));
    std::vector<int64_t> Out(Rank, 0), InCoord(Rank);
    for (size_t I = 0; I < Y.size(); ++I) {
      for (size_t K = 0; K < Rank; ++K)
        InCoord[size_t(Perm[K])] = Start[size_t(Perm[K])] + Out[K] * Step[size_t(Perm[K])];
      int64_t Flat = 0;
      for (size_t D = 0; D < Rank; ++D)
        Flat = Flat * S[D] + InCoord[D];
      Y[I] = X[static_cast<size_t>(Flat)];
      for (size_t K = Rank; K-- > 0;) // next output coordinate, row-major
        if (++Out[K] < L.shape[K])
          break;
        else
          Out[K] = 0;
    }
    return Y;
  }
};

} // namespace netref
