// Strict recursive-descent JSON reader: one routine per grammar rule, positions on every value.
#include "support/Json.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <set>

namespace support {

const char *jsonKindName(JsonKind K) {
  switch (K) {
  case JsonKind::Null:
    return "null";
  case JsonKind::Bool:
    return "boolean";
  case JsonKind::Number:
    return "number";
  case JsonKind::String:
    return "string";
  case JsonKind::Array:
    return "array";
  case JsonKind::Object:
    return "object";
  }
  return "?";
}

const JsonValue *JsonValue::find(std::string_view Key) const {
  for (const auto &[Name, Value] : members)
    if (Name == Key)
      return &Value;
  return nullptr;
}

bool JsonValue::isInteger() const {
  return kind == JsonKind::Number && text.find_first_of(".eE") == std::string::npos;
}

namespace {

class Parser {
public:
  Parser(std::string_view Text, const std::string &File, JsonLimits Limits)
      : Text(Text), File(File), Limits(Limits) {}

  // document := ws value ws EOF
  Expected<JsonValue> parseDocument() {
    skipWhitespace();
    auto V = parseValue(0);
    if (!V)
      return V;
    skipWhitespace();
    if (Pos != Text.size())
      return error("unexpected '" + describe() + "' after the JSON value");
    return V;
  }

private:
  std::string_view Text;
  const std::string &File;
  JsonLimits Limits;
  size_t Pos = 0;
  uint32_t Line = 1;
  size_t LineStart = 0;

  uint32_t col() const { return static_cast<uint32_t>(Pos - LineStart + 1); }
  Error error(std::string Message) const { return Error(File, Line, col(), std::move(Message)); }
  bool atEnd() const { return Pos >= Text.size(); }
  char peek() const { return atEnd() ? '\0' : Text[Pos]; }

  // What the parser sees at Pos, for messages.
  std::string describe() const {
    if (atEnd())
      return "end of input";
    unsigned char C = static_cast<unsigned char>(Text[Pos]);
    if (C < 0x20 || C >= 0x7f) {
      static const char *Hex = "0123456789abcdef";
      return std::string("\\x") + Hex[C >> 4] + Hex[C & 15];
    }
    return std::string(1, static_cast<char>(C));
  }
  Error unexpected(const std::string &Wanted) const {
    if (atEnd())
      return error("unexpected end of input, expected " + Wanted);
    return error("unexpected '" + describe() + "', expected " + Wanted);
  }

  // ws := [ \t\n\r]*
  void skipWhitespace() {
    while (!atEnd()) {
      char C = Text[Pos];
      if (C == '\n') {
        ++Pos;
        ++Line;
        LineStart = Pos;
      } else if (C == ' ' || C == '\t' || C == '\r') {
        ++Pos;
      } else {
        return;
      }
    }
  }

  // value := object | array | string | number | 'true' | 'false' | 'null'
  Expected<JsonValue> parseValue(uint32_t Depth) {
    JsonValue V;
    V.line = Line;
    V.col = col();
    char C = peek();
    if (C == '{' || C == '[') {
      if (Depth >= Limits.maxDepth)
        return error("nesting deeper than " + std::to_string(Limits.maxDepth) + " levels");
      return C == '{' ? parseObject(std::move(V), Depth) : parseArray(std::move(V), Depth);
    }
    if (C == '"') {
      V.kind = JsonKind::String;
      auto S = parseString();
      if (!S)
        return S.error();
      V.text = std::move(*S);
      return V;
    }
    if (C == '-' || (C >= '0' && C <= '9'))
      return parseNumber(std::move(V));
    for (const char *Word : {"true", "false", "null"}) {
      std::string_view W(Word);
      if (Text.substr(Pos, W.size()) == W) {
        Pos += W.size();
        V.kind = W == "null" ? JsonKind::Null : JsonKind::Bool;
        V.boolean = W == "true";
        return V;
      }
    }
    return unexpected("a JSON value");
  }

  // object := '{' ws ( string ws ':' ws value ws ( ',' ws string ws ':' ws value ws )* )? '}'
  Expected<JsonValue> parseObject(JsonValue V, uint32_t Depth) {
    V.kind = JsonKind::Object;
    ++Pos; // '{'
    skipWhitespace();
    if (peek() == '}') {
      ++Pos;
      return V;
    }
    std::set<std::string> Seen;
    while (true) {
      if (peek() != '"')
        return unexpected("a string key");
      uint32_t KeyLine = Line, KeyCol = col();
      auto Key = parseString();
      if (!Key)
        return Key.error();
      if (!Seen.insert(*Key).second)
        return Error(File, KeyLine, KeyCol, "duplicate key '" + *Key + "'");
      skipWhitespace();
      if (peek() != ':')
        return unexpected("':' after an object key");
      ++Pos;
      skipWhitespace();
      auto Member = parseValue(Depth + 1);
      if (!Member)
        return Member;
      V.members.push_back(JsonMember{std::move(*Key), std::move(*Member)});
      skipWhitespace();
      if (peek() == '}') {
        ++Pos;
        return V;
      }
      if (peek() != ',')
        return unexpected("',' or '}' in an object");
      ++Pos;
      skipWhitespace();
    }
  }

