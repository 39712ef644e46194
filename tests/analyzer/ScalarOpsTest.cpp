// Integer and bit-manipulation ScalarOps: hand-derived tables, the PTX ISA's worked examples, and
// naive bit-by-bit references (different algorithms from the code under test).
#include "analyzer/ScalarOps.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <random>

using namespace analyzer::scalar;

TEST_CASE("mul.lo/hi/wide for 16/32/64-bit signed and unsigned") {
  CHECK(mulWide<uint16_t>(0xffff, 0xffff) == 0xfffe0001u);
  CHECK(mulWide<int16_t>(-2, 0x4000) == -0x8000);
  CHECK(mulWide<int32_t>(-3, 0x40000000) == -0xc0000000ll);
  CHECK(mulLo<int32_t>(0x10000, 0x10000) == 0);
  CHECK(mulLo<int16_t>(-1, -1) == 1);
  CHECK(mulHi<uint32_t>(0xffffffffu, 0xffffffffu) == 0xfffffffeu);
  CHECK(mulHi<int32_t>(-1, 1) == -1);
  CHECK(mulHi<int32_t>(INT32_MIN, INT32_MIN) == 0x40000000);
  CHECK(mulHi<uint64_t>(~0ull, ~0ull) == ~0ull - 1);
  CHECK(mulHi<int64_t>(INT64_MIN, 2) == -1);
  CHECK(mulHi<int64_t>(-1, -1) == 0);
  CHECK(mulHi<uint16_t>(0x8000, 4) == 2);
  CHECK(madHiSatS32(INT32_MAX, INT32_MAX, INT32_MAX) == INT32_MAX);
  CHECK(madHiSatS32(0x10000, 0x10000, 5) == 6);
  CHECK(madHiSatS32(-1, 1, INT32_MIN) == INT32_MIN);
}

TEST_CASE("mul24 takes the low 24 bits and returns lo/hi of the 48-bit product") {
  CHECK(mul24(0x00800000u, 2u, false, false) == 0x01000000u);
  CHECK(mul24(0xff000003u, 5u, false, false) == 15u);                 // upper byte ignored
  CHECK(mul24(0x00ffffffu, 0x00ffffffu, false, true) == 0xfffffe00u); // (2^24-1)^2 >> 16
  CHECK(mul24(0x00ffffffu, 2u, true, false) == 0xfffffffeu);          // -1 * 2
  CHECK(mul24(0x00ffffffu, 0x00ffffffu, true, true) == 0u);           // (-1)*(-1) = 1
}

TEST_CASE("sad, div/rem (with the documented division by zero), abs/neg, saturation") {
  CHECK(sad<uint32_t>(3, 10, 100) == 107);
  CHECK(sad<int32_t>(-5, 5, 1) == 11);
  CHECK(sad<int32_t>(INT32_MIN, INT32_MAX, 0) == -1); // |diff| = 2^32-1 wraps
  CHECK(divInt<uint32_t>(7, 0) == 0xffffffffu);
  CHECK(divInt<int32_t>(7, 0) == -1);
  CHECK(divInt<int32_t>(-7, 0) == -1);
  CHECK(divInt<int16_t>(5, 0) == -1);
  CHECK(divInt<int32_t>(INT32_MIN, -1) == INT32_MIN);
  CHECK(divInt<int32_t>(-7, 2) == -3);
  CHECK(divInt<uint64_t>(~0ull, 3) == 0x5555555555555555ull);
  CHECK(remInt<uint32_t>(7, 0) == 7);
  CHECK(remInt<int32_t>(INT32_MIN, -1) == 0);
  CHECK(remInt<int32_t>(-7, 2) == -1);
  CHECK(remInt<int64_t>(7, -2) == 1);
  CHECK(absInt<int32_t>(INT32_MIN) == INT32_MIN);
  CHECK(absInt<int16_t>(-5) == 5);
  CHECK(negInt<int64_t>(INT64_MIN) == INT64_MIN);
  CHECK(addSatS32(INT32_MAX, 1) == INT32_MAX);
  CHECK(addSatS32(INT32_MIN, -1) == INT32_MIN);
  CHECK(subSatS32(INT32_MIN, 1) == INT32_MIN);
  CHECK(subSatS32(5, 7) == -2);
}

