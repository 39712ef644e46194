// KernelBuilder: IRBuilder helpers shared by all kernel strategies.
#include "kernels/KernelBuilder.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Metadata.h>

#include <algorithm>
#include <cassert>

using namespace llvm;

namespace corpus::kernels {

namespace {

constexpr unsigned SharedAddrSpace = 3;
constexpr uint32_t FullWarpMask = 0xffffffffu;

void annotate(Module &M, Function *F, const char *Key, uint32_t V) {
  LLVMContext &Ctx = M.getContext();
  Metadata *Ops[] = {ValueAsMetadata::get(F), MDString::get(Ctx, Key),
                     ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(Ctx), V))};
  M.getOrInsertNamedMetadata("nvvm.annotations")->addOperand(MDNode::get(Ctx, Ops));
}

} // namespace

KernelBuilder::KernelBuilder(Module &Mod, const std::string &Name,
                             const std::vector<ParamRole> &ParamRoles, DType T,
                             const KernelLaunch &L, bool WideIndex, const ShapeDims &ShapeDims)
    : M(Mod), Ctx(Mod.getContext()), B(Mod.getContext()), Roles(ParamRoles), Dims(ShapeDims),
      Wide(WideIndex) {
  assert(
      (Wide || std::all_of(L.params.begin(), L.params.end(),
                           [](const KernelParam &P) { return P.elements < WideIndexElements; })) &&
      "a tensor of 2^31 elements or more needs 64-bit index arithmetic");
  const std::array<uint32_t, 3> &Block = L.block;
  IndexTy = Wide ? B.getInt64Ty() : B.getInt32Ty();
  Storage = typeOf(T);
  // A parameter's elements have its own type where the launch lists it (int8 kernels mix types).
  for (size_t I = 0; I < Roles.size(); ++I)
    ElemTys.push_back(
        I < L.params.size() && L.params[I].role == Roles[I] ? typeOf(L.params[I].dtype) : Storage);
  std::vector<Type *> ParamTys(Roles.size(), PointerType::get(Ctx, 0));
  ParamTys.resize(Roles.size() + L.shapeArgs.size(), B.getInt32Ty());
  auto *FT = FunctionType::get(B.getVoidTy(), ParamTys, false);
  F = Function::Create(FT, GlobalValue::ExternalLinkage, Name, M);
  F->setCallingConv(CallingConv::PTX_Kernel);
  F->addFnAttr(Attribute::NoUnwind);
  for (unsigned I = 0; I < Roles.size(); ++I) {
    Argument *A = F->getArg(I);
    A->setName(paramRoleName(Roles[I]));
    A->addAttr(Attribute::NoAlias);
    A->addAttr(Attribute::NoCapture);
    A->addAttr(Roles[I] == ParamRole::Output ? Attribute::WriteOnly : Attribute::ReadOnly);
  }
  for (size_t I = 0; I < L.shapeArgs.size(); ++I) {
    Argument *A = F->getArg(unsigned(Roles.size() + I));
    A->setName(L.shapeArgs[I].name);
    ShapeParams.emplace_back(L.shapeArgs[I].name, A);
  }
  annotate(M, F, "kernel", 1);
  annotate(M, F, "reqntidx", Block[0]);
  annotate(M, F, "reqntidy", Block[1]);
  annotate(M, F, "reqntidz", Block[2]);
  B.SetInsertPoint(BasicBlock::Create(Ctx, "entry", F));
}

Value *KernelBuilder::param(ParamRole R) const {
  auto It = std::find(Roles.begin(), Roles.end(), R);
  assert(It != Roles.end() && "kernel has no parameter with this role");
  return F->getArg(static_cast<unsigned>(It - Roles.begin()));
}

bool KernelBuilder::hasParam(ParamRole R) const {
  return std::find(Roles.begin(), Roles.end(), R) != Roles.end();
}

const ShapeDim &KernelBuilder::shape(std::string_view Name) const {
  auto It =
      std::find_if(Dims.begin(), Dims.end(), [&](const ShapeDim &D) { return D.name == Name; });
  assert(It != Dims.end() && "the kernel declares no shape of this name");
  return *It;
}

