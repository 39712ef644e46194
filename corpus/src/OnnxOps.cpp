// ONNX import: one handler per supported operator, mapping a NodeProto to a Network layer.
#include "OnnxImporter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace corpus::onnximport {

const onnx::AttributeProto *attr(const onnx::NodeProto &N, std::string_view Name) {
  for (const auto &A : N.attribute())
    if (A.name() == Name)
      return &A;
  return nullptr;
}

int64_t attrInt(const onnx::NodeProto &N, std::string_view Name, int64_t Default) {
  const auto *A = attr(N, Name);
  return A ? A->i() : Default;
}

float attrFloat(const onnx::NodeProto &N, std::string_view Name, float Default) {
  const auto *A = attr(N, Name);
  return A ? A->f() : Default;
}

std::string attrString(const onnx::NodeProto &N, std::string_view Name, std::string Default) {
  const auto *A = attr(N, Name);
  return A ? A->s() : Default;
}

std::vector<int64_t> attrInts(const onnx::NodeProto &N, std::string_view Name,
                              std::vector<int64_t> Default) {
  const auto *A = attr(N, Name);
  return A ? std::vector<int64_t>(A->ints().begin(), A->ints().end()) : Default;
}

namespace {

bool allPositive(const std::vector<int64_t> &V) {
  for (int64_t X : V)
    if (X <= 0)
      return false;
  return true;
}

} // namespace

support::MaybeError Importer::windowPads(const onnx::NodeProto &N, const Shape &In,
                                         const int64_t Kernel[2], const int64_t Stride[2],
                                         const int64_t Dilation[2], int64_t Pads[4]) {
  std::string Auto = attrString(N, "auto_pad", "NOTSET");
  if (Auto == "NOTSET") {
    std::vector<int64_t> P = attrInts(N, "pads", {0, 0, 0, 0});
    if (P.size() != 4)
      return nodeError(N, "expected 4 pads, got " + std::to_string(P.size()));
    std::copy(P.begin(), P.end(), Pads); // top, left, bottom, right
    return std::nullopt;
  }
  if (Auto == "VALID") {
    std::fill(Pads, Pads + 4, 0);
    return std::nullopt;
  }
  if (Auto != "SAME_UPPER" && Auto != "SAME_LOWER")
    return nodeError(N, "unknown auto_pad '" + Auto + "'");
  for (int D = 0; D < 2; ++D) {
    auto [Before, After] = samePadding(In[2 + D], Kernel[D], Stride[D], Dilation[D]);
    if (Auto == "SAME_LOWER")
      std::swap(Before, After);
    Pads[D] = Before;
    Pads[2 + D] = After;
  }
  return std::nullopt;
}

Importer::Result Importer::importConv(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const Shape &In = Net.layer(*X).shape;
  if (In.size() != 4)
    return nodeError(N, "only 2-d convolution is supported (input " + shapeStr(In) + ")");
  auto W = hasInput(N, 1) ? staticShape(N.input(1)) : std::nullopt;
  if (!W || W->size() != 4 || !allPositive(*W))
    return nodeError(N, "weight needs a known 4-d shape");
  std::vector<int64_t> K = attrInts(N, "kernel_shape", {(*W)[2], (*W)[3]});
  std::vector<int64_t> S = attrInts(N, "strides", {1, 1});
  std::vector<int64_t> D = attrInts(N, "dilations", {1, 1});
  if (K.size() != 2 || S.size() != 2 || D.size() != 2)
    return nodeError(N, "only 2-d convolution is supported");
  if (K[0] != (*W)[2] || K[1] != (*W)[3])
    return nodeError(N, "kernel_shape disagrees with weight shape " + shapeStr(*W));
  ConvAttrs A;
  A.outChannels = (*W)[0];
  A.kernelH = K[0], A.kernelW = K[1];
  A.strideH = S[0], A.strideW = S[1];
  A.dilationH = D[0], A.dilationW = D[1];
  A.groups = attrInt(N, "group", 1);
  A.bias = hasInput(N, 2);
  if (A.groups <= 0 || In[1] % A.groups != 0 || (*W)[1] != In[1] / A.groups)
    return nodeError(N, "weight " + shapeStr(*W) + " with group=" + std::to_string(A.groups) +
                            " does not match " + std::to_string(In[1]) + " input channels");
  int64_t Pads[4];
  if (auto E = windowPads(N, In, K.data(), S.data(), D.data(), Pads))
    return *E;
  A.padTop = Pads[0], A.padLeft = Pads[1], A.padBottom = Pads[2], A.padRight = Pads[3];
  if (auto B = A.bias ? staticShape(N.input(2)) : std::nullopt; B && *B != Shape{A.outChannels})
    return nodeError(N, "bias shape " + shapeStr(*B) + " does not match " +
                            std::to_string(A.outChannels) + " output channels");
  return addLayer(N, LayerKind::Conv, {*X}, A);
}

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

