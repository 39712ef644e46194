// Loop-trip extrapolation for CTA loops that contain a barrier (docs/fast-mode.md, shortcut 6):
// find a period of barrier releases over which the CTA state advances affinely, bound how many
// periods keep the same path, verify by probing, and jump over them.
#pragma once

#include "WarpLoopSkip.h"
#include "WarpRunner.h"

#include <array>
#include <vector>

namespace analyzer {

/// How runKernelSkipping extrapolates loops.
struct LoopSkipOptions {
  bool enabled = false;
  /// For runs whose loads yield non-constant data (the data-dependence check): registers and
  /// shared/local memory may differ between iterations; only the registers that advance by a
  /// constant step are extrapolated, the others keep their values. Counter deltas and compare
  /// operands must still be affine, so a branch or an address that depends on loaded data in
  /// the iterations that do run prevents the skip.
  bool relaxed = false;
  /// Also extrapolate straight-line loops of one warp (WarpLoopSkip.cpp; strict runs only).
  bool warpLoops = true;
};

/// What the extrapolation did during one launch.
struct LoopSkipStats {
  uint64_t iterationsSkipped = 0; ///< CTA loop iterations counted without being interpreted
  uint64_t skips = 0;             ///< jumps made
  uint64_t probes = 0;            ///< probe iterations interpreted to verify the jumps
  /// Warp instructions the skipped iterations added to the counts (not interpreted).
  uint64_t skippedWarpInstructions = 0;
  /// Warp instructions interpreted by probes (not in the counts).
  uint64_t probeWarpInstructions = 0;
  /// Of the warp instructions in a profile, those actually interpreted, plus the probes'.
  uint64_t interpreted(uint64_t Counted) const {
    return Counted - skippedWarpInstructions + probeWarpInstructions;
  }
};

/// The same compares ran (pc, warp, lanes), in the same order.
inline bool sameTraceShape(const std::vector<CmpRecord> &A, const std::vector<CmpRecord> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t K = 0; K < A.size(); ++K)
    if (A[K].pc != B[K].pc || A[K].warp != B[K].warp || A[K].mask != B[K].mask)
      return false;
  return true;
}

/// The pcs of a kernel and every function it calls (directly or not).
struct PcRange {
  uint32_t lo = 0, hi = 0;
};
PcRange kernelPcRange(const ProgramImpl &P, uint32_t Func);

class LoopSkipper;

/// runKernel with loop-trip extrapolation by `Skip` (may be null: none). The counts of skipped
/// iterations are added to the profile as if they had run; `Skip->stats()` tells what was
/// skipped in this launch. One LoopSkipper may serve many launches (it keeps its buffers).
RunResult runKernelSkipping(const Program &P, std::string_view Kernel, const LaunchConfig &L,
                            Device &D, const RunSettings &S, LoopSkipper *Skip);

/// The CTA state at a barrier release: warps, shared memory, barrier bookkeeping, and every
/// counter (profile counters, per-pc counts of the kernel's pcs, the instruction budget) as one
/// flat vector.
struct CtaSnapshot {
  std::vector<Warp> warps;
  std::vector<uint8_t> shared;
  std::array<uint32_t, 16> barArrived{}, barExpected{};
  std::vector<uint64_t> counters;
  size_t pos = 0;
};

