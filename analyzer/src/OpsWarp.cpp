// Warp-level instructions: shfl, vote, match, activemask, redux, elect (PTX ISA
// 9.7.13.6-9.7.13.12); memory fences, nanosleep, griddepcontrol and setmaxnreg are no-ops in a
// sequential run.
#include "Decoder.h"
#include "Lanes.h"

#include <bit>

namespace analyzer {
namespace {

/// shfl: op0 d, op1 a, op2 b, op3 c, op4 p (aux3 bit 0); aux: 0 up, 1 down, 2 bfly, 3 idx.
void shflOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  uint64_t *P = (I.aux3 & 1) ? opPtr(W, I, 4) : nullptr;
  uint64_t Out[32];
  bool Valid[32];
  forLanes(M, [&](unsigned L) {
    uint32_t BVal = uint32_t(B[L]) & 0x1f;
    uint32_t CVal = uint32_t(C[L]) & 0x1f;
    uint32_t SegMask = (uint32_t(C[L]) >> 8) & 0x1f;
    uint32_t MaxLane = (L & SegMask) | (CVal & ~SegMask);
    uint32_t MinLane = L & SegMask;
    uint32_t J = L;
    bool V = false;
    switch (I.aux) {
    case 0:
      J = L - BVal;
      V = int32_t(J) >= int32_t(MaxLane);
      break;
    case 1:
      J = L + BVal;
      V = J <= MaxLane;
      break;
    case 2:
      J = L ^ BVal;
      V = J <= MaxLane;
      break;
    default:
      J = MinLane | (BVal & ~SegMask);
      V = J <= MaxLane;
      break;
    }
    if (!V)
      J = L;
    Out[L] = A[J & 31] & 0xffffffffu;
    Valid[L] = V;
  });
  forLanes(M, [&](unsigned L) {
    D[L] = Out[L];
    if (P)
      P[L] = Valid[L];
  });
}

/// vote: aux 0 all, 1 any, 2 uni, 3 ballot; aux3 bit 1: source negated.
void voteOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  bool Neg = I.aux3 & 2;
  uint32_t True = 0;
  forLanes(M, [&](unsigned L) { True |= uint32_t(bool(A[L] & 1) != Neg) << L; });
  uint64_t R = 0;
  switch (I.aux) {
  case 0:
    R = True == M;
    break;
  case 1:
    R = True != 0;
    break;
  case 2:
    R = True == M || True == 0;
    break;
  default:
    R = True;
    break;
  }
  forLanes(M, [&](unsigned L) { D[L] = R; });
}

/// match.any.sync.{b32,b64} d, a, membermask: the lanes (running it, within membermask) whose a
/// equals this lane's; match.all.sync d{|p}, a, membermask: those lanes when every one holds
/// the same a, else 0, and p = whether they do (PTX ISA 9.7.13.8). aux: 0 any, 1 all; aux3
/// bit 0: p given (op3).
void matchOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0), *P = (I.aux3 & 1) ? opPtr(W, I, 3) : nullptr;
  const uint64_t *A = opPtr(W, I, 1), *Members = opPtr(W, I, 2);
  uint64_t V[32], Group[32];
  forLanes(M, [&](unsigned L) {
    V[L] = A[L];
    Group[L] = M & uint32_t(Members[L]);
  });
  forLanes(M, [&](unsigned L) {
    uint32_t Same = 0;
    forLanes(uint32_t(Group[L]), [&](unsigned K) { Same |= uint32_t(V[K] == V[L]) << K; });
    if (I.aux == 0) {
      D[L] = Same;
      return;
    }
    const bool All = Same == Group[L];
    D[L] = All ? Group[L] : 0;
    if (P)
      P[L] = All;
  });
}

/// elect.sync d|p, membermask: the lowest executing lane of the member mask leads; every lane
/// gets its lane id in d, only the leader a true p.
void electOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0), *P = opPtr(W, I, 3);
  const uint64_t *Members = opPtr(W, I, 2);
  uint32_t Group = 0;
  forLanes(M, [&](unsigned L) { Group |= M & uint32_t(Members[L]); });
  const unsigned Leader = Group ? unsigned(std::countr_zero(Group)) : 32;
  forLanes(M, [&](unsigned L) {
    D[L] = Leader;
    P[L] = L == Leader;
  });
}

void activemaskOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  forLanes(M, [&](unsigned L) { D[L] = M; });
}

/// redux.sync: aux 0 add, 1 min, 2 max, 3 and, 4 or, 5 xor; aux2: signed.
void reduxOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  bool First = true;
  uint32_t R = 0;
  forLanes(M, [&](unsigned L) {
    uint32_t V = uint32_t(A[L]);
    if (First) {
      R = V;
      First = false;
      return;
    }
    switch (I.aux) {
    case 0:
      R += V;
      break;
    case 1:
      R = I.aux2 ? uint32_t(std::min(int32_t(R), int32_t(V))) : std::min(R, V);
      break;
    case 2:
      R = I.aux2 ? uint32_t(std::max(int32_t(R), int32_t(V))) : std::max(R, V);
      break;
    case 3:
      R &= V;
      break;
    case 4:
      R |= V;
      break;
    default:
      R ^= V;
      break;
    }
  });
  forLanes(M, [&](unsigned L) { D[L] = R; });
}

