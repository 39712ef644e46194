// Program: queries over the decoded module (kernels, unsupported instructions).
#include "analyzer/Program.h"

#include "Engine.h"

#include <set>

namespace analyzer {

Program::Program() = default;
Program::~Program() = default;
Program::Program(Program &&) noexcept = default;
Program &Program::operator=(Program &&) noexcept = default;

std::vector<std::string> Program::kernels() const {
  std::vector<std::string> Names;
  for (const DFunction &F : Impl->funcs)
    if (F.isEntry)
      Names.push_back(F.name);
  return Names;
}

bool Program::hasKernel(std::string_view Name) const { return Impl->kernel(Name) != nullptr; }

std::vector<support::Error> Program::unsupported(std::string_view Kernel) const {
  std::vector<support::Error> Errors;
  std::vector<uint32_t> Work;
  std::set<uint32_t> Seen;
  for (uint32_t F = 0; F < Impl->funcs.size(); ++F)
    if (Impl->funcs[F].name == Kernel)
      Work.push_back(F);
  while (!Work.empty()) {
    uint32_t F = Work.back();
    Work.pop_back();
    if (!Seen.insert(F).second)
      continue;
    const DFunction &D = Impl->funcs[F];
    for (uint32_t Pc : D.unsupported) {
      const DInstr &I = Impl->code[Pc];
      Errors.emplace_back(Impl->file, I.line, I.col, Impl->messages[I.msg]);
    }
    Work.insert(Work.end(), D.callees.begin(), D.callees.end());
  }
  return Errors;
}

std::vector<uint32_t> Program::paramSizes(std::string_view Kernel) const {
  std::vector<uint32_t> Sizes;
  if (const DFunction *F = Impl->kernel(Kernel))
    for (const ParamSlot &S : F->kernelParams)
      Sizes.push_back(S.size);
  return Sizes;
}

size_t Program::size() const { return Impl->code.size(); }

} // namespace analyzer
