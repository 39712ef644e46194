// Parser feature tests: one small PTX snippet or fixture per feature, expected IR written by hand.
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <string>

using namespace ptx;
using K = Operand::Kind;

namespace {

const std::string Header = ".version 8.0\n.target sm_90\n.address_size 64\n";

Module parseOk(const std::string &Text) {
  support::Expected<Module> M = parseModule(Text, "t.ptx");
  if (!M)
    FAIL(M.error().str());
  return *M;
}

/// A kernel `k` with the given body; common registers are declared.
Function parseBody(const std::string &Body) {
  Module M = parseOk(Header +
                     ".visible .entry k(.param .u64 k_p)\n{\n"
                     ".reg .pred %p<4>;\n.reg .b32 %r<10>;\n.reg .b64 %rd<10>;\n"
                     ".reg .f32 %f<10>;\n" +
                     Body + "\n}\n");
  REQUIRE(M.functions.size() == 1);
  return M.functions[0];
}

/// The only instruction of a one-instruction body.
Instruction parseOne(const std::string &Line) {
  Function F = parseBody(Line);
  REQUIRE(F.blocks.size() == 1);
  REQUIRE(F.blocks[0].instrs.size() == 1);
  return F.blocks[0].instrs[0];
}

Module parseFixture(const std::string &Name) {
  support::Expected<Module> M =
      parseFile(std::string(PTXCAST_SOURCE_DIR) + "/tests/ptx/fixtures/" + Name);
  if (!M)
    FAIL(M.error().str());
  return *M;
}

} // namespace

TEST_CASE("module header: .version, .target list, .address_size") {
  Module M = parseOk(".version 7.8\n.target sm_90, texmode_independent\n.address_size 32\n");
  CHECK(M.versionMajor == 7);
  CHECK(M.versionMinor == 8);
  CHECK(M.targets == std::vector<std::string>{"sm_90", "texmode_independent"});
  CHECK(M.addressSize == 32);
  CHECK(M.functions.empty());
  CHECK(M.file == "t.ptx");
}

TEST_CASE("entry parameters with .ptr, .space and .align, .func return parameters") {
  Module M = parseOk(Header + ".visible .entry k(\n.param .u64 .ptr .global .align 16 a,\n"
                              ".param .align 8 .b8 s[24]\n)\n{\nret;\n}\n"
                              ".func (.param .b32 r) f(.param .b32 x) { ret; }\n");
  REQUIRE(M.functions.size() == 2);
  const Function &K = M.functions[0];
  CHECK(K.isEntry);
  CHECK(K.linkage == Linkage::Visible);
  REQUIRE(K.params.size() == 2);
  CHECK(K.params[0].type == Type::U64);
  CHECK(K.params[0].isPtr);
  CHECK(K.params[0].ptrSpace == StateSpace::Global);
  CHECK(K.params[0].ptrAlign == 16);
  CHECK(K.params[0].align == 0);
  CHECK(K.params[1].align == 8);
  CHECK(K.params[1].dims == std::vector<uint64_t>{24});
  CHECK(K.params[1].sizeBytes() == 24);
  const Function &F = M.functions[1];
  CHECK_FALSE(F.isEntry);
  REQUIRE(F.returns.size() == 1);
  CHECK(F.returns[0].name == "r");
  CHECK(F.returns[0].space == StateSpace::Param);
  CHECK(F.params[0].name == "x");
}

TEST_CASE("prototypes and declarations have no body") {
  Module M =
      parseOk(Header + ".extern .func (.param .b32 r) vprintf(.param .b64 a, .param .b64 b);\n"
                       ".weak .func g();\n");
  REQUIRE(M.functions.size() == 2);
  CHECK_FALSE(M.functions[0].hasBody);
  CHECK(M.functions[0].linkage == Linkage::Extern);
  CHECK(M.functions[0].params.size() == 2);
  CHECK(M.functions[1].linkage == Linkage::Weak);
  CHECK(M.findFunction("vprintf") == nullptr);
}

