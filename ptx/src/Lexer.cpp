// PTX tokenizer: a single forward scan driven by a 256-entry character-class table.
#include "Lexer.h"

#include <array>

namespace ptx {
namespace {

enum CharClass : uint8_t {
  Other = 0,
  WordStart = 1, ///< may start a word: letters, _ $ %
  WordCont = 2,  ///< may continue a word: letters, digits, _ $
  Digit = 4,
  Space = 8,
  PunctChar = 16,
};

constexpr std::array<uint8_t, 256> makeTable() {
  std::array<uint8_t, 256> T{};
  for (int C = 'a'; C <= 'z'; ++C)
    T[C] = WordStart | WordCont;
  for (int C = 'A'; C <= 'Z'; ++C)
    T[C] = WordStart | WordCont;
  for (int C = '0'; C <= '9'; ++C)
    T[C] = WordCont | Digit;
  T['_'] = T['$'] = WordStart | WordCont;
  T['%'] = WordStart;
  T[' '] = T['\t'] = T['\r'] = T['\n'] = T['\v'] = T['\f'] = Space;
  for (char C : std::string_view(",;:{}[]()<>+-!@|="))
    T[static_cast<uint8_t>(C)] = PunctChar;
  return T;
}

constexpr std::array<uint8_t, 256> Table = makeTable();

bool has(char C, uint8_t Class) { return (Table[static_cast<uint8_t>(C)] & Class) != 0; }

} // namespace

void Lexer::skipSpaceAndComments() {
  const size_t N = Text.size();
  while (Pos < N) {
    char C = Text[Pos];
    if (C == '\n') {
      ++Line;
      LineStart = ++Pos;
    } else if (has(C, Space)) {
      ++Pos;
    } else if (C == '/' && Pos + 1 < N && Text[Pos + 1] == '/') {
      size_t End = Text.find('\n', Pos);
      Pos = End == std::string_view::npos ? N : End;
    } else if (C == '@' && Pos + 1 < N && Text[Pos + 1] == '@') {
      // `@@DWARF ...` lines in old debug sections: skipped like comments.
      size_t End = Text.find('\n', Pos);
      Pos = End == std::string_view::npos ? N : End;
    } else if (C == '/' && Pos + 1 < N && Text[Pos + 1] == '*') {
      size_t I = Pos + 2, NewLineStart = LineStart;
      uint32_t NewLine = Line;
      while (I + 1 < N && !(Text[I] == '*' && Text[I + 1] == '/')) {
        if (Text[I] == '\n') {
          ++NewLine;
          NewLineStart = I + 1;
        }
        ++I;
      }
      if (I + 1 >= N) {
        Unterminated = true; // reported by next() at the comment's start
        return;
      }
      Line = NewLine;
      LineStart = NewLineStart;
      Pos = I + 2;
    } else {
      return;
    }
  }
}

Token Lexer::make(TokenKind K, size_t Begin) const {
  return Token{K, Text.substr(Begin, Pos - Begin), TokLine,
               static_cast<uint32_t>(Begin - TokLineStart + 1)};
}

Token Lexer::error(size_t Begin, std::string_view Msg) {
  ErrorMsg = Msg;
  Token T = make(TokenKind::Error, Begin);
  Pos = Text.size(); // everything after an error is Eof
  return T;
}

// A word continues over word characters, `.x` and `::x` (x a word character).
size_t Lexer::scanWordTail(size_t I) const {
  const size_t N = Text.size();
  while (I < N) {
    char C = Text[I];
    if (has(C, WordCont))
      ++I;
    else if (C == '.' && I + 1 < N && has(Text[I + 1], WordCont))
      I += 2;
    else if (C == ':' && I + 2 < N && Text[I + 1] == ':' && has(Text[I + 2], WordCont))
      I += 3;
    else
      break;
  }
  return I;
}

// Digits, letters, `_` and `.`; a decimal exponent may carry a sign (`1.5e-3`).
size_t Lexer::scanNumber(size_t I) const {
  const size_t N = Text.size();
  size_t Begin = I;
  bool Radix = I + 1 < N && Text[I] == '0' &&
               std::string_view("xXfFdDbB").find(Text[I + 1]) != std::string_view::npos;
  while (I < N) {
    char C = Text[I];
    if (has(C, WordCont) || C == '.') {
      ++I;
    } else if ((C == '+' || C == '-') && !Radix && I > Begin &&
               (Text[I - 1] == 'e' || Text[I - 1] == 'E') && I + 1 < N && has(Text[I + 1], Digit)) {
      ++I;
    } else {
      break;
    }
  }
  return I;
}

Token Lexer::next() {
  skipSpaceAndComments();
  TokLine = Line;
  TokLineStart = LineStart;
  if (Unterminated) {
    Unterminated = false;
    Pos += 2;
    return error(Pos - 2, "unterminated comment");
  }
  if (Pos == Text.size())
    return make(TokenKind::Eof, Pos);
  size_t Begin = Pos;
  char C = Text[Pos];
  if (has(C, WordStart)) {
    Pos = scanWordTail(Pos + 1);
    return make(TokenKind::Word, Begin);
  }
  if (has(C, Digit)) {
    Pos = scanNumber(Pos);
    return make(TokenKind::Number, Begin);
  }
  if (C == '.' && Pos + 1 < Text.size() && has(Text[Pos + 1], WordCont)) {
    Pos = scanWordTail(Pos + 1);
    return make(TokenKind::Directive, Begin);
  }
  if (has(C, PunctChar)) {
    ++Pos;
    return make(TokenKind::Punct, Begin);
  }
  if (C == '"') {
    size_t I = Pos + 1;
    while (I < Text.size() && Text[I] != '"' && Text[I] != '\n')
      I += Text[I] == '\\' && I + 1 < Text.size() && Text[I + 1] != '\n' ? 2 : 1;
    if (I >= Text.size() || Text[I] != '"') {
      ++Pos;
      return error(Begin, "unterminated string");
    }
    Pos = I + 1;
    return make(TokenKind::String, Begin);
  }
  ++Pos;
  return error(Begin, "unexpected character");
}

} // namespace ptx
