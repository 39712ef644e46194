// Generic per-lane handler templates: one instantiation per (operation, type), chosen at decode
// time. Operations are structs with a static `f` on typed values; storage conversion is here.
#pragma once

#include "Engine.h"

namespace analyzer {

/// d = Op::f(a) with operand and result of type T.
template <class T, class Op> void unaryOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1);
  forLanes(M, [&](unsigned L) { D[L] = putAs<T>(Op::f(getAs<T>(A[L]))); });
}

/// d = Op::f(a, b).
template <class T, class Op> void binaryOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2);
  forLanes(M, [&](unsigned L) { D[L] = putAs<T>(Op::f(getAs<T>(A[L]), getAs<T>(B[L]))); });
}

/// d = Op::f(a, b, c).
template <class T, class Op> void ternaryOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  forLanes(M, [&](unsigned L) {
    D[L] = putAs<T>(Op::f(getAs<T>(A[L]), getAs<T>(B[L]), getAs<T>(C[L])));
  });
}

/// Handlers that need the instruction (modifiers in aux): d = Op::f(I, a, b, c).
template <class T, class Op> void ternaryAuxOp(Exec &, Warp &W, const DInstr &I, uint32_t M) {
  uint64_t *D = opPtr(W, I, 0);
  const uint64_t *A = opPtr(W, I, 1), *B = opPtr(W, I, 2), *C = opPtr(W, I, 3);
  forLanes(M, [&](unsigned L) {
    D[L] = putAs<T>(Op::f(I, getAs<T>(A[L]), getAs<T>(B[L]), getAs<T>(C[L])));
  });
}

} // namespace analyzer
