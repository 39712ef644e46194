// Floating-point ScalarOps against independent references: hand-derived IEEE bit patterns, a naive
// f16/bf16 decoder and nearest-neighbour rounder, and the host FPU under fesetround.
#include "analyzer/ScalarOps.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <random>

using namespace analyzer::scalar;

namespace {

constexpr Round AllModes[] = {Round::Rn, Round::Rz, Round::Rm, Round::Rp};

/// Naive f16 decoding straight from the IEEE 754 definition.
double refHalf(uint16_t H) {
  int S = H >> 15, E = (H >> 10) & 31, F = H & 1023;
  double V = E == 0 ? std::ldexp(F, -24) : std::ldexp(1024 + F, E - 25);
  if (E == 31)
    V = F ? NAN : INFINITY;
  return S ? -V : V;
}
double refBf16(uint16_t H) { return std::ldexp(1.0, 0) * double(f32FromBits(uint32_t(H) << 16)); }

/// Rounds a finite double to the nearest representable of a 16-bit format by bracketing it
/// between consecutive finite bit patterns [0, MaxBits] (the value order equals the bit order),
/// with `Beyond` the virtual value above the largest finite (overflow goes to inf).
template <class T, class Decode>
uint16_t refRound16(T X, Round R, Decode Dec, uint16_t MaxBits, double Beyond) {
  bool Neg = X < 0 || (X == 0 && std::signbit(double(X)));
  T Ax = Neg ? -X : X;
  uint16_t Sign = Neg ? 0x8000 : 0;
  uint32_t Lo = 0, Hi = MaxBits; // largest Lo with Dec(Lo) <= Ax
  if (Ax >= Dec(MaxBits)) {
    Lo = MaxBits;
  } else {
    while (Lo < Hi) {
      uint32_t Mid = (Lo + Hi + 1) / 2;
      if (Dec(uint16_t(Mid)) <= Ax)
        Lo = Mid;
      else
        Hi = Mid - 1;
    }
  }
  T VLo = Dec(uint16_t(Lo));
  if (VLo == Ax)
    return uint16_t(Sign | Lo);
  T VHi = Lo == MaxBits ? T(Beyond) : T(Dec(uint16_t(Lo + 1)));
  T DLo = Ax - VLo, DHi = VHi - Ax;
  bool Up = false;
  switch (R) {
  case Round::Rn:
    Up = DHi < DLo || (DHi == DLo && (Lo & 1));
    break;
  case Round::Rna:
    Up = DHi <= DLo;
    break;
  case Round::Rz:
    Up = false;
    break;
  case Round::Rp:
    Up = !Neg;
    break;
  case Round::Rm:
    Up = Neg;
    break;
  }
  return uint16_t(Sign | (Up ? Lo + 1 : Lo));
}
uint16_t refToHalf(double X, Round R) { return refRound16(X, R, refHalf, 0x7bff, 65536.0); }
/// The same rounding of a binary128 value (113-bit significand), for exact fma references.
using Quad = __float128;
uint16_t refQuadToHalf(Quad X, Round R) {
  return refRound16(
      X, R, [](uint16_t H) { return Quad(refHalf(H)); }, 0x7bff, 65536.0);
}
uint16_t refQuadToBf16(Quad X, Round R) {
  return refRound16(
      X, R, [](uint16_t H) { return Quad(refBf16(H)); }, 0x7f7f, std::ldexp(1.0, 128));
}
/// Whether X + Y is exact in binary128 (TwoSum error is zero); Sum receives it.
bool exactQuadSum(Quad X, Quad Y, Quad &Sum) {
  Sum = X + Y;
  Quad Bb = Sum - X;
  return (X - (Sum - Bb)) + (Y - Bb) == 0;
}
uint16_t refToBf16(double X, Round R) {
  return refRound16(X, R, refBf16, 0x7f7f, std::ldexp(1.0, 128));
}

int hostMode(Round R) {
  switch (R) {
  case Round::Rz:
    return FE_TOWARDZERO;
  case Round::Rm:
    return FE_DOWNWARD;
  case Round::Rp:
    return FE_UPWARD;
  default:
    return FE_TONEAREST;
  }
}

/// Evaluates F with the host FPU in rounding mode R (the independent reference), then restores.
template <class Fn> auto underHostMode(Round R, Fn F) {
  int Old = std::fegetround();
  std::fesetround(hostMode(R));
  auto V = F();
  std::fesetround(Old);
  return V;
}

template <class T> __attribute__((noinline)) T hostAdd(T A, T B) {
  volatile T X = A, Y = B;
  volatile T Z = X + Y;
  return Z;
}
template <class T> __attribute__((noinline)) T hostMul(T A, T B) {
  volatile T X = A, Y = B;
  volatile T Z = X * Y;
  return Z;
}
template <class T> __attribute__((noinline)) T hostDiv(T A, T B) {
  volatile T X = A, Y = B;
  volatile T Z = X / Y;
  return Z;
}
template <class T> __attribute__((noinline)) T hostSqrt(T A) {
  volatile T X = A;
  volatile T Z = std::sqrt(X);
  return Z;
}
template <class T> __attribute__((noinline)) T hostFma(T A, T B, T C) {
  volatile T X = A, Y = B, W = C;
  volatile T Z = std::fma(X, Y, W);
  return Z;
}
__attribute__((noinline)) float hostNarrow(double A) {
  volatile double X = A;
  volatile float Z = float(X);
  return Z;
}
__attribute__((noinline)) float hostS64ToF32(int64_t A) {
  volatile int64_t X = A;
  volatile float Z = float(X);
  return Z;
}

__attribute__((noinline)) float hostU64ToF32(uint64_t A) {
  volatile uint64_t X = A;
  volatile float Z = float(X);
  return Z;
}
__attribute__((noinline)) double hostS64ToF64(int64_t A) {
  volatile int64_t X = A;
  volatile double Z = double(X);
  return Z;
}

/// Random f32 with a random sign, an exponent drawn over the whole range (subnormals included) or
/// near `Near` so that sums cancel and round, and random fraction bits.
float randomF32(std::mt19937_64 &G, int ExpLo = 0, int ExpHi = 254) {
  uint32_t E = uint32_t(ExpLo + int(G() % uint64_t(ExpHi - ExpLo + 1)));
  uint32_t B = uint32_t(G() & 0x807fffffu) | E << 23;
  return f32FromBits(B);
}
double randomF64(std::mt19937_64 &G, int ExpLo = 0, int ExpHi = 2046) {
  uint64_t E = uint64_t(ExpLo + int(G() % uint64_t(ExpHi - ExpLo + 1)));
  return f64FromBits((G() & 0x800fffffffffffffull) | E << 52);
}

template <class T> bool sameValue(T A, T B) {
  if (A != A || B != B)
    return A != A && B != B;
  return std::signbit(A) == std::signbit(B) && A == B;
}

} // namespace

