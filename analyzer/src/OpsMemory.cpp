// Loads, stores, atomics, cvta and isspacep (PTX ISA 9.7.9.3-9.7.9.9, 9.7.13.5; cp.async is in
// OpsCpAsync.cpp). Cache and eviction modifiers (.nc, .ca, .L1::evict_last, ...) are accepted
// and ignored.
#include "Decoder.h"
#include "Memory.h"
#include "analyzer/ScalarOps.h"

#include <algorithm>
#include <cstring>

namespace analyzer {

FastRange fastRangeIn(Exec &X, Space Sp, int64_t Imm, const uint64_t *A, uint32_t M,
                      unsigned Size) {
  if (Sp != Space::Global && Sp != Space::Generic && Sp != Space::Shared)
    return {};
  uint64_t Lo = ~uint64_t(0), Hi = 0, Bits = 0;
  forLanes(M, [&](unsigned L) {
    uint64_t Addr = A[L] + uint64_t(Imm);
    Lo = std::min(Lo, Addr);
    Hi = std::max(Hi, Addr);
    Bits |= Addr;
  });
  if ((Bits & (std::min(Size, 16u) - 1)) != 0 || (Lo >> WindowShift) != (Hi >> WindowShift))
    return {};
  uint64_t Window = Lo >> WindowShift;
  if (Sp == Space::Shared || (Sp == Space::Generic && Window == 1)) {
    if (Window > 1 || (Hi & WindowMask) + Size > X.shared.size())
      return {};
    return {X.shared.data(), Window << WindowShift, MemSpace::Shared, false, Lo, Hi};
  }
  if (Window != 0)
    return {};
  Buffer *B = X.bufferAt(Lo);
  if (!B || Size > B->bytes() || Hi - B->base > B->bytes() - Size)
    return {};
  if (B->abstract) // no backing store: zeros, or every lane goes through translate
    return X.dev->pattern == AbstractPattern::Zero
               ? FastRange{nullptr, 0, MemSpace::Global, true, Lo, Hi}
               : FastRange{};
  return {B->data.data(), B->base, MemSpace::Global, false, Lo, Hi};
}

void addRequest(RequestCounter &RC, const FastRange &R, const uint64_t *A, int64_t Imm, uint32_t M,
                unsigned Size) {
  MemSpace S = R.space;
  if (!RC.addLanes(S, A, uint64_t(Imm), M, Size, R.lo, R.hi))
    forLanes(M, [&](unsigned L) { RC.add(S, A[L] + uint64_t(Imm), Size); });
}

namespace {

namespace S = scalar;

/// aux: element bytes; aux2: vector count; aux3: space | signed << 8 | extend bits << 16.
Space spaceOf(const DInstr &I) { return static_cast<Space>(I.aux3 & 0xff); }

uint64_t extend(uint64_t V, unsigned Bytes, bool Signed, unsigned ToBits) {
  unsigned Bits = Bytes * 8;
  if (Bits >= 64)
    return V;
  if (Signed && (V >> (Bits - 1)) & 1)
    V |= ~((uint64_t(1) << Bits) - 1);
  return ToBits >= 64 ? V : V & ((uint64_t(1) << ToBits) - 1);
}

FastRange fastRange(Exec &X, const DInstr &I, const uint64_t *A, uint32_t M, unsigned Size) {
  return fastRangeIn(X, spaceOf(I), I.imm, A, M, Size);
}

/// A load whose address is the same for every lane (a symbol or constant address, e.g. kernel
/// parameters and constants): translated once and broadcast, unless the space is per-thread
/// (local, call params). Returns false when the general path must run.
bool uniformLoad(Exec &X, Warp &W, const DInstr &I, const uint64_t *A, uint32_t M,
                 RequestCounter &RC) {
  unsigned E = I.aux, N = I.aux2, Size = E * N;
  unsigned L0 = static_cast<unsigned>(std::countr_zero(M));
  uint64_t Addr = A[L0] + uint64_t(I.imm);
  uint64_t Window = Addr >> WindowShift;
  Space Sp = spaceOf(I);
  if (Sp == Space::Local || Window == 2 || Window == 4 ||
      (Sp == Space::Generic && Window != 0 && Window != 1 && Window != 3 && Window != 5))
    return false;
  MemSpace Hit;
  const uint8_t *P =
      translate(X, W, I, Sp, Addr, Size, std::min(Size, 16u), L0, false, "load", Hit);
  if (!P)
    return true; // trapped
  bool Signed = (I.aux3 >> 8) & 1;
  unsigned ToBits = (I.aux3 >> 16) & 0xff;
  for (unsigned K = 0; K < N; ++K) {
    uint64_t V = 0;
    std::memcpy(&V, P + K * E, std::min(E, 8u));
    V = extend(V, E, Signed, ToBits);
    uint64_t *D = opPtr(W, I, K);
    forLanes(M, [&](unsigned L) { D[L] = V; });
  }
  forLanes(M, [&](unsigned) { RC.add(Hit, Addr, Size); });
  RC.finish(X.prof, 0);
  return true;
}

/// D[L] = the E-byte element (4 or 8) at Base + (A[L] + Off) for the lanes in M, widened as
/// `extend` does: one element of a vector load, from one host range (fastRange).
void gatherHost(const uint8_t *Base, uint64_t Off, const uint64_t *A, uint32_t M, unsigned E,
                bool Signed, unsigned ToBits, uint64_t *D) {
  if (E == 8) {
    forLanes(M, [&](unsigned L) { std::memcpy(&D[L], Base + (A[L] + Off), 8); });
    return;
  }
  const uint64_t Keep = ToBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << ToBits) - 1;
  auto Gather = [&](auto Widen) {
    forLanes(M, [&](unsigned L) {
      uint32_t T;
      std::memcpy(&T, Base + (A[L] + Off), 4);
      D[L] = Widen(T) & Keep;
    });
  };
  if (Signed)
    Gather([](uint32_t T) { return uint64_t(int64_t(int32_t(T))); });
  else
    Gather([](uint32_t T) { return uint64_t(T); });
}

/// The low E bytes (4 or 8) of V[L] to Base + (A[L] + Off) for the lanes in M, in lane order:
/// a scalar store into one host range (fastRange).
void scatterHost(uint8_t *Base, uint64_t Off, const uint64_t *A, uint32_t M, unsigned E,
                 const uint64_t *V) {
  if (E == 8) {
    forLanes(M, [&](unsigned L) { std::memcpy(Base + (A[L] + Off), &V[L], 8); });
    return;
  }
  forLanes(M, [&](unsigned L) {
    uint32_t T = static_cast<uint32_t>(V[L]);
    std::memcpy(Base + (A[L] + Off), &T, 4);
  });
}

void loadOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  unsigned E = I.aux, N = I.aux2, Size = E * N;
  const uint64_t *A = opPtr(W, I, N);
  bool Signed = (I.aux3 >> 8) & 1;
  unsigned ToBits = (I.aux3 >> 16) & 0xff;
  RequestCounter RC;
  if (I.base[N] == BaseConsts && uniformLoad(X, W, I, A, M, RC))
    return;
  bool Ok = true;
  FastRange One = fastRange(X, I, A, M, Size);
  if (One.zero) {
    addRequest(RC, One, A, I.imm, M, Size);
    for (unsigned K = 0; K < N; ++K) {
      uint64_t *D = opPtr(W, I, K);
      forLanes(M, [&](unsigned L) { D[L] = 0; });
    }
    RC.finish(X.prof, 0);
    return;
  }
  // One host range, 4- or 8-byte elements: element by element over the lanes, unless a
  // destination is the address register (then every lane's address is read first, below).
  auto Aliased = [&] {
    for (unsigned K = 0; K < N; ++K)
      if (opPtr(W, I, K) == A)
        return true;
    return false;
  };
  if (One.base && (E == 4 || E == 8) && !Aliased()) {
    addRequest(RC, One, A, I.imm, M, Size);
    for (unsigned K = 0; K < N; ++K)
      gatherHost(One.base, uint64_t(I.imm) - One.sub + K * E, A, M, E, Signed, ToBits,
                 opPtr(W, I, K));
    RC.finish(X.prof, 0);
    return;
  }
  forLanes(M, [&](unsigned L) {
    if (!Ok)
      return;
    uint64_t Addr = A[L] + uint64_t(I.imm);
    MemSpace Hit = One.space;
    const uint8_t *P = One.base ? One.base + (Addr - One.sub)
                                : translate(X, W, I, spaceOf(I), Addr, Size, std::min(Size, 16u), L,
                                            false, "load", Hit);
    if (!P) {
      Ok = false;
      return;
    }
    RC.add(Hit, Addr, Size);
    for (unsigned K = 0; K < N; ++K) {
      uint64_t V = 0;
      std::memcpy(&V, P + K * E, std::min(E, 8u));
      opPtr(W, I, K)[L] = extend(V, E, Signed, ToBits);
    }
  });
  if (Ok)
    RC.finish(X.prof, 0);
}

void storeOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  unsigned E = I.aux, N = I.aux2, Size = E * N;
  const uint64_t *A = opPtr(W, I, 0);
  RequestCounter RC;
  bool Ok = true;
  FastRange One = fastRange(X, I, A, M, Size);
  if (One.zero) { // stores to abstract buffers are dropped; only the traffic counts
    addRequest(RC, One, A, I.imm, M, Size);
    RC.finish(X.prof, 1);
    return;
  }
  bool Counted = One.base && RC.addLanes(One.space, A, uint64_t(I.imm), M, Size, One.lo, One.hi);
  if (One.base && N == 1 && (E == 4 || E == 8)) { // scalar, one host range: no per-lane checks
    if (!Counted)
      forLanes(M, [&](unsigned L) { RC.add(One.space, A[L] + uint64_t(I.imm), Size); });
    scatterHost(One.base, uint64_t(I.imm) - One.sub, A, M, E, opPtr(W, I, 1));
    RC.finish(X.prof, 1);
    return;
  }
  forLanes(M, [&](unsigned L) {
    if (!Ok)
      return;
    uint64_t Addr = A[L] + uint64_t(I.imm);
    MemSpace Hit = One.space;
    uint8_t *P = One.base ? One.base + (Addr - One.sub)
                          : translate(X, W, I, spaceOf(I), Addr, Size, std::min(Size, 16u), L, true,
                                      "store", Hit);
    if (!P) {
      Ok = false;
      return;
    }
    if (!Counted)
      RC.add(Hit, Addr, Size);
    for (unsigned K = 0; K < N; ++K) {
      uint64_t V = opPtr(W, I, K + 1)[L];
      std::memcpy(P + K * E, &V, std::min(E, 8u));
    }
  });
  if (Ok)
    RC.finish(X.prof, 1);
}