/// Watches the barrier releases of the CTAs of one launch and extrapolates loops.
class LoopSkipper {
public:
  explicit LoopSkipper(const LoopSkipOptions &O = {}) : Opts(O) {}
  LoopSkipper(const LoopSkipper &) = delete; // WarpSkip refers to Stats
  LoopSkipper &operator=(const LoopSkipper &) = delete;
  const LoopSkipOptions &options() const { return Opts; }
  void setOptions(const LoopSkipOptions &O) { Opts = O; }
  /// Forgets what the runs of the previous launch learnt (known periods and steps), keeping the
  /// buffers: the next launch may run another kernel.
  void forgetLaunch() {
    KnownPeriods.clear();
    Ledgers.clear();
    PreparedProg = nullptr;
  }
  /// Starts a run of a launch whose kernel's pcs are `R`; resets the statistics.
  void beginLaunch(PcRange R);
  const LoopSkipStats &stats() const { return Stats; }
  /// The warp-level extrapolation of barrier-free loops for this launch, or nullptr (off, or a
  /// relaxed run).
  WarpLoopSkipper *warpSkipper() {
    return Opts.enabled && Opts.warpLoops && !Opts.relaxed ? &WarpSkip : nullptr;
  }
  /// The warps of the CTAs run under this skipper, kept from run to run so that their register
  /// files are allocated once per launch, not once per sampled CTA.
  std::vector<Warp> &warpPool() { return WarpPool; }
  /// Finds the registers that loops of kernel `Func` write; called after beginLaunch.
  void prepare(const ProgramImpl &P, uint32_t Func);
  /// Forgets everything seen in the previous CTA.
  void beginCta();
  /// Called by the CTA runner after a barrier release completed by warp `Pos`, the lowest
  /// released warp continuing at `Pc`. May advance the CTA state by whole loop iterations.
  void onRelease(Exec &X, std::vector<Warp> &Warps, size_t N, size_t Pos, uint32_t Pc);

private:
  struct HashPair {
    uint64_t lin = 0, shape = 0;
  };
  struct History {
    uint32_t pc = NoPc;
    /// Hashes of the last releases (a ring; `head` is the next slot, `hcount` are valid).
    std::vector<HashPair> hashes;
    uint32_t head = 0, hcount = 0;
    uint32_t wait = 0, backoff = 1;  ///< releases to let pass after no period was found
    bool knownTried = false;         ///< a known period was tried since the last jump
    /// The least period to look for: one above a period that jumped short (under MinJump
    /// periods) in this CTA. A 3x3 window's K loop is affine over the three taps of a row
    /// (period 3) but not across rows; its real period is the window's 9 taps.
    uint32_t minPeriod = 1;
    std::array<CtaSnapshot, 3> ring; ///< full snapshots 0, P and 2P releases after detection
  };
  static constexpr uint32_t MaxPeriod = 32;
  History &historyFor(uint32_t Pc);
  void take(CtaSnapshot &S, const Exec &X, const std::vector<Warp> &W, size_t N, size_t Pos);
  bool affine(const History &H);
  /// Tries to jump from snapshot `R`, the current state; returns the periods skipped.
  uint64_t attempt(Exec &X, std::vector<Warp> &Warps, size_t N, const CtaSnapshot &R);
  uint64_t compareBound(const Exec &X) const;
  uint64_t registerBound(const CtaSnapshot &R) const;
  void materialize(Exec &X, std::vector<Warp> &Warps, size_t N, const CtaSnapshot &R, uint64_t M);
  bool probe(Exec &X, std::vector<Warp> &Warps, size_t N, const CtaSnapshot &R, uint64_t M);
  bool sameStructure(const CtaSnapshot &A, const std::vector<Warp> &B, const Exec *X) const;
  void readCounters(const Exec &X, std::vector<uint64_t> &Out) const;
  static void copyAllButRegs(Warp &D, const Warp &S);
  /// No pc outside a loop ran in the confirmed periods (CounterDelta).
  bool outsideLoopsIdle() const;
  /// affine() over the Live registers only.
  bool affineLive(const CtaSnapshot &A, const CtaSnapshot &B, const CtaSnapshot &C);
  /// Calls Fn(index) for the register lanes of one warp (E of them) that may change: Live's
  /// when Compact, else all.
  template <class F> void forRegs(size_t E, F &&Fn) const {
    if (!Compact) {
      for (size_t I = 0; I < E; ++I)
        Fn(I);
      return;
    }
    for (uint32_t Slot : Live)
      for (size_t I = Slot; I < Slot + 32; ++I)
        Fn(I);
  }
  void writeCounters(Exec &X, const std::vector<uint64_t> &In) const;
  /// Dst = Src on the Live lanes of every warp (flat register vectors, RegsPerWarp each).
  void copyLive(std::vector<uint64_t> &Dst, const std::vector<uint64_t> &Src) const;
  /// Out = From - Step on the compare operands; pc, warp and mask from From.
  static void shiftRecord(CmpRecord &Out, const CmpRecord &From, const CmpRecord &Step);
  uint64_t linearHash(const Exec &X, const std::vector<Warp> &Warps, size_t N, bool WithRegisters);
  uint64_t shapeHash(const Exec &X, const std::vector<Warp> &Warps, size_t N, size_t Pos) const;
  uint32_t findPeriod(const History &H) const;
  /// The period that led to a jump at key `Pc` in an earlier CTA, or 0.
  uint32_t knownPeriod(uint32_t Pc) const;
  /// Some key with a known period has been seen in this CTA and not tried yet.
  bool knownPending() const;
  void confirm(Exec &X, std::vector<Warp> &Warps, size_t N, size_t Pos);
  /// attempt() (when Try) and settle(), booking the outcome in the key's ledger.
  void finish(Exec &X, std::vector<Warp> &Warps, size_t N, History &H, const CtaSnapshot *Try);
  void startConfirm(Exec &X, const std::vector<Warp> &Warps, size_t N, size_t Pos, History &H,
                    uint32_t P);

