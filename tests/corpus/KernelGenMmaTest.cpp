// Tensor-core GEMM kernels (--math tf32, f16, bf16; the sm_80, sm_75 and sm_70 kernels): every
// case runs in the exact PTX interpreter and matches the CPU reference within the bound its
// operand rounding implies (docs/lowering.md, "Tensor-core GEMM"); the tensor-core counts equal
// the padded GEMM; fast mode counts what exact mode counts; ptxas accepts the kernels for sm_80,
// sm_86, sm_89 and sm_90 and the sm_75 kernels for sm_75 (the sm_70 ones too: CUDA 13's ptxas has
// no sm_70); what cannot run on an architecture is refused with the reason.
#include "KernelCases.h"
#include "KernelRef.h"
#include "KernelRun.h"
#include "Ptxas.h"

#include "analyzer/FastMode.h"
#include "corpus/Builder.h"
#include "corpus/Lower.h"
#include "corpus/Zoo.h"
#include "ptx/Ir.h"
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <regex>
#include <string>
#include <vector>

using namespace corpus;
using namespace kernelcases;
using namespace kernelrun;

namespace {

/// A math mode, the data type it rounds and the kernels' architecture.
struct MmaConfig {
  MathMode math;
  DType dtype;
  MmaArch arch;
};

/// Every tensor-core case for one configuration: implicit GEMMs with stride, padding, dilation
/// and asymmetric windows, 1x1 GEMMs, dense layers, batched matmuls; ragged M, N and K; each of
/// the three CTA tiles; every epilogue piece.
std::vector<Case> mmaCases(MmaConfig Cfg) {
  using AK = ActivationKind;
  const MathMode M = Cfg.math;
  const DType T = Cfg.dtype;
  const MmaArch A = Cfg.arch;
  std::vector<Case> Cs;
  auto AddConv = [&](const char *L, ConvSpec S, Epilogue E, ConvStrategy St) {
    S.dtype = T;
    S.math = M;
    S.mmaArch = A;
    S.epilogue = E;
    S.strategy = St;
    Cs.push_back({L, S});
  };
  const ConvStrategy Auto = ConvStrategy::Auto;
  AddConv("igemm 3x3 stride 2 pad 1, 32x32 tile", conv(2, 5, 20, 9, 7, 3, 2, 1),
          epi(AK::Relu, true, true), Auto);
  AddConv("igemm 3x3, 64x64 tile", conv(1, 8, 64, 10, 9, 3, 1, 1),
          epi(AK::None, false, false, ResidualKind::AfterActivation), Auto);
  AddConv("igemm asymmetric dilated", asymmetricConv(), epi(AK::Tanh, true),
          ConvStrategy::ImplicitGemm);
  AddConv("igemm 5x5 pad 2, 128x64 tile", conv(1, 3, 130, 12, 11, 5, 1, 2), epi(AK::Swish, true),
          Auto);
  // Channel-blocked (filters [cout][cin / 16][kh][kw][16]): input channels in whole K stages of 16.
  AddConv("igemm 3x3 blocked, 64x64 tile", conv(2, 32, 40, 9, 7, 3, 1, 1),
          epi(AK::Relu, false, true), Auto);
  AddConv("igemm 3x3 stride 2 blocked, 128x64 tile", conv(1, 16, 130, 17, 16, 3, 2, 1),
          epi(AK::None, true), Auto);
  AddConv("igemm 1x1 stride 2 blocked, 32x32 tile", conv(2, 16, 24, 7, 9, 1, 2, 0),
          epi(AK::Relu, true, false, ResidualKind::BeforeActivation), Auto);
  // 2 x 32 x 2 = 128 CTAs of 128 x 128 (the rule's least), ragged pixels (64 x 63).
  AddConv("igemm 3x3 blocked, tf32 128x128 tile (two stages)", conv(2, 16, 130, 64, 63, 3, 1, 1),
          epi(AK::Relu, true), Auto);
  AddConv("1x1 ragged", conv(2, 20, 33, 5, 7, 1, 1, 0), epi(AK::HardSwish, true), Auto);
  AddConv("1x1 leaky relu", conv(1, 20, 33, 5, 7, 1, 1, 0), epiAlpha(AK::LeakyRelu, 0.1f, true),
          Auto);
  AddConv("1x1 se", conv(2, 8, 5, 3, 3, 1, 1, 0),
          epi(AK::HardSigmoid, false, false, ResidualKind::None, true), ConvStrategy::Gemm);
  AddConv("1x1 128x64 tile", conv(1, 24, 128, 9, 9, 1, 1, 0),
          epi(AK::Relu, false, true, ResidualKind::BeforeActivation), Auto);
  Cs.push_back({"dense gelu", GemmSpec{20, 37, 9, T, epi(AK::Gelu, true), false, M, A}});
  Cs.push_back({"dense 64x64 tile",
                GemmSpec{66, 40, 67, T, epi(AK::Relu, true, false, ResidualKind::BeforeActivation),
                         false, M, A}});
  Cs.push_back({"dense 128x64 tile", GemmSpec{130, 64, 72, T, epi(AK::Sigmoid), false, M, A}});
  Cs.push_back({"bmm ragged", BatchMatMulSpec{3, 20, 37, 13, T, false, M, A}});
  Cs.push_back({"bmm 64x64 tile", BatchMatMulSpec{2, 66, 40, 67, T, false, M, A}});
  return Cs;
}

/// The GEMM a case computes: M x N outputs per batch, K deep.
struct GemmDims {
  uint64_t batch, m, n, k;
};

GemmDims dimsOf(const AnySpec &Spec) {
  if (const auto *C = std::get_if<ConvSpec>(&Spec))
    return {C->batch, C->outChannels, uint64_t(C->outHeight()) * C->outWidth(),
            uint64_t(C->inChannels) * C->kernelH * C->kernelW};
  if (const auto *B = std::get_if<BatchMatMulSpec>(&Spec))
    return {B->batch, B->m, B->k, B->n};
  const auto &D = std::get<GemmSpec>(Spec);
  return {1, D.rows, D.outFeatures, D.inFeatures};
}

/// The documented tile rule (docs/lowering.md): 128 x 128 for big tf32 convolutions with a
/// window (channel-blocked) whose grid keeps 128 CTAs, else 128 x 64, 32 x 32 or 64 x 64.
std::pair<uint64_t, uint64_t> tileOf(const AnySpec &Spec, const GemmDims &D, MathMode M) {
  const auto *C = std::get_if<ConvSpec>(&Spec);
  const bool Window = C && C->inChannels % 16 == 0 && C->kernelH * C->kernelW > 1;
  if (M == MathMode::Tf32 && Window && D.m >= 128 && D.n >= 128 &&
      (D.m + 127) / 128 * ((D.n + 127) / 128) * D.batch >= 128)
    return {128, 128};
  if (D.m >= 128 && D.n >= 64)
    return {128, 64};
  if (D.m <= 32 || D.n <= 32)
    return {32, 32};
  return {64, 64};
}

/// Relative rounding error of one operand: tf32 keeps 10 fraction bits (cvt.rna: <= 2^-11),
/// f16 10 bits (<= 2^-11), bf16 7 bits (<= 2^-8).
double unitRoundoff(MathMode M) { return M == MathMode::Bf16 ? 0x1p-8 : 0x1p-11; }

/// The operands as the tensor cores see them.
float roundOperand(float V, MathMode M) {
  uint32_t X;
  std::memcpy(&X, &V, 4);
  if (M == MathMode::Tf32)
    X = (X + 0x1000u) & ~0x1fffu; // nearest, ties away from zero (.rna)
  else if (M == MathMode::Bf16)
    X = ((X + 0x7fffu + ((X >> 16) & 1u)) >> 16) << 16; // nearest even
  else
    return kernelref::halfToFloat(kernelref::floatToHalf(V));
  std::memcpy(&V, &X, 4);
  return V;
}

std::vector<double> referenceOf(const AnySpec &Spec, const kernelref::Buffers &B) {
  if (const auto *C = std::get_if<ConvSpec>(&Spec))
    return kernelref::conv(*C, B);
  if (const auto *M = std::get_if<BatchMatMulSpec>(&Spec))
    return kernelref::batchMatMul(*M, B);
  return kernelref::dense(std::get<GemmSpec>(Spec), B);
}

/// sum_k |a_k b_k| per output: the reference on absolute values without the epilogue.
std::vector<double> absProducts(AnySpec Spec, kernelref::Buffers B) {
  if (auto *C = std::get_if<ConvSpec>(&Spec))
    C->epilogue = Epilogue();
  else if (auto *D = std::get_if<GemmSpec>(&Spec))
    D->epilogue = Epilogue();
  for (ParamRole R : {ParamRole::Input, ParamRole::Input2, ParamRole::Weight})
    for (float &V : B[R])
      V = std::fabs(V);
  return referenceOf(Spec, B);
}

Epilogue epilogueOf(const AnySpec &Spec) {
  if (const auto *C = std::get_if<ConvSpec>(&Spec))
    return C->epilogue;
  if (const auto *D = std::get_if<GemmSpec>(&Spec))
    return D->epilogue;
  return Epilogue();
}

/// What f16 arithmetic in the epilogue may add per output (docs/lowering.md, "Half-precision
/// math": f16 outputs whose activation is none, relu or relu6): the accumulator's rounding to
/// f16 and one rounding per add, multiply or fma, each within 2^-11 of its result, and every
/// result at most the reference on the absolute values of all operands times the slopes after it
/// (batch-norm scale <= 1.5). Zeros for f32 epilogues.
std::vector<double> halfEpilogueSlack(const Case &C, DType T, kernelref::Buffers Data) {
  const Epilogue E = epilogueOf(C.spec);
  const bool Half = T == DType::F16 &&
                    (E.activation == ActivationKind::None || E.activation == ActivationKind::Relu ||
                     E.activation == ActivationKind::Relu6);
  for (auto &[Role, Values] : Data)
    for (float &V : Values)
      V = std::fabs(V);
  std::vector<double> Slack = referenceOf(C.spec, Data);
  const int Steps = 1 + E.bias + E.batchNorm + (E.residual != ResidualKind::None) + E.seScale;
  for (double &V : Slack)
    V *= Half ? Steps * 0x1p-11 * 1.5 : 0.0;
  return Slack;
}

/// kernelref::maxRelError of what exceeds Slack.
double maxRelExcess(const std::vector<float> &Got, const std::vector<double> &Ref,
                    const std::vector<double> &Slack) {
  std::vector<float> Closer(Got);
  for (size_t I = 0; I < Got.size(); ++I) // Got moved towards Ref by up to Slack
    Closer[I] = float(Ref[I] + std::copysign(std::max(0.0, std::fabs(Got[I] - Ref[I]) - Slack[I]),
                                             Got[I] - Ref[I]));
  return kernelref::maxRelError(Closer, Ref);
}

/// Checks one case's output against (1) the reference on operands rounded as the tensor cores
/// round them (tight: only the f32 accumulation order, the output's storage rounding and the f16
/// epilogue's roundings differ) and (2) the reference on the data as stored, per element within
/// 2.25 (2u + u^2 + K 2^-24) sum_k |a_k b_k| (+ the f16 output's rounding and the f16
/// epilogue's): 2.25 bounds the epilogue's slope (batch-norm scale <= 1.5 times an activation
/// slope <= 1.5, hardswish's).
void checkValues(const Case &C, MathMode M, DType T, const std::vector<float> &Got,
                 const kernelref::Buffers &Data) {
  kernelref::Buffers Rounded = Data;
  for (ParamRole R : {ParamRole::Input, ParamRole::Input2, ParamRole::Weight})
    for (float &V : Rounded[R])
      V = roundOperand(V, M);
  const std::vector<double> Slack = halfEpilogueSlack(C, T, Data);
  const double Tight = T == DType::F16 ? 1e-3 : 1e-4;
  double Err = maxRelExcess(Got, referenceOf(C.spec, Rounded), Slack);
  CHECK_MESSAGE(Err <= Tight, "vs rounded operands: max relative error " << Err);
  std::vector<double> Ref = referenceOf(C.spec, Data), Abs = absProducts(C.spec, Data);
  REQUIRE(Ref.size() == Got.size());
  const double U = unitRoundoff(M), K = double(dimsOf(C.spec).k);
  const double PerTerm = 2.25 * (2 * U + U * U + K * 0x1p-24);
  size_t Over = 0;
  double Worst = 0;
  for (size_t I = 0; I < Got.size(); ++I) {
    double Bound =
        PerTerm * Abs[I] + (T == DType::F16 ? 0x1p-11 * std::fabs(Ref[I]) : 0) + Slack[I] + 1e-30;
    double Diff = std::fabs(Got[I] - Ref[I]);
    Worst = std::max(Worst, Diff / Bound);
    Over += Diff > Bound;
  }
  CHECK_MESSAGE(Over == 0,
                Over << " outputs beyond the rounding bound (worst " << Worst << " of the bound)");
}

/// Multiply-adds of one mma instruction: m16n8k8 (tf32; f16 on sm_75), m16n8k16 (f16, bf16 on
/// sm_80), m8n8k4 (sm_70: four 8 x 8 x 4 products, one per quad pair).
uint64_t macsPerMma(MmaConfig Cfg) {
  if (Cfg.arch == MmaArch::Sm70)
    return 4 * 8 * 8 * 4;
  return Cfg.arch == MmaArch::Sm75 || Cfg.math == MathMode::Tf32 ? 16 * 8 * 8 : 16 * 8 * 16;
}

/// The padded GEMM's multiply-adds: every warp runs every mma of its tile, edges included. (With
/// N <= 8, LLVM drops the last K tile's mma of n8 tiles it can prove lie past N, whose results
/// are never stored; the cases keep N > 8.)
void checkCounts(const Case &C, MmaConfig Cfg, const KernelLaunch &L,
                 const analyzer::KernelProfile &P) {
  const GemmDims D = dimsOf(C.spec);
  const auto [Tm, Tn] = tileOf(C.spec, D, Cfg.math);
  CHECK(L.grid == std::array<uint32_t, 3>{uint32_t((D.n + Tn - 1) / Tn),
                                          uint32_t((D.m + Tm - 1) / Tm), uint32_t(D.batch)});
  const uint64_t Padded =
      uint64_t(L.grid[0]) * L.grid[1] * L.grid[2] * Tm * Tn * ((D.k + 15) / 16 * 16);
  CHECK(P.tensorMacs == Padded);
  CHECK(P.warpInstructions[size_t(ptx::InstrClass::Tensor)] == Padded / macsPerMma(Cfg));
}

const char *mmaInstruction(MmaConfig Cfg) {
  if (Cfg.arch == MmaArch::Sm70)
    return "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32";
  if (Cfg.arch == MmaArch::Sm75)
    return "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32";
  switch (Cfg.math) {
  case MathMode::Tf32:
    return "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
  case MathMode::F16:
    return "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
  default:
    return "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
  }
}

/// Math modes with the data types they take (tf32 and bf16 round f32 data, f16 f32 or f16 data)
/// and the architectures whose kernels have them (tf32 and bf16: sm_80).
const std::vector<MmaConfig> &mmaConfigs() {
  static const std::vector<MmaConfig> Configs = {
      {MathMode::Tf32, DType::F32, MmaArch::Sm80}, {MathMode::F16, DType::F32, MmaArch::Sm80},
      {MathMode::Bf16, DType::F32, MmaArch::Sm80}, {MathMode::F16, DType::F16, MmaArch::Sm80},
      {MathMode::F16, DType::F32, MmaArch::Sm75},  {MathMode::F16, DType::F16, MmaArch::Sm75},
      {MathMode::F16, DType::F32, MmaArch::Sm70},  {MathMode::F16, DType::F16, MmaArch::Sm70}};
  return Configs;
}

std::string configName(MmaConfig Cfg) {
  return std::string(mathModeName(Cfg.math)) +
         (Cfg.dtype == DType::F16 ? " on f16 data, " : " on f32 data, ") + mmaArchName(Cfg.arch) +
         " kernels";
}

/// The global -> shared copies: sm_80 uses cp.async, 128-bit (f32) or 64-bit (f16) where K is a
/// multiple of 4 and k contiguous, single elements elsewhere (im2col, K = 37 or 75): 4-byte
/// cp.async for f32, ld + st for f16. sm_75 and sm_70 load the same vectors and elements into
/// registers and store them to shared memory.
void checkCopies(const std::string &Ptx, MmaConfig Cfg) {
  const bool F32 = Cfg.dtype == DType::F32;
  if (Cfg.arch == MmaArch::Sm80) {
    CHECK(Ptx.find(F32 ? "], 16, " : "], 8, ") != std::string::npos);
    CHECK(Ptx.find(F32 ? "], 4, " : "st.shared.b16") != std::string::npos);
    return;
  }
  CHECK(Ptx.find("cp.async") == std::string::npos);
  CHECK(Ptx.find(F32 ? "ld.global.nc.v4.f32" : "ld.global.nc.v4.u16") != std::string::npos);
  CHECK(Ptx.find(F32 ? "st.shared.v4.f32" : "st.shared.v4.b16") != std::string::npos);
  CHECK(Ptx.find(F32 ? "st.shared.f32" : "st.shared.b16") != std::string::npos);
}

/// Every config once with specialised kernels and once with library kernels.
std::vector<std::pair<MmaConfig, KernelSet>> withKernelSets(const std::vector<MmaConfig> &Cfgs) {
  std::vector<std::pair<MmaConfig, KernelSet>> Out;
  for (const MmaConfig &C : Cfgs)
    for (KernelSet Set : {KernelSet::Specialised, KernelSet::Library})
      Out.emplace_back(C, Set);
  return Out;
}

} // namespace

