// Video instructions: the scalar ones (PTX ISA 9.7.17: vadd, vsub, vabsdiff, vmin, vmax, vshl,
// vshr, vset with byte/half-word selectors, .sat, a secondary operation or a merge; vmad) and
// the SIMD ones on half-words and bytes (9.7.18: vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4,
// vmin2/4, vmax2/4, vset2/4 with element selectors, masks and .add), by the ISA's pseudo-code.
// Every intermediate is exact in 64 bits (the ISA asks for at least 33).
#include "Decoder.h"

#include <algorithm>
#include <cctype>

namespace analyzer {
namespace {

enum VideoOp : uint32_t { VAdd, VSub, VAbsdiff, VMin, VMax, VShl, VShr, VSet, VAvrg };
enum Cmp : uint32_t { Eq, Ne, Lt, Le, Gt, Ge };

int64_t extend(uint64_t V, unsigned Bits, bool Signed) {
  V &= Bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1;
  if (Signed && Bits < 64 && (V >> (Bits - 1)) & 1)
    return int64_t(V | ~((uint64_t(1) << Bits) - 1));
  return int64_t(V);
}

int64_t apply(uint32_t Op, int64_t A, int64_t B, uint32_t Cmp) {
  switch (Op) {
  case VAdd:
    return A + B;
  case VSub:
    return A - B;
  case VAbsdiff:
    return A > B ? A - B : B - A;
  case VMin:
    return std::min(A, B);
  case VMax:
    return std::max(A, B);
  case VAvrg: // the ISA's rounding: (a + b + 1) >> 1 when a + b >= 0, else (a + b) >> 1
    return A + B >= 0 ? (A + B + 1) >> 1 : (A + B) >> 1;
  default: { // VSet
    const bool R[] = {A == B, A != B, A < B, A <= B, A > B, A >= B};
    return R[Cmp];
  }
  }
}

int64_t clampTo(int64_t V, unsigned Bits, bool Signed) {
  const int64_t Lo = Signed ? -(int64_t(1) << (Bits - 1)) : 0;
  const int64_t Hi = Signed ? (int64_t(1) << (Bits - 1)) - 1 : (int64_t(1) << Bits) - 1;
  return std::clamp(V, Lo, Hi);
}

// --- scalar video ------------------------------------------------------------------------------
// op0 d, op1 a, op2 b, op3 c. aux = op | cmp << 8 | mode (vshl/vshr: 1 clamp) << 12;
// aux2 = asel | bsel << 4 | dsel << 8 | op2 (1 add, 2 min, 3 max) << 12 | sat << 16 |
// signed d << 17, a << 18, b << 19. A selector: 0 the word, 1..4 byte 0..3, 5..6 half 0..1.

int64_t select(uint64_t V, uint32_t Sel, bool Signed) {
  if (Sel == 0)
    return extend(V, 32, Signed);
  if (Sel <= 4)
    return extend(V >> (8 * (Sel - 1)), 8, Signed);
  return extend(V >> (16 * (Sel - 5)), 16, Signed);
}

void videoScalarOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  const uint64_t *C = I.nops > 3 ? opPtr(W, I, 3) : nullptr;
  const uint32_t Op = I.aux & 0xff, Sel = I.aux2;
  const uint32_t Dsel = (Sel >> 8) & 15, Op2 = (Sel >> 12) & 3;
  const bool Sat = (Sel >> 16) & 1, DSigned = (Sel >> 17) & 1;
  forLanes(M, [&](unsigned L) {
    int64_t Ta = select(A[L], Sel & 15, (Sel >> 18) & 1);
    int64_t Tb = select(B[L], (Sel >> 4) & 15, (Sel >> 19) & 1 && Op != VShl && Op != VShr);
    int64_t T;
    if (Op == VShl || Op == VShr) {
      uint64_t N = uint64_t(Tb) & 0xffffffffu;
      N = (I.aux >> 12) & 1 ? std::min<uint64_t>(N, 32) : N & 31;
      T = Op == VShl ? (N >= 64 ? 0 : int64_t(uint64_t(Ta) << N)) : Ta >> std::min<uint64_t>(N, 63);
    } else {
      T = apply(Op, Ta, Tb, (I.aux >> 8) & 15);
    }
    const unsigned Bits = Dsel == 0 ? 32 : Dsel <= 4 ? 8 : 16;
    if (Sat && Op != VSet)
      T = clampTo(T, Bits, DSigned);
    uint64_t R = uint64_t(T);
    if (Op2 != 0) { // the secondary operation with c
      int64_t Cv = extend(C[L], 32, DSigned);
      R = uint64_t(Op2 == 1 ? T + Cv : Op2 == 2 ? std::min(T, Cv) : std::max(T, Cv));
    } else if (Dsel != 0) { // merge into c's selected byte or half-word
      unsigned Shift = Dsel <= 4 ? 8 * (Dsel - 1) : 16 * (Dsel - 5);
      uint64_t Mask = ((uint64_t(1) << Bits) - 1) << Shift;
      R = (C[L] & ~Mask) | ((uint64_t(T) << Shift) & Mask);
    }
    D[L] = uint32_t(R);
  });
}

// vmad.dtype.atype.btype{.po}{.sat}{.scale} d, {-}a{.asel}, {-}b{.bsel}, {-}c: aux2 as above
// (no dsel/op2); aux = negate a | negate b << 1 | negate c << 2 | po << 3 | shift << 8.
void vmadOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  const uint32_t Sel = I.aux2;
  const bool ASigned = (Sel >> 18) & 1, BSigned = (Sel >> 19) & 1;
  const bool NegAB = (I.aux & 1) != ((I.aux >> 1) & 1), NegC = (I.aux >> 2) & 1,
             Po = (I.aux >> 3) & 1;
  const bool Signed = ASigned || BSigned || NegAB || NegC;
  forLanes(M, [&](unsigned L) {
    __int128 T = __int128(select(A[L], Sel & 15, ASigned)) * select(B[L], (Sel >> 4) & 15, BSigned);
    __int128 Cv = Signed ? __int128(int32_t(C[L])) : __int128(uint32_t(C[L]));
    int Lsb = 0;
    if (Po)
      Lsb = 1;
    else if (NegAB)
      T = ~T, Lsb = 1;
    else if (NegC)
      Cv = ~Cv, Lsb = 1;
    __int128 R = (T + Cv + Lsb) >> ((I.aux >> 8) & 0xff);
    if ((Sel >> 16) & 1)
      R = Signed ? std::clamp<__int128>(R, INT32_MIN, INT32_MAX)
                 : std::clamp<__int128>(R, 0, UINT32_MAX);
    D[L] = uint32_t(uint64_t(R));
  });
}

