// The GPU catalog: parsing gpus.json (embedded at build time), name lookup, hardware features.
#include "hardware/GpuCatalog.h"

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <map>

namespace hardware {

using support::Error;
using support::Expected;

namespace {

// hardware/data/gpus.json, embedded by cmake/EmbedFile.cmake.
constexpr unsigned char EmbeddedCatalog[] = {
#include "hardware/GpuCatalogData.inc"
};

/// Lookup key: lower-case letters and digits only, without a leading "nvidia".
std::string normalise(std::string_view Name) {
  std::string Key;
  for (char C : Name)
    if (std::isalnum(static_cast<unsigned char>(C)))
      Key += char(std::tolower(static_cast<unsigned char>(C)));
  if (Key.rfind("nvidia", 0) == 0 && Key.size() > 6)
    Key.erase(0, 6);
  return Key;
}

/// The fields of one GPU entry, in catalog order, with their JSON keys.
struct NumericField {
  const char *Key;
  double GpuSpec::*Member;
};
constexpr NumericField NumericFields[] = {
    {"sm_count", &GpuSpec::smCount},
    {"fp32_cores_per_sm", &GpuSpec::fp32CoresPerSm},
    {"boost_clock_mhz", &GpuSpec::boostClockMhz},
    {"fp32_tflops", &GpuSpec::fp32Tflops},
    {"fp16_tflops", &GpuSpec::fp16Tflops},
    {"fp16_tensor_tflops", &GpuSpec::fp16TensorTflops},
    {"memory_bandwidth_gbs", &GpuSpec::memoryBandwidthGBs},
    {"memory_gb", &GpuSpec::memoryGB},
    {"l2_mb", &GpuSpec::l2MB},
    {"tdp_w", &GpuSpec::tdpW},
};

Expected<GpuSpec> parseGpu(const nlohmann::json &J, std::string_view File, size_t Index) {
  auto Fail = [&](const std::string &Msg) {
    return Error(std::string(File), 0, 0, "gpu #" + std::to_string(Index + 1) + ": " + Msg);
  };
  GpuSpec G;
  G.name = J.at("name").get<std::string>();
  G.fullName = J.at("full_name").get<std::string>();
  G.aliases = J.value("aliases", std::vector<std::string>{});
  G.architecture = J.at("architecture").get<std::string>();
  G.source = J.at("source").get<std::string>();
  for (const auto &F : NumericFields) {
    double V = J.at(F.Key).get<double>();
    if (!(V >= 0))
      return Fail(std::string(F.Key) + " of '" + G.name + "' must be >= 0");
    G.*F.Member = V;
  }
  std::string Cc = J.at("compute_capability").get<std::string>();
  char *End = nullptr;
  G.computeCapability = std::strtod(Cc.c_str(), &End);
  if (Cc.empty() || *End != '\0')
    return Fail("compute capability of '" + G.name + "' must read like \"8.6\"");
  if (G.name.empty() || G.source.empty() || G.smCount <= 0)
    return Fail("every gpu needs a name, a source and a positive sm_count");
  return G;
}

} // namespace

Expected<GpuCatalog> GpuCatalog::builtin() {
  std::string_view Text(reinterpret_cast<const char *>(EmbeddedCatalog), sizeof(EmbeddedCatalog));
  return parse(Text, "hardware/data/gpus.json");
}

Expected<GpuCatalog> GpuCatalog::parse(std::string_view JsonText, std::string_view File) {
  GpuCatalog Cat;
  std::map<std::string, std::string> Keys; // normalised name -> canonical name
  try {
    auto J = nlohmann::json::parse(JsonText);
    const auto &List = J.at("gpus");
    for (size_t I = 0; I < List.size(); ++I) {
      auto G = parseGpu(List[I], File, I);
      if (!G)
        return G.error();
      std::vector<std::string> Names = G->aliases;
      Names.push_back(G->name);
      Names.push_back(G->fullName);
      for (const auto &N : Names) {
        auto [It, New] = Keys.emplace(normalise(N), G->name);
        if (!New && It->second != G->name)
          return Error(std::string(File), 0, 0,
                       "name '" + N + "' of '" + G->name + "' also names '" + It->second + "'");
      }
      Cat.Gpus.push_back(std::move(*G));
    }
  } catch (const nlohmann::json::exception &E) {
    return Error(std::string(File), 0, 0, std::string("bad gpu catalog: ") + E.what());
  }
  return Cat;
}

Expected<GpuSpec> GpuCatalog::lookup(std::string_view Name) const {
  std::string Key = normalise(Name);
  for (const auto &G : Gpus) {
    if (normalise(G.name) == Key || normalise(G.fullName) == Key)
      return G;
    for (const auto &A : G.aliases)
      if (normalise(A) == Key)
        return G;
  }
  std::string Valid;
  for (const auto &G : Gpus)
    Valid += (Valid.empty() ? "" : ", ") + G.name;
  return Error("unknown gpu '" + std::string(Name) + "' (valid: " + Valid + ")");
}

std::vector<std::string> GpuCatalog::names() const {
  std::vector<std::string> Out;
  for (const auto &G : Gpus)
    Out.push_back(G.name);
  return Out;
}

NamedVector hardwareFeatures(const GpuSpec &Gpu) {
  NamedVector Out;
  for (const auto &F : NumericFields)
    Out.emplace_back("gpu_" + std::string(F.Key), Gpu.*F.Member);
  Out.emplace_back("gpu_compute_capability", Gpu.computeCapability);
  return Out;
}

} // namespace hardware
