// The GEMM view of convolutions and dense layers (GemmShape.h).
#include "kernels/GemmShape.h"
#include "kernels/HalfMath.h"

#include <cassert>

using namespace llvm;

namespace corpus::kernels {

GemmShape convGemmShape(const ConvSpec &S) {
  const uint32_t HW = S.inHeight * S.inWidth;
  return GemmShape{.Batch = S.batch,
                   .M = S.outChannels,
                   .N = HW,
                   .K = S.inChannels,
                   .ABatch = 0,
                   .AM = S.inChannels,
                   .AK = 1,
                   .BBatch = S.inChannels * HW,
                   .BK = HW,
                   .BN = 1,
                   .CBatch = S.outChannels * HW,
                   .CM = HW,
                   .CN = 1,
                   .ChannelIsRow = true,
                   .Channels = S.outChannels,
                   .ARole = ParamRole::Weight,
                   .BRole = ParamRole::Input};
}

GemmShape implicitGemmShape(const ConvSpec &S) {
  const uint32_t Pixels = S.outHeight() * S.outWidth();
  const uint32_t Taps = S.inChannels * S.kernelH * S.kernelW;
  return GemmShape{.Batch = S.batch,
                   .M = S.outChannels,
                   .N = Pixels,
                   .K = Taps,
                   .ABatch = 0,
                   .AM = Taps,
                   .AK = 1,
                   .BBatch = S.inChannels * S.inHeight * S.inWidth,
                   .BK = 0,
                   .BN = 0,
                   .CBatch = S.outChannels * Pixels,
                   .CM = Pixels,
                   .CN = 1,
                   .ChannelIsRow = true,
                   .Channels = S.outChannels,
                   .ARole = ParamRole::Weight,
                   .BRole = ParamRole::Input,
                   .Im2col = &S};
}

GemmShape denseGemmShape(const GemmSpec &S) {
  return GemmShape{.Batch = 1,
                   .M = S.rows,
                   .N = S.outFeatures,
                   .K = S.inFeatures,
                   .ABatch = 0,
                   .AM = S.inFeatures,
                   .AK = 1,
                   .BBatch = 0,
                   .BK = 1,
                   .BN = S.inFeatures,
                   .CBatch = 0,
                   .CM = S.outFeatures,
                   .CN = 1,
                   .ChannelIsRow = false,
                   .Channels = S.outFeatures,
                   .ARole = ParamRole::Input,
                   .BRole = ParamRole::Weight};
}

GemmShape bmmGemmShape(const BatchMatMulSpec &S) {
  return GemmShape{.Batch = S.batch,
                   .M = S.m,
                   .N = S.k,
                   .K = S.n,
                   .ABatch = uint64_t(S.m) * S.n,
                   .AM = S.n,
                   .AK = 1,
                   .BBatch = uint64_t(S.n) * S.k,
                   .BK = S.k,
                   .BN = 1,
                   .CBatch = uint64_t(S.m) * S.k,
                   .CM = S.k,
                   .CN = 1,
                   .ChannelIsRow = false,
                   .Channels = S.k,
                   .ARole = ParamRole::Input,
                   .BRole = ParamRole::Input2};
}

uint64_t convParamElements(const ConvSpec &S, ParamRole R) {
  const uint64_t Outputs = uint64_t(S.batch) * S.outChannels * S.outHeight() * S.outWidth();
  if (R == ParamRole::Input)
    return uint64_t(S.batch) * S.inChannels * S.inHeight * S.inWidth;
  if (R == ParamRole::Weight)
    return uint64_t(S.outChannels) * S.inChannels * S.kernelH * S.kernelW;
  if (R == ParamRole::Output)
    return Outputs;
  return epilogueElements(R, S.outChannels, S.batch, Outputs);
}

uint64_t denseParamElements(const GemmSpec &S, ParamRole R) {
  const uint64_t Outputs = uint64_t(S.rows) * S.outFeatures;
  if (R == ParamRole::Input)
    return uint64_t(S.rows) * S.inFeatures;
  if (R == ParamRole::Weight)
    return uint64_t(S.outFeatures) * S.inFeatures;
  if (R == ParamRole::Output)
    return Outputs;
  return epilogueElements(R, S.outFeatures, 1, Outputs);
}

uint64_t bmmParamElements(const BatchMatMulSpec &S, ParamRole R) {
  if (R == ParamRole::Input)
    return uint64_t(S.batch) * S.m * S.n;
  if (R == ParamRole::Input2)
    return uint64_t(S.batch) * S.n * S.k;
  return uint64_t(S.batch) * S.m * S.k;
}

std::vector<ParamRole> gemmRoles(const Epilogue &E) {
  std::vector<ParamRole> R = {ParamRole::Input, ParamRole::Weight};
  for (ParamRole P : epilogueRoles(E))
    R.push_back(P);
  R.push_back(ParamRole::Output);
  return R;
}

std::pair<Value *, Value *> elementAt(KernelBuilder &K, const TileSource &T, Value *GR, Value *GC) {
  IRBuilder<> &B = K.ir();
  Value *Inside =
      B.CreateAnd(B.CreateICmpULT(GR, K.i32(T.RowLimit)), B.CreateICmpULT(GC, K.i32(T.ColLimit)));
  if (!T.Im2col) {
    Value *Idx = B.CreateAdd(T.Base, B.CreateAdd(B.CreateMul(K.widen(GR), K.ix(T.RowStride)),
                                                 B.CreateMul(K.widen(GC), K.ix(T.ColStride))));
    return {Inside, Idx};
  }
  const ConvSpec &S = *T.Im2col;
  const uint32_t Wo = S.outWidth();
  Value *Ci = B.CreateUDiv(GR, K.i32(S.kernelH * S.kernelW));
  Value *Tap = B.CreateURem(GR, K.i32(S.kernelH * S.kernelW));
  Value *Kh = B.CreateUDiv(Tap, K.i32(S.kernelW)), *Kw = B.CreateURem(Tap, K.i32(S.kernelW));
  Value *Oh = B.CreateUDiv(GC, K.i32(Wo)), *Ow = B.CreateURem(GC, K.i32(Wo));
  Value *Ih = B.CreateAdd(B.CreateSub(B.CreateMul(Oh, K.i32(S.strideH)), K.i32(S.padTop)),
                          B.CreateMul(Kh, K.i32(S.dilationH)));
  Value *Iw = B.CreateAdd(B.CreateSub(B.CreateMul(Ow, K.i32(S.strideW)), K.i32(S.padLeft)),
                          B.CreateMul(Kw, K.i32(S.dilationW)));
  if (S.padTop || S.padLeft || S.padBottom || S.padRight)
    Inside = B.CreateAnd(Inside, B.CreateAnd(B.CreateICmpULT(Ih, K.i32(S.inHeight)),
                                             B.CreateICmpULT(Iw, K.i32(S.inWidth))));
  // The offset inside the image is i32 (an image has fewer than 2^31 elements).
  Value *Row = B.CreateAdd(B.CreateMul(Ci, K.i32(S.inHeight)), Ih);
  Value *Idx =
      B.CreateAdd(T.Base, K.widenSigned(B.CreateAdd(B.CreateMul(Row, K.i32(S.inWidth)), Iw)));
  return {Inside, Idx};
}

namespace {

/// Where output (Row, Col) of batch Img goes and what its epilogue reads, when it is inside the
/// M x N output: Fn(output index, channel, squeeze-excitation index).
void atOutput(KernelBuilder &K, const GemmShape &G, Value *Row, Value *Col, Value *Img,
              const std::function<void(Value *, Value *, Value *)> &Fn) {
  IRBuilder<> &B = K.ir();
  Value *Inside = B.CreateAnd(B.CreateICmpULT(Row, K.i32(G.M)), B.CreateICmpULT(Col, K.i32(G.N)));
  K.ifThen(Inside, [&] {
    Value *Out = B.CreateAdd(
        B.CreateMul(Img, K.ix(G.CBatch)),
        B.CreateAdd(B.CreateMul(K.widen(Row), K.ix(G.CM)), B.CreateMul(K.widen(Col), K.ix(G.CN))));
    Value *Ch = K.widen(G.ChannelIsRow ? Row : Col);
    Fn(Out, Ch, B.CreateAdd(B.CreateMul(Img, K.ix(G.Channels)), Ch));
  });
}

} // namespace

void storeOutput(KernelBuilder &K, const GemmShape &G, const Epilogue &E, Value *AccSlot,
                 Value *Row, Value *Col, Value *Img) {
  atOutput(K, G, Row, Col, Img, [&](Value *Out, Value *Ch, Value *SeIdx) {
    K.store(ParamRole::Output, Out, K.epilogue(E, K.get(AccSlot), Ch, SeIdx, Out));
  });
}

void storeOutputHalf(KernelBuilder &K, const GemmShape &G, const Epilogue &E,
                     const std::vector<Value *> &AccSlots, Value *Row, Value *Col, Value *Img) {
  assert(
      (AccSlots.size() == 1 || (G.N % 2 == 0 && G.CN == 1 && G.CM % 2 == 0 && G.CBatch % 2 == 0)) &&
      "f16x2 stores need aligned output pairs that lie inside one row together");
  HalfOps H(K, unsigned(AccSlots.size()));
  atOutput(K, G, Row, Col, Img, [&](Value *Out, Value *Ch, Value *SeIdx) {
    std::vector<Value *> Acc;
    for (Value *Slot : AccSlots)
      Acc.push_back(K.get(Slot));
    Value *V = H.epilogue(E, H.fromF32(Acc), Ch, !G.ChannelIsRow, SeIdx, Out);
    H.store(ParamRole::Output, Out, V);
  });
}

} // namespace corpus::kernels
