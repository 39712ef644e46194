// The GEMM view, parameters and fused epilogue shared by the int8 kernels (Int8Gemm.h), and the
// integer instructions LLVM 19 has no intrinsic for (dp4a) or that are spelled out (prmt, the
// saturating conversion).
#include "kernels/Int8Gemm.h"
#include "kernels/Specs.h"

#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <array>
#include <cassert>

using namespace llvm;

namespace corpus::kernels {

Int8Gemm int8Gemm(const ConvSpec &S) {
  Int8Gemm G;
  G.Pixels = S.outHeight() * S.outWidth();
  G.M = S.batch * G.Pixels;
  G.N = S.outChannels;
  G.NPad = int8Channels(G.N);
  G.CinPad = int8Channels(S.inChannels);
  G.Groups = S.groups;
  const uint32_t Taps = S.kernelH * S.kernelW;
  const bool Depthwise = S.groups > 1 && S.groups == S.inChannels;
  G.K = Depthwise ? Taps : Taps * (S.groups == 1 ? G.CinPad : S.inChannels / S.groups);
  G.Conv = &S;
  G.Window = S.groups != 1 || !(Taps == 1 && S.strideH == 1 && S.strideW == 1 && !convPadded(S));
  G.E = S.epilogue;
  G.Io = S.int8;
  return G;
}

Int8Gemm int8Gemm(const GemmSpec &S) {
  Int8Gemm G;
  G.M = S.rows;
  G.N = S.outFeatures;
  G.NPad = int8Channels(G.N);
  G.CinPad = int8Channels(S.inFeatures);
  G.K = G.CinPad;
  G.E = S.epilogue;
  G.Io = S.int8;
  return G;
}

ShapeDims int8Dims(const Int8Gemm &G) {
  ShapeDims D = {{"m", G.M},
                 {"n", G.N},
                 {"k", G.K},
                 {"n_pad", G.NPad},
                 {"c_pad", G.CinPad, true},
                 {"quads", G.CinPad / 4, true},
                 {"pixels", G.Pixels, true}};
  if (!G.Conv)
    return D;
  const ConvSpec &S = *G.Conv;
  D.push_back({"h", S.inHeight});
  D.push_back({"w", S.inWidth});
  D.push_back({"wo", S.outWidth(), true});
  D.push_back({"pad_t", S.padTop});
  D.push_back({"pad_l", S.padLeft});
  // A group's input channels (the padded channels when ungrouped) and output channels.
  D.push_back({"cin_g", S.groups == 1 ? G.CinPad : S.inChannels / S.groups});
  D.push_back({"cout_g", S.outChannels / S.groups, true});
  return D;
}

PixelOrigin pixelOrigin(KernelBuilder &K, const ConvSpec &S, Value *Row) {
  IRBuilder<> &B = K.ir();
  Value *Img = K.udiv(Row, "pixels");
  Value *Pix = B.CreateSub(Row, B.CreateMul(Img, K.dim("pixels")));
  Value *Oh = K.udiv(Pix, "wo");
  Value *Ow = B.CreateSub(Pix, B.CreateMul(Oh, K.dim("wo")));
  Value *Image = B.CreateMul(B.CreateMul(K.dimIx("h"), K.dimIx("w")), K.dimIx("c_pad"));
  return {B.CreateSub(B.CreateMul(Oh, K.i32(S.strideH)), K.dim("pad_t")),
          B.CreateSub(B.CreateMul(Ow, K.i32(S.strideW)), K.dim("pad_l")),
          B.CreateMul(K.widen(Img), Image)};
}

std::vector<ParamRole> int8Roles(const Epilogue &E) {
  std::vector<ParamRole> R = {ParamRole::Input, ParamRole::Weight, ParamRole::Scale};
  for (ParamRole P : epilogueRoles(E))
    R.push_back(P);
  R.push_back(ParamRole::Output);
  return R;
}

uint64_t int8WeightElements(const Int8Gemm &G, Int8Strategy St) {
  if (St == Int8Strategy::Depthwise) // [tap groups][c_pad / 4][4 channels][4 taps]
    return uint64_t(G.CinPad) * ceilDiv(G.K, 4) * 4;
  if (St == Int8Strategy::Direct) // [tap][word][n_pad][4]
    return uint64_t(G.NPad) * G.K;
  return uint64_t(G.N) * G.K; // [n][tap][c_pad] (OHWI)
}

uint32_t int8WordsPerTap(const Int8Gemm &G) {
  return G.Conv ? G.K / (G.Conv->kernelH * G.Conv->kernelW) / 4 : G.K / 4;
}

KernelLaunch makeInt8Launch(const std::string &Name, LaunchStrategy Strategy, const Int8Gemm &G,
                            Int8Strategy St, std::array<uint32_t, 3> Grid,
                            std::array<uint32_t, 3> Block) {
  const uint64_t Images = G.M / G.Pixels;
  const uint64_t Input =
      G.Conv ? Images * G.Conv->inHeight * G.Conv->inWidth * G.CinPad : uint64_t(G.M) * G.CinPad;
  auto Form = [&](TensorForm F) {
    return F == TensorForm::I8Nhwc ? std::pair{uint64_t(G.M) * G.NPad, DType::I8}
                                   : std::pair{uint64_t(G.M) * G.N, DType::F16};
  };
  KernelLaunch L = makeLaunch(Name, Strategy, DType::I8, Grid, Block, int8Roles(G.E),
                              [](ParamRole) { return 0; });
  for (KernelParam &P : L.params) {
    switch (P.role) {
    case ParamRole::Input:
      P = {P.role, Input, DType::I8};
      break;
    case ParamRole::Weight:
      P = {P.role, int8WeightElements(G, St), DType::I8};
      break;
    case ParamRole::Scale:
      P = {P.role, uint64_t(G.NPad) + 2, DType::F32};
      break;
    case ParamRole::Residual:
      P = {P.role, Form(G.Io.residual).first, Form(G.Io.residual).second};
      break;
    case ParamRole::Output:
      P = {P.role, Form(G.Io.output).first, Form(G.Io.output).second};
      break;
    default: // bias, batch norm: per channel, padded (vector loads of four channels)
      P = {P.role, G.NPad, DType::F32};
    }
  }
  return L;
}

KernelLaunch int8Kernel(Module *M, const Int8Gemm &G, KernelLaunch L, KernelSet Set,
                        const std::function<void(KernelBuilder &)> &Body) {
  const ShapeDims Dims = int8Dims(G);
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, L.kernel, int8Roles(G.E), DType::I8, L, false, Dims);
  Body(K);
  K.finish();
  return L;
}

