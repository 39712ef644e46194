// ONNX import: node attributes, window padding, Constant nodes, and the table of operator
// handlers (corpus/LayerKinds.def; each defined in its layer file, src/layers/).
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

std::string otherOperand(const onnx::NodeProto &N, const std::string &Tensor) {
  if (N.input_size() != 2)
    return "";
  if (N.input(0) == Tensor)
    return N.input(1);
  return N.input(1) == Tensor ? N.input(0) : "";
}

bool allPositive(const std::vector<int64_t> &V) {
  for (int64_t X : V)
    if (X <= 0)
      return false;
  return true;
}

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
#define ONNX_OP(Op, Kind) {#Op, &Importer::import##Op},
#include "corpus/LayerKinds.def"
  };
  return Table;
}

} // namespace corpus::onnximport
