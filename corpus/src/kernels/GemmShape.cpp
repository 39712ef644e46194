// The GEMM view of convolutions and dense layers (GemmShape.h).
#include "kernels/GemmShape.h"
#include "kernels/HalfMath.h"

#include <cassert>

using namespace llvm;

namespace corpus::kernels {

GemmShape convGemmShape(const ConvSpec &S) {
  const uint32_t HW = S.inHeight * S.inWidth;
  return GemmShape{.Kind = GemmKind::ConvGemm,
                   .Batch = S.batch,
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
  return GemmShape{.Kind = GemmKind::ImplicitGemm,
                   .Batch = S.batch,
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
  return GemmShape{.Kind = GemmKind::Dense,
                   .Batch = 1,
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
  return GemmShape{.Kind = GemmKind::Bmm,
                   .Batch = S.batch,
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

ShapeDims gemmDims(const GemmShape &G) {
  ShapeDims D = {{"m", G.M}, {"n", G.N}, {"k", G.K}};
  if (G.BatchPerCta > 1) {
    D.push_back({"batch", G.Batch});
    D.push_back({"batch_per_cta", G.BatchPerCta});
  }
  if (const ConvSpec *S = G.Im2col) {
    D.push_back({"c_in", S->inChannels});
    D.push_back({"h", S->inHeight});
    D.push_back({"w", S->inWidth});
    D.push_back({"wo", S->outWidth(), true});
    D.push_back({"pad_t", S->padTop});
    D.push_back({"pad_l", S->padLeft});
  }
  return D;
}

void bindGemm(KernelBuilder &K, GemmShape &G) {
  GemmValues &V = G.V;
  G.Library = K.library();
  if (!G.Library) {
    V = {K.i32(G.M), K.i32(G.N),     K.i32(G.K),       K.ix(G.ABatch), K.ix(G.AM),
         K.ix(G.AK), K.ix(G.BBatch), K.ix(G.BK),       K.ix(G.BN),     K.ix(G.CBatch),
         K.ix(G.CM), K.ix(G.CN),     K.ix(G.Channels), K.ix(G.Batch)};
    return;
  }
  IRBuilder<> &B = K.ir();
  Value *M = K.dimIx("m"), *N = K.dimIx("n"), *Kd = K.dimIx("k"), *Zero = K.ix(0), *One = K.ix(1);
  V.M = K.dim("m");
  V.N = K.dim("n");
  V.K = K.dim("k");
  V.AM = Kd;
  V.AK = One;
  V.CM = N;
  V.CN = One;
  V.Batch = G.BatchPerCta > 1 ? K.dimIx("batch") : K.ix(G.Batch);
  switch (G.Kind) {
  case GemmKind::ConvGemm:
    V.ABatch = Zero, V.BBatch = B.CreateMul(Kd, N), V.BK = N, V.BN = One;
    V.CBatch = B.CreateMul(M, N), V.Channels = M;
    break;
  case GemmKind::ImplicitGemm:
    V.ABatch = Zero, V.BK = Zero, V.BN = Zero;
    V.BBatch = B.CreateMul(K.dimIx("c_in"), B.CreateMul(K.dimIx("h"), K.dimIx("w")));
    V.CBatch = B.CreateMul(M, N), V.Channels = M;
    break;
  case GemmKind::Dense:
    V.ABatch = Zero, V.BBatch = Zero, V.BK = One, V.BN = Kd;
    V.CBatch = Zero, V.Channels = N;
    break;
  case GemmKind::Bmm:
    V.ABatch = B.CreateMul(M, Kd), V.BBatch = B.CreateMul(Kd, N), V.BK = N, V.BN = One;
    V.CBatch = B.CreateMul(M, N), V.Channels = N;
    break;
  }
}

Value *kTiles(KernelBuilder &K, const GemmShape &G, uint32_t Step) {
  if (!G.Library)
    return K.i32(ceilDiv(G.K, Step));
  IRBuilder<> &B = K.ir();
  return B.CreateUDiv(B.CreateAdd(G.V.K, K.i32(Step - 1)), K.i32(Step));
}

bool unitStride(const GemmShape &G, bool OperandA, bool Rows) {
  if (!G.Library)
    return (OperandA ? (Rows ? G.AM : G.AK) : (Rows ? G.BK : G.BN)) == 1;
  if (OperandA)
    return !Rows; // A(m, k) = A[m * K + k] in every kind
  if (G.Kind == GemmKind::ImplicitGemm)
    return false;
  return G.Kind == GemmKind::Dense ? Rows : !Rows; // dense: B(k, n) = W[n * K + k]
}

TileSource tileA(const GemmShape &G, Value *Base, Value *Row0, Value *K0, uint32_t Rows,
                 uint32_t Cols) {
  const GemmValues &V = G.V;
  TileSource T{G.ARole, Base, Row0, V.M, V.AM, K0, V.K, V.AK, Rows, Cols};
  T.UnitRowStride = unitStride(G, true, true);
  T.UnitColStride = unitStride(G, true, false);
  return T;
}

TileSource tileB(const GemmShape &G, Value *Base, Value *K0, Value *Col0, uint32_t Rows,
                 uint32_t Cols) {
  const GemmValues &V = G.V;
  TileSource T{G.BRole, Base, K0, V.K, V.BK, Col0, V.N, V.BN, Rows, Cols, G.Im2col};
  T.UnitRowStride = unitStride(G, false, true);
  T.UnitColStride = unitStride(G, false, false);
  return T;
}

std::pair<Value *, Value *> elementAt(KernelBuilder &K, const TileSource &T, Value *GR, Value *GC) {
  IRBuilder<> &B = K.ir();
  Value *Inside = B.CreateAnd(B.CreateICmpULT(GR, T.RowLimit), B.CreateICmpULT(GC, T.ColLimit));
  if (!T.Im2col) {
    Value *Idx = B.CreateAdd(T.Base, B.CreateAdd(B.CreateMul(K.widen(GR), T.RowStride),
                                                 B.CreateMul(K.widen(GC), T.ColStride)));
    return {Inside, Idx};
  }
  const ConvSpec &S = *T.Im2col;
  Value *Ci = B.CreateUDiv(GR, K.i32(S.kernelH * S.kernelW));
  Value *Tap = B.CreateURem(GR, K.i32(S.kernelH * S.kernelW));
  Value *Kh = B.CreateUDiv(Tap, K.i32(S.kernelW)), *Kw = B.CreateURem(Tap, K.i32(S.kernelW));
  Value *Oh = K.udiv(GC, "wo"), *Ow = K.urem(GC, "wo");
  Value *Ih = B.CreateAdd(B.CreateSub(B.CreateMul(Oh, K.i32(S.strideH)), K.dim("pad_t")),
                          B.CreateMul(Kh, K.i32(S.dilationH)));
  Value *Iw = B.CreateAdd(B.CreateSub(B.CreateMul(Ow, K.i32(S.strideW)), K.dim("pad_l")),
                          B.CreateMul(Kw, K.i32(S.dilationW)));
  if (S.padTop || S.padLeft || S.padBottom || S.padRight)
    Inside = B.CreateAnd(
        Inside, B.CreateAnd(B.CreateICmpULT(Ih, K.dim("h")), B.CreateICmpULT(Iw, K.dim("w"))));
  // The offset inside the image is i32 (an image has fewer than 2^31 elements).
  Value *Row = B.CreateAdd(B.CreateMul(Ci, K.dim("h")), Ih);
  Value *Idx = B.CreateAdd(T.Base, K.widenSigned(B.CreateAdd(B.CreateMul(Row, K.dim("w")), Iw)));
  return {Inside, Idx};
}

namespace {

/// Where output (Row, Col) of batch Img goes and what its epilogue reads, when it is inside the
/// M x N output: Fn(output index, channel, squeeze-excitation index).
void atOutput(KernelBuilder &K, const GemmShape &G, Value *Row, Value *Col, Value *Img,
              const std::function<void(Value *, Value *, Value *)> &Fn) {
  IRBuilder<> &B = K.ir();
  const GemmValues &V = G.V;
  Value *Inside = B.CreateAnd(B.CreateICmpULT(Row, V.M), B.CreateICmpULT(Col, V.N));
  K.ifThen(Inside, [&] {
    Value *Out =
        B.CreateAdd(B.CreateMul(Img, V.CBatch),
                    B.CreateAdd(B.CreateMul(K.widen(Row), V.CM), B.CreateMul(K.widen(Col), V.CN)));
    Value *Ch = K.widen(G.ChannelIsRow ? Row : Col);
    Fn(Out, Ch, B.CreateAdd(B.CreateMul(Img, V.Channels), Ch));
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
