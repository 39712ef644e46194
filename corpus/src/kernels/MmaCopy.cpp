// Global -> shared copies of the tensor-core GEMM's K stages (MmaGen.h): which elements each
// thread moves, cp.async on sm_80, and the register-staged load + store of sm_75 and sm_70.
#include "kernels/MmaGen.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <cassert>

using namespace llvm;

namespace corpus::kernels::mma {

namespace {

/// Calls Fn for each copy of one operand tile of `Outer` rows (m for A, n for B) x KStep into
/// stage `Stage`; consecutive threads walk the axis that is contiguous in global memory. Where
/// that is k and K is a multiple of 4 (every row then starts 4-element aligned and a run of four
/// is either inside K or past it), a thread moves four elements at once: 128 bits for f32, 64 for
/// f16; else one element at a time.
void forEachOperandCopy(MmaGen &X, GlobalVariable *Shared, const TileSource &T, bool OuterIsRow,
                        Value *Stage, const std::function<void(const CopyItem &)> &Fn) {
  IRBuilder<> &B = X.ir();
  const uint32_t Outer = OuterIsRow ? T.Rows : T.Cols;
  const bool KContiguous = !T.Im2col && (OuterIsRow ? T.UnitColStride : T.UnitRowStride);
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
    Fn(CopyItem{Dst, T.Role, Inside, Idx, Vec});
  }
}

/// The type one copy moves: an element of the shared tile, or a vector of Vec of them.
Type *copyType(MmaGen &X, uint32_t Vec) {
  Type *Elem = X.HalfTiles ? X.ir().getHalfTy() : X.ir().getFloatTy();
  return Vec == 1 ? Elem : FixedVectorType::get(Elem, Vec);
}

Align copyAlign(MmaGen &X, uint32_t Vec) { return Align(Vec * (X.HalfTiles ? 2 : 4)); }

} // namespace

void forEachCopy(MmaGen &X, Value *Kt, Value *Stage, Value *Row0, Value *Col0, Value *ABase,
                 Value *BBase, const std::function<void(const CopyItem &)> &Fn) {
  const GemmShape &G = X.G;
  Value *K0 = X.ir().CreateMul(Kt, X.i32(KStep));
  forEachOperandCopy(X, X.As, tileA(G, ABase, Row0, K0, X.Tile.m, KStep), true, Stage, Fn);
  forEachOperandCopy(X, X.Bs, tileB(G, BBase, K0, Col0, KStep, X.Tile.n), false, Stage, Fn);
}

/// With cp.async (f32 data, or four f16 elements: 4, 8 or 16 bytes) src-size 0 fills zeros and
/// nothing is read (the address then stays the buffer's start); single f16 elements are a
/// guarded load and a shared store.
void copyAsync(MmaGen &X, const CopyItem &C) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  if (X.HalfTiles && C.Vec == 1) {
    deposit(X, C, fetch(X, C));
    return;
  }
  const uint32_t Bytes = C.Vec * (X.HalfTiles ? 2 : 4);
  const Intrinsic::ID Id = Bytes == 16  ? Intrinsic::nvvm_cp_async_ca_shared_global_16_s
                           : Bytes == 8 ? Intrinsic::nvvm_cp_async_ca_shared_global_8_s
                                        : Intrinsic::nvvm_cp_async_ca_shared_global_4_s;
  Value *Src = K.elementPtr(C.Role, B.CreateSelect(C.Inside, C.Idx, K.ix(0)));
  Src = B.CreateAddrSpaceCast(Src, PointerType::get(B.getContext(), 1));
  B.CreateIntrinsic(Id, {}, {C.Dst, Src, B.CreateSelect(C.Inside, X.i32(Bytes), X.i32(0))});
}

Value *fetch(MmaGen &X, const CopyItem &C) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  Type *Ty = copyType(X, C.Vec);
  assert(K.storageType() == Ty->getScalarType() && "shared tiles hold the data's type");
  Value *Slot = K.zeroSlot(Ty);
  K.ifThen(C.Inside, [&] {
    B.CreateStore(B.CreateAlignedLoad(Ty, K.elementPtr(C.Role, C.Idx), copyAlign(X, C.Vec)), Slot);
  });
  return B.CreateLoad(Ty, Slot);
}

void deposit(MmaGen &X, const CopyItem &C, Value *V) {
  X.ir().CreateAlignedStore(V, C.Dst, copyAlign(X, C.Vec));
}

} // namespace corpus::kernels::mma
