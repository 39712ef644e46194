// Global -> shared copies of the tensor-core GEMM's K stages (MmaGen.h): which elements each
// thread moves, cp.async on sm_80, and the register-staged load + store of sm_75 and sm_70.
#include "kernels/MmaGen.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>
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

/// The im2col operand of a channel-blocked implicit GEMM (GemmShape::Blocked): k = (ci / 16,
/// tap, ci mod 16), so K stage k0 is window tap (k0 / 16) mod taps of the 16 channels from
/// k0 / (16 taps) * 16 on: the stage's window position and bounds are found once, by constant
/// divisions, and thread t gathers the Per = Cols * KStep / Threads channels from (t / Cols) * Per
/// on of column t mod Cols: input elements h * w apart, all inside or all padding. The stages
/// repeat with the window's taps as period (what fast mode's loop extrapolation needs). The window
/// arithmetic is elementAt's, written out again on purpose: shared, it would reorder the IR of one
/// kernel family or the other, and the measured kernels' PTX would change (check-ptx.py).
void forEachBlockedCopy(MmaGen &X, GlobalVariable *Shared, const TileSource &T, Value *Stage,
                        const std::function<void(const CopyItem &)> &Fn) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  const ConvSpec &S = *T.Im2col;
  const uint32_t Cols = T.Cols, Per = Cols * KStep / Threads, Taps = S.kernelH * S.kernelW;
  assert(Per >= 1 && Cols * KStep % Threads == 0 && "every thread gathers one whole run");
  Value *O = B.CreateURem(X.Tid, X.i32(Cols));
  Value *Kk = B.CreateMul(B.CreateUDiv(X.Tid, X.i32(Cols)), X.i32(Per));
  // The column's output pixel and the stage's window tap and channel block (k0 < K exactly when
  // the block lies inside c_in: c_in fills whole stages).
  Value *GC = B.CreateAdd(T.ColStart, O);
  Value *Step = B.CreateUDiv(T.RowStart, X.i32(KStep));
  Value *Tap = B.CreateURem(Step, X.i32(Taps));
  Value *Ci = B.CreateAdd(B.CreateMul(B.CreateUDiv(Step, X.i32(Taps)), X.i32(KStep)), Kk);
  Value *Kh = B.CreateUDiv(Tap, X.i32(S.kernelW)), *Kw = B.CreateURem(Tap, X.i32(S.kernelW));
  Value *Ih =
      B.CreateAdd(B.CreateSub(B.CreateMul(K.udiv(GC, "wo"), X.i32(S.strideH)), K.dim("pad_t")),
                  B.CreateMul(Kh, X.i32(S.dilationH)));
  Value *Iw =
      B.CreateAdd(B.CreateSub(B.CreateMul(K.urem(GC, "wo"), X.i32(S.strideW)), K.dim("pad_l")),
                  B.CreateMul(Kw, X.i32(S.dilationW)));
  Value *Inside =
      B.CreateAnd(B.CreateICmpULT(GC, T.ColLimit), B.CreateICmpULT(T.RowStart, T.RowLimit));
  if (convPadded(S))
    Inside = B.CreateAnd(
        Inside, B.CreateAnd(B.CreateICmpULT(Ih, K.dim("h")), B.CreateICmpULT(Iw, K.dim("w"))));
  // The offset inside the image is i32 (an image has fewer than 2^31 elements).
  Value *Row = B.CreateAdd(B.CreateMul(Ci, K.dim("h")), Ih);
  Value *Idx = B.CreateAdd(T.Base, K.widenSigned(B.CreateAdd(B.CreateMul(Row, K.dim("w")), Iw)));
  Value *Plane = B.CreateMul(K.dimIx("h"), K.dimIx("w"));
  CopyItem C{sharedPtr(X, Shared,
                       B.CreateAdd(B.CreateMul(Stage, X.i32(Cols * X.Pitch)),
                                   B.CreateAdd(B.CreateMul(O, X.i32(X.Pitch)), Kk))),
             T.Role, nullptr, nullptr, Per};
  for (uint32_t J = 0; J < Per; ++J)
    C.Gather.emplace_back(Inside, B.CreateAdd(Idx, B.CreateMul(K.ix(J), Plane)));
  Fn(C);
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
  const TileSource TB = tileB(G, BBase, K0, Col0, KStep, X.Tile.n);
  if (G.Blocked)
    forEachBlockedCopy(X, X.Bs, TB, Stage, Fn);
  else
    forEachOperandCopy(X, X.Bs, TB, false, Stage, Fn);
}

/// With cp.async (f32 data, or four f16 elements: 4, 8 or 16 bytes) src-size 0 fills zeros and
/// nothing is read (the address then stays the buffer's start); single f16 elements are a
/// guarded load and a shared store, f16 gathers loads and one vector store, f32 gathers a
/// 4-byte cp.async per element.
void copyAsync(MmaGen &X, const CopyItem &C) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  if (X.HalfTiles && (C.Vec == 1 || !C.Gather.empty())) { // elements under cp.async's 4 bytes
    deposit(X, C, fetch(X, C));
    return;
  }
  if (!C.Gather.empty()) {
    for (uint32_t E = 0; E < C.Vec; ++E)
      copyAsync(X, CopyItem{B.CreateConstInBoundsGEP1_32(B.getFloatTy(), C.Dst, E), C.Role,
                            C.Gather[E].first, C.Gather[E].second, 1});
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
  if (!C.Gather.empty()) { // branch-free: every lane loads (element 0 where outside), then selects
    Value *V = Constant::getNullValue(Ty);
    for (uint32_t E = 0; E < C.Vec; ++E) {
      const auto &[Inside, Idx] = C.Gather[E];
      Value *Ptr = K.elementPtr(C.Role, B.CreateSelect(Inside, Idx, K.ix(0)));
      Value *Got = B.CreateAlignedLoad(Ty->getScalarType(), Ptr, copyAlign(X, 1));
      V = B.CreateInsertElement(
          V, B.CreateSelect(Inside, Got, Constant::getNullValue(Got->getType())), X.i32(E));
    }
    return V;
  }
  Value *Slot = K.zeroSlot(Ty);
  K.ifThen(C.Inside, [&] {
    B.CreateStore(B.CreateAlignedLoad(Ty, K.elementPtr(C.Role, C.Idx), copyAlign(X, C.Vec)), Slot);
  });
  return B.CreateLoad(Ty, Slot);
}

void deposit(MmaGen &X, const CopyItem &C, Value *V) {
  // Runs of 8 f32 elements are two 16-byte stores: shared rows and runs are 16-byte aligned.
  X.ir().CreateAlignedStore(V, C.Dst, std::min(copyAlign(X, C.Vec), Align(16)));
}

} // namespace corpus::kernels::mma
