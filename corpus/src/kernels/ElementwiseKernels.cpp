// Standalone elementwise kernels (add, mul, channel scale, activation, batch norm), the channel
// concatenation copy and row softmax.
#include "kernels/KernelBuilder.h"
#include "kernels/Strategies.h"

#include <limits>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t MaxBlock = 256;
constexpr uint32_t WarpSize = 32;

const char *opStrategy(ElementwiseOp Op) {
  switch (Op) {
  case ElementwiseOp::Add:
    return "eltwise_add";
  case ElementwiseOp::Mul:
    return "eltwise_mul";
  case ElementwiseOp::ScaleChannels:
    return "eltwise_scale_channels";
  case ElementwiseOp::Activation:
    return "eltwise_activation";
  case ElementwiseOp::BatchNorm:
    return "eltwise_batch_norm";
  }
  return "eltwise";
}

/// Combines V across the whole block: a shfl.sync.bfly butterfly inside each warp, one partial
/// per warp in shared memory, then every thread folds the partials. All threads get the result.
Value *blockAllReduce(KernelBuilder &K, Value *V, uint32_t Warps, bool Max, const char *Name) {
  IRBuilder<> &B = K.ir();
  auto Op = [&](Value *A, Value *Bv) { return Max ? K.maxf(A, Bv) : B.CreateFAdd(A, Bv); };
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

} // namespace

KernelLaunch buildElementwise(Module &M, const ElementwiseSpec &S, const std::string &Name) {
  const uint64_t Count = uint64_t(S.batch) * S.channels * S.spatial;
  const uint32_t Bx = warpRoundedBlock(Count, MaxBlock);
  std::vector<ParamRole> Roles = {ParamRole::Input};
  if (S.op == ElementwiseOp::BatchNorm) {
    Roles.push_back(ParamRole::BnScale);
    Roles.push_back(ParamRole::BnShift);
  } else if (S.op != ElementwiseOp::Activation) {
    Roles.push_back(ParamRole::Input2);
  }
  Roles.push_back(ParamRole::Output);
  KernelLaunch L = makeLaunch(Name, opStrategy(S.op), S.dtype, {ceilDiv(Count, Bx), 1, 1},
                              {Bx, 1, 1}, Roles, [&](ParamRole R) {
                                if (R == ParamRole::Input2 && S.op == ElementwiseOp::ScaleChannels)
                                  return uint64_t(S.batch) * S.channels;
                                if (R == ParamRole::BnScale || R == ParamRole::BnShift)
                                  return uint64_t(S.channels);
                                return Count;
                              });
  KernelBuilder K(M, Name, Roles, S.dtype, L.block);
  IRBuilder<> &B = K.ir();
  Value *I = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(Bx)), K.tid(0), "i");
  K.ifThen(B.CreateICmpULT(I, K.i32(static_cast<uint32_t>(Count))), [&] {
    Value *A = K.load(ParamRole::Input, I);
    Value *Y = A;
    switch (S.op) {
    case ElementwiseOp::Add:
      Y = B.CreateFAdd(A, K.load(ParamRole::Input2, I));
      break;
    case ElementwiseOp::Mul:
      Y = B.CreateFMul(A, K.load(ParamRole::Input2, I));
      break;
    case ElementwiseOp::ScaleChannels:
      Y = B.CreateFMul(A, K.load(ParamRole::Input2, B.CreateUDiv(I, K.i32(S.spatial))));
      break;
    case ElementwiseOp::Activation:
      break;
    case ElementwiseOp::BatchNorm: {
      Value *C = B.CreateURem(B.CreateUDiv(I, K.i32(S.spatial)), K.i32(S.channels));
      Y = K.fma(A, K.load(ParamRole::BnScale, C), K.load(ParamRole::BnShift, C));
      break;
    }
    }
    K.store(ParamRole::Output, I, K.activation(S.activation, Y));
  });
  K.finish();
  return L;
}

