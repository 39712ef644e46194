// The int8 kernels of an inference-engine lowering (docs/lowering.md, "Int8 engines"): the GEMM
// view of an int8 convolution or dense layer on NHWC int8 data, the strategy each layer gets,
// and the fused epilogue that dequantises the int32 accumulator and stores an int8 (requantised)
// or f16 output. Kernels: Int8Mma.cpp (s8 tensor cores), Int8Dp4a.cpp (dp4a direct convolution
// and GEMV), Int8Depthwise.cpp (dp4a depthwise), Reformat.cpp (quantize, dequantize).
#pragma once

#include "kernels/KernelBuilder.h"
#include "kernels/Strategies.h"

#include <array>
#include <functional>
#include <optional>
#include <string>

namespace corpus::kernels {

/// The kernel an int8 layer gets (int8Strategy).
enum class Int8Strategy : uint8_t {
  Mma,       ///< s8 tensor cores: implicit GEMM over NHWC (1x1 convolutions and dense included)
  Direct,    ///< dp4a on CUDA cores, one output pixel x four output channels per thread
  Depthwise, ///< dp4a over four window taps of one channel, transposed with prmt
  Gemv       ///< dp4a, one warp per output (fewer than MinGemmRows rows)
};

/// Out(m, n) = sum_k A(m, k) W(n, k) over int8 data, int32 sums: m is an output pixel of an image
/// (m = image x pixels + pixel) or a dense row, n an output channel, k = (kh, kw, ci) over the
/// input's padded channels (the filters are [cout][kh][kw][cin_pad], OHWI). A is the NHWC input
/// read through the window (an im2col computed on the fly; for a 1x1, stride-1, unpadded
/// convolution and a dense layer, the input itself as [M][cin_pad]).
struct Int8Gemm {
  uint32_t M = 0, N = 0, K = 0;
  uint32_t CinPad = 0;            ///< input channels with padding (dense: padded input features)
  uint32_t NPad = 0;              ///< an int8 output's channels with padding, int8Channels(N)
  uint32_t Pixels = 1;            ///< output pixels per image (dense: 1)
  uint32_t Groups = 1;            ///< ungrouped, depthwise (Groups == N) or grouped (Direct)
  const ConvSpec *Conv = nullptr; ///< the window; null for a dense layer
  /// A needs the window and group arithmetic: a grouped convolution or one other than 1x1,
  /// stride 1, unpadded (not a dense layer).
  bool Window = false;
  Epilogue E;
  Int8Io Io;
};

Int8Gemm int8Gemm(const ConvSpec &S);
Int8Gemm int8Gemm(const GemmSpec &S);
/// The shapes an int8 kernel computes with: m, n, k, n_pad, c_pad and quads = c_pad / 4 and
/// pixels (divisors); for a convolution also h, w, wo (a divisor), pad_t, pad_l, cin_g (a group's
/// input channels, the padded ones when ungrouped) and cout_g (a divisor).
ShapeDims int8Dims(const Int8Gemm &G);

Int8Strategy int8Strategy(const ConvSpec &S);
Int8Strategy int8Strategy(const GemmSpec &S);
/// A lower-case message when an int8 spec cannot be lowered, nullopt when it is fine.
std::optional<std::string> validateInt8(const ConvSpec &S);
std::optional<std::string> validateInt8(const GemmSpec &S);
/// Kernel names: the strategy with its tile or block, the shapes (specialised) or the window keys
/// (library), "s8", the epilogue, and the forms of the output and residual when f16 (`_of16`,
/// `_rf16`).
std::string int8KernelName(const ConvSpec &S, KernelSet Set);
std::string int8KernelName(const GemmSpec &S, KernelSet Set);

/// Where the window of output row `Row` (a pixel of an image) starts in the NHWC input: row
/// oh * stride - pad_t and column ow * stride - pad_l (may be negative), and the image's first
/// element (index type).
struct PixelOrigin {
  llvm::Value *IhBase, *IwBase, *ImgBase;
};
PixelOrigin pixelOrigin(KernelBuilder &K, const ConvSpec &S, llvm::Value *Row);

/// Parameter roles (Input, Weight, Scale, the epilogue's, Output) and their element counts and
/// types: int8 input, weights and int8-form tensors; f32 scales and epilogue parameters; f16
/// tensors in the f16 form. The Scale buffer holds n_pad dequantisation scales (input scale x
/// channel n's weight scale; padding channels too), then the residual's scale and the output's
/// reciprocal scale; bias and batch-norm buffers hold n_pad values.
std::vector<ParamRole> int8Roles(const Epilogue &E);
/// makeLaunch for an int8 layer: the parameters with their int8 element counts and types.
KernelLaunch makeInt8Launch(const std::string &Name, LaunchStrategy Strategy, const Int8Gemm &G,
                            Int8Strategy St, std::array<uint32_t, 3> Grid,
                            std::array<uint32_t, 3> Block);
/// The kernel of launch L (its shapes bound for Set): Body(K) writes its instructions into a
/// builder of L's parameters and G's shapes; without a module, the launch alone.
KernelLaunch int8Kernel(llvm::Module *M, const Int8Gemm &G, KernelLaunch L, KernelSet Set,
                        const std::function<void(KernelBuilder &)> &Body);
/// Bytes of the filters as the strategy stores them: OHWI [n][tap][c_pad] (tensor cores, GEMV),
/// [tap][word][n_pad][4] (direct: four channels' words of one input word are one 16-byte
/// vector), [tap groups][c_pad / 4][4 channels][4 taps] (depthwise).
uint64_t int8WeightElements(const Int8Gemm &G, Int8Strategy St);
/// Input words (4 channels) per window tap of a direct convolution (per row of a dense layer).
uint32_t int8WordsPerTap(const Int8Gemm &G);

/// One output channel's epilogue parameters (f32 values; null where the epilogue has none).
struct ChannelParams {
  llvm::Value *Scale = nullptr, *Bias = nullptr, *BnScale = nullptr, *BnShift = nullptr;
};
/// Channel Col's parameters, and four channels' from Col0 (a multiple of 4) with one 16-byte
/// load per parameter (the per-channel buffers are padded to n_pad).
ChannelParams channelParams(KernelBuilder &K, const Int8Gemm &G, llvm::Value *Col);
std::array<ChannelParams, 4> channelParams4(KernelBuilder &K, const Int8Gemm &G, llvm::Value *Col0);
/// The f32 value the epilogue computes for accumulator `Acc` (i32) of output (Row, Col):
/// Acc x scale[Col], then bias, batch norm, residual and activation as Epilogue says, with
/// channel Col's parameters P (or loaded here). Row must be inside M, Col inside n_pad.
llvm::Value *int8Value(KernelBuilder &K, const Int8Gemm &G, llvm::Value *Acc, llvm::Value *Row,
                       llvm::Value *Col, const ChannelParams &P);
llvm::Value *int8Value(KernelBuilder &K, const Int8Gemm &G, llvm::Value *Acc, llvm::Value *Row,
                       llvm::Value *Col);
/// 1 / s_out, the Scale parameter's last element.
llvm::Value *outputInvScale(KernelBuilder &K);
/// The value of an int8 output: round(Y x InvScale) saturated to [-128, 127]
/// (cvt.rni.sat.s8.f32), an i32 whose low byte is the result.
llvm::Value *quantize(KernelBuilder &K, llvm::Value *Y, llvm::Value *InvScale);
/// Stores the epilogue's value of accumulator `Acc` at output (Row, Col) when inside M x N: int8
/// at Row x NPad + Col, or f16 at [image][Col][pixel]. P: channel Col's parameters, loaded
/// already (else loaded inside the bounds check).
void storeInt8Output(KernelBuilder &K, const Int8Gemm &G, llvm::Value *Acc, llvm::Value *Row,
                     llvm::Value *Col, const ChannelParams *P = nullptr);
/// Two outputs (Row, Col) and (Row, Col + 1) of an int8 output with N even (Col even): both bytes
/// in one 16-bit store.
void storeInt8Pair(KernelBuilder &K, const Int8Gemm &G, llvm::Value *Acc0, llvm::Value *Acc1,
                   llvm::Value *Row, llvm::Value *Col);
/// The f16 output index of (Row, Col): [image][Col][pixel].
llvm::Value *f16OutputIndex(KernelBuilder &K, llvm::Value *Row, llvm::Value *Col);

/// Words (i32, or <Words x i32>) of int8 buffer R from byte ByteIndex (index type, aligned to the
/// load's size): one ld.global.nc of 4, 8 or 16 bytes.
llvm::Value *loadWords(KernelBuilder &K, ParamRole R, llvm::Value *ByteIndex, unsigned Words = 1);

/// dp4a.s32.s32 (PTX ISA 9.7.1.23): C + the four products of A's and B's signed bytes (inline
/// PTX: LLVM 19 has no dp4a intrinsic).
llvm::Value *dp4a(KernelBuilder &K, llvm::Value *A, llvm::Value *B, llvm::Value *C);
/// prmt.b32 (PTX ISA 9.7.8.7): the bytes of A (0-3) and B (4-7) picked by the four selector
/// nibbles of Sel.
llvm::Value *prmt(KernelBuilder &K, llvm::Value *A, llvm::Value *B, uint32_t Sel);
/// The four bytes of A, B, C, D (each's low byte) as one word, A lowest: three prmt.
llvm::Value *packBytes(KernelBuilder &K, llvm::Value *A, llvm::Value *B, llvm::Value *C,
                       llvm::Value *D);

/// The int8 kernels (Int8Mma.cpp, Int8Dp4a.cpp, Int8Depthwise.cpp).
KernelLaunch buildInt8Mma(llvm::Module *M, const Int8Gemm &G, const std::string &Name,
                          KernelSet Set, LaunchStrategy Strategy, MmaArch Arch);
KernelLaunch buildInt8Direct(llvm::Module *M, const Int8Gemm &G, const std::string &Name,
                             KernelSet Set, LaunchStrategy Strategy);
KernelLaunch buildInt8Gemv(llvm::Module *M, const Int8Gemm &G, const std::string &Name,
                           KernelSet Set, LaunchStrategy Strategy);
KernelLaunch buildInt8Depthwise(llvm::Module *M, const Int8Gemm &G, const std::string &Name,
                                KernelSet Set);
/// The tile of the int8 tensor-core GEMM (MmaTile: m x n) and the block of the dp4a direct
/// convolution, which the library names spell out.
MmaTile int8MmaTile(const Int8Gemm &G);
uint32_t int8DirectBlock(const Int8Gemm &G);

/// The int8 layer kernels, by strategy (Int8Specs.cpp).
KernelLaunch buildInt8(llvm::Module *M, const ConvSpec &S, const std::string &Name, KernelSet Set);
KernelLaunch buildInt8(llvm::Module *M, const GemmSpec &S, const std::string &Name, KernelSet Set);

/// Reformats (Reformat.cpp).
std::optional<std::string> validate(const ReformatSpec &S);
std::string kernelName(const ReformatSpec &S, KernelSet Set);
bool wideIndex(const ReformatSpec &S);
KernelLaunch buildReformat(llvm::Module *M, const ReformatSpec &S, const std::string &Name,
                           KernelSet Set);

} // namespace corpus::kernels
