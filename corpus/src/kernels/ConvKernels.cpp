// Direct and depthwise convolution kernels: one thread per output pixel. Specialised by the
// window, stride and dilation (as PyTorch's depthwise kernels by the filter size), and in a
// library kernel by whether the window can leave the input and whether a group has one input
// channel.
#include "kernels/GemmShape.h"
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t MaxBlock = 256;

uint32_t directBlock(const ConvSpec &S) {
  return warpRoundedBlock(uint64_t(S.outHeight()) * S.outWidth(), MaxBlock);
}

/// The shapes a direct convolution computes with.
ShapeDims directDims(const ConvSpec &S) {
  return {{"c_in", S.inChannels},
          {"h", S.inHeight},
          {"w", S.inWidth},
          {"c_out", S.outChannels},
          {"pixels", S.outHeight() * S.outWidth()},
          {"wo", S.outWidth(), true},
          {"pad_t", S.padTop},
          {"pad_l", S.padLeft},
          {"cin_g", S.inChannels / S.groups},
          {"cout_g", S.outChannels / S.groups, true}};
}

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
  const bool Padded = convPadded(S);
  Value *Plane = B.CreateMul(B.CreateAdd(B.CreateMul(P.Image, K.dimIx("c_in")), K.widen(Ci)),
                             B.CreateMul(K.dimIx("h"), K.dimIx("w")));
  K.forRange(0, S.kernelH, [&](Value *Kh) {
    Value *Ih = B.CreateAdd(P.IhBase, B.CreateMul(Kh, K.i32(S.dilationH)));
    K.forRange(0, S.kernelW, [&](Value *Kw) {
      Value *Iw = B.CreateAdd(P.IwBase, B.CreateMul(Kw, K.i32(S.dilationW)));
      auto Body = [&] {
        Value *In = B.CreateAdd(Plane, K.widenSigned(B.CreateAdd(B.CreateMul(Ih, K.dim("w")), Iw)));
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
      Value *Inside = B.CreateAnd(B.CreateICmpULT(Ih, K.dim("h")), B.CreateICmpULT(Iw, K.dim("w")));
      K.ifThen(Inside, Body);
    });
  });
}

} // namespace

std::string libraryName(const ConvSpec &S, ConvStrategy Resolved) {
  if (Resolved == ConvStrategy::Gemm || Resolved == ConvStrategy::ImplicitGemm)
    return libraryGemmName(S, Resolved);
  std::string N = std::string(Resolved == ConvStrategy::Depthwise ? "conv_dw" : "conv_direct") +
                  convWindowKeys(S);
  if (Resolved != ConvStrategy::Depthwise && S.inChannels / S.groups == 1)
    N += "_cin1";
  return libraryKernelName(N + "_b" + std::to_string(directBlock(S)), S.dtype, S.epilogue,
                           wideIndex(S));
}

KernelLaunch buildDirectConv(Module *M, const ConvSpec &S, const std::string &Name, KernelSet Set,
                             bool Depthwise) {
  const uint32_t Ho = S.outHeight(), Wo = S.outWidth();
  const uint64_t Pixels = uint64_t(Ho) * Wo;
  const uint64_t Outputs = Pixels * S.outChannels * S.batch;
  const uint32_t CinG = S.inChannels / S.groups;
  const uint32_t Bx = directBlock(S);
  std::vector<ParamRole> Roles = convRoles(S.epilogue);
  KernelLaunch L = makeLaunch(
      Name, Depthwise ? LaunchStrategy::ConvDepthwise : LaunchStrategy::ConvDirect, S.dtype,
      {ceilDiv(Pixels, Bx), S.outChannels, S.batch}, {Bx, 1, 1}, Roles, [&](ParamRole R) {
        if (R == ParamRole::Input)
          return uint64_t(S.batch) * S.inChannels * S.inHeight * S.inWidth;
        if (R == ParamRole::Weight)
          return uint64_t(S.outChannels) * CinG * S.kernelH * S.kernelW;
        if (R == ParamRole::Output)
          return Outputs;
        return epilogueElements(R, S.outChannels, S.batch, Outputs);
      });
  const ShapeDims Dims = directDims(S);
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, S.dtype, L, wideIndex(S), Dims);
  IRBuilder<> &B = K.ir();
  Value *Pix = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(Bx)), K.tid(0), "pix");
  PixelCtx P;
  P.Oc = K.ctaid(1);
  P.Image = K.widen(K.ctaid(2));
  K.ifThen(B.CreateICmpULT(Pix, K.dim("pixels")), [&] {
    Value *Oh = K.udiv(Pix, "wo");
    Value *Ow = K.urem(Pix, "wo");
    P.IhBase = B.CreateSub(B.CreateMul(Oh, K.i32(S.strideH)), K.dim("pad_t"));
    P.IwBase = B.CreateSub(B.CreateMul(Ow, K.i32(S.strideW)), K.dim("pad_l"));
    P.Acc = K.accumulator(0.0f);
    Value *Group = K.udiv(P.Oc, "cout_g");
    Value *CiBase = B.CreateMul(Group, K.dim("cin_g"));
    const uint32_t Window = S.kernelH * S.kernelW;
    Value *Oc = K.widen(P.Oc);
    if (Depthwise || CinG == 1) {
      accumulateWindow(K, S, P, CiBase, B.CreateMul(Oc, K.ix(Window)));
    } else {
      K.forRange(K.i32(0), K.dim("cin_g"), 1, [&](Value *Ci) {
        Value *WBase =
            B.CreateMul(B.CreateAdd(B.CreateMul(Oc, K.dimIx("cin_g")), K.widen(Ci)), K.ix(Window));
        accumulateWindow(K, S, P, B.CreateAdd(CiBase, Ci), WBase);
      });
    }
    Value *SeIdx = B.CreateAdd(B.CreateMul(P.Image, K.dimIx("c_out")), Oc);
    Value *Out = B.CreateAdd(B.CreateMul(SeIdx, K.dimIx("pixels")), K.widen(Pix));
    Value *Y = K.epilogue(S.epilogue, K.get(P.Acc), Oc, SeIdx, Out);
    K.store(ParamRole::Output, Out, Y);
  });
  K.finish();
  return L;
}

} // namespace corpus::kernels
