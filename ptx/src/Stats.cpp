// Static instruction counts and register totals of a function.
#include "ptx/Stats.h"

namespace ptx {

ClassCounts staticCounts(const Function &F) {
  ClassCounts Counts{};
  for (const BasicBlock &B : F.blocks)
    for (const Instruction &I : B.instrs)
      ++Counts[static_cast<size_t>(I.cls)];
  return Counts;
}

uint64_t declaredRegisters(const Function &F) {
  uint64_t N = 0;
  for (const RegDecl &R : F.regs)
    N += R.count == 0 ? 1 : R.count;
  return N;
}

} // namespace ptx
