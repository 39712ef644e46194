// Tests for the shared fill rule: splitmix64 reference outputs, the [0,1) mapping, f16 rounding
// and the four random element types. Expected values come from the published splitmix64 outputs
// for seed 0 and from an independent Python reference (struct.pack '<f' / '<e').
#include "support/BufferFill.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace support::manifest;

namespace {

template <class T> T elementAt(const std::vector<uint8_t> &B, size_t I) {
  T V;
  std::memcpy(&V, B.data() + I * sizeof(T), sizeof(T));
  return V;
}

Buffer randomBuffer(RandomType T, uint64_t Seed, uint64_t Bytes) {
  Buffer B{.name = "b", .bytes = Bytes, .init = {}, .output = {}};
  B.init.kind = InitKind::Random;
  B.init.type = T;
  B.init.seed = Seed;
  return B;
}

} // namespace

TEST_CASE("manifest fill: splitmix64 matches the reference sequence for seed 0") {
  SplitMix64 R(0);
  CHECK(R.next() == 0xE220A8397B1DCDAFULL);
  CHECK(R.next() == 0x6E789E6AA1B965F4ULL);
  CHECK(R.next() == 0x06C45D188009454FULL);
  CHECK(R.next() == 0xF88BB8A8724C81ECULL);
}

TEST_CASE("manifest fill: the unit interval uses the top 24 bits") {
  CHECK(unitInterval(0) == 0.0);
  CHECK(unitInterval(~uint64_t(0)) == 1.0 - 0x1p-24);
  CHECK(unitInterval(uint64_t(1) << 63) == 0.5);
  CHECK(unitInterval((uint64_t(1) << 40) - 1) == 0.0); // low 40 bits are dropped
}

TEST_CASE("manifest fill: double to binary16 rounds to nearest even, directly from the double") {
  CHECK(doubleToHalfBits(1.0) == 0x3C00);
  CHECK(doubleToHalfBits(-2.0) == 0xC000);
  CHECK(doubleToHalfBits(0.1) == 0x2E66);
  CHECK(doubleToHalfBits(1.0 / 3.0) == 0x3555);
  CHECK(doubleToHalfBits(65504.0) == 0x7BFF);
  CHECK(doubleToHalfBits(65519.99) == 0x7BFF);
  CHECK(doubleToHalfBits(65520.0) == 0x7C00); // the tie above the largest finite goes to inf
  CHECK(doubleToHalfBits(-1e6) == 0xFC00);
  CHECK(doubleToHalfBits(0x1p-14) == 0x0400);           // smallest normal
  CHECK(doubleToHalfBits(0x1p-24) == 0x0001);           // smallest subnormal
  CHECK(doubleToHalfBits(0x1p-25) == 0x0000);           // tie between 0 and 1 ulp: even is 0
  CHECK(doubleToHalfBits(3 * 0x1p-25) == 0x0002);       // tie between 1 and 2 ulps: even is 2
  CHECK(doubleToHalfBits(1.0 + 0x1p-11) == 0x3C00);     // tie: even mantissa
  CHECK(doubleToHalfBits(1.0 + 3 * 0x1p-11) == 0x3C02); // tie: even mantissa
  // Through f32 this would round to 1 + 2^-11 (a tie) and then to 0x3C00: direct rounding differs.
  CHECK(doubleToHalfBits(1.0 + 0x1p-11 + 0x1p-40) == 0x3C01);
  CHECK(doubleToHalfBits(-0.0) == 0x8000);
  CHECK(doubleToHalfBits(std::nan("")) == 0x7E00);
  CHECK(halfBitsToDouble(0x3C01) == 1.0 + 0x1p-10);
  CHECK(halfBitsToDouble(0x0001) == 0x1p-24);
  CHECK(halfBitsToDouble(0xFC00) == -INFINITY);
}

