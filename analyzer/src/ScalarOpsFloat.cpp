// PTX f32/f64/f16/bf16 arithmetic (PTX ISA 9.7.3, 9.7.4): rounding modes, .ftz, .sat, min/max,
// testp. Rn fast paths use host IEEE operations; everything else goes through ScalarOpsCore.
#include "analyzer/ScalarOps.h"

#include "ScalarOpsCore.h"

#include <cmath>

namespace analyzer::scalar {
namespace {

float flushIf(float X, bool Ftz) { return Ftz ? flushF32(X) : X; }

/// Runs a core operation on f32 operands (already flushed if .ftz) and finishes the result.
template <class Op> float viaCoreF32(FpMode M, Op O) {
  return detail::finishF32(f32FromBits(uint32_t(O())), M);
}

uint16_t finishHalf(uint64_t Bits, core::Format F, FpMode M, bool Relu) {
  if (M.ftz)
    Bits = core::flushBits(Bits, F);
  core::Unpacked U = core::unpack(Bits, F);
  if (U.cls == core::Cls::NaN)
    return uint16_t(M.sat ? 0 : core::canonicalNanBits(F));
  if ((M.sat || Relu) && U.neg)
    return 0;
  if (M.sat) {
    uint64_t One = core::roundPack(false, 1, 0, F, Round::Rn);
    if (Bits > One)
      return uint16_t(One);
  }
  return uint16_t(Bits);
}

uint64_t halfIn(uint16_t X, core::Format F, bool Ftz) { return Ftz ? core::flushBits(X, F) : X; }

/// The value of a 16-bit pattern of format F (exact).
double halfToDouble(uint16_t X, core::Format F) {
  return F.mantBits == core::F16.mantBits ? double(f16ToF32(X)) : double(bf16ToF32(X));
}

/// Rounds a double to f16/bf16 to nearest even: a rebias-and-add for results in the normal range,
/// the integer core otherwise (subnormals, overflow, inf, NaN).
uint16_t halfFromDoubleRn(double X, core::Format F) {
  uint64_t Bits = f64Bits(X), Abs = Bits & 0x7fffffffffffffffull;
  bool IsF16 = F.mantBits == core::F16.mantBits;
  uint64_t Lo = IsF16 ? 0x3f10000000000000ull : 0x3810000000000000ull; // 2^-14, 2^-126
  uint64_t Hi = IsF16 ? 0x40effe0000000000ull : 0x47efe00000000000ull; // overflow thresholds
  if (Abs >= Lo && Abs < Hi) {
    int Drop = 52 - F.mantBits;
    uint64_t Rebias = uint64_t(1023 - (IsF16 ? 15 : 127)) << 52;
    uint64_t M = Abs - Rebias;
    uint64_t R = (M + ((uint64_t(1) << (Drop - 1)) - 1) + ((M >> Drop) & 1)) >> Drop;
    return uint16_t(((Bits >> 48) & 0x8000) | R);
  }
  return uint16_t(core::convert(Bits, core::F64, F, Round::Rn));
}

/// Hi + Lo (exact, Hi = RN(Hi + Lo)) rounded to odd at double precision, so that one more
/// rounding to a narrower format is correct (see docs/semantics.md).
double roundToOdd(double Hi, double Lo) {
  uint64_t Bits = f64Bits(Hi);
  if (Lo != 0 && (Bits & 1) == 0)
    Bits += ((Lo > 0) == (Hi > 0)) ? 1 : uint64_t(-1);
  return f64FromBits(Bits);
}

/// X + Y exactly as a double-double, rounded to odd (infinities and NaN pass through).
double sumToOdd(double X, double Y) {
  double S = X + Y;
  if (!std::isfinite(S))
    return S;
  double Bb = S - X;
  return roundToOdd(S, (X - (S - Bb)) + (Y - Bb));
}

/// .rn f16/bf16 arithmetic without .ftz, through exact double arithmetic (fast path).
uint16_t halfAddRn(uint16_t A, uint16_t B, core::Format F) {
  return halfFromDoubleRn(sumToOdd(halfToDouble(A, F), halfToDouble(B, F)), F);
}
uint16_t halfMulRn(uint16_t A, uint16_t B, core::Format F) {
  return halfFromDoubleRn(halfToDouble(A, F) * halfToDouble(B, F), F); // exact product
}
uint16_t halfFmaRn(uint16_t A, uint16_t B, uint16_t C, core::Format F) {
  return halfFromDoubleRn(sumToOdd(halfToDouble(A, F) * halfToDouble(B, F), halfToDouble(C, F)), F);
}

/// min/max on values decoded to float; returns the chosen input bits (or canonical NaN).
template <class T, class Bits>
Bits pickMinMax(T A, T B, Bits BA, Bits BB, bool Max, bool PropagateNan, Bits Nan) {
  bool NA = A != A, NB = B != B;
  if (NA || NB) {
    if (PropagateNan || (NA && NB))
      return Nan;
    return NA ? BB : BA;
  }
  if (A == B) { // +0 vs -0: min prefers -0, max prefers +0
    bool SignA = std::signbit(A);
    return (SignA != Max) ? BA : BB;
  }
  return (A < B) != Max ? BA : BB;
}

} // namespace

namespace detail {

float finishF32(float X, FpMode M) {
  if (M.ftz)
    X = flushF32(X);
  if (M.sat)
    return saturateF32(X);
  return canonF32(X);
}

float addF32Slow(float A, float B, FpMode M) {
  double X = flushIf(A, M.ftz), Y = flushIf(B, M.ftz);
  double S = X + Y;
  double Bb = S - X;
  double Err = (X - (S - Bb)) + (Y - Bb); // TwoSum: S + Err == X + Y exactly
  if (std::isnan(S))
    return finishF32(NAN, M);
  if (S == 0 && M.rnd == Round::Rm) // exact zero sum: -0 when rounding down (IEEE 754 6.3)
    S = (X == 0 && Y == 0 && !std::signbit(X) && !std::signbit(Y)) ? 0.0 : -0.0;
  return finishF32(core::roundDoubleDoubleToF32(S, std::isinf(S) ? 0.0 : Err, M.rnd), M);
}

float mulF32Slow(float A, float B, FpMode M) {
  double P = double(flushIf(A, M.ftz)) * double(flushIf(B, M.ftz)); // exact: 48-bit product
  return finishF32(core::roundDoubleDoubleToF32(P, 0.0, M.rnd), M);
}

float fmaF32Slow(float A, float B, float C, FpMode M) {
  double P = double(flushIf(A, M.ftz)) * double(flushIf(B, M.ftz)); // exact
  double Z = flushIf(C, M.ftz);
  double S = P + Z;
  if (!std::isfinite(S)) // only from inf/NaN operands: host IEEE semantics apply
    return finishF32(float(S), M);
  if (S == 0 && M.rnd == Round::Rm)
    S = (P == 0 && Z == 0 && !std::signbit(P) && !std::signbit(Z)) ? 0.0 : -0.0;
  double Bb = S - P;
  double Err = (P - (S - Bb)) + (Z - Bb);
  return finishF32(core::roundDoubleDoubleToF32(S, Err, M.rnd), M);
}

double addF64Slow(double A, double B, Round R) {
  return f64FromBits(core::add(f64Bits(A), f64Bits(B), core::F64, R));
}

double mulF64Slow(double A, double B, Round R) {
  return f64FromBits(core::mul(f64Bits(A), f64Bits(B), core::F64, R));
}

} // namespace detail

float divF32(float A, float B, FpMode M) {
  A = flushIf(A, M.ftz);
  B = flushIf(B, M.ftz);
  if (M.rnd == Round::Rn)
    return detail::finishF32(A / B, M);
  return viaCoreF32(M, [&] { return core::div(f32Bits(A), f32Bits(B), core::F32, M.rnd); });
}

float sqrtF32(float A, FpMode M) {
  A = flushIf(A, M.ftz);
  if (M.rnd == Round::Rn)
    return detail::finishF32(std::sqrt(A), M);
  return viaCoreF32(M, [&] { return core::sqrt(f32Bits(A), core::F32, M.rnd); });
}

float rcpF32(float A, FpMode M) { return divF32(1.0f, A, M); }

double fmaF64(double A, double B, double C, Round R) {
  if (R == Round::Rn)
    return canonF64(std::fma(A, B, C));
  return f64FromBits(core::fma(f64Bits(A), f64Bits(B), f64Bits(C), core::F64, R));
}

double divF64(double A, double B, Round R) {
  if (R == Round::Rn)
    return canonF64(A / B);
  return f64FromBits(core::div(f64Bits(A), f64Bits(B), core::F64, R));
}

double sqrtF64(double A, Round R) {
  if (R == Round::Rn)
    return canonF64(std::sqrt(A));
  return f64FromBits(core::sqrt(f64Bits(A), core::F64, R));
}

double rcpF64(double A, Round R) { return divF64(1.0, A, R); }

float minF32(float A, float B, bool Ftz, bool PropagateNan) {
  A = flushIf(A, Ftz);
  B = flushIf(B, Ftz);
  return f32FromBits(
      pickMinMax(A, B, f32Bits(A), f32Bits(B), false, PropagateNan, CanonicalNanF32));
}

float maxF32(float A, float B, bool Ftz, bool PropagateNan) {
  A = flushIf(A, Ftz);
  B = flushIf(B, Ftz);
  return f32FromBits(pickMinMax(A, B, f32Bits(A), f32Bits(B), true, PropagateNan, CanonicalNanF32));
}

double minF64(double A, double B) {
  return f64FromBits(pickMinMax(A, B, f64Bits(A), f64Bits(B), false, false, CanonicalNanF64));
}

double maxF64(double A, double B) {
  return f64FromBits(pickMinMax(A, B, f64Bits(A), f64Bits(B), true, false, CanonicalNanF64));
}

bool testpF32(float A, TestKind K) {
  if (K == TestKind::Subnormal)
    return isSubnormalF32(A);
  if (K == TestKind::Normal)
    return std::isfinite(A) && !isSubnormalF32(A);
  return testpF64(double(A), K);
}

bool testpF64(double A, TestKind K) {
  switch (K) {
  case TestKind::Finite:
    return std::isfinite(A);
  case TestKind::Infinite:
    return std::isinf(A);
  case TestKind::Number:
    return !std::isnan(A);
  case TestKind::NotANumber:
    return std::isnan(A);
  case TestKind::Normal:
    return std::isnormal(A) || A == 0.0;
  case TestKind::Subnormal:
    return std::fpclassify(A) == FP_SUBNORMAL;
  }
  return false;
}

// --- f16 / bf16 ---------------------------------------------------------------------------------

uint16_t addF16(uint16_t A, uint16_t B, FpMode M) {
  if (M.rnd == Round::Rn && !M.ftz)
    return finishHalf(halfAddRn(A, B, core::F16), core::F16, M, false);
  uint64_t R =
      core::add(halfIn(A, core::F16, M.ftz), halfIn(B, core::F16, M.ftz), core::F16, M.rnd);
  return finishHalf(R, core::F16, M, false);
}

uint16_t subF16(uint16_t A, uint16_t B, FpMode M) { return addF16(A, uint16_t(B ^ 0x8000), M); }

uint16_t mulF16(uint16_t A, uint16_t B, FpMode M) {
  if (M.rnd == Round::Rn && !M.ftz)
    return finishHalf(halfMulRn(A, B, core::F16), core::F16, M, false);
  uint64_t R =
      core::mul(halfIn(A, core::F16, M.ftz), halfIn(B, core::F16, M.ftz), core::F16, M.rnd);
  return finishHalf(R, core::F16, M, false);
}

uint16_t fmaF16(uint16_t A, uint16_t B, uint16_t C, FpMode M, bool Relu) {
  if (M.rnd == Round::Rn && !M.ftz)
    return finishHalf(halfFmaRn(A, B, C, core::F16), core::F16, M, Relu);
  uint64_t R = core::fma(halfIn(A, core::F16, M.ftz), halfIn(B, core::F16, M.ftz),
                         halfIn(C, core::F16, M.ftz), core::F16, M.rnd);
  return finishHalf(R, core::F16, M, Relu);
}

uint16_t minF16(uint16_t A, uint16_t B, bool Ftz, bool PropagateNan, bool Relu) {
  uint16_t X = uint16_t(halfIn(A, core::F16, Ftz)), Y = uint16_t(halfIn(B, core::F16, Ftz));
  uint16_t R = pickMinMax(f16ToF32(X), f16ToF32(Y), X, Y, false, PropagateNan, CanonicalNanF16);
  return finishHalf(R, core::F16, FpMode{}, Relu);
}

uint16_t maxF16(uint16_t A, uint16_t B, bool Ftz, bool PropagateNan, bool Relu) {
  uint16_t X = uint16_t(halfIn(A, core::F16, Ftz)), Y = uint16_t(halfIn(B, core::F16, Ftz));
  uint16_t R = pickMinMax(f16ToF32(X), f16ToF32(Y), X, Y, true, PropagateNan, CanonicalNanF16);
  return finishHalf(R, core::F16, FpMode{}, Relu);
}

uint16_t addBF16(uint16_t A, uint16_t B, Round R) {
  if (R == Round::Rn)
    return finishHalf(halfAddRn(A, B, core::BF16), core::BF16, FpMode{}, false);
  return finishHalf(core::add(A, B, core::BF16, R), core::BF16, FpMode{}, false);
}

uint16_t subBF16(uint16_t A, uint16_t B, Round R) { return addBF16(A, uint16_t(B ^ 0x8000), R); }

uint16_t mulBF16(uint16_t A, uint16_t B, Round R) {
  if (R == Round::Rn)
    return finishHalf(halfMulRn(A, B, core::BF16), core::BF16, FpMode{}, false);
  return finishHalf(core::mul(A, B, core::BF16, R), core::BF16, FpMode{}, false);
}

uint16_t fmaBF16(uint16_t A, uint16_t B, uint16_t C, Round R, bool Relu) {
  if (R == Round::Rn)
    return finishHalf(halfFmaRn(A, B, C, core::BF16), core::BF16, FpMode{}, Relu);
  return finishHalf(core::fma(A, B, C, core::BF16, R), core::BF16, FpMode{}, Relu);
}

uint16_t minBF16(uint16_t A, uint16_t B, bool PropagateNan, bool Relu) {
  uint16_t R = pickMinMax(bf16ToF32(A), bf16ToF32(B), A, B, false, PropagateNan, CanonicalNanBF16);
  return finishHalf(R, core::BF16, FpMode{}, Relu);
}

uint16_t maxBF16(uint16_t A, uint16_t B, bool PropagateNan, bool Relu) {
  uint16_t R = pickMinMax(bf16ToF32(A), bf16ToF32(B), A, B, true, PropagateNan, CanonicalNanBF16);
  return finishHalf(R, core::BF16, FpMode{}, Relu);
}

uint32_t addF16x2(uint32_t A, uint32_t B, FpMode M) {
  return mapHalves(A, B, [&](uint16_t X, uint16_t Y) { return addF16(X, Y, M); });
}
uint32_t subF16x2(uint32_t A, uint32_t B, FpMode M) {
  return mapHalves(A, B, [&](uint16_t X, uint16_t Y) { return subF16(X, Y, M); });
}
uint32_t mulF16x2(uint32_t A, uint32_t B, FpMode M) {
  return mapHalves(A, B, [&](uint16_t X, uint16_t Y) { return mulF16(X, Y, M); });
}
uint32_t fmaF16x2(uint32_t A, uint32_t B, uint32_t C, FpMode M, bool Relu) {
  return mapHalves(A, B, C,
                   [&](uint16_t X, uint16_t Y, uint16_t Z) { return fmaF16(X, Y, Z, M, Relu); });
}
uint32_t fmaBF16x2(uint32_t A, uint32_t B, uint32_t C, Round R, bool Relu) {
  return mapHalves(A, B, C,
                   [&](uint16_t X, uint16_t Y, uint16_t Z) { return fmaBF16(X, Y, Z, R, Relu); });
}

} // namespace analyzer::scalar
