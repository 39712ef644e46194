// Exact per-lane semantics of PTX scalar instructions (PTX ISA 9.0, chapter 9.7): pure functions.
//
// Every function here is deterministic and independent of the host's floating-point environment
// (it never reads or changes the rounding mode). Floating-point results are correctly rounded in
// the requested mode unless a function says "approx"; see docs/semantics.md for the techniques and
// for every choice PTX leaves open (division by zero, NaN payloads, approximate-function error).
// Integer and bit operations are inline (the interpreter calls them per lane); floating-point slow
// paths live in analyzer/src/ScalarOps*.cpp.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace analyzer::scalar {

// --- Modes
// ----------------------------------------------------------------------------------------

/// Rounding modifiers (PTX ISA 9.7.3 "Rounding modifiers"): .rn/.rz/.rm/.rp/.rna for floating-point
/// results, and the integer-rounding spellings .rni/.rzi/.rmi/.rpi map to Rn/Rz/Rm/Rp.
/// Rna (nearest, ties away from zero) is only used by cvt to .tf32.
enum class Round : uint8_t { Rn, Rz, Rm, Rp, Rna };

/// Modifiers of a floating-point arithmetic instruction: rounding, .ftz (flush subnormal inputs and
/// results to sign-preserving zero, PTX ISA 9.7.3), .sat (clamp the result to [0.0, 1.0], NaN ->
/// +0.0).
struct FpMode {
  Round rnd = Round::Rn;
  bool ftz = false;
  bool sat = false;
};

/// The canonical NaNs returned for every NaN result (f32: what NVIDIA GPUs produce; the others by
/// the same rule, see docs/semantics.md).
inline constexpr uint32_t CanonicalNanF32 = 0x7fffffffu;
inline constexpr uint64_t CanonicalNanF64 = 0x7fffffffffffffffull;
inline constexpr uint16_t CanonicalNanF16 = 0x7fff;
inline constexpr uint16_t CanonicalNanBF16 = 0x7fff;

// --- Bit views
// ------------------------------------------------------------------------------------

inline uint32_t f32Bits(float X) { return std::bit_cast<uint32_t>(X); }
inline float f32FromBits(uint32_t B) { return std::bit_cast<float>(B); }
inline uint64_t f64Bits(double X) { return std::bit_cast<uint64_t>(X); }
inline double f64FromBits(uint64_t B) { return std::bit_cast<double>(B); }

/// Whether the f32 bit pattern is a subnormal (nonzero, exponent field 0).
inline bool isSubnormalF32(float X) {
  uint32_t B = f32Bits(X);
  return (B & 0x7f800000u) == 0 && (B & 0x007fffffu) != 0;
}
/// .ftz on an input or result: subnormal -> zero of the same sign (PTX ISA 9.7.3).
inline float flushF32(float X) {
  return isSubnormalF32(X) ? f32FromBits(f32Bits(X) & 0x80000000u) : X;
}
/// Any f32 NaN -> the canonical NaN 0x7fffffff; other values unchanged.
inline float canonF32(float X) { return X != X ? f32FromBits(CanonicalNanF32) : X; }
inline double canonF64(double X) { return X != X ? f64FromBits(CanonicalNanF64) : X; }
/// .sat for f32/f64 results: clamp to [0.0, 1.0]; NaN and -0.0 -> +0.0 (PTX ISA 9.7.3).
inline float saturateF32(float X) { return X > 0.0f ? (X > 1.0f ? 1.0f : X) : 0.0f; }
inline double saturateF64(double X) { return X > 0.0 ? (X > 1.0 ? 1.0 : X) : 0.0; }

// --- f16 / bf16 / tf32 conversions (PTX ISA 9.7.9 cvt, 5.2.5 half types) ----------------------

