// Tensor-core arithmetic: mma.sync (PTX ISA 9.7.15.5), wmma.mma (9.7.14.5.4) and movmatrix
// (9.7.15.5.15), through the warp-wide fragments of Tensor.h. Every product is computed as the
// ISA defines it for each element of D: D = A x B + C, with
//   - f16, bf16, tf32 (low 13 bits ignored), e4m3 and e5m2 inputs, exact, and an f32 fma chain
//     over k in increasing order starting from C (a product of two such inputs is exact in f32,
//     so each step is one rounding); an .f16 D is that f32 result rounded to nearest even;
//   - f64: an f64 fma chain in the same order;
//   - integers (s8/u8/s4/u4, b1 with .xor/.and.popc): the exact sum, wrapped to s32 or clamped
//     with .satfinite.
// The ISA leaves the order and internal precision of the floating-point sums open
// (docs/semantics.md says what ptxcast picks and what the tests allow). The loads and stores of
// fragments are in OpsTensorMemory.cpp.
#include "Decoder.h"
#include "Tensor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace analyzer {

bool selectMatrixMemory(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);

namespace {

using ptx::Type;
using tensor::Family;
using tensor::Fragment;
using tensor::Role;

/// Bits of DInstr for an mma or wmma.mma: aux = types D | A << 8 | B << 16 | C << 24; aux2 =
/// m | n << 8 | batches << 16 | flags << 24; aux3 = elements per register of D, A, B, C (a byte
/// each); imm = registers of D, A, B, C (a byte each) | k << 32. Operands (wide) D, A, B, C.
constexpr unsigned Sat = 1, XorPopc = 2, AndPopc = 4; ///< flags

struct MmaDesc {
  std::array<Type, 4> type; ///< D, A, B, C
  unsigned m = 0, n = 0, k = 0, batches = 1, flags = 0;
  std::array<unsigned, 4> regs{}, per{};