TEST_CASE("add.cc/addc and sub.cc/subc chain into 64/128-bit arithmetic") {
  std::mt19937_64 G(1);
  for (int I = 0; I < 1000; ++I) {
    uint64_t A = G(), B = G();
    auto Lo = addCarry<uint32_t>(uint32_t(A), uint32_t(B), false);
    auto Hi = addCarry<uint32_t>(uint32_t(A >> 32), uint32_t(B >> 32), Lo.carry);
    CHECK((uint64_t(Hi.value) << 32 | Lo.value) == A + B);
    CHECK(Hi.carry == (A + B < A));
    auto DLo = subCarry<uint32_t>(uint32_t(A), uint32_t(B), true);
    auto DHi = subCarry<uint32_t>(uint32_t(A >> 32), uint32_t(B >> 32), DLo.carry);
    CHECK((uint64_t(DHi.value) << 32 | DLo.value) == A - B);
    CHECK(DHi.carry == (A >= B)); // NOT-borrow
  }
  // Mixed chains, as NVIDIA GPUs run them: CC.CF after a subtraction is NOT-borrow.
  CHECK(subCarry<uint32_t>(5, 3, true).carry);                           // sub.cc 5, 3
  CHECK(addCarry<uint32_t>(0, 0, subCarry<uint32_t>(5, 3, true).carry).value == 1); // addc 0, 0
  CHECK(subCarry<uint32_t>(5, 3, addCarry<uint32_t>(~0u, 1, false).carry).value == 2); // subc
  CHECK(subCarry<uint32_t>(5, 3, false).value == 1); // subc without carry: one borrowed
  CHECK_FALSE(subCarry<uint32_t>(3, 5, true).carry); // a borrow clears CC.CF
  auto M = madCarry<uint32_t>(0xffffffffu, 2u, 1u, false, true); // 0x1fffffffe lo + 1 + 1
  CHECK(M.value == 0u);
  CHECK(M.carry);
  auto H = madCarry<uint32_t>(0xffffffffu, 0xffffffffu, 1u, true, false);
  CHECK(H.value == 0xffffffffu);
  CHECK_FALSE(H.carry);
  CHECK(addCarry<int32_t>(-1, 1, false).carry); // carry is the unsigned carry-out
}

TEST_CASE("dp4a and dp2a") {
  // a bytes {1,2,3,4}, b bytes {5,6,7,8}: 5+12+21+32 = 70.
  CHECK(dp4a(0x04030201u, 0x08070605u, 10u, false, false) == 80u);
  // signed a byte 0xff = -1 times b byte 2 = -2; unsigned it is 255*2.
  CHECK(dp4a(0x000000ffu, 0x00000002u, 0u, true, false) == uint32_t(-2));
  CHECK(dp4a(0x000000ffu, 0x00000002u, 0u, false, false) == 510u);
  CHECK(dp4a(0xffffffffu, 0xffffffffu, 0u, true, true) == 4u);
  // dp2a: a halves {0xffff (-1 signed), 3}; b bytes {1,2,3,4}.
  CHECK(dp2a(0x0003ffffu, 0x04030201u, 0u, true, false, false) == uint32_t(-1 * 1 + 3 * 2));
  CHECK(dp2a(0x0003ffffu, 0x04030201u, 0u, true, false, true) == uint32_t(-1 * 3 + 3 * 4));
  CHECK(dp2a(0x0003ffffu, 0x04030201u, 7u, false, false, false) == 7u + 65535u + 6u);
}

TEST_CASE("popc, clz, brev against bit-by-bit references") {
  std::mt19937_64 G(2);
  for (int I = 0; I < 2000; ++I) {
    uint64_t X = G() >> (G() % 64);
    uint32_t Pop = 0, Lead = 64;
    uint64_t Rev = 0;
    for (int B = 0; B < 64; ++B) {
      Pop += (X >> B) & 1;
      if ((X >> B) & 1)
        Lead = 63 - B;
      Rev |= ((X >> B) & 1) << (63 - B);
    }
    CHECK(popc(X) == Pop);
    CHECK(clz64(X) == Lead);
    CHECK(brev64(X) == Rev);
    CHECK(brev32(uint32_t(Rev >> 32)) == uint32_t(X));
  }
  CHECK(clz32(0) == 32);
  CHECK(clz32(1) == 31);
}

