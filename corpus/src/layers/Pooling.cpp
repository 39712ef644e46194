// Pooling layers (LayerKinds.def: MaxPool, AvgPool, GlobalAvgPool): the shape rules, the pool
// and reduction kernels, and ONNX MaxPool, AveragePool, GlobalAveragePool and ReduceMean over H
// and W.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

#include <algorithm>

namespace corpus {

namespace layershapes {

namespace {

LayerResult inferPool(const InShapes &In, const PoolAttrs &A) {
  const Shape &X = *In[0];
  if (auto R = needRank4(X); !R.error.empty())
    return R;
  if (A.kernelH <= 0 || A.kernelW <= 0 || A.strideH <= 0 || A.strideW <= 0)
    return fail("kernel and strides must be positive");
  if (A.padTop < 0 || A.padLeft < 0 || A.padBottom < 0 || A.padRight < 0)
    return fail("negative padding");
  if (A.padTop >= A.kernelH || A.padBottom >= A.kernelH || A.padLeft >= A.kernelW ||
      A.padRight >= A.kernelW)
    return fail("padding must be smaller than the pooling window");
  int64_t Ho = windowOut(X[2], A.padTop, A.padBottom, A.kernelH, A.strideH, 1, A.ceilMode);
  int64_t Wo = windowOut(X[3], A.padLeft, A.padRight, A.kernelW, A.strideW, 1, A.ceilMode);
  if (Ho <= 0 || Wo <= 0)
    return fail(str(A.kernelH) + "x" + str(A.kernelW) + " window does not fit input " +
                shapeStr(X));
  LayerResult R;
  R.shape = {X[0], X[1], Ho, Wo};
  return R;
}

} // namespace

LayerResult inferMaxPool(const InShapes &In, const PoolAttrs &A) { return inferPool(In, A); }
LayerResult inferAvgPool(const InShapes &In, const PoolAttrs &A) { return inferPool(In, A); }

LayerResult inferGlobalAvgPool(const InShapes &In, const GlobalPoolAttrs &) {
  const Shape &X = *In[0];
  LayerResult R;
  R.shape = X;
  if (X.size() < 3)
    return fail("expects an input with spatial dimensions, got " + shapeStr(X));
  std::fill(R.shape.begin() + 2, R.shape.end(), 1);
  return R;
}

} // namespace layershapes

namespace lowering {

support::MaybeError Lowerer::lowerMaxPool(LayerId Id) { return lowerPool(Id); }
support::MaybeError Lowerer::lowerAvgPool(LayerId Id) { return lowerPool(Id); }

support::MaybeError Lowerer::lowerPool(LayerId Id) {
  const Layer &L = Net.layer(Id);
  PoolAttrs A = std::get<PoolAttrs>(L.attrs);
  Shape X = Net.layer(L.inputs[0]).shape;
  if (auto P = PadInto.find(Id); P != PadInto.end()) { // the input is the folded Pad's input
    X = Net.layer(Net.layer(L.inputs[0]).inputs[0]).shape;
    A.padTop += P->second.top, A.padLeft += P->second.left;
    A.padBottom += P->second.bottom, A.padRight += P->second.right;
    A.countIncludePad = true; // the Pad's zeros are elements of every window they are in
  }
  PoolSpec S;
  S.kind = L.kind == LayerKind::MaxPool ? PoolKind::Max : PoolKind::Avg;
  S.batch = u32(X[0]), S.channels = u32(X[1]), S.inHeight = u32(X[2]), S.inWidth = u32(X[3]);
  S.kernelH = u32(A.kernelH), S.kernelW = u32(A.kernelW);
  S.strideH = u32(A.strideH), S.strideW = u32(A.strideW);
  S.padTop = u32(A.padTop), S.padLeft = u32(A.padLeft);
  S.padBottom = u32(A.padBottom), S.padRight = u32(A.padRight);
  S.countIncludePad = A.countIncludePad;
  S.dtype = O.dtype;
  // Ceil mode only where it changes the output size: otherwise the floor-mode kernel is the same
  // computation (and the same kernel as before ceil mode was lowered).
  auto FloorFits = [&] { return S.outHeight() == L.shape[2] && S.outWidth() == L.shape[3]; };
  if (A.ceilMode && !FloorFits())
    S.ceilMode = true;
  if (!FloorFits())
    return error(Id, "output shape " + shapeStr(L.shape) + " disagrees with the pool kernel's");
  return emitAlone(Id, Emitter.add(S));
}

support::MaybeError Lowerer::lowerGlobalAvgPool(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const Shape &X = Net.layer(L.inputs[0]).shape;
  ReduceSpec S;
  S.batch = u32(X[0]), S.channels = u32(X[1]);
  S.spatial = u32(elementCount(X) / (X[0] * X[1]));
  S.dtype = O.dtype;
  Tail T = fuseTail(Id, TailRoom::AnyActivation);
  S.epilogue = T.epilogue;
  return emit(Id, Emitter.add(S), {{ParamRole::Input, BufferOf[L.inputs[0]]}}, T, 0);
}

} // namespace lowering

namespace onnximport {

Importer::Result Importer::importMaxPool(const onnx::NodeProto &N) { return importPool(N); }
Importer::Result Importer::importAveragePool(const onnx::NodeProto &N) { return importPool(N); }

Importer::Result Importer::importPool(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  std::vector<int64_t> K = attrInts(N, "kernel_shape", {});
  std::vector<int64_t> S = attrInts(N, "strides", {1, 1});
  std::vector<int64_t> D = attrInts(N, "dilations", {1, 1});
  if (In.size() != 4 || K.size() != 2 || S.size() != 2)
    return nodeError(N, "only 2-d pooling is supported");
  if (D != std::vector<int64_t>{1, 1})
    return nodeError(N, "dilated pooling is not supported");
  int64_t Pads[4];
  if (auto E = windowPads(N, In, K.data(), S.data(), D.data(), Pads))
    return *E;
  PoolAttrs A;
  A.kernelH = K[0], A.kernelW = K[1];
  A.strideH = S[0], A.strideW = S[1];
  A.padTop = Pads[0], A.padLeft = Pads[1], A.padBottom = Pads[2], A.padRight = Pads[3];
  A.ceilMode = attrInt(N, "ceil_mode", 0) != 0;
  A.countIncludePad = attrInt(N, "count_include_pad", 0) != 0;
  LayerKind Kind = N.op_type() == "MaxPool" ? LayerKind::MaxPool : LayerKind::AvgPool;
  return addLayer(N, Kind, {*X}, A);
}

Importer::Result Importer::importGlobalAveragePool(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::GlobalAvgPool, {*X}, GlobalPoolAttrs{}) : X;
}

// [N,C,H,W] -> [N,C,1,1]: a max pool whose one window is the whole image (PyTorch's
// adaptive_max_pool2d(x, 1) is one too).
Importer::Result Importer::importGlobalMaxPool(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  if (In.size() != 4)
    return nodeError(N, "only 2-d pooling is supported");
  PoolAttrs A;
  A.kernelH = In[2], A.kernelW = In[3];
  return addLayer(N, LayerKind::MaxPool, {*X}, A);
}

std::optional<std::vector<int64_t>> Importer::reduceAxes(const onnx::NodeProto &N, int64_t Rank,
                                                         int64_t InputFrom) const {
  std::vector<int64_t> A;
  if (Opset < InputFrom) {
    A = attrInts(N, "axes", {});
  } else if (hasInput(N, 1)) {
    auto Input = constInts(N.input(1));
    if (!Input)
      return std::nullopt;
    A = std::move(*Input);
  }
  for (int64_t &Ax : A)
    Ax = Ax < 0 ? Ax + Rank : Ax;
  std::sort(A.begin(), A.end());
  return A;
}

// ReduceMean(data, axes?) with keepdims: axes an attribute before opset 18, an input from 18 on.
// Over H and W of a 4-d input a global average pool (as before the Reduce kind), else a Reduce.
Importer::Result Importer::importReduceMean(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  if (auto Norm = layerNormPattern(N)) // the first node of a layer norm (Normalization.cpp)
    return fuseLayerNorm(N, *Norm);
  const int64_t Rank = static_cast<int64_t>(Net.layer(*X).shape.size());
  const auto A = reduceAxes(N, Rank);
  if (!A)
    return nodeError(N, "axes must be a constant int64 tensor");
  if (Rank != 4 || *A != std::vector<int64_t>{2, 3})
    return importReduce(N); // a mean over other axes (Reduce.cpp)
  if (attrInt(N, "keepdims", 1) != 0)
    return addLayer(N, LayerKind::GlobalAvgPool, {*X}, GlobalPoolAttrs{});
  // keepdims 0: the pool keeps {N, C, 1, 1}; a Flatten named after the node drops the 1s.
  auto Pool = Net.add(layerName(N) + "/pool", LayerKind::GlobalAvgPool, {*X}, GlobalPoolAttrs{});
  if (!Pool)
    return nodeError(N, Pool.error().message);
  return addLayer(N, LayerKind::Flatten, {*Pool}, FlattenAttrs{1});
}

} // namespace onnximport

} // namespace corpus
