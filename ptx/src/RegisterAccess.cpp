// Register operands of PTX instructions: which registers each instruction writes (the first
// operand, except for stores, control flow and synchronisation) and reads (the rest, address
// bases, vector and list elements); `.reg` declarations give each register its width.
#include "RegisterAccess.h"

#include <algorithm>
#include <charconv>

namespace ptx::detail {
namespace {

/// Opcodes whose first operand is never a register they write (PTX ISA 9.7): stores and
/// reductions write memory, control flow and synchronisation write nothing.
bool writesNoRegister(Opcode Op) {
  switch (Op) {
  case Opcode::St:
  case Opcode::Stmatrix:
  case Opcode::Sust:
  case Opcode::Sured:
  case Opcode::Red:
  case Opcode::Cp:
  case Opcode::Prefetch:
  case Opcode::Prefetchu:
  case Opcode::Applypriority:
  case Opcode::Discard:
  case Opcode::Bra:
  case Opcode::Brx:
  case Opcode::Ret:
  case Opcode::Exit:
  case Opcode::Trap:
  case Opcode::Brkpt:
  case Opcode::Bar:
  case Opcode::Barrier:
  case Opcode::Membar:
  case Opcode::Fence:
  case Opcode::Griddepcontrol:
  case Opcode::Nanosleep:
  case Opcode::Pmevent:
  case Opcode::Setmaxnreg:
  case Opcode::Stackrestore:
  case Opcode::Tensormap:
    return true;
  default:
    return false;
  }
}

/// Fills Accesses in a FunctionAccesses, one instruction at a time.
class AccessCollector {
public:
  explicit AccessCollector(FunctionAccesses &A) : Regs(A.regs), Pool(A.pool) {}

  Access collect(const Instruction &I) {
    Defs.clear();
    Uses.clear();
    Access Out;
    Out.guarded = I.guard.has_value();
    if (I.opcode == Opcode::Call) {
      Out.isCall = true;
      Out.callee = collectCall(I);
    } else {
      collectPlain(I);
    }
    Out.first = static_cast<uint32_t>(Pool.size());
    Out.numDefs = static_cast<uint32_t>(Defs.size());
    Out.numUses = static_cast<uint32_t>(Uses.size());
    Pool.insert(Pool.end(), Defs.begin(), Defs.end());
    Pool.insert(Pool.end(), Uses.begin(), Uses.end());
    return Out;
  }

private:
  void collectPlain(const Instruction &I) {
    for (size_t K = 0; K < I.operands.size(); ++K) {
      bool Dest = K == 0 && !writesNoRegister(I.opcode);
      add(I.operands[K], Dest ? Defs : Uses);
    }
    // wgmma accumulates into its destination fragment: it reads it too.
    if (I.opcode == Opcode::Wgmma && !I.operands.empty())
      add(I.operands[0], Uses);
  }

  void add(const Operand &O, std::vector<uint32_t> &To) {
    switch (O.kind) {
    case Operand::Kind::Register:
      addName(O.name, To);
      break;
    case Operand::Kind::Address:
      addName(O.name, Uses); // the base register, if the base is one
      for (const Operand &E : O.elems)
        add(E, Uses);
      break;
    case Operand::Kind::Vector:
    case Operand::Kind::List:
    case Operand::Kind::PredPair:
      for (const Operand &E : O.elems)
        add(E, To);
      break;
    default: // immediates, symbols, sinks
      break;
    }
  }

  void addName(std::string_view Name, std::vector<uint32_t> &To) {
    if (Name.empty())
      return;
    if (uint32_t R = Regs.index(Name); R != NotARegister)
      To.push_back(R);
  }

  // call [(returns),] callee [, (arguments)] [, prototype]: lists before the callee are written,
  // everything after it is read (an indirect callee is a register, read).
  // Returns the callee's name for a direct call, else "".
  std::string_view collectCall(const Instruction &I) {
    std::string_view Callee;
    bool SeenCallee = false;
    for (const Operand &O : I.operands) {
      if (!SeenCallee && O.kind != Operand::Kind::List) {
        SeenCallee = true;
        if (O.kind == Operand::Kind::Symbol)
          Callee = O.name;
        add(O, Uses);
        continue;
      }
      add(O, SeenCallee ? Uses : Defs);
    }
    return Callee;
  }

  RegisterTable &Regs;
  std::vector<uint32_t> &Pool;
  std::vector<uint32_t> Defs, Uses;
};

} // namespace

uint32_t registerUnits(Type T, unsigned VectorWidth) {
  if (T == Type::None || typeKind(T) == TypeKind::Pred)
    return 0;
  uint32_t Bits = typeBits(T);
  return (Bits <= 32 ? 1 : Bits / 32) * std::max(1u, VectorWidth);
}

RegisterTable::RegisterTable(const Function &F) {
  for (const RegDecl &D : F.regs)
    (D.count == 0 ? Singles : Ranges).emplace(D.name, &D);
}

uint32_t RegisterTable::index(std::string_view Name) {
  if (auto It = Cache.find(Name); It != Cache.end())
    return It->second;
  uint32_t R = resolve(Name); // may add entries (vector components): no iterator held
  Cache.emplace(Name, R);
  return R;
}

const RegDecl *RegisterTable::declOf(std::string_view Name) const {
  if (auto It = Singles.find(Name); It != Singles.end())
    return It->second;
  size_t Digits = Name.size();
  while (Digits > 0 && Name[Digits - 1] >= '0' && Name[Digits - 1] <= '9')
    --Digits;
  if (Digits == Name.size())
    return nullptr;
  auto It = Ranges.find(Name.substr(0, Digits));
  uint64_t N = 0;
  auto [End, Ec] = std::from_chars(Name.data() + Digits, Name.data() + Name.size(), N);
  if (It == Ranges.end() || Ec != std::errc() || N >= It->second->count)
    return nullptr;
  return It->second;
}

uint32_t RegisterTable::resolve(std::string_view Name) {
  const RegDecl *D = declOf(Name);
  // `%v.x` names a component of vector register `%v`: the whole vector counts.
  if (!D && Name.size() > 2 && Name[Name.size() - 2] == '.')
    return index(Name.substr(0, Name.size() - 2));
  uint32_t U = D ? registerUnits(D->type, D->vectorWidth) : 0;
  if (U == 0)
    return NotARegister;
  Units.push_back(U);
  return size() - 1;
}

FunctionAccesses::FunctionAccesses(const Function &F) : regs(F) {
  AccessCollector Collector(*this);
  blocks.resize(F.blocks.size());
  for (size_t B = 0; B < F.blocks.size(); ++B) {
    blocks[B].reserve(F.blocks[B].instrs.size());
    for (const Instruction &I : F.blocks[B].instrs)
      blocks[B].push_back(Collector.collect(I));
  }
}

} // namespace ptx::detail
