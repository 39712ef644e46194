// The PTX module IR: Module -> Function -> BasicBlock -> Instruction, as the parser builds it and
// the printer writes it. Plain value types with public fields; equality compares everything but
// source positions, so parse -> print -> parse can be checked with ==.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptx {

enum class Opcode : uint16_t {
#define PTX_OPCODE(Id, Name, Rule) Id,
#include "ptx/Opcodes.def"
};

enum class InstrClass : uint8_t {
#define PTX_CLASS(Id, Name, Desc) Id,
#include "ptx/Classes.def"
};
constexpr size_t NumInstrClasses = 0
#define PTX_CLASS(Id, Name, Desc) +1
#include "ptx/Classes.def"
    ;

enum class Type : uint8_t {
  None, ///< no type (e.g. `bra`, `bar.sync`)
#define PTX_TYPE(Id, Name, Bits, Kind) Id,
#include "ptx/Types.def"
};

enum class TypeKind : uint8_t { None, Bit, Unsigned, Signed, Float, Pred };

/// State spaces (PTX ISA 5.1). Generic means "no space given".
enum class StateSpace : uint8_t { Generic, Reg, SReg, Const, Global, Local, Param, Shared, Tex };

enum class Linkage : uint8_t { None, Visible, Extern, Weak, Common };

// --- Table lookups (one table per fact: Opcodes.def, Types.def, Classes.def) ---------------------

/// The opcode named `Name` (an instruction name's first dotted component), if PTX has one.
std::optional<Opcode> lookupOpcode(std::string_view Name);
std::string_view opcodeName(Opcode Op);
/// The type named `Name` without its dot ("f32"), if any.
std::optional<Type> lookupType(std::string_view Name);
std::string_view typeName(Type T);
unsigned typeBits(Type T);
TypeKind typeKind(Type T);
std::string_view stateSpaceName(StateSpace S); ///< "global", ...; "" for Generic
/// The state space a modifier names ("shared::cta" -> Shared), if it names one.
std::optional<StateSpace> stateSpaceOfModifier(std::string_view Mod);
std::string_view className(InstrClass C); ///< the JSON name, e.g. "fp32"
std::string_view classDescription(InstrClass C);
/// The class whose JSON name is `Name`, if any.
std::optional<InstrClass> lookupClass(std::string_view Name);
/// The class of an instruction with this opcode and these modifiers (no leading dots).
InstrClass classify(Opcode Op, const std::vector<std::string> &Modifiers);

// --- IR ----------------------------------------------------------------------------------------

struct SourceLoc {
  uint32_t line = 0;
  uint32_t col = 0;
};

/// One operand. Examples: `%r1` Register; `-4`, `0x10` Immediate; `0f3F800000` F32Imm;
/// `0d3FF0000000000000` or `1.5` F64Imm; `$L__BB0_2` or `foo` Symbol; `[%rd1+8]` Address;
/// `{%r1, %r2}` Vector; `(%r1, %r2)` List (call arguments/returns); `%p|%q` PredPair; `_` Sink.
struct Operand {
  enum class Kind : uint8_t {
    Register,  ///< name = "%r1", "%tid.x" (special-register components are part of the name)
    Immediate, ///< value = the integer (two's complement bits for negative numbers)
    F32Imm,    ///< value = the 32-bit IEEE pattern
    F64Imm,    ///< value = the 64-bit IEEE pattern
    Symbol,    ///< name = a label, variable or function name
    Address,   ///< [name + value]; name empty for an absolute address; elems for texture coords
    Vector,    ///< {elems...}
    List,      ///< (elems...)
    PredPair,  ///< elems[0] | elems[1]
    Sink,      ///< `_`
  };
  Kind kind = Kind::Immediate;
  bool negated = false; ///< `!%p`
  std::string name;
  int64_t value = 0;
  std::vector<Operand> elems;
  /// Variable initializers only: `generic(sym)` (Symbol kind; `value` holds a `+offset`).
  bool generic = false;
  bool minus = false; ///< `-%r1` (vmad's negated operands)

  bool operator==(const Operand &) const = default;
};

/// `@%p` or `@!%p` before an instruction.
struct Guard {
  std::string reg;
  bool negated = false;
  bool operator==(const Guard &) const = default;
};

struct Instruction {
  Opcode opcode = Opcode::Mov;
  std::vector<std::string> modifiers; ///< in source order, without dots: {"global","nc","v4","f32"}
  std::optional<Guard> guard;
  std::vector<Operand> operands;
  InstrClass cls = InstrClass::Move; ///< classify(opcode, modifiers), set by the parser
  SourceLoc loc;                     ///< position of the opcode (or guard) in the source

