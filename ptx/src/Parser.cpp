// PTX parser, module level: tokens, .version/.target/.address_size, debug directives, module
// variables and function headers. Bodies: ParseBody.cpp; operands: ParseOperand.cpp.
#include "ptx/Parser.h"

#include "ParserImpl.h"

#include <fstream>
#include <sstream>

namespace ptx {
namespace detail {

Parser::Parser(std::string_view Text, std::string_view FileName) : Lex(Text), File(FileName) {
  M.file = File;
  advance();
}

void Parser::advance() {
  if (HasNext) {
    Tok = Next;
    HasNext = false;
  } else {
    Tok = Lex.next();
  }
  if (Tok.kind == TokenKind::Error) {
    if (Lex.errorMessage() == "unexpected character") {
      char C = Tok.text.empty() ? '?' : Tok.text[0];
      if (C >= 0x20 && C < 0x7f)
        fail(Tok, "unexpected character '" + std::string(1, C) + "'");
      fail(Tok, "unexpected character (byte " + std::to_string(static_cast<uint8_t>(C)) + ")");
    }
    fail(Tok, std::string(Lex.errorMessage()));
  }
}

const Token &Parser::peek() {
  if (!HasNext) {
    Next = Lex.next();
    HasNext = true;
  }
  return Next;
}

bool Parser::accept(char C) {
  if (!Tok.is(C))
    return false;
  advance();
  return true;
}

void Parser::expect(char C, std::string_view Context) {
  if (!Tok.is(C)) {
    std::string What = "' ";
    What.insert(What.begin(), C);
    What.insert(What.begin(), '\'');
    failExpected(What.append(Context));
  }
  advance();
}

void Parser::fail(const Token &T, std::string Message) const {
  throw ParseFailure{support::Error(File, T.line, T.col, std::move(Message))};
}

void Parser::failExpected(std::string_view What) const {
  std::string Found =
      Tok.kind == TokenKind::Eof ? "end of file" : "'" + std::string(Tok.text) + "'";
  fail(Tok, "expected " + std::string(What) + ", found " + Found);
}

// Skips the rest of a one-line directive (.file, .loc).
void Parser::skipLine(uint32_t Line) {
  while (Tok.kind != TokenKind::Eof && Tok.line == Line)
    advance();
}

// section := .section name [ '{' anything-with-balanced-braces '}' ]
void Parser::skipSection() {
  uint32_t Line = Tok.line;
  advance(); // .section
  while (Tok.kind != TokenKind::Eof && Tok.line == Line && !Tok.is('{'))
    advance();
  if (!Tok.is('{'))
    return;
  Token Open = Tok;
  size_t Depth = 0;
  do {
    if (Tok.kind == TokenKind::Eof)
      fail(Open, "unterminated block: '{' has no matching '}'");
    Depth += Tok.is('{');
    Depth -= Tok.is('}');
    advance();
  } while (Depth > 0);
}

uint64_t Parser::parseUnsigned(std::string_view What) {
  if (Tok.kind != TokenKind::Number)
    failExpected(What);
  Token T = Tok;
  Operand O = parseNumber(false);
  if (O.kind != Operand::Kind::Immediate || O.value < 0)
    fail(T, "expected " + std::string(What) + ", found '" + std::string(T.text) + "'");
  return static_cast<uint64_t>(O.value);
}

// module := { .version | .target | .address_size | .file | .section | .pragma | declaration }
Module Parser::parse() {
  while (Tok.kind != TokenKind::Eof)
    parseTopLevel();
  checkModuleRefs();
  return std::move(M);
}

void Parser::parseTopLevel() {
  if (Tok.kind != TokenKind::Directive)
    failExpected("a directive");
  std::string_view D = Tok.text;
  if (D == ".version")
    return parseVersion();
  if (D == ".target")
    return parseTarget();
  if (D == ".address_size") {
    advance();
    Token SizeTok = Tok;
    uint64_t Size = parseUnsigned("an address size");
    if (Size != 32 && Size != 64)
      fail(SizeTok, "address size must be 32 or 64");
    M.addressSize = static_cast<uint32_t>(Size);
    return;
  }
  if (D == ".file" || D == ".loc")
    return skipLine(Tok.line);
  if (D == ".section")
    return skipSection();
  if (D == ".pragma") {
    advance();
    if (Tok.kind != TokenKind::String)
      failExpected("a string after .pragma");
    M.pragmas.emplace_back(Tok.text.substr(1, Tok.text.size() - 2));
    advance();
    return expect(';', "after .pragma");
  }
  Linkage L = Linkage::None;
  if (D == ".visible" || D == ".extern" || D == ".weak" || D == ".common") {
    L = D == ".visible"  ? Linkage::Visible
        : D == ".extern" ? Linkage::Extern
        : D == ".weak"   ? Linkage::Weak
                         : Linkage::Common;
    advance();
  }
  if (Tok.text == ".entry" || Tok.text == ".func")
    return parseFunction(L);
  if (Tok.kind == TokenKind::Directive && spaceOfDirective(Tok.text))
    return parseVarList(M.globals, L, /*InFunction=*/false);
  fail(Tok, "unknown directive '" + std::string(Tok.text) + "'");
}

// version := .version MAJOR.MINOR
void Parser::parseVersion() {
  advance();
  std::string_view T = Tok.text;
  size_t Dot = T.find('.');
  auto Digits = [](std::string_view S) {
    return !S.empty() && S.size() <= 4 && S.find_first_not_of("0123456789") == S.npos;
  };
  if (Tok.kind != TokenKind::Number || Dot == T.npos || !Digits(T.substr(0, Dot)) ||
      !Digits(T.substr(Dot + 1)))
    failExpected("a version number like 9.0");
  M.versionMajor = static_cast<uint32_t>(std::stoul(std::string(T.substr(0, Dot))));
  M.versionMinor = static_cast<uint32_t>(std::stoul(std::string(T.substr(Dot + 1))));
  advance();
}

// target := .target name { , name }
void Parser::parseTarget() {
  advance();
  do {
    if (Tok.kind != TokenKind::Word)
      failExpected("a target name");
    M.targets.emplace_back(Tok.text);
    advance();
  } while (accept(','));
}

// function := (.entry | .func) [ '(' params ')' ] name [ '(' params ')' ] directives (';' | body)
void Parser::parseFunction(Linkage L) {
  Function F;
  F.isEntry = Tok.text == ".entry";
  F.linkage = L;
  F.loc = loc(Tok);
  advance();
  if (!F.isEntry && Tok.is('('))
    parseParamList(F.returns);
  if (Tok.kind != TokenKind::Word)
    failExpected("a function name");
  F.name = std::string(Tok.text);
  advance();
  if (Tok.is('('))
    parseParamList(F.params);
  parseFunctionDirectives(F);
  if (accept(';')) {
    M.functions.push_back(std::move(F));
    return;
  }
  if (!Tok.is('{'))
    failExpected("'{' or ';' after the function header");
  // A declaration may precede the definition; a second body is ptxas' "duplicate definition",
  // and which one a launch ran would be a guess.
  for (const Function &Earlier : M.functions)
    if (Earlier.hasBody && Earlier.name == F.name)
      fail(Tok, "function '" + F.name + "' is defined twice (first at line " +
                    std::to_string(Earlier.loc.line) + ")");
  M.functions.push_back(std::move(F));
  Token Open = Tok;
  advance();
  parseBody(M.functions.back(), Open);
}

// params := '(' [ param { , param } ] ')'     param := (.param | .reg) attributes name [dims]
void Parser::parseParamList(std::vector<Variable> &Out) {
  expect('(', "to open a parameter list");
  if (accept(')'))
    return;
  do {
    Token Start = Tok;
    std::string_view Head = Tok.kind == TokenKind::Directive ? directiveHead(Tok.text) : "";
    if (Head != ".param" && Head != ".reg")
      failExpected("'.param' or '.reg'");
    StateSpace Space = Head == ".param" ? StateSpace::Param : StateSpace::Reg;
    splitSpaceDirective();
    Variable V = parseVariable(Space, Linkage::None, Start);
    if (!V.init.empty())
      fail(Start, "a parameter cannot have an initializer");
    Out.push_back(std::move(V));
  } while (accept(','));
  expect(')', "to close the parameter list");
}

// directives := { .maxntid N{,N} | .reqntid N{,N} | .minnctapersm N | .maxnreg N | .noreturn
//                 | .explicitcluster | .reqnctapercluster N{,N} | .maxclusterrank N | ... }
void Parser::parseFunctionDirectives(Function &F) {
  while (Tok.kind == TokenKind::Directive) {
    if (Tok.text == ".pragma") {
      advance();
      if (Tok.kind != TokenKind::String)
        failExpected("a string after .pragma");
      F.pragmas.emplace_back(Tok.text.substr(1, Tok.text.size() - 2));
      advance();
      expect(';', "after .pragma");
      continue;
    }
    FunctionDirective D;
    D.name = std::string(Tok.text.substr(1));
    advance();
    if (Tok.kind == TokenKind::Number) {
      do {
        Token ValueTok = Tok;
        uint64_t V = parseUnsigned("a directive value");
        if (V > UINT32_MAX)
          fail(ValueTok, "directive value out of range");
        D.values.push_back(static_cast<uint32_t>(V));
      } while (accept(','));
    }
    F.directives.push_back(std::move(D));
  }
}

void Parser::checkModuleRefs() {
  NameSet Functions;
  for (const Function &F : M.functions)
    Functions.insert(F.name);
  for (const PendingRef &R : ModuleRefs)
    if (!Functions.count(R.name))
      throw ParseFailure{
          support::Error(File, R.loc.line, R.loc.col, "undefined function '" + R.name + "'")};
}

} // namespace detail

support::Expected<Module> parseModule(std::string_view Text, std::string_view FileName) {
  try {
    detail::Parser P(Text, FileName);
    return P.parse();
  } catch (detail::ParseFailure &F) {
    return std::move(F.error);
  }
}

support::Expected<Module> parseFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return support::Error(Path, 0, 0, "cannot open file");
  std::ostringstream SS;
  SS << In.rdbuf();
  return parseModule(SS.str(), Path);
}

} // namespace ptx
