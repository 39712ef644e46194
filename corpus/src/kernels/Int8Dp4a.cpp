// The int8 kernels on CUDA cores with dp4a (Int8Gemm.h): the direct convolution (the 3-channel
// stem, grouped convolutions, and every convolution or dense layer where the GPU has no int8
// tensor cores) and the GEMV (fewer than MinGemmRows output rows). Four int8 products per dp4a
// into an int32 sum; the epilogue as the tensor-core kernel's. See docs/lowering.md, "Int8
// engines".
#include "kernels/Int8Gemm.h"
#include "kernels/Specs.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include <algorithm>
#include <cassert>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t ChannelsPerThread = 4; // output channels a direct-convolution thread computes
/// A direct-convolution CTA: up to 64 output pixels (x) times four threads of four channels (y),
/// 16 channels per CTA. (With one quad per CTA, the CTAs along y would start their f16 NCHW
/// stores at planes 4 apart, whose sector alignment differs from CTA to CTA; 16 planes of 2-byte
/// elements are a multiple of 32 bytes.)
constexpr uint32_t MaxBlockX = 64, QuadsPerCta = 4;

/// Sums the words of window tap Tap (or of a whole row without a window) into the four
/// accumulators: input word j at InBase + 4 j against the filter words of channels N0 .. N0 + 3,
/// one 16-byte vector of the filters [tap][word][n_pad][4] at ((Tap x words + j) x n_pad + N0)
/// words. A single word per tap (the 3-channel stem) needs no loop.
void accumulateTap(KernelBuilder &K, const Int8Gemm &G, Value *InBase, Value *Tap, Value *N0,
                   const std::vector<Value *> &Acc) {
  IRBuilder<> &B = K.ir();
  Value *Words = G.Conv ? B.CreateLShr(K.dim("cin_g"), 2) : B.CreateLShr(K.dim("k"), 2);
  auto Word = [&](Value *J) {
    Value *X = loadWords(K, ParamRole::Input, B.CreateAdd(InBase, K.widen(B.CreateShl(J, 2))));
    Value *Filter =
        B.CreateAdd(B.CreateMul(B.CreateAdd(B.CreateMul(Tap, Words), J), K.dim("n_pad")), N0);
    Value *W = loadWords(K, ParamRole::Weight, B.CreateShl(K.widen(Filter), K.ix(2)), 4);
    for (uint32_t C = 0; C < ChannelsPerThread; ++C)
      B.CreateStore(dp4a(K, X, B.CreateExtractElement(W, C), B.CreateLoad(B.getInt32Ty(), Acc[C])),
                    Acc[C]);
  };
  if (int8WordsPerTap(G) == 1)
    Word(K.i32(0));
  else
    K.forRange(K.i32(0), Words, 1, Word);
}

/// The window loop of a direct convolution's output row `Row` (taps outer, the group's channel
/// words inner), skipping taps outside the input.
void accumulateWindow(KernelBuilder &K, const Int8Gemm &G, Value *Row, Value *N0,
                      const std::vector<Value *> &Acc) {
  IRBuilder<> &B = K.ir();
  const ConvSpec &S = *G.Conv;
  const PixelOrigin O = pixelOrigin(K, S, Row);
  // The group's first input channel: channel N0's group (cout_g is a multiple of four, so the
  // thread's four channels share it) times its channels.
  Value *C0 = B.CreateMul(K.udiv(N0, "cout_g"), K.dim("cin_g"));
  if (S.groups == 1)
    C0 = K.i32(0);
  K.forRange(0, S.kernelH, [&](Value *Kh) {
    Value *Ih = B.CreateAdd(O.IhBase, B.CreateMul(Kh, K.i32(S.dilationH)));
    K.forRange(0, S.kernelW, [&](Value *Kw) {
      Value *Iw = B.CreateAdd(O.IwBase, B.CreateMul(Kw, K.i32(S.dilationW)));
      auto Body = [&] {
        Value *Pos = B.CreateAdd(B.CreateMul(Ih, K.dim("w")), Iw);
        Value *In = B.CreateAdd(O.ImgBase,
                                K.widenSigned(B.CreateAdd(B.CreateMul(Pos, K.dim("c_pad")), C0)));
        accumulateTap(K, G, In, B.CreateAdd(B.CreateMul(Kh, K.i32(S.kernelW)), Kw), N0, Acc);
      };
      if (!convPadded(S)) {
        Body();
        return;
      }
      K.ifThen(B.CreateAnd(B.CreateICmpULT(Ih, K.dim("h")), B.CreateICmpULT(Iw, K.dim("w"))), Body);
    });
  });
}