  // array := '[' ws ( value ws ( ',' ws value ws )* )? ']'
  Expected<JsonValue> parseArray(JsonValue V, uint32_t Depth) {
    V.kind = JsonKind::Array;
    ++Pos; // '['
    skipWhitespace();
    if (peek() == ']') {
      ++Pos;
      return V;
    }
    while (true) {
      auto Item = parseValue(Depth + 1);
      if (!Item)
        return Item;
      V.items.push_back(std::move(*Item));
      skipWhitespace();
      if (peek() == ']') {
        ++Pos;
        return V;
      }
      if (peek() != ',')
        return unexpected("',' or ']' in an array");
      ++Pos;
      skipWhitespace();
    }
  }

  // number := '-'? ( '0' | [1-9][0-9]* ) ( '.' [0-9]+ )? ( [eE] [+-]? [0-9]+ )?
  Expected<JsonValue> parseNumber(JsonValue V) {
    V.kind = JsonKind::Number;
    size_t Start = Pos;
    if (peek() == '-')
      ++Pos;
    if (peek() == '0') {
      ++Pos;
      if (peek() >= '0' && peek() <= '9')
        return error("leading zeros are not allowed in numbers");
    } else if (!skipDigits()) {
      return unexpected("a digit");
    }
    if (peek() == '.') {
      ++Pos;
      if (!skipDigits())
        return unexpected("a digit after '.'");
    }
    if (peek() == 'e' || peek() == 'E') {
      ++Pos;
      if (peek() == '+' || peek() == '-')
        ++Pos;
      if (!skipDigits())
        return unexpected("a digit in the exponent");
    }
    V.text = std::string(Text.substr(Start, Pos - Start));
    return V;
  }

  bool skipDigits() {
    size_t Start = Pos;
    while (peek() >= '0' && peek() <= '9')
      ++Pos;
    return Pos != Start;
  }

  // string := '"' ( char | '\' escape )* '"'   (char: UTF-8, no control characters)
  Expected<std::string> parseString() {
    ++Pos; // '"'
    std::string S;
    while (true) {
      if (atEnd())
        return error("unterminated string");
      unsigned char C = static_cast<unsigned char>(Text[Pos]);
      if (C == '"') {
        ++Pos;
        return S;
      }
      if (C < 0x20)
        return error("control character " + describe() + " in a string (escape it)");
      if (C == '\\') {
        if (auto E = parseEscape(S))
          return *E;
        continue;
      }
      if (C < 0x80) {
        S += static_cast<char>(C);
        ++Pos;
        continue;
      }
      if (auto E = copyUtf8(S))
        return *E;
    }
  }

  // escape := ["\\/bfnrt] | 'u' hex4 (a high surrogate must be followed by '\u' low surrogate)
  MaybeError parseEscape(std::string &S) {
    ++Pos; // '\'
    char C = peek();
    static const std::string_view From = "\"\\/bfnrt", To = "\"\\/\b\f\n\r\t";
    if (size_t I = From.find(C); C != '\0' && I != std::string_view::npos) {
      S += To[I];
      ++Pos;
      return std::nullopt;
    }
    if (C != 'u')
      return unexpected("an escape character (one of \"\\/bfnrtu)");
    ++Pos;
    auto Hi = parseHex4();
    if (!Hi)
      return Hi.error();
    uint32_t Code = *Hi;
    if (Code >= 0xDC00 && Code <= 0xDFFF)
      return error("lone low surrogate in a \\u escape");
    if (Code >= 0xD800 && Code <= 0xDBFF) {
      if (Text.substr(Pos, 2) != "\\u")
        return error("high surrogate not followed by a \\u low surrogate");
      Pos += 2;
      auto Lo = parseHex4();
      if (!Lo)
        return Lo.error();
      if (*Lo < 0xDC00 || *Lo > 0xDFFF)
        return error("high surrogate not followed by a low surrogate");
      Code = 0x10000 + ((Code - 0xD800) << 10) + (*Lo - 0xDC00);
    }
    appendUtf8(S, Code);
    return std::nullopt;
  }

  Expected<uint32_t> parseHex4() {
    uint32_t V = 0;
    for (int I = 0; I < 4; ++I) {
      char C = peek();
      uint32_t D;
      if (C >= '0' && C <= '9')
        D = C - '0';
      else if (C >= 'a' && C <= 'f')
        D = C - 'a' + 10;
      else if (C >= 'A' && C <= 'F')
        D = C - 'A' + 10;
      else
        return unexpected("a hex digit in a \\u escape");
      V = V * 16 + D;
      ++Pos;
    }
    return V;
  }