TEST_CASE(".reg declarations: ranges, several names, vector registers") {
  Module M = parseOk(Header + ".entry k()\n{\n.reg .pred %p<3>;\n.reg .b32 %r<10>, %x, %y;\n"
                              ".reg .v4 .f32 %v;\nret;\n}\n");
  const Function &F = M.functions[0];
  REQUIRE(F.regs.size() == 5);
  CHECK(F.regs[0] == RegDecl{Type::Pred, 1, "%p", 3});
  CHECK(F.regs[1] == RegDecl{Type::B32, 1, "%r", 10});
  CHECK(F.regs[2] == RegDecl{Type::B32, 1, "%x", 0});
  CHECK(F.regs[3] == RegDecl{Type::B32, 1, "%y", 0});
  CHECK(F.regs[4] == RegDecl{Type::F32, 4, "%v", 0});
}

TEST_CASE("a type fused to the state space parses like the spaced form (.param.u64, .reg.v4.u16)") {
  Module Fused = parseOk(Header + ".func (.reg.u32 r) f(.param.u64 p, .reg.b32 a)\n{\n"
                                  ".reg.u64 %rd<2>;\n.reg.v4.u16 v;\n.local.align 8 .b8 l[8];\n"
                                  "ld.param.u64 %rd1, [p];\nmov.u16 v.x, 1;\nret;\n}\n"
                                  ".global.u32 g;\n");
  Module Spaced = parseOk(Header + ".func (.reg .u32 r) f(.param .u64 p, .reg .b32 a)\n{\n"
                                   ".reg .u64 %rd<2>;\n.reg .v4 .u16 v;\n.local .align 8 .b8 l[8];\n"
                                   "ld.param.u64 %rd1, [p];\nmov.u16 v.x, 1;\nret;\n}\n"
                                   ".global .u32 g;\n");
  CHECK(Fused == Spaced);
  const Function &F = Fused.functions[0];
  CHECK(F.regs[1] == RegDecl{Type::U16, 4, "v", 0});
  CHECK(F.params[1].space == StateSpace::Reg);
  // `v.x` names a component of the vector register `v` (declared without a %).
  CHECK(F.blocks[0].instrs[1].operands[0].kind == K::Register);
  CHECK(F.blocks[0].instrs[1].operands[0].name == "v.x");
}

TEST_CASE("symbol and register offsets as operands: mov.u64 %rd1, sym+4 / temp+1 / sym-8") {
  Module M = parseOk(Header + ".global .u32 sym[4];\n.entry k()\n{\n.reg .u64 temp, %rd<3>;\n"
                              "mov.u64 %rd1, sym+4;\nmov.u64 %rd2, temp+1;\nmov.u64 %rd1, sym-8;\n"
                              "mov.u64 %rd1, sym+-8;\nmov.u32 %rd1, WARP_SZ;\nret;\n}\n");
  const auto &Is = M.functions[0].blocks[0].instrs;
  CHECK((Is[0].operands[1].kind == K::Symbol && Is[0].operands[1].value == 4));
  CHECK((Is[1].operands[1].kind == K::Register && Is[1].operands[1].name == "temp" &&
         Is[1].operands[1].value == 1));
  CHECK(Is[2].operands[1].value == -8);
  CHECK(Is[3].operands[1] == Is[2].operands[1]);
  CHECK((Is[4].operands[1].kind == K::Symbol && Is[4].operands[1].name == "WARP_SZ"));
  support::Expected<Module> Bad =
      parseModule(Header + ".entry k()\n{\n.reg .u64 %rd1;\nmov.u64 %rd1, %rd1+1.5;\n}\n", "t.ptx");
  REQUIRE_FALSE(Bad);
  CHECK(Bad.error().str() == "t.ptx:7:20: error: offset must be an integer");
}

