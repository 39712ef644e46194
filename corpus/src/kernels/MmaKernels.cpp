// Tensor-core GEMM kernels (mma.sync, PTX ISA 9.7.15): 1x1 and implicit-GEMM convolutions and
// dense layers with tf32, f16 or bf16 operands and f32 accumulators. Four warps per CTA (2 x 2),
// each owning a (TM / 2) x (TN / 2) block of m16n8 accumulator tiles; K advances 16 per stage
// through two shared-memory stages (cp.async for f32 data, ldmatrix for f16 tiles). See
// docs/lowering.md, "Tensor-core GEMM".
#include "kernels/GemmShape.h"
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t Threads = 128; // four warps, 2 x 2 over the CTA tile
constexpr uint32_t KStep = 16;    // K per shared-memory stage
constexpr uint32_t Stages = 2;    // one stage loads while the other is multiplied

/// Everything the pieces of one kernel share.
struct MmaGen {
  KernelBuilder &K;
  const GemmShape &G;
  MathMode Math;
  MmaTile Tile;
  bool HalfTiles; ///< shared tiles hold f16 (f16 data), else f32 (converted per fragment)
  uint32_t Pitch; ///< elements per shared row (k contiguous): KStep + 4 (f32) or + 8 (f16)
  GlobalVariable *As = nullptr, *Bs = nullptr; ///< [Stages][TM][Pitch] and [Stages][TN][Pitch]
  Value *Tid = nullptr, *Lane = nullptr, *Group = nullptr, *InGroup = nullptr;
  Value *WarpRow = nullptr, *WarpCol = nullptr; ///< first row / column of the warp in the tile
  std::vector<Value *> Acc = {}; ///< accumulator slots: [i][j][4] over MI x NI m16n8 tiles

  uint32_t mi() const { return Tile.m / 32; } ///< m16 tiles per warp
  uint32_t ni() const { return Tile.n / 16; } ///< n8 tiles per warp
  IRBuilder<> &ir() { return K.ir(); }
  Value *i32(uint32_t V) { return K.i32(V); }
};

/// Address of shared element Index of Array.
Value *sharedPtr(MmaGen &X, GlobalVariable *Array, Value *Index) {
  return X.ir().CreateInBoundsGEP(Array->getValueType(), Array, {X.i32(0), Index});
}

/// Copies Vec consecutive elements along k (1 or 4) from global index Idx to shared Dst, zeros
/// when !Inside. With cp.async (f32 data, or four f16 elements: 4, 8 or 16 bytes) src-size 0
/// fills zeros and nothing is read (the address then stays the buffer's start); single f16
/// elements are a guarded load and a shared store.
void copyElements(MmaGen &X, Value *Dst, ParamRole Role, Value *Inside, Value *Idx, uint32_t Vec) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  if (X.HalfTiles && Vec == 1) {
    Value *Slot = K.accumulator(0.0f);
    K.ifThen(Inside, [&] { K.set(Slot, K.load(Role, Idx)); });
    B.CreateAlignedStore(B.CreateFPTrunc(K.get(Slot), B.getHalfTy()), Dst, Align(2));
    return;
  }
  const uint32_t Bytes = Vec * (X.HalfTiles ? 2 : 4);
  const Intrinsic::ID Id = Bytes == 16  ? Intrinsic::nvvm_cp_async_ca_shared_global_16_s
                           : Bytes == 8 ? Intrinsic::nvvm_cp_async_ca_shared_global_8_s
                                        : Intrinsic::nvvm_cp_async_ca_shared_global_4_s;
  Value *Src = K.elementPtr(Role, B.CreateSelect(Inside, Idx, K.ix(0)));
  Src = B.CreateAddrSpaceCast(Src, PointerType::get(B.getContext(), 1));
  B.CreateIntrinsic(Id, {}, {Dst, Src, B.CreateSelect(Inside, X.i32(Bytes), X.i32(0))});
}

