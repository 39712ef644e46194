// Kernel generators: names, dedup, launch geometry, errors, LLVM verifier and ptxas acceptance.
#include "KernelCases.h"
#include "Ptxas.h"

#include "corpus/KernelGen.h"

#include <doctest/doctest.h>

#include <array>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

using namespace corpus;
using namespace kernelcases;
using ptxastest::havePtxas;
using ptxastest::ptxasErrors;

namespace {

std::string ptxOf(const KernelEmitter &E, const std::string &Arch) {
  auto Ptx = E.emitPtx(Arch);
  REQUIRE_MESSAGE(Ptx, support::errorText(Ptx));
  return *Ptx;
}

} // namespace

TEST_CASE("kernel names spell out the spec") {
  KernelEmitter E;
  ConvSpec S = conv(2, 6, 8, 9, 7, 3, 2, 1, 2);
  S.epilogue = epi(ActivationKind::Tanh, true, true, ResidualKind::BeforeActivation);
  auto L = E.add(S);
  REQUIRE(L);
  CHECK(L->kernel == "conv_direct_n2_c6x8_h9w7_k3_s2_p1_g2_f32_bias_bn_res_tanh");
  CHECK(L->strategy == "conv_direct");

  ConvSpec Dw = conv(1, 32, 32, 112, 112, 3, 1, 1, 32);
  Dw.dtype = DType::F16;
  Dw.epilogue = epi(ActivationKind::Swish, false, true, ResidualKind::None, true);
  auto LDw = E.add(Dw);
  REQUIRE(LDw);
  CHECK(LDw->kernel == "conv_dw_n1_c32x32_h112w112_k3_s1_p1_g32_f16_bn_swish_se");

  auto LD = E.add(GemmSpec{4, 1280, 1000, DType::F32, epi(ActivationKind::None, true)});
  REQUIRE(LD);
  CHECK(LD->kernel == "gemv_m4_k1280_n1000_f32_bias"); // fewer than 8 rows: GEMV
  auto LG = E.add(GemmSpec{8, 1280, 1000, DType::F32, epi(ActivationKind::None, true)});
  REQUIRE(LG);
  CHECK(LG->kernel == "dense_m8_k1280_n1000_f32_bias");
  auto LP = E.add(pool(PoolKind::Avg, 1, 64, 56, 56, 3, 2, 1, true));
  REQUIRE(LP);
  CHECK(LP->kernel == "avgpool_n1_c64_h56w56_k3_s2_p1_incpad_f32");
  auto LS = E.add(SoftmaxSpec{1, 1000, DType::F16});
  REQUIRE(LS);
  CHECK(LS->kernel == "softmax_r1_c1000_f16");
}

