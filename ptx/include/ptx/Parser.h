// Parsing PTX text into the IR (ptx/Ir.h). Accepts PTX as nvcc, LLVM NVPTX, XLA and Triton emit
// it; skips .file/.loc/.section debug directives. Never crashes or hangs on any input.
#pragma once

#include "ptx/Ir.h"
#include "support/Expected.h"

#include <string_view>

namespace ptx {

/// Parses a whole PTX module. `FileName` is used in diagnostics
/// (`FileName:line:col: error: message`) and stored in Module::file.
support::Expected<Module> parseModule(std::string_view Text, std::string_view FileName);

/// Reads and parses a PTX file; an unreadable file is an Error too.
support::Expected<Module> parseFile(const std::string &Path);

} // namespace ptx