  static MmaDesc of(const DInstr &I) {
    MmaDesc D;
    for (unsigned G = 0; G < 4; ++G) {
      D.type[G] = static_cast<Type>((I.aux >> (8 * G)) & 0xff);
      D.per[G] = (I.aux3 >> (8 * G)) & 0xff;
      D.regs[G] = (uint64_t(I.imm) >> (8 * G)) & 0xff;
    }
    D.m = I.aux2 & 0xff;
    D.n = (I.aux2 >> 8) & 0xff;
    D.batches = (I.aux2 >> 16) & 0xff;
    D.flags = I.aux2 >> 24;
    D.k = static_cast<unsigned>(uint64_t(I.imm) >> 32);
    return D;
  }
};

constexpr size_t MaxA = 4096, MaxB = 2048, MaxC = 512; // m16n8k256 .b1; wmma 16x16 and 32x8

/// The values of fragment group G (registers FirstOp.. of the wide operands) into Out, by the
/// group's table (starting at Tab).
void gather(Warp &W, const WideOperands &O, size_t FirstOp, size_t Tab, unsigned Regs, unsigned Per,
            Type T, double *Out) {
  for (unsigned R = 0; R < Regs; ++R) {
    const uint64_t *Reg = W.base[O.base[FirstOp + R]] + O.op[FirstOp + R];
    for (unsigned L = 0; L < 32; ++L)
      for (unsigned J = 0; J < Per; ++J)
        Out[O.table[Tab++]] = tensor::elementValue(T, Reg[L], J);
  }
}

/// D = A x B + C for every matrix of the batch, one accumulator chain per element over k.
template <class Acc, class Step>
void multiply(const MmaDesc &D, const double *A, const double *B, const double *C, double *Out,
              Step St) {
  const unsigned M = D.m, N = D.n, K = D.k;
  for (unsigned Bt = 0; Bt < D.batches; ++Bt)
    for (unsigned I = 0; I < M; ++I) {
      const double *Row = A + (size_t(Bt) * M + I) * K;
      for (unsigned J = 0; J < N; ++J) {
        const double *Col = B + size_t(Bt) * K * N + J;
        Acc V = Acc(C[(size_t(Bt) * M + I) * N + J]);
        for (unsigned Kk = 0; Kk < K; ++Kk)
          V = St(V, Acc(Row[Kk]), Acc(Col[size_t(Kk) * N]));
        Out[(size_t(Bt) * M + I) * N + J] = double(V);
      }
    }
}

void mmaOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  if (!tensor::requireFullWarp(X, W, I, M))
    return;
  const WideOperands &O = X.prog->wide[I.wide - 1];
  const MmaDesc D = MmaDesc::of(I);
  if (X.settings->valuesUnused) { // no count depends on the product (RunSettings)
    for (unsigned R = 0; R < D.regs[0]; ++R) {
      uint64_t *Reg = W.base[O.base[R]] + O.op[R];
      uint64_t Any = 0; // the accumulators of a K loop are zero already: reading is cheaper
      for (unsigned L = 0; L < 32; ++L)
        Any |= Reg[L];
      if (Any)
        std::fill_n(Reg, 32, uint64_t(0));
    }
    return;
  }
  std::array<double, MaxA> A;
  std::array<double, MaxB> B;
  std::array<double, MaxC> C, Out;
  size_t Op = D.regs[0], Tab = size_t(D.regs[0]) * 32 * D.per[0];
  double *Dst[3] = {A.data(), B.data(), C.data()};
  for (unsigned G = 1; G < 4; ++G) {
    gather(W, O, Op, Tab, D.regs[G], D.per[G], D.type[G], Dst[G - 1]);
    Op += D.regs[G];
    Tab += size_t(D.regs[G]) * 32 * D.per[G];
  }
  const Type In = D.type[1];
  if (In == Type::F64)
    multiply<double>(D, A.data(), B.data(), C.data(), Out.data(),
                     [](double V, double P, double Q) { return std::fma(P, Q, V); });
  else if (D.flags & (XorPopc | AndPopc))
    multiply<double>(D, A.data(), B.data(), C.data(), Out.data(),
                     [And = (D.flags & AndPopc) != 0](double V, double P, double Q) {
                       return V + double(And ? (P != 0 && Q != 0) : ((P != 0) != (Q != 0)));
                     });
  else if (ptx::typeKind(In) == ptx::TypeKind::Float)
    multiply<float>(D, A.data(), B.data(), C.data(), Out.data(),
                    [](float V, float P, float Q) { return std::fma(P, Q, V); });
  else
    multiply<double>(D, A.data(), B.data(), C.data(), Out.data(),
                     [](double V, double P, double Q) { return V + P * Q; });
  const unsigned Bits = tensor::elementBits(D.type[0]);
  Tab = 0;
  for (unsigned R = 0; R < D.regs[0]; ++R) {
    uint64_t *Reg = W.base[O.base[R]] + O.op[R];
    for (unsigned L = 0; L < 32; ++L) {
      uint64_t V = 0;
      for (unsigned J = 0; J < D.per[0]; ++J)
        V |= tensor::encodeElement(D.type[0], Out[O.table[Tab++]], D.flags & Sat) << (J * Bits);
      Reg[L] = V;
    }
  }
}

/// movmatrix.sync.aligned.m8n8.trans.b16 d, a: the 8x8 matrix of 16-bit elements whose row
/// L / 4, columns 2 (L % 4) and 2 (L % 4) + 1 lane L holds, transposed (PTX ISA 9.7.15.5.15).
void movmatrixOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  if (!tensor::requireFullWarp(X, W, I, M))
    return;
  uint16_t Mat[8][8];
  const uint64_t *A = opPtr(W, I, 1);
  for (unsigned L = 0; L < 32; ++L)
    for (unsigned J = 0; J < 2; ++J)
      Mat[L / 4][2 * (L % 4) + J] = uint16_t(A[L] >> (16 * J));
  uint64_t *D = opPtr(W, I, 0);
  for (unsigned L = 0; L < 32; ++L)
    D[L] = Mat[2 * (L % 4)][L / 4] | uint32_t(Mat[2 * (L % 4) + 1][L / 4]) << 16;
}

/// `m16n8k16` -> {16, 8, 16}; {0, 0, 0} when no modifier names a shape.
std::array<unsigned, 3> shapeOf(const ptx::Instruction &In) {
  for (const std::string &Mod : In.modifiers) {
    unsigned M = 0, N = 0, K = 0;
    char Tail = 0;
    if (std::sscanf(Mod.c_str(), "m%un%uk%u%c", &M, &N, &K, &Tail) == 3)
      return {M, N, K};
  }
  return {0, 0, 0};
}

