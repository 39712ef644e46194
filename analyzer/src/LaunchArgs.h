// The one conversion from a manifest launch (kernel args by buffer name) to a LaunchConfig on a
// device, shared by the exact manifest run and fast mode.
#pragma once

#include "analyzer/Manifest.h"

#include <string>

namespace analyzer {

/// Resolves the args of launch `Index` against the buffers allocated on `D`. Errors name the arg
/// (`launches[3].args[1]: unknown buffer 'x'`) and are reported against `File` (may be empty).
support::Expected<LaunchConfig> makeLaunch(const LaunchSpec &S, size_t Index, Device &D,
                                           const std::string &File);

} // namespace analyzer