Value *f16OutputIndex(KernelBuilder &K, Value *Row, Value *Col) {
  IRBuilder<> &B = K.ir();
  Value *Img = K.udiv(Row, "pixels");
  Value *Pix = B.CreateSub(Row, B.CreateMul(Img, K.dim("pixels")));
  Value *Plane = B.CreateAdd(B.CreateMul(K.widen(Img), K.dimIx("n")), K.widen(Col));
  return B.CreateAdd(B.CreateMul(Plane, K.dimIx("pixels")), K.widen(Pix));
}

namespace {

/// The residual at output (Row, Col) as f32: int8 (dequantised with scale[n_pad]) or f16 (a
/// column in the padding reads channel 0 of the f16 tensor, which has no padding).
Value *residualAt(KernelBuilder &K, const Int8Gemm &G, Value *Row, Value *Col) {
  IRBuilder<> &B = K.ir();
  if (G.Io.residual == TensorForm::F16Nchw) {
    Col = B.CreateSelect(B.CreateICmpULT(Col, K.dim("n")), Col, K.i32(0));
    return K.load(ParamRole::Residual, f16OutputIndex(K, Row, Col));
  }
  Value *Idx = B.CreateAdd(B.CreateMul(K.widen(Row), K.dimIx("n_pad")), K.widen(Col));
  return B.CreateFMul(K.load(ParamRole::Residual, Idx), K.load(ParamRole::Scale, K.dimIx("n_pad")));
}

/// Element C of a vector of four f32 loaded from parameter R at channel Col0 (16-byte aligned).
std::array<Value *, 4> load4(KernelBuilder &K, ParamRole R, Value *Col0) {
  IRBuilder<> &B = K.ir();
  Type *Ty = FixedVectorType::get(B.getFloatTy(), 4);
  Value *V = B.CreateAlignedLoad(Ty, K.elementPtr(R, K.widen(Col0)), Align(16));
  return {B.CreateExtractElement(V, uint64_t(0)), B.CreateExtractElement(V, 1),
          B.CreateExtractElement(V, 2), B.CreateExtractElement(V, 3)};
}

} // namespace