  static void appendUtf8(std::string &S, uint32_t Code) {
    if (Code < 0x80) {
      S += static_cast<char>(Code);
    } else if (Code < 0x800) {
      S += static_cast<char>(0xC0 | (Code >> 6));
      S += static_cast<char>(0x80 | (Code & 0x3F));
    } else if (Code < 0x10000) {
      S += static_cast<char>(0xE0 | (Code >> 12));
      S += static_cast<char>(0x80 | ((Code >> 6) & 0x3F));
      S += static_cast<char>(0x80 | (Code & 0x3F));
    } else {
      S += static_cast<char>(0xF0 | (Code >> 18));
      S += static_cast<char>(0x80 | ((Code >> 12) & 0x3F));
      S += static_cast<char>(0x80 | ((Code >> 6) & 0x3F));
      S += static_cast<char>(0x80 | (Code & 0x3F));
    }
  }

  // One multi-byte UTF-8 sequence, validated (no overlongs, no surrogates, <= U+10FFFF).
  MaybeError copyUtf8(std::string &S) {
    unsigned char C = static_cast<unsigned char>(Text[Pos]);
    size_t Len = C >= 0xF0 ? 4 : C >= 0xE0 ? 3 : C >= 0xC0 ? 2 : 0;
    if (Len == 0 || C > 0xF4 || Pos + Len > Text.size())
      return error("invalid UTF-8 byte " + describe() + " in a string");
    uint32_t Code = C & (0x7F >> Len);
    for (size_t I = 1; I < Len; ++I) {
      unsigned char Next = static_cast<unsigned char>(Text[Pos + I]);
      if ((Next & 0xC0) != 0x80)
        return error("invalid UTF-8 sequence in a string");
      Code = (Code << 6) | (Next & 0x3F);
    }
    static const uint32_t MinCode[] = {0, 0, 0x80, 0x800, 0x10000};
    if (Code < MinCode[Len] || Code > 0x10FFFF || (Code >= 0xD800 && Code <= 0xDFFF))
      return error("invalid UTF-8 sequence in a string");
    S.append(Text.substr(Pos, Len));
    Pos += Len;
    return std::nullopt;
  }
};

Error valueError(const JsonValue &V, const std::string &File, std::string Message) {
  return Error(File, V.line, V.col, std::move(Message));
}

} // namespace

Expected<JsonValue> parseJson(std::string_view Text, const std::string &File, JsonLimits Limits) {
  return Parser(Text, File, Limits).parseDocument();
}

Expected<int64_t> jsonToInt64(const JsonValue &V, const std::string &File) {
  if (!V.isInteger())
    return valueError(V, File,
                      "expected an integer, got " +
                          (V.kind == JsonKind::Number ? V.text : jsonKindName(V.kind)));
  int64_t Out = 0;
  auto [End, Ec] = std::from_chars(V.text.data(), V.text.data() + V.text.size(), Out);
  if (Ec != std::errc() || End != V.text.data() + V.text.size())
    return valueError(V, File, "integer " + V.text + " does not fit in 64 bits");
  return Out;
}

Expected<uint64_t> jsonToUint64(const JsonValue &V, const std::string &File) {
  if (!V.isInteger())
    return valueError(V, File,
                      "expected an integer, got " +
                          (V.kind == JsonKind::Number ? V.text : jsonKindName(V.kind)));
  if (V.text[0] == '-')
    return valueError(V, File, "expected a non-negative integer, got " + V.text);
  uint64_t Out = 0;
  auto [End, Ec] = std::from_chars(V.text.data(), V.text.data() + V.text.size(), Out);
  if (Ec != std::errc() || End != V.text.data() + V.text.size())
    return valueError(V, File, "integer " + V.text + " does not fit in 64 bits");
  return Out;
}

Expected<double> jsonToDouble(const JsonValue &V, const std::string &File) {
  if (V.kind != JsonKind::Number)
    return valueError(V, File, std::string("expected a number, got ") + jsonKindName(V.kind));
  // strtod is locale-dependent in theory; JSON numbers never contain the locale's separators
  // other than '.', and the C locale is the default in this tool.
  errno = 0;
  char *End = nullptr;
  double D = std::strtod(V.text.c_str(), &End);
  if (End != V.text.c_str() + V.text.size())
    return valueError(V, File, "malformed number " + V.text);
  if (errno == ERANGE && (D > 1.0 || D < -1.0))
    return valueError(V, File, "number " + V.text + " is out of the range of a double");
  return D;
}

} // namespace support
