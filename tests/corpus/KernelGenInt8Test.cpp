// Int8 kernels (docs/lowering.md, "Int8 engines"): s8 tensor-core GEMMs for sm_80 and sm_75, and
// the dp4a direct, depthwise and GEMV kernels, specialised and library, run in the exact
// interpreter on seeded int8 data and equal the CPU reference byte for byte (int32 sums, an
// epilogue exact in f32, round-to-nearest-even saturated requantisation); the tensor-core
// multiply-adds are the padded GEMM's and all int8; fast mode counts what exact mode counts;
// ptxas accepts every kernel for its architectures; the reformats quantize and dequantize
// exactly.
#include "Int8Ref.h"
#include "KernelRun.h"
#include "Ptxas.h"

#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

using namespace corpus;

namespace {

using Spec = std::variant<ConvSpec, GemmSpec>;

struct Int8Case {
  std::string label;
  Spec spec;
  bool approximate = false; ///< a transcendental activation: outputs within 1 of the reference
};

/// The kernels' math and architecture: Int8 on sm_80 or sm_75, or dp4a (Simt) compiled for sm_70.
struct Int8Config {
  MathMode math;
  MmaArch arch;
  const char *ptxArch;
  std::vector<const char *> ptxasArchs;
};

const std::vector<Int8Config> &configs() {
  static const std::vector<Int8Config> C = {
      {MathMode::Int8, MmaArch::Sm80, "sm_80", {"sm_80", "sm_86", "sm_89", "sm_90"}},
      {MathMode::Int8, MmaArch::Sm75, "sm_75", {"sm_75"}},
      {MathMode::Simt, MmaArch::Sm70, "sm_70", {"sm_75"}}};
  return C;
}

ConvSpec conv(uint32_t N, uint32_t Cin, uint32_t Cout, uint32_t H, uint32_t W, uint32_t K,
              uint32_t Stride, uint32_t Pad, Epilogue E, Int8Io Io = {}, uint32_t Groups = 1) {
  ConvSpec S;
  S.batch = N, S.inChannels = Cin, S.outChannels = Cout, S.inHeight = H, S.inWidth = W;
  S.kernelH = S.kernelW = K, S.strideH = S.strideW = Stride;
  S.padTop = S.padLeft = S.padBottom = S.padRight = Pad;
  S.groups = Groups;
  S.dtype = DType::I8;
  S.epilogue = E;
  S.int8 = Io;
  return S;
}

Epilogue epi(ActivationKind A, bool Bias = false, bool Bn = false,
             ResidualKind R = ResidualKind::None, float Alpha = 0) {
  Epilogue E;
  E.activation = A, E.bias = Bias, E.batchNorm = Bn, E.residual = R, E.alpha = Alpha;
  return E;
}

GemmSpec dense(uint32_t Rows, uint32_t In, uint32_t Out, Epilogue E, Int8Io Io = {}) {
  GemmSpec S;
  S.rows = Rows, S.inFeatures = In, S.outFeatures = Out;
  S.dtype = DType::I8;
  S.epilogue = E;
  S.int8 = Io;
  return S;
}

/// Every int8 strategy: windows with stride, padding (asymmetric too) and dilation, 1x1 and
/// strided 1x1 convolutions, the 3-channel stem, depthwise 3x3 and 5x5, a grouped convolution,
/// dense layers of few and many rows; ragged M, N, K; each tensor-core tile; int8 and f16
/// outputs and residuals before and after the activation.
std::vector<Int8Case> cases() {
  using AK = ActivationKind;
  using RK = ResidualKind;
  const TensorForm F16 = TensorForm::F16Nchw, I8 = TensorForm::I8Nhwc;
  ConvSpec Dilated = conv(1, 16, 40, 11, 10, 3, 1, 2, epi(AK::Relu, true));
  Dilated.dilationH = Dilated.dilationW = 2;
  ConvSpec Asym = conv(1, 20, 20, 9, 8, 5, 2, 0, epi(AK::Relu6, false, true), {F16, I8}, 20);
  Asym.padTop = Asym.padLeft = 1, Asym.padBottom = Asym.padRight = 2;
  return {
      {"3x3 pad 1, 32x32 tile", {conv(2, 32, 24, 5, 5, 3, 1, 1, epi(AK::Relu, true))}},
      {"3x3 stride 2, f16 out, 64x64 tile",
       {conv(1, 20, 48, 19, 17, 3, 2, 1, epi(AK::Relu6, false, true), {F16, I8})}},
      {"3x3 128x64 tile", {conv(1, 64, 130, 12, 12, 3, 1, 1, epi(AK::None, true))}},
      {"1x1 int8 residual",
       {conv(2, 64, 40, 7, 7, 1, 1, 0, epi(AK::Relu, false, true, RK::BeforeActivation))}},
      {"1x1 odd N, f16 residual after",
       {conv(1, 16, 33, 6, 5, 1, 1, 0, epi(AK::Relu, true, false, RK::AfterActivation),
             {I8, F16})}},
      {"1x1 stride 2", {conv(1, 48, 128, 8, 8, 1, 2, 0, epi(AK::None, false, true))}},
      {"dilated 3x3", {Dilated}},
      {"stem 3 channels 7x7 stride 2", {conv(2, 3, 16, 20, 19, 7, 2, 3, epi(AK::Relu, true))}},
      {"depthwise 3x3", {conv(2, 24, 24, 7, 6, 3, 1, 1, epi(AK::Relu6, false, true), {}, 24)}},
      {"depthwise 5x5 stride 2 asymmetric, f16 out", {Asym}},
      {"grouped 2 x 8 channels", {conv(1, 16, 16, 6, 6, 3, 1, 1, epi(AK::Relu, true), {}, 2)}},
      {"1x1 of 4 rows (gemv), f16 out",
       {conv(4, 40, 10, 1, 1, 1, 1, 0, epi(AK::None, true), {F16})}},
      {"dense gemv", {dense(2, 100, 37, epi(AK::None, true), {F16})}},
      {"dense 32x32 tile", {dense(20, 64, 48, epi(AK::Relu, true))}},
      {"dense 128x64 tile int8 residual",
       {dense(130, 40, 72, epi(AK::Relu, false, false, RK::BeforeActivation))}},
      {"3x3 swish", {conv(1, 16, 32, 6, 6, 3, 1, 1, epi(AK::Swish, true))}, true},
      {"3x3 leaky relu",
       {conv(1, 16, 32, 6, 6, 3, 1, 1, epi(AK::LeakyRelu, true, false, {}, 0.1f))}},
      {"depthwise 3x3 elu, f16 out",
       {conv(1, 24, 24, 7, 6, 3, 1, 1, epi(AK::Elu, false, true, {}, 0.5f), {F16}, 24)},
       true},
  };
}

void applyConfig(Spec &S, const Int8Config &C) {
  std::visit(
      [&](auto &X) {
        X.math = C.math;
        X.mmaArch = C.arch;
      },
      S);
}

support::Expected<KernelLaunch> add(KernelEmitter &E, const Spec &S) {
  return std::visit([&](const auto &X) { return E.add(X); }, S);
}

int8ref::Layer layerOf(const Spec &S) {
  return std::visit([](const auto &X) { return int8ref::layerOf(X); }, S);
}

/// The documented tile rule (docs/lowering.md): M output pixels (rows) x N output channels.
std::pair<uint64_t, uint64_t> tileOf(uint64_t M, uint64_t N) {
  if (M >= 128 && N >= 64)
    return {128, 64};
  if (M <= 32 || N <= 32)
    return {32, 32};
  return {64, 64};
}

uint64_t gemmK(const Spec &S) {
  if (const auto *D = std::get_if<GemmSpec>(&S))
    return int8Channels(D->inFeatures);
  const ConvSpec &C = std::get<ConvSpec>(S);
  return uint64_t(C.kernelH) * C.kernelW * int8Channels(C.inChannels);
}

/// Tensor-core kernels: the padded GEMM's multiply-adds, all int8, in mma of the architecture.
void checkMmaCounts(const Int8Config &Cfg, const Spec &S, const KernelLaunch &L,
                    const analyzer::KernelProfile &P) {
  const int8ref::Layer Ly = layerOf(S);
  const auto [Tm, Tn] = tileOf(Ly.m, Ly.n);
  CHECK(L.grid ==
        std::array<uint32_t, 3>{uint32_t((Ly.m + Tm - 1) / Tm), uint32_t((Ly.n + Tn - 1) / Tn), 1});
  const uint64_t Padded = uint64_t(L.grid[0]) * L.grid[1] * Tm * Tn * ((gemmK(S) + 31) / 32 * 32);
  CHECK(P.tensorMacs == Padded);
  CHECK(P.tensorMacsInt8 == Padded);
  const uint64_t PerMma = Cfg.arch == MmaArch::Sm75 ? 8 * 8 * 16 : 16 * 8 * 32;
  CHECK(P.warpInstructions[size_t(ptx::InstrClass::Tensor)] == Padded / PerMma);
}

void checkPtx(const Int8Config &Cfg, const std::string &Ptx, bool Depthwise) {
  const bool Tc = Cfg.math == MathMode::Int8;
  CHECK(Ptx.find("cvt.rni.sat.s8.f32") != std::string::npos);
  if (Cfg.arch == MmaArch::Sm80) {
    CHECK(Ptx.find("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32") != std::string::npos);
    CHECK(Ptx.find("cp.async.ca.shared.global") != std::string::npos);
  }
  if (Cfg.arch == MmaArch::Sm75) {
    CHECK(Ptx.find("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32") != std::string::npos);
    CHECK(Ptx.find("cp.async") == std::string::npos);
    CHECK(Ptx.find("ld.global.nc.v4.u32") != std::string::npos);
  }
  if (Tc)
    CHECK(Ptx.find("ldmatrix.sync.aligned.m8n8.x4.shared.b16") != std::string::npos);
  CHECK(Ptx.find("dp4a.s32.s32") != std::string::npos); // the stem, depthwise, gemv
  if (Depthwise)
    CHECK(Ptx.find("prmt.b32") != std::string::npos);
}

/// The output matches the reference byte for byte (approximate cases: int8 values within 1).
void checkOutput(const Int8Case &C, const std::vector<uint8_t> &Got,
                 const std::vector<uint8_t> &Want) {
  REQUIRE(Got.size() == Want.size());
  size_t Off = 0;
  for (size_t I = 0; I < Got.size(); ++I) {
    const int D = std::abs(int(int8_t(Got[I])) - int(int8_t(Want[I])));
    Off += C.approximate ? D > 1 : D != 0;
  }
  CHECK_MESSAGE(Off == 0, Off << " of " << Got.size() << " output bytes differ");
}

} // namespace