TEST_CASE("batched matmul, layer norm and the elementwise ops: names, geometry, parameters") {
  KernelEmitter E;
  auto M = E.add(BatchMatMulSpec{12, 128, 64, 96, DType::F32});
  REQUIRE(M);
  CHECK(M->kernel == "bmm_b12_m128_n64_k96_f32");
  CHECK(M->strategy == "bmm_gemm");
  CHECK(M->grid == std::array<uint32_t, 3>{2, 2, 12}); // 64 x 64 tiles, batch on grid z
  CHECK(M->block == std::array<uint32_t, 3>{16, 16, 1});
  REQUIRE(M->params.size() == 3);
  CHECK(M->params[0].role == ParamRole::Input);
  CHECK(M->params[0].elements == 12 * 128 * 64);
  CHECK(M->params[1].role == ParamRole::Input2);
  CHECK(M->params[1].elements == 12 * 64 * 96);
  CHECK(M->params[2].elements == 12 * 128 * 96);
  // A small output: 16 x 16 tiles. 70000 batches: two per CTA on 35000 CTAs of grid z.
  auto Small = E.add(BatchMatMulSpec{70000, 20, 5, 33, DType::F16});
  REQUIRE(Small);
  CHECK(Small->grid == std::array<uint32_t, 3>{3, 2, 35000});
  auto Odd = E.add(BatchMatMulSpec{65537, 1, 3, 1, DType::F32});
  REQUIRE(Odd);
  CHECK(Odd->grid[2] == 32769); // ceil(65537 / 2); the last CTA has one batch
  auto L = E.add(LayerNormSpec{8192, 768});
  REQUIRE(L);
  CHECK(L->kernel == "layernorm_r8192_c768_f32");
  CHECK(L->strategy == "layernorm");
  CHECK(L->grid == std::array<uint32_t, 3>{8192, 1, 1});
  CHECK(L->block == std::array<uint32_t, 3>{256, 1, 1});
  REQUIRE(L->params.size() == 4);
  const ParamRole Ln[] = {ParamRole::Input, ParamRole::Weight, ParamRole::Bias, ParamRole::Output};
  const uint64_t LnElems[] = {8192 * 768, 768, 768, 8192 * 768};
  for (size_t I = 0; I < 4; ++I) {
    CHECK(L->params[I].role == Ln[I]);
    CHECK(L->params[I].elements == LnElems[I]);
  }
  auto Eps = E.add(LayerNormSpec{2, 10, 1e-6f, DType::F16});
  REQUIRE(Eps);
  CHECK(Eps->kernel == "layernorm_r2_c10_eps1em06_f16");
  CHECK(Eps->block == std::array<uint32_t, 3>{32, 1, 1});
  using Op = ElementwiseOp;
  const ActivationKind None = ActivationKind::None;
  auto G = E.add(ElementwiseSpec{Op::Activation, 1, 1, 300, ActivationKind::Gelu});
  REQUIRE(G);
  CHECK(G->kernel == "eltwise_act_e300_f32_gelu");
  CHECK(G->strategy == "eltwise_activation");
  auto D = E.add(ElementwiseSpec{Op::Div, 4, 1, 100, None});
  REQUIRE(D);
  CHECK(D->kernel == "eltwise_div_e400_f32");
  CHECK(D->params.size() == 3);
  auto P = E.add(ElementwiseSpec{Op::Pow, 4, 1, 100, None});
  REQUIRE(P);
  CHECK(P->strategy == "eltwise_pow");
  auto AddS = E.add(ElementwiseSpec{Op::AddScalar, 1, 1, 100, None, DType::F32, -1.5f});
  REQUIRE(AddS);
  CHECK(AddS->kernel == "eltwise_adds_e100_sm1p5_f32");
  CHECK(AddS->strategy == "eltwise_add_scalar");
  REQUIRE(AddS->params.size() == 2); // input, output: the scalar is a constant
  CHECK(AddS->params[1].role == ParamRole::Output);
  auto PowS = E.add(ElementwiseSpec{Op::PowScalar, 1, 1, 100, None, DType::F32, 0.125f});
  REQUIRE(PowS);
  CHECK(PowS->kernel == "eltwise_pows_e100_s0p125_f32");
  CHECK(PowS->strategy == "eltwise_pow_scalar");
  auto MulS = E.add(ElementwiseSpec{Op::MulScalar, 1, 1, 100, None, DType::F32, 1e-7f});
  REQUIRE(MulS);
  CHECK(MulS->kernel == "eltwise_muls_e100_s1em07_f32");
  auto DivS = E.add(ElementwiseSpec{Op::DivScalar, 1, 1, 100, None, DType::F32, 3.0f});
  REQUIRE(DivS);
  CHECK(DivS->strategy == "eltwise_div_scalar");
  // Forcing 64-bit index arithmetic makes another kernel.
  ConvSpec C = conv(1, 3, 8, 9, 7, 3, 1, 1);
  C.index64 = true;
  auto Wide = E.add(C);
  REQUIRE(Wide);
  CHECK(Wide->kernel == "conv_direct_n1_c3x8_h9w7_k3_s1_p1_f32_i64");
  CHECK(E.verify().empty());
}

