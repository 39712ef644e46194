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

/// The layer's result, or its error (without the layer's name): the kind's input count checked,
/// then its shape rule.
LayerResult infer(LayerKind Kind, const InShapes &In, const LayerAttrs &A);
/// True when A is the attribute type of a Kind layer.
bool attrsMatch(LayerKind Kind, const LayerAttrs &A);

/// Each kind's shape rule (corpus/LayerKinds.def), defined in its layer file (src/layers/): called
/// with the number of inputs the kind's row asks for (One: exactly one; Many: at least one).
#define LAYER_KIND(Kind, Name, Attrs, Inputs)                                                      \
  LayerResult infer##Kind(const InShapes &In, const Attrs &A);
#include "corpus/LayerKinds.def"

// Helpers of the shape rules.
inline std::string str(int64_t V) { return std::to_string(V); }
/// A result holding only an error message.
LayerResult fail(std::string Message);
/// Numpy multidirectional broadcasting of A and B (Add, Mul, ..., Expand).
LayerResult broadcast(const Shape &A, const Shape &B);
/// An error unless S is 4-d (NCHW).
LayerResult needRank4(const Shape &S);
/// Output extent of a sliding window; 0 or less means the window does not fit.
int64_t windowOut(int64_t In, int64_t PadBefore, int64_t PadAfter, int64_t Kernel, int64_t Stride,
                  int64_t Dilation, bool Ceil);
/// Resolves a possibly negative axis against a rank; -1 when out of range (AllowRank: Rank is in
/// range too).
int64_t resolveAxis(int64_t Axis, size_t Rank, bool AllowRank = false);

} // namespace corpus::layershapes
