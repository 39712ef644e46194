// cvt between all integer and floating-point types (PTX ISA 9.7.9.21). Integer-to-integer
// conversions without .sat get one handler per type pair; everything else goes through one
// per-lane conversion routine.
#include "Decoder.h"
#include "Lanes.h"
#include "analyzer/ScalarOps.h"

#include <algorithm>
#include <type_traits>

namespace analyzer {
namespace {

namespace S = scalar;
using ptx::Type;

enum class Kind : uint8_t { Int, F16, BF16, F32, F64, TF32 };

Kind kindOf(Type T) {
  switch (T) {
  case Type::F16:
    return Kind::F16;
  case Type::BF16:
    return Kind::BF16;
  case Type::F32:
    return Kind::F32;
  case Type::F64:
    return Kind::F64;
  case Type::TF32:
    return Kind::TF32;
  default:
    return Kind::Int;
  }
}

/// Decoded cvt parameters packed into aux (dst type | src type << 8), aux2 (round | flags),
/// aux3 (destination store bits).
struct CvtSpec {
  Type dst, src;
  S::Round rnd;
  bool hasRound, ftz, sat, relu, satfinite;
  unsigned storeBits;
};

CvtSpec specOf(const DInstr &I) {
  return {static_cast<Type>(I.aux & 0xff),
          static_cast<Type>((I.aux >> 8) & 0xff),
          static_cast<S::Round>(I.aux2 & 7),
          bool(I.aux2 & 8),
          bool(I.aux2 & 16),
          bool(I.aux2 & 32),
          bool(I.aux2 & 64),
          bool(I.aux2 & 128),
          I.aux3};
}

bool isSigned(Type T) { return ptx::typeKind(T) == ptx::TypeKind::Signed; }

/// The source value as a double (exact for every source type but 64-bit integers).
double asDouble(uint64_t V, Type T, bool Ftz) {
  switch (kindOf(T)) {
  case Kind::F16:
    return S::f16ToF32(uint16_t(V));
  case Kind::BF16:
    return S::bf16ToF32(uint16_t(V));
  case Kind::F32:
  case Kind::TF32: {
    float F = getAs<float>(V);
    return Ftz ? S::flushF32(F) : F;
  }
  case Kind::F64:
    return getAs<double>(V);
  default:
    return 0;
  }
}

uint64_t fromInt(uint64_t V, const CvtSpec &C) {
  unsigned SB = ptx::typeBits(C.src);
  bool SS = isSigned(C.src);
  // Sign- or zero-extend the source to 64 bits.
  if (SB < 64) {
    V &= (uint64_t(1) << SB) - 1;
    if (SS && (V >> (SB - 1)) & 1)
      V |= ~((uint64_t(1) << SB) - 1);
  }
  switch (kindOf(C.dst)) {
  case Kind::Int:
    return S::convertInt(V, 64, SS, ptx::typeBits(C.dst), isSigned(C.dst), C.sat);
  case Kind::F16:
    return SS ? S::s64ToF16(int64_t(V), C.rnd) : S::u64ToF16(V, C.rnd);
  case Kind::BF16:
    return SS ? S::s64ToBf16(int64_t(V), C.rnd) : S::u64ToBf16(V, C.rnd);
  case Kind::F32: {
    float F = SS ? S::s64ToF32(int64_t(V), C.rnd) : S::u64ToF32(V, C.rnd);
    return putAs<float>(C.sat ? S::saturateF32(F) : F);
  }
  case Kind::F64: {
    double D = SS ? S::s64ToF64(int64_t(V), C.rnd) : S::u64ToF64(V, C.rnd);
    return putAs<double>(C.sat ? S::saturateF64(D) : D);
  }
  default:
    return 0;
  }
}

uint64_t fromFloat(uint64_t V, const CvtSpec &C) {
  double X = asDouble(V, C.src, C.ftz);
  Kind SK = kindOf(C.src), DK = kindOf(C.dst);
  switch (DK) {
  case Kind::Int:
    return S::floatToInt(X, C.hasRound ? C.rnd : S::Round::Rz, ptx::typeBits(C.dst),
                         isSigned(C.dst));
  case Kind::F16:
    if (SK == Kind::F64)
      return S::f64ToF16(X, C.rnd, C.satfinite);
    if (SK == Kind::F16 && C.hasRound)
      return S::f32ToF16(S::roundToIntegralF32(float(X), C.rnd), S::Round::Rn);
    return S::f32ToF16(float(X), C.rnd, C.satfinite, C.relu);
  case Kind::BF16:
    if (SK == Kind::F64)
      return S::f64ToBf16(X, C.rnd, C.satfinite);
    if (SK == Kind::BF16 && C.hasRound)
      return S::f32ToBf16(S::roundToIntegralF32(float(X), C.rnd), S::Round::Rn);
    return S::f32ToBf16(float(X), C.rnd, C.satfinite, C.relu);
  case Kind::TF32:
    return S::f32ToTf32(float(X), C.hasRound ? C.rnd : S::Round::Rna, C.satfinite);
  case Kind::F32: {
    if (SK == Kind::F64)
      return putAs<float>(S::f64ToF32(X, {C.rnd, C.ftz, C.sat}));
    float F = float(X);
    if (SK == Kind::F32 && C.hasRound)
      return putAs<float>(S::roundToIntegralF32(F, C.rnd, C.ftz, C.sat));
    if (C.sat)
      F = S::saturateF32(F);
    return putAs<float>(C.ftz ? S::flushF32(S::canonF32(F)) : S::canonF32(F));
  }
  case Kind::F64:
    if (SK == Kind::F64 && C.hasRound)
      return putAs<double>(S::roundToIntegralF64(X, C.rnd, C.sat));
    return putAs<double>(C.sat ? S::saturateF64(S::canonF64(X)) : S::canonF64(X));
  }
  return 0;
}

void cvtGeneric(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  CvtSpec C = specOf(I);
  uint64_t Mask = C.storeBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << C.storeBits) - 1;
  bool IntSrc = kindOf(C.src) == Kind::Int;
  forLanes(M, [&](unsigned L) {
    uint64_t R = IntSrc ? fromInt(A[L], C) : fromFloat(A[L], C);
    D[L] = R & Mask;
  });
}

/// cvt.rna.tf32.f32 d, a (the conversion in front of every tf32 mma): rounding to nearest, ties
/// away from zero, on the 13 bits tf32 drops is adding half their weight to the magnitude. NaN,
/// infinity and values that round past the largest tf32 take the general routine.
void cvtTf32Rna(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  forLanes(M, [&](unsigned L) {
    const uint32_t B = uint32_t(A[L]);
    D[L] = (B & 0x7fffffffu) < 0x7f7ff000u ? (B + 0x1000u) & 0xffffe000u
                                           : S::f32ToTf32(S::f32FromBits(B), S::Round::Rna);
  });
}

/// Integer cvt without .sat: Src (its own signedness) extended or truncated to Dst; a signed Dst
/// is sign-extended and cut to the store width in aux3 (the destination register's width).
template <class Src, class Dst> void cvtInt(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  if constexpr (std::is_signed_v<Dst> && sizeof(Dst) < 8) {
    const uint64_t Mask = I.aux3 >= 64 ? ~uint64_t(0) : (uint64_t(1) << I.aux3) - 1;
    forLanes(M, [&](unsigned L) { D[L] = uint64_t(int64_t(Dst(getAs<Src>(A[L])))) & Mask; });
  } else {
    forLanes(M, [&](unsigned L) { D[L] = putAs<Dst>(Dst(getAs<Src>(A[L]))); });
  }
}

/// cvt.rn.f16x2.f32 / cvt.rn.bf16x2.f32 d, a, b (aux bit 0: bf16).
void cvtPack(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  CvtSpec C = specOf(I);
  forLanes(M, [&](unsigned L) {
    float X = getAs<float>(A[L]), Y = getAs<float>(B[L]);
    D[L] = (I.aux3 & 1) ? S::packBf16x2(X, Y, C.rnd, C.satfinite, C.relu)
                        : S::packF16x2(X, Y, C.rnd, C.satfinite, C.relu);
  });
}

bool isFp8x2(Type T) { return T == Type::E4M3x2 || T == Type::E5M2x2; }

/// An f16 half as fp8 or back (aux3 bit 0: e5m2; exact from fp8, one rounding to fp8).
uint8_t toFp8(float X, const DInstr &I, const CvtSpec &C) {
  return (I.aux3 & 1) ? S::f32ToE5m2(X, C.satfinite, C.relu) : S::f32ToE4m3(X, C.satfinite, C.relu);
}
uint16_t fp8ToF16(uint8_t B, const DInstr &I, const CvtSpec &C) {
  float X = (I.aux3 & 1) ? S::e5m2ToF32(B) : S::e4m3ToF32(B);
  return S::f32ToF16(X, S::Round::Rn, false, C.relu); // exact: every fp8 value is an f16
}

/// fp8 conversions (PTX ISA 9.7.9.21): cvt.rn{.satfinite}{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b
/// (a to the upper byte, b to the lower), .{e4m3x2,e5m2x2}.f16x2 d, a (each half to its byte),
/// and cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a (each byte to its half). aux3 bit 0: e5m2; bit 1:
/// from f32 pairs; bit 2: to f16x2.
void cvtFp8(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = (I.aux3 & 2) ? opPtr(W, I, 2) : A;
  CvtSpec C = specOf(I);
  forLanes(M, [&](unsigned L) {
    if (I.aux3 & 4) {
      D[L] = fp8ToF16(uint8_t(A[L]), I, C) | uint32_t(fp8ToF16(uint8_t(A[L] >> 8), I, C)) << 16;
    } else if (I.aux3 & 2) {
      D[L] = toFp8(getAs<float>(B[L]), I, C) | uint32_t(toFp8(getAs<float>(A[L]), I, C)) << 8;
    } else {
      D[L] = toFp8(S::f16ToF32(uint16_t(A[L])), I, C) |
             uint32_t(toFp8(S::f16ToF32(uint16_t(A[L] >> 16)), I, C)) << 8;
    }
  });
}

/// cvt.pack.sat.{u16,s16,u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b{, c} (PTX ISA 9.7.9.21): a and b
/// clamped to the type's range, b in the low `size` bits, a above it; for 8 bits and narrower c
/// fills the bits above 2 * size. aux3 = size | signed << 8.
void cvtPackSat(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  const uint64_t *Cp = I.nops > 3 ? opPtr(W, I, 3) : nullptr;
  const unsigned Size = I.aux3 & 0xff;
  const bool Signed = (I.aux3 >> 8) & 1;
  const int64_t Lo = Signed ? -(int64_t(1) << (Size - 1)) : 0;
  const int64_t Hi = Signed ? (int64_t(1) << (Size - 1)) - 1 : (int64_t(1) << Size) - 1;
  const uint32_t Mask = uint32_t((uint64_t(1) << Size) - 1);
  forLanes(M, [&](unsigned L) {
    auto Sat = [&](uint64_t V) {
      return uint32_t(std::clamp<int64_t>(int32_t(V), Lo, Hi)) & Mask;
    };
    uint64_t R = Sat(B[L]) | uint64_t(Sat(A[L])) << Size;
    if (Cp)
      R |= Cp[L] << (2 * Size);
    D[L] = uint32_t(R);
  });
}

/// Calls F with a value of the C++ integer type of T's width and signedness (b types unsigned).
template <class F> Handler withIntType(Type T, F &&Fn) {
  const bool Signed = isSigned(T);
  switch (ptx::typeBits(T)) {
  case 8:
    return Signed ? Fn(int8_t()) : Fn(uint8_t());
  case 16:
    return Signed ? Fn(int16_t()) : Fn(uint16_t());
  case 32:
    return Signed ? Fn(int32_t()) : Fn(uint32_t());
  default:
    return Signed ? Fn(int64_t()) : Fn(uint64_t());
  }
}

/// The integer-to-integer handler (no .sat) for the pair of types.
Handler fastIntCvt(Type D, Type Sr) {
  return withIntType(Sr, [&](auto SrcV) {
    return withIntType(
        D, [&](auto DstV) -> Handler { return cvtInt<decltype(SrcV), decltype(DstV)>; });
  });
}

} // namespace