TEST_CASE("the new layers' malformed specs are errors") {
  KernelEmitter E;
  auto Z = E.add(BatchMatMulSpec{2, 0, 3, 4, DType::F32});
  REQUIRE_FALSE(Z);
  CHECK(Z.error().str() == "error: bmm: zero-sized dimension");
  auto Eps = E.add(LayerNormSpec{2, 10, -1.0f, DType::F32});
  REQUIRE_FALSE(Eps);
  CHECK(Eps.error().str() == "error: layer norm: epsilon must be finite and not negative");
  auto Div0 = E.add(
      ElementwiseSpec{ElementwiseOp::DivScalar, 1, 1, 10, ActivationKind::None, DType::F32, 0.0f});
  REQUIRE_FALSE(Div0);
  CHECK(Div0.error().str() == "error: elementwise: division by the scalar 0");
  auto Inf = E.add(ElementwiseSpec{ElementwiseOp::PowScalar, 1, 1, 10, ActivationKind::None,
                                   DType::F32, std::numeric_limits<float>::infinity()});
  REQUIRE_FALSE(Inf);
  CHECK(Inf.error().str() == "error: elementwise: the scalar operand must be finite");
  // Offsets inside one image stay 32-bit: an image of 2^31 elements or more is refused.
  auto Big = E.add(conv(1, 3, 8, 27000, 27000, 3, 1, 1));
  REQUIRE_FALSE(Big);
  CHECK(Big.error().str() == "error: conv: an input image of 2187000000 elements exceeds 2^31 "
                             "(offsets inside it are 32-bit)");
  auto Row = E.add(SoftmaxSpec{2, 2147483648u, DType::F32});
  REQUIRE_FALSE(Row);
  CHECK(Row.error().str() ==
        "error: softmax: a row of 2147483648 elements exceeds 2^31 (offsets inside it are 32-bit)");
  CHECK(E.kernelCount() == 0);
}

TEST_CASE("the same spec is emitted once, different specs get different kernels") {
  KernelEmitter E;
  ConvSpec S = conv(1, 16, 32, 28, 28, 3, 1, 1);
  S.epilogue.activation = ActivationKind::Relu;
  auto A = E.add(S), B = E.add(S);
  REQUIRE(A);
  REQUIRE(B);
  CHECK(A->kernel == B->kernel);
  CHECK(E.kernelCount() == 1);
  S.epilogue.activation = ActivationKind::Relu6;
  auto C = E.add(S);
  REQUIRE(C);
  CHECK(C->kernel != A->kernel);
  S.dtype = DType::F16;
  REQUIRE(E.add(S));
  CHECK(E.kernelCount() == 3);
  // Flat elementwise ops depend only on the element count.
  REQUIRE(E.add(ElementwiseSpec{ElementwiseOp::Add, 1, 64, 100, ActivationKind::None}));
  REQUIRE(E.add(ElementwiseSpec{ElementwiseOp::Add, 2, 32, 100, ActivationKind::None}));
  CHECK(E.kernelCount() == 4);
  CHECK(E.irText().find("define ptx_kernel void @conv_igemm_n1_c16x32_h28w28") !=
        std::string::npos);
}

TEST_CASE("very long names are shortened with a hash of the whole name") {
  KernelEmitter E;
  ConvSpec S = conv(1000, 1000, 1000, 1000, 1000, 1, 1, 0);
  S.inHeight = S.inWidth = 1;
  S.padTop = 1000;
  S.padLeft = 1001;
  S.padBottom = 1002;
  S.padRight = 1003;
  S.kernelH = 1001;
  S.kernelW = 1002;
  S.strideH = 1000;
  S.strideW = 1001;
  S.dilationH = 2; // span 2001 of the 2003 padded rows
  S.dilationW = 1;
  S.groups = 1000;
  S.epilogue = epi(ActivationKind::HardSigmoid, true, true, ResidualKind::BeforeActivation, true);
  auto A = E.add(S);
  REQUIRE(A);
  CHECK(A->kernel.size() == 80 + 2 + 16);
  S.epilogue.activation = ActivationKind::HardSwish;
  auto B = E.add(S);
  REQUIRE(B);
  CHECK(A->kernel.substr(0, 80) == B->kernel.substr(0, 80));
  CHECK(A->kernel != B->kernel);
}

