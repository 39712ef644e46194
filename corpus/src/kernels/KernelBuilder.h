// KernelBuilder: IRBuilder helpers shared by all kernel strategies (parameters, thread indices,
// typed loads/stores, loops, shared arrays, warp shuffles, activations and fused epilogues).
#pragma once

#include "corpus/KernelGen.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace corpus::kernels {

/// Tensors of this many elements or more need 64-bit index arithmetic.
constexpr uint64_t WideIndexElements = uint64_t(1) << 31;

/// A shape a kernel computes with: a constant in a specialised kernel, a u32 parameter (the
/// ShapeArg of the same name) in a library kernel. A divisor's parameter comes with its
/// fast-division multiplier `NAME_mul` and shift `NAME_shr` (fastDivisor).
struct ShapeDim {
  std::string name;
  uint64_t value; ///< below 2^32 in a library kernel (kernels with 64-bit indices are specialised)
  bool divisor = false;
};
using ShapeDims = std::vector<ShapeDim>;

/// Gives L its shape arguments: none for Specialised; for Library every dim in order, each
/// divisor followed by its multiplier and shift.
void bindShapes(KernelLaunch &L, const ShapeDims &Dims, KernelSet Set);

/// Builds one kernel function `Name` in a module. The constructor creates the function with one
/// pointer parameter per role (in the order given), then one u32 parameter per shape argument of
/// `L` (a library kernel), and an entry block; finish() returns.
///
/// Element indices into global buffers have the kernel's index type: i32, or i64 when `Wide`
/// (a tensor of 2^31 elements or more). Kernels build offsets with ix() constants and widen()ed
/// i32 coordinates, which are the i32 values themselves in a narrow kernel, so a narrow kernel's
/// IR is what plain i32 arithmetic gives.
class KernelBuilder {
public:
  /// `L` gives the block size (reqntid) and, for the index width check, the buffers' sizes.
  /// `Dims` are the shapes dim() and udiv() read (bindShapes(L, Dims, ...) gave L's arguments).
  KernelBuilder(llvm::Module &M, const std::string &Name, const std::vector<ParamRole> &Roles,
                DType T, const KernelLaunch &L, bool Wide, const ShapeDims &Dims = {});

  llvm::IRBuilder<> &ir() { return B; }
  llvm::Function &function() { return *F; }
  /// The pointer parameter with role `R` (asserts it exists).
  llvm::Value *param(ParamRole R) const;
  bool hasParam(ParamRole R) const;

  llvm::Value *i32(uint32_t V) { return B.getInt32(V); }
  /// Whether shapes are parameters (a library kernel) rather than constants.
  bool library() const { return !ShapeParams.empty(); }
  /// Shape `Name` of the kernel's ShapeDims as i32, and in the index type.
  llvm::Value *dim(std::string_view Name);
  llvm::Value *dimIx(std::string_view Name);
  /// Shape `Name` as f32: a constant, or the parameter converted.
  llvm::Value *dimF32(std::string_view Name);
  /// X / D and X % D for the divisor shape D (X i32 below 2^31, or of the index type): LLVM's
  /// division by a constant in a specialised kernel; mul.hi, add and shift with D's multiplier in
  /// a library kernel (a 64-bit X divides with div.u64 there).
  llvm::Value *udiv(llvm::Value *X, std::string_view D);
  llvm::Value *urem(llvm::Value *X, std::string_view D);
  llvm::Value *f32(float V);
  /// Index arithmetic (see the class comment): whether it is 64-bit, its type, a constant of it,
  /// and an i32 value converted to it (zero- or sign-extended; unchanged in narrow kernels).
  bool wide() const { return Wide; }
  llvm::IntegerType *indexType() const { return IndexTy; }
  llvm::Value *ix(uint64_t V);
  llvm::Value *widen(llvm::Value *V);
  llvm::Value *widenSigned(llvm::Value *V);
  llvm::Value *tid(unsigned Dim);   ///< %tid.{x,y,z}
  llvm::Value *ctaid(unsigned Dim); ///< %ctaid.{x,y,z}

