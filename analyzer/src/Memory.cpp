// Address translation (generic windows, bounds, alignment) and request counters.
#include "Memory.h"

#include <algorithm>
#include <cassert>
#include <cstdio>

namespace analyzer {
namespace {

std::string hex(uint64_t V) {
  char Buf[24];
  std::snprintf(Buf, sizeof Buf, "0x%llx", static_cast<unsigned long long>(V));
  return Buf;
}

const char *spaceWord(MemSpace S) { return memSpaceName(S); }

uint8_t *fail(Exec &X, Warp &W, const DInstr &I, unsigned Lane, TrapKind K, MemSpace S,
              const char *What, unsigned Size, uint64_t Addr, const std::string &Extra) {
  std::string Why = std::string(K == TrapKind::Misaligned ? "misaligned " : "out-of-bounds ") +
                    spaceWord(S) + " " + What + " of " + std::to_string(Size) + " bytes at " +
                    hex(Addr);
  if (!Extra.empty())
    Why += " (" + Extra + ")";
  raiseTrap(X, W, I, K, Why, Lane);
  return nullptr;
}

uint8_t *global(Exec &X, Warp &W, const DInstr &I, uint64_t Addr, unsigned Size, unsigned Lane,
                const char *What) {
  Buffer *B = X.bufferAt(Addr);
  if (B && Size <= B->bytes() - (Addr - B->base)) {
    if (!B->abstract)
      return B->data.data() + (Addr - B->base);
    assert(Size <= sizeof X.abstractScratch && "access wider than the abstract scratch");
    X.dev->abstractBytes(Addr, std::span<uint8_t>(X.abstractScratch, Size));
    return X.abstractScratch;
  }
  const Buffer *N = X.dev->nearest(Addr);
  std::string Extra =
      N ? "buffer '" + N->name + "' is " + std::to_string(N->bytes()) + " bytes at " + hex(N->base)
        : "no buffer there";
  if (B)
    Extra = "buffer '" + B->name + "' is " + std::to_string(B->bytes()) + " bytes";
  return fail(X, W, I, Lane, TrapKind::OutOfBounds, MemSpace::Global, What, Size, Addr, Extra);
}

uint8_t *within(Exec &X, Warp &W, const DInstr &I, uint8_t *Base, uint64_t Limit, uint64_t Off,
                unsigned Size, unsigned Lane, MemSpace S, const char *What, uint64_t Shown) {
  if (Off <= Limit && Size <= Limit - Off)
    return Base + Off;
  return fail(X, W, I, Lane, TrapKind::OutOfBounds, S, What, Size, Shown,
              std::string(spaceWord(S)) + " window is " + std::to_string(Limit) + " bytes");
}

} // namespace

uint8_t *translate(Exec &X, Warp &W, const DInstr &I, Space Sp, uint64_t Addr, unsigned Size,
                   unsigned Align, unsigned Lane, bool Store, const char *What, MemSpace &Hit) {
  uint64_t Window = Addr >> WindowShift;
  // A 32-bit register's explicit shared, local, param or const offset wraps modulo 2^32, as the
  // hardware's 32-bit LDS, LDL and LDC addresses do (nvcc for sm_100 writes `s[255 - i]` as
  // [s - 4i + 1020], the register below zero before the offset). A 64-bit base is taken whole,
  // so a global pointer used as a shared offset still traps.
  const bool Offset32 = I.addr32 && Sp != Space::Generic && Sp != Space::Global && Window == 0;
  if (Sp == Space::Generic) {
    switch (Window) {
    case 0:
      Sp = Space::Global;
      break;
    case 1:
      Sp = Space::Shared;
      break;
    case 2:
      Sp = Space::Local;
      break;
    case 3:
    case 4:
      Sp = Space::Param;
      break;
    case 5:
      Sp = Space::Const;
      break;
    default:
      break;
    }
  }
  static constexpr MemSpace Of[] = {MemSpace::Global, MemSpace::Global, MemSpace::Shared,
                                    MemSpace::Local,  MemSpace::Param,  MemSpace::Const};
  Hit = Of[static_cast<size_t>(Sp)];
  if (Sp == Space::Generic)
    return fail(X, W, I, Lane, TrapKind::OutOfBounds, MemSpace::Global, What, Size, Addr,
                "not in any address window");
  if (Align > 1 && Addr % Align != 0)
    return fail(X, W, I, Lane, TrapKind::Misaligned, Hit, What, Size, Addr,
                "needs " + std::to_string(Align) + "-byte alignment");
  uint64_t Off = Addr & (Offset32 ? 0xffffffffull : WindowMask);
  const uint64_t Shown = Offset32 ? Off : Addr; // a trap names the wrapped offset
  switch (Sp) {
  case Space::Global:
    return global(X, W, I, Addr, Size, Lane, What);
  case Space::Shared:
    if (Window != 0 && Window != 1)
      break;
    return within(X, W, I, X.shared.data(), X.shared.size(), Off, Size, Lane, Hit, What, Shown);
  case Space::Local:
    if (Window != 0 && Window != 2)
      break;
    return within(X, W, I, W.local[Lane].data(), W.localTop, Off, Size, Lane, Hit, What, Shown);
  case Space::Param:
    if (Window == 3) {
      if (Store)
        return fail(X, W, I, Lane, TrapKind::OutOfBounds, Hit, What, Size, Addr,
                    "kernel parameters are read-only");
      return within(X, W, I, X.kernelParams.data(), X.kernelParams.size(), Off, Size, Lane, Hit,
                    What, Shown);
    }
    if (Window == 4)
      return within(X, W, I, W.fparam[Lane].data(), W.paramTop, Off, Size, Lane, Hit, What, Shown);
    break;
  case Space::Const:
    if (Window != 0 && Window != 5)
      break;
    if (Store)
      return fail(X, W, I, Lane, TrapKind::OutOfBounds, Hit, What, Size, Addr,
                  "constant memory is read-only");
    return within(X, W, I, const_cast<uint8_t *>(X.constData), X.constSize, Off, Size, Lane, Hit,
                  What, Shown);
  default:
    break;
  }
  return fail(X, W, I, Lane, TrapKind::OutOfBounds, Hit, What, Size, Addr,
              "address is in another space's window");
}

Space spaceOfIr(ptx::StateSpace S) {
  switch (S) {
  case ptx::StateSpace::Global:
    return Space::Global;
  case ptx::StateSpace::Shared:
    return Space::Shared;
  case ptx::StateSpace::Local:
    return Space::Local;
  case ptx::StateSpace::Param:
    return Space::Param;
  case ptx::StateSpace::Const:
    return Space::Const;
  default:
    return Space::Generic;
  }
}

namespace {

/// Population count without the popcnt instruction (the build targets baseline x86-64, where
/// std::popcount is a library call).
unsigned popcount64(uint64_t V) {
  V = V - ((V >> 1) & 0x5555555555555555ull);
  V = (V & 0x3333333333333333ull) + ((V >> 2) & 0x3333333333333333ull);
  V = (V + (V >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<unsigned>((V * 0x0101010101010101ull) >> 56);
}

/// The most words of one bank in a bitmap of 256 consecutive shared-memory words. Word K is in
/// bank (first word + K) % 32; a common offset only renames the banks, so the bitmap's 32-bit
/// groups (one bit per bank) are summed bank by bank as they are. The sums (up to 8) are kept
/// bit-sliced in four planes and the largest is read from the planes top down.
unsigned busiestBank(const uint64_t (&Bits)[4]) {
  uint32_t Plane[4] = {};
  for (uint64_t V : Bits)
    for (uint32_t X : {uint32_t(V), uint32_t(V >> 32)})
      for (uint32_t &P : Plane) { // add X, one bit per bank, to the sums
        const uint32_t Carry = P & X;
        P ^= X;
        X = Carry;
      }
  unsigned Max = 0;
  uint32_t Banks = ~0u; // the banks that can still hold the largest sum
  for (int B = 3; B >= 0; --B)
    if (Banks & Plane[B]) {
      Max |= 1u << B;
      Banks &= Plane[B];
    }
  return Max;
}

} // namespace

bool RequestCounter::addLanes(MemSpace S, const uint64_t *A, uint64_t Imm, uint32_t M,
                              unsigned Size, uint64_t Lo, uint64_t Hi) {
  assert(!Direct && NSec == 0 && NWords == 0 && "addLanes needs a fresh counter");
  // Aligned to Size (a power of two up to 16), a lane stays inside one 32-byte sector, and up
  // to 4 bytes inside one 4-byte word.
  bool Straddle = Size > 16 || (S == MemSpace::Shared && Size > 4);
  unsigned Shift = S == MemSpace::Global ? 5 : S == MemSpace::Shared ? 2 : 0;
  if (Shift && M) {
    uint64_t First = Lo >> Shift, Span = ((Hi + Size - 1) >> Shift) - First + 1;
    if (Span > SpanBits && S == MemSpace::Shared && Size == 16) {
      sharedChunks(A, Imm, M); // ldmatrix rows and 128-bit shared accesses over a wide tile
      return true;
    }
    if (Span > SpanBits)
      return false;
    if (S == MemSpace::Shared && Span <= 32) {
      // At most 32 words, each in its own bank: one wavefront, no conflict, whatever the
      // number of distinct words (finish() needs no more than that it is at most 32).
      DirectDistinct = static_cast<unsigned>(Span);
      DirectWavefronts = 1;
      Direct = true;
      Bytes[static_cast<size_t>(S)] += uint64_t(popcount64(M)) * Size;
      return true;
    }
    static_assert(SpanBits == 256, "the bitmap is four registers");
    uint64_t Bits[SpanBits / 64] = {};
    if (!Straddle && Span <= 64) { // the common case: one register, no stores
      uint64_t B0 = 0;
      forLanes(M, [&](unsigned L) { B0 |= uint64_t(1) << (((A[L] + Imm) >> Shift) - First); });
      Bits[0] = B0;
    } else if (Size <= 16) {
      // A lane covers one unit, or (shared, 8 or 16 bytes aligned to their size) 2 or 4 words
      // that never cross a 64-bit word of the bitmap. Four registers, no indexed stores.
      const uint64_t Unit = Straddle ? (uint64_t(1) << (Size >> 2)) - 1 : 1;
      uint64_t B0 = 0, B1 = 0, B2 = 0, B3 = 0;
      forLanes(M, [&](unsigned L) {
        uint64_t K = ((A[L] + Imm) >> Shift) - First;
        uint64_t V = Unit << (K % 64);
        uint64_t W = K / 64;
        B0 |= W == 0 ? V : 0;
        B1 |= W == 1 ? V : 0;
        B2 |= W == 2 ? V : 0;
        B3 |= W == 3 ? V : 0;
      });
      Bits[0] = B0, Bits[1] = B1, Bits[2] = B2, Bits[3] = B3;
    } else {
      forLanes(M, [&](unsigned L) {
        uint64_t Addr = A[L] + Imm;
        for (uint64_t K = (Addr >> Shift) - First, E = ((Addr + Size - 1) >> Shift) - First; K <= E;
             ++K)
          Bits[K / 64] |= uint64_t(1) << (K % 64);
      });
    }
    for (uint64_t V : Bits)
      DirectDistinct += popcount64(V);
    if (S == MemSpace::Shared) {
      if (Span <= 32) { // every word in its own bank
        DirectWavefronts = 1;
      } else if (Span <= 64) { // words K and K + 32 share a bank
        DirectWavefronts = (Bits[0] & (Bits[0] >> 32) & 0xffffffffull) ? 2 : 1;
      } else {
        DirectWavefronts = busiestBank(Bits);
      }
    }
  }
  Direct = true;
  Bytes[static_cast<size_t>(S)] += uint64_t(popcount64(M)) * Size;
  return true;
}

void RequestCounter::sharedChunks(const uint64_t *A, uint64_t Imm, uint32_t M) {
  // A 16-byte chunk c covers words 4c .. 4c + 3, in banks 4 (c mod 8) .. 4 (c mod 8) + 3: the
  // busiest bank holds as many distinct words as the busiest chunk group c mod 8 has chunks.
  uint64_t C[32];
  unsigned K = 0;
  forLanes(M, [&](unsigned L) { C[K++] = (A[L] + Imm) >> 4; });
  std::sort(C, C + K);
  K = static_cast<unsigned>(std::unique(C, C + K) - C);
  unsigned Group[8] = {};
  DirectWavefronts = 0;
  for (unsigned I = 0; I < K; ++I)
    DirectWavefronts = std::max(DirectWavefronts, ++Group[C[I] % 8]);
  DirectDistinct = 4 * K;
  Direct = true;
  Bytes[static_cast<size_t>(MemSpace::Shared)] += uint64_t(popcount64(M)) * 16;
}

void RequestCounter::finish(KernelProfile &P, int Kind) {
  for (size_t S = 0; S < NumMemSpaces; ++S) {
    if (Kind != 1)
      P.loadBytes[S] += Bytes[S];
    if (Kind != 0)
      P.storeBytes[S] += Bytes[S];
  }
  if (Bytes[static_cast<size_t>(MemSpace::Global)]) {
    uint64_t Distinct = DirectDistinct;
    if (!Direct) {
      if (!std::is_sorted(Sectors, Sectors + NSec))
        std::sort(Sectors, Sectors + NSec);
      Distinct = static_cast<uint64_t>(std::unique(Sectors, Sectors + NSec) - Sectors);
    }
    uint64_t &Req = Kind == 0   ? P.globalLoadRequests
                    : Kind == 1 ? P.globalStoreRequests
                                : P.globalAtomicRequests;
    uint64_t &Sec = Kind == 0   ? P.globalLoadSectors
                    : Kind == 1 ? P.globalStoreSectors
                                : P.globalAtomicSectors;
    ++Req;
    Sec += Distinct;
  }
  if (Bytes[static_cast<size_t>(MemSpace::Shared)]) {
    ++(Kind == 0   ? P.sharedLoadRequests
       : Kind == 1 ? P.sharedStoreRequests
                   : P.sharedAtomicRequests);
    // Distinct 4-byte words per bank; the busiest bank sets the number of wavefronts.
    unsigned N = DirectDistinct, Wavefronts = DirectWavefronts;
    if (!Direct) {
      if (!std::is_sorted(Words, Words + NWords))
        std::sort(Words, Words + NWords);
      N = static_cast<unsigned>(std::unique(Words, Words + NWords) - Words);
      unsigned PerBank[32] = {};
      for (unsigned K = 0; K < N; ++K)
        Wavefronts = std::max(Wavefronts, ++PerBank[Words[K] % 32]);
    }
    unsigned Ideal = (N + 31) / 32;
    P.sharedBankConflicts += Wavefronts - std::min(Wavefronts, std::max(Ideal, 1u));
  }
}

} // namespace analyzer
