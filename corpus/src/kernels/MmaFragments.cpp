// Fragments and mma.sync of the tensor-core GEMM (MmaGen.h), per architecture (PTX ISA
// 9.7.15.4). sm_80: m16n8k8 tf32 or m16n8k16 f16/bf16; sm_75: the same f16 fragments as two
// m16n8k8 each; f16 tiles are read with ldmatrix on both, f32 tiles for tf32 too. sm_70: m8n8k4,
// whose four quad pairs cover a 16 x 16 block, as CUTLASS's Volta warp tiles compose them; no
// ldmatrix there.
#include "kernels/MmaGen.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

using namespace llvm;

namespace corpus::kernels::mma {

namespace {

/// A 16-bit pair register from f32 tiles: elements (Row, 2 InGroup + Kk) and the next k, rounded
/// to f16 (<2 x half>) or bf16 (packed in an i32, as the bf16 mma takes it).
Value *pairAt(MmaGen &X, GlobalVariable *Array, Value *Base, Value *Row, uint32_t Kk) {
  IRBuilder<> &B = X.ir();
  Type *Half = X.Math == MathMode::Bf16 ? B.getBFloatTy() : B.getHalfTy();
  Value *K0 = B.CreateAdd(B.CreateShl(X.InGroup, 1), X.i32(Kk));
  Value *Idx = B.CreateAdd(Base, B.CreateAdd(B.CreateMul(Row, X.i32(X.Pitch)), K0));
  Value *Pair = PoisonValue::get(FixedVectorType::get(Half, 2));
  for (uint32_t E = 0; E < 2; ++E) {
    Value *P = sharedPtr(X, Array, B.CreateAdd(Idx, X.i32(E)));
    Value *V = B.CreateFPTrunc(B.CreateAlignedLoad(B.getFloatTy(), P, Align(4)), Half);
    Pair = B.CreateInsertElement(Pair, V, X.i32(E));
  }
  return X.Math == MathMode::Bf16 ? B.CreateBitCast(Pair, B.getInt32Ty()) : Pair;
}

/// ldmatrix.sync.aligned.m8n8.x4.b16 at shared element Index of Array: four 8 x 8 matrices of
/// 16-bit elements (8 rows of 16 bytes) whose row addresses lanes 0-7, 8-15, 16-23, 24-31 give;
/// one 32-bit register per matrix, lane l holding row l / 4, bytes 4 (l % 4) ... + 3. f16 tiles:
/// a <2 x half> pair. f32 tiles: element (l / 4, l % 4) of an 8 x 4 block, which is where the
/// tf32 m16n8k8 fragments want it (a0: rows g, k t; b0: n g, k t). It is rounded to tf32 as
/// CUTLASS's round_half_ulp_truncate does: adding half of the 13 dropped bits' weight to the bits
/// (the mma ignores those 13 bits) rounds to nearest, ties away, as cvt.rna.tf32.f32 would,
/// in one integer add instead of a move to an f32 register and a cvt.
std::vector<Value *> ldmatrix4(MmaGen &X, GlobalVariable *Array, Value *Index) {
  IRBuilder<> &B = X.ir();
  // Overloaded on the pointer: llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3.
  Value *Ptr = sharedPtr(X, Array, Index);
  Value *R =
      B.CreateIntrinsic(Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16, {Ptr->getType()}, {Ptr});
  std::vector<Value *> Regs;
  for (unsigned I = 0; I < 4; ++I) {
    Value *V = B.CreateExtractValue(R, I);
    Regs.push_back(X.HalfTiles ? B.CreateBitCast(V, FixedVectorType::get(B.getHalfTy(), 2))
                               : B.CreateAdd(V, X.i32(0x1000)));
  }
  return Regs;
}

/// Whether fragments come from ldmatrix: f16 tiles, and tf32 from f32 tiles (16 bytes of a row
/// are 8 halves or 4 floats). bf16 and f16 math on f32 tiles round pairs as they load them.
bool ldmatrixTiles(const MmaGen &X) { return X.HalfTiles || X.Math == MathMode::Tf32; }

/// A fragments of m16 tile I for k offset Kk (a0 (g, t), a1 (g + 8, t), a2 (g, t + 4),
/// a3 (g + 8, t + 4) in tf32 units of k; in pairs of k for 16-bit types).
std::vector<Value *> fragmentA(MmaGen &X, Value *Base, uint32_t I, uint32_t Kk) {
  IRBuilder<> &B = X.ir();
  Value *Row = B.CreateAdd(X.WarpRow, X.i32(16 * I));
  if (ldmatrixTiles(X)) { // matrix q of the x4: rows 8 (q % 2), 16 bytes of k at 16 (q / 2)
    Value *Sub = B.CreateAnd(X.Lane, X.i32(7));
    Value *R = B.CreateAdd(Row, B.CreateAdd(Sub, B.CreateAnd(X.Lane, X.i32(8))));
    Value *Col = B.CreateShl(B.CreateLShr(X.Lane, X.i32(4)), X.i32(X.HalfTiles ? 3 : 2));
    Col = B.CreateAdd(Col, X.i32(Kk));
    return ldmatrix4(X, X.As, B.CreateAdd(Base, B.CreateAdd(B.CreateMul(R, X.i32(X.Pitch)), Col)));
  }
  Value *R0 = B.CreateAdd(Row, X.Group), *R8 = B.CreateAdd(R0, X.i32(8));
  return {pairAt(X, X.As, Base, R0, Kk), pairAt(X, X.As, Base, R8, Kk),
          pairAt(X, X.As, Base, R0, Kk + 8), pairAt(X, X.As, Base, R8, Kk + 8)};
}

/// B fragments of n8 tiles J and J + 1 (b0 (k t, n g), b1 (k t + 4, n g); pairs of k for 16-bit
/// types), two registers each.
std::vector<Value *> fragmentsB(MmaGen &X, Value *Base, uint32_t J, uint32_t Kk) {
  IRBuilder<> &B = X.ir();
  Value *N0 = B.CreateAdd(X.WarpCol, X.i32(8 * J));
  if (ldmatrixTiles(X)) { // matrix q of the x4: n 8 (q / 2), 16 bytes of k at 16 (q % 2)
    Value *Sub = B.CreateAnd(X.Lane, X.i32(7));
    Value *N = B.CreateAdd(N0, B.CreateAdd(Sub, B.CreateLShr(B.CreateAnd(X.Lane, X.i32(16)), 1)));
    Value *Col = X.HalfTiles
                     ? B.CreateAnd(X.Lane, X.i32(8))
                     : B.CreateAdd(B.CreateLShr(B.CreateAnd(X.Lane, X.i32(8)), 1), X.i32(Kk));
    return ldmatrix4(X, X.Bs, B.CreateAdd(Base, B.CreateAdd(B.CreateMul(N, X.i32(X.Pitch)), Col)));
  }
  std::vector<Value *> Regs;
  for (uint32_t T = 0; T < 2; ++T) {
    Value *N = B.CreateAdd(B.CreateAdd(N0, X.i32(8 * T)), X.Group);
    Regs.push_back(pairAt(X, X.Bs, Base, N, Kk));
    Regs.push_back(pairAt(X, X.Bs, Base, N, Kk + 8));
  }
  return Regs;
}

/// One mma.sync intrinsic Id with operands Ops followed by the accumulators Slots, in place.
void mmaInto(MmaGen &X, Intrinsic::ID Id, std::vector<Value *> Ops,
             const std::vector<Value *> &Slots) {
  IRBuilder<> &B = X.ir();
  for (Value *S : Slots)
    Ops.push_back(X.K.get(S));
  Value *D = B.CreateIntrinsic(Id, {}, Ops);
  for (unsigned C = 0; C < Slots.size(); ++C)
    X.K.set(Slots[C], B.CreateExtractValue(D, C));
}

/// The mma of m16n8 tile (I, J) over one fragment's k: m16n8k8 tf32; m16n8k16 f16/bf16 on sm_80,
/// two m16n8k8 f16 on sm_75 (a0 a1 with b0, then a2 a3 with b1: the same registers).
void mma(MmaGen &X, const std::vector<Value *> &A, Value *B0, Value *B1, uint32_t I, uint32_t J) {
  const std::vector<Value *> Slots = {X.acc(I, J, 0), X.acc(I, J, 1), X.acc(I, J, 2),
                                      X.acc(I, J, 3)};
  if (X.Arch == MmaArch::Sm75) {
    mmaInto(X, Intrinsic::nvvm_mma_m16n8k8_row_col_f32_f32, {A[0], A[1], B0}, Slots);
    mmaInto(X, Intrinsic::nvvm_mma_m16n8k8_row_col_f32_f32, {A[2], A[3], B1}, Slots);
    return;
  }
  Intrinsic::ID Id = X.Math == MathMode::Tf32  ? Intrinsic::nvvm_mma_m16n8k8_row_col_tf32
                     : X.Math == MathMode::F16 ? Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32
                                               : Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
  mmaInto(X, Id, {A[0], A[1], A[2], A[3], B0, B1}, Slots);
}

/// sm_80 and sm_75: fragments per k16 (k8 for tf32), then every m16n8 tile's mma.
void multiplyM16n8(MmaGen &X, Value *ABase, Value *BBase) {
  const uint32_t KPerMma = X.Math == MathMode::Tf32 ? 8 : 16;
  for (uint32_t Kk = 0; Kk < KStep; Kk += KPerMma) {
    std::vector<std::vector<Value *>> A, Bf;
    for (uint32_t I = 0; I < X.mi(); ++I)
      A.push_back(fragmentA(X, ABase, I, Kk));
    for (uint32_t J = 0; J < X.ni(); J += 2)
      Bf.push_back(fragmentsB(X, BBase, J, Kk));
    for (uint32_t I = 0; I < X.mi(); ++I)
      for (uint32_t J = 0; J < X.ni(); ++J) {
        const std::vector<Value *> &P = Bf[J / 2];
        mma(X, A[I], P[(J % 2) * 2], P[(J % 2) * 2 + 1], I, J);
      }
  }
}

/// The m8n8k4 lane roles (PTX ISA 9.7.15.4.1): quad pair (lane % 16) / 4 computes one 8 x 8
/// product, placed at rows 8 (pair % 2) and columns 8 (pair / 2) of a 16 x 16 block; High
/// (lanes 16-31) is the second half of the pair's rows (A, C) or columns (B).
struct QuadPair {
  Value *RowOff, *ColOff; ///< 8 (pair % 2) + High, 8 (pair / 2) + High
  Value *Row, *Col;       ///< 8 (pair % 2), 8 (pair / 2), High
  Value *High;
};

QuadPair quadPair(MmaGen &X) {
  IRBuilder<> &B = X.ir();
  Value *Pair = B.CreateAnd(B.CreateLShr(X.Lane, X.i32(2)), X.i32(3));
  Value *High = B.CreateShl(B.CreateLShr(X.Lane, X.i32(4)), X.i32(2));
  Value *Row = B.CreateShl(B.CreateAnd(Pair, X.i32(1)), X.i32(3));
  Value *Col = B.CreateShl(B.CreateLShr(Pair, X.i32(1)), X.i32(3));
  return {B.CreateAdd(Row, High), B.CreateAdd(Col, High), Row, Col, High};
}

/// An m8n8k4 operand from row Row of a k-contiguous tile (A .row: a row of A; B .col: a column
/// of B): elements k = Kk ... Kk + 3 as two <2 x half> registers (one 8-byte load of f16 tiles;
/// f32 tiles are rounded to f16 as they are loaded).
std::pair<Value *, Value *> quadAt(MmaGen &X, GlobalVariable *Array, Value *Base, Value *Row,
                                   uint32_t Kk) {
  IRBuilder<> &B = X.ir();
  Value *Idx = B.CreateAdd(Base, B.CreateAdd(B.CreateMul(Row, X.i32(X.Pitch)), X.i32(Kk)));
  Type *Elem = X.HalfTiles ? B.getHalfTy() : B.getFloatTy();
  Value *V = B.CreateAlignedLoad(FixedVectorType::get(Elem, 4), sharedPtr(X, Array, Idx),
                                 Align(X.HalfTiles ? 8 : 16));
  if (!X.HalfTiles)
    V = B.CreateFPTrunc(V, FixedVectorType::get(B.getHalfTy(), 4));
  return {B.CreateShuffleVector(V, {0, 1}), B.CreateShuffleVector(V, {2, 3})};
}

/// sm_70: per k4, the A rows and B columns of every 16 x 16 block, then one m8n8k4 per block.
void multiplyM8n8k4(MmaGen &X, Value *ABase, Value *BBase) {
  IRBuilder<> &B = X.ir();
  QuadPair Q = quadPair(X);
  Value *T = X.InGroup;
  for (uint32_t Kk = 0; Kk < KStep; Kk += 4) {
    std::vector<std::pair<Value *, Value *>> A, Bf;
    for (uint32_t I = 0; I < X.mi(); ++I)
      A.push_back(
          quadAt(X, X.As, ABase,
                 B.CreateAdd(B.CreateAdd(X.WarpRow, X.i32(16 * I)), B.CreateAdd(Q.RowOff, T)), Kk));
    for (uint32_t J = 0; J < X.ni(); ++J)
      Bf.push_back(
          quadAt(X, X.Bs, BBase,
                 B.CreateAdd(B.CreateAdd(X.WarpCol, X.i32(16 * J)), B.CreateAdd(Q.ColOff, T)), Kk));
    for (uint32_t I = 0; I < X.mi(); ++I)
      for (uint32_t J = 0; J < X.ni(); ++J) {
        std::vector<Value *> Slots;
        for (uint32_t C = 0; C < 8; ++C)
          Slots.push_back(X.acc(I, J, C));
        mmaInto(X, Intrinsic::nvvm_mma_m8n8k4_row_col_f32_f32,
                {A[I].first, A[I].second, Bf[J].first, Bf[J].second}, Slots);
      }
  }
}

} // namespace

void multiplyStage(MmaGen &X, Value *Stage) {
  IRBuilder<> &B = X.ir();
  Value *ABase = B.CreateMul(Stage, X.i32(X.Tile.m * X.Pitch));
  Value *BBase = B.CreateMul(Stage, X.i32(X.Tile.n * X.Pitch));
  if (X.Arch == MmaArch::Sm70)
    multiplyM8n8k4(X, ABase, BBase);
  else
    multiplyM16n8(X, ABase, BBase);
}

std::pair<Value *, Value *> accumulatorAt(MmaGen &X, uint32_t I, uint32_t J, uint32_t C) {
  IRBuilder<> &B = X.ir();
  Value *T = X.InGroup;
  if (X.Arch != MmaArch::Sm70) // m16n8: row g + 8 (c / 2), column 2 t + c % 2
    return {B.CreateAdd(X.Group, X.i32(16 * I + 8 * (C / 2))),
            B.CreateAdd(B.CreateShl(T, 1), X.i32(8 * J + C % 2))};
  // m8n8k4 .f32 accumulators: row (t % 2) + (c & 2) + High, column (c & 4) + (t & 2) + (c & 1)
  // of the quad pair's 8 x 8 product.
  QuadPair Q = quadPair(X);
  Value *Row = B.CreateAdd(B.CreateAdd(Q.Row, Q.High), B.CreateAnd(T, X.i32(1)));
  Value *Col = B.CreateAdd(Q.Col, B.CreateAnd(T, X.i32(2)));
  return {B.CreateAdd(Row, X.i32(16 * I + (C & 2))),
          B.CreateAdd(Col, X.i32(16 * J + (C & 4) + (C & 1)))};
}

} // namespace corpus::kernels::mma
