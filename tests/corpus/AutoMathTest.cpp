// `--math auto` (corpus::autoMath, LowerOptions::math = Auto): per layer what PyTorch runs on the
// target architecture, and the lowering and its records following that choice layer by layer.
#include "corpus/Builder.h"
#include "corpus/KernelGen.h"
#include "corpus/Lower.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace corpus;

TEST_CASE("auto math: PyTorch's default per architecture, data type and layer kind") {
  const MathMode S = MathMode::Simt, T = MathMode::Tf32, H = MathMode::F16;
  struct Row {
    const char *arch;
    DType dtype;
    MathMode conv, dense, bmm;
  };
  // f32: cudnn.allow_tf32 (True) for convolutions from sm_80, matmul.allow_tf32 (False) for
  // dense and bmm; f16: tensor cores for all three from sm_70.
  const Row Rows[] = {{"sm_70", DType::F32, S, S, S}, {"sm_75", DType::F32, S, S, S},
                      {"sm_80", DType::F32, T, S, S}, {"sm_86", DType::F32, T, S, S},
                      {"sm_90", DType::F32, T, S, S}, {"sm_70", DType::F16, H, H, H},
                      {"sm_75", DType::F16, H, H, H}, {"sm_90", DType::F16, H, H, H}};
  for (const Row &R : Rows) {
    INFO(R.arch << (R.dtype == DType::F16 ? " f16" : " f32"));
    CHECK(autoMath(LayerKind::Conv, R.dtype, R.arch) == R.conv);
    CHECK(autoMath(LayerKind::Dense, R.dtype, R.arch) == R.dense);
    CHECK(autoMath(LayerKind::MatMul, R.dtype, R.arch) == R.bmm);
    for (LayerKind K : {LayerKind::Activation, LayerKind::Add, LayerKind::MaxPool,
                        LayerKind::GlobalAvgPool, LayerKind::Softmax, LayerKind::LayerNorm})
      CHECK(autoMath(K, R.dtype, R.arch) == S);
  }
  CHECK(parseMathMode("auto") == MathMode::Auto);
  CHECK(std::string(mathModeName(MathMode::Auto)) == "auto");
}

namespace {

/// conv (implicit GEMM) + relu, a dense layer of 16 rows, a bmm, a softmax.
Network mixed(DType T) {
  NetworkBuilder B("mixed", T);
  LayerId X = B.input({16, 8, 6, 6}, "x");
  LayerId C = B.relu(B.conv(X, 32, 3, 1, 1));
  LayerId D = B.dense(B.flatten(C), 24);
  LayerId M = B.batchMatMul(B.input({2, 16, 24}, "a"), B.input({2, 24, 20}, "b"));
  B.softmax(M);
  (void)D;
  auto N = B.finish();
  REQUIRE_MESSAGE(N, support::errorText(N));
  return std::move(*N);
}

/// strategy -> math of each launch of `N` lowered with --math auto for Arch.
std::map<std::string, MathMode> autoLaunches(const Network &N, DType T, const std::string &Arch,
                                             Workload *Out = nullptr) {
  LowerOptions O;
  O.dtype = T;
  O.arch = Arch;
  O.math = MathMode::Auto;
  O.emitPtx = false;
  auto W = lower(N, O);
  REQUIRE_MESSAGE(W, support::errorText(W));
  CHECK(W->math == MathMode::Auto);
  std::map<std::string, MathMode> M;
  for (const WorkloadLaunch &L : W->launches)
    M[L.strategy] = L.math;
  if (Out)
    *Out = std::move(*W);
  return M;
}

} // namespace

TEST_CASE("lower --math auto: each layer gets its own math, recorded per launch") {
  const Network F32 = mixed(DType::F32), F16 = mixed(DType::F16);
  using Want = std::map<std::string, MathMode>;
  CHECK(autoLaunches(F32, DType::F32, "sm_90") == Want{{"conv_implicit_gemm_mma", MathMode::Tf32},
                                                       {"dense_gemm", MathMode::Simt},
                                                       {"bmm_gemm", MathMode::Simt},
                                                       {"softmax", MathMode::Simt}});
  CHECK(autoLaunches(F32, DType::F32, "sm_75") == Want{{"conv_implicit_gemm", MathMode::Simt},
                                                       {"dense_gemm", MathMode::Simt},
                                                       {"bmm_gemm", MathMode::Simt},
                                                       {"softmax", MathMode::Simt}});
  Workload W;
  CHECK(autoLaunches(F16, DType::F16, "sm_70", &W) ==
        Want{{"conv_implicit_gemm_mma", MathMode::F16},
             {"dense_gemm_mma", MathMode::F16},
             {"bmm_gemm_mma", MathMode::F16},
             {"softmax", MathMode::Simt}});
  // sm_70's tensor-core kernels, named as such; the workload says auto, each launch its math.
  CHECK(W.launches[0].kernel.find("_mma_f16_sm70_") != std::string::npos);
  const std::string Json = workloadJson(W);
  CHECK(Json.find("\"math\": \"auto\"") != std::string::npos);
  CHECK(Json.find("\"math\": \"f16\"") != std::string::npos);
  CHECK(manifestJson(W).find("\"math\": \"auto\"") != std::string::npos);
}

TEST_CASE("a kernel spec takes a resolved math mode, not auto") {
  KernelEmitter E;
  auto L = E.add(GemmSpec{16, 32, 32, DType::F32, {}, false, MathMode::Auto});
  REQUIRE_FALSE(L);
  CHECK(L.error().message == "dense: --math auto is chosen per layer by the lowering; a kernel "
                             "takes simt, tf32, f16 or bf16");
}