Importer::Result Importer::importBatchNorm(const onnx::NodeProto &N) {
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

Importer::Result Importer::importRelu(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::Relu}) : X;
}

Importer::Result Importer::importTanh(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::Tanh}) : X;
}

Importer::Result Importer::importHardSwish(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, ActivationAttrs{ActKind::HardSwish}) : X;
}

Importer::Result Importer::fuseGatedActivation(const onnx::NodeProto &N, ActivationAttrs Plain,
                                               ActivationAttrs Fused) {
  Result X = value(N, 0);
  if (!X)
    return X;
  size_t Index;
  const onnx::NodeProto *M = Options.fuseSwish ? soleConsumer(N.output(0), &Index) : nullptr;
  if (M && M->op_type() == "Mul" && M->input_size() == 2 &&
      ((M->input(0) == N.input(0) && M->input(1) == N.output(0)) ||
       (M->input(1) == N.input(0) && M->input(0) == N.output(0)))) {
    this->Fused.insert(Index);
    OutputNode = Index;
    return addLayer(N, LayerKind::Activation, {*X}, Fused);
  }
  return addLayer(N, LayerKind::Activation, {*X}, Plain);
}

Importer::Result Importer::importSigmoid(const onnx::NodeProto &N) {
  return fuseGatedActivation(N, ActivationAttrs{ActKind::Sigmoid}, ActivationAttrs{ActKind::Swish});
}

Importer::Result Importer::importHardSigmoid(const onnx::NodeProto &N) {
  float Alpha = attrFloat(N, "alpha", 0.2f), Beta = attrFloat(N, "beta", 0.5f);
  ActivationAttrs Plain{ActKind::HardSigmoid, Alpha, Beta};
  // x * hardsigmoid(x; 1/6, 1/2) = x * relu6(x + 3) / 6 = hardswish(x).
  if (std::fabs(Alpha - 1.0f / 6.0f) < 1e-6f && std::fabs(Beta - 0.5f) < 1e-6f)
    return fuseGatedActivation(N, Plain, ActivationAttrs{ActKind::HardSwish});
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Activation, {*X}, Plain) : X;
}

Importer::Result Importer::importClip(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  const float Inf = std::numeric_limits<float>::infinity();
  ActivationAttrs A{ActKind::Clip, -Inf, Inf};
  if (Opset < 11) {
    A.alpha = attrFloat(N, "min", -Inf);
    A.beta = attrFloat(N, "max", Inf);
  } else {
    for (int I = 1; I <= 2; ++I) {
      if (!hasInput(N, I))
        continue;
      auto V = constFloat(N.input(I));
      if (!V)
        return nodeError(N, "bound '" + N.input(I) + "' must be a constant float with data");
      (I == 1 ? A.alpha : A.beta) = *V;
    }
  }
  return addLayer(N, LayerKind::Activation, {*X}, A);
}

