// Loop-trip extrapolation for barrier-free loops of one warp (docs/fast-mode.md, shortcut 6b).
//
// The loop is a backward branch whose body [target, branch) is straight-line code without
// stores, barriers, calls, warp-wide operations or loads other than ld.global / ld.shared, and
// whose registers are each written once. With abstract memory reading zeros (and shared memory
// all zero), every loaded value is 0 in every iteration. Three consecutive iterations of one
// warp (same active lanes, branching back uniformly) give the state at their ends; if every
// register the body writes advances by the same step per lane in both, and every counter by the
// same delta, the state is affine in the iteration. The compares of the body bound how many
// more iterations keep every outcome (so every guard and the exit); registers bound it before
// they wrap; each load's address must advance by the same step in every lane, a multiple of
// 32 bytes (global: the same sectors, shifted) or 4 bytes (shared: the same words and bank
// histogram, shifted), and stay in its buffer. Probes run the middle and the last iteration
// from the extrapolated state; then registers += n x step and counters += n x delta. A later run
// of a latch whose body was proven affine jumps after two iterations when they move by the
// steps that proof confirmed, with the same factors (knownSteps).
#include "WarpLoopSkip.h"
#include "LoopMath.h"
#include "LoopSkip.h"
#include "Memory.h"
#include "WarpRunner.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace analyzer {
namespace {

using namespace loopmath;

constexpr uint64_t MinJump = 4;  ///< bounds below this are not worth two probes
constexpr uint32_t MaxWait = 64; ///< latches let pass at most after attempts that failed

bool allowedInBody(const DInstr &I) {
  using C = ptx::InstrClass;
  if (I.flow != Flow::Next || I.readsClock)
    return false;
  switch (I.cls) {
  case C::LdGlobal:
  case C::LdShared:
    return plainLoad(I);
  case C::StGlobal:
  case C::StShared:
  case C::StLocal:
  case C::StParam:
  case C::LdLocal:
  case C::LdConst:
  case C::LdParam:
  case C::Atomic:
  case C::Barrier:
  case C::Control:
  case C::Warp:
  case C::Tensor:
  case C::Other:
    return false;
  default:
    return true;
  }
}

/// The active lanes for which instruction I's guard holds now.
uint32_t guardOf(const Warp &W, const DInstr &I, uint32_t Active) {
  return I.guard < 0 ? Active : Active & guardMask(W.base[BaseRegs] + I.guard, I.guardNeg);
}

/// Every byte is 0: or-ed a block at a time (vectorised), stopping at the first block with a set
/// bit.
bool allZero(const std::vector<uint8_t> &Bytes) {
  constexpr size_t Words = 32;
  const uint8_t *P = Bytes.data();
  const size_t N = Bytes.size();
  size_t I = 0;
  for (; I + Words * 8 <= N; I += Words * 8) {
    uint64_t Any = 0;
    for (size_t K = 0; K < Words; ++K) {
      uint64_t V;
      std::memcpy(&V, P + I + K * 8, 8);
      Any |= V;
    }
    if (Any)
      return false;
  }
  uint8_t Any = 0;
  for (; I < N; ++I)
    Any |= P[I];
  return Any == 0;
}

} // namespace

void markLoopLatches(ProgramImpl &P, uint32_t First, uint32_t End) {
  for (uint32_t Pc = First; Pc < End; ++Pc) {
    DInstr &B = P.code[Pc];
    if (B.flow != Flow::Bra || B.target > Pc || B.target < First)
      continue;
    bool Ok = B.target < Pc;
    for (uint32_t Q = B.target; Q < Pc && Ok; ++Q)
      Ok = allowedInBody(P.code[Q]);
    B.loopLatch = Ok;
  }
}

WarpLoopSkipper::WarpLoopSkipper(LoopSkipStats &S)
    : Stats(S), ProfileCounters(profileCounterCount()) {}

void WarpLoopSkipper::beginLaunch(uint32_t Lo, uint32_t Hi) {
  PcLo = Lo;
  LoopAt.assign(Hi - Lo, 0);
  Loops.clear();
  TrackPc = NoPc;
}

