// Pooling kernels: windowed max/avg pooling, bilinear upsampling (a 2 x 2 window blended per
// output) and global average pooling as a block reduction.
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <limits>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t MaxBlock = 256;
constexpr uint32_t WarpSize = 32;

/// Whether windows can leave the input: padding, or ceil mode.
bool poolPadded(const PoolSpec &S) {
  return S.padTop || S.padLeft || S.padBottom || S.padRight || S.ceilMode;
}

uint32_t poolBlock(const PoolSpec &S) {
  return warpRoundedBlock(uint64_t(S.outHeight()) * S.outWidth(), MaxBlock);
}

/// The shapes a pooling kernel computes with (the window and stride are specialisations).
ShapeDims poolDims(const PoolSpec &S) {
  ShapeDims D = {{"c", S.channels},          {"h", S.inHeight},
                 {"w", S.inWidth},           {"pixels", S.outHeight() * S.outWidth()},
                 {"wo", S.outWidth(), true}, {"pad_t", S.padTop},
                 {"pad_l", S.padLeft}};
  if (S.kind == PoolKind::Avg && S.countIncludePad && S.ceilMode) {
    D.push_back({"h_end", S.inHeight + S.padBottom});
    D.push_back({"w_end", S.inWidth + S.padRight});
  }
  return D;
}

/// PyTorch's avg-pool divisor with count_include_pad in ceil mode: the window clipped to the padded
/// input, (min(ih0 + KH, H + padBottom) - ih0) x (min(iw0 + KW, W + padRight) - iw0).
Value *paddedWindowSize(KernelBuilder &K, const PoolSpec &S, Value *IhBase, Value *IwBase) {
  IRBuilder<> &B = K.ir();
  auto Extent = [&](Value *Start, uint32_t Window, Value *Limit) {
    Value *End = B.CreateAdd(Start, K.i32(Window));
    return B.CreateSub(B.CreateSelect(B.CreateICmpSLT(End, Limit), End, Limit), Start);
  };
  Value *Rows = Extent(IhBase, S.kernelH, K.dim("h_end"));
  Value *Cols = Extent(IwBase, S.kernelW, K.dim("w_end"));
  return B.CreateSIToFP(B.CreateMul(Rows, Cols), B.getFloatTy());
}

/// The average's divisor: the clipped window, the in-bounds count, or the whole window.
Value *poolDivisor(KernelBuilder &K, const PoolSpec &S, Value *IhBase, Value *IwBase,
                   Value *Count) {
  if (S.countIncludePad && S.ceilMode)
    return paddedWindowSize(K, S, IhBase, IwBase);
  if (S.countIncludePad || !poolPadded(S))
    return K.f32(float(S.kernelH * S.kernelW));
  return K.get(Count);
}

} // namespace

std::string libraryName(const PoolSpec &S) {
  std::string N = std::string(S.kind == PoolKind::Max ? "maxpool" : "avgpool") + "_k" +
                  shapePair(S.kernelH, S.kernelW) + "_s" + shapePair(S.strideH, S.strideW) +
                  (poolPadded(S) ? "_pad" : "") + "_b" + std::to_string(poolBlock(S));
  if (S.kind == PoolKind::Avg && S.countIncludePad)
    N += S.ceilMode ? "_incpad_ceil" : "_incpad";
  return libraryKernelName(N, S.dtype, {}, wideIndex(S));
}

