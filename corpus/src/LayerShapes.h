// Shape inference of one layer for Network::add: its output shape, parameters and
// multiply-adds from its inputs' shapes and attributes, with counts that saturate at INT64_MAX
// instead of overflowing (Network::add turns a count past its bounds into an error).
#pragma once

#include "corpus/Network.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace corpus::layershapes {

/// A * B, or INT64_MAX where it overflows (sizes are positive).
inline int64_t saturatingMul(int64_t A, int64_t B) {
  int64_t P = 0;
  return __builtin_mul_overflow(A, B, &P) ? std::numeric_limits<int64_t>::max() : P;
}
/// A + B, or INT64_MAX where it overflows (sizes and counts are not negative).
inline int64_t saturatingAdd(int64_t A, int64_t B) {
  int64_t S = 0;
  return __builtin_add_overflow(A, B, &S) ? std::numeric_limits<int64_t>::max() : S;
}

/// Output shape, parameters and MACs of one layer, or an error message (without the layer name).
struct LayerResult {
  Shape shape;
  int64_t params = 0;
  int64_t macs = 0;
  std::string error;
};

/// Inputs' shapes, in order.
using InShapes = std::vector<const Shape *>;

/// The layer's result, or its error (without the layer's name).
LayerResult infer(LayerKind Kind, const InShapes &In, const LayerAttrs &A);
/// True when A is the attribute type of a Kind layer.
bool attrsMatch(LayerKind Kind, const LayerAttrs &A);

} // namespace corpus::layershapes
