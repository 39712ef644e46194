// Loop-trip extrapolation at barrier releases (docs/fast-mode.md, shortcut 6).
//
// Per barrier pc, a linear hash of the CTA state at each release finds the smallest period P
// (releases) over which the state advances affinely (zero second difference). Full snapshots
// P and 2P releases later confirm it exactly (same control state and memory, equal counter
// deltas, every register advancing by the same step) while the two periods run with their
// compares traced. The compare operands bound how many periods keep every compare outcome (so
// the path and the exit) unchanged, registers bound it before any value wraps, and probes (one
// period interpreted from the extrapolated state) verify the first, middle and last of them.
// Then the state jumps: registers += n x step, counters += n x delta.
#include "LoopSkip.h"
#include "LoopMath.h"

#include <algorithm>
#include <cassert>

namespace analyzer {
namespace {

using namespace loopmath;

constexpr uint64_t MinJump = 3; ///< bounds below this are not worth two probes

bool sameEntry(const StackEntry &A, const StackEntry &B) {
  return A.pc == B.pc && A.rpc == B.rpc && A.mask == B.mask && A.callBoundary == B.callBoundary;
}

bool sameFrame(const Frame &A, const Frame &B) {
  return A.func == B.func && A.callMask == B.callMask && A.regBase == B.regBase &&
         A.localBase == B.localBase && A.paramBase == B.paramBase && A.callPc == B.callPc;
}

/// Same control state (and, with `Memory`, the same local and frame-param bytes).
bool sameWarpShape(const Warp &A, const Warp &B, bool Memory) {
  if (A.state != B.state || A.barrierId != B.barrierId || A.liveMask != B.liveMask ||
      A.localTop != B.localTop || A.paramTop != B.paramTop || A.regs.size() != B.regs.size() ||
      A.stack.size() != B.stack.size() || A.frames.size() != B.frames.size())
    return false;
  if (!std::equal(A.stack.begin(), A.stack.end(), B.stack.begin(), sameEntry) ||
      !std::equal(A.frames.begin(), A.frames.end(), B.frames.begin(), sameFrame))
    return false;
  if (!Memory)
    return true;
  for (unsigned L = 0; L < 32; ++L)
    if (!std::equal(A.local[L].begin(), A.local[L].begin() + A.localTop, B.local[L].begin()) ||
        !std::equal(A.fparam[L].begin(), A.fparam[L].begin() + A.paramTop, B.fparam[L].begin()))
      return false;
  return true;
}

} // namespace

PcRange kernelPcRange(const ProgramImpl &P, uint32_t Func) {
  PcRange R{P.funcs[Func].entry, P.funcs[Func].end};
  std::vector<uint8_t> Seen(P.funcs.size(), 0);
  std::vector<uint32_t> Todo{Func};
  Seen[Func] = 1;
  while (!Todo.empty()) {
    const DFunction &F = P.funcs[Todo.back()];
    Todo.pop_back();
    R.lo = std::min(R.lo, F.entry);
    R.hi = std::max(R.hi, F.end);
    for (uint32_t C : F.callees)
      if (!Seen[C]) {
        Seen[C] = 1;
        Todo.push_back(C);
      }
  }
  return R;
}

void LoopSkipper::beginLaunch(PcRange R) {
  Pcs = R;
  Stats = {};
  WarpSkip.beginLaunch(R.lo, R.hi);
  for (History &H : Histories)
    H.pc = NoPc;
}

void LoopSkipper::beginCta() {
  for (History &H : Histories) {
    H.pc = NoPc;
    H.hcount = 0;
    H.knownTried = false;
    H.wait = 0;
    H.backoff = 1;
    H.minPeriod = 1;
  }
  TraceKey = NoPc;
}

void LoopSkipper::readCounters(const Exec &X, std::vector<uint64_t> &Out) const {
  Out.clear();
  forEachCounter(X.prof, [&](uint64_t V) { Out.push_back(V); });
  assert(X.pcLo == Pcs.lo && X.warpCount.size() == Pcs.hi - Pcs.lo &&
         "per-pc counts of the kernel");
  Out.insert(Out.end(), X.warpCount.begin(), X.warpCount.end());
  Out.insert(Out.end(), X.threadCount.begin(), X.threadCount.end());
  Out.push_back(X.budgetLeft);
}

void LoopSkipper::writeCounters(Exec &X, const std::vector<uint64_t> &In) const {
  size_t K = 0;
  forEachCounter(X.prof, [&](uint64_t &V) { V = In[K++]; });
  size_t N = Pcs.hi - Pcs.lo;
  std::copy_n(In.begin() + K, N, X.warpCount.begin());
  std::copy_n(In.begin() + K + N, N, X.threadCount.begin());
  X.budgetLeft = In[K + 2 * N];
}

void LoopSkipper::take(CtaSnapshot &S, const Exec &X, const std::vector<Warp> &W, size_t N,
                       size_t Pos) {
  S.warps.resize(N);
  for (size_t K = 0; K < N; ++K) {
    if (!Compact) {
      S.warps[K] = W[K];
      continue;
    }
    copyAllButRegs(S.warps[K], W[K]); // and of the registers only those loops write
    S.warps[K].regs.resize(W[K].regs.size());
    for (uint32_t Off : Live)
      std::copy_n(W[K].regs.data() + Off, 32, S.warps[K].regs.data() + Off);
  }
  S.shared = X.shared;
  std::copy(std::begin(X.barArrived), std::end(X.barArrived), S.barArrived.begin());
  std::copy(std::begin(X.barExpected), std::end(X.barExpected), S.barExpected.begin());
  readCounters(X, S.counters);
  S.pos = Pos;
}

LoopSkipper::Ledger &LoopSkipper::ledgerFor(uint32_t Pc) {
  for (Ledger &L : Ledgers)
    if (L.pc == Pc)
      return L;
  Ledgers.emplace_back().pc = Pc;
  return Ledgers.back();
}

LoopSkipper::History &LoopSkipper::historyFor(uint32_t Pc) {
  for (History &H : Histories)
    if (H.pc == Pc)
      return H;
  for (History &H : Histories) // reuse a slot (and its buffers) freed by beginCta
    if (H.pc == NoPc) {
      H.pc = Pc;
      return H;
    }
  Histories.emplace_back().pc = Pc;
  return Histories.back();
}

bool LoopSkipper::sameStructure(const CtaSnapshot &A, const std::vector<Warp> &B,
                                const Exec *X) const {
  bool Memory = !Opts.relaxed;
  for (size_t K = 0; K < A.warps.size(); ++K)
    if (!sameWarpShape(A.warps[K], B[K], Memory))
      return false;
  if (!X)
    return true;
  return std::equal(A.barArrived.begin(), A.barArrived.end(), std::begin(X->barArrived)) &&
         std::equal(A.barExpected.begin(), A.barExpected.end(), std::begin(X->barExpected)) &&
         (!Memory || A.shared == X->shared);
}

bool LoopSkipper::affine(const History &H) {
  const CtaSnapshot &A = H.ring[0], &B = H.ring[1], &C = H.ring[2];
  if (A.pos != B.pos || B.pos != C.pos || A.barArrived != C.barArrived ||
      A.barExpected != C.barExpected || B.barArrived != C.barArrived ||
      B.barExpected != C.barExpected || !sameStructure(A, B.warps, nullptr) ||
      !sameStructure(B, C.warps, nullptr))
    return false;
  if (!Opts.relaxed && (A.shared != B.shared || B.shared != C.shared))
    return false;
  CounterDelta.resize(C.counters.size());
  for (size_t K = 0; K < C.counters.size(); ++K) {
    CounterDelta[K] = C.counters[K] - B.counters[K];
    if (CounterDelta[K] != B.counters[K] - A.counters[K])
      return false;
  }
  if (Compact) // only pcs inside loops ran, so only the Live registers can have changed
    return outsideLoopsIdle() && affineLive(A, B, C);
  size_t Total = 0;
  for (const Warp &W : C.warps)
    Total += W.regs.size();
  RegDelta.resize(Total);
  RegAffine.resize(Total);
  size_t Flat = 0;
  for (size_t W = 0; W < C.warps.size(); ++W) {
    const uint64_t *Ra = A.warps[W].regs.data(), *Rb = B.warps[W].regs.data(),
                   *Rc = C.warps[W].regs.data();
    uint64_t *Delta = RegDelta.data() + Flat;
    uint8_t *Affine = RegAffine.data() + Flat;
    size_t E = C.warps[W].regs.size();
    uint64_t Bad = 0; // strict runs: any register off its step fails the period
    for (size_t K = 0; K < E; ++K) {
      uint64_t D = Rc[K] - Rb[K], Off = D ^ (Rb[K] - Ra[K]);
      Bad |= Off;
      Delta[K] = Off ? 0 : D;
      Affine[K] = Off == 0;
    }
    if (Bad && !Opts.relaxed)
      return false;
    Flat += E;
  }
  return true;
}

uint64_t LoopSkipper::compareBound(const Exec &X) const {
  if (!sameTraceShape(TraceA, TraceB))
    return 0;
  uint64_t J = MaxJump;
  for (size_t K = 0; K < TraceB.size() && J; ++K) {
    const CmpRecord &A = TraceA[K], &B = TraceB[K];
    const DInstr &I = X.prog->code[B.pc];
    unsigned W = I.cmpBits;
    uint32_t Moving = 0; // lanes whose operands changed; the others keep their outcome
    for (unsigned L = 0; L < 32; ++L)
      Moving |= uint32_t((A.a[L] != B.a[L]) | (A.b[L] != B.b[L])) << L;
    uint32_t M = B.mask & Moving;
    if (M && I.cmpFloat) // bit patterns of floats: only constant operands are safe
      return 0;
    while (M && J) {
      unsigned L = static_cast<unsigned>(std::countr_zero(M));
      M &= M - 1;
      J = stableCompare(B.a[L], signedStep(A.a[L], B.a[L], W), B.b[L],
                        signedStep(A.b[L], B.b[L], W), W, J);
    }
  }
  return J;
}

uint64_t LoopSkipper::registerBound(const CtaSnapshot &R) const {
  // No register may wrap around 2^32 (values below it: 32-bit registers) or 2^64.
  uint64_t J = MaxJump;
  size_t Flat = 0;
  for (const Warp &W : R.warps) {
    forRegs(W.regs.size(), [&](size_t I) {
      uint64_t V = W.regs[I], D = RegDelta[Flat + I];
      if (D == 0)
        return;
      I128 Hi = V < (uint64_t(1) << 32) ? I128(1) << 32 : I128(1) << 64;
      J = stayInside(V, static_cast<int64_t>(D), 0, Hi, J);
    });
    Flat += W.regs.size();
  }
  return J;
}

void LoopSkipper::materialize(Exec &X, std::vector<Warp> &Warps, size_t N, const CtaSnapshot &R,
                              uint64_t M) {
  size_t Flat = 0;
  for (size_t K = 0; K < N; ++K) {
    const Warp &S = R.warps[K];
    Warp &W = Warps[K];
    copyAllButRegs(W, S);
    W.regs.resize(S.regs.size());
    const uint64_t *Src = S.regs.data(), *Step = RegDelta.data() + Flat;
    uint64_t *Dst = W.regs.data();
    forRegs(S.regs.size(), [&](size_t I) { Dst[I] = Src[I] + M * Step[I]; });
    Flat += S.regs.size();
    rebindWarp(X, W);
  }
  X.shared = R.shared;
  std::copy(R.barArrived.begin(), R.barArrived.end(), std::begin(X.barArrived));
  std::copy(R.barExpected.begin(), R.barExpected.end(), std::begin(X.barExpected));
  Scratch.resize(R.counters.size());
  for (size_t K = 0; K < Scratch.size(); ++K)
    Scratch[K] = R.counters[K] + M * CounterDelta[K];
  writeCounters(X, Scratch);
}

bool LoopSkipper::probe(Exec &X, std::vector<Warp> &Warps, size_t N, const CtaSnapshot &R,
                        uint64_t M) {
  ++Stats.probes;
  materialize(X, Warps, N, R, M);
  // At most one iteration's instructions: a shifted budget keeps %clock as it is.
  uint64_t PerIter = 0 - CounterDelta.back();
  Stats.probeWarpInstructions += PerIter;
  uint64_t SavedBudget = X.budget;
  X.budget = X.budget - X.budgetLeft + PerIter + 1;
  X.budgetLeft = PerIter + 1;
  readCounters(X, ProbeStart);
  TraceP.clear();
  X.cmpTrace = &TraceP;
  size_t Pos = R.pos;
  bool Ok = false;
  uint32_t Seen = 0;
  for (;;) {
    ++Pos;
    uint32_t Pc = NoPc;
    if (advanceCta(X, Warps, N, Pos, Pc) != CtaEvent::Released)
      break;
    if (Pc != TraceKey || ++Seen < Period)
      continue;
    Ok = Pos == R.pos && sameStructure(R, Warps, &X);
    size_t Flat = 0;
    for (size_t K = 0; K < N && Ok; ++K) { // affine registers at S + (M + 1) D, branch-free
      const uint64_t *Now = Warps[K].regs.data(), *From = R.warps[K].regs.data(),
                     *Step = RegDelta.data() + Flat;
      const uint8_t *Affine = RegAffine.data() + Flat;
      size_t E = Warps[K].regs.size();
      uint64_t Off = 0;
      forRegs(E, [&](size_t S) {
        Off |= (Now[S] - From[S] - (M + 1) * Step[S]) & (0 - uint64_t(Affine[S]));
      });
      Ok = Off == 0;
      Flat += E;
    }
    readCounters(X, Scratch);
    for (size_t K = 0; K < Scratch.size() && Ok; ++K)
      Ok = Scratch[K] - ProbeStart[K] == CounterDelta[K];
    Ok = Ok && sameTraceShape(TraceP, TraceB);
    for (size_t K = 0; K < TraceP.size() && Ok; ++K) {
      uint64_t Keep = widthMask(X.prog->code[TraceP[K].pc].cmpBits);
      const CmpRecord &A = TraceA[K], &B = TraceB[K], &P = TraceP[K];
      forLanes(P.mask, [&](unsigned L) {
        Ok = Ok && P.a[L] == ((B.a[L] + (M + 1) * (B.a[L] - A.a[L])) & Keep) &&
             P.b[L] == ((B.b[L] + (M + 1) * (B.b[L] - A.b[L])) & Keep);
      });
    }
    break;
  }
  X.cmpTrace = nullptr;
  X.trap.reset();
  X.budget = SavedBudget;
  if (!Ok && Compact)       // a failed probe may have left the loops: restore what Live leaves out
    restoreFixed(Warps, N); // (the next materialize() sets the Live registers)
  return Ok;
}

uint64_t LoopSkipper::attempt(Exec &X, std::vector<Warp> &Warps, size_t N, const CtaSnapshot &R) {
  uint64_t PerIter = 0 - CounterDelta.back();
  uint64_t Left = R.counters.back();
  if (PerIter == 0 || Left / PerIter < 2)
    return 0;
  uint64_t Bound = std::min({compareBound(X), registerBound(R), Left / PerIter - 2});
  if (Bound < MinJump)
    return 0;
  if (Compact) // the registers Live leaves out, for a probe that fails
    backupFixed(Warps, N);
  // Skipping n iterations needs probes m = 0 .. n-1 to pass; the first failing one bounds n.
  // The middle and the last are run (the two confirmed periods already stand for m = 0); after
  // a failure m = 0 is run too, so that the search below starts from a period that passed.
  uint64_t Bad = Bound;
  for (uint64_t M : {(Bound - 1) / 2, Bound - 1})
    if (M < Bad && !probe(X, Warps, N, R, M))
      Bad = M;
  if (Bad < Bound && Bad > 0 && !probe(X, Warps, N, R, 0))
    Bad = 0;
  uint64_t N1 = Bound;
  if (Bad < Bound) {
    uint64_t Lo = 0, Hi = Bad; // largest passing m in [0, Hi): binary search
    if (Bad == 0) {
      N1 = 0;
    } else {
      while (Hi - Lo > 1) {
        uint64_t Mid = Lo + (Hi - Lo) / 2;
        if (probe(X, Warps, N, R, Mid))
          Lo = Mid;
        else
          Hi = Mid;
      }
      N1 = Lo + 1;
    }
  }
  materialize(X, Warps, N, R, N1);
  return N1;
}

uint64_t LoopSkipper::linearHash(const Exec &X, const std::vector<Warp> &Warps, size_t N,
                                 bool WithRegisters) {
  // Linear in the state: H(S + D) = H(S) + H(D) (mod 2^64), so an affine sequence of states
  // has a zero second difference. Per-element odd multipliers from the element's index.
  uint64_t H = 0, I = 0;
  auto Add = [&](uint64_t V) {
    uint64_t C = (++I) * 0x9E3779B97F4A7C15ull;
    H += V * ((C ^ (C >> 29)) | 1);
  };
  if (WithRegisters) {
    // Four lanes of every register: a candidate period is confirmed on every lane anyway, so
    // a lane the hash misses costs at most a failed confirmation.
    for (size_t K = 0; K < N; ++K) {
      const std::vector<uint64_t> &R = Warps[K].regs;
      if (Compact) {
        for (uint32_t Slot : Live)
          for (unsigned L : {0u, 9u, 22u, 31u})
            Add(R[Slot + L]);
        continue;
      }
      for (size_t Slot = 0; Slot + 32 <= R.size(); Slot += 32)
        for (unsigned L : {0u, 9u, 22u, 31u})
          Add(R[Slot + L]);
    }
    for (size_t B = 0; B + 8 <= X.shared.size(); B += 8) {
      uint64_t V;
      std::memcpy(&V, X.shared.data() + B, 8);
      Add(V);
    }
  }
  readCounters(X, Scratch);
  for (uint64_t V : Scratch)
    Add(V);
  return H;
}

uint64_t LoopSkipper::shapeHash(const Exec &X, const std::vector<Warp> &Warps, size_t N,
                                size_t Pos) const {
  uint64_t H = Pos;
  auto Mix = [&](uint64_t V) { H = (H ^ V) * 0x100000001B3ull + (H >> 31); };
  for (size_t K = 0; K < N; ++K) {
    const Warp &W = Warps[K];
    Mix(uint64_t(W.state) | uint64_t(W.barrierId) << 8 | uint64_t(W.liveMask) << 32);
    Mix(W.localTop | uint64_t(W.paramTop) << 32);
    for (const StackEntry &E : W.stack) {
      Mix(E.pc | uint64_t(E.rpc) << 32);
      Mix(E.mask | uint64_t(E.callBoundary) << 32);
    }
    Mix(W.frames.size());
  }
  for (unsigned B = 0; B < 16; ++B)
    Mix(X.barArrived[B] | uint64_t(X.barExpected[B]) << 32);
  return H;
}

uint32_t LoopSkipper::findPeriod(const History &H) const {
  auto At = [&](uint32_t Back) {
    return H.hashes[(H.head + H.hashes.size() - 1 - Back) % H.hashes.size()];
  };
  uint32_t Known = knownPeriod(H.pc);
  // P + 1 phases, so that the 3P + 1 releases compared span more than one of the loop's real
  // periods: a sub-period (one row of a window's taps) is affine inside a period, not across.
  for (uint32_t P = H.minPeriod; P <= MaxPeriod && 3 * P < H.hcount; ++P) {
    if (Opts.relaxed && P != 1 && P != Known)
      continue;
    bool Affine = true;
    for (uint32_t S = 0; S <= P && Affine; ++S) {
      HashPair A = At(S), B = At(S + P), C = At(S + 2 * P);
      Affine = A.shape == B.shape && B.shape == C.shape && A.lin - 2 * B.lin + C.lin == 0;
    }
    if (Affine)
      return P;
  }
  return 0;
}

const LoopSkipper::Known *LoopSkipper::knownAt(uint32_t Pc) const {
  for (const Known &K : KnownPeriods)
    if (K.pc == Pc)
      return &K;
  return nullptr;
}

uint32_t LoopSkipper::knownPeriod(uint32_t Pc) const {
  const Known *K = knownAt(Pc);
  return K ? K->period : 0;
}

bool LoopSkipper::knownPending() const {
  for (const History &G : Histories)
    if (G.pc != NoPc && G.hcount && !G.knownTried && !G.wait && knownPeriod(G.pc))
      return true;
  return false;
}

void LoopSkipper::onRelease(Exec &X, std::vector<Warp> &Warps, size_t N, size_t Pos, uint32_t Pc) {
  if (TraceKey != NoPc) {
    if (Pc == TraceKey)
      confirm(X, Warps, N, Pos);
    return;
  }
  if (ledgerFor(Pc).unprofitable())
    return;
  History &H = historyFor(Pc);
  if (H.wait) { // no period lately: look again later
    --H.wait;
    return;
  }
  // A period that led to a jump before (in another CTA): confirm it once a whole period has
  // run (registers written only on some phases hold stale values before that). Until then the
  // releases of that key are only counted, and other keys wait for it (no hashing). With known
  // steps (strict runs) it starts at once: a first period that moved off those steps is taken
  // for the stale one, and the confirmation starts over from its end (confirm()).
  if (uint32_t Known = knownPeriod(Pc); Known && !H.knownTried) {
    bool AtOnce = !Opts.relaxed && !knownAt(Pc)->regDelta.empty();
    if (++H.hcount == (AtOnce ? 1 : Known + 1)) {
      H.knownTried = true;
      startConfirm(X, Warps, N, Pos, H, Known);
      Early = AtOnce;
    }
    return;
  }
  if (knownPending())
    return;
  if (H.hashes.empty())
    H.hashes.resize(2 * MaxPeriod + 1);
  H.hashes[H.head] = {linearHash(X, Warps, N, !Opts.relaxed), shapeHash(X, Warps, N, Pos)};
  H.head = (H.head + 1) % H.hashes.size();
  H.hcount = std::min<uint32_t>(H.hcount + 1, static_cast<uint32_t>(H.hashes.size()));
  uint32_t P = findPeriod(H);
  if (!P) {
    if (H.hcount == H.hashes.size()) { // a whole window without a period: back off
      H.hcount = 0;
      H.wait = H.backoff * static_cast<uint32_t>(H.hashes.size());
      H.backoff = std::min<uint32_t>(H.backoff * 2, 8);
    }
    return;
  }
  startConfirm(X, Warps, N, Pos, H, P);
}

void LoopSkipper::startConfirm(Exec &X, const std::vector<Warp> &Warps, size_t N, size_t Pos,
                               History &H, uint32_t P) {
  // Candidate: confirm with full snapshots P and 2P releases later, tracing compares.
  TraceKey = H.pc;
  Period = P;
  Step = 0;
  Early = false;
  H.hcount = 0;
  take(H.ring[0], X, Warps, N, Pos);
  TraceA.clear();
  X.cmpTrace = &TraceA;
}

void LoopSkipper::confirm(Exec &X, std::vector<Warp> &Warps, size_t N, size_t Pos) {
  History &H = historyFor(TraceKey);
  if (++Step % Period != 0)
    return;
  if (Step == Period) {
    take(H.ring[1], X, Warps, N, Pos);
    if (!Opts.relaxed && reuseSteps(H)) { // a known key that moved as before: jump now
      X.cmpTrace = nullptr;
      finish(X, Warps, N, H, &H.ring[1]);
      return;
    }
    if (Early) { // the first period since the loop began: start over from its end
      Early = false;
      std::swap(H.ring[0], H.ring[1]);
      Step = 0;
      TraceA.clear();
      return;
    }
    TraceB.clear();
    X.cmpTrace = &TraceB;
    return;
  }
  X.cmpTrace = nullptr;
  take(H.ring[2], X, Warps, N, Pos);
  finish(X, Warps, N, H, affine(H) ? &H.ring[2] : nullptr);
}

void LoopSkipper::finish(Exec &X, std::vector<Warp> &Warps, size_t N, History &H,
                         const CtaSnapshot *Try) {
  const uint64_t Probes = Stats.probes;
  const uint64_t Skipped = Try ? attempt(X, Warps, N, *Try) : 0;
  Ledger &L = ledgerFor(TraceKey);
  ++L.tries;
  L.saved += Skipped * Period;
  L.spent += (Stats.probes - Probes + 1) * Period;
  settle(H, Skipped);
}

void LoopSkipper::settle(History &H, uint64_t Skipped) {
  if (Skipped) {
    Stats.iterationsSkipped += Skipped * Period;
    Stats.skippedWarpInstructions += Skipped * (0 - CounterDelta.back());
    ++Stats.skips;
    if (!Opts.relaxed && Skipped >= MinJump)
      remember(TraceKey);
  }
  if (Skipped < MinJump) // short or none: a multiple of this period may be the loop's
    H.minPeriod = Period + 1;
  // The state jumped (or this candidate failed): every key starts over; a failed one waits.
  for (History &G : Histories)
    G.hcount = 0;
  if (!Skipped) {
    H.wait = H.backoff * Period;
    H.backoff = std::min<uint32_t>(H.backoff * 2, 8);
  } else {
    H.backoff = 1;
    for (History &G : Histories)
      G.knownTried = false;
  }
  TraceKey = NoPc;
}

void LoopSkipper::remember(uint32_t Pc) {
  const Known *Found = knownAt(Pc);
  Known &K =
      Found ? KnownPeriods[size_t(Found - KnownPeriods.data())] : KnownPeriods.emplace_back();
  K.pc = Pc;
  K.period = Period;
  if (Compact && K.regDelta.size() == RegDelta.size())
    copyLive(K.regDelta, RegDelta); // outside Live both are 0
  else
    K.regDelta = RegDelta;
  K.cmpStep.resize(TraceB.size()); // the compare operands' steps per period: B - A
  for (size_t R = 0; R < TraceB.size(); ++R)
    shiftRecord(K.cmpStep[R], TraceB[R], TraceA[R]);
}

} // namespace analyzer