KernelLaunch buildPool(Module *M, const PoolSpec &S, const std::string &Name, KernelSet Set) {
  const bool IsMax = S.kind == PoolKind::Max;
  const bool Padded = poolPadded(S);
  const PlaneKernel P{IsMax ? LaunchStrategy::PoolMax : LaunchStrategy::PoolAvg,
                      S.dtype,
                      S.batch,
                      S.channels,
                      uint64_t(S.inHeight) * S.inWidth,
                      uint64_t(S.outHeight()) * S.outWidth(),
                      poolBlock(S),
                      wideIndex(S)};
  return buildPlaneKernel(
      M, Name, P, poolDims(S), Set, [&](KernelBuilder &K, Value *Pix, Value *PlaneIdx) {
        IRBuilder<> &B = K.ir();
        Value *Oh = K.udiv(Pix, "wo"), *Ow = K.urem(Pix, "wo");
        Value *IhBase = B.CreateSub(B.CreateMul(Oh, K.i32(S.strideH)), K.dim("pad_t"));
        Value *IwBase = B.CreateSub(B.CreateMul(Ow, K.i32(S.strideW)), K.dim("pad_l"));
        Value *Plane = B.CreateMul(PlaneIdx, B.CreateMul(K.dimIx("h"), K.dimIx("w")));
        Value *Acc = K.accumulator(IsMax ? -std::numeric_limits<float>::infinity() : 0.0f);
        Value *Count = K.accumulator(0.0f);
        K.forRange(0, S.kernelH, [&](Value *Kh) {
          Value *Ih = B.CreateAdd(IhBase, Kh);
          K.forRange(0, S.kernelW, [&](Value *Kw) {
            Value *Iw = B.CreateAdd(IwBase, Kw);
            auto Body = [&] {
              Value *InPlane = B.CreateAdd(B.CreateMul(Ih, K.dim("w")), Iw);
              Value *X = K.load(ParamRole::Input, B.CreateAdd(Plane, K.widenSigned(InPlane)));
              K.set(Acc, IsMax ? K.maxf(K.get(Acc), X) : B.CreateFAdd(K.get(Acc), X));
              K.set(Count, B.CreateFAdd(K.get(Count), K.f32(1.0f)));
            };
            if (!Padded)
              return Body();
            K.ifThen(B.CreateAnd(B.CreateICmpULT(Ih, K.dim("h")), B.CreateICmpULT(Iw, K.dim("w"))),
                     Body);
          });
        });
        Value *Y = K.get(Acc);
        if (!IsMax)
          Y = B.CreateFDiv(Y, poolDivisor(K, S, IhBase, IwBase, Count));
        Value *Out = B.CreateAdd(B.CreateMul(PlaneIdx, K.dimIx("pixels")), K.widen(Pix));
        K.store(ParamRole::Output, Out, Y);
      });
}

namespace {

/// Where output coordinate O reads along an axis of `In` elements upsampled by the factor
/// `Scale` (PyTorch's area_pixel_compute_source_index for linear modes, in f32 as its float
/// kernels): half-pixel src = max(0, (O + 0.5) / Scale - 0.5), align-corners src = O (In - 1) /
/// (In Scale - 1) (0 where the output has one element), asymmetric src = O / Scale; the near
/// element i0 = floor(src), the step to the far one (0 at the last element) and the far one's
/// weight src - i0.
struct SourceIndex {
  Value *near, *step, *weight;
};

SourceIndex sourceIndex(KernelBuilder &K, UpsampleCoords C, Value *O, std::string_view Scale,
                        std::string_view In) {
  IRBuilder<> &B = K.ir();
  Value *Of = B.CreateUIToFP(O, B.getFloatTy());
  Value *Src = nullptr;
  if (C == UpsampleCoords::AlignCorners) {
    Value *OutLast =
        B.CreateUIToFP(B.CreateSub(B.CreateMul(K.dim(In), K.dim(Scale)), K.i32(1)), B.getFloatTy());
    Value *InLast = B.CreateUIToFP(B.CreateSub(K.dim(In), K.i32(1)), B.getFloatTy());
    Value *Ratio = B.CreateSelect(B.CreateFCmpOGT(OutLast, K.f32(0.0f)),
                                  B.CreateFDiv(InLast, OutLast), K.f32(0.0f));
    Src = B.CreateFMul(Ratio, Of);
  } else {
    Value *InvScale = B.CreateFDiv(K.f32(1.0f), K.dimF32(Scale)); // PyTorch's float in / out
    Src = C == UpsampleCoords::Asymmetric
              ? B.CreateFMul(Of, InvScale)
              : K.maxf(K.fma(B.CreateFAdd(Of, K.f32(0.5f)), InvScale, K.f32(-0.5f)), K.f32(0.0f));
  }
  Value *Near = B.CreateFPToUI(Src, B.getInt32Ty());
  Value *Last = B.CreateSub(K.dim(In), K.i32(1));
  Value *Step = B.CreateZExt(B.CreateICmpULT(Near, Last), B.getInt32Ty());
  return {Near, Step, B.CreateFSub(Src, B.CreateUIToFP(Near, B.getFloatTy()))};
}

} // namespace

std::string libraryName(const UpsampleSpec &S) {
  return libraryKernelName(
      "upsample_bilinear" + std::string(upsampleCoordsSuffix(S.coords)) + "_b" +
          std::to_string(
              warpRoundedBlock(uint64_t(S.inHeight) * S.scaleH * S.inWidth * S.scaleW, MaxBlock)),
      S.dtype, {}, wideIndex(S));
}