TEST_CASE("f16ToF32 matches a naive decoding for all 65536 inputs") {
  for (uint32_t H = 0; H < 65536; ++H) {
    double Ref = refHalf(uint16_t(H));
    float Got = f16ToF32(uint16_t(H));
    if (Ref != Ref) {
      REQUIRE(f32Bits(Got) == CanonicalNanF32);
      continue;
    }
    REQUIRE(double(Got) == Ref);
    REQUIRE(std::signbit(Got) == std::signbit(Ref));
  }
}

TEST_CASE("f32ToF16 round-trips every f16 value in every mode") {
  for (uint32_t H = 0; H < 65536; ++H) {
    if (((H >> 10) & 31) == 31 && (H & 1023))
      continue;
    for (Round R : AllModes)
      REQUIRE(f32ToF16(f16ToF32(uint16_t(H)), R) == H);
  }
}

TEST_CASE("f32ToF16 and f64ToF16 round like the nearest-neighbour reference") {
  std::mt19937_64 G(12345);
  for (int I = 0; I < 40000; ++I) {
    float X = randomF32(G, 127 - 30, 127 + 17); // f16 subnormals .. overflow
    double D = randomF64(G, 1023 - 30, 1023 + 17);
    for (Round R : {Round::Rn, Round::Rz, Round::Rm, Round::Rp, Round::Rna}) {
      REQUIRE(f32ToF16(X, R) == refToHalf(X, R));
      REQUIRE(f64ToF16(D, R) == refToHalf(D, R));
    }
  }
}

TEST_CASE("f32ToBf16 and f64ToBf16 round like the nearest-neighbour reference") {
  std::mt19937_64 G(777);
  for (int I = 0; I < 40000; ++I) {
    float X = randomF32(G);
    double D = randomF64(G, 1023 - 140, 1023 + 130);
    for (Round R : {Round::Rn, Round::Rz, Round::Rm, Round::Rp, Round::Rna}) {
      REQUIRE(f32ToBf16(X, R) == refToBf16(X, R));
      REQUIRE(f64ToBf16(D, R) == refToBf16(D, R));
    }
    // The classic bit trick for round-to-nearest-even (an independent formula).
    uint32_t B = f32Bits(X);
    REQUIRE(f32ToBf16(X) == uint16_t((B + 0x7fffu + ((B >> 16) & 1)) >> 16));
  }
}

