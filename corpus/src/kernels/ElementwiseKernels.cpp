// Standalone elementwise kernels (add, mul, div, pow, their scalar forms, channel scale,
// activation, batch norm) and the channel concatenation copy.
#include "kernels/HalfMath.h"
#include "kernels/KernelBuilder.h"
#include "kernels/Specs.h"
#include "kernels/Strategies.h"

#include <algorithm>
#include <cassert>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr uint32_t MaxBlock = 256;

LaunchStrategy opStrategy(ElementwiseOp Op) {
  switch (Op) {
  case ElementwiseOp::Add:
    return LaunchStrategy::EltwiseAdd;
  case ElementwiseOp::Mul:
    return LaunchStrategy::EltwiseMul;
  case ElementwiseOp::ScaleChannels:
    return LaunchStrategy::EltwiseScaleChannels;
  case ElementwiseOp::Activation:
    return LaunchStrategy::EltwiseActivation;
  case ElementwiseOp::BatchNorm:
    return LaunchStrategy::EltwiseBatchNorm;
  case ElementwiseOp::Div:
    return LaunchStrategy::EltwiseDiv;
  case ElementwiseOp::Pow:
    return LaunchStrategy::EltwisePow;
  case ElementwiseOp::AddScalar:
    return LaunchStrategy::EltwiseAddScalar;
  case ElementwiseOp::MulScalar:
    return LaunchStrategy::EltwiseMulScalar;
  case ElementwiseOp::DivScalar:
    return LaunchStrategy::EltwiseDivScalar;
  case ElementwiseOp::PowScalar:
    return LaunchStrategy::EltwisePowScalar;
  }
  assert(false && "unknown elementwise op");
  return LaunchStrategy::EltwiseAdd;
}

/// The op's value for element I (index type) whose first operand is A, before the activation.
/// The second operand of add, mul, div and pow is `Second` when given (loaded already), else
/// element I of Input2.
Value *elementwiseValue(KernelBuilder &K, const ElementwiseSpec &S, Value *A, Value *I,
                        Value *Second = nullptr) {
  IRBuilder<> &B = K.ir();
  auto Other = [&] {
    if (Second)
      return Second;
    if (!S.broadcast)
      return K.load(ParamRole::Input2, I);
    // Element (n, c, s) of [batch, channels, spatial] reads (n, s) of [batch, spatial].
    Value *N = K.udiv(I, "planes");
    return K.load(ParamRole::Input2,
                  B.CreateAdd(B.CreateMul(N, K.dimIx("spatial")), K.urem(I, "spatial")));
  };
  switch (S.op) {
  case ElementwiseOp::Add:
    return B.CreateFAdd(A, Other());
  case ElementwiseOp::Mul:
    return B.CreateFMul(A, Other());
  case ElementwiseOp::ScaleChannels:
    return B.CreateFMul(A, K.load(ParamRole::Input2, K.udiv(I, "spatial")));
  case ElementwiseOp::Activation:
    return A;
  case ElementwiseOp::BatchNorm: {
    Value *C = K.urem(K.udiv(I, "spatial"), "channels");
    return K.fma(A, K.load(ParamRole::BnScale, C), K.load(ParamRole::BnShift, C));
  }
  case ElementwiseOp::Div:
    return B.CreateFDiv(A, Other());
  case ElementwiseOp::Pow:
    return K.pow(A, Other());
  case ElementwiseOp::AddScalar:
    return B.CreateFAdd(A, K.f32(S.scalar));
  case ElementwiseOp::MulScalar:
    return B.CreateFMul(A, K.f32(S.scalar));
  case ElementwiseOp::DivScalar: // PyTorch multiplies by the reciprocal of a CPU scalar
    return B.CreateFMul(A, K.f32(1.0f / S.scalar));
  case ElementwiseOp::PowScalar:
    return K.powConst(A, S.scalar);
  }
  assert(false && "unknown elementwise op");
  return A;
}

