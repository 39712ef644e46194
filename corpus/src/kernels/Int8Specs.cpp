// Int8 layer specs (ConvSpec and GemmSpec with dtype I8): which kernel each gets, validation,
// kernel names, and the builders by strategy (Int8Gemm.h; docs/lowering.md, "Int8 engines").
#include "kernels/Int8Gemm.h"
#include "kernels/Specs.h"

#include <algorithm>

namespace corpus {

uint32_t int8Channels(uint32_t C) { return C <= 4 ? 4 : (C + 15) / 16 * 16; }

bool hasInt8Kernel(const ConvSpec &S) {
  if (S.groups <= 1)
    return true;
  if (S.groups == S.inChannels) // depthwise: one output channel per input channel
    return S.outChannels == S.inChannels;
  // Grouped: whole dp4a words per group, and a thread's four output channels in one group.
  return S.inChannels % S.groups == 0 && S.outChannels % S.groups == 0 &&
         (S.inChannels / S.groups) % 4 == 0 && (S.outChannels / S.groups) % 4 == 0;
}

namespace kernels {

namespace {

constexpr uint64_t Int8MaxElements = uint64_t(1) << 31; // int8 kernels index with 32 bits

std::string num(uint64_t V) { return std::to_string(V); }

bool pointwise(const ConvSpec &S) {
  return S.kernelH == 1 && S.kernelW == 1 && S.strideH == 1 && S.strideW == 1 && S.groups == 1 &&
         !convPadded(S);
}

/// What every int8 spec needs: int8 math (or dp4a), no squeeze-excitation scale, 32-bit tensors.
std::optional<std::string> int8Common(const char *Layer, const ConvSpec *C, const Int8Gemm &G,
                                      MathMode Math, MmaArch Arch, bool Se) {
  if (Math != MathMode::Simt && Math != MathMode::Int8)
    return std::string(Layer) +
           ": int8 data takes --math int8 (tensor cores) or simt (dp4a), not " + mathModeName(Math);
  if (Math == MathMode::Int8 && Arch == MmaArch::Sm70)
    return std::string(Layer) + ": int8 tensor cores need sm_75 (there is no sm_70 s8 mma)";
  if (Se)
    return std::string(Layer) + ": an int8 kernel fuses no squeeze-excitation scale";
  const uint64_t In =
      C ? uint64_t(C->batch) * C->inHeight * C->inWidth * G.CinPad : uint64_t(G.M) * G.CinPad;
  const uint64_t Largest =
      std::max({In, uint64_t(G.M) * G.NPad, uint64_t(G.N) * G.K, uint64_t(G.M) * (G.CinPad / 4)});
  if (Largest >= Int8MaxElements)
    return std::string(Layer) + ": a tensor of " + num(Largest) +
           " elements (int8 kernels index with 32 bits: at most 2^31 - 1)";
  return std::nullopt;
}

/// "_of16" for an f16 output, "_rf16" for an f16 residual (int8 is the default of both).
std::string ioSuffix(const Int8Gemm &G) {
  std::string S;
  if (G.E.residual != ResidualKind::None && G.Io.residual == TensorForm::F16Nchw)
    S += "_rf16";
  if (G.Io.output == TensorForm::F16Nchw)
    S += "_of16";
  return S;
}

/// The strategy's name part: "_mma_int8" ("_mma_int8_sm75"), "_dp4a", "_dw_dp4a", "_gemv_dp4a".
std::string strategyKey(Int8Strategy St, MmaArch Arch) {
  switch (St) {
  case Int8Strategy::Mma:
    return tensorCoreInfix(true, MathMode::Int8, Arch);
  case Int8Strategy::Direct:
    return "_dp4a";
  case Int8Strategy::Depthwise:
    return "_dw_dp4a";
  case Int8Strategy::Gemv:
    break;
  }
  return "_gemv_dp4a";
}

/// A library kernel's specialisations: the tile (mma) or block (direct), int8 output pairs.
std::string libraryKeys(const Int8Gemm &G, Int8Strategy St) {
  std::string N;
  if (St == Int8Strategy::Mma)
    N += "_t" + num(int8MmaTile(G).m) + "x" + num(int8MmaTile(G).n);
  if (St == Int8Strategy::Direct)
    N += "_b" + num(int8DirectBlock(G)) + (G.Groups > 1 ? "_grouped" : "") +
         (int8WordsPerTap(G) == 1 ? "_w1" : "");
  if (St != Int8Strategy::Depthwise && G.Io.output == TensorForm::I8Nhwc && G.N % 2 == 0)
    N += "_n2";
  return N;
}

std::string finish(const std::string &Body, const Int8Gemm &G) {
  return shorten(Body + "_s8" + epilogueSuffix(G.E) + ioSuffix(G));
}

} // namespace

Int8Strategy int8Strategy(const ConvSpec &S) {
  if (S.groups > 1 && S.groups == S.inChannels)
    return Int8Strategy::Depthwise;
  if (pointwise(S) && uint64_t(S.batch) * S.outHeight() * S.outWidth() < MinGemmRows)
    return Int8Strategy::Gemv;
  if (S.math == MathMode::Int8 && S.groups == 1 && int8Channels(S.inChannels) % 16 == 0)
    return Int8Strategy::Mma;
  return Int8Strategy::Direct;
}

Int8Strategy int8Strategy(const GemmSpec &S) {
  if (S.rows < MinGemmRows)
    return Int8Strategy::Gemv;
  if (S.math == MathMode::Int8 && int8Channels(S.inFeatures) % 16 == 0)
    return Int8Strategy::Mma;
  return Int8Strategy::Direct;
}

std::optional<std::string> validateInt8(const ConvSpec &S) {
  if (auto E = validate(S, ConvStrategy::Direct)) // shapes, window, groups
    return E;
  if (!hasInt8Kernel(S))
    return "conv: no int8 kernel for " + num(S.groups) + " groups of " +
           num(S.inChannels / S.groups) + " -> " + num(S.outChannels / S.groups) +
           " channels (ungrouped, depthwise with one output per channel, or groups of a multiple "
           "of 4 channels)";
  return int8Common("conv", &S, int8Gemm(S), S.math, S.mmaArch, S.epilogue.seScale);
}

std::optional<std::string> validateInt8(const GemmSpec &S) {
  if (auto E = validate(S))
    return E;
  return int8Common("dense", nullptr, int8Gemm(S), S.math, S.mmaArch, false);
}

std::string int8KernelName(const ConvSpec &S, KernelSet Set) {
  const Int8Strategy St = int8Strategy(S);
  const Int8Gemm G = int8Gemm(S);
  std::string N = "conv" + strategyKey(St, S.mmaArch);
  if (Set == KernelSet::Library)
    return finish("lib_" + N + libraryKeys(G, St) + convWindowKeys(S), G);
  N += "_n" + num(S.batch) + "_c" + num(S.inChannels) + "x" + num(S.outChannels) + "_h" +
       num(S.inHeight) + "w" + num(S.inWidth) + "_k" + shapePair(S.kernelH, S.kernelW) + "_s" +
       shapePair(S.strideH, S.strideW) + "_p" + pads(S.padTop, S.padLeft, S.padBottom, S.padRight);
  if (S.dilationH != 1 || S.dilationW != 1)
    N += "_d" + shapePair(S.dilationH, S.dilationW);
  if (S.groups != 1)
    N += "_g" + num(S.groups);
  return finish(N, G);
}

std::string int8KernelName(const GemmSpec &S, KernelSet Set) {
  const Int8Strategy St = int8Strategy(S);
  const Int8Gemm G = int8Gemm(S);
  std::string N = "dense" + strategyKey(St, S.mmaArch);
  if (Set == KernelSet::Library)
    return finish("lib_" + N + libraryKeys(G, St), G);
  return finish(N + "_m" + num(S.rows) + "_k" + num(S.inFeatures) + "_n" + num(S.outFeatures), G);
}

KernelLaunch buildInt8(llvm::Module *M, const ConvSpec &S, const std::string &Name, KernelSet Set) {
  const Int8Gemm G = int8Gemm(S);
  switch (int8Strategy(S)) {
  case Int8Strategy::Mma:
    return buildInt8Mma(M, G, Name, Set, G.Window ? LaunchStrategy::ConvImplicitGemmMma
                                           : LaunchStrategy::ConvGemmMma,
                        S.mmaArch);
  case Int8Strategy::Depthwise:
    return buildInt8Depthwise(M, G, Name, Set);
  case Int8Strategy::Gemv:
    return buildInt8Gemv(M, G, Name, Set, LaunchStrategy::ConvGemv);
  case Int8Strategy::Direct:
    break;
  }
  return buildInt8Direct(M, G, Name, Set, LaunchStrategy::ConvDirect);
}

KernelLaunch buildInt8(llvm::Module *M, const GemmSpec &S, const std::string &Name, KernelSet Set) {
  const Int8Gemm G = int8Gemm(S);
  switch (int8Strategy(S)) {
  case Int8Strategy::Mma:
    return buildInt8Mma(M, G, Name, Set, LaunchStrategy::DenseGemmMma, S.mmaArch);
  case Int8Strategy::Gemv:
    return buildInt8Gemv(M, G, Name, Set, LaunchStrategy::DenseGemv);
  default:
    break;
  }
  return buildInt8Direct(M, G, Name, Set, LaunchStrategy::DenseGemm);
}

} // namespace kernels
} // namespace corpus
