// Half-precision elementwise math (ElementwiseSpec::math = F16 on f16 data, docs/lowering.md,
// "Half-precision math"): f16x2 kernels with a scalar tail match the CPU reference within one f16
// rounding in the exact interpreter, fast mode counts them within 1 %, ptxas accepts them, and
// ops or data without an f16 form keep the f32-math kernel byte for byte.
#include "KernelCases.h"
#include "KernelRef.h"
#include "KernelRun.h"
#include "Ptxas.h"

#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace corpus;
using namespace kernelcases;
using namespace kernelrun;

namespace {

using Op = ElementwiseOp;
using AK = ActivationKind;

/// A case and the f16x2 instruction its op must use.
struct HalfCase {
  const char *label;
  ElementwiseSpec spec;
  const char *instruction;
};

ElementwiseSpec half(Op O, uint32_t N, uint32_t C, uint32_t S, AK A, float Scalar = 0) {
  return ElementwiseSpec{O, N, C, S, A, DType::F16, Scalar, false, MathMode::F16};
}

/// Odd counts (105, 1) end in the scalar tail; per-channel ops have even spatial sizes.
std::vector<HalfCase> halfCases() {
  return {{"add relu, odd count", half(Op::Add, 1, 3, 35, AK::Relu), "add.rn.f16x2"},
          {"mul", half(Op::Mul, 2, 4, 6, AK::None), "mul.rn.f16x2"},
          {"add scalar relu6, odd count", half(Op::AddScalar, 1, 5, 21, AK::Relu6, 0.75f),
           "add.rn.f16x2"},
          {"mul scalar, one element", half(Op::MulScalar, 1, 1, 1, AK::None, -1.5f), "mul.rn.f16"},
          {"channel scale", half(Op::ScaleChannels, 2, 3, 10, AK::None), "mul.rn.f16x2"},
          {"batch norm relu", half(Op::BatchNorm, 2, 3, 12, AK::Relu), "fma.rn.f16x2"},
          {"relu alone, odd count", half(Op::Activation, 1, 1, 301, AK::Relu), "max.f16x2"}};
}

uint64_t countOf(const ElementwiseSpec &S) { return uint64_t(S.batch) * S.channels * S.spatial; }

/// Case C's kernel from kernel set Set, and its module's PTX for Arch.
std::pair<KernelLaunch, std::string> emitCase(const HalfCase &C, KernelSet Set, const char *Arch) {
  KernelEmitter E;
  E.useKernelSet(Set);
  auto L = E.add(C.spec);
  REQUIRE_MESSAGE(L, support::errorText(L));
  auto Ptx = E.emitPtx(Arch);
  REQUIRE_MESSAGE(Ptx, support::errorText(Ptx));
  return {*L, *Ptx};
}

} // namespace

TEST_CASE("f16x2 elementwise kernels: one f16 rounding from the reference, a pair per thread") {
  uint32_t Seed = 7000;
  for (const HalfCase &C : halfCases())
    for (KernelSet Set : {KernelSet::Specialised, KernelSet::Library}) {
      INFO(std::string(C.label) << ", " << kernelSetName(Set));
      const auto [L, Ptx] = emitCase(C, Set, "sm_90");
      CHECK(L.kernel.find(Set == KernelSet::Library ? "_x2" : "_f16x2") != std::string::npos);
      const uint64_t Threads = (countOf(C.spec) + 1) / 2;
      CHECK(uint64_t(L.grid[0]) * L.block[0] >= Threads);
      CHECK(uint64_t(L.grid[0] - 1) * L.block[0] < Threads);
      CHECK(Ptx.find(C.instruction) != std::string::npos);
      if (Set == KernelSet::Specialised) { // a library kernel keeps the pair path for any count
        CHECK((Ptx.find("st.global.b32") != std::string::npos) == (countOf(C.spec) > 1));
        CHECK((Ptx.find("st.global.b16") != std::string::npos) == (countOf(C.spec) % 2 == 1));
      }
      CHECK(Ptx.find(".f32") == std::string::npos); // no f32 arithmetic or conversion
      auto Mod = ptx::parseModule(Ptx, "half.ptx");
      REQUIRE_MESSAGE(Mod, support::errorText(Mod));
      auto Prog = analyzer::decodeProgram(*Mod);
      REQUIRE_MESSAGE(Prog, support::errorText(Prog));
      kernelref::Buffers Data;
      std::vector<float> Got = runCase(*Prog, L, Seed += 10, Data);
      REQUIRE(Got.size() == countOf(C.spec));
      // The operands are f16 values and every op is one correctly rounded f16 add, multiply or
      // fma (relu and relu6 are exact): within 2^-11 of the exact result.
      const double Err = kernelref::maxRelError(Got, kernelref::elementwise(C.spec, Data));
      CHECK_MESSAGE(Err <= 0x1p-11 * (1 + 1e-9), "max relative error " << Err);
    }
}

