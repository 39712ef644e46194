// Row kernels: softmax and layer norm over the last axis, one block per row, with block-wide
// all-reductions (shfl.sync.bfly inside warps, one partial per warp in shared memory).
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t MaxBlock = 256;
constexpr uint32_t WarpSize = 32;

/// How two partial results combine.
enum class Combine : uint8_t { Add, Max, Min };

Value *combine(KernelBuilder &K, Combine C, Value *A, Value *Bv) {
  switch (C) {
  case Combine::Max:
    return K.maxf(A, Bv);
  case Combine::Min:
    return K.minf(A, Bv);
  case Combine::Add:
    break;
  }
  return K.ir().CreateFAdd(A, Bv);
}

/// Combines V across the whole block: a shfl.sync.bfly butterfly inside each warp, one partial
/// per warp in shared memory, then every thread folds the partials. All threads get the result.
Value *blockAllReduce(KernelBuilder &K, Value *V, uint32_t Warps, Combine C, const char *Name) {
  IRBuilder<> &B = K.ir();
  auto Op = [&](Value *A, Value *Bv) { return combine(K, C, A, Bv); };
  for (uint32_t Off = WarpSize / 2; Off > 0; Off /= 2)
    V = Op(V, K.shflBfly(V, Off));
  Value *Partial = K.sharedArray(Name, WarpSize);
  Value *Tid = K.tid(0);
  Value *Lane = B.CreateAnd(Tid, K.i32(WarpSize - 1));
  K.ifThen(B.CreateICmpEQ(Lane, K.i32(0)),
           [&] { K.storeShared(Partial, B.CreateLShr(Tid, K.i32(5)), V); });
  K.barrier();
  Value *R = K.loadShared(Partial, K.i32(0));
  for (uint32_t W = 1; W < Warps; ++W)
    R = Op(R, K.loadShared(Partial, K.i32(W)));
  return R;
}

/// 1 / cols: a constant, or computed once from the shape parameter.
Value *inverseCols(KernelBuilder &K, uint32_t Cols) {
  if (!K.library())
    return K.f32(1.0f / float(Cols));
  return K.ir().CreateFDiv(K.f32(1.0f), K.dimF32("cols"));
}

/// A kernel over the middle axis of a [rows, cols, inner] tensor: an Input and an Output of
/// rows x cols x inner elements, or of rows x inner (`reduces`).
struct AxisKernel {
  LaunchStrategy strategy;
  DType dtype;
  uint32_t rows, cols, inner;
  bool wide; ///< 64-bit index arithmetic
  bool reduces;
};

/// P's launch (grid Grid, block (Bx, 1, 1), shapes Dims) and, given a module, its kernel, built
/// by Body.
KernelLaunch buildAxisKernel(Module *M, const std::string &Name, const AxisKernel &P, KernelSet Set,
                             std::array<uint32_t, 3> Grid, uint32_t Bx, const ShapeDims &Dims,
                             const std::function<void(KernelBuilder &)> &Body) {
  const std::vector<ParamRole> Roles = {ParamRole::Input, ParamRole::Output};
  KernelLaunch L = makeLaunch(Name, P.strategy, P.dtype, Grid, {Bx, 1, 1}, Roles, [&](ParamRole R) {
    const bool Whole = !P.reduces || R == ParamRole::Input;
    return uint64_t(P.rows) * P.inner * (Whole ? P.cols : 1);
  });
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, P.dtype, L, P.wide, Dims);
  Body(K);
  K.finish();
  return L;
}

/// One block per row of [rows, cols] (P.inner 1) with bx = warpRounded(cols) threads:
/// Body(K, Bx) builds the kernel.
KernelLaunch buildRowKernel(Module *M, const std::string &Name, const AxisKernel &P, KernelSet Set,
                            const std::function<void(KernelBuilder &, uint32_t)> &Body) {
  const uint32_t Bx = warpRoundedBlock(P.cols, MaxBlock);
  return buildAxisKernel(M, Name, P, Set, {P.rows, 1, 1}, Bx, {{"cols", P.cols}},
                         [&](KernelBuilder &K) { Body(K, Bx); });
}