/// halfElementwise's ops in f16 arithmetic on H.width() elements starting at I (index type).
Value *halfElementwiseValue(KernelBuilder &K, HalfOps &H, const ElementwiseSpec &S, Value *A,
                            Value *I) {
  switch (S.op) {
  case ElementwiseOp::Add:
    return H.add(A, H.load(ParamRole::Input2, I));
  case ElementwiseOp::Mul:
    return H.mul(A, H.load(ParamRole::Input2, I));
  case ElementwiseOp::ScaleChannels: // an even spatial size: both elements in one channel
    return H.mul(A, H.broadcast(ParamRole::Input2, K.udiv(I, "spatial")));
  case ElementwiseOp::BatchNorm: {
    Value *C = K.urem(K.udiv(I, "spatial"), "channels");
    return H.fma(A, H.broadcast(ParamRole::BnScale, C), H.broadcast(ParamRole::BnShift, C));
  }
  case ElementwiseOp::AddScalar:
    return H.add(A, H.constant(S.scalar));
  case ElementwiseOp::MulScalar:
    return H.mul(A, H.constant(S.scalar));
  default:
    assert(S.op == ElementwiseOp::Activation && "op without an f16 form");
    return A;
  }
}

/// The f16x2 kernel (halfElementwise): thread g computes elements 2g and 2g + 1 with f16x2
/// instructions (32-bit loads and stores); with an odd count the thread after the last pair
/// computes the last element alone, in f16.
void buildHalfElementwiseBody(KernelBuilder &K, const ElementwiseSpec &S, uint64_t Count,
                              uint32_t Bx) {
  IRBuilder<> &B = K.ir();
  Value *G = B.CreateAdd(B.CreateMul(K.widen(K.ctaid(0)), K.ix(Bx)), K.widen(K.tid(0)), "g");
  Value *I = B.CreateShl(G, 1);
  auto Compute = [&](unsigned Width) {
    HalfOps H(K, Width);
    Value *Y = halfElementwiseValue(K, H, S, H.load(ParamRole::Input, I), I);
    H.store(ParamRole::Output, I, H.activation(S.activation, Y));
  };
  K.ifThen(B.CreateICmpULT(G, K.dimIx("pairs")), [&] { Compute(2); });
  if (Count % 2)
    K.ifThen(B.CreateICmpEQ(G, K.dimIx("pairs")), [&] { Compute(1); });
}

/// PyTorch's contiguous cat launch (getCatGridContig): 128 threads a block, grid x capped at
/// 32 blocks per SM of an H100 (132 SMs), the GPU whose PyTorch timings we learn from.
constexpr uint32_t CatBlock = 128;
constexpr uint32_t CatMaxBlocksX = 132 * 32;

/// How a concat launch moves data. PyTorch copies 16-byte vectors (CatArrayBatchedCopy_vectorized)
/// when every input's per-image slice and the output's are multiples of 16 bytes, else single
/// elements (CatArrayBatchedCopy_contig); all counts below are in units of that size.
struct ConcatLayout {
  uint32_t unitBytes = 4;
  uint32_t perUnit = 1;  ///< elements per unit
  uint64_t outSlice = 0; ///< units of one output image
  uint64_t maxUnits = 0; ///< units of the largest input
};

ConcatLayout concatLayout(const ConcatSpec &S) {
  const uint32_t Elem = dtypeBytes(S.dtype);
  bool Vector = uint64_t(S.totalChannels) * S.spatial * Elem % 16 == 0 &&
                uint64_t(S.channelOffset) * S.spatial * Elem % 16 == 0;
  for (uint32_t C : S.channels)
    Vector &= uint64_t(C) * S.spatial * Elem % 16 == 0;
  ConcatLayout Lay;
  Lay.unitBytes = Vector ? 16 : Elem;
  Lay.perUnit = Lay.unitBytes / Elem;
  Lay.outSlice = uint64_t(S.totalChannels) * S.spatial / Lay.perUnit;
  for (uint32_t C : S.channels)
    Lay.maxUnits =
        std::max<uint64_t>(Lay.maxUnits, uint64_t(S.batch) * C * S.spatial / Lay.perUnit);
  return Lay;
}

/// What grid y selects: the input's pointer, its size, per-image slice and output base (units,
/// of the index type).
struct CatInput {
  Value *ptr, *units, *slice, *outBase;
};

/// The shapes a concatenation computes with: grid x, the output's units per image, and per input
/// its units, units per image and first output unit.
ShapeDims concatDims(const ConcatSpec &S, const ConcatLayout &Lay, uint32_t Gx) {
  ShapeDims D = {{"gx", Gx}, {"out_slice", Lay.outSlice}};
  for (size_t I = 0, Offset = S.channelOffset; I < S.channels.size(); Offset += S.channels[I++]) {
    const uint64_t Slice = uint64_t(S.channels[I]) * S.spatial / Lay.perUnit;
    const std::string In = std::to_string(I);
    D.push_back({"units" + In, S.batch * Slice});
    D.push_back({"slice" + In, Slice});
    D.push_back({"base" + In, uint64_t(Offset) * S.spatial / Lay.perUnit});
  }
  return D;
}