/// Copies one operand tile of `Outer` rows (m for A, n for B) x KStep into stage `Stage`;
/// consecutive threads walk the axis that is contiguous in global memory. Where that is k and
/// K is a multiple of 4 (every row then starts 4-element aligned and a run of four is either
/// inside K or past it), a thread moves four elements per cp.async: 128-bit copies for f32,
/// 64-bit for f16; else one element at a time.
void loadOperand(MmaGen &X, GlobalVariable *Shared, const TileSource &T, bool OuterIsRow,
                 Value *Stage) {
  IRBuilder<> &B = X.ir();
  const uint32_t Outer = OuterIsRow ? T.Rows : T.Cols;
  const uint64_t KStride = OuterIsRow ? T.ColStride : T.RowStride;
  const bool KContiguous = !T.Im2col && KStride == 1;
  const uint32_t Vec = KContiguous && X.G.K % 4 == 0 ? 4 : 1, Runs = KStep / Vec;
  Value *StageBase = B.CreateMul(Stage, X.i32(Outer * X.Pitch));
  for (uint32_t I = 0; I < Outer * Runs / Threads; ++I) {
    Value *L = B.CreateAdd(X.Tid, X.i32(I * Threads));
    Value *Kk = KContiguous ? B.CreateMul(B.CreateURem(L, X.i32(Runs)), X.i32(Vec))
                            : B.CreateUDiv(L, X.i32(Outer));
    Value *O = KContiguous ? B.CreateUDiv(L, X.i32(Runs)) : B.CreateURem(L, X.i32(Outer));
    Value *GR = B.CreateAdd(T.RowStart, OuterIsRow ? O : Kk);
    Value *GC = B.CreateAdd(T.ColStart, OuterIsRow ? Kk : O);
    auto [Inside, Idx] = elementAt(X.K, T, GR, GC);
    Value *Dst = sharedPtr(X, Shared,
                           B.CreateAdd(StageBase, B.CreateAdd(B.CreateMul(O, X.i32(X.Pitch)), Kk)));
    copyElements(X, Dst, T.Role, Inside, Idx, Vec);
  }
}

/// Loads K tile Kt of A and B into stage Stage.
void loadStage(MmaGen &X, Value *Kt, Value *Stage, Value *Row0, Value *Col0, Value *ABase,
               Value *BBase) {
  const GemmShape &G = X.G;
  Value *K0 = X.ir().CreateMul(Kt, X.i32(KStep));
  loadOperand(X, X.As, {G.ARole, ABase, Row0, G.M, G.AM, K0, G.K, G.AK, X.Tile.m, KStep}, true,
              Stage);
  loadOperand(X, X.Bs, {G.BRole, BBase, K0, G.K, G.BK, Col0, G.N, G.BN, KStep, X.Tile.n, G.Im2col},
              false, Stage);
}

/// Shared element (Row, K) of stage Base (f32 tiles), as f32.
Value *tileAt(MmaGen &X, GlobalVariable *Array, Value *Base, Value *Row, uint32_t Kk) {
  IRBuilder<> &B = X.ir();
  Value *Idx = B.CreateAdd(
      Base, B.CreateAdd(B.CreateMul(Row, X.i32(X.Pitch)), B.CreateAdd(X.InGroup, X.i32(Kk))));
  return B.CreateAlignedLoad(B.getFloatTy(), sharedPtr(X, Array, Idx), Align(4));
}

/// A tf32 operand register: cvt.rna.tf32.f32 of shared element (Row, InGroup + Kk).
Value *tf32At(MmaGen &X, GlobalVariable *Array, Value *Base, Value *Row, uint32_t Kk) {
  return X.ir().CreateIntrinsic(Intrinsic::nvvm_f2tf32_rna, {}, {tileAt(X, Array, Base, Row, Kk)});
}

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

/// ldmatrix.sync.aligned.m8n8.x4.b16 at shared element Index of Array: four 8 x 8 f16 matrices
/// whose row addresses lanes 0-7, 8-15, 16-23, 24-31 give; one <2 x half> per matrix.
std::vector<Value *> ldmatrix4(MmaGen &X, GlobalVariable *Array, Value *Index) {
  IRBuilder<> &B = X.ir();
  // Overloaded on the pointer: llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3.
  Value *Ptr = sharedPtr(X, Array, Index);
  Value *R =
      B.CreateIntrinsic(Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16, {Ptr->getType()}, {Ptr});
  std::vector<Value *> Regs;
  for (unsigned I = 0; I < 4; ++I)
    Regs.push_back(
        B.CreateBitCast(B.CreateExtractValue(R, I), FixedVectorType::get(B.getHalfTy(), 2)));
  return Regs;
}

