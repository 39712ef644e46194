// Layers that are views of their input (LayerKinds.def: Flatten, Reshape, Identity): the shape
// rules, no kernel, and ONNX Flatten, Reshape, Identity and Dropout (Squeeze and Unsqueeze of an
// activation make reshapes too, OnnxShapeOps.cpp).
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

#include <algorithm>

namespace corpus {

namespace layershapes {

LayerResult inferFlatten(const InShapes &In, const FlattenAttrs &A) {
  const Shape &X = *In[0];
  int64_t Axis = resolveAxis(A.axis, X.size(), true);
  if (Axis < 0)
    return fail("axis " + str(A.axis) + " out of range for " + shapeStr(X));
  Shape Outer(X.begin(), X.begin() + Axis), Inner(X.begin() + Axis, X.end());
  LayerResult R;
  R.shape = {elementCount(Outer), elementCount(Inner)};
  return R;
}

LayerResult inferReshape(const InShapes &In, const ReshapeAttrs &A) {
  const Shape &X = *In[0];
  LayerResult R;
  R.shape = A.target;
  int64_t Infer = -1, Known = 1;
  for (size_t I = 0; I < R.shape.size(); ++I) {
    int64_t &D = R.shape[I];
    if (D == 0) {
      if (I >= X.size())
        return fail("target " + shapeStr(A.target) + " copies a dimension " + shapeStr(X) +
                    " lacks");
      D = X[I];
    }
    if (D == -1) {
      if (Infer >= 0)
        return fail("target " + shapeStr(A.target) + " has more than one -1");
      Infer = static_cast<int64_t>(I);
      continue;
    }
    if (D <= 0)
      return fail("invalid target dimension " + str(D));
    Known = saturatingMul(Known, D);
  }
  int64_t Total = elementCount(X);
  if (Infer >= 0) {
    if (Total % Known != 0)
      return fail("cannot reshape " + shapeStr(X) + " to " + shapeStr(A.target));
    R.shape[Infer] = Total / Known;
  }
  if (elementCount(R.shape) != Total)
    return fail("cannot reshape " + shapeStr(X) + " to " + shapeStr(A.target));
  return R;
}

LayerResult inferIdentity(const InShapes &In, const IdentityAttrs &) {
  LayerResult R;
  R.shape = *In[0];
  return R;
}

} // namespace layershapes

namespace lowering {

support::MaybeError Lowerer::lowerFlatten(LayerId Id) { return lowerView(Id); }
support::MaybeError Lowerer::lowerReshape(LayerId Id) { return lowerView(Id); }
support::MaybeError Lowerer::lowerIdentity(LayerId Id) { return lowerView(Id); }

} // namespace lowering

namespace onnximport {

Importer::Result Importer::importFlatten(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Flatten, {*X}, FlattenAttrs{attrInt(N, "axis", 1)}) : X;
}

Importer::Result Importer::importReshape(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  auto Target = hasInput(N, 1) ? constInts(N.input(1)) : std::nullopt;
  if (!Target) { // not a constant: fall back to the shape libonnx inferred
    auto It = Known.find(N.output(0));
    if (It == Known.end() || !allPositive(It->second))
      return nodeError(N, "target shape must be a constant int64 tensor");
    Target = It->second;
  }
  if (attrInt(N, "allowzero", 0) != 0 && std::count(Target->begin(), Target->end(), 0))
    return nodeError(N, "allowzero=1 with a zero dimension is not supported");
  return addLayer(N, LayerKind::Reshape, {*X}, ReshapeAttrs{*Target});
}

Importer::Result Importer::importIdentity(const onnx::NodeProto &N) {
  // PyTorch's exporter (1.13) passes a weight it stores once to a second user through Identity:
  // the output is that constant too, or without data a weight of the same shape.
  if (hasInput(N, 0) && !Values.count(N.input(0)) && N.output_size() > 0) {
    if (const onnx::TensorProto *T = constant(N.input(0))) {
      Constants[N.output(0)] = *T;
      return InvalidLayer;
    }
    if (auto S = staticShape(N.input(0))) { // a weight without data: its shape passed on
      Known[N.output(0)] = *S;
      return InvalidLayer;
    }
  }
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Identity, {*X}, IdentityAttrs{}) : X;
}

Importer::Result Importer::importDropout(const onnx::NodeProto &N) { return importIdentity(N); }

// An explicitly quantized (QDQ) model, as TensorRT takes int8 networks: a QuantizeLinear ->
// DequantizeLinear pair around each quantized tensor. Imported as its float graph: each node
// passes its input on (an int8 weight's shape to its convolution), its scale and zero point are
// parameters of the quantization, not layers; the int8 engine (`--dtype int8`) quantizes the
// convolutions and dense layers itself.
Importer::Result Importer::importQuantizeLinear(const onnx::NodeProto &N) {
  if (hasInput(N, 0) && !Values.count(N.input(0)) && N.output_size() > 0)
    if (auto S = staticShape(N.input(0))) { // of a weight: its shape, not its int8 data
      Known[N.output(0)] = *S;
      return InvalidLayer;
    }
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Identity, {*X}, IdentityAttrs{}) : X;
}

Importer::Result Importer::importDequantizeLinear(const onnx::NodeProto &N) {
  return importQuantizeLinear(N);
}

} // namespace onnximport

} // namespace corpus
