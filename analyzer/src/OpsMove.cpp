// Data movement and comparison: mov (with vector pack/unpack), setp, set, selp, slct
// (PTX ISA 9.7.6, 9.7.9.1). Conversions (cvt) are in OpsConvert.cpp.
#include "Decoder.h"
#include "Lanes.h"
#include "analyzer/ScalarOps.h"

#include <type_traits>

namespace analyzer {

bool selectCvt(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);

namespace {

namespace S = scalar;

enum Cmp : uint32_t { Eq, Ne, Lt, Le, Gt, Ge, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan, NumCmps };

constexpr std::string_view CmpNames[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                                         "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

template <Cmp C, class T> inline bool compare(T A, T B) {
  if constexpr (std::is_floating_point_v<T>) {
    bool Un = A != A || B != B;
    switch (C) {
    case Eq:
      return !Un && A == B;
    case Ne:
      return !Un && A != B;
    case Lt:
      return !Un && A < B;
    case Le:
      return !Un && A <= B;
    case Gt:
      return !Un && A > B;
    case Ge:
      return !Un && A >= B;
    case Equ:
      return Un || A == B;
    case Neu:
      return Un || A != B;
    case Ltu:
      return Un || A < B;
    case Leu:
      return Un || A <= B;
    case Gtu:
      return Un || A > B;
    case Geu:
      return Un || A >= B;
    case Num:
      return !Un;
    case Nan:
      return Un;
    default:
      return false;
    }
  } else {
    switch (C) {
    case Eq:
      return A == B;
    case Ne:
      return A != B;
    case Lt:
      return A < B;
    case Le:
      return A <= B;
    case Gt:
      return A > B;
    case Ge:
      return A >= B;
    default:
      return false;
    }
  }
}

/// Reads a lane value of storage type T as the comparison type (f16/bf16 widen to float).
template <class T> struct Reader {
  using V = T;
  static V get(uint64_t X, bool Ftz) {
    if constexpr (std::is_same_v<T, float>)
      return Ftz ? S::flushF32(getAs<float>(X)) : getAs<float>(X);
    else
      return getAs<T>(X);
  }
};
struct F16Tag {};
struct BF16Tag {};
template <> struct Reader<F16Tag> {
  using V = float;
  static V get(uint64_t X, bool Ftz) {
    float F = S::f16ToF32(uint16_t(X));
    return Ftz ? S::flushF32(F) : F;
  }
};
template <> struct Reader<BF16Tag> {
  using V = float;
  static V get(uint64_t X, bool) { return S::bf16ToF32(uint16_t(X)); }
};

/// setp: op0 = p, op1 = a, op2 = b, op3 = c (aux2: 0 none, 1 and, 2 or, 3 xor), op4 = q.
/// aux3 bits: 1 has q, 2 c negated, 4 ftz.
template <class T, Cmp C> void setpOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *P = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  bool Ftz = I.aux3 & 4;
  if (I.aux2 == 0 && !(I.aux3 & 1)) {
    forLanes(M, [&](unsigned L) {
      P[L] = compare<C>(Reader<T>::get(A[L], Ftz), Reader<T>::get(B[L], Ftz));
    });
    return;
  }
  const uint64_t *Cp = I.aux2 ? opPtr(W, I, 3) : nullptr;
  uint64_t *Q = (I.aux3 & 1) ? opPtr(W, I, 4) : nullptr;
  forLanes(M, [&](unsigned L) {
    bool T0 = compare<C>(Reader<T>::get(A[L], Ftz), Reader<T>::get(B[L], Ftz));
    bool Cv = Cp ? bool((Cp[L] & 1) ^ ((I.aux3 >> 1) & 1)) : false;
    auto Combine = [&](bool X) {
      switch (I.aux2) {
      case 1:
        return X && Cv;
      case 2:
        return X || Cv;
      case 3:
        return X != Cv;
      default:
        return X;
      }
    };
    bool Pv = Combine(T0), Qv = Combine(!T0);
    P[L] = Pv;
    if (Q)
      Q[L] = Qv;
  });
}

/// set.cmp.dtype.stype: aux = the destination's true pattern (1.0 of a float dtype, all ones of
/// an integer one).
template <class T, Cmp C> void setOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  const uint64_t *Cp = I.aux2 ? opPtr(W, I, 3) : nullptr;
  bool Ftz = I.aux3 & 4;
  forLanes(M, [&](unsigned L) {
    bool R = compare<C>(Reader<T>::get(A[L], Ftz), Reader<T>::get(B[L], Ftz));
    if (Cp) {
      bool Cv = (Cp[L] & 1) ^ ((I.aux3 >> 1) & 1);
      R = I.aux2 == 1 ? (R && Cv) : I.aux2 == 2 ? (R || Cv) : (R != Cv);
    }
    D[L] = R ? I.aux : 0u;
  });
}

/// setp/set on .f16x2/.bf16x2 (PTX ISA 9.7.4.x, half comparisons): each half compared on its own,
/// then combined with c (aux2 as in setpOp). setp: p takes the lower half's outcome, q the
/// upper's; set: each half of d is the half pattern in aux (1.0 of the dtype, or 0xffff) or 0.
template <class Tag, Cmp C, bool IsSet> void half2CompareOp(Exec &, Warp &W, const DInstr &I,
                                                           uint32_t M) {
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  const uint64_t *Cp = I.aux2 ? opPtr(W, I, 3) : nullptr;
  const bool Ftz = I.aux3 & 4;
  forLanes(M, [&](unsigned L) {
    bool R[2];
    for (unsigned H = 0; H < 2; ++H) {
      R[H] = compare<C>(Reader<Tag>::get(A[L] >> (16 * H), Ftz),
                        Reader<Tag>::get(B[L] >> (16 * H), Ftz));
      if (Cp) {
        bool Cv = (Cp[L] & 1) ^ ((I.aux3 >> 1) & 1);
        R[H] = I.aux2 == 1 ? (R[H] && Cv) : I.aux2 == 2 ? (R[H] || Cv) : (R[H] != Cv);
      }
    }
    if constexpr (IsSet) {
      opPtr(W, I, 0)[L] = (R[0] ? I.aux : 0u) | (R[1] ? I.aux : 0u) << 16;
    } else {
      opPtr(W, I, 0)[L] = R[0];
      opPtr(W, I, 4)[L] = R[1];
    }
  });
}

template <bool IsSet> struct Half2H {
  template <class T, Cmp C> static void run(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
    half2CompareOp<T, C, IsSet>(X, W, I, M);
  }
};

struct SetpH {
  template <class T, Cmp C> static void run(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
    setpOp<T, C>(X, W, I, M);
  }
};
struct SetH {
  template <class T, Cmp C> static void run(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
    setOp<T, C>(X, W, I, M);
  }
};

template <class H, class T> Handler byCmp(Cmp C) {
  switch (C) {
  case Eq:
    return &H::template run<T, Eq>;
  case Ne:
    return &H::template run<T, Ne>;
  case Lt:
    return &H::template run<T, Lt>;
  case Le:
    return &H::template run<T, Le>;
  case Gt:
    return &H::template run<T, Gt>;
  case Ge:
    return &H::template run<T, Ge>;
  case Equ:
    return &H::template run<T, Equ>;
  case Neu:
    return &H::template run<T, Neu>;
  case Ltu:
    return &H::template run<T, Ltu>;
  case Leu:
    return &H::template run<T, Leu>;
  case Gtu:
    return &H::template run<T, Gtu>;
  case Geu:
    return &H::template run<T, Geu>;
  case Num:
    return &H::template run<T, Num>;
  case Nan:
    return &H::template run<T, Nan>;
  default:
    return nullptr;
  }
}

template <class H> Handler compareHandler(ptx::Type T, Cmp C) {
  using ptx::Type;
  bool FloatCmp = C >= Equ;
  constexpr bool Set = std::is_same_v<H, SetH>;
  if (T == Type::F16x2)
    return byCmp<Half2H<Set>, F16Tag>(C);
  if (T == Type::BF16x2)
    return byCmp<Half2H<Set>, BF16Tag>(C);
  switch (T) {
  case Type::F32:
    return byCmp<H, float>(C);
  case Type::F64:
    return byCmp<H, double>(C);
  case Type::F16:
    return byCmp<H, F16Tag>(C);
  case Type::BF16:
    return byCmp<H, BF16Tag>(C);
  default:
    break;
  }
  if (FloatCmp)
    return nullptr;
  switch (T) {
  case Type::S16:
    return byCmp<H, int16_t>(C);
  case Type::U16:
  case Type::B16:
    return byCmp<H, uint16_t>(C);
  case Type::S32:
    return byCmp<H, int32_t>(C);
  case Type::U32:
  case Type::B32:
    return byCmp<H, uint32_t>(C);
  case Type::S64:
    return byCmp<H, int64_t>(C);
  case Type::U64:
  case Type::B64:
    return byCmp<H, uint64_t>(C);
  case Type::Pred:
    return byCmp<H, uint8_t>(C);
  default:
    return nullptr;
  }
}

bool decodeCompare(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I, ptx::Type SrcT,
                   bool IsSet) {
  using OK = ptx::Operand::Kind;
  Cmp C = NumCmps;
  for (uint32_t K = 0; K < NumCmps; ++K)
    if (In.hasModifier(CmpNames[K]))
      C = static_cast<Cmp>(K);
  // Unsigned integer comparisons: lo/ls/hi/hs on any integer type compare as unsigned.
  constexpr std::pair<std::string_view, Cmp> Unsigned[] = {
      {"lo", Lt}, {"ls", Le}, {"hi", Gt}, {"hs", Ge}};
  for (auto [Name, Op] : Unsigned)
    if (In.hasModifier(Name)) {
      C = Op;
      if (SrcT == ptx::Type::S16)
        SrcT = ptx::Type::U16;
      if (SrcT == ptx::Type::S32)
        SrcT = ptx::Type::U32;
      if (SrcT == ptx::Type::S64)
        SrcT = ptx::Type::U64;
    }
  if (C == NumCmps)
    return Ctx.fail("comparison operator");
  I.aux2 = In.hasModifier("and") ? 1 : In.hasModifier("or") ? 2 : In.hasModifier("xor") ? 3 : 0;
  I.aux3 = In.hasModifier("ftz") ? 4 : 0;
  I.fn = IsSet ? compareHandler<SetH>(SrcT, C) : compareHandler<SetpH>(SrcT, C);
  if (!I.fn)
    return Ctx.fail("comparison type");
  size_t N = In.operands.size();
  if (N != (I.aux2 ? 4u : 3u))
    return Ctx.fail("operand count");
  const ptx::Operand &D = In.operands[0];
  const bool Half2 = SrcT == ptx::Type::F16x2 || SrcT == ptx::Type::BF16x2;
  if (D.kind == OK::PredPair) {
    if (IsSet || D.elems.size() != 2 || !Ctx.dst(I, 0, D.elems[0]) || !Ctx.dst(I, 4, D.elems[1]))
      return Ctx.fail("predicate pair");
    I.aux3 |= 1;
  } else if (Half2 && !IsSet) {
    return Ctx.fail("setp on .f16x2/.bf16x2 writes a predicate pair p|q");
  } else if (!Ctx.dst(I, 0, D)) {
    return false;
  }
  if (!Ctx.src(I, 1, In.operands[1], SrcT) || !Ctx.src(I, 2, In.operands[2], SrcT))
    return false;
  I.cmpBits = static_cast<uint8_t>(ptx::typeBits(SrcT));
  I.cmpFloat = isFloatType(SrcT);
  if (I.aux2) {
    const ptx::Operand &Cp = In.operands[3];
    if (Cp.negated)
      I.aux3 |= 2;
    ptx::Operand Plain = Cp;
    Plain.negated = false;
    if (!Ctx.src(I, 3, Plain, ptx::Type::Pred))
      return false;
  }
  I.nops = std::max<uint8_t>(I.nops, (I.aux3 & 1) ? 5 : I.nops);
  return true;
}

/// What `set` writes for true (PTX ISA 9.7.6.1, 9.7.4.x): 1.0 of a float dtype, all ones of an
/// integer one; for an .f16x2/.bf16x2 source, per half (an .f16x2/.bf16x2 dtype's 1.0, else
/// 0xffff). 0 for a dtype set cannot write.
uint32_t setTrueBits(ptx::Type D, ptx::Type Src) {
  using ptx::Type;
  const bool Half2 = Src == Type::F16x2 || Src == Type::BF16x2;
  switch (D) {
  case Type::F32:
    return Half2 ? 0 : 0x3f800000u;
  case Type::F16:
  case Type::F16x2:
    return (D == Type::F16x2) == Half2 ? 0x3c00 : 0;
  case Type::BF16:
  case Type::BF16x2:
    return (D == Type::BF16x2) == Half2 ? 0x3f80 : 0;
  case Type::U16:
  case Type::S16:
    return Half2 ? 0 : 0xffff;
  case Type::U32:
  case Type::S32:
  case Type::B32:
    return Half2 ? 0xffff : 0xffffffffu;
  default:
    return 0;
  }
}

/// mov/selp/slct on raw storage.
void movOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  uint64_t Mask = I.imm ? uint64_t(I.imm) : ~uint64_t(0);
  forLanes(M, [&](unsigned L) { D[L] = A[L] & Mask; });
}

void selpOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  forLanes(M, [&](unsigned L) { D[L] = (C[L] & 1) ? A[L] : B[L]; });
}

/// slct: aux 1 = f32 selector (with aux3 & 4 = ftz), else s32.
void slctOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  forLanes(M, [&](unsigned L) {
    bool Pick;
    if (I.aux) {
      float F = getAs<float>(C[L]);
      if (I.aux3 & 4)
        F = S::flushF32(F);
      Pick = F >= 0.0f;
    } else {
      Pick = int32_t(C[L]) >= 0;
    }
    D[L] = Pick ? A[L] : B[L];
  });
}

/// mov.bN d, {a, b, ...}: aux = element bits, aux2 = element count; op1.. = elements.
void packOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  uint64_t EMask = I.aux >= 64 ? ~uint64_t(0) : (uint64_t(1) << I.aux) - 1;
  forLanes(M, [&](unsigned L) {
    uint64_t V = 0;
    for (uint32_t K = 0; K < I.aux2; ++K)
      V |= (opPtr(W, I, K + 1)[L] & EMask) << (K * I.aux);
    D[L] = V;
  });
}

/// mov.bN {a, b, ...}, d: op0..n-1 = elements, op n = source.
void unpackOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  const uint64_t *Src = opPtr(W, I, I.aux2);
  uint64_t EMask = I.aux >= 64 ? ~uint64_t(0) : (uint64_t(1) << I.aux) - 1;
  forLanes(M, [&](unsigned L) {
    uint64_t V = Src[L];
    for (uint32_t K = 0; K < I.aux2; ++K)
      opPtr(W, I, K)[L] = (V >> (K * I.aux)) & EMask;
  });
}

