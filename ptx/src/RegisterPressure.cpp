// Register pressure of a PTX function: block liveness to a fixed point, then a backward walk per
// block that tracks the live 32-bit register units.
#include "RegisterPressure.h"

#include "ptx/Cfg.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace ptx::detail {
namespace {

using Bits = std::vector<uint64_t>;

bool test(const Bits &B, uint32_t R) { return (B[R / 64] >> (R % 64)) & 1; }
void set(Bits &B, uint32_t R) { B[R / 64] |= uint64_t(1) << (R % 64); }
void reset(Bits &B, uint32_t R) { B[R / 64] &= ~(uint64_t(1) << (R % 64)); }

/// Per-block facts for the dataflow: upward-exposed uses, unguarded definitions, any
/// definitions; and the fixed-point sets.
struct BlockSets {
  Bits use, kill, def;
  Bits liveIn, liveOut;
  Bits defIn; ///< registers some path from the entry may have written on entry to the block
};

std::vector<BlockSets> localSets(const FunctionAccesses &A) {
  size_t Words = (A.regs.size() + 63) / 64;
  std::vector<BlockSets> Sets(A.blocks.size());
  for (size_t B = 0; B < A.blocks.size(); ++B) {
    BlockSets &S = Sets[B];
    S.use = S.kill = S.def = S.liveIn = S.liveOut = S.defIn = Bits(Words, 0);
    for (const Access &I : A.blocks[B]) {
      for (uint32_t R : A.uses(I))
        if (!test(S.kill, R))
          set(S.use, R);
      for (uint32_t R : A.defs(I)) {
        set(S.def, R);
        if (!I.guarded)
          set(S.kill, R);
      }
    }
  }
  return Sets;
}

/// Backward liveness and forward "may be written" sets, iterated to their fixed points.
void solve(std::vector<BlockSets> &Sets, const Cfg &G) {
  const size_t N = Sets.size();
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t B = N; B-- > 0;) {
      BlockSets &S = Sets[B];
      for (size_t W = 0; W < S.liveOut.size(); ++W) {
        uint64_t Out = 0;
        for (uint32_t Succ : G.succs[B])
          Out |= Sets[Succ].liveIn[W];
        uint64_t In = S.use[W] | (Out & ~S.kill[W]);
        Changed |= Out != S.liveOut[W] || In != S.liveIn[W];
        S.liveOut[W] = Out;
        S.liveIn[W] = In;
      }
    }
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t B = 0; B < N; ++B)
      for (uint32_t Pred : G.preds[B])
        for (size_t W = 0; W < Sets[B].defIn.size(); ++W) {
          uint64_t In = Sets[B].defIn[W] | Sets[Pred].defIn[W] | Sets[Pred].def[W];
          Changed |= In != Sets[B].defIn[W];
          Sets[B].defIn[W] = In;
        }
  }
}

/// Walks blocks backward from their live-out sets and raises P.maxLive; records call sites.
/// Values count only where some path may have written them (a read of a never-written register
/// does not keep a register busy).
class BlockWalk {
public:
  BlockWalk(const FunctionAccesses &A, FunctionPressure &P)
      : A(A), P(P), FirstDef(A.regs.size(), UINT32_MAX) {}

  void run(const BlockSets &Block, const std::vector<Access> &Instrs) {
    S = &Block;
    Live.assign(Block.liveOut.size(), 0);
    Units = 0;
    for (uint32_t I = 0; I < Instrs.size(); ++I)
      for (uint32_t R : A.defs(Instrs[I]))
        FirstDef[R] = std::min(FirstDef[R], I);
    for (size_t W = 0; W < Block.liveOut.size(); ++W)
      for (uint64_t Word = Block.liveOut[W]; Word; Word &= Word - 1) {
        uint32_t R = static_cast<uint32_t>(W * 64 + std::countr_zero(Word));
        if (writtenBefore(R, UINT32_MAX))
          add(R);
      }
    raise(Units);
    for (uint32_t I = static_cast<uint32_t>(Instrs.size()); I-- > 0;)
      step(Instrs[I], I);
    for (const Access &I : Instrs)
      for (uint32_t R : A.defs(I))
        FirstDef[R] = UINT32_MAX;
  }

private:
  bool writtenBefore(uint32_t R, uint32_t Pos) const {
    return test(S->defIn, R) || FirstDef[R] < Pos;
  }
  void add(uint32_t R) {
    if (!test(Live, R)) {
      set(Live, R);
      Units += A.regs.units(R);
    }
  }
  void remove(uint32_t R) {
    if (test(Live, R)) {
      reset(Live, R);
      Units -= A.regs.units(R);
    }
  }
  void raise(uint32_t U) { P.maxLive = std::max(P.maxLive, U); }

  void step(const Access &I, uint32_t Pos) {
    uint32_t During = Units; // live past I, plus what I writes that is dead afterwards
    for (uint32_t R : A.defs(I))
      if (!test(Live, R))
        During += A.regs.units(R);
    raise(During);
    for (uint32_t R : A.defs(I))
      if (!I.guarded || !writtenBefore(R, Pos))
        remove(R);
    if (I.isCall)
      P.calls.push_back({std::string(I.callee), Units});
    for (uint32_t R : A.uses(I))
      if (writtenBefore(R, Pos))
        add(R);
    raise(Units);
  }

  const FunctionAccesses &A;
  const BlockSets *S = nullptr;
  FunctionPressure &P;
  Bits Live;
  uint32_t Units = 0;
  std::vector<uint32_t> FirstDef;
};

} // namespace

FunctionPressure measurePressure(const Module &M, const Function &F, const Cfg &G) {
  assert(G.succs.size() == F.blocks.size() && "CFG of another function");
  FunctionAccesses A(F);
  applyMachineWidths(M, F, A);
  std::vector<BlockSets> Sets = localSets(A);
  solve(Sets, G);
  FunctionPressure P;
  BlockWalk Walk(A, P);
  for (size_t B = 0; B < F.blocks.size(); ++B)
    if (G.reachable[B])
      Walk.run(Sets[B], A.blocks[B]);
  return P;
}

} // namespace ptx::detail
