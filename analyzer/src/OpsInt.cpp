// Integer arithmetic, logic, shift and bit-manipulation instructions (PTX ISA 9.7.1, 9.7.8).
// Division by zero and overflow give defined results here (documented in docs/interpreter.md).
#include "Decoder.h"
#include "Lanes.h"
#include "analyzer/ScalarOps.h"

#include <algorithm>
#include <limits>
#include <type_traits>

namespace analyzer {
namespace {

template <class T> using U = std::make_unsigned_t<T>;

struct Add {
  template <class T> static T f(T A, T B) { return T(U<T>(A) + U<T>(B)); }
};
struct Sub {
  template <class T> static T f(T A, T B) { return T(U<T>(A) - U<T>(B)); }
};
/// Computed in an unsigned type at least as wide as unsigned int (no promotion to signed int).
struct MulLo {
  template <class T> static T f(T A, T B) {
    using P = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, U<T>>;
    return T(U<T>(P(U<T>(A)) * P(U<T>(B))));
  }
};
struct Min {
  template <class T> static T f(T A, T B) { return A < B ? A : B; }
};
struct Max {
  template <class T> static T f(T A, T B) { return A < B ? B : A; }
};
/// min/max.relu.s32: the result clamped at 0 (PTX ISA 9.7.1.10).
template <class Op> struct Relu {
  template <class T> static T f(T A, T B) { return scalar::reluS32(Op::f(A, B)); }
};
/// min/max on packed .s16x2/.u16x2 (each half independently, optionally .relu).
template <bool Signed, bool IsMax, bool IsRelu> struct Packed16x2 {
  template <class T> static T f(T A, T B) {
    return scalar::minMax16x2(A, B, Signed, IsMax, IsRelu);
  }
};
/// add/sub on packed .s16x2/.u16x2 (sm_90): each half wraps on its own.
template <bool IsSub> struct AddSub16x2 {
  template <class T> static T f(T A, T B) { return scalar::addSub16x2(A, B, IsSub); }
};
struct And {
  template <class T> static T f(T A, T B) { return A & B; }
};
struct Or {
  template <class T> static T f(T A, T B) { return A | B; }
};
struct Xor {
  template <class T> static T f(T A, T B) { return A ^ B; }
};
struct Not {
  template <class T> static T f(T A) { return T(~A); }
};
struct NotPred {
  template <class T> static T f(T A) { return T(A ^ 1); }
};
struct Cnot {
  template <class T> static T f(T A) { return T(A == 0 ? 1 : 0); }
};
struct Neg {
  template <class T> static T f(T A) { return T(U<T>(0) - U<T>(A)); }
};
struct Abs {
  template <class T> static T f(T A) { return A < 0 ? T(U<T>(0) - U<T>(A)) : A; }
};
struct Popc {
  template <class T> static T f(T A) { return T(std::popcount(U<T>(A))); }
};
struct Clz {
  template <class T> static T f(T A) { return T(std::countl_zero(U<T>(A))); }
};

struct Div {
  template <class T> static T f(T A, T B) {
    if (B == 0)
      return T(~U<T>(0));
    if constexpr (std::is_signed_v<T>)
      if (A == std::numeric_limits<T>::min() && B == T(-1))
        return A;
    return A / B;
  }
};
struct Rem {
  template <class T> static T f(T A, T B) {
    if (B == 0)
      return A;
    if constexpr (std::is_signed_v<T>)
      if (B == T(-1))
        return 0;
    return A % B;
  }
};
struct Shl {
  template <class T> static T f(T A, T B) {
    U<T> N = U<T>(B);
    return N >= sizeof(T) * 8 ? T(0) : T(U<T>(A) << N);
  }
};
struct Shr {
  template <class T> static T f(T A, T B) {
    U<T> N = U<T>(B);
    if (N >= sizeof(T) * 8)
      return std::is_signed_v<T> && A < 0 ? T(-1) : T(0);
    return T(A >> N);
  }
};
struct MulHi {
  template <class T> static T f(T A, T B) {
    if constexpr (sizeof(T) == 8) {
      using W = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return T(static_cast<U<T>>((W(A) * W(B)) >> 64));
    } else {
      using W = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      return T(static_cast<U<T>>((W(A) * W(B)) >> (sizeof(T) * 8)));
    }
  }
};
struct MadLo {
  template <class T> static T f(T A, T B, T C) { return Add::f(MulLo::f(A, B), C); }
};
struct MadHi {
  template <class T> static T f(T A, T B, T C) { return Add::f(MulHi::f(A, B), C); }
};
struct MadHiSat {
  template <class T> static T f(T A, T B, T C) {
    int64_t V = int64_t(MulHi::f(A, B)) + int64_t(C);
    return T(std::clamp<int64_t>(V, INT32_MIN, INT32_MAX));
  }
};
struct Sad {
  template <class T> static T f(T A, T B, T C) {
    return Add::f(C, A < B ? T(U<T>(B) - U<T>(A)) : T(U<T>(A) - U<T>(B)));
  }
};
struct AddSat {
  template <class T> static T f(T A, T B) {
    return T(std::clamp<int64_t>(int64_t(A) + int64_t(B), INT32_MIN, INT32_MAX));
  }
};
struct SubSat {
  template <class T> static T f(T A, T B) {
    return T(std::clamp<int64_t>(int64_t(A) - int64_t(B), INT32_MIN, INT32_MAX));
  }
};
struct Brev {
  template <class T> static T f(T A) {
    U<T> V = U<T>(A), R = 0;
    for (unsigned K = 0; K < sizeof(T) * 8; ++K, V >>= 1)
      R = U<T>((R << 1) | (V & 1));
    return T(R);
  }
};

/// mul.wide / mad.wide: 16 -> 32 and 32 -> 64 bits.
template <class T, bool Mad> void wideOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  using Wd =
      std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>,
                         std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>>;
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  const uint64_t *C = Mad ? opPtr(W, I, 3) : nullptr;
  forLanes(M, [&](unsigned L) {
    U<Wd> P = U<Wd>(Wd(getAs<T>(A[L])) * Wd(getAs<T>(B[L])));
    if constexpr (Mad)
      P = U<Wd>(P + getAs<U<Wd>>(C[L]));
    D[L] = putAs<U<Wd>>(P);
  });
}

/// add.cc / addc / sub.cc / subc / mad.lo.cc / madc on 32- or 64-bit values; the carry flag
/// CC.CF lives in the hidden register at lane offset I.aux3. Subtraction is a + ~b + carry-in
/// (carry-in 1 for sub.cc, CC.CF for subc), so after a subtraction CC.CF is the carry-out of
/// that sum, i.e. NOT-borrow, as on NVIDIA GPUs (PTX ISA 9.7.2; scalar::subCarry).
/// aux: 0 add, 1 sub, 2 mad.lo, 3 mad.hi; aux2 bit0: read CC (addc), bit1: write CC (.cc).
template <class T> void carryOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0), *CC = W.base[BaseRegs] + I.aux3;
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  const uint64_t *C = I.aux >= 2 ? opPtr(W, I, 3) : nullptr;
  using UT = U<T>;
  forLanes(M, [&](unsigned L) {
    unsigned __int128 Cin = (I.aux2 & 1) ? (CC[L] & 1) : I.aux == 1 ? 1 : 0;
    UT X = getAs<UT>(A[L]), Y = getAs<UT>(B[L]);
    unsigned __int128 P = I.aux == 0 ? Y : I.aux == 1 ? UT(~Y) : (unsigned __int128)X * Y;
    if (I.aux == 3)
      P >>= sizeof(T) * 8;
    else if (I.aux == 2)
      P = UT(P);
    unsigned __int128 Base = I.aux <= 1 ? X : P;
    unsigned __int128 Add2 = I.aux <= 1 ? P : getAs<UT>(C[L]);
    unsigned __int128 R = Base + Add2 + Cin;
    D[L] = putAs<UT>(UT(R));
    if (I.aux2 & 2)
      CC[L] = (R >> (sizeof(T) * 8)) != 0;
  });
}