enum AtomOp : uint32_t { AAdd, AMin, AMax, AExch, ACas, AAnd, AOr, AXor, AInc, ADec };

/// One atomic read-modify-write on `Old` (bits of type T): returns the new value.
uint64_t atomApply(uint32_t Op, ptx::Type T, uint64_t Old, uint64_t B, uint64_t C) {
  using ptx::Type;
  unsigned Bits = ptx::typeBits(T);
  uint64_t Mask = Bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1;
  bool Signed = ptx::typeKind(T) == ptx::TypeKind::Signed;
  auto SignedOf = [&](uint64_t V) { return Bits == 32 ? int64_t(int32_t(V)) : int64_t(V); };
  switch (Op) {
  case AAdd:
    switch (T) {
    case Type::F32:
      return putAs<float>(S::addF32(getAs<float>(Old), getAs<float>(B)));
    case Type::F64:
      return putAs<double>(S::addF64(getAs<double>(Old), getAs<double>(B)));
    case Type::F16:
      return S::addF16(uint16_t(Old), uint16_t(B));
    case Type::BF16:
      return S::addBF16(uint16_t(Old), uint16_t(B));
    case Type::F16x2:
      return S::addF16x2(uint32_t(Old), uint32_t(B));
    case Type::BF16x2:
      return S::mapHalves(uint32_t(Old), uint32_t(B),
                          [](uint16_t X, uint16_t Y) { return S::addBF16(X, Y); });
    default:
      return (Old + B) & Mask;
    }
  case AMin:
  case AMax: {
    if (T == Type::F32) {
      float X = getAs<float>(Old), Y = getAs<float>(B);
      return putAs<float>(Op == AMin ? S::minF32(X, Y) : S::maxF32(X, Y));
    }
    bool Less = Signed ? SignedOf(B) < SignedOf(Old) : (B & Mask) < (Old & Mask);
    bool Greater = Signed ? SignedOf(B) > SignedOf(Old) : (B & Mask) > (Old & Mask);
    return (Op == AMin ? Less : Greater) ? (B & Mask) : Old;
  }
  case AExch:
    return B & Mask;
  case ACas:
    return Old == (B & Mask) ? (C & Mask) : Old;
  case AAnd:
    return Old & B & Mask;
  case AOr:
    return (Old | B) & Mask;
  case AXor:
    return (Old ^ B) & Mask;
  case AInc:
    return uint32_t(Old) >= uint32_t(B) ? 0 : (Old + 1) & Mask;
  case ADec:
    return (uint32_t(Old) == 0 || uint32_t(Old) > uint32_t(B)) ? (B & Mask) : Old - 1;
  }
  return Old;
}

