// The reformats of an int8 engine (ReformatSpec, Int8Gemm.h): quantize an f16 NCHW tensor into
// int8 NHWC with padded channels, or dequantize it back. One thread per four channels of one
// pixel, consecutive threads on consecutive pixels (the f16 side's planes are read or written
// coalesced; the int8 side moves one 4-byte word per thread). See docs/lowering.md, "Int8
// engines".
#include "kernels/Int8Gemm.h"
#include "kernels/Specs.h"

#include <array>
#include <cassert>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t Block = 256;

uint64_t words(const ReformatSpec &S) {
  return uint64_t(S.batch) * S.spatial * (int8Channels(S.channels) / 4);
}

ShapeDims reformatDims(const ReformatSpec &S) {
  return {{"c", S.channels},
          {"c_pad", int8Channels(S.channels)},
          {"quads", int8Channels(S.channels) / 4, true},
          {"spatial", S.spatial, true},
          {"count", words(S)}};
}

/// Thread T's pixel (image x spatial + pixel, i32) and quad of channels.
struct Place {
  Value *Image, *Pixel, *Quad;
};

Place placeOf(KernelBuilder &K, Value *T) {
  IRBuilder<> &B = K.ir();
  Value *Rest = K.udiv(T, "spatial");
  Value *Pixel = B.CreateSub(T, B.CreateMul(Rest, K.dim("spatial")));
  Value *Image = K.udiv(Rest, "quads");
  return {Image, Pixel, B.CreateSub(Rest, B.CreateMul(Image, K.dim("quads")))};
}

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
  B.CreateAlignedStore(packBytes(K, Q[0], Q[1], Q[2], Q[3]),
                       K.elementPtr(ParamRole::Output, nhwcWordIndex(K, P)), Align(4));
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
  return std::nullopt;
}

std::string kernelName(const ReformatSpec &S, KernelSet Set) {
  const std::string Kind = S.quantize ? "quantize" : "dequantize";
  if (Set == KernelSet::Library)
    return "lib_" + Kind + "_b" + std::to_string(Block);
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
  KernelLaunch L = makeLaunch(Name, S.quantize ? "copy_quantize" : "copy_dequantize", DType::I8,
                              {ceilDiv(words(S), Block), 1, 1}, {Block, 1, 1}, Roles,
                              [](ParamRole) { return 0; });
  L.params = {{ParamRole::Input, S.quantize ? Elements : Padded, From},
              {ParamRole::Scale, 1, DType::F32},
              {ParamRole::Output, S.quantize ? Padded : Elements, To}};
  const ShapeDims Dims = reformatDims(S);
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, DType::I8, L, false, Dims);
  IRBuilder<> &B = K.ir();
  Value *T = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(Block)), K.tid(0));
  K.ifThen(B.CreateICmpULT(T, K.dim("count")), [&] {
    const Place P = placeOf(K, T);
    if (S.quantize)
      quantizeBody(K, P);
    else
      dequantizeBody(K, P);
  });
  K.finish();
  return L;
}

} // namespace corpus::kernels
