// Internal: exact binary floating-point arithmetic on bit patterns of any IEEE-style format, with
// one correct rounding per operation. The slow paths of ScalarOps.h are built on this.
#pragma once

#include "analyzer/ScalarOps.h"

#include <cstdint>

namespace analyzer::scalar::core {

using U128 = unsigned __int128;

/// An IEEE-754-style binary format: explicit fraction bits and exponent bits (sign bit on top).
struct Format {
  int mantBits;
  int expBits;
};
inline constexpr Format F16{10, 5};
inline constexpr Format BF16{7, 8};
inline constexpr Format TF32{10, 8};
inline constexpr Format F32{23, 8};
inline constexpr Format F64{52, 11};

enum class Cls : uint8_t { Zero, Finite, Inf, NaN };

/// A decoded value: for Finite, value = (-1)^neg * mant * 2^exp (mant != 0).
struct Unpacked {
  Cls cls = Cls::Zero;
  bool neg = false;
  uint64_t mant = 0;
  int exp = 0;
};

Unpacked unpack(uint64_t Bits, Format F);
/// Decodes with .ftz: a subnormal becomes a zero of the same sign.
Unpacked unpackFtz(uint64_t Bits, Format F, bool Ftz);

uint64_t signBit(Format F);
uint64_t infBits(bool Neg, Format F);
uint64_t maxFiniteBits(bool Neg, Format F);
uint64_t canonicalNanBits(Format F);
bool isSubnormalBits(uint64_t Bits, Format F);
/// .ftz on a result: a subnormal becomes a zero of the same sign.
uint64_t flushBits(uint64_t Bits, Format F);

/// Rounds (-1)^Neg * Mag * 2^Exp to format F in mode R. Mag's least significant bit may be a
/// "sticky" bit (jammed: set when nonzero bits were discarded below it) provided Mag carries at
/// least two more bits than F's precision. SatFinite: overflow gives +-max finite instead of inf.
uint64_t roundPack(bool Neg, U128 Mag, int Exp, Format F, Round R, bool SatFinite = false);

/// Converts a value of format From to format To with one rounding. NaN -> To's canonical NaN;
/// with SatFinite, +-inf -> +-max finite.
uint64_t convert(uint64_t Bits, Format From, Format To, Round R, bool SatFinite = false);

/// Correctly rounded IEEE operations on bit patterns of format F (NaN results canonical).
uint64_t add(uint64_t A, uint64_t B, Format F, Round R);
uint64_t mul(uint64_t A, uint64_t B, Format F, Round R);
uint64_t fma(uint64_t A, uint64_t B, uint64_t C, Format F, Round R);
uint64_t div(uint64_t A, uint64_t B, Format F, Round R);
uint64_t sqrt(uint64_t A, Format F, Round R);

/// Rounds an exact double-double value Hi + Lo (Hi = RN(Hi + Lo), as TwoSum gives) to f32 in mode
/// R: Hi is first rounded to odd on the sign of Lo, which makes the second rounding exact.
float roundDoubleDoubleToF32(double Hi, double Lo, Round R);

} // namespace analyzer::scalar::core