TEST_CASE("tensor-core kernels match the CPU reference within their rounding, counts padded") {
  for (const auto &[Cfg, Set] : withKernelSets(mmaConfigs())) {
    INFO(configName(Cfg) << ", " << kernelSetName(Set));
    const MathMode M = Cfg.math;
    const DType T = Cfg.dtype;
    KernelEmitter E;
    E.useKernelSet(Set);
    E.checkNames(true);
    std::vector<std::pair<Case, KernelLaunch>> Launches;
    for (const Case &C : mmaCases(Cfg)) {
      auto L = addCase(E, C);
      REQUIRE_MESSAGE(L, C.label << ": " << support::errorText(L));
      CHECK(L->strategy.size() > 4);
      CHECK(L->strategy.substr(L->strategy.size() - 4) == "_mma");
      CHECK(L->math == M);
      CHECK(L->mmaArch == Cfg.arch);
      CHECK(L->block == std::array<uint32_t, 3>{128, 1, 1});
      Launches.emplace_back(C, *L);
    }
    auto Ptx = E.emitPtx(mmaArchName(Cfg.arch));
    REQUIRE_MESSAGE(Ptx, support::errorText(Ptx));
    CHECK(Ptx->find(mmaInstruction(Cfg)) != std::string::npos);
    CHECK((Ptx->find("ldmatrix.sync.aligned.m8n8.x4") != std::string::npos) ==
          ((T == DType::F16 && Cfg.arch != MmaArch::Sm70) || M == MathMode::Tf32));
    checkCopies(*Ptx, Cfg);
    // f16 outputs: relu and identity epilogues in f16x2 (batch norm as fma, pair stores).
    CHECK((Ptx->find("fma.rn.f16x2") != std::string::npos) == (T == DType::F16));
    CHECK((Ptx->find("st.global.b32") != std::string::npos) == (T == DType::F16));
    // tf32 rounds by adding half of the dropped bits' weight (the mma ignores them), no cvt.
    CHECK(Ptx->find("cvt.rna.tf32.f32") == std::string::npos);
    CHECK((Ptx->find(", 4096;") != std::string::npos) == (M == MathMode::Tf32));
    auto Mod = ptx::parseModule(*Ptx, "mma.ptx");
    REQUIRE_MESSAGE(Mod, support::errorText(Mod));
    auto Prog = analyzer::decodeProgram(*Mod);
    REQUIRE_MESSAGE(Prog, support::errorText(Prog));
    uint32_t Seed = 3000;
    for (const auto &[C, L] : Launches) {
      INFO(C.label << " (" << L.kernel << ")");
      kernelref::Buffers Data;
      analyzer::KernelProfile Profile;
      std::vector<float> Got = runCase(*Prog, L, Seed, Data, rangeOf, &Profile);
      Seed += 100;
      if (Got.empty())
        continue;
      // Channel-blocked kernels read the weights as [cout][cin / 16][kh][kw][16]; the reference
      // takes ONNX's order.
      const auto *Conv = std::get_if<ConvSpec>(&C.spec);
      const bool Blocked = Conv && Conv->inChannels % 16 == 0 &&
                           Conv->kernelH * Conv->kernelW * Conv->strideH * Conv->strideW > 1;
      CHECK(L.filtersBlocked == Blocked);
      CHECK((L.kernel.find("_oihw16i") != std::string::npos) == Blocked);
      if (L.filtersBlocked)
        Data[ParamRole::Weight] =
            kernelref::blockedToOihw(Conv->outChannels, Conv->inChannels / Conv->groups,
                                     Conv->kernelH * Conv->kernelW, Data[ParamRole::Weight]);
      checkValues(C, M, T, Got, Data);
      checkCounts(C, Cfg, L, Profile);
    }
  }
}

