// Layers that copy elements (LayerKinds.def: Transpose, Slice, Upsample, Concat): the shape rules,
// the strided copy (a view when nothing moves), the bilinear upsampling kernel and the batched
// concatenation, and ONNX Transpose, Slice, Split, Resize, Upsample and Concat.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace corpus {

namespace layershapes {

LayerResult inferTranspose(const InShapes &In, const TransposeAttrs &A) {
  const Shape &X = *In[0];
  const std::vector<int64_t> Perm = resolvePerm(A, X.size());
  if (Perm.size() != X.size())
    return fail("perm has " + str(int64_t(Perm.size())) + " entries for " + shapeStr(X));
  std::vector<bool> Seen(X.size(), false);
  LayerResult R;
  for (int64_t P : Perm) {
    if (P < 0 || P >= int64_t(X.size()) || Seen[size_t(P)])
      return fail("perm is not a permutation of the " + str(int64_t(X.size())) + " dimensions");
    Seen[size_t(P)] = true;
    R.shape.push_back(X[size_t(P)]);
  }
  return R;
}

LayerResult inferSlice(const InShapes &In, const SliceAttrs &A) {
  const Shape &X = *In[0];
  auto Ranges = resolveSlice(X, A);
  if (!Ranges)
    return fail(Ranges.error().message);
  LayerResult R;
  for (const SliceRange &S : *Ranges)
    R.shape.push_back(S.count);
  return R;
}

LayerResult inferUpsample(const InShapes &In, const UpsampleAttrs &A) {
  const Shape &X = *In[0];
  if (auto R = needRank4(X); !R.error.empty())
    return R;
  if (A.scaleH < 1 || A.scaleW < 1 || A.scaleH > (int64_t(1) << 20) ||
      A.scaleW > (int64_t(1) << 20))
    return fail("scale factors must be integers in 1..2^20, got " + str(A.scaleH) + "x" +
                str(A.scaleW));
  LayerResult R;
  R.shape = {X[0], X[1], X[2] * A.scaleH, X[3] * A.scaleW};
  return R;
}

LayerResult inferExpand(const InShapes &In, const ExpandAttrs &A) {
  for (int64_t D : A.shape)
    if (D <= 0)
      return fail("the shape " + shapeStr(A.shape) + " has a dimension that is not positive");
  return broadcast(*In[0], A.shape);
}

LayerResult inferConcat(const InShapes &In, const ConcatAttrs &A) {
  if (In.empty())
    return fail("expects at least one input");
  const Shape &First = *In[0];
  int64_t Axis = resolveAxis(A.axis, First.size());
  if (Axis < 0)
    return fail("axis " + str(A.axis) + " out of range for " + shapeStr(First));
  LayerResult R;
  R.shape = First;
  for (size_t I = 1; I < In.size(); ++I) {
    const Shape &S = *In[I];
    bool Match = S.size() == First.size();
    for (size_t D = 0; Match && D < S.size(); ++D)
      Match = static_cast<int64_t>(D) == Axis || S[D] == First[D];
    if (!Match)
      return fail("cannot concatenate " + shapeStr(First) + " and " + shapeStr(S) + " on axis " +
                  str(Axis));
    R.shape[Axis] = saturatingAdd(R.shape[Axis], S[Axis]);
  }
  return R;
}

} // namespace layershapes