TEST_CASE("manifest fill: f32 values for seed 7 in [-1, 1]") {
  Buffer B = randomBuffer(RandomType::F32, 7, 16);
  B.init.minReal = -1;
  B.init.maxReal = 1;
  auto Bytes = makeInitialBytes(B);
  REQUIRE(Bytes);
  REQUIRE(Bytes->size() == 16);
  // Draws 0x63cbe1e459320dd7, 0x044c3cd7f43c661c, 0xe6984080bab12a02, 0x953aeb70673e29cb:
  // top 24 bits 6540257, 281660, 15112256, 9779947 -> -1 + 2 * k / 2^24 -> f32 bits:
  CHECK(elementAt<uint32_t>(*Bytes, 0) == 0xBE61A0F8);
  CHECK(elementAt<uint32_t>(*Bytes, 1) == 0xBF776788);
  CHECK(elementAt<uint32_t>(*Bytes, 2) == 0x3F4D3080);
  CHECK(elementAt<uint32_t>(*Bytes, 3) == 0x3E29D758);
}

TEST_CASE("manifest fill: f16 values for seeds 7 and 42") {
  Buffer B = randomBuffer(RandomType::F16, 7, 8);
  B.init.minReal = -1;
  B.init.maxReal = 1;
  auto Bytes = makeInitialBytes(B);
  REQUIRE(Bytes);
  CHECK(elementAt<uint16_t>(*Bytes, 0) == 0xB30D);
  CHECK(elementAt<uint16_t>(*Bytes, 1) == 0xBBBB);
  CHECK(elementAt<uint16_t>(*Bytes, 2) == 0x3A6A);
  CHECK(elementAt<uint16_t>(*Bytes, 3) == 0x314F);
  Buffer C = randomBuffer(RandomType::F16, 42, 6);
  C.init.minReal = -3;
  C.init.maxReal = 3;
  auto CBytes = makeInitialBytes(C);
  REQUIRE(CBytes);
  CHECK(elementAt<uint16_t>(*CBytes, 0) == 0x3DCC);
  CHECK(elementAt<uint16_t>(*CBytes, 1) == 0xC015);
  CHECK(elementAt<uint16_t>(*CBytes, 2) == 0xBD50);
}

TEST_CASE("manifest fill: s32 and u8 use min + next() % (max - min + 1)") {
  Buffer S = randomBuffer(RandomType::S32, 0, 16);
  S.init.minInt = -5;
  S.init.maxInt = 5;
  auto SBytes = makeInitialBytes(S);
  REQUIRE(SBytes);
  // 0xE220A8397B1DCDAF % 11 = 1, 0x6E789E6AA1B965F4 % 11 = 10, then 1 and 3.
  CHECK(elementAt<int32_t>(*SBytes, 0) == -4);
  CHECK(elementAt<int32_t>(*SBytes, 1) == 5);
  CHECK(elementAt<int32_t>(*SBytes, 2) == -4);
  CHECK(elementAt<int32_t>(*SBytes, 3) == -2);
  Buffer U = randomBuffer(RandomType::U8, 0, 3);
  U.init.minInt = 0;
  U.init.maxInt = 255;
  auto UBytes = makeInitialBytes(U);
  REQUIRE(UBytes);
  // % 256 keeps the low byte of each draw: 0xAF, 0xF4, 0x4F.
  CHECK((*UBytes)[0] == 0xAF);
  CHECK((*UBytes)[1] == 0xF4);
  CHECK((*UBytes)[2] == 0x4F);
  Buffer Full = randomBuffer(RandomType::S32, 0, 4); // the whole s32 range: r % 2^32
  Full.init.minInt = INT32_MIN;
  Full.init.maxInt = INT32_MAX;
  auto FBytes = makeInitialBytes(Full);
  REQUIRE(FBytes);
  CHECK(elementAt<int32_t>(*FBytes, 0) == int32_t(int64_t(INT32_MIN) + 0x7B1DCDAFLL));
}

TEST_CASE("manifest fill: bfloat16 rounds to nearest even") {
  CHECK(doubleToBf16Bits(1.0) == 0x3F80);
  CHECK(doubleToBf16Bits(3.0) == 0x4040);
  CHECK(doubleToBf16Bits(0.1) == 0x3DCD); // 1.6 * 2^-4: 1.6 * 128 = 204.8 -> 205 = 0x80 | 0x4D
  CHECK(doubleToBf16Bits(1.0 + 0x1p-8) == 0x3F80);     // tie: even mantissa
  CHECK(doubleToBf16Bits(1.0 + 3 * 0x1p-8) == 0x3F82); // tie: even mantissa
  CHECK(doubleToBf16Bits(-0x1p-133) == 0x8001);        // smallest subnormal
  CHECK(doubleToBf16Bits(0x1p128) == 0x7F80);          // overflow: infinity
  CHECK(doubleToBf16Bits(std::nan("")) == 0x7FC0);
}