/// A fragments of m16 tile I for k offset Kk (PTX ISA 9.7.15.4: a0 (g, t), a1 (g + 8, t),
/// a2 (g, t + 4), a3 (g + 8, t + 4) in tf32 units of k; in pairs of k for 16-bit types).
std::vector<Value *> fragmentA(MmaGen &X, Value *Base, uint32_t I, uint32_t Kk) {
  IRBuilder<> &B = X.ir();
  Value *Row = B.CreateAdd(X.WarpRow, X.i32(16 * I));
  if (X.HalfTiles) { // matrix q of the x4: rows 8 (q % 2), k 8 (q / 2)
    Value *Sub = B.CreateAnd(X.Lane, X.i32(7));
    Value *R = B.CreateAdd(Row, B.CreateAdd(Sub, B.CreateAnd(X.Lane, X.i32(8))));
    Value *Col = B.CreateShl(B.CreateLShr(X.Lane, X.i32(4)), X.i32(3));
    return ldmatrix4(X, X.As, B.CreateAdd(Base, B.CreateAdd(B.CreateMul(R, X.i32(X.Pitch)), Col)));
  }
  Value *R0 = B.CreateAdd(Row, X.Group), *R8 = B.CreateAdd(R0, X.i32(8));
  if (X.Math == MathMode::Tf32)
    return {tf32At(X, X.As, Base, R0, Kk), tf32At(X, X.As, Base, R8, Kk),
            tf32At(X, X.As, Base, R0, Kk + 4), tf32At(X, X.As, Base, R8, Kk + 4)};
  return {pairAt(X, X.As, Base, R0, Kk), pairAt(X, X.As, Base, R8, Kk),
          pairAt(X, X.As, Base, R0, Kk + 8), pairAt(X, X.As, Base, R8, Kk + 8)};
}

/// B fragments of n8 tiles J and J + 1 (b0 (k t, n g), b1 (k t + 4, n g); pairs of k for 16-bit
/// types), two registers each.
std::vector<Value *> fragmentsB(MmaGen &X, Value *Base, uint32_t J, uint32_t Kk) {
  IRBuilder<> &B = X.ir();
  Value *N0 = B.CreateAdd(X.WarpCol, X.i32(8 * J));
  if (X.HalfTiles) { // matrix q of the x4: n 8 (q / 2), k 8 (q % 2)
    Value *Sub = B.CreateAnd(X.Lane, X.i32(7));
    Value *N = B.CreateAdd(N0, B.CreateAdd(Sub, B.CreateLShr(B.CreateAnd(X.Lane, X.i32(16)), 1)));
    Value *Col = B.CreateAnd(X.Lane, X.i32(8));
    return ldmatrix4(X, X.Bs, B.CreateAdd(Base, B.CreateAdd(B.CreateMul(N, X.i32(X.Pitch)), Col)));
  }
  std::vector<Value *> Regs;
  for (uint32_t T = 0; T < 2; ++T) {
    Value *N = B.CreateAdd(B.CreateAdd(N0, X.i32(8 * T)), X.Group);
    if (X.Math == MathMode::Tf32) {
      Regs.push_back(tf32At(X, X.Bs, Base, N, Kk));
      Regs.push_back(tf32At(X, X.Bs, Base, N, Kk + 4));
    } else {
      Regs.push_back(pairAt(X, X.Bs, Base, N, Kk));
      Regs.push_back(pairAt(X, X.Bs, Base, N, Kk + 8));
    }
  }
  return Regs;
}

