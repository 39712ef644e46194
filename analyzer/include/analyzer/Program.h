// Program: a PTX module decoded once into the interpreter's compact form (docs/interpreter.md).
#pragma once

#include "ptx/Ir.h"
#include "support/Expected.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace analyzer {

struct ProgramImpl; // the decoded instructions; private to the interpreter

/// A decoded module: every function with a body, as a flat instruction array with registers
/// resolved to slots, branch targets and reconvergence points (immediate post-dominators) as
/// instruction indices, and one handler per (operation, type) chosen up front. Instructions the
/// interpreter cannot execute decode to traps; `unsupported` lists them so callers can report
/// them before running. Immutable and cheap to share once built.
class Program {
public:
  Program();
  ~Program();
  Program(Program &&) noexcept;
  Program &operator=(Program &&) noexcept;

  /// Names of the kernels (.entry functions with a body), in module order.
  std::vector<std::string> kernels() const;
  bool hasKernel(std::string_view Name) const;
  /// Diagnostics `file:line:col: error: unsupported instruction '...'` for every instruction
  /// reachable from kernel `Kernel` (through calls) that cannot be executed; empty when the
  /// kernel can run.
  std::vector<support::Error> unsupported(std::string_view Kernel) const;
  /// Byte sizes of kernel `Kernel`'s parameters, in order (empty if there is no such kernel).
  std::vector<uint32_t> paramSizes(std::string_view Kernel) const;
  /// Number of decoded instructions (all functions).
  size_t size() const;

  const ProgramImpl &impl() const { return *Impl; }

private:
  friend support::Expected<Program> decodeProgram(const ptx::Module &M);
  std::unique_ptr<ProgramImpl> Impl;
};

/// Decodes a parsed module. Fails only on structurally broken input (undeclared register,
/// unknown label or callee, conflicting symbols); unsupported instructions do not fail here.
support::Expected<Program> decodeProgram(const ptx::Module &M);

} // namespace analyzer
