// The hot loop: one warp runs until it exits, waits at a barrier, or traps. SIMT divergence uses an
// IPDOM reconvergence stack; calls push register/local/param frames (recursion allowed).
#include "WarpRunner.h"
#include "WarpLoopSkip.h"

#include <algorithm>
#include <cstdio>

namespace analyzer {
namespace {

uint64_t specialValue(const Exec &X, const Warp &W, const SpecialSlot &S, unsigned L,
                      const Frame &Fr) {
  uint64_t Bit = uint64_t(1) << L;
  switch (S.kind) {
  case SpecialKind::TidX:
    return W.tid[L][0];
  case SpecialKind::TidY:
    return W.tid[L][1];
  case SpecialKind::TidZ:
    return W.tid[L][2];
  case SpecialKind::NtidX:
    return X.block[0];
  case SpecialKind::NtidY:
    return X.block[1];
  case SpecialKind::NtidZ:
    return X.block[2];
  case SpecialKind::CtaidX:
    return X.ctaid[0];
  case SpecialKind::CtaidY:
    return X.ctaid[1];
  case SpecialKind::CtaidZ:
    return X.ctaid[2];
  case SpecialKind::NctaidX:
    return X.grid[0];
  case SpecialKind::NctaidY:
    return X.grid[1];
  case SpecialKind::NctaidZ:
    return X.grid[2];
  case SpecialKind::LaneId:
    return L;
  case SpecialKind::WarpId:
    return W.index;
  case SpecialKind::NWarpId:
    return X.warpsPerCta;
  case SpecialKind::LanemaskEq:
    return Bit;
  case SpecialKind::LanemaskLe:
    return static_cast<uint32_t>((Bit << 1) - 1);
  case SpecialKind::LanemaskLt:
    return static_cast<uint32_t>(Bit - 1);
  case SpecialKind::LanemaskGe:
    return static_cast<uint32_t>(~(Bit - 1));
  case SpecialKind::LanemaskGt:
    return static_cast<uint32_t>(~((Bit << 1) - 1));
  case SpecialKind::Clock:
    return static_cast<uint32_t>(X.budget - X.budgetLeft);
  case SpecialKind::Clock64:
    return X.budget - X.budgetLeft;
  case SpecialKind::ClockHi:
    return (X.budget - X.budgetLeft) >> 32;
  case SpecialKind::DynSmem:
    return X.dynShared;
  case SpecialKind::TotalSmem:
    return X.shared.size();
  case SpecialKind::Zero:
    return 0;
  case SpecialKind::One:
    return 1;
  case SpecialKind::GridId:
    return 1;
  case SpecialKind::LocalAddr:
    return Fr.localBase + S.value;
  case SpecialKind::FrameParamAddr:
    return WindowFrameParam + Fr.paramBase + S.value;
  }
  return 0;
}

/// Whether specialValue depends on the lane.
bool perLane(SpecialKind K) {
  switch (K) {
  case SpecialKind::TidX:
  case SpecialKind::TidY:
  case SpecialKind::TidZ:
  case SpecialKind::LaneId:
  case SpecialKind::LanemaskEq:
  case SpecialKind::LanemaskLe:
  case SpecialKind::LanemaskLt:
  case SpecialKind::LanemaskGe:
  case SpecialKind::LanemaskGt:
    return true;
  default:
    return false;
  }
}

void fillSpecials(const Exec &X, Warp &W, const Frame &Fr, bool ClockOnly) {
  const DFunction &F = X.prog->funcs[Fr.func];
  for (const SpecialSlot &S : F.specials) {
    if (ClockOnly && !isClock(S.kind))
      continue;
    uint64_t *R = W.regs.data() + Fr.regBase + S.slot * 32;
    if (!perLane(S.kind)) { // the same in every lane: computed once
      std::fill_n(R, 32, specialValue(X, W, S, 0, Fr));
      continue;
    }
    for (unsigned L = 0; L < 32; ++L)
      R[L] = specialValue(X, W, S, L, Fr);
  }
}

void setBases(Exec &X, Warp &W) {
  const Frame &Fr = W.frames.back();
  W.base[BaseRegs] = W.regs.data() + Fr.regBase;
  W.base[BaseConsts] = X.consts[Fr.func].data();
}

/// One side of a call's argument or return copy: a frame's param area and registers.
struct FrameSide {
  uint32_t paramBase;
  uint64_t *regs; ///< the frame's registers (for a source, the caller's constants when fromBase
                  ///< is BaseConsts)
};

/// Moves one argument or return value (ParamCopy) for lanes `Mask`: param memory or a register
/// (zero-extended from `size` bytes) on either side.
[[gnu::noinline]] void copyParam(Warp &W, uint32_t Mask, const ParamCopy &C, FrameSide From,
                                 FrameSide To) {
  const uint64_t Keep = C.size >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * C.size)) - 1;
  forLanes(Mask, [&](unsigned L) {
    uint64_t V = 0;
    const uint8_t *Src = W.fparam[L].data() + From.paramBase + C.from;
    if (C.fromReg != ParamCopy::NoReg)
      V = From.regs[C.fromReg + L] & Keep;
    if (C.toReg != ParamCopy::NoReg) {
      if (C.fromReg == ParamCopy::NoReg)
        std::memcpy(&V, Src, std::min<uint32_t>(C.size, 8));
      To.regs[C.toReg + L] = V;
    } else if (C.fromReg != ParamCopy::NoReg) {
      std::memcpy(W.fparam[L].data() + To.paramBase + C.to, &V, std::min<uint32_t>(C.size, 8));
    } else {
      std::memmove(W.fparam[L].data() + To.paramBase + C.to, Src, C.size);
    }
  });
}