Handler byInt(ptx::Type T, Handler S16, Handler U16, Handler S32, Handler U32, Handler S64,
              Handler U64) {
  switch (T) {
  case ptx::Type::S16:
    return S16;
  case ptx::Type::U16:
  case ptx::Type::B16:
    return U16;
  case ptx::Type::S32:
    return S32;
  case ptx::Type::U32:
  case ptx::Type::B32:
    return U32;
  case ptx::Type::S64:
    return S64;
  case ptx::Type::U64:
  case ptx::Type::B64:
    return U64;
  default:
    return nullptr;
  }
}

#define PTXCAST_BY_INT(Tmpl, Op)                                                                   \
  byInt(T, Tmpl<int16_t, Op>, Tmpl<uint16_t, Op>, Tmpl<int32_t, Op>, Tmpl<uint32_t, Op>,           \
        Tmpl<int64_t, Op>, Tmpl<uint64_t, Op>)

bool operands(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I, unsigned NSrc, ptx::Type T) {
  if (In.operands.size() != NSrc + 1)
    return Ctx.fail("expected " + std::to_string(NSrc + 1) + " operands");
  if (!Ctx.dst(I, 0, In.operands[0]))
    return false;
  for (unsigned K = 0; K < NSrc; ++K)
    if (!Ctx.src(I, K + 1, In.operands[K + 1], T))
      return false;
  return true;
}