TEST_CASE("bfind, fns (PTX ISA examples), bmsk, szext") {
  CHECK(bfind(0x00010000u, 32, false, false) == 16u);
  CHECK(bfind(0x00010000u, 32, false, true) == 15u);
  CHECK(bfind(0, 32, false, false) == 0xffffffffu);
  CHECK(bfind(0, 32, false, true) == 0xffffffffu);
  CHECK(bfind(0xffffffffu, 32, true, false) == 0xffffffffu); // -1: no non-sign bit
  CHECK(bfind(0xfffffff0u, 32, true, false) == 3u);          // most significant 0 is bit 3
  CHECK(bfind(0x8000000000000000ull, 64, false, false) == 63u);
  CHECK(bfind(0x8000000000000000ull, 64, true, false) == 62u);
  CHECK(fns(0xaaaaaaaau, 3, 1) == 3u);
  CHECK(fns(0xaaaaaaaau, 3, -1) == 3u);
  CHECK(fns(0xaaaaaaaau, 2, 1) == 3u);
  CHECK(fns(0xaaaaaaaau, 2, -1) == 1u);
  CHECK(fns(0xaaaaaaaau, 2, 0) == 0xffffffffu);
  CHECK(fns(0x80000001u, 0, 2) == 31u);
  CHECK(fns(0x80000001u, 0, 3) == 0xffffffffu);
  CHECK(bmsk(1, 2, false) == 0x00000006u); // PTX ISA example
  CHECK(bmsk(30, 5, false) == 0xc0000000u);
  CHECK(bmsk(0, 32, true) == 0xffffffffu);
  CHECK(bmsk(0, 32, false) == 0u); // wrap: width 32 -> 0
  CHECK(bmsk(33, 1, true) == 0u);
  CHECK(bmsk(33, 1, false) == 0x2u);
  CHECK(szext(0xffffffffu, 0, false, false) == 0u); // PTX ISA example
  CHECK(szext(0x000000f0u, 8, true, true) == 0xfffffff0u);
  CHECK(szext(0x000000f0u, 8, true, false) == 0xf0u);
  CHECK(szext(0x000000f0u, 40, true, true) == 0xf0u);        // clamp: b >= 32 keeps a
  CHECK(szext(0x000000f0u, 40, false, true) == 0xfffffff0u); // wrap: 40 % 32 = 8
}

TEST_CASE("bfe/bfi: PTX's position/length clamping") {
  CHECK(bfe(0x12345678u, 4, 8, 32, false) == 0x67u);
  CHECK(bfe(0x000000f0u, 4, 4, 32, true) == 0xffffffffu); // sign of bit 7
  CHECK(bfe(0x000000f0u, 4, 5, 32, true) == 0x0000000fu);
  CHECK(bfe(0x80000000u, 28, 10, 32, true) == 0xfffffff8u); // past msb: sign from bit 31
  CHECK(bfe(0x80000000u, 28, 10, 32, false) == 0x00000008u);
  CHECK(bfe(0xffffffffu, 8, 0, 32, true) == 0u);
  CHECK(bfe(0xffffffffu, 40, 4, 32, false) == 0u);
  CHECK(bfe(0x80000000u, 40, 4, 32, true) == 0xffffffffu); // sign of the msb
  CHECK(bfe(0x1234u, 0x104, 0x108, 32, false) == 0x23u);   // pos/len use the low 8 bits
  CHECK(bfe(0xf000000000000000ull, 60, 4, 64, true) == ~0ull);
  CHECK(bfi(0xffu, 0x12345678u, 8, 4, 32) == 0x12345f78u);
  CHECK(bfi(0xffu, 0u, 30, 8, 32) == 0xc0000000u); // bits past 31 dropped
  CHECK(bfi(0xffu, 0x5u, 0, 0, 32) == 0x5u);
  CHECK(bfi(0x1u, 0u, 63, 1, 64) == 0x8000000000000000ull);
}

TEST_CASE("prmt default and mode forms") {
  uint32_t A = 0x33221100u, B = 0x77665544u; // bytes 0..7 are 0x00,0x11,...,0x77
  CHECK(prmt(A, B, 0x3210) == A);
  CHECK(prmt(A, B, 0x7654) == B);
  CHECK(prmt(A, B, 0x0123) == 0x00112233u);
  CHECK(prmt(0x00000080u, 0, 0x8880) == 0xffffff80u); // sign replication of byte 0
  CHECK(prmt(A, B, 1, PrmtMode::F4e) == 0x44332211u);
  CHECK(prmt(A, B, 0, PrmtMode::B4e) == 0x55667700u);
  CHECK(prmt(A, B, 2, PrmtMode::Rc8) == 0x22222222u);
  CHECK(prmt(A, B, 1, PrmtMode::Ecl) == 0x33221111u);
  CHECK(prmt(A, B, 2, PrmtMode::Ecr) == 0x22221100u);
  CHECK(prmt(A, B, 1, PrmtMode::Rc16) == 0x33223322u);
}