TEST_CASE("fast mode counts the tensor-core kernels within 1 % of exact mode, per launch") {
  for (const MmaConfig Cfg : {MmaConfig{MathMode::Tf32, DType::F32, MmaArch::Sm80},
                              MmaConfig{MathMode::F16, DType::F16, MmaArch::Sm80},
                              MmaConfig{MathMode::F16, DType::F16, MmaArch::Sm75},
                              MmaConfig{MathMode::F16, DType::F32, MmaArch::Sm75},
                              MmaConfig{MathMode::F16, DType::F16, MmaArch::Sm70},
                              MmaConfig{MathMode::F16, DType::F32, MmaArch::Sm70}}) {
    for (const Case &C : mmaCases(Cfg))
      for (KernelSet Set : {KernelSet::Specialised, KernelSet::Library}) {
        INFO(configName(Cfg) << ": " << C.label << ", " << kernelSetName(Set));
        KernelEmitter E;
        E.useKernelSet(Set);
        auto L = addCase(E, C);
        REQUIRE(L);
        auto Ptx = E.emitPtx(Cfg.arch == MmaArch::Sm80 ? "sm_90" : mmaArchName(Cfg.arch));
        REQUIRE(Ptx);
        checkFastMatchesExact(*L, *Ptx);
      }
  }
}

