// Backward liveness of register slots at the points where a warp can be resumed (Liveness.h).
// Per thread, execution follows a path of the control-flow graph: a warp runs the paths of its
// lanes one after another, and writes only the lanes on the path it runs. So a slot dead at a
// lane's resume point on every path from there is dead for that lane, whatever the other lanes
// do in between.
#include "Liveness.h"

#include <cassert>

namespace analyzer {
namespace {

using C = ptx::InstrClass;

/// An unguarded instruction whose register destinations it writes whole, for every lane it
/// runs for: plain computation, moves and loads.
bool killsDestinations(const DInstr &I) {
  if (I.guard >= 0 || I.flow != Flow::Next || I.readsClock)
    return false;
  switch (I.cls) {
  case C::LdGlobal:
  case C::LdShared:
  case C::LdLocal:
  case C::LdConst:
  case C::LdParam:
    return true;
  default:
    return registersOnly(I.cls);
  }
}

/// Bit sets over a function's slots, one per pc.
class SlotSets {
public:
  SlotSets(size_t Pcs, size_t Slots) : Words((Slots + 63) / 64), Bits(Pcs * Words, 0) {}
  uint64_t *at(size_t Pc) { return Bits.data() + Pc * Words; }
  void set(size_t Pc, uint32_t Slot) { at(Pc)[Slot / 64] |= uint64_t(1) << (Slot % 64); }
  size_t words() const { return Words; }

private:
  size_t Words;
  std::vector<uint64_t> Bits;
};

/// The pcs (relative to the function's entry) control may continue at after instruction Pc.
template <class F>
void forSuccessors(const ProgramImpl &P, const DInstr &I, uint32_t Pc, const DFunction &Fn,
                   F &&Out) {
  auto Emit = [&](uint32_t To) {
    if (To >= Fn.entry && To < Fn.end)
      Out(To - Fn.entry);
  };
  const bool Guarded = I.guard >= 0;
  switch (I.flow) {
  case Flow::Bra:
    Emit(I.target);
    if (Guarded)
      Emit(Pc + 1);
    return;
  case Flow::Brx:
    for (uint32_t To : P.branchLists[I.aux])
      Emit(To);
    if (Guarded)
      Emit(Pc + 1);
    return;
  case Flow::Exit:
  case Flow::Ret:
    if (Guarded)
      Emit(Pc + 1);
    return;
  default: // Next, Bar, Trap, Call, Unsup: the next pc (conservatively for the last three)
    Emit(Pc + 1);
  }
}

} // namespace

std::vector<uint8_t> liveAtResumePoints(const ProgramImpl &P, uint32_t Func) {
  const DFunction &Fn = P.funcs[Func];
  assert(Fn.callees.empty() && "liveness of functions that call is not tracked");
  const size_t N = Fn.end - Fn.entry, Slots = Fn.numSlots;
  SlotSets Use(N, Slots), Kill(N, Slots), Live(N, Slots);
  for (uint32_t Pc = Fn.entry; Pc < Fn.end; ++Pc) {
    const DInstr &I = P.code[Pc];
    const size_t R = Pc - Fn.entry;
    const bool Kills = killsDestinations(I);
    forEachRegOperand(P, I, [&](uint32_t Off, bool Writes) {
      if (!Writes)
        Use.set(R, Off / 32);
      else if (Kills)
        Kill.set(R, Off / 32);
    });
    if (I.guard >= 0)
      Use.set(R, uint32_t(I.guard) / 32);
    if (I.carry)
      Use.set(R, I.aux3 / 32);
  }
  // live-in(pc) = use(pc) | (OR of live-in(successors) & ~kill(pc)), to a fixed point; pcs in
  // reverse order, so a loop-free stretch settles in one sweep.
  const size_t W = Live.words();
  std::vector<uint64_t> Out(W);
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t R = N; R-- > 0;) {
      std::fill(Out.begin(), Out.end(), 0);
      forSuccessors(P, P.code[Fn.entry + R], Fn.entry + uint32_t(R), Fn, [&](size_t S) {
        for (size_t K = 0; K < W; ++K)
          Out[K] |= Live.at(S)[K];
      });
      uint64_t *In = Live.at(R);
      for (size_t K = 0; K < W; ++K) {
        uint64_t V = Use.at(R)[K] | (Out[K] & ~Kill.at(R)[K]);
        Changed |= V != In[K];
        In[K] = V;
      }
    }
  }
  // Where a stack entry may resume: the entry, branch targets and reconvergence points, and
  // the pc after every instruction that is not plain (branch, exit, return, barrier, ...).
  std::vector<uint8_t> Resume(N, 0);
  Resume[0] = 1;
  for (uint32_t Pc = Fn.entry; Pc < Fn.end; ++Pc) {
    const DInstr &I = P.code[Pc];
    auto Mark = [&](uint32_t To) {
      if (To >= Fn.entry && To < Fn.end)
        Resume[To - Fn.entry] = 1;
    };
    if (I.flow == Flow::Next)
      continue;
    Mark(Pc + 1);
    if (I.flow == Flow::Bra) {
      Mark(I.target);
      Mark(I.reconv);
    }
    if (I.flow == Flow::Brx) {
      for (uint32_t To : P.branchLists[I.aux])
        Mark(To);
      Mark(I.reconv);
    }
  }
  std::fill(Out.begin(), Out.end(), 0);
  for (size_t R = 0; R < N; ++R)
    if (Resume[R])
      for (size_t K = 0; K < W; ++K)
        Out[K] |= Live.at(R)[K];
  std::vector<uint8_t> Result(Slots, 0);
  for (uint32_t S = 0; S < Slots; ++S)
    Result[S] = (Out[S / 64] >> (S % 64)) & 1;
  Result[Fn.ccSlot / 32] = 1;
  return Result;
}

} // namespace analyzer
