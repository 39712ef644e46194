// The GEMM view of a convolution or dense layer, shared by the CUDA-core tiled GEMM
// (GemmKernels.cpp) and the tensor-core GEMM (MmaKernels.cpp): operand strides, the on-the-fly
// im2col operand, and the fused epilogue store of one output element.
#pragma once

#include "kernels/KernelBuilder.h"
#include "kernels/Strategies.h"

#include <utility>

namespace corpus::kernels {

/// Which layer a GEMM computes: the strides follow from m, n and k by kind.
enum class GemmKind : uint8_t { ConvGemm, ImplicitGemm, Dense, Bmm };

/// A GEMM's sizes (i32) and strides (index type) as IR values of one kernel: constants in a
/// specialised kernel, computed from the shape parameters in a library kernel (bindGemm).
struct GemmValues {
  llvm::Value *M = nullptr, *N = nullptr, *K = nullptr;
  llvm::Value *ABatch = nullptr, *AM = nullptr, *AK = nullptr;
  llvm::Value *BBatch = nullptr, *BK = nullptr, *BN = nullptr;
  llvm::Value *CBatch = nullptr, *CM = nullptr, *CN = nullptr;
  llvm::Value *Channels = nullptr, *Batch = nullptr;
};

/// C[b][m][n] = sum_k A(b, m, k) * B(b, k, n), every operand addressed by strides.
struct GemmShape {
  GemmKind Kind;
  uint32_t Batch, M, N, K;
  uint64_t ABatch, AM, AK; // A(b, m, k) = A[b * ABatch + m * AM + k * AK]
  uint64_t BBatch, BK, BN;
  uint64_t CBatch, CM, CN;
  bool ChannelIsRow;      ///< epilogue channel = m (1x1 conv) or n (dense)
  uint32_t Channels;      ///< channel count, for the SE index b * Channels + channel
  ParamRole ARole, BRole; ///< which buffers hold A and B
  /// Implicit GEMM: B(k, n) is the im2col matrix of this convolution's input (k = (ci, kh, kw),
  /// n = output pixel), computed on the fly while loading tiles; BK/BN are then unused.
  const ConvSpec *Im2col = nullptr;
  /// Implicit GEMM with k = (ci / 16, kh, kw, ci mod 16) (blockedFilters): A holds the filters as
  /// [cout][cin / 16][kh][kw][16], and a K stage of B is one tap of MmaKStep consecutive channels.
  bool Blocked = false;
  /// Batches one CTA computes in turn (grid z = ceil(Batch / BatchPerCta)): 1 unless the batch
  /// exceeds grid z's 65535.
  uint32_t BatchPerCta = 1;

  /// Outputs per thread along each axis of the CUDA-core kernel: 4 x 4 register tiles (a 64 x 64
  /// block tile) when both output dimensions fill such tiles, else one output per thread (16 x 16
  /// block tile).
  uint32_t micro() const { return M >= 64 && N >= 64 ? 4 : 1; }
  uint32_t tile() const { return 16 * micro(); }

