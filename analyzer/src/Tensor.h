// Warp-wide matrix fragments of the tensor-core instructions (PTX ISA 9.7.14 wmma, 9.7.15 mma):
// which lane and register hold which element of a matrix, and how elements are encoded.
#pragma once

#include "Engine.h"

namespace analyzer::tensor {

/// The matrix a fragment holds: A (m x k), B (k x n), or an accumulator C/D (m x n).
enum class Role : uint8_t { A, B, C };

/// How a family of instructions distributes matrix elements over the lanes.
enum class Family : uint8_t {
  /// mma.sync m16n8kK and m8n8kK (PTX ISA 9.7.15.4): groupID = lane >> 2 picks the row (A, C)
  /// or column (B), threadID_in_group = lane % 4 the packed elements along k (A, B) or n (C).
  Mma,
  /// mma.sync.m8n8k4 with .f16 (PTX ISA 9.7.15.4.1): four independent m8n8k4 products, one per
  /// quad pair (lanes 0-3 with 16-19, 4-7 with 20-23, ...).
  MmaVolta,
  /// wmma (PTX ISA 9.7.14.2: the layout is unspecified): lane-major over the row-major matrix,
  /// repeated when the fragment holds more elements than the matrix (f16 A and B).
  Wmma,
};

struct Fragment {
  Family family = Family::Mma;
  Role role = Role::A;
  unsigned rows = 0, cols = 0; ///< of one matrix (A: m x k, B: k x n, C: m x n)
  unsigned batches = 1;        ///< matrices in the fragment (4 for MmaVolta)
  unsigned regs = 0;           ///< registers per lane
  unsigned perReg = 1;         ///< elements packed per register (low bits first)
  bool colMajor = false;       ///< MmaVolta A and B: the column-major fragment layout
  bool f32Accum = false;       ///< MmaVolta C: the .f32 accumulator layout

  /// Index batch * rows * cols + row * cols + col of element J of register R in lane L.
  unsigned element(unsigned L, unsigned R, unsigned J) const;
  /// Appends element() for every (R, L, J), R outermost, then L, then J.
  void appendTable(std::vector<uint32_t> &Out) const;
  unsigned size() const { return batches * rows * cols; }
};

/// Bits of one element of type T (f16 16, s8 8, s4 4, b1 1, f64 64, ...).
unsigned elementBits(ptx::Type T);
/// Element J of a register holding elements of type T, as a double (exact for every type):
/// f16/bf16/tf32/f32/e4m3/e5m2/f64 values (tf32: the low 13 bits are ignored), integers, bits.
double elementValue(ptx::Type T, uint64_t Reg, unsigned J);
/// `V` encoded as an element of accumulator type T (f16 rounded to nearest even, s32 wrapped
/// or, with `Sat`, clamped), in the low bits.
uint64_t encodeElement(ptx::Type T, double V, bool Sat);

/// Raises the trap of a warp-wide matrix instruction run by fewer than 32 lanes; false then.
bool requireFullWarp(Exec &X, Warp &W, const DInstr &I, uint32_t M);

} // namespace analyzer::tensor
