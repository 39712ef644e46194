// Pooling kernels: windowed max/avg pooling and global average pooling as a block reduction.
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <limits>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t MaxBlock = 256;
constexpr uint32_t WarpSize = 32;

KernelLaunch poolLaunch(const PoolSpec &S, const std::string &Name, uint32_t Bx) {
  const uint64_t Pixels = uint64_t(S.outHeight()) * S.outWidth();
  const uint64_t Planes = uint64_t(S.batch) * S.channels;
  return makeLaunch(Name, S.kind == PoolKind::Max ? "pool_max" : "pool_avg", S.dtype,
                    {ceilDiv(Pixels, Bx), S.channels, S.batch}, {Bx, 1, 1},
                    {ParamRole::Input, ParamRole::Output}, [&](ParamRole R) {
                      return R == ParamRole::Input ? Planes * S.inHeight * S.inWidth
                                                   : Planes * Pixels;
                    });
}

/// PyTorch's avg-pool divisor with count_include_pad in ceil mode: the window clipped to the padded
/// input, (min(ih0 + KH, H + padBottom) - ih0) x (min(iw0 + KW, W + padRight) - iw0).
Value *paddedWindowSize(KernelBuilder &K, const PoolSpec &S, Value *IhBase, Value *IwBase) {
  IRBuilder<> &B = K.ir();
  auto Extent = [&](Value *Start, uint32_t Window, uint32_t PaddedEnd) {
    Value *End = B.CreateAdd(Start, K.i32(Window));
    Value *Limit = K.i32(PaddedEnd);
    return B.CreateSub(B.CreateSelect(B.CreateICmpSLT(End, Limit), End, Limit), Start);
  };
  Value *Rows = Extent(IhBase, S.kernelH, S.inHeight + S.padBottom);
  Value *Cols = Extent(IwBase, S.kernelW, S.inWidth + S.padRight);
  return B.CreateSIToFP(B.CreateMul(Rows, Cols), B.getFloatTy());
}

} // namespace

KernelLaunch buildPool(Module &M, const PoolSpec &S, const std::string &Name) {
  const uint32_t Wo = S.outWidth();
  const uint64_t Pixels = uint64_t(S.outHeight()) * Wo;
  const uint32_t Bx = warpRoundedBlock(Pixels, MaxBlock);
  const bool IsMax = S.kind == PoolKind::Max;
  KernelLaunch L = poolLaunch(S, Name, Bx);
  const std::vector<ParamRole> Roles = {ParamRole::Input, ParamRole::Output};
  KernelBuilder K(M, Name, Roles, S.dtype, L, wideIndex(S));
  IRBuilder<> &B = K.ir();
  Value *Pix = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(Bx)), K.tid(0), "pix");
  Value *PlaneIdx =
      B.CreateAdd(B.CreateMul(K.widen(K.ctaid(2)), K.ix(S.channels)), K.widen(K.ctaid(1)));
  // Windows can leave the input only with padding or in ceil mode.
  const bool Padded = S.padTop || S.padLeft || S.padBottom || S.padRight || S.ceilMode;
  K.ifThen(B.CreateICmpULT(Pix, K.i32(static_cast<uint32_t>(Pixels))), [&] {
    Value *Oh = B.CreateUDiv(Pix, K.i32(Wo)), *Ow = B.CreateURem(Pix, K.i32(Wo));
    Value *IhBase = B.CreateSub(B.CreateMul(Oh, K.i32(S.strideH)), K.i32(S.padTop));
    Value *IwBase = B.CreateSub(B.CreateMul(Ow, K.i32(S.strideW)), K.i32(S.padLeft));
    Value *Plane = B.CreateMul(PlaneIdx, K.ix(S.inHeight * S.inWidth));
    Value *Acc = K.accumulator(IsMax ? -std::numeric_limits<float>::infinity() : 0.0f);
    Value *Count = K.accumulator(0.0f);
    K.forRange(0, S.kernelH, [&](Value *Kh) {
      Value *Ih = B.CreateAdd(IhBase, Kh);
      K.forRange(0, S.kernelW, [&](Value *Kw) {
        Value *Iw = B.CreateAdd(IwBase, Kw);
        auto Body = [&] {
          Value *InPlane = B.CreateAdd(B.CreateMul(Ih, K.i32(S.inWidth)), Iw);
          Value *X = K.load(ParamRole::Input, B.CreateAdd(Plane, K.widenSigned(InPlane)));
          K.set(Acc, IsMax ? K.maxf(K.get(Acc), X) : B.CreateFAdd(K.get(Acc), X));
          K.set(Count, B.CreateFAdd(K.get(Count), K.f32(1.0f)));
        };
        if (!Padded)
          return Body();
        K.ifThen(B.CreateAnd(B.CreateICmpULT(Ih, K.i32(S.inHeight)),
                             B.CreateICmpULT(Iw, K.i32(S.inWidth))),
                 Body);
      });
    });
    Value *Y = K.get(Acc);
    if (!IsMax && S.countIncludePad && S.ceilMode) {
      Y = B.CreateFDiv(Y, paddedWindowSize(K, S, IhBase, IwBase));
    } else if (!IsMax) {
      bool ConstDivisor = S.countIncludePad || !Padded;
      Value *Div = ConstDivisor ? K.f32(float(S.kernelH * S.kernelW)) : K.get(Count);
      Y = B.CreateFDiv(Y, Div);
    }
    Value *Out = B.CreateAdd(B.CreateMul(PlaneIdx, K.ix(Pixels)), K.widen(Pix));
    K.store(ParamRole::Output, Out, Y);
  });
  K.finish();
  return L;
}

