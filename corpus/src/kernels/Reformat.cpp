// The reformats of an int8 engine (ReformatSpec, Int8Gemm.h): quantize an f16 NCHW tensor into
// int8 NHWC with padded channels, or dequantize it back. One thread per four channels of one
// pixel; a CTA is 64 pixels of a plane (x: consecutive threads on consecutive pixels, so the f16
// side's planes are read or written coalesced; the int8 side moves one 4-byte word per thread)
// times four quads of real channels (y), grid (pixels / 64, quads / 4, images). The last real
// quad also writes the padding quads after it. So every CTA that differs is at the end of grid x
// or y, a class of its own for fast mode's sampling, and the others start their f16 accesses at
// the same sector alignment (16 planes of 2-byte elements apart): docs/lowering.md, "Int8
// engines".
#include "kernels/Int8Gemm.h"
#include "kernels/Specs.h"

#include <array>
#include <cassert>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t PixelsPerCta = 64, QuadsPerCta = 4;

ShapeDims reformatDims(const ReformatSpec &S) {
  return {{"c", S.channels}, {"c_pad", int8Channels(S.channels)}, {"spatial", S.spatial}};
}

/// A thread's image, pixel in the plane and quad of channels (i32).
struct Place {
  Value *Image, *Pixel, *Quad;
};

/// Index of channel Ch of the place in the f16 NCHW tensor, and of its word in the int8 one.
Value *nchwIndex(KernelBuilder &K, const Place &P, Value *Ch) {
  IRBuilder<> &B = K.ir();
  Value *Plane = B.CreateAdd(B.CreateMul(K.widen(P.Image), K.dimIx("c")), K.widen(Ch));
  return B.CreateAdd(B.CreateMul(Plane, K.dimIx("spatial")), K.widen(P.Pixel));
}

Value *nhwcWordIndex(KernelBuilder &K, const Place &P) {
  IRBuilder<> &B = K.ir();
  Value *Pixel = B.CreateAdd(B.CreateMul(K.widen(P.Image), K.dimIx("spatial")), K.widen(P.Pixel));
  return B.CreateAdd(B.CreateMul(Pixel, K.dimIx("c_pad")), K.widen(B.CreateShl(P.Quad, 2)));
}

void quantizeBody(KernelBuilder &K, const Place &P) {
  IRBuilder<> &B = K.ir();
  Value *InvScale = K.load(ParamRole::Scale, K.ix(0));
  std::array<Value *, 4> Q;
  for (uint32_t C = 0; C < 4; ++C) { // padding channels quantise 0 (branch-free)
    Value *Ch = B.CreateAdd(B.CreateShl(P.Quad, 2), K.i32(C));
    Value *Real = B.CreateICmpULT(Ch, K.dim("c"));
    Value *X = K.load(ParamRole::Input, B.CreateSelect(Real, nchwIndex(K, P, Ch), K.ix(0)));
    Q[C] = quantize(K, B.CreateSelect(Real, X, K.f32(0)), InvScale);
  }
  Value *Word = nhwcWordIndex(K, P);
  B.CreateAlignedStore(packBytes(K, Q[0], Q[1], Q[2], Q[3]), K.elementPtr(ParamRole::Output, Word),
                       Align(4));
  // The last quad with real channels also zeroes the quads of padding channels after it.
  Value *Last = B.CreateLShr(B.CreateAdd(K.dim("c"), K.i32(3)), K.i32(2));
  K.ifThen(B.CreateICmpEQ(B.CreateAdd(P.Quad, K.i32(1)), Last), [&] {
    Value *Padding = B.CreateSub(B.CreateLShr(K.dim("c_pad"), K.i32(2)), Last);
    K.forRange(K.i32(0), Padding, 1, [&](Value *E) {
      Value *At = B.CreateAdd(Word, K.widen(B.CreateShl(B.CreateAdd(E, K.i32(1)), K.i32(2))));
      B.CreateAlignedStore(K.i32(0), K.elementPtr(ParamRole::Output, At), Align(4));
    });
  });
}