namespace lowering {

namespace {

/// The copy that reads Ranges of a tensor of shape X (every axis whole when empty) in the
/// dimension order Perm (the identity when empty).
std::optional<CopySpec> planGather(const Shape &X, const std::vector<SliceRange> &Ranges,
                                   const std::vector<int64_t> &Perm, DType T) {
  std::vector<uint64_t> In(X.begin(), X.end());
  std::vector<CopyAxis> Axes(X.size());
  std::vector<size_t> Order(X.size());
  for (size_t D = 0; D < X.size(); ++D) {
    Axes[D] = Ranges.empty() ? CopyAxis{0, In[D], 1}
                             : CopyAxis{uint64_t(Ranges[D].start), uint64_t(Ranges[D].count),
                                        uint64_t(Ranges[D].step)};
    Order[D] = Perm.empty() ? D : size_t(Perm[D]);
  }
  return planCopy(In, Axes, Order, T);
}

} // namespace

support::MaybeError Lowerer::lowerTranspose(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const Shape &X = Net.layer(L.inputs[0]).shape;
  return lowerCopy(
      Id, planGather(X, {}, resolvePerm(std::get<TransposeAttrs>(L.attrs), X.size()), O.dtype));
}

support::MaybeError Lowerer::lowerSlice(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const Shape &X = Net.layer(L.inputs[0]).shape;
  auto Ranges = resolveSlice(X, std::get<SliceAttrs>(L.attrs));
  assert(Ranges && "Network::add validated the slice");
  return lowerCopy(Id, planGather(X, *Ranges, {}, O.dtype));
}

/// Nothing where every consumer reads the input broadcast in place (expandsInPlace), as PyTorch's
/// expand is a view its consumers broadcast; else a strided copy whose broadcast dimensions (1 in
/// the input, more in the output) read the same element again (stride 0), or nothing when
/// nothing is broadcast.
support::MaybeError Lowerer::lowerExpand(LayerId Id) {
  const Layer &L = Net.layer(Id);
  if (expandsInPlace(Id)) { // its consumers broadcast the input themselves
    BufferOf[Id] = BufferOf[L.inputs[0]];
    ReadInPlace.insert(Id);
    return std::nullopt;
  }
  const Shape &Y = L.shape;
  const Shape X = alignedTo(Net.layer(L.inputs[0]).shape, Y.size());
  std::vector<uint64_t> In(X.begin(), X.end());
  std::vector<CopyAxis> Axes(X.size());
  std::vector<size_t> Order(X.size());
  for (size_t D = 0; D < X.size(); ++D) {
    Axes[D] = CopyAxis{0, uint64_t(Y[D]), X[D] == Y[D] ? 1u : 0u};
    Order[D] = D;
  }
  return lowerCopy(Id, planCopy(In, Axes, Order, O.dtype));
}

support::MaybeError Lowerer::lowerUpsample(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const Shape &X = Net.layer(L.inputs[0]).shape;
  const auto &U = std::get<UpsampleAttrs>(L.attrs);
  if (U.linear && (U.scaleH > 1 || U.scaleW > 1)) {
    if (!fitU32({X[0], X[1], X[2] * U.scaleH, X[3] * U.scaleW}))
      return error(Id, "bilinear upsampling of " + shapeStr(X) + ": a dimension past 2^32");
    UpsampleSpec S{u32(X[0]),     u32(X[1]),     u32(X[2]), u32(X[3]),
                   u32(U.scaleH), u32(U.scaleW), O.dtype};
    S.coords = U.coords == ResizeCoords::AlignCorners ? UpsampleCoords::AlignCorners
               : U.coords == ResizeCoords::Asymmetric ? UpsampleCoords::Asymmetric
                                                      : UpsampleCoords::HalfPixel;
    return emitAlone(Id, Emitter.add(S));
  }
  return lowerCopy(Id, planUpsample(uint64_t(X[0] * X[1]), uint64_t(X[2]), uint64_t(X[3]),
                                    uint64_t(U.scaleH), uint64_t(U.scaleW), O.dtype));
}

support::MaybeError Lowerer::lowerCopy(LayerId Id, const std::optional<CopySpec> &S) {
  if (!S) { // the same elements in the same order
    BufferOf[Id] = BufferOf[Net.layer(Id).inputs[0]];
    return std::nullopt;
  }
  return emitAlone(Id, Emitter.add(*S));
}

support::MaybeError Lowerer::lowerConcat(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const int64_t Given = std::get<ConcatAttrs>(L.attrs).axis;
  // Any axis is [outer, axis, inner] (PyTorch's CatArrayBatchedCopy takes the dimension too):
  // channels are axis 1 of NCHW, a YOLO head's boxes the last axis (inner 1).
  const std::optional<AxisSplit> Split = splitAround(L.shape, Given);
  if (!Split)
    return error(Id, "concatenation of " + shapeStr(L.shape) + " along axis " +
                         std::to_string(Given) + ": a dimension past 2^32 elements");
  const std::string Out =
      newBuffer(L.name + ".out", static_cast<uint64_t>(elementCount(L.shape)) * dtypeBytes(O.dtype),
                false, 0);
  std::vector<uint32_t> Channels;
  for (LayerId In : L.inputs)
    Channels.push_back(u32(Net.layer(In).shape[Split->at]));
  // PyTorch's torch.cat: one batched copy launch per run of up to 128 inputs, each input into its
  // channel slice of the one output (emit() maps a role to one buffer, so the launch is built
  // here).
  size_t Next = 0; // the first input of the next launch
  for (const ConcatSpec &S : planConcat(Split->outer, Channels, Split->inner, O.dtype)) {
    auto K = Emitter.add(S);
    if (!K)
      return error(Id, K.error().message);
    assert(K->params.size() == S.channels.size() + 1 && "concat: inputs, then the output");
    WorkloadLaunch Launch{K->kernel,      K->strategy, K->grid,  K->block,
                          K->sharedBytes, {},          {L.name}, Next ? 0 : L.macs};
    Launch.dtype = K->dtype;
    for (size_t I = 0; I < S.channels.size(); ++I)
      Launch.args.push_back({BufferOf[L.inputs[Next + I]], 0, "", 0});
    Launch.args.push_back({Out, 0, "", 0});
    appendShapeArgs(*K, Launch);
    W.launches.push_back(std::move(Launch));
    Next += S.channels.size();
  }
  BufferOf[Id] = Out;
  return std::nullopt;
}

} // namespace lowering

