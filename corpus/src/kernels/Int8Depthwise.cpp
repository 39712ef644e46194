// The int8 depthwise convolution (Int8Gemm.h): one thread per output pixel and four channels.
// dp4a needs four products of one sum in one word, but NHWC puts four channels of one tap in a
// word: per group of four taps the thread loads four such words (one per tap), transposes them
// with eight prmt into four words of four taps of one channel, and multiplies each with that
// channel's filter word, the filters stored [tap groups][c_pad / 4][4 channels][4 taps] (taps
// past the window are zeros, and no input is loaded for them). See docs/lowering.md, "Int8
// engines".
#include "kernels/Int8Gemm.h"
#include "kernels/Specs.h"

#include <array>
#include <cassert>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t Block = 256;

using Quad = std::array<Value *, 4>;

/// The 4 x 4 byte transpose: word i of the result holds byte i of X[0], X[1], X[2], X[3] (lowest
/// first). Interleave bytes of pairs, then half-words.
Quad transpose(KernelBuilder &K, const Quad &X) {
  Value *T0 = prmt(K, X[0], X[1], 0x5140), *T1 = prmt(K, X[0], X[1], 0x7362);
  Value *T2 = prmt(K, X[2], X[3], 0x5140), *T3 = prmt(K, X[2], X[3], 0x7362);
  return {prmt(K, T0, T2, 0x5410), prmt(K, T0, T2, 0x7632), prmt(K, T1, T3, 0x5410),
          prmt(K, T1, T3, 0x7632)};
}

/// The input word of tap Tap (four channels from 4 Quad) at output row's origin O: zero outside
/// the input (the load reads element 0 there, branch-free).
Value *tapWord(KernelBuilder &K, const ConvSpec &S, const PixelOrigin &O, uint32_t Tap,
               Value *Channel) {
  IRBuilder<> &B = K.ir();
  Value *Ih = B.CreateAdd(O.IhBase, K.i32(Tap / S.kernelW * S.dilationH));
  Value *Iw = B.CreateAdd(O.IwBase, K.i32(Tap % S.kernelW * S.dilationW));
  Value *Pos = B.CreateAdd(B.CreateMul(Ih, K.dim("w")), Iw);
  Value *Idx =
      B.CreateAdd(O.ImgBase, K.widenSigned(B.CreateAdd(B.CreateMul(Pos, K.dim("c_pad")), Channel)));
  if (!convPadded(S))
    return loadWords(K, ParamRole::Input, Idx);
  Value *Inside = B.CreateAnd(B.CreateICmpULT(Ih, K.dim("h")), B.CreateICmpULT(Iw, K.dim("w")));
  Value *W = loadWords(K, ParamRole::Input, B.CreateSelect(Inside, Idx, K.ix(0)));
  return B.CreateSelect(Inside, W, K.i32(0));
}

/// The four channels' sums over the window (tap groups unrolled: the window is a constant).
std::vector<Value *> accumulate(KernelBuilder &K, const Int8Gemm &G, Value *Row, Value *Q) {
  IRBuilder<> &B = K.ir();
  const ConvSpec &S = *G.Conv;
  const uint32_t Taps = S.kernelH * S.kernelW, Groups = ceilDiv(Taps, 4);
  const PixelOrigin O = pixelOrigin(K, S, Row);
  Value *Channel = B.CreateShl(Q, 2);
  std::vector<Value *> Acc(4, K.i32(0));
  for (uint32_t J = 0; J < Groups; ++J) {
    Quad X;
    for (uint32_t I = 0; I < 4; ++I)
      X[I] = 4 * J + I < Taps ? tapWord(K, S, O, 4 * J + I, Channel) : K.i32(0);
    const Quad Y = transpose(K, X);
    // Tap group J of consecutive quads is contiguous: the warp's 16-byte loads coalesce.
    Value *WIdx =
        B.CreateMul(B.CreateAdd(B.CreateMul(K.ix(J), K.dimIx("quads")), K.widen(Q)), K.ix(16));
    Value *W = loadWords(K, ParamRole::Weight, WIdx, 4);
    for (uint32_t C = 0; C < 4; ++C)
      Acc[C] = dp4a(K, Y[C], B.CreateExtractElement(W, C), Acc[C]);
  }
  return Acc;
}

/// The four channels' outputs: int8 as one word (padding channels 0), f16 one by one.
void store(KernelBuilder &K, const Int8Gemm &G, const std::vector<Value *> &Acc, Value *Row,
           Value *Q) {
  IRBuilder<> &B = K.ir();
  Value *N0 = B.CreateShl(Q, 2);
  // The four channels' parameters: one 16-byte load each (a warp's lanes hold consecutive quads).
  const std::array<ChannelParams, 4> P = channelParams4(K, G, N0);
  if (G.Io.output == TensorForm::F16Nchw) {
    for (uint32_t C = 0; C < 4; ++C)
      storeInt8Output(K, G, Acc[C], Row, B.CreateAdd(N0, K.i32(C)), &P[C]);
    return;
  }
  Value *InvScale = outputInvScale(K);
  Quad Bytes;
  for (uint32_t C = 0; C < 4; ++C) {
    Value *N = B.CreateAdd(N0, K.i32(C));
    Value *V = quantize(K, int8Value(K, G, Acc[C], Row, N, P[C]), InvScale);
    Bytes[C] = B.CreateSelect(B.CreateICmpULT(N, K.dim("n")), V, K.i32(0));
  }
  Value *Idx = B.CreateAdd(B.CreateMul(K.widen(Row), K.dimIx("n_pad")), K.widen(N0));
  B.CreateAlignedStore(packBytes(K, Bytes[0], Bytes[1], Bytes[2], Bytes[3]),
                       K.elementPtr(ParamRole::Output, Idx), Align(4));
}

} // namespace

KernelLaunch buildInt8Depthwise(Module *M, const Int8Gemm &G, const std::string &Name,
                                KernelSet Set) {
  assert(G.Conv && G.Groups == G.N && G.NPad == G.CinPad &&
         "a depthwise convolution, multiplier 1");
  const uint64_t Threads = uint64_t(G.M) * (G.CinPad / 4);
  KernelLaunch L = makeInt8Launch(Name, LaunchStrategy::ConvDepthwise, G, Int8Strategy::Depthwise,
                                  {ceilDiv(Threads, Block), 1, 1}, {Block, 1, 1});
  return int8Kernel(M, G, L, Set, [&](KernelBuilder &K) {
    IRBuilder<> &B = K.ir();
    Value *T = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(Block)), K.tid(0));
    Value *Row = K.udiv(T, "quads");
    Value *Q = B.CreateSub(T, B.CreateMul(Row, K.dim("quads")));
    K.ifThen(B.CreateICmpULT(Row, K.dim("m")),
             [&] { store(K, G, accumulate(K, G, Row, Q), Row, Q); });
  });
}

} // namespace corpus::kernels
