// Kernel resource estimates: static shared memory from the variables a kernel names, registers
// from the liveness of its body and the functions it calls (see ptx/Resources.h).
#include "ptx/Resources.h"

#include "RegisterPressure.h"

#include "ptx/Cfg.h"

#include <algorithm>
#include <cassert>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace ptx {
namespace {

// Live units -> reported registers: units + ReservedRegisters, clamped to [1, 255]. ptxas counts
// registers the PTX does not show (R1, the stack pointer, and temporaries); 3 is the reserve that
// agrees best with ptxas 13 on the occupancy bucket (sm_90, zoo kernels at batch 1; larger
// reserves push kernels that ptxas fits at 40 registers over that cliff). ptxas reports exact
// counts, not the allocation granularity, so the sum is not rounded.
// scripts/check-register-estimate.sh measures it; docs/ptx-frontend.md has the figures.
constexpr uint32_t ReservedRegisters = 3;
constexpr uint32_t MaxRegisters = 255;

using NameSet = std::unordered_set<std::string_view>;

/// Adds to Used the names in O (symbols, address bases, nested elements) that are in Wanted.
void addUsedNames(const Operand &O, const NameSet &Wanted, NameSet &Used) {
  if (!O.name.empty() && O.name[0] != '%' && Wanted.count(O.name))
    Used.insert(O.name);
  for (const Operand &E : O.elems)
    addUsedNames(E, Wanted, Used);
}

/// The callee of a direct call instruction, if it is a function of M with a body.
const Function *directCallee(const Module &M, const Instruction &I) {
  for (const Operand &O : I.operands)
    if (O.kind == Operand::Kind::Symbol)
      return M.findFunction(O.name);
  return nullptr;
}

/// Kernel first, then every function with a body it calls directly or transitively.
std::vector<const Function *> callClosure(const Module &M, const Function &Kernel) {
  std::vector<const Function *> Order{&Kernel};
  std::unordered_set<const Function *> Seen{&Kernel};
  for (size_t K = 0; K < Order.size(); ++K)
    for (const BasicBlock &B : Order[K]->blocks)
      for (const Instruction &I : B.instrs)
        if (I.opcode == Opcode::Call)
          if (const Function *F = directCallee(M, I); F && Seen.insert(F).second)
            Order.push_back(F);
  return Order;
}

uint64_t alignmentOf(const Variable &V) {
  if (V.align)
    return V.align;
  return uint64_t(std::max(1u, typeBits(V.type) / 8)) * std::max(1u, V.vectorWidth);
}

bool isStaticShared(const Variable &V) {
  return V.space == StateSpace::Shared && V.linkage != Linkage::Extern;
}

class SharedLayout {
public:
  void place(const Variable &V) {
    uint64_t A = alignmentOf(V);
    End = (End + A - 1) / A * A + V.sizeBytes();
  }
  uint64_t end() const { return End; }

private:
  uint64_t End = 0;
};

/// The module's static .shared variables that the functions in Closure name.
NameSet namedSharedGlobals(const Module &M, const std::vector<const Function *> &Closure) {
  NameSet Shared, Named;
  for (const Variable &V : M.globals)
    if (isStaticShared(V))
      Shared.insert(V.name);
  if (Shared.empty())
    return Named;
  for (const Function *F : Closure)
    for (const BasicBlock &B : F->blocks)
      for (const Instruction &I : B.instrs)
        for (const Operand &O : I.operands)
          addUsedNames(O, Shared, Named);
  return Named;
}

uint32_t staticShared(const Module &M, const std::vector<const Function *> &Closure) {
  SharedLayout L;
  for (const Function *F : Closure)
    for (const Variable &V : F->locals)
      if (isStaticShared(V))
        L.place(V);
  NameSet Named = namedSharedGlobals(M, Closure);
  uint64_t DynamicAlign = 0;
  for (const Variable &V : M.globals) {
    if (V.space == StateSpace::Shared && V.linkage == Linkage::Extern)
      DynamicAlign = std::max({DynamicAlign, uint64_t(16), alignmentOf(V)});
    else if (isStaticShared(V) && Named.count(V.name))
      L.place(V);
  }
  uint64_t Bytes = L.end();
  if (DynamicAlign && Bytes)
    Bytes = (Bytes + DynamicAlign - 1) / DynamicAlign * DynamicAlign;
  return static_cast<uint32_t>(std::min<uint64_t>(Bytes, UINT32_MAX));
}

/// Live units of F including what the functions it calls need on top of the values live
/// across each call. A recursive call counts the callee's own pressure only.
class CallGraphPressure {
public:
  explicit CallGraphPressure(const Module &M) : M(M) {}

  uint32_t unitsOf(const Function &F) {
    if (auto It = Memo.find(&F); It != Memo.end())
      return It->second;
    detail::FunctionPressure P = detail::measurePressure(M, F, buildCfg(F));
    Memo[&F] = P.maxLive; // what a recursive call sees
    uint32_t Units = P.maxLive;
    for (const detail::CallPressure &C : P.calls)
      if (const Function *Callee = C.callee.empty() ? nullptr : M.findFunction(C.callee))
        Units = std::max(Units, C.liveAcross + unitsOf(*Callee));
    Memo[&F] = Units;
    return Units;
  }

private:
  const Module &M;
  std::unordered_map<const Function *, uint32_t> Memo;
};

uint32_t reportedRegisters(uint32_t Units) {
  return static_cast<uint32_t>(
      std::clamp<uint64_t>(uint64_t(Units) + ReservedRegisters, 1, MaxRegisters));
}

} // namespace

uint32_t maxLiveRegisterUnits(const Module &M, const Function &F) {
  assert(F.hasBody && "register pressure of a declaration");
  return detail::measurePressure(M, F, buildCfg(F)).maxLive;
}

KernelResources estimateResources(const Module &M, const Function &Kernel) {
  assert(Kernel.hasBody && "resources of a kernel without a body");
  KernelResources R;
  R.staticSharedBytes = staticShared(M, callClosure(M, Kernel));
  R.registers = reportedRegisters(CallGraphPressure(M).unitsOf(Kernel));
  return R;
}

} // namespace ptx