TEST_CASE("auto strategy and launch geometry") {
  KernelEmitter E;
  // 1x1 stride 1 -> tiled GEMM, 16x16 threads, grid (pixels/16, cout/16, batch).
  auto G = E.add(conv(2, 20, 33, 5, 7, 1, 1, 0));
  REQUIRE(G);
  CHECK(G->strategy == "conv_gemm");
  CHECK(G->block == std::array<uint32_t, 3>{16, 16, 1});
  CHECK(G->grid == std::array<uint32_t, 3>{3, 3, 2}); // ceil(35/16), ceil(33/16), 2
  // Both output dimensions >= 64: 64x64 block tiles, 4x4 outputs per thread.
  auto G4 = E.add(GemmSpec{130, 256, 1000, DType::F32, {}});
  REQUIRE(G4);
  CHECK(G4->strategy == "dense_gemm");
  CHECK(G4->block == std::array<uint32_t, 3>{16, 16, 1});
  CHECK(G4->grid == std::array<uint32_t, 3>{16, 3, 1}); // ceil(1000/64), ceil(130/64)
  // Dense with few rows: one warp per output feature, 8 warps per block.
  auto V = E.add(GemmSpec{3, 50, 17, DType::F32, {}});
  REQUIRE(V);
  CHECK(V->strategy == "dense_gemv");
  CHECK(V->block == std::array<uint32_t, 3>{256, 1, 1});
  CHECK(V->grid == std::array<uint32_t, 3>{3, 3, 1}); // ceil(17/8) blocks per row, 3 rows
  // Depthwise: one thread per output pixel; 9x7 = 63 pixels -> block 64.
  auto D = E.add(conv(2, 6, 12, 9, 7, 3, 1, 1, 6));
  REQUIRE(D);
  CHECK(D->strategy == "conv_depthwise");
  CHECK(D->block == std::array<uint32_t, 3>{64, 1, 1});
  CHECK(D->grid == std::array<uint32_t, 3>{1, 12, 2});
  // Direct (fewer than 16 output channels): 56x56 = 3136 pixels -> 13 blocks of 256 threads.
  auto C = E.add(conv(1, 3, 8, 56, 56, 3, 1, 1));
  REQUIRE(C);
  CHECK(C->strategy == "conv_direct");
  CHECK(C->grid == std::array<uint32_t, 3>{13, 8, 1});
  CHECK(C->block == std::array<uint32_t, 3>{256, 1, 1});
  // Ungrouped 3x3 with 32 output channels: implicit GEMM, 16x16 tiles (32 < 64 rows).
  auto I = E.add(conv(2, 3, 32, 56, 56, 3, 1, 1));
  REQUIRE(I);
  CHECK(I->strategy == "conv_implicit_gemm");
  CHECK(I->kernel.rfind("conv_igemm_", 0) == 0);
  CHECK(I->grid == std::array<uint32_t, 3>{196, 2, 2});
  // 64 output channels: 64x64 tiles; 28x28 = 784 pixels -> 13 column tiles.
  auto I4 = E.add(conv(1, 32, 64, 28, 28, 3, 1, 1));
  REQUIRE(I4);
  CHECK(I4->grid == std::array<uint32_t, 3>{13, 1, 1});
  // Global average pool: one block per (c, n), block = warps covering the plane (<= 256).
  auto R = E.add(ReduceSpec{2, 5, 49, DType::F32, {}});
  REQUIRE(R);
  CHECK(R->grid == std::array<uint32_t, 3>{5, 2, 1});
  CHECK(R->block == std::array<uint32_t, 3>{64, 1, 1});
  auto S = E.add(SoftmaxSpec{3, 1000, DType::F32});
  REQUIRE(S);
  CHECK(S->grid == std::array<uint32_t, 3>{3, 1, 1});
  CHECK(S->block == std::array<uint32_t, 3>{256, 1, 1});
  for (const auto *L : {&*G, &*D, &*C, &*I, &*R, &*S})
    CHECK(L->sharedBytes == 0);
}