  /// Loads element `Index` (of the index type) of the buffer `R` as f32 (an int8 element as its
  /// integer value).
  llvm::Value *load(ParamRole R, llvm::Value *Index);
  /// Stores f32 `V` (converted to the buffer's float type) at element `Index` of buffer `R`.
  void store(ParamRole R, llvm::Value *Index, llvm::Value *V);

  /// A zero-initialised f32 stack slot (promoted to a register by SROA).
  llvm::Value *accumulator(float Init);
  /// A zero-initialised stack slot of type `Ty` (a vector, say), promoted like accumulators.
  llvm::Value *zeroSlot(llvm::Type *Ty);
  llvm::Value *get(llvm::Value *Slot);         ///< loads an accumulator
  void set(llvm::Value *Slot, llvm::Value *V); ///< stores an accumulator
  /// A * Bv + C as llvm.fmuladd (fma.rn.f32 on NVPTX, as nvcc's default -fmad=true).
  llvm::Value *fma(llvm::Value *A, llvm::Value *Bv, llvm::Value *C);
  /// A static shared-memory f32 array of `Count` elements (addrspace(3)).
  llvm::Value *sharedArray(const std::string &Name, uint32_t Count);
  /// A static shared-memory array of `Count` elements of type `Elem`, 16-byte aligned.
  llvm::GlobalVariable *sharedArrayOf(const std::string &Name, llvm::Type *Elem, uint32_t Count);
  /// The storage type of global buffers (float, half, or i8 in an int8 kernel).
  llvm::Type *storageType() const { return Storage; }
  /// The element type of buffer `R`: the storage type, except in int8 kernels, whose parameters
  /// have types of their own (KernelParam::dtype).
  llvm::Type *elementType(ParamRole R) const;
  /// float, half or i8.
  llvm::Type *typeOf(DType T);
  /// Generic pointer to element `Index` (of the index type) of buffer `R`.
  llvm::Value *elementPtr(ParamRole R, llvm::Value *Index) { return storagePtr(R, Index); }
  llvm::Value *loadShared(llvm::Value *Array, llvm::Value *Index);
  void storeShared(llvm::Value *Array, llvm::Value *Index, llvm::Value *V);

  /// for (IV = Begin; IV < End; IV += Step) Body(IV); unsigned compare, IV of Begin's type.
  void forRange(llvm::Value *Begin, llvm::Value *End, uint32_t Step,
                const std::function<void(llvm::Value *)> &Body);
  void forRange(uint32_t Begin, uint32_t End, const std::function<void(llvm::Value *)> &Body);
  /// if (Cond) Then();
  void ifThen(llvm::Value *Cond, const std::function<void()> &Then);

  void barrier(); ///< bar.sync 0 (llvm.nvvm.barrier0)
  /// shfl.sync.down / shfl.sync.bfly on a full warp.
  llvm::Value *shflDown(llvm::Value *V, uint32_t Offset);
  llvm::Value *shflBfly(llvm::Value *V, uint32_t Offset);
  /// Sum over the 32 lanes of a warp with a shfl.sync.down tree; lane 0 holds the total.
  llvm::Value *warpSum(llvm::Value *V);

  llvm::Value *exp(llvm::Value *X); ///< e^x via ex2.approx(x * log2 e)
  llvm::Value *maxf(llvm::Value *A, llvm::Value *Bv);
  llvm::Value *minf(llvm::Value *A, llvm::Value *Bv);
  llvm::Value *rsqrt(llvm::Value *X); ///< rsqrt.approx.f32
  /// X^Y: ex2.approx(Y * lg2.approx |X|); X < 0 gives (-1)^Y |X|^Y for integer Y, NaN otherwise;
  /// Y == 0 gives 1.
  llvm::Value *pow(llvm::Value *X, llvm::Value *Y);
  /// X^C with PyTorch's special exponents (0, 1, 0.5, -0.5, -1, 2, 3, -2), else pow.
  llvm::Value *powConst(llvm::Value *X, float C);
  /// e^x - 1: a Taylor polynomial below |x| = 0.25 (no cancellation), else exp(x) - 1.
  llvm::Value *expm1(llvm::Value *X);
  /// PyTorch's elu(x, alpha, scale, input_scale): Scale (x > 0 ? x : Alpha expm1(x InputScale)),
  /// which elu, celu and selu are.
  llvm::Value *eluFamily(llvm::Value *X, float Alpha, float InputScale, float Scale);
  /// act(X); the kinds that take alpha (activationTakesAlpha) take it from the three-argument
  /// form (an epilogue's Epilogue::alpha, an elementwise kernel's scalar).
  llvm::Value *activation(ActivationKind K, llvm::Value *X);
  llvm::Value *activation(ActivationKind K, llvm::Value *X, float Alpha);