/// One mma.sync into the four accumulators of tile (I, J).
void mma(MmaGen &X, const std::vector<Value *> &A, Value *B0, Value *B1, uint32_t I, uint32_t J) {
  IRBuilder<> &B = X.ir();
  Intrinsic::ID Id = X.Math == MathMode::Tf32  ? Intrinsic::nvvm_mma_m16n8k8_row_col_tf32
                     : X.Math == MathMode::F16 ? Intrinsic::nvvm_mma_m16n8k16_row_col_f32_f32
                                               : Intrinsic::nvvm_mma_m16n8k16_row_col_bf16;
  const size_t Slot = (I * X.ni() + J) * 4;
  std::vector<Value *> Args = {A[0], A[1], A[2], A[3], B0, B1};
  for (size_t C = 0; C < 4; ++C)
    Args.push_back(X.K.get(X.Acc[Slot + C]));
  Value *D = B.CreateIntrinsic(Id, {}, Args);
  for (unsigned C = 0; C < 4; ++C)
    X.K.set(X.Acc[Slot + C], B.CreateExtractValue(D, C));
}

/// The warp's mma.sync over the KStep columns of stage Stage.
void multiplyStage(MmaGen &X, Value *Stage) {
  IRBuilder<> &B = X.ir();
  Value *ABase = B.CreateMul(Stage, X.i32(X.Tile.m * X.Pitch));
  Value *BBase = B.CreateMul(Stage, X.i32(X.Tile.n * X.Pitch));
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

/// The K loop: stage 0 is loaded first; iteration Kt < Tiles - 1 starts the copy of tile Kt + 1
/// into the other stage, waits for tile Kt (cp.async.wait_group 1), multiplies it and
/// synchronises; the last tile is multiplied after the loop. Every iteration does the same work,
/// so fast mode's loop-trip extrapolation can jump over the loop (docs/fast-mode.md).
void buildKLoop(MmaGen &X, Value *Row0, Value *Col0, Value *ABase, Value *BBase) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  const uint32_t Tiles = ceilDiv(X.G.K, KStep);
  // Every tensor-core kernel commits and waits (with f16 data only the vector copies are
  // asynchronous; a wait without outstanding copies returns at once).
  auto Wait = [&](uint32_t Pending) {
    B.CreateIntrinsic(Intrinsic::nvvm_cp_async_wait_group, {}, {X.i32(Pending)});
    K.barrier();
  };
  auto Commit = [&] { B.CreateIntrinsic(Intrinsic::nvvm_cp_async_commit_group, {}, {}); };
  loadStage(X, X.i32(0), X.i32(0), Row0, Col0, ABase, BBase);
  Commit();
  if (Tiles > 1)
    K.forRange(0, Tiles - 1, [&](Value *Kt) {
      Value *Next = B.CreateAdd(Kt, X.i32(1));
      loadStage(X, Next, B.CreateAnd(Next, X.i32(Stages - 1)), Row0, Col0, ABase, BBase);
      Commit();
      Wait(1);
      multiplyStage(X, B.CreateAnd(Kt, X.i32(Stages - 1)));
      K.barrier();
    });
  Wait(0);
  multiplyStage(X, X.i32((Tiles - 1) % Stages));
}

