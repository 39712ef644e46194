// decodeProgram: lays out module variables, resolves symbols, and decodes every function body into
// the flat instruction array (control flow here; other families in the Ops*.cpp selectors).
#include "Decoder.h"
#include "WarpLoopSkip.h"

#include "ptx/Cfg.h"

#include <algorithm>

namespace analyzer {
namespace {

uint64_t alignUp(uint64_t V, uint64_t A) { return A <= 1 ? V : (V + A - 1) / A * A; }

uint64_t naturalAlign(const ptx::Variable &V) {
  if (V.align)
    return V.align;
  return std::max(1u, ptx::typeBits(V.type) / 8) * V.vectorWidth;
}

/// Flattened initializer of a variable as bytes (symbol initializers unsupported: zeros).
std::vector<uint8_t> initBytes(const ptx::Variable &V) {
  std::vector<uint8_t> Bytes(V.sizeBytes(), 0);
  unsigned Elem = std::max(1u, ptx::typeBits(V.type) / 8);
  for (size_t I = 0; I < V.init.size() && (I + 1) * Elem <= Bytes.size(); ++I) {
    if (V.init[I].kind == ptx::Operand::Kind::Symbol)
      continue;
    uint64_t Bits = immediateBits(V.init[I], V.type);
    std::memcpy(Bytes.data() + I * Elem, &Bits, std::min<unsigned>(Elem, 8));
  }
  return Bytes;
}

struct PendingBranch {
  uint32_t pc;
  std::string label;
};

class FunctionDecoder {
public:
  FunctionDecoder(DecodeCtx &Ctx, const ptx::Cfg &G) : Ctx(Ctx), G(G) {}
  std::optional<support::Error> run();

private:
  DecodeCtx &Ctx;
  const ptx::Cfg &G;
  std::vector<PendingBranch> Pending;
  std::vector<uint32_t> BlockStart;