TEST_CASE("lop3 evaluates any LUT, shf, shl/shr clamping") {
  std::mt19937_64 G(4);
  for (int I = 0; I < 500; ++I) {
    uint32_t A = uint32_t(G()), B = uint32_t(G()), C = uint32_t(G());
    uint8_t Lut = uint8_t(G());
    uint32_t Ref = 0;
    for (int Bit = 0; Bit < 32; ++Bit) {
      unsigned Idx = ((A >> Bit) & 1) << 2 | ((B >> Bit) & 1) << 1 | ((C >> Bit) & 1);
      Ref |= uint32_t((Lut >> Idx) & 1) << Bit;
    }
    CHECK(lop3(A, B, C, Lut) == Ref);
    CHECK(lop3(A, B, C, 0x96) == (A ^ B ^ C));
    CHECK(lop3(A, B, C, uint8_t((0xF0 & 0xCC) | 0xAA)) == ((A & B) | C));
  }
  CHECK(shf(0x89abcdefu, 0x01234567u, 8, true, false) == 0x23456789u);
  CHECK(shf(0x89abcdefu, 0x01234567u, 8, false, false) == 0x6789abcdu);
  CHECK(shf(0x89abcdefu, 0x01234567u, 40, true, false) == 0x23456789u); // wrap: 40 & 31
  CHECK(shf(0x89abcdefu, 0x01234567u, 40, true, true) == 0x89abcdefu);  // clamp: 32 -> a
  CHECK(shf(0x89abcdefu, 0x01234567u, 40, false, true) == 0x01234567u); // clamp: 32 -> b
  CHECK(shl<uint32_t>(1, 31) == 0x80000000u);
  CHECK(shl<uint32_t>(1, 32) == 0u);
  CHECK(shl<uint16_t>(1, 100) == 0u);
  CHECK(shr<uint32_t>(0x80000000u, 40) == 0u);
  CHECK(shr<int32_t>(INT32_MIN, 40) == -1);
  CHECK(shr<int32_t>(0x40000000, 40) == 0);
  CHECK(shr<int64_t>(-8, 1) == -4);
}

TEST_CASE("integer cvt: truncation, sign extension, .sat") {
  CHECK(convertInt(0x1ff, 32, false, 8, false, false) == 0xffu);
  CHECK(convertInt(0x1ff, 32, false, 8, true, false) == ~0ull); // s8 -1 sign-extended
  CHECK(convertInt(0x1ff, 32, false, 8, true, true) == 0x7fu);
  CHECK(convertInt(0xffffffffu, 32, true, 8, false, true) == 0u);      // -1 -> u8 sat 0
  CHECK(convertInt(0xffffffffu, 32, true, 64, false, false) == ~0ull); // sign-extends
  CHECK(convertInt(0xffffffffu, 32, false, 64, true, false) == 0xffffffffull);
  CHECK(convertInt(0x80u, 8, true, 16, true, false) == 0xffffffffffffff80ull);
  CHECK(convertInt(~0ull, 64, false, 64, true, true) == 0x7fffffffffffffffull);
  CHECK(convertInt(0x8000000000000000ull, 64, true, 32, true, true) == 0xffffffff80000000ull);
}

TEST_CASE("packed 16x2 integer min/max/add/sub and relu") {
  CHECK(minMax16x2(0xffff0001u, 0x00010002u, true, false) == 0xffff0001u); // {-1,1} vs {1,2}
  CHECK(minMax16x2(0xffff0001u, 0x00010002u, false, false) == 0x00010001u);
  CHECK(minMax16x2(0xffff0001u, 0x00010002u, true, true) == 0x00010002u);
  CHECK(minMax16x2(0xfffe0001u, 0xffff0000u, true, true, true) == 0x00000001u); // max(-2,-1)->0
  CHECK(addSub16x2(0xffff0001u, 0x00010001u, false) == 0x00000002u);
  CHECK(addSub16x2(0x00000001u, 0x00010002u, true) == 0xffffffffu);
  CHECK(reluS32(-5) == 0);
  CHECK(reluS32(7) == 7);
}