Value *KernelBuilder::shapeParam(const std::string &Name) const {
  for (const auto &[N, A] : ShapeParams)
    if (N == Name)
      return A;
  assert(false && "the library kernel has no shape parameter of this name");
  return nullptr;
}

Value *KernelBuilder::dim(std::string_view Name) {
  const ShapeDim &D = shape(Name);
  assert((library() || D.value <= UINT32_MAX) && "an i32 shape past 32 bits");
  return library() ? shapeParam(D.name) : B.getInt32(static_cast<uint32_t>(D.value));
}

Value *KernelBuilder::dimIx(std::string_view Name) {
  const ShapeDim &D = shape(Name);
  return library() ? widen(shapeParam(D.name)) : ix(D.value);
}

Value *KernelBuilder::dimF32(std::string_view Name) {
  const ShapeDim &D = shape(Name);
  return library() ? B.CreateUIToFP(shapeParam(D.name), B.getFloatTy()) : f32(float(D.value));
}

Value *KernelBuilder::udiv(Value *X, std::string_view Name) {
  const ShapeDim &D = shape(Name);
  assert(D.divisor && "division by a shape that is not declared a divisor");
  if (!library())
    return B.CreateUDiv(X, ConstantInt::get(X->getType(), D.value));
  if (!X->getType()->isIntegerTy(32))
    return B.CreateUDiv(X, B.CreateZExt(shapeParam(D.name), X->getType()));
  Value *Hi = B.CreateIntrinsic(Intrinsic::nvvm_mulhi_ui, {}, {X, shapeParam(D.name + "_mul")});
  return B.CreateLShr(B.CreateAdd(Hi, X), shapeParam(D.name + "_shr"));
}

Value *KernelBuilder::urem(Value *X, std::string_view Name) {
  const ShapeDim &D = shape(Name);
  if (!library())
    return B.CreateURem(X, ConstantInt::get(X->getType(), D.value));
  Value *Div = shapeParam(D.name);
  if (!X->getType()->isIntegerTy(32))
    Div = B.CreateZExt(Div, X->getType());
  return B.CreateSub(X, B.CreateMul(udiv(X, Name), Div));
}

Value *KernelBuilder::f32(float V) { return ConstantFP::get(B.getFloatTy(), V); }

Value *KernelBuilder::ix(uint64_t V) {
  assert((Wide || V <= UINT32_MAX) && "index constant does not fit a narrow kernel");
  return ConstantInt::get(IndexTy, V);
}

Value *KernelBuilder::widen(Value *V) {
  assert(V->getType()->isIntegerTy(32) && "widen takes an i32 coordinate");
  return Wide ? B.CreateZExt(V, IndexTy) : V;
}

Value *KernelBuilder::widenSigned(Value *V) {
  assert(V->getType()->isIntegerTy(32) && "widenSigned takes an i32 offset");
  return Wide ? B.CreateSExt(V, IndexTy) : V;
}

Value *KernelBuilder::tid(unsigned Dim) {
  static constexpr Intrinsic::ID Ids[] = {Intrinsic::nvvm_read_ptx_sreg_tid_x,
                                          Intrinsic::nvvm_read_ptx_sreg_tid_y,
                                          Intrinsic::nvvm_read_ptx_sreg_tid_z};
  assert(Dim < 3 && "thread index dimension out of range");
  return B.CreateIntrinsic(Ids[Dim], {}, {});
}