/// A register written twice has no single value per iteration: it may feed arithmetic, but not
/// a compare, a guard or an address, whose values the bound and the checks derive.
bool WarpLoopSkipper::readsAmbiguous(const std::vector<DInstr> &Code, const Loop &L,
                                     const std::vector<uint32_t> &Twice) {
  auto WrittenTwice = [&](uint8_t Base, uint32_t Off) {
    return Base == BaseRegs && std::find(Twice.begin(), Twice.end(), Off) != Twice.end();
  };
  for (uint32_t Q = L.head; Q <= L.latch; ++Q) {
    const DInstr &I = Code[Q];
    bool Load = I.cls == ptx::InstrClass::LdGlobal || I.cls == ptx::InstrClass::LdShared;
    if ((I.guard >= 0 && WrittenTwice(BaseRegs, uint32_t(I.guard))) ||
        (I.cmpBits && (WrittenTwice(I.base[1], I.op[1]) || WrittenTwice(I.base[2], I.op[2]))) ||
        (Load && WrittenTwice(I.base[I.aux2], I.op[I.aux2])))
      return true;
  }
  return false;
}

WarpLoopSkipper::Loop &WarpLoopSkipper::loopFor(const Exec &X, uint32_t Pc) {
  uint32_t &At = LoopAt[Pc - PcLo];
  if (At)
    return Loops[At - 1];
  Loop &L = Loops.emplace_back();
  At = static_cast<uint32_t>(Loops.size());
  const std::vector<DInstr> &Code = X.prog->code;
  L.head = Code[Pc].target;
  L.latch = Pc;
  L.ok = true;
  L.slots.push_back(X.prog->funcs[Code[Pc].func].ccSlot); // the hidden carry flag
  L.firstWrite.push_back(L.head);
  std::vector<uint32_t> Twice; // slots written by two instructions of the body
  for (uint32_t Q = L.head; Q < Pc; ++Q) {
    const DInstr &I = Code[Q];
    for (unsigned K = 0; K < I.nops; ++K) {
      if (!I.writesReg(K))
        continue;
      if (std::find(L.slots.begin() + 1, L.slots.end(), I.op[K]) != L.slots.end()) {
        Twice.push_back(I.op[K]);
        continue;
      }
      L.slots.push_back(I.op[K]);
      L.firstWrite.push_back(Q);
    }
  }
  L.ok = !readsAmbiguous(Code, L, Twice);
  for (uint32_t Q = L.head; Q < Pc && L.ok; ++Q) {
    const DInstr &I = Code[Q];
    for (unsigned K = 0; K < I.nops; ++K)
      if (I.readsReg(K))
        if (Loop::Use U = use(L, Q, BaseRegs, I.op[K]); U.slot >= 0)
          L.inputs.push_back({Q, K, uint32_t(U.slot)});
    if (I.linear == 2 || I.linear == 3)
      for (unsigned K = I.linear == 2 ? 1 : 2; K <= 2; ++K)
        if (I.base[K] == BaseRegs)
          L.factors.push_back({K, use(L, Q, BaseRegs, I.op[K])});
    if (I.cmpBits)
      L.compares.push_back({use(L, Q, I.base[1], I.op[1]), use(L, Q, I.base[2], I.op[2])});
    if (I.cls == ptx::InstrClass::LdGlobal || I.cls == ptx::InstrClass::LdShared)
      L.loads.push_back(use(L, Q, I.base[I.aux2], I.op[I.aux2]));
  }
  return L;
}

WarpLoopSkipper::Loop::Use WarpLoopSkipper::use(const Loop &L, uint32_t Pc, uint8_t Base,
                                                uint32_t Off) const {
  Loop::Use U;
  U.pc = Pc;
  U.base = Base;
  U.off = Off;
  if (Base != BaseRegs)
    return U;
  auto It = std::find(L.slots.begin(), L.slots.end(), Off);
  if (It == L.slots.end())
    return U;
  U.slot = static_cast<int>(It - L.slots.begin());
  // Written at or after Pc: the instruction reads the previous iteration's value.
  U.previous = L.firstWrite[size_t(U.slot)] >= Pc;
  return U;
}