TEST_CASE("kernel attributes become Function::directives") {
  Module M = parseOk(Header + ".entry k()\n.reqntid 256, 1, 1\n.maxntid 256\n.minnctapersm 2\n"
                              ".maxnreg 32\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n"
                              ".maxclusterrank 8\n{\nret;\n}\n"
                              ".func f() .noreturn\n{\ntrap;\n}\n");
  const Function &K = M.functions[0];
  REQUIRE(K.directives.size() == 7);
  CHECK(*K.directive("reqntid") == std::vector<uint32_t>{256, 1, 1});
  CHECK(*K.directive("maxntid") == std::vector<uint32_t>{256});
  CHECK(*K.directive("minnctapersm") == std::vector<uint32_t>{2});
  CHECK(*K.directive("maxnreg") == std::vector<uint32_t>{32});
  CHECK(K.directive("explicitcluster")->empty());
  CHECK(*K.directive("reqnctapercluster") == std::vector<uint32_t>{2, 1, 1});
  CHECK(*K.directive("maxclusterrank") == std::vector<uint32_t>{8});
  CHECK(K.directive("noreturn") == nullptr);
  CHECK(M.functions[1].directive("noreturn") != nullptr);
}

TEST_CASE("opcode is the first dotted component, modifiers keep order, :: and no dots") {
  Instruction I = parseOne("ld.global.L1::evict_last.L2::cache_hint.v4.f32 {%f1, %f2, %f3, %f4}, "
                           "[%rd1], %rd2;");
  CHECK(I.opcode == Opcode::Ld);
  CHECK(I.modifiers ==
        std::vector<std::string>{"global", "L1::evict_last", "L2::cache_hint", "v4", "f32"});
  CHECK(I.cls == InstrClass::LdGlobal);
  CHECK(I.vectorWidth() == 4);
  Instruction S = parseOne("st.shared::cta.u32 [%r1], %r2;");
  CHECK(S.modifiers == std::vector<std::string>{"shared::cta", "u32"});
  CHECK(S.cls == InstrClass::StShared);
  CHECK(parseOne("bar.sync 0;").cls == InstrClass::Barrier);
  CHECK(parseOne("ex2.approx.ftz.f32 %f1, %f2;").cls == InstrClass::SpecialFn);
  CHECK(parseOne("fma.rn.sat.f32 %f1, %f2, %f3, %f4;").cls == InstrClass::Fp32);
}

TEST_CASE("guards @%p and @!%p") {
  Instruction A = parseOne("@%p1 add.s32 %r1, %r2, 1;");
  REQUIRE(A.guard.has_value());
  CHECK(A.guard->reg == "%p1");
  CHECK_FALSE(A.guard->negated);
  Instruction B = parseOne("@!%p2 mov.u32 %r1, 0;");
  REQUIRE(B.guard.has_value());
  CHECK(B.guard->reg == "%p2");
  CHECK(B.guard->negated);
  CHECK(B.loc.line == 10); // the guard's position: line 10 of the wrapped module
  CHECK(B.loc.col == 1);
}

TEST_CASE("vector operands, including `_` sinks") {
  Instruction I = parseOne("ld.global.v4.b32 {%r1, _, %r3, _}, [%rd1];");
  REQUIRE(I.operands.size() == 2);
  const Operand &V = I.operands[0];
  CHECK(V.kind == K::Vector);
  REQUIRE(V.elems.size() == 4);
  CHECK(V.elems[0].kind == K::Register);
  CHECK(V.elems[0].name == "%r1");
  CHECK(V.elems[1].kind == K::Sink);
  CHECK(V.elems[3].kind == K::Sink);
}