/// One output row (pixel) x four channels per thread: the window's sums, then the epilogue (pairs
/// of int8 outputs with N even in one store).
void directBody(KernelBuilder &K, const Int8Gemm &G, uint32_t Bx) {
  IRBuilder<> &B = K.ir();
  Value *Row = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(Bx)), K.tid(0));
  Value *Quad = B.CreateAdd(B.CreateMul(K.ctaid(1), K.i32(QuadsPerCta)), K.tid(1));
  Value *N0 = B.CreateMul(Quad, K.i32(ChannelsPerThread));
  // Threads past the padded channels (an output of at most 4 channels) have no filters.
  Value *Inside =
      B.CreateAnd(B.CreateICmpULT(Row, K.dim("m")), B.CreateICmpULT(N0, K.dim("n_pad")));
  K.ifThen(Inside, [&] {
    std::vector<Value *> Acc;
    for (uint32_t C = 0; C < ChannelsPerThread; ++C)
      Acc.push_back(K.zeroSlot(B.getInt32Ty()));
    if (G.Window)
      accumulateWindow(K, G, Row, N0, Acc);
    else // a 1x1 convolution or dense layer: the row's channels
      accumulateTap(K, G, B.CreateMul(K.widen(Row), K.dimIx("c_pad")), K.i32(0), N0, Acc);
    const bool Pairs = G.Io.output == TensorForm::I8Nhwc && G.N % 2 == 0;
    for (uint32_t C = 0; C < ChannelsPerThread; C += Pairs ? 2 : 1) {
      Value *Col = B.CreateAdd(N0, K.i32(C));
      Value *A0 = B.CreateLoad(B.getInt32Ty(), Acc[C]);
      if (Pairs)
        storeInt8Pair(K, G, A0, B.CreateLoad(B.getInt32Ty(), Acc[C + 1]), Row, Col);
      else
        storeInt8Output(K, G, A0, Row, Col);
    }
  });
}

constexpr uint32_t WarpsPerBlock = 8; // the GEMV's

/// One warp per output channel of row ctaid.y: lanes stride over the row's words, a shfl.down
/// tree sums them, lane 0 stores. The whole warp exits together, so shuffles stay full-warp.
void gemvBody(KernelBuilder &K, const Int8Gemm &G) {
  IRBuilder<> &B = K.ir();
  Value *Tid = K.tid(0), *Row = K.ctaid(1);
  Value *Lane = B.CreateAnd(Tid, K.i32(31));
  Value *N =
      B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(WarpsPerBlock)), B.CreateLShr(Tid, K.i32(5)));
  K.ifThen(B.CreateICmpULT(N, K.dim("n")), [&] {
    Value *XBase = B.CreateMul(K.widen(Row), K.dimIx("c_pad"));
    Value *WBase = B.CreateMul(K.widen(N), K.dimIx("k"));
    Value *Acc = K.zeroSlot(B.getInt32Ty());
    K.forRange(Lane, B.CreateLShr(K.dim("k"), 2), 32, [&](Value *J) {
      Value *Off = K.widen(B.CreateShl(J, 2));
      Value *X = loadWords(K, ParamRole::Input, B.CreateAdd(XBase, Off));
      Value *W = loadWords(K, ParamRole::Weight, B.CreateAdd(WBase, Off));
      B.CreateStore(dp4a(K, X, W, B.CreateLoad(B.getInt32Ty(), Acc)), Acc);
    });
    Value *Sum = B.CreateLoad(B.getInt32Ty(), Acc);
    for (uint32_t Off = 16; Off > 0; Off /= 2)
      Sum = B.CreateAdd(Sum, B.CreateIntrinsic(Intrinsic::nvvm_shfl_sync_down_i32, {},
                                               {K.i32(0xffffffffu), Sum, K.i32(Off), K.i32(0x1f)}));
    K.ifThen(B.CreateICmpEQ(Lane, K.i32(0)), [&] { storeInt8Output(K, G, Sum, Row, N); });
  });
}

} // namespace

uint32_t int8DirectBlock(const Int8Gemm &G) { return warpRoundedBlock(G.M, MaxBlockX); }

KernelLaunch buildInt8Direct(Module *M, const Int8Gemm &G, const std::string &Name, KernelSet Set,
                             LaunchStrategy Strategy) {
  const uint32_t Bx = int8DirectBlock(G);
  KernelLaunch L = makeInt8Launch(
      Name, Strategy, G, Int8Strategy::Direct,
      {ceilDiv(G.M, Bx), ceilDiv(G.N, ChannelsPerThread * QuadsPerCta), 1}, {Bx, QuadsPerCta, 1});
  return int8Kernel(M, G, L, Set, [&](KernelBuilder &K) { directBody(K, G, Bx); });
}

KernelLaunch buildInt8Gemv(Module *M, const Int8Gemm &G, const std::string &Name, KernelSet Set,
                           LaunchStrategy Strategy) {
  assert(!G.Window && "the GEMV reads rows of the input as they are");
  KernelLaunch L =
      makeInt8Launch(Name, Strategy, G, Int8Strategy::Gemv, {ceilDiv(G.N, WarpsPerBlock), G.M, 1},
                     {32 * WarpsPerBlock, 1, 1});
  return int8Kernel(M, G, L, Set, [&](KernelBuilder &K) { gemvBody(K, G); });
}

} // namespace corpus::kernels
