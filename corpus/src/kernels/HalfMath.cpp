// f16 and f16x2 arithmetic for the kernels of f16 networks under a tensor math mode (HalfMath.h).
#include "kernels/HalfMath.h"

#include <llvm/IR/Constants.h>

#include <cassert>

using namespace llvm;

namespace corpus::kernels {

HalfOps::HalfOps(KernelBuilder &Kb, unsigned Width) : K(Kb), W(Width) {
  assert((W == 1 || W == 2) && "f16 values come one or two at a time");
  assert(K.storageType()->isHalfTy() && "half arithmetic on f16 data only");
  Type *Half = K.ir().getHalfTy();
  Ty = W == 1 ? Half : static_cast<Type *>(FixedVectorType::get(Half, 2));
}

Value *HalfOps::load(ParamRole R, Value *Index) {
  return K.ir().CreateAlignedLoad(Ty, K.elementPtr(R, Index), Align(2 * W));
}

Value *HalfOps::broadcast(ParamRole R, Value *Index) {
  IRBuilder<> &B = K.ir();
  Value *V = B.CreateAlignedLoad(B.getHalfTy(), K.elementPtr(R, Index), Align(2));
  return W == 1 ? V : B.CreateVectorSplat(W, V);
}

void HalfOps::store(ParamRole R, Value *Index, Value *V) {
  K.ir().CreateAlignedStore(V, K.elementPtr(R, Index), Align(2 * W));
}

Value *HalfOps::constant(float C) { return ConstantFP::get(Ty, C); }

Value *HalfOps::fromF32(const std::vector<Value *> &F32) {
  assert(F32.size() == W && "one f32 value per element");
  IRBuilder<> &B = K.ir();
  if (W == 1)
    return B.CreateFPTrunc(F32[0], Ty);
  Value *V = PoisonValue::get(FixedVectorType::get(B.getFloatTy(), 2));
  for (unsigned I = 0; I < W; ++I)
    V = B.CreateInsertElement(V, F32[I], B.getInt32(I));
  return B.CreateFPTrunc(V, Ty);
}

Value *HalfOps::add(Value *A, Value *Bv) { return K.ir().CreateFAdd(A, Bv); }

Value *HalfOps::mul(Value *A, Value *Bv) { return K.ir().CreateFMul(A, Bv); }

Value *HalfOps::fma(Value *A, Value *Bv, Value *C) {
  return K.ir().CreateIntrinsic(Intrinsic::fma, {Ty}, {A, Bv, C});
}

Value *HalfOps::activation(ActivationKind A, Value *X) {
  assert(halfActivation(A) && "activation without an f16 form");
  IRBuilder<> &B = K.ir();
  if (A == ActivationKind::None)
    return X;
  Value *Y = B.CreateBinaryIntrinsic(Intrinsic::maxnum, X, constant(0.0f));
  return A == ActivationKind::Relu6 ? B.CreateBinaryIntrinsic(Intrinsic::minnum, Y, constant(6.0f))
                                    : Y;
}

Value *HalfOps::epilogue(const Epilogue &E, Value *V, Value *Channel, bool PerElementChannel,
                         Value *SeIndex, Value *OutIndex) {
  auto PerChannel = [&](ParamRole R) {
    return PerElementChannel ? load(R, Channel) : broadcast(R, Channel);
  };
  if (E.bias)
    V = add(V, PerChannel(ParamRole::Bias));
  if (E.batchNorm)
    V = fma(V, PerChannel(ParamRole::BnScale), PerChannel(ParamRole::BnShift));
  if (E.residual == ResidualKind::BeforeActivation)
    V = add(V, load(ParamRole::Residual, OutIndex));
  V = activation(E.activation, V);
  if (E.seScale) { // the SE index is n * C + c: per element exactly when the channel is
    assert(!PerElementChannel && "a dense layer has no squeeze-excitation scale");
    V = mul(V, broadcast(ParamRole::SeScale, SeIndex));
  }
  if (E.residual == ResidualKind::AfterActivation)
    V = add(V, load(ParamRole::Residual, OutIndex));
  return V;
}

} // namespace corpus::kernels