void WarpLoopSkipper::take(const Exec &X, const Warp &W, const Loop &L, Snap &S) const {
  S.regs.resize(L.slots.size() * 32);
  for (size_t K = 0; K < L.slots.size(); ++K)
    std::memcpy(S.regs.data() + K * 32, W.base[BaseRegs] + L.slots[K], 32 * sizeof(uint64_t));
  const size_t Body = L.latch + 1 - L.head;
  S.counters.resize(ProfileCounters + 2 * Body + 1);
  uint64_t *C = S.counters.data();
  forEachCounter(X.prof, [&](uint64_t V) { *C++ = V; });
  for (uint32_t Pc = L.head; Pc <= L.latch; ++Pc) {
    *C++ = X.warpCount[Pc - X.pcLo];
    *C++ = X.threadCount[Pc - X.pcLo];
  }
  *C = X.budgetLeft;
}

bool WarpLoopSkipper::affine(const Loop &L) {
  // Sized for this loop before any early return: a failed attempt restores the state through
  // setState(0), which reads a step per slot (a loop whose sector counts alternate failed here
  // with RegDelta still empty or sized for another loop).
  const size_t Slots = L.slots.size();
  RegDelta.assign(Slots * 32, 0);
  Varies.assign(Slots, 0);
  CounterDelta.resize(S[2].counters.size());
  for (size_t K = 0; K < CounterDelta.size(); ++K) {
    CounterDelta[K] = S[2].counters[K] - S[1].counters[K];
    if (CounterDelta[K] != S[1].counters[K] - S[0].counters[K])
      return false;
  }
  uint64_t Off = 0;
  for (size_t K = 0; K < Slots; ++K) { // one slot's 32 lanes at a time (vectorisable)
    const uint64_t *__restrict A = S[0].regs.data() + K * 32;
    const uint64_t *__restrict B = S[1].regs.data() + K * 32;
    const uint64_t *__restrict C = S[2].regs.data() + K * 32;
    uint64_t *__restrict D = RegDelta.data() + K * 32;
    uint64_t Any = 0;
    for (unsigned Ln = 0; Ln < 32; ++Ln) {
      D[Ln] = C[Ln] - B[Ln];
      Off |= D[Ln] ^ (B[Ln] - A[Ln]);
      Any |= D[Ln];
    }
    Varies[K] = Any != 0;
  }
  return Off == 0;
}

void WarpLoopSkipper::factorValues(const Warp &W, const Loop &L, std::vector<uint64_t> &Out) const {
  for (const auto &[K, U] : L.factors)
    if (U.slot < 0 || !Varies[size_t(U.slot)])
      Out.insert(Out.end(), W.base[BaseRegs] + U.off, W.base[BaseRegs] + U.off + 32);
}

bool WarpLoopSkipper::knownSteps(const Warp &W, const Loop &L) {
  const size_t Counters = S[1].counters.size(), Regs = S[1].regs.size();
  if (L.knownRegs.size() != Regs || L.knownCounters.size() != Counters)
    return false; // no proven jump yet
  // Compared in place, with every difference or-ed together (vectorisable): this runs at every
  // second latch of every run of a loop with known steps.
  uint64_t Off = 0;
  for (size_t K = 0; K < Counters; ++K)
    Off |= (S[1].counters[K] - S[0].counters[K]) ^ L.knownCounters[K];
  for (size_t K = 0; K < Regs; ++K)
    Off |= (S[1].regs[K] - S[0].regs[K]) ^ L.knownRegs[K];
  if (Off)
    return false;
  size_t At = 0; // the factors that did not vary, in the order factorValues appends them
  for (const auto &[K, U] : L.factors) {
    if (U.slot >= 0 && L.knownVaries[size_t(U.slot)])
      continue;
    if (At + 32 > L.knownFactors.size() ||
        std::memcmp(W.base[BaseRegs] + U.off, L.knownFactors.data() + At, 32 * sizeof(uint64_t)))
      return false;
    At += 32;
  }
  if (At != L.knownFactors.size())
    return false;
  RegDelta = L.knownRegs;
  CounterDelta = L.knownCounters;
  Varies = L.knownVaries;
  return true;
}

