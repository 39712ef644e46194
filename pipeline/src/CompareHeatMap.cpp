// The heat map of a compare document: what a cell shows and how it is marked (HeatMap.h).
#include "pipeline/HeatMap.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace pipeline {
namespace {

using OJson = nlohmann::ordered_json;

struct ValueInfo {
  PlotValue value;
  std::string_view name, field, title, unit;
};

constexpr ValueInfo Values[] = {
    {PlotValue::Time, "time", "time_ms", "Predicted time per batch (ms)", "ms per batch"},
    {PlotValue::ImagesPerSecond, "images-per-s", "images_per_s", "Predicted images per second",
     "images/s"},
    {PlotValue::ImagesPerSecondPerWatt, "images-per-s-per-w", "images_per_s_per_w",
     "Predicted images per second per watt of TDP", "images/s/W"},
};

const ValueInfo &infoOf(PlotValue V) {
  return *std::find_if(std::begin(Values), std::end(Values),
                       [V](const ValueInfo &I) { return I.value == V; });
}

/// What an outline means: the targets the document was asked for.
std::string targetsText(const OJson &Doc) {
  std::string S;
  if (Doc["budget_ms"].is_number())
    S = fmt::format("within {:g} ms per batch", Doc["budget_ms"].get<double>());
  if (Doc["target_ips"].is_number())
    S += fmt::format("{}at least {:g} images/s", S.empty() ? "" : ", ",
                     Doc["target_ips"].get<double>());
  return S.empty() ? S : S + ", in memory";
}

} // namespace

std::string_view plotValueName(PlotValue V) { return infoOf(V).name; }

support::Expected<PlotValue> parsePlotValue(std::string_view Name) {
  std::string Known;
  for (const ValueInfo &I : Values) {
    if (I.name == Name)
      return I.value;
    Known += (Known.empty() ? "" : ", ") + std::string(I.name);
  }
  return support::Error(fmt::format("unknown plot value '{}' (valid: {})", Name, Known));
}

HeatMap compareHeatMap(const OJson &Doc, PlotValue V) {
  const ValueInfo &Info = infoOf(V);
  const bool MaxBatch = Doc.value("max_batch", false);
  HeatMap H;
  H.title = std::string(Info.title);
  if (MaxBatch)
    H.title += ", at the largest batch";
  H.unit = std::string(Info.unit);
  H.higherIsBetter = V != PlotValue::Time;
  const OJson &Model = Doc["model"];
  H.subtitle = fmt::format("{} runtime, {}; model {}: {}", Doc["runtime"].get<std::string>(),
                           Doc["dtype"].get<std::string>(), Model["name"].get<std::string>(),
                           Model["predicts"].get<std::string>());
  if (MaxBatch)
    H.subtitle = "cells: value @ batch (none: no batch fits and meets the targets); " + H.subtitle;
  H.meetsLegend = targetsText(Doc);
  const OJson &Rows = Doc["results"];
  bool Several = false;
  for (const OJson &R : Rows)
    Several |= R["batch"] != Rows.front()["batch"];
  Several &= !MaxBatch;
  auto RowOf = [&](const OJson &R) {
    const std::string Model = R["model"].get<std::string>();
    return Several ? fmt::format("{} (batch {})", Model, R["batch"].get<int64_t>()) : Model;
  };
  auto Index = [](std::vector<std::string> &Names, const std::string &Name) {
    size_t I = std::find(Names.begin(), Names.end(), Name) - Names.begin();
    if (I == Names.size())
      Names.push_back(Name);
    return I;
  };
  for (const OJson &R : Rows) {
    Index(H.rows, RowOf(R));
    Index(H.columns, R["gpu"].get<std::string>());
  }
  const size_t Columns = H.columns.size();
  H.values.assign(H.rows.size(), std::vector<double>(Columns, NAN));
  H.notes.assign(H.rows.size(), std::vector<std::string>(Columns));
  H.meets.assign(H.rows.size(), std::vector<bool>(Columns, false));
  H.misfit.assign(H.rows.size(), std::vector<bool>(Columns, false));
  for (const OJson &R : Rows) {
    const size_t Ri = Index(H.rows, RowOf(R)), Ci = Index(H.columns, R["gpu"].get<std::string>());
    const bool None = MaxBatch && R["max_batch"] == 0;
    H.values[Ri][Ci] = None ? NAN : R[std::string(Info.field)].get<double>();
    H.meets[Ri][Ci] = R["meets_targets"].is_boolean() && R["meets_targets"].get<bool>();
    H.misfit[Ri][Ci] = !R["memory"]["fits"].get<bool>();
    if (MaxBatch)
      H.notes[Ri][Ci] = None ? "none" : fmt::format(" @{}", R["batch"].get<int64_t>());
  }
  return H;
}

} // namespace pipeline