TEST_CASE("f32ToTf32 matches the bit-trick roundings (rz, rna, rn)") {
  std::mt19937_64 G(4242);
  for (int I = 0; I < 50000; ++I) {
    float X = randomF32(G, 0, 253); // finite, below the overflow binade
    uint32_t B = f32Bits(X);
    CHECK(f32ToTf32(X, Round::Rz) == (B & ~0x1fffu));
    CHECK(f32ToTf32(X, Round::Rna) == ((B + 0x1000u) & ~0x1fffu));
    CHECK(f32ToTf32(X, Round::Rn) == ((B + 0xfffu + ((B >> 13) & 1)) & ~0x1fffu));
  }
}

TEST_CASE("half conversions: special values, satfinite, relu, packing order") {
  CHECK(f32ToF16(1.0f) == 0x3c00);
  CHECK(f32ToF16(-2.0f) == 0xc000);
  CHECK(f32ToF16(65504.0f) == 0x7bff);
  CHECK(f32ToF16(65520.0f) == 0x7c00);              // halfway to 2^16 rounds to inf
  CHECK(f32ToF16(65520.0f, Round::Rz) == 0x7bff);   // toward zero stays finite
  CHECK(f32ToF16(1e6f, Round::Rn, true) == 0x7bff); // satfinite
  CHECK(f32ToF16(-INFINITY, Round::Rn, true) == 0xfbff);
  CHECK(f32ToF16(NAN) == CanonicalNanF16);
  CHECK(f32ToF16(NAN, Round::Rn, true) == CanonicalNanF16);
  CHECK(f32ToF16(-3.0f, Round::Rn, false, true) == 0x0000); // relu
  CHECK(f32ToF16(5.9604644775390625e-8f) == 0x0001);        // 2^-24, smallest subnormal
  CHECK(f32ToF16(2.98023223876953125e-8f) == 0x0000);       // 2^-25: tie to even -> 0
  CHECK(f32ToF16(2.98023223876953125e-8f, Round::Rp) == 0x0001);
  CHECK(f32ToBf16(NAN) == CanonicalNanBF16);
  CHECK(f32ToBf16(1.0f) == 0x3f80);
  CHECK(packF16x2(1.0f, 2.0f) == 0x3c004000u); // a -> upper half, b -> lower half
  CHECK(packBf16x2(1.0f, -2.0f) == 0x3f80c000u);
  CHECK(f32ToTf32(1.0f + 0x1p-11f) == 0x3f802000u); // tie: rna rounds away
  CHECK(f32ToTf32(1.0f + 0x1p-11f, Round::Rn) == 0x3f800000u);
  CHECK(f32ToTf32(NAN) == CanonicalNanF32);
}

TEST_CASE("f32 add/mul/div/sqrt/fma match the host FPU in every rounding mode") {
  std::mt19937_64 G(2024);
  for (int I = 0; I < 20000; ++I) {
    bool Near = I % 2 == 0;
    int Lo = Near ? 100 : 0, Hi = Near ? 140 : 254;
    float A = randomF32(G, Lo, Hi), B = randomF32(G, Lo, Hi), C = randomF32(G, Lo, Hi);
    if (I % 7 == 0) // exact cancellation and signed zeros
      B = -A, C = -(A * B);
    if (I % 11 == 0)
      A = f32FromBits(G() & 0x80000000u);
    for (Round R : AllModes) {
      FpMode M{R, false, false};
      REQUIRE(sameValue(addF32(A, B, M), underHostMode(R, [&] { return hostAdd(A, B); })));
      REQUIRE(sameValue(subF32(A, B, M), underHostMode(R, [&] { return hostAdd(A, -B); })));
      REQUIRE(sameValue(mulF32(A, B, M), underHostMode(R, [&] { return hostMul(A, B); })));
      REQUIRE(sameValue(divF32(A, B, M), underHostMode(R, [&] { return hostDiv(A, B); })));
      REQUIRE(sameValue(sqrtF32(std::fabs(A), M),
                        underHostMode(R, [&] { return hostSqrt(std::fabs(A)); })));
      REQUIRE(sameValue(fmaF32(A, B, C, M), underHostMode(R, [&] { return hostFma(A, B, C); })));
    }
  }
}

