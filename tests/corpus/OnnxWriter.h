// Test helper: writes ONNX models node by node through libonnx's protobuf API, plus block
// writers and a graph comparison shared by the ONNX import tests.
#pragma once

#include "corpus/Onnx.h"
#include "corpus/Zoo.h"

#include <onnx/onnx_pb.h>

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace onnxtest {

using namespace corpus;

/// How weights appear in a written model.
enum class WeightMode {
  Initializers, ///< initializers with data (zero-filled)
  GraphInputs,  ///< graph inputs with shapes, no initializers ("files without weights")
  ValueInfo,    ///< shapes only in value_info
};

/// Writes ONNX models node by node.
class OnnxWriter {
public:
  explicit OnnxWriter(int64_t Opset = 13, WeightMode Mode = WeightMode::Initializers) : Mode(Mode) {
    M.set_ir_version(8);
    auto *Op = M.add_opset_import();
    Op->set_domain("");
    Op->set_version(Opset);
    G = M.mutable_graph();
    G->set_name("test");
  }

  /// A float input; a negative dimension becomes the symbolic "N".
  void input(const std::string &Name, const Shape &S) { setShape(G->add_input(), Name, S); }
  void output(const std::string &Name) {
    auto *V = G->add_output();
    V->set_name(Name);
    V->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }

  /// A float weight of shape S, named uniquely.
  std::string weight(const Shape &S) {
    std::string Name = std::string("w").append(std::to_string(Counter++));
    if (Mode == WeightMode::Initializers) {
      auto *T = G->add_initializer();
      T->set_name(Name);
      T->set_data_type(onnx::TensorProto::FLOAT);
      for (int64_t D : S)
        T->add_dims(D);
      T->set_raw_data(std::string(static_cast<size_t>(elementCount(S)) * 4, '\0'));
    } else {
      setShape(Mode == WeightMode::GraphInputs ? G->add_input() : G->add_value_info(), Name, S);
    }
    return Name;
  }

  /// A constant always stored with data (shapes, clip bounds, pads).
  std::string ints(const std::vector<int64_t> &V) {
    auto *T = G->add_initializer();
    T->set_name(std::string("c").append(std::to_string(Counter++)));
    T->set_data_type(onnx::TensorProto::INT64);
    T->add_dims(static_cast<int64_t>(V.size()));
    for (int64_t X : V)
      T->add_int64_data(X);
    return T->name();
  }
  /// A 1-d float constant with data (Resize's scales).
  std::string floats(const std::vector<float> &V) {
    auto *T = G->add_initializer();
    T->set_name(std::string("c").append(std::to_string(Counter++)));
    T->set_data_type(onnx::TensorProto::FLOAT);
    T->add_dims(static_cast<int64_t>(V.size()));
    for (float F : V)
      T->add_float_data(F);
    return T->name();
  }
  std::string scalar(float F) {
    auto *T = G->add_initializer();
    T->set_name(std::string("c").append(std::to_string(Counter++)));
    T->set_data_type(onnx::TensorProto::FLOAT);
    T->add_float_data(F);
    return T->name();
  }

  /// Adds a node; its output is named after the node.
  onnx::NodeProto &node(const std::string &Op, const std::vector<std::string> &Inputs,
                        const std::string &Name = "") {
    auto *N = G->add_node();
    N->set_op_type(Op);
    N->set_name(Name.empty() ? Op + "_" + std::to_string(Counter++) : Name);
    for (const std::string &I : Inputs)
      N->add_input(I);
    N->add_output(N->name() + "_out");
    return *N;
  }

  std::string bytes() const { return M.SerializeAsString(); }

  onnx::ModelProto M;
  onnx::GraphProto *G;

private:
  void setShape(onnx::ValueInfoProto *V, const std::string &Name, const Shape &S) {
    V->set_name(Name);
    auto *T = V->mutable_type()->mutable_tensor_type();
    T->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t D : S) {
      auto *Dim = T->mutable_shape()->add_dim();
      if (D < 0)
        Dim->set_dim_param("N");
      else
        Dim->set_dim_value(D);
    }
  }

  WeightMode Mode;
  int Counter = 0;
};

inline void setInts(onnx::NodeProto &N, const std::string &Name, const std::vector<int64_t> &V) {
  auto *A = N.add_attribute();
  A->set_name(Name);
  A->set_type(onnx::AttributeProto::INTS);
  for (int64_t X : V)
    A->add_ints(X);
}
inline void setInt(onnx::NodeProto &N, const std::string &Name, int64_t V) {
  auto *A = N.add_attribute();
  A->set_name(Name);
  A->set_type(onnx::AttributeProto::INT);
  A->set_i(V);
}
inline void setFloat(onnx::NodeProto &N, const std::string &Name, float V) {
  auto *A = N.add_attribute();
  A->set_name(Name);
  A->set_type(onnx::AttributeProto::FLOAT);
  A->set_f(V);
}
inline void setString(onnx::NodeProto &N, const std::string &Name, const std::string &V) {
  auto *A = N.add_attribute();
  A->set_name(Name);
  A->set_type(onnx::AttributeProto::STRING);
  A->set_s(V);
}

inline std::string out(const onnx::NodeProto &N) { return N.output(0); }

