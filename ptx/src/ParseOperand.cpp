// PTX parser: instructions (guard, opcode, modifiers, operands), operand forms and numeric
// literals (decimal, hex, octal, binary, 0f/0d floats, decimal floats).
#include "ParserImpl.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace ptx::detail {
namespace {

int digitValue(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  if (C >= 'A' && C <= 'F')
    return C - 'A' + 10;
  return 99;
}

enum class NumberStatus { Ok, Invalid, Overflow };

/// Digits of `S` in base `Base` into `Out`; no digits, a bad digit or overflow is an error.
NumberStatus parseDigits(std::string_view S, unsigned Base, uint64_t &Out) {
  if (S.empty())
    return NumberStatus::Invalid;
  uint64_t V = 0;
  for (char C : S) {
    auto D = static_cast<unsigned>(digitValue(C));
    if (D >= Base)
      return NumberStatus::Invalid;
    if (V > (UINT64_MAX - D) / Base)
      return NumberStatus::Overflow;
    V = V * Base + D;
  }
  Out = V;
  return NumberStatus::Ok;
}

bool isTerminatorOp(Opcode Op) {
  return Op == Opcode::Bra || Op == Opcode::Brx || Op == Opcode::Call || Op == Opcode::Ret ||
         Op == Opcode::Exit || Op == Opcode::Trap;
}

} // namespace

bool isVectorComponent(std::string_view C) {
  return C.size() == 1 && std::string_view("xyzwrgba").find(C[0]) != std::string_view::npos;
}

bool isVideoSelector(std::string_view S) {
  if (S.size() < 2 || S.size() > 5 || (S[0] != 'b' && S[0] != 'h'))
    return false;
  const char Max = S[0] == 'b' ? '7' : '3';
  return std::all_of(S.begin() + 1, S.end(), [&](char C) { return C >= '0' && C <= Max; });
}

bool isSpecialRegister(std::string_view Name) {
  static constexpr std::string_view Xyz[] = {"%tid",           "%ntid",          "%ctaid",
                                             "%nctaid",        "%clusterid",     "%nclusterid",
                                             "%cluster_ctaid", "%cluster_nctaid"};
  static constexpr std::string_view Plain[] = {"%laneid",
                                               "%warpid",
                                               "%nwarpid",
                                               "%smid",
                                               "%nsmid",
                                               "%gridid",
                                               "%lanemask_eq",
                                               "%lanemask_le",
                                               "%lanemask_lt",
                                               "%lanemask_ge",
                                               "%lanemask_gt",
                                               "%clock",
                                               "%clock64",
                                               "%clock_hi",
                                               "%globaltimer",
                                               "%globaltimer_lo",
                                               "%globaltimer_hi",
                                               "%dynamic_smem_size",
                                               "%total_smem_size",
                                               "%aggr_smem_size",
                                               "%cluster_ctarank",
                                               "%cluster_nctarank",
                                               "%is_explicit_cluster",
                                               "%current_graph_exec",
                                               "%reserved_smem_offset_begin",
                                               "%reserved_smem_offset_end",
                                               "%reserved_smem_offset_cap",
                                               "%reserved_smem_offset_0",
                                               "%reserved_smem_offset_1"};
  size_t Dot = Name.find('.');
  std::string_view Base = Name.substr(0, Dot);
  if (Dot != Name.npos) {
    std::string_view C = Name.substr(Dot + 1);
    if (C != "x" && C != "y" && C != "z")
      return false;
  }
  for (std::string_view S : Xyz)
    if (Base == S)
      return true;
  if (Dot != Name.npos)
    return false;
  for (std::string_view S : Plain)
    if (Base == S)
      return true;
  for (std::string_view P : {std::string_view("%envreg"), std::string_view("%pm")}) {
    std::string_view Rest = Base.substr(0, P.size()) == P ? Base.substr(P.size()) : "";
    if (Rest.size() > 3 && Rest.substr(Rest.size() - 3) == "_64")
      Rest.remove_suffix(3);
    if (!Rest.empty() && Rest.size() <= 2 && Rest.find_first_not_of("0123456789") == Rest.npos)
      return true;
  }
  return false;
}