TEST_CASE("f64 add/mul/div/sqrt/fma and f64->f32 match the host FPU in every rounding mode") {
  std::mt19937_64 G(99);
  for (int I = 0; I < 20000; ++I) {
    bool Near = I % 2 == 0;
    int Lo = Near ? 1000 : 0, Hi = Near ? 1046 : 2046;
    double A = randomF64(G, Lo, Hi), B = randomF64(G, Lo, Hi), C = randomF64(G, Lo, Hi);
    if (I % 7 == 0)
      B = -A, C = -(A * B);
    if (I % 11 == 0)
      A = f64FromBits(G() & 0x8000000000000000ull);
    double N = randomF64(G, 1023 - 160, 1023 + 130); // around the f32 range
    for (Round R : AllModes) {
      REQUIRE(sameValue(addF64(A, B, R), underHostMode(R, [&] { return hostAdd(A, B); })));
      REQUIRE(sameValue(mulF64(A, B, R), underHostMode(R, [&] { return hostMul(A, B); })));
      REQUIRE(sameValue(divF64(A, B, R), underHostMode(R, [&] { return hostDiv(A, B); })));
      REQUIRE(sameValue(sqrtF64(std::fabs(A), R),
                        underHostMode(R, [&] { return hostSqrt(std::fabs(A)); })));
      REQUIRE(sameValue(fmaF64(A, B, C, R), underHostMode(R, [&] { return hostFma(A, B, C); })));
      REQUIRE(sameValue(f64ToF32(N, FpMode{R}), underHostMode(R, [&] { return hostNarrow(N); })));
    }
  }
}

TEST_CASE("integer -> float conversions round like the host FPU") {
  std::mt19937_64 G(5);
  for (int I = 0; I < 20000; ++I) {
    int64_t X = int64_t(G()) >> (G() % 63);
    for (Round R : AllModes)
      REQUIRE(sameValue(s64ToF32(X, R), underHostMode(R, [&] { return hostS64ToF32(X); })));
  }
  for (int I = 0; I < 20000; ++I) {
    uint64_t U = G() >> (G() % 64);
    int64_t S = int64_t(G()) >> (G() % 64);
    for (Round R : AllModes) {
      REQUIRE(sameValue(u64ToF32(U, R), underHostMode(R, [&] { return hostU64ToF32(U); })));
      REQUIRE(sameValue(s64ToF64(S, R), underHostMode(R, [&] { return hostS64ToF64(S); })));
    }
    int64_t Small = S >> 11; // |Small| < 2^53: exact as a double, so refToHalf applies
    for (Round R : {Round::Rn, Round::Rz, Round::Rm, Round::Rp, Round::Rna}) {
      REQUIRE(s64ToF16(Small, R) == refToHalf(double(Small), R));
      REQUIRE(s64ToBf16(Small, R) == refToBf16(double(Small), R));
    }
  }
  // Round-to-nearest-even checked as a property with exact 128-bit integer differences.
  for (int I = 0; I < 20000; ++I) {
    int64_t X = int64_t(G()) >> (G() % 40);
    float F = s64ToF32(X, Round::Rn);
    double D = s64ToF64(X, Round::Rn);
    __int128 DiffF = __int128(X) - __int128(double(F)), DiffD = __int128(X) - __int128(D);
    __int128 UlpF = __int128(1) << std::max(0, std::ilogb(F) - 23);
    __int128 UlpD = __int128(1) << std::max(0, std::ilogb(D) - 52);
    auto Abs = [](__int128 V) { return V < 0 ? -V : V; };
    REQUIRE(2 * Abs(DiffF) <= UlpF);
    if (2 * Abs(DiffF) == UlpF)
      REQUIRE((f32Bits(F) & 1) == 0);
    REQUIRE(2 * Abs(DiffD) <= UlpD);
    if (2 * Abs(DiffD) == UlpD)
      REQUIRE((f64Bits(D) & 1) == 0);
  }
  CHECK(u64ToF32(~uint64_t(0)) == 18446744073709551616.0f);
  CHECK(f32Bits(u64ToF32(~uint64_t(0), Round::Rz)) == 0x5f7fffffu);
  CHECK(u64ToF64(~uint64_t(0), Round::Rz) == 18446744073709549568.0);
  CHECK(s64ToF16(65519, Round::Rn) == 0x7bff);
  CHECK(s64ToF16(65520, Round::Rn) == 0x7c00);
  CHECK(s64ToF16(-1) == 0xbc00);
  CHECK(u64ToBf16(257) == 0x4380); // 257 = 1.00000001b * 2^8 -> tie to even 256
}

