// The GPU catalog: parsing gpus.json (embedded at build time) and GPU spec files, validation,
// name lookup with closest-match suggestions.
#include "hardware/GpuCatalog.h"

#include "support/Closest.h"

#include "CatalogTables.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

namespace hardware {

using namespace detail;
using support::Error;
using support::Expected;
using Json = nlohmann::json;

namespace {

// hardware/data/gpus.json, embedded by cmake/EmbedFile.cmake.
constexpr unsigned char EmbeddedCatalog[] = {
#include "hardware/GpuCatalogData.inc"
};

/// Lookup key: lower-case letters, digits, '@' (power modes) and '.', without a leading
/// "nvidia".
std::string normalise(std::string_view Name) {
  std::string Key;
  for (char C : Name)
    if (std::isalnum(static_cast<unsigned char>(C)) || C == '@' || C == '.')
      Key += char(std::tolower(static_cast<unsigned char>(C)));
  if (Key.rfind("nvidia", 0) == 0 && Key.size() > 6)
    Key.erase(0, 6);
  return Key;
}

/// How a numeric field must look: positive, or >= 0 with 0 meaning "none" or "unknown".
enum class Rule { Positive, NonNegative };

/// The values a field may take besides a NonNegative field's 0: [min, max], a whole number where
/// `whole`. The bounds are far outside every real GPU (the catalog's extremes are 20-100x inside
/// them) and only keep a typo or a unit slip in a spec file (1e300 SMs, a clock of 1e-300 MHz)
/// from turning into an infinite or NaN time.
struct Range {
  double min, max;
  bool whole = false;
};

template <class T> struct Field {
  const char *Key;
  double T::*Member;
  Rule Check;
  Range Bounds;
  bool Optional = false; ///< may be absent from a catalog entry (0 then)
};

constexpr Range Peak{1e-5, 1e6}; ///< any TFLOPS or TOPS figure
constexpr Range PerSm{1, 1e7};   ///< a per-SM limit or width
constexpr Range Count{1, 1e7, true};
constexpr Range Share{0.01, 10}; ///< an energy share

constexpr Field<GpuSpec> GpuFields[] = {
    {"sm_count", &GpuSpec::smCount, Rule::Positive, {1, 4096, true}},
    {"fp32_cores_per_sm", &GpuSpec::fp32CoresPerSm, Rule::Positive, {1, 1024, true}},
    {"base_clock_mhz", &GpuSpec::baseClockMhz, Rule::NonNegative, {10, 1e4}},
    {"boost_clock_mhz", &GpuSpec::boostClockMhz, Rule::Positive, {10, 1e4}},
    {"fp32_tflops", &GpuSpec::fp32Tflops, Rule::Positive, Peak},
    {"fp16_tflops", &GpuSpec::fp16Tflops, Rule::NonNegative, Peak},
    {"bf16_tflops", &GpuSpec::bf16Tflops, Rule::NonNegative, Peak},
    {"fp64_tflops", &GpuSpec::fp64Tflops, Rule::NonNegative, Peak},
    {"memory_bandwidth_gbs", &GpuSpec::memoryBandwidthGBs, Rule::Positive, {1, 1e6}},
    {"memory_gb", &GpuSpec::memoryGB, Rule::Positive, {0.01, 1e5}},
    {"l2_mb", &GpuSpec::l2MB, Rule::Positive, {0.01, 1e5}},
    {"tdp_w", &GpuSpec::tdpW, Rule::Positive, {0.1, 1e5}},
};

constexpr Field<TensorRates> TensorFields[] = {
    {"tensor_fp16_tflops", &TensorRates::fp16, Rule::NonNegative, Peak},
    {"tensor_bf16_tflops", &TensorRates::bf16, Rule::NonNegative, Peak},
    {"tensor_tf32_tflops", &TensorRates::tf32, Rule::NonNegative, Peak},
    {"tensor_int8_tops", &TensorRates::int8, Rule::NonNegative, Peak},
    {"tensor_fp8_tflops", &TensorRates::fp8, Rule::NonNegative, Peak},
};

constexpr Field<ArchLimits> ArchFields[] = {
    {"max_threads_per_sm", &ArchLimits::maxThreadsPerSm, Rule::Positive, Count},
    {"max_ctas_per_sm", &ArchLimits::maxCtasPerSm, Rule::Positive, Count},
    {"max_warps_per_sm", &ArchLimits::maxWarpsPerSm, Rule::Positive, Count},
    {"registers_per_sm", &ArchLimits::registersPerSm, Rule::Positive, Count},
    {"max_registers_per_thread", &ArchLimits::maxRegistersPerThread, Rule::Positive, Count},
    {"register_alloc_unit", &ArchLimits::registerAllocUnit, Rule::Positive, Count},
    {"shared_mem_per_sm_kb", &ArchLimits::sharedMemPerSmKB, Rule::Positive, PerSm},
    {"max_shared_mem_per_cta_kb", &ArchLimits::maxSharedMemPerCtaKB, Rule::Positive, PerSm},
    {"shared_mem_per_cta_reserved_kb", &ArchLimits::sharedMemPerCtaReservedKB, Rule::NonNegative,
     PerSm},
    {"warp_schedulers_per_sm", &ArchLimits::warpSchedulersPerSm, Rule::Positive, Count},
    {"int32_lanes_per_sm", &ArchLimits::int32LanesPerSm, Rule::Positive, Count},
    {"sfu_lanes_per_sm", &ArchLimits::sfuLanesPerSm, Rule::Positive, Count},
    {"l1_bytes_per_clock_per_sm", &ArchLimits::l1BytesPerClockPerSm, Rule::Positive, PerSm},
    {"l2_bytes_per_clock_per_sm", &ArchLimits::l2BytesPerClockPerSm, Rule::Positive, PerSm},
    {"tensor_fp16_flops_per_clock_per_sm", &ArchLimits::tensorFp16FlopsPerClockPerSm,
     Rule::NonNegative, PerSm, /*Optional=*/true},
    {"mma_sync_fp16_flops_per_clock_per_sm", &ArchLimits::mmaSyncFp16FlopsPerClockPerSm,
     Rule::NonNegative, PerSm, /*Optional=*/true},
    {"tensor_flop_energy_share", &ArchLimits::tensorFlopEnergyShare, Rule::NonNegative, Share,
     /*Optional=*/true},
};

/// The architecture's yes/no facts, which a GPU spec may override like its per-SM limits.
constexpr std::pair<const char *, bool ArchLimits::*> ArchFlags[] = {
    {"int32_shares_fp32", &ArchLimits::int32SharesFp32}, {"dual_issue", &ArchLimits::dualIssue}};

/// The other keys a GPU object may have (a misspelt key is an error, not a field left at its
/// default).
constexpr const char *GpuTextKeys[] = {
    "name",    "full_name",          "architecture", "form_factor", "memory_type",  "aliases",
    "sources", "compute_capability", "process",      "host",        "max_clock_mhz"};

/// Reads boolean field `Key` of `J`, when present, into `Out`.
std::optional<std::string> readFlag(const Json &J, const char *Key, bool &Out) {
  auto It = J.find(Key);
  if (It == J.end())
    return std::nullopt;
  if (!It->is_boolean())
    return "field '" + std::string(Key) + "' must be true or false, got " + It->dump();
  Out = It->get<bool>();
  return std::nullopt;
}

/// V as printf's %g writes it (1e+06, 0.01).
std::string shortNumber(double V) {
  char Buffer[32];
  std::snprintf(Buffer, sizeof Buffer, "%g", V);
  return Buffer;
}

/// The per-SM limits that must agree for any CTA to fit on an SM: a warp's threads, one warp
/// at the most registers a thread may have, and the largest CTA's shared memory.
std::optional<std::string> checkLimits(const ArchLimits &A) {
  if (A.maxThreadsPerSm != A.maxWarpsPerSm * 32)
    return "max_threads_per_sm (" + std::to_string(int64_t(A.maxThreadsPerSm)) +
           ") must be 32 x max_warps_per_sm (" + std::to_string(int64_t(A.maxWarpsPerSm)) + ")";
  if (A.registersPerSm < 32 * A.maxRegistersPerThread)
    return "registers_per_sm (" + std::to_string(int64_t(A.registersPerSm)) +
           ") cannot hold one warp at max_registers_per_thread (" +
           std::to_string(int64_t(A.maxRegistersPerThread)) + ")";
  if (A.sharedMemPerSmKB < A.maxSharedMemPerCtaKB)
    return "max_shared_mem_per_cta_kb (" + shortNumber(A.maxSharedMemPerCtaKB) +
           ") is above shared_mem_per_sm_kb (" + shortNumber(A.sharedMemPerSmKB) + ")";
  return std::nullopt;
}

/// The first key of GPU object J that no field reads, or nullopt.
std::optional<std::string> unknownGpuKey(const Json &J) {
  for (const auto &[Key, Value] : J.items()) {
    bool Known = std::any_of(std::begin(GpuTextKeys), std::end(GpuTextKeys),
                             [&](const char *K) { return Key == K; });
    for (const auto &F : GpuFields)
      Known |= Key == F.Key;
    for (const auto &F : TensorFields)
      Known |= Key == F.Key;
    for (const auto &F : ArchFields)
      Known |= Key == F.Key;
    for (const auto &[K, Member] : ArchFlags)
      Known |= Key == K;
    if (!Known)
      return Key;
  }
  return std::nullopt;
}


/// Reads field `Key` of object `J` into `Out`; `Optional` fields may be absent.
template <class T>
std::optional<std::string> readNumber(const Json &J, const Field<T> &F, double &Out,
                                      bool Optional) {
  const std::string Key = F.Key;
  auto It = J.find(Key);
  if (It == J.end())
    return Optional ? std::nullopt : std::optional<std::string>("field '" + Key + "' is missing");
  if (!It->is_number())
    return "field '" + Key + "' must be a number, got " + It->dump();
  double V = It->get<double>();
  if (!std::isfinite(V) || V < 0 || (F.Check == Rule::Positive && V == 0))
    return "field '" + Key + "' must be " +
           (F.Check == Rule::Positive ? "a positive number" : "a number >= 0") + ", got " +
           It->dump();
  const Range &R = F.Bounds;
  if (V != 0 && (V < R.min || V > R.max || (R.whole && V != std::floor(V))))
    return "field '" + Key + "' must be " + (R.whole ? "a whole number" : "a number") + " from " +
           shortNumber(R.min) + " to " + shortNumber(R.max) +
           (F.Check == Rule::NonNegative ? " (or 0)" : "") + ", got " + It->dump();
  Out = V;
  return std::nullopt;
}

Expected<ArchLimits> parseArch(const Json &J, std::string_view File,
                               const std::map<std::string, double> &Processes) {
  ArchLimits A;
  auto Fail = [&](const std::string &Msg) {
    return Error(std::string(File), 0, 0, "architecture '" + A.computeCapability + "': " + Msg);
  };
  if (auto E = readText(J, "compute_capability", A.computeCapability))
    return Error(std::string(File), 0, 0, "architecture: " + *E);
  for (const auto &F : ArchFields)
    if (auto E = readNumber(J, F, A.*F.Member, F.Optional))
      return Fail(*E);
  if (auto E = readText(J, "source", A.source))
    return Fail(*E);
  if (A.mmaSyncFp16FlopsPerClockPerSm > A.tensorFp16FlopsPerClockPerSm)
    return Fail("mma_sync_fp16_flops_per_clock_per_sm exceeds tensor_fp16_flops_per_clock_per_sm");
  for (auto [Key, Member] : ArchFlags)
    if (auto E = readFlag(J, Key, A.*Member))
      return Fail(*E);
  if (auto E = checkLimits(A))
    return Fail(*E);
  if (auto E = readText(J, "process", A.process))
    return Fail(*E);
  auto P = Processes.find(A.process);
  if (P == Processes.end())
    return Fail("process '" + A.process + "' is not in the catalog's processes (" +
                keysOf(Processes) + ")");
  A.relativeEnergy = P->second;
  return A;
}

/// Every numeric field of a GPU entry (max_clock_mhz where it has one) must be covered by one
/// key of its "sources" map.
std::optional<std::string> checkSources(const GpuSpec &G, bool HasMaxClock) {
  std::set<std::string> Covered;
  for (const auto &[Keys, Note] : G.sources) {
    if (Note.empty())
      return "sources: the note for '" + Keys + "' is empty";
    size_t Start = 0;
    while (Start <= Keys.size()) {
      size_t Comma = std::min(Keys.find(',', Start), Keys.size());
      std::string Key = Keys.substr(Start, Comma - Start);
      Key.erase(0, Key.find_first_not_of(' '));
      Key.erase(Key.find_last_not_of(' ') + 1);
      Covered.insert(Key);
      Start = Comma + 1;
    }
  }
  std::vector<const char *> Needed;
  for (const auto &F : GpuFields)
    Needed.push_back(F.Key);
  for (const auto &F : TensorFields)
    Needed.push_back(F.Key);
  Needed.push_back("compute_capability");
  if (HasMaxClock)
    Needed.push_back("max_clock_mhz");
  for (const char *Key : Needed)
    if (!Covered.count(Key))
      return "sources: no source names field '" + std::string(Key) + "'";
  return std::nullopt;
}

/// The figures of a GPU that must agree with each other: the FP32 peak is SMs x cores x 2 FLOP
/// x boost clock (the skeleton charges FP32 work by cores and clock, every table shows the
/// peak; the catalog agrees within 1.1 %), and the base clock is not above the boost clock.
std::optional<std::string> checkConsistency(const GpuSpec &G) {
  if (G.baseClockMhz > G.boostClockMhz)
    return "base_clock_mhz " + shortNumber(G.baseClockMhz) + " is above boost_clock_mhz " +
           shortNumber(G.boostClockMhz);
  const double Derived = G.smCount * G.fp32CoresPerSm * 2 * G.boostClockMhz / 1e6;
  if (std::abs(G.fp32Tflops / Derived - 1) > 0.1)
    return "fp32_tflops " + shortNumber(G.fp32Tflops) +
           " disagrees with sm_count x fp32_cores_per_sm x 2 x boost_clock_mhz = " +
           shortNumber(Derived) + " TFLOPS (more than 10 % apart)";
  return std::nullopt;
}

} // namespace

std::string GpuSpec::sourceText() const {
  std::string S;
  for (const auto &[Keys, Note] : sources)
    S += (S.empty() ? "" : " ") + Keys + ": " + Note;
  return S;
}

NamedVector catalogFields(const GpuSpec &Gpu) {
  NamedVector Out;
  for (const auto &F : GpuFields)
    Out.emplace_back(F.Key, Gpu.*F.Member);
  for (const auto &F : TensorFields)
    Out.emplace_back(F.Key, Gpu.tensor.*F.Member);
  return Out;
}

NamedVector catalogFields(const ArchLimits &Arch) {
  NamedVector Out;
  for (const auto &F : ArchFields)
    Out.emplace_back(F.Key, Arch.*F.Member);
  return Out;
}

GpuSpec withSmCount(GpuSpec Gpu, double Sms) {
  const double Scale = Sms / Gpu.smCount;
  Gpu.smCount = Sms;
  for (double *Peak :
       {&Gpu.fp32Tflops, &Gpu.fp16Tflops, &Gpu.bf16Tflops, &Gpu.fp64Tflops, &Gpu.tensor.fp16,
        &Gpu.tensor.bf16, &Gpu.tensor.tf32, &Gpu.tensor.int8, &Gpu.tensor.fp8})
    *Peak *= Scale;
  return Gpu;
}

namespace {

/// E at the line and column of the value of the field its message names ("field 'tdp_w' must
/// be ..."), where the spec's object Spec has that member: a spec file's error points at what to
/// fix. E as it is otherwise (a missing field has no place).
Error atField(Error E, const support::JsonValue &Spec) {
  constexpr std::string_view Mark = "field '";
  const size_t At = E.message.find(Mark);
  const size_t End = At == std::string::npos ? At : E.message.find('\'', At + Mark.size());
  if (End == std::string::npos || Spec.kind != support::JsonKind::Object)
    return E;
  const size_t Begin = At + Mark.size();
  if (const support::JsonValue *V =
          Spec.find(std::string_view(E.message).substr(Begin, End - Begin))) {
    E.line = V->line;
    E.col = V->col;
  }
  return E;
}

Expected<GpuSpec> parseGpu(const Json &J, std::string_view File, const Tables &T,
                           bool RequireSources) {
  const std::vector<ArchLimits> &Archs = T.archs;
  GpuSpec G;
  if (!J.is_object())
    return Error(std::string(File), 0, 0, "a gpu must be a JSON object");
  if (auto E = readText(J, "name", G.name))
    return Error(std::string(File), 0, 0, "gpu: " + *E);
  auto Fail = [&](const std::string &Msg) {
    return Error(std::string(File), 0, 0, "gpu '" + G.name + "': " + Msg);
  };
  for (auto [Key, Member] : {std::pair{"full_name", &GpuSpec::fullName},
                             std::pair{"architecture", &GpuSpec::architecture},
                             std::pair{"form_factor", &GpuSpec::formFactor},
                             std::pair{"memory_type", &GpuSpec::memoryType}})
    if (auto E = readText(J, Key, G.*Member, !RequireSources))
      return Fail(*E);
  if (G.fullName.empty())
    G.fullName = G.name;
  if (auto A = J.find("aliases"); A != J.end()) {
    if (!A->is_array())
      return Fail("field 'aliases' must be a list of strings");
    for (const Json &Alias : *A) {
      if (!Alias.is_string())
        return Fail("field 'aliases' must be a list of strings");
      G.aliases.push_back(Alias.get<std::string>());
    }
  }
  for (const auto &F : GpuFields)
    if (auto E = readNumber(J, F, G.*F.Member, false))
      return Fail(*E);
  if (auto E = checkConsistency(G))
    return Fail(*E);
  for (const auto &F : TensorFields)
    if (auto E = readNumber(J, F, G.tensor.*F.Member, !RequireSources))
      return Fail(*E);
  std::string Cc;
  if (auto E = readText(J, "compute_capability", Cc))
    return Fail(*E);
  char *End = nullptr;
  G.computeCapability = std::strtod(Cc.c_str(), &End);
  if (*End != '\0' || !(G.computeCapability > 0))
    return Fail("field 'compute_capability' must read like \"8.6\", got \"" + Cc + "\"");
  auto Arch = std::find_if(Archs.begin(), Archs.end(),
                           [&](const ArchLimits &A) { return A.computeCapability == Cc; });
  if (Arch == Archs.end())
    return Fail("compute capability " + Cc + " is not in the catalog's architecture table");
  G.limits = *Arch;
  // A spec may override any per-SM limit or flag of its architecture.
  for (const auto &F : ArchFields)
    if (auto E = readNumber(J, F, G.limits.*F.Member, true))
      return Fail(*E);
  for (auto [Key, Member] : ArchFlags)
    if (auto E = readFlag(J, Key, G.limits.*Member))
      return Fail(*E);
  if (auto E = checkLimits(G.limits))
    return Fail(*E);
  if (auto Key = unknownGpuKey(J))
    return Fail("unknown field '" + *Key + "' (docs/gpu-catalog.md lists the fields)");
  if (auto E = setMemoryEnergy(G, T, RequireSources))
    return Fail(*E);
  if (auto E = setProcess(J, G, T))
    return Fail(*E);
  if (auto E = setHost(J, G, T))
    return Fail(*E);
  if (auto E = setMaxClock(J, G, T))
    return Fail(*E);
  if (auto S = J.find("sources"); S != J.end()) {
    if (!S->is_object())
      return Fail("field 'sources' must map field names to source notes");
    for (const auto &[Keys, Note] : S->items())
      G.sources[Keys] = Note.is_string() ? Note.get<std::string>() : "";
  }
  if (RequireSources)
    if (auto E = checkSources(G, J.contains("max_clock_mhz")))
      return Fail(*E);
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
  Json J = Json::parse(JsonText, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object())
    return Error(std::string(File), 0, 0, "bad gpu catalog: not a JSON object");
  if (!J.contains("architectures") || !J["architectures"].is_array() || !J.contains("gpus") ||
      !J["gpus"].is_array())
    return Error(std::string(File), 0, 0,
                 "bad gpu catalog: needs the lists 'architectures' and 'gpus'");
  auto Processes = parseValueTable(J, "processes", "relative_energy", File);
  if (!Processes)
    return Processes.error();
  auto Memories = parseValueTable(J, "memory_types", "pj_per_bit", File);
  if (!Memories)
    return Memories.error();
  auto Hosts = parseHosts(J, File);
  if (!Hosts)
    return Hosts.error();
  Expected<std::map<std::string, double>> Headroom = std::map<std::string, double>{};
  if (J.contains("boost_headroom"))
    Headroom = parseValueTable(J, "boost_headroom", "share", File);
  if (!Headroom)
    return Headroom.error();
  Cat.Processes = std::move(*Processes);
  Cat.Memories = std::move(*Memories);
  Cat.Hosts = std::move(*Hosts);
  Cat.Headroom = std::move(*Headroom);
  for (const Json &A : J["architectures"]) {
    auto L = parseArch(A, File, Cat.Processes);
    if (!L)
      return L.error();
    Cat.Archs.push_back(std::move(*L));
  }
  const Tables T{Cat.Archs, Cat.Processes, Cat.Memories, Cat.Hosts, Cat.Headroom};
  for (const Json &Entry : J["gpus"]) {
    auto G = parseGpu(Entry, File, T, /*RequireSources=*/true);
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
  return Cat;
}

namespace {

/// Every name a GPU answers to: canonical name, full name and aliases.
std::vector<std::string> namesOf(const GpuSpec &G) {
  std::vector<std::string> All = G.aliases;
  All.push_back(G.name);
  All.push_back(G.fullName);
  return All;
}

/// The GPU one of whose names normalises to Key, or null.
const GpuSpec *findByKey(const std::vector<GpuSpec> &Gpus, const std::string &Key) {
  for (const GpuSpec &G : Gpus)
    for (const std::string &N : namesOf(G))
      if (normalise(N) == Key)
        return &G;
  return nullptr;
}

/// The power modes of module Base as their entries spell them ("@7w, @15w"), in catalog order.
std::string modesOf(const std::vector<GpuSpec> &Gpus, const std::string &Base) {
  std::string Prefix = normalise(Base) + "@", Out;
  for (const GpuSpec &G : Gpus)
    for (const std::string &N : namesOf(G))
      if (normalise(N).rfind(Prefix, 0) == 0) {
        Out += (Out.empty() ? "" : ", ") + N.substr(N.find('@'));
        break;
      }
  return Out;
}

} // namespace

Expected<GpuSpec> GpuCatalog::lookup(std::string_view Name) const {
  std::string Key = normalise(Name);
  if (const GpuSpec *G = findByKey(Gpus, Key))
    return *G;
  // "orin-nano@7w": the module may be named by any of its names.
  if (size_t At = Key.find('@'); At != std::string::npos && At > 0)
    if (const GpuSpec *Module = findByKey(Gpus, Key.substr(0, At))) {
      std::string Base = Module->name.substr(0, Module->name.find('@'));
      if (const GpuSpec *G = findByKey(Gpus, normalise(Base) + Key.substr(At)))
        return *G;
      std::string Modes = modesOf(Gpus, Base);
      return Error("unknown power mode '" + std::string(Name) + "' of " + Base +
                   " (modes: " + (Modes.empty() ? std::string("none") : Modes) + ")");
    }
  std::vector<std::pair<size_t, std::string>> Near; // (distance, canonical name)
  for (const auto &G : Gpus) {
    size_t Best = SIZE_MAX;
    for (const auto &N : namesOf(G)) {
      std::string K = normalise(N);
      Best = std::min(Best, K.find(Key) != std::string::npos ? 0 : support::editDistance(Key, K));
    }
    Near.emplace_back(Best, G.name);
  }
  std::stable_sort(Near.begin(), Near.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  std::string Closest;
  for (size_t I = 0; I < Near.size() && I < 6; ++I)
    Closest += (I ? ", " : "") + Near[I].second;
  return Error("unknown gpu '" + std::string(Name) + "' (closest: " + Closest +
               "; `ptxcast gpus` lists all " + std::to_string(Gpus.size()) + ")");
}

Expected<GpuSpec> GpuCatalog::parseSpec(std::string_view JsonText, std::string_view File) const {
  support::JsonValue Positions;
  auto J = parseJsonText(JsonText, File, &Positions);
  if (!J)
    return J.error();
  auto G = parseGpu(*J, File, Tables{Archs, Processes, Memories, Hosts, Headroom},
                    /*RequireSources=*/false);
  if (!G)
    return atField(G.error(), Positions);
  return G;
}

Expected<ArchLimits> GpuCatalog::limits(std::string_view ComputeCapability) const {
  std::string Known;
  for (const ArchLimits &A : Archs) {
    if (A.computeCapability == ComputeCapability)
      return A;
    Known += (Known.empty() ? "" : ", ") + A.computeCapability;
  }
  return Error("unknown compute capability '" + std::string(ComputeCapability) +
               "' (known: " + Known + ")");
}

Expected<HostSpec> GpuCatalog::host(std::string_view Name) const {
  std::string Known;
  for (const HostSpec &H : Hosts) {
    if (H.name == Name)
      return H;
    Known += (Known.empty() ? "" : ", ") + H.name;
  }
  return Error("unknown host '" + std::string(Name) + "' (hosts: " + Known + ")");
}

std::vector<std::string> GpuCatalog::names() const {
  std::vector<std::string> Out;
  for (const auto &G : Gpus)
    Out.push_back(G.name);
  return Out;
}

} // namespace hardware
