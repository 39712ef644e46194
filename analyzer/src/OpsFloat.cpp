// Floating-point instructions on f32, f64, f16/bf16 and their x2 forms (PTX ISA 9.7.3, 9.7.4).
// Per-lane semantics come from analyzer/ScalarOps.h; this file picks one handler per
// (operation, type, mode) at decode time.
#include "Decoder.h"
#include "Lanes.h"
#include "analyzer/ScalarOps.h"

#include <cmath>

namespace analyzer {
namespace {

namespace S = scalar;
using S::FpMode;
using S::Round;

// aux bits: 0-2 rounding, 3 ftz, 4 sat, 5 NaN, 6 relu.
FpMode modeOf(const DInstr &I) {
  return {static_cast<Round>(I.aux & 7), bool(I.aux & 8), bool(I.aux & 16)};
}
bool nanOf(const DInstr &I) { return I.aux & 32; }
bool reluOf(const DInstr &I) { return I.aux & 64; }

uint32_t decodeMode(const ptx::Instruction &In) {
  uint32_t A = 0;
  if (In.hasModifier("rz") || In.hasModifier("rzi"))
    A = uint32_t(Round::Rz);
  else if (In.hasModifier("rm") || In.hasModifier("rmi"))
    A = uint32_t(Round::Rm);
  else if (In.hasModifier("rp") || In.hasModifier("rpi"))
    A = uint32_t(Round::Rp);
  if (In.hasModifier("ftz"))
    A |= 8;
  if (In.hasModifier("sat"))
    A |= 16;
  if (In.hasModifier("NaN"))
    A |= 32;
  if (In.hasModifier("relu"))
    A |= 64;
  return A;
}

// --- f32 -----------------------------------------------------------------------------------------

#define PTXCAST_F32_BIN(Name, Expr)                                                                \
  struct Name {                                                                                    \
    static float f(const DInstr &I, float A, float B, FpMode M) {                                  \
      (void)I;                                                                                     \
      (void)M;                                                                                     \
      return Expr;                                                                                 \
    }                                                                                              \
  };
PTXCAST_F32_BIN(AddF32, S::addF32(A, B, M))
PTXCAST_F32_BIN(SubF32, S::subF32(A, B, M))
PTXCAST_F32_BIN(MulF32, S::mulF32(A, B, M))
PTXCAST_F32_BIN(DivF32, S::divF32(A, B, M))
PTXCAST_F32_BIN(DivApproxF32, S::divApproxF32(A, B, M.ftz))
PTXCAST_F32_BIN(DivFullF32, S::divFullF32(A, B, M.ftz))
PTXCAST_F32_BIN(MinF32, S::minF32(A, B, M.ftz, nanOf(I)))
PTXCAST_F32_BIN(MaxF32, S::maxF32(A, B, M.ftz, nanOf(I)))
PTXCAST_F32_BIN(CopysignF32, S::copysignF32(A, B))
#undef PTXCAST_F32_BIN

#define PTXCAST_F32_UN(Name, Expr)                                                                 \
  struct Name {                                                                                    \
    static float f(const DInstr &, float A, FpMode M) {                                            \
      (void)M;                                                                                     \
      return Expr;                                                                                 \
    }                                                                                              \
  };
PTXCAST_F32_UN(AbsF32, S::absF32(A, M.ftz))
PTXCAST_F32_UN(NegF32, S::negF32(A, M.ftz))
PTXCAST_F32_UN(SqrtF32, S::sqrtF32(A, M))
PTXCAST_F32_UN(SqrtApproxF32, S::sqrtApproxF32(A, M.ftz))
PTXCAST_F32_UN(RcpF32, S::rcpF32(A, M))
PTXCAST_F32_UN(RcpApproxF32, S::rcpApproxF32(A, M.ftz))
PTXCAST_F32_UN(RsqrtF32, S::rsqrtApproxF32(A, M.ftz))
PTXCAST_F32_UN(SinF32, S::sinApproxF32(A, M.ftz))
PTXCAST_F32_UN(CosF32, S::cosApproxF32(A, M.ftz))
PTXCAST_F32_UN(Lg2F32, S::lg2ApproxF32(A, M.ftz))
PTXCAST_F32_UN(Ex2F32, S::ex2ApproxF32(A, M.ftz))
PTXCAST_F32_UN(TanhF32, S::tanhApproxF32(A))
#undef PTXCAST_F32_UN

/// Fast is the default mode (.rn, no .ftz/.sat): the mode folds away at compile time.
template <class Op, bool Fast> void f32Unary(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  FpMode Md = Fast ? FpMode{} : modeOf(I);
  forLanes(M, [&](unsigned L) { D[L] = putAs<float>(Op::f(I, getAs<float>(A[L]), Md)); });
}

template <class Op, bool Fast> void f32Binary(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  FpMode Md = Fast ? FpMode{} : modeOf(I);
  forLanes(M, [&](unsigned L) {
    D[L] = putAs<float>(Op::f(I, getAs<float>(A[L]), getAs<float>(B[L]), Md));
  });
}

template <bool Fast> void f32Fma(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  FpMode Md = modeOf(I);
  forLanes(M, [&](unsigned L) {
    float X = getAs<float>(A[L]), Y = getAs<float>(B[L]), Z = getAs<float>(C[L]);
    D[L] = putAs<float>(Fast ? S::canonF32(std::fma(X, Y, Z)) : S::fmaF32(X, Y, Z, Md));
  });
}

#if defined(__x86_64__) && defined(__GNUC__)
/// fma.rn.f32 on hosts with FMA: compiled for AVX2+FMA so the 32-lane loop vectorises; chosen at
/// decode time only when the CPU has both (the result is the same correctly rounded fma).
__attribute__((target("avx2,fma"))) void f32FmaHw(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  if (M == ~0u) {
    float R[32];
    for (unsigned L = 0; L < 32; ++L) {
      float X = std::bit_cast<float>(uint32_t(A[L])), Y = std::bit_cast<float>(uint32_t(B[L]));
      float Z = std::bit_cast<float>(uint32_t(C[L]));
      float F = __builtin_fmaf(X, Y, Z);
      R[L] = F != F ? std::bit_cast<float>(S::CanonicalNanF32) : F;
    }
    for (unsigned L = 0; L < 32; ++L)
      D[L] = std::bit_cast<uint32_t>(R[L]);
    return;
  }
  for (; M; M &= M - 1) {
    unsigned L = static_cast<unsigned>(__builtin_ctz(M));
    float F =
        __builtin_fmaf(std::bit_cast<float>(uint32_t(A[L])), std::bit_cast<float>(uint32_t(B[L])),
                       std::bit_cast<float>(uint32_t(C[L])));
    D[L] = std::bit_cast<uint32_t>(F != F ? std::bit_cast<float>(S::CanonicalNanF32) : F);
  }
}

Handler fastFmaF32() {
  static const bool Hw = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return Hw ? f32FmaHw : f32Fma<true>;
}
#else
Handler fastFmaF32() { return f32Fma<true>; }
#endif

// --- f64 -----------------------------------------------------------------------------------------

#define PTXCAST_F64_BIN(Name, Expr)                                                                \
  struct Name {                                                                                    \
    static double f(const DInstr &, double A, double B, Round R) {                                 \
      (void)R;                                                                                     \
      return Expr;                                                                                 \
    }                                                                                              \
  };
PTXCAST_F64_BIN(AddF64, S::addF64(A, B, R))
PTXCAST_F64_BIN(SubF64, S::subF64(A, B, R))
PTXCAST_F64_BIN(MulF64, S::mulF64(A, B, R))
PTXCAST_F64_BIN(DivF64, S::divF64(A, B, R))
PTXCAST_F64_BIN(MinF64, S::minF64(A, B))
PTXCAST_F64_BIN(MaxF64, S::maxF64(A, B))
PTXCAST_F64_BIN(CopysignF64, S::copysignF64(A, B))
#undef PTXCAST_F64_BIN

#define PTXCAST_F64_UN(Name, Expr)                                                                 \
  struct Name {                                                                                    \
    static double f(const DInstr &, double A, Round R) {                                           \
      (void)R;                                                                                     \
      return Expr;                                                                                 \
    }                                                                                              \
  };
PTXCAST_F64_UN(AbsF64, S::absF64(A))
PTXCAST_F64_UN(NegF64, S::negF64(A))
PTXCAST_F64_UN(SqrtF64, S::sqrtF64(A, R))
PTXCAST_F64_UN(RcpF64, S::rcpF64(A, R))
PTXCAST_F64_UN(RcpApproxF64, S::rcpApproxF64(A))
PTXCAST_F64_UN(RsqrtF64, S::rsqrtApproxF64(A))
#undef PTXCAST_F64_UN

template <class Op> void f64Unary(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  Round R = modeOf(I).rnd;
  forLanes(M, [&](unsigned L) { D[L] = putAs<double>(Op::f(I, getAs<double>(A[L]), R)); });
}

template <class Op> void f64Binary(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  Round R = modeOf(I).rnd;
  forLanes(M, [&](unsigned L) {
    double Y = Op::f(I, getAs<double>(A[L]), getAs<double>(B[L]), R);
    D[L] = putAs<double>(modeOf(I).sat ? S::saturateF64(Y) : Y);
  });
}

void f64Fma(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  Round R = modeOf(I).rnd;
  forLanes(M, [&](unsigned L) {
    D[L] =
        putAs<double>(S::fmaF64(getAs<double>(A[L]), getAs<double>(B[L]), getAs<double>(C[L]), R));
  });
}

// --- testp (f32 and f64)
// ---------------------------------------------------------------------------

template <class T> void testpOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  auto K = static_cast<S::TestKind>(I.aux2);
  forLanes(M, [&](unsigned L) {
    if constexpr (sizeof(T) == 4)
      D[L] = S::testpF32(getAs<float>(A[L]), K);
    else
      D[L] = S::testpF64(getAs<double>(A[L]), K);
  });
}

// --- f16 / bf16 (scalar and x2)
// --------------------------------------------------------------------

/// aux2 selects the operation; aux3 bit0: bf16, bit1: x2.
enum HalfOp : uint32_t { HAdd, HSub, HMul, HFma, HMin, HMax, HAbs, HNeg, HEx2 };

uint16_t half1(const DInstr &I, uint16_t A, uint16_t B, uint16_t C) {
  FpMode Md = modeOf(I);
  bool Bf = I.aux3 & 1;
  switch (static_cast<HalfOp>(I.aux2)) {
  case HAdd:
    return Bf ? S::addBF16(A, B, Md.rnd) : S::addF16(A, B, Md);
  case HSub:
    return Bf ? S::subBF16(A, B, Md.rnd) : S::subF16(A, B, Md);
  case HMul:
    return Bf ? S::mulBF16(A, B, Md.rnd) : S::mulF16(A, B, Md);
  case HFma:
    return Bf ? S::fmaBF16(A, B, C, Md.rnd, reluOf(I)) : S::fmaF16(A, B, C, Md, reluOf(I));
  case HMin:
    return Bf ? S::minBF16(A, B, nanOf(I), reluOf(I))
              : S::minF16(A, B, Md.ftz, nanOf(I), reluOf(I));
  case HMax:
    return Bf ? S::maxBF16(A, B, nanOf(I), reluOf(I))
              : S::maxF16(A, B, Md.ftz, nanOf(I), reluOf(I));
  case HAbs:
    return Bf ? S::absBF16(A) : S::absF16(A, Md.ftz);
  case HNeg:
    return Bf ? S::negBF16(A) : S::negF16(A, Md.ftz);
  case HEx2:
    return Bf ? S::ex2ApproxBF16(A) : S::ex2ApproxF16(A);
  }
  return 0;
}

void halfOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  const uint64_t *B = I.nops > 2 ? opPtr(W, I, 2) : A;
  const uint64_t *C = I.nops > 3 ? opPtr(W, I, 3) : A;
  bool X2 = I.aux3 & 2;
  forLanes(M, [&](unsigned L) {
    uint32_t R = half1(I, uint16_t(A[L]), uint16_t(B[L]), uint16_t(C[L]));
    if (X2)
      R |= uint32_t(half1(I, uint16_t(A[L] >> 16), uint16_t(B[L] >> 16), uint16_t(C[L] >> 16)))
           << 16;
    D[L] = R;
  });
}

