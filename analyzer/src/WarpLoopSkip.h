// Loop-trip extrapolation for barrier-free loops of one warp (docs/fast-mode.md, shortcut 6b):
// a straight-line loop body whose registers advance affinely is confirmed over two iterations,
// bounded by its compares, probed, and jumped over.
#pragma once

#include "Engine.h"

#include <array>
#include <vector>

namespace analyzer {

struct LoopSkipStats;

/// Marks the backward branches of `P.code[First, End)` whose loop body [target, branch) is
/// straight-line code that a warp-level jump can cover (DInstr::loopLatch).
void markLoopLatches(ProgramImpl &P, uint32_t First, uint32_t End);

/// Watches the taken latches of one launch's warps (strict abstract-memory runs only: loads
/// read zeros) and skips whole iterations.
class WarpLoopSkipper {
public:
  explicit WarpLoopSkipper(LoopSkipStats &S);
  /// Starts a launch whose counters cover the pcs [Lo, Hi).
  void beginLaunch(uint32_t Lo, uint32_t Hi);
  /// After the latch at `Pc` ran with `Active` lanes, `Taken` of them branching back.
  void onLatch(Exec &X, Warp &W, uint32_t Pc, uint32_t Active, uint32_t Taken);

private:
  /// What the body of one latch writes and reads (computed on its first use in a launch).
  struct Loop {
    bool ok = false;
    uint32_t head = 0, latch = 0;
    std::vector<uint32_t> slots;      ///< lane offsets of the registers the body writes
    std::vector<uint32_t> firstWrite; ///< per slot, the pc writing it
    /// A register operand read in the body: at instruction `pc`, slot `slot` of `slots` (or
    /// -1: not written by the body), read before the body writes it (`previous`).
    struct Use {
      uint32_t pc = 0;
      int slot = -1;
      bool previous = false;
      uint8_t base = BaseRegs;
      uint32_t off = 0;
    };
    std::vector<std::pair<Use, Use>> compares; ///< operands of the body's setp/set
    std::vector<Use> loads;                    ///< address operands of the body's loads
    /// Register sources written by the body: (pc, operand index, slot), in pc order.
    std::vector<std::array<uint32_t, 3>> inputs;
    /// Register operands that are factors of a ring operation (DInstr::linear 2 and 3): their
    /// values, where they do not vary, are the coefficients of the body's affine map.
    std::vector<std::pair<uint32_t, Use>> factors; ///< (operand index, use)
    uint32_t failures = 0;                         ///< attempts that found no jump in a row
    uint32_t wait = 0;                             ///< latches to let pass before the next try
    /// From the last proven jump of this latch in the run (empty: none): the steps of every
    /// register and counter per iteration, and the values of the factors that did not vary.
    std::vector<uint64_t> knownRegs, knownCounters, knownFactors;
    std::vector<uint8_t> knownVaries; ///< per slot: some lane's known step is not 0
  };
  struct Snap {
    std::vector<uint64_t> regs, counters;
  };
  Loop &loopFor(const Exec &X, uint32_t Pc);
  /// A register the body writes twice is read by a compare, a guard or a load address.
  static bool readsAmbiguous(const std::vector<DInstr> &Code, const Loop &L,
                             const std::vector<uint32_t> &Twice);
  void take(const Exec &X, const Warp &W, const Loop &L, Snap &S) const;
  bool affine(const Loop &L);
  /// After two iterations of a latch with a proven jump behind it: whether they moved by the
  /// steps that jump confirmed, with the same factors (then the body is the same affine map,
  /// which keeps that step: a third iteration would confirm nothing new).
  bool knownSteps(const Warp &W, const Loop &L);
  /// The non-varying factors' values, lane by lane, appended to Out.
  void factorValues(const Warp &W, const Loop &L, std::vector<uint64_t> &Out) const;
  /// Every instruction with a source that varies between iterations keeps affine values
  /// affine (DInstr::linear), is a compare, or is a load (of zeros): then the confirmed steps
  /// hold for every iteration and no probe is needed.
  bool provenAffine(const Exec &X, const Loop &L) const;
  uint64_t bound(const Exec &X, const Warp &W, const Loop &L, uint32_t Active) const;
  bool memoryInvariant(const Exec &X, const Warp &W, const Loop &L, uint32_t Active) const;
  void setState(Exec &X, Warp &W, const Loop &L, uint64_t M) const;
  /// Every global load of the next N iterations stays in the buffer it reads now.
  bool inBuffers(Exec &X, const Warp &W, const Loop &L, uint32_t Active, uint64_t N) const;
  bool probe(Exec &X, Warp &W, const Loop &L, uint32_t Active, uint64_t M);
  /// Jumps from the current state, snapshot last(), if it can; `Stepped`: RegDelta and CounterDelta
  /// are set.
  void attempt(Exec &X, Warp &W, Loop &L, uint32_t Active, bool Stepped);
  Loop::Use use(const Loop &L, uint32_t Pc, uint8_t Base, uint32_t Off) const;
  /// The value operand `U` has in lane `Lane` in the last interpreted iteration; in skipped
  /// iteration k it is that + k * Step.
  uint64_t valueAt(const Warp &W, const Loop::Use &U, unsigned Lane, int64_t &Step) const;

  LoopSkipStats &Stats;
  size_t ProfileCounters = 0; ///< counters of a KernelProfile (forEachCounter)
  uint32_t PcLo = 0;
  std::vector<uint32_t> LoopAt; ///< per pc - PcLo: 1 + the index of its Loop, or 0
  std::vector<Loop> Loops;      ///< the latches taken in this run, in the order first taken
  /// The loop being confirmed: latch pc, warp, and the end states of its last iterations.
  uint32_t TrackPc = NoPc, TrackWarp = 0, TrackMask = 0, Seen = 0;
  uint64_t LastBudget = 0;
  Snap S[3], Probe;
  /// The snapshot of the current state: the last one taken (S[1] after known steps, else S[2]).
  const Snap &last() const { return S[Seen - 1]; }
  std::vector<uint64_t> RegDelta, CounterDelta;
  std::vector<uint8_t> Varies; ///< per slot of the loop: some lane's step is not 0
};

} // namespace analyzer
