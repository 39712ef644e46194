// support/Expected.h: how an Error prints (`file:line:col: error: message`, parts omitted when
// unknown) and what an Expected holds.
#include "support/Expected.h"

#include <doctest/doctest.h>

#include <string>

using support::Error;
using support::Expected;

TEST_CASE("support error: the position's known parts come before 'error:'") {
  CHECK(Error("bad thing").str() == "error: bad thing");
  CHECK(Error("k.ptx", 0, 0, "cannot open file").str() == "k.ptx: error: cannot open file");
  CHECK(Error("k.ptx", 12, 0, "unknown opcode").str() == "k.ptx:12: error: unknown opcode");
  CHECK(Error("k.ptx", 12, 5, "unknown opcode 'foo.f16'").str() ==
        "k.ptx:12:5: error: unknown opcode 'foo.f16'");
  // A column without a line is not printed: a column means nothing on its own.
  CHECK(Error("k.ptx", 0, 5, "x").str() == "k.ptx: error: x");
  CHECK(Error("", 3, 4, "x").str() == "3:4: error: x");
}

TEST_CASE("support expected: a value or an error, and errorText of either") {
  Expected<int> V = 42;
  REQUIRE(V);
  CHECK(*V == 42);
  CHECK(support::errorText(V).empty());

  Expected<int> E = Error("m.json", 1, 2, "expected a number");
  CHECK(!E);
  CHECK(E.error().line == 1);
  CHECK(E.error().message == "expected a number");
  CHECK(support::errorText(E) == "m.json:1:2: error: expected a number");

  Expected<std::string> S = std::string("text");
  REQUIRE(S);
  CHECK(S->size() == 4);
}
