// A small dense row-major matrix of doubles: the feature matrix every learner consumes.
#pragma once

#include <cassert>
#include <cstddef>
#include <span>
#include <vector>

namespace learners {

/// Dense row-major matrix. Rows are samples, columns are features.
class Matrix {
public:
  Matrix() = default;
  Matrix(size_t Rows, size_t Cols) : NumRows(Rows), NumCols(Cols), Data(Rows * Cols, 0.0) {}

  size_t rows() const { return NumRows; }
  size_t cols() const { return NumCols; }

  double &operator()(size_t R, size_t C) {
    assert(R < NumRows && C < NumCols && "matrix index out of range");
    return Data[R * NumCols + C];
  }
  double operator()(size_t R, size_t C) const {
    assert(R < NumRows && C < NumCols && "matrix index out of range");
    return Data[R * NumCols + C];
  }

  /// One sample's features.
  std::span<const double> row(size_t R) const {
    assert(R < NumRows && "matrix row out of range");
    return {Data.data() + R * NumCols, NumCols};
  }
  std::span<double> row(size_t R) {
    assert(R < NumRows && "matrix row out of range");
    return {Data.data() + R * NumCols, NumCols};
  }

  /// Appends one row; its length must equal cols() (or set cols() when the matrix is empty).
  void appendRow(std::span<const double> Values) {
    if (NumRows == 0 && NumCols == 0)
      NumCols = Values.size();
    assert(Values.size() == NumCols && "row length differs from the matrix width");
    Data.insert(Data.end(), Values.begin(), Values.end());
    ++NumRows;
  }

  /// All values, row after row.
  const std::vector<double> &values() const { return Data; }

private:
  size_t NumRows = 0;
  size_t NumCols = 0;
  std::vector<double> Data;
};

} // namespace learners