/// mov.vN {d...}, {a...}: op0..n-1 = destinations, op n..2n-1 = sources (aux2 = n); every
/// source is read before any destination is written.
void vectorMovOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t Tmp[8][32];
  for (uint32_t K = 0; K < I.aux2; ++K) {
    const uint64_t *A = opPtr(W, I, I.aux2 + K);
    forLanes(M, [&](unsigned L) { Tmp[K][L] = A[L]; });
  }
  for (uint32_t K = 0; K < I.aux2; ++K) {
    uint64_t *D = opPtr(W, I, K);
    forLanes(M, [&](unsigned L) { D[L] = Tmp[K][L]; });
  }
}

/// mov.vN with vectors on both sides (vector registers, PTX ISA 5.4.2): element-wise copies.
bool selectVectorMov(DecodeCtx &Ctx, const ptx::Operand &D, const ptx::Operand &A, DInstr &I,
                     ptx::Type T) {
  uint32_t N = static_cast<uint32_t>(D.elems.size());
  if (N != A.elems.size() || N < 2 || 2 * N > MaxOps)
    return Ctx.fail("vector mov with " + std::to_string(N) + " and " +
                    std::to_string(A.elems.size()) + " elements");
  I.fn = vectorMovOp;
  I.aux2 = N;
  for (uint32_t K = 0; K < N; ++K)
    if (!Ctx.dst(I, K, D.elems[K]) || !Ctx.src(I, N + K, A.elems[K], T))
      return false;
  return true;
}