TEST_CASE("address expressions") {
  Function F = parseBody("ld.u32 %r1, [%rd1];\nld.u32 %r1, [%rd1+8];\nld.u32 %r1, [%rd1+-4];\n"
                         "ld.u32 %r1, [%rd1-4];\nld.param.u64 %rd2, [k_p+16];\nld.u32 %r1, [64];");
  const auto &Is = F.blocks[0].instrs;
  REQUIRE(Is.size() == 6);
  auto Addr = [&](size_t I) { return Is[I].operands[1]; };
  for (size_t I = 0; I < 6; ++I)
    CHECK(Addr(I).kind == K::Address);
  CHECK((Addr(0).name == "%rd1" && Addr(0).value == 0));
  CHECK((Addr(1).name == "%rd1" && Addr(1).value == 8));
  CHECK((Addr(2).name == "%rd1" && Addr(2).value == -4));
  CHECK((Addr(3).name == "%rd1" && Addr(3).value == -4));
  CHECK((Addr(4).name == "k_p" && Addr(4).value == 16));
  CHECK((Addr(5).name.empty() && Addr(5).value == 64));
}

TEST_CASE("negated predicates and setp's %p|%q destination") {
  Instruction S = parseOne("setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;");
  REQUIRE(S.operands.size() == 4);
  CHECK(S.operands[0].kind == K::PredPair);
  REQUIRE(S.operands[0].elems.size() == 2);
  CHECK(S.operands[0].elems[0].name == "%p1");
  CHECK(S.operands[0].elems[1].name == "%p2");
  CHECK(S.operands[3].kind == K::Register);
  CHECK(S.operands[3].negated);
  CHECK(S.cls == InstrClass::CompareSelect);
}

TEST_CASE("special registers need no declaration") {
  Function F =
      parseBody("mov.u32 %r1, %tid.x;\nmov.u32 %r1, %ntid.y;\nmov.u32 %r1, %ctaid.z;\n"
                "mov.u32 %r1, %nctaid.x;\nmov.u32 %r1, %laneid;\nmov.u32 %r1, %warpid;\n"
                "mov.u32 %r1, %smid;\nmov.u32 %r1, %lanemask_lt;\nmov.u64 %rd1, %clock64;\n"
                "mov.u64 %rd1, %globaltimer;\nmov.u32 %r1, %envreg3;\n"
                "mov.u32 %r1, %dynamic_smem_size;\nmov.u32 %r1, %cluster_ctarank;\n"
                "mov.u32 %r1, %clusterid.x;\nmov.u32 %r1, %pm0;");
  CHECK(F.blocks[0].instrs.size() == 15);
  CHECK(F.blocks[0].instrs[0].operands[1].name == "%tid.x");
  CHECK(F.blocks[0].instrs[0].operands[1].kind == K::Register);
}

TEST_CASE("call with and without return values, indirect call through a prototype") {
  Module M = parseFixture("scoped_blocks.ptx");
  const Function *Caller = M.findFunction("caller");
  REQUIRE(Caller != nullptr);
  std::vector<Instruction> Calls;
  for (const BasicBlock &B : Caller->blocks)
    for (const Instruction &I : B.instrs)
      if (I.opcode == Opcode::Call)
        Calls.push_back(I);
  REQUIRE(Calls.size() == 4);
  // call.uni (retval0), callee, (param0);
  CHECK(Calls[0].modifiers == std::vector<std::string>{"uni"});
  REQUIRE(Calls[0].operands.size() == 3);
  CHECK(Calls[0].operands[0].kind == K::List);
  CHECK(Calls[0].operands[0].elems[0].name == "retval0");
  CHECK(Calls[0].operands[1].kind == K::Symbol);
  CHECK(Calls[0].operands[1].name == "callee");
  CHECK(Calls[0].operands[2].elems[0].name == "param0");
  // the second call sequence re-declares param0/retval0: renamed
  CHECK(Calls[1].operands[0].elems[0].name == "retval0$1");
  CHECK(Calls[1].operands[2].elems[0].name == "param0$1");
  // call (retval0), %rd2, (param0), proto0;
  REQUIRE(Calls[2].operands.size() == 4);
  CHECK(Calls[2].operands[1].kind == K::Register);
  CHECK(Calls[2].operands[3].name == "proto0");
  REQUIRE(Caller->prototypes.size() == 1);
  CHECK(Caller->prototypes[0].name == "proto0");
  CHECK(Caller->prototypes[0].returns.size() == 1);
  CHECK(Caller->prototypes[0].params.size() == 1);
  CHECK(Caller->prototypes[0].params[0].type == Type::B64);
  // call.uni noret, (param0$3);  no return list
  REQUIRE(Calls[3].operands.size() == 2);
  CHECK(Calls[3].operands[0].name == "noret");
}