/// f16 bits -> f32 (exact; any NaN -> the canonical f32 NaN).
float f16ToF32(uint16_t H);
/// bf16 bits -> f32 (exact: the bf16 bits are the upper half of an f32; NaN -> canonical).
float bf16ToF32(uint16_t H);
/// f32 -> f16 (cvt.rnd{.relu}{.satfinite}.f16.f32), correctly rounded in `R`; subnormal f16 results
/// kept; NaN -> canonical 0x7fff. `SatFinite`: +-inf and overflow -> +-max finite (65504).
/// `Relu`: negative results (and -0) -> +0.
uint16_t f32ToF16(float X, Round R = Round::Rn, bool SatFinite = false, bool Relu = false);
/// f64 -> f16 (cvt.rnd.f16.f64), one correct rounding (no double rounding through f32).
uint16_t f64ToF16(double X, Round R = Round::Rn, bool SatFinite = false);
/// f32 -> bf16 (cvt.rnd{.relu}{.satfinite}.bf16.f32); NaN -> canonical 0x7fff.
uint16_t f32ToBf16(float X, Round R = Round::Rn, bool SatFinite = false, bool Relu = false);
/// f64 -> bf16 (cvt.rnd.bf16.f64), one correct rounding.
uint16_t f64ToBf16(double X, Round R = Round::Rn, bool SatFinite = false);
/// f32 -> tf32 (cvt.rna/.rn/.rz{.satfinite}.tf32.f32): the f32 rounded to 10 fraction bits,
/// returned as an f32 bit pattern with the low 13 bits zero. NaN -> canonical f32 NaN.
uint32_t f32ToTf32(float X, Round R = Round::Rna, bool SatFinite = false);
/// cvt.rn{.relu}{.satfinite}.f16x2.f32 d, a, b: `A` goes to the upper half, `B` to the lower half
/// (PTX ISA 9.7.9: "the value converted from input a is stored in the upper half of d").
uint32_t packF16x2(float A, float B, Round R = Round::Rn, bool SatFinite = false,
                   bool Relu = false);
/// cvt.rn{.relu}{.satfinite}.bf16x2.f32 d, a, b: same packing order as packF16x2.
uint32_t packBf16x2(float A, float B, Round R = Round::Rn, bool SatFinite = false,
                    bool Relu = false);

// --- fp8: .e4m3 and .e5m2 (PTX ISA 5.2.5.3 alternate floating-point formats) -----------------
// e4m3: bias 7, no infinities, S.1111.111 is NaN, largest 448. e5m2: bias 15, IEEE-style with
// infinities, largest 57344. Subnormals in both.

/// fp8 bits -> f32, exact (NaN -> the canonical f32 NaN).
float e4m3ToF32(uint8_t B);
float e5m2ToF32(uint8_t B);
/// f32 -> fp8 rounded to nearest even (cvt.rn{.satfinite}{.relu}.e4m3x2/.e5m2x2 per element).
/// `SatFinite`: infinities and overflow give the largest finite value of that sign; without it
/// overflow gives e5m2's infinity and e4m3's NaN (it has no infinity). NaN -> 0x7f. `Relu`:
/// negative results (and -0) -> +0.
uint8_t f32ToE4m3(float X, bool SatFinite = true, bool Relu = false);
uint8_t f32ToE5m2(float X, bool SatFinite = true, bool Relu = false);

// --- f32 / f64 conversions (cvt, PTX ISA 9.7.9)
// -------------------------------------------------

/// cvt.rnd{.ftz}{.sat}.f32.f64: correctly rounded; .ftz flushes a subnormal f32 result.
float f64ToF32(double X, FpMode M = {});
/// cvt{.ftz}{.sat}.f64.f32: exact; .ftz flushes a subnormal input first.
double f32ToF64(float X, bool Ftz = false, bool Sat = false);
/// cvt.rni/rzi/rmi/rpi{.ftz}{.sat}.f32.f32: round to an integral value in f32 (NaN -> canonical).
float roundToIntegralF32(float X, Round R, bool Ftz = false, bool Sat = false);
/// cvt.rni/rzi/rmi/rpi{.sat}.f64.f64.
double roundToIntegralF64(double X, Round R, bool Sat = false);
/// cvt.rni/rzi/rmi/rpi.{s,u}{8,16,32,64}.{f16,f32,f64}: round to integer then saturate to the
/// target range (float-to-integer cvt always saturates in PTX); NaN -> 0. `Bits` in {8,16,32,64}.
/// Returns the integer sign-extended (signed targets) or zero-extended to 64 bits.
/// f32 and f16 sources convert exactly to double first; apply .ftz with flushF32 beforehand.
uint64_t floatToInt(double X, Round R, unsigned Bits, bool Signed);
/// cvt.rnd.{f16,f32,f64}.{s,u}NN: integer -> float, correctly rounded. Narrower sources are
/// sign/zero-extended to 64 bits by the caller (exact).
float s64ToF32(int64_t X, Round R = Round::Rn);
float u64ToF32(uint64_t X, Round R = Round::Rn);
double s64ToF64(int64_t X, Round R = Round::Rn);
double u64ToF64(uint64_t X, Round R = Round::Rn);
uint16_t s64ToF16(int64_t X, Round R = Round::Rn);
uint16_t u64ToF16(uint64_t X, Round R = Round::Rn);
uint16_t s64ToBf16(int64_t X, Round R = Round::Rn);
uint16_t u64ToBf16(uint64_t X, Round R = Round::Rn);

