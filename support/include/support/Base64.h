// Base64 (RFC 4648, standard alphabet, '=' padding) of 32- and 64-bit floats in little-endian
// order: how a model file keeps a large table of numbers as one JSON string, read back exactly
// and without parsing a decimal number per value.
#pragma once

#include "support/Expected.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace support {

/// Bytes as base64 text.
std::string encodeBase64(std::span<const unsigned char> Bytes);
/// The bytes of base64 Text, or an error naming what is wrong with it.
Expected<std::vector<unsigned char>> decodeBase64(std::string_view Text);

/// Floats as base64 of their little-endian IEEE 754 binary32 bytes.
std::string encodeFloats(std::span<const float> Values);
/// Doubles as base64 of their little-endian IEEE 754 binary64 bytes.
std::string encodeDoubles(std::span<const double> Values);
/// The floats of encodeFloats' Text, or an error (bad base64, a length not a whole float).
Expected<std::vector<float>> decodeFloats(std::string_view Text);
/// The doubles of encodeDoubles' Text, or an error (bad base64, a length not a whole double).
Expected<std::vector<double>> decodeDoubles(std::string_view Text);

} // namespace support