// --- SIMD video --------------------------------------------------------------------------------
// op0 d, op1 a, op2 b, op3 c. aux = op | cmp << 8 | elements (2 or 4) << 12 | add << 16 | sat
// << 17 | signed a << 18, b << 19, d << 20; aux2 = asel | bsel << 12 (element numbers, 3 bits
// each, in the 8 bytes / 4 half-words of {b, a}); aux3 = mask (bit i: element i of d from the
// result, or with .add: added to c).

void videoSimdOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  const uint32_t Op = I.aux & 0xff, N = (I.aux >> 12) & 15, Bits = 32 / N;
  const bool Add = (I.aux >> 16) & 1, Sat = (I.aux >> 17) & 1;
  const bool ASigned = (I.aux >> 18) & 1, BSigned = (I.aux >> 19) & 1, DSigned = (I.aux >> 20) & 1;
  forLanes(M, [&](unsigned L) {
    const uint64_t Pair = uint32_t(A[L]) | uint64_t(uint32_t(B[L])) << 32;
    int64_t Sum = 0;
    uint32_t R = 0;
    for (unsigned E = 0; E < N; ++E) {
      auto Elem = [&](uint32_t Sels, bool Signed) {
        return extend(Pair >> (Bits * ((Sels >> (3 * E)) & 7)), Bits, Signed);
      };
      int64_t T = apply(Op, Elem(I.aux2 & 0xfff, ASigned), Elem(I.aux2 >> 12, BSigned),
                        (I.aux >> 8) & 15);
      if (Sat && Op != VSet)
        T = clampTo(T, Bits, DSigned);
      Sum += (I.aux3 >> E) & 1 ? T : 0;
      const uint32_t Field = ((uint32_t(1) << Bits) - 1) << (Bits * E);
      R |= ((I.aux3 >> E) & 1 ? uint32_t(T) << (Bits * E) : uint32_t(C[L])) & Field;
    }
    D[L] = Add ? uint32_t(int64_t(int32_t(C[L])) + Sum) : R;
  });
}

// --- decoding ----------------------------------------------------------------------------------