/// cvt{.sat}.{s,u}DST.{s,u}SRC between integer types (PTX ISA 9.7.9): `X` holds the source
/// value in its low `SrcBits`. Without .sat the value is truncated to DST; with .sat it is clamped
/// to DST's range. The result is sign-extended (signed DST) or zero-extended to 64 bits.
uint64_t convertInt(uint64_t X, unsigned SrcBits, bool SrcSigned, unsigned DstBits, bool DstSigned,
                    bool Sat);

// --- f32 / f64 arithmetic (PTX ISA 9.7.3, 9.7.4)
// ---------------------------------------------------- All correctly rounded in M.rnd
// (Rn/Rz/Rm/Rp); NaN results are canonical. The Rn forms without .ftz/.sat run inline on the host's
// IEEE operations (correct rounding; see docs/semantics.md).

namespace detail {
float addF32Slow(float A, float B, FpMode M);
float mulF32Slow(float A, float B, FpMode M);
float fmaF32Slow(float A, float B, float C, FpMode M);
double addF64Slow(double A, double B, Round R);
double mulF64Slow(double A, double B, Round R);
float finishF32(float X, FpMode M); ///< .ftz result flush, .sat, NaN canonicalisation
} // namespace detail

/// add{.rnd}{.ftz}{.sat}.f32.
inline float addF32(float A, float B, FpMode M = {}) {
  if (M.rnd == Round::Rn && !M.ftz && !M.sat)
    return canonF32(A + B);
  return detail::addF32Slow(A, B, M);
}
/// sub{.rnd}{.ftz}{.sat}.f32 (a - b == a + (-b) exactly).
inline float subF32(float A, float B, FpMode M = {}) {
  return addF32(A, f32FromBits(f32Bits(B) ^ 0x80000000u), M);
}
/// mul{.rnd}{.ftz}{.sat}.f32.
inline float mulF32(float A, float B, FpMode M = {}) {
  if (M.rnd == Round::Rn && !M.ftz && !M.sat)
    return canonF32(A * B);
  return detail::mulF32Slow(A, B, M);
}
/// fma.rnd{.ftz}{.sat}.f32 and mad.rnd.f32: a*b+c with a single rounding.
inline float fmaF32(float A, float B, float C, FpMode M = {}) {
  return detail::fmaF32Slow(A, B, C, M);
}
/// div.rnd{.ftz}.f32 (IEEE division, PTX ISA 9.7.3).
float divF32(float A, float B, FpMode M = {});
/// sqrt.rnd{.ftz}.f32 (IEEE square root); sqrt(-0) = -0, sqrt(x<0) = NaN.
float sqrtF32(float A, FpMode M = {});
/// rcp.rnd{.ftz}.f32 (IEEE 1/a).
float rcpF32(float A, FpMode M = {});

/// add.rnd.f64.
inline double addF64(double A, double B, Round R = Round::Rn) {
  return R == Round::Rn ? canonF64(A + B) : detail::addF64Slow(A, B, R);
}
/// sub.rnd.f64.
inline double subF64(double A, double B, Round R = Round::Rn) {
  return addF64(A, f64FromBits(f64Bits(B) ^ 0x8000000000000000ull), R);
}
/// mul.rnd.f64.
inline double mulF64(double A, double B, Round R = Round::Rn) {
  return R == Round::Rn ? canonF64(A * B) : detail::mulF64Slow(A, B, R);
}
/// fma.rnd.f64 / mad.rnd.f64.
double fmaF64(double A, double B, double C, Round R = Round::Rn);
/// div.rnd.f64.
double divF64(double A, double B, Round R = Round::Rn);
/// sqrt.rnd.f64.
double sqrtF64(double A, Round R = Round::Rn);
/// rcp.rnd.f64.
double rcpF64(double A, Round R = Round::Rn);