/// Conv with weight [Out, In/G, K, K], symmetric pads or auto_pad, optional bias.
inline std::string conv(OnnxWriter &W, const std::string &X, int64_t In, int64_t Out, int64_t K,
                        int64_t Stride, int64_t Pad, int64_t Groups = 1, bool Bias = false,
                        const std::string &AutoPad = "") {
  std::vector<std::string> Inputs = {X, W.weight({Out, In / Groups, K, K})};
  if (Bias)
    Inputs.push_back(W.weight({Out}));
  auto &N = W.node("Conv", Inputs);
  setInts(N, "kernel_shape", {K, K});
  setInts(N, "strides", {Stride, Stride});
  if (AutoPad.empty())
    setInts(N, "pads", {Pad, Pad, Pad, Pad});
  else
    setString(N, "auto_pad", AutoPad);
  setInt(N, "group", Groups);
  return out(N);
}

inline std::string bn(OnnxWriter &W, const std::string &X, int64_t C, float Eps = 1e-5f) {
  auto &N =
      W.node("BatchNormalization", {X, W.weight({C}), W.weight({C}), W.weight({C}), W.weight({C})});
  setFloat(N, "epsilon", Eps);
  return out(N);
}

inline std::string unary(OnnxWriter &W, const std::string &Op, const std::string &X) {
  return out(W.node(Op, {X}));
}
inline std::string binary(OnnxWriter &W, const std::string &Op, const std::string &A,
                          const std::string &B) {
  return out(W.node(Op, {A, B}));
}
inline std::string relu6(OnnxWriter &W, const std::string &X) {
  return out(W.node("Clip", {X, W.scalar(0), W.scalar(6)}));
}
inline std::string swish(OnnxWriter &W, const std::string &X) {
  return binary(W, "Mul", X, unary(W, "Sigmoid", X));
}

inline Network import(const OnnxWriter &W, const OnnxImportOptions &O = {}) {
  auto N = importOnnx(W.bytes(), "model.onnx", O);
  REQUIRE_MESSAGE(bool(N), support::errorText(N));
  return std::move(*N);
}

inline std::string importError(const OnnxWriter &W, const OnnxImportOptions &O = {}) {
  auto N = importOnnx(W.bytes(), "model.onnx", O);
  REQUIRE(!N);
  return N.error().str();
}

/// The kind names of N's layers, in order.
inline std::vector<std::string> kinds(const Network &N) {
  std::vector<std::string> K;
  for (const Layer &L : N.layers())
    K.push_back(std::string(layerKindName(L.kind)));
  return K;
}

/// Same layers, in the same order, with the same inputs, shapes, counts and key attributes.
inline void checkSameGraph(const Network &A, const Network &B) {
  REQUIRE(A.size() == B.size());
  for (size_t I = 0; I < A.size(); ++I) {
    const Layer &X = A.layer(static_cast<LayerId>(I)), &Y = B.layer(static_cast<LayerId>(I));
    CAPTURE(I);
    CAPTURE(X.name);
    CHECK(layerKindName(X.kind) == layerKindName(Y.kind));
    CHECK(X.inputs == Y.inputs);
    CHECK(X.shape == Y.shape);
    CHECK(X.params == Y.params);
    CHECK(X.macs == Y.macs);
    if (auto *C = std::get_if<ConvAttrs>(&X.attrs)) {
      const auto &D = std::get<ConvAttrs>(Y.attrs);
      CHECK(C->groups == D.groups);
      CHECK(C->bias == D.bias);
      CHECK(std::vector<int64_t>{C->padTop, C->padLeft, C->padBottom, C->padRight} ==
            std::vector<int64_t>{D.padTop, D.padLeft, D.padBottom, D.padRight});
    }
    if (auto *Act = std::get_if<ActivationAttrs>(&X.attrs)) {
      const auto &Bct = std::get<ActivationAttrs>(Y.attrs);
      CHECK(actKindName(Act->kind) == actKindName(Bct.kind));
      CHECK(Act->alpha == Bct.alpha);
      CHECK(Act->beta == Bct.beta);
    }
  }
  CHECK(A.params() == B.params());
  CHECK(A.macs() == B.macs());
}

inline OnnxWriter lenet5(WeightMode Mode) {
  OnnxWriter W(13, Mode);
  W.input("x", {1, 1, 32, 32});
  std::string X = unary(W, "Tanh", conv(W, "x", 1, 6, 5, 1, 0, 1, true));
  auto Pool = [&](const std::string &In) {
    auto &N = W.node("AveragePool", {In});
    setInts(N, "kernel_shape", {2, 2});
    setInts(N, "strides", {2, 2});
    return out(N);
  };
  X = Pool(X);
  X = Pool(unary(W, "Tanh", conv(W, X, 6, 16, 5, 1, 0, 1, true)));
  X = unary(W, "Flatten", X);
  const int64_t Dense[3][2] = {{400, 120}, {120, 84}, {84, 10}};
  for (int I = 0; I < 3; ++I) {
    auto &G = W.node("Gemm", {X, W.weight({Dense[I][1], Dense[I][0]}), W.weight({Dense[I][1]})});
    setInt(G, "transB", 1);
    X = I < 2 ? unary(W, "Tanh", out(G)) : out(G);
  }
  W.output(X);
  return W;
}

} // namespace onnxtest