Value *KernelBuilder::ctaid(unsigned Dim) {
  static constexpr Intrinsic::ID Ids[] = {Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                          Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                          Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
  assert(Dim < 3 && "block index dimension out of range");
  return B.CreateIntrinsic(Ids[Dim], {}, {});
}

Type *KernelBuilder::typeOf(DType T) {
  return T == DType::F16 ? B.getHalfTy() : T == DType::I8 ? B.getInt8Ty() : B.getFloatTy();
}

Type *KernelBuilder::elementType(ParamRole R) const {
  auto It = std::find(Roles.begin(), Roles.end(), R);
  assert(It != Roles.end() && "kernel has no parameter with this role");
  return ElemTys[size_t(It - Roles.begin())];
}

Value *KernelBuilder::storagePtr(ParamRole R, Value *Index) {
  assert(Index->getType() == IndexTy && "global element index of the wrong width");
  return B.CreateInBoundsGEP(elementType(R), param(R), Index);
}

Value *KernelBuilder::load(ParamRole R, Value *Index) {
  Type *Ty = elementType(R);
  Value *V = B.CreateAlignedLoad(Ty, storagePtr(R, Index), Align(Ty->getPrimitiveSizeInBits() / 8));
  if (Ty->isIntegerTy()) // int8: the integer's value
    return B.CreateSIToFP(V, B.getFloatTy());
  return Ty->isHalfTy() ? B.CreateFPExt(V, B.getFloatTy()) : V;
}

void KernelBuilder::store(ParamRole R, Value *Index, Value *V) {
  Type *Ty = elementType(R);
  assert(!Ty->isIntegerTy() && "int8 outputs are quantised by their kernels (Int8Gemm.h)");
  if (Ty->isHalfTy())
    V = B.CreateFPTrunc(V, Ty);
  B.CreateAlignedStore(V, storagePtr(R, Index), Align(Ty->getPrimitiveSizeInBits() / 8));
}

Value *KernelBuilder::accumulator(float Init) {
  BasicBlock &Entry = F->getEntryBlock();
  IRBuilder<> Top(&Entry, Entry.begin());
  Value *Slot = Top.CreateAlloca(B.getFloatTy(), nullptr, "acc");
  B.CreateStore(f32(Init), Slot);
  return Slot;
}

Value *KernelBuilder::zeroSlot(Type *Ty) {
  BasicBlock &Entry = F->getEntryBlock();
  IRBuilder<> Top(&Entry, Entry.begin());
  Value *Slot = Top.CreateAlloca(Ty, nullptr, "slot");
  B.CreateStore(Constant::getNullValue(Ty), Slot);
  return Slot;
}

Value *KernelBuilder::get(Value *Slot) { return B.CreateLoad(B.getFloatTy(), Slot); }

void KernelBuilder::set(Value *Slot, Value *V) { B.CreateStore(V, Slot); }

Value *KernelBuilder::fma(Value *A, Value *Bv, Value *C) {
  return B.CreateIntrinsic(Intrinsic::fmuladd, {B.getFloatTy()}, {A, Bv, C});
}

Value *KernelBuilder::sharedArray(const std::string &Name, uint32_t Count) {
  return sharedArrayOf(Name, B.getFloatTy(), Count);
}

GlobalVariable *KernelBuilder::sharedArrayOf(const std::string &Name, Type *Elem, uint32_t Count) {
  auto *Ty = ArrayType::get(Elem, Count);
  auto *GV = new GlobalVariable(M, Ty, false, GlobalValue::InternalLinkage, UndefValue::get(Ty),
                                F->getName() + "_" + Name, nullptr, GlobalVariable::NotThreadLocal,
                                SharedAddrSpace);
  GV->setAlignment(Align(16));
  return GV;
}

Value *KernelBuilder::loadShared(Value *Array, Value *Index) {
  auto *GV = cast<GlobalVariable>(Array);
  Value *P = B.CreateInBoundsGEP(GV->getValueType(), GV, {B.getInt32(0), Index});
  return B.CreateAlignedLoad(B.getFloatTy(), P, Align(4));
}

void KernelBuilder::storeShared(Value *Array, Value *Index, Value *V) {
  auto *GV = cast<GlobalVariable>(Array);
  Value *P = B.CreateInBoundsGEP(GV->getValueType(), GV, {B.getInt32(0), Index});
  B.CreateAlignedStore(V, P, Align(4));
}

void KernelBuilder::forRange(Value *Begin, Value *End, uint32_t Step,
                             const std::function<void(Value *)> &Body) {
  assert(Step > 0 && "loop step must be positive");
  BasicBlock *Pre = B.GetInsertBlock();
  auto *Header = BasicBlock::Create(Ctx, "loop", F);
  auto *BodyBB = BasicBlock::Create(Ctx, "body", F);
  auto *Exit = BasicBlock::Create(Ctx, "exit", F);
  B.CreateBr(Header);
  B.SetInsertPoint(Header);
  assert(Begin->getType() == End->getType() && "loop bounds of different types");
  PHINode *IV = B.CreatePHI(Begin->getType(), 2, "iv");
  IV->addIncoming(Begin, Pre);
  B.CreateCondBr(B.CreateICmpULT(IV, End), BodyBB, Exit);
  B.SetInsertPoint(BodyBB);
  Body(IV);
  Value *Next = B.CreateAdd(IV, ConstantInt::get(Begin->getType(), Step), "", /*HasNUW=*/true,
                            /*HasNSW=*/true);
  IV->addIncoming(Next, B.GetInsertBlock());
  B.CreateBr(Header);
  B.SetInsertPoint(Exit);
}

void KernelBuilder::forRange(uint32_t Begin, uint32_t End,
                             const std::function<void(Value *)> &Body) {
  forRange(B.getInt32(Begin), B.getInt32(End), 1, Body);
}

void KernelBuilder::ifThen(Value *Cond, const std::function<void()> &Then) {
  auto *ThenBB = BasicBlock::Create(Ctx, "then", F);
  auto *Merge = BasicBlock::Create(Ctx, "endif", F);
  B.CreateCondBr(Cond, ThenBB, Merge);
  B.SetInsertPoint(ThenBB);
  Then();
  B.CreateBr(Merge);
  B.SetInsertPoint(Merge);
}

void KernelBuilder::barrier() { B.CreateIntrinsic(Intrinsic::nvvm_barrier0, {}, {}); }

Value *KernelBuilder::shflDown(Value *V, uint32_t Offset) {
  return B.CreateIntrinsic(Intrinsic::nvvm_shfl_sync_down_f32, {},
                           {B.getInt32(FullWarpMask), V, B.getInt32(Offset), B.getInt32(0x1f)});
}

Value *KernelBuilder::shflBfly(Value *V, uint32_t Offset) {
  return B.CreateIntrinsic(Intrinsic::nvvm_shfl_sync_bfly_f32, {},
                           {B.getInt32(FullWarpMask), V, B.getInt32(Offset), B.getInt32(0x1f)});
}

Value *KernelBuilder::warpSum(Value *V) {
  for (uint32_t Off = 16; Off > 0; Off /= 2)
    V = B.CreateFAdd(V, shflDown(V, Off));
  return V;
}

Value *KernelBuilder::epilogue(const Epilogue &E, Value *Acc, Value *Channel, Value *SeIndex,
                               Value *OutIndex) {
  Value *Y = Acc;
  if (E.bias)
    Y = B.CreateFAdd(Y, load(ParamRole::Bias, Channel));
  if (E.batchNorm)
    Y = B.CreateFAdd(B.CreateFMul(Y, load(ParamRole::BnScale, Channel)),
                     load(ParamRole::BnShift, Channel));
  if (E.residual == ResidualKind::BeforeActivation)
    Y = B.CreateFAdd(Y, load(ParamRole::Residual, OutIndex));
  Y = activation(E.activation, Y, E.alpha);
  if (E.seScale)
    Y = B.CreateFMul(Y, load(ParamRole::SeScale, SeIndex));
  if (E.residual == ResidualKind::AfterActivation)
    Y = B.CreateFAdd(Y, load(ParamRole::Residual, OutIndex));
  return Y;
}

void KernelBuilder::finish() { B.CreateRetVoid(); }

std::vector<ParamRole> epilogueRoles(const Epilogue &E) {
  std::vector<ParamRole> R;
  if (E.bias)
    R.push_back(ParamRole::Bias);
  if (E.batchNorm) {
    R.push_back(ParamRole::BnScale);
    R.push_back(ParamRole::BnShift);
  }
  if (E.seScale)
    R.push_back(ParamRole::SeScale);
  if (E.residual != ResidualKind::None)
    R.push_back(ParamRole::Residual);
  return R;
}

uint64_t epilogueElements(ParamRole R, uint64_t Channels, uint64_t Batch, uint64_t Outputs) {
  switch (R) {
  case ParamRole::Bias:
  case ParamRole::BnScale:
  case ParamRole::BnShift:
    return Channels;
  case ParamRole::SeScale:
    return Batch * Channels;
  case ParamRole::Residual:
    return Outputs;
  default:
    assert(false && "not an epilogue parameter");
    return 0;
  }
}

KernelLaunch makeLaunch(const std::string &Name, LaunchStrategy Strategy, DType T,
                        std::array<uint32_t, 3> Grid, std::array<uint32_t, 3> Block,
                        const std::vector<ParamRole> &Roles,
                        const std::function<uint64_t(ParamRole)> &Count) {
  KernelLaunch L;
  L.kernel = Name;
  L.strategy = strategyName(Strategy);
  L.grid = Grid;
  L.block = Block;
  L.dtype = T;
  for (ParamRole R : Roles)
    L.params.push_back({R, Count(R), T});
  return L;
}

KernelLaunch buildPlaneKernel(Module *M, const std::string &Name, const PlaneKernel &P,
                              const ShapeDims &Dims, KernelSet Set,
                              const std::function<void(KernelBuilder &, Value *, Value *)> &Body) {
  const uint64_t Planes = uint64_t(P.batch) * P.channels;
  const std::vector<ParamRole> Roles = {ParamRole::Input, ParamRole::Output};
  KernelLaunch L =
      makeLaunch(Name, P.strategy, P.dtype, {ceilDiv(P.outPixels, P.block), P.channels, P.batch},
                 {P.block, 1, 1}, Roles, [&](ParamRole R) {
                   return Planes * (R == ParamRole::Input ? P.inPixels : P.outPixels);
                 });
  bindShapes(L, Dims, Set);
  if (!M)
    return L;
  KernelBuilder K(*M, Name, Roles, P.dtype, L, P.wide, Dims);
  IRBuilder<> &B = K.ir();
  Value *Pix = B.CreateAdd(B.CreateMul(K.ctaid(0), K.i32(P.block)), K.tid(0), "pix");
  Value *Plane = B.CreateAdd(B.CreateMul(K.widen(K.ctaid(2)), K.dimIx("c")), K.widen(K.ctaid(1)));
  K.ifThen(B.CreateICmpULT(Pix, K.dim("pixels")), [&] { Body(K, Pix, Plane); });
  K.finish();
  return L;
}

void bindShapes(KernelLaunch &L, const ShapeDims &Dims, KernelSet Set) {
  L.shapeArgs.clear();
  if (Set == KernelSet::Specialised)
    return;
  for (const ShapeDim &D : Dims) {
    assert(D.value <= UINT32_MAX && "a library kernel's shapes are u32");
    L.shapeArgs.push_back({D.name, static_cast<uint32_t>(D.value)});
    if (!D.divisor)
      continue;
    assert(D.value >= 1 && "a divisor shape of 0");
    FastDivisor F = fastDivisor(static_cast<uint32_t>(D.value));
    L.shapeArgs.push_back({D.name + "_mul", F.multiplier});
    L.shapeArgs.push_back({D.name + "_shr", F.shift});
  }
}

uint32_t ceilDiv(uint64_t A, uint64_t Bv) { return static_cast<uint32_t>((A + Bv - 1) / Bv); }

uint32_t warpRoundedBlock(uint64_t N, uint32_t Max) {
  uint64_t R = (N + 31) / 32 * 32;
  return static_cast<uint32_t>(std::clamp<uint64_t>(R, 32, Max));
}

} // namespace corpus::kernels