TEST_CASE("scoped blocks are flattened, repeated and shadowing names get fresh names") {
  Module M = parseFixture("scoped_blocks.ptx");
  const Function *F = M.findFunction("caller");
  REQUIRE(F != nullptr);
  std::vector<std::string> Regs, Locals;
  for (const RegDecl &R : F->regs)
    Regs.push_back(R.name);
  for (const Variable &V : F->locals)
    Locals.push_back(V.name);
  CHECK(Regs == std::vector<std::string>{"%p", "%r", "%rd", "temp_param_reg", "temp_param_reg$1",
                                         "%r1$1", "%r1$2"});
  CHECK(Locals == std::vector<std::string>{"param0", "retval0", "param0$1", "retval0$1", "param0$2",
                                           "retval0$2", "param0$3"});
  // { .reg .b32 %r1; add.s32 %r1, %r2, 1; ... { .reg .b32 %r1; mov.u32 %r1, 5; ... } }
  // then add.s32 %r5, %r1, %r4 outside both scopes uses the outer %r1 (from %r<6>).
  std::vector<std::string> Adds;
  for (const BasicBlock &B : F->blocks)
    for (const Instruction &I : B.instrs)
      if (I.opcode == Opcode::Add)
        Adds.push_back(I.operands[0].name + "=" + I.operands[1].name);
  CHECK(Adds == std::vector<std::string>{"%r1$1=%r2", "%r4=%r1$2", "%r5=%r1"});
  // scoped non-% registers become registers once declared
  CHECK(F->locals[0].space == StateSpace::Param);
}

TEST_CASE("scoped range declarations and temporaries in nvcc -G style") {
  Function F =
      parseBody("{ .reg .b64 %tmp;\n cvt.u64.u32 %tmp, %r1;\n cvta.shared.u64 %rd1, %tmp; }\n"
                "{ .reg .b64 %tmp;\n cvt.u64.u32 %tmp, %r2; }\n"
                "{ .reg .b32 %r<3>;\n mov.u32 %r2, 1;\n add.s32 %r5, %r2, %r1; }\n"
                "add.s32 %r5, %r2, 1;");
  std::vector<std::string> Regs;
  for (const RegDecl &R : F.regs)
    Regs.push_back(R.name + "<" + std::to_string(R.count) + ">");
  CHECK(Regs == std::vector<std::string>{"%p<4>", "%r<10>", "%rd<10>", "%f<10>", "%tmp<0>",
                                         "%tmp$1<0>", "%r$1<3>"});
  const auto &Is = F.blocks[0].instrs;
  REQUIRE(Is.size() == 6);
  CHECK(Is[2].operands[0].name == "%tmp$1");
  CHECK(Is[3].operands[0].name == "%r$12"); // %r2 of the inner %r<3>
  CHECK(Is[4].operands[0].name == "%r5");   // %r5 is beyond the inner range: the outer one
  CHECK(Is[4].operands[2].name == "%r$11");
  CHECK(Is[5].operands[1].name == "%r2"); // after the scope: the outer %r2 again
}

