// Standalone elementwise kernels (add, mul, channel scale, activation, batch norm), the channel
// concatenation copy and row softmax.
#include "kernels/KernelBuilder.h"
#include "kernels/Strategies.h"

#include <algorithm>
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

/// PyTorch's contiguous cat launch (getCatGridContig): 128 threads a block, grid x capped at
/// 32 blocks per SM of an H100 (132 SMs), the GPU whose PyTorch timings we learn from.
constexpr uint32_t CatBlock = 128;
constexpr uint32_t CatMaxBlocksX = 132 * 32;

/// How a concat launch moves data. PyTorch copies 16-byte vectors (CatArrayBatchedCopy_vectorized)
/// when every input's per-image slice and the output's are multiples of 16 bytes, else single
/// elements (CatArrayBatchedCopy_contig); all counts below are in units of that size.
struct ConcatLayout {
  uint32_t unitBytes = 4;
  uint32_t perUnit = 1;  ///< elements per unit
  uint32_t outSlice = 0; ///< units of one output image
  uint64_t maxUnits = 0; ///< units of the largest input
};

ConcatLayout concatLayout(const ConcatSpec &S) {
  const uint32_t Elem = dtypeBytes(S.dtype);
  bool Vector = uint64_t(S.totalChannels) * S.spatial * Elem % 16 == 0 &&
                uint64_t(S.channelOffset) * S.spatial * Elem % 16 == 0;
  for (uint32_t C : S.channels)
    Vector &= uint64_t(C) * S.spatial * Elem % 16 == 0;
  ConcatLayout Lay;
  Lay.unitBytes = Vector ? 16 : Elem;
  Lay.perUnit = Lay.unitBytes / Elem;
  Lay.outSlice = S.totalChannels * S.spatial / Lay.perUnit;
  for (uint32_t C : S.channels)
    Lay.maxUnits =
        std::max<uint64_t>(Lay.maxUnits, uint64_t(S.batch) * C * S.spatial / Lay.perUnit);
  return Lay;
}

/// What grid y selects: the input's pointer, its size, per-image slice and output base (units).
struct CatInput {
  Value *ptr, *units, *slice, *outBase;
};

/// A switch on %ctaid.y (PyTorch reads the same from a by-value metadata parameter): one case
/// block per input, merged by phis.
CatInput selectCatInput(KernelBuilder &K, const ConcatSpec &S, const ConcatLayout &Lay) {
  IRBuilder<> &B = K.ir();
  Function &F = K.function();
  const unsigned N = static_cast<unsigned>(S.channels.size());
  auto Values = [&](unsigned I, uint32_t Offset) {
    const uint32_t Slice = S.channels[I] * S.spatial / Lay.perUnit;
    return CatInput{F.getArg(I), K.i32(S.batch * Slice), K.i32(Slice),
                    K.i32(Offset * S.spatial / Lay.perUnit)};
  };
  if (N == 1)
    return Values(0, S.channelOffset);
  LLVMContext &Ctx = F.getContext();
  BasicBlock *Merge = BasicBlock::Create(Ctx, "input_selected", &F);
  std::vector<BasicBlock *> Cases;
  for (unsigned I = 0; I < N; ++I)
    Cases.push_back(BasicBlock::Create(Ctx, "input" + std::to_string(I), &F, Merge));
  SwitchInst *Sw = B.CreateSwitch(K.ctaid(1), Cases.back(), N - 1); // default: the last input
  for (unsigned I = 0; I + 1 < N; ++I)
    Sw->addCase(B.getInt32(I), Cases[I]);
  B.SetInsertPoint(Merge);
  PHINode *Ptr = B.CreatePHI(B.getPtrTy(), N, "in_ptr");
  PHINode *Units = B.CreatePHI(B.getInt32Ty(), N, "in_units");
  PHINode *Slice = B.CreatePHI(B.getInt32Ty(), N, "in_slice");
  PHINode *Base = B.CreatePHI(B.getInt32Ty(), N, "out_base");
  for (unsigned I = 0, Offset = S.channelOffset; I < N; Offset += S.channels[I++]) {
    CatInput V = Values(I, Offset);
    BranchInst::Create(Merge, Cases[I]);
    Ptr->addIncoming(V.ptr, Cases[I]);
    Units->addIncoming(V.units, Cases[I]);
    Slice->addIncoming(V.slice, Cases[I]);
    Base->addIncoming(V.outBase, Cases[I]);
  }
  return {Ptr, Units, Slice, Base};
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
  const ConcatLayout Lay = concatLayout(S);
  const size_t Inputs = S.channels.size();
  std::vector<ParamRole> Roles(Inputs, ParamRole::Input);
  Roles.push_back(ParamRole::Output);
  const uint32_t Gx = std::min(ceilDiv(Lay.maxUnits, CatBlock), CatMaxBlocksX);
  KernelLaunch L = makeLaunch(Name, "concat", S.dtype, {Gx, static_cast<uint32_t>(Inputs), 1},
                              {CatBlock, 1, 1}, {}, {});
  for (uint32_t C : S.channels)
    L.params.push_back({ParamRole::Input, uint64_t(S.batch) * C * S.spatial});
  L.params.push_back({ParamRole::Output, uint64_t(S.batch) * S.totalChannels * S.spatial});
  KernelBuilder K(M, Name, Roles, S.dtype, L.block);
  IRBuilder<> &B = K.ir();
  Type *Unit = Lay.unitBytes == 16  ? static_cast<Type *>(FixedVectorType::get(B.getInt32Ty(), 4))
               : Lay.unitBytes == 4 ? B.getFloatTy()
                                    : B.getHalfTy();
  const Align A(Lay.unitBytes);
  CatInput In = selectCatInput(K, S, Lay);
  Value *Out = K.param(ParamRole::Output);
  // Every block of row y copies an equal share of input y, [x U / Gx, (x + 1) U / Gx), in
  // strides of the block. (PyTorch's blocks stride the grid over each input, so the blocks past
  // a small input sit idle; with equal shares every CTA of a row does the same work, give or
  // take one unit, which keeps fast mode's boundary-class sampling faithful: with idle and busy
  // CTAs mixed in one class, agreeing samples could all be idle ones.)
  Value *X64 = B.CreateZExt(K.ctaid(0), B.getInt64Ty());
  Value *U64 = B.CreateZExt(In.units, B.getInt64Ty());
  auto Share = [&](Value *Xv) {
    return B.CreateTrunc(B.CreateUDiv(B.CreateMul(Xv, U64), B.getInt64(Gx)), B.getInt32Ty());
  };
  Value *Begin = B.CreateAdd(Share(X64), K.tid(0), "i");
  Value *End = Share(B.CreateAdd(X64, B.getInt64(1)));
  K.forRange(Begin, End, CatBlock, [&](Value *I) {
    // out = n * outSlice + outBase + (i mod slice), n = i / slice
    Value *O = B.CreateAdd(I, In.outBase);
    if (S.batch > 1) {
      Value *N = B.CreateUDiv(I, In.slice);
      O = B.CreateAdd(O, B.CreateMul(N, B.CreateSub(K.i32(Lay.outSlice), In.slice)));
    }
    Value *V = B.CreateAlignedLoad(Unit, B.CreateInBoundsGEP(Unit, In.ptr, I), A);
    B.CreateAlignedStore(V, B.CreateInBoundsGEP(Unit, Out, O), A);
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