Importer::Result Importer::importEltwise(const onnx::NodeProto &N) {
  const std::string &Op = N.op_type();
  if (Op == "Div")
    if (auto Gelu = geluPattern(N)) {
      Fused.insert(Gelu->begin(), Gelu->end());
      OutputNode = Gelu->back();
      return addLayer(N, LayerKind::Activation, {Values[N.input(0)]},
                      ActivationAttrs{ActKind::Gelu});
    }
  // Sub is an add layer: the same kernel, and operand values are never used.
  const LayerKind Kind = Op == "Mul"   ? LayerKind::Mul
                         : Op == "Div" ? LayerKind::Div
                         : Op == "Pow" ? LayerKind::Pow
                                       : LayerKind::Add;
  if (N.input_size() != 2)
    return nodeError(N, "expects two inputs");
  bool L0 = isLayer(N.input(0)), L1 = isLayer(N.input(1));
  if (L0 && L1)
    return addLayer(N, Kind, {Values[N.input(0)], Values[N.input(1)]}, EltwiseAttrs{});
  if (!L0 && !L1) { // shape arithmetic
    if (auto E = foldArithmetic(N))
      return *E;
    return InvalidLayer;
  }
  const std::string &Const = L0 ? N.input(1) : N.input(0);
  // x / c and x ** c with one known number: the scalar kernels (x ** 2 is x * x, as PyTorch's).
  if (L0 && (Kind == LayerKind::Div || Kind == LayerKind::Pow))
    if (auto C = constFloat(Const); C && std::isfinite(*C) && (Kind == LayerKind::Pow || *C != 0))
      return addLayer(N, Kind, {Values[N.input(0)]}, EltwiseAttrs{std::nullopt, *C});
  auto S = staticShape(Const);
  if (!S)
    return nodeError(N, "operand '" + Const + "' is neither an activation nor a known constant");
  return addLayer(N, Kind, {Values[L0 ? N.input(0) : N.input(1)]}, EltwiseAttrs{*S});
}

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

Importer::Result Importer::importGlobalAvgPool(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::GlobalAvgPool, {*X}, GlobalPoolAttrs{}) : X;
}

// ReduceMean(data, axes?) with keepdims: axes an attribute before opset 18, an input from 18 on.
Importer::Result Importer::importReduceMean(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  if (!X)
    return X;
  std::optional<std::vector<int64_t>> Axes;
  if (Opset < 18) {
    Axes = attrInts(N, "axes", {});
  } else if (hasInput(N, 1)) {
    Axes = constInts(N.input(1));
    if (!Axes)
      return nodeError(N, "axes must be a constant int64 tensor");
  }
  const int64_t Rank = static_cast<int64_t>(Net.layer(*X).shape.size());
  std::vector<int64_t> A = Axes ? *Axes : std::vector<int64_t>{};
  for (int64_t &Ax : A)
    Ax = Ax < 0 ? Ax + Rank : Ax;
  std::sort(A.begin(), A.end());
  if (Rank != 4 || A != std::vector<int64_t>{2, 3})
    return nodeError(N, "only a mean over H and W of a 4-d input (axes [2, 3]) is supported");
  if (attrInt(N, "keepdims", 1) != 0)
    return addLayer(N, LayerKind::GlobalAvgPool, {*X}, GlobalPoolAttrs{});
  // keepdims 0: the pool keeps {N, C, 1, 1}; a Flatten named after the node drops the 1s.
  auto Pool = Net.add(layerName(N) + "/pool", LayerKind::GlobalAvgPool, {*X}, GlobalPoolAttrs{});
  if (!Pool)
    return nodeError(N, Pool.error().message);
  return addLayer(N, LayerKind::Flatten, {*Pool}, FlattenAttrs{1});
}

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

Importer::Result Importer::importSoftmax(const onnx::NodeProto &N) {
  Result X = value(N, 0);
  int64_t Axis = attrInt(N, "axis", Opset < 13 ? 1 : -1);
  return X ? addLayer(N, LayerKind::Softmax, {*X}, SoftmaxAttrs{Axis}) : X;
}

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

