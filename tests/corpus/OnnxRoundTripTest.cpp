// ONNX import on whole networks: every zoo model is written out as ONNX (shapes only, weights as
// graph inputs; swish as Sigmoid + Mul) by a writer in this test, imported, and compared with the
// zoo's graph layer by layer.
#include "OnnxWriter.h"

#include <doctest/doctest.h>

#include <cmath>

using namespace corpus;
using namespace onnxtest;

namespace {

void pads(onnx::NodeProto &N, int64_t T, int64_t L, int64_t B, int64_t R) {
  setInts(N, "pads", {T, L, B, R});
}

std::string writeActivation(OnnxWriter &W, const Layer &L, const std::string &X) {
  const auto &A = std::get<ActivationAttrs>(L.attrs);
  switch (A.kind) {
  case ActKind::Relu:
    return out(W.node("Relu", {X}, L.name));
  case ActKind::Sigmoid:
    return out(W.node("Sigmoid", {X}, L.name));
  case ActKind::Tanh:
    return out(W.node("Tanh", {X}, L.name));
  case ActKind::Sqrt:
    return out(W.node("Sqrt", {X}, L.name));
  case ActKind::HardSwish:
    return out(W.node("HardSwish", {X}, L.name));
  case ActKind::Clip:
    return out(W.node("Clip", {X, W.scalar(A.alpha), W.scalar(A.beta)}, L.name));
  case ActKind::Swish: // exporters write x * sigmoid(x)
    return out(W.node("Mul", {X, out(W.node("Sigmoid", {X}, L.name))}, L.name + "_mul"));
  case ActKind::HardSigmoid: {
    auto &N = W.node("HardSigmoid", {X}, L.name);
    setFloat(N, "alpha", A.alpha);
    setFloat(N, "beta", A.beta);
    return out(N);
  }
  case ActKind::Softplus:
    return out(W.node("Softplus", {X}, L.name));
  case ActKind::LeakyRelu: {
    auto &N = W.node("LeakyRelu", {X}, L.name);
    setFloat(N, "alpha", A.alpha);
    return out(N);
  }
  case ActKind::Exp:
    return out(W.node("Exp", {X}, L.name));
  case ActKind::Gelu: // no zoo model has these (and ONNX has no Gelu before opset 20)
  case ActKind::GeluTanh:
  case ActKind::Elu:
  case ActKind::Selu:
  case ActKind::Celu:
    break;
  }
  FAIL("unhandled activation");
  return "";
}

std::string writeConv(OnnxWriter &W, const Network &Net, const Layer &L, const std::string &X) {
  const auto &A = std::get<ConvAttrs>(L.attrs);
  int64_t Cin = Net.layer(L.inputs[0]).shape[1];
  std::vector<std::string> In = {X,
                                 W.weight({A.outChannels, Cin / A.groups, A.kernelH, A.kernelW})};
  if (A.bias)
    In.push_back(W.weight({A.outChannels}));
  auto &N = W.node("Conv", In, L.name);
  setInts(N, "kernel_shape", {A.kernelH, A.kernelW});
  setInts(N, "strides", {A.strideH, A.strideW});
  setInts(N, "dilations", {A.dilationH, A.dilationW});
  pads(N, A.padTop, A.padLeft, A.padBottom, A.padRight);
  setInt(N, "group", A.groups);
  return out(N);
}

std::string writePool(OnnxWriter &W, const Layer &L, const std::string &X) {
  const auto &A = std::get<PoolAttrs>(L.attrs);
  auto &N = W.node(L.kind == LayerKind::MaxPool ? "MaxPool" : "AveragePool", {X}, L.name);
  setInts(N, "kernel_shape", {A.kernelH, A.kernelW});
  setInts(N, "strides", {A.strideH, A.strideW});
  pads(N, A.padTop, A.padLeft, A.padBottom, A.padRight);
  setInt(N, "ceil_mode", A.ceilMode);
  if (L.kind == LayerKind::AvgPool)
    setInt(N, "count_include_pad", A.countIncludePad);
  return out(N);
}

std::string writeLayer(OnnxWriter &W, const Network &Net, const Layer &L,
                       const std::vector<std::string> &In) {
  switch (L.kind) {
  case LayerKind::Conv:
    return writeConv(W, Net, L, In[0]);
  case LayerKind::Dense: {
    const auto &A = std::get<DenseAttrs>(L.attrs);
    int64_t K = Net.layer(L.inputs[0]).shape.back();
    std::vector<std::string> Ops = {In[0], W.weight({A.outFeatures, K})};
    if (A.bias)
      Ops.push_back(W.weight({A.outFeatures}));
    auto &N = W.node("Gemm", Ops, L.name);
    setInt(N, "transB", 1);
    return out(N);
  }
  case LayerKind::BatchNorm: {
    int64_t C = L.shape[1];
    auto &N = W.node("BatchNormalization",
                     {In[0], W.weight({C}), W.weight({C}), W.weight({C}), W.weight({C})}, L.name);
    setFloat(N, "epsilon", std::get<BatchNormAttrs>(L.attrs).epsilon);
    return out(N);
  }
  case LayerKind::Activation:
    return writeActivation(W, L, In[0]);
  case LayerKind::Add:
    return out(W.node("Add", In, L.name));
  case LayerKind::Mul:
    return out(W.node("Mul", In, L.name));
  case LayerKind::MaxPool:
  case LayerKind::AvgPool:
    return writePool(W, L, In[0]);
  case LayerKind::GlobalAvgPool:
    return out(W.node("GlobalAveragePool", In, L.name));
  case LayerKind::Flatten: {
    auto &N = W.node("Flatten", In, L.name);
    setInt(N, "axis", std::get<FlattenAttrs>(L.attrs).axis);
    return out(N);
  }
  case LayerKind::Concat: {
    auto &N = W.node("Concat", In, L.name);
    setInt(N, "axis", std::get<ConcatAttrs>(L.attrs).axis);
    return out(N);
  }
  case LayerKind::Reshape:
    return out(W.node("Reshape", {In[0], W.ints(std::get<ReshapeAttrs>(L.attrs).target)}, L.name));
  case LayerKind::Transpose: {
    auto &N = W.node("Transpose", In, L.name);
    setInts(N, "perm", std::get<TransposeAttrs>(L.attrs).perm);
    return out(N);
  }
  case LayerKind::Slice: { // ShuffleNet's chunk(2): exporters write Split or two Slices
    const auto &A = std::get<SliceAttrs>(L.attrs);
    return out(W.node("Slice",
                      {In[0], W.ints(A.starts), W.ints(A.ends), W.ints(A.axes), W.ints(A.steps)},
                      L.name));
  }
  case LayerKind::Upsample: { // DeepLabV3's F.interpolate(mode='bilinear'), as torch exports it
    const auto &A = std::get<UpsampleAttrs>(L.attrs);
    auto &N =
        W.node("Resize", {In[0], "", W.floats({1, 1, float(A.scaleH), float(A.scaleW)})}, L.name);
    setString(N, "mode", A.linear ? "linear" : "nearest");
    setString(N, "coordinate_transformation_mode", "pytorch_half_pixel");
    return out(N);
  }
  default:
    FAIL("layer kind not written by this test");
    return "";
  }
}

/// The network as an ONNX model with weights as graph inputs (no data).
OnnxWriter writeNetwork(const Network &Net) {
  OnnxWriter W(13, WeightMode::GraphInputs);
  std::vector<std::string> Tensor(Net.size());
  for (size_t I = 0; I < Net.size(); ++I) {
    const Layer &L = Net.layer(static_cast<LayerId>(I));
    if (L.kind == LayerKind::Input) {
      W.input(L.name, L.shape);
      Tensor[I] = L.name;
      continue;
    }
    std::vector<std::string> In;
    for (LayerId Id : L.inputs)
      In.push_back(Tensor[Id]);
    Tensor[I] = writeLayer(W, Net, L, In);
  }
  for (LayerId Out : Net.outputs())
    W.output(Tensor[Out]);
  return W;
}

} // namespace

TEST_CASE("onnx: every zoo model round-trips through ONNX to the same graph") {
  for (const ZooModel &M : zooModels()) {
    CAPTURE(M.name);
    ZooOptions O;
    O.batch = 2;
    auto Zoo = buildZooModel(M.name, O);
    REQUIRE(Zoo);
    OnnxImportOptions IO;
    IO.batch = 2;
    Network N = import(writeNetwork(*Zoo), IO);
    checkSameGraph(N, *Zoo);
  }
}