  void decodeOne(const ptx::Instruction &In, uint32_t Block);
  bool decodeControl(const ptx::Instruction &In, DInstr &I, uint32_t Block);
  bool decodeCall(const ptx::Instruction &In, DInstr &I);
  bool decodeBarrier(const ptx::Instruction &In, DInstr &I);
};

std::optional<support::Error> FunctionDecoder::run() {
  ProgramImpl &P = Ctx.P;
  const ptx::Function &Fn = Ctx.Fn;
  Ctx.F.entry = static_cast<uint32_t>(P.code.size());
  for (uint32_t B = 0; B < Fn.blocks.size(); ++B) {
    BlockStart.push_back(static_cast<uint32_t>(P.code.size()));
    for (const ptx::Instruction &In : Fn.blocks[B].instrs) {
      decodeOne(In, B);
      if (Ctx.fatal)
        return Ctx.fatal;
    }
  }
  DInstr End; // falling off the end of a body returns
  End.flow = Flow::Ret;
  End.cls = ptx::InstrClass::Control;
  End.implicit = true;
  End.func = Ctx.funcIndex;
  End.line = Fn.loc.line;
  P.code.push_back(End);
  Ctx.F.end = static_cast<uint32_t>(P.code.size());
  for (const PendingBranch &B : Pending) {
    DInstr &I = P.code[B.pc];
    auto It = std::find_if(Fn.blocks.begin(), Fn.blocks.end(),
                           [&](const ptx::BasicBlock &BB) { return BB.label == B.label; });
    if (It == Fn.blocks.end())
      return support::Error(P.file, I.line, I.col, "unknown branch target '" + B.label + "'");
    I.target = BlockStart[static_cast<size_t>(It - Fn.blocks.begin())];
  }
  return std::nullopt;
}

void FunctionDecoder::decodeOne(const ptx::Instruction &In, uint32_t Block) {
  ProgramImpl &P = Ctx.P;
  DInstr I;
  I.cls = In.cls;
  I.line = In.loc.line;
  I.col = In.loc.col;
  I.func = Ctx.funcIndex;
  I.msg = static_cast<uint32_t>(P.messages.size());
  P.messages.push_back(instrText(In));
  Ctx.unsupported.clear();
  bool Ok = true;
  if (In.guard) {
    ptx::Operand R;
    R.kind = ptx::Operand::Kind::Register;
    R.name = In.guard->reg;
    DInstr Tmp;
    Tmp.line = I.line;
    Tmp.col = I.col;
    Ok = Ctx.src(Tmp, 0, R, ptx::Type::Pred) && Tmp.base[0] == BaseRegs;
    I.guard = static_cast<int32_t>(Tmp.op[0]);
    I.guardNeg = In.guard->negated;
  }
  if (Ok && !decodeControl(In, I, Block)) {
    switch (In.opcode) {
    case ptx::Opcode::Ld:
    case ptx::Opcode::Ldu:
    case ptx::Opcode::St:
    case ptx::Opcode::Atom:
    case ptx::Opcode::Red:
    case ptx::Opcode::Cvta:
    case ptx::Opcode::Prefetch:
    case ptx::Opcode::Prefetchu:
    case ptx::Opcode::Isspacep:
    case ptx::Opcode::Cp:
      Ok = selectMemory(Ctx, In, I);
      break;
    case ptx::Opcode::Mov:
    case ptx::Opcode::Cvt:
    case ptx::Opcode::Setp:
    case ptx::Opcode::Set:
    case ptx::Opcode::Selp:
    case ptx::Opcode::Slct:
      Ok = selectMove(Ctx, In, I);
      break;
    case ptx::Opcode::Shfl:
    case ptx::Opcode::Vote:
    case ptx::Opcode::Activemask:
    case ptx::Opcode::Membar:
    case ptx::Opcode::Fence:
    case ptx::Opcode::Nanosleep:
    case ptx::Opcode::Pmevent:
    case ptx::Opcode::Redux:
    case ptx::Opcode::Match:
      Ok = selectWarp(Ctx, In, I);
      break;
    default: {
      ptx::Type T = In.type();
      if (isFloatType(T) && In.opcode != ptx::Opcode::Cvt)
        Ok = selectFloat(Ctx, In, I);
      else
        Ok = selectInt(Ctx, In, I);
    }
    }
  } else if (Ok) {
    Ok = Ctx.unsupported.empty();
  }
  if (Ctx.fatal)
    return;
  if (!Ok) {
    I.flow = Flow::Unsup;
    I.fn = nullptr;
    std::string Why = Ctx.unsupported.empty() ? "" : " (" + Ctx.unsupported + ")";
    P.messages[I.msg] = "unsupported instruction '" + P.messages[I.msg] + "'" + Why;
    Ctx.F.unsupported.push_back(static_cast<uint32_t>(P.code.size()));
  }
  P.code.push_back(I);
}

/// Branches, calls, returns, exits, barriers and traps. False when `In` is none of these.
bool FunctionDecoder::decodeControl(const ptx::Instruction &In, DInstr &I, uint32_t Block) {
  switch (In.opcode) {
  case ptx::Opcode::Bra: {
    I.flow = Flow::Bra;
    if (In.operands.size() != 1 || In.operands[0].kind != ptx::Operand::Kind::Symbol)
      return Ctx.fail("branch target is not a label");
    Pending.push_back({static_cast<uint32_t>(Ctx.P.code.size()), In.operands[0].name});
    // The reconvergence point is the block's immediate post-dominator (fixed up in
    // decodeProgram once block starts are known).
    I.reconv = Block < G.ipdom.size() ? G.ipdom[Block] : ptx::Cfg::None;
    return true;
  }
  case ptx::Opcode::Ret:
    I.flow = Flow::Ret;
    return true;
  case ptx::Opcode::Exit:
    I.flow = Flow::Exit;
    return true;
  case ptx::Opcode::Trap:
  case ptx::Opcode::Brkpt:
    I.flow = Flow::Trap;
    return true;
  case ptx::Opcode::Call:
    I.flow = Flow::Call;
    decodeCall(In, I);
    return true;
  case ptx::Opcode::Bar:
  case ptx::Opcode::Barrier:
    decodeBarrier(In, I);
    return true;
  case ptx::Opcode::Brx:
    I.flow = Flow::Bra;
    Ctx.fail("indirect branch");
    return true;
  default:
    return false;
  }
}

bool FunctionDecoder::decodeCall(const ptx::Instruction &In, DInstr &I) {
  using OK = ptx::Operand::Kind;
  const std::vector<ptx::Operand> &Ops = In.operands;
  size_t S = 0;
  while (S < Ops.size() && Ops[S].kind != OK::Symbol)
    ++S;
  if (S == Ops.size())
    return Ctx.fail("indirect call");
  auto It = Ctx.funcByName.find(Ops[S].name);
  if (It == Ctx.funcByName.end())
    return Ctx.fail("call of '" + Ops[S].name + "', which has no body in this module");
  I.target = It->second;
  Ctx.F.callees.push_back(It->second);
  // Stash the argument names; decodeProgram resolves them against the callee's formals.
  CallSite Site;
  auto Collect = [&](const ptx::Operand &L, std::vector<ParamCopy> &Out) {
    const std::vector<ptx::Operand> One{L};
    for (const ptx::Operand &E : L.kind == OK::List ? L.elems : One) {
      auto Sym = Ctx.syms.find(E.name);
      if (E.kind != OK::Symbol || Sym == Ctx.syms.end() ||
          Sym->second.kind != SymbolInfo::Kind::FrameParam)
        return Ctx.fail("call argument '" + E.name + "' is not a .param variable");
      Out.push_back(
          {static_cast<uint32_t>(Sym->second.value), 0, static_cast<uint32_t>(Sym->second.size)});
    }
    return true;
  };
  if (S > 0 && !Collect(Ops[0], Site.rets))
    return false;
  if (S + 1 < Ops.size() && !Collect(Ops[S + 1], Site.args))
    return false;
  if (S + 2 < Ops.size())
    return Ctx.fail("call through a prototype");
  I.aux = static_cast<uint32_t>(Ctx.P.calls.size());
  Ctx.P.calls.push_back(std::move(Site));
  return true;
}

bool FunctionDecoder::decodeBarrier(const ptx::Instruction &In, DInstr &I) {
  I.flow = Flow::Bar;
  // aux: 0 = sync (wait), 1 = arrive; aux2: 1 when an explicit thread count is given.
  if (In.hasModifier("warp")) { // bar.warp.sync: lanes of one warp, converged here already
    I.flow = Flow::Next;
    I.fn = nopHandler;
    return true;
  }
  if (In.hasModifier("red") || In.hasModifier("cluster"))
    return Ctx.fail("barrier reduction or cluster barrier");
  I.aux = In.hasModifier("arrive") ? 1 : 0;
  if (In.operands.empty()) { // barrier.sync with no operand: barrier 0, all threads
    I.base[0] = BaseConsts;
    I.op[0] = Ctx.constant(0);
    I.nops = 1;
    return true;
  }
  if (!Ctx.src(I, 0, In.operands[0], ptx::Type::U32))
    return false;
  if (In.operands.size() > 1) {
    I.aux2 = 1;
    return Ctx.src(I, 1, In.operands[1], ptx::Type::U32);
  }
  return true;
}

struct ModuleLayout {
  std::unordered_map<std::string, SymbolInfo> syms;
  std::vector<std::unordered_map<std::string, SymbolInfo>> funcShared;
};

/// Lays out module variables (.global -> Device buffers, .const -> const image, .shared ->
/// program-wide static shared) and every function's .shared variables.
ModuleLayout layoutModule(ProgramImpl &P, const ptx::Module &M,
                          const std::vector<const ptx::Function *> &Bodies) {
  ModuleLayout L;
  std::vector<std::pair<std::unordered_map<std::string, SymbolInfo> *, std::string>> Extern;
  uint64_t SharedOff = 0;
  auto PlaceShared = [&](const ptx::Variable &V, std::unordered_map<std::string, SymbolInfo> &To) {
    if (V.sizeBytes() == 0) {
      Extern.push_back({&To, V.name});
      return;
    }
    SharedOff = alignUp(SharedOff, naturalAlign(V));
    To[V.name] = {SymbolInfo::Kind::Value, SharedOff, ptx::StateSpace::Shared, V.sizeBytes()};
    SharedOff += V.sizeBytes();
  };
  for (const ptx::Variable &V : M.globals) {
    if (V.space == ptx::StateSpace::Global) {
      L.syms[V.name] = {SymbolInfo::Kind::GlobalVar, P.globals.size(), ptx::StateSpace::Global,
                        V.sizeBytes()};
      P.globals.push_back({V.name, V.sizeBytes(), initBytes(V)});
    } else if (V.space == ptx::StateSpace::Const) {
      uint64_t Off = alignUp(P.constImage.size(), naturalAlign(V));
      std::vector<uint8_t> Bytes = initBytes(V);
      P.constImage.resize(Off);
      P.constImage.insert(P.constImage.end(), Bytes.begin(), Bytes.end());
      L.syms[V.name] = {SymbolInfo::Kind::Value, Off, ptx::StateSpace::Const, V.sizeBytes()};
    } else if (V.space == ptx::StateSpace::Shared) {
      PlaceShared(V, L.syms);
    }
  }
  L.funcShared.resize(Bodies.size());
  for (size_t F = 0; F < Bodies.size(); ++F)
    for (const ptx::Variable &V : Bodies[F]->locals)
      if (V.space == ptx::StateSpace::Shared)
        PlaceShared(V, L.funcShared[F]);
  P.staticShared = static_cast<uint32_t>(SharedOff);
  P.dynamicSharedOffset = static_cast<uint32_t>(alignUp(SharedOff, 16));
  for (auto &[Map, Name] : Extern)
    (*Map)[Name] = {SymbolInfo::Kind::Value, P.dynamicSharedOffset, ptx::StateSpace::Shared, 0};
  return L;
}

/// Resolves call-site parameter copies against the callees' formals and returns.
std::optional<support::Error> linkCalls(ProgramImpl &P) {
  for (const DInstr &I : P.code) {
    if (I.flow != Flow::Call)
      continue;
    CallSite &S = P.calls[I.aux];
    const DFunction &Callee = P.funcs[I.target];
    if (S.args.size() != Callee.formals.size() || S.rets.size() != Callee.returns.size())
      return support::Error(P.file, I.line, I.col,
                            "call of '" + Callee.name + "' with " + std::to_string(S.args.size()) +
                                " arguments and " + std::to_string(S.rets.size()) +
                                " return values; it takes " +
                                std::to_string(Callee.formals.size()) + " and " +
                                std::to_string(Callee.returns.size()));
    for (size_t K = 0; K < S.args.size(); ++K) {
      S.args[K].to = Callee.formals[K].offset;
      S.args[K].size = std::min(S.args[K].size, Callee.formals[K].size);
    }
    for (size_t K = 0; K < S.rets.size(); ++K) { // from callee return to caller var
      S.rets[K].to = S.rets[K].from;
      S.rets[K].from = Callee.returns[K].offset;
      S.rets[K].size = std::min(S.rets[K].size, Callee.returns[K].size);
    }
  }
  return std::nullopt;
}

} // namespace

std::string instrText(const ptx::Instruction &In) {
  std::string S(ptx::opcodeName(In.opcode));
  for (const std::string &M : In.modifiers)
    S += "." + M;
  return S;
}

void nopHandler(Exec &, Warp &, const DInstr &, uint32_t) {}

support::Expected<Program> decodeProgram(const ptx::Module &M) {
  auto Impl = std::make_unique<ProgramImpl>();
  ProgramImpl &P = *Impl;
  P.file = M.file;
  std::vector<const ptx::Function *> Bodies;
  std::unordered_map<std::string, uint32_t> FuncByName;
  for (const ptx::Function &F : M.functions) {
    if (!F.hasBody)
      continue;
    if (!FuncByName.emplace(F.name, static_cast<uint32_t>(Bodies.size())).second)
      return support::Error(M.file, F.loc.line, F.loc.col,
                            "function '" + F.name + "' is defined twice");
    Bodies.push_back(&F);
    DFunction D;
    D.name = F.name;
    D.isEntry = F.isEntry;
    D.line = F.loc.line;
    if (F.isEntry)
      D.resources = ptx::estimateResources(M, F);
    P.funcs.push_back(std::move(D));
  }
  ModuleLayout L = layoutModule(P, M, Bodies);
  std::vector<std::unique_ptr<DecodeCtx>> Ctxs;
  for (uint32_t F = 0; F < Bodies.size(); ++F)
    Ctxs.push_back(
        std::make_unique<DecodeCtx>(P, F, *Bodies[F], L.syms, L.funcShared[F], FuncByName));
  for (uint32_t F = 0; F < Bodies.size(); ++F) {
    ptx::Cfg G = ptx::buildCfg(*Bodies[F]);
    uint32_t First = static_cast<uint32_t>(P.code.size());
    FunctionDecoder FD(*Ctxs[F], G);
    if (std::optional<support::Error> E = FD.run())
      return *E;
    // Block-relative reconvergence points become pcs: block B starts at the first pc whose
    // instruction came from block B (empty blocks start where the next block does).
    std::vector<uint32_t> Start(Bodies[F]->blocks.size() + 1, P.funcs[F].end - 1);
    uint32_t Pc = First;
    for (size_t B = 0; B < Bodies[F]->blocks.size(); ++B) {
      Start[B] = Pc;
      Pc += static_cast<uint32_t>(Bodies[F]->blocks[B].instrs.size());
    }
    for (uint32_t I = First; I < P.funcs[F].end; ++I)
      if (P.code[I].flow == Flow::Bra)
        P.code[I].reconv = P.code[I].reconv == ptx::Cfg::None ? NoPc : Start[P.code[I].reconv];
    markLoopLatches(P, First, P.funcs[F].end);
  }
  if (std::optional<support::Error> E = linkCalls(P))
    return *E;
  Program Prog;
  Prog.Impl = std::move(Impl);
  return Prog;
}

} // namespace analyzer
