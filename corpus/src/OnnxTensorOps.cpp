// ONNX import: layout operators (Transpose, Slice, Split), LayerNormalization and the erf GELU
// pattern, the pieces ShuffleNet, ConvNeXt and transformer exports add to a CNN's operators.
#include "OnnxImporter.h"

#include <cmath>

namespace corpus::onnximport {

namespace {

bool near(std::optional<float> V, double Want) {
  return V && std::fabs(double(*V) - Want) <= 1e-4 * std::fabs(Want);
}

/// The operand of a two-input node that is not `Tensor`, or "" when `Tensor` is not an operand.
std::string otherOperand(const onnx::NodeProto &N, const std::string &Tensor) {
  if (N.input_size() != 2)
    return "";
  if (N.input(0) == Tensor)
    return N.input(1);
  return N.input(1) == Tensor ? N.input(0) : "";
}

} // namespace

Importer::Result Importer::importTranspose(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Transpose, {*X}, TransposeAttrs{attrInts(N, "perm", {})}) : X;
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
        return nodeError(N, "input '" + N.input(I) + "' must be a constant integer tensor with data");
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

Importer::Result Importer::importLayerNorm(const onnx::NodeProto &N) {
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

Importer::Result Importer::importResize(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape In = Net.layer(*X).shape;
  const std::string Mode = attrString(N, "mode", "nearest");
  if (Mode != "nearest")
    return nodeError(N, "only nearest-neighbour resizing is supported, not mode '" + Mode + "'");
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
                  UpsampleAttrs{int64_t(Scale[2]), int64_t(Scale[3])});
}

std::optional<std::array<size_t, 4>> Importer::geluPattern(const onnx::NodeProto &N) const {
  // torch.nn.GELU() as torch.onnx exports it: Div(x, sqrt 2) -> Erf -> Add(., 1) -> Mul(x, .)
  // -> Mul(., 0.5), each step the only consumer of the one before.
  if (N.input_size() != 2 || !isLayer(N.input(0)) || !near(constFloat(N.input(1)), std::sqrt(2.0)))
    return std::nullopt;
  const std::string &X = N.input(0);
  std::array<size_t, 4> Nodes;
  const onnx::NodeProto *Erf = soleConsumer(N.output(0), &Nodes[0]);
  if (!Erf || Erf->op_type() != "Erf")
    return std::nullopt;
  const onnx::NodeProto *Add = soleConsumer(Erf->output(0), &Nodes[1]);
  if (!Add || Add->op_type() != "Add" || !near(constFloat(otherOperand(*Add, Erf->output(0))), 1))
    return std::nullopt;
  const onnx::NodeProto *Mul = soleConsumer(Add->output(0), &Nodes[2]);
  if (!Mul || Mul->op_type() != "Mul" || otherOperand(*Mul, Add->output(0)) != X)
    return std::nullopt;
  const onnx::NodeProto *Half = soleConsumer(Mul->output(0), &Nodes[3]);
  if (!Half || Half->op_type() != "Mul" ||
      !near(constFloat(otherOperand(*Half, Mul->output(0))), 0.5))
    return std::nullopt;
  return Nodes;
}

Importer::Result Importer::importErf(const onnx::NodeProto &N) {
  return nodeError(N, "Erf is supported only inside GELU, x * 0.5 * (1 + erf(x / sqrt 2)) as "
                      "torch.nn.GELU exports it (Div, Erf, Add, Mul, Mul)");
}

} // namespace corpus::onnximport