/// atom/red: aux = element bytes | vector count N << 8 (1 for scalars); aux2 = AtomOp | type
/// << 8 | red << 16; aux3: space. Operands: N destinations (atom only), the address, N sources,
/// and cas's new value.
void atomOp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  bool Red = (I.aux2 >> 16) & 1;
  uint32_t Op = I.aux2 & 0xff;
  auto T = static_cast<ptx::Type>((I.aux2 >> 8) & 0xff);
  const unsigned Size = I.aux & 0xff, N = std::max(1u, I.aux >> 8);
  const unsigned AddrK = Red ? 0 : N;
  const uint64_t *A = opPtr(W, I, AddrK);
  const uint64_t *C = Op == ACas ? opPtr(W, I, AddrK + 2) : nullptr;
  RequestCounter RC;
  bool Ok = true;
  forLanes(M, [&](unsigned L) {
    if (!Ok)
      return;
    uint64_t Addr = A[L] + uint64_t(I.imm);
    MemSpace Hit;
    uint8_t *P = translate(X, W, I, spaceOf(I), Addr, Size * N, Size * N, L, true, "atomic", Hit);
    if (!P) {
      Ok = false;
      return;
    }
    RC.add(Hit, Addr, Size * N);
    for (unsigned E = 0; E < N; ++E) {
      uint64_t Old = 0;
      std::memcpy(&Old, P + E * Size, Size);
      uint64_t New = atomApply(Op, T, Old, opPtr(W, I, AddrK + 1 + E)[L], C ? C[L] : 0);
      std::memcpy(P + E * Size, &New, Size);
      if (!Red)
        opPtr(W, I, E)[L] = Old;
    }
  });
  if (Ok)
    RC.finish(X.prof, 2);
}

/// cvta: aux 0 to generic (add window base), 1 from generic (strip); imm = window base;
/// aux2 = result bits.
void cvtaOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  uint64_t Base = uint64_t(I.imm);
  uint64_t Mask = I.aux2 >= 64 ? ~uint64_t(0) : (uint64_t(1) << I.aux2) - 1;
  forLanes(M, [&](unsigned L) {
    uint64_t V = A[L];
    if (I.aux == 0)
      V = Base && (V >> WindowShift) == 0 ? V + Base : V;
    else if (Base)
      V &= WindowMask;
    D[L] = V & Mask;
  });
}

/// isspacep: imm = window index.
void isspacepOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  forLanes(M, [&](unsigned L) { D[L] = (A[L] >> WindowShift) == uint64_t(I.imm); });
}

uint64_t windowOf(ptx::StateSpace S) {
  switch (S) {
  case ptx::StateSpace::Shared:
    return WindowShared;
  case ptx::StateSpace::Local:
    return WindowLocal;
  case ptx::StateSpace::Const:
    return WindowConst;
  default:
    return 0;
  }
}

