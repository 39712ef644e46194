// PTX bit-manipulation instructions with nontrivial semantics (PTX ISA 9.7.1 and 9.7.9):
// brev, bfind, fns, bfe, bfi, prmt. The simple ones are inline in ScalarOps.h.
#include "analyzer/ScalarOps.h"

namespace analyzer::scalar {
namespace {

uint64_t widthMask(unsigned Bits) { return Bits == 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1; }

/// prmt byte selection for the default mode: bits 2..0 pick a byte of {b, a}; bit 3 replicates
/// that byte's sign bit.
uint32_t prmtByte(uint64_t Src, uint32_t Sel) {
  uint32_t Byte = uint32_t(Src >> (8 * (Sel & 7))) & 0xff;
  if (Sel & 8)
    return (Byte & 0x80) ? 0xff : 0x00;
  return Byte;
}

} // namespace

uint32_t brev32(uint32_t A) {
  A = ((A >> 1) & 0x55555555u) | ((A & 0x55555555u) << 1);
  A = ((A >> 2) & 0x33333333u) | ((A & 0x33333333u) << 2);
  A = ((A >> 4) & 0x0f0f0f0fu) | ((A & 0x0f0f0f0fu) << 4);
  A = ((A >> 8) & 0x00ff00ffu) | ((A & 0x00ff00ffu) << 8);
  return (A >> 16) | (A << 16);
}

uint64_t brev64(uint64_t A) {
  return uint64_t(brev32(uint32_t(A))) << 32 | brev32(uint32_t(A >> 32));
}

uint32_t bfind(uint64_t A, unsigned Bits, bool Signed, bool ShiftAmt) {
  A &= widthMask(Bits);
  if (Signed && ((A >> (Bits - 1)) & 1))
    A = ~A & widthMask(Bits); // look for the most significant 0 of a negative value
  if (A == 0)
    return 0xffffffffu;
  uint32_t Pos = 63 - uint32_t(std::countl_zero(A));
  return ShiftAmt ? Bits - 1 - Pos : Pos;
}

uint32_t fns(uint32_t Mask, uint32_t Base, int32_t Offset) {
  if (Base > 31)
    return 0xffffffffu;
  if (Offset == 0)
    return ((Mask >> Base) & 1) ? Base : 0xffffffffu;
  int Inc = Offset > 0 ? 1 : -1;
  int64_t Count = Offset > 0 ? int64_t(Offset) - 1 : -int64_t(Offset) - 1;
  for (int Pos = int(Base); Pos >= 0 && Pos < 32; Pos += Inc) {
    if ((Mask >> Pos) & 1) {
      if (Count == 0)
        return uint32_t(Pos);
      --Count;
    }
  }
  return 0xffffffffu;
}

uint64_t bfe(uint64_t A, uint32_t Pos, uint32_t Len, unsigned Bits, bool Signed) {
  Pos &= 0xff;
  Len &= 0xff;
  unsigned Msb = Bits - 1;
  A &= widthMask(Bits);
  if (Len == 0)
    return 0;
  bool SignBit = false;
  if (Signed) {
    uint32_t Top = Pos + Len - 1 < Msb ? Pos + Len - 1 : Msb;
    SignBit = (A >> Top) & 1;
  }
  uint64_t D = 0;
  for (unsigned I = 0; I <= Msb; ++I) {
    bool Bit = (I < Len && Pos + I <= Msb) ? ((A >> (Pos + I)) & 1) : SignBit;
    D |= uint64_t(Bit) << I;
  }
  return D;
}

uint64_t bfi(uint64_t A, uint64_t B, uint32_t Pos, uint32_t Len, unsigned Bits) {
  Pos &= 0xff;
  Len &= 0xff;
  uint64_t F = B & widthMask(Bits);
  for (uint32_t I = 0; I < Len && Pos + I < Bits; ++I) {
    uint64_t Bit = uint64_t(1) << (Pos + I);
    F = ((A >> I) & 1) ? (F | Bit) : (F & ~Bit);
  }
  return F;
}

uint32_t prmt(uint32_t A, uint32_t B, uint32_t C, PrmtMode Mode) {
  uint64_t Src = uint64_t(B) << 32 | A;
  if (Mode == PrmtMode::Default) {
    uint32_t D = 0;
    for (int I = 0; I < 4; ++I)
      D |= prmtByte(Src, (C >> (4 * I)) & 0xf) << (8 * I);
    return D;
  }
  // Byte selectors for result bytes 0..3, indexed by C & 3 (PTX ISA table for prmt modes).
  static constexpr uint8_t Table[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}, // f4e
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}, // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}, // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}, // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}, // rc16
  };
  const uint8_t *Sel = Table[int(Mode) - 1][C & 3];
  uint32_t D = 0;
  for (int I = 0; I < 4; ++I)
    D |= prmtByte(Src, Sel[I]) << (8 * I);
  return D;
}

} // namespace analyzer::scalar