// instruction := [ '@' ['!'] pred ] opcode{.modifier} [ operand { , operand } ] ;
void Parser::parseInstruction(Function &F) {
  Instruction I;
  I.loc = loc(Tok);
  if (accept('@')) {
    bool Neg = accept('!');
    if (Tok.kind != TokenKind::Word)
      failExpected("a predicate register after '@'");
    if (Tok.text == "_")
      fail(Tok, "'_' cannot be a guard predicate");
    Operand P = parseNameOperand();
    I.guard = Guard{std::move(P.name), Neg};
  }
  if (Tok.kind != TokenKind::Word)
    failExpected("an instruction");
  std::string_view Name = Tok.text;
  size_t Dot = Name.find('.');
  std::optional<Opcode> Op = lookupOpcode(Name.substr(0, Dot));
  if (!Op)
    fail(Tok, "unknown opcode '" + std::string(Name.substr(0, Dot)) + "'");
  I.opcode = *Op;
  I.modifiers.reserve(static_cast<size_t>(std::count(Name.begin(), Name.end(), '.')));
  while (Dot != Name.npos) {
    size_t End = Name.find('.', Dot + 1);
    I.modifiers.emplace_back(Name.substr(Dot + 1, End - Dot - 1));
    Dot = End;
  }
  advance();
  OperandLocs.clear();
  if (!Tok.is(';')) {
    I.operands.reserve(4);
    do {
      OperandLocs.push_back(loc(Tok));
      I.operands.push_back(parseOperand(0));
    } while (accept(','));
  }
  expect(';', "after an instruction");
  I.cls = classify(I.opcode, I.modifiers);
  recordRefs(I);
  bool Ends = isTerminatorOp(I.opcode);
  F.blocks.back().instrs.push_back(std::move(I));
  if (Ends)
    F.blocks.emplace_back();
}

// operand := name ['|' name] | name ('+' ['-'] | '-') N | '!' name | '-' name | ['-'] number
//          | '[' address ']' | '{' operands '}' | '(' [operands] ')'
Operand Parser::parseOperand(unsigned Depth) {
  if (Depth > 2 && (Tok.is('{') || Tok.is('[') || Tok.is('(')))
    fail(Tok, "operands nested too deeply");
  if (Tok.is('[')) {
    return parseAddress(Depth);
  }
  if (Tok.is('{') || Tok.is('(')) {
    char Close = Tok.is('{') ? '}' : ')';
    Operand O;
    O.kind = Close == '}' ? Operand::Kind::Vector : Operand::Kind::List;
    advance();
    if (!Tok.is(Close) || Close == '}') {
      do
        O.elems.push_back(parseOperand(Depth + 1));
      while (accept(','));
    }
    expect(Close, Close == '}' ? "to close a vector operand" : "to close an operand list");
    return O;
  }
  if (accept('!')) {
    if (Tok.kind != TokenKind::Word)
      failExpected("a predicate after '!'");
    Operand O = parseNameOperand();
    O.negated = true;
    return O;
  }
  if (accept('-')) {
    if (Tok.kind == TokenKind::Word && Tok.text != "_") { // `-%r1`: vmad's negated operands
      Operand O = parseNameOperand();
      O.minus = true;
      return O;
    }
    if (Tok.kind != TokenKind::Number)
      failExpected("a number after '-'");
    return parseNumber(true);
  }
  if (Tok.kind == TokenKind::Number)
    return parseNumber(false);
  if (Tok.kind != TokenKind::Word)
    failExpected("an operand");
  Operand O = parseNameOperand();
  if (O.kind != Operand::Kind::Sink && (Tok.is('+') || Tok.is('-'))) {
    // `sym+4`, `%rd1+8`, `sym-4`: an address computed from a symbol or register (in `mov`).
    O.value = parseOffset();
    return O;
  }
  if (accept('|')) {
    if (Tok.kind != TokenKind::Word)
      failExpected("a predicate after '|'");
    Operand Second = parseNameOperand();
    Operand Pair;
    Pair.kind = Operand::Kind::PredPair;
    Pair.elems = {std::move(O), std::move(Second)};
    return Pair;
  }
  return O;
}

// A register (checked to be declared), the sink `_`, or a symbol.
Operand Parser::parseNameOperand() {
  Operand O;
  if (Tok.text == "_") {
    O.kind = Operand::Kind::Sink;
    advance();
    return O;
  }
  O.name = resolve(Tok.text);
  O.kind = Operand::Kind::Symbol;
  if (O.name[0] == '%') {
    O.kind = Operand::Kind::Register;
    if (!Names.isVisible(O.name) && !isSpecialRegister(O.name)) {
      // `%v.x`: a component of a declared vector register; `%r.b0`, `%r.h10`: a video
      // instruction's byte or half-word selector.
      size_t Dot = O.name.rfind('.');
      std::string_view Suffix = Dot == std::string::npos ? "" : std::string_view(O.name).substr(Dot + 1);
      if (Dot == std::string::npos || !Names.isVisible(std::string_view(O.name).substr(0, Dot)) ||
          (!isVectorComponent(Suffix) && !isVideoSelector(Suffix)))
        fail(Tok, "undeclared register '" + O.name + "'");
    }
  }
  advance();
  return O;
}