KernelLaunch buildGlobalAvgPool(Module &M, const ReduceSpec &S, const std::string &Name) {
  const uint32_t Bx = warpRoundedBlock(S.spatial, MaxBlock);
  const uint32_t Warps = Bx / WarpSize;
  const uint64_t Outputs = uint64_t(S.batch) * S.channels;
  std::vector<ParamRole> Roles = {ParamRole::Input};
  for (ParamRole R : epilogueRoles(S.epilogue))
    Roles.push_back(R);
  Roles.push_back(ParamRole::Output);
  KernelLaunch L = makeLaunch(Name, "global_avg_pool", S.dtype, {S.channels, S.batch, 1},
                              {Bx, 1, 1}, Roles, [&](ParamRole R) {
                                if (R == ParamRole::Input)
                                  return Outputs * S.spatial;
                                if (R == ParamRole::Output)
                                  return Outputs;
                                return epilogueElements(R, S.channels, S.batch, Outputs);
                              });
  KernelBuilder K(M, Name, Roles, S.dtype, L, wideIndex(S));
  IRBuilder<> &B = K.ir();
  Value *Tid = K.tid(0), *Ch = K.widen(K.ctaid(0));
  Value *OutIdx = B.CreateAdd(B.CreateMul(K.widen(K.ctaid(1)), K.ix(S.channels)), Ch);
  Value *Base = B.CreateMul(OutIdx, K.ix(S.spatial));
  Value *Acc = K.accumulator(0.0f);
  K.forRange(Tid, K.i32(S.spatial), Bx, [&](Value *I) {
    K.set(Acc, B.CreateFAdd(K.get(Acc), K.load(ParamRole::Input, B.CreateAdd(Base, K.widen(I)))));
  });
  Value *Sum = K.warpSum(K.get(Acc));
  Value *Partial = K.sharedArray("partial", WarpSize);
  Value *Lane = B.CreateAnd(Tid, K.i32(WarpSize - 1));
  Value *Warp = B.CreateLShr(Tid, K.i32(5));
  Value *IsLane0 = B.CreateICmpEQ(Lane, K.i32(0));
  K.ifThen(IsLane0, [&] { K.storeShared(Partial, Warp, Sum); });
  K.barrier();
  K.ifThen(B.CreateICmpEQ(Warp, K.i32(0)), [&] {
    Value *Mine = K.accumulator(0.0f);
    K.ifThen(B.CreateICmpULT(Lane, K.i32(Warps)),
             [&] { K.set(Mine, K.loadShared(Partial, Lane)); });
    Value *Total = K.warpSum(K.get(Mine));
    K.ifThen(B.CreateICmpEQ(Lane, K.i32(0)), [&] {
      Value *Mean = B.CreateFDiv(Total, K.f32(float(S.spatial)));
      K.store(ParamRole::Output, OutIdx, K.epilogue(S.epilogue, Mean, Ch, OutIdx, OutIdx));
    });
  });
  K.finish();
  return L;
}

} // namespace corpus::kernels