/// min{.ftz}{.NaN}.f32 (PTX ISA 9.7.3): if exactly one input is NaN the other is returned; both
/// NaN -> canonical NaN; `PropagateNan` (.NaN) -> canonical NaN if either is NaN. -0.0 < +0.0.
float minF32(float A, float B, bool Ftz = false, bool PropagateNan = false);
/// max{.ftz}{.NaN}.f32 (PTX ISA 9.7.3); same NaN rules as minF32.
float maxF32(float A, float B, bool Ftz = false, bool PropagateNan = false);
double minF64(double A, double B);
double maxF64(double A, double B);
/// abs{.ftz}.f32 / neg{.ftz}.f32: sign-bit operations (NaN payload kept), .ftz flushes first.
inline float absF32(float A, bool Ftz = false) {
  return f32FromBits(f32Bits(Ftz ? flushF32(A) : A) & 0x7fffffffu);
}
inline float negF32(float A, bool Ftz = false) {
  return f32FromBits(f32Bits(Ftz ? flushF32(A) : A) ^ 0x80000000u);
}
inline double absF64(double A) { return f64FromBits(f64Bits(A) & 0x7fffffffffffffffull); }
inline double negF64(double A) { return f64FromBits(f64Bits(A) ^ 0x8000000000000000ull); }
/// copysign.f32 d, a, b (PTX ISA 9.7.3): the value of `B` with the sign of `A` (note the order).
inline float copysignF32(float A, float B) {
  return f32FromBits((f32Bits(B) & 0x7fffffffu) | (f32Bits(A) & 0x80000000u));
}
inline double copysignF64(double A, double B) {
  return f64FromBits((f64Bits(B) & 0x7fffffffffffffffull) | (f64Bits(A) & 0x8000000000000000ull));
}

/// testp.op (PTX ISA 9.7.3); zero counts as normal.
enum class TestKind : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };
bool testpF32(float A, TestKind K);
bool testpF64(double A, TestKind K);

// --- Approximate functions (PTX ISA 9.7.3). See docs/semantics.md for their error. --

/// ex2.approx{.ftz}.f32: 2^a; computed as the correctly rounded f32 of a double-precision exp2.
float ex2ApproxF32(float A, bool Ftz = false);
/// lg2.approx{.ftz}.f32: log2(a); lg2(+-0) = -inf, lg2(a<0) = NaN.
float lg2ApproxF32(float A, bool Ftz = false);
/// sin.approx{.ftz}.f32 / cos.approx{.ftz}.f32 (inf -> NaN).
float sinApproxF32(float A, bool Ftz = false);
float cosApproxF32(float A, bool Ftz = false);
/// rsqrt.approx{.ftz}.f32: 1/sqrt(a); rsqrt(+-0) = +-inf, rsqrt(a<0) = NaN.
float rsqrtApproxF32(float A, bool Ftz = false);
/// rcp.approx{.ftz}.f32: 1/a.
float rcpApproxF32(float A, bool Ftz = false);
/// sqrt.approx{.ftz}.f32.
float sqrtApproxF32(float A, bool Ftz = false);
/// tanh.approx.f32.
float tanhApproxF32(float A);
/// div.approx{.ftz}.f32: a/b, except that for 2^126 < |b| < 2^128 the result is 0 (NaN for a
/// = +-inf), as CUDA documents for __fdividef.
float divApproxF32(float A, float B, bool Ftz = false);
/// div.full{.ftz}.f32: a/b correctly rounded (within the ISA's 2-ulp bound).
float divFullF32(float A, float B, bool Ftz = false);
/// rcp.approx.ftz.f64 and rsqrt.approx{.ftz}.f64: correctly rounded 1/a and 1/sqrt(a).
double rcpApproxF64(double A);
double rsqrtApproxF64(double A);
/// ex2.approx{.ftz}.f16 / .bf16 on bit patterns.
uint16_t ex2ApproxF16(uint16_t A);
uint16_t ex2ApproxBF16(uint16_t A);

// --- f16 / bf16 arithmetic (PTX ISA 9.7.4: half precision)
// ----------------------------------------- Operands and results are bit patterns. Rounding is .rn
// unless given; one correct rounding each. `Relu` (.relu on fma/min/max): negative results -> +0,
// NaN -> canonical NaN.

uint16_t addF16(uint16_t A, uint16_t B, FpMode M = {});
uint16_t subF16(uint16_t A, uint16_t B, FpMode M = {});
uint16_t mulF16(uint16_t A, uint16_t B, FpMode M = {});
uint16_t fmaF16(uint16_t A, uint16_t B, uint16_t C, FpMode M = {}, bool Relu = false);
uint16_t minF16(uint16_t A, uint16_t B, bool Ftz = false, bool PropagateNan = false,
                bool Relu = false);
uint16_t maxF16(uint16_t A, uint16_t B, bool Ftz = false, bool PropagateNan = false,
                bool Relu = false);