/// Elements per register: 64-bit types one per .b64 register, others packed in 32 bits.
unsigned perRegister(Type T) { return T == Type::F64 ? 1 : 32 / tensor::elementBits(T); }

bool isInt(Type T) {
  return T == Type::S8 || T == Type::U8 || T == Type::S4 || T == Type::U4 || T == Type::B1;
}

/// The multiplicand types mma.sync accepts for a shape (PTX ISA 9.7.15.5, the .atype table).
bool mmaShapeTakes(std::array<unsigned, 3> S, Type A) {
  auto Is = [&](unsigned M, unsigned N, unsigned K) { return S == std::array{M, N, K}; };
  auto Any = [&](std::initializer_list<Type> Ts) {
    return std::find(Ts.begin(), Ts.end(), A) != Ts.end();
  };
  if (Is(8, 8, 4))
    return Any({Type::F16, Type::F64});
  if (Is(16, 8, 4))
    return Any({Type::TF32, Type::F64});
  if (Is(16, 8, 8))
    return Any({Type::F16, Type::BF16, Type::TF32, Type::F64});
  if (Is(16, 8, 16))
    return Any({Type::F16, Type::BF16, Type::S8, Type::U8, Type::F64});
  if (Is(16, 8, 32))
    return Any({Type::S8, Type::U8, Type::S4, Type::U4, Type::E4M3, Type::E5M2});
  if (Is(16, 8, 64))
    return Any({Type::S4, Type::U4});
  if (Is(8, 8, 16))
    return Any({Type::S8, Type::U8});
  if (Is(8, 8, 32))
    return Any({Type::S4, Type::U4});
  return (Is(8, 8, 128) || Is(16, 8, 128) || Is(16, 8, 256)) && A == Type::B1;
}

/// The accumulator and second multiplicand types fit the first multiplicand's (PTX ISA
/// 9.7.15.5 and 9.7.14.5.4 type tables).
bool typesFit(const std::array<Type, 4> &T) {
  const Type A = T[1];
  auto Acc = [&](Type X) { return T[0] == X && T[3] == X; };
  if (A == Type::F16)
    return T[2] == Type::F16 && (T[0] == Type::F16 || T[0] == Type::F32) &&
           (T[3] == Type::F16 || T[3] == Type::F32);
  if (A == Type::BF16 || A == Type::TF32)
    return T[2] == A && Acc(Type::F32);
  if (A == Type::E4M3 || A == Type::E5M2)
    return (T[2] == Type::E4M3 || T[2] == Type::E5M2) && Acc(Type::F32);
  if (A == Type::F64)
    return T[2] == Type::F64 && Acc(Type::F64);
  if (A == Type::B1)
    return T[2] == Type::B1 && Acc(Type::S32);
  return isInt(A) && isInt(T[2]) && tensor::elementBits(T[2]) == tensor::elementBits(A) &&
         Acc(Type::S32);
}

/// The fragment of `Role` for a wmma of shape S (PTX ISA 9.7.14.2: f16 A and B take eight
/// .f16x2 registers whatever the shape; every other fragment holds the matrix once).
Fragment wmmaFragment(Role R, std::array<unsigned, 3> S, Type T) {
  Fragment F;
  F.family = Family::Wmma;
  F.role = R;
  F.rows = R == Role::B ? S[2] : S[0];
  F.cols = R == Role::A ? S[2] : S[1];
  F.perReg = perRegister(T);
  F.regs = R != Role::C && T == Type::F16 ? 8 : F.rows * F.cols / (32 * F.perReg);
  return F;
}

/// The fragment of `Role` for an mma.sync of shape S with element type T.
Fragment mmaFragment(Role R, std::array<unsigned, 3> S, Type T, bool Volta, bool ColMajor) {
  Fragment F;
  F.family = Volta ? Family::MmaVolta : Family::Mma;
  F.role = R;
  F.rows = R == Role::B ? S[2] : S[0];
  F.cols = R == Role::A ? S[2] : S[1];
  F.batches = Volta ? 4 : 1;
  F.perReg = perRegister(T);
  F.regs = F.batches * F.rows * F.cols / (32 * F.perReg);
  F.colMajor = ColMajor;
  F.f32Accum = Volta && R == Role::C && T == Type::F32;
  return F;
}