bool WarpLoopSkipper::provenAffine(const Exec &X, const Loop &L) const {
  for (size_t K = 0; K < L.inputs.size();) {
    const uint32_t Pc = L.inputs[K][0];
    uint32_t VaryingOps = 0; // bit per operand index
    for (; K < L.inputs.size() && L.inputs[K][0] == Pc; ++K)
      if (Varies[L.inputs[K][2]])
        VaryingOps |= 1u << L.inputs[K][1];
    if (!VaryingOps)
      continue;
    const DInstr &I = X.prog->code[Pc];
    bool Ok = I.cmpBits != 0 || I.cls == ptx::InstrClass::LdGlobal ||
              I.cls == ptx::InstrClass::LdShared || I.linear == 1 ||
              (I.linear == 2 && std::popcount(VaryingOps & 6u) <= 1) ||
              (I.linear == 3 && !(VaryingOps & 4u));
    if (!Ok)
      return false;
  }
  return true;
}

uint64_t WarpLoopSkipper::valueAt(const Warp &W, const Loop::Use &U, unsigned Lane,
                                  int64_t &Step) const {
  const uint64_t V = W.base[U.base][U.off + Lane];
  if (U.slot < 0) {
    Step = 0; // not written by the body: the same in every iteration
    return V;
  }
  uint64_t D = RegDelta[size_t(U.slot) * 32 + Lane];
  Step = static_cast<int64_t>(D);
  return U.previous ? V - D : V;
}

uint64_t WarpLoopSkipper::bound(const Exec &X, const Warp &W, const Loop &L,
                                uint32_t Active) const {
  uint64_t J = MaxJump;
  for (size_t C = 0; C < L.compares.size() && J; ++C) {
    const auto &[UA, UB] = L.compares[C];
    const DInstr &I = X.prog->code[UA.pc];
    const uint64_t Keep = widthMask(I.cmpBits);
    uint32_t M = guardOf(W, I, Active);
    bool Seen = false;
    uint64_t LastA = 0, LastB = 0;
    int64_t LastDA = 0, LastDB = 0;
    for (unsigned Ln = 0; Ln < 32 && J; ++Ln) {
      if (!((M >> Ln) & 1))
        continue;
      int64_t DA = 0, DB = 0;
      uint64_t A = valueAt(W, UA, Ln, DA) & Keep, B = valueAt(W, UB, Ln, DB) & Keep;
      if (I.cmpFloat) { // bit patterns of floats: only constant operands are safe
        if (DA || DB)
          return 0;
        continue;
      }
      if (Seen && A == LastA && B == LastB && DA == LastDA && DB == LastDB)
        continue; // the same bound as the previous lane (uniform operands)
      Seen = true;
      LastA = A;
      LastB = B;
      LastDA = DA;
      LastDB = DB;
      J = stableCompare(A, signedStep(A, A + uint64_t(DA), I.cmpBits), B,
                        signedStep(B, B + uint64_t(DB), I.cmpBits), I.cmpBits, J);
    }
  }
  // No register may wrap: values below 2^16 stay below it (16-bit registers), below 2^32 below
  // that (32-bit registers), others below 2^64.
  for (size_t Slot = 0; Slot < L.slots.size() && J; ++Slot) {
    if (!Varies[Slot])
      continue;
    for (size_t K = Slot * 32; K < Slot * 32 + 32 && J; ++K) {
      if (RegDelta[K] == 0)
        continue;
      uint64_t V = last().regs[K];
      I128 Hi = V < (uint64_t(1) << 16)   ? I128(1) << 16
                : V < (uint64_t(1) << 32) ? I128(1) << 32
                                          : I128(1) << 64;
      J = stayInside(V, static_cast<int64_t>(RegDelta[K]), 0, Hi, J);
    }
  }
  return J;
}

