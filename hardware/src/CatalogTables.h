// The catalog's side tables (gpus.json "processes", "memory_types", "hosts", "boost_headroom"):
// what GPU entries and architecture rows refer to by name. Internal to the hardware library.
#pragma once

#include "hardware/GpuCatalog.h"

#include "support/Json.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hardware::detail {

/// The text of field Key of J, or why it is missing or not a non-empty string.
std::optional<std::string> readText(const nlohmann::json &J, const char *Key, std::string &Out,
                                    bool Optional = false);

/// JSON text parsed, or an error naming File with the line and column of a syntax error or of
/// a key an object repeats (support::parseJson's checks; a hand-edited spec that sets a figure
/// twice would otherwise lose the first). With Positions, the strict reader's tree is kept there:
/// where each value starts.
support::Expected<nlohmann::json> parseJsonText(std::string_view Text, std::string_view File,
                                                support::JsonValue *Positions = nullptr);

/// "a, b, c": the names of a table.
std::string keysOf(const std::map<std::string, double> &M);

/// Reads a table of {"name", <ValueKey>, "source"} rows into name -> value (a positive number).
support::Expected<std::map<std::string, double>> parseValueTable(const nlohmann::json &J,
                                                                 const char *Table,
                                                                 const char *ValueKey,
                                                                 std::string_view File);

/// Reads the "hosts" table.
support::Expected<std::vector<HostSpec>> parseHosts(const nlohmann::json &J, std::string_view File);

/// Everything a GPU entry refers to besides its own figures.
struct Tables {
  const std::vector<ArchLimits> &archs;
  const std::map<std::string, double> &processes;
  const std::map<std::string, double> &memories;
  const std::vector<HostSpec> &hosts;
  const std::map<std::string, double> &boostHeadroom; ///< form factor -> top clock / boost
};

/// Sets G's memory energy from its memory type. A catalog GPU other than a Jetson module (whose
/// power mode fixes its clock) needs a type of the table; a spec file may leave it out.
std::optional<std::string> setMemoryEnergy(GpuSpec &G, const Tables &T, bool Catalog);
/// A spec file may name another process than its architecture's ("process": "TSMC N7").
std::optional<std::string> setProcess(const nlohmann::json &J, GpuSpec &G, const Tables &T);
/// G's top clock: its entry's "max_clock_mhz" (not below the boost clock), else its boost
/// clock times its form factor's boost headroom (1 for a form factor the table lacks).
std::optional<std::string> setMaxClock(const nlohmann::json &J, GpuSpec &G, const Tables &T);
/// The host G's entry names ("host"), or the default of its form factor: a Jetson module must
/// name its own; a superchip's is Grace, a desktop card's an x86 desktop, others' an x86 server.
std::optional<std::string> setHost(const nlohmann::json &J, GpuSpec &G, const Tables &T);

} // namespace hardware::detail