/// Registers of a fragment operand: `{r0, r1, ...}` (or one register for a one-register
/// fragment), checked against the count the fragment needs.
bool fragmentOperands(DecodeCtx &Ctx, DInstr &I, const ptx::Operand &O, const Fragment &F,
                      WideOperands::Kind K, const char *Name) {
  const std::vector<ptx::Operand> One{O};
  const std::vector<ptx::Operand> &Regs = O.kind == ptx::Operand::Kind::Vector ? O.elems : One;
  if (Regs.size() != F.regs)
    return Ctx.fail(std::string(Name) + " has " + std::to_string(Regs.size()) +
                    " registers; the fragment takes " + std::to_string(F.regs));
  for (const ptx::Operand &R : Regs)
    if (!Ctx.wideOperand(I, R, K, Type::B64))
      return false;
  return true;
}

/// Operands d, a, b, c of an mma or wmma.mma with fragments F (D, A, B, C), and their tables.
bool decodeMma(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I,
               const std::array<Fragment, 4> &F, const std::array<Type, 4> &T, unsigned Flags) {
  if (In.operands.size() != 4)
    return Ctx.fail("expected 4 operands");
  constexpr const char *Names[] = {"d", "a", "b", "c"};
  uint64_t Regs = 0;
  I.aux = I.aux3 = 0;
  for (unsigned G = 0; G < 4; ++G) {
    if (!fragmentOperands(Ctx, I, In.operands[G], F[G],
                          G == 0 ? WideOperands::Dest : WideOperands::Value, Names[G]))
      return false;
    I.aux |= uint32_t(T[G]) << (8 * G);
    I.aux3 |= F[G].perReg << (8 * G);
    Regs |= uint64_t(F[G].regs) << (8 * G);
  }
  WideOperands &W = Ctx.wideOf(I);
  for (const Fragment &Fr : F)
    Fr.appendTable(W.table);
  const unsigned M = F[1].rows, N = F[2].cols, K = F[1].cols, Batches = F[1].batches;
  W.macs = uint64_t(Batches) * M * N * K;
  W.int8 = T[1] == Type::S8 || T[1] == Type::U8;
  I.aux2 = M | N << 8 | Batches << 16 | Flags << 24;
  I.imm = static_cast<int64_t>(Regs | uint64_t(K) << 32);
  I.fn = mmaOp;
  return true;
}

/// The two layout modifiers (`.row`/`.col`) in order: A's, then B's; false when not two.
bool layouts(const ptx::Instruction &In, bool &AColMajor, bool &BColMajor) {
  std::vector<bool> Col;
  for (const std::string &M : In.modifiers)
    if (M == "row" || M == "col")
      Col.push_back(M == "col");
  if (Col.size() != 2)
    return false;
  AColMajor = Col[0];
  BColMajor = Col[1];
  return true;
}

/// mma.sync.aligned.shape.alayout.blayout{.satfinite}.dtype.atype.btype.ctype{.op.popc}
bool selectMma(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  if (!In.hasModifier("sync") || In.hasModifier("sp") || In.hasModifier("block_scale"))
    return Ctx.fail("only dense mma.sync is supported");
  const std::array<unsigned, 3> S = shapeOf(In);
  std::vector<Type> Ts = In.types();
  if (Ts.size() != 4)
    return Ctx.fail("mma needs four types (d, a, b, c)");
  const std::array<Type, 4> T{Ts[0], Ts[1], Ts[2], Ts[3]};
  bool ACol = false, BCol = true;
  if (!mmaShapeTakes(S, T[1]) || !typesFit(T) || !layouts(In, ACol, BCol))
    return Ctx.fail("shape, types or layouts");
  const bool Volta = S == std::array<unsigned, 3>{8, 8, 4} && T[1] == Type::F16;
  if (!Volta && (ACol || !BCol))
    return Ctx.fail("only .row.col layouts exist for this shape");
  unsigned Flags = In.hasModifier("satfinite") ? Sat : 0;
  if (T[1] == Type::B1) {
    if (!In.hasModifier("popc") || In.hasModifier("xor") == In.hasModifier("and"))
      return Ctx.fail(".b1 mma needs .xor.popc or .and.popc");
    Flags |= In.hasModifier("xor") ? XorPopc : AndPopc;
  }
  const std::array<Fragment, 4> F{
      mmaFragment(Role::C, S, T[0], Volta, false), mmaFragment(Role::A, S, T[1], Volta, ACol),
      mmaFragment(Role::B, S, T[2], Volta, BCol), mmaFragment(Role::C, S, T[3], Volta, false)};
  return decodeMma(Ctx, In, I, F, T, Flags);
}

