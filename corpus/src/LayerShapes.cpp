// Shape inference of one layer (LayerShapes.h): the input count each kind's row asks for, then
// the kind's shape rule (in its layer file, src/layers/).
#include "LayerShapes.h"

#include <cassert>

namespace corpus::layershapes {

LayerResult fail(std::string Message) {
  LayerResult R;
  R.error = std::move(Message);
  return R;
}

LayerResult broadcast(const Shape &A, const Shape &B) {
  size_t Rank = std::max(A.size(), B.size());
  LayerResult R;
  R.shape.assign(Rank, 1);
  for (size_t I = 0; I < Rank; ++I) {
    int64_t DA = I < Rank - A.size() ? 1 : A[I - (Rank - A.size())];
    int64_t DB = I < Rank - B.size() ? 1 : B[I - (Rank - B.size())];
    if (DA != DB && DA != 1 && DB != 1)
      return fail("shapes " + shapeStr(A) + " and " + shapeStr(B) + " do not broadcast");
    R.shape[I] = DA == 1 ? DB : DA;
  }
  return R;
}

LayerResult needRank4(const Shape &S) {
  if (S.size() != 4)
    return fail("expects a 4-d NCHW input, got " + shapeStr(S));
  return {};
}

int64_t windowOut(int64_t In, int64_t PadBefore, int64_t PadAfter, int64_t Kernel, int64_t Stride,
                  int64_t Dilation, bool Ceil) {
  int64_t Span = In + PadBefore + PadAfter - Dilation * (Kernel - 1) - 1;
  if (Span < 0)
    return 0;
  int64_t Out = (Ceil ? (Span + Stride - 1) / Stride : Span / Stride) + 1;
  // A ceil-mode window must start inside the input or its leading padding (PyTorch, ONNX).
  if (Ceil && (Out - 1) * Stride >= In + PadBefore)
    --Out;
  return Out;
}

int64_t resolveAxis(int64_t Axis, size_t Rank, bool AllowRank) {
  int64_t R = static_cast<int64_t>(Rank);
  int64_t A = Axis < 0 ? Axis + R : Axis;
  return A < 0 || A > R || (A == R && !AllowRank) ? -1 : A;
}

/// Inputs are added by Network::addInput, with their shape; never by Network::add.
LayerResult inferInput(const InShapes &, const InputAttrs &) {
  return fail("an input is added with its shape, not inferred");
}

namespace {

enum class InputCount { Zero, One, Many };

/// The input-count error of a Kind layer with N inputs, or "".
std::string inputCountError(InputCount Want, size_t N) {
  if (Want == InputCount::One && N != 1)
    return "expects one input, got " + str(int64_t(N));
  if (N == 0)
    return "expects at least one input";
  return "";
}

} // namespace

bool attrsMatch(LayerKind Kind, const LayerAttrs &A) {
  switch (Kind) {
#define LAYER_KIND(K, Name, Attrs, Inputs)                                                         \
  case LayerKind::K:                                                                               \
    return std::holds_alternative<Attrs>(A);
#include "corpus/LayerKinds.def"
  }
  return false;
}

LayerResult infer(LayerKind Kind, const InShapes &In, const LayerAttrs &A) {
  assert(attrsMatch(Kind, A) && "attributes do not match the layer kind");
  switch (Kind) {
#define LAYER_KIND(K, Name, Attrs, Inputs)                                                         \
  case LayerKind::K:                                                                               \
    if (std::string E = inputCountError(InputCount::Inputs, In.size()); !E.empty())                \
      return fail(E);                                                                              \
    return infer##K(In, std::get<Attrs>(A));
#include "corpus/LayerKinds.def"
  }
  return fail("unknown layer kind");
}

} // namespace corpus::layershapes