TEST_CASE("ptxas accepts the tensor-core kernels for their architectures and later ones") {
  if (!ptxastest::havePtxas())
    return;
  for (const MmaConfig &Cfg : mmaConfigs()) {
    KernelEmitter E;
    for (const Case &C : mmaCases(Cfg))
      REQUIRE(addCase(E, C));
    // The sm_70 kernels' PTX (.target sm_70) goes through ptxas for sm_75: CUDA 13 has no sm_70.
    std::vector<std::pair<const char *, const char *>> Targets = {
        {"sm_80", "sm_80"}, {"sm_86", "sm_86"}, {"sm_89", "sm_89"}, {"sm_90", "sm_90"}};
    if (Cfg.arch == MmaArch::Sm75)
      Targets.insert(Targets.begin(), {"sm_75", "sm_75"});
    if (Cfg.arch == MmaArch::Sm70)
      Targets.insert(Targets.begin(), {"sm_70", "sm_75"});
    for (const auto &[Arch, PtxasArch] : Targets) {
      INFO(configName(Cfg) << ": PTX for " << Arch << ", ptxas for " << PtxasArch);
      auto Ptx = E.emitPtx(Arch);
      REQUIRE_MESSAGE(Ptx, support::errorText(Ptx));
      CHECK(ptxastest::ptxasErrors(*Ptx, PtxasArch) == "");
    }
  }
}

