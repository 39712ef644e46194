// The recursive-descent PTX parser's state, shared by Parser.cpp (module level), ParseBody.cpp
// (function bodies, scopes, blocks) and ParseOperand.cpp (instructions, operands, numbers).
// Internal to the ptx library.
#pragma once

#include "Lexer.h"
#include "ptx/Ir.h"
#include "support/Expected.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ptx::detail {

/// Limits that keep every input linear in time and memory.
constexpr unsigned MaxScopeDepth = 256;         ///< nested `{ }` blocks in a function body
constexpr unsigned MaxInitializerDepth = 32;    ///< nested `{ }` in a variable initializer
constexpr uint32_t MaxRegisterCount = 1u << 24; ///< `%r<N>`

/// Thrown inside the parser only; parseModule turns it into a support::Error.
struct ParseFailure {
  support::Error error;
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view S) const { return std::hash<std::string_view>{}(S); }
};
using NameSet = std::unordered_set<std::string, StringHash, std::equal_to<>>;
template <class V> using NameMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

/// A use to check once the enclosing function or module is complete.
struct PendingRef {
  enum class Kind : uint8_t { Label, TargetList, Callee };
  Kind kind;
  std::string name;
  SourceLoc loc;
};

/// A declaration renamed because its name was taken: uses of `from` (or, for a `%r<N>` range,
/// `from` + index below `count`) in scopes at `depth` or deeper mean `to`.
struct Rename {
  std::string to;
  uint32_t count; ///< 0 for a single name
  size_t depth;   ///< number of open scopes when it was declared
};

/// What one `{ }` scope of a function body declared, undone when it closes.
struct Scope {
  std::vector<std::string> renamedSingles, renamedRanges;   ///< original names
  std::vector<std::string> declaredSingles, declaredRanges; ///< final names
};

/// Names declared so far in the function being parsed.
struct FunctionNames {
  NameSet declared;                ///< single names: registers, params, locals, prototypes
  NameMap<uint32_t> ranges;        ///< `%r<N>` prefix -> N
  NameSet visible;                 ///< the subset of `declared` in open scopes
  NameMap<uint32_t> visibleRanges; ///< the subset of `ranges` in open scopes
  NameMap<uint32_t> nextSuffix;    ///< fresh-name counters per base name
  NameSet labels;
  std::vector<Scope> scopes;                  ///< innermost last; scopes[0] is the body
  NameMap<std::vector<Rename>> singleRenames; ///< original name -> renames, innermost last
  NameMap<std::vector<Rename>> rangeRenames;  ///< original range prefix -> renames
  size_t activeRenames = 0;                   ///< renames in all open scopes
  bool nonPercentRegs = false;                ///< some register is named without a leading %
  std::vector<PendingRef> refs;

  /// Declared anywhere in the function so far (fresh names must avoid these).
  bool isDeclared(std::string_view Name) const { return contains(declared, ranges, Name); }
  /// Declared in a scope that is still open (uses must name one of these).
  bool isVisible(std::string_view Name) const { return contains(visible, visibleRanges, Name); }
  static bool contains(const NameSet &Singles, const NameMap<uint32_t> &Ranges,
                       std::string_view Name);
  void clear();
};

class Parser {
public:
  Parser(std::string_view Text, std::string_view FileName);
  Module parse(); ///< throws ParseFailure

private:
  // --- tokens (Parser.cpp)
  void advance();
  const Token &peek();
  bool accept(char C);
  void expect(char C, std::string_view Context);
  [[noreturn]] void fail(const Token &T, std::string Message) const;
  [[noreturn]] void failExpected(std::string_view What) const;
  SourceLoc loc(const Token &T) const { return {T.line, T.col}; }
  void skipLine(uint32_t Line);
  void skipSection();
  uint64_t parseUnsigned(std::string_view What);

  // --- module level (Parser.cpp)
  void parseTopLevel();
  void parseVersion();
  void parseTarget();
  void parseFunction(Linkage L);
  void parseParamList(std::vector<Variable> &Out);
  void parseFunctionDirectives(Function &F);
  void checkModuleRefs();

  // --- variables (ParseVariable.cpp)
  void parseVarList(std::vector<Variable> &Out, Linkage L, bool InFunction);
  Variable parseVariable(StateSpace Space, Linkage L, const Token &Start);
  void parseVarAttributes(Variable &V);
  void applyVarAttribute(Variable &V, std::string_view C, const Token &T, bool &HasType);
  std::string_view splitSpaceDirective();
  void parseDims(Variable &V);
  void parseInitializer(Variable &V, unsigned Depth);
  Operand parseInitValue();
  void parseRegDecl();
  std::optional<StateSpace> spaceOfDirective(std::string_view D) const;

  // --- function bodies (ParseBody.cpp)
  void parseBody(Function &F, const Token &Open);
  void parseBodyDirective(Function &F);
  void parseLabel(Function &F);
  void parsePrototype(Function &F, std::string Name);
  void parseBranchTargets(Function &F, std::string Name);
  std::string declare(std::string_view Name, uint32_t RangeCount = 0);
  std::string resolve(std::string_view Name) const;
  void popScope();
  void finishFunction(Function &F);
  void checkFunctionRefs(Function &F);
  void markNonPercentRegisters(Function &F);

  // --- instructions and operands (ParseOperand.cpp)
  void parseInstruction(Function &F);
  Operand parseOperand(unsigned Depth);
  Operand parseNameOperand();
  Operand parseAddress(unsigned Depth);
  Operand parseNumber(bool Negative);
  int64_t parseOffset(std::string_view What = "an offset");
  int64_t parseInteger(bool Negative, std::string_view What);
  void recordRefs(const Instruction &I);

  Lexer Lex;
  Token Tok;
  Token Next;
  bool HasNext = false;
  std::string File;
  Module M;
  FunctionNames Names;
  Function *Cur = nullptr;            ///< function whose body is being parsed
  std::vector<SourceLoc> OperandLocs; ///< positions of the current instruction's operands
  std::vector<PendingRef> ModuleRefs; ///< call targets, checked at the end
  /// Attributes written straight after a state space (`.param.u64`, `.reg.v4.u16`): the text
  /// after the space's name, read by the next parseVarAttributes, and the token it came from.
  std::string_view FusedAttrs;
  Token FusedTok;
};

/// The first component of a directive: ".param" for ".param.u64", ".reg" for ".reg".
std::string_view directiveHead(std::string_view D);

/// Whether `C` names a vector component: x, y, z, w or r, g, b, a (`%v.x`, PTX ISA 5.4.2).
bool isVectorComponent(std::string_view C);

/// Whether `S` is a video instruction's operand selector: `b0`..`b3`, `h0`, `h1` (PTX ISA
/// 9.7.17), `hxy` and `bxyzw` element lists and masks (9.7.18), without the dot.
bool isVideoSelector(std::string_view S);

/// Whether `Name` (with its leading %) is a PTX special register such as %tid.x or %envreg3.
bool isSpecialRegister(std::string_view Name);

} // namespace ptx::detail
