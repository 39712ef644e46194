// Kernel generators, functional: every strategy's PTX runs in the exact PTX interpreter on
// seeded random data and matches the CPU reference of the layer (KernelRef.h).
#include "KernelCases.h"
#include "KernelRef.h"
#include "KernelRun.h"

#include "analyzer/Device.h"
#include "analyzer/Interpreter.h"
#include "analyzer/Program.h"
#include "corpus/KernelGen.h"
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

using namespace corpus;
using namespace kernelcases;
using namespace kernelrun;

namespace {

std::vector<double> reference(const AnySpec &Spec, const kernelref::Buffers &B) {
  struct Visitor {
    const kernelref::Buffers &B;
    std::vector<double> operator()(const ConvSpec &S) { return kernelref::conv(S, B); }
    std::vector<double> operator()(const GemmSpec &S) { return kernelref::dense(S, B); }
    std::vector<double> operator()(const PoolSpec &S) { return kernelref::pool(S, B); }
    std::vector<double> operator()(const ReduceSpec &S) { return kernelref::globalAvgPool(S, B); }
    std::vector<double> operator()(const ElementwiseSpec &S) {
      return kernelref::elementwise(S, B);
    }
    std::vector<double> operator()(const ConcatSpec &S) { return kernelref::concat(S, B); }
    std::vector<double> operator()(const SoftmaxSpec &S) { return kernelref::softmax(S, B); }
    std::vector<double> operator()(const BatchMatMulSpec &S) {
      return kernelref::batchMatMul(S, B);
    }
    std::vector<double> operator()(const LayerNormSpec &S) { return kernelref::layerNorm(S, B); }
    std::vector<double> operator()(const CopySpec &S) { return kernelref::copy(S, B); }
    std::vector<double> operator()(const UpsampleSpec &S) { return kernelref::upsample(S, B); }
    std::vector<double> operator()(const PadSpec &S) { return kernelref::pad(S, B); }
    std::vector<double> operator()(const AxisReduceSpec &S) { return kernelref::axisReduce(S, B); }
  };
  return std::visit(Visitor{B}, Spec);
}

/// rangeOf, with the input in [0.25, 2] when the case needs a positive one.
RangeFn caseRange(const Case &C) {
  return [Positive = C.positiveInput](ParamRole R) {
    return Positive && R == ParamRole::Input ? std::pair(0.25f, 2.0f) : rangeOf(R);
  };
}

/// Runs every case (kernels of `Set`, names checked) and compares it with the CPU reference.
void checkCases(const std::vector<Case> &Cases, double Tolerance,
                KernelSet Set = KernelSet::Specialised) {
  KernelEmitter E;
  E.useKernelSet(Set);
  E.checkNames(true);
  std::vector<std::pair<Case, KernelLaunch>> Launches;
  for (const Case &C : Cases) {
    auto L = addCase(E, C);
    REQUIRE_MESSAGE(L, C.label);
    Launches.emplace_back(C, *L);
  }
  auto Ptx = E.emitPtx("sm_90");
  REQUIRE(Ptx);
  auto Mod = ptx::parseModule(*Ptx, "kernelgen.ptx");
  REQUIRE_MESSAGE(Mod, support::errorText(Mod));
  auto Prog = analyzer::decodeProgram(*Mod);
  REQUIRE_MESSAGE(Prog, support::errorText(Prog));
  uint32_t Seed = 1000;
  for (const auto &[C, L] : Launches) {
    INFO(C.label << " (" << L.kernel << ")");
    auto Unsupported = Prog->unsupported(L.kernel);
    for (const support::Error &Err : Unsupported)
      FAIL_CHECK(Err.str());
    if (!Unsupported.empty())
      continue;
    kernelref::Buffers Data;
    std::vector<float> Got = runCase(*Prog, L, Seed, Data, caseRange(C));
    Seed += 100;
    if (Got.empty())
      continue;
    double Err = kernelref::maxRelError(Got, reference(C.spec, Data));
    CHECK_MESSAGE(Err <= Tolerance, "max relative error " << Err);
  }
}

} // namespace

TEST_CASE("f32 kernels match the CPU reference in the PTX interpreter") {
  checkCases(allCases(DType::F32), 1e-4);
}

TEST_CASE("f16 kernels match the CPU reference within half-precision rounding") {
  // Storage rounding of the result alone is up to 2^-11 relative; f32 accumulation inside.
  checkCases(allCases(DType::F16), 1e-3);
}

