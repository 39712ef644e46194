// PTX parser: variable, parameter and register declarations (attributes, array dimensions,
// initializers with nested braces, symbols and generic(sym)).
#include "ParserImpl.h"

namespace ptx::detail {

std::string_view directiveHead(std::string_view D) {
  size_t Dot = D.find('.', 1);
  return Dot == D.npos ? D : D.substr(0, Dot);
}

std::optional<StateSpace> Parser::spaceOfDirective(std::string_view D) const {
  D = directiveHead(D);
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

// A state-space directive with attributes fused to it (`.param.u64`, `.reg.v4.u16`, as ptxas
// accepts): consumes the token and keeps the attributes for parseVarAttributes. Returns the
// space's name (".param").
std::string_view Parser::splitSpaceDirective() {
  std::string_view Head = directiveHead(Tok.text);
  FusedAttrs = Tok.text.substr(Head.size());
  FusedTok = Tok;
  advance();
  return Head;
}

// variables := space attributes name dims [= init] { , name dims [= init] } ;
// Names declared in a function body may be renamed (see Parser::declare).
void Parser::parseVarList(std::vector<Variable> &Out, Linkage L, bool InFunction) {
  Token Start = Tok;
  StateSpace Space = *spaceOfDirective(splitSpaceDirective());
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
// A directive may fuse several (`.u64.ptr`), and so may the state space before them.
void Parser::parseVarAttributes(Variable &V) {
  bool HasType = false;
  auto Components = [&](std::string_view Text, const Token &T) {
    while (!Text.empty()) {
      size_t Dot = Text.find('.');
      std::string_view C = Text.substr(0, Dot);
      Text = Dot == Text.npos ? std::string_view() : Text.substr(Dot + 1);
      applyVarAttribute(V, C, T, HasType);
    }
  };
  if (!FusedAttrs.empty()) {
    std::string_view Fused = FusedAttrs.substr(1);
    FusedAttrs = {};
    Components(Fused, FusedTok);
  }
  while (Tok.kind == TokenKind::Directive) {
    Token T = Tok;
    advance();
    Components(T.text.substr(1), T);
  }
  if (!HasType)
    failExpected("a type in the declaration");
}

void Parser::applyVarAttribute(Variable &V, std::string_view C, const Token &T, bool &HasType) {
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
  if (Tok.is('+'))
    O.value = parseOffset();
  return O;
}

// regs := .reg [.vN] type name ['<' N '>'] { , name ['<' N '>'] } ;
void Parser::parseRegDecl() {
  Token Start = Tok;
  splitSpaceDirective();
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
