// A small, strict JSON reader (RFC 8259) with source positions, for launch manifests.
#pragma once

#include "support/Expected.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace support {

/// The kind of a JSON value.
enum class JsonKind { Null, Bool, Number, String, Array, Object };

/// The JSON name of a kind ("null", "boolean", "number", "string", "array", "object").
const char *jsonKindName(JsonKind K);

struct JsonMember;

/// One parsed JSON value with the 1-based line and column (in bytes) where it starts.
/// Numbers keep their source text so integers convert exactly (no detour through double).
struct JsonValue {
  JsonKind kind = JsonKind::Null;
  bool boolean = false;
  std::string text;             ///< string contents (unescaped UTF-8) or the number's source text
  std::vector<JsonValue> items; ///< array elements
  std::vector<JsonMember> members; ///< object members, in source order
  uint32_t line = 0;
  uint32_t col = 0;

  /// The member named Key, or nullptr (objects only).
  const JsonValue *find(std::string_view Key) const;
  /// True for a number written as an integer (no fraction, no exponent).
  bool isInteger() const;
};

/// One `"key": value` member of an object.
struct JsonMember {
  std::string key;
  JsonValue value;
};

/// Limits that keep hostile input from exhausting the stack.
struct JsonLimits {
  uint32_t maxDepth = 128;
};

/// Parses exactly one JSON value (surrounded by optional whitespace). Rejects comments, trailing
/// commas, duplicate object keys, leading zeros, control characters in strings, invalid escapes,
/// lone surrogates and invalid UTF-8. Errors name File and the position of the offending byte.
Expected<JsonValue> parseJson(std::string_view Text, const std::string &File,
                              JsonLimits Limits = {});

/// The value of an integer number as int64/uint64; an error (at the value's position in File)
/// when it is not an integer or out of range.
Expected<int64_t> jsonToInt64(const JsonValue &V, const std::string &File);
Expected<uint64_t> jsonToUint64(const JsonValue &V, const std::string &File);
/// The value of any number as the nearest double (strtod on the source text).
Expected<double> jsonToDouble(const JsonValue &V, const std::string &File);

} // namespace support