/// Why a frame of `F` on top of W's frames overflows the stack limits, or empty: the call depth,
/// the local and param bytes per thread with the frame (Stack), or the registers of all frames
/// (8 bytes per slot).
std::string stackOverflow(const Exec &X, const Warp &W, const DFunction &F, uint64_t Stack) {
  const RunSettings &S = *X.settings;
  const uint64_t Regs = (W.regs.size() / 32 + F.numSlots) * 8;
  const bool Memory = W.frames.size() >= S.maxCallDepth || Stack > S.maxLocalBytesPerThread;
  if (!Memory && Regs <= S.maxRegisterBytesPerThread)
    return {}; // the common case builds no message
  return "stack overflow calling '" + F.name + "' (call depth " + std::to_string(W.frames.size()) +
         ", " +
         (Memory ? std::to_string(Stack) + " bytes of local and param memory per thread)"
                 : std::to_string(Regs) + " bytes of registers per thread)");
}

/// Pushes a frame for function `Func` called by lanes `Mask`; false (trap raised) on overflow.
bool pushFrame(Exec &X, Warp &W, const DInstr &I, uint32_t Func, uint32_t Mask) {
  const DFunction &F = X.prog->funcs[Func];
  const Frame *Caller = W.frames.empty() ? nullptr : &W.frames.back();
  Frame Fr{Func,       Mask,       static_cast<uint32_t>(W.regs.size()),
           W.localTop, W.paramTop, Caller ? static_cast<uint32_t>(&I - X.prog->code.data()) : NoPc};
  uint64_t NewLocal = uint64_t(W.localTop) + F.localBytes;
  uint64_t NewParam = uint64_t(W.paramTop) + F.paramBytes;
  if (std::string Why = stackOverflow(X, W, F, NewLocal + NewParam); !Why.empty()) {
    raiseTrap(X, W, I, TrapKind::StackOverflow, Why, static_cast<uint32_t>(std::countr_zero(Mask)));
    return false;
  }
  W.localTop = static_cast<uint32_t>(NewLocal);
  W.paramTop = static_cast<uint32_t>(NewParam);
  for (unsigned L = 0; L < 32; ++L) {
    if (W.local[L].size() < NewLocal)
      W.local[L].resize(NewLocal);
    if (W.fparam[L].size() < NewParam)
      W.fparam[L].resize(NewParam);
    std::fill(W.local[L].begin() + Fr.localBase, W.local[L].begin() + NewLocal, 0);
    std::fill(W.fparam[L].begin() + Fr.paramBase, W.fparam[L].begin() + NewParam, 0);
  }
  W.regs.resize(W.regs.size() + size_t(F.numSlots) * 32, 0);
  if (Caller) {
    const CallSite &Site = X.prog->calls[I.aux];
    uint64_t *Bases[2] = {W.regs.data() + Caller->regBase, X.consts[Caller->func].data()};
    for (size_t K = 0; K < Site.args.size(); ++K) {
      const ParamCopy C = Site.indirect ? calleeSide(Site.args[K], F.formals[K], false)
                                        : Site.args[K];
      copyParam(W, Mask, C, {Caller->paramBase, Bases[C.fromBase]},
                {Fr.paramBase, W.regs.data() + Fr.regBase});
    }
  }
  W.frames.push_back(Fr);
  fillSpecials(X, W, Fr, false);
  setBases(X, W);
  return true;
}

