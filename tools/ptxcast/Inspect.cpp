// `ptxcast inspect FILE.ptx [--format text|json]`: what each function of a PTX module contains
// (parameters, registers, blocks, loops, static instruction counts per class; for kernels the
// estimated registers per thread and static shared memory).
#include "Commands.h"

#include "analyzer/Program.h"

#include "ptx/Cfg.h"
#include "ptx/Parser.h"
#include "ptx/Resources.h"
#include "ptx/Stats.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace ptxcast {
namespace {

struct InspectOptions {
  std::string file;
  std::string format = "text";
};

/// The facts inspect reports about one function with a body.
struct FunctionSummary {
  const ptx::Function *fn = nullptr;
  uint64_t registers = 0;
  size_t blocks = 0;
  size_t loops = 0;
  uint32_t maxLoopDepth = 0;
  ptx::ClassCounts counts{};
  uint64_t total = 0;
  ptx::KernelResources resources; ///< kernels only
  /// Kernels only: what the interpreter cannot execute (`file:line:col: error: ...`), or why
  /// the module does not decode.
  std::vector<std::string> unsupported;
};

FunctionSummary summarize(const ptx::Module &M, const ptx::Function &F,
                          const support::Expected<analyzer::Program> &P) {
  FunctionSummary S;
  S.fn = &F;
  if (F.isEntry) {
    S.resources = ptx::estimateResources(M, F);
    if (!P)
      S.unsupported.push_back(P.error().str());
    else
      for (const support::Error &E : P->unsupported(F.name))
        S.unsupported.push_back(E.str());
  }
  S.registers = ptx::declaredRegisters(F);
  S.blocks = F.blocks.size();
  ptx::Cfg C = ptx::buildCfg(F);
  S.loops = C.loops.size();
  for (const ptx::Cfg::Loop &L : C.loops)
    S.maxLoopDepth = std::max(S.maxLoopDepth, L.depth);
  S.counts = ptx::staticCounts(F);
  for (const ptx::BasicBlock &B : F.blocks)
    S.total += B.instrs.size();
  return S;
}

/// A parameter's type as PTX writes it: `u64`, `v4.f32`, `b8[16]`.
std::string paramType(const ptx::Variable &V) {
  std::string T;
  if (V.vectorWidth > 1)
    T = fmt::format("v{}.", V.vectorWidth);
  T += ptx::typeName(V.type);
  for (uint64_t D : V.dims)
    T += D == 0 ? std::string("[]") : fmt::format("[{}]", D);
  return T;
}

/// How a function reads an array parameter (a struct passed by value): the distinct
/// (offset, type) of its `ld.param` loads, in offset order, so a manifest's `{"struct": [...]}`
/// can be written to match. `addressTaken` when the parameter's address goes to a register
/// (its fields are then read through it and not listed).
struct ParamReads {
  std::vector<std::pair<int64_t, std::string>> fields;
  bool addressTaken = false;
};

ParamReads paramReads(const ptx::Function &F, const std::string &Param) {
  ParamReads R;
  for (const ptx::BasicBlock &B : F.blocks)
    for (const ptx::Instruction &I : B.instrs)
      for (size_t K = 0; K < I.operands.size(); ++K) {
        const ptx::Operand &O = I.operands[K];
        if (O.name != Param)
          continue;
        if (I.opcode == ptx::Opcode::Ld && I.space() == ptx::StateSpace::Param &&
            O.kind == ptx::Operand::Kind::Address) {
          std::string T(ptx::typeName(I.type()));
          if (I.vectorWidth() > 1)
            T = fmt::format("v{}.{}", I.vectorWidth(), T);
          R.fields.emplace_back(O.value, T);
        } else {
          R.addressTaken = true;
        }
      }
  std::sort(R.fields.begin(), R.fields.end());
  R.fields.erase(std::unique(R.fields.begin(), R.fields.end()), R.fields.end());
  return R;
}

std::string readsText(const ParamReads &R) {
  std::string S;
  for (const auto &[Offset, Type] : R.fields)
    S += fmt::format("{}+{} {}", S.empty() ? "" : ", ", Offset, Type);
  if (R.addressTaken)
    S += std::string(S.empty() ? "" : "; ") + "address taken";
  return S.empty() ? "nothing" : S;
}

ptx::InstrClass classAt(size_t I) { return static_cast<ptx::InstrClass>(I); }

nlohmann::ordered_json toJson(const FunctionSummary &S) {
  nlohmann::ordered_json Params = nlohmann::ordered_json::array();
  for (const ptx::Variable &P : S.fn->params) {
    nlohmann::ordered_json J = {{"name", P.name}, {"type", paramType(P)}, {"size", P.sizeBytes()}};
    if (!P.dims.empty()) {
      ParamReads R = paramReads(*S.fn, P.name);
      J["reads"] = nlohmann::ordered_json::array();
      for (const auto &[Offset, Type] : R.fields)
        J["reads"].push_back({{"offset", Offset}, {"type", Type}});
      J["address_taken"] = R.addressTaken;
    }
    Params.push_back(std::move(J));
  }
  nlohmann::ordered_json Counts = nlohmann::ordered_json::object();
  for (size_t I = 0; I < ptx::NumInstrClasses; ++I)
    Counts[std::string(ptx::className(classAt(I)))] = S.counts[I];
  Counts["total"] = S.total;
  nlohmann::ordered_json J = {{"name", S.fn->name},
                              {"entry", S.fn->isEntry},
                              {"params", Params},
                              {"registers", S.registers}};
  if (S.fn->isEntry) {
    J["estimated_registers_per_thread"] = S.resources.registers;
    J["static_shared_bytes"] = S.resources.staticSharedBytes;
    J["interpreter_unsupported"] = S.unsupported;
  }
  J.update({{"blocks", S.blocks},
            {"loops", S.loops},
            {"max_loop_depth", S.maxLoopDepth},
            {"static_counts", Counts}});
  return J;
}

void printText(const ptx::Module &M, const std::vector<FunctionSummary> &Summaries) {
  fmt::print("{}: PTX {}.{}, target {}, {} function(s) with a body\n", M.file, M.versionMajor,
             M.versionMinor, M.targets.empty() ? std::string("?") : M.targets[0], Summaries.size());
  for (const FunctionSummary &S : Summaries) {
    const ptx::Function &F = *S.fn;
    fmt::print("\n{} ({})\n", F.name, F.isEntry ? ".entry" : ".func");
    fmt::print("  {:<16}{}\n", "parameters", F.params.size());
    for (const ptx::Variable &P : F.params) {
      fmt::print("    {:<40} {:<10} {:>4} B\n", P.name, paramType(P), P.sizeBytes());
      if (!P.dims.empty()) // a struct passed by value: where the function reads it
        fmt::print("      reads {}\n", readsText(paramReads(F, P.name)));
    }
    fmt::print("  {:<16}{}\n", "registers", S.registers);
    if (F.isEntry) {
      fmt::print("  {:<16}{} per thread (estimate), {} B static shared\n", "resources",
                 S.resources.registers, S.resources.staticSharedBytes);
      fmt::print("  {:<16}{}\n", "interpreter",
                 S.unsupported.empty()
                     ? std::string("runs it")
                     : fmt::format("cannot run it ({} instruction(s)):", S.unsupported.size()));
      for (size_t I = 0; I < std::min<size_t>(S.unsupported.size(), 5); ++I)
        fmt::print("    {}\n", S.unsupported[I]);
    }
    fmt::print("  {:<16}{}\n", "basic blocks", S.blocks);
    fmt::print("  {:<16}{} (max depth {})\n", "loops", S.loops, S.maxLoopDepth);
    fmt::print("  static instructions per class (zero classes omitted):\n");
    for (size_t I = 0; I < ptx::NumInstrClasses; ++I)
      if (S.counts[I] != 0)
        fmt::print("    {:<12}{:>6}  {}\n", ptx::className(classAt(I)), S.counts[I],
                   ptx::classDescription(classAt(I)));
    fmt::print("    {:<12}{:>6}\n", "total", S.total);
  }
}

/// Runs the command; returns the process exit status.
int runInspect(const InspectOptions &Opts) {
  support::Expected<ptx::Module> M = ptx::parseFile(Opts.file);
  if (!M) {
    fmt::print(stderr, "{}\n", M.error().str());
    return 1;
  }
  const support::Expected<analyzer::Program> P = analyzer::decodeProgram(*M);
  std::vector<FunctionSummary> Summaries;
  for (const ptx::Function &F : M->functions)
    if (F.hasBody)
      Summaries.push_back(summarize(*M, F, P));
  if (Opts.format == "json") {
    nlohmann::ordered_json Kernels = nlohmann::ordered_json::array();
    for (const FunctionSummary &S : Summaries)
      Kernels.push_back(toJson(S));
    nlohmann::ordered_json Root = {{"kernels", Kernels}};
    fmt::print("{}\n", Root.dump(2));
  } else {
    printText(*M, Summaries);
  }
  return 0;
}

} // namespace

void addInspectCommand(CLI::App &App) {
  auto Opts = std::make_shared<InspectOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "inspect", "per function of a PTX file: parameters, registers, basic blocks, loops and "
                 "static instruction counts per class");
  Cmd->add_option("file", Opts->file, "PTX file")->required();
  Cmd->add_option("--format", Opts->format, "output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  Cmd->callback([Opts] {
    if (int Status = runInspect(*Opts); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
