// Error values for ptxcast-measure: the project's support::Error, Expected and MaybeError (support/
// travels with the repository, so the standalone build includes it too).
#pragma once

#include "support/Expected.h"

namespace measure {

using support::Error;
using support::Expected;
using support::MaybeError;

} // namespace measure