/// A switch on %ctaid.y (PyTorch reads the same from a by-value metadata parameter): one case
/// block per input, merged by phis.
CatInput selectCatInput(KernelBuilder &K, const ConcatSpec &S) {
  IRBuilder<> &B = K.ir();
  Function &F = K.function();
  const unsigned N = static_cast<unsigned>(S.channels.size());
  auto Values = [&](unsigned I) {
    const std::string In = std::to_string(I);
    return CatInput{F.getArg(I), K.dimIx("units" + In), K.dimIx("slice" + In),
                    K.dimIx("base" + In)};
  };
  if (N == 1)
    return Values(0);
  LLVMContext &Ctx = F.getContext();
  BasicBlock *Merge = BasicBlock::Create(Ctx, "input_selected", &F);
  std::vector<BasicBlock *> Cases;
  for (unsigned I = 0; I < N; ++I)
    Cases.push_back(BasicBlock::Create(Ctx, "input" + std::to_string(I), &F, Merge));
  SwitchInst *Sw = B.CreateSwitch(K.ctaid(1), Cases.back(), N - 1); // default: the last input
  for (unsigned I = 0; I + 1 < N; ++I)
    Sw->addCase(B.getInt32(I), Cases[I]);
  B.SetInsertPoint(Merge);
  PHINode *Ptr = B.CreatePHI(B.getPtrTy(), N, "in_ptr");
  PHINode *Units = B.CreatePHI(K.indexType(), N, "in_units");
  PHINode *Slice = B.CreatePHI(K.indexType(), N, "in_slice");
  PHINode *Base = B.CreatePHI(K.indexType(), N, "out_base");
  for (unsigned I = 0; I < N; ++I) {
    CatInput V = Values(I);
    BranchInst::Create(Merge, Cases[I]);
    Ptr->addIncoming(V.ptr, Cases[I]);
    Units->addIncoming(V.units, Cases[I]);
    Slice->addIncoming(V.slice, Cases[I]);
    Base->addIncoming(V.outBase, Cases[I]);
  }
  return {Ptr, Units, Slice, Base};
}

} // namespace

namespace {

/// Whether a library kernel moves four f32 elements per thread with 128-bit loads and stores, as
/// PyTorch's vectorized elementwise kernels do when every tensor is 16-byte aligned: f32 data
/// and an element count divisible by 4 (buffers start 256-byte aligned).
bool vectorElementwise(const ElementwiseSpec &S, KernelSet Set) {
  return Set == KernelSet::Library && S.dtype == DType::F32 && elementwiseCount(S) % 4 == 0;
}

/// Threads of an elementwise launch (f16x2: a pair each, the odd last element alone; vector
/// kernels: four elements each).
uint64_t elementwiseThreads(const ElementwiseSpec &S, KernelSet Set) {
  const uint64_t Count = elementwiseCount(S);
  if (vectorElementwise(S, Set))
    return Count / 4;
  return halfElementwise(S) ? (Count + 1) / 2 : Count;
}

/// The shapes an elementwise kernel computes with: its element (pair, vector) count, and the
/// channel split for the ops that read per-channel operands.
ShapeDims elementwiseDims(const ElementwiseSpec &S, KernelSet Set) {
  const uint64_t Count = elementwiseCount(S);
  ShapeDims D = {vectorElementwise(S, Set) ? ShapeDim{"vecs", Count / 4}
                 : halfElementwise(S)      ? ShapeDim{"pairs", Count / 2}
                                           : ShapeDim{"count", Count}};
  if (S.op == ElementwiseOp::ScaleChannels || S.op == ElementwiseOp::BatchNorm || S.broadcast)
    D.push_back({"spatial", S.spatial, true});
  if (S.broadcast)
    D.push_back({"planes", uint64_t(S.channels) * S.spatial, true});
  if (S.op == ElementwiseOp::BatchNorm)
    D.push_back({"channels", S.channels, true});
  return D;
}

/// The vector kernel (vectorElementwise): thread g computes elements 4g ... 4g + 3 from 128-bit
/// loads of each operand that has an element per output, and stores them with one 128-bit store.
void buildVectorElementwiseBody(KernelBuilder &K, const ElementwiseSpec &S, uint32_t Bx) {
  IRBuilder<> &B = K.ir();
  Type *V4 = FixedVectorType::get(B.getFloatTy(), 4);
  Value *G = B.CreateAdd(B.CreateMul(K.widen(K.ctaid(0)), K.ix(Bx)), K.widen(K.tid(0)), "g");
  K.ifThen(B.CreateICmpULT(G, K.dimIx("vecs")), [&] {
    Value *I0 = B.CreateShl(G, 2);
    auto Load = [&](ParamRole R) {
      return B.CreateAlignedLoad(V4, K.elementPtr(R, I0), Align(16));
    };
    const bool Pairwise =
        !S.broadcast && (S.op == ElementwiseOp::Add || S.op == ElementwiseOp::Mul ||
                         S.op == ElementwiseOp::Div || S.op == ElementwiseOp::Pow);
    Value *A = Load(ParamRole::Input), *Bv = Pairwise ? Load(ParamRole::Input2) : nullptr;
    Value *Out = PoisonValue::get(V4);
    for (uint32_t J = 0; J < 4; ++J) { // one IR statement at a time: a fixed instruction order
      Value *X = B.CreateExtractElement(A, J);
      Value *Z = Bv ? B.CreateExtractElement(Bv, J) : nullptr;
      Value *Y = elementwiseValue(K, S, X, B.CreateAdd(I0, K.ix(J)), Z);
      Out = B.CreateInsertElement(Out, K.activation(S.activation, Y, S.scalar), J);
    }
    B.CreateAlignedStore(Out, K.elementPtr(ParamRole::Output, I0), Align(16));
  });
}

} // namespace

