// PTX parser, function bodies: declarations, labels, nested `{ }` scopes flattened with fresh
// names for shadowing declarations, basic-block splitting, and the checks of branch targets.
#include "ParserImpl.h"

namespace ptx::detail {
namespace {

bool isDigit(char C) { return C >= '0' && C <= '9'; }

/// `Digits` as a number if it is a canonical decimal (no leading zero) below 2^32.
std::optional<uint32_t> canonicalIndex(std::string_view Digits) {
  if (Digits.empty() || Digits.size() > 10 || (Digits[0] == '0' && Digits.size() > 1))
    return std::nullopt;
  uint64_t N = 0;
  for (char C : Digits)
    N = N * 10 + static_cast<uint64_t>(C - '0');
  if (N > UINT32_MAX)
    return std::nullopt;
  return static_cast<uint32_t>(N);
}

} // namespace

// A name is declared if it was declared as itself or lies in a `prefix<N>` range.
bool FunctionNames::contains(const NameSet &Singles, const NameMap<uint32_t> &Ranges,
                             std::string_view Name) {
  // Ranges first: most uses name a register of a `%r<N>` range.
  size_t B = Name.size();
  while (B > 1 && isDigit(Name[B - 1]))
    --B;
  for (size_t I = B; I < Name.size() && !Ranges.empty(); ++I) {
    auto It = Ranges.find(Name.substr(0, I));
    if (It == Ranges.end())
      continue;
    if (std::optional<uint32_t> N = canonicalIndex(Name.substr(I)); N && *N < It->second)
      return true;
  }
  return Singles.find(Name) != Singles.end();
}

void FunctionNames::clear() {
  declared.clear();
  ranges.clear();
  visible.clear();
  visibleRanges.clear();
  nextSuffix.clear();
  labels.clear();
  scopes.clear();
  singleRenames.clear();
  rangeRenames.clear();
  activeRenames = 0;
  nonPercentRegs = false;
  refs.clear();
}

// body := { statement | '{' body '}' } '}'   (iterative, so nesting depth costs no stack)
void Parser::parseBody(Function &F, const Token &Open) {
  Cur = &F;
  Names.clear();
  F.hasBody = true;
  for (const std::vector<Variable> *List : {&F.returns, &F.params})
    for (const Variable &P : *List) {
      Names.declared.insert(P.name);
      Names.visible.insert(P.name);
      Names.nonPercentRegs |= P.space == StateSpace::Reg && P.name[0] != '%';
    }
  Names.scopes.emplace_back();
  F.blocks.emplace_back();
  std::vector<Token> Opens{Open};
  while (!Opens.empty()) {
    if (Tok.kind == TokenKind::Eof)
      fail(Opens.back(), "unterminated block: '{' has no matching '}'");
    if (Tok.is('}')) {
      popScope();
      Opens.pop_back();
      advance();
    } else if (Tok.is('{')) {
      if (Opens.size() >= MaxScopeDepth)
        fail(Tok, "blocks nested too deeply (limit " + std::to_string(MaxScopeDepth) + ")");
      Opens.push_back(Tok);
      Names.scopes.emplace_back();
      advance();
    } else if (Tok.kind == TokenKind::Directive) {
      parseBodyDirective(F);
    } else if (Tok.kind == TokenKind::Word && peek().is(':')) {
      parseLabel(F);
    } else {
      parseInstruction(F);
    }
  }
  finishFunction(F);
  Cur = nullptr;
}

void Parser::parseBodyDirective(Function &F) {
  std::string_view D = Tok.text;
  if (directiveHead(D) == ".reg")
    return parseRegDecl();
  if (spaceOfDirective(D))
    return parseVarList(F.locals, Linkage::None, /*InFunction=*/true);
  if (D == ".pragma") {
    advance();
    if (Tok.kind != TokenKind::String)
      failExpected("a string after .pragma");
    F.pragmas.emplace_back(Tok.text.substr(1, Tok.text.size() - 2));
    advance();
    return expect(';', "after .pragma");
  }
  if (D == ".loc" || D == ".file")
    return skipLine(Tok.line);
  if (D == ".section")
    return skipSection();
  fail(Tok, "unexpected directive '" + std::string(D) + "' in a function body");
}

// label := name ':'  |  name ':' .callprototype ...  |  name ':' .branchtargets ...
void Parser::parseLabel(Function &F) {
  Token NameTok = Tok;
  advance();
  advance(); // ':'
  if (Tok.text == ".callprototype")
    return parsePrototype(F, declare(NameTok.text));
  if (Tok.text == ".branchtargets")
    return parseBranchTargets(F, declare(NameTok.text));
  std::string Name(NameTok.text);
  if (!Names.labels.insert(Name).second)
    fail(NameTok, "redefinition of label '" + Name + "'");
  BasicBlock &B = F.blocks.back();
  if (B.label.empty() && B.instrs.empty())
    B.label = std::move(Name); // a label after a terminator names the block it started
  else
    F.blocks.push_back(BasicBlock{std::move(Name), {}});
}

// prototype := .callprototype [ '(' params ')' ] '_' [ '(' params ')' ] [.noreturn] ;
void Parser::parsePrototype(Function &F, std::string Name) {
  advance();
  CallPrototype P;
  P.name = std::move(Name);
  if (Tok.is('('))
    parseParamList(P.returns);
  if (Tok.text != "_")
    failExpected("'_' in a .callprototype");
  advance();
  if (Tok.is('('))
    parseParamList(P.params);
  if (Tok.text == ".noreturn") {
    P.noreturn = true;
    advance();
  }
  expect(';', "after a .callprototype");
  F.prototypes.push_back(std::move(P));
}

// targets := .branchtargets label { , label } ;
void Parser::parseBranchTargets(Function &F, std::string Name) {
  advance();
  BranchTargets T;
  T.name = std::move(Name);
  do {
    if (Tok.kind != TokenKind::Word)
      failExpected("a label in .branchtargets");
    T.labels.emplace_back(Tok.text);
    Names.refs.push_back({PendingRef::Kind::Label, T.labels.back(), loc(Tok)});
    advance();
  } while (accept(','));
  expect(';', "after .branchtargets");
  F.branchTargets.push_back(std::move(T));
}

// Declares `Name` in the innermost scope. A name the function already declared gets a fresh
// name `Name$K`; uses inside the scope are renamed by resolve().
std::string Parser::declare(std::string_view Name, uint32_t RangeCount) {
  auto Taken = [&](std::string_view N) {
    if (RangeCount != 0)
      return Names.ranges.count(N) != 0 || Names.declared.count(N) != 0;
    return Names.isDeclared(N);
  };
  std::string Fresh(Name);
  if (Taken(Fresh)) {
    uint32_t &K = Names.nextSuffix[Fresh];
    do
      Fresh = std::string(Name) + "$" + std::to_string(++K);
    while (Taken(Fresh));
    Scope &Inner = Names.scopes.back();
    Rename R{Fresh, RangeCount, Names.scopes.size()};
    if (RangeCount != 0) {
      Names.rangeRenames[std::string(Name)].push_back(std::move(R));
      Inner.renamedRanges.emplace_back(Name);
    } else {
      Names.singleRenames[std::string(Name)].push_back(std::move(R));
      Inner.renamedSingles.emplace_back(Name);
    }
    ++Names.activeRenames;
  }
  Scope &S = Names.scopes.back();
  if (RangeCount != 0) {
    Names.ranges.emplace(Fresh, RangeCount);
    Names.visibleRanges.emplace(Fresh, RangeCount);
    S.declaredRanges.push_back(Fresh);
  } else {
    Names.declared.insert(Fresh);
    Names.visible.insert(Fresh);
    S.declaredSingles.push_back(Fresh);
  }
  return Fresh;
}

// The name a use of `Name` refers to: the innermost renamed declaration, or `Name` itself.
std::string Parser::resolve(std::string_view Name) const {
  if (Names.activeRenames == 0)
    return std::string(Name);
  const Rename *Best = nullptr;
  auto It = Names.singleRenames.find(Name);
  if (It != Names.singleRenames.end() && !It->second.empty())
    Best = &It->second.back();
  std::string_view Index;
  if (!Names.rangeRenames.empty()) {
    size_t B = Name.size();
    while (B > 1 && isDigit(Name[B - 1]))
      --B;
    for (size_t I = B; I < Name.size(); ++I) {
      auto R = Names.rangeRenames.find(Name.substr(0, I));
      if (R == Names.rangeRenames.end() || R->second.empty())
        continue;
      const Rename &Cand = R->second.back();
      std::optional<uint32_t> N = canonicalIndex(Name.substr(I));
      if (N && *N < Cand.count && (!Best || Cand.depth > Best->depth)) {
        Best = &Cand;
        Index = Name.substr(I);
      }
    }
  }
  if (!Best)
    return std::string(Name);
  return Best->count == 0 ? Best->to : Best->to + std::string(Index);
}

void Parser::popScope() {
  Scope &S = Names.scopes.back();
  Names.activeRenames -= S.renamedSingles.size() + S.renamedRanges.size();
  for (const std::string &N : S.renamedSingles)
    Names.singleRenames.find(N)->second.pop_back();
  for (const std::string &N : S.renamedRanges)
    Names.rangeRenames.find(N)->second.pop_back();
  for (const std::string &N : S.declaredSingles)
    Names.visible.erase(N);
  for (const std::string &N : S.declaredRanges)
    Names.visibleRanges.erase(N);
  Names.scopes.pop_back();
}

void Parser::finishFunction(Function &F) {
  if (F.blocks.size() > 1 && F.blocks.back().label.empty() && F.blocks.back().instrs.empty())
    F.blocks.pop_back(); // the block opened after a final terminator
  checkFunctionRefs(F);
  if (Names.nonPercentRegs)
    markNonPercentRegisters(F);
}

void Parser::checkFunctionRefs(Function &F) {
  NameSet Lists, Protos;
  for (const BranchTargets &T : F.branchTargets)
    Lists.insert(T.name);
  for (const CallPrototype &P : F.prototypes)
    Protos.insert(P.name);
  for (PendingRef &R : Names.refs) {
    auto Fail = [&](std::string What) {
      throw ParseFailure{support::Error(File, R.loc.line, R.loc.col, What + " '" + R.name + "'")};
    };
    if (R.kind == PendingRef::Kind::Label && !Names.labels.count(R.name))
      Fail("undefined label");
    if (R.kind == PendingRef::Kind::TargetList && !Lists.count(R.name))
      Fail("undefined branch target list");
    // A callee that is a function of the module is checked at the end; one named like a
    // declaration of the function is a register without a % (an indirect call).
    if (R.kind == PendingRef::Kind::Callee && !Protos.count(R.name) && !Names.isDeclared(R.name))
      ModuleRefs.push_back(std::move(R));
  }
}

// Registers named without a leading % parse as symbols; once every declaration of the function
// is known, symbols that name a register become registers.
void Parser::markNonPercentRegisters(Function &F) {
  FunctionNames Regs;
  for (const RegDecl &R : F.regs) {
    if (R.count != 0)
      Regs.ranges.emplace(R.name, R.count);
    else
      Regs.declared.insert(R.name);
  }
  for (const std::vector<Variable> *List : {&F.returns, &F.params})
    for (const Variable &P : *List)
      if (P.space == StateSpace::Reg)
        Regs.declared.insert(P.name);
  auto IsRegister = [&](std::string_view Name) { // itself, a component or a video selector
    size_t Dot = Name.rfind('.');
    std::string_view Suffix = Dot == Name.npos ? "" : Name.substr(Dot + 1);
    return Regs.isDeclared(Name) ||
           (Dot != Name.npos && (isVectorComponent(Suffix) || isVideoSelector(Suffix)) &&
            Regs.isDeclared(Name.substr(0, Dot)));
  };
  auto Mark = [&](auto &Self, Operand &O) -> void {
    if (O.kind == Operand::Kind::Symbol && IsRegister(O.name))
      O.kind = Operand::Kind::Register;
    for (Operand &E : O.elems)
      Self(Self, E);
  };
  for (BasicBlock &B : F.blocks)
    for (Instruction &I : B.instrs)
      for (Operand &O : I.operands)
        Mark(Mark, O);
}

} // namespace ptx::detail