ChannelParams channelParams(KernelBuilder &K, const Int8Gemm &G, Value *Col) {
  Value *Ch = K.widen(Col);
  ChannelParams P{K.load(ParamRole::Scale, Ch)};
  if (G.E.bias)
    P.Bias = K.load(ParamRole::Bias, Ch);
  if (G.E.batchNorm)
    P = {P.Scale, P.Bias, K.load(ParamRole::BnScale, Ch), K.load(ParamRole::BnShift, Ch)};
  return P;
}

std::array<ChannelParams, 4> channelParams4(KernelBuilder &K, const Int8Gemm &G, Value *Col0) {
  std::array<ChannelParams, 4> P;
  const std::array<Value *, 4> S = load4(K, ParamRole::Scale, Col0);
  std::array<Value *, 4> Bias{}, Bn{}, Shift{};
  if (G.E.bias)
    Bias = load4(K, ParamRole::Bias, Col0);
  if (G.E.batchNorm) {
    Bn = load4(K, ParamRole::BnScale, Col0);
    Shift = load4(K, ParamRole::BnShift, Col0);
  }
  for (size_t C = 0; C < 4; ++C)
    P[C] = {S[C], Bias[C], Bn[C], Shift[C]};
  return P;
}

Value *int8Value(KernelBuilder &K, const Int8Gemm &G, Value *Acc, Value *Row, Value *Col,
                 const ChannelParams &P) {
  IRBuilder<> &B = K.ir();
  const Epilogue &E = G.E;
  Value *Y = B.CreateFMul(B.CreateSIToFP(Acc, B.getFloatTy()), P.Scale);
  if (E.bias)
    Y = B.CreateFAdd(Y, P.Bias);
  if (E.batchNorm)
    Y = B.CreateFAdd(B.CreateFMul(Y, P.BnScale), P.BnShift);
  if (E.residual == ResidualKind::BeforeActivation)
    Y = B.CreateFAdd(Y, residualAt(K, G, Row, Col));
  Y = K.activation(E.activation, Y, E.alpha);
  if (E.residual == ResidualKind::AfterActivation)
    Y = B.CreateFAdd(Y, residualAt(K, G, Row, Col));
  return Y;
}

Value *int8Value(KernelBuilder &K, const Int8Gemm &G, Value *Acc, Value *Row, Value *Col) {
  return int8Value(K, G, Acc, Row, Col, channelParams(K, G, Col));
}

Value *outputInvScale(KernelBuilder &K) {
  return K.load(ParamRole::Scale, K.ir().CreateAdd(K.dimIx("n_pad"), K.ix(1)));
}

Value *quantize(KernelBuilder &K, Value *Y, Value *InvScale) {
  IRBuilder<> &B = K.ir();
  // cvt.rni.sat.s8.f32 (PTX ISA 9.7.9.21): round to nearest even, clamp to [-128, 127], NaN to
  // 0; LLVM's fptosi.sat would be six instructions.
  auto *Ty = FunctionType::get(B.getInt32Ty(), {B.getFloatTy()}, false);
  InlineAsm *Cvt = InlineAsm::get(Ty, "cvt.rni.sat.s8.f32 $0, $1;", "=r,f", false);
  return B.CreateCall(Cvt, {B.CreateFMul(Y, InvScale)});
}

