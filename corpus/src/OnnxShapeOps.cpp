// ONNX import: shape arithmetic folded to constants. Exporters with a dynamic batch write
// `x.view(x.size(0), -1)` as Shape -> Gather -> Unsqueeze -> Concat -> Reshape; with the batch
// fixed at import (OnnxImportOptions::batch) every such value is a known integer tensor, kept as
// a constant that Reshape, Slice and the others read like an initializer.
#include "OnnxImporter.h"

#include <algorithm>

namespace corpus::onnximport {

namespace {

/// Axes from the `axes` attribute (before opset 13) or the optional constant input 1.
std::optional<std::vector<int64_t>> axesOf(const onnx::NodeProto &N, int64_t Opset,
                                           const std::optional<std::vector<int64_t>> &Input) {
  if (Opset < 13)
    return attrInts(N, "axes", {});
  if (N.input_size() < 2 || N.input(1).empty())
    return std::vector<int64_t>{};
  return Input;
}

} // namespace

void Importer::setConstInts(const std::string &Name, const std::vector<int64_t> &V,
                            const Shape &Dims) {
  onnx::TensorProto T;
  T.set_name(Name);
  T.set_data_type(onnx::TensorProto::INT64);
  for (int64_t D : Dims)
    T.add_dims(D);
  for (int64_t X : V)
    T.add_int64_data(X);
  Constants[Name] = std::move(T);
}

std::optional<std::vector<int64_t>> Importer::foldableInts(const std::string &Name) const {
  return isLayer(Name) ? std::nullopt : constInts(Name);
}

Importer::Result Importer::importShape(const onnx::NodeProto &N) {
  std::optional<Shape> S;
  if (hasInput(N, 0))
    S = isLayer(N.input(0)) ? Net.layer(Values.at(N.input(0))).shape : staticShape(N.input(0));
  if (!S || std::any_of(S->begin(), S->end(), [](int64_t D) { return D < 0; }))
    return nodeError(N, "the input's shape is not known");
  const int64_t Rank = int64_t(S->size());
  auto Clamp = [Rank](int64_t P) { return std::clamp(P < 0 ? P + Rank : P, int64_t(0), Rank); };
  const int64_t Start = Clamp(attrInt(N, "start", 0)), End = Clamp(attrInt(N, "end", Rank));
  std::vector<int64_t> V(S->begin() + Start, S->begin() + std::max(Start, End));
  setConstInts(N.output(0), V, {int64_t(V.size())});
  return InvalidLayer;
}

Importer::Result Importer::importGather(const onnx::NodeProto &N) {
  auto Data = hasInput(N, 0) ? foldableInts(N.input(0)) : std::nullopt;
  auto Index = hasInput(N, 1) ? foldableInts(N.input(1)) : std::nullopt;
  auto DataShape = hasInput(N, 0) ? staticShape(N.input(0)) : std::nullopt;
  if (!Data || !Index || !DataShape || DataShape->size() != 1 || attrInt(N, "axis", 0) != 0)
    return nodeError(N, "only a gather from a constant 1-d integer tensor (shape arithmetic) is "
                        "supported, not of an activation");
  const int64_t Len = int64_t(Data->size());
  std::vector<int64_t> V;
  for (int64_t I : *Index) {
    const int64_t At = I < 0 ? I + Len : I;
    if (At < 0 || At >= Len)
      return nodeError(N, "index " + std::to_string(I) + " out of range for " +
                              std::to_string(Len) + " elements");
    V.push_back((*Data)[size_t(At)]);
  }
  setConstInts(N.output(0), V, *staticShape(N.input(1)));
  return InvalidLayer;
}

Importer::Result Importer::importUnsqueeze(const onnx::NodeProto &N) { return importSqueeze(N); }

Importer::Result Importer::importSqueeze(const onnx::NodeProto &N) {
  const bool Un = N.op_type() == "Unsqueeze";
  auto Axes = axesOf(N, Opset, hasInput(N, 1) ? constInts(N.input(1)) : std::nullopt);
  if (!Axes)
    return nodeError(N, "axes '" + N.input(1) + "' must be a constant with data");
  auto In = hasInput(N, 0) ? staticShape(N.input(0)) : std::nullopt;
  if (hasInput(N, 0) && isLayer(N.input(0)))
    In = Net.layer(Values.at(N.input(0))).shape;
  if (!In)
    return nodeError(N, "the input's shape is not known");
  const int64_t Rank = int64_t(In->size()) + (Un ? int64_t(Axes->size()) : 0);
  std::vector<bool> Listed(size_t(std::max<int64_t>(Rank, 0)), false);
  for (int64_t A : *Axes) {
    const int64_t At = A < 0 ? A + Rank : A;
    if (At < 0 || At >= Rank || Listed[size_t(At)] || (!Un && (*In)[size_t(At)] != 1))
      return nodeError(N, "axis " + std::to_string(A) + " cannot be " +
                              (Un ? "inserted into " : "removed from ") + shapeStr(*In));
    Listed[size_t(At)] = true;
  }
  Shape Out;
  for (int64_t D = 0, From = 0; D < Rank; ++D) {
    if (Un && Listed[size_t(D)]) {
      Out.push_back(1);
      continue;
    }
    const int64_t Dim = (*In)[size_t(From++)];
    if (Un || !(Axes->empty() ? Dim == 1 : bool(Listed[size_t(D)])))
      Out.push_back(Dim);
  }
  if (isLayer(N.input(0))) // an activation: a reshape (no kernel)
    return addLayer(N, LayerKind::Reshape, {Values.at(N.input(0))}, ReshapeAttrs{Out});
  auto V = constInts(N.input(0));
  if (!V)
    return nodeError(N, "only integer constants and activations are supported");
  setConstInts(N.output(0), *V, Out);
  return InvalidLayer;
}

Importer::Result Importer::importCast(const onnx::NodeProto &N) {
  auto V = hasInput(N, 0) ? foldableInts(N.input(0)) : std::nullopt;
  const int64_t To = attrInt(N, "to", 0);
  if (!V || (To != onnx::TensorProto::INT64 && To != onnx::TensorProto::INT32))
    return nodeError(N, "only a cast of an integer constant to an integer type (shape "
                        "arithmetic) is supported");
  setConstInts(N.output(0), *V, *staticShape(N.input(0)));
  return InvalidLayer;
}

support::MaybeError Importer::foldConcat(const onnx::NodeProto &N) {
  std::vector<int64_t> V;
  for (int I = 0; I < N.input_size(); ++I) {
    auto Part = foldableInts(N.input(I));
    auto S = staticShape(N.input(I));
    if (!Part || !S || S->size() != 1)
      return nodeError(N, "a concatenation of constants must be of 1-d integer tensors");
    V.insert(V.end(), Part->begin(), Part->end());
  }
  setConstInts(N.output(0), V, {int64_t(V.size())});
  return std::nullopt;
}

support::MaybeError Importer::foldArithmetic(const onnx::NodeProto &N) {
  auto A = foldableInts(N.input(0)), B = foldableInts(N.input(1));
  if (!A || !B || (A->size() != B->size() && A->size() != 1 && B->size() != 1))
    return nodeError(N, "both operands are constants (only integer shape arithmetic of equal "
                        "lengths or a single number is folded)");
  const std::string &Op = N.op_type();
  // Numpy broadcasting: a single number stretches to the other's length, which may be 0.
  const size_t Len = A->size() == 1 ? B->size() : A->size();
  std::vector<int64_t> V(Len);
  for (size_t I = 0; I < Len; ++I) {
    const int64_t X = (*A)[A->size() == 1 ? 0 : I], Y = (*B)[B->size() == 1 ? 0 : I];
    bool Overflow = Op == "Pow";
    if (Op == "Add")
      Overflow = __builtin_add_overflow(X, Y, &V[I]);
    else if (Op == "Sub")
      Overflow = __builtin_sub_overflow(X, Y, &V[I]);
    else if (Op == "Mul")
      Overflow = __builtin_mul_overflow(X, Y, &V[I]);
    else if (Op == "Div")
      Overflow = Y == 0 || (X == INT64_MIN && Y == -1) || ((V[I] = X / Y), false);
    if (Overflow)
      return nodeError(N, "integer " + Op + " of constants " + std::to_string(X) + " and " +
                              std::to_string(Y) + " is not folded (overflow, division by zero "
                                                  "or a power)");
  }
  const auto Shp = staticShape(A->size() == Len ? N.input(0) : N.input(1));
  setConstInts(N.output(0), V, Shp ? *Shp : Shape{int64_t(Len)});
  return std::nullopt;
}

} // namespace corpus::onnximport