/// cvt.pack.sat.type.s32.b32 d, a, b{, c}: the packed type's size comes from its name (u2 and
/// s2 are no PTX fundamental types).
bool selectCvtPack(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  constexpr std::pair<std::string_view, unsigned> Sizes[] = {
      {"u16", 16}, {"s16", 16 | 256}, {"u8", 8}, {"s8", 8 | 256},
      {"u4", 4},   {"s4", 4 | 256},   {"u2", 2}, {"s2", 2 | 256}};
  I.aux3 = 0;
  for (auto [Name, V] : Sizes)
    if (In.modifiers.size() > 2 && In.modifiers[2] == Name)
      I.aux3 = V;
  const size_t Ops = (I.aux3 & 0xff) == 16 ? 3 : 4;
  if (!In.hasModifier("sat") || I.aux3 == 0 || In.operands.size() != Ops)
    return Ctx.fail("cvt.pack form");
  I.fn = cvtPackSat;
  if (!Ctx.dst(I, 0, In.operands[0]))
    return false;
  for (unsigned K = 1; K < Ops; ++K)
    if (!Ctx.src(I, K, In.operands[K], Type::B32))
      return false;
  return true;
}

/// fp8 conversions from f32 pairs or f16x2 and to f16x2 (cvtFp8).
bool selectCvtFp8(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I, Type D, Type Sr) {
  const bool ToF16 = D == Type::F16x2, FromF32 = Sr == Type::F32;
  const Type Fp8 = ToF16 ? Sr : D;
  if (!isFp8x2(Fp8) || (!ToF16 && Sr != Type::F16x2 && !FromF32) ||
      !In.hasModifier("rn") || In.operands.size() != (FromF32 ? 3u : 2u))
    return Ctx.fail("fp8 conversion form");
  I.fn = cvtFp8;
  I.aux3 = (Fp8 == Type::E5M2x2 ? 1 : 0) | (FromF32 ? 2 : 0) | (ToF16 ? 4 : 0);
  if (!Ctx.dst(I, 0, In.operands[0]) || !Ctx.src(I, 1, In.operands[1], Sr))
    return false;
  return !FromF32 || Ctx.src(I, 2, In.operands[2], Sr);
}

