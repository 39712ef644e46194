// Machine widths of PTX registers. Two kinds of PTX value need less than their declared width in
// the SASS ptxas writes:
//  - free values: written once by `ld.param` of a kernel parameter (constant bank), or by `mov`
//    of an immediate, a variable's address or %ntid/%nctaid (constant bank), or a copy (`mov`,
//    `cvta`) of a free value. SASS reads them as constant or immediate operands where they are
//    used, so they occupy no register in between: 0 units.
//  - 64-bit shared-memory addresses: LLVM computes them in b64 registers (address_size 64), but
//    the shared window is 32 bits wide and SASS addresses it with 32-bit registers: 1 unit.
#include "RegisterAccess.h"

#include <span>
#include <string_view>
#include <unordered_set>

namespace ptx::detail {
namespace {

/// Where each register is written: (block, instruction) pairs, grouped by register.
struct Site {
  uint32_t block, instr;
};

class DefSites {
public:
  explicit DefSites(const FunctionAccesses &A) : Start(A.regs.size() + 1, 0) {
    for (const std::vector<Access> &Block : A.blocks)
      for (const Access &I : Block)
        for (uint32_t R : A.defs(I))
          ++Start[R + 1];
    for (size_t R = 1; R < Start.size(); ++R)
      Start[R] += Start[R - 1];
    Sites.resize(Start.back());
    std::vector<uint32_t> Next(Start.begin(), Start.end() - 1);
    for (uint32_t B = 0; B < A.blocks.size(); ++B)
      for (uint32_t I = 0; I < A.blocks[B].size(); ++I)
        for (uint32_t R : A.defs(A.blocks[B][I]))
          Sites[Next[R]++] = {B, I};
  }

  std::span<const Site> of(uint32_t R) const {
    return {Sites.data() + Start[R], Start[R + 1] - Start[R]};
  }

private:
  std::vector<uint32_t> Start;
  std::vector<Site> Sites;
};

bool isImmediate(const Operand &O) {
  return O.kind == Operand::Kind::Immediate || O.kind == Operand::Kind::F32Imm ||
         O.kind == Operand::Kind::F64Imm || O.kind == Operand::Kind::Symbol;
}

bool isConstantBankRegister(const Operand &O) {
  std::string_view N = O.name;
  return O.kind == Operand::Kind::Register &&
         (N.starts_with("%ntid.") || N.starts_with("%nctaid."));
}

class WidthPass {
public:
  WidthPass(const Function &F, FunctionAccesses &A) : F(F), A(A), S(A) {
    for (const Variable &V : F.params)
      Params.insert(V.name);
    for (const Variable &V : F.locals)
      if (V.space == StateSpace::Shared)
        SharedNames.insert(V.name);
  }

  void addModuleShared(const Variable &V) { SharedNames.insert(V.name); }

  void run() {
    std::vector<bool> Free =
        fixedPoint([&](uint32_t R) { return freeCandidate(R); },
                   [&](uint32_t R, const std::vector<bool> &Set) { return freeHolds(R, Set); });
    std::vector<bool> Shared = sharedAddresses();
    for (uint32_t R = 0; R < A.regs.size(); ++R) {
      if (Free[R])
        A.regs.setUnits(R, 0);
      else if (Shared[R] && A.regs.units(R) == 2)
        A.regs.setUnits(R, 1);
    }
  }

private:
  const Instruction &at(Site X) const { return F.blocks[X.block].instrs[X.instr]; }

  /// Optimistic fixed point: start from every candidate, drop registers whose condition fails
  /// against the current set until nothing changes (loops keep their members).
  template <class Candidate, class Holds>
  std::vector<bool> fixedPoint(Candidate IsCandidate, Holds ConditionHolds) const {
    std::vector<bool> Set(A.regs.size());
    for (uint32_t R = 0; R < Set.size(); ++R)
      Set[R] = IsCandidate(R);
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (uint32_t R = 0; R < Set.size(); ++R)
        if (Set[R] && !ConditionHolds(R, Set)) {
          Set[R] = false;
          Changed = true;
        }
    }
    return Set;
  }

  /// The register source of a one-source copy (`mov`, `cvta`), or NotARegister.
  uint32_t copySource(const Instruction &I) {
    if ((I.opcode != Opcode::Mov && I.opcode != Opcode::Cvta) || I.operands.size() != 2 ||
        I.operands[1].kind != Operand::Kind::Register)
      return NotARegister;
    return A.regs.index(I.operands[1].name);
  }

  bool freeCandidate(uint32_t R) const {
    if (S.of(R).size() != 1)
      return false;
    const Instruction &I = at(S.of(R)[0]);
    if (I.guard || I.operands.size() != 2)
      return false;
    const Operand &Src = I.operands[1];
    if (I.opcode == Opcode::Ld)
      return F.isEntry && I.space() == StateSpace::Param && Src.kind == Operand::Kind::Address &&
             Params.count(Src.name);
    if (I.opcode == Opcode::Mov)
      return isImmediate(Src) || isConstantBankRegister(Src) || Src.kind == Operand::Kind::Register;
    return I.opcode == Opcode::Cvta && Src.kind == Operand::Kind::Register;
  }

  bool freeHolds(uint32_t R, const std::vector<bool> &Set) {
    const Instruction &I = at(S.of(R)[0]);
    if (I.opcode == Opcode::Ld || isImmediate(I.operands[1]) ||
        isConstantBankRegister(I.operands[1]))
      return true;
    uint32_t Src = copySource(I);
    return Src != NotARegister && Set[Src];
  }

  /// b64 registers every write of which yields a shared-window address: the address of a
  /// .shared variable, a copy of one, `cvta.to.shared`, or a sum with one.
  std::vector<bool> sharedAddresses() {
    return fixedPoint([&](uint32_t R) { return A.regs.units(R) == 2 && !S.of(R).empty(); },
                      [&](uint32_t R, const std::vector<bool> &Set) {
                        for (Site X : S.of(R))
                          if (!sharedWrite(at(X), Set))
                            return false;
                        return true;
                      });
  }

  bool sharedWrite(const Instruction &I, const std::vector<bool> &Set) {
    if (I.operands.size() < 2)
      return false;
    if (I.opcode == Opcode::Cvta)
      return I.space() == StateSpace::Shared && I.hasModifier("to");
    if (I.opcode == Opcode::Mov) {
      const Operand &Src = I.operands[1];
      if (Src.kind == Operand::Kind::Symbol)
        return SharedNames.count(Src.name) != 0;
      uint32_t R = copySource(I);
      return R != NotARegister && Set[R];
    }
    if (I.opcode != Opcode::Add && I.opcode != Opcode::Sub)
      return false;
    for (size_t K = 1; K < I.operands.size(); ++K)
      if (I.operands[K].kind == Operand::Kind::Register)
        if (uint32_t R = A.regs.index(I.operands[K].name); R != NotARegister && Set[R])
          return true;
    return false;
  }

  const Function &F;
  FunctionAccesses &A;
  DefSites S;
  std::unordered_set<std::string_view> Params, SharedNames;
};

} // namespace

void applyMachineWidths(const Module &M, const Function &F, FunctionAccesses &A) {
  WidthPass P(F, A);
  for (const Variable &V : M.globals)
    if (V.space == StateSpace::Shared)
      P.addModuleShared(V);
  P.run();
}

} // namespace ptx::detail