TEST_CASE("basic blocks split at labels and after branches, calls and returns") {
  Module M = parseFixture("brx_idx.ptx");
  const Function &F = M.functions[0];
  // entry (4 instrs incl. brx.idx) | $L_case0 (mov, bra) | $L_case1 (empty) | $L_case2 (mov)
  // | $L_join (st, exit)
  REQUIRE(F.blocks.size() == 5);
  CHECK(F.blocks[0].label.empty());
  CHECK(F.blocks[0].instrs.size() == 4);
  CHECK(F.blocks[0].instrs.back().opcode == Opcode::Brx);
  CHECK(F.blocks[1].label == "$L_case0");
  CHECK(F.blocks[1].instrs.size() == 2);
  CHECK(F.blocks[2].label == "$L_case1");
  CHECK(F.blocks[2].instrs.empty());
  CHECK(F.blocks[3].label == "$L_case2");
  CHECK(F.blocks[4].label == "$L_join");
  CHECK(F.blocks[4].instrs.back().opcode == Opcode::Exit);
  REQUIRE(F.branchTargets.size() == 1);
  CHECK(F.branchTargets[0].name == "ts");
  CHECK(F.branchTargets[0].labels == std::vector<std::string>{"$L_case0", "$L_case1", "$L_case2"});
}

TEST_CASE("a branch without a following label starts an unlabeled block") {
  Function F = parseBody("@%p1 bra $L1;\nadd.s32 %r1, %r1, 1;\n$L1:\nret;");
  REQUIRE(F.blocks.size() == 3);
  CHECK(F.blocks[0].instrs.size() == 1);
  CHECK(F.blocks[1].label.empty());
  CHECK(F.blocks[1].instrs.size() == 1);
  CHECK(F.blocks[2].label == "$L1");
  Function G = parseBody("$L0:\nmov.u32 %r1, 0;\n$L1:\n$L2:\nret;");
  REQUIRE(G.blocks.size() == 3);
  CHECK(G.blocks[0].label == "$L0"); // a label at the start names the entry block
  CHECK(G.blocks[1].label == "$L1");
  CHECK(G.blocks[1].instrs.empty());
  CHECK(G.blocks[2].label == "$L2");
}

TEST_CASE("module variables: linkage, alignment, arrays and initializers") {
  Module M = parseFixture("initializers.ptx");
  auto Find = [&](const std::string &Name) -> const Variable & {
    for (const Variable &V : M.globals)
      if (V.name == Name)
        return V;
    FAIL("no variable " << Name);
    return M.globals.at(0);
  };
  CHECK(M.globals.size() == 14);
  CHECK(Find("scalar").init == std::vector<Operand>{Operand{K::Immediate, false, "", 7, {}}});
  CHECK(Find("negative").init[0].value == -5);
  CHECK(Find("half_const").init[0].kind == K::F32Imm);
  CHECK(Find("half_const").init[0].value == 0x3F000000);
  CHECK(Find("half_const").space == StateSpace::Const);
  CHECK(Find("two").init[0].kind == K::F64Imm);
  CHECK(Find("two").init[0].value == 0x4000000000000000);
  CHECK(Find("onehalf").init[0].value == 0x3FF8000000000000); // 1.5 as a double
  const Variable &Grid = Find("grid");
  CHECK(Grid.linkage == Linkage::Visible);
  CHECK(Grid.dims == std::vector<uint64_t>{2, 3});
  REQUIRE(Grid.init.size() == 6);
  CHECK(Grid.init[5].value == 6);
  CHECK(Grid.sizeBytes() == 24);
  const Variable &Pairs = Find("pairs");
  CHECK(Pairs.vectorWidth == 2);
  CHECK(Pairs.init.size() == 4);
  CHECK(Pairs.init[3].value == 0x40800000);
  CHECK(Find("bytes").init[2].value == 0x21);
  CHECK(Find("weak_var").linkage == Linkage::Weak);
  CHECK(Find("common_var").linkage == Linkage::Common);
  CHECK(Find("tile").space == StateSpace::Shared);
  CHECK(Find("tile").align == 16);
  CHECK(Find("external").linkage == Linkage::Extern);
  CHECK(Find("external").dims == std::vector<uint64_t>{0});
  const Variable &Ptrs = Find("ptrs");
  REQUIRE(Ptrs.init.size() == 3);
  CHECK((Ptrs.init[0].kind == K::Symbol && Ptrs.init[0].generic && Ptrs.init[0].name == "grid"));
  CHECK((Ptrs.init[1].generic && Ptrs.init[1].value == 8));
  CHECK((!Ptrs.init[2].generic && Ptrs.init[2].name == "scalar"));
  CHECK((Find("alias").init[0].name == "bytes" && Find("alias").init[0].value == 2));
}