uint16_t addBF16(uint16_t A, uint16_t B, Round R = Round::Rn);
uint16_t subBF16(uint16_t A, uint16_t B, Round R = Round::Rn);
uint16_t mulBF16(uint16_t A, uint16_t B, Round R = Round::Rn);
uint16_t fmaBF16(uint16_t A, uint16_t B, uint16_t C, Round R = Round::Rn, bool Relu = false);
uint16_t minBF16(uint16_t A, uint16_t B, bool PropagateNan = false, bool Relu = false);
uint16_t maxBF16(uint16_t A, uint16_t B, bool PropagateNan = false, bool Relu = false);
/// abs/neg.f16 and .bf16: sign-bit operations; .ftz (f16 only) flushes a subnormal first.
inline uint16_t absF16(uint16_t A, bool Ftz = false) {
  if (Ftz && (A & 0x7c00) == 0)
    A &= 0x8000;
  return static_cast<uint16_t>(A & 0x7fff);
}
inline uint16_t negF16(uint16_t A, bool Ftz = false) {
  if (Ftz && (A & 0x7c00) == 0)
    A &= 0x8000;
  return static_cast<uint16_t>(A ^ 0x8000);
}
inline uint16_t absBF16(uint16_t A) { return static_cast<uint16_t>(A & 0x7fff); }
inline uint16_t negBF16(uint16_t A) { return static_cast<uint16_t>(A ^ 0x8000); }

/// Applies a 16-bit operation to both halves of packed .f16x2/.bf16x2 operands (low with low, high
/// with high), as PTX's x2 forms do.
template <class Fn> inline uint32_t mapHalves(uint32_t A, Fn F) {
  return uint32_t(F(uint16_t(A))) | uint32_t(F(uint16_t(A >> 16))) << 16;
}
template <class Fn> inline uint32_t mapHalves(uint32_t A, uint32_t B, Fn F) {
  return uint32_t(F(uint16_t(A), uint16_t(B))) | uint32_t(F(uint16_t(A >> 16), uint16_t(B >> 16)))
                                                     << 16;
}
template <class Fn> inline uint32_t mapHalves(uint32_t A, uint32_t B, uint32_t C, Fn F) {
  return uint32_t(F(uint16_t(A), uint16_t(B), uint16_t(C))) |
         uint32_t(F(uint16_t(A >> 16), uint16_t(B >> 16), uint16_t(C >> 16))) << 16;
}
uint32_t addF16x2(uint32_t A, uint32_t B, FpMode M = {});
uint32_t subF16x2(uint32_t A, uint32_t B, FpMode M = {});
uint32_t mulF16x2(uint32_t A, uint32_t B, FpMode M = {});
uint32_t fmaF16x2(uint32_t A, uint32_t B, uint32_t C, FpMode M = {}, bool Relu = false);
uint32_t fmaBF16x2(uint32_t A, uint32_t B, uint32_t C, Round R = Round::Rn, bool Relu = false);

// --- Integer arithmetic (PTX ISA 9.7.1, 9.7.2) ---------------------------------------------------

/// Twice-as-wide type for mul.wide / mul.hi (16 -> 32, 32 -> 64, 64 -> 128).
template <class T> struct Wider;
template <> struct Wider<int16_t> { using type = int32_t; };
template <> struct Wider<uint16_t> { using type = uint32_t; };
template <> struct Wider<int32_t> { using type = int64_t; };
template <> struct Wider<uint32_t> { using type = uint64_t; };
template <> struct Wider<int64_t> { using type = __int128; };
template <> struct Wider<uint64_t> { using type = unsigned __int128; };

