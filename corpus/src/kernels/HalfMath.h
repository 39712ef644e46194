// Half-precision arithmetic for f16 networks under a tensor math mode (docs/lowering.md,
// "Half-precision math"): f16 and f16x2 values (add, mul, fma, max/min on `half` or
// `<2 x half>`), loads and stores of one or two neighbouring elements, and the fused epilogue
// in that arithmetic.
#pragma once

#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"

#include <vector>

namespace corpus::kernels {

/// Arithmetic on W neighbouring f16 elements at once: W = 2 is a `<2 x half>` value (f16x2
/// instructions, 32-bit loads and stores of element pairs at even indices), W = 1 a `half` (the
/// scalar tail of an odd count).
class HalfOps {
public:
  HalfOps(KernelBuilder &K, unsigned W);

  unsigned width() const { return W; }
  llvm::Type *type() const { return Ty; }
  /// Elements Index ... Index + W - 1 of buffer R (Index even when W = 2).
  llvm::Value *load(ParamRole R, llvm::Value *Index);
  /// Element Index of buffer R in every lane (a per-channel operand of elements in one channel).
  llvm::Value *broadcast(ParamRole R, llvm::Value *Index);
  void store(ParamRole R, llvm::Value *Index, llvm::Value *V);
  llvm::Value *constant(float C);
  /// f32 values (W of them) rounded to f16 (cvt.rn.f16.f32) and packed.
  llvm::Value *fromF32(const std::vector<llvm::Value *> &F32);
  llvm::Value *add(llvm::Value *A, llvm::Value *B);
  llvm::Value *mul(llvm::Value *A, llvm::Value *B);
  llvm::Value *fma(llvm::Value *A, llvm::Value *B, llvm::Value *C); ///< fma.rn.f16(x2)
  /// An activation with an f16 form (halfActivation).
  llvm::Value *activation(ActivationKind A, llvm::Value *X);
  /// The fused epilogue of KernelBuilder::epilogue in f16(x2) arithmetic (halfActivation of its
  /// activation): Channel is the first element's channel; with PerElementChannel the W elements
  /// have consecutive channels (dense: channel = column), else one (conv: channel = row). SeIndex
  /// and OutIndex are the first element's.
  llvm::Value *epilogue(const Epilogue &E, llvm::Value *V, llvm::Value *Channel,
                        bool PerElementChannel, llvm::Value *SeIndex, llvm::Value *OutIndex);

private:
  KernelBuilder &K;
  unsigned W;
  llvm::Type *Ty;
};

} // namespace corpus::kernels