TEST_CASE("float -> integer cvt: integer rounding, saturation, NaN -> 0") {
  CHECK(floatToInt(2.5, Round::Rn, 32, true) == 2);
  CHECK(floatToInt(3.5, Round::Rn, 32, true) == 4);
  CHECK(int64_t(floatToInt(-2.5, Round::Rn, 32, true)) == -2);
  CHECK(int64_t(floatToInt(-2.7, Round::Rz, 32, true)) == -2);
  CHECK(int64_t(floatToInt(-2.2, Round::Rm, 32, true)) == -3);
  CHECK(floatToInt(2.2, Round::Rp, 32, true) == 3);
  CHECK(floatToInt(1e10, Round::Rz, 32, true) == 0x7fffffff);
  CHECK(int64_t(floatToInt(-1e10, Round::Rz, 32, true)) == INT32_MIN);
  CHECK(floatToInt(-1.0, Round::Rz, 32, false) == 0);
  CHECK(floatToInt(300.0, Round::Rz, 8, false) == 255);
  CHECK(int64_t(floatToInt(-300.0, Round::Rz, 8, true)) == -128);
  CHECK(floatToInt(1e30, Round::Rz, 64, false) == ~uint64_t(0));
  CHECK(floatToInt(9223372036854775808.0, Round::Rz, 64, true) == 0x7fffffffffffffffull);
  CHECK(floatToInt(NAN, Round::Rn, 32, true) == 0);
  CHECK(floatToInt(-0.5, Round::Rn, 32, true) == 0);
  CHECK(int64_t(floatToInt(-1.5, Round::Rn, 32, true)) == -2);
  CHECK(floatToInt(0.5, Round::Rna, 32, true) == 1);
  CHECK(int64_t(floatToInt(-2.5, Round::Rna, 32, true)) == -3);
  CHECK(int64_t(floatToInt(-0.25, Round::Rm, 16, true)) == -1);
  CHECK(floatToInt(1e-300, Round::Rp, 8, false) == 1);
  CHECK(floatToInt(4503599627370497.0, Round::Rn, 64, true) == 4503599627370497ull); // 2^52 + 1
  CHECK(floatToInt(-9223372036854775808.0, Round::Rn, 64, true) == 0x8000000000000000ull);
  CHECK(floatToInt(INFINITY, Round::Rn, 16, true) == 0x7fff);
  std::mt19937_64 G(8);
  for (int I = 0; I < 20000; ++I) {
    double X = randomF64(G, 1023 - 5, 1023 + 40);
    CHECK(int64_t(floatToInt(X, Round::Rz, 64, true)) == int64_t(std::trunc(X)));
    CHECK(int64_t(floatToInt(X, Round::Rm, 64, true)) == int64_t(std::floor(X)));
    CHECK(int64_t(floatToInt(X, Round::Rp, 64, true)) == int64_t(std::ceil(X)));
    CHECK(int64_t(floatToInt(X, Round::Rn, 64, true)) == int64_t(std::nearbyint(X)));
    CHECK(sameValue(roundToIntegralF64(X, Round::Rm), std::floor(X)));
    CHECK(sameValue(roundToIntegralF32(float(X), Round::Rp), std::ceil(float(X))));
  }
  CHECK(sameValue(roundToIntegralF32(-0.3f, Round::Rn), -0.0f));
  CHECK(sameValue(roundToIntegralF32(0.5f, Round::Rn), 0.0f));
  CHECK(sameValue(roundToIntegralF32(1.5f, Round::Rn), 2.0f));
}

TEST_CASE("ftz, sat and canonical NaN on f32 arithmetic") {
  float Sub = f32FromBits(0x00000100u), NegSub = f32FromBits(0x80000100u);
  FpMode Ftz{Round::Rn, true, false}, Sat{Round::Rn, false, true};
  CHECK(f32Bits(addF32(Sub, 0.0f, Ftz)) == 0u);
  CHECK(f32Bits(addF32(NegSub, -0.0f, Ftz)) == 0x80000000u);
  CHECK(f32Bits(mulF32(1e-20f, -1e-20f, Ftz)) == 0x80000000u); // subnormal result flushed
  CHECK(f32Bits(mulF32(1e-20f, 1e-20f)) != 0u);                // kept without .ftz
  CHECK(f32Bits(fmaF32(Sub, 1e30f, 0.0f, Ftz)) == 0u);         // subnormal input flushed
  CHECK(addF32(0.75f, 0.5f, Sat) == 1.0f);
  CHECK(f32Bits(addF32(-0.75f, 0.5f, Sat)) == 0u);
  CHECK(f32Bits(mulF32(INFINITY, 0.0f, Sat)) == 0u);
  CHECK(f32Bits(mulF32(INFINITY, 0.0f)) == CanonicalNanF32);
  CHECK(f32Bits(addF32(INFINITY, -INFINITY)) == CanonicalNanF32);
  CHECK(f32Bits(divF32(0.0f, 0.0f, FpMode{Round::Rz})) == CanonicalNanF32);
  CHECK(f32Bits(sqrtF32(-1.0f)) == CanonicalNanF32);
  CHECK(f32Bits(sqrtF32(-0.0f, FpMode{Round::Rp})) == 0x80000000u);
  CHECK(f32Bits(addF32(1.0f, -1.0f, FpMode{Round::Rm})) == 0x80000000u); // exact zero, rm -> -0
  CHECK(f32Bits(addF32(1.0f, -1.0f, FpMode{Round::Rp})) == 0u);
  // fma keeps the product exact: 1+2^-23 squared minus (1+2^-22) = 2^-46.
  float X = 1.0f + 0x1p-23f;
  CHECK(fmaF32(X, X, -(1.0f + 0x1p-22f)) == 0x1p-46f);
  CHECK(rcpF32(4.0f, FpMode{Round::Rz}) == 0.25f);
  CHECK(f32Bits(rcpF32(3.0f, FpMode{Round::Rz})) == 0x3eaaaaaau);
  CHECK(f32Bits(rcpF32(3.0f, FpMode{Round::Rp})) == 0x3eaaaaabu);
  CHECK(f32Bits(f64ToF32(1e-40, FpMode{Round::Rn, true})) == 0u);
  CHECK(f32ToF64(Sub, true) == 0.0);
  CHECK(f32ToF64(Sub) == std::ldexp(256.0, -149));
}