/// mul.wide.{s,u}{16,32}: the full product.
template <class T> inline typename Wider<T>::type mulWide(T A, T B) {
  using W = typename Wider<T>::type;
  return static_cast<W>(A) * static_cast<W>(B);
}
/// mul.lo: the low half of the product (wraps; computed unsigned to avoid signed overflow).
template <class T> inline T mulLo(T A, T B) {
  using U = std::make_unsigned_t<T>;
  using P = std::conditional_t<sizeof(T) < sizeof(unsigned), unsigned, U>;
  return static_cast<T>(static_cast<U>(static_cast<P>(static_cast<U>(A)) * static_cast<U>(B)));
}
/// mul.hi: the high half of the full product (64-bit via 128-bit arithmetic).
template <class T> inline T mulHi(T A, T B) {
  return static_cast<T>(mulWide(A, B) >> (8 * sizeof(T)));
}
/// mad.hi.sat.s32: saturate(hi(a*b) + c) to [INT32_MIN, INT32_MAX].
inline int32_t madHiSatS32(int32_t A, int32_t B, int32_t C) {
  int64_t S = int64_t(mulHi(A, B)) + C;
  return S > INT32_MAX ? INT32_MAX : S < INT32_MIN ? INT32_MIN : int32_t(S);
}
/// mul24.lo/.hi.{u32,s32} (PTX ISA 9.7.1): product of the low 24 bits of each operand
/// (sign-extended from bit 23 for .s32) as a 48-bit value; .lo -> bits 31..0, .hi -> bits 47..16.
inline uint32_t mul24(uint32_t A, uint32_t B, bool Signed, bool Hi) {
  int64_t X = Signed ? int64_t(int32_t(A << 8) >> 8) : int64_t(A & 0xffffffu);
  int64_t Y = Signed ? int64_t(int32_t(B << 8) >> 8) : int64_t(B & 0xffffffu);
  uint64_t P = uint64_t(X * Y);
  return Hi ? uint32_t(P >> 16) : uint32_t(P);
}
/// sad.{s,u}{16,32,64}: c + |a - b| (wrapping add; the difference is taken in the wider range).
template <class T> inline T sad(T A, T B, T C) {
  using U = std::make_unsigned_t<T>;
  U D = A < B ? U(U(B) - U(A)) : U(U(A) - U(B));
  return static_cast<T>(U(U(C) + D));
}
/// div.{s,u}NN (PTX: division by zero is unspecified). Chosen, as the GPU's division sequence
/// ends (its last step selects ~divisor when the divisor is 0): x/0 = all ones (-1 for signed)
/// for every x; INT_MIN / -1 = INT_MIN (wraps).
template <class T> inline T divInt(T A, T B) {
  if (B == 0)
    return T(~std::make_unsigned_t<T>(0));
  if constexpr (std::is_signed_v<T>)
    if (B == T(-1))
      return static_cast<T>(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(A));
  return T(A / B);
}
/// rem.{s,u}NN: x % 0 = x; INT_MIN % -1 = 0; the sign follows the dividend (C semantics).
template <class T> inline T remInt(T A, T B) {
  if (B == 0)
    return A;
  if constexpr (std::is_signed_v<T>)
    if (B == T(-1))
      return 0;
  return T(A % B);
}
/// abs.sNN / neg.sNN: two's complement, wrapping (abs(INT_MIN) = INT_MIN).
template <class T> inline T absInt(T A) {
  using U = std::make_unsigned_t<T>;
  return A < 0 ? static_cast<T>(U(0) - U(A)) : A;
}
template <class T> inline T negInt(T A) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - U(A));
}
/// add.sat.s32 / sub.sat.s32: clamp to [INT32_MIN, INT32_MAX].
inline int32_t addSatS32(int32_t A, int32_t B) {
  int64_t S = int64_t(A) + B;
  return S > INT32_MAX ? INT32_MAX : S < INT32_MIN ? INT32_MIN : int32_t(S);
}
inline int32_t subSatS32(int32_t A, int32_t B) {
  int64_t S = int64_t(A) - B;
  return S > INT32_MAX ? INT32_MAX : S < INT32_MIN ? INT32_MIN : int32_t(S);
}

/// min/max{.relu}.{u16x2,s16x2} (PTX ISA 9.7.1-11): per 16-bit half; .relu (s16x2 only)
/// clamps negative results to 0. Also add/sub.{u16x2,s16x2} (wrapping) via addSub16x2.
inline uint32_t minMax16x2(uint32_t A, uint32_t B, bool Signed, bool Max, bool Relu = false) {
  uint32_t R = 0;
  for (int I = 0; I < 2; ++I) {
    int32_t X = Signed ? int32_t(int16_t(A >> (16 * I))) : int32_t(uint16_t(A >> (16 * I)));
    int32_t Y = Signed ? int32_t(int16_t(B >> (16 * I))) : int32_t(uint16_t(B >> (16 * I)));
    int32_t V = (X < Y) != Max ? X : Y;
    if (Relu && V < 0)
      V = 0;
    R |= uint32_t(uint16_t(V)) << (16 * I);
  }
  return R;
}
inline uint32_t addSub16x2(uint32_t A, uint32_t B, bool Sub) {
  uint32_t R = 0;
  for (int I = 0; I < 2; ++I) {
    uint16_t X = uint16_t(A >> (16 * I)), Y = uint16_t(B >> (16 * I));
    R |= uint32_t(uint16_t(Sub ? X - Y : X + Y)) << (16 * I);
  }
  return R;
}
/// max.relu.s32 / min.relu.s32: the result clamped below at 0.
inline int32_t reluS32(int32_t A) { return A < 0 ? 0 : A; }