/// Pops the innermost frame: return values go to the caller's variables. Kept out of settle(),
/// whose common path (nothing to pop) runs after every branch.
[[gnu::noinline]] void popFrame(Exec &X, Warp &W) {
  Frame Fr = W.frames.back();
  W.frames.pop_back();
  if (Fr.callPc != NoPc && !W.frames.empty()) {
    const CallSite &Site = X.prog->calls[X.prog->code[Fr.callPc].aux];
    const Frame &To = W.frames.back();
    const DFunction &Callee = X.prog->funcs[Fr.func];
    for (size_t K = 0; K < Site.rets.size(); ++K) {
      const ParamCopy C = Site.indirect ? calleeSide(Site.rets[K], Callee.returns[K], true)
                                        : Site.rets[K];
      copyParam(W, Fr.callMask & W.liveMask, C, {Fr.paramBase, W.regs.data() + Fr.regBase},
                {To.paramBase, W.regs.data() + To.regBase});
    }
  }
  W.regs.resize(Fr.regBase);
  W.localTop = Fr.localBase;
  W.paramTop = Fr.paramBase;
  if (!W.frames.empty())
    setBases(X, W);
}

/// Pops finished entries (reconverged, or no lanes left); false when the warp is done.
bool settle(Exec &X, Warp &W) {
  while (!W.stack.empty()) {
    StackEntry &T = W.stack.back();
    if (T.mask != 0 && T.pc != T.rpc)
      return true;
    bool Boundary = T.callBoundary;
    W.stack.pop_back();
    if (Boundary)
      popFrame(X, W);
  }
  W.state = WarpState::Done;
  return false;
}

/// Before a divergent branch pushes its paths: the current entry waits at the branch's
/// reconvergence point; without one (the paths finish at exit/ret or meet the outer point) it
/// ends, or gives way to the enclosing entry. Returns the paths' reconvergence pc.
uint32_t splitAt(Warp &W, const DInstr &I) {
  StackEntry &T = W.stack.back();
  if (I.reconv != NoPc) {
    T.pc = I.reconv;
    return I.reconv;
  }
  uint32_t Rpc = T.rpc;
  if (T.callBoundary)
    T.pc = NoPc;
  else
    W.stack.pop_back();
  return Rpc;
}

void branch(Exec &X, Warp &W, const DInstr &I, uint32_t Pc, uint32_t Taken) {
  StackEntry &T = W.stack.back();
  uint32_t Active = T.mask;
  ++X.prof.branches;
  if (Taken == Active) {
    ++X.prof.branchesTaken;
    T.pc = I.target;
    return;
  }
  if (Taken == 0) {
    T.pc = Pc + 1;
    return;
  }
  ++X.prof.branchesTaken;
  ++X.prof.branchesDivergent;
  const uint32_t ChildRpc = splitAt(W, I);
  W.stack.push_back({I.target, ChildRpc, Taken, false});
  W.stack.push_back({Pc + 1, ChildRpc, Active & ~Taken, false});
}

