// A small SVG writer for one chart kind, the heat map `ptxcast compare --plot` draws: rows x
// columns of cells coloured by the logarithm of their value (viridis: dark = small, yellow =
// large), the value printed in each cell, cells within a budget outlined, a colour bar below.
// PNG output converts the SVG with rsvg-convert (Debian package librsvg2-bin).
#pragma once

#include "support/Expected.h"

#include <optional>
#include <string>
#include <vector>

namespace ptxcast {

struct HeatMap {
  std::string title;
  std::string subtitle;
  std::string unit; ///< printed with the colour bar, e.g. "ms per batch"
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  std::vector<std::vector<double>> values; ///< values[row][column], positive; NaN = missing
  std::optional<double> budget;            ///< cells with value <= budget get an outline
};

/// The chart as a standalone SVG 1.1 document (deterministic text).
std::string heatMapSvg(const HeatMap &H);

/// Writes Svg to Path: as is for FILE.svg, converted by rsvg-convert for FILE.png. Another
/// extension, a missing rsvg-convert or a failed conversion is an Error naming the file.
support::MaybeError writePlot(const std::string &Svg, const std::string &Path);

} // namespace ptxcast
