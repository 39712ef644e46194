// Matrix loads and stores of the tensor-core instructions: ldmatrix and stmatrix (PTX ISA
// 9.7.15.5.13-14: 8x8 matrices of 16-bit elements, one row address per lane, .trans) and
// wmma.load / wmma.store (9.7.14.5.2-3: a whole matrix from one address and a stride, into the
// fragments of Tensor.h). Each is one warp-level memory request over the rows it touches.
#include "Decoder.h"
#include "Memory.h"
#include "Tensor.h"

#include <algorithm>
#include <array>

namespace analyzer {

tensor::Fragment wmmaMemoryFragment(tensor::Role R, const ptx::Instruction &In, ptx::Type T);

namespace {

/// ldmatrix/stmatrix: wide operands = the aux registers, then the address; aux = matrices (1,
/// 2 or 4); aux2 = 1 for .trans; aux3 = Space.
using Matrices = std::array<std::array<std::array<uint16_t, 8>, 8>, 4>;

/// The registers of matrices `Mat` as lane L holds them: row L / 4, columns 2 (L % 4) and
/// 2 (L % 4) + 1 (transposed with .trans), the lower column in the low half.
uint32_t packRow(const Matrices &Mat, unsigned Mi, unsigned L, bool Trans) {
  const unsigned R = L / 4, C = 2 * (L % 4);
  return Trans ? Mat[Mi][C][R] | uint32_t(Mat[Mi][C + 1][R]) << 16
               : Mat[Mi][R][C] | uint32_t(Mat[Mi][R][C + 1]) << 16;
}

/// Moves the 16-byte rows of ldmatrix/stmatrix: row r of matrix i is at lane 8i + r's address.
bool matrixRows(Exec &X, Warp &W, const DInstr &I, Matrices &Mat, bool Store) {
  const WideOperands &O = X.prog->wide[I.wide - 1];
  const uint64_t *A = W.base[O.base[I.aux]] + O.op[I.aux];
  auto Move = [&](uint8_t *P, unsigned Lane) {
    uint16_t *Row = Mat[Lane / 8][Lane % 8].data();
    if (Store)
      std::memcpy(P, Row, 16);
    else
      std::memcpy(Row, P, 16);
  };
  RequestCounter RC;
  const uint32_t Rows = I.aux == 4 ? ~0u : (1u << (8 * I.aux)) - 1;
  // Every row aligned and inside shared memory (the common case): no per-row translation.
  if (FastRange R = fastRangeIn(X, static_cast<Space>(I.aux3), I.imm, A, Rows, 16);
      R.base && R.space == MemSpace::Shared) {
    forLanes(Rows,
             [&](unsigned Lane) { Move(R.base + (A[Lane] + uint64_t(I.imm) - R.sub), Lane); });
    addRequest(RC, R, A, I.imm, Rows, 16);
  } else {
    for (unsigned Lane = 0; Lane < 8 * I.aux; ++Lane) {
      uint64_t Addr = A[Lane] + uint64_t(I.imm);
      MemSpace Hit;
      uint8_t *P = translate(X, W, I, static_cast<Space>(I.aux3), Addr, 16, 16, Lane, Store,
                             Store ? "store" : "load", Hit);
      if (!P)
        return false;
      Move(P, Lane);
      RC.add(Hit, Addr, 16);
    }
  }
  RC.finish(X.prof, Store ? 1 : 0);
  return true;
}

void ldmatrixOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  if (!tensor::requireFullWarp(X, W, I, M))
    return;
  Matrices Mat{};
  if (!matrixRows(X, W, I, Mat, false))
    return;
  const WideOperands &O = X.prog->wide[I.wide - 1];
  for (unsigned Mi = 0; Mi < I.aux; ++Mi) {
    uint64_t *R = W.base[O.base[Mi]] + O.op[Mi];
    for (unsigned L = 0; L < 32; ++L)
      R[L] = packRow(Mat, Mi, L, I.aux2 != 0);
  }
}

void stmatrixOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  if (!tensor::requireFullWarp(X, W, I, M))
    return;
  const WideOperands &O = X.prog->wide[I.wide - 1];
  Matrices Mat{};
  for (unsigned Mi = 0; Mi < I.aux; ++Mi) {
    const uint64_t *R = W.base[O.base[Mi]] + O.op[Mi];
    for (unsigned L = 0; L < 32; ++L) {
      const unsigned Row = L / 4, C = 2 * (L % 4);
      for (unsigned J = 0; J < 2; ++J) {
        auto V = uint16_t(R[L] >> (16 * J));
        (I.aux2 ? Mat[Mi][C + J][Row] : Mat[Mi][Row][C + J]) = V;
      }
    }
  }
  matrixRows(X, W, I, Mat, true);
}