/// One thread per (row, inner) position, PyTorch's form for an inner axis: grid x over inner, y
/// and z over rows. Body(K, Row, X) builds what the thread of position (Row, X) (i32, both in
/// range) computes.
KernelLaunch
buildSpatialKernel(Module *M, const std::string &Name, const AxisKernel &P, KernelSet Set,
                   const std::function<void(KernelBuilder &, Value *, Value *)> &Body) {
  const uint32_t Bx = warpRoundedBlock(P.inner, MaxBlock);
  const uint32_t Gy = std::min(P.rows, MaxGridYZ), Gz = ceilDiv(P.rows, Gy);
  const ShapeDims Dims = {{"rows", P.rows}, {"cols", P.cols}, {"inner", P.inner}, {"gy", Gy}};
  auto Positions = [&](KernelBuilder &K) {
    IRBuilder<> &B = K.ir();
    Value *X = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(Bx)), K.tid(0));
    Value *Row = B.CreateAdd(B.CreateMul(K.ctaid(2), K.dim("gy")), K.ctaid(1));
    Value *Live =
        B.CreateAnd(B.CreateICmpULT(X, K.dim("inner")), B.CreateICmpULT(Row, K.dim("rows")));
    K.ifThen(Live, [&] { Body(K, Row, X); });
  };
  return buildAxisKernel(M, Name, P, Set, {ceilDiv(P.inner, Bx), Gy, Gz}, Bx, Dims, Positions);
}

} // namespace

std::string libraryName(const SoftmaxSpec &S) {
  if (S.inner > 1)
    return libraryKernelName("softmax_spatial_b" +
                                 std::to_string(warpRoundedBlock(S.inner, MaxBlock)),
                             S.dtype, {}, wideIndex(S));
  return libraryKernelName("softmax_b" + std::to_string(warpRoundedBlock(S.cols, MaxBlock)),
                           S.dtype, {}, wideIndex(S));
}

std::string libraryName(const AxisReduceSpec &S) {
  const std::string Op(axisReduceOpName(S.op));
  if (S.inner > 1)
    return libraryKernelName("reduce_" + Op + "_spatial_b" +
                                 std::to_string(warpRoundedBlock(S.inner, MaxBlock)),
                             S.dtype, {}, wideIndex(S));
  return libraryKernelName("reduce_" + Op + "_b" +
                               std::to_string(warpRoundedBlock(S.cols, MaxBlock)),
                           S.dtype, {}, wideIndex(S));
}

std::string libraryName(const LayerNormSpec &S) {
  std::string N = "layernorm_b" + std::to_string(warpRoundedBlock(S.cols, MaxBlock));
  if (S.epsilon != 1e-5f)
    N += "_eps" + scalarName(S.epsilon);
  if (!S.affine)
    N += "_noaffine";
  return libraryKernelName(N, S.dtype, {}, wideIndex(S));
}

namespace {

/// Softmax over an inner axis, PyTorch's spatial softmax (cunn_SpatialSoftMaxForward): one thread
/// per (row, inner) position, three passes over the cols (max, sum of exponentials, output),
/// neighbouring threads reading neighbouring elements. Grid: x over inner, y and z over rows.
KernelLaunch buildSpatialSoftmax(Module *M, const SoftmaxSpec &S, const std::string &Name,
                                 KernelSet Set) {
  const AxisKernel P{
      LaunchStrategy::SoftmaxSpatial, S.dtype, S.rows, S.cols, S.inner, wideIndex(S), false};
  return buildSpatialKernel(M, Name, P, Set, [&](KernelBuilder &K, Value *Row, Value *X) {
    IRBuilder<> &B = K.ir();
    // Element (row, c, x) is row * cols * inner + c * inner + x.
    Value *Base = B.CreateAdd(
        B.CreateMul(B.CreateMul(K.widen(Row), K.dimIx("cols")), K.dimIx("inner")), K.widen(X));
    auto ForCols = [&](const std::function<void(Value *)> &Body) {
      K.forRange(K.i32(0), K.dim("cols"), 1, [&](Value *C) {
        Body(B.CreateAdd(Base, B.CreateMul(K.widen(C), K.dimIx("inner"))));
      });
    };
    Value *MaxSlot = K.accumulator(-std::numeric_limits<float>::infinity());
    ForCols([&](Value *I) { K.set(MaxSlot, K.maxf(K.get(MaxSlot), K.load(ParamRole::Input, I))); });
    Value *RowMax = K.get(MaxSlot);
    Value *SumSlot = K.accumulator(0.0f);
    ForCols([&](Value *I) {
      Value *E = K.exp(B.CreateFSub(K.load(ParamRole::Input, I), RowMax));
      K.set(SumSlot, B.CreateFAdd(K.get(SumSlot), E));
    });
    Value *Inv = B.CreateFDiv(K.f32(1.0f), K.get(SumSlot));
    ForCols([&](Value *I) {
      Value *E = K.exp(B.CreateFSub(K.load(ParamRole::Input, I), RowMax));
      K.store(ParamRole::Output, I, B.CreateFMul(E, Inv));
    });
  });
}

} // namespace