TEST_CASE("min/max NaN and signed-zero rules, abs/neg/copysign, testp") {
  float Nan = f32FromBits(0x7fc00001u);
  CHECK(minF32(Nan, 2.0f) == 2.0f);
  CHECK(maxF32(3.0f, Nan) == 3.0f);
  CHECK(f32Bits(minF32(Nan, Nan)) == CanonicalNanF32);
  CHECK(f32Bits(maxF32(1.0f, Nan, false, true)) == CanonicalNanF32);
  CHECK(f32Bits(minF32(0.0f, -0.0f)) == 0x80000000u);
  CHECK(f32Bits(maxF32(-0.0f, 0.0f)) == 0u);
  CHECK(minF32(-1.0f, 2.0f) == -1.0f);
  CHECK(maxF64(-1.0, 2.0) == 2.0);
  CHECK(minF64(NAN, -7.0) == -7.0);
  CHECK(f32Bits(minF32(f32FromBits(0x80000001u), 0.0f, true)) == 0x80000000u);
  CHECK(f32Bits(absF32(-0.0f)) == 0u);
  CHECK(f32Bits(negF32(f32FromBits(0x00000001u), true)) == 0x80000000u);
  CHECK(copysignF32(-1.0f, 3.0f) == -3.0f); // sign of a, value of b
  CHECK(copysignF64(1.0, -3.0) == 3.0);
  CHECK(testpF32(0.0f, TestKind::Normal));
  CHECK(testpF32(f32FromBits(1u), TestKind::Subnormal));
  CHECK_FALSE(testpF32(f32FromBits(1u), TestKind::Normal));
  CHECK(testpF32(1e-40f, TestKind::Subnormal));
  CHECK(testpF64(1e-40, TestKind::Normal)); // normal as a double
  CHECK(testpF32(INFINITY, TestKind::Infinite));
  CHECK_FALSE(testpF32(INFINITY, TestKind::Finite));
  CHECK(testpF32(NAN, TestKind::NotANumber));
  CHECK_FALSE(testpF32(NAN, TestKind::Number));
}