/// The wmma shapes for multiplicands of type A (PTX ISA 9.7.14.1); Type::None: every shape (an
/// accumulator's load or store does not name the multiplicands).
bool wmmaShapeTakes(std::array<unsigned, 3> S, Type A) {
  using Shapes = std::vector<std::array<unsigned, 3>>;
  const Shapes Taken = A == Type::TF32                  ? Shapes{{16, 16, 8}}
                       : A == Type::F64                 ? Shapes{{8, 8, 4}}
                       : A == Type::B1                  ? Shapes{{8, 8, 128}}
                       : A == Type::S4 || A == Type::U4 ? Shapes{{8, 8, 32}}
                       : A == Type::None
                           ? Shapes{{16, 16, 16}, {32, 8, 16}, {8, 32, 16}, {16, 16, 8},
                                    {8, 8, 4},    {8, 8, 32},  {8, 8, 128}}
                           : Shapes{{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
  return std::find(Taken.begin(), Taken.end(), S) != Taken.end();
}

/// wmma.mma{.op.popc}.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype{.satfinite}
bool selectWmmaMma(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  const std::array<unsigned, 3> S = shapeOf(In);
  std::vector<Type> Ts = In.types();
  if (Ts.size() == 2) // the f16 form names only the accumulator types
    Ts = {Ts[0], Type::F16, Type::F16, Ts[1]};
  if (Ts.size() != 4)
    return Ctx.fail("wmma.mma types");
  const std::array<Type, 4> T{Ts[0], Ts[1], Ts[2], Ts[3]};
  bool ACol = false, BCol = false;
  if (!wmmaShapeTakes(S, T[1]) || !typesFit(T) || T[1] == Type::E4M3 || T[1] == Type::E5M2 ||
      !layouts(In, ACol, BCol))
    return Ctx.fail("shape, types or layouts");
  for (const char *Rnd : {"rz", "rm", "rp"})
    if (In.hasModifier(Rnd))
      return Ctx.fail("rounding modes other than .rn");
  unsigned Flags = In.hasModifier("satfinite") ? Sat : 0;
  if (T[1] == Type::B1)
    Flags |= In.hasModifier("and") ? AndPopc : XorPopc;
  const std::array<Fragment, 4> F{wmmaFragment(Role::C, S, T[0]), wmmaFragment(Role::A, S, T[1]),
                                  wmmaFragment(Role::B, S, T[2]), wmmaFragment(Role::C, S, T[3])};
  return decodeMma(Ctx, In, I, F, T, Flags);
}

} // namespace

/// The wmma fragment of a wmma.load/store (Tensor.h): the same as wmma.mma's for that matrix.
/// A shape wmma does not have (`m32n0k16`) gives a fragment of no registers.
Fragment wmmaMemoryFragment(Role R, const ptx::Instruction &In, Type T) {
  const std::array<unsigned, 3> S = shapeOf(In);
  if (!wmmaShapeTakes(S, R == Role::C ? Type::None : T))
    return {};
  return wmmaFragment(R, S, T);
}

bool selectTensor(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  switch (In.opcode) {
  case ptx::Opcode::Mma:
    return selectMma(Ctx, In, I);
  case ptx::Opcode::Wmma:
    if (In.hasModifier("mma"))
      return selectWmmaMma(Ctx, In, I);
    return selectMatrixMemory(Ctx, In, I);
  case ptx::Opcode::Movmatrix:
    if (!In.hasModifier("trans") || !In.hasModifier("m8n8") || In.operands.size() != 2)
      return Ctx.fail("movmatrix form");
    I.fn = movmatrixOp;
    return Ctx.dst(I, 0, In.operands[0]) && Ctx.src(I, 1, In.operands[1], Type::B32);
  default:
    return selectMatrixMemory(Ctx, In, I);
  }
}

} // namespace analyzer
