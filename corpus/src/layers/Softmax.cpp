// Softmax layers (LayerKinds.def: Softmax): the shape rule, the row and spatial softmax kernels and
// ONNX Softmax.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

namespace corpus {

namespace layershapes {

LayerResult inferSoftmax(const InShapes &In, const SoftmaxAttrs &A) {
  if (resolveAxis(A.axis, In[0]->size()) < 0)
    return fail("axis " + str(A.axis) + " out of range for " + shapeStr(*In[0]));
  LayerResult R;
  R.shape = *In[0];
  return R;
}

} // namespace layershapes

namespace lowering {

support::MaybeError Lowerer::lowerSoftmax(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const std::optional<AxisSplit> Split = splitAround(L.shape, std::get<SoftmaxAttrs>(L.attrs).axis);
  if (!Split)
    return error(Id, "softmax of " + shapeStr(L.shape) + ": a dimension past 2^32 elements");
  SoftmaxSpec S;
  S.rows = Split->outer;
  S.cols = Split->axis;
  S.inner = Split->inner;
  S.dtype = O.dtype;
  return emitAlone(Id, Emitter.add(S));
}

} // namespace lowering

namespace onnximport {

Importer::Result Importer::importSoftmax(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  int64_t Axis = attrInt(N, "axis", Opset < 13 ? 1 : -1);
  return X ? addLayer(N, LayerKind::Softmax, {*X}, SoftmaxAttrs{Axis}) : X;
}

} // namespace onnximport

} // namespace corpus