TEST_CASE("tensor math is refused where it cannot run, with the reason") {
  CHECK(mathModeError(MathMode::Simt, DType::F16, "sm_75") == std::nullopt);
  CHECK(mathModeError(MathMode::Tf32, DType::F32, "sm_80") == std::nullopt);
  CHECK(mathModeError(MathMode::F16, DType::F16, "sm_90") == std::nullopt);
  CHECK(mathModeError(MathMode::F16, DType::F32, "sm_75") == std::nullopt);
  CHECK(mathModeError(MathMode::F16, DType::F16, "sm_70") == std::nullopt);
  CHECK(mathModeError(MathMode::Auto, DType::F32, "sm_70") == std::nullopt);
  CHECK(*mathModeError(MathMode::Tf32, DType::F32, "sm_75") ==
        "--math tf32 is not available on sm_75: tf32 mma needs sm_80");
  CHECK(*mathModeError(MathMode::Bf16, DType::F32, "sm_70") ==
        "--math bf16 is not available on sm_70: bf16 mma needs sm_80");
  CHECK(mmaArchFor("sm_70") == MmaArch::Sm70);
  CHECK(mmaArchFor("sm_75") == MmaArch::Sm75);
  CHECK(mmaArchFor("sm_80") == MmaArch::Sm80);
  CHECK(mmaArchFor("sm_90") == MmaArch::Sm80);
  CHECK(*mathModeError(MathMode::Bf16, DType::F16, "sm_90") ==
        "--math bf16 needs f32 data (f16 data would be rounded twice); use --math f16");
  CHECK(parseMathMode("tf32") == MathMode::Tf32);
  CHECK(parseMathMode("fp32") == std::nullopt);
  // A spec with a type the mode cannot take fails when added; a tensor-core kernel fails to emit
  // for sm_75 (the NVPTX backend would abort on it) and names itself.
  KernelEmitter E;
  GemmSpec Bad{16, 32, 32, DType::F16, {}, false, MathMode::Tf32};
  auto B = E.add(Bad);
  REQUIRE_FALSE(B);
  CHECK(B.error().str().find("dense: --math tf32 needs f32 data") != std::string::npos);
  auto L = E.add(GemmSpec{16, 32, 32, DType::F32, {}, false, MathMode::Tf32});
  REQUIRE(L);
  auto Ptx = E.emitPtx("sm_75");
  REQUIRE_FALSE(Ptx);
  CHECK(Ptx.error().message ==
        "kernel " + L->kernel + ": --math tf32 is not available on sm_75: tf32 mma needs sm_80");
  // A spec for an architecture without its mode fails when added; kernels written for a newer
  // architecture fail to emit for an older one (sm_80's cp.async, sm_75's ldmatrix), by name.
  auto Old = E.add(GemmSpec{16, 32, 32, DType::F32, {}, false, MathMode::Bf16, MmaArch::Sm75});
  REQUIRE_FALSE(Old);
  CHECK(Old.error().message ==
        "dense: --math bf16 is not available on sm_75: bf16 mma needs sm_80");
  KernelEmitter F;
  auto L80 = F.add(GemmSpec{16, 32, 32, DType::F16, {}, false, MathMode::F16, MmaArch::Sm80});
  REQUIRE(L80);
  CHECK(L80->kernel == "dense_mma_f16_m16_k32_n32_f16");
  auto Ptx75 = F.emitPtx("sm_75");
  REQUIRE_FALSE(Ptx75);
  CHECK(Ptx75.error().message == "kernel " + L80->kernel +
                                     ": the sm_80 tensor-core kernel cannot run on sm_75; lower "
                                     "for sm_75 to get its own kernels");
  KernelEmitter G;
  auto L75 = G.add(GemmSpec{16, 32, 32, DType::F16, {}, false, MathMode::F16, MmaArch::Sm75});
  REQUIRE(L75);
  CHECK(L75->kernel == "dense_mma_f16_sm75_m16_k32_n32_f16");
  CHECK(G.emitPtx("sm_80")); // sm_75's instructions exist on later architectures
  auto Ptx70 = G.emitPtx("sm_70");
  REQUIRE_FALSE(Ptx70);
  CHECK(Ptx70.error().message.find("the sm_75 tensor-core kernel cannot run on sm_70") !=
        std::string::npos);
}

