// The pieces of the tensor-core GEMM kernels (MmaKernels.cpp) that differ per architecture (the
// kernel's MmaArch): how a K stage moves from global to shared memory (MmaCopy.cpp: cp.async on
// sm_80, staged through registers before) and how a warp multiplies it and where its accumulators
// lie (MmaFragments.cpp: m16n8k8/m16n8k16 with ldmatrix, or m8n8k4 quad pairs on sm_70). See
// docs/lowering.md, "Tensor-core GEMM".
#pragma once

#include "kernels/GemmShape.h"
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <functional>
#include <utility>
#include <vector>

namespace corpus::kernels::mma {

constexpr uint32_t Threads = 128; // four warps, 2 x 2 over the CTA tile
constexpr uint32_t KStep = MmaKStep;
/// Shared-memory stages of the K loop: three on sm_80 (cp.async keeps two tiles in flight while
/// one is multiplied; CUTLASS's sm_80 mainloops use 3 to 5) where they fit the 48 KB of static
/// shared memory (a 128 x 128 f32 tile's three would take 60 KB: two), two on sm_75 and sm_70
/// (the register-staged double buffer).
constexpr uint32_t stagesOf(MmaArch A, uint32_t StageBytes) {
  return A == MmaArch::Sm80 && 3 * StageBytes <= 48 * 1024 ? 3 : 2;
}

/// Everything the pieces of one kernel share.
struct MmaGen {
  KernelBuilder &K;
  const GemmShape &G;
  MathMode Math;
  MmaArch Arch;
  MmaTile Tile;
  bool HalfTiles; ///< shared tiles hold f16 (f16 data), else f32 (converted per fragment)
  uint32_t Pitch; ///< elements per shared row (k contiguous): KStep + 4 (f32) or + 8 (f16)
  llvm::GlobalVariable *As = nullptr, *Bs = nullptr; ///< [stages][TM][Pitch], [stages][TN][Pitch]
  llvm::Value *Tid = nullptr, *Lane = nullptr, *Group = nullptr, *InGroup = nullptr;
  llvm::Value *WarpRow = nullptr, *WarpCol = nullptr; ///< first row / column of the warp's tile
  std::vector<llvm::Value *> Acc = {};                ///< accumulator slots: [i][j][accPerTile()]

  /// Accumulator tiles per warp along m (16 rows each) and n: m16n8 tiles (sm_80, sm_75) or the
  /// 16 x 16 block of one m8n8k4's four quad pairs (sm_70).
  uint32_t mi() const { return Tile.m / 32; }
  uint32_t ni() const { return Arch == MmaArch::Sm70 ? Tile.n / 32 : Tile.n / 16; }
  uint32_t accPerTile() const { return Arch == MmaArch::Sm70 ? 8 : 4; }
  llvm::Value *&acc(uint32_t I, uint32_t J, uint32_t C) {
    return Acc[(I * ni() + J) * accPerTile() + C];
  }
  uint32_t stages() const {
    return stagesOf(Arch, (Tile.m + Tile.n) * Pitch * (HalfTiles ? 2 : 4));
  }
  llvm::IRBuilder<> &ir() { return K.ir(); }
  llvm::Value *i32(uint32_t V) { return K.i32(V); }
};

/// Address of shared element Index of Array.
inline llvm::Value *sharedPtr(MmaGen &X, llvm::GlobalVariable *Array, llvm::Value *Index) {
  return X.ir().CreateInBoundsGEP(Array->getValueType(), Array, {X.i32(0), Index});
}

/// One copy a thread makes for a stage: Vec consecutive k elements (1 or 4) of operand Role from
/// global index Idx to shared Dst, zeros where !Inside. A gather (im2col) instead reads Vec
/// elements from their own (inside, index) pairs into Vec consecutive shared elements at Dst.
struct CopyItem {
  llvm::Value *Dst;
  ParamRole Role;
  llvm::Value *Inside, *Idx;
  uint32_t Vec;
  std::vector<std::pair<llvm::Value *, llvm::Value *>> Gather = {};
};

/// Calls Fn for each copy of the thread's share of K tile Kt into stage Stage, A's then B's.
void forEachCopy(MmaGen &X, llvm::Value *Kt, llvm::Value *Stage, llvm::Value *Row0,
                 llvm::Value *Col0, llvm::Value *ABase, llvm::Value *BBase,
                 const std::function<void(const CopyItem &)> &Fn);
/// sm_80: the copy as cp.async (a guarded load and shared store for single f16 elements).
void copyAsync(MmaGen &X, const CopyItem &C);
/// sm_75, sm_70: the copy's global load into a register (zeros outside: the load is guarded, as
/// CUTLASS's predicated tile iterators guard theirs), and its store to shared memory.
llvm::Value *fetch(MmaGen &X, const CopyItem &C);
void deposit(MmaGen &X, const CopyItem &C, llvm::Value *V);

/// The warp's mma.sync over the KStep columns of stage Stage, into the accumulators.
void multiplyStage(MmaGen &X, llvm::Value *Stage);
/// Row and column, within the warp's tile, of accumulator C of tile (I, J). Accumulators 2p and
/// 2p + 1 are neighbours in one row.
std::pair<llvm::Value *, llvm::Value *> accumulatorAt(MmaGen &X, uint32_t I, uint32_t J,
                                                      uint32_t C);

} // namespace corpus::kernels::mma
