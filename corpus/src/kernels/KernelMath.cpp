// KernelBuilder's arithmetic: e^x, min/max, tanh, erf, pow, rsqrt and the activations, built
// from PTX's approximate special functions (ex2, lg2, rsqrt) and fused multiply-adds.
#include "kernels/KernelBuilder.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <cassert>
#include <iterator>
#include <limits>

using namespace llvm;

namespace corpus::kernels {

Value *KernelBuilder::exp(Value *X) {
  Value *Scaled = B.CreateFMul(X, f32(1.4426950408889634f));
  return B.CreateIntrinsic(Intrinsic::nvvm_ex2_approx_f, {}, {Scaled});
}

Value *KernelBuilder::maxf(Value *A, Value *Bv) {
  return B.CreateBinaryIntrinsic(Intrinsic::maxnum, A, Bv);
}

Value *KernelBuilder::minf(Value *A, Value *Bv) {
  return B.CreateBinaryIntrinsic(Intrinsic::minnum, A, Bv);
}

// tanh: an odd Taylor polynomial below |x| = 0.3 (error < 1e-7 relative), else
// sign(x) * (1 - e) / (1 + e) with e = exp(-2|x|), which has no cancellation there.
Value *KernelBuilder::tanh(Value *X) {
  Value *X2 = B.CreateFMul(X, X);
  Value *P = f32(62.0f / 2835.0f);
  for (float C : {-17.0f / 315.0f, 2.0f / 15.0f, -1.0f / 3.0f, 1.0f})
    P = B.CreateFAdd(B.CreateFMul(P, X2), f32(C));
  Value *Small = B.CreateFMul(X, P);
  Value *Ax = B.CreateUnaryIntrinsic(Intrinsic::fabs, X);
  Value *E = exp(B.CreateFMul(Ax, f32(-2.0f)));
  Value *T = B.CreateFDiv(B.CreateFSub(f32(1.0f), E), B.CreateFAdd(f32(1.0f), E));
  Value *Large = B.CreateBinaryIntrinsic(Intrinsic::copysign, T, X);
  return B.CreateSelect(B.CreateFCmpOLT(Ax, f32(0.3f)), Small, Large);
}

Value *KernelBuilder::rsqrt(Value *X) {
  return B.CreateIntrinsic(Intrinsic::nvvm_rsqrt_approx_f, {}, {X});
}

namespace {

/// erf(x) = x * P(x^2) for |x| < 1; erf(x) = sign(x) (1 - e^Q(|x|)) for 1 <= |x| (|x| clamped to
/// 4, where erf rounds to 1 in f32): P and Q are Chebyshev interpolants of erf(x) / x on
/// x^2 in [0, 1] (degree 5) and of log(erfc(x)) on [1, 4] (degree 7), rounded to f32. With
/// exact exp, the f32 evaluation is within 1.7e-7 relative of erf.
constexpr float ErfSmall[] = {1.128379107e+00f,  -3.761234283e-01f, 1.128031686e-01f,
                              -2.671505511e-02f, 4.921761807e-03f,  -5.648059887e-04f};
constexpr float ErfLarge[] = {-7.658977993e-04f, -1.125893593e+00f, -6.391412616e-01f,
                              -1.032811180e-01f, 2.260477282e-02f,  -3.432351397e-03f,
                              3.169370175e-04f,  -1.327236168e-05f};

} // namespace

Value *KernelBuilder::erf(Value *X) {
  auto Horner = [&](const float *C, size_t N, Value *T) {
    Value *R = f32(C[N - 1]);
    for (size_t I = N - 1; I-- > 0;)
      R = fma(R, T, f32(C[I]));
    return R;
  };
  Value *Ax = B.CreateUnaryIntrinsic(Intrinsic::fabs, X);
  Value *Small = B.CreateFMul(X, Horner(ErfSmall, std::size(ErfSmall), B.CreateFMul(X, X)));
  Value *Q = Horner(ErfLarge, std::size(ErfLarge), minf(Ax, f32(4.0f)));
  Value *Large = B.CreateBinaryIntrinsic(Intrinsic::copysign, B.CreateFSub(f32(1.0f), exp(Q)), X);
  return B.CreateSelect(B.CreateFCmpOLT(Ax, f32(1.0f)), Small, Large);
}

Value *KernelBuilder::pow(Value *X, Value *Y) {
  Value *Ax = B.CreateUnaryIntrinsic(Intrinsic::fabs, X);
  Value *Log = B.CreateIntrinsic(Intrinsic::nvvm_lg2_approx_f, {}, {Ax});
  Value *R = B.CreateIntrinsic(Intrinsic::nvvm_ex2_approx_f, {}, {B.CreateFMul(Y, Log)});
  // A negative base: (-1)^Y |X|^Y for an integer Y, NaN otherwise (powf's rule).
  Value *IsInt = B.CreateFCmpOEQ(B.CreateUnaryIntrinsic(Intrinsic::floor, Y), Y);
  Value *Half = B.CreateFMul(Y, f32(0.5f));
  Value *Odd =
      B.CreateAnd(IsInt, B.CreateFCmpUNE(B.CreateUnaryIntrinsic(Intrinsic::floor, Half), Half));
  Value *Negative = B.CreateSelect(IsInt, B.CreateSelect(Odd, B.CreateFNeg(R), R),
                                   f32(std::numeric_limits<float>::quiet_NaN()));
  R = B.CreateSelect(B.CreateFCmpOLT(X, f32(0.0f)), Negative, R);
  return B.CreateSelect(B.CreateFCmpOEQ(Y, f32(0.0f)), f32(1.0f), R);
}

Value *KernelBuilder::powConst(Value *X, float C) {
  // PyTorch: pow_out fills 1 for exponent 0 and copies for 1; pow_tensor_scalar_kernel calls
  // the sqrt, rsqrt and reciprocal kernels for 0.5, -0.5 and -1 and multiplies for 2, 3, -2.
  if (C == 0.0f)
    return f32(1.0f);
  if (C == 1.0f)
    return X;
  if (C == 0.5f)
    return B.CreateUnaryIntrinsic(Intrinsic::sqrt, X);
  if (C == -0.5f)
    return rsqrt(X);
  if (C == -1.0f)
    return B.CreateFDiv(f32(1.0f), X);
  if (C == 2.0f)
    return B.CreateFMul(X, X);
  if (C == 3.0f)
    return B.CreateFMul(B.CreateFMul(X, X), X);
  if (C == -2.0f)
    return B.CreateFDiv(f32(1.0f), B.CreateFMul(X, X));
  return pow(X, f32(C));
}

// expm1, as PyTorch's elu computes it: e^x - 1 cancels for small |x|, where the degree-6 Taylor
// polynomial is within 5e-8 relative (at |x| = 0.25; an f32 ulp); both are computed and selected
// (branch-free).
Value *KernelBuilder::expm1(Value *X) {
  Value *P = f32(1.0f / 720.0f);
  for (float C : {1.0f / 120.0f, 1.0f / 24.0f, 1.0f / 6.0f, 0.5f, 1.0f})
    P = fma(P, X, f32(C));
  Value *Small = B.CreateFMul(X, P);
  Value *Large = B.CreateFSub(exp(X), f32(1.0f));
  Value *Ax = B.CreateUnaryIntrinsic(Intrinsic::fabs, X);
  return B.CreateSelect(B.CreateFCmpOLT(Ax, f32(0.25f)), Small, Large);
}

Value *KernelBuilder::eluFamily(Value *X, float Alpha, float InputScale, float Scale) {
  Value *In = InputScale == 1.0f ? X : B.CreateFMul(X, f32(InputScale));
  Value *Negative = B.CreateFMul(f32(Alpha), expm1(In));
  Value *Y = B.CreateSelect(B.CreateFCmpOGT(X, f32(0.0f)), X, Negative);
  return Scale == 1.0f ? Y : B.CreateFMul(f32(Scale), Y);
}

Value *KernelBuilder::activation(ActivationKind K, Value *X) {
  assert(!activationTakesAlpha(K) && "this activation needs its alpha");
  return activation(K, X, 0.0f);
}

Value *KernelBuilder::activation(ActivationKind K, Value *X, float Alpha) {
  auto Sigmoid = [&](Value *V) {
    Value *E = exp(B.CreateFNeg(V));
    return B.CreateFDiv(f32(1.0f), B.CreateFAdd(f32(1.0f), E));
  };
  auto HardSigmoid = [&](Value *V) {
    Value *Lin = B.CreateFAdd(B.CreateFMul(V, f32(1.0f / 6.0f)), f32(0.5f));
    return minf(maxf(Lin, f32(0.0f)), f32(1.0f));
  };
  switch (K) {
  case ActivationKind::None:
    return X;
  case ActivationKind::Relu:
    return maxf(X, f32(0.0f));
  case ActivationKind::Relu6:
    return minf(maxf(X, f32(0.0f)), f32(6.0f));
  case ActivationKind::Sigmoid:
    return Sigmoid(X);
  case ActivationKind::HardSigmoid:
    return HardSigmoid(X);
  case ActivationKind::HardSwish:
    return B.CreateFMul(X, HardSigmoid(X));
  case ActivationKind::Swish:
    return B.CreateFMul(X, Sigmoid(X));
  case ActivationKind::Tanh:
    return tanh(X);
  case ActivationKind::Gelu: // PyTorch: x * 0.5 * (1 + erf(x * M_SQRT1_2))
    return B.CreateFMul(B.CreateFMul(X, f32(0.5f)),
                        B.CreateFAdd(f32(1.0f), erf(B.CreateFMul(X, f32(0.70710678118654752f)))));
  case ActivationKind::Sqrt:
    return B.CreateUnaryIntrinsic(Intrinsic::sqrt, X);
  case ActivationKind::Softplus: { // ln(1 + e^x), overflow-free: max(x, 0) + ln(1 + e^-|x|)
    Value *E = exp(B.CreateFNeg(B.CreateUnaryIntrinsic(Intrinsic::fabs, X)));
    Value *Lg2 = B.CreateIntrinsic(Intrinsic::nvvm_lg2_approx_f, {}, {B.CreateFAdd(f32(1.0f), E)});
    return B.CreateFAdd(maxf(X, f32(0.0f)), B.CreateFMul(Lg2, f32(0.6931471805599453f)));
  }
  case ActivationKind::Exp:
    return exp(X);
  case ActivationKind::GeluTanh: { // PyTorch: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    Value *Cube = B.CreateFMul(B.CreateFMul(X, X), X);
    Value *Inner = B.CreateFMul(f32(0.7978845608028654f), fma(Cube, f32(0.044715f), X));
    return B.CreateFMul(B.CreateFMul(X, f32(0.5f)), B.CreateFAdd(f32(1.0f), tanh(Inner)));
  }
  case ActivationKind::LeakyRelu: // PyTorch: x > 0 ? x : x * negative_slope
    return B.CreateSelect(B.CreateFCmpOGT(X, f32(0.0f)), X, B.CreateFMul(X, f32(Alpha)));
  case ActivationKind::Selu:
    return eluFamily(X, SeluAlpha, 1.0f, SeluScale);
  case ActivationKind::Elu:
    return eluFamily(X, Alpha, 1.0f, 1.0f);
  case ActivationKind::Celu: // max(0, x) + min(0, alpha expm1(x / alpha)), as PyTorch's
    return eluFamily(X, Alpha, 1.0f / Alpha, 1.0f);
  }
  assert(false && "unknown activation kind");
  return X;
}

} // namespace corpus::kernels