bool selectCvt(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  if (In.hasModifier("pack"))
    return selectCvtPack(Ctx, In, I);
  std::vector<Type> Ts = In.types();
  if (Ts.size() != 2)
    return Ctx.fail("cvt needs two types");
  Type D = Ts[0], Sr = Ts[1];
  uint32_t Flags = 0;
  constexpr std::pair<std::string_view, S::Round> Rounds[] = {
      {"rn", S::Round::Rn},  {"rz", S::Round::Rz},   {"rm", S::Round::Rm},
      {"rp", S::Round::Rp},  {"rna", S::Round::Rna}, {"rni", S::Round::Rn},
      {"rzi", S::Round::Rz}, {"rmi", S::Round::Rm},  {"rpi", S::Round::Rp}};
  for (auto [Name, R] : Rounds)
    if (In.hasModifier(Name))
      Flags = uint32_t(R) | 8;
  Flags |= (In.hasModifier("ftz") ? 16 : 0) | (In.hasModifier("sat") ? 32 : 0) |
           (In.hasModifier("relu") ? 64 : 0) | (In.hasModifier("satfinite") ? 128 : 0);
  I.aux = uint32_t(D) | (uint32_t(Sr) << 8);
  I.aux2 = Flags;
  if (isFp8x2(D) || isFp8x2(Sr))
    return selectCvtFp8(Ctx, In, I, D, Sr);
  if (D == Type::F16x2 || D == Type::BF16x2) {
    if (Sr != Type::F32 || In.operands.size() != 3)
      return Ctx.fail("packed conversion form");
    I.fn = cvtPack;
    I.aux3 = D == Type::BF16x2;
    return Ctx.dst(I, 0, In.operands[0]) && Ctx.src(I, 1, In.operands[1], Sr) &&
           Ctx.src(I, 2, In.operands[2], Sr);
  }
  auto Ok = [](Type T) { // integer types: 8 to 64 bits, signed, unsigned or b16/b32/b64
    const ptx::TypeKind K = ptx::typeKind(T);
    return kindOf(T) != Kind::Int ||
           (ptx::typeBits(T) >= 8 && ptx::typeBits(T) <= 64 &&
            (K == ptx::TypeKind::Signed || K == ptx::TypeKind::Unsigned) &&
            T != Type::U16x2 && T != Type::S16x2) ||
           T == Type::B16 || T == Type::B32 || T == Type::B64;
  };
  if (!Ok(D) || !Ok(Sr) || In.operands.size() != 2)
    return Ctx.fail("conversion types");
  if (!Ctx.dst(I, 0, In.operands[0]) || !Ctx.src(I, 1, In.operands[1], Sr))
    return false;
  // Signed narrow results are sign-extended to the destination register's width.
  unsigned DB = ptx::typeBits(D);
  I.aux3 = isSigned(D) ? std::max(DB, Ctx.regBits(I, 0)) : DB;
  if (!(Flags & 32) && kindOf(D) == Kind::Int && kindOf(Sr) == Kind::Int)
    if (Handler H = fastIntCvt(D, Sr)) {
      I.fn = H;
      // Truncation and zero extension keep a sequence that does not wrap affine.
      // A signed result sign-extended into a wider register (aux3 > its width) is not.
      I.linear = (isSigned(Sr) && DB > ptx::typeBits(Sr)) || (isSigned(D) && I.aux3 > DB) ? 0 : 1;
      return true;
    }
  I.fn = D == Type::TF32 && Sr == Type::F32 && (Flags & ~uint32_t(7)) == 8 &&
                 S::Round(Flags & 7) == S::Round::Rna
             ? cvtTf32Rna
             : cvtGeneric;
  return true;
}

} // namespace analyzer