KernelLaunch buildUpsample(Module *M, const UpsampleSpec &S, const std::string &Name,
                           KernelSet Set) {
  const uint64_t Wo = uint64_t(S.inWidth) * S.scaleW;
  const uint64_t Pixels = uint64_t(S.inHeight) * S.scaleH * Wo;
  const PlaneKernel P{LaunchStrategy::UpsampleBilinear,
                      S.dtype,
                      S.batch,
                      S.channels,
                      uint64_t(S.inHeight) * S.inWidth,
                      Pixels,
                      warpRoundedBlock(Pixels, MaxBlock),
                      wideIndex(S)};
  const ShapeDims Dims = {{"c", S.channels},    {"h", S.inHeight}, {"w", S.inWidth},
                          {"pixels", Pixels},   {"wo", Wo, true},  {"scale_h", S.scaleH},
                          {"scale_w", S.scaleW}};
  return buildPlaneKernel(
      M, Name, P, Dims, Set, [&](KernelBuilder &K, Value *Pix, Value *PlaneIdx) {
        IRBuilder<> &B = K.ir();
        const SourceIndex Y = sourceIndex(K, S.coords, K.udiv(Pix, "wo"), "scale_h", "h");
        const SourceIndex X = sourceIndex(K, S.coords, K.urem(Pix, "wo"), "scale_w", "w");
        Value *Plane = B.CreateMul(PlaneIdx, B.CreateMul(K.dimIx("h"), K.dimIx("w")));
        Value *Row0 = B.CreateAdd(Plane, K.widen(B.CreateMul(Y.near, K.dim("w"))));
        Value *Row1 = B.CreateAdd(Row0, K.widen(B.CreateMul(Y.step, K.dim("w"))));
        auto Blend = [&](Value *Row) { // (1 - wx) x a + wx x b
          Value *A = K.load(ParamRole::Input, B.CreateAdd(Row, K.widen(X.near)));
          Value *Bv =
              K.load(ParamRole::Input, B.CreateAdd(Row, K.widen(B.CreateAdd(X.near, X.step))));
          return K.fma(B.CreateFSub(K.f32(1.0f), X.weight), A, B.CreateFMul(X.weight, Bv));
        };
        Value *Top = Blend(Row0), *Bottom = Blend(Row1);
        Value *Out =
            K.fma(B.CreateFSub(K.f32(1.0f), Y.weight), Top, B.CreateFMul(Y.weight, Bottom));
        K.store(ParamRole::Output,
                B.CreateAdd(B.CreateMul(PlaneIdx, K.dimIx("pixels")), K.widen(Pix)), Out);
      });
}

std::string libraryName(const ReduceSpec &S) {
  return libraryKernelName("gap_b" + std::to_string(warpRoundedBlock(S.spatial, MaxBlock)), S.dtype,
                           S.epilogue, wideIndex(S));
}

KernelLaunch buildGlobalAvgPool(Module *M, const ReduceSpec &S, const std::string &Name,
                                KernelSet Set) {
  const uint32_t Bx = warpRoundedBlock(S.spatial, MaxBlock);
  const uint32_t Warps = Bx / WarpSize;
  const uint64_t Outputs = uint64_t(S.batch) * S.channels;
  std::vector<ParamRole> Roles = {ParamRole::Input};
  for (ParamRole R : epilogueRoles(S.epilogue))
    Roles.push_back(R);
  Roles.push_back(ParamRole::Output);
  KernelLaunch L = makeLaunch(Name, LaunchStrategy::GlobalAvgPool, S.dtype,
                              {S.channels, S.batch, 1}, {Bx, 1, 1}, Roles, [&](ParamRole R) {
                                if (R == ParamRole::Input)
                                  return Outputs * S.spatial;
                                if (R == ParamRole::Output)
                                  return Outputs;
                                return epilogueElements(R, S.channels, S.batch, Outputs);
                              });
  const ShapeDims Dims = {{"c", S.channels}, {"spatial", S.spatial}};
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, S.dtype, L, wideIndex(S), Dims);
  IRBuilder<> &B = K.ir();
  Value *Tid = K.tid(0), *Ch = K.widen(K.ctaid(0));
  Value *OutIdx = B.CreateAdd(B.CreateMul(K.widen(K.ctaid(1)), K.dimIx("c")), Ch);
  Value *Base = B.CreateMul(OutIdx, K.dimIx("spatial"));
  Value *Acc = K.accumulator(0.0f);
  K.forRange(Tid, K.dim("spatial"), Bx, [&](Value *I) {
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
      Value *Mean = B.CreateFDiv(Total, K.dimF32("spatial"));
      K.store(ParamRole::Output, OutIdx, K.epilogue(S.epilogue, Mean, Ch, OutIdx, OutIdx));
    });
  });
  K.finish();
  return L;
}

} // namespace corpus::kernels