bool halfSelect(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I, ptx::Type T) {
  using ptx::Opcode;
  unsigned N;
  switch (In.opcode) {
  case Opcode::Add:
    I.aux2 = HAdd;
    N = 2;
    break;
  case Opcode::Sub:
    I.aux2 = HSub;
    N = 2;
    break;
  case Opcode::Mul:
    I.aux2 = HMul;
    N = 2;
    break;
  case Opcode::Fma:
    I.aux2 = HFma;
    N = 3;
    break;
  case Opcode::Min:
    I.aux2 = HMin;
    N = 2;
    break;
  case Opcode::Max:
    I.aux2 = HMax;
    N = 2;
    break;
  case Opcode::Abs:
    I.aux2 = HAbs;
    N = 1;
    break;
  case Opcode::Neg:
    I.aux2 = HNeg;
    N = 1;
    break;
  case Opcode::Ex2:
    I.aux2 = HEx2;
    N = 1;
    break;
  default:
    return Ctx.fail("half-precision operation");
  }
  I.aux3 = (T == ptx::Type::BF16 || T == ptx::Type::BF16x2 ? 1 : 0) |
           (T == ptx::Type::F16x2 || T == ptx::Type::BF16x2 ? 2 : 0);
  I.fn = halfOp;
  if (In.operands.size() != N + 1 || !Ctx.dst(I, 0, In.operands[0]))
    return Ctx.fail("operand count");
  for (unsigned K = 1; K <= N; ++K)
    if (!Ctx.src(I, K, In.operands[K], T))
      return false;
  return true;
}

