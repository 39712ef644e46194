// Fragment layouts and element codecs of the tensor-core instructions (Tensor.h).
#include "Tensor.h"
#include "analyzer/ScalarOps.h"

#include <algorithm>
#include <bit>

namespace analyzer::tensor {
namespace {

namespace S = scalar;

/// mma.sync m16n8kK / m8n8kK (PTX ISA 9.7.15.4.2-9.7.15.4.12). Every layout of the family is one
/// rule: A is cut into blocks of 8 rows x 4p columns (p = elements per register), register R
/// holding block (R % (rows / 8), R / (rows / 8)); B into blocks of 4p rows x 8 columns, one per
/// register; in a block, lane L holds row (A) or column (B) L / 4 and the p consecutive
/// elements starting at p * (L % 4) along k. C/D element i of lane L lies at row L / 4 + 8 (i / 2),
/// column 2 (L % 4) + i % 2 (p elements per register).
unsigned mmaElement(const Fragment &F, unsigned L, unsigned R, unsigned J) {
  const unsigned G = L >> 2, T = L & 3, P = F.perReg;
  switch (F.role) {
  case Role::A: {
    const unsigned RowBlocks = F.rows / 8;
    return (8 * (R % RowBlocks) + G) * F.cols + (R / RowBlocks) * 4 * P + T * P + J;
  }
  case Role::B:
    return (R * 4 * P + T * P + J) * F.cols + G;
  case Role::C: {
    const unsigned I = R * P + J;
    return (G + 8 * (I / 2)) * F.cols + 2 * T + I % 2;
  }
  }
  return 0;
}

/// mma.sync.m8n8k4 with .f16 (PTX ISA 9.7.15.4.1): lane L works on product (L % 16) / 4, in its
/// low (L < 16) or high half; T = L % 4; element i = 2R + J (i = R for .f32 accumulators).
unsigned voltaElement(const Fragment &F, unsigned L, unsigned R, unsigned J) {
  const unsigned Batch = (L % 16) / 4, High = L >= 16 ? 4 : 0, T = L % 4;
  const unsigned I = R * F.perReg + J;
  unsigned Row = 0, Col = 0;
  switch (F.role) {
  case Role::A: // 8 x 4
    Row = F.colMajor ? I % 4 + High : T + High;
    Col = F.colMajor ? T : I;
    break;
  case Role::B: // 4 x 8
    Row = F.colMajor ? I : T;
    Col = F.colMajor ? T + High : I + High;
    break;
  case Role::C: // 8 x 8
    Row = F.f32Accum ? (T & 1) + (I & 2) + High : T + High;
    Col = F.f32Accum ? (I & 4) + (T & 2) + (I & 1) : I;
    break;
  }
  return Batch * F.rows * F.cols + Row * F.cols + Col;
}

} // namespace

unsigned Fragment::element(unsigned L, unsigned R, unsigned J) const {
  switch (family) {
  case Family::Mma:
    return mmaElement(*this, L, R, J);
  case Family::MmaVolta:
    return voltaElement(*this, L, R, J);
  case Family::Wmma:
    return ((L * regs + R) * perReg + J) % size();
  }
  return 0;
}

void Fragment::appendTable(std::vector<uint32_t> &Out) const {
  for (unsigned R = 0; R < regs; ++R)
    for (unsigned L = 0; L < 32; ++L)
      for (unsigned J = 0; J < perReg; ++J)
        Out.push_back(element(L, R, J));
}

unsigned elementBits(ptx::Type T) {
  return T == ptx::Type::TF32 ? 32 : std::max(1u, ptx::typeBits(T));
}

double elementValue(ptx::Type T, uint64_t Reg, unsigned J) {
  const unsigned Bits = elementBits(T);
  const uint64_t V = Bits >= 64 ? Reg : (Reg >> (J * Bits)) & ((uint64_t(1) << Bits) - 1);
  switch (T) {
  case ptx::Type::F16:
    return S::f16ToF32(uint16_t(V));
  case ptx::Type::BF16:
    return S::bf16ToF32(uint16_t(V));
  case ptx::Type::TF32: // a .b32 register: only its tf32 bits count (the low 13 are ignored)
    return S::f32FromBits(uint32_t(V) & 0xffffe000u);
  case ptx::Type::F32:
    return S::f32FromBits(uint32_t(V));
  case ptx::Type::F64:
    return S::f64FromBits(V);
  case ptx::Type::E4M3:
    return S::e4m3ToF32(uint8_t(V));
  case ptx::Type::E5M2:
    return S::e5m2ToF32(uint8_t(V));
  case ptx::Type::S4:
    return double(int64_t(V << 60) >> 60);
  case ptx::Type::S8:
    return double(int8_t(V));
  case ptx::Type::S32:
    return double(int32_t(V));
  default: // u4, u8, b1
    return double(V);
  }
}

uint64_t encodeElement(ptx::Type T, double V, bool Sat) {
  switch (T) {
  case ptx::Type::F16:
    return S::f32ToF16(float(V));
  case ptx::Type::F32:
    return S::f32Bits(S::canonF32(float(V)));
  case ptx::Type::F64:
    return S::f64Bits(S::canonF64(V));
  default: { // s32: the exact integer sum, wrapped (two's complement) or clamped
    auto I = static_cast<int64_t>(V);
    if (Sat)
      I = std::clamp<int64_t>(I, INT32_MIN, INT32_MAX);
    return uint32_t(I);
  }
  }
}

bool requireFullWarp(Exec &X, Warp &W, const DInstr &I, uint32_t M) {
  if (M == ~0u)
    return true;
  raiseTrap(X, W, I, TrapKind::Unsupported,
            "'" + X.prog->messages[I.msg] + "' needs all 32 lanes of the warp; " +
                std::to_string(std::popcount(M)) + " run it",
            static_cast<uint32_t>(std::countr_zero(W.stack.back().mask)));
  return false;
}

} // namespace analyzer::tensor