  bool hasModifier(std::string_view M) const;
  /// Type modifiers in order (cvt.rn.f32.s32 -> {F32, S32}).
  std::vector<Type> types() const;
  /// The first type modifier, or Type::None.
  Type type() const;
  /// The first modifier naming a state space, or Generic.
  StateSpace space() const;
  /// Vector width from .v2/.v4/.v8, or 1.
  unsigned vectorWidth() const;

  bool operator==(const Instruction &O) const; ///< ignores loc
};

/// A `.reg` declaration of one name (`%r`) or a range (`%r<100>` -> count 100).
struct RegDecl {
  Type type = Type::B32;
  unsigned vectorWidth = 1; ///< .v2/.v4 registers
  std::string name;
  uint32_t count = 0; ///< 0: a single register named `name`; N: `name0` .. `name{N-1}`
  bool operator==(const RegDecl &) const = default;
};

/// A variable or parameter: module-scope .global/.const/.shared, function-scope
/// .local/.shared/.param, or a kernel/function parameter.
struct Variable {
  StateSpace space = StateSpace::Global;
  Linkage linkage = Linkage::None;
  Type type = Type::B8;
  unsigned vectorWidth = 1;
  uint32_t align = 0; ///< 0 = natural alignment
  std::string name;
  std::vector<uint64_t> dims;                ///< array dimensions; 0 for an unsized `[]`
  bool isPtr = false;                        ///< `.ptr` parameter attribute
  StateSpace ptrSpace = StateSpace::Generic; ///< `.ptr.global` etc.
  uint32_t ptrAlign = 0;                     ///< `.ptr .align N`
  std::vector<Operand> init; ///< flattened initializer: Immediate/F32Imm/F64Imm/Symbol values
  SourceLoc loc;

  /// Size in bytes (element size times all dims; 0 if unsized).
  uint64_t sizeBytes() const;
  bool operator==(const Variable &O) const; ///< ignores loc
};

/// A performance-tuning directive on a function: .reqntid 256, 1, 1; .maxnreg 32; .noreturn ...
struct FunctionDirective {
  std::string name; ///< without the dot: "reqntid", "maxntid", "minnctapersm", "maxnreg", ...
  std::vector<uint32_t> values;
  bool operator==(const FunctionDirective &) const = default;
};

/// `name: .callprototype (.param .b32 _) _ (.param .b64 _);` in a function body: the signature
/// an indirect `call` names as its last operand.
struct CallPrototype {
  std::string name;
  std::vector<Variable> returns;
  std::vector<Variable> params;
  bool noreturn = false;
  bool operator==(const CallPrototype &) const = default;
};

/// `name: .branchtargets L1, L2;` in a function body: the label list of a `brx.idx`.
struct BranchTargets {
  std::string name;
  std::vector<std::string> labels;
  bool operator==(const BranchTargets &) const = default;
};

struct BasicBlock {
  std::string label; ///< empty for a block that starts after a branch without a label
  std::vector<Instruction> instrs;
  bool operator==(const BasicBlock &) const = default;
};

struct Function {
  bool isEntry = false; ///< .entry (kernel) vs .func
  Linkage linkage = Linkage::None;
  std::string name;
  std::vector<Variable> returns; ///< .func return parameters
  std::vector<Variable> params;
  std::vector<FunctionDirective> directives;
  bool hasBody = false;             ///< false for a prototype/declaration
  std::vector<RegDecl> regs;        ///< all .reg declarations of the body, scoped blocks flattened
  std::vector<Variable> locals;     ///< .local/.shared/.param variables of the body, flattened
  std::vector<std::string> pragmas; ///< `.pragma "..."` strings inside the body, in order
  std::vector<CallPrototype> prototypes;    ///< `.callprototype` labels of the body
  std::vector<BranchTargets> branchTargets; ///< `.branchtargets` labels of the body
  /// Basic blocks in source order. A block starts at each label and after each branch, call,
  /// ret, exit and trap; blocks[0] is the entry.
  std::vector<BasicBlock> blocks;
  SourceLoc loc;

  /// The values of directive `Name` (e.g. "reqntid"), if present.
  const std::vector<uint32_t> *directive(std::string_view Name) const;
  bool operator==(const Function &O) const; ///< ignores loc
};

struct Module {
  std::string file; ///< for diagnostics only; not compared
  uint32_t versionMajor = 0, versionMinor = 0;
  std::vector<std::string> targets; ///< `.target sm_90, texmode_independent` -> both
  uint32_t addressSize = 64;
  std::vector<std::string> pragmas; ///< module-level `.pragma` strings
  std::vector<Variable> globals;    ///< module-scope variables, in source order
  std::vector<Function> functions;  ///< in source order; prototypes included

  /// The function with a body named `Name`, or nullptr.
  const Function *findFunction(std::string_view Name) const;
  bool operator==(const Module &O) const; ///< ignores file and locs
};

} // namespace ptx
