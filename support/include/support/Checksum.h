// A 64-bit FNV-1a hash of bytes: how the on-disk caches (corpus's kernel cache, the pipeline's
// analysis cache) recognise an entry that was truncated or altered after it was written. It
// detects accidents (a full disk, a killed writer, an edited file), not deliberate forgery.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace support {

/// FNV-1a over Bytes, continuing from H (the offset basis by default), so pieces can be chained.
inline uint64_t fnv1a64(std::string_view Bytes, uint64_t H = 0xcbf29ce484222325ULL) {
  for (unsigned char C : Bytes) {
    H ^= C;
    H *= 0x100000001b3ULL;
  }
  return H;
}

/// fnv1a64(Bytes) as 16 lower-case hex digits.
inline std::string checksumHex(std::string_view Bytes) {
  char Text[17];
  std::snprintf(Text, sizeof Text, "%016llx", static_cast<unsigned long long>(fnv1a64(Bytes)));
  return Text;
}

} // namespace support
