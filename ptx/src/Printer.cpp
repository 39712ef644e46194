// Writes the IR as PTX text that ptxas accepts and that parses back to an equal IR.
#include "ptx/Printer.h"

#include <cinttypes>
#include <cstdio>

namespace ptx {
namespace {

std::string_view linkageName(Linkage L) {
  switch (L) {
  case Linkage::Visible:
    return ".visible ";
  case Linkage::Extern:
    return ".extern ";
  case Linkage::Weak:
    return ".weak ";
  case Linkage::Common:
    return ".common ";
  case Linkage::None:
    break;
  }
  return "";
}

void appendOperand(std::string &Out, const Operand &O);

void appendList(std::string &Out, const std::vector<Operand> &Elems) {
  for (size_t I = 0; I < Elems.size(); ++I) {
    if (I != 0)
      Out += ", ";
    appendOperand(Out, Elems[I]);
  }
}

void appendHex(std::string &Out, const char *Prefix, uint64_t Bits, int Width) {
  char Buf[24];
  std::snprintf(Buf, sizeof Buf, "%s%0*" PRIX64, Prefix, Width, Bits);
  Out += Buf;
}

void appendOperand(std::string &Out, const Operand &O) {
  using K = Operand::Kind;
  if (O.negated)
    Out += '!';
  if (O.minus)
    Out += '-';
  switch (O.kind) {
  case K::Register:
  case K::Symbol:
    if (O.generic)
      Out.append("generic(").append(O.name).append(")");
    else
      Out += O.name;
    if (O.value != 0) // a symbol offset in an initializer
      Out.append("+").append(std::to_string(O.value));
    break;
  case K::Immediate:
    Out += std::to_string(O.value);
    break;
  case K::F32Imm:
    appendHex(Out, "0f", static_cast<uint64_t>(O.value) & 0xFFFFFFFFu, 8);
    break;
  case K::F64Imm:
    appendHex(Out, "0d", static_cast<uint64_t>(O.value), 16);
    break;
  case K::Address:
    Out += '[';
    if (O.name.empty())
      Out += std::to_string(O.value);
    else if (O.value != 0)
      Out.append(O.name).append("+").append(std::to_string(O.value));
    else
      Out += O.name;
    for (const Operand &E : O.elems) {
      Out += ", ";
      appendOperand(Out, E);
    }
    Out += ']';
    break;
  case K::Vector:
    Out += '{';
    appendList(Out, O.elems);
    Out += '}';
    break;
  case K::List:
    Out += '(';
    appendList(Out, O.elems);
    Out += ')';
    break;
  case K::PredPair:
    appendOperand(Out, O.elems.at(0));
    Out += '|';
    appendOperand(Out, O.elems.at(1));
    break;
  case K::Sink:
    Out += '_';
    break;
  }
}

void appendInstruction(std::string &Out, const Instruction &I) {
  if (I.guard)
    Out.append(I.guard->negated ? "@!" : "@").append(I.guard->reg).append(" ");
  Out += opcodeName(I.opcode);
  for (const std::string &M : I.modifiers)
    Out.append(".").append(M);
  if (!I.operands.empty()) {
    Out += ' ';
    appendList(Out, I.operands);
  }
  Out += ';';
}

// `{a, b, c, d}` grouped by the array dimensions when the counts match, otherwise flat.
void appendInitializer(std::string &Out, const Variable &V) {
  std::vector<uint64_t> Dims = V.dims;
  if (V.vectorWidth > 1)
    Dims.push_back(V.vectorWidth);
  uint64_t Total = 1;
  for (uint64_t D : Dims)
    Total = D == 0 || Total == 0 ? 0 : Total * D;
  if (Dims.empty() && V.init.size() == 1) {
    appendOperand(Out, V.init[0]);
    return;
  }
  bool Nest = Dims.size() > 1 && Total == V.init.size();
  size_t Next = 0;
  auto Emit = [&](auto &Self, size_t Level) -> void {
    Out += '{';
    size_t Count = Nest ? Dims[Level] : V.init.size();
    for (size_t I = 0; I < Count; ++I) {
      if (I != 0)
        Out += ", ";
      if (Nest && Level + 1 < Dims.size())
        Self(Self, Level + 1);
      else
        appendOperand(Out, V.init[Next++]);
    }
    Out += '}';
  };
  Emit(Emit, 0);
}

void appendVariable(std::string &Out, const Variable &V) {
  Out.append(linkageName(V.linkage)).append(".").append(stateSpaceName(V.space));
  if (V.align != 0)
    Out.append(" .align ").append(std::to_string(V.align));
  if (V.vectorWidth > 1)
    Out.append(" .v").append(std::to_string(V.vectorWidth));
  Out.append(" .").append(typeName(V.type));
  if (V.isPtr) {
    Out += " .ptr";
    if (V.ptrSpace != StateSpace::Generic)
      Out.append(" .").append(stateSpaceName(V.ptrSpace));
    if (V.ptrAlign != 0)
      Out.append(" .align ").append(std::to_string(V.ptrAlign));
  }
  Out.append(" ").append(V.name);
  for (uint64_t D : V.dims)
    Out.append("[").append(D == 0 ? "" : std::to_string(D)).append("]");
  if (!V.init.empty()) {
    Out += " = ";
    appendInitializer(Out, V);
  }
}

// `(.param .b32 a, .param .b32 b)`, or one parameter per line for function headers.
void appendParams(std::string &Out, const std::vector<Variable> &Params, bool Multiline) {
  Out += '(';
  for (size_t I = 0; I < Params.size(); ++I) {
    Out += I == 0 ? "" : ",";
    Out += Multiline ? "\n\t" : I == 0 ? "" : " ";
    appendVariable(Out, Params[I]);
  }
  if (!Params.empty() && Multiline)
    Out += '\n';
  Out += ')';
}

void appendDeclarations(std::string &Out, const Function &F) {
  for (const RegDecl &R : F.regs) {
    Out += "\t.reg";
    if (R.vectorWidth > 1)
      Out.append(" .v").append(std::to_string(R.vectorWidth));
    Out.append(" .").append(typeName(R.type)).append(" ").append(R.name);
    if (R.count != 0)
      Out.append("<").append(std::to_string(R.count)).append(">");
    Out += ";\n";
  }
  for (const Variable &V : F.locals) {
    Out += '\t';
    appendVariable(Out, V);
    Out += ";\n";
  }
  for (const CallPrototype &P : F.prototypes) {
    Out.append("\t").append(P.name).append(": .callprototype ");
    if (!P.returns.empty()) {
      appendParams(Out, P.returns, false);
      Out += ' ';
    }
    Out += "_ ";
    appendParams(Out, P.params, false);
    Out += P.noreturn ? " .noreturn;\n" : ";\n";
  }
  for (const BranchTargets &T : F.branchTargets) {
    Out.append("\t").append(T.name).append(": .branchtargets ");
    for (size_t I = 0; I < T.labels.size(); ++I)
      Out.append(I == 0 ? "" : ", ").append(T.labels[I]);
    Out += ";\n";
  }
}

void appendFunction(std::string &Out, const Function &F) {
  Out.append(linkageName(F.linkage)).append(F.isEntry ? ".entry " : ".func ");
  if (!F.returns.empty()) {
    appendParams(Out, F.returns, false);
    Out += ' ';
  }
  Out += F.name;
  appendParams(Out, F.params, true);
  Out += '\n';
  for (const FunctionDirective &D : F.directives) {
    Out.append(".").append(D.name);
    for (size_t I = 0; I < D.values.size(); ++I)
      Out.append(I == 0 ? " " : ", ").append(std::to_string(D.values[I]));
    Out += '\n';
  }
  auto Pragmas = [&] {
    for (const std::string &P : F.pragmas)
      Out.append(F.hasBody ? "\t.pragma \"" : ".pragma \"").append(P).append("\";\n");
  };
  if (!F.hasBody) {
    Pragmas();
    Out += ";\n\n";
    return;
  }
  Out += "{\n";
  appendDeclarations(Out, F);
  Pragmas();
  Out += '\n';
  for (const BasicBlock &B : F.blocks) {
    if (!B.label.empty())
      Out.append(B.label).append(":\n");
    for (const Instruction &I : B.instrs) {
      Out += '\t';
      appendInstruction(Out, I);
      Out += '\n';
    }
  }
  Out += "}\n\n";
}

} // namespace

std::string print(const Module &M) {
  std::string Out;
  if (M.versionMajor != 0 || M.versionMinor != 0)
    Out.append(".version ")
        .append(std::to_string(M.versionMajor))
        .append(".")
        .append(std::to_string(M.versionMinor))
        .append("\n");
  if (!M.targets.empty()) {
    Out += ".target ";
    for (size_t I = 0; I < M.targets.size(); ++I)
      Out.append(I == 0 ? "" : ", ").append(M.targets[I]);
    Out += '\n';
  }
  Out.append(".address_size ").append(std::to_string(M.addressSize)).append("\n\n");
  for (const std::string &P : M.pragmas)
    Out.append(".pragma \"").append(P).append("\";\n");
  // Leading prototypes come before the globals, whose initializers may name those functions;
  // the order of M.functions is kept.
  size_t First = 0;
  while (First < M.functions.size() && !M.functions[First].hasBody)
    appendFunction(Out, M.functions[First++]);
  for (const Variable &V : M.globals) {
    appendVariable(Out, V);
    Out += ";\n";
  }
  if (!M.globals.empty())
    Out += '\n';
  for (size_t I = First; I < M.functions.size(); ++I)
    appendFunction(Out, M.functions[I]);
  return Out;
}

void print(std::ostream &OS, const Module &M) { OS << print(M); }

std::string print(const Instruction &I) {
  std::string Out;
  appendInstruction(Out, I);
  return Out;
}

} // namespace ptx