TEST_CASE("ceil-mode pooling rounds the output up but keeps windows starting in the input") {
  // 8 rows, window 3, stride 2: floor 3, ceil 4 (the 4th window covers rows 6..8, 8 missing).
  PoolSpec S = pool(PoolKind::Max, 1, 1, 8, 7, 3, 2, 0);
  CHECK(S.outHeight() == 3);
  S.ceilMode = true;
  CHECK(S.outHeight() == 4);
  CHECK(S.outWidth() == 3); // 7 columns: (7 - 3) / 2 = 2 steps either way
  // 6 rows + pad 1 each side, window 3, stride 2: ceil 4; the 4th window starts at padded
  // row 6 = input row 5, inside the input, so it stays.
  PoolSpec P = pool(PoolKind::Avg, 1, 1, 6, 5, 3, 2, 1);
  P.ceilMode = true;
  CHECK(P.outHeight() == 4);
  CHECK(P.outWidth() == 3);
  // 5 rows + pad 1 each side, window 2, stride 2: rounding up would add a window starting at
  // padded row 6, in the trailing padding, so PyTorch's rule drops it again: 3 rows.
  PoolSpec Q = pool(PoolKind::Max, 1, 1, 5, 5, 2, 2, 1);
  Q.ceilMode = true;
  CHECK(Q.outHeight() == 3);
  KernelEmitter E;
  auto L = E.add(P);
  REQUIRE(L);
  CHECK(L->kernel == "avgpool_n1_c1_h6w5_k3_s2_p1_ceil_f32");
  P.countIncludePad = true; // PyTorch's clipped divisor: its own kernel
  auto Inc = E.add(P);
  REQUIRE(Inc);
  CHECK(Inc->kernel == "avgpool_n1_c1_h6w5_k3_s2_p1_incpad_ceil_f32");
}

TEST_CASE("parameters are listed in order with element counts") {
  KernelEmitter E;
  ConvSpec S = conv(2, 6, 8, 9, 7, 3, 2, 1, 2);
  S.epilogue = epi(ActivationKind::Relu, true, true, ResidualKind::AfterActivation, true);
  S.dtype = DType::F16;
  auto L = E.add(S);
  REQUIRE(L);
  CHECK(L->dtype == DType::F16);
  REQUIRE(L->params.size() == 8);
  const ParamRole Want[] = {ParamRole::Input,    ParamRole::Weight,  ParamRole::Bias,
                            ParamRole::BnScale,  ParamRole::BnShift, ParamRole::SeScale,
                            ParamRole::Residual, ParamRole::Output};
  // Output is 2 x 8 x 5 x 4 (9x7 input, 3x3 window, stride 2, pad 1).
  const uint64_t Elems[] = {2 * 6 * 9 * 7, 8 * 3 * 3 * 3, 8, 8, 8, 2 * 8, 320, 320};
  for (size_t I = 0; I < 8; ++I) {
    CHECK(L->params[I].role == Want[I]);
    CHECK(L->params[I].elements == Elems[I]);
  }
  CHECK(std::string(paramRoleName(ParamRole::BnShift)) == "bn_shift");
  CHECK(dtypeBytes(DType::F16) == 2);
}

TEST_CASE("malformed specs and unknown architectures are errors") {
  KernelEmitter E;
  auto G = E.add(conv(1, 6, 8, 9, 9, 3, 1, 1, 4));
  REQUIRE_FALSE(G);
  CHECK(G.error().str() == "error: conv: channels 6 -> 8 not divisible by groups 4");
  auto W = E.add(conv(1, 3, 8, 2, 2, 5, 1, 1));
  REQUIRE_FALSE(W);
  CHECK(W.error().str() == "error: conv: window 5 does not fit the padded input 2x2");
  ConvSpec Gm = conv(1, 3, 8, 9, 9, 3, 1, 1);
  Gm.strategy = ConvStrategy::Gemm;
  REQUIRE_FALSE(E.add(Gm));
  ConvSpec Ig = conv(1, 4, 16, 9, 9, 3, 1, 1, 2);
  Ig.strategy = ConvStrategy::ImplicitGemm;
  auto IgE = E.add(Ig);
  REQUIRE_FALSE(IgE);
  CHECK(IgE.error().str() == "error: conv: implicit gemm strategy needs an ungrouped conv");
  GemmSpec D{1, 10, 10, DType::F32,
             epi(ActivationKind::None, false, false, ResidualKind::None, true)};
  auto DE = E.add(D);
  REQUIRE_FALSE(DE);
  CHECK(DE.error().str() == "error: dense: squeeze-excitation scale is not supported");
  REQUIRE_FALSE(E.add(SoftmaxSpec{0, 10, DType::F32}));
  CHECK(E.kernelCount() == 0);
  auto P = E.emitPtx("sm_61");
  REQUIRE_FALSE(P);
  CHECK(P.error().str() == "error: unknown gpu architecture 'sm_61' (expected sm_70, sm_75, "
                           "sm_80, sm_86, sm_87, sm_89 or sm_90)");
}