/// brx.idx: lane L of `M` goes to target Index[L] of the instruction's list, the others (guard
/// false) to Pc + 1. Divergent lanes split as for `bra`, one stack entry per distinct target,
/// reconverging at the branch's reconvergence point. False on an index past the list.
[[gnu::noinline]] bool branchIndexed(Exec &X, Warp &W, const DInstr &I, uint32_t Pc,
                                     uint32_t M) {
  const std::vector<uint32_t> &Targets = X.prog->branchLists[I.aux];
  const uint64_t *Index = opPtr(W, I, 0);
  StackEntry &T = W.stack.back();
  const uint32_t Active = T.mask;
  std::vector<std::pair<uint32_t, uint32_t>> Paths; // (pc, lanes), in lane order
  bool Bad = false;
  forLanes(M, [&](unsigned L) {
    if (Bad || Index[L] >= Targets.size()) {
      if (!Bad)
        raiseTrap(X, W, I, TrapKind::OutOfBounds,
                  "brx.idx index " + std::to_string(Index[L]) + " is past its " +
                      std::to_string(Targets.size()) + " targets",
                  L);
      Bad = true;
      return;
    }
    uint32_t To = Targets[Index[L]];
    auto It = std::find_if(Paths.begin(), Paths.end(), [&](auto &P) { return P.first == To; });
    if (It == Paths.end())
      Paths.push_back({To, 1u << L});
    else
      It->second |= 1u << L;
  });
  if (Bad)
    return false;
  if (Active & ~M)
    Paths.push_back({Pc + 1, Active & ~M});
  ++X.prof.branches;
  X.prof.branchesTaken += M != 0;
  if (Paths.size() == 1) {
    T.pc = Paths[0].first;
    return true;
  }
  ++X.prof.branchesDivergent;
  const uint32_t ChildRpc = splitAt(W, I);
  for (size_t K = Paths.size(); K-- > 0;) // the first path runs first
    W.stack.push_back({Paths[K].first, ChildRpc, Paths[K].second, false});
  return true;
}

/// The function lanes `M` of an indirect call call: the one whose address the first of them
/// holds. Lanes that call another function get a stack entry that runs the call again for them
/// once these return; M is narrowed to the first function's lanes. False on an address that
/// is no function's (a trap).
[[gnu::noinline]] bool indirectCallee(Exec &X, Warp &W, const DInstr &I, uint32_t Pc,
                                      uint32_t &M, uint32_t &Func) {
  const uint64_t *Addr = opPtr(W, I, 0);
  uint32_t Same = 0;
  bool Ok = true;
  forLanes(M, [&](unsigned L) {
    uint64_t F = Addr[L] - WindowFunc;
    if (!Ok)
      return;
    if ((Addr[L] >> WindowShift) != (WindowFunc >> WindowShift) || F >= X.prog->funcs.size() ||
        X.prog->funcs[F].isEntry) {
      char Buf[24];
      std::snprintf(Buf, sizeof Buf, "0x%llx", static_cast<unsigned long long>(Addr[L]));
      raiseTrap(X, W, I, TrapKind::OutOfBounds,
                std::string("indirect call of ") + Buf + ", which is no function's address", L);
      Ok = false;
      return;
    }
    if (Same == 0)
      Func = static_cast<uint32_t>(F);
    Same |= uint32_t(F == Func) << L;
  });
  if (!Ok)
    return false;
  if (M & ~Same)
    W.stack.push_back({Pc, Pc + 1, M & ~Same, false});
  M = Same;
  if (std::string Why = callArityError(X.prog->calls[I.aux], X.prog->funcs[Func]); !Why.empty()) {
    raiseTrap(X, W, I, TrapKind::Unsupported, "indirect " + Why,
              static_cast<uint32_t>(std::countr_zero(M)));
    return false;
  }
  return true;
}

/// bar.red: the lanes `M` of this warp add their predicate c to barrier B's reduction.
[[gnu::noinline]] void addToReduction(Exec &X, Warp &W, const DInstr &I, uint32_t B, uint32_t M) {
  uint32_t True = M & guardMask(opPtr(W, I, 2), (I.aux3 >> 4) & 1);
  X.barRedCount[B] += static_cast<uint32_t>(std::popcount(True));
  X.barRedAll[B] = X.barRedAll[B] && True == M;
  X.barRedAny[B] = X.barRedAny[B] || True != 0;
}

/// Lanes `M` leave: from every entry (exit) or from the entries of the current call (ret).
void leave(Warp &W, uint32_t M, bool WholeStack) {
  for (size_t E = W.stack.size(); E-- > 0;) {
    W.stack[E].mask &= ~M;
    if (!WholeStack && W.stack[E].callBoundary)
      break;
  }
  if (WholeStack)
    W.liveMask &= ~M;
}