// address := '[' ( name [ ('+' ['-'] | '-') N ] | ['-'] N ) { , operand } ']'
Operand Parser::parseAddress(unsigned Depth) {
  advance(); // '['
  Operand O;
  O.kind = Operand::Kind::Address;
  if (Tok.kind == TokenKind::Word) {
    Operand Base = parseNameOperand();
    if (Base.kind == Operand::Kind::Sink)
      fail(Tok, "'_' cannot be an address");
    O.name = std::move(Base.name);
    if (Tok.is('+') || Tok.is('-'))
      O.value = parseOffset("an address offset");
  } else {
    O.value = parseInteger(accept('-'), "an address offset");
  }
  while (accept(','))
    O.elems.push_back(parseOperand(Depth + 1));
  expect(']', "to close an address");
  return O;
}

// offset := ('+' ['-'] | '-') integer     (after a symbol or register)
int64_t Parser::parseOffset(std::string_view What) {
  bool Neg = Tok.is('-');
  advance();
  if (accept('-'))
    Neg = !Neg;
  return parseInteger(Neg, What);
}

// An integer literal (negated when `Negative`), e.g. an offset; floats are an error.
int64_t Parser::parseInteger(bool Negative, std::string_view What) {
  if (Tok.kind != TokenKind::Number)
    failExpected(What);
  Token T = Tok;
  Operand N = parseNumber(Negative);
  if (N.kind != Operand::Kind::Immediate)
    fail(T, std::string(What.substr(What.find(' ') + 1)) + " must be an integer");
  return N.value;
}

// number := decimal | 0x hex | 0b binary | 0 octal  (each with an optional U suffix)
//         | 0f 8-hex-digit float | 0d 16-hex-digit double | decimal float (-> F64Imm)
Operand Parser::parseNumber(bool Negative) {
  std::string_view T = Tok.text;
  Operand O;
  auto Bad = [&](NumberStatus S) {
    if (S == NumberStatus::Overflow)
      fail(Tok, "integer literal '" + std::string(T) + "' does not fit in 64 bits");
    fail(Tok, "invalid number '" + std::string(T) + "'");
  };
  char P = T.size() > 1 && T[0] == '0' ? static_cast<char>(T[1] | 0x20) : 0;
  uint64_t Bits = 0;
  if (P == 'f' || P == 'd') {
    size_t Width = P == 'f' ? 8 : 16;
    if (T.size() != Width + 2 || parseDigits(T.substr(2), 16, Bits) != NumberStatus::Ok)
      Bad(NumberStatus::Invalid);
    O.kind = P == 'f' ? Operand::Kind::F32Imm : Operand::Kind::F64Imm;
    if (Negative)
      Bits ^= P == 'f' ? 0x80000000ull : 0x8000000000000000ull;
    O.value = static_cast<int64_t>(Bits);
  } else if (P != 'x' && P != 'b' && T.find_first_of(".eE") != T.npos) {
    double D = 0;
    auto [End, Ec] = std::from_chars(T.data(), T.data() + T.size(), D);
    if (Ec != std::errc() || End != T.data() + T.size())
      Bad(NumberStatus::Invalid);
    D = Negative ? -D : D;
    std::memcpy(&Bits, &D, sizeof Bits);
    O.kind = Operand::Kind::F64Imm;
    O.value = static_cast<int64_t>(Bits);
  } else {
    std::string_view Digits = T;
    if (Digits.back() == 'U' || Digits.back() == 'u')
      Digits.remove_suffix(1);
    unsigned Base = P == 'x' ? 16 : P == 'b' ? 2 : Digits.size() > 1 && Digits[0] == '0' ? 8 : 10;
    if (Base == 16 || Base == 2)
      Digits.remove_prefix(2);
    else if (Base == 8)
      Digits.remove_prefix(1);
    if (NumberStatus S = parseDigits(Digits, Base, Bits); S != NumberStatus::Ok)
      Bad(S);
    O.kind = Operand::Kind::Immediate;
    O.value = static_cast<int64_t>(Negative ? 0 - Bits : Bits);
  }
  advance();
  return O;
}

// Branch and call targets, checked once the function (or module) is complete.
void Parser::recordRefs(const Instruction &I) {
  PendingRef::Kind K;
  if (I.opcode == Opcode::Bra)
    K = PendingRef::Kind::Label;
  else if (I.opcode == Opcode::Brx)
    K = PendingRef::Kind::TargetList;
  else if (I.opcode == Opcode::Call)
    K = PendingRef::Kind::Callee;
  else
    return;
  for (size_t Idx = 0; Idx < I.operands.size(); ++Idx)
    if (I.operands[Idx].kind == Operand::Kind::Symbol)
      Names.refs.push_back({K, I.operands[Idx].name, OperandLocs[Idx]});
}

} // namespace ptx::detail