KernelLaunch buildSoftmax(Module *M, const SoftmaxSpec &S, const std::string &Name, KernelSet Set) {
  if (S.inner > 1)
    return buildSpatialSoftmax(M, S, Name, Set);
  const AxisKernel P{LaunchStrategy::Softmax, S.dtype, S.rows, S.cols, 1, wideIndex(S), false};
  return buildRowKernel(M, Name, P, Set, [&](KernelBuilder &K, uint32_t Bx) {
    IRBuilder<> &B = K.ir();
    Value *Tid = K.tid(0);
    Value *Base = B.CreateMul(K.widen(K.ctaid(0)), K.dimIx("cols"));
    auto ForCols = [&](const std::function<void(Value *)> &Body) {
      K.forRange(Tid, K.dim("cols"), Bx, [&](Value *C) { Body(B.CreateAdd(Base, K.widen(C))); });
    };
    Value *MaxSlot = K.accumulator(-std::numeric_limits<float>::infinity());
    ForCols([&](Value *I) { K.set(MaxSlot, K.maxf(K.get(MaxSlot), K.load(ParamRole::Input, I))); });
    Value *RowMax = blockAllReduce(K, K.get(MaxSlot), Bx / WarpSize, Combine::Max, "red_max");
    Value *SumSlot = K.accumulator(0.0f);
    ForCols([&](Value *I) {
      Value *E = K.exp(B.CreateFSub(K.load(ParamRole::Input, I), RowMax));
      K.set(SumSlot, B.CreateFAdd(K.get(SumSlot), E));
    });
    Value *RowSum = blockAllReduce(K, K.get(SumSlot), Bx / WarpSize, Combine::Add, "red_sum");
    Value *Inv = B.CreateFDiv(K.f32(1.0f), RowSum);
    ForCols([&](Value *I) {
      Value *E = K.exp(B.CreateFSub(K.load(ParamRole::Input, I), RowMax));
      K.store(ParamRole::Output, I, B.CreateFMul(E, Inv));
    });
  });
}

KernelLaunch buildLayerNorm(Module *M, const LayerNormSpec &S, const std::string &Name,
                            KernelSet Set) {
  const uint32_t Bx = warpRoundedBlock(S.cols, MaxBlock);
  const std::vector<ParamRole> Roles = S.affine ? std::vector{ParamRole::Input, ParamRole::Weight,
                                                              ParamRole::Bias, ParamRole::Output}
                                                : std::vector{ParamRole::Input, ParamRole::Output};
  KernelLaunch L = makeLaunch(Name, LaunchStrategy::LayerNorm, S.dtype, {S.rows, 1, 1}, {Bx, 1, 1},
                              Roles, [&](ParamRole R) {
                                if (R == ParamRole::Weight || R == ParamRole::Bias)
                                  return uint64_t(S.cols);
                                return uint64_t(S.rows) * S.cols;
                              });
  const ShapeDims Dims = {{"cols", S.cols}};
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, S.dtype, L, wideIndex(S), Dims);
  IRBuilder<> &B = K.ir();
  Value *Tid = K.tid(0);
  Value *Base = B.CreateMul(K.widen(K.ctaid(0)), K.dimIx("cols"));
  auto ForCols = [&](const std::function<void(Value *, Value *)> &Body) {
    K.forRange(Tid, K.dim("cols"), Bx, [&](Value *C) {
      Value *Col = K.widen(C);
      Body(Col, B.CreateAdd(Base, Col));
    });
  };
  // Statistics in one pass over the row: sums of d and d^2 with d = x - x[row, 0] (shifting by
  // a value of the row keeps E[d^2] - E[d]^2 accurate when the mean is large).
  Value *Shift = K.load(ParamRole::Input, Base);
  Value *Sum = K.accumulator(0.0f), *SumSq = K.accumulator(0.0f);
  ForCols([&](Value *, Value *I) {
    Value *D = B.CreateFSub(K.load(ParamRole::Input, I), Shift);
    K.set(Sum, B.CreateFAdd(K.get(Sum), D));
    K.set(SumSq, K.fma(D, D, K.get(SumSq)));
  });
  Value *InvCols = inverseCols(K, S.cols);
  Value *MeanD =
      B.CreateFMul(blockAllReduce(K, K.get(Sum), Bx / WarpSize, Combine::Add, "red_sum"), InvCols);
  Value *MeanSq =
      B.CreateFMul(blockAllReduce(K, K.get(SumSq), Bx / WarpSize, Combine::Add, "red_sq"), InvCols);
  Value *Var = K.maxf(B.CreateFSub(MeanSq, B.CreateFMul(MeanD, MeanD)), K.f32(0.0f));
  Value *Rstd = K.rsqrt(B.CreateFAdd(Var, K.f32(S.epsilon)));
  Value *Mean = B.CreateFAdd(Shift, MeanD);
  ForCols([&](Value *Col, Value *I) {
    Value *Y = B.CreateFMul(B.CreateFSub(K.load(ParamRole::Input, I), Mean), Rstd);
    if (S.affine)
      Y = K.fma(Y, K.load(ParamRole::Weight, Col), K.load(ParamRole::Bias, Col));
    K.store(ParamRole::Output, I, Y);
  });
  K.finish();
  return L;
}

