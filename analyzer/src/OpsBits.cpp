// Bit-field, permute, funnel-shift, lop3 and dot-product instructions (PTX ISA 9.7.1.x, 9.7.8).
#include "Decoder.h"
#include "Lanes.h"
#include "analyzer/ScalarOps.h"

#include <type_traits>

namespace analyzer {
namespace {

template <class T> using U = std::make_unsigned_t<T>;

/// bfe: extract c bits at position b, sign-extended for signed types (PTX ISA 9.7.1.15).
template <class T> void bfeOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  constexpr unsigned Msb = sizeof(T) * 8 - 1;
  forLanes(M, [&](unsigned L) {
    U<T> V = getAs<U<T>>(A[L]);
    unsigned Pos = B[L] & 0xff, Len = C[L] & 0xff;
    bool SBit = false;
    if (std::is_signed_v<T> && Len != 0)
      SBit = (V >> std::min(Pos + Len - 1, Msb)) & 1;
    U<T> R = 0;
    for (unsigned K = 0; K <= Msb; ++K) {
      bool Bit = (K < Len && Pos + K <= Msb) ? ((V >> (Pos + K)) & 1) : SBit;
      R |= U<T>(Bit) << K;
    }
    D[L] = putAs<U<T>>(R);
  });
}

/// bfi: insert the low d bits of a into b at position c (PTX ISA 9.7.1.16).
template <class T> void bfiOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3),
                 *Ln = opPtr(W, I, 4);
  constexpr unsigned Bits = sizeof(T) * 8;
  forLanes(M, [&](unsigned L) {
    T X = getAs<T>(A[L]), R = getAs<T>(B[L]);
    unsigned Pos = C[L] & 0xff, Len = Ln[L] & 0xff;
    for (unsigned K = 0; K < Len && Pos + K < Bits; ++K)
      R = T((R & ~(T(1) << (Pos + K))) | (((X >> K) & 1) << (Pos + K)));
    D[L] = putAs<T>(R);
  });
}

/// bfind: position of the most significant non-sign bit; 0xffffffff if none; .shiftamt (aux).
template <class T> void bfindOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  constexpr int Msb = sizeof(T) * 8 - 1;
  forLanes(M, [&](unsigned L) {
    T V = getAs<T>(A[L]);
    U<T> X = U<T>(V);
    if (std::is_signed_v<T> && V < 0)
      X = U<T>(~X);
    uint32_t R = X == 0 ? 0xffffffffu : uint32_t(Msb - std::countl_zero(X));
    if (I.aux && R != 0xffffffffu)
      R = uint32_t(Msb) - R;
    D[L] = R;
  });
}

/// fns.b32 d, mask, base, offset: position of the offset-th set bit from base (PTX ISA 9.7.8).
void fnsOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  forLanes(M, [&](unsigned L) {
    D[L] = scalar::fns(uint32_t(A[L]), uint32_t(B[L]), int32_t(uint32_t(C[L])));
  });
}

/// prmt.b32 with the default or a named mode (aux: 0 default, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr,
/// 6 rc16): scalar::prmt holds the PTX ISA's mode table (9.7.8.7).
void prmtOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  auto Mode = static_cast<scalar::PrmtMode>(I.aux); // decode: 0 default, 1..6 f4e..rc16
  forLanes(M, [&](unsigned L) {
    D[L] = scalar::prmt(uint32_t(A[L]), uint32_t(B[L]), uint32_t(C[L]), Mode);
  });
}

/// lop3.b32 d, a, b, c, lut (lut in aux).
void lop3Op(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  uint32_t Lut = I.aux;
  forLanes(M, [&](unsigned L) {
    uint32_t X = uint32_t(A[L]), Y = uint32_t(B[L]), Z = uint32_t(C[L]), R = 0;
    for (unsigned K = 0; K < 8; ++K)
      if ((Lut >> K) & 1)
        R |= ((K & 4) ? X : ~X) & ((K & 2) ? Y : ~Y) & ((K & 1) ? Z : ~Z);
    D[L] = R;
  });
}