// --- selection
// -------------------------------------------------------------------------------------

Handler selectF32(const ptx::Instruction &In, bool Fast, unsigned &N) {
  using ptx::Opcode;
  bool Approx = In.hasModifier("approx"), Full = In.hasModifier("full");
#define PTXCAST_PICK(Tmpl, Op) (Fast ? Tmpl<Op, true> : Tmpl<Op, false>)
  N = 2;
  switch (In.opcode) {
  case Opcode::Add:
    return PTXCAST_PICK(f32Binary, AddF32);
  case Opcode::Sub:
    return PTXCAST_PICK(f32Binary, SubF32);
  case Opcode::Mul:
    return PTXCAST_PICK(f32Binary, MulF32);
  case Opcode::Min:
    return f32Binary<MinF32, false>;
  case Opcode::Max:
    return f32Binary<MaxF32, false>;
  case Opcode::Copysign:
    return f32Binary<CopysignF32, false>;
  case Opcode::Div:
    return Approx ? f32Binary<DivApproxF32, false>
           : Full ? f32Binary<DivFullF32, false>
                  : f32Binary<DivF32, false>;
  case Opcode::Fma:
  case Opcode::Mad:
    N = 3;
    return Fast ? fastFmaF32() : f32Fma<false>;
  default:
    break;
  }
  N = 1;
  switch (In.opcode) {
  case Opcode::Abs:
    return f32Unary<AbsF32, false>;
  case Opcode::Neg:
    return f32Unary<NegF32, false>;
  case Opcode::Sqrt:
    return Approx ? f32Unary<SqrtApproxF32, false> : f32Unary<SqrtF32, false>;
  case Opcode::Rcp:
    return Approx ? f32Unary<RcpApproxF32, false> : f32Unary<RcpF32, false>;
  case Opcode::Rsqrt:
    return f32Unary<RsqrtF32, false>;
  case Opcode::Sin:
    return f32Unary<SinF32, false>;
  case Opcode::Cos:
    return f32Unary<CosF32, false>;
  case Opcode::Lg2:
    return f32Unary<Lg2F32, false>;
  case Opcode::Ex2:
    return f32Unary<Ex2F32, false>;
  case Opcode::Tanh:
    return f32Unary<TanhF32, false>;
  default:
    return nullptr;
  }
#undef PTXCAST_PICK
}

