// support/StructLayout.h: the C layout of a struct passed by value, the one rule the interpreter
// (analyzer) and ptxcast-measure both use to build kernel parameters (docs/manifest.md).
#include "support/StructLayout.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

/// Adds a little-endian scalar of Size bytes, aligned to its size.
void scalar(support::StructLayout &L, uint64_t V, size_t Size) {
  uint8_t Bytes[8];
  for (size_t I = 0; I < 8; ++I)
    Bytes[I] = uint8_t(V >> (8 * I));
  L.add(Bytes, Size, Size);
}

} // namespace

TEST_CASE("support struct layout: the documented example is 24 bytes, the pointer at 16") {
  // struct { uint32_t n; float a; uint16_t tag[3]; float *y; } (docs/manifest.md)
  support::StructLayout L;
  scalar(L, 1000, 4);
  scalar(L, 0x40000000, 4); // 2.0f
  for (uint64_t T : {1, 5, 2})
    scalar(L, T, 2);
  scalar(L, 0x1122334455667788ULL, 8);
  CHECK(L.align() == 8);
  std::vector<uint8_t> B = L.bytes();
  REQUIRE(B.size() == 24);
  uint32_t N;
  std::memcpy(&N, B.data(), 4);
  CHECK(N == 1000);
  uint16_t Tag2;
  std::memcpy(&Tag2, B.data() + 12, 2);
  CHECK(Tag2 == 2);
  CHECK(B[14] == 0); // padding before the pointer is zero
  CHECK(B[15] == 0);
  uint64_t Y;
  std::memcpy(&Y, B.data() + 16, 8);
  CHECK(Y == 0x1122334455667788ULL);
}

TEST_CASE("support struct layout: the size rounds up to the largest field's alignment") {
  support::StructLayout L;
  scalar(L, 7, 8);
  scalar(L, 1, 1);
  CHECK(L.bytes().size() == 16);
  support::StructLayout Small;
  scalar(Small, 1, 1);
  scalar(Small, 2, 2);
  CHECK(Small.bytes() == std::vector<uint8_t>{1, 0, 2, 0});
}

TEST_CASE("support struct layout: a nested struct sits at its own alignment, padded") {
  support::StructLayout Inner; // struct { uint32_t a; uint8_t b; }: 8 bytes, align 4
  scalar(Inner, 0xAABBCCDD, 4);
  scalar(Inner, 0xEE, 1);
  support::StructLayout Outer; // struct { uint8_t c; Inner i; uint8_t d; }: 16 bytes
  scalar(Outer, 0x11, 1);
  Outer.add(Inner);
  scalar(Outer, 0x22, 1);
  CHECK(Outer.align() == 4);
  std::vector<uint8_t> B = Outer.bytes();
  REQUIRE(B.size() == 16);
  CHECK(B[0] == 0x11);
  CHECK(B[4] == 0xDD); // Inner.a, little-endian, at offset 4
  CHECK(B[8] == 0xEE);
  CHECK(B[12] == 0x22); // after Inner's 8 bytes (its padding included)
}

TEST_CASE("support struct layout: an empty struct has no bytes") {
  support::StructLayout L;
  CHECK(L.bytes().empty());
  CHECK(L.align() == 1);
}