template <size_t N> int pick(const ptx::Instruction &In, const std::string_view (&Names)[N]) {
  for (size_t K = 0; K < N; ++K)
    if (In.hasModifier(Names[K]))
      return static_cast<int>(K);
  return -1;
}

bool selectShfl(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using OK = ptx::Operand::Kind;
  constexpr std::string_view Modes[] = {"up", "down", "bfly", "idx"};
  int Mode = pick(In, Modes);
  size_t N = In.operands.size();
  if (Mode < 0 || N < 4)
    return Ctx.fail("shfl form");
  I.aux = static_cast<uint32_t>(Mode);
  I.fn = shflOp;
  const ptx::Operand &D = In.operands[0];
  if (D.kind == OK::PredPair) {
    if (D.elems.size() != 2 || !Ctx.dst(I, 0, D.elems[0]) || !Ctx.dst(I, 4, D.elems[1]))
      return Ctx.fail("shfl predicate output");
    I.aux3 = 1;
  } else if (!Ctx.dst(I, 0, D)) {
    return false;
  }
  for (unsigned K = 1; K <= 3; ++K)
    if (!Ctx.src(I, K, In.operands[K], ptx::Type::B32))
      return false;
  return true;
}

bool selectMatch(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using OK = ptx::Operand::Kind;
  const bool All = In.hasModifier("all");
  const unsigned Bits = ptx::typeBits(In.type());
  if ((!All && !In.hasModifier("any")) || (Bits != 32 && Bits != 64) || In.operands.size() != 3)
    return Ctx.fail("match form");
  I.aux = All ? 1 : 0;
  I.fn = matchOp;
  const ptx::Operand &D = In.operands[0];
  if (D.kind == OK::PredPair) {
    if (!All || !Ctx.dst(I, 0, D.elems[0]) || !Ctx.dst(I, 3, D.elems[1]))
      return Ctx.fail("match predicate output");
    I.aux3 = 1;
  } else if (!Ctx.dst(I, 0, D)) {
    return false;
  }
  return Ctx.src(I, 1, In.operands[1], In.type()) && Ctx.src(I, 2, In.operands[2], ptx::Type::B32);
}

bool selectVote(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  constexpr std::string_view Modes[] = {"all", "any", "uni", "ballot"};
  int Mode = pick(In, Modes);
  if (Mode < 0 || In.operands.size() < 2)
    return Ctx.fail("vote form");
  I.aux = static_cast<uint32_t>(Mode);
  I.fn = voteOp;
  ptx::Operand A = In.operands[1];
  if (A.negated)
    I.aux3 |= 2;
  A.negated = false;
  return Ctx.dst(I, 0, In.operands[0]) && Ctx.src(I, 1, A, ptx::Type::Pred);
}

} // namespace

bool selectWarp(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using ptx::Opcode;
  switch (In.opcode) {
  case Opcode::Shfl:
    return selectShfl(Ctx, In, I);
  case Opcode::Vote:
    return selectVote(Ctx, In, I);
  case Opcode::Match:
    return selectMatch(Ctx, In, I);
  case Opcode::Activemask:
    I.fn = activemaskOp;
    return In.operands.size() == 1 && Ctx.dst(I, 0, In.operands[0]);
  case Opcode::Elect: {
    if (In.operands.size() != 2 || In.operands[0].kind != ptx::Operand::Kind::PredPair)
      return Ctx.fail("elect form");
    const ptx::Operand &D = In.operands[0];
    I.fn = electOp;
    return Ctx.dst(I, 0, D.elems[0]) && Ctx.dst(I, 3, D.elems[1]) &&
           Ctx.src(I, 2, In.operands[1], ptx::Type::B32);
  }
  case Opcode::Redux: {
    constexpr std::string_view Ops[] = {"add", "min", "max", "and", "or", "xor"};
    int Op = pick(In, Ops);
    if (Op < 0 || In.operands.size() < 2 || ptx::typeBits(In.type()) != 32)
      return Ctx.fail("redux form");
    I.aux = static_cast<uint32_t>(Op);
    I.aux2 = In.type() == ptx::Type::S32;
    I.fn = reduxOp;
    return Ctx.dst(I, 0, In.operands[0]) && Ctx.src(I, 1, In.operands[1], In.type());
  }
  case Opcode::Membar:
  case Opcode::Fence:
  case Opcode::Nanosleep:
  case Opcode::Pmevent:
  // Launches run one after another: a dependent grid's wait is over before it starts, and
  // the register reallocation hint changes no count.
  case Opcode::Griddepcontrol:
  case Opcode::Setmaxnreg:
    if (In.opcode == Opcode::Fence && (In.hasModifier("proxy") && In.hasModifier("tensormap")))
      return Ctx.fail("tensormap proxy fence");
    I.fn = nopHandler;
    return true;
  default:
    return Ctx.fail("");
  }
}

} // namespace analyzer
