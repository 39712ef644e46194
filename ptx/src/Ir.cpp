// Table lookups and small IR queries. Every fact comes from Opcodes.def, Types.def, Classes.def.
#include "ptx/Ir.h"

#include <algorithm>
#include <cassert>
#include <unordered_map>

namespace ptx {
namespace {

enum class ClassRule : uint8_t {
  ByType,
  ByTypeMul,
  DivLike,
  Load,
  Store,
  CpAsync,
#define PTX_CLASS(Id, Name, Desc) Id,
#include "ptx/Classes.def"
};

struct OpcodeInfo {
  std::string_view name;
  ClassRule rule;
};

constexpr OpcodeInfo OpcodeTable[] = {
#define PTX_OPCODE(Id, Name, Rule) {Name, ClassRule::Rule},
#include "ptx/Opcodes.def"
};

struct TypeInfo {
  std::string_view name;
  unsigned bits;
  TypeKind kind;
};

constexpr TypeInfo TypeTable[] = {
    {"", 0, TypeKind::None},
#define PTX_TYPE(Id, Name, Bits, Kind) {Name, Bits, TypeKind::Kind},
#include "ptx/Types.def"
};

struct ClassInfo {
  std::string_view name;
  std::string_view description;
};

constexpr ClassInfo ClassTable[] = {
#define PTX_CLASS(Id, Name, Desc) {Name, Desc},
#include "ptx/Classes.def"
};

template <class E, size_t N, class Info>
std::optional<E> lookupIn(const Info (&Table)[N], std::string_view Name, size_t First) {
  // Built once per table; the tables are small and fixed.
  static const std::unordered_map<std::string_view, E> Map = [&] {
    std::unordered_map<std::string_view, E> M;
    for (size_t I = First; I < N; ++I)
      M.emplace(Table[I].name, static_cast<E>(I));
    return M;
  }();
  auto It = Map.find(Name);
  if (It == Map.end())
    return std::nullopt;
  return It->second;
}

InstrClass classByType(const std::vector<std::string> &Mods, InstrClass IntClass) {
  for (const std::string &M : Mods) {
    std::optional<Type> T = lookupType(M);
    if (!T)
      continue;
    switch (*T) {
    case Type::F32:
    case Type::TF32:
      return InstrClass::Fp32;
    case Type::F64:
      return InstrClass::Fp64;
    case Type::F16:
    case Type::F16x2:
    case Type::BF16:
    case Type::BF16x2:
      return InstrClass::Fp16;
    default:
      return IntClass;
    }
  }
  return IntClass;
}

StateSpace firstSpace(const std::vector<std::string> &Mods) {
  for (const std::string &M : Mods)
    if (std::optional<StateSpace> S = stateSpaceOfModifier(M))
      return *S;
  return StateSpace::Generic;
}

InstrClass classOfMemory(const std::vector<std::string> &Mods, bool IsLoad) {
  switch (firstSpace(Mods)) {
  case StateSpace::Shared:
    return IsLoad ? InstrClass::LdShared : InstrClass::StShared;
  case StateSpace::Local:
    return IsLoad ? InstrClass::LdLocal : InstrClass::StLocal;
  case StateSpace::Const:
    return IsLoad ? InstrClass::LdConst : InstrClass::StGlobal;
  case StateSpace::Param:
    return IsLoad ? InstrClass::LdParam : InstrClass::StParam;
  default:
    return IsLoad ? InstrClass::LdGlobal : InstrClass::StGlobal;
  }
}

bool hasAny(const std::vector<std::string> &Mods, std::initializer_list<std::string_view> Names) {
  return std::any_of(Mods.begin(), Mods.end(), [&](const std::string &M) {
    return std::find(Names.begin(), Names.end(), M) != Names.end();
  });
}

} // namespace

std::optional<Opcode> lookupOpcode(std::string_view Name) {
  return lookupIn<Opcode>(OpcodeTable, Name, 0);
}

std::string_view opcodeName(Opcode Op) { return OpcodeTable[static_cast<size_t>(Op)].name; }

std::optional<Type> lookupType(std::string_view Name) { return lookupIn<Type>(TypeTable, Name, 1); }

std::string_view typeName(Type T) { return TypeTable[static_cast<size_t>(T)].name; }
unsigned typeBits(Type T) { return TypeTable[static_cast<size_t>(T)].bits; }
TypeKind typeKind(Type T) { return TypeTable[static_cast<size_t>(T)].kind; }

std::string_view stateSpaceName(StateSpace S) {
  constexpr std::string_view Names[] = {"",      "reg",   "sreg",   "const", "global",
                                        "local", "param", "shared", "tex"};
  return Names[static_cast<size_t>(S)];
}

std::optional<StateSpace> stateSpaceOfModifier(std::string_view Mod) {
  std::string_view Base = Mod.substr(0, Mod.find("::"));
  for (size_t I = 1; I <= static_cast<size_t>(StateSpace::Tex); ++I)
    if (Base == stateSpaceName(static_cast<StateSpace>(I)))
      return static_cast<StateSpace>(I);
  return std::nullopt;
}

std::string_view className(InstrClass C) { return ClassTable[static_cast<size_t>(C)].name; }
std::string_view classDescription(InstrClass C) {
  return ClassTable[static_cast<size_t>(C)].description;
}
std::optional<InstrClass> lookupClass(std::string_view Name) {
  return lookupIn<InstrClass>(ClassTable, Name, 0);
}

InstrClass classify(Opcode Op, const std::vector<std::string> &Mods) {
  switch (ClassRule Rule = OpcodeTable[static_cast<size_t>(Op)].rule) {
  case ClassRule::ByType:
    return classByType(Mods, InstrClass::IntArith);
  case ClassRule::ByTypeMul:
    return classByType(Mods, InstrClass::IntMul);
  case ClassRule::DivLike:
    return hasAny(Mods, {"approx", "full"}) ? InstrClass::SpecialFn : InstrClass::DivSqrt;
  case ClassRule::Load:
    return classOfMemory(Mods, /*IsLoad=*/true);
  case ClassRule::Store:
    return classOfMemory(Mods, /*IsLoad=*/false);
  case ClassRule::CpAsync:
    if (hasAny(Mods, {"commit_group", "wait_group", "wait_all", "arrive"}))
      return InstrClass::Barrier;
    // A copy into global memory (cp.async.bulk.global.shared::cta) stores; the others load.
    return firstSpace(Mods) == StateSpace::Global ? InstrClass::StGlobal : InstrClass::LdGlobal;
  default:
    return static_cast<InstrClass>(static_cast<size_t>(Rule) -
                                   static_cast<size_t>(ClassRule::IntArith));
  }
}

bool Instruction::hasModifier(std::string_view M) const {
  return std::find(modifiers.begin(), modifiers.end(), M) != modifiers.end();
}

std::vector<Type> Instruction::types() const {
  std::vector<Type> Ts;
  for (const std::string &M : modifiers)
    if (std::optional<Type> T = lookupType(M))
      Ts.push_back(*T);
  return Ts;
}

Type Instruction::type() const {
  for (const std::string &M : modifiers)
    if (std::optional<Type> T = lookupType(M))
      return *T;
  return Type::None;
}

StateSpace Instruction::space() const { return firstSpace(modifiers); }

unsigned Instruction::vectorWidth() const {
  for (const std::string &M : modifiers)
    if (M == "v2" || M == "v4" || M == "v8")
      return static_cast<unsigned>(M[1] - '0');
  return 1;
}

bool Instruction::operator==(const Instruction &O) const {
  return opcode == O.opcode && modifiers == O.modifiers && guard == O.guard &&
         operands == O.operands && cls == O.cls;
}

uint64_t Variable::sizeBytes() const {
  uint64_t Size = std::max(1u, typeBits(type) / 8) * vectorWidth;
  for (uint64_t D : dims)
    Size *= D;
  return Size;
}

bool Variable::operator==(const Variable &O) const {
  return space == O.space && linkage == O.linkage && type == O.type &&
         vectorWidth == O.vectorWidth && align == O.align && name == O.name && dims == O.dims &&
         isPtr == O.isPtr && ptrSpace == O.ptrSpace && ptrAlign == O.ptrAlign && init == O.init;
}

const std::vector<uint32_t> *Function::directive(std::string_view Name) const {
  for (const FunctionDirective &D : directives)
    if (D.name == Name)
      return &D.values;
  return nullptr;
}

bool Function::operator==(const Function &O) const {
  return isEntry == O.isEntry && linkage == O.linkage && name == O.name && returns == O.returns &&
         params == O.params && directives == O.directives && hasBody == O.hasBody &&
         regs == O.regs && locals == O.locals && pragmas == O.pragmas && blocks == O.blocks &&
         prototypes == O.prototypes && branchTargets == O.branchTargets;
}

const Function *Module::findFunction(std::string_view Name) const {
  for (const Function &F : functions)
    if (F.hasBody && F.name == Name)
      return &F;
  return nullptr;
}

bool Module::operator==(const Module &O) const {
  return versionMajor == O.versionMajor && versionMinor == O.versionMinor && targets == O.targets &&
         addressSize == O.addressSize && pragmas == O.pragmas && globals == O.globals &&
         functions == O.functions;
}

} // namespace ptx