KernelLaunch buildConcat(Module &M, const ConcatSpec &S, const std::string &Name) {
  const uint64_t Slice = uint64_t(S.channels) * S.spatial; // one image's input elements
  const uint64_t Count = S.batch * Slice;
  const uint32_t Bx = warpRoundedBlock(Count, MaxBlock);
  const std::vector<ParamRole> Roles = {ParamRole::Input, ParamRole::Output};
  KernelLaunch L = makeLaunch(
      Name, "concat", S.dtype, {ceilDiv(Count, Bx), 1, 1}, {Bx, 1, 1}, Roles, [&](ParamRole R) {
        return R == ParamRole::Input ? Count : uint64_t(S.batch) * S.totalChannels * S.spatial;
      });
  KernelBuilder K(M, Name, Roles, S.dtype, L.block);
  IRBuilder<> &B = K.ir();
  Value *I = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(Bx)), K.tid(0), "i");
  K.ifThen(B.CreateICmpULT(I, K.i32(static_cast<uint32_t>(Count))), [&] {
    // out = n * totalChannels * spatial + channelOffset * spatial + (i mod slice)
    Value *Out = B.CreateAdd(I, K.i32(S.channelOffset * S.spatial));
    if (S.batch > 1) {
      Value *N = B.CreateUDiv(I, K.i32(static_cast<uint32_t>(Slice)));
      Value *Gap = K.i32(static_cast<uint32_t>((S.totalChannels - S.channels) * S.spatial));
      Out = B.CreateAdd(Out, B.CreateMul(N, Gap));
    }
    // f16 storage: the f32 round trip of load/store folds away (fpext then fptrunc is exact).
    K.store(ParamRole::Output, Out, K.load(ParamRole::Input, I));
  });
  K.finish();
  return L;
}

KernelLaunch buildSoftmax(Module &M, const SoftmaxSpec &S, const std::string &Name) {
  const uint32_t Bx = warpRoundedBlock(S.cols, MaxBlock);
  const std::vector<ParamRole> Roles = {ParamRole::Input, ParamRole::Output};
  KernelLaunch L = makeLaunch(Name, "softmax", S.dtype, {S.rows, 1, 1}, {Bx, 1, 1}, Roles,
                              [&](ParamRole) { return uint64_t(S.rows) * S.cols; });
  KernelBuilder K(M, Name, Roles, S.dtype, L.block);
  IRBuilder<> &B = K.ir();
  Value *Tid = K.tid(0);
  Value *Base = B.CreateMul(K.ctaid(0), K.i32(S.cols));
  auto ForCols = [&](const std::function<void(Value *)> &Body) {
    K.forRange(Tid, K.i32(S.cols), Bx, [&](Value *C) { Body(B.CreateAdd(Base, C)); });
  };
  Value *MaxSlot = K.accumulator(-std::numeric_limits<float>::infinity());
  ForCols([&](Value *I) { K.set(MaxSlot, K.maxf(K.get(MaxSlot), K.load(ParamRole::Input, I))); });
  Value *RowMax = blockAllReduce(K, K.get(MaxSlot), Bx / WarpSize, true, "red_max");
  Value *SumSlot = K.accumulator(0.0f);
  ForCols([&](Value *I) {
    Value *E = K.exp(B.CreateFSub(K.load(ParamRole::Input, I), RowMax));
    K.set(SumSlot, B.CreateFAdd(K.get(SumSlot), E));
  });
  Value *RowSum = blockAllReduce(K, K.get(SumSlot), Bx / WarpSize, false, "red_sum");
  Value *Inv = B.CreateFDiv(K.f32(1.0f), RowSum);
  ForCols([&](Value *I) {
    Value *E = K.exp(B.CreateFSub(K.load(ParamRole::Input, I), RowMax));
    K.store(ParamRole::Output, I, B.CreateFMul(E, Inv));
  });
  K.finish();
  return L;
}

} // namespace corpus::kernels