TEST_CASE("library kernels (shapes as parameters) match the CPU reference, f32 and f16") {
  // Cases of one strategy share a kernel: each runs code built for the first case's shapes.
  checkCases(allCases(DType::F32), 1e-4, KernelSet::Library);
  checkCases(allCases(DType::F16), 1e-3, KernelSet::Library);
  // f32 elementwise with counts divisible by 4: four elements per thread, 128-bit accesses.
  using AK = ActivationKind;
  const std::vector<Case> Vector = {
      {"add relu x4", ElementwiseSpec{ElementwiseOp::Add, 2, 4, 8, AK::Relu, DType::F32}},
      {"div x4", ElementwiseSpec{ElementwiseOp::Div, 1, 2, 32, AK::None, DType::F32}},
      {"pow x4", ElementwiseSpec{ElementwiseOp::Pow, 1, 1, 36, AK::Swish, DType::F32}, true},
      {"add x4, another size", ElementwiseSpec{ElementwiseOp::Add, 3, 5, 4, AK::None, DType::F32}}};
  for (const Case &C : Vector) {
    KernelEmitter E;
    E.useKernelSet(KernelSet::Library);
    auto L = addCase(E, C);
    REQUIRE(L);
    CHECK(L->kernel.find("_v4") != std::string::npos);
    CHECK(E.emitPtx("sm_90")->find("ld.global.nc.v4.f32") != std::string::npos);
  }
  checkCases(Vector, 1e-4, KernelSet::Library);
}

TEST_CASE("library kernels: fast mode counts each case within 1 % of exact mode") {
  for (const Case &C : allCases(DType::F32)) {
    INFO(C.label);
    KernelEmitter E;
    E.useKernelSet(KernelSet::Library);
    auto L = addCase(E, C);
    REQUIRE(L);
    CHECK_FALSE(L->shapeArgs.empty());
    auto Ptx = E.emitPtx("sm_90");
    REQUIRE(Ptx);
    checkFastMatchesExact(*L, *Ptx);
  }
}

TEST_CASE("kernels forced to 64-bit index arithmetic match the CPU reference, f32 and f16") {
  checkCases(wideCases(DType::F32), 1e-4);
  checkCases(wideCases(DType::F16), 1e-3);
}

TEST_CASE("a mid-size implicit GEMM (K = 576: 36 shared-memory K steps) matches the reference") {
  KernelEmitter E;
  ConvSpec S = conv(1, 64, 72, 14, 13, 3, 1, 1); // 64x64 tiles: a full and a partial row tile
  S.epilogue = epi(ActivationKind::Relu, false, true);
  auto L = E.add(S);
  REQUIRE(L);
  CHECK(L->strategy == "conv_implicit_gemm");
  auto Ptx = E.emitPtx("sm_90");
  REQUIRE(Ptx);
  auto Mod = ptx::parseModule(*Ptx, "igemm.ptx");
  REQUIRE(Mod);
  auto Prog = analyzer::decodeProgram(*Mod);
  REQUIRE(Prog);
  kernelref::Buffers Data;
  std::vector<float> Got = runCase(*Prog, *L, 77, Data);
  REQUIRE_FALSE(Got.empty());
  CHECK(kernelref::maxRelError(Got, kernelref::conv(S, Data)) <= 1e-4);
}

TEST_CASE("the reference itself: a hand-computed 3x3 convolution with padding") {
  // 1x1x3x3 input 1..9, one 3x3 all-ones filter, pad 1: centre = 45, corner = 1+2+4+5 = 12.
  ConvSpec S = conv(1, 1, 1, 3, 3, 3, 1, 1);
  kernelref::Buffers B;
  B[ParamRole::Input] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  B[ParamRole::Weight] = std::vector<float>(9, 1.0f);
  auto Out = kernelref::conv(S, B);
  REQUIRE(Out.size() == 9);
  CHECK(Out[4] == 45.0);
  CHECK(Out[0] == 12.0);
  CHECK(Out[8] == 5 + 6 + 8 + 9);
  CHECK(kernelref::halfToFloat(kernelref::floatToHalf(1.0f / 3.0f)) ==
        doctest::Approx(0.333251953125));
}