TEST_CASE("int8 kernels equal the CPU reference exactly, tensor-core counts padded and int8") {
  for (const Int8Config &Cfg : configs())
    for (KernelSet Set : {KernelSet::Specialised, KernelSet::Library}) {
      INFO(mathModeName(Cfg.math) << " " << Cfg.ptxArch << " " << kernelSetName(Set));
      KernelEmitter E;
      E.useKernelSet(Set);
      E.checkNames(true);
      std::vector<std::tuple<Int8Case, Spec, KernelLaunch>> Launches;
      for (Int8Case C : cases()) {
        applyConfig(C.spec, Cfg);
        auto L = add(E, C.spec);
        REQUIRE_MESSAGE(L, C.label << ": " << support::errorText(L));
        CHECK(L->dtype == DType::I8);
        Launches.emplace_back(C, C.spec, *L);
      }
      auto Ptx = E.emitPtx(Cfg.ptxArch);
      REQUIRE_MESSAGE(Ptx, support::errorText(Ptx));
      checkPtx(Cfg, *Ptx, true);
      auto M = ptx::parseModule(*Ptx, "int8.ptx");
      REQUIRE_MESSAGE(M, support::errorText(M));
      auto Prog = analyzer::decodeProgram(*M);
      REQUIRE_MESSAGE(Prog, support::errorText(Prog));
      uint64_t Seed = 1;
      for (const auto &[C, S, L] : Launches) {
        INFO(C.label << ": " << L.kernel);
        int8ref::Layer Ly = layerOf(S);
        Ly.directFilters = L.strategy == "conv_direct" || L.strategy == "dense_gemm";
        const int8ref::Bytes Data = int8ref::seeded(L, Ly, Seed++);
        analyzer::KernelProfile P;
        std::vector<uint8_t> Got = int8ref::run(*Prog, L, Data, &P);
        checkOutput(C, Got, int8ref::reference(Ly, Data));
        if (L.math == MathMode::Int8)
          checkMmaCounts(Cfg, S, L, P);
        else
          CHECK(P.tensorMacs == 0);
        if (Set == KernelSet::Library)
          kernelrun::checkFastMatchesExact(L, *Ptx);
      }
    }
}

