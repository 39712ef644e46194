// ONNX import: checks of the file's tensors, declared shapes and window attributes, run before
// libonnx's shape inference reads them (bounds: docs/onnx.md "Errors"), and that inference
// itself, guarded where libonnx 1.12 reads out of bounds on a malformed node.
#include "OnnxImporter.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>
#include <onnx/shape_inference/implementation.h>

#include <limits>
#include <map>

namespace corpus::onnximport {

namespace {

/// Why a tensor of dimensions Dims cannot be: a negative dimension, or more elements than
/// MaxTensorElements. Unknown dimensions are left out of Dims.
std::optional<std::string> dimsError(const Shape &Dims) {
  for (int64_t D : Dims)
    if (D < 0)
      return "negative dimension " + std::to_string(D);
  if (elementCount(Dims) > MaxTensorElements)
    return "shape " + shapeStr(Dims) + " has more than 2^40 elements";
  return std::nullopt;
}

/// Conv without kernel_shape takes its kernel from the weight's dimensions 2.. and reads as many
/// spatial dimensions, strides and pads as that; libonnx 1.12 sizes those by the input's rank and
/// does not compare (a SEGV when they differ). Here they must agree.
void guardConv(onnx::InferenceContext &Ctx) {
  if (Ctx.getAttribute("kernel_shape") || !onnx::hasNInputShapes(Ctx, 2))
    return;
  const int X = Ctx.getInputType(0)->tensor_type().shape().dim_size();
  const int W = Ctx.getInputType(1)->tensor_type().shape().dim_size();
  if (X != W)
    fail_shape_inference("weight of rank ", W, " for an input of rank ", X);
}

/// LayerNormalization indexes the dimension `axis` (plus the rank when negative) unchecked in
/// libonnx 1.12 (a SEGV for axis -100). Here it must be in -rank..rank-1.
void guardLayerNorm(onnx::InferenceContext &Ctx) {
  if (!onnx::hasInputShape(Ctx, 0))
    return;
  const int64_t Rank = Ctx.getInputType(0)->tensor_type().shape().dim_size();
  const onnx::AttributeProto *A = Ctx.getAttribute("axis");
  const int64_t Axis = A ? A->i() : -1;
  if (Axis < -Rank || Axis >= Rank)
    fail_shape_inference("axis ", Axis, " out of range for rank ", Rank);
}

/// libonnx's schemas, those of Conv and LayerNormalization with the guard above run before
/// their shape inference. A guard's failure is an inference error, which libonnx records and
/// passes over (the output's shape stays unknown; the importer's own checks then name the node).
class GuardedSchemas : public onnx::ISchemaRegistry {
public:
  const onnx::OpSchema *GetSchema(const std::string &Key, const int MaxInclusiveVersion,
                                  const std::string &Domain) const override {
    const onnx::OpSchema *S = onnx::OpSchemaRegistry::Schema(Key, MaxInclusiveVersion, Domain);
    void (*Guard)(onnx::InferenceContext &) = Key == "Conv"                 ? guardConv
                                              : Key == "LayerNormalization" ? guardLayerNorm
                                                                            : nullptr;
    if (!S || !Guard || (!Domain.empty() && Domain != "ai.onnx"))
      return S;
    auto [It, Added] = Guarded.try_emplace(S, *S);
    if (Added)
      It->second.TypeAndShapeInferenceFunction(
          [Guard, Infer = S->GetTypeAndShapeInferenceFunction()](onnx::InferenceContext &Ctx) {
            Guard(Ctx);
            Infer(Ctx);
          });
    return &It->second;
  }

private:
  mutable std::map<const onnx::OpSchema *, onnx::OpSchema> Guarded; ///< by libonnx's schema
};

} // namespace

std::optional<std::string> inferShapes(onnx::ModelProto &Model) {
  const GuardedSchemas Schemas;
  try {
    onnx::shape_inference::InferShapes(Model, &Schemas);
  } catch (const std::exception &E) {
    return std::string("onnx shape inference failed: ") + E.what();
  }
  return std::nullopt;
}

std::optional<std::string> reassignedValue(const onnx::GraphProto &Graph) {
  std::map<std::string, std::string> Writer; // value -> what wrote it
  for (const auto &V : Graph.input())
    Writer.emplace(V.name(), "a graph input");
  for (const auto &T : Graph.initializer())
    Writer.emplace(T.name(), "an initializer");
  for (const onnx::NodeProto &N : Graph.node())
    for (const std::string &Out : N.output()) {
      if (Out.empty())
        continue;
      const std::string By = "node '" + N.name() + "' (" + N.op_type() + ")";
      auto [It, New] = Writer.emplace(Out, By);
      if (!New)
        return "value '" + Out + "' is written by " + By + " and already by " + It->second +
               ": an ONNX graph assigns each value once";
    }
  return std::nullopt;
}

std::optional<std::string> badDeclaredShape(const onnx::GraphProto &Graph) {
  for (const auto *Values : {&Graph.input(), &Graph.value_info()})
    for (const onnx::ValueInfoProto &V : *Values) {
      if (!V.type().has_tensor_type())
        continue;
      Shape Known;
      for (const auto &D : V.type().tensor_type().shape().dim())
        if (D.has_dim_value())
          Known.push_back(D.dim_value());
      if (auto Bad = dimsError(Known))
        return (Values == &Graph.input() ? "graph input '" : "value_info '") + V.name() +
               "': " + *Bad;
    }
  return std::nullopt;
}

std::optional<std::string> checkTensorData(const onnx::TensorProto &T) {
  using TP = onnx::TensorProto;
  const Shape Dims(T.dims().begin(), T.dims().end());
  if (auto Bad = dimsError(Dims))
    return Bad;
  if (T.data_location() == TP::EXTERNAL)
    return std::nullopt;
  const int Type = T.data_type();
  static const std::map<int, int> Bytes = {
      {TP::FLOAT, 4},  {TP::UINT8, 1},  {TP::INT8, 1},    {TP::UINT16, 2},  {TP::INT16, 2},
      {TP::INT32, 4},  {TP::INT64, 8},  {TP::BOOL, 1},    {TP::FLOAT16, 2}, {TP::DOUBLE, 8},
      {TP::UINT32, 4}, {TP::UINT64, 8}, {TP::BFLOAT16, 2}};
  auto Size = Bytes.find(Type);
  if (Size == Bytes.end())
    return Type == TP::STRING
               ? std::nullopt
               : std::optional<std::string>("unsupported data type " + std::to_string(Type));
  const int64_t Elements = elementCount(Dims);
  const int64_t Typed = T.float_data_size() + T.int32_data_size() + T.int64_data_size() +
                        T.double_data_size() + T.uint64_data_size();
  const std::string &Raw = T.raw_data();
  if (!Raw.empty() &&
      (Raw.size() % Size->second != 0 || int64_t(Raw.size() / Size->second) != Elements))
    return std::to_string(Raw.size()) + " bytes of data for " + std::to_string(Elements) +
           " elements of " + std::to_string(Size->second) + " bytes";
  // 16-bit and 8-bit types pack one value per int32_data entry.
  if (Raw.empty() && Typed > 0 && Typed != Elements)
    return std::to_string(Typed) + " values for " + std::to_string(Elements) + " elements";
  return std::nullopt;
}

std::optional<std::string> badWindowAttribute(const onnx::GraphProto &Graph) {
  for (const auto &N : Graph.node())
    for (const auto &A : N.attribute()) {
      const bool Pads = A.name() == "pads";
      if (!Pads && A.name() != "strides" && A.name() != "dilations" && A.name() != "kernel_shape")
        continue;
      for (int64_t V : A.ints())
        if ((V <= 0 && !Pads) || V > std::numeric_limits<int32_t>::max())
          return "node '" + N.name() + "' (" + N.op_type() + "): " + A.name() +
                 (V <= 0 ? " must be positive, got " : " too large: ") + std::to_string(V);
    }
  return std::nullopt;
}

} // namespace corpus::onnximport
