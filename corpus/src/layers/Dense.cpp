// Fully connected layers and batched matrix products (LayerKinds.def: Dense, MatMul): the shape
// rules, the GEMM lowerings and ONNX Gemm and MatMul.
#include "LayerShapes.h"
#include "Lowerer.h"
#include "OnnxImporter.h"

namespace corpus {

namespace layershapes {

LayerResult inferDense(const InShapes &In, const DenseAttrs &A) {
  const Shape &X = *In[0];
  if (X.size() < 2)
    return fail("expects an input of rank 2 or more, got " + shapeStr(X));
  if (A.outFeatures <= 0)
    return fail("output features must be positive");
  int64_t Features = X.back();
  LayerResult R;
  R.shape = X;
  R.shape.back() = A.outFeatures;
  R.params = saturatingAdd(saturatingMul(Features, A.outFeatures), A.bias ? A.outFeatures : 0);
  R.macs = saturatingMul(elementCount(X), A.outFeatures);
  return R;
}

LayerResult inferMatMul(const InShapes &In, const MatMulAttrs &) {
  if (In.size() != 2)
    return fail("expects two inputs, got " + str(In.size()));
  const Shape &A = *In[0], &B = *In[1];
  if (A.size() < 2 || A.size() != B.size())
    return fail("expects two inputs of the same rank >= 2, got " + shapeStr(A) + " and " +
                shapeStr(B));
  const size_t Rank = A.size();
  if (!std::equal(A.begin(), A.end() - 2, B.begin()) || A[Rank - 1] != B[Rank - 2])
    return fail("cannot multiply " + shapeStr(A) + " by " + shapeStr(B));
  LayerResult R;
  R.shape = A;
  R.shape.back() = B.back();
  R.macs = saturatingMul(elementCount(A), B.back()); // batch * m * n * k
  return R;
}

} // namespace layershapes

namespace lowering {

support::MaybeError Lowerer::lowerDense(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const Shape &X = Net.layer(L.inputs[0]).shape;
  GemmSpec S;
  S.inFeatures = u32(X.back());
  S.rows = u32(elementCount(X) / X.back());
  S.outFeatures = u32(std::get<DenseAttrs>(L.attrs).outFeatures);
  S.dtype = O.dtype;
  S.math = mathOf(LayerKind::Dense);
  S.mmaArch = mmaArchFor(O.arch);
  const bool Int8 = int8Layer(Id);
  Tail T = fuseTail(Id, TailRoom::Epilogue, Int8);
  S.epilogue = T.epilogue;
  S.epilogue.bias = std::get<DenseAttrs>(L.attrs).bias;
  if (Int8)
    return lowerInt8(Id, S, T, L.inputs[0], X.back());
  return emit(Id, Emitter.add(S), {{ParamRole::Input, BufferOf[L.inputs[0]]}}, T, X.back());
}

support::MaybeError Lowerer::lowerMatMul(LayerId Id) {
  const Layer &L = Net.layer(Id);
  const Shape &A = Net.layer(L.inputs[0]).shape, &B = Net.layer(L.inputs[1]).shape;
  BatchMatMulSpec S;
  S.m = u32(A[A.size() - 2]);
  S.n = u32(A.back());
  S.k = u32(B.back());
  S.batch = u32(elementCount(A) / (A.back() * A[A.size() - 2]));
  S.dtype = O.dtype;
  S.math = mathOf(LayerKind::MatMul);
  S.mmaArch = mmaArchFor(O.arch);
  Tail T;
  T.last = Id;
  RoleBuffers In = {{ParamRole::Input, BufferOf[L.inputs[0]]},
                    {ParamRole::Input2, BufferOf[L.inputs[1]]}};
  return emit(Id, Emitter.add(S), In, T, 0);
}

} // namespace lowering

namespace onnximport {

Importer::Result Importer::importGemm(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  if (attrInt(N, "transA", 0) != 0)
    return nodeError(N, "transA=1 is not supported");
  auto W = hasInput(N, 1) ? staticShape(N.input(1)) : std::nullopt;
  if (!W || W->size() != 2 || !allPositive(*W))
    return nodeError(N, "weight needs a known 2-d shape");
  bool TransB = attrInt(N, "transB", 0) != 0;
  int64_t K = TransB ? (*W)[1] : (*W)[0], Out = TransB ? (*W)[0] : (*W)[1];
  const Shape &In = Net.layer(*X).shape;
  if (In.size() != 2 || In[1] != K)
    return nodeError(N, "input " + shapeStr(In) + " does not match weight " + shapeStr(*W) +
                            (TransB ? " (transB=1)" : ""));
  // The bias broadcasts to [batch, Out] (unidirectionally, ONNX Gemm's rule for C).
  auto C = hasInput(N, 2) ? staticShape(N.input(2)) : std::nullopt;
  if (C && (C->size() > 2 || (!C->empty() && C->back() != Out && C->back() != 1) ||
            (C->size() == 2 && (*C)[0] != In[0] && (*C)[0] != 1)))
    return nodeError(N, "bias " + shapeStr(*C) + " does not broadcast to [" +
                            std::to_string(In[0]) + "," + std::to_string(Out) + "]");
  return addLayer(N, LayerKind::Dense, {*X}, DenseAttrs{Out, hasInput(N, 2)});
}

Importer::Result Importer::importMatMul(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  if (hasInput(N, 1) && isLayer(N.input(1))) // two activations: a (batched) matrix product
    return addLayer(N, LayerKind::MatMul, {*X, Values[N.input(1)]}, MatMulAttrs{});
  auto W = hasInput(N, 1) ? staticShape(N.input(1)) : std::nullopt;
  if (!W || W->size() != 2 || !allPositive(*W))
    return nodeError(N, "weight needs a known 2-d shape");
  const Shape &In = Net.layer(*X).shape;
  if (In.size() < 2 || In.back() != (*W)[0])
    return nodeError(N, "input " + shapeStr(In) + " does not match weight " + shapeStr(*W));
  DenseAttrs A{(*W)[1], false};
  // MatMul + Add(constant bias of `Out` elements) is one dense layer with bias.
  size_t Index;
  const onnx::NodeProto *Add = soleConsumer(N.output(0), &Index);
  if (Add && Add->op_type() == "Add" && Add->input_size() == 2) {
    const std::string &Other = Add->input(0) == N.output(0) ? Add->input(1) : Add->input(0);
    auto B = isLayer(Other) ? std::nullopt : staticShape(Other);
    if (B && elementCount(*B) == A.outFeatures && B->size() <= 2 && B->back() == A.outFeatures) {
      A.bias = true;
      Fused.insert(Index);
      OutputNode = Index;
    }
  }
  return addLayer(N, LayerKind::Dense, {*X}, A);
}

} // namespace onnximport

} // namespace corpus
