// The int8 tensor-core GEMM (Int8Gemm.h): an implicit GEMM over NHWC int8 data with s8 mma.sync
// (PTX ISA 9.7.15.5): m16n8k32 on sm_80 and later, four m8n8k16 on sm_75, int32 accumulators.
// Four warps per CTA (2 x 2) over a TM x TN tile of output pixels x output channels; K advances
// 32 bytes per shared-memory stage: three stages filled by cp.async on sm_80, two staged through
// registers on sm_75, as the f16 tensor-core GEMM (MmaKernels.cpp). Both operands are k-contiguous
// in global memory (NHWC activations, OHWI filters), so every copy is 16 (or 8) bytes of one
// pixel's channels. See docs/lowering.md, "Int8 engines".
#include "kernels/Int8Gemm.h"
#include "kernels/Specs.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <cassert>
#include <functional>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t Threads = 128; // four warps, 2 x 2 over the CTA tile
constexpr uint32_t KStep = 32;    // bytes of k per stage: one m16n8k32
constexpr uint32_t Pitch = 48;    // bytes per shared row: 16-byte aligned, no bank conflicts

struct Gen {
  KernelBuilder &K;
  const Int8Gemm &G;
  MmaArch Arch;
  MmaTile Tile;
  GlobalVariable *As = nullptr, *Bs = nullptr; ///< [stages][TM][Pitch], [stages][TN][Pitch] bytes
  Value *Tid = nullptr, *Lane = nullptr, *Group = nullptr, *InGroup = nullptr;
  Value *WarpRow = nullptr, *WarpCol = nullptr;
  std::vector<Value *> Acc = {}; ///< i32 slots: [mi][ni][4]

  uint32_t mi() const { return Tile.m / 32; }
  uint32_t ni() const { return Tile.n / 16; }
  uint32_t stages() const { return Arch == MmaArch::Sm80 ? 3 : 2; }
  Value *&acc(uint32_t I, uint32_t J, uint32_t C) { return Acc[(I * ni() + J) * 4 + C]; }
  IRBuilder<> &ir() { return K.ir(); }
  Value *i32(uint32_t V) { return K.i32(V); }
};

/// Bytes one copy moves: 16, or 8 for a 32-row tile (whose 64 chunks of 16 would idle half the
/// CTA).
uint32_t vecOf(uint32_t Rows) { return Rows * KStep / 16 >= Threads ? 16 : 8; }

/// A row of an operand tile that one thread copies in every stage, and what stays fixed across
/// stages: the shared offset in a stage, the k offset in a stage, and for the activations the
/// window's origin.
struct RowCopy {
  ParamRole Role;
  uint32_t Vec;
  Value *SharedOff, *Kc, *Row, *RowOk;
  PixelOrigin Origin = {}; ///< the activations of a windowed convolution
};

/// The rows thread Tid copies of a tile of `Rows` rows starting at global row Row0 (Limit: M or
/// N); for the activations (A) of a windowed convolution, each row's output pixel decomposed.
std::vector<RowCopy> rowCopies(Gen &X, ParamRole Role, uint32_t Rows, Value *Row0, Value *Limit) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  const uint32_t Vec = vecOf(Rows), Runs = KStep / Vec;
  std::vector<RowCopy> Out;
  for (uint32_t I = 0; I < Rows * Runs / Threads; ++I) {
    Value *L = B.CreateAdd(X.Tid, X.i32(I * Threads));
    Value *R = B.CreateUDiv(L, X.i32(Runs));
    Value *Kc = B.CreateMul(B.CreateURem(L, X.i32(Runs)), X.i32(Vec));
    Value *Row = B.CreateAdd(Row0, R);
    RowCopy C{Role, Vec, B.CreateAdd(B.CreateMul(R, X.i32(Pitch)), Kc),
              Kc,   Row, B.CreateICmpULT(Row, Limit)};
    if (Role == ParamRole::Input && X.G.Window)
      C.Origin = pixelOrigin(K, *X.G.Conv, Row);
    Out.push_back(C);
  }
  return Out;
}

