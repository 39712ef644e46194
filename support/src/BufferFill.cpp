// Seeded random fills, binary16 conversion and file-backed buffer contents.
#include "support/BufferFill.h"

#include <cassert>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace support::manifest {

namespace {

// Rounds a non-negative, exactly scaled value to the nearest integer, ties to even.
double roundHalfEven(double S) {
  double Floor = std::floor(S);
  double Frac = S - Floor; // exact: S and Floor share an exponent range
  if (Frac > 0.5 || (Frac == 0.5 && std::fmod(Floor, 2.0) != 0.0))
    return Floor + 1.0;
  return Floor;
}

template <class T> void storeLe(uint8_t *Out, T V) { std::memcpy(Out, &V, sizeof(T)); }

} // namespace

// Rounds D to nearest even in a binary format with MantBits stored mantissa bits and ExpBits
// exponent bits (IEEE layout, subnormals, infinity on overflow) and returns its bits.
static uint16_t roundToSmallFloat(double D, int MantBits, int ExpBits) {
  const int Bias = (1 << (ExpBits - 1)) - 1;
  const uint16_t Sign = std::signbit(D) ? uint16_t(1u << (MantBits + ExpBits)) : 0;
  const uint16_t Inf = uint16_t(((1u << ExpBits) - 1) << MantBits);
  double A = std::fabs(D);
  if (std::isnan(D))
    return Sign | Inf | uint16_t(1u << (MantBits - 1));
  // At or above the midpoint between the largest finite value and 2^(Bias+1): infinity.
  if (A >= std::ldexp(2.0 - std::ldexp(1.0, -MantBits - 1), Bias))
    return Sign | Inf;
  if (A < std::ldexp(1.0, 1 - Bias)) {
    // Subnormal: units of 2^(1-Bias-MantBits). A result of 2^MantBits is the smallest normal,
    // whose bits are exactly that integer.
    return Sign | static_cast<uint16_t>(roundHalfEven(std::ldexp(A, Bias - 1 + MantBits)));
  }
  int E = 0;
  std::frexp(A, &E);                                          // A = m * 2^E, m in [0.5, 1)
  int Exp = E - 1;                                            // A in [2^Exp, 2^(Exp+1))
  double Mant = roundHalfEven(std::ldexp(A, MantBits - Exp)); // in [2^M, 2^(M+1)]
  if (Mant == std::ldexp(1.0, MantBits + 1)) {
    Mant /= 2;
    ++Exp;
  }
  assert(Exp + Bias >= 1 && Exp + Bias < (1 << ExpBits) - 1 && "exponent out of range");
  return Sign | static_cast<uint16_t>(((Exp + Bias) << MantBits) |
                                      (static_cast<int>(Mant) - (1 << MantBits)));
}

uint16_t doubleToHalfBits(double D) { return roundToSmallFloat(D, 10, 5); }

uint16_t doubleToBf16Bits(double D) { return roundToSmallFloat(D, 7, 8); }

double halfBitsToDouble(uint16_t H) {
  double Sign = (H & 0x8000) ? -1.0 : 1.0;
  int Exp = (H >> 10) & 0x1F;
  int Mant = H & 0x3FF;
  if (Exp == 0x1F)
    return Mant ? std::nan("") : Sign * INFINITY;
  if (Exp == 0)
    return Sign * std::ldexp(Mant, -24);
  return Sign * std::ldexp(1024 + Mant, Exp - 25);
}

uint32_t randomTypeSize(RandomType T) {
  switch (T) {
  case RandomType::F64:
    return 8;
  case RandomType::F32:
  case RandomType::S32:
  case RandomType::U32:
    return 4;
  case RandomType::F16:
  case RandomType::BF16:
  case RandomType::S16:
  case RandomType::U16:
    return 2;
  case RandomType::S8:
  case RandomType::U8:
    return 1;
  }
  return 1;
}

// Element I of a random fill from draw R, stored little-endian at P.
static void storeElement(const BufferInit &Init, uint64_t R, uint8_t *P) {
  double Real = Init.minReal + (Init.maxReal - Init.minReal) * unitInterval(R);
  // Inclusive integer range; max - min + 1 <= 2^32 for every integer type, so it fits.
  uint64_t Range = static_cast<uint64_t>(Init.maxInt - Init.minInt) + 1;
  int64_t Int = Init.minInt + static_cast<int64_t>(R % Range);
  switch (Init.type) {
  case RandomType::F32:
    return storeLe(P, static_cast<float>(Real));
  case RandomType::F16:
    return storeLe(P, doubleToHalfBits(Real));
  case RandomType::F64:
    return storeLe(P, Real);
  case RandomType::BF16:
    return storeLe(P, doubleToBf16Bits(Real));
  case RandomType::S32:
    return storeLe(P, static_cast<int32_t>(Int));
  case RandomType::U32:
    return storeLe(P, static_cast<uint32_t>(Int));
  case RandomType::S16:
    return storeLe(P, static_cast<int16_t>(Int));
  case RandomType::U16:
    return storeLe(P, static_cast<uint16_t>(Int));
  case RandomType::S8:
    return storeLe(P, static_cast<int8_t>(Int));
  case RandomType::U8:
    return storeLe(P, static_cast<uint8_t>(Int));
  }
}

void fillRandom(const BufferInit &Init, uint8_t *Out, uint64_t Bytes) {
  assert(Init.kind == InitKind::Random && "fillRandom needs a random init");
  SplitMix64 Rng(Init.seed);
  uint32_t Size = randomTypeSize(Init.type);
  uint64_t Count = Bytes / Size;
  for (uint64_t I = 0; I < Count; ++I)
    storeElement(Init, Rng.next(), Out + I * Size);
}

Expected<std::vector<uint8_t>> makeInitialBytes(const Buffer &B) {
  std::vector<uint8_t> Bytes(B.bytes, 0);
  if (B.init.kind == InitKind::Random) {
    fillRandom(B.init, Bytes.data(), B.bytes);
  } else if (B.init.kind == InitKind::File) {
    std::ifstream In(B.init.file, std::ios::binary);
    if (!In)
      return Error(B.init.file, 0, 0, "cannot open the init file of buffer '" + B.name + "'");
    std::vector<char> Data((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
    if (Data.size() != B.bytes)
      return Error(B.init.file, 0, 0,
                   "init file of buffer '" + B.name + "' holds " + std::to_string(Data.size()) +
                       " bytes, the buffer has " + std::to_string(B.bytes));
    std::memcpy(Bytes.data(), Data.data(), Data.size());
  }
  return Bytes;
}

} // namespace support::manifest