namespace onnximport {

// Expand(input, shape): the shape a constant int64 tensor (Shape arithmetic folds expand_as's).
Importer::Result Importer::importExpand(const onnx::NodeProto &N) {
  if (hasInput(N, 0) && !isLayer(N.input(0)))
    return nodeError(N, "only an activation can be expanded, not a constant");
  Result X = value(N, 0);
  if (!X)
    return X;
  auto Target = hasInput(N, 1) ? constInts(N.input(1)) : std::nullopt;
  if (!Target)
    return nodeError(N, "shape must be a constant int64 tensor");
  return addLayer(N, LayerKind::Expand, {*X}, ExpandAttrs{Shape(Target->begin(), Target->end())});
}

Importer::Result Importer::importTranspose(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Transpose, {*X}, TransposeAttrs{attrInts(N, "perm", {})}) : X;
}

Importer::Result Importer::depthToSpace(const onnx::NodeProto &N, LayerId X, int64_t Block,
                                        bool Crd) {
  const Shape In = Net.layer(X).shape;
  if (In.size() != 4 || Block < 1 || Block > In[1] / Block || In[1] % (Block * Block) != 0)
    return nodeError(N, "needs a 4-d NCHW input whose channels divide by blocksize^2, got " +
                            shapeStr(In) + " and blocksize " + std::to_string(Block));
  const int64_t C = In[1] / (Block * Block), H = In[2], W = In[3];
  const Shape Split =
      Crd ? Shape{In[0], C, Block, Block, H, W} : Shape{In[0], Block, Block, C, H, W};
  const std::vector<int64_t> Perm =
      Crd ? std::vector<int64_t>{0, 1, 4, 2, 5, 3} : std::vector<int64_t>{0, 3, 4, 1, 5, 2};
  const std::string Name = layerName(N);
  Result Y = addLayer(N, LayerKind::Reshape, {X}, ReshapeAttrs{Split}, Name + "/split");
  if (Y)
    Y = addLayer(N, LayerKind::Transpose, {*Y}, TransposeAttrs{Perm}, Name + "/shuffle");
  if (Y)
    Y = addLayer(N, LayerKind::Reshape, {*Y}, ReshapeAttrs{{In[0], C, H * Block, W * Block}});
  return Y;
}

Importer::Result Importer::importDepthToSpace(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const std::string Mode = attrString(N, "mode", "DCR");
  if (Mode != "DCR" && Mode != "CRD")
    return nodeError(N, "mode must be DCR or CRD, got '" + Mode + "'");
  return depthToSpace(N, *X, attrInt(N, "blocksize", 0), Mode == "CRD");
}

/// [N, C, H, W] -> [N, C, H / b, b, W / b, b] -> [N, b, b, C, H / b, W / b] -> [N, C b^2, H / b,
/// W / b] (ONNX's SpaceToDepth, the inverse of DepthToSpace in DCR mode).
Importer::Result Importer::importSpaceToDepth(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape In = Net.layer(*X).shape;
  const int64_t B = attrInt(N, "blocksize", 0);
  if (In.size() != 4 || B < 1 || In[2] % B != 0 || In[3] % B != 0)
    return nodeError(N, "needs a 4-d NCHW input whose H and W divide by blocksize, got " +
                            shapeStr(In) + " and blocksize " + std::to_string(B));
  const std::string Name = layerName(N);
  Result Y = addLayer(N, LayerKind::Reshape, {*X},
                      ReshapeAttrs{{In[0], In[1], In[2] / B, B, In[3] / B, B}}, Name + "/split");
  if (Y)
    Y = addLayer(N, LayerKind::Transpose, {*Y}, TransposeAttrs{{0, 3, 5, 1, 2, 4}},
                 Name + "/shuffle");
  if (Y)
    Y = addLayer(N, LayerKind::Reshape, {*Y},
                 ReshapeAttrs{{In[0], In[1] * B * B, In[2] / B, In[3] / B}});
  return Y;
}

