// Static taint analysis of loaded data (docs/fast-mode.md, shortcut 2). Flow-insensitive: a
// register slot is tainted when some instruction of the kernel writes it from a load (global,
// shared, local or constant memory, atomics, tensor and other unusual instructions) or from a
// tainted source; the analysis iterates to a fixed point. The kernel's counts cannot depend on
// data when no tainted slot is a guard, an operand of a branch, call, return, exit, barrier or
// trap, or a source of a memory instruction other than the value a st writes. Every trap the
// interpreter raises comes from control flow or an address (Memory.cpp, WarpRunner.cpp), so the
// data-dependence rerun could only count alike.
#include "DataTaint.h"
#include "Memory.h"

#include <vector>

namespace analyzer {
namespace {

using C = ptx::InstrClass;

/// Instructions whose destinations hold (or may hold) data read from memory.
bool readsMemory(const DInstr &I, bool ParamStores) {
  switch (I.cls) {
  case C::LdGlobal:
  case C::LdShared:
  case C::LdLocal:
  case C::LdConst:
  case C::Atomic:
  case C::Tensor:
  case C::Other:
    return true;
  case C::LdParam: // kernel parameters are the same in every run, unless stored to
    return ParamStores;
  default:
    return false;
  }
}

/// Everything but computation, moves, warp-wide exchanges and control may touch memory (its
/// register sources are then addresses, except a store's values).
bool accessesMemory(const DInstr &I) {
  return !registersOnly(I.cls) && I.cls != C::Warp && I.cls != C::Barrier && I.cls != C::Control;
}

struct Taint {
  const ProgramImpl &prog;
  std::vector<uint8_t> slots; ///< per register slot of the frame
  bool at(uint32_t LaneOffset) const { return slots[LaneOffset / 32] != 0; }
  /// Some source of I (the carry flag included) is tainted.
  bool anySource(const DInstr &I) const {
    bool Any = I.carry && at(I.aux3);
    forEachRegOperand(prog, I, [&](uint32_t Off, bool Writes) { Any |= !Writes && at(Off); });
    return Any;
  }
  /// Taints I's destinations; true if one was clean.
  bool mark(const DInstr &I) {
    bool Changed = false;
    auto Set = [&](uint32_t LaneOffset) {
      Changed |= slots[LaneOffset / 32] == 0;
      slots[LaneOffset / 32] = 1;
    };
    forEachRegOperand(prog, I, [&](uint32_t Off, bool Writes) {
      if (Writes)
        Set(Off);
    });
    if (I.carry)
      Set(I.aux3);
    return Changed;
  }
};

/// A tainted value reaches control flow or an address in I.
bool steers(const DInstr &I, const Taint &T) {
  if (I.guard >= 0 && T.at(static_cast<uint32_t>(I.guard)))
    return true;
  if (I.flow != Flow::Next)
    return T.anySource(I);
  if (I.wide) { // tensor-core instructions: only an address steers (mma reads none)
    const WideOperands &W = T.prog.wide[I.wide - 1];
    for (size_t K = 0; K < W.op.size(); ++K)
      if (W.kind[K] == WideOperands::Address && W.base[K] == BaseRegs && T.at(W.op[K]))
        return true;
    return false;
  }
  if (!accessesMemory(I))
    return false;
  const bool Store = plainStore(I);
  for (unsigned K = 0; K < I.nops; ++K)
    if (I.readsReg(K) && T.at(I.op[K]) && !(Store && K >= 1))
      return true;
  return false;
}

/// dataMaySteer for function F.
bool maySteer(const ProgramImpl &P, const DFunction &F) {
  if (!F.callees.empty())
    return true;
  bool ParamStores = false;
  for (uint32_t Pc = F.entry; Pc < F.end; ++Pc) {
    if (P.code[Pc].flow == Flow::Call) // a callee's code is not analysed
      return true;
    ParamStores |= P.code[Pc].cls == C::StParam;
  }
  Taint T{P, std::vector<uint8_t>(F.numSlots, 0)};
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (uint32_t Pc = F.entry; Pc < F.end; ++Pc) {
      const DInstr &I = P.code[Pc];
      if (readsMemory(I, ParamStores) || T.anySource(I))
        Changed |= T.mark(I);
    }
  }
  for (uint32_t Pc = F.entry; Pc < F.end; ++Pc)
    if (steers(P.code[Pc], T))
      return true;
  return false;
}

} // namespace

bool dataMaySteer(const ProgramImpl &P, const std::string &Kernel) {
  const DFunction *F = P.kernel(Kernel);
  return !F || maySteer(P, *F);
}

} // namespace analyzer