namespace {

/// The start of an accumulation of Op.
float reduceStart(AxisReduceOp Op) {
  if (Op == AxisReduceOp::Max)
    return -std::numeric_limits<float>::infinity();
  if (Op == AxisReduceOp::Min)
    return std::numeric_limits<float>::infinity();
  return 0.0f;
}

/// How partial results of Op combine.
Combine combineOf(AxisReduceOp Op) {
  if (Op == AxisReduceOp::Max)
    return Combine::Max;
  if (Op == AxisReduceOp::Min)
    return Combine::Min;
  return Combine::Add;
}

/// Acc updated with element X.
Value *reduceStep(KernelBuilder &K, AxisReduceOp Op, Value *Acc, Value *X) {
  switch (Op) {
  case AxisReduceOp::SumSquare:
  case AxisReduceOp::L2:
    return K.fma(X, X, Acc);
  case AxisReduceOp::L1:
    return K.ir().CreateFAdd(Acc, K.ir().CreateUnaryIntrinsic(Intrinsic::fabs, X));
  default:
    return combine(K, combineOf(Op), Acc, X);
  }
}

/// The result from the accumulated Total: a mean multiplies by 1 / cols (PyTorch's MeanOps
/// factor), an L2 norm takes the square root.
Value *reduceResult(KernelBuilder &K, AxisReduceOp Op, Value *Total, uint32_t Cols) {
  if (Op == AxisReduceOp::Mean)
    return K.ir().CreateFMul(Total, inverseCols(K, Cols));
  if (Op == AxisReduceOp::L2)
    return K.activation(ActivationKind::Sqrt, Total);
  return Total;
}

/// One thread per (row, inner) position looping over the cols (inner > 1).
KernelLaunch buildSpatialReduce(Module *M, const AxisReduceSpec &S, const std::string &Name,
                                KernelSet Set) {
  const AxisKernel P{
      LaunchStrategy::ReduceAxis, S.dtype, S.rows, S.cols, S.inner, wideIndex(S), true};
  return buildSpatialKernel(M, Name, P, Set, [&](KernelBuilder &K, Value *Row, Value *X) {
    IRBuilder<> &B = K.ir();
    // Element (row, c, x) is row * cols * inner + c * inner + x; output (row, x) row * inner + x.
    Value *RowInner = B.CreateMul(K.widen(Row), K.dimIx("inner"));
    Value *Base = B.CreateAdd(B.CreateMul(RowInner, K.dimIx("cols")), K.widen(X));
    Value *Acc = K.accumulator(reduceStart(S.op));
    K.forRange(K.i32(0), K.dim("cols"), 1, [&](Value *C) {
      Value *I = B.CreateAdd(Base, B.CreateMul(K.widen(C), K.dimIx("inner")));
      K.set(Acc, reduceStep(K, S.op, K.get(Acc), K.load(ParamRole::Input, I)));
    });
    K.store(ParamRole::Output, B.CreateAdd(RowInner, K.widen(X)),
            reduceResult(K, S.op, K.get(Acc), S.cols));
  });
}

} // namespace

KernelLaunch buildAxisReduce(Module *M, const AxisReduceSpec &S, const std::string &Name,
                             KernelSet Set) {
  if (S.inner > 1)
    return buildSpatialReduce(M, S, Name, Set);
  const AxisKernel P{LaunchStrategy::ReduceAxis, S.dtype, S.rows, S.cols, 1, wideIndex(S), true};
  return buildRowKernel(M, Name, P, Set, [&](KernelBuilder &K, uint32_t Bx) {
    IRBuilder<> &B = K.ir();
    Value *Tid = K.tid(0);
    Value *Row = K.widen(K.ctaid(0));
    Value *Base = B.CreateMul(Row, K.dimIx("cols"));
    Value *Acc = K.accumulator(reduceStart(S.op));
    K.forRange(Tid, K.dim("cols"), Bx, [&](Value *C) {
      Value *X = K.load(ParamRole::Input, B.CreateAdd(Base, K.widen(C)));
      K.set(Acc, reduceStep(K, S.op, K.get(Acc), X));
    });
    Value *Total = blockAllReduce(K, K.get(Acc), Bx / WarpSize, combineOf(S.op), "red_acc");
    K.ifThen(B.CreateICmpEQ(Tid, K.i32(0)),
             [&] { K.store(ParamRole::Output, Row, reduceResult(K, S.op, Total, S.cols)); });
  });
}

} // namespace corpus::kernels
