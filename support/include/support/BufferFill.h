// Initial buffer contents of a launch manifest: the seeded splitmix64 fill (the one the
// interpreter and ptxcast-measure both use, so their buffers agree bit for bit), f16 and bf16
// rounding, and file/zero initialisation (the rule is spelled out in docs/manifest.md).
#pragma once

#include "support/Expected.h"
#include "support/LaunchManifest.h"

#include <cstdint>
#include <vector>

namespace support::manifest {

/// splitmix64 (Steele, Lea, Flood 2014): state += 0x9E3779B97F4A7C15, then two xor-shift-multiply
/// rounds. The generator the manifest's "random" fills are defined with.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    State += 0x9E3779B97F4A7C15ULL;
    uint64_t Z = State;
    Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBULL;
    return Z ^ (Z >> 31);
  }

private:
  uint64_t State;
};

/// The top 24 bits of a draw as a double in [0, 1): (R >> 40) * 2^-24.
inline double unitInterval(uint64_t R) { return static_cast<double>(R >> 40) * 0x1p-24; }

/// IEEE binary16 bits of D, rounded to nearest even directly from the double (no detour through
/// float); overflow gives infinity, NaN gives the quiet NaN 0x7e00 (sign kept).
uint16_t doubleToHalfBits(double D);

/// bfloat16 bits of D, rounded to nearest even directly from the double; overflow gives
/// infinity, NaN gives 0x7fc0 (sign kept).
uint16_t doubleToBf16Bits(double D);

/// The value of binary16 bits H (for tests and messages).
double halfBitsToDouble(uint16_t H);

/// Size in bytes of one element of a random fill type.
uint32_t randomTypeSize(RandomType T);

/// Writes Bytes / randomTypeSize(Init.type) elements of Init's seeded random fill to Out.
void fillRandom(const BufferInit &Init, uint8_t *Out, uint64_t Bytes);

/// The initial contents of B: zeros, the random fill, or the init file (which must hold exactly
/// B.bytes bytes).
Expected<std::vector<uint8_t>> makeInitialBytes(const Buffer &B);

} // namespace support::manifest