  GemmValues V = {};    ///< set by bindGemm for the kernel being built
  bool Library = false; ///< the kernel takes the shapes as parameters (bindGemm)
};

/// The shapes a GEMM kernel takes as parameters: m, n, k; bmm's batch count and batches per CTA
/// when a CTA loops over batches; an implicit GEMM's convolution input and window placement.
ShapeDims gemmDims(const GemmShape &G);
/// Sets G.V for kernel K (whose ShapeDims came from gemmDims).
void bindGemm(KernelBuilder &K, GemmShape &G);
/// The K loop's trip count ceil(K / Step): a constant in a specialised kernel, computed from the
/// parameter k in a library kernel (after bindGemm).
llvm::Value *kTiles(KernelBuilder &K, const GemmShape &G, uint32_t Step);
/// Whether operand A's (or B's) stride along its rows or columns is 1: read off the strides in a
/// specialised kernel, by kind in a library kernel (where a stride of 1 may be a shape's accident).
bool unitStride(const GemmShape &G, bool OperandA, bool Rows);
/// The per-layer tile rule of the tensor-core GEMM (docs/lowering.md): 128 x 128 for a tf32
/// channel-blocked convolution with a window (K = taps x cin: long, compute-bound; a tf32 mma does
/// half an f16 one's work, so these need the larger warp tile's reuse of every fragment) when M and
/// N are >= 128 and the grid still has >= 128 CTAs (one per SM of the largest GPUs); else 128 x 64
/// when M >= 128 and N >= 64 (the big layers: fewer CTAs, more reuse per loaded element), 32 x 32
/// when M <= 32 or N <= 32 (little of a bigger tile would be used), else 64 x 64.
MmaTile chooseMmaTile(const GemmShape &G, MathMode Math);
/// The library name of tensor-core GEMM G (Body names the layer and its convolution keys).
std::string libraryMmaName(const std::string &Body, const GemmShape &G, MathMode Math, MmaArch Arch,
                           DType T, const Epilogue &E, bool Wide);
/// The library name of a 1x1 or implicit-GEMM convolution, on CUDA or tensor cores.
std::string libraryGemmName(const ConvSpec &S, ConvStrategy Resolved);

/// 1x1 convolution per image: Out[b][cout][pix] = sum_cin W[cout][cin] * In[b][cin][pix].
GemmShape convGemmShape(const ConvSpec &S);
/// Implicit GEMM: Out[b][cout][pix] = sum_k W[cout][k] * im2col(In[b])[k][pix], k = (cin, kh, kw).
GemmShape implicitGemmShape(const ConvSpec &S);
/// Dense: Y[r][o] = sum_i X[r][i] * W[o][i], A = activations, B(k = i, n = o) = W[o][i].
GemmShape denseGemmShape(const GemmSpec &S);

/// torch.bmm: C[b] (m x k) = A[b] (m x n) x B[b] (n x k), row-major; GEMM M = m, N = k, K = n.
GemmShape bmmGemmShape(const BatchMatMulSpec &S);

/// Element counts of a conv's parameters (input, weight, output, epilogue) for makeLaunch.
uint64_t convParamElements(const ConvSpec &S, ParamRole R);
uint64_t denseParamElements(const GemmSpec &S, ParamRole R);
uint64_t bmmParamElements(const BatchMatMulSpec &S, ParamRole R);

/// Input, Weight, the epilogue's roles, Output.
std::vector<ParamRole> gemmRoles(const Epilogue &E);

/// One operand tile of Rows x Cols elements starting at (RowStart, ColStart), zero outside
/// [0, RowLimit) x [0, ColLimit). Base (the batch's first element) and the strides have the
/// index type; rows, columns and limits are i32.
struct TileSource {
  ParamRole Role;
  llvm::Value *Base;
  llvm::Value *RowStart, *RowLimit, *RowStride;
  llvm::Value *ColStart, *ColLimit, *ColStride;
  uint32_t Rows, Cols;
  const ConvSpec *Im2col = nullptr;                  ///< see GemmShape::Im2col
  bool UnitRowStride = false, UnitColStride = false; ///< unitStride()
};

/// The Rows x Cols tile of A at (Row0, K0) and of B at (K0, Col0), of the batch at Base.
TileSource tileA(const GemmShape &G, llvm::Value *Base, llvm::Value *Row0, llvm::Value *K0,
                 uint32_t Rows, uint32_t Cols);
TileSource tileB(const GemmShape &G, llvm::Value *Base, llvm::Value *K0, llvm::Value *Col0,
                 uint32_t Rows, uint32_t Cols);

/// Whether global element (GR, GC) of the operand exists, and its index.
std::pair<llvm::Value *, llvm::Value *> elementAt(KernelBuilder &K, const TileSource &T,
                                                  llvm::Value *GR, llvm::Value *GC);

/// Applies the epilogue to the accumulator in slot AccSlot (KernelBuilder::accumulator) for output
/// (Row, Col) of batch Img (index type) and stores it, when (Row, Col) is inside the M x N output.
void storeOutput(KernelBuilder &K, const GemmShape &G, const Epilogue &E, llvm::Value *AccSlot,
                 llvm::Value *Row, llvm::Value *Col, llvm::Value *Img);
/// storeOutput for f16 outputs in f16 arithmetic (HalfOps::epilogue; E's activation has an f16
/// form): one accumulator, or two for outputs (Row, Col) and (Row, Col + 1) in f16x2 with one
/// 32-bit store (N even, so that Col even and inside means Col + 1 inside too).
void storeOutputHalf(KernelBuilder &K, const GemmShape &G, const Epilogue &E,
                     const std::vector<llvm::Value *> &AccSlots, llvm::Value *Row, llvm::Value *Col,
                     llvm::Value *Img);

} // namespace corpus::kernels
