// The launch manifest as ptxcast-measure uses it: support's reader (support/LaunchManifest.h), the
// one the interpreter uses too, with its buffer fills (support/BufferFill.h).
#pragma once

#include "Error.h"

#include "support/BufferFill.h"
#include "support/LaunchManifest.h"

namespace measure {

using support::manifest::Arg;
using support::manifest::argBytes;
using support::manifest::Buffer;
using support::manifest::BufferInit;
using support::manifest::InitKind;
using support::manifest::Launch;
using support::manifest::loadManifest;
using support::manifest::makeInitialBytes;
using support::manifest::Manifest;
using support::manifest::ManifestOptions;

} // namespace measure
