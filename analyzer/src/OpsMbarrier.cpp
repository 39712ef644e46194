// mbarrier (PTX ISA 9.7.13.15) and the bulk copies that complete on one (cp.async.bulk, 9.7.9.25.4):
// the split arrive/wait barriers of a CTA in shared memory that libcu++'s cuda::barrier,
// cuda::memcpy_async, CUTLASS and Triton use. A sequential run completes every asynchronous copy
// when it is issued; a wait that is not over yields its warp (Flow::Wait) so the others arrive.
#include "Decoder.h"
#include "Memory.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace analyzer {
namespace {

/// What an mbarrier instruction does (DInstr::aux).
enum MbarOp : uint32_t { Init, Inval, ExpectTx, CompleteTx, Arrive, Wait, PendingCount, CpAsync };
/// DInstr::aux2 flags.
constexpr uint32_t Drop = 1, WithTx = 2, NoComplete = 4, Parity = 8, NoInc = 16, SharedSpace = 32;

constexpr int64_t MaxCount = (1 << 20) - 1; ///< arrival and transaction counts: [0, 2^20 - 1]

/// The 8-byte mbarrier object as the interpreter keeps it. The hardware's layout is opaque
/// (programs reach the object only through mbarrier instructions), so this one is ours: pending
/// arrivals of the current phase in bits 0-19, the expected arrivals per phase in 20-39, the
/// transaction count in 40-61 (two's complement), bit 62 set by init (an object used before its
/// init traps; shared memory starts zeroed), bit 63 the current phase's parity.
struct Mbar {
  int64_t pending = 0, expected = 0, tx = 0;
  bool valid = false, parity = false;