/// shf.{l,r}.{wrap,clamp}.b32 (aux bit0: right, bit1: clamp).
void shfOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  forLanes(M, [&](unsigned L) {
    uint64_t V = (A[L] & 0xffffffffu) | ((B[L] & 0xffffffffu) << 32);
    uint32_t N = uint32_t(C[L]);
    N = (I.aux & 2) ? std::min(N, 32u) : (N & 31);
    D[L] = (I.aux & 1) ? uint32_t(V >> N) : uint32_t((V << N) >> 32);
  });
}

/// dp4a / dp2a (aux bit0: a signed, bit1: b signed; aux2: 0 dp4a, 1 dp2a.lo, 2 dp2a.hi).
void dpOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  auto Elem = [](uint32_t V, unsigned K, unsigned Bits, bool Signed) -> int64_t {
    uint32_t E = (V >> (K * Bits)) & ((1u << Bits) - 1);
    if (Signed && (E >> (Bits - 1)))
      return int64_t(E) - (int64_t(1) << Bits);
    return E;
  };
  forLanes(M, [&](unsigned L) {
    int64_t Sum = int64_t(int32_t(C[L]));
    if (!(I.aux & 3))
      Sum = int64_t(uint32_t(C[L]));
    uint32_t X = uint32_t(A[L]), Y = uint32_t(B[L]);
    if (I.aux2 == 0) {
      for (unsigned K = 0; K < 4; ++K)
        Sum += Elem(X, K, 8, I.aux & 1) * Elem(Y, K, 8, I.aux & 2);
    } else {
      unsigned Hi = I.aux2 == 2 ? 2 : 0;
      for (unsigned K = 0; K < 2; ++K)
        Sum += Elem(X, K, 16, I.aux & 1) * Elem(Y, K + Hi, 8, I.aux & 2);
    }
    D[L] = uint32_t(Sum);
  });
}

/// mul24/mad24 .lo/.hi on 24-bit operands (aux bit0: hi, bit1: signed, bit2: mad).
void mul24Op(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  const uint64_t *C = (I.aux & 4) ? opPtr(W, I, 3) : nullptr;
  auto Ext = [&](uint64_t V) -> int64_t {
    int64_t X = int64_t(V & 0xffffff);
    return (I.aux & 2) && (X & 0x800000) ? X - 0x1000000 : X;
  };
  forLanes(M, [&](unsigned L) {
    uint64_t P = uint64_t(Ext(A[L]) * Ext(B[L]));
    uint32_t R = (I.aux & 1) ? uint32_t(P >> 16) : uint32_t(P);
    if (C)
      R += uint32_t(C[L]);
    D[L] = R;
  });
}

/// bmsk.{clamp,wrap}.b32 d, a, b: b bits set starting at a (aux: clamp).
void bmskOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  forLanes(M, [&](unsigned L) {
    uint32_t Pos = uint32_t(A[L]), Len = uint32_t(B[L]);
    if (I.aux) {
      Pos = std::min(Pos, 32u);
      Len = std::min(Len, 32u);
    } else {
      Pos &= 31;
      Len &= 31;
    }
    uint64_t Mask = ((uint64_t(1) << Len) - 1) << Pos;
    D[L] = uint32_t(Mask);
  });
}

/// szext.{clamp,wrap}.{s32,u32} d, a, b: sign/zero-extend the low b bits (aux bit0 clamp,
/// bit1 signed).
void szextOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  forLanes(M, [&](unsigned L) {
    uint32_t N = uint32_t(B[L]);
    N = (I.aux & 1) ? std::min(N, 32u) : (N & 31);
    uint32_t V = uint32_t(A[L]);
    if (N == 0) {
      D[L] = 0;
      return;
    }
    if (N >= 32) {
      D[L] = V;
      return;
    }
    uint32_t Low = V & ((1u << N) - 1);
    if ((I.aux & 2) && (Low >> (N - 1)))
      Low |= ~((1u << N) - 1);
    D[L] = Low;
  });
}

bool srcs(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I, unsigned N, ptx::Type T) {
  if (In.operands.size() < N + 1)
    return Ctx.fail("too few operands");
  if (!Ctx.dst(I, 0, In.operands[0]))
    return false;
  for (unsigned K = 0; K < N; ++K)
    if (!Ctx.src(I, K + 1, In.operands[K + 1], K == 0 ? T : ptx::Type::U32))
      return false;
  return true;
}

} // namespace

