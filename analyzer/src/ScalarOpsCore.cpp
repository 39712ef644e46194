// Exact binary floating-point arithmetic with one correct rounding (the engine behind ScalarOps).
// Technique: decode to an integer significand and exponent, compute the exact result (or the exact
// result truncated with a sticky bit) in 128-bit integers, then round once (roundPack).
#include "ScalarOpsCore.h"

#include <cassert>
#include <utility>

namespace analyzer::scalar::core {
namespace {

int bitLength(U128 X) {
  uint64_t Hi = uint64_t(X >> 64);
  if (Hi != 0)
    return 128 - std::countl_zero(Hi);
  return 64 - std::countl_zero(uint64_t(X));
}

int bias(Format F) { return (1 << (F.expBits - 1)) - 1; }
uint64_t maxExpField(Format F) { return (uint64_t(1) << F.expBits) - 1; }
uint64_t zeroBits(bool Neg, Format F) { return Neg ? signBit(F) : 0; }

/// Whether a value (magnitude truncated, with `Inexact` and the position of the discarded part
/// relative to one half: Cmp < 0 below, 0 exactly half, > 0 above) rounds away from zero.
bool roundsUp(Round R, bool Neg, bool Inexact, int Cmp, bool KeptOdd) {
  if (!Inexact)
    return false;
  switch (R) {
  case Round::Rn:
    return Cmp > 0 || (Cmp == 0 && KeptOdd);
  case Round::Rna:
    return Cmp >= 0;
  case Round::Rz:
    return false;
  case Round::Rp:
    return !Neg;
  case Round::Rm:
    return Neg;
  }
  return false;
}

uint64_t overflowBits(bool Neg, Format F, Round R, bool SatFinite) {
  bool ToInf = !SatFinite && (R == Round::Rn || R == Round::Rna || (R == Round::Rp && !Neg) ||
                              (R == Round::Rm && Neg));
  return ToInf ? infBits(Neg, F) : maxFiniteBits(Neg, F);
}

/// Exact sum of two nonzero finite values (mantissas up to 110 bits), rounded once.
uint64_t addMagnitudes(bool NA, U128 MA, int EA, bool NB, U128 MB, int EB, Format F, Round R) {
  int SA = 125 - bitLength(MA), SB = 125 - bitLength(MB);
  MA <<= SA;
  EA -= SA;
  MB <<= SB;
  EB -= SB;
  if (EA < EB) {
    std::swap(NA, NB);
    std::swap(MA, MB);
    std::swap(EA, EB);
  }
  int D = EA - EB;
  U128 Shifted;
  if (D >= 126)
    Shifted = 1; // only a sticky bit is left
  else
    Shifted = (MB >> D) | U128((MB & ((U128(1) << D) - 1)) != 0);
  U128 Mag;
  bool Neg = NA;
  if (NA == NB) {
    Mag = MA + Shifted;
  } else if (MA >= Shifted) {
    Mag = MA - Shifted;
  } else {
    Mag = Shifted - MA;
    Neg = NB;
  }
  if (Mag == 0) // exact cancellation: +0, or -0 when rounding down (IEEE 754 6.3)
    return zeroBits(R == Round::Rm, F);
  return roundPack(Neg, Mag, EA, F, R);
}

/// Integer square root: returns floor(sqrt(X)) and whether it was inexact.
uint64_t isqrt(U128 X, bool &Inexact) {
  U128 Res = 0, Bit = U128(1) << 126;
  while (Bit > X)
    Bit >>= 2;
  while (Bit != 0) {
    if (X >= Res + Bit) {
      X -= Res + Bit;
      Res = (Res >> 1) + Bit;
    } else {
      Res >>= 1;
    }
    Bit >>= 2;
  }
  Inexact = X != 0;
  return uint64_t(Res);
}

} // namespace

uint64_t signBit(Format F) { return uint64_t(1) << (F.expBits + F.mantBits); }
uint64_t infBits(bool Neg, Format F) { return zeroBits(Neg, F) | maxExpField(F) << F.mantBits; }
uint64_t maxFiniteBits(bool Neg, Format F) { return infBits(Neg, F) - 1; }
uint64_t canonicalNanBits(Format F) { return signBit(F) - 1; }

bool isSubnormalBits(uint64_t Bits, Format F) {
  uint64_t Exp = (Bits >> F.mantBits) & maxExpField(F);
  uint64_t Frac = Bits & ((uint64_t(1) << F.mantBits) - 1);
  return Exp == 0 && Frac != 0;
}

uint64_t flushBits(uint64_t Bits, Format F) {
  return isSubnormalBits(Bits, F) ? Bits & signBit(F) : Bits;
}

Unpacked unpack(uint64_t Bits, Format F) {
  Unpacked U;
  U.neg = (Bits & signBit(F)) != 0;
  uint64_t Exp = (Bits >> F.mantBits) & maxExpField(F);
  uint64_t Frac = Bits & ((uint64_t(1) << F.mantBits) - 1);
  if (Exp == maxExpField(F)) {
    U.cls = Frac != 0 ? Cls::NaN : Cls::Inf;
  } else if (Exp == 0) {
    U.cls = Frac != 0 ? Cls::Finite : Cls::Zero;
    U.mant = Frac;
    U.exp = 1 - bias(F) - F.mantBits;
  } else {
    U.cls = Cls::Finite;
    U.mant = Frac | uint64_t(1) << F.mantBits;
    U.exp = int(Exp) - bias(F) - F.mantBits;
  }
  return U;
}

Unpacked unpackFtz(uint64_t Bits, Format F, bool Ftz) {
  return unpack(Ftz ? flushBits(Bits, F) : Bits, F);
}

uint64_t roundPack(bool Neg, U128 Mag, int Exp, Format F, Round R, bool SatFinite) {
  if (Mag == 0)
    return zeroBits(Neg, F);
  int N = bitLength(Mag);
  int Emin = 1 - bias(F);
  int E = Exp + N - 1; // exponent of the leading bit
  if (E > bias(F))
    return overflowBits(Neg, F, R, SatFinite);
  int Q = (E < Emin ? Emin : E) - F.mantBits; // exponent of the result's last bit
  int Shift = Q - Exp;
  U128 Kept;
  bool Inexact = false;
  int Cmp = -1;
  if (Shift <= 0) {
    Kept = Mag << -Shift;
  } else if (Shift > N) {
    Kept = 0;
    Inexact = true; // Mag < 2^N <= half
  } else {
    U128 Rem = Shift == 128 ? Mag : Mag & ((U128(1) << Shift) - 1);
    U128 Half = U128(1) << (Shift - 1);
    Kept = Shift == 128 ? 0 : Mag >> Shift;
    Inexact = Rem != 0;
    Cmp = Rem < Half ? -1 : Rem == Half ? 0 : 1;
  }
  Kept += U128(roundsUp(R, Neg, Inexact, Cmp, (Kept & 1) != 0));
  // Kept in [2^m, 2^(m+1)] for normal results, < 2^m for subnormals; adding it to the biased
  // exponent field minus one places the implicit bit (and any carry) correctly.
  uint64_t BiasedM1 = uint64_t(Q + F.mantBits + bias(F) - 1);
  uint64_t Bits = (BiasedM1 << F.mantBits) + uint64_t(Kept);
  if (Bits >= infBits(false, F))
    return overflowBits(Neg, F, R, SatFinite);
  return Bits | zeroBits(Neg, F);
}

uint64_t convert(uint64_t Bits, Format From, Format To, Round R, bool SatFinite) {
  Unpacked U = unpack(Bits, From);
  switch (U.cls) {
  case Cls::NaN:
    return canonicalNanBits(To);
  case Cls::Inf:
    return SatFinite ? maxFiniteBits(U.neg, To) : infBits(U.neg, To);
  case Cls::Zero:
    return zeroBits(U.neg, To);
  case Cls::Finite:
    break;
  }
  return roundPack(U.neg, U.mant, U.exp, To, R, SatFinite);
}

uint64_t add(uint64_t A, uint64_t B, Format F, Round R) {
  Unpacked X = unpack(A, F), Y = unpack(B, F);
  if (X.cls == Cls::NaN || Y.cls == Cls::NaN)
    return canonicalNanBits(F);
  if (X.cls == Cls::Inf || Y.cls == Cls::Inf) {
    if (X.cls == Cls::Inf && Y.cls == Cls::Inf && X.neg != Y.neg)
      return canonicalNanBits(F);
    return X.cls == Cls::Inf ? A : B;
  }
  if (X.cls == Cls::Zero && Y.cls == Cls::Zero)
    return zeroBits(X.neg == Y.neg ? X.neg : R == Round::Rm, F);
  if (X.cls == Cls::Zero)
    return B;
  if (Y.cls == Cls::Zero)
    return A;
  return addMagnitudes(X.neg, X.mant, X.exp, Y.neg, Y.mant, Y.exp, F, R);
}

uint64_t mul(uint64_t A, uint64_t B, Format F, Round R) {
  Unpacked X = unpack(A, F), Y = unpack(B, F);
  bool Neg = X.neg != Y.neg;
  if (X.cls == Cls::NaN || Y.cls == Cls::NaN)
    return canonicalNanBits(F);
  if (X.cls == Cls::Inf || Y.cls == Cls::Inf) {
    if (X.cls == Cls::Zero || Y.cls == Cls::Zero)
      return canonicalNanBits(F);
    return infBits(Neg, F);
  }
  if (X.cls == Cls::Zero || Y.cls == Cls::Zero)
    return zeroBits(Neg, F);
  return roundPack(Neg, U128(X.mant) * Y.mant, X.exp + Y.exp, F, R);
}

uint64_t fma(uint64_t A, uint64_t B, uint64_t C, Format F, Round R) {
  Unpacked X = unpack(A, F), Y = unpack(B, F), Z = unpack(C, F);
  bool PNeg = X.neg != Y.neg;
  if (X.cls == Cls::NaN || Y.cls == Cls::NaN || Z.cls == Cls::NaN)
    return canonicalNanBits(F);
  bool PInf = X.cls == Cls::Inf || Y.cls == Cls::Inf;
  bool PZero = X.cls == Cls::Zero || Y.cls == Cls::Zero;
  if (PInf && PZero)
    return canonicalNanBits(F);
  if (PInf) {
    if (Z.cls == Cls::Inf && Z.neg != PNeg)
      return canonicalNanBits(F);
    return infBits(PNeg, F);
  }
  if (Z.cls == Cls::Inf)
    return C;
  if (PZero) {
    if (Z.cls == Cls::Zero)
      return zeroBits(PNeg == Z.neg ? PNeg : R == Round::Rm, F);
    return C;
  }
  U128 PM = U128(X.mant) * Y.mant;
  int PE = X.exp + Y.exp;
  if (Z.cls == Cls::Zero)
    return roundPack(PNeg, PM, PE, F, R);
  return addMagnitudes(PNeg, PM, PE, Z.neg, Z.mant, Z.exp, F, R);
}

uint64_t div(uint64_t A, uint64_t B, Format F, Round R) {
  Unpacked X = unpack(A, F), Y = unpack(B, F);
  bool Neg = X.neg != Y.neg;
  if (X.cls == Cls::NaN || Y.cls == Cls::NaN)
    return canonicalNanBits(F);
  if ((X.cls == Cls::Inf && Y.cls == Cls::Inf) || (X.cls == Cls::Zero && Y.cls == Cls::Zero))
    return canonicalNanBits(F);
  if (X.cls == Cls::Inf || Y.cls == Cls::Zero)
    return infBits(Neg, F);
  if (X.cls == Cls::Zero || Y.cls == Cls::Inf)
    return zeroBits(Neg, F);
  int S = 125 - bitLength(X.mant);
  U128 Num = U128(X.mant) << S;
  U128 Q = Num / Y.mant;
  bool Inexact = Num % Y.mant != 0; // Q has >= 72 bits, so the jammed bit is far below rounding
  return roundPack(Neg, Q | U128(Inexact), X.exp - S - Y.exp, F, R);
}

uint64_t sqrt(uint64_t A, Format F, Round R) {
  Unpacked X = unpack(A, F);
  if (X.cls == Cls::NaN || (X.neg && X.cls != Cls::Zero))
    return canonicalNanBits(F);
  if (X.cls != Cls::Finite) // +-0, +inf
    return A;
  U128 M = X.mant;
  int E = X.exp;
  if (E & 1) {
    M <<= 1;
    E -= 1;
  }
  int K = (120 - bitLength(M)) / 2; // root gets ~60 bits: >= 2 beyond any precision here
  M <<= 2 * K;
  E -= 2 * K;
  bool Inexact = false;
  uint64_t Root = isqrt(M, Inexact);
  return roundPack(false, U128(Root) | U128(Inexact), E / 2, F, R);
}

float roundDoubleDoubleToF32(double Hi, double Lo, Round R) {
  uint64_t Bits = f64Bits(Hi);
  if ((Bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull) // inf or NaN: nothing to round
    return canonF32(float(Hi));
  if (Lo != 0 && (Bits & 1) == 0) // round to odd: step towards Lo to the odd neighbour
    Bits += ((Lo > 0) == (Hi > 0)) ? 1 : uint64_t(-1);
  if (R == Round::Rn)
    return float(f64FromBits(Bits));
  return f32FromBits(uint32_t(convert(Bits, F64, F32, R)));
}

} // namespace analyzer::scalar::core