TEST_CASE("f16/bf16 arithmetic is one correct rounding of the exact result") {
  std::mt19937_64 G(31);
  int Checked = 0;
  for (int I = 0; I < 30000; ++I) {
    uint16_t A = uint16_t(G()), B = uint16_t(G()), C = uint16_t(G());
    double X = refHalf(A), Y = refHalf(B), Z = refHalf(C);
    if (X != X || Y != Y || Z != Z || std::isinf(X) || std::isinf(Y) || std::isinf(Z))
      continue;
    for (Round R : AllModes) {
      FpMode M{R};
      double Sum = X + Y, Prod = X * Y; // exact in double for f16 operands
      if (Sum != 0)
        REQUIRE(addF16(A, B, M) == refToHalf(Sum, R));
      REQUIRE(mulF16(A, B, M) == refToHalf(Prod, R));
      Quad F = 0; // f16 fma is always exact in binary128 (at most 81 significant bits)
      REQUIRE(exactQuadSum(Quad(X) * Quad(Y), Quad(Z), F));
      if (F != 0) {
        REQUIRE(fmaF16(A, B, C, M) == refQuadToHalf(F, R));
        ++Checked;
      }
    }
    uint16_t Ab = uint16_t(G() & 0xbfff), Bb = uint16_t(G() & 0xbfff); // no inf/NaN
    double Xb = refBf16(Ab), Yb = refBf16(Bb), Sb = Xb + Yb;
    if (Xb * Yb != 0)
      REQUIRE(mulBF16(Ab, Bb) == refToBf16(Xb * Yb, Round::Rn));
    if (Sb != 0 && Sb - Xb == Yb && Sb - Yb == Xb) // the double sum was exact
      REQUIRE(addBF16(Ab, Bb) == refToBf16(Sb, Round::Rn));
    uint16_t Cb = uint16_t(G() & 0xbfff);
    Quad Fb = 0;
    if (exactQuadSum(Quad(Xb) * Quad(Yb), Quad(refBf16(Cb)), Fb) && Fb != 0)
      for (Round R : AllModes)
        REQUIRE(fmaBF16(Ab, Bb, Cb, R) == refQuadToBf16(Fb, R));
  }
  CHECK(Checked > 100000);
  CHECK(addF16(0x3c00, 0x3c00) == 0x4000);                                 // 1 + 1 = 2
  CHECK(addF16(0x7bff, 0x7bff) == 0x7c00);                                 // overflow -> inf
  CHECK(addF16(0x7bff, 0x7bff, FpMode{Round::Rn, false, true}) == 0x3c00); // sat -> 1.0
  CHECK(addF16(0x0001, 0x0000, FpMode{Round::Rn, true}) == 0x0000);        // ftz
  CHECK(fmaF16(0xbc00, 0x3c00, 0x0000, FpMode{}, true) == 0x0000);         // relu(-1) = 0
  CHECK(fmaF16(0x7c00, 0x0000, 0x0000) == CanonicalNanF16);
  CHECK(minF16(0x7e00, 0x3c00) == 0x3c00);
  CHECK(maxF16(0xc000, 0x3c00) == 0x3c00);
  CHECK(maxF16(0xc000, 0xbc00, false, false, true) == 0x0000);
  CHECK(maxBF16(0x3f80, 0x4000) == 0x4000);
  CHECK(addF16x2(0x3c004000u, 0x3c003c00u) == 0x40004200u);              // {1,2}+{1,1} = {2,3}
  CHECK(fmaF16x2(0x40003c00u, 0x40003c00u, 0x3c000000u) == 0x45003c00u); // {2*2+1, 1*1+0}
  CHECK(fmaBF16x2(0x3f804000u, 0x3f803f80u, 0x00000000u) == 0x3f804000u);
  CHECK(negF16(0x3c00) == 0xbc00);
  CHECK(absBF16(0xbf80) == 0x3f80);
}

TEST_CASE("approximate functions: special values and error within the PTX ISA bounds") {
  CHECK(ex2ApproxF32(3.0f) == 8.0f);
  CHECK(ex2ApproxF32(-INFINITY) == 0.0f);
  CHECK(std::isinf(ex2ApproxF32(INFINITY)));
  CHECK(f32Bits(ex2ApproxF32(-130.0f, true)) == 0u); // subnormal result flushed
  CHECK(ex2ApproxF32(-130.0f) == 0x1p-130f);
  CHECK(lg2ApproxF32(8.0f) == 3.0f);
  CHECK(lg2ApproxF32(0.0f) == -INFINITY);
  CHECK(std::isnan(lg2ApproxF32(-1.0f)));
  CHECK(rsqrtApproxF32(4.0f) == 0.5f);
  CHECK(rsqrtApproxF32(-0.0f) == -INFINITY);
  CHECK(rcpApproxF32(-0.0f) == -INFINITY);
  CHECK(std::isnan(sinApproxF32(INFINITY)));
  CHECK(sqrtApproxF32(16.0f) == 4.0f);
  CHECK(tanhApproxF32(0.0f) == 0.0f);
  CHECK(divApproxF32(1.0f, 0x1p127f) == 0.0f); // documented __fdividef behaviour
  CHECK(std::isnan(divApproxF32(INFINITY, 0x1p127f)));
  CHECK(divFullF32(1.0f, 3.0f) == 1.0f / 3.0f);
  CHECK(rcpApproxF64(4.0) == 0.25);
  CHECK(ex2ApproxF16(0x4000) == 0x4400); // 2^2 = 4
  std::mt19937_64 G(3);
  for (int I = 0; I < 20000; ++I) {
    float X = randomF32(G, 110, 133);
    // Compare with float libm results: both are within a few ulp of exact.
    auto Ulps = [](float A, float B) {
      return std::fabs(double(A) - double(B)) / std::ldexp(1.0, std::ilogb(B) - 23);
    };
    CHECK(Ulps(ex2ApproxF32(X / 8), std::exp2(X / 8)) <= 2.0);
    CHECK(Ulps(lg2ApproxF32(std::fabs(X)), std::log2(std::fabs(X))) <= 2.0);
    CHECK(std::fabs(sinApproxF32(X) - std::sin(X)) <= 1e-6f);
    CHECK(Ulps(rsqrtApproxF32(std::fabs(X)), 1.0f / std::sqrt(std::fabs(X))) <= 2.0);
  }
}