/// `%r1.b2` -> `%r1` and "b2" (empty when there is no selector).
ptx::Operand splitSelector(const ptx::Operand &O, std::string &Sel) {
  ptx::Operand Base = O;
  Base.minus = false;
  Sel.clear();
  size_t Dot = O.name.rfind('.');
  if (O.kind == ptx::Operand::Kind::Register && Dot != std::string::npos &&
      (O.name[Dot + 1] == 'b' || O.name[Dot + 1] == 'h') && O.name.size() > Dot + 2 &&
      std::isdigit(static_cast<unsigned char>(O.name[Dot + 2]))) {
    Sel = O.name.substr(Dot + 1);
    Base.name = O.name.substr(0, Dot);
  }
  return Base;
}

/// A scalar selector's code (see videoScalarOp), or -1.
int scalarSelector(const std::string &S) {
  constexpr const char *Names[] = {"", "b0", "b1", "b2", "b3", "h0", "h1"};
  for (int K = 0; K < 7; ++K)
    if (S == Names[K])
      return K;
  return -1;
}

/// SIMD element numbers (3 bits each, element 0 lowest) from `hxy` / `bxyzw` (digits from the
/// highest element down), or `Default` for none; -1 when malformed.
int64_t simdSelector(const std::string &S, unsigned N, uint32_t Default) {
  if (S.empty())
    return Default;
  if (S.size() != N + 1 || S[0] != (N == 2 ? 'h' : 'b'))
    return -1;
  uint32_t V = 0;
  for (unsigned E = 0; E < N; ++E)
    V |= uint32_t(S[N - E] - '0') << (3 * E);
  return V;
}

bool decodeOperands(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I,
                    std::string (&Sel)[4]) {
  if (In.operands.size() < 3 || In.operands.size() > 4)
    return Ctx.fail("video instruction operands");
  for (unsigned K = 0; K < In.operands.size(); ++K) {
    ptx::Operand Base = splitSelector(In.operands[K], Sel[K]);
    if (!(K == 0 ? Ctx.dst(I, 0, Base) : Ctx.src(I, K, Base, ptx::Type::B32)))
      return false;
  }
  return true;
}

constexpr std::string_view CmpNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};

uint32_t cmpOf(const ptx::Instruction &In) {
  for (uint32_t K = 0; K < 6; ++K)
    if (In.hasModifier(CmpNames[K]))
      return K;
  return 99;
}

bool selectSimd(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I, uint32_t Op, unsigned N) {
  std::string Sel[4];
  std::vector<ptx::Type> Ts = In.types();
  if (!decodeOperands(Ctx, In, I, Sel) || In.operands.size() != 4 || Ts.size() < 2)
    return Ctx.fail("SIMD video form");
  const bool ASigned = Ts[Ts.size() - 2] == ptx::Type::S32, BSigned = Ts.back() == ptx::Type::S32;
  const int64_t ASel = simdSelector(Sel[1], N, N == 2 ? 0 | 1 << 3 : 0 | 1 << 3 | 2 << 6 | 3 << 9);
  const int64_t BSel = simdSelector(Sel[2], N, N == 2 ? 2 | 3 << 3 : 4 | 5 << 3 | 6 << 6 | 7 << 9);
  int64_t Mask = (1 << N) - 1; // d's mask: its elements taken from the result
  if (!Sel[0].empty()) {
    Mask = 0;
    for (size_t K = 1; K < Sel[0].size(); ++K)
      Mask |= 1 << (Sel[0][K] - '0');
  }
  const uint32_t Cmp = Op == VSet ? cmpOf(In) : 0;
  if (ASel < 0 || BSel < 0 || !Sel[3].empty() || Cmp == 99 || Mask >= (1 << N))
    return Ctx.fail("SIMD video selectors");
  I.aux = Op | Cmp << 8 | N << 12 | (In.hasModifier("add") ? 1u << 16 : 0) |
          (In.hasModifier("sat") ? 1u << 17 : 0) | (ASigned ? 1u << 18 : 0) |
          (BSigned ? 1u << 19 : 0) | (Ts[0] == ptx::Type::S32 ? 1u << 20 : 0);
  I.aux2 = uint32_t(ASel) | uint32_t(BSel) << 12;
  I.aux3 = uint32_t(Mask);
  I.fn = videoSimdOp;
  return true;
}