/// wmma.load/store: wide operands = the fragment registers, the address, the stride (in
/// elements); aux = registers | col-major memory << 8 | Space << 16; aux2 = element type;
/// aux3 = rows | cols << 8 | elements per register << 16; table = the fragment's layout.
struct WmmaDesc {
  unsigned regs, rows, cols, per, bits;
  bool colMajor;
  Space space;
  ptx::Type type;
  static WmmaDesc of(const DInstr &I) {
    auto T = static_cast<ptx::Type>(I.aux2);
    return {I.aux & 0xff,
            I.aux3 & 0xff,
            (I.aux3 >> 8) & 0xff,
            (I.aux3 >> 16) & 0xff,
            tensor::elementBits(T),
            ((I.aux >> 8) & 1) != 0,
            static_cast<Space>((I.aux >> 16) & 0xff),
            T};
  }
};

constexpr size_t MaxWmmaElems = 1024; // 8 x 128 .b1

/// Moves a wmma matrix between memory and `Elems` (row-major element bits), line by line (rows
/// of a row-major matrix, columns of a column-major one). The address and stride must be the
/// same in every lane; each line must be aligned to the fragment's size (PTX ISA 9.7.14.4.2).
bool wmmaLines(Exec &X, Warp &W, const DInstr &I, const WmmaDesc &D, uint64_t *Elems, bool Store) {
  const WideOperands &O = X.prog->wide[I.wide - 1];
  const uint64_t *A = W.base[O.base[D.regs]] + O.op[D.regs];
  const uint64_t *S = W.base[O.base[D.regs + 1]] + O.op[D.regs + 1];
  for (unsigned L = 1; L < 32; ++L)
    if (A[L] != A[0] || uint32_t(S[L]) != uint32_t(S[0])) {
      raiseTrap(X, W, I, TrapKind::Unsupported,
                "the address and stride of '" + X.prog->messages[I.msg] +
                    "' differ between lanes 0 and " + std::to_string(L),
                L);
      return false;
    }
  const unsigned Lines = D.colMajor ? D.cols : D.rows, Len = D.colMajor ? D.rows : D.cols;
  const unsigned Bytes = (Len * D.bits + 7) / 8;
  const unsigned Align = D.regs * (D.type == ptx::Type::F64 ? 8 : 4);
  RequestCounter RC;
  for (unsigned Ln = 0; Ln < Lines; ++Ln) {
    const uint64_t Addr = A[0] + uint64_t(I.imm) + uint64_t(Ln) * uint32_t(S[0]) * D.bits / 8;
    MemSpace Hit;
    uint8_t *P = translate(X, W, I, D.space, Addr, Bytes, Align, 0, Store,
                           Store ? "store" : "load", Hit);
    if (!P)
      return false;
    for (unsigned E = 0; E < Len; ++E) {
      uint64_t &V = Elems[D.colMajor ? E * D.cols + Ln : Ln * D.cols + E];
      const unsigned Bit = E * D.bits, Width = std::min(D.bits, 64u);
      const uint64_t Mask = Width >= 64 ? ~uint64_t(0) : (uint64_t(1) << Width) - 1;
      uint64_t Word = 0;
      std::memcpy(&Word, P + Bit / 8, std::min(8u, (D.bits + 7) / 8));
      if (Store) {
        Word = (Word & ~(Mask << (Bit % 8))) | (V & Mask) << (Bit % 8);
        std::memcpy(P + Bit / 8, &Word, std::min(8u, (D.bits + 7) / 8));
      } else {
        V = (Word >> (Bit % 8)) & Mask;
      }
    }
    RC.add(Hit, Addr, Bytes);
  }
  RC.finish(X.prof, Store ? 1 : 0);
  return true;
}

void wmmaLoadOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  if (!tensor::requireFullWarp(X, W, I, M))
    return;
  const WmmaDesc D = WmmaDesc::of(I);
  std::array<uint64_t, MaxWmmaElems> Elems{};
  if (!wmmaLines(X, W, I, D, Elems.data(), false))
    return;
  const WideOperands &O = X.prog->wide[I.wide - 1];
  size_t Tab = 0;
  for (unsigned R = 0; R < D.regs; ++R) {
    uint64_t *Reg = W.base[O.base[R]] + O.op[R];
    for (unsigned L = 0; L < 32; ++L) {
      uint64_t V = 0;
      for (unsigned J = 0; J < D.per; ++J)
        V |= Elems[O.table[Tab++]] << (J * D.bits);
      Reg[L] = V;
    }
  }
}

void wmmaStoreOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  if (!tensor::requireFullWarp(X, W, I, M))
    return;
  const WmmaDesc D = WmmaDesc::of(I);
  const WideOperands &O = X.prog->wide[I.wide - 1];
  std::array<uint64_t, MaxWmmaElems> Elems{};
  const uint64_t Mask = D.bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << D.bits) - 1;
  size_t Tab = 0;
  for (unsigned R = 0; R < D.regs; ++R) {
    const uint64_t *Reg = W.base[O.base[R]] + O.op[R];
    for (unsigned L = 0; L < 32; ++L)
      for (unsigned J = 0; J < D.per; ++J)
        Elems[O.table[Tab++]] = (Reg[L] >> (J * D.bits)) & Mask;
  }
  wmmaLines(X, W, I, D, Elems.data(), true);
}

/// The single `.row` or `.col` modifier; false when there is not exactly one.
bool memoryLayout(const ptx::Instruction &In, bool &ColMajor) {
  const bool Row = In.hasModifier("row"), Col = In.hasModifier("col");
  ColMajor = Col;
  return Row != Col;
}

/// The element types wmma.load and wmma.store take (PTX ISA 9.7.14.5.1-2): a and b matrices
/// .f16 .bf16 .tf32 .s8 .u8 .s4 .u4 .b1 .f64, accumulators .f16 .f32 .s32 .f64. Anything else
/// (a .b64 or .b128) has no fragment layout.
bool wmmaElementType(tensor::Role R, ptx::Type T) {
  using ptx::Type;
  auto In = [T](std::initializer_list<Type> Ts) {
    return std::find(Ts.begin(), Ts.end(), T) != Ts.end();
  };
  if (R == tensor::Role::C)
    return In({Type::F16, Type::F32, Type::S32, Type::F64});
  return In({Type::F16, Type::BF16, Type::TF32, Type::S8, Type::U8, Type::S4, Type::U4, Type::B1,
             Type::F64});
}

/// wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}
/// wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}
bool selectWmmaMemory(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  const bool Store = In.hasModifier("store");
  const tensor::Role Role = In.hasModifier("a")   ? tensor::Role::A
                            : In.hasModifier("b") ? tensor::Role::B
                                                  : tensor::Role::C;
  bool ColMajor = false;
  const ptx::Type T = In.type();
  if ((!Store && !In.hasModifier("load")) || (Store && !In.hasModifier("d")) ||
      !memoryLayout(In, ColMajor) || T == ptx::Type::None || In.operands.size() < 2 ||
      In.operands.size() > 3)
    return Ctx.fail("wmma.load/store form");
  if (!wmmaElementType(Role, T))
    return Ctx.fail("no wmma fragment of ." + std::string(ptx::typeName(T)) + " elements");
  const tensor::Fragment F = wmmaMemoryFragment(Role, In, T);
  if (F.regs == 0 || F.size() > MaxWmmaElems)
    return Ctx.fail("wmma shape");
  const ptx::Operand &Regs = In.operands[Store ? 1 : 0];
  const std::vector<ptx::Operand> One{Regs};
  const auto &List = Regs.kind == ptx::Operand::Kind::Vector ? Regs.elems : One;
  if (List.size() != F.regs)
    return Ctx.fail("the fragment takes " + std::to_string(F.regs) + " registers");
  for (const ptx::Operand &R : List)
    if (!Ctx.wideOperand(I, R, Store ? WideOperands::Value : WideOperands::Dest, ptx::Type::B64))
      return false;
  ptx::Operand Stride; // the default: the leading dimension
  Stride.value = ColMajor ? F.rows : F.cols;
  if (In.operands.size() == 3)
    Stride = In.operands[2];
  if (!Ctx.wideOperand(I, In.operands[Store ? 0 : 1], WideOperands::Address) ||
      !Ctx.wideOperand(I, Stride, WideOperands::Address, ptx::Type::U32))
    return false;
  F.appendTable(Ctx.wideOf(I).table);
  I.aux = F.regs | (ColMajor ? 1u << 8 : 0) |
          uint32_t(spaceOfIr(In.space())) << 16;
  I.aux2 = static_cast<uint32_t>(T);
  I.aux3 = F.rows | F.cols << 8 | F.perReg << 16;
  I.fn = Store ? wmmaStoreOp : wmmaLoadOp;
  return true;
}

/// ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.ss}.b16 r, [p]
/// stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.ss}.b16 [p], r
bool selectLdStMatrix(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  const bool Store = In.opcode == ptx::Opcode::Stmatrix;
  const unsigned N = In.hasModifier("x1") ? 1 : In.hasModifier("x2") ? 2 : In.hasModifier("x4") ? 4 : 0;
  if (N == 0 || !In.hasModifier("m8n8") || In.type() != ptx::Type::B16 ||
      In.operands.size() != 2)
    return Ctx.fail("only the .m8n8 .b16 shape is supported");
  const ptx::Operand &Regs = In.operands[Store ? 1 : 0];
  const std::vector<ptx::Operand> One{Regs};
  const auto &List = Regs.kind == ptx::Operand::Kind::Vector ? Regs.elems : One;
  if (List.size() != N)
    return Ctx.fail(std::to_string(N) + " matrices need " + std::to_string(N) + " registers");
  for (const ptx::Operand &R : List)
    if (!Ctx.wideOperand(I, R, Store ? WideOperands::Value : WideOperands::Dest))
      return false;
  if (!Ctx.wideOperand(I, In.operands[Store ? 0 : 1], WideOperands::Address))
    return false;
  I.aux = N;
  I.aux2 = In.hasModifier("trans") ? 1 : 0;
  I.aux3 = static_cast<uint32_t>(spaceOfIr(In.space()));
  I.fn = Store ? stmatrixOp : ldmatrixOp;
  return true;
}

} // namespace

bool selectMatrixMemory(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  if (In.opcode == ptx::Opcode::Wmma)
    return selectWmmaMemory(Ctx, In, I);
  if (In.opcode == ptx::Opcode::Ldmatrix || In.opcode == ptx::Opcode::Stmatrix)
    return selectLdStMatrix(Ctx, In, I);
  return Ctx.fail("");
}

} // namespace analyzer
