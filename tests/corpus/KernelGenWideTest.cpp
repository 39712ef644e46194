// Kernel generators past 2^31 elements: every strategy on a tensor too large for 32-bit indices
// gets 64-bit index arithmetic (`_i64` kernels whose global addresses are i64 GEPs), ptxas
// accepts it, and fast mode (abstract memory: bounds are checked, nothing is stored) runs the
// whole grid without leaving a buffer and stores every output byte exactly once.
#include "KernelCases.h"
#include "KernelRun.h"
#include "Ptxas.h"

#include "analyzer/FastMode.h"
#include "corpus/KernelGen.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <variant>

using namespace corpus;
using kernelcases::conv;
using kernelcases::pool;

namespace {

constexpr uint64_t Two31 = uint64_t(1) << 31;

using WideSpec = std::variant<ConvSpec, GemmSpec, BatchMatMulSpec, PoolSpec, ReduceSpec,
                              ElementwiseSpec, ConcatSpec, SoftmaxSpec, LayerNormSpec>;

/// Every strategy with a tensor of 2^31 elements or more, and the kernel's expected strategy.
std::vector<std::pair<const char *, WideSpec>> wideLayers() {
  using Op = ElementwiseOp;
  using AK = ActivationKind;
  ElementwiseSpec Relu{Op::Activation, 1, 1, uint32_t(Two31 + 37), AK::Relu};
  ElementwiseSpec Scale{Op::ScaleChannels, 2, 1100, 1000000, AK::None};
  ElementwiseSpec Bn{Op::BatchNorm, 3, 700, 1100000, AK::Relu};
  ElementwiseSpec PowS{Op::PowScalar, 1, 3, 800000000, AK::None, DType::F16, 0.37f};
  return {{"conv_direct", conv(1100, 3, 8, 512, 512, 3, 1, 1)},
          {"conv_depthwise", conv(1024, 64, 64, 200, 200, 3, 1, 1, 64)},
          {"conv_implicit_gemm", conv(600, 16, 32, 512, 512, 3, 1, 1)},
          {"conv_gemm", conv(1024, 256, 64, 100, 100, 1, 1, 0)},
          {"dense_gemm", GemmSpec{1048000, 2100, 16, DType::F32, {}}},
          {"dense_gemv", GemmSpec{2, 40000, 60000, DType::F32, {}}},
          {"bmm_gemm", BatchMatMulSpec{600, 2048, 64, 2048}},
          {"pool_max", pool(PoolKind::Max, 1024, 64, 200, 200, 2, 2, 0)},
          {"global_avg_pool", ReduceSpec{1024, 2048, 1100, DType::F32, {}}},
          {"eltwise_activation", Relu},
          {"eltwise_scale_channels", Scale},
          {"eltwise_batch_norm", Bn},
          {"eltwise_pow_scalar", PowS},
          // 16-byte units: 1024 x 64 x 16500 / 4 per input, 500 x 128 for each of 4224 blocks
          // (equal shares, so fast mode's sampled CTAs stand for the others exactly).
          {"concat", ConcatSpec{1024, {64, 64}, 128, 0, 16500}},
          {"softmax", SoftmaxSpec{(1u << 21) + 3, 1024}},
          {"layernorm", LayerNormSpec{(1u << 21) + 3, 1024}}};
}

/// The global-memory GEPs of the IR that index with 32 bits (shared-memory tiles excluded).
std::vector<std::string> narrowGlobalGeps(const std::string &Ir) {
  std::vector<std::string> Narrow;
  std::istringstream In(Ir);
  size_t Geps = 0;
  for (std::string Line; std::getline(In, Line);) {
    if (Line.find("getelementptr") == std::string::npos ||
        Line.find("addrspace(3)") != std::string::npos)
      continue;
    ++Geps;
    if (Line.find(", i64 ") == std::string::npos || Line.find(", i32 ") != std::string::npos)
      Narrow.push_back(Line);
  }
  if (Geps == 0)
    Narrow.push_back("no global GEP at all");
  return Narrow;
}

} // namespace

TEST_CASE("layers past 2^31 elements lower to 64-bit-index kernels that cover the tensor") {
  for (const auto &[Strategy, Spec] : wideLayers()) {
    INFO(Strategy);
    KernelEmitter E;
    auto L = std::visit([&](const auto &S) { return E.add(S); }, Spec);
    REQUIRE_MESSAGE(L, support::errorText(L));
    CHECK(L->strategy == Strategy);
    CHECK(L->kernel.size() > 4);
    CHECK(L->kernel.substr(L->kernel.size() - 4) == "_i64");
    uint64_t Largest = 0;
    for (const KernelParam &P : L->params)
      Largest = std::max(Largest, P.elements);
    CHECK(Largest >= Two31);
    CHECK(narrowGlobalGeps(E.irText()) == std::vector<std::string>{});
    auto Ptx = E.emitPtx("sm_90");
    REQUIRE_MESSAGE(Ptx, support::errorText(Ptx));
    if (ptxastest::havePtxas())
      CHECK(ptxastest::ptxasErrors(*Ptx, "sm_90") == "");
    // Abstract memory keeps bounds: an index that wrapped at 2^31 or 2^32 would trap. Every
    // output element is written once, so the stores add up to the output tensor.
    analyzer::LaunchAnalysis A = kernelrun::analyseLaunch(*L, *Ptx, analyzer::AnalysisMode::Fast);
    const uint64_t OutBytes = L->params.back().elements * dtypeBytes(L->dtype);
    CHECK(A.profile.storeBytes[size_t(analyzer::MemSpace::Global)] == OutBytes);
  }
}

TEST_CASE("a flat elementwise kernel past 2^31 elements reads and writes each element once") {
  const uint64_t Count = Two31 + 37;
  KernelEmitter E;
  auto L = E.add(ElementwiseSpec{ElementwiseOp::Add, 1, 1, uint32_t(Count), ActivationKind::None});
  REQUIRE(L);
  CHECK(L->kernel == "eltwise_add_e2147483685_f32_i64");
  CHECK(uint64_t(L->grid[0]) * L->block[0] >= Count);
  CHECK(uint64_t(L->grid[0] - 1) * L->block[0] < Count);
  auto Ptx = E.emitPtx("sm_90");
  REQUIRE(Ptx);
  analyzer::LaunchAnalysis A = kernelrun::analyseLaunch(*L, *Ptx, analyzer::AnalysisMode::Fast);
  CHECK(A.ctasTotal == L->grid[0]);
  CHECK(A.profile.loadBytes[size_t(analyzer::MemSpace::Global)] == 2 * Count * 4);
  CHECK(A.profile.storeBytes[size_t(analyzer::MemSpace::Global)] == Count * 4);
}

TEST_CASE("the same shapes below 2^31 keep 32-bit index arithmetic") {
  KernelEmitter E;
  auto L =
      E.add(ElementwiseSpec{ElementwiseOp::Add, 1, 1, uint32_t(Two31 - 1), ActivationKind::None});
  REQUIRE(L);
  CHECK(L->kernel == "eltwise_add_e2147483647_f32");
  CHECK(narrowGlobalGeps(E.irText()).size() == 3); // input, input2, output: i32 indices
  ElementwiseSpec Forced{ElementwiseOp::Add, 1, 1, 100, ActivationKind::None};
  Forced.index64 = true;
  auto F = E.add(Forced);
  REQUIRE(F);
  CHECK(F->kernel == "eltwise_add_e100_f32_i64");
}