bool selectScalar(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I, uint32_t Op) {
  std::string Sel[4];
  std::vector<ptx::Type> Ts = In.types();
  if (!decodeOperands(Ctx, In, I, Sel) || Ts.size() < 2)
    return Ctx.fail("video form");
  const bool Vmad = In.opcode == ptx::Opcode::Vmad;
  // Types: vset.atype.btype, vop.dtype.atype.btype (vshl/vshr: btype u32).
  const ptx::Type DT = Ts.size() == 3 ? Ts[0] : ptx::Type::U32;
  const int ASel = scalarSelector(Sel[1]), BSel = scalarSelector(Sel[2]);
  const int DSel = scalarSelector(Sel[0]);
  const uint32_t Op2 = In.hasModifier("add") ? 1 : In.hasModifier("min") ? 2 : In.hasModifier("max") ? 3 : 0;
  if (ASel < 0 || BSel < 0 || DSel < 0 || !Sel[3].empty() || (DSel && Op2) ||
      ((DSel || Op2) != (In.operands.size() == 4) && !Vmad))
    return Ctx.fail("video selectors or operand c");
  I.aux2 = uint32_t(ASel) | uint32_t(BSel) << 4 | uint32_t(DSel) << 8 | Op2 << 12 |
           (In.hasModifier("sat") ? 1u << 16 : 0) | (DT == ptx::Type::S32 ? 1u << 17 : 0) |
           (Ts[Ts.size() - 2] == ptx::Type::S32 ? 1u << 18 : 0) |
           (Ts.back() == ptx::Type::S32 ? 1u << 19 : 0);
  if (Vmad) {
    if (In.operands.size() != 4 || DSel || Op2)
      return Ctx.fail("vmad form");
    I.aux = (In.operands[1].minus ? 1 : 0) | (In.operands[2].minus ? 2 : 0) |
            (In.operands[3].minus ? 4 : 0) | (In.hasModifier("po") ? 8 : 0) |
            (In.hasModifier("shr7") ? 7u << 8 : In.hasModifier("shr15") ? 15u << 8 : 0);
    I.fn = vmadOp;
    return true;
  }
  const uint32_t Cmp = Op == VSet ? cmpOf(In) : 0;
  if (Cmp == 99)
    return Ctx.fail("vset comparison");
  I.aux = Op | Cmp << 8 | (In.hasModifier("clamp") ? 1u << 12 : 0);
  I.fn = videoScalarOp;
  return true;
}

/// Every video opcode: its operation and, for the SIMD ones, its element count.
struct VideoForm {
  ptx::Opcode opcode;
  uint32_t op;
  unsigned simd; ///< 0 scalar, 2 half-words, 4 bytes
};
constexpr VideoForm VideoForms[] = {
    {ptx::Opcode::Vadd, VAdd, 0},       {ptx::Opcode::Vsub, VSub, 0},
    {ptx::Opcode::Vabsdiff, VAbsdiff, 0}, {ptx::Opcode::Vmin, VMin, 0},
    {ptx::Opcode::Vmax, VMax, 0},       {ptx::Opcode::Vshl, VShl, 0},
    {ptx::Opcode::Vshr, VShr, 0},       {ptx::Opcode::Vset, VSet, 0},
    {ptx::Opcode::Vmad, VAdd, 0},       {ptx::Opcode::Vadd2, VAdd, 2},
    {ptx::Opcode::Vsub2, VSub, 2},      {ptx::Opcode::Vavrg2, VAvrg, 2},
    {ptx::Opcode::Vabsdiff2, VAbsdiff, 2}, {ptx::Opcode::Vmin2, VMin, 2},
    {ptx::Opcode::Vmax2, VMax, 2},      {ptx::Opcode::Vset2, VSet, 2},
    {ptx::Opcode::Vadd4, VAdd, 4},      {ptx::Opcode::Vsub4, VSub, 4},
    {ptx::Opcode::Vavrg4, VAvrg, 4},    {ptx::Opcode::Vabsdiff4, VAbsdiff, 4},
    {ptx::Opcode::Vmin4, VMin, 4},      {ptx::Opcode::Vmax4, VMax, 4},
    {ptx::Opcode::Vset4, VSet, 4}};

const VideoForm *videoForm(ptx::Opcode Op) {
  for (const VideoForm &F : VideoForms)
    if (F.opcode == Op)
      return &F;
  return nullptr;
}

} // namespace

bool isVideoOpcode(ptx::Opcode Op) { return videoForm(Op) != nullptr; }

bool selectVideo(DecodeCtx &Ctx, const ptx::Instruction &In, DInstr &I) {
  const VideoForm *F = videoForm(In.opcode);
  if (!F)
    return Ctx.fail("");
  for (const ptx::Operand &O : In.operands)
    if (O.minus && In.opcode != ptx::Opcode::Vmad)
      return Ctx.fail("a negated operand");
  return F->simd ? selectSimd(Ctx, In, I, F->op, F->simd) : selectScalar(Ctx, In, I, F->op);
}

} // namespace analyzer