/// Control-flow instructions; false when the warp stops running (done, barrier, trap).
bool control(Exec &X, Warp &W, const DInstr &I, uint32_t Pc, uint32_t M) {
  StackEntry &T = W.stack.back();
  switch (I.flow) {
  case Flow::Bra:
    branch(X, W, I, Pc, M);
    break;
  case Flow::Brx:
    if (!branchIndexed(X, W, I, Pc, M))
      return false;
    break;
  case Flow::Exit:
  case Flow::Ret:
    T.pc = Pc + 1;
    leave(W, M, I.flow == Flow::Exit || W.frames.size() == 1);
    break;
  case Flow::Call:
    if (M != T.mask) {
      raiseTrap(X, W, I, TrapKind::Unsupported, "call under a partially true guard",
                static_cast<uint32_t>(std::countr_zero(T.mask)));
      return false;
    }
    T.pc = Pc + 1;
    if (!M)
      break;
    {
      uint32_t Func = I.target;
      if (Func == IndirectCall && !indirectCallee(X, W, I, Pc, M, Func))
        return false;
      if (!pushFrame(X, W, I, Func, M))
        return false;
      W.stack.push_back({X.prog->funcs[Func].entry, NoPc, M, true});
    }
    break;
  case Flow::Bar: {
    T.pc = Pc + 1;
    const uint64_t *Id = opPtr(W, I, 0);
    uint32_t Lane = static_cast<uint32_t>(std::countr_zero(T.mask));
    uint64_t B = Id[Lane];
    if (B >= 16) {
      raiseTrap(X, W, I, TrapKind::OutOfBounds, "barrier id " + std::to_string(B) + " > 15", Lane);
      return false;
    }
    uint32_t Expected = X.barExpected[B];
    if (I.aux2)
      Expected = static_cast<uint32_t>(opPtr(W, I, 1)[Lane]);
    X.barExpected[B] = Expected;
    X.barArrived[B] += static_cast<uint32_t>(std::popcount(M));
    if (I.aux3) [[unlikely]]
      addToReduction(X, W, I, static_cast<uint32_t>(B), M);
    if (I.aux == 0 && M) {
      W.state = WarpState::AtBarrier;
      W.barrierId = static_cast<uint32_t>(B);
      return false;
    }
    break;
  }
  case Flow::Wait: // mbarrier.test_wait/try_wait: a wait not over yields, the others run
    T.pc = Pc + 1;
    if (M)
      I.fn(X, W, I, M);
    if (X.trap || W.yieldedInWait)
      return false;
    break;
  case Flow::Trap:
    if (!M)
      break;
    raiseTrap(X, W, I, TrapKind::TrapInstruction, "trap instruction executed",
              static_cast<uint32_t>(std::countr_zero(M)));
    return false;
  case Flow::Unsup:
  default:
    raiseTrap(X, W, I, TrapKind::Unsupported, X.prog->messages[I.msg],
              static_cast<uint32_t>(std::countr_zero(T.mask)));
    return false;
  }
  return settle(X, W);
}

} // namespace

bool initWarp(Exec &X, Warp &W, uint32_t Index, uint32_t Func) {
  uint32_t Threads = X.block[0] * X.block[1] * X.block[2];
  W.index = Index;
  W.state = WarpState::Ready;
  W.yieldState = 0;
  W.liveMask = 0;
  for (unsigned L = 0; L < 32; ++L) {
    uint32_t T = Index * 32 + L;
    if (T < Threads)
      W.liveMask |= 1u << L;
    W.tid[L][0] = T % X.block[0];
    W.tid[L][1] = T / X.block[0] % X.block[1];
    W.tid[L][2] = T / (X.block[0] * X.block[1]);
  }
  W.regs.clear();
  W.frames.clear();
  W.stack.clear();
  W.localTop = W.paramTop = 0;
  DInstr Entry; // stands for the kernel's entry in a stack-overflow trap
  Entry.line = X.prog->funcs[Func].line;
  if (!pushFrame(X, W, Entry, Func, W.liveMask))
    return false;
  W.stack.push_back({X.prog->funcs[Func].entry, NoPc, W.liveMask, true});
  return true;
}

namespace {

/// Backward jumps a warp makes in one turn before the next warp of its CTA runs.
constexpr uint32_t YieldAfterBackJumps = 1u << 16;

/// Appends the operands of compare `I` (lanes `M`) to the trace.
void traceCompare(Exec &X, const Warp &W, const DInstr &I, uint32_t Pc, uint32_t M) {
  CmpRecord &R = X.cmpTrace->emplace_back();
  R.pc = Pc;
  R.warp = W.index;
  R.mask = M;
  uint64_t Keep = I.cmpBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << I.cmpBits) - 1;
  const uint64_t *A = W.base[I.base[1]] + I.op[1], *B = W.base[I.base[2]] + I.op[2];
  forLanes(M, [&](unsigned L) {
    R.a[L] = A[L] & Keep;
    R.b[L] = B[L] & Keep;
  });
}