Handler selectF64(const ptx::Instruction &In, unsigned &N) {
  using ptx::Opcode;
  bool Approx = In.hasModifier("approx");
  N = 2;
  switch (In.opcode) {
  case Opcode::Add:
    return f64Binary<AddF64>;
  case Opcode::Sub:
    return f64Binary<SubF64>;
  case Opcode::Mul:
    return f64Binary<MulF64>;
  case Opcode::Div:
    return f64Binary<DivF64>;
  case Opcode::Min:
    return f64Binary<MinF64>;
  case Opcode::Max:
    return f64Binary<MaxF64>;
  case Opcode::Copysign:
    return f64Binary<CopysignF64>;
  case Opcode::Fma:
  case Opcode::Mad:
    N = 3;
    return f64Fma;
  default:
    break;
  }
  N = 1;
  switch (In.opcode) {
  case Opcode::Abs:
    return f64Unary<AbsF64>;
  case Opcode::Neg:
    return f64Unary<NegF64>;
  case Opcode::Sqrt:
    return f64Unary<SqrtF64>;
  case Opcode::Rcp:
    return Approx ? f64Unary<RcpApproxF64> : f64Unary<RcpF64>;
  case Opcode::Rsqrt:
    return f64Unary<RsqrtF64>;
  default:
    return nullptr;
  }
}

} // namespace