/// Whether the chunk of row copy C at byte k = K0 + C.Kc exists, and its global index.
std::pair<Value *, Value *> chunkAt(Gen &X, const RowCopy &C, Value *K0) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  Value *Kk = B.CreateAdd(K0, C.Kc);
  Value *Inside = B.CreateAnd(C.RowOk, B.CreateICmpULT(Kk, K.dim("k")));
  if (C.Role == ParamRole::Weight)
    return {Inside, B.CreateAdd(B.CreateMul(K.widen(C.Row), K.dimIx("k")), K.widen(Kk))};
  if (!X.G.Window)
    return {Inside, B.CreateAdd(B.CreateMul(K.widen(C.Row), K.dimIx("c_pad")), K.widen(Kk))};
  const ConvSpec &S = *X.G.Conv;
  Value *Tap = S.kernelH * S.kernelW == 1 ? X.i32(0) : K.udiv(Kk, "c_pad");
  Value *Ci = B.CreateSub(Kk, B.CreateMul(Tap, K.dim("c_pad")));
  Value *Kh = B.CreateUDiv(Tap, X.i32(S.kernelW)), *Kw = B.CreateURem(Tap, X.i32(S.kernelW));
  Value *Ih = B.CreateAdd(C.Origin.IhBase, B.CreateMul(Kh, X.i32(S.dilationH)));
  Value *Iw = B.CreateAdd(C.Origin.IwBase, B.CreateMul(Kw, X.i32(S.dilationW)));
  if (convPadded(S)) // unsigned compares reject negative and too-large coordinates
    Inside = B.CreateAnd(
        Inside, B.CreateAnd(B.CreateICmpULT(Ih, K.dim("h")), B.CreateICmpULT(Iw, K.dim("w"))));
  Value *Pos = B.CreateAdd(B.CreateMul(Ih, K.dim("w")), Iw);
  Value *Off = B.CreateAdd(B.CreateMul(Pos, K.dim("c_pad")), Ci);
  return {Inside, B.CreateAdd(C.Origin.ImgBase, K.widenSigned(Off))};
}

/// Calls Fn(copy, shared destination, inside, index) for the thread's copies of K tile Kt into
/// stage Stage, A's then B's.
using CopyFn = std::function<void(const RowCopy &, Value *, Value *, Value *)>;
void forEachChunk(Gen &X, const std::vector<RowCopy> &Copies, Value *Kt, Value *Stage,
                  const CopyFn &Fn) {
  IRBuilder<> &B = X.ir();
  Value *K0 = B.CreateMul(Kt, X.i32(KStep));
  for (const RowCopy &C : Copies) {
    GlobalVariable *Tiles = C.Role == ParamRole::Weight ? X.Bs : X.As;
    const uint32_t Rows = C.Role == ParamRole::Weight ? X.Tile.n : X.Tile.m;
    Value *Off = B.CreateAdd(B.CreateMul(Stage, X.i32(Rows * Pitch)), C.SharedOff);
    Value *Dst = B.CreateInBoundsGEP(Tiles->getValueType(), Tiles, {X.i32(0), Off});
    auto [Inside, Idx] = chunkAt(X, C, K0);
    Fn(C, Dst, Inside, Idx);
  }
}

/// sm_80: cp.async of C.Vec bytes, zeros (src-size 0, nothing read) where outside.
void copyAsync(Gen &X, const RowCopy &C, Value *Dst, Value *Inside, Value *Idx) {
  IRBuilder<> &B = X.ir();
  const Intrinsic::ID Id = C.Vec == 16 ? Intrinsic::nvvm_cp_async_ca_shared_global_16_s
                                       : Intrinsic::nvvm_cp_async_ca_shared_global_8_s;
  Value *Src = X.K.elementPtr(C.Role, B.CreateSelect(Inside, Idx, X.K.ix(0)));
  Src = B.CreateAddrSpaceCast(Src, PointerType::get(B.getContext(), 1));
  B.CreateIntrinsic(Id, {}, {Dst, Src, B.CreateSelect(Inside, X.i32(C.Vec), X.i32(0))});
}

/// sm_75: the chunk loaded into registers (a guarded ld.global.nc.v4/v2.u32, zeros outside).
Value *fetch(Gen &X, const RowCopy &C, Value *Inside, Value *Idx) {
  IRBuilder<> &B = X.ir();
  Type *Ty = FixedVectorType::get(B.getInt32Ty(), C.Vec / 4);
  Value *Slot = X.K.zeroSlot(Ty);
  X.K.ifThen(Inside, [&] {
    B.CreateStore(B.CreateAlignedLoad(Ty, X.K.elementPtr(C.Role, Idx), Align(C.Vec)), Slot);
  });
  return B.CreateLoad(Ty, Slot);
}

