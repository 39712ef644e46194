// The GPU of `--gpu NAME|FILE.json` and `--gpu-spec FILE.json`: a catalog entry or a GPU the user
// describes in a spec file (docs/gpu-catalog.md, "A GPU of your own").
#pragma once

#include "hardware/GpuCatalog.h"
#include "support/Expected.h"

#include <string>
#include <vector>

namespace pipeline {

/// A value ending in ".json" is a spec file, read by GpuCatalog::parseSpec (per-SM limits from its
/// compute capability; errors name the file and the field); anything else is looked up in the
/// catalog by name, alias or "MODULE@MODE".
support::Expected<hardware::GpuSpec> resolveGpu(const std::string &NameOrFile,
                                                const hardware::GpuCatalog &Catalog);

/// The GPUs of `Names`, each resolved as above, in order (no names: the whole catalog).
support::Expected<std::vector<hardware::GpuSpec>>
selectGpus(const hardware::GpuCatalog &Catalog, const std::vector<std::string> &Names);

} // namespace pipeline