TEST_CASE("fast mode counts the f16x2 elementwise kernels within 1 % of exact mode") {
  for (const HalfCase &C : halfCases())
    for (KernelSet Set : {KernelSet::Specialised, KernelSet::Library}) {
      INFO(std::string(C.label) << ", " << kernelSetName(Set));
      const auto [L, Ptx] = emitCase(C, Set, "sm_80");
      checkFastMatchesExact(L, Ptx);
    }
}

TEST_CASE("ptxas accepts the f16x2 elementwise kernels for sm_70 to sm_90") {
  if (!ptxastest::havePtxas())
    return;
  KernelEmitter E;
  for (const HalfCase &C : halfCases())
    REQUIRE(E.add(C.spec));
  // sm_70's PTX goes through ptxas for sm_75: CUDA 13 has no sm_70.
  for (const auto &[Arch, PtxasArch] : {std::pair("sm_70", "sm_75"), std::pair("sm_75", "sm_75"),
                                        std::pair("sm_80", "sm_80"), std::pair("sm_90", "sm_90")}) {
    INFO(std::string(Arch));
    auto Ptx = E.emitPtx(Arch);
    REQUIRE_MESSAGE(Ptx, support::errorText(Ptx));
    CHECK(ptxastest::ptxasErrors(*Ptx, PtxasArch) == "");
  }
}

TEST_CASE("ops and data without an f16 form keep the f32-math kernel, byte for byte") {
  const ElementwiseSpec Kept[] = {
      half(Op::Add, 1, 3, 35, AK::Sigmoid),       // transcendental activation: f32 as PyTorch
      half(Op::Activation, 1, 1, 64, AK::Swish),  // the same alone
      half(Op::Div, 1, 2, 8, AK::None),           // division
      half(Op::ScaleChannels, 2, 3, 7, AK::None), // odd spatial: a pair could span two channels
      half(Op::BatchNorm, 1, 4, 9, AK::Relu),     // the same
      {Op::Add, 1, 3, 35, AK::Relu, DType::F32, 0, false, MathMode::F16}}; // f32 data
  for (const ElementwiseSpec &S : Kept) {
    ElementwiseSpec Simt = S;
    Simt.math = MathMode::Simt;
    KernelEmitter A, B;
    auto La = A.add(S), Lb = B.add(Simt);
    REQUIRE(La);
    REQUIRE(Lb);
    INFO(La->kernel);
    CHECK(La->kernel == Lb->kernel);
    CHECK(La->grid == Lb->grid);
    CHECK(*A.emitPtx("sm_90") == *B.emitPtx("sm_90"));
  }
  KernelEmitter E;
  auto Bad =
      E.add(ElementwiseSpec{Op::Add, 1, 1, 8, AK::None, DType::F16, 0, false, MathMode::Tf32});
  REQUIRE_FALSE(Bad);
  CHECK(Bad.error().message == "elementwise: --math tf32 has no elementwise form (simt: f32 "
                               "arithmetic, f16: f16x2 arithmetic)");
}