TEST_CASE("every strategy in f32 and f16 verifies and ptxas accepts it") {
  for (DType T : {DType::F32, DType::F16}) {
    KernelEmitter E;
    std::vector<std::string> Names;
    for (const Case &C : allCases(T)) {
      auto L = addCase(E, C);
      REQUIRE_MESSAGE(L, C.label << ": " << support::errorText(L));
      Names.push_back(L->kernel);
    }
    CHECK(E.verify().empty());
    std::string Ptx = ptxOf(E, "sm_90");
    CHECK(Ptx.find(".target sm_90") != std::string::npos);
    for (const std::string &N : Names)
      CHECK_MESSAGE(Ptx.find(".entry " + N + "(") != std::string::npos, N);
    if (!havePtxas()) {
      MESSAGE("ptxas not found: acceptance not checked");
      continue;
    }
    CHECK(ptxasErrors(Ptx, "sm_90") == "");
    std::string Ptx75 = ptxOf(E, "sm_75");
    CHECK(Ptx75.find(".target sm_75") != std::string::npos);
    CHECK(ptxasErrors(Ptx75, "sm_75") == "");
  }
}

TEST_CASE("every strategy forced to 64-bit index arithmetic verifies and ptxas accepts it") {
  for (DType T : {DType::F32, DType::F16}) {
    KernelEmitter E;
    for (const Case &C : wideCases(T)) {
      auto L = addCase(E, C);
      REQUIRE_MESSAGE(L, C.label << ": " << support::errorText(L));
      CHECK_MESSAGE(L->kernel.substr(L->kernel.size() - 4) == "_i64", L->kernel);
    }
    CHECK(E.verify().empty());
    std::string Ptx = ptxOf(E, "sm_90");
    if (havePtxas())
      CHECK(ptxasErrors(Ptx, "sm_90") == "");
  }
}

TEST_CASE("realistic layer shapes assemble for every supported architecture") {
  KernelEmitter E;
  ConvSpec Stem = conv(1, 3, 32, 224, 224, 3, 2, 1);
  Stem.epilogue = epi(ActivationKind::Swish, false, true);
  ConvSpec Dw = conv(8, 144, 144, 56, 56, 5, 2, 2, 144);
  Dw.epilogue = epi(ActivationKind::Swish, false, true);
  ConvSpec Proj = conv(8, 144, 24, 28, 28, 1, 1, 0);
  Proj.epilogue = epi(ActivationKind::None, false, true, ResidualKind::AfterActivation, true);
  Proj.dtype = DType::F16;
  for (const ConvSpec &S : {Stem, Dw, Proj})
    REQUIRE(E.add(S));
  REQUIRE(E.add(GemmSpec{8, 2048, 1000, DType::F32, epi(ActivationKind::None, true)}));
  REQUIRE(E.add(ReduceSpec{8, 1280, 49, DType::F16, {}}));
  REQUIRE(E.add(pool(PoolKind::Max, 8, 64, 112, 112, 3, 2, 1)));
  CHECK(E.verify().empty());
  for (const char *Arch : {"sm_75", "sm_80", "sm_87", "sm_90"}) {
    std::string Ptx = ptxOf(E, Arch);
    if (havePtxas())
      CHECK_MESSAGE(ptxasErrors(Ptx, Arch) == "", Arch);
  }
}