  static Mbar read(const uint8_t *P) {
    uint64_t V;
    std::memcpy(&V, P, 8);
    Mbar B;
    B.pending = int64_t(V & 0xfffff);
    B.expected = int64_t(V >> 20 & 0xfffff);
    B.tx = int64_t(V << 2) >> 42; // bits 40-61, sign-extended
    B.valid = V >> 62 & 1;
    B.parity = V >> 63;
    return B;
  }
  void write(uint8_t *P) const {
    uint64_t V = uint64_t(pending) | uint64_t(expected) << 20 |
                 (uint64_t(tx) & ((uint64_t(1) << 22) - 1)) << 40 | uint64_t(valid) << 62 |
                 uint64_t(parity) << 63;
    std::memcpy(P, &V, 8);
  }
  /// The phase is over once every arrival and every expected transaction byte has come.
  void completeIfDone() {
    if (pending == 0 && tx == 0) {
      parity = !parity;
      pending = expected;
    }
  }
};

/// Lane L's mbarrier object at Addr: its 8 bytes in shared memory, or nullptr after a trap
/// (outside shared memory, misaligned, or not initialised unless `Initialising`).
uint8_t *mbarAt(Exec &X, Warp &W, const DInstr &I, uint64_t Addr, unsigned L,
                bool Initialising = false) {
  const Space Sp = (I.aux2 & SharedSpace) ? Space::Shared : Space::Generic;
  MemSpace Hit = MemSpace::Shared;
  uint8_t *P = translate(X, W, I, Sp, Addr, 8, 8, L, true, "mbarrier access", Hit);
  if (P && Hit != MemSpace::Shared) {
    raiseTrap(X, W, I, TrapKind::Undefined, "mbarrier object outside shared memory", L);
    return nullptr;
  }
  if (P && !Initialising && !Mbar::read(P).valid) {
    raiseTrap(X, W, I, TrapKind::Undefined, "mbarrier used before mbarrier.init", L);
    return nullptr;
  }
  return P;
}

/// Adds Delta to the transaction count; false after a trap when it leaves [-(2^20-1), 2^20-1].
bool addTx(Exec &X, Warp &W, const DInstr &I, Mbar &B, int64_t Delta, unsigned L) {
  B.tx += Delta;
  if (B.tx > MaxCount || B.tx < -MaxCount) {
    raiseTrap(X, W, I, TrapKind::Undefined,
              "mbarrier transaction count " + std::to_string(B.tx) + " out of range", L);
    return false;
  }
  return true;
}

/// Completes `Bytes` of the transaction count of the mbarrier at P (complete_tx, a bulk copy);
/// false after a trap.
bool completeTx(Exec &X, Warp &W, const DInstr &I, uint8_t *P, int64_t Bytes, unsigned L) {
  Mbar B = Mbar::read(P);
  if (!addTx(X, W, I, B, -Bytes, L))
    return false;
  B.completeIfDone();
  B.write(P);
  ++X.mbarrierUpdates;
  return true;
}

/// One lane's arrive-on of `Count` (arrive, arrive_drop, cp.async.mbarrier.arrive.noinc);
/// the state token of its phase (parity in bit 63, pending arrivals after it below), or nullopt
/// after a trap.
std::optional<uint64_t> arriveOn(Exec &X, Warp &W, const DInstr &I, Mbar &B, int64_t Count,
                                 unsigned L) {
  if (Count < 1 || Count > B.pending) {
    raiseTrap(X, W, I, TrapKind::Undefined,
              "mbarrier arrival of " + std::to_string(Count) + " with " +
                  std::to_string(B.pending) + " pending in the phase",
              L);
    return std::nullopt;
  }
  const uint64_t Token = uint64_t(B.parity) << 63;
  B.pending -= Count;
  if (I.aux2 & Drop)
    B.expected -= Count;
  const uint64_t Pending = uint64_t(B.pending);
  if ((I.aux2 & NoComplete) && B.pending == 0 && B.tx == 0) {
    raiseTrap(X, W, I, TrapKind::Undefined, "mbarrier.arrive.noComplete completes the phase", L);
    return std::nullopt;
  }
  B.completeIfDone();
  return Token | Pending;
}

/// init, inval, expect_tx, complete_tx, arrive{.expect_tx}, arrive_drop, pending_count and
/// cp.async.mbarrier.arrive, lane by lane in lane order. Operands: init/expect_tx/complete_tx
/// [op0], op1; arrive state op0, [op1], op2 (count or tx count); pending_count op0, op1;
/// cp.async.mbarrier.arrive [op0].
void mbarrierOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  if (I.aux == PendingCount) {
    forLanes(M, [&](unsigned L) { opPtr(W, I, 0)[L] = opPtr(W, I, 1)[L] & 0xfffff; });
    return;
  }
  const unsigned Addr = I.aux == Arrive ? 1 : 0;
  RequestCounter RC;
  forLanes(M, [&](unsigned L) {
    if (X.trap)
      return;
    const uint64_t At = opPtr(W, I, Addr)[L] + uint64_t(I.imm);
    uint8_t *P = mbarAt(X, W, I, At, L, I.aux == Init || I.aux == Inval);
    if (!P)
      return;
    RC.add(MemSpace::Shared, At, 8);
    Mbar B = Mbar::read(P);
    const int64_t N = I.aux == CpAsync ? 1 : int64_t(uint32_t(opPtr(W, I, Addr + 1)[L]));
    switch (I.aux) {
    case Init:
      if (N < 1 || N > MaxCount)
        return raiseTrap(X, W, I, TrapKind::Undefined,
                         "mbarrier.init count " + std::to_string(N) + " outside [1, 2^20 - 1]", L);
      B = Mbar{N, N, 0, true, false};
      break;
    case Inval:
      B = Mbar{};
      break;
    case ExpectTx:
    case CompleteTx:
      if (!addTx(X, W, I, B, I.aux == ExpectTx ? N : -N, L))
        return;
      B.completeIfDone();
      break;
    case CpAsync: // copies are complete when issued: .noinc arrives, the plain form nets zero
      if ((I.aux2 & NoInc) && !arriveOn(X, W, I, B, 1, L))
        return;
      break;
    default: { // Arrive
      if ((I.aux2 & WithTx) && !addTx(X, W, I, B, N, L))
        return;
      std::optional<uint64_t> Token = arriveOn(X, W, I, B, (I.aux2 & WithTx) ? 1 : N, L);
      if (!Token)
        return;
      opPtr(W, I, 0)[L] = *Token;
    }
    }
    B.write(P);
    ++X.mbarrierUpdates;
  });
  if (!X.trap)
    RC.finish(X.prof, 2);
}

/// test_wait/try_wait{.parity} p, [op1], op2: p is whether the phase the state token (or the
/// parity) names is over. A wait that is not over in some lane yields the warp.
void mbarrierWaitOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  RequestCounter RC;
  bool Pending = false;
  forLanes(M, [&](unsigned L) {
    if (X.trap)
      return;
    const uint64_t At = opPtr(W, I, 1)[L] + uint64_t(I.imm);
    const uint8_t *P = mbarAt(X, W, I, At, L);
    if (!P)
      return;
    RC.add(MemSpace::Shared, At, 8);
    const uint64_t Token = opPtr(W, I, 2)[L];
    const bool Phase = (I.aux2 & Parity) ? (Token & 1) : (Token >> 63);
    const bool Over = Phase != Mbar::read(P).parity;
    opPtr(W, I, 0)[L] = Over;
    Pending |= !Over;
  });
  if (X.trap)
    return;
  RC.finish(X.prof, 0);
  W.yieldedInWait = Pending;
}

