// Tensor-core GEMM kernels (mma.sync, PTX ISA 9.7.15): 1x1 and implicit-GEMM convolutions, dense
// layers and bmm with tf32, f16 or bf16 operands and f32 accumulators. Four warps per CTA (2 x 2),
// each owning a (TM / 2) x (TN / 2) block of accumulator tiles; K advances 16 per stage through
// shared-memory stages: three filled by cp.async on sm_80, two through registers on sm_75 and
// sm_70 (MmaCopy.cpp); multiplied with the architecture's mma (MmaFragments.cpp). See
// docs/lowering.md, "Tensor-core GEMM".
#include "kernels/MmaGen.h"
#include "kernels/Specs.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

using namespace llvm;

namespace corpus::kernels {

namespace {

using namespace mma;

/// Runs Body(Kt) for Kt < Tiles - 1 (no loop when a specialised kernel has one tile), then
/// returns the stage of the last tile (two stages).
Value *forEachTileButLast(MmaGen &X, const std::function<void(Value *)> &Body) {
  IRBuilder<> &B = X.ir();
  if (!X.G.Library) {
    const uint32_t Tiles = ceilDiv(X.G.K, KStep);
    if (Tiles > 1)
      X.K.forRange(0, Tiles - 1, Body);
    return X.i32((Tiles - 1) % 2);
  }
  Value *Last = B.CreateSub(kTiles(X.K, X.G, KStep), X.i32(1));
  X.K.forRange(X.i32(0), Last, 1, Body);
  return B.CreateAnd(Last, X.i32(1));
}

/// sm_80's multistage K loop (CUTLASS's MmaMultistage): tiles 0 ... S - 2 are requested first,
/// one cp.async group each; iteration Kt waits until tile Kt has landed (cp.async.wait_group
/// S - 2) and synchronises, requests tile Kt + S - 1 into the stage iteration Kt - 1 read, and
/// multiplies stage Kt mod S. Requests past the last tile copy nothing (src-size 0: every
/// element lies beyond K), as CUTLASS's cleared predicates, so every iteration does the same
/// work and fast mode's loop-trip extrapolation can jump over the loop (docs/fast-mode.md).
void buildAsyncKLoop(MmaGen &X, Value *Row0, Value *Col0, Value *ABase, Value *BBase) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  const uint32_t S = X.stages();
  auto Load = [&](Value *Kt, Value *Stage) {
    forEachCopy(X, Kt, Stage, Row0, Col0, ABase, BBase,
                [&](const CopyItem &C) { copyAsync(X, C); });
    B.CreateIntrinsic(Intrinsic::nvvm_cp_async_commit_group, {}, {});
  };
  auto Wait = [&](uint32_t Pending) {
    B.CreateIntrinsic(Intrinsic::nvvm_cp_async_wait_group, {}, {X.i32(Pending)});
  };
  for (uint32_t T = 0; T + 1 < S; ++T)
    Load(X.i32(T), X.i32(T));
  K.forRange(X.i32(0), kTiles(X.K, X.G, KStep), 1, [&](Value *Kt) {
    Wait(S - 2);
    K.barrier();
    Value *Next = B.CreateAdd(Kt, X.i32(S - 1));
    Load(Next, B.CreateURem(Next, X.i32(S)));
    multiplyStage(X, B.CreateURem(Kt, X.i32(S)));
  });
  Wait(0);
}

/// sm_75 and sm_70 (no cp.async): the register-staged double buffer of CUTLASS's pipelined
/// (two-stage) mainloop. Tile 0 is loaded into registers and stored to stage 0; iteration
/// Kt < Tiles - 1 loads tile Kt + 1 from global memory into registers, multiplies stage Kt while
/// those loads are in flight, stores the registers into the other stage and synchronises (one
/// bar.sync: the stage written was last read before the previous iteration's barrier).
void buildStagedKLoop(MmaGen &X, Value *Row0, Value *Col0, Value *ABase, Value *BBase) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  using Staged = std::vector<std::pair<CopyItem, Value *>>;
  auto Fetch = [&](Value *Kt, Value *Stage) {
    Staged Regs;
    forEachCopy(X, Kt, Stage, Row0, Col0, ABase, BBase,
                [&](const CopyItem &C) { Regs.emplace_back(C, fetch(X, C)); });
    return Regs;
  };
  auto Deposit = [&](const Staged &Regs) {
    for (const auto &[C, V] : Regs)
      deposit(X, C, V);
    K.barrier();
  };
  Deposit(Fetch(X.i32(0), X.i32(0)));
  Value *LastStage = forEachTileButLast(X, [&](Value *Kt) {
    Value *Next = B.CreateAdd(Kt, X.i32(1));
    Staged Regs = Fetch(Next, B.CreateAnd(Next, X.i32(1)));
    multiplyStage(X, B.CreateAnd(Kt, X.i32(1)));
    Deposit(Regs);
  });
  multiplyStage(X, LastStage);
}