bool selectMov(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using OK = ptx::Operand::Kind;
  ptx::Type T = In.type();
  unsigned Bits = T == ptx::Type::Pred ? 1 : ptx::typeBits(T);
  if (In.operands.size() != 2 || Bits == 0)
    return Ctx.fail("mov form");
  const ptx::Operand &D = In.operands[0], &A = In.operands[1];
  if (A.kind == OK::Register && A.value != 0) {
    // `mov.u64 d, %r+8`: the address arithmetic is an add (PTX ISA 6.4.1.1).
    ptx::Instruction Add;
    Add.opcode = ptx::Opcode::Add;
    Add.modifiers = {std::string(ptx::typeName(T))};
    Add.operands = {D, A, {}};
    Add.operands[1].value = 0;
    Add.operands[2].value = A.value;
    return selectInt(Ctx, Add, I);
  }
  if (A.kind == OK::Vector && D.kind == OK::Vector)
    return selectVectorMov(Ctx, D, A, I, T);
  if (A.kind == OK::Vector || D.kind == OK::Vector) {
    const ptx::Operand &V = A.kind == OK::Vector ? A : D;
    uint32_t N = static_cast<uint32_t>(V.elems.size());
    if (N < 2 || N > 8 || Bits % N)
      return Ctx.fail("vector mov");
    I.aux = Bits / N;
    I.aux2 = N;
    ptx::Type ET = ptx::Type::B32;
    if (A.kind == OK::Vector) {
      I.fn = packOp;
      if (!Ctx.dst(I, 0, D))
        return false;
      for (uint32_t K = 0; K < N; ++K)
        if (!Ctx.src(I, K + 1, V.elems[K], ET))
          return false;
      return true;
    }
    I.fn = unpackOp;
    for (uint32_t K = 0; K < N; ++K)
      if (!Ctx.dst(I, K, V.elems[K]))
        return false;
    return Ctx.src(I, N, A, T);
  }
  I.fn = movOp;
  I.imm = Bits >= 64 ? 0 : int64_t((uint64_t(1) << Bits) - 1);
  return Ctx.dst(I, 0, D) && Ctx.src(I, 1, A, T);
}

} // namespace