namespace {

/// Kernel name -> PTX text from `.entry` to the next kernel's `// .globl`, block labels
/// unnumbered (the driver numbers them by position in the file).
std::map<std::string, std::string> kernelTexts(const Workload &W) {
  std::map<std::string, std::string> Texts;
  const std::regex Label(R"(\$L__BB\d+_)");
  for (const std::string &Module : W.ptx)
    for (size_t At = Module.find(".entry "); At != std::string::npos;) {
      size_t Next = Module.find(".entry ", At + 1);
      size_t End = Next == std::string::npos ? Next : Module.rfind("// .globl", Next);
      std::string Text = Module.substr(At, End == std::string::npos ? End : End - At);
      std::string Name = Text.substr(7, Text.find('(') - 7);
      Texts[Name] = std::regex_replace(Text, Label, "$$L__BB_");
      At = Next;
    }
  return Texts;
}

/// A lowering with tensor math next to simt's: launches moved to tensor cores and to f16x2.
struct TensorLowering {
  Workload workload;
  size_t mma = 0, half = 0;
};

/// Lowers N (data T) for sm_80 with simt and with M: the GEMM launches move to tensor cores,
/// f16 elementwise kernels of an f16 network may move to f16x2, every other kernel is the same
/// text as simt's.
TensorLowering checkTensorLowering(const Network &N, DType T, MathMode M) {
  LowerOptions O;
  O.arch = "sm_80";
  O.dtype = T;
  auto Simt = lower(N, O);
  REQUIRE(Simt);
  O.math = M;
  auto X = lower(N, O);
  REQUIRE_MESSAGE(X, support::errorText(X));
  CHECK(X->math == M);
  REQUIRE(X->launches.size() == Simt->launches.size());
  TensorLowering R;
  for (size_t I = 0; I < Simt->launches.size(); ++I) {
    const WorkloadLaunch &S = Simt->launches[I], &L = X->launches[I];
    const bool Gemm = S.strategy == "conv_gemm" || S.strategy == "conv_implicit_gemm" ||
                      S.strategy == "dense_gemm" || S.strategy == "bmm_gemm";
    CHECK(L.strategy == (Gemm ? S.strategy + "_mma" : S.strategy));
    CHECK(L.math == (Gemm ? M : MathMode::Simt));
    CHECK(L.macs == S.macs);
    CHECK(L.layers == S.layers);
    const bool Half = L.kernel != S.kernel && !Gemm;
    CHECK((!Half || L.kernel.find("_f16x2") == S.kernel.find("_f16")));
    R.mma += Gemm;
    R.half += Half;
  }
  // Kernels both lowerings have are the same text: tensor math changes only the GEMM kernels
  // (and f16 elementwise kernels, renamed).
  std::map<std::string, std::string> A = kernelTexts(*Simt), B = kernelTexts(*X);
  size_t Shared = 0;
  for (const auto &[Name, Text] : A)
    if (B.count(Name)) {
      ++Shared;
      CHECK_MESSAGE(B.at(Name) == Text, Name);
    }
  CHECK(Shared >= 3);
  R.workload = std::move(*X);
  return R;
}

/// Two pooled branches added (a standalone add + relu), a squeeze-excitation channel scale
/// (4 x 4: even), a 1x1 convolution.
Network pooledBranches() {
  NetworkBuilder B("branches", DType::F16);
  LayerId X = B.input({2, 8, 8, 8}, "x");
  LayerId P = B.maxPool(B.conv(X, 16, 1, 1, 0), 2, 2), Q = B.avgPool(B.conv(X, 16, 1, 1, 0), 2, 2);
  LayerId S = B.relu(B.addLayers(P, Q));
  B.conv(B.mulLayers(S, B.globalAvgPool(S)), 16, 1, 1, 0);
  auto N = B.finish();
  REQUIRE_MESSAGE(N, support::errorText(N));
  return std::move(*N);
}

} // namespace

