// Reductions over axes (LayerKinds.def: Reduce): the shape rule, the axis-reduction kernel and
// ONNX ReduceSum, ReduceMax, ReduceMin, ReduceSumSquare, ReduceL1, ReduceL2 (and ReduceMean over
// axes other than H and W, Pooling.cpp).
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

#include <cassert>

namespace corpus {

namespace layershapes {

LayerResult inferReduce(const InShapes &In, const ReduceAttrs &A) {
  const Shape &X = *In[0];
  const auto Rank = int64_t(X.size());
  if (A.first < 1 || A.first >= A.last || A.last > Rank)
    return fail("axes [" + str(A.first) + ", " + str(A.last) + ") of " + shapeStr(X) +
                ": a reduction needs contiguous axes after the batch axis");
  LayerResult R;
  for (int64_t D = 0; D < Rank; ++D) {
    if (D < A.first || D >= A.last)
      R.shape.push_back(X[size_t(D)]);
    else if (A.keepDims)
      R.shape.push_back(1);
  }
  return R;
}

} // namespace layershapes

namespace lowering {

namespace {

AxisReduceOp kernelReduceOp(ReduceOp Op) {
  switch (Op) {
  case ReduceOp::Sum:
    return AxisReduceOp::Sum;
  case ReduceOp::Mean:
    return AxisReduceOp::Mean;
  case ReduceOp::Max:
    return AxisReduceOp::Max;
  case ReduceOp::Min:
    return AxisReduceOp::Min;
  case ReduceOp::SumSquare:
    return AxisReduceOp::SumSquare;
  case ReduceOp::L1:
    return AxisReduceOp::L1;
  case ReduceOp::L2:
    return AxisReduceOp::L2;
  }
  assert(false && "unknown reduction");
  return AxisReduceOp::Sum;
}

} // namespace

/// The input as [rows, cols, inner] around the reduced axes: one axis-reduction launch.
support::MaybeError Lowerer::lowerReduce(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const auto &A = std::get<ReduceAttrs>(L.attrs);
  const Shape &X = Net.layer(L.inputs[0]).shape;
  const auto Split = splitRun(X, size_t(A.first), size_t(A.last));
  if (!Split)
    return error(Id, "reduction of " + shapeStr(X) + ": a part past 2^32 elements");
  AxisReduceSpec S;
  S.op = kernelReduceOp(A.op);
  S.rows = Split->outer, S.cols = Split->axis, S.inner = Split->inner;
  S.dtype = O.dtype;
  return emitAlone(Id, Emitter.add(S));
}

} // namespace lowering

namespace onnximport {

namespace {

/// The reduction an ONNX Reduce* operator computes, and the opset from which its axes are an
/// input rather than an attribute (ReduceSum's from 13, the others' from 18).
struct ReduceOpInfo {
  ReduceOp op;
  int64_t axesInputFrom;
};

ReduceOpInfo reduceOpOf(const std::string &OpType) {
  if (OpType == "ReduceSum")
    return {ReduceOp::Sum, 13};
  if (OpType == "ReduceMean")
    return {ReduceOp::Mean, 18};
  if (OpType == "ReduceMax")
    return {ReduceOp::Max, 18};
  if (OpType == "ReduceMin")
    return {ReduceOp::Min, 18};
  if (OpType == "ReduceSumSquare")
    return {ReduceOp::SumSquare, 18};
  if (OpType == "ReduceL1")
    return {ReduceOp::L1, 18};
  assert(OpType == "ReduceL2" && "not a reduction");
  return {ReduceOp::L2, 18};
}

} // namespace

Importer::Result Importer::importReduce(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const ReduceOpInfo Info = reduceOpOf(N.op_type());
  const auto Rank = int64_t(Net.layer(*X).shape.size());
  const auto Axes = reduceAxes(N, Rank, Info.axesInputFrom);
  if (!Axes)
    return nodeError(N, "axes must be a constant int64 tensor");
  if (Axes->empty() && attrInt(N, "noop_with_empty_axes", 0) != 0)
    return addLayer(N, LayerKind::Identity, {*X}, IdentityAttrs{});
  for (size_t I = 0; I < Axes->size(); ++I) {
    if ((*Axes)[I] < 0 || (*Axes)[I] >= Rank)
      return nodeError(N, "axis out of range for a rank-" + std::to_string(Rank) + " input");
    if (I > 0 && (*Axes)[I] == (*Axes)[I - 1])
      return nodeError(N, "axis " + std::to_string((*Axes)[I]) + " is listed twice");
  }
  if (Axes->empty() || Axes->front() == 0)
    return nodeError(N, "a reduction over the batch axis is not supported");
  if (Axes->back() - Axes->front() + 1 != int64_t(Axes->size()))
    return nodeError(N, "only a reduction over contiguous axes of the input is supported");
  ReduceAttrs A{Info.op, Axes->front(), Axes->back() + 1, attrInt(N, "keepdims", 1) != 0};
  return addLayer(N, LayerKind::Reduce, {*X}, A);
}

Importer::Result Importer::importReduceSum(const onnx::NodeProto &N) { return importReduce(N); }
Importer::Result Importer::importReduceMax(const onnx::NodeProto &N) { return importReduce(N); }
Importer::Result Importer::importReduceMin(const onnx::NodeProto &N) { return importReduce(N); }
Importer::Result Importer::importReduceSumSquare(const onnx::NodeProto &N) {
  return importReduce(N);
}
Importer::Result Importer::importReduceL1(const onnx::NodeProto &N) { return importReduce(N); }
Importer::Result Importer::importReduceL2(const onnx::NodeProto &N) { return importReduce(N); }

} // namespace onnximport

} // namespace corpus