/// The thread's lane roles, its warp's place in the CTA tile and the zeroed accumulators.
void initWarp(MmaGen &X) {
  IRBuilder<> &B = X.ir();
  KernelBuilder &K = X.K;
  X.Tid = K.tid(0);
  X.Lane = B.CreateAnd(X.Tid, K.i32(31));
  X.Group = B.CreateLShr(X.Lane, K.i32(2));
  X.InGroup = B.CreateAnd(X.Lane, K.i32(3));
  Value *Warp = B.CreateLShr(X.Tid, K.i32(5));
  X.WarpRow = B.CreateMul(B.CreateLShr(Warp, K.i32(1)), K.i32(X.Tile.m / 2));
  X.WarpCol = B.CreateMul(B.CreateAnd(Warp, K.i32(1)), K.i32(X.Tile.n / 2));
  for (uint32_t I = 0; I < X.mi() * X.ni() * X.accPerTile(); ++I)
    X.Acc.push_back(K.accumulator(0.0f));
}

/// The fused epilogue and store of every accumulator. f16 outputs whose epilogue has an f16 form
/// compute it in f16 (docs/lowering.md, "Half-precision math"): neighbouring accumulator pairs
/// (2p, 2p + 1: one row, columns c and c + 1) in f16x2 with one 32-bit store when N is even,
/// else one by one; other outputs in f32, rounded once at the store.
void storeAccumulators(MmaGen &X, const Epilogue &E, Value *Row0, Value *Col0, Value *Img) {
  IRBuilder<> &B = X.ir();
  const bool Half = X.HalfTiles && halfActivation(E.activation);
  const uint32_t Width = Half && X.G.N % 2 == 0 ? 2 : 1;
  for (uint32_t I = 0; I < X.mi(); ++I)
    for (uint32_t J = 0; J < X.ni(); ++J)
      for (uint32_t C = 0; C < X.accPerTile(); C += Width) {
        auto [R, Cl] = accumulatorAt(X, I, J, C);
        Value *Row = B.CreateAdd(B.CreateAdd(Row0, X.WarpRow), R);
        Value *Col = B.CreateAdd(B.CreateAdd(Col0, X.WarpCol), Cl);
        if (!Half) {
          storeOutput(X.K, X.G, E, X.acc(I, J, C), Row, Col, Img);
          continue;
        }
        std::vector<Value *> Slots;
        for (uint32_t P = 0; P < Width; ++P)
          Slots.push_back(X.acc(I, J, C + P));
        storeOutputHalf(X.K, X.G, E, Slots, Row, Col, Img);
      }
}

void buildMmaBody(KernelBuilder &K, GemmShape &G, const Epilogue &E, MathMode Math, MmaArch Arch,
                  MmaTile Tile, bool HalfTiles) {
  assert(G.BatchPerCta == 1 && "the tensor-core GEMM takes one batch per CTA");
  bindGemm(K, G);
  assert((Arch == MmaArch::Sm80 || Math == MathMode::F16) && "tf32 and bf16 mma need sm_80");
  IRBuilder<> &B = K.ir();
  MmaGen X{K, G, Math, Arch, Tile, HalfTiles, KStep + (HalfTiles ? 8u : 4u)};
  Type *Elem = HalfTiles ? B.getHalfTy() : B.getFloatTy();
  X.As = K.sharedArrayOf("a_tiles", Elem, X.stages() * Tile.m * X.Pitch);
  X.Bs = K.sharedArrayOf("b_tiles", Elem, X.stages() * Tile.n * X.Pitch);
  initWarp(X);
  Value *Row0 = B.CreateMul(K.ctaid(1), K.i32(Tile.m));
  Value *Col0 = B.CreateMul(K.ctaid(0), K.i32(Tile.n));
  Value *Img = K.widen(K.ctaid(2));
  Value *ABase = B.CreateMul(Img, G.V.ABatch), *BBase = B.CreateMul(Img, G.V.BBatch);
  if (Arch == MmaArch::Sm80)
    buildAsyncKLoop(X, Row0, Col0, ABase, BBase);
  else
    buildStagedKLoop(X, Row0, Col0, ABase, BBase);
  storeAccumulators(X, E, Row0, Col0, Img);
  K.finish();
}