/// ldmatrix.sync.aligned.m8n8.x4.shared.b16 at byte Index of Tiles: four 8 x 16-byte matrices;
/// lane l gets row l / 4, bytes 4 (l % 4) ... + 3 of each, four s8 of one row, which is where
/// the s8 fragments want them (PTX ISA 9.7.15.5.1: a0..a3 of m16n8k32 A, b0..b3 of B).
std::vector<Value *> ldmatrix4(Gen &X, GlobalVariable *Tiles, Value *Index) {
  IRBuilder<> &B = X.ir();
  Value *Ptr = B.CreateInBoundsGEP(Tiles->getValueType(), Tiles, {X.i32(0), Index});
  Value *R =
      B.CreateIntrinsic(Intrinsic::nvvm_ldmatrix_sync_aligned_m8n8_x4_b16, {Ptr->getType()}, {Ptr});
  std::vector<Value *> Regs;
  for (unsigned I = 0; I < 4; ++I)
    Regs.push_back(B.CreateExtractValue(R, I));
  return Regs;
}

/// One mma intrinsic with operands Ops then the accumulators Slots, in place.
void mmaInto(Gen &X, Intrinsic::ID Id, std::vector<Value *> Ops,
             const std::vector<Value *> &Slots) {
  IRBuilder<> &B = X.ir();
  for (Value *S : Slots)
    Ops.push_back(B.CreateLoad(B.getInt32Ty(), S));
  Value *D = B.CreateIntrinsic(Id, {}, Ops);
  for (unsigned C = 0; C < Slots.size(); ++C)
    B.CreateStore(B.CreateExtractValue(D, C), Slots[C]);
}

/// The m16n8k32 of tile (I, J): one mma on sm_80; on sm_75 four m8n8k16 on the same registers
/// (a0 with b0 and a1 with b0 into rows g and g + 8 of the first k16, a2 and a3 with b1).
void mma(Gen &X, const std::vector<Value *> &A, Value *B0, Value *B1, uint32_t I, uint32_t J) {
  const std::vector<Value *> Top = {X.acc(I, J, 0), X.acc(I, J, 1)};
  const std::vector<Value *> Bottom = {X.acc(I, J, 2), X.acc(I, J, 3)};
  if (X.Arch == MmaArch::Sm75) {
    const Intrinsic::ID Id = Intrinsic::nvvm_mma_m8n8k16_row_col_s8;
    mmaInto(X, Id, {A[0], B0}, Top);
    mmaInto(X, Id, {A[1], B0}, Bottom);
    mmaInto(X, Id, {A[2], B1}, Top);
    mmaInto(X, Id, {A[3], B1}, Bottom);
    return;
  }
  mmaInto(X, Intrinsic::nvvm_mma_m16n8k32_row_col_s8, {A[0], A[1], A[2], A[3], B0, B1},
          {Top[0], Top[1], Bottom[0], Bottom[1]});
}

/// The warp's fragments of stage Stage (ldmatrix: A by m16 tile, B by pairs of n8 tiles) and
/// every tile's mma.
void multiplyStage(Gen &X, Value *Stage) {
  IRBuilder<> &B = X.ir();
  Value *ABase = B.CreateMul(Stage, X.i32(X.Tile.m * Pitch));
  Value *BBase = B.CreateMul(Stage, X.i32(X.Tile.n * Pitch));
  Value *Sub = B.CreateAnd(X.Lane, X.i32(7));
  std::vector<std::vector<Value *>> A, Bf;
  for (uint32_t I = 0; I < X.mi(); ++I) { // matrix q: rows 8 (q % 2), bytes 16 (q / 2)
    Value *Row = B.CreateAdd(B.CreateAdd(X.WarpRow, X.i32(16 * I)),
                             B.CreateAdd(Sub, B.CreateAnd(X.Lane, X.i32(8))));
    Value *Col = B.CreateShl(B.CreateLShr(X.Lane, X.i32(4)), X.i32(4));
    A.push_back(
        ldmatrix4(X, X.As, B.CreateAdd(ABase, B.CreateAdd(B.CreateMul(Row, X.i32(Pitch)), Col))));
  }
  for (uint32_t J = 0; J < X.ni(); J += 2) { // matrix q: n 8 (q / 2), bytes 16 (q % 2)
    Value *N = B.CreateAdd(B.CreateAdd(X.WarpCol, X.i32(8 * J)),
                           B.CreateAdd(Sub, B.CreateLShr(B.CreateAnd(X.Lane, X.i32(16)), 1)));
    Value *Col = B.CreateShl(B.CreateAnd(X.Lane, X.i32(8)), 1);
    Bf.push_back(
        ldmatrix4(X, X.Bs, B.CreateAdd(BBase, B.CreateAdd(B.CreateMul(N, X.i32(Pitch)), Col))));
  }
  for (uint32_t I = 0; I < X.mi(); ++I)
    for (uint32_t J = 0; J < X.ni(); ++J) {
      const std::vector<Value *> &P = Bf[J / 2];
      mma(X, A[I], P[(J % 2) * 2], P[(J % 2) * 2 + 1], I, J);
    }
}