TEST_CASE("lower --math f16 of an f16 network: tensor cores, f16x2 elementwise, the rest as simt") {
  TensorLowering R = checkTensorLowering(pooledBranches(), DType::F16, MathMode::F16);
  CHECK(R.mma == 3);
  CHECK(R.half == 2); // the add (+ relu) and the channel scale
}

TEST_CASE("lower --math tf32: GEMM layers on tensor cores, every other kernel as simt's") {
  auto N = buildZooModel("mobilenetv2-0.35", ZooOptions{2, 32, DType::F32});
  REQUIRE(N);
  TensorLowering R = checkTensorLowering(*N, DType::F32, MathMode::Tf32);
  CHECK(R.mma > 10);
  CHECK(R.half == 0);
  LowerOptions O;
  O.emitPtx = false;
  auto Simt = lower(*N, O);
  REQUIRE(Simt);
  CHECK(manifestJson(R.workload).find("\"math\": \"tf32\"") != std::string::npos);
  CHECK(manifestJson(*Simt).find("\"math\"") == std::string::npos);
  CHECK(workloadJson(*Simt).find("\"math\": \"simt\"") != std::string::npos);
  O.math = MathMode::Tf32;
  O.arch = "sm_75";
  auto Old = lower(*N, O);
  REQUIRE_FALSE(Old);
  CHECK(Old.error().message ==
        "lower: --math tf32 is not available on sm_75: tf32 mma needs sm_80");
}