bool WarpLoopSkipper::memoryInvariant(const Exec &X, const Warp &W, const Loop &L,
                                      uint32_t Active) const {
  if (X.dev->pattern != AbstractPattern::Zero)
    return false;
  if (!allZero(X.shared)) // shared memory must read zeros too
    return false;
  for (const Loop::Use &U : L.loads) {
    if (U.slot < 0)
      continue; // the same address every iteration
    const DInstr &I = X.prog->code[U.pc];
    const uint64_t *D = RegDelta.data() + size_t(U.slot) * 32;
    uint32_t M = guardOf(W, I, Active);
    if (!M)
      continue;
    uint64_t First = D[std::countr_zero(M)], Off = 0;
    for (unsigned Ln = 0; Ln < 32; ++Ln)
      Off |= ((M >> Ln) & 1) ? D[Ln] ^ First : 0;
    uint64_t Unit = I.cls == ptx::InstrClass::LdGlobal ? 32 : 4;
    if (Off || static_cast<int64_t>(First) % static_cast<int64_t>(Unit) != 0)
      return false;
  }
  return true;
}

void WarpLoopSkipper::setState(Exec &X, Warp &W, const Loop &L, uint64_t M) const {
  for (size_t K = 0; K < L.slots.size(); ++K) {
    uint64_t *__restrict R = W.base[BaseRegs] + L.slots[K];
    const uint64_t *__restrict From = last().regs.data() + K * 32;
    const uint64_t *__restrict Step = RegDelta.data() + K * 32;
    for (unsigned Ln = 0; Ln < 32; ++Ln)
      R[Ln] = From[Ln] + M * Step[Ln];
  }
  const uint64_t *C = last().counters.data(), *Delta = CounterDelta.data();
  size_t I = 0;
  auto Next = [&] {
    uint64_t V = C[I] + M * Delta[I];
    ++I;
    return V;
  };
  forEachCounter(X.prof, [&](uint64_t &V) { V = Next(); });
  for (uint32_t Pc = L.head; Pc <= L.latch; ++Pc) {
    X.warpCount[Pc - X.pcLo] = Next();
    X.threadCount[Pc - X.pcLo] = Next();
  }
  X.budgetLeft = Next();
}

bool WarpLoopSkipper::inBuffers(Exec &X, const Warp &W, const Loop &L, uint32_t Active,
                                uint64_t N) const {
  for (const Loop::Use &U : L.loads) {
    const DInstr &I = X.prog->code[U.pc];
    if (I.cls != ptx::InstrClass::LdGlobal || U.slot < 0)
      continue;
    const uint64_t Size = uint64_t(I.aux) * I.aux2;
    uint32_t M = guardOf(W, I, Active);
    for (unsigned Ln = 0; Ln < 32; ++Ln) {
      if (!((M >> Ln) & 1))
        continue;
      int64_t Step = 0;
      uint64_t A0 = valueAt(W, U, Ln, Step) + uint64_t(I.imm);
      uint64_t AN = A0 + N * uint64_t(Step);
      const Buffer *B = X.dev->findAt(A0);
      if (!B || AN < B->base || AN - B->base + Size > B->bytes())
        return false;
    }
  }
  return true;
}

bool WarpLoopSkipper::probe(Exec &X, Warp &W, const Loop &L, uint32_t Active, uint64_t M) {
  ++Stats.probes;
  Stats.probeWarpInstructions += L.latch - L.head + 1;
  setState(X, W, L, M);
  const DInstr *Code = X.prog->code.data();
  bool Ok = true;
  for (uint32_t Pc = L.head; Pc <= L.latch && Ok; ++Pc) {
    const DInstr &I = Code[Pc];
    uint32_t G = guardOf(W, I, Active);
    ++X.warpCount[Pc - X.pcLo];
    X.threadCount[Pc - X.pcLo] += static_cast<uint32_t>(std::popcount(G));
    if (--X.budgetLeft == 0)
      Ok = false;
    else if (Pc == L.latch) { // taken by every active lane, as in branch()
      ++X.prof.branches;
      ++X.prof.branchesTaken;
      Ok = G == Active;
    } else if (G) {
      I.fn(X, W, I, G);
      Ok = !X.trap;
    }
  }
  X.trap.reset();
  // The end state must be S + (M + 1) D with the same counter deltas.
  for (size_t K = 0; K < L.slots.size() && Ok; ++K) {
    const uint64_t *R = W.base[BaseRegs] + L.slots[K];
    const uint64_t *From = last().regs.data() + K * 32, *Step = RegDelta.data() + K * 32;
    for (unsigned Ln = 0; Ln < 32; ++Ln)
      Ok = Ok && R[Ln] == From[Ln] + (M + 1) * Step[Ln];
  }
  take(X, W, L, Probe);
  for (size_t K = 0; K < Probe.counters.size() && Ok; ++K)
    Ok = Probe.counters[K] == last().counters[K] + (M + 1) * CounterDelta[K];
  return Ok;
}