/// A value and the condition-code carry flag CC.CF (PTX ISA 9.7.2 "extended-precision").
template <class T> struct WithCarry {
  T value;
  bool carry;
};
/// add.cc / addc{.cc}: a + b + carryIn; carry = unsigned carry-out (for .u and .s alike).
template <class T> inline WithCarry<T> addCarry(T A, T B, bool CarryIn) {
  using U = std::make_unsigned_t<T>;
  U S1 = U(A) + U(B);
  U S2 = S1 + U(CarryIn);
  return {static_cast<T>(S2), S1 < U(A) || S2 < S1};
}
/// sub.cc / subc{.cc}: a + ~b + carryIn, carry = its unsigned carry-out. The PTX ISA (9.7.2.3,
/// 9.7.2.4) writes subc as `a - (b + CC.CF)` with CC.CF a "borrow"; NVIDIA GPUs keep NOT-borrow
/// in CC.CF (the carry-out of a + ~b + 1) and compute subc as a + ~b + CC.CF, so sub.cc is
/// subCarry(a, b, true) and mixed add/sub chains match the hardware (docs/semantics.md).
template <class T> inline WithCarry<T> subCarry(T A, T B, bool CarryIn) {
  using U = std::make_unsigned_t<T>;
  return addCarry(A, static_cast<T>(U(~U(B))), CarryIn);
}
/// mad{c}.lo/.hi{.cc}.{s,u}{32,64}: lo/hi(a*b) + c + carryIn with carry-out.
template <class T> inline WithCarry<T> madCarry(T A, T B, T C, bool Hi, bool CarryIn) {
  return addCarry(Hi ? mulHi(A, B) : mulLo(A, B), C, CarryIn);
}
/// dp4a.atype.btype d, a, b, c (PTX ISA 9.7.1): c + sum of the four byte products; bytes are
/// sign-extended when their operand is .s32. Wraps modulo 2^32.
inline uint32_t dp4a(uint32_t A, uint32_t B, uint32_t C, bool ASigned, bool BSigned) {
  uint32_t S = C;
  for (int I = 0; I < 4; ++I) {
    int32_t X = ASigned ? int32_t(int8_t(A >> (8 * I))) : int32_t(uint8_t(A >> (8 * I)));
    int32_t Y = BSigned ? int32_t(int8_t(B >> (8 * I))) : int32_t(uint8_t(B >> (8 * I)));
    S += uint32_t(X * Y);
  }
  return S;
}
/// dp2a.lo/.hi.atype.btype d, a, b, c (PTX ISA 9.7.1): c + a.h0*b.byte(k) + a.h1*b.byte(k+1)
/// with k = 0 for .lo and 2 for .hi; halves/bytes sign-extended for .s32 operands.
inline uint32_t dp2a(uint32_t A, uint32_t B, uint32_t C, bool ASigned, bool BSigned, bool Hi) {
  uint32_t S = C;
  for (int I = 0; I < 2; ++I) {
    int32_t X = ASigned ? int32_t(int16_t(A >> (16 * I))) : int32_t(uint16_t(A >> (16 * I)));
    unsigned Sh = 8 * (I + (Hi ? 2 : 0));
    int32_t Y = BSigned ? int32_t(int8_t(B >> Sh)) : int32_t(uint8_t(B >> Sh));
    S += uint32_t(X) * uint32_t(Y);
  }
  return S;
}

// --- Bit manipulation (PTX ISA 9.7.1, 9.7.8)
// -------------------------------------------------------

