// The heat map of `ptxcast compare --plot` and Python's `Comparison.plot()`: rows (models, with
// the batch when several) x columns (GPUs), each cell coloured by the logarithm of its value on
// viridis (dark = better: short times, many images/s), the value printed in it, cells meeting
// the targets outlined in red, cells that do not fit the GPU's memory grey, a colour bar below.
// Both draw it from the compare JSON document through these functions, so they draw the same
// bytes. PNG output converts the SVG with rsvg-convert (Debian package librsvg2-bin).
#pragma once

#include "support/Expected.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace pipeline {

struct HeatMap {
  std::string title;
  std::string subtitle; ///< wrapped to the chart's width
  std::string unit;     ///< printed with the colour bar, e.g. "ms per batch"
  bool higherIsBetter = false; ///< images/s: large values dark
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  std::vector<std::vector<double>> values; ///< values[row][column], positive; NaN = missing
  /// Text after a cell's value (" @64"), or in its place when the value is missing ("none";
  /// empty: "n/a"). Empty: none.
  std::vector<std::vector<std::string>> notes;
  std::vector<std::vector<bool>> meets;  ///< outlined cells (empty: none)
  std::vector<std::vector<bool>> misfit; ///< grey cells: they do not fit in memory (empty: none)
  std::string meetsLegend; ///< what an outline means ("within 33.3 ms per batch")
};

/// What a compare heat map shows.
enum class PlotValue { Time, ImagesPerSecond, ImagesPerSecondPerWatt };
/// "time", "images-per-s", "images-per-s-per-w".
std::string_view plotValueName(PlotValue V);
support::Expected<PlotValue> parsePlotValue(std::string_view Name);

/// The heat map of a `ptxcast compare --format json` document.
HeatMap compareHeatMap(const nlohmann::ordered_json &CompareDocument, PlotValue V);

/// The chart as a standalone SVG 1.1 document (deterministic text).
std::string heatMapSvg(const HeatMap &H);

/// Whether Path can take a plot, checked before any work: it ends in .svg or .png, its folder
/// exists and is writable, and for .png rsvg-convert is installed. Errors name Path.
support::MaybeError checkPlotPath(const std::string &Path);

/// Writes Svg to Path atomically: as is for FILE.svg, converted by rsvg-convert for FILE.png.
/// Errors name Path, never a temporary file.
support::MaybeError writePlot(const std::string &Svg, const std::string &Path);

} // namespace pipeline
