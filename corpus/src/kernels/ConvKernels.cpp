// Direct and depthwise convolution kernels: one thread per output pixel, shapes baked in.
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t MaxBlock = 256;

std::vector<ParamRole> convRoles(const Epilogue &E) {
  std::vector<ParamRole> R = {ParamRole::Input, ParamRole::Weight};
  for (ParamRole P : epilogueRoles(E))
    R.push_back(P);
  R.push_back(ParamRole::Output);
  return R;
}

/// Values shared by the loops of one output pixel.
struct PixelCtx {
  Value *Image;  ///< n (index type)
  Value *Oc;     ///< output channel (i32)
  Value *IhBase; ///< oh * strideH - padTop (may be negative)
  Value *IwBase; ///< ow * strideW - padLeft
  Value *Acc;    ///< f32 accumulator slot
};

/// Accumulates the KH x KW window of input channel `Ci` (i32) against weights starting at
/// `WBase` (index type). Offsets inside the input plane are i32.
void accumulateWindow(KernelBuilder &K, const ConvSpec &S, const PixelCtx &P, Value *Ci,
                      Value *WBase) {
  IRBuilder<> &B = K.ir();
  bool Padded = S.padTop || S.padLeft || S.padBottom || S.padRight;
  Value *Plane = B.CreateMul(B.CreateAdd(B.CreateMul(P.Image, K.ix(S.inChannels)), K.widen(Ci)),
                             K.ix(S.inHeight * S.inWidth));
  K.forRange(0, S.kernelH, [&](Value *Kh) {
    Value *Ih = B.CreateAdd(P.IhBase, B.CreateMul(Kh, K.i32(S.dilationH)));
    K.forRange(0, S.kernelW, [&](Value *Kw) {
      Value *Iw = B.CreateAdd(P.IwBase, B.CreateMul(Kw, K.i32(S.dilationW)));
      auto Body = [&] {
        Value *In =
            B.CreateAdd(Plane, K.widenSigned(B.CreateAdd(B.CreateMul(Ih, K.i32(S.inWidth)), Iw)));
        Value *WIdx =
            B.CreateAdd(WBase, K.widen(B.CreateAdd(B.CreateMul(Kh, K.i32(S.kernelW)), Kw)));
        Value *X = K.load(ParamRole::Input, In);
        Value *W = K.load(ParamRole::Weight, WIdx);
        K.set(P.Acc, K.fma(X, W, K.get(P.Acc)));
      };
      if (!Padded) {
        Body(); // without padding every window lies inside the input
        return;
      }
      // Unsigned compares reject both negative and too-large coordinates.
      Value *Inside = B.CreateAnd(B.CreateICmpULT(Ih, K.i32(S.inHeight)),
                                  B.CreateICmpULT(Iw, K.i32(S.inWidth)));
      K.ifThen(Inside, Body);
    });
  });
}

} // namespace

KernelLaunch buildDirectConv(Module &M, const ConvSpec &S, const std::string &Name,
                             bool Depthwise) {
  const uint32_t Ho = S.outHeight(), Wo = S.outWidth();
  const uint64_t Pixels = uint64_t(Ho) * Wo;
  const uint64_t Outputs = Pixels * S.outChannels * S.batch;
  const uint32_t CinG = S.inChannels / S.groups, CoutG = S.outChannels / S.groups;
  const uint32_t Bx = warpRoundedBlock(Pixels, MaxBlock);
  std::vector<ParamRole> Roles = convRoles(S.epilogue);
  KernelLaunch L = makeLaunch(Name, Depthwise ? "conv_depthwise" : "conv_direct", S.dtype,
                              {ceilDiv(Pixels, Bx), S.outChannels, S.batch}, {Bx, 1, 1}, Roles,
                              [&](ParamRole R) {
                                if (R == ParamRole::Input)
                                  return uint64_t(S.batch) * S.inChannels * S.inHeight * S.inWidth;
                                if (R == ParamRole::Weight)
                                  return uint64_t(S.outChannels) * CinG * S.kernelH * S.kernelW;
                                if (R == ParamRole::Output)
                                  return Outputs;
                                return epilogueElements(R, S.outChannels, S.batch, Outputs);
                              });

  KernelBuilder K(M, Name, Roles, S.dtype, L, wideIndex(S));
  IRBuilder<> &B = K.ir();
  Value *Pix = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(Bx)), K.tid(0), "pix");
  PixelCtx P;
  P.Oc = K.ctaid(1);
  P.Image = K.widen(K.ctaid(2));
  K.ifThen(B.CreateICmpULT(Pix, K.i32(static_cast<uint32_t>(Pixels))), [&] {
    Value *Oh = B.CreateUDiv(Pix, K.i32(Wo));
    Value *Ow = B.CreateURem(Pix, K.i32(Wo));
    P.IhBase = B.CreateSub(B.CreateMul(Oh, K.i32(S.strideH)), K.i32(S.padTop));
    P.IwBase = B.CreateSub(B.CreateMul(Ow, K.i32(S.strideW)), K.i32(S.padLeft));
    P.Acc = K.accumulator(0.0f);
    Value *Group = B.CreateUDiv(P.Oc, K.i32(CoutG));
    Value *CiBase = B.CreateMul(Group, K.i32(CinG));
    const uint32_t Window = S.kernelH * S.kernelW;
    Value *Oc = K.widen(P.Oc);
    if (Depthwise || CinG == 1) {
      accumulateWindow(K, S, P, CiBase, B.CreateMul(Oc, K.ix(Window)));
    } else {
      K.forRange(0, CinG, [&](Value *Ci) {
        Value *WBase =
            B.CreateMul(B.CreateAdd(B.CreateMul(Oc, K.ix(CinG)), K.widen(Ci)), K.ix(Window));
        accumulateWindow(K, S, P, B.CreateAdd(CiBase, Ci), WBase);
      });
    }
    Value *SeIdx = B.CreateAdd(B.CreateMul(P.Image, K.ix(S.outChannels)), Oc);
    Value *Out = B.CreateAdd(B.CreateMul(SeIdx, K.ix(Pixels)), K.widen(Pix));
    Value *Y = K.epilogue(S.epilogue, K.get(P.Acc), Oc, SeIdx, Out);
    K.store(ParamRole::Output, Out, Y);
  });
  K.finish();
  return L;
}

} // namespace corpus::kernels