Importer::Result Importer::importSlice(const onnx::NodeProto &N) {
  const bool Fold = hasInput(N, 0) && !isLayer(N.input(0)) && foldableInts(N.input(0));
  Result X = Fold ? Result(InvalidLayer) : value(N, 0);
  if (!X)
    return X;
  SliceAttrs A;
  if (Opset < 10) { // attributes
    A.starts = attrInts(N, "starts", {});
    A.ends = attrInts(N, "ends", {});
    A.axes = attrInts(N, "axes", {});
  } else { // inputs: starts, ends, axes, steps; each a constant with data
    std::vector<int64_t> *Into[] = {&A.starts, &A.ends, &A.axes, &A.steps};
    for (int I = 1; I <= 4; ++I) {
      if (!hasInput(N, I))
        continue;
      auto V = constInts(N.input(I));
      if (!V)
        return nodeError(N,
                         "input '" + N.input(I) + "' must be a constant integer tensor with data");
      *Into[I - 1] = std::move(*V);
    }
  }
  if (A.axes.empty())
    for (size_t I = 0; I < A.starts.size(); ++I)
      A.axes.push_back(int64_t(I));
  if (!Fold)
    return addLayer(N, LayerKind::Slice, {*X}, A);
  // Shape arithmetic: a slice of an integer constant (Shape -> Slice gives the batch size).
  const std::vector<int64_t> V = *foldableInts(N.input(0));
  auto Ranges = resolveSlice({int64_t(V.size())}, A);
  if (!Ranges || staticShape(N.input(0))->size() != 1)
    return nodeError(N, Ranges ? "only a 1-d integer constant is sliced"
                               : "slice of a constant: " + Ranges.error().message);
  const SliceRange R = Ranges->front();
  std::vector<int64_t> Out;
  for (int64_t I = 0; I < R.count; ++I)
    Out.push_back(V[size_t(R.start + I * R.step)]);
  setConstInts(N.output(0), Out, {R.count});
  return InvalidLayer;
}

Importer::Result Importer::importSplit(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape In = Net.layer(*X).shape;
  const int64_t Rank = int64_t(In.size()), Given = attrInt(N, "axis", 0);
  const int64_t Axis = Given < 0 ? Given + Rank : Given;
  if (Axis < 0 || Axis >= Rank)
    return nodeError(N, "axis " + std::to_string(Given) + " out of range for " + shapeStr(In));
  std::vector<int64_t> Sizes = attrInts(N, "split", {}); // before opset 13
  if (hasInput(N, 1)) {
    auto V = constInts(N.input(1));
    if (!V)
      return nodeError(N, "split sizes '" + N.input(1) + "' must be a constant with data");
    Sizes = std::move(*V);
  }
  const int64_t Outputs = N.output_size(), Dim = In[size_t(Axis)];
  if (Sizes.empty()) // equal parts, the last one smaller when they do not divide (opset 18)
    for (int64_t K = 0, Part = (Dim + Outputs - 1) / Outputs; K < Outputs; ++K)
      Sizes.push_back(std::min(Part, Dim - K * Part));
  int64_t Sum = 0; // each size positive and within what is left of the axis: no overflow
  bool Fits = int64_t(Sizes.size()) == Outputs;
  for (int64_t S : Sizes) {
    Fits = Fits && S > 0 && S <= Dim - Sum;
    Sum += Fits ? S : 0;
  }
  if (!Fits || Sum != Dim)
    return nodeError(N, "cannot split " + std::to_string(Dim) + " elements of axis " +
                            std::to_string(Axis) + " into " + std::to_string(Outputs) +
                            " positive parts of the given sizes");
  LayerId First = InvalidLayer;
  for (int64_t K = 0, Start = 0; K < Outputs; Start += Sizes[size_t(K)], ++K) {
    const std::string &Out = N.output(int(K));
    if (K > 0 && (Out.empty() || (!Consumers.count(Out) && !GraphOutputs.count(Out))))
      continue; // an unused part: no copy
    Result Id = addLayer(N, LayerKind::Slice, {*X},
                         SliceAttrs{{Axis}, {Start}, {Start + Sizes[size_t(K)]}, {1}},
                         layerName(N) + "/" + std::to_string(K));
    if (!Id)
      return Id;
    if (K == 0)
      First = *Id;
    else
      Values[Out] = *Id;
  }
  return First;
}