TEST_CASE("int8 kernels: strategies by layer and architecture, names, refusals") {
  ConvSpec S = conv(1, 64, 64, 8, 8, 3, 1, 1, epi(ActivationKind::Relu));
  S.math = MathMode::Int8;
  KernelEmitter E;
  auto L = E.add(S);
  REQUIRE(L);
  CHECK(L->strategy == "conv_implicit_gemm_mma");
  CHECK(L->math == MathMode::Int8);
  CHECK(L->kernel == "conv_mma_int8_n1_c64x64_h8w8_k3_s1_p1_s8_relu");
  CHECK(L->params[2].role == ParamRole::Scale);
  CHECK(L->params[2].elements == 66);
  S.mmaArch = MmaArch::Sm75;
  CHECK(E.add(S)->kernel == "conv_mma_int8_sm75_n1_c64x64_h8w8_k3_s1_p1_s8_relu");
  S.math = MathMode::Simt;
  S.int8.output = TensorForm::F16Nchw;
  CHECK(E.add(S)->strategy == "conv_direct");
  CHECK(E.add(S)->kernel == "conv_dp4a_n1_c64x64_h8w8_k3_s1_p1_s8_relu_of16");
  S.math = MathMode::Int8;
  S.mmaArch = MmaArch::Sm70;
  CHECK(support::errorText(E.add(S)).find("int8 tensor cores need sm_75") != std::string::npos);
  S.mmaArch = MmaArch::Sm80;
  S.math = MathMode::F16;
  CHECK(support::errorText(E.add(S)).find("does not take int8 data") != std::string::npos);
  ConvSpec G = conv(1, 12, 12, 5, 5, 3, 1, 1, epi(ActivationKind::None), {}, 3); // groups of 4
  CHECK(hasInt8Kernel(G));
  G.groups = 2; // groups of 6 channels: no whole dp4a words
  CHECK_FALSE(hasInt8Kernel(G));
  CHECK(support::errorText(E.add(G)).find("no int8 kernel") != std::string::npos);
  PoolSpec P;
  P.channels = P.inHeight = P.inWidth = 4;
  P.dtype = DType::I8;
  CHECK(support::errorText(E.add(P)).find("convolutions and dense layers only") !=
        std::string::npos);
  CHECK(int8Channels(3) == 4);
  CHECK(int8Channels(5) == 16);
  CHECK(int8Channels(40) == 48);
}