void storeInt8Output(KernelBuilder &K, const Int8Gemm &G, Value *Acc, Value *Row, Value *Col,
                     const ChannelParams *P) {
  IRBuilder<> &B = K.ir();
  Value *Inside = B.CreateAnd(B.CreateICmpULT(Row, K.dim("m")), B.CreateICmpULT(Col, K.dim("n")));
  K.ifThen(Inside, [&] {
    Value *Y = P ? int8Value(K, G, Acc, Row, Col, *P) : int8Value(K, G, Acc, Row, Col);
    if (G.Io.output == TensorForm::F16Nchw) {
      K.store(ParamRole::Output, f16OutputIndex(K, Row, Col), Y);
      return;
    }
    Value *InvScale = outputInvScale(K);
    Value *Idx = B.CreateAdd(B.CreateMul(K.widen(Row), K.dimIx("n_pad")), K.widen(Col));
    B.CreateAlignedStore(B.CreateTrunc(quantize(K, Y, InvScale), B.getInt8Ty()),
                         K.elementPtr(ParamRole::Output, Idx), Align(1));
  });
}

void storeInt8Pair(KernelBuilder &K, const Int8Gemm &G, Value *Acc0, Value *Acc1, Value *Row,
                   Value *Col) {
  IRBuilder<> &B = K.ir();
  assert(G.Io.output == TensorForm::I8Nhwc && G.N % 2 == 0 && "pairs of int8 outputs, N even");
  Value *Inside = B.CreateAnd(B.CreateICmpULT(Row, K.dim("m")), B.CreateICmpULT(Col, K.dim("n")));
  K.ifThen(Inside, [&] {
    Value *InvScale = outputInvScale(K);
    Value *Q0 = quantize(K, int8Value(K, G, Acc0, Row, Col), InvScale);
    Value *Q1 = quantize(K, int8Value(K, G, Acc1, Row, B.CreateAdd(Col, K.i32(1))), InvScale);
    Value *Pair = B.CreateTrunc(prmt(K, Q0, Q1, 0x40), B.getInt16Ty());
    Value *Idx = B.CreateAdd(B.CreateMul(K.widen(Row), K.dimIx("n_pad")), K.widen(Col));
    B.CreateAlignedStore(Pair, K.elementPtr(ParamRole::Output, Idx), Align(2));
  });
}

Value *loadWords(KernelBuilder &K, ParamRole R, Value *ByteIndex, unsigned Words) {
  IRBuilder<> &B = K.ir();
  Type *Ty = Words == 1 ? static_cast<Type *>(B.getInt32Ty())
                        : FixedVectorType::get(B.getInt32Ty(), Words);
  return B.CreateAlignedLoad(Ty, K.elementPtr(R, ByteIndex), Align(4 * Words));
}

Value *dp4a(KernelBuilder &K, Value *A, Value *Bv, Value *C) {
  IRBuilder<> &B = K.ir();
  Type *I32 = B.getInt32Ty();
  auto *Ty = FunctionType::get(I32, {I32, I32, I32}, false);
  InlineAsm *Dp4a = InlineAsm::get(Ty, "dp4a.s32.s32 $0, $1, $2, $3;", "=r,r,r,r", false);
  return B.CreateCall(Dp4a, {A, Bv, C});
}

Value *prmt(KernelBuilder &K, Value *A, Value *Bv, uint32_t Sel) {
  return K.ir().CreateIntrinsic(Intrinsic::nvvm_prmt, {}, {A, Bv, K.i32(Sel)});
}

Value *packBytes(KernelBuilder &K, Value *A, Value *Bv, Value *C, Value *D) {
  // Selector nibbles name the result's bytes 0..3: 0-3 are the first operand's, 4-7 the second's.
  Value *Lo = prmt(K, A, Bv, 0x40), *Hi = prmt(K, C, D, 0x40);
  return prmt(K, Lo, Hi, 0x5410);
}

} // namespace corpus::kernels
