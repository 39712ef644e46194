// The lowering driver: Network -> Workload. Each conv/dense layer becomes one kernel with its
// elementwise tail fused (bias, folded batch-norm, residual add, activation); pooling, global
// pooling, softmax and the remaining elementwise layers get their own kernels; flatten, reshape,
// identity and a zero Pad feeding a convolution cost no launch. Kernels come from KernelGen.h.
#pragma once

#include "corpus/Network.h"
#include "corpus/Workload.h"

#include <string>
#include <string_view>

namespace corpus {

class KernelCache;

/// Kernels per run: runs of this many kernels are dealt to up to four PTX modules in turn
/// (kernels_0.ptx ... kernels_3.ptx). Small runs balance the files: with runs of 16, VGG-16's 17
/// kernels made modules of 16 and 1, EfficientNet-B7's 81 of 32/17/16/16.
constexpr size_t KernelsPerModule = 4;

struct LowerOptions {
  /// F32, F16, or I8: an int8 inference engine (docs/lowering.md, "Int8 engines"): int8
  /// convolutions and dense layers, every other layer in f16, reformats between the two.
  DType dtype = DType::F32;
  std::string arch = "sm_90"; ///< sm_70, sm_75, sm_80, sm_86, sm_87, sm_89, sm_90
  uint64_t seed = 7;          ///< first seed of the random buffers (one per buffer, in order)
  bool emitPtx = true;        ///< false: plan kernels and launches only (Workload::ptx empty)
  /// Threads running LLVM over the kernels (0 = all cores). Kernels are spread over up to four
  /// modules, KernelsPerModule at a time, whatever the thread count: the output is the same.
  unsigned threads = 0;
  /// Kernels compiled by earlier lowerings, reused and added to (not owned; may be null).
  KernelCache *cache = nullptr;
  /// Tensor-core math for convolutions, dense layers and bmm (mathModeError lists what each mode
  /// needs; the kernels are those of mmaArchFor(arch)). Auto picks per layer what PyTorch runs
  /// (autoMath). Simt, the library's default, keeps every kernel on CUDA cores: the shipped
  /// predictor was trained on those counts (`ptxcast lower` and `analyze` default to auto).
  MathMode math = MathMode::Simt;
  /// Specialised kernels (one per layer shape; what the shipped predictor was trained on) or the
  /// kernel library (shapes as parameters; `ptxcast lower` and `analyze` default to it). Kernels
  /// with 64-bit index arithmetic are specialised in both.
  KernelSet kernels = KernelSet::Specialised;
  /// Tests: build every layer's kernel IR, also when a kernel of its name exists, and fail when
  /// one name would stand for two different kernels (KernelEmitter::checkNames).
  bool checkKernelNames = false;
};

/// What `--math auto` lowers a layer of kind `Kind` to on data of type `T` for `Arch`, as PyTorch
/// runs it there by default: f16 data on sm_70+: F16 for convolutions, dense layers and bmm; f32
/// data on sm_80+: Tf32 for convolutions (torch.backends.cudnn.allow_tf32 defaults to True),
/// Simt for dense and bmm (torch.backends.cuda.matmul.allow_tf32 defaults to False since 1.12);
/// every other layer and older architecture: Simt. An int8 engine (T = I8): Int8 for convolutions
/// and dense layers on sm_75+ (Simt: dp4a, before), the f16 rule for every other layer.
MathMode autoMath(LayerKind Kind, DType T, std::string_view Arch);

/// Lowers a network (its batch and image size are those it was built or imported with). A layer
/// the kernels cannot express is an Error naming it: `layer 'cat' (concat): not supported by
/// the lowering`.
support::Expected<Workload> lower(const Network &Net, const LowerOptions &Options = {});

} // namespace corpus