void buildMmaBody(KernelBuilder &K, const GemmShape &G, const Epilogue &E, MathMode Math,
                  MmaTile Tile, bool HalfTiles) {
  assert(G.BatchPerCta == 1 && "the tensor-core GEMM takes one batch per CTA");
  IRBuilder<> &B = K.ir();
  MmaGen X{K, G, Math, Tile, HalfTiles, KStep + (HalfTiles ? 8u : 4u)};
  Type *Elem = HalfTiles ? B.getHalfTy() : B.getFloatTy();
  X.As = K.sharedArrayOf("a_tiles", Elem, Stages * Tile.m * X.Pitch);
  X.Bs = K.sharedArrayOf("b_tiles", Elem, Stages * Tile.n * X.Pitch);
  X.Tid = K.tid(0);
  X.Lane = B.CreateAnd(X.Tid, K.i32(31));
  X.Group = B.CreateLShr(X.Lane, K.i32(2));
  X.InGroup = B.CreateAnd(X.Lane, K.i32(3));
  Value *Warp = B.CreateLShr(X.Tid, K.i32(5));
  X.WarpRow = B.CreateMul(B.CreateLShr(Warp, K.i32(1)), K.i32(Tile.m / 2));
  X.WarpCol = B.CreateMul(B.CreateAnd(Warp, K.i32(1)), K.i32(Tile.n / 2));
  for (uint32_t I = 0; I < X.mi() * X.ni() * 4; ++I)
    X.Acc.push_back(K.accumulator(0.0f));
  Value *Row0 = B.CreateMul(K.ctaid(1), K.i32(Tile.m));
  Value *Col0 = B.CreateMul(K.ctaid(0), K.i32(Tile.n));
  Value *Img = K.widen(K.ctaid(2));
  buildKLoop(X, Row0, Col0, B.CreateMul(Img, K.ix(G.ABatch)), B.CreateMul(Img, K.ix(G.BBatch)));
  // Accumulator c of tile (I, J): row g + 8 (c / 2), column 2 t + c % 2.
  for (uint32_t I = 0; I < X.mi(); ++I)
    for (uint32_t J = 0; J < X.ni(); ++J)
      for (uint32_t C = 0; C < 4; ++C) {
        Value *Row = B.CreateAdd(B.CreateAdd(Row0, X.WarpRow),
                                 B.CreateAdd(X.Group, K.i32(16 * I + 8 * (C / 2))));
        Value *Col = B.CreateAdd(B.CreateAdd(Col0, X.WarpCol),
                                 B.CreateAdd(B.CreateShl(X.InGroup, 1), K.i32(8 * J + C % 2)));
        storeOutput(K, G, E, X.Acc[(I * X.ni() + J) * 4 + C], Row, Col, Img);
      }
  K.finish();
}

/// The launch and kernel of GEMM G with parameters Roles, whose sizes `Count` gives.
KernelLaunch buildMma(Module &M, const std::string &Name, const char *Strategy, DType T,
                      MathMode Math, const GemmShape &G, const Epilogue &E,
                      const std::vector<ParamRole> &Roles, bool Wide,
                      const std::function<uint64_t(ParamRole)> &Count) {
  const MmaTile Tile = chooseMmaTile(G.M, G.N);
  KernelLaunch L =
      makeLaunch(Name, Strategy, T, {ceilDiv(G.N, Tile.n), ceilDiv(G.M, Tile.m), G.Batch},
                 {Threads, 1, 1}, Roles, Count);
  L.math = Math;
  KernelBuilder K(M, Name, Roles, T, L, Wide);
  buildMmaBody(K, G, E, Math, Tile, T == DType::F16);
  return L;
}

} // namespace

MmaTile chooseMmaTile(uint32_t M, uint32_t N) {
  if (M >= 128 && N >= 64)
    return {128, 64};
  if (M <= 32 || N <= 32)
    return {32, 32};
  return {64, 64};
}

KernelLaunch buildMmaConv(Module &M, const ConvSpec &S, const std::string &Name,
                          ConvStrategy Resolved) {
  const bool Pointwise = Resolved == ConvStrategy::Gemm;
  GemmShape G = Pointwise ? convGemmShape(S) : implicitGemmShape(S);
  return buildMma(M, Name, Pointwise ? "conv_gemm_mma" : "conv_implicit_gemm_mma", S.dtype, S.math,
                  G, S.epilogue, gemmRoles(S.epilogue), wideIndex(S),
                  [&](ParamRole R) { return convParamElements(S, R); });
}

KernelLaunch buildMmaDense(Module &M, const GemmSpec &S, const std::string &Name) {
  return buildMma(M, Name, "dense_gemm_mma", S.dtype, S.math, denseGemmShape(S), S.epilogue,
                  gemmRoles(S.epilogue), wideIndex(S),
                  [&](ParamRole R) { return denseParamElements(S, R); });
}

KernelLaunch buildMmaBatchMatMul(Module &M, const BatchMatMulSpec &S, const std::string &Name) {
  return buildMma(M, Name, "bmm_gemm_mma", S.dtype, S.math, bmmGemmShape(S), Epilogue(),
                  {ParamRole::Input, ParamRole::Input2, ParamRole::Output}, wideIndex(S),
                  [&](ParamRole R) { return bmmParamElements(S, R); });
}

} // namespace corpus::kernels