/// popc.b32/.b64, clz.b32/.b64 (clz(0) = width), brev.b32/.b64.
inline uint32_t popc(uint64_t A) { return uint32_t(std::popcount(A)); }
inline uint32_t clz32(uint32_t A) { return uint32_t(std::countl_zero(A)); }
inline uint32_t clz64(uint64_t A) { return uint32_t(std::countl_zero(A)); }
uint32_t brev32(uint32_t A);
uint64_t brev64(uint64_t A);
/// bfind{.shiftamt}.{u,s}{32,64} (PTX ISA 9.7.1): position of the most significant non-sign
/// bit (for signed negative inputs: the most significant 0 bit); 0xffffffff if none. .shiftamt
/// returns width-1-position instead (still 0xffffffff if none). `A` holds the value in its low
/// `Bits` (32 or 64).
uint32_t bfind(uint64_t A, unsigned Bits, bool Signed, bool ShiftAmt);
/// fns.b32 d, mask, base, offset (PTX ISA 9.7.1): position of the offset-th set bit of mask
/// counting from base (upwards for offset > 0, downwards for offset < 0; offset 0 tests bit base);
/// 0xffffffff if there is none or base > 31.
uint32_t fns(uint32_t Mask, uint32_t Base, int32_t Offset);
/// bfe.{u,s}{32,64} (PTX ISA 9.7.1): extract `len` = c & 0xff bits from position `pos` = b &
/// 0xff, sign-filling for signed types from bit min(pos+len-1, msb); len 0 -> 0.
uint64_t bfe(uint64_t A, uint32_t Pos, uint32_t Len, unsigned Bits, bool Signed);
/// bfi.b{32,64} (PTX ISA 9.7.1): insert the low `len` = d & 0xff bits of a into b at `pos` = c &
/// 0xff (bits beyond the msb are dropped).
uint64_t bfi(uint64_t A, uint64_t B, uint32_t Pos, uint32_t Len, unsigned Bits);
/// prmt.b32{.mode} (PTX ISA 9.7.9, data movement: prmt).
enum class PrmtMode : uint8_t { Default, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };
uint32_t prmt(uint32_t A, uint32_t B, uint32_t C, PrmtMode Mode = PrmtMode::Default);
/// lop3.b32 (PTX ISA 9.7.8): bit i of the result is bit ((a_i<<2)|(b_i<<1)|c_i) of `Lut`
/// (so Lut = F(0xF0, 0xCC, 0xAA) for the Boolean function F).
template <class T> inline T lop3(T A, T B, T C, uint8_t Lut) {
  T R = 0;
  for (unsigned Idx = 0; Idx < 8; ++Idx) {
    if (!((Lut >> Idx) & 1))
      continue;
    T Ma = (Idx & 4) ? A : T(~A), Mb = (Idx & 2) ? B : T(~B), Mc = (Idx & 1) ? C : T(~C);
    R |= Ma & Mb & Mc;
  }
  return R;
}
/// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c (PTX ISA 9.7.8): funnel shift of the 64-bit {b:a};
/// n = c & 31 (.wrap) or min(c, 32) (.clamp); .l returns the upper 32 bits of {b:a} << n, .r the
/// lower 32 bits of {b:a} >> n.
inline uint32_t shf(uint32_t A, uint32_t B, uint32_t C, bool Left, bool Clamp) {
  uint32_t N = Clamp ? (C < 32 ? C : 32) : (C & 31);
  uint64_t V = (uint64_t(B) << 32) | A;
  return Left ? uint32_t((V << N) >> 32) : uint32_t(V >> N);
}
/// shl.bNN: shift amounts >= width give 0 (PTX clamps the shift amount).
template <class T> inline T shl(T A, uint32_t N) {
  return N >= 8 * sizeof(T) ? T(0) : T(std::make_unsigned_t<T>(A) << N);
}
/// shr.{b,u,s}NN: logical for unsigned/bit types, arithmetic for signed; amounts >= width give 0
/// or the sign fill.
template <class T> inline T shr(T A, uint32_t N) {
  if (N >= 8 * sizeof(T))
    N = 8 * sizeof(T) - 1 + (std::is_signed_v<T> ? 0 : 1);
  if (N >= 8 * sizeof(T))
    return T(0);
  return T(A >> N);
}
/// bmsk.{clamp,wrap}.b32 d, a, b (PTX ISA 9.7.1, integer arithmetic: bmsk): a mask of b ones
/// starting at bit a; .wrap takes a and b modulo 32, .clamp limits them to 32; bits past 31 are
/// dropped.
inline uint32_t bmsk(uint32_t A, uint32_t B, bool Clamp) {
  uint32_t Pos = Clamp ? (A < 32 ? A : 32) : (A & 31);
  uint32_t Len = Clamp ? (B < 32 ? B : 32) : (B & 31);
  uint64_t M = ((uint64_t(1) << Len) - 1) << Pos;
  return uint32_t(M);
}
/// szext.{clamp,wrap}.{s32,u32} d, a, b (PTX ISA 9.7.1, integer arithmetic: szext): sign- or
/// zero-extend the low b bits of a (b modulo 32 for .wrap, min(b, 32) for .clamp); b = 0 gives 0.
inline uint32_t szext(uint32_t A, uint32_t B, bool Clamp, bool Signed) {
  uint32_t N = Clamp ? (B < 32 ? B : 32) : (B & 31);
  if (N == 0)
    return 0;
  if (N == 32)
    return A;
  uint32_t Low = A & ((1u << N) - 1);
  if (Signed && ((Low >> (N - 1)) & 1))
    Low |= ~((1u << N) - 1);
  return Low;
}

} // namespace analyzer::scalar