template <bool Trace> void runWarpLoop(Exec &X, Warp &W) {
  const DInstr *Code = X.prog->code.data();
  uint64_t *WC = X.warpCount.data();
  uint64_t *TC = X.threadCount.data();
  const uint32_t Lo = X.pcLo;
  W.state = WarpState::Ready;
  W.yieldedInWait = false;
  if (!settle(X, W))
    return;
  uint32_t Pc = W.stack.back().pc;
  uint32_t Active = W.stack.back().mask;
  uint32_t Rpc = W.stack.back().rpc;
  uint32_t BackJumps = 0;
  for (;;) {
    const DInstr &I = Code[Pc];
    uint32_t M = Active;
    if (I.guard >= 0)
      M &= guardMask(W.base[BaseRegs] + I.guard, I.guardNeg);
    ++WC[Pc - Lo];
    TC[Pc - Lo] += M == ~0u ? 32 : static_cast<uint32_t>(std::popcount(M));
    if (--X.budgetLeft == 0) {
      raiseTrap(X, W, I, TrapKind::BudgetExceeded,
                "instruction budget of " + std::to_string(X.budget) + " warp instructions exceeded",
                static_cast<uint32_t>(std::countr_zero(Active)));
      return;
    }
    if (I.flow == Flow::Next) [[likely]] {
      if constexpr (Trace)
        if (I.cmpBits)
          traceCompare(X, W, I, Pc, M);
      if (I.readsClock)
        fillSpecials(X, W, W.frames.back(), true);
      if (M)
        I.fn(X, W, I, M);
      if (X.trap) [[unlikely]]
        return;
      if (++Pc != Rpc) [[likely]]
        continue;
      W.stack.back().pc = Pc;
      if (!settle(X, W))
        return;
    } else {
      W.stack.back().pc = Pc;
      if (!control(X, W, I, Pc, M))
        return;
      if (I.loopLatch && X.warpSkip) [[unlikely]]
        X.warpSkip->onLatch(X, W, Pc, Active, M);
      // A warp may wait in a loop for another warp of its CTA to write shared or global
      // memory, without a barrier: yield now and then, as a GPU's warp scheduler would, so
      // the others run. Deterministic: every warp yields after the same number of jumps.
      if (W.stack.back().pc <= Pc && ++BackJumps == YieldAfterBackJumps) [[unlikely]]
        return;
    }
    Pc = W.stack.back().pc;
    Active = W.stack.back().mask;
    Rpc = W.stack.back().rpc;
  }
}

} // namespace

void runWarp(Exec &X, Warp &W) {
  if (X.cmpTrace) [[unlikely]]
    runWarpLoop<true>(X, W);
  else
    runWarpLoop<false>(X, W);
}

bool yieldedUnchanged(const Exec &X, Warp &W) {
  uint64_t H = 14695981039346656037ull; // FNV-1a over the state's bytes
  auto Mix = [&H](const void *P, size_t Bytes) {
    const auto *B = static_cast<const uint8_t *>(P);
    for (size_t I = 0; I < Bytes; ++I)
      H = (H ^ B[I]) * 1099511628211ull;
  };
  for (const StackEntry &E : W.stack) {
    Mix(&E.pc, sizeof E.pc);
    Mix(&E.rpc, sizeof E.rpc);
    Mix(&E.mask, sizeof E.mask);
  }
  // A warp waiting on an mbarrier may count its tries or read a timer while it waits (nvcc's
  // back-off loop for cuda::barrier): its registers change, but it gets no further until a
  // barrier or memory does, so only those count.
  if (!W.yieldedInWait) {
    Mix(W.regs.data(), W.regs.size() * sizeof(uint64_t));
    for (const std::vector<uint8_t> &L : W.local)
      Mix(L.data(), std::min<size_t>(L.size(), W.localTop));
  }
  const uint64_t Stores =
      X.prof.globalStoreRequests + X.prof.sharedStoreRequests + X.mbarrierUpdates;
  Mix(&Stores, sizeof Stores);
  H |= 1; // never 0, the "never yielded" mark
  const bool Same = H == W.yieldState;
  W.yieldState = H;
  return Same;
}

void rebindWarp(Exec &X, Warp &W) {
  if (!W.frames.empty())
    setBases(X, W);
}

} // namespace analyzer