Value *kTiles(Gen &X) {
  if (!X.K.library())
    return X.i32(ceilDiv(X.G.K, KStep));
  IRBuilder<> &B = X.ir();
  return B.CreateLShr(B.CreateAdd(X.K.dim("k"), X.i32(KStep - 1)), 5);
}

/// sm_80's multistage K loop (as MmaKernels.cpp's): tiles 0 and 1 requested first, one cp.async
/// group each; iteration Kt waits for tile Kt, synchronises, requests tile Kt + 2 into the stage
/// iteration Kt - 1 read (past the last tile the copies fetch nothing) and multiplies stage Kt % 3.
void asyncKLoop(Gen &X, const std::vector<RowCopy> &Copies) {
  IRBuilder<> &B = X.ir();
  const uint32_t S = X.stages();
  auto Load = [&](Value *Kt, Value *Stage) {
    forEachChunk(X, Copies, Kt, Stage, [&](const RowCopy &C, Value *Dst, Value *In, Value *Idx) {
      copyAsync(X, C, Dst, In, Idx);
    });
    B.CreateIntrinsic(Intrinsic::nvvm_cp_async_commit_group, {}, {});
  };
  for (uint32_t T = 0; T + 1 < S; ++T)
    Load(X.i32(T), X.i32(T));
  X.K.forRange(X.i32(0), kTiles(X), 1, [&](Value *Kt) {
    B.CreateIntrinsic(Intrinsic::nvvm_cp_async_wait_group, {}, {X.i32(S - 2)});
    X.K.barrier();
    Value *Next = B.CreateAdd(Kt, X.i32(S - 1));
    Load(Next, B.CreateURem(Next, X.i32(S)));
    multiplyStage(X, B.CreateURem(Kt, X.i32(S)));
  });
  B.CreateIntrinsic(Intrinsic::nvvm_cp_async_wait_group, {}, {X.i32(0)});
}

/// sm_75's register-staged double buffer (as MmaKernels.cpp's): tile 0 loaded and stored;
/// iteration Kt loads tile Kt + 1 into registers, multiplies stage Kt % 2, stores the registers
/// into the other stage and synchronises once. The loop runs every tile; the last iteration's
/// loads lie past K and fetch nothing.
void stagedKLoop(Gen &X, const std::vector<RowCopy> &Copies) {
  IRBuilder<> &B = X.ir();
  using Staged = std::vector<std::pair<Value *, Value *>>; // shared destination, registers
  auto Fetch = [&](Value *Kt, Value *Stage) {
    Staged Regs;
    forEachChunk(X, Copies, Kt, Stage, [&](const RowCopy &C, Value *Dst, Value *In, Value *Idx) {
      Regs.emplace_back(Dst, fetch(X, C, In, Idx));
    });
    return Regs;
  };
  auto Deposit = [&](const Staged &Regs) {
    for (const auto &[Dst, V] : Regs)
      B.CreateAlignedStore(V, Dst, Align(V->getType()->getPrimitiveSizeInBits() / 8));
    X.K.barrier();
  };
  Deposit(Fetch(X.i32(0), X.i32(0)));
  X.K.forRange(X.i32(0), kTiles(X), 1, [&](Value *Kt) {
    Value *Next = B.CreateAdd(Kt, X.i32(1));
    Staged Regs = Fetch(Next, B.CreateAnd(Next, X.i32(1)));
    multiplyStage(X, B.CreateAnd(Kt, X.i32(1)));
    Deposit(Regs);
  });
}