namespace {

/// One batched concat launch of inputs with `Channels` channels each (all of the output), run
/// by the exact interpreter; the output must equal torch.cat(dim=1) written out. Returns the
/// PTX so callers can check the copy width.
std::string checkBatchedConcat(uint32_t Batch, const std::vector<uint32_t> &Channels,
                               uint32_t Spatial, DType T) {
  uint32_t Total = 0;
  for (uint32_t C : Channels)
    Total += C;
  KernelEmitter E;
  auto L = E.add(ConcatSpec{Batch, Channels, Total, 0, Spatial, T});
  REQUIRE_MESSAGE(L, support::errorText(L));
  CHECK(L->strategy == "concat");
  CHECK(L->grid[1] == Channels.size()); // grid y: one row of blocks per input
  REQUIRE(L->params.size() == Channels.size() + 1);
  for (size_t K = 0; K < Channels.size(); ++K) {
    CHECK(L->params[K].role == ParamRole::Input);
    CHECK(L->params[K].elements == uint64_t(Batch) * Channels[K] * Spatial);
  }
  CHECK(L->params.back().role == ParamRole::Output);
  CHECK(L->params.back().elements == uint64_t(Batch) * Total * Spatial);
  CHECK(E.kernelCount() == 1);
  auto Ptx = E.emitPtx("sm_90");
  REQUIRE(Ptx);
  auto Mod = ptx::parseModule(*Ptx, "concat.ptx");
  REQUIRE_MESSAGE(Mod, support::errorText(Mod));
  auto Prog = analyzer::decodeProgram(*Mod);
  REQUIRE_MESSAGE(Prog, support::errorText(Prog));
  analyzer::Device D;
  analyzer::LaunchConfig Cfg;
  Cfg.grid = L->grid;
  Cfg.block = L->block;
  std::vector<std::vector<float>> Inputs;
  for (size_t K = 0; K < Channels.size(); ++K) {
    Inputs.push_back(
        kernelref::randomData(L->params[K].elements, 500 + uint32_t(K), -2.0f, 2.0f, T));
    auto In = D.allocate("input" + std::to_string(K), Inputs[K].size() * dtypeBytes(T));
    REQUIRE(In);
    REQUIRE(D.write(*In, toBytes(Inputs[K], T)));
    Cfg.args.push_back(analyzer::KernelArg::pointer(*In));
  }
  auto Out = D.allocate("output", uint64_t(Batch) * Total * Spatial * dtypeBytes(T));
  REQUIRE(Out);
  Cfg.args.push_back(analyzer::KernelArg::pointer(*Out));
  analyzer::RunResult R = analyzer::runKernel(*Prog, L->kernel, Cfg, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  // torch.cat(dim=1) written out: output (n, c, s) comes from the input whose channel range
  // holds c. Copies are exact, in f16 too.
  std::vector<float> Got = fromBytes(D.find("output")->data, T);
  REQUIRE(Got.size() == size_t(Batch) * Total * Spatial);
  size_t Mismatches = 0;
  for (uint32_t N = 0; N < Batch; ++N)
    for (uint32_t C = 0, K = 0, Base = 0; C < Total; ++C) {
      if (C - Base >= Channels[K])
        Base += Channels[K++];
      for (uint32_t S = 0; S < Spatial; ++S)
        Mismatches += Got[(N * Total + C) * Spatial + S] !=
                      Inputs[K][(N * Channels[K] + C - Base) * Spatial + S];
    }
  CHECK(Mismatches == 0);
  return *Ptx;
}

} // namespace

TEST_CASE("a channel concatenation is one batched copy launch over all inputs, f32 and f16") {
  for (DType T : {DType::F32, DType::F16})
    for (uint32_t Batch : {1u, 3u}) {
      INFO((T == DType::F16 ? "f16" : "f32") << " batch " << Batch);
      // 35 pixels: no slice is a multiple of 16 bytes, so elements are copied one by one.
      std::string Ptx = checkBatchedConcat(Batch, {3, 5, 2, 1}, 35, T);
      CHECK(Ptx.find(".v4.") == std::string::npos);
      // 12 pixels, 8 + 4 + 20 + 16 channels: every slice is a multiple of 16 bytes (f16 too), so
      // each thread moves 16-byte vectors as PyTorch's CatArrayBatchedCopy_vectorized.
      Ptx = checkBatchedConcat(Batch, {8, 4, 20, 16}, 12, T);
      CHECK(Ptx.find(".v4.") != std::string::npos);
      checkBatchedConcat(Batch, {7}, 9, T); // a single input: no switch on grid y
    }
}

namespace {

/// Decodes the single-kernel PTX of `E`.
analyzer::Program decodeOnly(const KernelEmitter &E) {
  auto Ptx = E.emitPtx("sm_90");
  REQUIRE_MESSAGE(Ptx, support::errorText(Ptx));
  auto Mod = ptx::parseModule(*Ptx, "one.ptx");
  REQUIRE_MESSAGE(Mod, support::errorText(Mod));
  auto Prog = analyzer::decodeProgram(*Mod);
  REQUIRE_MESSAGE(Prog, support::errorText(Prog));
  return std::move(*Prog);
}

} // namespace

TEST_CASE("gelu follows the erf form over [-6, 6]: erf within a few f32 ulps") {
  KernelEmitter E;
  ElementwiseSpec S{ElementwiseOp::Activation, 1, 1, 4096, ActivationKind::Gelu};
  auto L = E.add(S);
  REQUIRE(L);
  analyzer::Program Prog = decodeOnly(E);
  kernelref::Buffers Data;
  std::vector<float> Got =
      runCase(Prog, *L, 5, Data, [](ParamRole) { return std::pair(-6.0f, 6.0f); });
  REQUIRE(Got.size() == 4096);
  const std::vector<float> &X = Data.at(ParamRole::Input);
  double WorstAbs = 0, WorstRel = 0;
  for (size_t I = 0; I < Got.size(); ++I) {
    double Ref = kernelref::activation(ActivationKind::Gelu, X[I]);
    WorstAbs = std::max(WorstAbs, std::fabs(Got[I] - Ref));
    if (X[I] >= 0) // 1 + erf >= 1: no cancellation
      WorstRel = std::max(WorstRel, std::fabs(Got[I] - Ref) / std::max(Ref, 1e-30));
  }
  MESSAGE("gelu on [-6, 6]: max abs error " << WorstAbs << ", max rel error (x >= 0) " << WorstRel);
  CHECK(WorstRel <= 1e-6);
  CHECK(WorstAbs <= 2e-6);
}

TEST_CASE("the elu family follows expm1 near zero: relative error within 1e-6 over -1 to 1") {
  // e^x - 1 from ex2.approx would lose up to 1e-4 relative for |x| near 1e-3.
  // CELU's alpha 0.5 doubles its input to expm1.
  const std::pair<ActivationKind, float> Kinds[] = {
      {ActivationKind::Elu, 1.0f}, {ActivationKind::Selu, 0.0f}, {ActivationKind::Celu, 0.5f}};
  for (const auto &[K, Alpha] : Kinds) {
    KernelEmitter E;
    auto L = E.add(ElementwiseSpec{ElementwiseOp::Activation, 1, 1, 4096, K, DType::F32, Alpha});
    REQUIRE(L);
    analyzer::Program Prog = decodeOnly(E);
    kernelref::Buffers Data;
    std::vector<float> Got =
        runCase(Prog, *L, 7, Data, [](ParamRole) { return std::pair(-1.0f, 1.0f); });
    REQUIRE(Got.size() == 4096);
    const std::vector<float> &X = Data.at(ParamRole::Input);
    double WorstRel = 0;
    for (size_t I = 0; I < Got.size(); ++I) {
      double Ref = kernelref::activation(K, X[I], Alpha);
      if (Ref != 0)
        WorstRel = std::max(WorstRel, std::fabs(Got[I] - Ref) / std::fabs(Ref));
    }
    INFO(activationName(K));
    CHECK(WorstRel <= 1e-6);
  }
}

TEST_CASE("a batched matmul of more than 65535 batches: two per CTA, the last CTA one") {
  KernelEmitter E;
  BatchMatMulSpec S{65537, 2, 3, 2, DType::F32};
  auto L = E.add(S);
  REQUIRE(L);
  REQUIRE(L->grid == std::array<uint32_t, 3>{1, 1, 32769});
  analyzer::Program Prog = decodeOnly(E);
  analyzer::Device D;
  analyzer::LaunchConfig Cfg;
  Cfg.grid = L->grid;
  Cfg.block = L->block;
  Cfg.ctaSubset = {0, 1, 20000, 32767, 32768}; // batches 0-3, 40000-1, 65534-5 and 65536
  kernelref::Buffers Data;
  for (const KernelParam &P : L->params) {
    auto Base = D.allocate(paramRoleName(P.role), P.elements * 4);
    REQUIRE(Base);
    Cfg.args.push_back(analyzer::KernelArg::pointer(*Base));
    if (P.role == ParamRole::Output)
      continue;
    Data[P.role] = kernelref::randomData(P.elements, 90 + uint32_t(P.role), -2, 2, DType::F32);
    REQUIRE(D.write(*Base, toBytes(Data[P.role], DType::F32)));
  }
  analyzer::RunResult R = analyzer::runKernel(Prog, L->kernel, Cfg, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  std::vector<float> Got = fromBytes(D.find("output")->data, DType::F32);
  std::vector<double> Ref = kernelref::batchMatMul(S, Data);
  REQUIRE(Got.size() == Ref.size());
  size_t Wrong = 0;
  for (uint64_t Batch = 0; Batch < S.batch; ++Batch) {
    const uint64_t Cta = Batch / 2;
    const bool Run = Cta == 0 || Cta == 1 || Cta == 20000 || Cta == 32767 || Cta == 32768;
    for (uint64_t I = Batch * 4; I < Batch * 4 + 4; ++I)
      Wrong += Run ? std::fabs(Got[I] - Ref[I]) > 1e-5 * std::max(1.0, std::fabs(Ref[I]))
                   : Got[I] != 0.0f;
  }
  CHECK(Wrong == 0);
}