bool selectFloat(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  ptx::Type T = In.type();
  I.aux = decodeMode(In);
  if (In.opcode == ptx::Opcode::Testp) {
    constexpr std::string_view Names[] = {"finite",     "infinite", "number",
                                          "notanumber", "normal",   "subnormal"};
    I.aux2 = 99;
    for (uint32_t K = 0; K < 6; ++K)
      if (In.hasModifier(Names[K]))
        I.aux2 = K;
    if (I.aux2 == 99 || In.operands.size() != 2)
      return Ctx.fail("testp form");
    I.fn = T == ptx::Type::F32 ? testpOp<float> : T == ptx::Type::F64 ? testpOp<double> : nullptr;
    return I.fn && Ctx.dst(I, 0, In.operands[0]) && Ctx.src(I, 1, In.operands[1], T);
  }
  unsigned N = 0;
  if (T == ptx::Type::F32) {
    bool Fast = (I.aux & 0x1f) == 0;
    I.fn = selectF32(In, Fast, N);
  } else if (T == ptx::Type::F64) {
    I.fn = selectF64(In, N);
  } else if (T == ptx::Type::F16 || T == ptx::Type::F16x2 || T == ptx::Type::BF16 ||
             T == ptx::Type::BF16x2) {
    return halfSelect(Ctx, In, I, T);
  }
  if (!I.fn)
    return Ctx.fail("");
  if (In.operands.size() != N + 1)
    return Ctx.fail("expected " + std::to_string(N + 1) + " operands");
  if (!Ctx.dst(I, 0, In.operands[0]))
    return false;
  for (unsigned K = 1; K <= N; ++K)
    if (!Ctx.src(I, K, In.operands[K], T))
      return false;
  return true;
}

} // namespace analyzer