/// Resize and Upsample: nearest neighbour, or bilinear with half-pixel (PyTorch's
/// align_corners=False), align-corners (align_corners=True) or asymmetric coordinates (a linear
/// Resize before opset 11, Upsample), integer factors on H and W.
Importer::Result Importer::importResize(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape In = Net.layer(*X).shape;
  const std::string Mode = attrString(N, "mode", "nearest");
  const bool Linear = Mode == "linear" || Mode == "bilinear"; // Upsample-7 spells both
  if (Mode != "nearest" && !Linear)
    return nodeError(N, "only nearest-neighbour and linear resizing are supported, not mode '" +
                            Mode + "'");
  ResizeCoords Coords = ResizeCoords::HalfPixel;
  if (Linear) {
    // Before opset 11 a linear Resize or Upsample maps coordinates asymmetrically (o / scale).
    const std::string Mode = N.op_type() == "Upsample" || Opset < 11
                                 ? "asymmetric"
                                 : attrString(N, "coordinate_transformation_mode", "half_pixel");
    if (Mode == "align_corners")
      Coords = ResizeCoords::AlignCorners;
    else if (Mode == "asymmetric")
      Coords = ResizeCoords::Asymmetric;
    else if (Mode != "half_pixel" && Mode != "pytorch_half_pixel")
      return nodeError(N, "linear resizing is supported with half_pixel, pytorch_half_pixel, "
                          "align_corners or asymmetric coordinates, not '" +
                              Mode + "'");
  }
  if (In.size() != 4)
    return nodeError(N, "expects a 4-d NCHW input, got " + shapeStr(In));
  // Scales: Upsample's attribute (opset < 9) or input 1; Resize's input 1 (opset 10) or 2.
  // Sizes: Resize's input 3 (opset >= 11).
  std::vector<double> Scale;
  const int ScalesAt = N.op_type() == "Upsample" || Opset < 11 ? 1 : 2;
  if (N.op_type() == "Upsample" && Opset < 9) {
    if (const auto *A = attr(N, "scales"))
      Scale.assign(A->floats().begin(), A->floats().end());
  } else if (hasInput(N, ScalesAt) && staticShape(N.input(ScalesAt)) &&
             elementCount(*staticShape(N.input(ScalesAt))) > 0) {
    auto V = constFloats(N.input(ScalesAt));
    if (!V)
      return nodeError(N, "scales '" + N.input(ScalesAt) + "' must be a constant with data");
    Scale.assign(V->begin(), V->end());
  } else if (hasInput(N, 3)) {
    auto V = constInts(N.input(3));
    if (!V || V->size() != 4)
      return nodeError(N, "sizes '" + N.input(3) + "' must be a constant of 4 integers with data");
    for (size_t D = 0; D < 4; ++D)
      Scale.push_back(double((*V)[D]) / double(In[D]));
  }
  auto Whole = [](double S) { return S >= 1 && S <= double(1 << 20) && S == std::floor(S); };
  if (Scale.size() != 4 || Scale[0] != 1 || Scale[1] != 1 || !Whole(Scale[2]) || !Whole(Scale[3]))
    return nodeError(N, "only upsampling H and W by integer factors is supported");
  return addLayer(N, LayerKind::Upsample, {*X},
                  UpsampleAttrs{int64_t(Scale[2]), int64_t(Scale[3]), Linear, Coords});
}

Importer::Result Importer::importUpsample(const onnx::NodeProto &N) { return importResize(N); }

Importer::Result Importer::importConcat(const onnx::NodeProto &N) {
  const auto *Axis = attr(N, "axis");
  if (!Axis)
    return nodeError(N, "missing attribute 'axis'");
  if (std::none_of(N.input().begin(), N.input().end(),
                   [&](const std::string &In) { return isLayer(In); })) { // shape arithmetic
    if (auto E = foldConcat(N))
      return *E;
    return InvalidLayer;
  }
  std::vector<LayerId> Inputs;
  for (int I = 0; I < N.input_size(); ++I) {
    Result X = value(N, I);
    if (!X)
      return X;
    Inputs.push_back(*X);
  }
  return addLayer(N, LayerKind::Concat, Inputs, ConcatAttrs{Axis->i()});
}

} // namespace onnximport

} // namespace corpus
