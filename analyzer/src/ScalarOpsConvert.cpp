// PTX cvt semantics (PTX ISA 9.7.9): float <-> float with rounding, f16/bf16/tf32 packing,
// float <-> integer with integer rounding and saturation, integer <-> integer with .sat.
#include "analyzer/ScalarOps.h"

#include "ScalarOpsCore.h"

#include <cmath>

namespace analyzer::scalar {
namespace {

uint16_t toHalf(uint64_t Bits, core::Format From, core::Format To, Round R, bool SatFinite,
                bool Relu) {
  uint64_t H = core::convert(Bits, From, To, R, SatFinite);
  if (Relu && (H & core::signBit(To)) && core::unpack(H, To).cls != core::Cls::NaN)
    return 0;
  return uint16_t(H);
}

/// 2^E as a double, exactly (0 <= E <= 64).
double pow2(int E) { return f64FromBits(uint64_t(1023 + E) << 52); }

/// Rounds a finite double to an integral double in mode R (exact integer arithmetic).
double roundIntegral(double X, Round R) {
  if (!std::isfinite(X) || std::fabs(X) >= 4503599627370496.0) // 2^52: already integral
    return X;
  core::Unpacked U = core::unpack(f64Bits(X), core::F64);
  if (U.cls == core::Cls::Zero)
    return X;
  int Shift = -U.exp; // > 0 here
  uint64_t Kept = 0;
  bool Inexact = true;
  int Cmp = -1; // discarded part vs one half
  if (Shift < 64) {
    uint64_t Rem = U.mant & ((uint64_t(1) << Shift) - 1);
    uint64_t Half = uint64_t(1) << (Shift - 1);
    Kept = U.mant >> Shift;
    Inexact = Rem != 0;
    Cmp = Rem < Half ? -1 : Rem == Half ? 0 : 1;
  }
  bool Up = false;
  if (Inexact) {
    switch (R) {
    case Round::Rn:
      Up = Cmp > 0 || (Cmp == 0 && (Kept & 1));
      break;
    case Round::Rna:
      Up = Cmp >= 0;
      break;
    case Round::Rz:
      break;
    case Round::Rp:
      Up = !U.neg;
      break;
    case Round::Rm:
      Up = U.neg;
      break;
    }
  }
  Kept += Up;
  double Mag = double(Kept);
  return U.neg ? -Mag : Mag; // -0.0 for negative values that round to zero
}

} // namespace

float f16ToF32(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  uint32_t Exp = (H >> 10) & 0x1f, Frac = H & 0x3ff;
  if (Exp == 0x1f)
    return Frac ? f32FromBits(CanonicalNanF32) : f32FromBits(Sign | 0x7f800000u);
  if (Exp == 0) { // zero or subnormal: Frac * 2^-24, exact in f32
    float Mag = float(Frac) * 5.9604644775390625e-8f;
    return f32FromBits(Sign | f32Bits(Mag));
  }
  return f32FromBits(Sign | (Exp + 112) << 23 | Frac << 13);
}

float bf16ToF32(uint16_t H) {
  float X = f32FromBits(uint32_t(H) << 16);
  return canonF32(X);
}

uint16_t f32ToF16(float X, Round R, bool SatFinite, bool Relu) {
  uint32_t B = f32Bits(X), Abs = B & 0x7fffffffu;
  // Fast path: .rn to a normal, finite f16 (2^-14 <= |x| < 65520): rebias the exponent and
  // round the 13 dropped fraction bits to nearest even with one integer add.
  if (R == Round::Rn && !Relu && Abs >= 0x38800000u && Abs < 0x477ff000u) {
    uint32_t M = Abs - 0x38000000u;
    return uint16_t(((B >> 16) & 0x8000u) | ((M + 0xfffu + ((M >> 13) & 1u)) >> 13));
  }
  return toHalf(B, core::F32, core::F16, R, SatFinite, Relu);
}
uint16_t f64ToF16(double X, Round R, bool SatFinite) {
  return toHalf(f64Bits(X), core::F64, core::F16, R, SatFinite, false);
}
uint16_t f32ToBf16(float X, Round R, bool SatFinite, bool Relu) {
  uint32_t B = f32Bits(X);
  // Fast path: .rn/.rz of a value that stays finite: bf16 is the upper half of an f32.
  if (!Relu && (B & 0x7fffffffu) < 0x7f7f8000u) {
    if (R == Round::Rn)
      return uint16_t((B + 0x7fffu + ((B >> 16) & 1u)) >> 16);
    if (R == Round::Rz)
      return uint16_t(B >> 16);
  }
  return toHalf(B, core::F32, core::BF16, R, SatFinite, Relu);
}
uint16_t f64ToBf16(double X, Round R, bool SatFinite) {
  return toHalf(f64Bits(X), core::F64, core::BF16, R, SatFinite, false);
}

uint32_t f32ToTf32(float X, Round R, bool SatFinite) {
  if (X != X)
    return CanonicalNanF32;
  uint64_t T = core::convert(f32Bits(X), core::F32, core::TF32, R, SatFinite);
  return uint32_t(T) << 13;
}

uint32_t packF16x2(float A, float B, Round R, bool SatFinite, bool Relu) {
  return uint32_t(f32ToF16(A, R, SatFinite, Relu)) << 16 | f32ToF16(B, R, SatFinite, Relu);
}
uint32_t packBf16x2(float A, float B, Round R, bool SatFinite, bool Relu) {
  return uint32_t(f32ToBf16(A, R, SatFinite, Relu)) << 16 | f32ToBf16(B, R, SatFinite, Relu);
}

namespace {

constexpr core::Format E5M2{2, 5};
/// e4m3's grid below its top binade is that of a format with 3 fraction bits and the range of
/// F{3,5} scaled by 2^-8 (the same subnormal spacing, 2^-9, relative to 2^-6 as min normal).
constexpr core::Format E4M3Scaled{3, 5};
constexpr double E4M3Max = 448.0;

/// The e4m3 bits of a value that is exactly representable (or +-0), |V| <= 448.
uint8_t encodeE4m3(double V, bool Neg) {
  double A = std::fabs(V);
  uint8_t Sign = Neg ? 0x80 : 0;
  if (A == 0)
    return Sign;
  int E = std::ilogb(A);
  if (E < -6) // subnormal: multiples of 2^-9
    return uint8_t(Sign | uint8_t(std::ldexp(A, 9)));
  return uint8_t(Sign | (E + 7) << 3 | (uint8_t(std::ldexp(A, 3 - E)) & 7));
}

template <class T> T reluFp8(T Bits, T SignBit, bool IsNan, bool Relu) {
  return Relu && (Bits & SignBit) && !IsNan ? T(0) : Bits;
}

} // namespace

float e4m3ToF32(uint8_t B) {
  unsigned Exp = (B >> 3) & 15, Frac = B & 7;
  if (Exp == 15 && Frac == 7)
    return f32FromBits(CanonicalNanF32);
  double M = Exp == 0 ? std::ldexp(double(Frac), -9) : std::ldexp(1.0 + Frac / 8.0, int(Exp) - 7);
  return float((B & 0x80) ? -M : M);
}

float e5m2ToF32(uint8_t B) {
  return f32FromBits(uint32_t(core::convert(B, E5M2, core::F32, Round::Rn)));
}

uint8_t f32ToE5m2(float X, bool SatFinite, bool Relu) {
  auto Bits = uint8_t(core::convert(f32Bits(X), core::F32, E5M2, Round::Rn, SatFinite));
  return reluFp8<uint8_t>(Bits, 0x80, X != X, Relu);
}

uint8_t f32ToE4m3(float X, bool SatFinite, bool Relu) {
  core::Unpacked U = core::unpack(f32Bits(X), core::F32);
  if (U.cls == core::Cls::NaN)
    return 0x7f;
  uint8_t Sign = U.neg ? 0x80 : 0;
  double R = 0;
  if (U.cls == core::Cls::Inf) {
    R = 2 * E4M3Max;
  } else if (U.cls == core::Cls::Finite) {
    uint64_t B = core::roundPack(U.neg, U.mant, U.exp - 8, E4M3Scaled, Round::Rn);
    core::Unpacked V = core::unpack(B, E4M3Scaled);
    R = V.cls == core::Cls::Inf    ? 2 * E4M3Max
        : V.cls == core::Cls::Zero ? 0.0
                                   : std::ldexp(double(V.mant), V.exp + 8);
  }
  uint8_t Bits = R > E4M3Max ? (SatFinite ? uint8_t(Sign | 0x7e) : uint8_t(Sign | 0x7f))
                             : encodeE4m3(R, U.neg);
  return reluFp8<uint8_t>(Bits, 0x80, R > E4M3Max && !SatFinite, Relu);
}

float f64ToF32(double X, FpMode M) {
  float F = M.rnd == Round::Rn
                ? float(X)
                : f32FromBits(uint32_t(core::convert(f64Bits(X), core::F64, core::F32, M.rnd)));
  return detail::finishF32(F, M);
}

double f32ToF64(float X, bool Ftz, bool Sat) {
  double D = Ftz ? flushF32(X) : X;
  if (Sat)
    return saturateF64(D);
  return canonF64(D);
}

float roundToIntegralF32(float X, Round R, bool Ftz, bool Sat) {
  if (Ftz)
    X = flushF32(X);
  return detail::finishF32(float(roundIntegral(X, R)), FpMode{R, Ftz, Sat});
}

double roundToIntegralF64(double X, Round R, bool Sat) {
  double D = roundIntegral(X, R);
  return Sat ? saturateF64(D) : canonF64(D);
}

/// Rounds to an integral double using exact host operations (trunc and the exact fraction);
/// valid for |X| < 2^52.
double roundIntegralSmall(double X, Round R) {
  double T = std::trunc(X), F = X - T; // both exact
  double Step = X < 0 ? -1.0 : 1.0, AbsF = std::fabs(F);
  switch (R) {
  case Round::Rz:
    return T;
  case Round::Rm:
    return F < 0 ? T - 1 : T;
  case Round::Rp:
    return F > 0 ? T + 1 : T;
  case Round::Rna:
    return AbsF >= 0.5 ? T + Step : T;
  case Round::Rn:
    break;
  }
  if (AbsF > 0.5 || (AbsF == 0.5 && (int64_t(T) & 1) != 0))
    return T + Step;
  return T;
}

uint64_t floatToInt(double X, Round R, unsigned Bits, bool Signed) {
  if (X != X)
    return 0;
  double D = std::fabs(X) < 4503599627370496.0 ? roundIntegralSmall(X, R) : roundIntegral(X, R);
  if (Signed) {
    double Lo = -pow2(int(Bits) - 1);
    int64_t Min = -(int64_t(1) << (Bits - 2)) * 2, Max = -(Min + 1);
    if (D <= Lo)
      return uint64_t(Min);
    if (D >= -Lo)
      return uint64_t(Max);
    return uint64_t(int64_t(D));
  }
  if (D <= 0.0)
    return 0;
  if (D >= pow2(int(Bits)))
    return Bits == 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1;
  return uint64_t(D);
}

float s64ToF32(int64_t X, Round R) {
  if (R == Round::Rn || (X > -(int64_t(1) << 24) && X < (int64_t(1) << 24)))
    return float(X); // host conversion: exact, or one round-to-nearest-even
  uint64_t Mag = X < 0 ? uint64_t(0) - uint64_t(X) : uint64_t(X);
  return f32FromBits(uint32_t(core::roundPack(X < 0, Mag, 0, core::F32, R)));
}
float u64ToF32(uint64_t X, Round R) {
  if (X < (uint64_t(1) << 24))
    return float(X);
  return f32FromBits(uint32_t(core::roundPack(false, X, 0, core::F32, R)));
}
double s64ToF64(int64_t X, Round R) {
  if (R == Round::Rn || (X > -(int64_t(1) << 53) && X < (int64_t(1) << 53)))
    return double(X);
  uint64_t Mag = X < 0 ? uint64_t(0) - uint64_t(X) : uint64_t(X);
  return f64FromBits(core::roundPack(X < 0, Mag, 0, core::F64, R));
}
double u64ToF64(uint64_t X, Round R) {
  return f64FromBits(core::roundPack(false, X, 0, core::F64, R));
}
uint16_t s64ToF16(int64_t X, Round R) {
  uint64_t Mag = X < 0 ? uint64_t(0) - uint64_t(X) : uint64_t(X);
  return uint16_t(core::roundPack(X < 0, Mag, 0, core::F16, R));
}
uint16_t u64ToF16(uint64_t X, Round R) {
  return uint16_t(core::roundPack(false, X, 0, core::F16, R));
}
uint16_t s64ToBf16(int64_t X, Round R) {
  uint64_t Mag = X < 0 ? uint64_t(0) - uint64_t(X) : uint64_t(X);
  return uint16_t(core::roundPack(X < 0, Mag, 0, core::BF16, R));
}
uint16_t u64ToBf16(uint64_t X, Round R) {
  return uint16_t(core::roundPack(false, X, 0, core::BF16, R));
}

uint64_t convertInt(uint64_t X, unsigned SrcBits, bool SrcSigned, unsigned DstBits, bool DstSigned,
                    bool Sat) {
  __int128 V;
  uint64_t SrcMask = SrcBits == 64 ? ~uint64_t(0) : (uint64_t(1) << SrcBits) - 1;
  X &= SrcMask;
  if (SrcSigned && SrcBits < 64 && ((X >> (SrcBits - 1)) & 1))
    V = __int128(int64_t(X | ~SrcMask));
  else if (SrcSigned)
    V = __int128(int64_t(X));
  else
    V = __int128(X);
  if (Sat) {
    __int128 Lo = DstSigned ? -(__int128(1) << (DstBits - 1)) : 0;
    __int128 Hi = DstSigned ? (__int128(1) << (DstBits - 1)) - 1 : (__int128(1) << DstBits) - 1;
    V = V < Lo ? Lo : V > Hi ? Hi : V;
  }
  uint64_t DstMask = DstBits == 64 ? ~uint64_t(0) : (uint64_t(1) << DstBits) - 1;
  uint64_t T = uint64_t(V) & DstMask;
  if (DstSigned && DstBits < 64 && ((T >> (DstBits - 1)) & 1))
    T |= ~DstMask;
  return T;
}

} // namespace analyzer::scalar
