// PTX parser: variable, parameter and register declarations (attributes, array dimensions,
// initializers with nested braces, symbols and generic(sym)).
#include "ParserImpl.h"

namespace ptx::detail {

std::optional<StateSpace> Parser::spaceOfDirective(std::string_view D) const {
  if (D == ".global")
    return StateSpace::Global;
  if (D == ".const")
    return StateSpace::Const;
  if (D == ".shared")
    return StateSpace::Shared;
  if (D == ".local")
    return StateSpace::Local;
  if (D == ".param")
    return StateSpace::Param;
  return std::nullopt;
}

// variables := space attributes name dims [= init] { , name dims [= init] } ;
// Names declared in a function body may be renamed (see Parser::declare).
void Parser::parseVarList(std::vector<Variable> &Out, Linkage L, bool InFunction) {
  Token Start = Tok;
  StateSpace Space = *spaceOfDirective(Tok.text);
  advance();
  Variable V = parseVariable(Space, L, Start);
  while (true) {
    if (InFunction)
      V.name = declare(V.name);
    Out.push_back(V);
    if (!accept(','))
      break;
    V.dims.clear();
    V.init.clear();
    if (Tok.kind != TokenKind::Word)
      failExpected("a variable name");
    V.name = std::string(Tok.text);
    V.loc = loc(Tok);
    advance();
    parseDims(V);
    if (accept('='))
      parseInitializer(V, 0);
  }
  expect(';', "after a variable declaration");
}

// variable := attributes name dims [ '=' initializer ]   (the state space is already consumed)
Variable Parser::parseVariable(StateSpace Space, Linkage L, const Token &Start) {
  Variable V;
  V.space = Space;
  V.linkage = L;
  V.loc = loc(Start);
  parseVarAttributes(V);
  if (Tok.kind != TokenKind::Word)
    failExpected("a variable name");
  V.name = std::string(Tok.text);
  advance();
  parseDims(V);
  if (accept('='))
    parseInitializer(V, 0);
  return V;
}

// attributes := { .align N | .vN | type | .ptr [space] [.align N] }   (one type required)
void Parser::parseVarAttributes(Variable &V) {
  bool HasType = false;
  while (Tok.kind == TokenKind::Directive) {
    Token T = Tok;
    std::string_view Text = T.text.substr(1);
    advance();
    // A compound directive such as `.u64.ptr` is read one component at a time.
    while (!Text.empty()) {
      size_t Dot = Text.find('.');
      std::string_view C = Text.substr(0, Dot);
      Text = Dot == Text.npos ? std::string_view() : Text.substr(Dot + 1);
      if (C == "align") {
        uint64_t A = parseUnsigned("an alignment");
        if (A == 0 || A > (1u << 30) || (A & (A - 1)) != 0)
          fail(T, "alignment must be a power of two");
        (V.isPtr ? V.ptrAlign : V.align) = static_cast<uint32_t>(A);
      } else if (C == "v2" || C == "v4" || C == "v8") {
        V.vectorWidth = static_cast<unsigned>(C[1] - '0');
      } else if (C == "ptr") {
        V.isPtr = true;
      } else if (std::optional<Type> Ty = lookupType(C)) {
        if (HasType)
          fail(T, "more than one type in a declaration");
        V.type = *Ty;
        HasType = true;
      } else if (std::optional<StateSpace> S = stateSpaceOfModifier(C); S && V.isPtr) {
        V.ptrSpace = *S;
      } else {
        fail(T, "unexpected '." + std::string(C) + "' in a declaration");
      }
    }
  }
  if (!HasType)
    failExpected("a type in the declaration");
}

// dims := { '[' [N] ']' }; the total size in bytes must fit in 64 bits.
void Parser::parseDims(Variable &V) {
  uint64_t Size = std::max(1u, typeBits(V.type) / 8) * V.vectorWidth;
  while (Tok.is('[')) {
    Token Open = Tok;
    advance();
    uint64_t D = 0;
    if (!Tok.is(']'))
      D = parseUnsigned("an array dimension");
    expect(']', "after an array dimension");
    if (D != 0 && Size > UINT64_MAX / D)
      fail(Open, "array '" + V.name + "' is too large");
    Size *= D == 0 ? 1 : D;
    V.dims.push_back(D);
  }
}

// initializer := value | '{' [ initializer { , initializer } ] '}'   (flattened into V.init)
void Parser::parseInitializer(Variable &V, unsigned Depth) {
  if (!Tok.is('{')) {
    V.init.push_back(parseInitValue());
    return;
  }
  if (Depth >= MaxInitializerDepth)
    fail(Tok, "initializer nested too deeply");
  advance();
  if (!Tok.is('}')) {
    do
      parseInitializer(V, Depth + 1);
    while (accept(','));
  }
  expect('}', "to close the initializer");
}

// value := ['-'] number | symbol ['+' N] | generic '(' symbol ')' ['+' N]
Operand Parser::parseInitValue() {
  if (accept('-')) {
    if (Tok.kind != TokenKind::Number)
      failExpected("a number after '-'");
    return parseNumber(true);
  }
  if (Tok.kind == TokenKind::Number)
    return parseNumber(false);
  if (Tok.kind != TokenKind::Word)
    failExpected("an initializer value");
  Operand O;
  O.kind = Operand::Kind::Symbol;
  if (Tok.text == "generic" && peek().is('(')) {
    advance();
    advance();
    if (Tok.kind != TokenKind::Word)
      failExpected("a symbol in generic()");
    O.generic = true;
    O.name = std::string(Tok.text);
    advance();
    expect(')', "after generic(symbol");
  } else {
    O.name = std::string(Tok.text);
    advance();
  }
  if (accept('+')) {
    bool Neg = accept('-');
    if (Tok.kind != TokenKind::Number)
      failExpected("an offset");
    Operand Off = parseNumber(Neg);
    if (Off.kind != Operand::Kind::Immediate)
      fail(Tok, "symbol offset must be an integer");
    O.value = Off.value;
  }
  return O;
}

// regs := .reg [.vN] type name ['<' N '>'] { , name ['<' N '>'] } ;
void Parser::parseRegDecl() {
  Token Start = Tok;
  advance();
  Variable Attr;
  parseVarAttributes(Attr);
  if (Attr.isPtr || Attr.align != 0)
    fail(Start, "unexpected attribute in a .reg declaration");
  do {
    if (Tok.kind != TokenKind::Word)
      failExpected("a register name");
    RegDecl R;
    R.type = Attr.type;
    R.vectorWidth = Attr.vectorWidth;
    Token NameTok = Tok;
    advance();
    if (accept('<')) {
      Token CountTok = Tok;
      uint64_t N = parseUnsigned("a register count");
      if (N == 0)
        fail(CountTok, "register count must be positive");
      if (N > MaxRegisterCount)
        fail(CountTok, "register count " + std::to_string(N) + " is too large (limit " +
                           std::to_string(MaxRegisterCount) + ")");
      R.count = static_cast<uint32_t>(N);
      expect('>', "after a register count");
    }
    R.name = declare(NameTok.text, R.count);
    if (R.name[0] != '%')
      Names.nonPercentRegs = true;
    Cur->regs.push_back(std::move(R));
  } while (accept(','));
  expect(';', "after a .reg declaration");
}

} // namespace ptx::detail
