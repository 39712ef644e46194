// The registers each instruction of a function reads and writes, as dense indices with a width
// in 32-bit register units: the input of the register-pressure analysis (RegisterPressure.h).
#pragma once

#include "ptx/Ir.h"

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ptx::detail {

constexpr uint32_t NotARegister = UINT32_MAX;

/// Register units of a `.reg` type: 0 for predicates, 1 up to 32 bits, 2 for 64, 4 for 128
/// bits; times the vector width.
uint32_t registerUnits(Type T, unsigned VectorWidth);

/// Dense indices for the registers a function's instructions name, resolved against its `.reg`
/// declarations on first sight (a `%r<100>` range is never expanded). Predicates, special
/// registers and symbols have no index.
class RegisterTable {
public:
  explicit RegisterTable(const Function &F);

  /// The index of register `Name`, or NotARegister. `Name` must outlive the table.
  uint32_t index(std::string_view Name);
  uint32_t size() const { return static_cast<uint32_t>(Units.size()); }
  uint32_t units(uint32_t Index) const { return Units[Index]; }
  void setUnits(uint32_t Index, uint32_t U) { Units[Index] = U; }

private:
  const RegDecl *declOf(std::string_view Name) const;
  uint32_t resolve(std::string_view Name);

  std::unordered_map<std::string_view, const RegDecl *> Singles, Ranges;
  std::unordered_map<std::string_view, uint32_t> Cache;
  std::vector<uint32_t> Units;
};

/// The registers one instruction reads and writes: FunctionAccesses::defs/uses.
struct Access {
  uint32_t first = 0; ///< where its registers start in FunctionAccesses::pool: defs, then uses
  uint32_t numDefs = 0, numUses = 0;
  bool guarded = false;
  bool isCall = false;
  std::string_view callee; ///< direct calls only
};

/// Every instruction's Access, in block order (blocks[B][I] for F.blocks[B].instrs[I]).
struct FunctionAccesses {
  RegisterTable regs;
  std::vector<uint32_t> pool; ///< register indices of all instructions
  std::vector<std::vector<Access>> blocks;

  explicit FunctionAccesses(const Function &F);

  std::span<const uint32_t> defs(const Access &I) const {
    return {pool.data() + I.first, I.numDefs};
  }
  std::span<const uint32_t> uses(const Access &I) const {
    return {pool.data() + I.first + I.numDefs, I.numUses};
  }
};

/// Replaces PTX register widths of F (a function of M) with what the machine code needs
/// (RegisterWidths.cpp): values ptxas rematerialises for free cost 0 units, 64-bit
/// shared-memory addresses 1.
void applyMachineWidths(const Module &M, const Function &F, FunctionAccesses &A);

} // namespace ptx::detail