/// The elements of a load's or store's value operand: a register, `{a, b}`, or, for .b128
/// values, vectors of their two 64-bit halves (`{{lo, hi}, ...}`, expanded registers).
std::vector<ptx::Operand> valueElements(const ptx::Operand &Val) {
  if (Val.kind != ptx::Operand::Kind::Vector)
    return {Val};
  std::vector<ptx::Operand> Out;
  for (const ptx::Operand &E : Val.elems)
    for (const ptx::Operand &F : valueElements(E))
      Out.push_back(F);
  return Out;
}

/// The space an access goes to: the instruction's, or for a generic access whose address is a
/// variable (`ld.b32 %r, [sharedvar+4]`) that variable's: a variable used as an address means
/// its generic address there, and .shared, .const and .local variables' values are offsets in
/// their own space.
Space accessSpace(ptx::StateSpace Instr, ptx::StateSpace Symbol) {
  if (Instr == ptx::StateSpace::Generic && (Symbol == ptx::StateSpace::Shared ||
                                            Symbol == ptx::StateSpace::Const ||
                                            Symbol == ptx::StateSpace::Local))
    return spaceOfIr(Symbol);
  return spaceOfIr(Instr);
}

void zeroDestOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  forLanes(M, [&](unsigned L) { D[L] = 0; });
}

bool selectLdSt(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I, bool Load) {
  ptx::Type T = In.type();
  unsigned N = In.vectorWidth();
  if (T == ptx::Type::B128) { // 128-bit elements (PTX ISA 9.7.9.8): two 64-bit halves each
    T = ptx::Type::B64;
    N *= 2;
  }
  unsigned E = std::max(1u, ptx::typeBits(T) / 8);
  // .L2::cache_hint adds a cache-policy operand (createpolicy's): a hint, no count changes.
  const size_t Operands = In.hasModifier("L2::cache_hint") ? 3 : 2;
  if (T == ptx::Type::None || ptx::typeBits(T) > 64 || In.operands.size() != Operands || N > 8)
    return Ctx.fail("load/store form");
  I.aux = E;
  I.aux2 = N;
  uint32_t SpaceBits = static_cast<uint32_t>(spaceOfIr(In.space()));
  const ptx::Operand &Val = In.operands[Load ? 0 : 1];
  const ptx::Operand &Addr = In.operands[Load ? 1 : 0];
  std::vector<ptx::Operand> Elems = valueElements(Val);
  if (Elems.size() != N)
    return Ctx.fail("vector operand has " + std::to_string(Elems.size()) + " elements");
  unsigned AddrK = Load ? N : 0;
  ptx::StateSpace SymSpace;
  if (!Ctx.address(I, AddrK, Addr, &SymSpace))
    return false;
  SpaceBits = static_cast<uint32_t>(accessSpace(In.space(), SymSpace));
  for (unsigned K = 0; K < N; ++K) {
    bool Ok = Load ? Ctx.dst(I, K, Elems[K]) : Ctx.src(I, K + 1, Elems[K], T);
    if (!Ok)
      return false;
  }
  bool Signed = ptx::typeKind(T) == ptx::TypeKind::Signed;
  unsigned ToBits = Load ? std::max(E * 8, Ctx.regBits(I, 0)) : 64;
  I.aux3 = SpaceBits | (Signed ? 1u << 8 : 0) | (std::min(ToBits, 64u) << 16);
  I.fn = Load ? loadOp : storeOp;
  return true;
}

