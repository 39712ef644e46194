// CSV output: RFC 4180 quoting, a `# key: value` comment block on top, and atomic file writes.
#pragma once

#include "Error.h"

#include <string>
#include <utility>
#include <vector>

namespace measure {

/// A table with a metadata comment block. Rendered as `# key: value` lines, then the header row,
/// then one line per row; fields holding a comma, quote, CR or LF are quoted ("" for a quote).
struct CsvTable {
  std::vector<std::pair<std::string, std::string>> meta;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;

  /// The whole file's text. Every row must have as many fields as there are columns.
  std::string render() const;
};

/// Field F quoted if it needs to be.
std::string csvField(const std::string &F);

/// Writes Contents to Path atomically: to a temporary file in the same folder, flushed, then
/// renamed over Path, so readers see the old file or the complete new one, never a partial one.
MaybeError writeFileAtomic(const std::string &Path, const std::string &Contents);

} // namespace measure