TEST_CASE("int8 reformats: quantize and dequantize exactly, NCHW f16 <-> NHWC int8") {
  for (KernelSet Set : {KernelSet::Specialised, KernelSet::Library})
    for (bool Quantize : {true, false}) {
      INFO(kernelSetName(Set) << (Quantize ? " quantize" : " dequantize"));
      const ReformatSpec S{Quantize, 2, 21, 15}; // 21 channels: padded to 32
      KernelEmitter E;
      E.useKernelSet(Set);
      auto L = E.add(S);
      REQUIRE(L);
      CHECK(L->strategy == (Quantize ? "copy_quantize" : "copy_dequantize"));
      auto Ptx = E.emitPtx("sm_75");
      REQUIRE(Ptx);
      if (ptxastest::havePtxas())
        CHECK(ptxastest::ptxasErrors(*Ptx, "sm_75") == "");
      auto M = ptx::parseModule(*Ptx, "reformat.ptx");
      REQUIRE(M);
      auto Prog = analyzer::decodeProgram(*M);
      REQUIRE(Prog);
      int8ref::Rng R{42};
      int8ref::Bytes D;
      D[ParamRole::Input].resize(paramBytes(L->params[0]));
      for (size_t I = 0; I < L->params[0].elements; ++I)
        if (Quantize) {
          const uint16_t H = kernelref::floatToHalf(float(R.in(-2000, 2000)) / 8);
          std::memcpy(&D[ParamRole::Input][2 * I], &H, 2);
        } else {
          D[ParamRole::Input][I] = uint8_t(int8_t(R.in(-128, 127)));
        }
      D[ParamRole::Scale].resize(4);
      int8ref::put(D[ParamRole::Scale], 0, Quantize ? 0.5f : 0.25f);
      D[ParamRole::Output].assign(paramBytes(L->params[2]), 0);
      std::vector<uint8_t> Got = int8ref::run(*Prog, *L, D);
      REQUIRE(Got.size() == D[ParamRole::Output].size());
      size_t Off = 0;
      for (uint32_t N = 0; N < 2; ++N)
        for (uint32_t P = 0; P < 15; ++P)
          for (uint32_t C = 0; C < 32; ++C) {
            const size_t Nhwc = (size_t(N) * 15 + P) * 32 + C, Nchw = (size_t(N) * 21 + C) * 15 + P;
            if (Quantize) {
              const double X =
                  C < 21 ? kernelref::halfToFloat(int8ref::u16At(D[ParamRole::Input], Nchw)) : 0;
              Off +=
                  int8_t(Got[Nhwc]) != int8_t(std::clamp(std::nearbyint(X * 0.5), -128.0, 127.0));
            } else if (C < 21) {
              Off += int8ref::u16At(Got, Nchw) !=
                     kernelref::floatToHalf(float(int8_t(D[ParamRole::Input][Nhwc])) * 0.25f);
            }
          }
      CHECK(Off == 0);
    }
}

TEST_CASE("int8 kernels: ptxas accepts every kernel for its architectures") {
  if (!ptxastest::havePtxas())
    return;
  for (const Int8Config &Cfg : configs()) {
    KernelEmitter E;
    E.useKernelSet(KernelSet::Library);
    for (Int8Case C : cases()) {
      applyConfig(C.spec, Cfg);
      REQUIRE(add(E, C.spec));
    }
    auto Ptx = E.emitPtx(Cfg.ptxArch);
    REQUIRE(Ptx);
    for (const char *Arch : Cfg.ptxasArchs) {
      INFO(Cfg.ptxArch << " kernels on " << Arch);
      CHECK(ptxastest::ptxasErrors(*Ptx, Arch) == "");
    }
  }
}