void WarpLoopSkipper::attempt(Exec &X, Warp &W, Loop &L, uint32_t Active, bool Stepped) {
  const uint64_t PerIter = L.latch - L.head + 1;
  uint64_t N = 0, Bound = 0;
  if ((Stepped || affine(L)) && memoryInvariant(X, W, L, Active)) {
    Bound = std::min(bound(X, W, L, Active), X.budgetLeft / PerIter);
    N = Bound > 2 ? Bound - 2 : 0; // room for the probes' budget
    if (N >= MinJump && !inBuffers(X, W, L, Active, N))
      N = 0;
  }
  const bool Proven = N >= MinJump && provenAffine(X, L);
  if (N >= MinJump && !Proven) {
    // Skipping n iterations needs probes m = 0 .. n-1 to pass: the middle and the last are run.
    uint64_t Mid = (N - 1) / 2;
    if (!probe(X, W, L, Active, Mid))
      N = 0;
    else if (!probe(X, W, L, Active, N - 1))
      N = Mid + 1;
  }
  if (N < MinJump) {
    setState(X, W, L, 0);
    // Back off: 2, 4, ... 64 latches pass before the next try.
    L.wait = std::min(MaxWait, 2u << std::min(L.failures++, 5u));
    return;
  }
  L.failures = 0;
  if (Proven && !Stepped) { // the steps a later run of this loop may start from
    L.knownRegs = RegDelta;
    L.knownCounters = CounterDelta;
    L.knownVaries = Varies;
    L.knownFactors.clear();
    factorValues(W, L, L.knownFactors);
  }
  setState(X, W, L, N);
  // The iterations left before a compare changes (usually the exit) are not worth watching.
  L.wait = static_cast<uint32_t>(std::min<uint64_t>(Bound - N, MaxWait));
  ++Stats.skips;
  Stats.iterationsSkipped += N;
  Stats.skippedWarpInstructions += N * PerIter;
}

void WarpLoopSkipper::onLatch(Exec &X, Warp &W, uint32_t Pc, uint32_t Active, uint32_t Taken) {
  Loop &L = loopFor(X, Pc);
  if (!L.ok)
    return;
  if (L.wait) {
    --L.wait;
    TrackPc = NoPc;
    return;
  }
  const uint64_t PerIter = L.latch - L.head + 1;
  if (Taken != Active) { // the exit, or divergence
    TrackPc = NoPc;
    return;
  }
  // The next iteration of the loop being watched: same warp and lanes, and exactly one body's
  // instructions since the last latch (nothing else ran in between).
  bool Next = TrackPc == Pc && TrackWarp == W.index && TrackMask == Active &&
              X.budgetLeft + PerIter == LastBudget;
  if (!Next) {
    TrackPc = Pc;
    TrackWarp = W.index;
    TrackMask = Active;
    Seen = 0;
  }
  take(X, W, L, S[Seen]);
  LastBudget = X.budgetLeft;
  ++Seen;
  const bool Stepped = Seen == 2 && knownSteps(W, L);
  if (!Stepped && Seen < 3)
    return;
  attempt(X, W, L, Active, Stepped);
  TrackPc = NoPc;
}

} // namespace analyzer