TEST_CASE("generated PTX uses the intended instructions") {
  KernelEmitter E;
  REQUIRE(E.add(conv(1, 16, 16, 8, 8, 1, 1, 0)));        // tiled GEMM
  REQUIRE(E.add(ReduceSpec{1, 4, 100, DType::F32, {}})); // shuffle-down reduction
  REQUIRE(E.add(SoftmaxSpec{1, 100, DType::F16}));       // butterfly all-reduce, ex2
  std::string Ptx = ptxOf(E, "sm_90");
  for (const char *Needle :
       {"bar.sync", ".shared", "ld.shared.f32", "shfl.sync.down.b32", "shfl.sync.bfly.b32",
        "ex2.approx", "fma.rn.f32", "ld.global.nc", "cvt.f32.f16", ".reqntid 16, 16, 1"})
    CHECK_MESSAGE(Ptx.find(Needle) != std::string::npos, Needle);
  // Layer norm: rsqrt.approx; pow: lg2.approx and ex2.approx; div: IEEE division; x^0.5: sqrt.
  using Op = ElementwiseOp;
  const ActivationKind None = ActivationKind::None;
  auto Kernel = [](const char *Name, std::initializer_list<const char *> Needles, auto Spec) {
    KernelEmitter K;
    REQUIRE(K.add(Spec));
    std::string Text = ptxOf(K, "sm_90");
    for (const char *Needle : Needles)
      CHECK_MESSAGE(Text.find(Needle) != std::string::npos, Name << ": " << Needle);
  };
  Kernel("layernorm", {"rsqrt.approx.f32", "shfl.sync.bfly.b32", "bar.sync"},
         LayerNormSpec{4, 300});
  Kernel("pow", {"lg2.approx.f32", "ex2.approx"}, ElementwiseSpec{Op::Pow, 1, 1, 64, None});
  Kernel("div", {"div.rn.f32"}, ElementwiseSpec{Op::Div, 1, 1, 64, None});
  Kernel("sqrt", {"sqrt.rn.f32"}, ElementwiseSpec{Op::PowScalar, 1, 1, 64, None, DType::F32, 0.5f});
  Kernel("gelu", {"ex2.approx", "fma.rn.f32"},
         ElementwiseSpec{Op::Activation, 1, 1, 64, ActivationKind::Gelu});
}

TEST_CASE("emission is deterministic and emitters on separate threads are independent") {
  auto Emit = [](std::string &Out) {
    KernelEmitter E;
    for (const Case &C : allCases(DType::F32))
      if (!addCase(E, C))
        return;
    if (auto Ptx = E.emitPtx("sm_80"))
      Out = *Ptx;
  };
  std::string A, B, C;
  std::thread T1(Emit, std::ref(A)), T2(Emit, std::ref(B));
  T1.join();
  T2.join();
  Emit(C);
  REQUIRE_FALSE(A.empty());
  CHECK(A == B);
  CHECK(A == C);
}

TEST_CASE(
    "a kernel cache reuses kernels compiled for the same architecture, and the PTX is unchanged") {
  const std::vector<Case> Cases = allCases(DType::F32);
  REQUIRE(Cases.size() > 8);
  auto Emit = [&](KernelCache *Cache, const std::string &Arch, size_t Step) {
    KernelEmitter E;
    for (size_t I = 0; I < Cases.size(); I += Step)
      REQUIRE(addCase(E, Cases[I]));
    auto Ptx = E.emitPtxModules(Arch, 2, Cache);
    REQUIRE_MESSAGE(Ptx, support::errorText(Ptx));
    REQUIRE(Ptx->size() == 1);
    return Ptx->front();
  };
  KernelCache Cache;
  // Every third kernel first: the full set then finds some kernels of each LLVM module cached,
  // so modules are compiled with some of their kernels left out.
  Emit(&Cache, "sm_90", 3);
  const size_t Third = Cache.size();
  CHECK(Third == (Cases.size() + 2) / 3);
  CHECK(Cache.hits() == 0);
  const std::string Cached = Emit(&Cache, "sm_90", 1);
  CHECK(Cache.hits() == Third);
  CHECK(Cache.size() == Cases.size());
  CHECK(Cached == Emit(nullptr, "sm_90", 1));
  if (havePtxas())
    CHECK_MESSAGE(ptxasErrors(Cached, "sm_90").empty(), ptxasErrors(Cached, "sm_90"));
  // Another architecture compiles anew.
  CHECK(Emit(&Cache, "sm_80", 3) == Emit(nullptr, "sm_80", 3));
  CHECK(Cache.hits() == Third);
}

