// support/Base64.h: RFC 4648's test vectors, floats read back bit for bit, and bad text refused.
#include "support/Base64.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

std::string encodeText(const std::string &S) {
  return support::encodeBase64(
      std::span<const unsigned char>(reinterpret_cast<const unsigned char *>(S.data()), S.size()));
}

std::string decodeText(const std::string &S) {
  auto Bytes = support::decodeBase64(S);
  REQUIRE(Bytes);
  return std::string(Bytes->begin(), Bytes->end());
}

} // namespace

TEST_CASE("base64: RFC 4648's test vectors, both ways") {
  const std::vector<std::pair<std::string, std::string>> Vectors = {{"", ""},
                                                                    {"f", "Zg=="},
                                                                    {"fo", "Zm8="},
                                                                    {"foo", "Zm9v"},
                                                                    {"foob", "Zm9vYg=="},
                                                                    {"fooba", "Zm9vYmE="},
                                                                    {"foobar", "Zm9vYmFy"}};
  for (const auto &[Plain, Coded] : Vectors) {
    CHECK(encodeText(Plain) == Coded);
    CHECK(decodeText(Coded) == Plain);
  }
  // Every byte value survives the round trip.
  std::string All;
  for (int B = 0; B < 256; ++B)
    All += char(B);
  CHECK(decodeText(encodeText(All)) == All);
}

TEST_CASE("base64: floats come back bit for bit, in little-endian byte order") {
  const std::vector<float> Values = {0.0f,
                                     -0.0f,
                                     1.0f,
                                     -2.5f,
                                     3.14159274f,
                                     1e-40f, // subnormal
                                     std::numeric_limits<float>::max(),
                                     std::numeric_limits<float>::infinity()};
  const std::string Text = support::encodeFloats(Values);
  auto Back = support::decodeFloats(Text);
  REQUIRE(Back);
  REQUIRE(Back->size() == Values.size());
  for (size_t I = 0; I < Values.size(); ++I)
    CHECK(std::bit_cast<uint32_t>((*Back)[I]) == std::bit_cast<uint32_t>(Values[I]));
  // 1.0f is 0x3f800000: bytes 00 00 80 3f.
  CHECK(support::encodeFloats(std::vector<float>{1.0f}) == "AACAPw==");
  // Doubles too: 1.0 is 0x3ff0000000000000, and the smallest step above 1 survives.
  CHECK(support::encodeDoubles(std::vector<double>{1.0}) == "AAAAAAAA8D8=");
  const std::vector<double> Doubles = {1.0 + 2.220446049250313e-16, -1e-300, 6.02214076e23};
  auto BackD = support::decodeDoubles(support::encodeDoubles(Doubles));
  REQUIRE(BackD);
  CHECK(*BackD == Doubles);
}

TEST_CASE("base64: bad text is an error that says what is wrong") {
  auto Short = support::decodeBase64("Zm9");
  REQUIRE(!Short);
  CHECK(Short.error().message == "base64 text of 3 characters (not a multiple of 4)");
  auto BadChar = support::decodeBase64("Zm9v*mFy");
  REQUIRE(!BadChar);
  CHECK(BadChar.error().message == "invalid base64 character at offset 4");
  auto Inner = support::decodeBase64("Zg==Zm9v"); // padding before the end
  REQUIRE(!Inner);
  CHECK(Inner.error().message == "invalid base64 character at offset 2");
  auto NotFloats = support::decodeFloats("Zm9v"); // 3 bytes
  REQUIRE(!NotFloats);
  CHECK(NotFloats.error().message == "base64 float data of 3 bytes (not a multiple of 4)");
  auto NotDoubles = support::decodeDoubles("AACAPw=="); // 4 bytes
  REQUIRE(!NotDoubles);
  CHECK(NotDoubles.error().message == "base64 double data of 4 bytes (not a multiple of 8)");
}