/// Counts `Bytes` at `Addr` in space S as 128-byte requests of kind Kind (0 load, 1 store).
void countBulk(Exec &X, MemSpace S, uint64_t Addr, uint64_t Bytes, int Kind) {
  for (uint64_t Off = 0; Off < Bytes; Off += 128) {
    RequestCounter RC;
    RC.add(S, Addr + Off, unsigned(std::min<uint64_t>(128, Bytes - Off)));
    RC.finish(X.prof, Kind);
  }
}

/// cp.async.bulk [op0 + imm], [op1 + aux3], op2{, [op3]} (PTX ISA 9.7.9.25.4.1): each lane
/// copies op2 bytes (a multiple of 16, both ends 16-byte aligned) at once. aux: destination
/// space | source space << 8 (Space values); with an mbarrier (aux2 bit 0) the copy then
/// completes op2 bytes of its transaction count.
void bulkCopyOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  const Space DstSp = Space(I.aux & 0xff), SrcSp = Space(I.aux >> 8);
  forLanes(M, [&](unsigned L) {
    if (X.trap)
      return;
    const uint64_t Size = opPtr(W, I, 2)[L] & 0xffffffff;
    if (Size == 0 || Size % 16) {
      raiseTrap(X, W, I, TrapKind::Misaligned,
                "cp.async.bulk size " + std::to_string(Size) + " is not a multiple of 16", L);
      return;
    }
    const uint64_t DA = opPtr(W, I, 0)[L] + uint64_t(I.imm);
    const uint64_t SA = opPtr(W, I, 1)[L] + uint64_t(int64_t(int32_t(I.aux3)));
    // In 128-byte pieces: an abstract buffer (fast mode) lends a 256-byte scratch per access.
    MemSpace HitD = MemSpace::Shared, HitS = MemSpace::Global;
    for (uint64_t Off = 0; Off < Size; Off += 128) {
      const unsigned Piece = unsigned(std::min<uint64_t>(128, Size - Off));
      uint8_t *D = translate(X, W, I, DstSp, DA + Off, Piece, 16, L, true, "bulk store", HitD);
      const uint8_t *S =
          D ? translate(X, W, I, SrcSp, SA + Off, Piece, 16, L, false, "bulk load", HitS) : D;
      if (!D || !S)
        return;
      std::memmove(D, S, Piece);
    }
    countBulk(X, HitS, SA, Size, 0);
    countBulk(X, HitD, DA, Size, 1);
    if (!(I.aux2 & 1))
      return;
    if (uint8_t *P = mbarAt(X, W, I, opPtr(W, I, 3)[L], L))
      completeTx(X, W, I, P, int64_t(Size), L);
  });
}

bool sharedForm(const ptx::Instruction &In) {
  return In.space() == ptx::StateSpace::Shared;
}

} // namespace

