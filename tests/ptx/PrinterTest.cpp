// Printer: exact text for instructions, variables and modules built by hand, and that the printed
// text parses back to the same IR.
#include "ptx/Printer.h"
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

using namespace ptx;
using K = Operand::Kind;

namespace {

Operand reg(const std::string &N) { return Operand{K::Register, false, N, 0, {}}; }
Operand sym(const std::string &N) { return Operand{K::Symbol, false, N, 0, {}}; }
Operand imm(int64_t V) { return Operand{K::Immediate, false, "", V, {}}; }
Operand addr(const std::string &N, int64_t V) { return Operand{K::Address, false, N, V, {}}; }

Instruction instr(Opcode Op, std::vector<std::string> Mods, std::vector<Operand> Ops) {
  Instruction I;
  I.opcode = Op;
  I.modifiers = std::move(Mods);
  I.operands = std::move(Ops);
  I.cls = classify(Op, I.modifiers);
  return I;
}

} // namespace

TEST_CASE("instructions: guard, modifiers, operand forms") {
  Instruction Bra = instr(Opcode::Bra, {}, {sym("$L__BB0_2")});
  Bra.guard = Guard{"%p1", false};
  CHECK(print(Bra) == "@%p1 bra $L__BB0_2;");
  Bra.guard->negated = true;
  CHECK(print(Bra) == "@!%p1 bra $L__BB0_2;");
  Operand Vec{K::Vector,
              false,
              "",
              0,
              {reg("%f1"), reg("%f2"), Operand{K::Sink, false, "", 0, {}}, reg("%f4")}};
  CHECK(print(instr(Opcode::Ld, {"global", "nc", "v4", "f32"}, {Vec, addr("%rd1", -16)})) ==
        "ld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd1+-16];");
  CHECK(print(instr(Opcode::Ld, {"u32"}, {reg("%r1"), addr("", 64)})) == "ld.u32 %r1, [64];");
  CHECK(print(instr(Opcode::Ld, {"u32"}, {reg("%r1"), addr("%rd2", 0)})) == "ld.u32 %r1, [%rd2];");
  Operand Pair{K::PredPair, false, "", 0, {reg("%p1"), reg("%p2")}};
  Operand NotP = reg("%p3");
  NotP.negated = true;
  CHECK(print(instr(Opcode::Setp, {"lt", "and", "s32"}, {Pair, reg("%r1"), imm(-7), NotP})) ==
        "setp.lt.and.s32 %p1|%p2, %r1, -7, !%p3;");
  CHECK(print(instr(Opcode::Mov, {"f32"},
                    {reg("%f1"), Operand{K::F32Imm, false, "", 0x3F800000, {}}})) ==
        "mov.f32 %f1, 0f3F800000;");
  CHECK(print(instr(Opcode::Mov, {"f64"},
                    {reg("%fd1"), Operand{K::F64Imm, false, "", 0x400921FB54442D18, {}}})) ==
        "mov.f64 %fd1, 0d400921FB54442D18;");
  Operand Ret{K::List, false, "", 0, {sym("retval0")}};
  Operand Args{K::List, false, "", 0, {sym("param0"), sym("param1")}};
  CHECK(print(instr(Opcode::Call, {"uni"}, {Ret, sym("foo"), Args})) ==
        "call.uni (retval0), foo, (param0, param1);");
  CHECK(print(instr(Opcode::Ret, {}, {})) == "ret;");
}

TEST_CASE("a module built by hand prints as valid PTX and parses back equal") {
  Module M;
  M.versionMajor = 8;
  M.versionMinor = 5;
  M.targets = {"sm_90"};
  Variable G;
  G.space = StateSpace::Global;
  G.linkage = Linkage::Visible;
  G.type = Type::U32;
  G.align = 4;
  G.name = "grid";
  G.dims = {2, 3};
  G.init = {imm(1), imm(2), imm(3), imm(4), imm(5), imm(6)};
  M.globals.push_back(G);
  Function F;
  F.isEntry = true;
  F.linkage = Linkage::Visible;
  F.name = "k";
  Variable P;
  P.space = StateSpace::Param;
  P.type = Type::U64;
  P.name = "k_param_0";
  P.isPtr = true;
  P.ptrSpace = StateSpace::Global;
  P.ptrAlign = 16;
  F.params.push_back(P);
  F.directives.push_back({"reqntid", {128, 1, 1}});
  F.hasBody = true;
  F.regs.push_back({Type::B32, 1, "%r", 3});
  F.regs.push_back({Type::B64, 1, "%rd", 2});
  BasicBlock B;
  B.instrs.push_back(instr(Opcode::Ld, {"param", "u64"}, {reg("%rd1"), addr("k_param_0", 0)}));
  B.instrs.push_back(instr(Opcode::Ld, {"global", "u32"}, {reg("%r1"), addr("grid", 4)}));
  B.instrs.push_back(instr(Opcode::St, {"global", "u32"}, {addr("%rd1", 0), reg("%r1")}));
  B.instrs.push_back(instr(Opcode::Ret, {}, {}));
  F.blocks.push_back(B);
  M.functions.push_back(F);

  const std::string Expected =
      ".version 8.5\n"
      ".target sm_90\n"
      ".address_size 64\n"
      "\n"
      ".visible .global .align 4 .u32 grid[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
      "\n"
      ".visible .entry k(\n"
      "\t.param .u64 .ptr .global .align 16 k_param_0\n"
      ")\n"
      ".reqntid 128, 1, 1\n"
      "{\n"
      "\t.reg .b32 %r<3>;\n"
      "\t.reg .b64 %rd<2>;\n"
      "\n"
      "\tld.param.u64 %rd1, [k_param_0];\n"
      "\tld.global.u32 %r1, [grid+4];\n"
      "\tst.global.u32 [%rd1], %r1;\n"
      "\tret;\n"
      "}\n\n";
  CHECK(print(M) == Expected);
  std::ostringstream OS;
  print(OS, M);
  CHECK(OS.str() == Expected);
  support::Expected<Module> Back = parseModule(print(M), "printed.ptx");
  if (!Back)
    FAIL(Back.error().str());
  CHECK(*Back == M);
}