  /// What jumping at a release key has earned in this launch (all its runs): iterations skipped
  /// against iterations interpreted only to verify (probes, and about one period of snapshots per
  /// try). A key whose tries keep costing more than they save is left alone for the launch: loops
  /// whose periods never last (a K loop whose window taps each run once) would otherwise be probed
  /// to no gain in every CTA.
  struct Ledger {
    uint32_t pc = NoPc;
    uint32_t tries = 0;
    uint64_t saved = 0, spent = 0;
    bool unprofitable() const { return tries >= 8 && saved < 2 * spent; }
  };
  Ledger &ledgerFor(uint32_t Pc);
  std::vector<Ledger> Ledgers;

  LoopSkipOptions Opts;
  LoopSkipStats Stats;
  WarpLoopSkipper WarpSkip{Stats};
  std::vector<Warp> WarpPool;
  PcRange Pcs;
  std::vector<History> Histories;
  /// Per register (flat over warps): step per period, and whether it is affine.
  std::vector<uint64_t> RegDelta;
  std::vector<uint8_t> RegAffine;
  std::vector<uint64_t> CounterDelta;
  /// Confirmation state: the key pc (NoPc: none), the period in releases of it, the releases
  /// since the candidate was found, and the compare traces of the two periods.
  uint32_t TraceKey = NoPc;
  uint32_t Period = 1, Step = 0;
  bool Early = false; ///< a known key's confirmation began with the loop's first period
  std::vector<CmpRecord> TraceA, TraceB, TraceP;
  /// What a jump at a key pc found, for the next CTAs of the launch: the period in releases of
  /// the key (relaxed runs, with loaded data in the registers and so no register hash, try only
  /// these and 1) and, from strict runs, the steps per period of the registers and of the
  /// operands of every traced compare (pc, warp and mask as traced).
  struct Known {
    uint32_t pc = NoPc, period = 0;
    std::vector<uint64_t> regDelta;
    std::vector<CmpRecord> cmpStep;
  };
  std::vector<Known> KnownPeriods;
  /// What is known of key `Pc`, or nullptr.
  const Known *knownAt(uint32_t Pc) const;
  /// Records the jump just made at key `Pc`.
  void remember(uint32_t Pc);
  /// After one period of a known key (ring 0 to ring 1): when the same compares ran and every
  /// register advanced by the step that the key's last jump confirmed over two periods, takes
  /// those steps, this period's counter deltas and its compares as the later trace, so that
  /// the probes and the jump can start from ring 1 (one period sooner).
  bool reuseSteps(const History &H);
  /// The bookkeeping after a candidate at `H` jumped `Skipped` periods (0: it failed).
  void settle(History &H, uint64_t Skipped);
  std::vector<uint64_t> Scratch, ProbeStart; ///< counter vectors reused from call to call
  /// Registers written inside the kernel's loops that a resume point may read (lane offsets),
  /// whether only they are snapshotted and compared (no calls), which pcs lie in a loop, and
  /// the profile counters before the per-pc counts in a counter vector.
  std::vector<uint32_t> Live, Fixed; ///< Fixed: the others that a resume point may read
  /// The kernel Live, Fixed and InLoop were found for in this launch (nullptr: none yet).
  const ProgramImpl *PreparedProg = nullptr;
  uint32_t PreparedFunc = 0;
  bool Compact = false;
  size_t RegsPerWarp = 0; ///< register lanes of a warp's frame (Compact)
  std::vector<uint8_t> InLoop;
  size_t ProfCounters = 0;
  /// The Fixed registers before the probes, per warp.
  std::vector<std::vector<uint64_t>> Backup;
  void backupFixed(const std::vector<Warp> &Warps, size_t N);
  void restoreFixed(std::vector<Warp> &Warps, size_t N) const;
};

} // namespace analyzer