bool selectAtom(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  constexpr std::string_view Names[] = {"add", "min", "max", "exch", "cas",
                                        "and", "or",  "xor", "inc",  "dec"};
  uint32_t Op = 99;
  for (uint32_t K = 0; K < 10; ++K)
    if (In.hasModifier(Names[K]))
      Op = K;
  ptx::Type T = In.type();
  bool Red = In.opcode == ptx::Opcode::Red;
  // sm_90's vector forms: .v2/.v4 (.v8 for 16-bit types) of float add, min and max, global.
  const unsigned N = In.vectorWidth();
  const bool Vec =
      N > 1 && ptx::typeKind(T) == ptx::TypeKind::Float && (Op == AAdd || Op == AMin || Op == AMax);
  if (Op == 99 || T == ptx::Type::None || (N != 1 && !Vec) || (Red ? N : 2 * N) + 1 > MaxOps)
    return Ctx.fail("atomic operation");
  unsigned Bits = ptx::typeBits(T);
  if (Bits != 16 && Bits != 32 && Bits != 64)
    return Ctx.fail("atomic type");
  I.aux = Bits / 8 | N << 8;
  I.aux2 = Op | (uint32_t(T) << 8) | (Red ? 1u << 16 : 0);
  size_t Want = (Red ? 2 : 3) + (Op == ACas ? 1 : 0);
  if (In.operands.size() != Want)
    return Ctx.fail("operand count");
  std::vector<ptx::Operand> Dst = Red ? std::vector<ptx::Operand>{} : valueElements(In.operands[0]);
  std::vector<ptx::Operand> Src = valueElements(In.operands[Red ? 1 : 2]);
  if ((!Red && Dst.size() != N) || Src.size() != N)
    return Ctx.fail("vector operand has the wrong number of elements");
  I.fn = atomOp;
  unsigned K = 0;
  for (const ptx::Operand &D : Dst)
    if (!Ctx.dst(I, K++, D))
      return false;
  ptx::StateSpace SymSpace;
  if (!Ctx.address(I, K, In.operands[Red ? 0 : 1], &SymSpace))
    return false;
  I.aux3 = static_cast<uint32_t>(accessSpace(In.space(), SymSpace));
  for (const ptx::Operand &S : Src)
    if (!Ctx.src(I, ++K, S, T))
      return false;
  if (Op == ACas && !Ctx.src(I, ++K, In.operands[3], T))
    return false;
  return true;
}

} // namespace

bool plainLoad(const DInstr &I) {
  return I.fn == loadOp && (spaceOf(I) == Space::Global || spaceOf(I) == Space::Shared);
}

bool plainStore(const DInstr &I) { return I.fn == storeOp; }

bool selectMemory(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  using ptx::Opcode;
  switch (In.opcode) {
  case Opcode::Ld:
  case Opcode::Ldu:
    return selectLdSt(Ctx, In, I, true);
  case Opcode::St:
    return selectLdSt(Ctx, In, I, false);
  case Opcode::Atom:
  case Opcode::Red:
    return selectAtom(Ctx, In, I);
  case Opcode::Cvta: {
    ptx::StateSpace Sp = In.space();
    if (Sp == ptx::StateSpace::Param && In.hasModifier("to"))
      Sp = ptx::StateSpace::Global; // param window addresses are generic already
    I.fn = cvtaOp;
    I.aux = In.hasModifier("to") ? 1 : 0;
    I.imm = static_cast<int64_t>(windowOf(Sp));
    I.aux2 = ptx::typeBits(In.type()) ? ptx::typeBits(In.type()) : 64;
    if (In.operands.size() != 2)
      return Ctx.fail("cvta form");
    return Ctx.dst(I, 0, In.operands[0]) && Ctx.src(I, 1, In.operands[1], In.type());
  }
  case Opcode::Isspacep: {
    ptx::StateSpace Sp = In.space();
    I.fn = isspacepOp;
    I.imm = static_cast<int64_t>(windowOf(Sp) >> WindowShift);
    if (Sp == ptx::StateSpace::Param)
      I.imm = 3;
    if (In.operands.size() != 2)
      return Ctx.fail("isspacep form");
    return Ctx.dst(I, 0, In.operands[0]) && Ctx.src(I, 1, In.operands[1], ptx::Type::U64);
  }
  case Opcode::Prefetch:
  case Opcode::Prefetchu:
  case Opcode::Discard:       // the line's data become undefined: ours stay as they were
  case Opcode::Applypriority: // a cache priority
    I.fn = nopHandler;
    return true;
  case Opcode::Createpolicy: // an opaque cache policy for .L2::cache_hint operands: 0
    if (In.operands.empty())
      return Ctx.fail("createpolicy form");
    I.fn = zeroDestOp;
    return Ctx.dst(I, 0, In.operands[0]);
  case Opcode::Cp:
    return selectCpAsync(Ctx, In, I);
  default:
    return Ctx.fail("");
  }
}

} // namespace analyzer
