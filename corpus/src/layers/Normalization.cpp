// Normalisation layers (LayerKinds.def: BatchNorm, LayerNorm): the shape rules, the lowerings (a
// batch norm after a convolution or dense layer is fused into its kernel; one alone is an
// elementwise kernel) and ONNX BatchNormalization and LayerNormalization.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

namespace corpus {

namespace layershapes {

LayerResult inferBatchNorm(const InShapes &In, const BatchNormAttrs &) {
  const Shape &X = *In[0];
  if (X.size() < 2)
    return fail("expects an input with a channel dimension, got " + shapeStr(X));
  LayerResult R;
  R.shape = X;
  R.params = 2 * X[1]; // gamma and beta (trainable); running mean/var are not parameters
  return R;
}

LayerResult inferLayerNorm(const InShapes &In, const LayerNormAttrs &) {
  LayerResult R;
  R.shape = *In[0];
  R.params = 2 * R.shape.back(); // scale and shift per feature
  return R;
}

} // namespace layershapes

namespace lowering {

std::optional<support::Error> Lowerer::lowerBatchNorm(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const Shape &Y = L.shape;
  if (Y.size() < 2)
    return error(Id, "batch-norm needs a channel dimension");
  ElementwiseSpec S;
  S.op = ElementwiseOp::BatchNorm;
  S.dtype = O.dtype;
  S.math = elementwiseMath();
  S.batch = u32(Y[0]);
  S.channels = u32(Y[1]);
  S.spatial = u32(elementCount(Y) / (Y[0] * Y[1]));
  Tail T = fuseTail(Id, false, false);
  S.activation = T.epilogue.activation;
  return emit(Id, Emitter.add(S), {{ParamRole::Input, BufferOf[L.inputs[0]]}}, T, 0);
}

std::optional<support::Error> Lowerer::lowerLayerNorm(LayerId Id) {
  const Layer &L = Net.layer(Id);
  LayerNormSpec S;
  S.cols = u32(L.shape.back());
  S.rows = u32(elementCount(L.shape) / L.shape.back());
  S.epsilon = std::get<LayerNormAttrs>(L.attrs).epsilon;
  S.dtype = O.dtype;
  return emitAlone(Id, Emitter.add(S), 1);
}

} // namespace lowering

namespace onnximport {

Importer::Result Importer::importBatchNormalization(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  for (int I = 1; I <= 4; ++I) {
    auto S = hasInput(N, I) ? staticShape(N.input(I)) : std::nullopt;
    if (!hasInput(N, I))
      return nodeError(N, "missing input " + std::to_string(I));
    if (S && In.size() >= 2 && *S != Shape{In[1]})
      return nodeError(N, "parameter '" + N.input(I) + "' has shape " + shapeStr(*S) + ", not [" +
                              std::to_string(In[1]) + "]");
  }
  return addLayer(N, LayerKind::BatchNorm, {*X}, BatchNormAttrs{attrFloat(N, "epsilon", 1e-5f)});
}

Importer::Result Importer::importLayerNormalization(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const int64_t Rank = int64_t(Net.layer(*X).shape.size()), Given = attrInt(N, "axis", -1);
  if ((Given < 0 ? Given + Rank : Given) != Rank - 1)
    return nodeError(N, "only a normalisation over the last axis is supported (axis -1), got axis " +
                            std::to_string(Given));
  if (!hasInput(N, 1) || !staticShape(N.input(1)))
    return nodeError(N, "the scale must be an initializer or have a known shape");
  return addLayer(N, LayerKind::LayerNorm, {*X},
                  LayerNormAttrs{attrFloat(N, "epsilon", 1e-5f)});
}

} // namespace onnximport

} // namespace corpus