bool selectBits(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using ptx::Opcode;
  using ptx::Type;
  Type T = In.type();
  switch (In.opcode) {
  case Opcode::Bfe:
    I.fn = T == Type::S32   ? bfeOp<int32_t>
           : T == Type::U32 ? bfeOp<uint32_t>
           : T == Type::S64 ? bfeOp<int64_t>
           : T == Type::U64 ? bfeOp<uint64_t>
                            : nullptr;
    return I.fn && srcs(Ctx, In, I, 3, T);
  case Opcode::Bfi:
    I.fn = ptx::typeBits(T) == 32   ? bfiOp<uint32_t>
           : ptx::typeBits(T) == 64 ? bfiOp<uint64_t>
                                    : nullptr;
    // a and b have the instruction type; c and d are u32.
    if (!I.fn || !srcs(Ctx, In, I, 4, T))
      return false;
    return Ctx.src(I, 2, In.operands[2], T);
  case Opcode::Bfind:
    I.aux = In.hasModifier("shiftamt");
    I.fn = T == Type::S32   ? bfindOp<int32_t>
           : T == Type::U32 ? bfindOp<uint32_t>
           : T == Type::S64 ? bfindOp<int64_t>
           : T == Type::U64 ? bfindOp<uint64_t>
                            : nullptr;
    return I.fn && srcs(Ctx, In, I, 1, T);
  case Opcode::Fns:
    I.fn = fnsOp;
    return srcs(Ctx, In, I, 3, Type::B32);
  case Opcode::Prmt: {
    constexpr std::string_view Names[] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
    for (unsigned K = 0; K < 6; ++K)
      if (In.hasModifier(Names[K]))
        I.aux = K + 1;
    I.fn = prmtOp;
    return srcs(Ctx, In, I, 3, Type::B32);
  }
  case Opcode::Lop3: {
    if (In.operands.size() != 5 || In.operands[4].kind != ptx::Operand::Kind::Immediate)
      return Ctx.fail("lop3 needs an immediate lookup table");
    if (In.operands[0].kind == ptx::Operand::Kind::PredPair)
      return Ctx.fail("lop3 with a predicate output");
    I.aux = static_cast<uint32_t>(In.operands[4].value & 0xff);
    I.fn = lop3Op;
    return srcs(Ctx, In, I, 3, Type::B32);
  }
  case Opcode::Shf:
    I.aux = (In.hasModifier("r") ? 1 : 0) | (In.hasModifier("clamp") ? 2 : 0);
    I.fn = shfOp;
    return srcs(Ctx, In, I, 3, Type::B32);
  case Opcode::Dp4a:
  case Opcode::Dp2a: {
    std::vector<Type> Ts = In.types();
    if (Ts.size() != 2)
      return Ctx.fail("dot product needs two types");
    I.aux = (Ts[0] == Type::S32 ? 1 : 0) | (Ts[1] == Type::S32 ? 2 : 0);
    I.aux2 = In.opcode == Opcode::Dp4a ? 0 : In.hasModifier("hi") ? 2 : 1;
    I.fn = dpOp;
    return srcs(Ctx, In, I, 3, Type::U32);
  }
  case Opcode::Mul24:
  case Opcode::Mad24:
    I.aux = (In.hasModifier("hi") ? 1 : 0) | (T == Type::S32 ? 2 : 0) |
            (In.opcode == Opcode::Mad24 ? 4 : 0);
    I.fn = mul24Op;
    return srcs(Ctx, In, I, In.opcode == Opcode::Mad24 ? 3 : 2, T);
  case Opcode::Bmsk:
    I.aux = In.hasModifier("clamp");
    I.fn = bmskOp;
    return srcs(Ctx, In, I, 2, Type::U32);
  case Opcode::Szext:
    I.aux = (In.hasModifier("clamp") ? 1 : 0) | (T == Type::S32 ? 2 : 0);
    I.fn = szextOp;
    return srcs(Ctx, In, I, 2, Type::U32);
  default:
    return Ctx.fail("");
  }
}

} // namespace analyzer
