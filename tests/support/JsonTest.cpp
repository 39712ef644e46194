// Tests for the strict JSON reader: values, escapes, exact integers, and malformed input with
// positions.
#include "support/Json.h"

#include <doctest/doctest.h>

#include <string>

using namespace support;

namespace {

// The rendered error for Text ("" if it parses).
std::string jsonError(const std::string &Text) {
  auto V = parseJson(Text, "m.json");
  return V ? "" : V.error().str();
}

} // namespace

TEST_CASE("support json: objects, arrays and scalars keep order, kinds and positions") {
  auto V = parseJson("{\"a\": [1, -2.5e3, true],\n \"b\": {\"c\": null}, \"d\": \"x\"}", "m.json");
  REQUIRE(V);
  REQUIRE(V->kind == JsonKind::Object);
  REQUIRE(V->members.size() == 3);
  CHECK(V->members[0].key == "a");
  CHECK(V->members[1].key == "b");
  CHECK(V->members[2].key == "d");
  const JsonValue *A = V->find("a");
  REQUIRE(A);
  REQUIRE(A->items.size() == 3);
  CHECK(A->items[0].text == "1");
  CHECK(A->items[0].isInteger());
  CHECK(A->items[1].text == "-2.5e3");
  CHECK_FALSE(A->items[1].isInteger());
  CHECK(A->items[2].kind == JsonKind::Bool);
  CHECK(A->items[2].boolean);
  CHECK(A->items[1].line == 1);
  CHECK(A->items[1].col == 11);
  const JsonValue *B = V->find("b");
  REQUIRE(B);
  CHECK(B->line == 2);
  CHECK(B->col == 7);
  CHECK(B->find("c")->kind == JsonKind::Null);
  CHECK(V->find("d")->text == "x");
  CHECK(V->find("zz") == nullptr);
}

TEST_CASE("support json: string escapes and UTF-8") {
  auto V = parseJson(R"(["a\"b\\c\/\n\t", "\u00e9", "\ud83d\ude00", "é"])", "m.json");
  REQUIRE(V);
  CHECK(V->items[0].text == "a\"b\\c/\n\t");
  CHECK(V->items[1].text == "\xC3\xA9");
  CHECK(V->items[2].text == "\xF0\x9F\x98\x80");
  CHECK(V->items[3].text == "\xC3\xA9");
}

TEST_CASE("support json: integers convert exactly at the 64-bit limits") {
  auto V = parseJson("[18446744073709551615, -9223372036854775808, 18446744073709551616, 1.0]",
                     "m.json");
  REQUIRE(V);
  auto U = jsonToUint64(V->items[0], "m.json");
  REQUIRE(U);
  CHECK(*U == 18446744073709551615ULL);
  auto I = jsonToInt64(V->items[1], "m.json");
  REQUIRE(I);
  CHECK(*I == INT64_MIN);
  auto Big = jsonToUint64(V->items[2], "m.json");
  REQUIRE_FALSE(Big);
  CHECK(Big.error().str() ==
        "m.json:1:46: error: integer 18446744073709551616 does not fit in 64 bits");
  auto NotInt = jsonToUint64(V->items[3], "m.json");
  REQUIRE_FALSE(NotInt);
  CHECK(NotInt.error().message == "expected an integer, got 1.0");
  CHECK_FALSE(jsonToUint64(V->items[1], "m.json"));
  auto D = jsonToDouble(V->items[3], "m.json");
  REQUIRE(D);
  CHECK(*D == 1.0);
}

TEST_CASE("support json: malformed input names the position") {
  CHECK(jsonError("{\"a\": 1,}") == "m.json:1:9: error: unexpected '}', expected a string key");
  CHECK(jsonError("[1 2]") == "m.json:1:4: error: unexpected '2', expected ',' or ']' in an array");
  CHECK(jsonError("[1,]") == "m.json:1:4: error: unexpected ']', expected a JSON value");
  CHECK(jsonError("{\"a\":1}\n{") == "m.json:2:1: error: unexpected '{' after the JSON value");
  CHECK(jsonError("\"abc") == "m.json:1:5: error: unterminated string");
  CHECK(jsonError("[01]") == "m.json:1:3: error: leading zeros are not allowed in numbers");
  CHECK(jsonError("{\"a\":1,\"a\":2}") == "m.json:1:8: error: duplicate key 'a'");
  CHECK(jsonError("// c\n{}") == "m.json:1:1: error: unexpected '/', expected a JSON value");
  CHECK(jsonError("") == "m.json:1:1: error: unexpected end of input, expected a JSON value");
  CHECK(jsonError("  tru") == "m.json:1:3: error: unexpected 't', expected a JSON value");
  CHECK(jsonError("1.") ==
        "m.json:1:3: error: unexpected end of input, expected a digit after '.'");
  CHECK(jsonError("-") == "m.json:1:2: error: unexpected end of input, expected a digit");
  CHECK(jsonError("{\"a\" 1}") ==
        "m.json:1:6: error: unexpected '1', expected ':' after an object key");
  CHECK(jsonError("\"\\q\"") ==
        "m.json:1:3: error: unexpected 'q', expected an escape character (one of \"\\/bfnrtu)");
  CHECK(jsonError("\"a\tb\"") ==
        "m.json:1:3: error: control character \\x09 in a string (escape it)");
  CHECK(jsonError("\"\\ud800\"") ==
        "m.json:1:8: error: high surrogate not followed by a \\u low surrogate");
  CHECK(jsonError("\"\\udc00\"") == "m.json:1:8: error: lone low surrogate in a \\u escape");
  CHECK(jsonError("\"\xff\"") == "m.json:1:2: error: invalid UTF-8 byte \\xff in a string");
  CHECK(jsonError("\"\xc0\xaf\"") == "m.json:1:2: error: invalid UTF-8 sequence in a string");
  CHECK(jsonError("[1e]") == "m.json:1:4: error: unexpected ']', expected a digit in the exponent");
}

TEST_CASE("support json: nesting deeper than the limit is an error, not a stack overflow") {
  std::string Deep(100000, '[');
  CHECK(jsonError(Deep) == "m.json:1:129: error: nesting deeper than 128 levels");
  std::string Ok = std::string(128, '[') + std::string(128, ']');
  CHECK(jsonError(Ok).empty());
}