std::string libraryName(const ElementwiseSpec &S) {
  std::string N = strategyName(opStrategy(S.op));
  if (isScalarOp(S.op))
    N += "_s" + scalarName(S.scalar);
  if (S.broadcast)
    N += "_bc";
  if (activationTakesAlpha(S.activation)) // a kernel constant
    N += "_a" + scalarName(S.scalar);
  N += "_b" + std::to_string(warpRoundedBlock(elementwiseThreads(S, KernelSet::Library), MaxBlock));
  if (vectorElementwise(S, KernelSet::Library))
    N += "_v4";
  else if (halfElementwise(S))
    N += elementwiseCount(S) % 2 ? "_x2_odd" : "_x2";
  Epilogue E;
  E.activation = S.activation;
  return libraryKernelName(N, S.dtype, E, wideIndex(S));
}

KernelLaunch buildElementwise(Module *M, const ElementwiseSpec &S, const std::string &Name,
                              KernelSet Set) {
  const uint64_t Count = elementwiseCount(S);
  const bool Half = halfElementwise(S);
  const uint64_t Threads = elementwiseThreads(S, Set);
  const uint32_t Bx = warpRoundedBlock(Threads, MaxBlock);
  std::vector<ParamRole> Roles = {ParamRole::Input};
  if (S.op == ElementwiseOp::BatchNorm) {
    Roles.push_back(ParamRole::BnScale);
    Roles.push_back(ParamRole::BnShift);
  } else if (S.op != ElementwiseOp::Activation && !isScalarOp(S.op)) {
    Roles.push_back(ParamRole::Input2);
  }
  Roles.push_back(ParamRole::Output);
  KernelLaunch L = makeLaunch(Name, opStrategy(S.op), S.dtype, {ceilDiv(Threads, Bx), 1, 1},
                              {Bx, 1, 1}, Roles, [&](ParamRole R) {
                                if (R == ParamRole::Input2 && S.op == ElementwiseOp::ScaleChannels)
                                  return uint64_t(S.batch) * S.channels;
                                if (R == ParamRole::Input2 && S.broadcast)
                                  return uint64_t(S.batch) * S.spatial;
                                if (R == ParamRole::BnScale || R == ParamRole::BnShift)
                                  return uint64_t(S.channels);
                                return Count;
                              });
  const ShapeDims Dims = elementwiseDims(S, Set);
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, S.dtype, L, wideIndex(S), Dims);
  if (vectorElementwise(S, Set)) {
    buildVectorElementwiseBody(K, S, Bx);
    K.finish();
    return L;
  }
  if (Half) {
    buildHalfElementwiseBody(K, S, Count, Bx);
    K.finish();
    return L;
  }
  IRBuilder<> &B = K.ir();
  Value *I = B.CreateAdd(B.CreateMul(K.widen(K.ctaid(0)), K.ix(Bx)), K.widen(K.tid(0)), "i");
  K.ifThen(B.CreateICmpULT(I, K.dimIx("count")), [&] {
    Value *Y = elementwiseValue(K, S, K.load(ParamRole::Input, I), I);
    K.store(ParamRole::Output, I, K.activation(S.activation, Y, S.scalar));
  });
  K.finish();
  return L;
}

