// Shape inference of one layer (LayerShapes.h).
#include "LayerShapes.h"

#include <algorithm>

namespace corpus::layershapes {

namespace {

LayerResult fail(std::string Message) {
  LayerResult R;
  R.error = std::move(Message);
  return R;
}

std::string str(int64_t V) { return std::to_string(V); }

LayerResult needRank4(const Shape &S) {
  if (S.size() != 4)
    return fail("expects a 4-d NCHW input, got " + shapeStr(S));
  return {};
}

/// Output extent of a sliding window; 0 or less means the window does not fit.
int64_t windowOut(int64_t In, int64_t PadBefore, int64_t PadAfter, int64_t Kernel, int64_t Stride,
                  int64_t Dilation, bool Ceil) {
  int64_t Span = In + PadBefore + PadAfter - Dilation * (Kernel - 1) - 1;
  if (Span < 0)
    return 0;
  int64_t Out = (Ceil ? (Span + Stride - 1) / Stride : Span / Stride) + 1;
  // A ceil-mode window must start inside the input or its leading padding (PyTorch, ONNX).
  if (Ceil && (Out - 1) * Stride >= In + PadBefore)
    --Out;
  return Out;
}

LayerResult inferConv(const InShapes &In, const ConvAttrs &A) {
  const Shape &X = *In[0];
  if (auto R = needRank4(X); !R.error.empty())
    return R;
  if (A.outChannels <= 0 || A.kernelH <= 0 || A.kernelW <= 0 || A.strideH <= 0 || A.strideW <= 0 ||
      A.dilationH <= 0 || A.dilationW <= 0 || A.groups <= 0)
    return fail("sizes, strides, dilations and groups must be positive");
  if (A.padTop < 0 || A.padLeft < 0 || A.padBottom < 0 || A.padRight < 0)
    return fail("negative padding");
  int64_t Cin = X[1];
  if (Cin % A.groups != 0)
    return fail("input has " + str(Cin) + " channels, not divisible by groups=" + str(A.groups));
  if (A.outChannels % A.groups != 0)
    return fail(str(A.outChannels) + " output channels, not divisible by groups=" + str(A.groups));
  int64_t Ho = windowOut(X[2], A.padTop, A.padBottom, A.kernelH, A.strideH, A.dilationH, false);
  int64_t Wo = windowOut(X[3], A.padLeft, A.padRight, A.kernelW, A.strideW, A.dilationW, false);
  if (Ho <= 0 || Wo <= 0)
    return fail(str(A.kernelH) + "x" + str(A.kernelW) + " kernel does not fit input " +
                shapeStr(X));
  LayerResult R;
  R.shape = {X[0], A.outChannels, Ho, Wo};
  // Counts saturate: past the limits (Network::add) they are errors, not wrapped values.
  int64_t PerOutput = saturatingMul(saturatingMul(Cin / A.groups, A.kernelH), A.kernelW);
  R.params = saturatingAdd(saturatingMul(A.outChannels, PerOutput), A.bias ? A.outChannels : 0);
  R.macs = saturatingMul(elementCount(R.shape), PerOutput);
  return R;
}

LayerResult inferDense(const InShapes &In, const DenseAttrs &A) {
  const Shape &X = *In[0];
  if (X.size() < 2)
    return fail("expects an input of rank 2 or more, got " + shapeStr(X));
  if (A.outFeatures <= 0)
    return fail("output features must be positive");
  int64_t Features = X.back();
  LayerResult R;
  R.shape = X;
  R.shape.back() = A.outFeatures;
  R.params = saturatingAdd(saturatingMul(Features, A.outFeatures), A.bias ? A.outFeatures : 0);
  R.macs = saturatingMul(elementCount(X), A.outFeatures);
  return R;
}

/// Numpy multidirectional broadcasting.
LayerResult broadcast(const Shape &A, const Shape &B) {
  size_t Rank = std::max(A.size(), B.size());
  LayerResult R;
  R.shape.assign(Rank, 1);
  for (size_t I = 0; I < Rank; ++I) {
    int64_t DA = I < Rank - A.size() ? 1 : A[I - (Rank - A.size())];
    int64_t DB = I < Rank - B.size() ? 1 : B[I - (Rank - B.size())];
    if (DA != DB && DA != 1 && DB != 1)
      return fail("shapes " + shapeStr(A) + " and " + shapeStr(B) + " do not broadcast");
    R.shape[I] = DA == 1 ? DB : DA;
  }
  return R;
}

LayerResult inferEltwise(const InShapes &In, const EltwiseAttrs &A) {
  if (A.constant && A.scalar)
    return fail("has both a constant tensor and a scalar operand");
  const bool OneInput = A.constant || A.scalar;
  if (OneInput && In.size() != 1)
    return fail("expects one input besides its constant operand, got " + str(In.size()));
  if (!OneInput && In.size() != 2)
    return fail("expects two inputs, got " + str(In.size()));
  if (A.scalar) {
    LayerResult R;
    R.shape = *In[0];
    return R;
  }
  const Shape &Other = A.constant ? *A.constant : *In[1];
  LayerResult R = broadcast(*In[0], Other);
  if (A.constant)
    R.params = elementCount(*A.constant);
  return R;
}

LayerResult inferMatMul(const InShapes &In) {
  if (In.size() != 2)
    return fail("expects two inputs, got " + str(In.size()));
  const Shape &A = *In[0], &B = *In[1];
  if (A.size() < 2 || A.size() != B.size())
    return fail("expects two inputs of the same rank >= 2, got " + shapeStr(A) + " and " +
                shapeStr(B));
  const size_t Rank = A.size();
  if (!std::equal(A.begin(), A.end() - 2, B.begin()) || A[Rank - 1] != B[Rank - 2])
    return fail("cannot multiply " + shapeStr(A) + " by " + shapeStr(B));
  LayerResult R;
  R.shape = A;
  R.shape.back() = B.back();
  R.macs = saturatingMul(elementCount(A), B.back()); // batch * m * n * k
  return R;
}

LayerResult inferPool(const InShapes &In, const PoolAttrs &A) {
  const Shape &X = *In[0];
  if (auto R = needRank4(X); !R.error.empty())
    return R;
  if (A.kernelH <= 0 || A.kernelW <= 0 || A.strideH <= 0 || A.strideW <= 0)
    return fail("kernel and strides must be positive");
  if (A.padTop < 0 || A.padLeft < 0 || A.padBottom < 0 || A.padRight < 0)
    return fail("negative padding");
  if (A.padTop >= A.kernelH || A.padBottom >= A.kernelH || A.padLeft >= A.kernelW ||
      A.padRight >= A.kernelW)
    return fail("padding must be smaller than the pooling window");
  int64_t Ho = windowOut(X[2], A.padTop, A.padBottom, A.kernelH, A.strideH, 1, A.ceilMode);
  int64_t Wo = windowOut(X[3], A.padLeft, A.padRight, A.kernelW, A.strideW, 1, A.ceilMode);
  if (Ho <= 0 || Wo <= 0)
    return fail(str(A.kernelH) + "x" + str(A.kernelW) + " window does not fit input " +
                shapeStr(X));
  LayerResult R;
  R.shape = {X[0], X[1], Ho, Wo};
  return R;
}

/// Resolves a possibly negative axis against a rank; -1 when out of range.
int64_t resolveAxis(int64_t Axis, size_t Rank, bool AllowRank = false) {
  int64_t R = static_cast<int64_t>(Rank);
  int64_t A = Axis < 0 ? Axis + R : Axis;
  return A < 0 || A > R || (A == R && !AllowRank) ? -1 : A;
}

LayerResult inferFlatten(const InShapes &In, const FlattenAttrs &A) {
  const Shape &X = *In[0];
  int64_t Axis = resolveAxis(A.axis, X.size(), true);
  if (Axis < 0)
    return fail("axis " + str(A.axis) + " out of range for " + shapeStr(X));
  Shape Outer(X.begin(), X.begin() + Axis), Inner(X.begin() + Axis, X.end());
  LayerResult R;
  R.shape = {elementCount(Outer), elementCount(Inner)};
  return R;
}

LayerResult inferReshape(const InShapes &In, const ReshapeAttrs &A) {
  const Shape &X = *In[0];
  LayerResult R;
  R.shape = A.target;
  int64_t Infer = -1, Known = 1;
  for (size_t I = 0; I < R.shape.size(); ++I) {
    int64_t &D = R.shape[I];
    if (D == 0) {
      if (I >= X.size())
        return fail("target " + shapeStr(A.target) + " copies a dimension " + shapeStr(X) +
                    " lacks");
      D = X[I];
    }
    if (D == -1) {
      if (Infer >= 0)
        return fail("target " + shapeStr(A.target) + " has more than one -1");
      Infer = static_cast<int64_t>(I);
      continue;
    }
    if (D <= 0)
      return fail("invalid target dimension " + str(D));
    Known = saturatingMul(Known, D);
  }
  int64_t Total = elementCount(X);
  if (Infer >= 0) {
    if (Total % Known != 0)
      return fail("cannot reshape " + shapeStr(X) + " to " + shapeStr(A.target));
    R.shape[Infer] = Total / Known;
  }
  if (elementCount(R.shape) != Total)
    return fail("cannot reshape " + shapeStr(X) + " to " + shapeStr(A.target));
  return R;
}

LayerResult inferConcat(const InShapes &In, const ConcatAttrs &A) {
  if (In.empty())
    return fail("expects at least one input");
  const Shape &First = *In[0];
  int64_t Axis = resolveAxis(A.axis, First.size());
  if (Axis < 0)
    return fail("axis " + str(A.axis) + " out of range for " + shapeStr(First));
  LayerResult R;
  R.shape = First;
  for (size_t I = 1; I < In.size(); ++I) {
    const Shape &S = *In[I];
    bool Match = S.size() == First.size();
    for (size_t D = 0; Match && D < S.size(); ++D)
      Match = static_cast<int64_t>(D) == Axis || S[D] == First[D];
    if (!Match)
      return fail("cannot concatenate " + shapeStr(First) + " and " + shapeStr(S) + " on axis " +
                  str(Axis));
    R.shape[Axis] = saturatingAdd(R.shape[Axis], S[Axis]);
  }
  return R;
}

LayerResult inferPad(const InShapes &In, const PadAttrs &A) {
  const Shape &X = *In[0];
  if (auto R = needRank4(X); !R.error.empty())
    return R;
  if (A.top < 0 || A.left < 0 || A.bottom < 0 || A.right < 0)
    return fail("negative padding");
  if (A.mode == PadMode::Reflect &&
      (A.top >= X[2] || A.bottom >= X[2] || A.left >= X[3] || A.right >= X[3]))
    return fail("reflect padding must be smaller than the input");
  LayerResult R;
  R.shape = {X[0], X[1], X[2] + A.top + A.bottom, X[3] + A.left + A.right};
  return R;
}

LayerResult inferTranspose(const Shape &X, const TransposeAttrs &A) {
  const std::vector<int64_t> Perm = resolvePerm(A, X.size());
  if (Perm.size() != X.size())
    return fail("perm has " + str(int64_t(Perm.size())) + " entries for " + shapeStr(X));
  std::vector<bool> Seen(X.size(), false);
  LayerResult R;
  for (int64_t P : Perm) {
    if (P < 0 || P >= int64_t(X.size()) || Seen[size_t(P)])
      return fail("perm is not a permutation of the " + str(int64_t(X.size())) + " dimensions");
    Seen[size_t(P)] = true;
    R.shape.push_back(X[size_t(P)]);
  }
  return R;
}

LayerResult inferSlice(const Shape &X, const SliceAttrs &A) {
  auto Ranges = resolveSlice(X, A);
  if (!Ranges)
    return fail(Ranges.error().message);
  LayerResult R;
  for (const SliceRange &S : *Ranges)
    R.shape.push_back(S.count);
  return R;
}

LayerResult inferUpsample(const Shape &X, const UpsampleAttrs &A) {
  if (auto R = needRank4(X); !R.error.empty())
    return R;
  if (A.scaleH < 1 || A.scaleW < 1 || A.scaleH > (int64_t(1) << 20) ||
      A.scaleW > (int64_t(1) << 20))
    return fail("scale factors must be integers in 1..2^20, got " + str(A.scaleH) + "x" +
                str(A.scaleW));
  LayerResult R;
  R.shape = {X[0], X[1], X[2] * A.scaleH, X[3] * A.scaleW};
  return R;
}

LayerResult inferUnary(LayerKind Kind, const Shape &X) {
  LayerResult R;
  R.shape = X;
  if (Kind == LayerKind::BatchNorm) {
    if (X.size() < 2)
      return fail("expects an input with a channel dimension, got " + shapeStr(X));
    R.params = 2 * X[1]; // gamma and beta (trainable); running mean/var are not parameters
  } else if (Kind == LayerKind::LayerNorm) {
    R.params = 2 * X.back(); // scale and shift per feature
  } else if (Kind == LayerKind::GlobalAvgPool) {
    if (X.size() < 3)
      return fail("expects an input with spatial dimensions, got " + shapeStr(X));
    std::fill(R.shape.begin() + 2, R.shape.end(), 1);
  }
  return R;
}

} // namespace

/// Which attribute alternative each kind takes.
bool attrsMatch(LayerKind Kind, const LayerAttrs &A) {
  switch (Kind) {
  case LayerKind::Input:
    return std::holds_alternative<InputAttrs>(A);
  case LayerKind::Conv:
    return std::holds_alternative<ConvAttrs>(A);
  case LayerKind::Dense:
    return std::holds_alternative<DenseAttrs>(A);
  case LayerKind::BatchNorm:
    return std::holds_alternative<BatchNormAttrs>(A);
  case LayerKind::Activation:
    return std::holds_alternative<ActivationAttrs>(A);
  case LayerKind::Add:
  case LayerKind::Mul:
  case LayerKind::Div:
  case LayerKind::Pow:
    return std::holds_alternative<EltwiseAttrs>(A);
  case LayerKind::MaxPool:
  case LayerKind::AvgPool:
    return std::holds_alternative<PoolAttrs>(A);
  case LayerKind::GlobalAvgPool:
    return std::holds_alternative<GlobalPoolAttrs>(A);
  case LayerKind::Flatten:
    return std::holds_alternative<FlattenAttrs>(A);
  case LayerKind::Reshape:
    return std::holds_alternative<ReshapeAttrs>(A);
  case LayerKind::Concat:
    return std::holds_alternative<ConcatAttrs>(A);
  case LayerKind::Softmax:
    return std::holds_alternative<SoftmaxAttrs>(A);
  case LayerKind::Pad:
    return std::holds_alternative<PadAttrs>(A);
  case LayerKind::Identity:
    return std::holds_alternative<IdentityAttrs>(A);
  case LayerKind::MatMul:
    return std::holds_alternative<MatMulAttrs>(A);
  case LayerKind::LayerNorm:
    return std::holds_alternative<LayerNormAttrs>(A);
  case LayerKind::Transpose:
    return std::holds_alternative<TransposeAttrs>(A);
  case LayerKind::Slice:
    return std::holds_alternative<SliceAttrs>(A);
  case LayerKind::Upsample:
    return std::holds_alternative<UpsampleAttrs>(A);
  }
  return false;
}

LayerResult infer(LayerKind Kind, const InShapes &In, const LayerAttrs &A) {
  bool Multi = Kind == LayerKind::Concat || Kind == LayerKind::Add || Kind == LayerKind::Mul ||
               Kind == LayerKind::Div || Kind == LayerKind::Pow || Kind == LayerKind::MatMul;
  if (!Multi && In.size() != 1)
    return fail("expects one input, got " + str(In.size()));
  if (In.empty())
    return fail("expects at least one input");
  if (auto *C = std::get_if<ConvAttrs>(&A))
    return inferConv(In, *C);
  if (auto *D = std::get_if<DenseAttrs>(&A))
    return inferDense(In, *D);
  if (auto *E = std::get_if<EltwiseAttrs>(&A))
    return inferEltwise(In, *E);
  if (std::holds_alternative<MatMulAttrs>(A))
    return inferMatMul(In);
  if (auto *P = std::get_if<PoolAttrs>(&A))
    return inferPool(In, *P);
  if (auto *F = std::get_if<FlattenAttrs>(&A))
    return inferFlatten(In, *F);
  if (auto *R = std::get_if<ReshapeAttrs>(&A))
    return inferReshape(In, *R);
  if (auto *C = std::get_if<ConcatAttrs>(&A))
    return inferConcat(In, *C);
  if (auto *P = std::get_if<PadAttrs>(&A))
    return inferPad(In, *P);
  if (auto *T = std::get_if<TransposeAttrs>(&A))
    return inferTranspose(*In[0], *T);
  if (auto *S = std::get_if<SliceAttrs>(&A))
    return inferSlice(*In[0], *S);
  if (auto *U = std::get_if<UpsampleAttrs>(&A))
    return inferUpsample(*In[0], *U);
  if (auto *S = std::get_if<SoftmaxAttrs>(&A); S && resolveAxis(S->axis, In[0]->size()) < 0)
    return fail("axis " + str(S->axis) + " out of range for " + shapeStr(*In[0]));
  return inferUnary(Kind, *In[0]);
}

} // namespace corpus::layershapes
