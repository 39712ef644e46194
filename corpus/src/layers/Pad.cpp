// Padding layers (LayerKinds.def: Pad): the shape rule, the lowering (zero padding folded into
// the convolution or average pool it feeds, other padding a kernel of its own) and ONNX Pad.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

#include <limits>

namespace corpus {

namespace layershapes {

LayerResult inferPad(const InShapes &In, const PadAttrs &A) {
  const Shape &X = *In[0];
  if (auto R = needRank4(X); !R.error.empty())
    return R;
  if (A.top < 0 || A.left < 0 || A.bottom < 0 || A.right < 0)
    return fail("negative padding");
  if (A.mode == PadMode::Reflect &&
      (A.top >= X[2] || A.bottom >= X[2] || A.left >= X[3] || A.right >= X[3]))
    return fail("reflect padding must be smaller than the input");
  LayerResult R;
  R.shape = {X[0], X[1], X[2] + A.top + A.bottom, X[3] + A.left + A.right};
  return R;
}

} // namespace layershapes

namespace lowering {

support::MaybeError Lowerer::lowerPadKernel(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const auto &P = std::get<PadAttrs>(L.attrs);
  const Shape &X = Net.layer(L.inputs[0]).shape;
  if (!fitU32({X[0], X[1], X[2], X[3], P.top, P.left, P.bottom, P.right}))
    return error(Id, "padding of " + shapeStr(X) + ": a size past 2^32");
  const PadKind Kind = P.mode == PadMode::Reflect ? PadKind::Reflect
                       : P.mode == PadMode::Edge  ? PadKind::Edge
                                                  : PadKind::Constant;
  PadSpec S{Kind,        u32(X[0]),     u32(X[1]),    u32(X[2]), u32(X[3]), u32(P.top),
            u32(P.left), u32(P.bottom), u32(P.right), P.value,   O.dtype};
  return emitAlone(Id, Emitter.add(S));
}

/// A Pad of nothing is a view. Zero padding is folded into the convolution it feeds, as the
/// convolution's own padding, or into the average pool it feeds (PyTorch exports avg_pool2d's
/// padding, which counts the zeros, as Pad -> AveragePool: DenseNet's and Inception's pools), as
/// the pool's padding counted in every window; a pool with uncounted padding of its own cannot
/// take it. Any other padding (reflect and edge, before a max pool, a nonzero value) is a kernel
/// of its own, as PyTorch's reflection_pad2d (lowerPadKernel).
support::MaybeError Lowerer::lowerPad(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const auto &P = std::get<PadAttrs>(L.attrs);
  const bool Nothing = P.top == 0 && P.left == 0 && P.bottom == 0 && P.right == 0;
  const LayerId C = sole(Id);
  const bool Zeros = P.mode == PadMode::Constant && P.value == 0.0f && C != InvalidLayer;
  auto CountsPad = [&](const PoolAttrs &A) {
    return A.countIncludePad ||
           (A.padTop == 0 && A.padLeft == 0 && A.padBottom == 0 && A.padRight == 0);
  };
  if (!Nothing && !(Zeros && Net.layer(C).kind == LayerKind::Conv) &&
      !(Zeros && Net.layer(C).kind == LayerKind::AvgPool &&
        CountsPad(std::get<PoolAttrs>(Net.layer(C).attrs))))
    return lowerPadKernel(Id);
  if (!Nothing)
    PadInto[C] = P;
  BufferOf[Id] = BufferOf[L.inputs[0]];
  Int8Of[Id] = Int8Of[L.inputs[0]]; // an int8 engine's: a pad of nothing passes int8 bytes too
  return std::nullopt;
}

} // namespace lowering

namespace onnximport {

Importer::Result Importer::importPad(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  std::string Mode = attrString(N, "mode", "constant");
  PadAttrs A;
  if (Mode == "reflect")
    A.mode = PadMode::Reflect;
  else if (Mode == "edge")
    A.mode = PadMode::Edge;
  else if (Mode != "constant")
    return nodeError(N, "pad mode '" + Mode + "' is not supported");
  std::optional<std::vector<int64_t>> P;
  if (Opset < 11) {
    P = attrInts(N, "pads", {});
    A.value = attrFloat(N, "value", 0.0f);
  } else {
    P = hasInput(N, 1) ? constInts(N.input(1)) : std::nullopt;
    if (hasInput(N, 2)) {
      auto V = constFloat(N.input(2));
      if (!V)
        return nodeError(N, "constant_value must be a constant float");
      A.value = *V;
    }
  }
  if (!P || P->size() != 8)
    return nodeError(N, "pads must be 8 constant integers for a 4-d input");
  const std::vector<int64_t> &V = *P; // N, C, H, W begins, then ends
  if (V[0] || V[1] || V[4] || V[5])
    return nodeError(N, "padding the batch or channel dimension is not supported");
  for (int64_t X : V) // as the pads attribute of a window (OnnxImport.cpp badWindowAttribute)
    if (X > std::numeric_limits<int32_t>::max())
      return nodeError(N, "pads too large: " + std::to_string(X));
  A.top = V[2], A.left = V[3], A.bottom = V[6], A.right = V[7];
  return addLayer(N, LayerKind::Pad, {*X}, A);
}

} // namespace onnximport

} // namespace corpus
