// Loop-trip extrapolation at barrier releases, the registers it tracks: only those that the
// kernel's loops write and that a warp may read after resuming (docs/fast-mode.md, shortcut 6).
// A period between two releases of a barrier inside a loop runs only pcs inside loops, so the
// other registers cannot change, and a register every path writes before reading it cannot
// matter; the snapshots, the affine check, the hash, the probes and the jump skip them.
#include "Liveness.h"
#include "LoopMath.h"
#include "LoopSkip.h"

#include <algorithm>
#include <cassert>

namespace analyzer {

using namespace loopmath;

void LoopSkipper::prepare(const ProgramImpl &P, uint32_t Func) {
  // The registers written inside any loop of the kernel (a backward branch and the pcs it
  // spans); a period between two releases of a barrier in a loop runs only such pcs, which
  // affine() checks from the per-pc counts. Kernels that call functions keep every register.
  const DFunction &F = P.funcs[Func];
  Compact = Opts.enabled && F.callees.empty() && Pcs.lo == F.entry;
  RegsPerWarp = size_t(F.numSlots) * 32; // one frame: no calls when Compact
  RegDelta.clear(); // affineLive sets the entries outside Live to 0 once per run
  RegAffine.clear();
  if (!Compact) {
    PreparedProg = nullptr;
    return;
  }
  if (PreparedProg == &P && PreparedFunc == Func)
    return; // an earlier run of this launch found the sets below
  InLoop.assign(Pcs.hi - Pcs.lo, 0);
  for (uint32_t Pc = F.entry; Pc < F.end; ++Pc) {
    const DInstr &B = P.code[Pc];
    if (B.flow == Flow::Bra && B.target <= Pc && B.target >= F.entry)
      std::fill(InLoop.begin() + (B.target - Pcs.lo), InLoop.begin() + (Pc + 1 - Pcs.lo), 1);
    if (B.flow == Flow::Brx) // a backward target of brx.idx closes a loop too
      for (uint32_t To : P.branchLists[B.aux])
        if (To <= Pc && To >= F.entry)
          std::fill(InLoop.begin() + (To - Pcs.lo), InLoop.begin() + (Pc + 1 - Pcs.lo), 1);
  }
  std::vector<uint8_t> Written(F.numSlots, 0);
  Written[F.ccSlot / 32] = 1; // carry flag, written implicitly
  for (uint32_t Pc = F.entry; Pc < F.end; ++Pc) {
    const DInstr &I = P.code[Pc];
    if (InLoop[Pc - Pcs.lo])
      forEachRegOperand(P, I, [&](uint32_t Off, bool Writes) {
        if (Writes)
          Written[Off / 32] = 1;
      });
  }
  // Slots no resume point reads (written before read on every path on) need neither tracking
  // nor restoring: their values at a release cannot reach the counts.
  const std::vector<uint8_t> Resume = liveAtResumePoints(P, Func);
  Live.clear();
  Fixed.clear();
  for (uint32_t Slot = 0; Slot < F.numSlots; ++Slot)
    if (Resume[Slot])
      (Written[Slot] ? Live : Fixed).push_back(Slot * 32);
  ProfCounters = profileCounterCount();
  PreparedProg = &P;
  PreparedFunc = Func;
}

void LoopSkipper::copyAllButRegs(Warp &D, const Warp &S) {
  D.stack = S.stack;
  D.frames = S.frames;
  for (unsigned L = 0; L < 32; ++L) {
    D.local[L] = S.local[L];
    D.fparam[L] = S.fparam[L];
  }
  D.localTop = S.localTop;
  D.paramTop = S.paramTop;
  D.liveMask = S.liveMask;
  D.index = S.index;
  std::copy(&S.tid[0][0], &S.tid[0][0] + 32 * 3, &D.tid[0][0]);
  D.state = S.state;
  D.barrierId = S.barrierId;
}

bool LoopSkipper::outsideLoopsIdle() const {
  for (size_t Pc = 0; Pc < InLoop.size(); ++Pc)
    if (!InLoop[Pc] && CounterDelta[ProfCounters + Pc] != 0)
      return false;
  return true;
}

bool LoopSkipper::affineLive(const CtaSnapshot &A, const CtaSnapshot &B, const CtaSnapshot &C) {
  size_t Total = 0;
  for (const Warp &W : C.warps)
    Total += W.regs.size();
  if (RegDelta.size() != Total) { // registers outside Live: constant
    RegDelta.assign(Total, 0);
    RegAffine.assign(Total, 1);
  }
  size_t Flat = 0;
  uint64_t Bad = 0;
  for (size_t W = 0; W < C.warps.size(); ++W) {
    const uint64_t *Ra = A.warps[W].regs.data(), *Rb = B.warps[W].regs.data(),
                   *Rc = C.warps[W].regs.data();
    for (uint32_t Slot : Live) { // one slot's 32 lanes at a time (vectorisable)
      const uint64_t *__restrict A = Ra + Slot, *__restrict B = Rb + Slot,
                                 *__restrict C = Rc + Slot;
      uint64_t *__restrict Delta = RegDelta.data() + Flat + Slot;
      uint8_t *__restrict Affine = RegAffine.data() + Flat + Slot;
      for (unsigned L = 0; L < 32; ++L) {
        uint64_t D = C[L] - B[L], Off = D ^ (B[L] - A[L]);
        Bad |= Off;
        Delta[L] = Off ? 0 : D;
        Affine[L] = Off == 0;
      }
    }
    Flat += C.warps[W].regs.size();
  }
  return !Bad || Opts.relaxed;
}

void LoopSkipper::backupFixed(const std::vector<Warp> &Warps, size_t N) {
  Backup.resize(N);
  for (size_t K = 0; K < N; ++K) {
    Backup[K].resize(Fixed.size() * 32);
    for (size_t I = 0; I < Fixed.size(); ++I)
      std::copy_n(Warps[K].regs.data() + Fixed[I], 32, Backup[K].data() + I * 32);
  }
}

void LoopSkipper::restoreFixed(std::vector<Warp> &Warps, size_t N) const {
  for (size_t K = 0; K < N; ++K)
    for (size_t I = 0; I < Fixed.size(); ++I)
      std::copy_n(Backup[K].data() + I * 32, 32, Warps[K].regs.data() + Fixed[I]);
}

bool LoopSkipper::reuseSteps(const History &H) {
  const Known *Found = knownAt(H.pc);
  if (!Found || Found->period != Period || Found->regDelta.empty())
    return false;
  const Known &K = *Found;
  const CtaSnapshot &A = H.ring[0], &B = H.ring[1];
  if (A.pos != B.pos || A.barArrived != B.barArrived || A.barExpected != B.barExpected ||
      A.shared != B.shared || !sameStructure(A, B.warps, nullptr) ||
      !sameTraceShape(TraceA, K.cmpStep))
    return false;
  CounterDelta.resize(B.counters.size());
  for (size_t C = 0; C < B.counters.size(); ++C)
    CounterDelta[C] = B.counters[C] - A.counters[C];
  size_t Flat = 0;
  uint64_t Off = 0;
  for (size_t W = 0; W < B.warps.size(); ++W) {
    const uint64_t *Ra = A.warps[W].regs.data(), *Rb = B.warps[W].regs.data();
    const size_t E = B.warps[W].regs.size();
    if (Flat + E > K.regDelta.size())
      return false;
    const uint64_t *Step = K.regDelta.data() + Flat;
    forRegs(E, [&](size_t I) { Off |= Rb[I] - Ra[I] - Step[I]; });
    Flat += E;
  }
  if (Off || Flat != K.regDelta.size() || (Compact && !outsideLoopsIdle()))
    return false;
  if (Compact && RegDelta.size() == K.regDelta.size()) {
    copyLive(RegDelta, K.regDelta); // outside Live both are 0, and RegAffine is 1 (affineLive)
    for (size_t W = 0; W + RegsPerWarp <= RegAffine.size(); W += RegsPerWarp)
      for (uint32_t Slot : Live)
        std::fill_n(RegAffine.begin() + ptrdiff_t(W + Slot), 32, uint8_t(1));
  } else {
    RegDelta = K.regDelta;
    RegAffine.assign(RegDelta.size(), 1);
  }
  // This period's compares are the later trace, one step before them the earlier one.
  std::swap(TraceA, TraceB);
  TraceA.resize(TraceB.size());
  for (size_t R = 0; R < TraceB.size(); ++R)
    shiftRecord(TraceA[R], TraceB[R], K.cmpStep[R]);
  return true;
}

void LoopSkipper::copyLive(std::vector<uint64_t> &Dst, const std::vector<uint64_t> &Src) const {
  assert(Dst.size() == Src.size() && Src.size() % RegsPerWarp == 0);
  for (size_t W = 0; W < Src.size(); W += RegsPerWarp)
    for (uint32_t Slot : Live)
      std::copy_n(Src.begin() + ptrdiff_t(W + Slot), 32, Dst.begin() + ptrdiff_t(W + Slot));
}

void LoopSkipper::shiftRecord(CmpRecord &Out, const CmpRecord &From, const CmpRecord &Step) {
  Out.pc = From.pc;
  Out.warp = From.warp;
  Out.mask = From.mask;
  for (unsigned L = 0; L < 32; ++L) {
    Out.a[L] = From.a[L] - Step.a[L];
    Out.b[L] = From.b[L] - Step.b[L];
  }
}

} // namespace analyzer