void initWarp(Gen &X) {
  IRBuilder<> &B = X.ir();
  X.Tid = X.K.tid(0);
  X.Lane = B.CreateAnd(X.Tid, X.i32(31));
  X.Group = B.CreateLShr(X.Lane, X.i32(2));
  X.InGroup = B.CreateAnd(X.Lane, X.i32(3));
  Value *Warp = B.CreateLShr(X.Tid, X.i32(5));
  X.WarpRow = B.CreateMul(B.CreateLShr(Warp, X.i32(1)), X.i32(X.Tile.m / 2));
  X.WarpCol = B.CreateMul(B.CreateAnd(Warp, X.i32(1)), X.i32(X.Tile.n / 2));
  for (uint32_t I = 0; I < X.mi() * X.ni() * 4; ++I)
    X.Acc.push_back(X.K.zeroSlot(B.getInt32Ty()));
}

/// The epilogue of every accumulator: c0 c1 (row g, columns 2t, 2t + 1 of its m16n8 tile) and
/// c2 c3 (row g + 8); int8 outputs with N even store each neighbouring pair at once.
void storeAccumulators(Gen &X, Value *Row0, Value *Col0) {
  IRBuilder<> &B = X.ir();
  const bool Pairs = X.G.Io.output == TensorForm::I8Nhwc && X.G.N % 2 == 0;
  for (uint32_t I = 0; I < X.mi(); ++I)
    for (uint32_t J = 0; J < X.ni(); ++J)
      for (uint32_t C = 0; C < 4; C += Pairs ? 2 : 1) {
        Value *Row = B.CreateAdd(B.CreateAdd(Row0, X.WarpRow),
                                 B.CreateAdd(X.Group, X.i32(16 * I + 8 * (C / 2))));
        Value *Col = B.CreateAdd(B.CreateAdd(Col0, X.WarpCol),
                                 B.CreateAdd(B.CreateShl(X.InGroup, 1), X.i32(8 * J + C % 2)));
        Value *Acc = B.CreateLoad(B.getInt32Ty(), X.acc(I, J, C));
        if (!Pairs) {
          storeInt8Output(X.K, X.G, Acc, Row, Col);
          continue;
        }
        Value *Acc1 = B.CreateLoad(B.getInt32Ty(), X.acc(I, J, C + 1));
        storeInt8Pair(X.K, X.G, Acc, Acc1, Row, Col);
      }
}

} // namespace

MmaTile int8MmaTile(const Int8Gemm &G) {
  if (G.M >= 128 && G.N >= 64)
    return {128, 64};
  if (G.M <= 32 || G.N <= 32)
    return {32, 32};
  return {64, 64};
}

KernelLaunch buildInt8Mma(Module *M, const Int8Gemm &G, const std::string &Name, KernelSet Set,
                          LaunchStrategy Strategy, MmaArch Arch) {
  assert(Arch != MmaArch::Sm70 && G.Groups == 1 && G.CinPad % 16 == 0 &&
         "int8 tensor cores: sm_75 or later, ungrouped, 16-byte channel runs");
  const MmaTile Tile = int8MmaTile(G);
  KernelLaunch L = makeInt8Launch(Name, Strategy, G, Int8Strategy::Mma,
                                  {ceilDiv(G.M, Tile.m), ceilDiv(G.N, Tile.n), 1}, {Threads, 1, 1});
  L.math = MathMode::Int8;
  L.mmaArch = Arch;
  return int8Kernel(M, G, L, Set, [&](KernelBuilder &K) {
    IRBuilder<> &B = K.ir();
    Gen X{K, G, Arch, Tile};
    X.As = K.sharedArrayOf("a_tiles", B.getInt8Ty(), X.stages() * Tile.m * Pitch);
    X.Bs = K.sharedArrayOf("b_tiles", B.getInt8Ty(), X.stages() * Tile.n * Pitch);
    initWarp(X);
    Value *Row0 = B.CreateMul(K.ctaid(0), K.i32(Tile.m));
    Value *Col0 = B.CreateMul(K.ctaid(1), K.i32(Tile.n));
    std::vector<RowCopy> Copies = rowCopies(X, ParamRole::Input, Tile.m, Row0, K.dim("m"));
    for (RowCopy &C : rowCopies(X, ParamRole::Weight, Tile.n, Col0, K.dim("n")))
      Copies.push_back(C);
    if (Arch == MmaArch::Sm80)
      asyncKLoop(X, Copies);
    else
      stagedKLoop(X, Copies);
    storeAccumulators(X, Row0, Col0);
  });
}

} // namespace corpus::kernels