bool selectMbarrier(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  const auto &Ops = In.operands;
  const size_t N = Ops.size();
  I.aux2 = sharedForm(In) ? SharedSpace : 0;
  I.fn = mbarrierOp;
  auto Count = [&](unsigned K, const ptx::Operand &O) { return Ctx.src(I, K, O, ptx::Type::U32); };
  if (In.hasModifier("init") || (In.hasModifier("expect_tx") && !In.hasModifier("arrive") &&
                                 !In.hasModifier("arrive_drop")) ||
      In.hasModifier("complete_tx")) {
    I.aux = In.hasModifier("init") ? Init : In.hasModifier("complete_tx") ? CompleteTx : ExpectTx;
    return N == 2 ? Ctx.address(I, 0, Ops[0]) && Count(1, Ops[1]) : Ctx.fail("mbarrier operands");
  }
  if (In.hasModifier("inval")) {
    I.aux = Inval;
    return N == 1 ? Ctx.address(I, 0, Ops[0]) : Ctx.fail("mbarrier operands");
  }
  if (In.hasModifier("pending_count")) {
    I.aux = PendingCount;
    return N == 2 && Ctx.dst(I, 0, Ops[0]) && Ctx.src(I, 1, Ops[1], ptx::Type::U64);
  }
  if (In.hasModifier("arrive") || In.hasModifier("arrive_drop")) {
    I.aux = Arrive;
    I.aux2 |= (In.hasModifier("arrive_drop") ? Drop : 0) |
              (In.hasModifier("expect_tx") ? WithTx : 0) |
              (In.hasModifier("noComplete") ? NoComplete : 0);
    if (N < 2 || N > 3 || !Ctx.dst(I, 0, Ops[0]) || !Ctx.address(I, 1, Ops[1]))
      return Ctx.fail("mbarrier.arrive operands");
    if (N == 3)
      return Count(2, Ops[2]);
    if (I.aux2 & (WithTx | NoComplete))
      return Ctx.fail("mbarrier.arrive operands");
    I.base[2] = BaseConsts;
    I.op[2] = Ctx.constant(1);
    I.nops = 3;
    return true;
  }
  if (In.hasModifier("test_wait") || In.hasModifier("try_wait")) {
    I.aux = Wait;
    I.aux2 |= In.hasModifier("parity") ? Parity : 0;
    I.fn = mbarrierWaitOp;
    I.flow = Flow::Wait; // a try_wait's suspend-time hint (a 4th operand) is not needed
    return (N == 3 || (N == 4 && In.hasModifier("try_wait"))) && Ctx.dst(I, 0, Ops[0]) &&
           Ctx.address(I, 1, Ops[1]) &&
           Ctx.src(I, 2, Ops[2], (I.aux2 & Parity) ? ptx::Type::U32 : ptx::Type::U64);
  }
  return Ctx.fail("mbarrier form");
}

bool selectCpAsyncMbarrier(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  I.aux = CpAsync;
  I.aux2 = (sharedForm(In) ? SharedSpace : 0) | (In.hasModifier("noinc") ? NoInc : 0);
  I.fn = mbarrierOp;
  return In.operands.size() == 1 ? Ctx.address(I, 0, In.operands[0])
                                 : Ctx.fail("cp.async.mbarrier.arrive operands");
}

bool selectBulkCopy(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  if (In.hasModifier("commit_group") || In.hasModifier("wait_group") ||
      In.hasModifier("prefetch")) {
    I.fn = nopHandler; // bulk copies are complete when issued; a prefetch is a hint
    return true;
  }
  if (In.hasModifier("tensor") || In.hasModifier("reduce") || In.hasModifier("multicast::cluster") ||
      In.hasModifier("cp_mask"))
    return Ctx.fail("tensor-map, reducing, multicast and byte-masked bulk copies");
  // The destination's space, then the source's: .shared::cluster.global (with an mbarrier),
  // .shared::cta.global, .shared::cluster.shared::cta (one CTA: its own shared memory),
  // .global.shared::cta (.bulk_group).
  std::vector<Space> Spaces;
  for (const std::string &Mod : In.modifiers)
    if (std::optional<ptx::StateSpace> S = ptx::stateSpaceOfModifier(Mod))
      Spaces.push_back(spaceOfIr(*S));
  const bool WithBar = In.hasModifier("mbarrier::complete_tx::bytes");
  const size_t Hint = In.hasModifier("L2::cache_hint") ? 1 : 0;
  const auto &Ops = In.operands;
  if (Spaces.size() != 2 || (Spaces[0] == Space::Global && Spaces[1] == Space::Global) ||
      WithBar == (Spaces[0] == Space::Global) || Ops.size() != 3 + size_t(WithBar) + Hint)
    return Ctx.fail("cp.async.bulk form");
  I.aux = uint32_t(Spaces[0]) | uint32_t(Spaces[1]) << 8;
  I.aux2 = (WithBar ? 1 : 0) | SharedSpace; // the mbarrier: a shared::cluster (own CTA) address
  I.fn = bulkCopyOp;
  int64_t SrcOffset = 0, BarOffset = 0;
  if (!Ctx.address(I, 0, Ops[0]) || !Ctx.addressAt(I, 1, Ops[1], SrcOffset) ||
      !Ctx.src(I, 2, Ops[2], ptx::Type::U32))
    return false;
  I.aux3 = static_cast<uint32_t>(static_cast<int32_t>(SrcOffset));
  if (!WithBar)
    return true;
  if (!Ctx.addressAt(I, 3, Ops[3], BarOffset))
    return false;
  return BarOffset == 0 || Ctx.fail("cp.async.bulk mbarrier address with an offset");
}

} // namespace analyzer
