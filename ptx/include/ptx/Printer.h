// Writing the IR back as PTX text. parseModule(print(M)) == M for every parsed M.
#pragma once

#include "ptx/Ir.h"

#include <ostream>
#include <string>

namespace ptx {

void print(std::ostream &OS, const Module &M);
std::string print(const Module &M);
/// One instruction as PTX, without indentation or trailing newline: `@%p1 bra $L__BB0_2;`
std::string print(const Instruction &I);

} // namespace ptx