Handler selectMul(const ptx::Instruction &In, ptx::Type T, bool Mad) {
  if (In.hasModifier("wide")) {
    switch (T) {
    case ptx::Type::S16:
      return Mad ? wideOp<int16_t, true> : wideOp<int16_t, false>;
    case ptx::Type::U16:
      return Mad ? wideOp<uint16_t, true> : wideOp<uint16_t, false>;
    case ptx::Type::S32:
      return Mad ? wideOp<int32_t, true> : wideOp<int32_t, false>;
    case ptx::Type::U32:
      return Mad ? wideOp<uint32_t, true> : wideOp<uint32_t, false>;
    default:
      return nullptr;
    }
  }
  if (In.hasModifier("hi")) {
    if (Mad && In.hasModifier("sat"))
      return T == ptx::Type::S32 ? ternaryOp<int32_t, MadHiSat> : nullptr;
    return Mad ? PTXCAST_BY_INT(ternaryOp, MadHi) : PTXCAST_BY_INT(binaryOp, MulHi);
  }
  return Mad ? PTXCAST_BY_INT(ternaryOp, MadLo) : PTXCAST_BY_INT(binaryOp, MulLo);
}

/// mul/mad .lo (a ring product) or an unsigned .wide (zero-extended factors).
bool mulIsLinear(const ptx::Instruction &In, ptx::Type T) {
  if (In.hasModifier("hi") || In.hasModifier("sat"))
    return false;
  return !In.hasModifier("wide") || ptx::typeKind(T) != ptx::TypeKind::Signed;
}

bool selectCarry(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I, ptx::Type T) {
  using ptx::Opcode;
  bool Mad = In.opcode == Opcode::Mad || In.opcode == Opcode::Madc;
  I.aux = In.opcode == Opcode::Sub || In.opcode == Opcode::Subc ? 1
          : Mad                                                 ? (In.hasModifier("hi") ? 3 : 2)
                                                                : 0;
  I.aux2 =
      (In.opcode == Opcode::Addc || In.opcode == Opcode::Subc || In.opcode == Opcode::Madc ? 1
                                                                                           : 0) |
      (In.hasModifier("cc") ? 2 : 0);
  I.aux3 = Ctx.F.ccSlot;
  I.carry = true;
  unsigned Bits = ptx::typeBits(T);
  I.fn = Bits == 32 ? carryOp<uint32_t> : Bits == 64 ? carryOp<uint64_t> : nullptr;
  return I.fn ? operands(Ctx, In, I, Mad ? 3 : 2, T) : Ctx.fail("carry arithmetic type");
}

/// min/max: plain by integer type, .relu (s32 only), packed 16x2 (optionally .relu).
Handler selectMinMax(const ptx::Instruction &In, ptx::Type T) {
  bool IsMax = In.opcode == ptx::Opcode::Max;
  bool IsRelu = In.hasModifier("relu");
  if (T == ptx::Type::S16x2 || T == ptx::Type::U16x2) {
    bool S = T == ptx::Type::S16x2;
    using Fn = Handler;
    static constexpr Fn Table[2][2][2] = {{{binaryOp<uint32_t, Packed16x2<false, false, false>>,
                                            binaryOp<uint32_t, Packed16x2<false, false, true>>},
                                           {binaryOp<uint32_t, Packed16x2<false, true, false>>,
                                            binaryOp<uint32_t, Packed16x2<false, true, true>>}},
                                          {{binaryOp<uint32_t, Packed16x2<true, false, false>>,
                                            binaryOp<uint32_t, Packed16x2<true, false, true>>},
                                           {binaryOp<uint32_t, Packed16x2<true, true, false>>,
                                            binaryOp<uint32_t, Packed16x2<true, true, true>>}}};
    return Table[S][IsMax][IsRelu];
  }
  if (IsRelu)
    return T != ptx::Type::S32 ? nullptr
           : IsMax             ? binaryOp<int32_t, Relu<Max>>
                               : binaryOp<int32_t, Relu<Min>>;
  return IsMax ? PTXCAST_BY_INT(binaryOp, Max) : PTXCAST_BY_INT(binaryOp, Min);
}

} // namespace

// More integer families (bit fields, permutes, shifts with funnel, dot products).
bool selectBits(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);