/// The tensor-core operands and instructions of a kernel.
struct MmaKind {
  MathMode math;
  MmaArch arch;
};

/// The launch and kernel of GEMM G with parameters Roles, whose sizes `Count` gives.
KernelLaunch buildMma(Module *M, const std::string &Name, KernelSet Set, LaunchStrategy Strategy,
                      DType T, MmaKind Kind, GemmShape G, const Epilogue &E,
                      const std::vector<ParamRole> &Roles, bool Wide,
                      const std::function<uint64_t(ParamRole)> &Count) {
  const MmaTile Tile = chooseMmaTile(G, Kind.math);
  KernelLaunch L =
      makeLaunch(Name, Strategy, T, {ceilDiv(G.N, Tile.n), ceilDiv(G.M, Tile.m), G.Batch},
                 {Threads, 1, 1}, Roles, Count);
  L.math = Kind.math;
  L.mmaArch = Kind.arch;
  const ShapeDims Dims = gemmDims(G);
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, T, L, Wide, Dims);
  buildMmaBody(K, G, E, Kind.math, Kind.arch, Tile, T == DType::F16);
  return L;
}

} // namespace

MmaTile chooseMmaTile(const GemmShape &G, MathMode Math) {
  const bool Window = G.Blocked && G.Im2col->kernelH * G.Im2col->kernelW > 1;
  if (Math == MathMode::Tf32 && Window && G.M >= 128 && G.N >= 128 &&
      uint64_t(ceilDiv(G.M, 128)) * ceilDiv(G.N, 128) * G.Batch >= 128)
    return {128, 128};
  if (G.M >= 128 && G.N >= 64)
    return {128, 64};
  if (G.M <= 32 || G.N <= 32)
    return {32, 32};
  return {64, 64};
}

std::string libraryMmaName(const std::string &Body, const GemmShape &G, MathMode Math, MmaArch Arch,
                           DType T, const Epilogue &E, bool Wide) {
  const MmaTile Tile = chooseMmaTile(G, Math);
  std::string N = Body + tensorCoreInfix(true, Math, Arch) + "_t" + std::to_string(Tile.m) + "x" +
                  std::to_string(Tile.n);
  if (G.K % 4 == 0) // four-element copies along k
    N += "_k4";
  if (T == DType::F16 && halfActivation(E.activation) && G.N % 2 == 0) // f16x2 epilogue pairs
    N += "_n2";
  return libraryKernelName(N, T, E, Wide);
}

KernelLaunch buildMmaConv(Module *M, const ConvSpec &S, const std::string &Name, KernelSet Set,
                          ConvStrategy Resolved) {
  const bool Pointwise = Resolved == ConvStrategy::Gemm;
  GemmShape G = Pointwise ? convGemmShape(S) : implicitGemmShape(S);
  G.Blocked = blockedFilters(S, Resolved);
  KernelLaunch L = buildMma(
      M, Name, Set, Pointwise ? LaunchStrategy::ConvGemmMma : LaunchStrategy::ConvImplicitGemmMma,
      S.dtype, {S.math, S.mmaArch}, G, S.epilogue, gemmRoles(S.epilogue), wideIndex(S),
      [&](ParamRole R) { return convParamElements(S, R); });
  L.filtersBlocked = G.Blocked;
  return L;
}

KernelLaunch buildMmaDense(Module *M, const GemmSpec &S, const std::string &Name, KernelSet Set) {
  return buildMma(M, Name, Set, LaunchStrategy::DenseGemmMma, S.dtype, {S.math, S.mmaArch},
                  denseGemmShape(S), S.epilogue, gemmRoles(S.epilogue), wideIndex(S),
                  [&](ParamRole R) { return denseParamElements(S, R); });
}

KernelLaunch buildMmaBatchMatMul(Module *M, const BatchMatMulSpec &S, const std::string &Name,
                                 KernelSet Set) {
  return buildMma(M, Name, Set, LaunchStrategy::BmmGemmMma, S.dtype, {S.math, S.mmaArch},
                  bmmGemmShape(S), Epilogue(),
                  {ParamRole::Input, ParamRole::Input2, ParamRole::Output}, wideIndex(S),
                  [&](ParamRole R) { return bmmParamElements(S, R); });
}

} // namespace corpus::kernels