  /// Applies `E` to accumulator `Acc` for output element `OutIndex`, channel `Channel` and
  /// squeeze-excitation index `SeIndex` (n * C + c); returns the value to store.
  llvm::Value *epilogue(const Epilogue &E, llvm::Value *Acc, llvm::Value *Channel,
                        llvm::Value *SeIndex, llvm::Value *OutIndex);

  void finish(); ///< ret void

private:
  llvm::Value *storagePtr(ParamRole R, llvm::Value *Index);
  llvm::Value *tanh(llvm::Value *X);
  llvm::Value *erf(llvm::Value *X);

  llvm::Module &M;
  llvm::LLVMContext &Ctx;
  llvm::IRBuilder<> B;
  llvm::Function *F = nullptr;
  const ShapeDim &shape(std::string_view Name) const;
  llvm::Value *shapeParam(const std::string &Name) const;

  std::vector<ParamRole> Roles;
  std::vector<llvm::Type *> ElemTys; ///< per parameter of Roles
  ShapeDims Dims;
  std::vector<std::pair<std::string, llvm::Argument *>> ShapeParams; ///< library kernels
  llvm::Type *Storage = nullptr;
  bool Wide = false;
  llvm::IntegerType *IndexTy = nullptr;
};

/// Parameter roles of a layer's epilogue, in parameter order (between Weight and Output).
std::vector<ParamRole> epilogueRoles(const Epilogue &E);

/// Epilogue element counts for a layer with `Channels` channels, `Batch` images and `Outputs`
/// output elements: bias/BN per channel, SE per (n, c), residual per output.
uint64_t epilogueElements(ParamRole R, uint64_t Channels, uint64_t Batch, uint64_t Outputs);

/// A launch description with `Roles` as parameters, element counts from `Count`.
KernelLaunch makeLaunch(const std::string &Name, LaunchStrategy Strategy, DType T,
                        std::array<uint32_t, 3> Grid, std::array<uint32_t, 3> Block,
                        const std::vector<ParamRole> &Roles,
                        const std::function<uint64_t(ParamRole)> &Count);

/// A kernel with one thread per output pixel of batch x channels planes (pooling, upsampling,
/// padding): grid (ceil(outPixels / block), channels, batch), block (block, 1, 1), an Input of
/// inPixels and an Output of outPixels per plane.
struct PlaneKernel {
  LaunchStrategy strategy;
  DType dtype;
  uint32_t batch, channels;
  uint64_t inPixels, outPixels;
  uint32_t block;
  bool wide; ///< 64-bit index arithmetic
};
/// P's launch (shapes Dims, which hold "c" and "pixels" = outPixels) and, given a module, its
/// kernel: Body(K, Pix, Plane) builds what the thread of output pixel Pix (i32, below "pixels")
/// of plane n x C + c (index type) computes.
KernelLaunch
buildPlaneKernel(llvm::Module *M, const std::string &Name, const PlaneKernel &P,
                 const ShapeDims &Dims, KernelSet Set,
                 const std::function<void(KernelBuilder &, llvm::Value *, llvm::Value *)> &Body);

/// Smallest multiple of 32 >= N, capped at Max.
uint32_t warpRoundedBlock(uint64_t N, uint32_t Max);
uint32_t ceilDiv(uint64_t A, uint64_t Bv);

} // namespace corpus::kernels
