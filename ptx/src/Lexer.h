// Tokenizer for PTX text: words, directives, numbers, strings and punctuation, with positions.
// One pass over the bytes with a character table; no regex, no allocation per token.
#pragma once

#include <cstdint>
#include <string_view>

namespace ptx {

/// What a token is. Punctuation tokens use TokenKind::Punct and carry the character in `text`.
enum class TokenKind : uint8_t {
  Word,      ///< identifier, register, opcode or label name: `ld.global.v4.f32`, `%tid.x`, `$L_1`
  Directive, ///< starts with a dot: `.reg`, `.shared::cta`, `.b8`
  Number,    ///< starts with a digit: `42`, `0x1F`, `0f3F800000`, `1.5e-3`, `9.0`
  String,    ///< "..." including the quotes
  Punct,     ///< one of , ; : { } [ ] ( ) < > + - ! @ | =
  Eof,
  Error, ///< `text` is the offending input; Lexer::errorMessage() says what is wrong
};

struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string_view text;
  uint32_t line = 0;
  uint32_t col = 0;

  bool is(char C) const { return kind == TokenKind::Punct && text[0] == C; }
};

/// Splits PTX into tokens on demand. Comments, `@@DWARF` lines and whitespace are skipped.
class Lexer {
public:
  explicit Lexer(std::string_view Text) : Text(Text) {}

  /// The next token; Eof forever at the end, Error (then Eof) on a bad character or string.
  Token next();
  /// Why the last Error token was produced.
  std::string_view errorMessage() const { return ErrorMsg; }

private:
  void skipSpaceAndComments();
  Token make(TokenKind K, size_t Begin) const;
  Token error(size_t Begin, std::string_view Msg);
  size_t scanWordTail(size_t I) const;
  size_t scanNumber(size_t I) const;

  std::string_view Text;
  size_t Pos = 0;
  size_t LineStart = 0;
  uint32_t Line = 1;
  // Position of the token being built.
  uint32_t TokLine = 1;
  size_t TokLineStart = 0;
  std::string_view ErrorMsg;
  bool Unterminated = false; ///< a /* comment runs to the end of the text
};

} // namespace ptx