Importer::Result Importer::importIdentity(const onnx::NodeProto &N) {
  // PyTorch's exporter (1.13) passes a weight it stores once to a second user through Identity:
  // the output is that constant too.
  if (hasInput(N, 0) && !Values.count(N.input(0)) && N.output_size() > 0)
    if (const onnx::TensorProto *T = constant(N.input(0))) {
      Constants[N.output(0)] = *T;
      return InvalidLayer;
    }
  Result X = value(N, 0);
  return X ? addLayer(N, LayerKind::Identity, {*X}, IdentityAttrs{}) : X;
}

Importer::Result Importer::importConstant(const onnx::NodeProto &N) {
  onnx::TensorProto T;
  if (const auto *V = attr(N, "value")) {
    T = V->t();
  } else if (const auto *F = attr(N, "value_float")) {
    T.set_data_type(onnx::TensorProto::FLOAT);
    T.add_float_data(F->f());
  } else if (const auto *I = attr(N, "value_int")) {
    T.set_data_type(onnx::TensorProto::INT64);
    T.add_int64_data(I->i());
  } else if (const auto *Is = attr(N, "value_ints")) {
    T.set_data_type(onnx::TensorProto::INT64);
    T.add_dims(Is->ints_size());
    for (int64_t X : Is->ints())
      T.add_int64_data(X);
  } else {
    return nodeError(N, "only value, value_float, value_int and value_ints are supported");
  }
  if (auto Bad = checkTensorData(T)) // as an initializer's
    return nodeError(N, *Bad);
  Constants[N.output(0)] = std::move(T);
  return InvalidLayer;
}

const std::map<std::string, Importer::Handler> &Importer::handlers() {
  static const std::map<std::string, Handler> Table = {
      {"Conv", &Importer::importConv},
      {"Gemm", &Importer::importGemm},
      {"MatMul", &Importer::importMatMul},
      {"BatchNormalization", &Importer::importBatchNorm},
      {"Relu", &Importer::importRelu},
      {"Clip", &Importer::importClip},
      {"Sigmoid", &Importer::importSigmoid},
      {"HardSigmoid", &Importer::importHardSigmoid},
      {"HardSwish", &Importer::importHardSwish},
      {"Tanh", &Importer::importTanh},
      {"Add", &Importer::importEltwise},
      {"Mul", &Importer::importEltwise},
      {"MaxPool", &Importer::importPool},
      {"AveragePool", &Importer::importPool},
      {"GlobalAveragePool", &Importer::importGlobalAvgPool},
      {"ReduceMean", &Importer::importReduceMean},
      {"Flatten", &Importer::importFlatten},
      {"Reshape", &Importer::importReshape},
      {"Concat", &Importer::importConcat},
      {"Softmax", &Importer::importSoftmax},
      {"Pad", &Importer::importPad},
      {"Dropout", &Importer::importIdentity},
      {"Identity", &Importer::importIdentity},
      {"Constant", &Importer::importConstant},
      {"Sub", &Importer::importEltwise},
      {"Div", &Importer::importEltwise},
      {"Pow", &Importer::importEltwise},
      {"Erf", &Importer::importErf},
      {"Transpose", &Importer::importTranspose},
      {"Slice", &Importer::importSlice},
      {"Split", &Importer::importSplit},
      {"LayerNormalization", &Importer::importLayerNorm},
      {"Resize", &Importer::importResize},
      {"Upsample", &Importer::importResize},
      {"Shape", &Importer::importShape},
      {"Gather", &Importer::importGather},
      {"Squeeze", &Importer::importSqueeze},
      {"Unsqueeze", &Importer::importSqueeze},
      {"Cast", &Importer::importCast},
  };
  return Table;
}

} // namespace corpus::onnximport
