// Lexical structure, checked through the public parser: comments, @@DWARF lines, positions,
// numeric literal forms, words with dots and ::, strings. Expected values computed by hand.
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <string>

using namespace ptx;
using K = Operand::Kind;

namespace {

/// The operands of `mov.b64 %rd1, LITERAL;` etc.: the last operand of a one-line kernel body.
Operand literal(const std::string &Text) {
  std::string Src =
      ".version 8.0\n.entry k()\n{\n.reg .b64 %rd1;\nmov.b64 %rd1, " + Text + ";\n}\n";
  support::Expected<Module> M = parseModule(Src, "lit.ptx");
  if (!M)
    FAIL(M.error().str());
  return M->functions.at(0).blocks.at(0).instrs.at(0).operands.at(1);
}

Operand imm(int64_t V) { return Operand{K::Immediate, false, "", V, {}}; }
Operand f32(int64_t V) { return Operand{K::F32Imm, false, "", V, {}}; }
Operand f64(int64_t V) { return Operand{K::F64Imm, false, "", V, {}}; }

} // namespace

TEST_CASE("integer literals: decimal, hex, octal, binary, U suffix, negative") {
  CHECK(literal("42") == imm(42));
  CHECK(literal("0") == imm(0));
  CHECK(literal("0x1F") == imm(31));
  CHECK(literal("0XffU") == imm(255));
  CHECK(literal("017") == imm(15));
  CHECK(literal("0b101") == imm(5));
  CHECK(literal("7U") == imm(7));
  CHECK(literal("-1") == imm(-1));
  CHECK(literal("-0x10") == imm(-16));
  CHECK(literal("18446744073709551615") == imm(-1)); // 2^64-1: all bits set
  CHECK(literal("-9223372036854775808") == imm(INT64_MIN));
}

TEST_CASE("float literals: 0f, 0d, decimal (as F64Imm), negative") {
  CHECK(literal("0f3F800000") == f32(0x3F800000));
  CHECK(literal("0F40490FDB") == f32(0x40490FDB));
  CHECK(literal("-0f3F800000") == f32(0xBF800000));
  CHECK(literal("0d3FF0000000000000") == f64(0x3FF0000000000000));
  CHECK(literal("1.5") == f64(0x3FF8000000000000));
  CHECK(literal("-2.0") == f64(static_cast<int64_t>(0xC000000000000000ull)));
  CHECK(literal("1e3") == f64(0x408F400000000000));    // 1000.0
  CHECK(literal("2.5e-1") == f64(0x3FD0000000000000)); // 0.25
}

TEST_CASE("comments and @@DWARF lines are skipped, positions count lines and bytes") {
  std::string Src = "// header comment\n.version 8.0 /* inline\n spans lines */ .target sm_90\n"
                    "@@DWARF .section .debug_info\n\t.entry k() { foo; }\n";
  support::Expected<Module> M = parseModule(Src, "c.ptx");
  REQUIRE_FALSE(M);
  // `foo` is on line 5 after a tab and ".entry k() { " (13 bytes): column 15.
  CHECK(M.error().str() == "c.ptx:5:15: error: unknown opcode 'foo'");
  support::Expected<Module> Ok = parseModule(".version 8.0 // c\n.target sm_90 /* */\n", "c.ptx");
  REQUIRE(Ok);
  CHECK(Ok->targets == std::vector<std::string>{"sm_90"});
}

TEST_CASE("words carry dots and ::, labels with $ and names with _") {
  std::string Src = ".version 8.0\n.entry k()\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n"
                    "$L__BB0_1:\ncp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes "
                    "[%r1], [%rd1], %r1, [%r1];\n@%r1 bra.uni $L__BB0_1;\n}\n";
  support::Expected<Module> M = parseModule(Src, "w.ptx");
  if (!M)
    FAIL(M.error().str());
  const Instruction &I = M->functions[0].blocks[0].instrs[0];
  CHECK(M->functions[0].blocks[0].label == "$L__BB0_1");
  CHECK(I.opcode == Opcode::Cp);
  CHECK(I.modifiers == std::vector<std::string>{"async", "bulk", "shared::cluster", "global",
                                                "mbarrier::complete_tx::bytes"});
}

TEST_CASE("strings keep escaped quotes") {
  support::Expected<Module> M = parseModule(".pragma \"a \\\"b\\\" c\";\n", "s.ptx");
  REQUIRE(M);
  CHECK(M->pragmas == std::vector<std::string>{"a \\\"b\\\" c"});
}

TEST_CASE("CRLF line endings and no trailing newline") {
  support::Expected<Module> M =
      parseModule(".version 8.0\r\n.target sm_90\r\n.entry k()\r\n{\r\nret;\r\n}", "crlf.ptx");
  REQUIRE(M);
  CHECK(M->functions.at(0).blocks.at(0).instrs.at(0).loc.line == 5);
}