namespace {

/// The value of an fp8 pattern from its definition (PTX ISA 5.2.5.3): e4m3 has bias 7, no
/// infinity and NaN at S.1111.111; e5m2 is IEEE-style with bias 15.
double refFp8(uint8_t B, bool E4m3) {
  const int MantBits = E4m3 ? 3 : 2, Bias = E4m3 ? 7 : 15;
  const int Exp = (B & 0x7f) >> MantBits, Frac = B & ((1 << MantBits) - 1);
  const bool Neg = B & 0x80;
  if ((E4m3 && Exp == 15 && Frac == 7) || (!E4m3 && Exp == 31 && Frac))
    return std::nan("");
  if (!E4m3 && Exp == 31)
    return Neg ? -INFINITY : INFINITY;
  double M = Exp == 0 ? std::ldexp(Frac, 1 - Bias - MantBits)
                      : std::ldexp((1 << MantBits) + Frac, Exp - Bias - MantBits);
  return Neg ? -M : M;
}

/// Round to nearest even among the finite fp8 values, by search; overflow past the largest
/// value plus half an ulp (ties to even: e4m3's 448 is even, e5m2's 57344 odd).
uint8_t refToFp8(float X, bool E4m3, bool Sat) {
  const double Max = E4m3 ? 448 : 57344, Limit = E4m3 ? 464 : 61440;
  const double A = std::fabs(double(X));
  const uint8_t Sign = std::signbit(X) ? 0x80 : 0;
  if (X != X)
    return 0x7f;
  if (A > Limit || (!E4m3 && A == Limit))
    return Sat ? uint8_t(Sign | (E4m3 ? 0x7e : 0x7b)) : uint8_t(Sign | (E4m3 ? 0x7f : 0x7c));
  uint8_t Best = 0;
  for (unsigned B = 0; B < 0x80; ++B) {
    double V = refFp8(uint8_t(B), E4m3);
    if (V != V || std::isinf(V) || V > Max)
      continue;
    double D = std::fabs(V - A), BD = std::fabs(refFp8(Best, E4m3) - A);
    if (D < BD || (D == BD && (B & 1) == 0))
      Best = uint8_t(B);
  }
  return uint8_t(Sign | Best);
}

} // namespace

TEST_CASE("fp8 e4m3/e5m2: exact decoding of every pattern, round-to-nearest-even encoding") {
  for (unsigned B = 0; B < 256; ++B)
    for (bool E4m3 : {true, false}) {
      double Ref = refFp8(uint8_t(B), E4m3);
      float Got = E4m3 ? e4m3ToF32(uint8_t(B)) : e5m2ToF32(uint8_t(B));
      if (Ref != Ref) {
        REQUIRE(f32Bits(Got) == CanonicalNanF32);
        continue;
      }
      REQUIRE(double(Got) == Ref);
      REQUIRE(std::signbit(Got) == std::signbit(Ref));
      if (!std::isinf(Ref)) // every finite value encodes back to itself
        REQUIRE((E4m3 ? f32ToE4m3(Got) : f32ToE5m2(Got)) == B);
    }
  std::mt19937_64 G(88);
  for (int I = 0; I < 20000; ++I) {
    float X = randomF32(G, 127 - 24, 127 + 17); // subnormals .. overflow of both formats
    for (bool Sat : {true, false}) {
      REQUIRE(f32ToE4m3(X, Sat) == refToFp8(X, true, Sat));
      REQUIRE(f32ToE5m2(X, Sat) == refToFp8(X, false, Sat));
    }
  }
  CHECK(f32ToE4m3(464.0f) == 0x7e); // the tie goes to 448 (even)
  CHECK(f32ToE4m3(-465.0f, false) == 0xff);
  CHECK(f32ToE5m2(INFINITY, false) == 0x7c);
  CHECK(f32ToE5m2(-INFINITY) == 0xfb);
  CHECK(f32ToE4m3(-1.0f, true, true) == 0); // relu
  CHECK(f32ToE4m3(std::nanf("")) == 0x7f);
}
