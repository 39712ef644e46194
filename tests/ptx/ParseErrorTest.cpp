// Bad input: every kind of error comes back as a value with its exact text and position.
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <string>

using namespace ptx;

namespace {

/// The rendered error for `Text`, or "parsed" if it parsed.
std::string errorOf(const std::string &Text) {
  support::Expected<Module> M = parseModule(Text, "k.ptx");
  return M ? "parsed" : M.error().str();
}

/// A module whose kernel body (from line 5 on) is `Body`.
std::string kernel(const std::string &Body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{\n.reg .b32 %r<4>;\n" + Body +
         "\n}\n";
}

} // namespace

TEST_CASE("syntax errors name what was expected and what was found") {
  CHECK(errorOf(kernel("add.s32 %r1 %r2, 1;")) ==
        "k.ptx:7:13: error: expected ';' after an instruction, found '%r2'");
  CHECK(errorOf(kernel("ld.u32 %r1, [%r2+];")) ==
        "k.ptx:7:18: error: expected an address offset, found ']'");
  CHECK(errorOf(".version 8.0\n.target\n") ==
        "k.ptx:3:1: error: expected a target name, found end of file");
  CHECK(errorOf("mov.u32 %r1, 1;") == "k.ptx:1:1: error: expected a directive, found 'mov.u32'");
  CHECK(errorOf(".version nine\n") ==
        "k.ptx:1:10: error: expected a version number like 9.0, found 'nine'");
  CHECK(errorOf(".bogus 1;") == "k.ptx:1:1: error: unknown directive '.bogus'");
  CHECK(errorOf(kernel(".maxnreg 4;")) ==
        "k.ptx:7:1: error: unexpected directive '.maxnreg' in a function body");
}

TEST_CASE("unknown opcode") {
  CHECK(errorOf(kernel("foo %r1;")) == "k.ptx:7:1: error: unknown opcode 'foo'");
  CHECK(errorOf(kernel("  @%r1 foo.f16 %r1;")) == "k.ptx:7:8: error: unknown opcode 'foo'");
}

TEST_CASE("undefined labels, functions and branch target lists") {
  CHECK(errorOf(kernel("bra $L__BB0_9;")) == "k.ptx:7:5: error: undefined label '$L__BB0_9'");
  CHECK(errorOf(kernel("call.uni nowhere;")) == "k.ptx:7:10: error: undefined function 'nowhere'");
  CHECK(errorOf(kernel("brx.idx %r1, tbl;")) ==
        "k.ptx:7:14: error: undefined branch target list 'tbl'");
  CHECK(errorOf(kernel("t: .branchtargets $A, $B;\n$A:\nret;")) ==
        "k.ptx:7:23: error: undefined label '$B'");
  CHECK(errorOf(kernel("$A:\nret;\n$A:\nret;")) == "k.ptx:9:1: error: redefinition of label '$A'");
  // A declaration then a definition is fine; two definitions are ptxas' duplicate definition.
  CHECK(
      errorOf(
          ".version 8.0\n.target sm_90\n.address_size 64\n.entry k();\n.entry k()\n{\nret;\n}\n") ==
      "parsed");
  CHECK(errorOf(kernel("ret;") + ".entry k()\n{\nret;\n}\n") ==
        "k.ptx:10:1: error: function 'k' is defined twice (first at line 4)");
}

TEST_CASE("undeclared registers") {
  CHECK(errorOf(kernel("mov.u32 %r4, 1;")) == "k.ptx:7:9: error: undeclared register '%r4'");
  CHECK(errorOf(kernel("mov.u32 %r1, %q;")) == "k.ptx:7:14: error: undeclared register '%q'");
  CHECK(errorOf(kernel("@%p1 ret;")) == "k.ptx:7:2: error: undeclared register '%p1'");
  CHECK(errorOf(kernel("ld.u32 %r1, [%rd1];")) == "k.ptx:7:14: error: undeclared register '%rd1'");
  CHECK(errorOf(kernel("mov.u32 %r1, %tid.w;")) ==
        "k.ptx:7:14: error: undeclared register '%tid.w'");
  // a register declared in a closed scope is gone
  CHECK(errorOf(kernel("{ .reg .b32 %t; mov.u32 %t, 1; }\nmov.u32 %r1, %t;")) ==
        "k.ptx:8:14: error: undeclared register '%t'");
}

TEST_CASE("unterminated blocks, strings and comments") {
  CHECK(errorOf(".version 8.0\n.entry k()\n{\n  ret;\n") ==
        "k.ptx:3:1: error: unterminated block: '{' has no matching '}'");
  // the inner block at line 7 is closed by kernel()'s final '}': the body's '{' (line 5) is not
  CHECK(errorOf(kernel("{\nret;")) ==
        "k.ptx:5:1: error: unterminated block: '{' has no matching '}'");
  CHECK(errorOf(".section .debug_str {\n.b8 1\n") ==
        "k.ptx:1:21: error: unterminated block: '{' has no matching '}'");
  CHECK(errorOf(".version 8.0\n.pragma \"abc;\n") == "k.ptx:2:9: error: unterminated string");
  CHECK(errorOf(".version 8.0\n  /* no end\n\n") == "k.ptx:2:3: error: unterminated comment");
  CHECK(errorOf(".version 8.0\n#include <x>\n") == "k.ptx:2:1: error: unexpected character '#'");
  CHECK(errorOf(".version 8.0\n\x01") == "k.ptx:2:1: error: unexpected character (byte 1)");
}

TEST_CASE("bad numbers") {
  CHECK(errorOf(kernel("mov.u32 %r1, 0x;")) == "k.ptx:7:14: error: invalid number '0x'");
  CHECK(errorOf(kernel("mov.u32 %r1, 09;")) == "k.ptx:7:14: error: invalid number '09'");
  CHECK(errorOf(kernel("mov.u32 %r1, 12ab;")) == "k.ptx:7:14: error: invalid number '12ab'");
  CHECK(errorOf(kernel("mov.f32 %r1, 0f3F80;")) == "k.ptx:7:14: error: invalid number '0f3F80'");
  CHECK(errorOf(kernel("mov.f64 %r1, 0d3FF00000000000000;")) ==
        "k.ptx:7:14: error: invalid number '0d3FF00000000000000'");
  CHECK(errorOf(kernel("mov.f32 %r1, 1.5.2;")) == "k.ptx:7:14: error: invalid number '1.5.2'");
  CHECK(errorOf(kernel("mov.u64 %r1, 18446744073709551616;")) ==
        "k.ptx:7:14: error: integer literal '18446744073709551616' does not fit in 64 bits");
  CHECK(errorOf(kernel("mov.u64 %r1, 0x10000000000000000;")) ==
        "k.ptx:7:14: error: integer literal '0x10000000000000000' does not fit in 64 bits");
}

TEST_CASE("absurd sizes are rejected") {
  CHECK(errorOf(kernel(".reg .b32 %big<4000000000>;")) ==
        "k.ptx:7:16: error: register count 4000000000 is too large (limit 16777216)");
  CHECK(errorOf(kernel(".reg .b32 %z<0>;")) ==
        "k.ptx:7:14: error: register count must be positive");
  CHECK(errorOf(".version 8.0\n.global .b64 a[4294967296][4294967296];\n") ==
        "k.ptx:2:27: error: array 'a' is too large");
  CHECK(errorOf(".global .align 3 .b8 a;") == "k.ptx:1:9: error: alignment must be a power of two");
}

TEST_CASE("nesting limits bound recursion and memory") {
  std::string Deep = kernel(std::string(300, '{') + std::string(300, '}'));
  CHECK(errorOf(Deep) == "k.ptx:7:256: error: blocks nested too deeply (limit 256)");
  std::string Init =
      ".global .b8 a[1] = " + std::string(40, '{') + "1" + std::string(40, '}') + ";";
  CHECK(errorOf(Init) == "k.ptx:1:52: error: initializer nested too deeply");
  CHECK(errorOf(kernel("mov.u32 %r1, [[[[%r1]]]];")) ==
        "k.ptx:7:15: error: expected an address offset, found '['");
  CHECK(errorOf(kernel("mov.u32 {{{{%r1}}}};")) == "k.ptx:7:12: error: operands nested too deeply");
}

TEST_CASE("declaration errors") {
  CHECK(errorOf(".global .align 4 x;") ==
        "k.ptx:1:18: error: expected a type in the declaration, found 'x'");
  CHECK(errorOf(".global .u32 .f32 x;") ==
        "k.ptx:1:14: error: more than one type in a declaration");
  CHECK(errorOf(".entry k(.param .u32 a = 1) {}") ==
        "k.ptx:1:10: error: a parameter cannot have an initializer");
  CHECK(errorOf(".global .u32 x = ;") ==
        "k.ptx:1:18: error: expected an initializer value, found ';'");
  CHECK(errorOf(".address_size 48\n") == "k.ptx:1:15: error: address size must be 32 or 64");
}

TEST_CASE("a missing file is an error value") {
  support::Expected<Module> M = parseFile("/nonexistent/dir/k.ptx");
  REQUIRE_FALSE(M);
  CHECK(M.error().str() == "/nonexistent/dir/k.ptx: error: cannot open file");
}
