// Calls (PTX ISA 9.7.12.4): the caller's side of each argument and return value at decode, the
// callee's side when the module is linked (direct calls) or at the call (indirect calls through
// a register holding a function's address).
#include "Decoder.h"

namespace analyzer {

ParamCopy calleeSide(ParamCopy C, const ParamSlot &S, bool Ret) {
  if (Ret) { // callee return -> caller variable or register
    C.from = S.offset;
    C.fromReg = S.reg;
    C.fromBase = BaseRegs;
  } else { // caller value -> callee formal
    C.to = S.offset;
    C.toReg = S.reg;
  }
  C.size = std::min(C.size, S.size);
  return C;
}

std::string callArityError(const CallSite &S, const DFunction &Callee) {
  if (S.args.size() == Callee.formals.size() && S.rets.size() == Callee.returns.size())
    return {};
  return "call of '" + Callee.name + "' with " + std::to_string(S.args.size()) +
         " arguments and " + std::to_string(S.rets.size()) + " return values; it takes " +
         std::to_string(Callee.formals.size()) + " and " + std::to_string(Callee.returns.size());
}

namespace {

/// The caller's side of the arguments (Ret false) or return values in list `L`: .param
/// variables, registers (a vector register as its components, matching a vector `.reg`
/// formal's), or for arguments constants.
bool collect(DecodeCtx &Ctx, const DInstr &I, const ptx::Operand &L, std::vector<ParamCopy> &Out,
             bool Ret) {
  using OK = ptx::Operand::Kind;
  std::vector<ptx::Operand> Elems; // a vector register stands for its components
  for (const ptx::Operand &E : L.kind == OK::List ? L.elems : std::vector<ptx::Operand>{L})
    if (E.kind == OK::Vector)
      Elems.insert(Elems.end(), E.elems.begin(), E.elems.end());
    else
      Elems.push_back(E);
  for (const ptx::Operand &E : Elems) {
    auto Sym = E.kind == OK::Symbol ? Ctx.syms.find(E.name) : Ctx.syms.end();
    if (Sym != Ctx.syms.end() && Sym->second.kind == SymbolInfo::Kind::FrameParam) {
      ParamCopy C{static_cast<uint32_t>(Sym->second.value), 0,
                  static_cast<uint32_t>(Sym->second.size)};
      if (Ret) // the caller's variable receives the value
        std::swap(C.from, C.to);
      Out.push_back(C);
      continue;
    }
    // A register (or, for an argument, a constant): `.reg` formals and register arguments.
    DInstr Tmp;
    Tmp.line = I.line;
    Tmp.col = I.col;
    bool Ok = Ret ? Ctx.dst(Tmp, 0, E) : Ctx.src(Tmp, 0, E, ptx::Type::B64);
    if (!Ok || Ctx.fatal)
      return Ctx.fail("call " + std::string(Ret ? "return value" : "argument") + " '" + E.name +
                      "' is neither a .param variable nor a register");
    ParamCopy C;
    C.size = (Ctx.regBits(Tmp, 0) + 7) / 8;
    (Ret ? C.toReg : C.fromReg) = Tmp.op[0];
    C.fromBase = Tmp.base[0];
    Out.push_back(C);
  }
  return true;
}

} // namespace

// call{.uni} [(rets),] callee [, (args)] [, proto | targets]: the callee is a function of the
// module, or a register holding a function's address (then every .func of the module may be
// called, and a prototype or .calltargets list may follow).
bool decodeCall(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using OK = ptx::Operand::Kind;
  const std::vector<ptx::Operand> &Ops = In.operands;
  const size_t S = !Ops.empty() && Ops[0].kind == OK::List ? 1 : 0;
  if (S >= Ops.size())
    return Ctx.fail("call without a callee");
  CallSite Site;
  if (Ops[S].kind == OK::Register) {
    Site.indirect = true;
    I.target = IndirectCall;
    if (!Ctx.src(I, 0, Ops[S], ptx::Type::U64))
      return false;
    for (uint32_t F = 0; F < Ctx.P.funcs.size(); ++F)
      if (!Ctx.P.funcs[F].isEntry)
        Ctx.F.callees.push_back(F);
  } else {
    auto It = Ops[S].kind == OK::Symbol ? Ctx.funcByName.find(Ops[S].name) : Ctx.funcByName.end();
    if (It == Ctx.funcByName.end())
      return Ctx.fail("call of '" + Ops[S].name + "', which has no body in this module");
    I.target = It->second;
    Ctx.F.callees.push_back(It->second);
    if (S + 2 < Ops.size())
      return Ctx.fail("a direct call with a prototype");
  }
  if (S > 0 && !collect(Ctx, I, Ops[0], Site.rets, true))
    return false;
  if (S + 1 < Ops.size() && Ops[S + 1].kind == OK::List &&
      !collect(Ctx, I, Ops[S + 1], Site.args, false))
    return false;
  I.aux = static_cast<uint32_t>(Ctx.P.calls.size());
  Ctx.P.calls.push_back(std::move(Site));
  return true;
}

support::MaybeError linkCalls(ProgramImpl &P) {
  for (const DInstr &I : P.code) {
    if (I.flow != Flow::Call || I.target == IndirectCall)
      continue;
    CallSite &S = P.calls[I.aux];
    const DFunction &Callee = P.funcs[I.target];
    if (std::string Why = callArityError(S, Callee); !Why.empty())
      return support::Error(P.file, I.line, I.col, Why);
    for (size_t K = 0; K < S.args.size(); ++K)
      S.args[K] = calleeSide(S.args[K], Callee.formals[K], false);
    for (size_t K = 0; K < S.rets.size(); ++K)
      S.rets[K] = calleeSide(S.rets[K], Callee.returns[K], true);
  }
  return std::nullopt;
}

} // namespace analyzer