TEST_CASE("function-scope .local, .shared and .param variables go to Function::locals") {
  Function F =
      parseBody(".local .align 8 .b8 __local_depot0[40];\n.shared .align 4 .f32 sm[2][32];\n"
                "mov.u64 %rd1, __local_depot0;");
  REQUIRE(F.locals.size() == 2);
  CHECK(F.locals[0].space == StateSpace::Local);
  CHECK(F.locals[0].sizeBytes() == 40);
  CHECK(F.locals[1].space == StateSpace::Shared);
  CHECK(F.locals[1].dims == std::vector<uint64_t>{2, 32});
  CHECK(F.blocks[0].instrs[0].operands[1].kind == K::Symbol);
}

TEST_CASE(".pragma strings at module and function level") {
  Module M = parseOk(Header + ".pragma \"nounroll\";\n.entry k()\n{\n.reg .b32 %r<2>;\n"
                              "$L1:\n.pragma \"nounroll\";\nbra $L1;\n}\n");
  CHECK(M.pragmas == std::vector<std::string>{"nounroll"});
  CHECK(M.functions[0].pragmas == std::vector<std::string>{"nounroll"});
}

TEST_CASE("debug sections, .file and .loc are skipped (nvcc -G output)") {
  Module M = parseFixture("nvcc_debug.G.sm_90.ptx");
  CHECK(M.targets == std::vector<std::string>{"sm_90", "debug"});
  REQUIRE(M.functions.size() == 1);
  CHECK(M.functions[0].name == "dbg");
  CHECK(M.globals.empty()); // the .section byte blocks are not variables
  size_t N = 0;
  for (const BasicBlock &B : M.functions[0].blocks)
    N += B.instrs.size();
  CHECK(N > 10);
}

TEST_CASE("old-style @@DWARF lines inside a debug section") {
  Module M =
      parseOk(Header + ".section .debug_info\n{\n.b32 42\n@@DWARF .byte 0x1, 0x2 /* x */\n"
                       ".b8 1, 2\n}\n.section .debug_abbrev { .b8 1 }\n.entry k() { ret; }\n");
  REQUIRE(M.functions.size() == 1);
  CHECK(M.functions[0].blocks[0].instrs.size() == 1);
}

TEST_CASE("real compiler output: nvcc features and llc-19 features fixtures") {
  Module N = parseFixture("nvcc_features.sm_90.ptx");
  CHECK(N.functions.size() == 3);
  bool SawMma = false, SawCpAsync = false, SawAtom = false;
  for (const Function &F : N.functions)
    for (const BasicBlock &B : F.blocks)
      for (const Instruction &I : B.instrs) {
        SawMma |= I.opcode == Opcode::Wmma && I.cls == InstrClass::Tensor;
        SawCpAsync |= I.opcode == Opcode::Cp && I.cls == InstrClass::LdGlobal;
        SawAtom |= I.opcode == Opcode::Atom && I.cls == InstrClass::Atomic;
      }
  CHECK(SawMma);
  CHECK(SawCpAsync);
  CHECK(SawAtom);
  Module L = parseFixture("llc_features.llc.ptx");
  REQUIRE(L.functions.size() == 3);
  CHECK_FALSE(L.functions[0].hasBody);
  CHECK(L.functions[2].directive("reqntid") != nullptr);
  CHECK(L.functions[2].prototypes.size() == 1);
}
