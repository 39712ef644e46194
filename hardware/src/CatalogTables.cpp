// The catalog's side tables: processes, memory types, hosts and boost headroom (CatalogTables.h).
#include "CatalogTables.h"

#include "support/Json.h"

#include <algorithm>
#include <cmath>

namespace hardware::detail {

using support::Error;
using support::Expected;
using Json = nlohmann::json;

std::optional<std::string> readText(const Json &J, const char *Key, std::string &Out,
                                    bool Optional) {
  auto It = J.find(Key);
  if (It == J.end())
    return Optional ? std::nullopt
                    : std::optional<std::string>("field '" + std::string(Key) + "' is missing");
  if (!It->is_string() || It->get<std::string>().empty())
    return "field '" + std::string(Key) + "' must be a non-empty string";
  Out = It->get<std::string>();
  return std::nullopt;
}

std::string keysOf(const std::map<std::string, double> &M) {
  std::string S;
  for (const auto &[K, V] : M)
    S += (S.empty() ? "" : ", ") + K;
  return S;
}

namespace {

/// The rows of table Table of J, or an error when it is not a list of objects.
Expected<const Json *> rowsOf(const Json &J, const char *Table, std::string_view File) {
  auto It = J.find(Table);
  if (It == J.end() || !It->is_array())
    return Error(std::string(File), 0, 0, std::string(Table) + ": the catalog needs this list");
  for (const Json &Row : *It)
    if (!Row.is_object())
      return Error(std::string(File), 0, 0,
                   std::string(Table) + ": each row must be a JSON object");
  return &*It;
}

/// Field Key of a row as a positive finite number.
std::optional<std::string> positive(const Json &Row, const char *Key, double &Out) {
  auto V = Row.find(Key);
  if (V == Row.end() || !V->is_number() || !std::isfinite(V->get<double>()) ||
      !(V->get<double>() > 0))
    return "field '" + std::string(Key) + "' must be a positive number";
  Out = V->get<double>();
  return std::nullopt;
}

} // namespace

support::Expected<nlohmann::json> parseJsonText(std::string_view Text, std::string_view File,
                                                support::JsonValue *Positions) {
  // The project's strict reader checks the text first: it names the line and column of a
  // syntax error and of a key an object repeats (nlohmann keeps the last silently). The text
  // is then known to be valid JSON for nlohmann, whose tree the catalog code reads.
  auto Checked = support::parseJson(Text, std::string(File));
  if (!Checked)
    return Checked.error();
  if (Positions)
    *Positions = std::move(*Checked);
  return nlohmann::json::parse(Text);
}

Expected<std::map<std::string, double>>
parseValueTable(const Json &J, const char *Table, const char *ValueKey, std::string_view File) {
  auto Rows = rowsOf(J, Table, File);
  if (!Rows)
    return Rows.error();
  std::map<std::string, double> Out;
  for (const Json &Row : **Rows) {
    std::string Name, Source;
    double Value = 0;
    std::optional<std::string> E = readText(Row, "name", Name);
    if (!E)
      E = readText(Row, "source", Source);
    if (!E)
      E = positive(Row, ValueKey, Value);
    if (!E && !Out.emplace(Name, Value).second)
      E = "listed twice";
    if (E)
      return Error(std::string(File), 0, 0, std::string(Table) + " '" + Name + "': " + *E);
  }
  return Out;
}

Expected<std::vector<HostSpec>> parseHosts(const Json &J, std::string_view File) {
  auto Rows = rowsOf(J, "hosts", File);
  if (!Rows)
    return Rows.error();
  std::vector<HostSpec> Out;
  for (const Json &Row : **Rows) {
    HostSpec H;
    std::optional<std::string> E = readText(Row, "name", H.name);
    if (!E)
      E = readText(Row, "cpu", H.cpu);
    if (!E)
      E = readText(Row, "source", H.source);
    if (!E)
      E = positive(Row, "relative_speed", H.relativeSpeed);
    std::string Basis;
    if (!E)
      E = readText(Row, "speed_basis", Basis);
    if (!E && Basis != "pytorch" && Basis != "estimate")
      E = "speed_basis '" + Basis + "' is not pytorch or estimate";
    H.speedFromPyTorch = Basis == "pytorch";
    if (!E &&
        std::any_of(Out.begin(), Out.end(), [&](const HostSpec &X) { return X.name == H.name; }))
      E = "listed twice";
    if (E)
      return Error(std::string(File), 0, 0, "hosts '" + H.name + "': " + *E);
    Out.push_back(std::move(H));
  }
  return Out;
}

std::optional<std::string> setMemoryEnergy(GpuSpec &G, const Tables &T, bool Catalog) {
  auto M = T.memories.find(G.memoryType);
  if (M != T.memories.end()) {
    G.memoryPjPerBit = M->second;
    return std::nullopt;
  }
  if (G.memoryType.empty() || (Catalog && G.formFactor == "module"))
    return std::nullopt;
  return "memory type '" + G.memoryType + "' has no energy in the catalog's memory_types (" +
         keysOf(T.memories) + ")";
}

std::optional<std::string> setProcess(const Json &J, GpuSpec &G, const Tables &T) {
  if (!J.contains("process"))
    return std::nullopt;
  if (auto E = readText(J, "process", G.limits.process))
    return E;
  auto P = T.processes.find(G.limits.process);
  if (P == T.processes.end())
    return "process '" + G.limits.process + "' is not in the catalog's processes (" +
           keysOf(T.processes) + ")";
  G.limits.relativeEnergy = P->second;
  return std::nullopt;
}

std::optional<std::string> setMaxClock(const Json &J, GpuSpec &G, const Tables &T) {
  auto It = J.find("max_clock_mhz");
  if (It == J.end()) {
    auto H = T.boostHeadroom.find(G.formFactor);
    G.maxClockMhz = G.boostClockMhz * (H == T.boostHeadroom.end() ? 1.0 : H->second);
    return std::nullopt;
  }
  if (!It->is_number() || !(It->get<double>() >= G.boostClockMhz) || !(It->get<double>() <= 1e4))
    return "field 'max_clock_mhz' must be a number from boost_clock_mhz to 10000, got " +
           It->dump();
  G.maxClockMhz = It->get<double>();
  return std::nullopt;
}

std::optional<std::string> setHost(const Json &J, GpuSpec &G, const Tables &T) {
  std::string Name;
  if (auto E = readText(J, "host", Name, /*Optional=*/true))
    return E;
  if (Name.empty()) {
    if (G.formFactor == "module")
      return "a Jetson module must name its host (field 'host')";
    // A gaming laptop's H/HX-series CPU is desktop silicon at nearly desktop clocks.
    Name = G.formFactor == "superchip"                             ? "grace"
           : G.formFactor == "desktop" || G.formFactor == "laptop" ? "x86-desktop"
                                                                   : "x86-server";
  }
  auto H = std::find_if(T.hosts.begin(), T.hosts.end(),
                        [&](const HostSpec &X) { return X.name == Name; });
  if (H == T.hosts.end()) {
    std::string Known;
    for (const HostSpec &X : T.hosts)
      Known += (Known.empty() ? "" : ", ") + X.name;
    return "host '" + Name + "' is not in the catalog's hosts (" + Known + ")";
  }
  G.host = *H;
  return std::nullopt;
}

} // namespace hardware::detail