void dequantizeBody(KernelBuilder &K, const Place &P) {
  IRBuilder<> &B = K.ir();
  Value *Scale = K.load(ParamRole::Scale, K.ix(0));
  Value *Word = loadWords(K, ParamRole::Input, nhwcWordIndex(K, P));
  for (uint32_t C = 0; C < 4; ++C) {
    Value *Ch = B.CreateAdd(B.CreateShl(P.Quad, 2), K.i32(C));
    K.ifThen(B.CreateICmpULT(Ch, K.dim("c")), [&] {
      // Byte C, sign-extended: shift it to the top, then arithmetic shift back.
      Value *Byte = B.CreateAShr(B.CreateShl(Word, K.i32(24 - 8 * C)), K.i32(24));
      Value *X = B.CreateFMul(B.CreateSIToFP(Byte, B.getFloatTy()), Scale);
      K.store(ParamRole::Output, nchwIndex(K, P, Ch), X);
    });
  }
}

} // namespace

std::optional<std::string> validate(const ReformatSpec &S) {
  const char *Kind = S.quantize ? "quantize" : "dequantize";
  if (!S.batch || !S.channels || !S.spatial)
    return std::string(Kind) + ": zero-sized dimension";
  if (uint64_t(S.batch) * S.spatial * int8Channels(S.channels) >= (uint64_t(1) << 31))
    return std::string(Kind) +
           ": a tensor of 2^31 elements or more (int8 kernels index with 32 bits)";
  if (S.batch > 65535 || ceilDiv(S.channels, 16) > 65535)
    return std::string(Kind) + ": batch and channel quads must be at most 65535 (grid z and y)";
  return std::nullopt;
}

std::string kernelName(const ReformatSpec &S, KernelSet Set) {
  const std::string Kind = S.quantize ? "quantize" : "dequantize";
  if (Set == KernelSet::Library)
    return "lib_" + Kind + "_b" + std::to_string(PixelsPerCta) + "x" + std::to_string(QuadsPerCta);
  return Kind + "_n" + std::to_string(S.batch) + "_c" + std::to_string(S.channels) + "_s" +
         std::to_string(S.spatial);
}

bool wideIndex(const ReformatSpec &) { return false; }

KernelLaunch buildReformat(Module *M, const ReformatSpec &S, const std::string &Name,
                           KernelSet Set) {
  const DType From = S.quantize ? DType::F16 : DType::I8, To = S.quantize ? DType::I8 : DType::F16;
  const uint64_t Elements = uint64_t(S.batch) * S.spatial * S.channels;
  const uint64_t Padded = uint64_t(S.batch) * S.spatial * int8Channels(S.channels);
  const std::vector<ParamRole> Roles = {ParamRole::Input, ParamRole::Scale, ParamRole::Output};
  KernelLaunch L = makeLaunch(
      Name, S.quantize ? LaunchStrategy::CopyQuantize : LaunchStrategy::CopyDequantize, DType::I8,
      {ceilDiv(S.spatial, PixelsPerCta), ceilDiv(ceilDiv(S.channels, 4), QuadsPerCta), S.batch},
      {PixelsPerCta, QuadsPerCta, 1}, Roles, [](ParamRole) { return 0; });
  L.params = {{ParamRole::Input, S.quantize ? Elements : Padded, From},
              {ParamRole::Scale, 1, DType::F32},
              {ParamRole::Output, S.quantize ? Padded : Elements, To}};
  const ShapeDims Dims = reformatDims(S);
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, DType::I8, L, false, Dims);
  IRBuilder<> &B = K.ir();
  const Place P = {K.ctaid(2), B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(PixelsPerCta)), K.tid(0)),
                   B.CreateAdd(B.CreateMul(K.ctaid(1), K.i32(QuadsPerCta)), K.tid(1))};
  Value *RealQuads = B.CreateLShr(B.CreateAdd(K.dim("c"), K.i32(3)), K.i32(2));
  K.ifThen(
      B.CreateAnd(B.CreateICmpULT(P.Pixel, K.dim("spatial")), B.CreateICmpULT(P.Quad, RealQuads)),
      [&] {
        if (S.quantize)
          quantizeBody(K, P);
        else
          dequantizeBody(K, P);
      });
  K.finish();
  return L;
}

} // namespace corpus::kernels
