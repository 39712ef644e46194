// The dataset schema every learner uses, and its CSV form (RFC 4180) in and out.
//
// A Dataset is a table of rows. Each row has
//   - identifier columns (strings: network, layer, GPU name, kernel name, ...), used to group rows
//     for cross-validation and to label predictions, never as model inputs;
//   - feature columns (finite doubles), the model inputs, in a fixed documented order;
//   - one target column (a finite double, e.g. measured latency in ms).
// Column order is deterministic: identifiers, then features, then the target, each in the order
// the schema (or, when the schema leaves features implicit, the CSV header) gives them.
#pragma once

#include "learners/Matrix.h"
#include "support/Expected.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace learners {

/// A named numeric vector (name, value), in a fixed order: one row of features.
using NamedVector = std::vector<std::pair<std::string, double>>;

/// A table of identifier columns, numeric feature columns and one numeric target.
struct Dataset {
  std::vector<std::string> idNames;      ///< identifier column names
  std::vector<std::string> featureNames; ///< feature column names, model input order
  std::string targetName;                ///< target column name

  std::vector<std::vector<std::string>> ids; ///< ids[row][idColumn]
  Matrix features;                           ///< features(row, featureColumn)
  std::vector<double> target;                ///< target[row]

  size_t size() const { return target.size(); }

  /// Appends one row; sizes must match the column name lists.
  void addRow(std::vector<std::string> Ids, std::span<const double> Features, double Target);

  /// Index of an identifier or feature column by exact name.
  std::optional<size_t> idIndex(std::string_view Name) const;
  std::optional<size_t> featureIndex(std::string_view Name) const;

  /// The rows at the given indices, in that order (same columns).
  Dataset subset(std::span<const size_t> Rows) const;

  /// Appends the rows of Other, which must have the same columns in the same order.
  support::MaybeError append(const Dataset &Other);

  /// A copy keeping only the named features, in the given order; an unknown name is an error.
  support::Expected<Dataset> selectFeatures(std::span<const std::string> Names) const;
};

/// How to read a CSV file into a Dataset.
struct CsvSchema {
  std::string target;                      ///< target column; empty = the last column
  std::vector<std::string> idColumns;      ///< string columns kept as identifiers
  std::vector<std::string> featureColumns; ///< numeric inputs; empty = every other column
  std::vector<std::string> ignoreColumns;  ///< columns dropped (only meaningful when features
                                           ///< are implicit)
  /// A column not listed as a feature that holds any non-numeric value becomes an identifier
  /// (in header order, after the listed ones) instead of being an error. This is how files
  /// written by `ptxcast dataset` read without listing their identifiers.
  bool inferIds = false;
};

/// Parses CSV text (RFC 4180: comma separated, double-quoted fields with "" escapes, CRLF or LF).
/// The first record is the header. `File` names the source in error messages, which read
/// `FILE:LINE: error: ...` (ragged rows, non-numeric or non-finite values in numeric columns,
/// unknown or duplicate column names, an unterminated quoted field).
support::Expected<Dataset> parseCsv(std::string_view Text, std::string_view File,
                                    const CsvSchema &Schema);

/// Reads and parses a CSV file (see parseCsv).
support::Expected<Dataset> readCsvFile(const std::string &Path, const CsvSchema &Schema);

/// Reads several CSV files with the same schema into one dataset, rows in file order. Every file
/// must give the same identifier, feature and target columns (an error names the first that
/// differs).
support::Expected<Dataset> readCsvFiles(const std::vector<std::string> &Paths,
                                        const CsvSchema &Schema);

/// Writes the dataset as CSV: header, then one line per row; columns are ids, features, target.
/// Numbers are written in the shortest form that reads back to the same double.
std::string writeCsv(const Dataset &D);

/// Splits one CSV text into records of fields (RFC 4180). Exposed for tests and tools.
/// Each record carries the 1-based line on which it starts.
struct CsvRecord {
  uint32_t line = 0;
  std::vector<std::string> fields;
};
support::Expected<std::vector<CsvRecord>> splitCsv(std::string_view Text, std::string_view File);

} // namespace learners
