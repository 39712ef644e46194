// A GPU of `--gpu NAME|FILE.json` or `--gpu-spec FILE.json`, and lists of them (GpuSelection.h).
#include "pipeline/GpuSelection.h"

#include "support/Files.h"

#include <filesystem>

namespace pipeline {

support::Expected<hardware::GpuSpec> resolveGpu(const std::string &NameOrFile,
                                                const hardware::GpuCatalog &Catalog) {
  const std::string Suffix = ".json";
  bool IsSpec = NameOrFile.size() > Suffix.size() &&
                NameOrFile.compare(NameOrFile.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
  if (!IsSpec) {
    auto Gpu = Catalog.lookup(NameOrFile);
    if (!Gpu && std::filesystem::is_regular_file(NameOrFile))
      return support::Error(NameOrFile, 0, 0, "a GPU spec file must end in .json");
    return Gpu;
  }
  auto Text = support::readFile(NameOrFile);
  if (!Text)
    return support::Error(NameOrFile, 0, 0, "cannot read the GPU spec file");
  return Catalog.parseSpec(*Text, NameOrFile);
}

support::Expected<std::vector<hardware::GpuSpec>>
selectGpus(const hardware::GpuCatalog &Catalog, const std::vector<std::string> &Names) {
  if (Names.empty())
    return Catalog.gpus();
  std::vector<hardware::GpuSpec> Gpus;
  for (const std::string &Name : Names) {
    auto G = resolveGpu(Name, Catalog);
    if (!G)
      return G.error();
    Gpus.push_back(*G);
  }
  return Gpus;
}

} // namespace pipeline
