// Decoding context shared by the instruction-family selectors: operand resolution (registers to
// slots, immediates and symbols to constant-pool entries) for the function being decoded.
#pragma once

#include "Engine.h"

#include <map>
#include <string>
#include <unordered_map>

namespace analyzer {

/// What a symbol name denotes inside a function.
struct SymbolInfo {
  enum class Kind : uint8_t { Value, GlobalVar, LocalAddr, FrameParam } kind = Kind::Value;
  uint64_t value = 0; ///< Value: the address; Local/FrameParam: offset; GlobalVar: index
  ptx::StateSpace space = ptx::StateSpace::Global;
  uint64_t size = 0;
};

/// Module and function-scope static variables, laid out (Layout.cpp).
struct ModuleLayout {
  std::unordered_map<std::string, SymbolInfo> syms; ///< module scope
  /// Per function with a body: its .shared, .global and .const variables.
  std::vector<std::unordered_map<std::string, SymbolInfo>> funcSyms;
};

/// Lays out module variables (.global -> Device buffers, .const -> const image, .shared ->
/// program-wide static shared) and every function's static ones, with their initialisers;
/// fails on an initialiser naming an unknown symbol.
support::Expected<ModuleLayout>
layoutModule(ProgramImpl &P, const ptx::Module &M, const std::vector<const ptx::Function *> &Bodies,
             const std::unordered_map<std::string, uint32_t> &FuncByName);

/// The alignment of a variable: declared, or its element (vector) size.
uint64_t naturalAlign(const ptx::Variable &V);

class DecodeCtx {
public:
  DecodeCtx(ProgramImpl &P, uint32_t FuncIndex, const ptx::Function &Fn,
            const std::unordered_map<std::string, SymbolInfo> &ModuleSyms,
            const std::unordered_map<std::string, SymbolInfo> &FuncStatics,
            const std::unordered_map<std::string, uint32_t> &FuncIndexByName);

  ProgramImpl &P;
  DFunction &F;
  uint32_t funcIndex;
  const ptx::Function &Fn;
  const std::unordered_map<std::string, uint32_t> &funcByName;
  std::unordered_map<std::string, SymbolInfo> syms; ///< function scope, then module scope

  /// Set by a selector when the instruction cannot be executed (becomes Flow::Unsup).
  std::string unsupported;
  /// Set when the input is structurally broken (decodeProgram fails).
  std::optional<support::Error> fatal;

  /// Resolves a source operand read as type `T` into slot K of `I`.
  bool src(DInstr &I, unsigned K, const ptx::Operand &O, ptx::Type T);
  /// Resolves a destination register (or `_`) into slot K of `I`.
  bool dst(DInstr &I, unsigned K, const ptx::Operand &O);
  /// Resolves `[reg+off]`, `[sym+off]` or `[imm]` into slot K (the base) and I.imm (the offset).
  /// Returns the state space of a symbol base (Generic when the base is a register).
  bool address(DInstr &I, unsigned K, const ptx::Operand &O, ptx::StateSpace *SymSpace = nullptr);
  /// A second address of an instruction (I.imm holds the first's offset): its base into slot
  /// K, its offset into `Offset`.
  bool addressAt(DInstr &I, unsigned K, const ptx::Operand &O, int64_t &Offset);
  /// Appends `O` to I's wide operand list (ProgramImpl::wide, created on first use) as kind K:
  /// an address operand `[r+off]` (its offset goes to I.imm), else a destination register or a
  /// source read as `T` (a source of kind Address is a value that steers an address: a stride).
  bool wideOperand(DInstr &I, const ptx::Operand &O, WideOperands::Kind K,
                   ptx::Type T = ptx::Type::B32);
  WideOperands &wideOf(DInstr &I);
  /// Declared width in bits of register operand slot K (64 for constants).
  unsigned regBits(const DInstr &I, unsigned K) const;
  /// Lane offset of a fresh constant holding V.
  uint32_t constant(uint64_t V);
  bool fail(std::string Reason); ///< sets `unsupported`, returns false
  /// `Out` = `In` with every operand naming a vector register replaced by the vector of its
  /// components (`%v` -> `{%v.x, %v.y}`); false (Out unspecified) when there is none.
  bool expandVectors(const ptx::Instruction &In, ptx::Instruction &Out) const;

private:
  std::unordered_map<std::string, uint32_t> RegSlot;
  std::vector<uint8_t> SlotBits;
  std::map<std::pair<int, uint64_t>, uint32_t> SpecialSlots;
  std::unordered_map<uint64_t, uint32_t> ConstSlots;
  std::map<std::pair<int32_t, uint64_t>, uint32_t> GlobalVarSlots; ///< (variable, addend)
  std::unordered_map<std::string, std::vector<std::string>> VectorRegs; ///< components
  uint32_t SinkSlot = 0;

  uint32_t newSlot(unsigned Bits);
  uint32_t special(SpecialKind K, uint64_t Value);
  void declareRegister(const std::string &Name, ptx::Type T, unsigned Width);
  bool symbolValue(DInstr &I, unsigned K, const std::string &Name, int64_t Addend);
};

/// Immediate operand O as the bits of a value of type T (floats converted between widths).
uint64_t immediateBits(const ptx::Operand &O, ptx::Type T);

/// Family selectors: fill I (fn, operands, aux) for instruction `In`. Return false with
/// Ctx.unsupported (or Ctx.fatal) set when they cannot.
bool selectInt(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);
bool selectFloat(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);
bool selectMove(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I); // mov, cvt, setp, selp...
bool selectMemory(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);
bool selectCpAsync(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I); // via selectMemory
bool selectMbarrier(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);
bool selectCpAsyncMbarrier(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I); // via cp.async
bool selectBulkCopy(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);        // via cp.async
bool selectWarp(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I); // shfl, vote, nops...
/// call: direct or through a register (DecodeCalls.cpp).
bool decodeCall(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);
/// Resolves the callee's side of every direct call's arguments and returns; fails on a call
/// whose argument or return count does not match the callee.
support::MaybeError linkCalls(ProgramImpl &P);
/// Scalar and SIMD video instructions (PTX ISA 9.7.17-9.7.18).
bool isVideoOpcode(ptx::Opcode Op);
bool selectVideo(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);
/// mma, wmma, ldmatrix, stmatrix, movmatrix (PTX ISA 9.7.14-9.7.15).
bool selectTensor(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I);

/// Shared helpers for selectors.
bool isFloatType(ptx::Type T);
/// The instruction's modifiers rendered back as text (`add.rn.f32`), for messages.
std::string instrText(const ptx::Instruction &In);
/// A handler that does nothing (membar, prefetch, ...).
void nopHandler(Exec &X, Warp &W, const DInstr &I, uint32_t Mask);

} // namespace analyzer
