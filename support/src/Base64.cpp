// Base64 (support/Base64.h): a table lookup per character, and floats and doubles as their
// little-endian IEEE 754 bytes.
#include "support/Base64.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace support {

namespace {

constexpr std::string_view Base64Alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Each byte's 6-bit value as a base64 character, or -1.
constexpr std::array<int8_t, 256> Base64Values = [] {
  std::array<int8_t, 256> V{};
  V.fill(-1);
  for (size_t I = 0; I < Base64Alphabet.size(); ++I)
    V[static_cast<unsigned char>(Base64Alphabet[I])] = static_cast<int8_t>(I);
  return V;
}();

/// The 6-bit value of a base64 character, or -1.
int base64Value(char C) { return Base64Values[static_cast<unsigned char>(C)]; }

} // namespace

std::string encodeBase64(std::span<const unsigned char> Bytes) {
  std::string Out;
  Out.reserve((Bytes.size() + 2) / 3 * 4);
  for (size_t I = 0; I < Bytes.size(); I += 3) {
    const size_t N = std::min<size_t>(3, Bytes.size() - I);
    uint32_t V = uint32_t(Bytes[I]) << 16;
    if (N > 1)
      V |= uint32_t(Bytes[I + 1]) << 8;
    if (N > 2)
      V |= Bytes[I + 2];
    for (size_t C = 0; C < 4; ++C)
      Out += C <= N ? Base64Alphabet[(V >> (18 - 6 * C)) & 63] : '=';
  }
  return Out;
}

Expected<std::vector<unsigned char>> decodeBase64(std::string_view Text) {
  if (Text.size() % 4 != 0)
    return Error("base64 text of " + std::to_string(Text.size()) +
                 " characters (not a multiple of 4)");
  std::vector<unsigned char> Out;
  Out.reserve(Text.size() / 4 * 3);
  for (size_t I = 0; I < Text.size(); I += 4) {
    const bool Last = I + 4 == Text.size();
    const size_t Pad = Last ? (Text[I + 3] == '=') + (Text[I + 2] == '=') : 0;
    uint32_t V = 0;
    for (size_t C = 0; C < 4; ++C) {
      const int D = C >= 4 - Pad ? 0 : base64Value(Text[I + C]);
      if (D < 0)
        return Error("invalid base64 character at offset " + std::to_string(I + C));
      V = V << 6 | uint32_t(D);
    }
    for (size_t B = 0; B < 3 - Pad; ++B)
      Out.push_back(static_cast<unsigned char>(V >> (16 - 8 * B)));
  }
  return Out;
}

namespace {

/// Values (float or double) as base64 of their little-endian IEEE 754 bytes.
template <class T, class Bits> std::string encodeValues(std::span<const T> Values) {
  static_assert(sizeof(T) == sizeof(Bits));
  std::vector<unsigned char> Bytes(Values.size() * sizeof(T));
  for (size_t I = 0; I < Values.size(); ++I) {
    const Bits B = std::bit_cast<Bits>(Values[I]);
    for (size_t K = 0; K < sizeof(T); ++K)
      Bytes[sizeof(T) * I + K] = static_cast<unsigned char>(B >> (8 * K));
  }
  return encodeBase64(Bytes);
}

/// The values of encodeValues' Text, or an error (bad base64, a length not a whole value).
template <class T, class Bits>
Expected<std::vector<T>> decodeValues(std::string_view Text, const char *What) {
  auto Bytes = decodeBase64(Text);
  if (!Bytes)
    return Bytes.error();
  if (Bytes->size() % sizeof(T) != 0)
    return Error("base64 " + std::string(What) + " data of " + std::to_string(Bytes->size()) +
                 " bytes (not a multiple of " + std::to_string(sizeof(T)) + ")");
  std::vector<T> Out(Bytes->size() / sizeof(T));
  for (size_t I = 0; I < Out.size(); ++I) {
    Bits B = 0;
    for (size_t K = 0; K < sizeof(T); ++K)
      B |= Bits((*Bytes)[sizeof(T) * I + K]) << (8 * K);
    Out[I] = std::bit_cast<T>(B);
  }
  return Out;
}

} // namespace

std::string encodeFloats(std::span<const float> Values) {
  return encodeValues<float, uint32_t>(Values);
}

std::string encodeDoubles(std::span<const double> Values) {
  return encodeValues<double, uint64_t>(Values);
}

Expected<std::vector<float>> decodeFloats(std::string_view Text) {
  return decodeValues<float, uint32_t>(Text, "float");
}

Expected<std::vector<double>> decodeDoubles(std::string_view Text) {
  return decodeValues<double, uint64_t>(Text, "double");
}

} // namespace support