TEST_CASE("a concatenation of more than 128 inputs is planned as launches of at most 128") {
  std::vector<uint32_t> Channels;
  for (uint32_t K = 0; K < 300; ++K)
    Channels.push_back(K % 7 + 1); // 1..7, 1..7, ...
  auto Plan = planConcat(2, Channels, 9, DType::F16);
  REQUIRE(Plan.size() == 3); // 128 + 128 + 44 = 300 inputs
  // 42 full cycles of 1..7 (28 channels each) then 1..6: 42 * 28 + 21 = 1197 channels in all.
  const uint32_t Total = 1197;
  // The first 128 inputs: 18 cycles (504 channels) then 1, 2: 507; 256 inputs: 36 cycles + 1..4.
  const uint32_t Offsets[] = {0, 507, 36 * 28 + 10};
  const size_t Sizes[] = {128, 128, 44};
  for (size_t L = 0; L < 3; ++L) {
    CAPTURE(L);
    CHECK(Plan[L].channels.size() == Sizes[L]);
    CHECK(Plan[L].channelOffset == Offsets[L]);
    CHECK(Plan[L].totalChannels == Total);
    CHECK(Plan[L].batch == 2);
    CHECK(Plan[L].spatial == 9);
    CHECK(Plan[L].dtype == DType::F16);
    CHECK(Plan[L].channels.front() == (128 * L) % 7 + 1);
  }
  REQUIRE(planConcat(1, {3, 4}, 5, DType::F32).size() == 1);
  CHECK(planConcat(1, {3, 4}, 5, DType::F32)[0].channels == std::vector<uint32_t>{3, 4});
}

TEST_CASE("a batched concat kernel: name, dedup, errors, geometry, ptxas with 128 inputs") {
  KernelEmitter E;
  auto A = E.add(ConcatSpec{1, {64, 32, 32}, 256, 128, 3136, DType::F32});
  REQUIRE(A);
  CHECK(A->kernel == "concat_n1_of256_at128_s3136_c64_32_32_f32");
  // 16-byte copies: the largest input is 64 * 3136 / 4 = 50176 vectors, 392 blocks of 128.
  CHECK(A->grid == std::array<uint32_t, 3>{392, 3, 1});
  CHECK(A->block == std::array<uint32_t, 3>{128, 1, 1});
  REQUIRE(E.add(ConcatSpec{1, {64, 32, 32}, 256, 128, 3136, DType::F32}));
  CHECK(E.kernelCount() == 1); // same channel list, batch, spatial, dtype: one kernel
  REQUIRE(E.add(ConcatSpec{1, {32, 64, 32}, 256, 128, 3136, DType::F32}));
  CHECK(E.kernelCount() == 2);
  // Element copies (35 pixels): 3 * 5 * 35 = 525 elements at most, 5 blocks; a big input is
  // capped at 132 SMs * 32 blocks and strides the grid.
  auto Odd = E.add(ConcatSpec{3, {2, 5}, 7, 0, 35, DType::F16});
  REQUIRE(Odd);
  CHECK(Odd->grid == std::array<uint32_t, 3>{5, 2, 1});
  auto Big = E.add(ConcatSpec{64, {256, 1}, 257, 0, 3136, DType::F32});
  REQUIRE(Big);
  CHECK(Big->grid == std::array<uint32_t, 3>{132 * 32, 2, 1});
  std::vector<uint32_t> Many(128, 1);
  auto M = E.add(ConcatSpec{1, Many, 200, 72, 49, DType::F16});
  REQUIRE(M);
  CHECK(M->kernel.size() == 80 + 2 + 16); // shortened with a hash
  CHECK(M->params.size() == 129);
  Many.push_back(1);
  auto TooMany = E.add(ConcatSpec{1, Many, 200, 0, 49, DType::F16});
  REQUIRE_FALSE(TooMany);
  CHECK(TooMany.error().str() == "error: concat: one launch copies 1 to 128 inputs, not 129");
  auto Over = E.add(ConcatSpec{1, {4, 4}, 10, 3, 49, DType::F16});
  REQUIRE_FALSE(Over);
  CHECK(Over.error().str() == "error: concat: channels [3, 11) exceed the output's 10");
  CHECK(E.verify().empty());
  std::string Ptx = ptxOf(E, "sm_90");
  if (havePtxas())
    CHECK(ptxasErrors(Ptx, "sm_90") == "");
}
