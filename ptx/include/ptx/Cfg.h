// The control-flow graph of a function, with dominators, post-dominators and natural loops.
// Built on Boost.Graph; this header exposes plain vectors so users need not include Boost.
#pragma once

#include "ptx/Ir.h"
#include "support/Expected.h"

#include <cstdint>
#include <vector>

namespace ptx {

/// Block indices are Function::blocks indices. `None` marks "no such block".
struct Cfg {
  static constexpr uint32_t None = UINT32_MAX;

  std::vector<std::vector<uint32_t>> succs; ///< successors of each block, sorted, unique
  std::vector<std::vector<uint32_t>> preds; ///< predecessors of each block, sorted, unique
  std::vector<bool> reachable;              ///< reachable from the entry block
  /// Immediate dominator of each block; None for the entry and unreachable blocks.
  std::vector<uint32_t> idom;
  /// Immediate post-dominator of each block; None for blocks whose post-dominator is the
  /// virtual exit (blocks ending in ret/exit/trap, or that cannot reach an exit). For a block
  /// ending in a divergent branch this is the SIMT reconvergence point.
  /// Blocks with no successors, and blocks ending in a guarded ret/exit/trap (an edge to the
  /// exit besides the fall-through), join a virtual exit. Blocks that cannot reach it (infinite
  /// loops) are joined to it deterministically: while some block cannot reach the exit, the
  /// highest-numbered such block (for a loop laid out in source order, its last block) gets a
  /// virtual edge to the exit. So a branch with one side in an infinite loop reconverges only
  /// at the exit (ipdom None). Unreachable blocks get post-dominators too.
  std::vector<uint32_t> ipdom;

  struct Loop {
    uint32_t header = None;
    std::vector<uint32_t> blocks;  ///< sorted, header included
    std::vector<uint32_t> latches; ///< blocks with a back edge to the header, sorted
    uint32_t parent = None;        ///< index into loops of the innermost enclosing loop
    uint32_t depth = 1;            ///< 1 for outermost loops
  };
  std::vector<Loop> loops;         ///< natural loops, one per header, outer loops before inner ones
  std::vector<uint32_t> loopDepth; ///< per block: 0 outside any loop

  /// Every block dominates itself; otherwise false if A or B is unreachable.
  bool dominates(uint32_t A, uint32_t B) const;
  /// Every block post-dominates itself; A post-dominates B if it is on B's ipdom chain.
  bool postDominates(uint32_t A, uint32_t B) const;
};

/// Builds the CFG of a function with a body. Branch targets must name labels of the function
/// (the parser checks this); an indirect `brx.idx` branches to every label of its target list.
Cfg buildCfg(const Function &F);

} // namespace ptx
