// Address translation for every state space plus the per-request traffic counters (sectors,
// shared-memory bank conflicts). Used by the load/store/atomic handlers.
#pragma once

#include "Engine.h"

namespace analyzer {

/// The state space an instruction names (Generic resolves by address window).
enum class Space : uint8_t { Generic, Global, Shared, Local, Param, Const };

/// The Space an instruction's state-space modifier names (Generic for none).
Space spaceOfIr(ptx::StateSpace S);

/// Translates `Addr` for lane `Lane` to host memory, checking bounds and alignment (`Align`
/// bytes); on failure raises a trap (naming `What`, e.g. "load") and returns nullptr. `Hit`
/// receives the memory space actually accessed.
uint8_t *translate(Exec &X, Warp &W, const DInstr &I, Space Sp, uint64_t Addr, unsigned Size,
                   unsigned Align, unsigned Lane, bool Store, const char *What, MemSpace &Hit);

/// A plain ld.global or ld.shared (no generic, local, constant or parameter space): its
/// element bytes are I.aux, its vector count I.aux2, and its address is operand I.aux2.
bool plainLoad(const DInstr &I);
/// A st of any space: its address is operand 0, its I.aux2 values operands 1 and up.
bool plainStore(const DInstr &I);

/// Collects the addresses of one warp-level request and turns them into counters.
class RequestCounter {
public:
  /// Records `Size` bytes at `Addr` in space `S` for one lane.
  void add(MemSpace S, uint64_t Addr, unsigned Size) {
    if (S == MemSpace::Global) {
      for (uint64_t Sec = Addr >> 5; Sec <= (Addr + Size - 1) >> 5 && NSec < MaxSec; ++Sec)
        Sectors[NSec++] = Sec;
    } else if (S == MemSpace::Shared) {
      for (uint64_t Wd = Addr >> 2; Wd <= (Addr + Size - 1) >> 2 && NWords < MaxWords; ++Wd)
        Words[NWords++] = Wd;
    }
    Bytes[static_cast<size_t>(S)] += Size;
  }
  /// Records a whole request at once: `Size` bytes at `A[L] + Imm` for every lane L of `M`,
  /// all in space `S`, on a fresh counter; `Lo` and `Hi` are the lowest and highest lane
  /// address, each aligned to min(Size, 16) bytes. Distinct sectors (global) or words (shared)
  /// are counted in a bitmap over the request's span instead of a sorted list; false (nothing
  /// recorded, use add()) when the span exceeds the bitmap. Same counts as add() per lane.
  bool addLanes(MemSpace S, const uint64_t *A, uint64_t Imm, uint32_t M, unsigned Size, uint64_t Lo,
                uint64_t Hi);
  /// Adds this request to the profile: Kind 0 load, 1 store, 2 atomic.
  void finish(KernelProfile &P, int Kind);

private:
  /// addLanes for 16-byte shared accesses (aligned) whose span exceeds the bitmap.
  void sharedChunks(const uint64_t *A, uint64_t Imm, uint32_t M);
  static constexpr unsigned MaxSec = 32 * 8, MaxWords = 32 * 8;
  static constexpr unsigned SpanBits = 256; ///< addLanes bitmap: sectors or words from the lowest
  bool Direct = false;                      ///< counted by addLanes
  unsigned DirectDistinct = 0;              ///< distinct sectors or words (addLanes)
  unsigned DirectWavefronts = 0;            ///< shared: distinct words in the busiest bank
  uint64_t Sectors[MaxSec];
  uint64_t Words[MaxWords];
  unsigned NSec = 0, NWords = 0;
  uint64_t Bytes[NumMemSpaces] = {};
};

/// Where a warp request's lanes all fall: lane pointer = base + (address - sub).
struct FastRange {
  uint8_t *base = nullptr;
  uint64_t sub = 0;
  MemSpace space = MemSpace::Global;
  bool zero = false;       ///< all lanes in an abstract buffer that reads as zeros (fast mode)
  uint64_t lo = 0, hi = 0; ///< lowest and highest lane address (when base or zero is set)
};

/// When every active lane's access (`A[L] + Imm`, `Size` bytes, in space `Sp`) is aligned and
/// inside one global buffer, or inside the CTA's shared memory (the common cases), the lanes
/// need no translation of their own; otherwise an empty range (base null, zero false).
FastRange fastRangeIn(Exec &X, Space Sp, int64_t Imm, const uint64_t *A, uint32_t M, unsigned Size);

/// Counts a request whose lanes all fall in one range `R` (fastRangeIn): at once when its span
/// is small, else lane by lane.
void addRequest(RequestCounter &RC, const FastRange &R, const uint64_t *A, int64_t Imm, uint32_t M,
                unsigned Size);

} // namespace analyzer