TEST_CASE("prototypes print before globals so initializers may name functions") {
  const std::string Src =
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".func (.param .b32 r) f(.param .b32 x);\n"
      ".global .align 8 .u64 fp = f;\n"
      ".func (.param .b32 r) f(.param .b32 x)\n{\n\tst.param.b32 [r], 1;\n\tret;\n}\n";
  support::Expected<Module> M = parseModule(Src, "p.ptx");
  REQUIRE(M);
  std::string Out = print(*M);
  size_t Proto = Out.find(".func (.param .b32 r) f(");
  size_t Global = Out.find(".global .align 8 .u64 fp = f;");
  size_t Body = Out.find(".func (.param .b32 r) f(", Proto + 1);
  REQUIRE(Proto != std::string::npos);
  REQUIRE(Global != std::string::npos);
  REQUIRE(Body != std::string::npos);
  CHECK(Proto < Global);
  CHECK(Global < Body);
  support::Expected<Module> Back = parseModule(Out, "printed.ptx");
  REQUIRE(Back);
  CHECK(*Back == *M);
}

TEST_CASE("scoped declarations, prototypes and branch targets print as body declarations") {
  const std::string Src = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".entry k()\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n"
                          "{ .param .b32 param0; st.param.b32 [param0], %r1;\n"
                          "  p0: .callprototype _ (.param .b32 _);\n  call %rd1, (param0), p0; }\n"
                          "{ .param .b32 param0; st.param.b32 [param0], %r2; }\n"
                          "t: .branchtargets $A, $B;\nbrx.idx %r1, t;\n$A:\n$B:\nret;\n}\n";
  support::Expected<Module> M = parseModule(Src, "s.ptx");
  if (!M)
    FAIL(M.error().str());
  std::string Out = print(*M);
  CHECK(Out.find("\t.param .b32 param0;\n\t.param .b32 param0$1;\n") != std::string::npos);
  CHECK(Out.find("\tp0: .callprototype _ (.param .b32 _);\n") != std::string::npos);
  CHECK(Out.find("\tt: .branchtargets $A, $B;\n") != std::string::npos);
  CHECK(Out.find("\tst.param.b32 [param0$1], %r2;\n") != std::string::npos);
  CHECK(Out.find("$A:\n$B:\n\tret;\n") != std::string::npos);
  support::Expected<Module> Back = parseModule(Out, "printed.ptx");
  REQUIRE(Back);
  CHECK(*Back == *M);
}

TEST_CASE("initializer forms print back") {
  const std::string Src = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".global .align 4 .b8 a[4] = {1, 2, 3};\n"
                          ".global .align 8 .u64 p[2] = {generic(a), generic(a)+-2};\n"
                          ".global .v2 .f32 v = {0f3F800000, 1.5};\n"
                          ".global .u32 s = -3;\n";
  support::Expected<Module> M = parseModule(Src, "i.ptx");
  REQUIRE(M);
  std::string Out = print(*M);
  CHECK(Out.find(".global .align 4 .b8 a[4] = {1, 2, 3};\n") != std::string::npos);
  CHECK(Out.find(".global .align 8 .u64 p[2] = {generic(a), generic(a)+-2};\n") !=
        std::string::npos);
  CHECK(Out.find(".global .v2 .f32 v = {0f3F800000, 0d3FF8000000000000};\n") != std::string::npos);
  CHECK(Out.find(".global .u32 s = -3;\n") != std::string::npos);
}
