// Opcode, type and class tables (ptx/Ir.h).
#include "ptx/Ir.h"

#include <doctest/doctest.h>

using namespace ptx;

TEST_CASE("opcode table round-trips names") {
  REQUIRE(lookupOpcode("fma").has_value());
  CHECK(opcodeName(*lookupOpcode("fma")) == "fma");
  CHECK(lookupOpcode("fma.rn") == std::nullopt);
  CHECK(lookupOpcode("bogus") == std::nullopt);
}

TEST_CASE("classify by type, space and rule") {
  CHECK(classify(Opcode::Add, {"f32"}) == InstrClass::Fp32);
  CHECK(classify(Opcode::Add, {"rn", "f64"}) == InstrClass::Fp64);
  CHECK(classify(Opcode::Fma, {"rn", "f16x2"}) == InstrClass::Fp16);
  CHECK(classify(Opcode::Add, {"s32"}) == InstrClass::IntArith);
  CHECK(classify(Opcode::Mul, {"wide", "s32"}) == InstrClass::IntMul);
  CHECK(classify(Opcode::Div, {"full", "f32"}) == InstrClass::SpecialFn);
  CHECK(classify(Opcode::Div, {"rn", "f32"}) == InstrClass::DivSqrt);
  CHECK(classify(Opcode::Div, {"s32"}) == InstrClass::DivSqrt);
  CHECK(classify(Opcode::Rcp, {"approx", "ftz", "f32"}) == InstrClass::SpecialFn);
  CHECK(classify(Opcode::Ld, {"global", "nc", "v4", "f32"}) == InstrClass::LdGlobal);
  CHECK(classify(Opcode::Ld, {"u32"}) == InstrClass::LdGlobal);
  CHECK(classify(Opcode::Ld, {"shared", "u32"}) == InstrClass::LdShared);
  CHECK(classify(Opcode::Ld, {"shared::cta", "u32"}) == InstrClass::LdShared);
  CHECK(classify(Opcode::Ld, {"param", "u64"}) == InstrClass::LdParam);
  CHECK(classify(Opcode::St, {"local", "u32"}) == InstrClass::StLocal);
  CHECK(classify(Opcode::Cp, {"async", "ca", "shared", "global"}) == InstrClass::LdGlobal);
  CHECK(classify(Opcode::Cp, {"async", "wait_group"}) == InstrClass::Barrier);
  CHECK(classify(Opcode::Shfl, {"sync", "bfly", "b32"}) == InstrClass::Warp);
  CHECK(classify(Opcode::Mma, {"sync", "aligned", "m16n8k16", "row", "col", "f32", "f16", "f16",
                               "f32"}) == InstrClass::Tensor);
  CHECK(classify(Opcode::Bra, {"uni"}) == InstrClass::Control);
}

TEST_CASE("every class has a unique JSON name that looks up") {
  for (size_t I = 0; I < NumInstrClasses; ++I) {
    auto C = static_cast<InstrClass>(I);
    CHECK(lookupClass(className(C)) == C);
    CHECK_FALSE(classDescription(C).empty());
  }
}

TEST_CASE("types and state spaces") {
  CHECK(lookupType("f16x2") == Type::F16x2);
  CHECK(typeBits(Type::B128) == 128);
  CHECK(typeKind(Type::S8) == TypeKind::Signed);
  CHECK(lookupType("v4") == std::nullopt);
  CHECK(stateSpaceOfModifier("shared::cluster") == StateSpace::Shared);
  CHECK(stateSpaceOfModifier("nc") == std::nullopt);
}