bool selectMove(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using ptx::Opcode;
  std::vector<ptx::Type> Ts = In.types();
  switch (In.opcode) {
  case Opcode::Mov:
    if (!selectMov(Ctx, In, I))
      return false;
    I.linear = I.nops == 2 ? 1 : 0; // a plain copy (not a vector pack or unpack)
    return true;
  case Opcode::Cvt:
    return selectCvt(Ctx, In, I);
  case Opcode::Setp:
    return !Ts.empty() && decodeCompare(Ctx, In, I, Ts.back(), false);
  case Opcode::Set:
    if (Ts.size() != 2)
      return Ctx.fail("set needs two types");
    I.aux = setTrueBits(Ts[0], Ts[1]);
    if (I.aux == 0)
      return Ctx.fail("set destination type");
    return decodeCompare(Ctx, In, I, Ts[1], true);
  case Opcode::Selp:
    if (Ts.empty() || In.operands.size() != 4)
      return Ctx.fail("selp form");
    I.fn = selpOp;
    return Ctx.dst(I, 0, In.operands[0]) && Ctx.src(I, 1, In.operands[1], Ts[0]) &&
           Ctx.src(I, 2, In.operands[2], Ts[0]) && Ctx.src(I, 3, In.operands[3], ptx::Type::Pred);
  case Opcode::Slct:
    if (Ts.size() != 2 || In.operands.size() != 4)
      return Ctx.fail("slct form");
    I.fn = slctOp;
    I.aux = Ts[1] == ptx::Type::F32 ? 1 : 0;
    I.aux3 = In.hasModifier("ftz") ? 4 : 0;
    return Ctx.dst(I, 0, In.operands[0]) && Ctx.src(I, 1, In.operands[1], Ts[0]) &&
           Ctx.src(I, 2, In.operands[2], Ts[0]) && Ctx.src(I, 3, In.operands[3], Ts[1]);
  default:
    return Ctx.fail("");
  }
}

} // namespace analyzer
