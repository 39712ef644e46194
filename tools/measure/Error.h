// Error values for ptxcast-measure: the project's support::Error/Expected (support/ is header-only
// and travels with the repository, so the standalone build includes it too), plus Status.
#pragma once

#include "support/Expected.h"

namespace measure {

using support::Error;
using support::Expected;

/// The value of an operation that yields nothing but may fail.
struct Ok {};
using Status = Expected<Ok>;

} // namespace measure
