// decodeProgram: lays out module variables, resolves symbols, and decodes every function body into
// the flat instruction array (control flow here; other families in the Ops*.cpp selectors).
#include "Decoder.h"
#include "WarpLoopSkip.h"

#include "ptx/Cfg.h"

#include <algorithm>

namespace analyzer {
namespace {

struct PendingBranch {
  uint32_t pc;
  std::string label;
};

/// A brx.idx target list whose labels become pcs once every block has its start.
struct PendingList {
  uint32_t list; ///< index into ProgramImpl::branchLists
  const std::vector<std::string> *labels;
};

class FunctionDecoder {
public:
  FunctionDecoder(DecodeCtx &Ctx, const ptx::Cfg &G) : Ctx(Ctx), G(G) {}
  support::MaybeError run();

private:
  DecodeCtx &Ctx;
  const ptx::Cfg &G;
  std::vector<PendingBranch> Pending;
  std::vector<PendingList> PendingLists;
  std::vector<uint32_t> BlockStart;

  void decodeOne(const ptx::Instruction &In, uint32_t Block);
  bool decodeControl(const ptx::Instruction &In, DInstr &I, uint32_t Block);
  bool decodeBarrier(const ptx::Instruction &In, DInstr &I);
  bool decodeBarrierReduction(const ptx::Instruction &In, DInstr &I);
};

support::MaybeError FunctionDecoder::run() {
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
  auto Start = [&](const std::string &Label) -> std::optional<uint32_t> {
    auto It = std::find_if(Fn.blocks.begin(), Fn.blocks.end(),
                           [&](const ptx::BasicBlock &BB) { return BB.label == Label; });
    if (It == Fn.blocks.end())
      return std::nullopt;
    return BlockStart[static_cast<size_t>(It - Fn.blocks.begin())];
  };
  for (const PendingBranch &B : Pending) {
    DInstr &I = P.code[B.pc];
    std::optional<uint32_t> To = Start(B.label);
    if (!To)
      return support::Error(P.file, I.line, I.col, "unknown branch target '" + B.label + "'");
    I.target = *To;
  }
  for (const PendingList &L : PendingLists) // the parser checked every label exists
    for (size_t K = 0; K < L.labels->size(); ++K)
      P.branchLists[L.list][K] = Start((*L.labels)[K]).value_or(Ctx.F.end - 1);
  return std::nullopt;
}

void FunctionDecoder::decodeOne(const ptx::Instruction &Orig, uint32_t Block) {
  ProgramImpl &P = Ctx.P;
  ptx::Instruction Expanded;
  const ptx::Instruction &In = Ctx.expandVectors(Orig, Expanded) ? Expanded : Orig;
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
    case ptx::Opcode::Discard:
    case ptx::Opcode::Applypriority:
    case ptx::Opcode::Createpolicy:
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
    case ptx::Opcode::Elect:
    case ptx::Opcode::Griddepcontrol:
    case ptx::Opcode::Setmaxnreg:
      Ok = selectWarp(Ctx, In, I);
      break;
    case ptx::Opcode::Mbarrier:
      Ok = selectMbarrier(Ctx, In, I);
      break;
    case ptx::Opcode::Mma:
    case ptx::Opcode::Wmma:
    case ptx::Opcode::Ldmatrix:
    case ptx::Opcode::Stmatrix:
    case ptx::Opcode::Movmatrix:
      Ok = selectTensor(Ctx, In, I);
      break;
    default: {
      ptx::Type T = In.type();
      if (isVideoOpcode(In.opcode))
        Ok = selectVideo(Ctx, In, I);
      else if (isFloatType(T) && In.opcode != ptx::Opcode::Cvt)
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
    I.wide = 0;
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
    decodeCall(Ctx, In, I);
    return true;
  case ptx::Opcode::Bar:
  case ptx::Opcode::Barrier:
    decodeBarrier(In, I);
    return true;
  case ptx::Opcode::Brx: { // brx.idx{.uni} index, tlist (PTX ISA 9.7.12.2)
    I.flow = Flow::Brx;
    const auto &Ops = In.operands;
    auto List = Ops.size() == 2 && Ops[1].kind == ptx::Operand::Kind::Symbol
                    ? std::find_if(Ctx.Fn.branchTargets.begin(), Ctx.Fn.branchTargets.end(),
                                   [&](const ptx::BranchTargets &T) { return T.name == Ops[1].name; })
                    : Ctx.Fn.branchTargets.end();
    if (List == Ctx.Fn.branchTargets.end())
      return Ctx.fail("brx.idx needs an index and a .branchtargets list");
    I.aux = static_cast<uint32_t>(Ctx.P.branchLists.size());
    Ctx.P.branchLists.emplace_back(List->labels.size(), 0);
    PendingLists.push_back({I.aux, &List->labels});
    I.reconv = Block < G.ipdom.size() ? G.ipdom[Block] : ptx::Cfg::None;
    Ctx.src(I, 0, Ops[0], ptx::Type::U32);
    return true;
  }
  default:
    return false;
  }
}

bool FunctionDecoder::decodeBarrier(const ptx::Instruction &In, DInstr &I) {
  I.flow = Flow::Bar;
  // aux: 0 = sync (wait), 1 = arrive; aux2: 1 when an explicit thread count is given.
  if (In.hasModifier("warp")) { // bar.warp.sync: lanes of one warp, converged here already
    I.flow = Flow::Next;
    I.fn = nopHandler;
    return true;
  }
  if (In.hasModifier("cluster"))
    return Ctx.fail("cluster barrier");
  if (In.hasModifier("red"))
    return decodeBarrierReduction(In, I);
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

// bar.red.{popc.u32, and.pred, or.pred} d, a{, b}, {!}c (PTX ISA 9.7.13.1): a bar.sync that
// also reduces c over the threads of the barrier and gives every one the result. op0 = a,
// op1 = b, op2 = c, op3 = d; aux3 = operation (1 popc, 2 and, 3 or) | c negated << 4.
bool FunctionDecoder::decodeBarrierReduction(const ptx::Instruction &In, DInstr &I) {
  const size_t N = In.operands.size();
  I.aux3 = In.hasModifier("popc") ? 1 : In.hasModifier("and") ? 2 : In.hasModifier("or") ? 3 : 0;
  if (I.aux3 == 0 || (N != 3 && N != 4) || In.hasModifier("arrive"))
    return Ctx.fail("bar.red form");
  ptx::Operand C = In.operands[N - 1];
  I.aux3 |= C.negated ? 16 : 0;
  C.negated = false;
  I.aux2 = N == 4 ? 1 : 0;
  if (!Ctx.src(I, 0, In.operands[1], ptx::Type::U32) ||
      !Ctx.src(I, 1, N == 4 ? In.operands[2] : In.operands[1], ptx::Type::U32) ||
      !Ctx.src(I, 2, C, ptx::Type::Pred))
    return false;
  return Ctx.dst(I, 3, In.operands[0]);
}

} // namespace

std::string instrText(const ptx::Instruction &In) {
  std::string S(ptx::opcodeName(In.opcode));
  for (const std::string &M : In.modifiers)
    S += "." + M;
  return S;
}

void nopHandler(Exec &, Warp &, const DInstr &, uint32_t) {}

namespace {

/// Registers one function may declare: every one is a frame slot of 8 bytes per thread (256
/// per warp), allocated when the frame is pushed; 32,768 of them are 256 KiB per thread, half
/// of RunSettings::maxRegisterBytesPerThread. The largest lowered or nvcc kernels declare about
/// 4,000.
constexpr uint64_t MaxRegisterSlots = 32768;

/// An error when function F declares more registers than MaxRegisterSlots (vector components and
/// .b128 halves count one each), before any of them is given a slot.
support::MaybeError tooManyRegisters(const std::string &File, const ptx::Function &F) {
  uint64_t Slots = 0;
  for (const ptx::RegDecl &R : F.regs)
    Slots += uint64_t(std::max<uint32_t>(R.count, 1)) * std::max(R.vectorWidth, 1u) *
             (R.type == ptx::Type::B128 ? 2 : 1);
  if (Slots <= MaxRegisterSlots)
    return std::nullopt;
  return support::Error(File, F.loc.line, F.loc.col,
                        "function '" + F.name + "' declares " + std::to_string(Slots) +
                            " registers; the interpreter allows " +
                            std::to_string(MaxRegisterSlots) + " per function");
}

} // namespace

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
    if (std::optional<support::Error> E = tooManyRegisters(M.file, F))
      return *E;
    Bodies.push_back(&F);
    DFunction D;
    D.name = F.name;
    D.isEntry = F.isEntry;
    D.line = F.loc.line;
    if (F.isEntry) {
      D.resources = ptx::estimateResources(M, F);
      for (auto [Name, To] : {std::pair{"maxntid", &D.maxntid}, std::pair{"reqntid", &D.reqntid},
                              std::pair{"reqnctapercluster", &D.reqnctapercluster}})
        if (const std::vector<uint32_t> *V = F.directive(Name))
          *To = *V;
    }
    P.funcs.push_back(std::move(D));
  }
  support::Expected<ModuleLayout> L = layoutModule(P, M, Bodies, FuncByName);
  if (!L)
    return L.error();
  std::vector<std::unique_ptr<DecodeCtx>> Ctxs;
  for (uint32_t F = 0; F < Bodies.size(); ++F)
    Ctxs.push_back(
        std::make_unique<DecodeCtx>(P, F, *Bodies[F], L->syms, L->funcSyms[F], FuncByName));
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
      if (P.code[I].flow == Flow::Bra || P.code[I].flow == Flow::Brx)
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