std::string libraryName(const ConcatSpec &S) {
  const ConcatLayout Lay = concatLayout(S);
  return libraryKernelName("concat_in" + std::to_string(S.channels.size()) + "_u" +
                               std::to_string(Lay.unitBytes) + (S.batch > 1 ? "_batched" : ""),
                           S.dtype, {}, wideIndex(S));
}

KernelLaunch buildConcat(Module *M, const ConcatSpec &S, const std::string &Name, KernelSet Set) {
  const ConcatLayout Lay = concatLayout(S);
  const size_t Inputs = S.channels.size();
  std::vector<ParamRole> Roles(Inputs, ParamRole::Input);
  Roles.push_back(ParamRole::Output);
  const uint32_t Gx = std::min(ceilDiv(Lay.maxUnits, CatBlock), CatMaxBlocksX);
  KernelLaunch L = makeLaunch(Name, LaunchStrategy::Concat, S.dtype,
                              {Gx, static_cast<uint32_t>(Inputs), 1}, {CatBlock, 1, 1}, {}, {});
  for (uint32_t C : S.channels)
    L.params.push_back({ParamRole::Input, uint64_t(S.batch) * C * S.spatial, S.dtype});
  L.params.push_back({ParamRole::Output, uint64_t(S.batch) * S.totalChannels * S.spatial, S.dtype});
  const ShapeDims Dims = concatDims(S, Lay, Gx);
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, S.dtype, L, wideIndex(S), Dims);
  IRBuilder<> &B = K.ir();
  Type *Unit = Lay.unitBytes == 16  ? static_cast<Type *>(FixedVectorType::get(B.getInt32Ty(), 4))
               : Lay.unitBytes == 4 ? B.getFloatTy()
                                    : B.getHalfTy();
  const Align A(Lay.unitBytes);
  CatInput In = selectCatInput(K, S);
  Value *Out = K.param(ParamRole::Output);
  // Every block of row y copies an equal share of input y, [x U / Gx, (x + 1) U / Gx), in
  // strides of the block. (PyTorch's blocks stride the grid over each input, so the blocks past
  // a small input sit idle; with equal shares every CTA of a row does the same work, give or
  // take one unit, which keeps fast mode's boundary-class sampling faithful: with idle and busy
  // CTAs mixed in one class, agreeing samples could all be idle ones.)
  Value *X64 = B.CreateZExt(K.ctaid(0), B.getInt64Ty());
  Value *U64 = B.CreateZExt(In.units, B.getInt64Ty());
  auto Share = [&](Value *Xv) { // the index type (no truncation when it is i64)
    Value *Blocks = K.library() ? B.CreateZExt(K.dim("gx"), B.getInt64Ty()) : B.getInt64(Gx);
    return B.CreateTrunc(B.CreateUDiv(B.CreateMul(Xv, U64), Blocks), K.indexType());
  };
  Value *Begin = B.CreateAdd(Share(X64), K.widen(K.tid(0)), "i");
  Value *End = Share(B.CreateAdd(X64, B.getInt64(1)));
  K.forRange(Begin, End, CatBlock, [&](Value *I) {
    // out = n * outSlice + outBase + (i mod slice), n = i / slice
    Value *O = B.CreateAdd(I, In.outBase);
    if (S.batch > 1) {
      Value *N = B.CreateUDiv(I, In.slice);
      O = B.CreateAdd(O, B.CreateMul(N, B.CreateSub(K.dimIx("out_slice"), In.slice)));
    }
    Value *V = B.CreateAlignedLoad(Unit, B.CreateInBoundsGEP(Unit, In.ptr, I), A);
    B.CreateAlignedStore(V, B.CreateInBoundsGEP(Unit, Out, O), A);
  });
  K.finish();
  return L;
}

} // namespace corpus::kernels