bool selectInt(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using ptx::Opcode;
  ptx::Type T = In.type();
  bool Pred = T == ptx::Type::Pred;
  bool Cc = In.hasModifier("cc");
  switch (In.opcode) {
  case Opcode::Add:
  case Opcode::Sub:
    if (Cc)
      return selectCarry(Ctx, In, I, T);
    if (T == ptx::Type::S16x2 || T == ptx::Type::U16x2) {
      if (In.hasModifier("sat"))
        return Ctx.fail("saturating packed add/sub");
      I.fn = In.opcode == Opcode::Add ? binaryOp<uint32_t, AddSub16x2<false>>
                                      : binaryOp<uint32_t, AddSub16x2<true>>;
      return operands(Ctx, In, I, 2, T);
    }
    if (In.hasModifier("sat")) {
      if (T != ptx::Type::S32)
        return Ctx.fail("saturating add/sub type");
      I.fn = In.opcode == Opcode::Add ? binaryOp<int32_t, AddSat> : binaryOp<int32_t, SubSat>;
    } else {
      I.fn =
          In.opcode == Opcode::Add ? PTXCAST_BY_INT(binaryOp, Add) : PTXCAST_BY_INT(binaryOp, Sub);
      I.linear = 1;
    }
    return I.fn && operands(Ctx, In, I, 2, T);
  case Opcode::Addc:
  case Opcode::Subc:
  case Opcode::Madc:
    return selectCarry(Ctx, In, I, T);
  case Opcode::Mul:
    I.fn = selectMul(In, T, false);
    I.linear = mulIsLinear(In, T) ? 2 : 0;
    return I.fn && operands(Ctx, In, I, 2, T);
  case Opcode::Mad:
    if (Cc)
      return selectCarry(Ctx, In, I, T);
    I.fn = selectMul(In, T, true);
    I.linear = mulIsLinear(In, T) ? 2 : 0;
    return I.fn && operands(Ctx, In, I, 3, T);
  case Opcode::Div:
    I.fn = PTXCAST_BY_INT(binaryOp, Div);
    break;
  case Opcode::Rem:
    I.fn = PTXCAST_BY_INT(binaryOp, Rem);
    break;
  case Opcode::Min:
  case Opcode::Max:
    I.fn = selectMinMax(In, T);
    break;
  case Opcode::Shl:
    I.fn = PTXCAST_BY_INT(binaryOp, Shl);
    I.linear = 3;
    break;
  case Opcode::Shr:
    I.fn = PTXCAST_BY_INT(binaryOp, Shr);
    break;
  case Opcode::And:
    I.fn = Pred ? binaryOp<uint8_t, And> : PTXCAST_BY_INT(binaryOp, And);
    break;
  case Opcode::Or:
    I.fn = Pred ? binaryOp<uint8_t, Or> : PTXCAST_BY_INT(binaryOp, Or);
    break;
  case Opcode::Xor:
    I.fn = Pred ? binaryOp<uint8_t, Xor> : PTXCAST_BY_INT(binaryOp, Xor);
    break;
  case Opcode::Not:
    I.fn = Pred ? unaryOp<uint8_t, NotPred> : PTXCAST_BY_INT(unaryOp, Not);
    return I.fn && operands(Ctx, In, I, 1, T);
  case Opcode::Cnot:
    I.fn = PTXCAST_BY_INT(unaryOp, Cnot);
    return I.fn && operands(Ctx, In, I, 1, T);
  case Opcode::Neg:
    I.linear = 1;
    I.fn = PTXCAST_BY_INT(unaryOp, Neg);
    return I.fn && operands(Ctx, In, I, 1, T);
  case Opcode::Abs:
    I.fn = PTXCAST_BY_INT(unaryOp, Abs);
    return I.fn && operands(Ctx, In, I, 1, T);
  case Opcode::Brev:
    I.fn = PTXCAST_BY_INT(unaryOp, Brev);
    return I.fn && operands(Ctx, In, I, 1, T);
  case Opcode::Popc:
  case Opcode::Clz: {
    // The result is u32; the operand is b32 or b64.
    bool P = In.opcode == Opcode::Popc;
    I.fn = ptx::typeBits(T) == 64   ? (P ? unaryOp<uint64_t, Popc> : unaryOp<uint64_t, Clz>)
           : ptx::typeBits(T) == 32 ? (P ? unaryOp<uint32_t, Popc> : unaryOp<uint32_t, Clz>)
                                    : nullptr;
    return I.fn && operands(Ctx, In, I, 1, T);
  }
  case Opcode::Sad:
    I.fn = PTXCAST_BY_INT(ternaryOp, Sad);
    return I.fn && operands(Ctx, In, I, 3, T);
  default:
    return selectBits(Ctx, In, I);
  }
  if (!I.fn)
    return Ctx.fail("type '" + std::string(ptx::typeName(T)) + "'");
  return operands(Ctx, In, I, 2, T);
}

} // namespace analyzer
