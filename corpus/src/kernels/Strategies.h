// Kernel strategies: one builder per lowering strategy, each describing a layer's launch and,
// given a module, adding its kernel to it: specialised to the layer's shapes, or a library kernel
// of the set `Set` that takes them as parameters (KernelGen.h, KernelSet). A null module plans
// the launch alone (a library kernel of that name exists already). Specs are validated before
// these are called (Specs.h); libraryName() gives a library kernel's name.
#pragma once

#include "corpus/KernelGen.h"

#include <llvm/IR/Module.h>

#include <string>

namespace corpus::kernels {

/// Direct convolution (any groups, stride, padding, dilation); Depthwise drops the input-channel
/// loop (groups == inChannels). One thread per output pixel; grid (pixels / block, Cout, N).
KernelLaunch buildDirectConv(llvm::Module *M, const ConvSpec &S, const std::string &Name,
                             KernelSet Set, bool Depthwise);
/// 1x1, stride 1, unpadded, ungrouped convolution as a shared-memory tiled GEMM per image.
KernelLaunch buildConvGemm(llvm::Module *M, const ConvSpec &S, const std::string &Name,
                           KernelSet Set);
/// Ungrouped convolution as an implicit GEMM: the tiled GEMM with im2col computed on the fly.
KernelLaunch buildImplicitGemmConv(llvm::Module *M, const ConvSpec &S, const std::string &Name,
                                   KernelSet Set);
/// CTA tile of the tensor-core GEMM: m rows (output channels, dense rows) x n columns (pixels,
/// dense outputs), four warps of (m / 2) x (n / 2).
struct MmaTile {
  uint32_t m, n;
};
/// 1x1 (Resolved == Gemm) or implicit-GEMM convolution on tensor cores (mma.sync, S.math).
KernelLaunch buildMmaConv(llvm::Module *M, const ConvSpec &S, const std::string &Name,
                          KernelSet Set, ConvStrategy Resolved);
/// Dense layer (at least MinGemmRows rows) on tensor cores.
KernelLaunch buildMmaDense(llvm::Module *M, const GemmSpec &S, const std::string &Name,
                           KernelSet Set);
/// Batched matrix product (at most 65535 batches: one per CTA on grid z) on tensor cores.
KernelLaunch buildMmaBatchMatMul(llvm::Module *M, const BatchMatMulSpec &S, const std::string &Name,
                                 KernelSet Set);
/// Dense layer with few rows: one warp per output (coalesced dot product + shfl.sync.down).
KernelLaunch buildDenseGemv(llvm::Module *M, const GemmSpec &S, const std::string &Name,
                            KernelSet Set);
/// Dense layer as a shared-memory tiled GEMM.
KernelLaunch buildDenseGemm(llvm::Module *M, const GemmSpec &S, const std::string &Name,
                            KernelSet Set);
/// Batched matrix product (torch.bmm) as the tiled GEMM with the batch on grid z.
KernelLaunch buildBatchMatMul(llvm::Module *M, const BatchMatMulSpec &S, const std::string &Name,
                              KernelSet Set);
/// Max/avg windowed pooling, one thread per output.
KernelLaunch buildPool(llvm::Module *M, const PoolSpec &S, const std::string &Name, KernelSet Set);
/// Bilinear upsampling by integer factors, one thread per output.
KernelLaunch buildUpsample(llvm::Module *M, const UpsampleSpec &S, const std::string &Name,
                           KernelSet Set);
/// Global average pooling: one block per (n, c), shared memory + shfl.sync.down reduction.
KernelLaunch buildGlobalAvgPool(llvm::Module *M, const ReduceSpec &S, const std::string &Name,
                                KernelSet Set);
/// Standalone elementwise op, one thread per element.
KernelLaunch buildElementwise(llvm::Module *M, const ElementwiseSpec &S, const std::string &Name,
                              KernelSet Set);
/// Up to 128 inputs of a channel concatenation in one launch, as PyTorch's CatArrayBatchedCopy:
/// grid y picks the input (a switch on %ctaid.y), a grid-stride loop copies it into its channel
/// slice, in 16-byte vectors when every slice is a multiple of 16 bytes.
KernelLaunch buildConcat(llvm::Module *M, const ConcatSpec &S, const std::string &Name,
                         KernelSet Set);
/// Row softmax: one block per row, block all-reduce with shfl.sync.bfly + shared memory; over an
/// inner axis (SoftmaxSpec::inner > 1), PyTorch's spatial softmax, one thread per position.
KernelLaunch buildSoftmax(llvm::Module *M, const SoftmaxSpec &S, const std::string &Name,
                          KernelSet Set);
/// Reduction over the middle axis of [rows, cols, inner]: one block per row with block
/// all-reductions (inner = 1), or one thread per (row, inner) position looping over the cols.
KernelLaunch buildAxisReduce(llvm::Module *M, const AxisReduceSpec &S, const std::string &Name,
                             KernelSet Set);
/// Row layer norm: one block per row; the row's shifted sum and sum of squares are block
/// all-reduces, then a second pass normalises, scales and shifts.
KernelLaunch buildLayerNorm(llvm::Module *M, const LayerNormSpec &S, const std::string &Name,
                            KernelSet Set);

/// Strided copy (Transpose, Slice, Split): one thread per output element.
KernelLaunch buildCopy(llvm::Module *M, const CopySpec &S, const std::string &Name, KernelSet Set);
/// Constant, reflect or edge padding of H and W, one thread per output element.
KernelLaunch buildPad(llvm::Module *M, const PadSpec &S, const std::string &Name, KernelSet Set);

/// Library kernel names (Specs.h, kernelName): the strategy and every specialisation its builder
/// makes for this spec, none of its shapes.
std::string libraryName(const ConvSpec &S, ConvStrategy Resolved);
std::string libraryName(const GemmSpec &S);
std::string libraryName(const BatchMatMulSpec &S);
std::string libraryName(const PoolSpec &S);
std::string libraryName(const UpsampleSpec &S);
std::string libraryName(const ReduceSpec &S);
std::string libraryName(const ElementwiseSpec &S);
std::string libraryName(const ConcatSpec &S);
std::string libraryName(const SoftmaxSpec &S);
std::string libraryName(const AxisReduceSpec &S);
std::string libraryName(const LayerNormSpec &S);
std::string libraryName(const CopySpec &S);
std::string libraryName(const PadSpec &S);

} // namespace corpus::kernels