TEST_CASE("manifest fill: f64, bf16, u32, s16 and s8 follow the same rule") {
  Buffer D = randomBuffer(RandomType::F64, 7, 16);
  D.init.minReal = -1;
  D.init.maxReal = 1;
  auto DBytes = makeInitialBytes(D);
  REQUIRE(DBytes);
  CHECK(elementAt<uint64_t>(*DBytes, 0) == 0xBFCC341F00000000ULL);
  CHECK(elementAt<uint64_t>(*DBytes, 1) == 0xBFEEECF100000000ULL);
  Buffer B = randomBuffer(RandomType::BF16, 7, 4);
  B.init.minReal = -1;
  B.init.maxReal = 1;
  auto BBytes = makeInitialBytes(B);
  REQUIRE(BBytes);
  // The f32 values above are exact (0xBE61A0F8, 0xBF776788); bf16 keeps the top 16 bits,
  // rounding up when the dropped half exceeds 0x8000.
  CHECK(elementAt<uint16_t>(*BBytes, 0) == 0xBE62);
  CHECK(elementAt<uint16_t>(*BBytes, 1) == 0xBF77);
  Buffer U = randomBuffer(RandomType::U32, 0, 8);
  U.init.minInt = 0;
  U.init.maxInt = 4294967295LL;
  auto UBytes = makeInitialBytes(U);
  REQUIRE(UBytes);
  CHECK(elementAt<uint32_t>(*UBytes, 0) == 0x7B1DCDAFu); // low 32 bits of the draws
  CHECK(elementAt<uint32_t>(*UBytes, 1) == 0xA1B965F4u);
  Buffer H = randomBuffer(RandomType::S16, 0, 4);
  H.init.minInt = -32768;
  H.init.maxInt = 32767;
  auto HBytes = makeInitialBytes(H);
  REQUIRE(HBytes);
  CHECK(elementAt<int16_t>(*HBytes, 0) == -32768 + 0xCDAF); // draw % 65536 = low 16 bits
  CHECK(elementAt<int16_t>(*HBytes, 1) == -32768 + 0x65F4);
  Buffer S = randomBuffer(RandomType::S8, 0, 3);
  S.init.minInt = -128;
  S.init.maxInt = 127;
  auto SBytes = makeInitialBytes(S);
  REQUIRE(SBytes);
  CHECK(int8_t((*SBytes)[0]) == -128 + 0xAF); // 47
  CHECK(int8_t((*SBytes)[1]) == -128 + 0xF4); // 116
  CHECK(int8_t((*SBytes)[2]) == -128 + 0x4F); // -49
}

TEST_CASE("manifest fill: zero and file initialisation") {
  Buffer Z;
  Z.name = "z";
  Z.bytes = 5;
  auto ZBytes = makeInitialBytes(Z);
  REQUIRE(ZBytes);
  CHECK(*ZBytes == std::vector<uint8_t>(5, 0));

  auto Dir = std::filesystem::temp_directory_path() / "ptxcast_measure_fill_test";
  std::filesystem::create_directories(Dir);
  std::string Path = (Dir / "init.bin").string();
  { std::ofstream(Path, std::ios::binary) << std::string("\x01\x02\x03", 3); }
  Buffer F;
  F.name = "f";
  F.bytes = 3;
  F.init.kind = InitKind::File;
  F.init.file = Path;
  auto FBytes = makeInitialBytes(F);
  REQUIRE(FBytes);
  CHECK(*FBytes == std::vector<uint8_t>{1, 2, 3});
  F.bytes = 4;
  auto Short = makeInitialBytes(F);
  REQUIRE_FALSE(Short);
  CHECK(Short.error().file == Path);
  CHECK(Short.error().message == "init file of buffer 'f' holds 3 bytes, the buffer has 4");
  F.init.file = (Dir / "missing.bin").string();
  auto Missing = makeInitialBytes(F);
  REQUIRE_FALSE(Missing);
  CHECK(Missing.error().message == "cannot open the init file of buffer 'f'");
  std::filesystem::remove_all(Dir);
}
