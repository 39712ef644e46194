// Padding kernels: constant, reflect and edge padding of H and W, one thread per output element
// (PyTorch's reflection_pad2d / replication_pad2d kernels).
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t MaxBlock = 256;

uint64_t padOutHeight(const PadSpec &S) { return uint64_t(S.inHeight) + S.top + S.bottom; }
uint64_t padOutWidth(const PadSpec &S) { return uint64_t(S.inWidth) + S.left + S.right; }

uint32_t padBlock(const PadSpec &S) {
  return warpRoundedBlock(padOutHeight(S) * padOutWidth(S), MaxBlock);
}

/// The input coordinate output coordinate O reads along an axis of `Extent` elements with
/// `Before` padding (i32, may be outside the input for Constant): O - Before, mirrored about
/// the edges without repeating them (Reflect: PyTorch's -i and 2 (n - 1) - i) or clamped (Edge).
Value *sourceCoord(KernelBuilder &K, PadKind Kind, Value *O, std::string_view Before,
                   std::string_view Extent) {
  IRBuilder<> &B = K.ir();
  Value *I = B.CreateSub(O, K.dim(Before));
  if (Kind == PadKind::Constant)
    return I;
  Value *Last = B.CreateSub(K.dim(Extent), K.i32(1));
  Value *Negative = B.CreateICmpSLT(I, K.i32(0));
  if (Kind == PadKind::Edge) {
    Value *Low = B.CreateSelect(Negative, K.i32(0), I);
    return B.CreateSelect(B.CreateICmpSGT(Low, Last), Last, Low);
  }
  Value *Up = B.CreateSelect(Negative, B.CreateNeg(I), I);
  return B.CreateSelect(B.CreateICmpSGT(Up, Last), B.CreateSub(B.CreateShl(Last, 1), Up), Up);
}

} // namespace

std::string libraryName(const PadSpec &S) {
  return libraryKernelName(padKindName(S) + "_b" + std::to_string(padBlock(S)), S.dtype, {},
                           wideIndex(S));
}

KernelLaunch buildPad(Module *M, const PadSpec &S, const std::string &Name, KernelSet Set) {
  const uint64_t Wo = padOutWidth(S), Pixels = padOutHeight(S) * Wo;
  const PlaneKernel P{LaunchStrategy::Pad,
                      S.dtype,
                      S.batch,
                      S.channels,
                      uint64_t(S.inHeight) * S.inWidth,
                      Pixels,
                      padBlock(S),
                      wideIndex(S)};
  const ShapeDims Dims = {{"c", S.channels},  {"h", S.inHeight}, {"w", S.inWidth},
                          {"pixels", Pixels}, {"wo", Wo, true},  {"top", S.top},
                          {"left", S.left}};
  return buildPlaneKernel(
      M, Name, P, Dims, Set, [&](KernelBuilder &K, Value *Pix, Value *PlaneIdx) {
        IRBuilder<> &B = K.ir();
        Value *Ih = sourceCoord(K, S.kind, K.udiv(Pix, "wo"), "top", "h");
        Value *Iw = sourceCoord(K, S.kind, K.urem(Pix, "wo"), "left", "w");
        Value *Plane = B.CreateMul(PlaneIdx, B.CreateMul(K.dimIx("h"), K.dimIx("w")));
        Value *Y = K.accumulator(S.value);
        // Unsigned compares: a negative coordinate is outside too (Constant's only case).
        Value *Inside =
            B.CreateAnd(B.CreateICmpULT(Ih, K.dim("h")), B.CreateICmpULT(Iw, K.dim("w")));
        auto Read = [&] {
          Value *At = B.CreateAdd(B.CreateMul(Ih, K.dim("w")), Iw);
          K.set(Y, K.load(ParamRole::Input, B.CreateAdd(Plane, K.widen(At))));
        };
        if (S.kind == PadKind::Constant)
          K.ifThen(Inside, Read);
        else
          Read();
        K.store(ParamRole::Output,
                B.CreateAdd(B.CreateMul(PlaneIdx, K.dimIx("pixels")), K.widen(Pix)), K.get(Y));
      });
}

} // namespace corpus::kernels
