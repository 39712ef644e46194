// ONNX import of shape arithmetic: the Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains
// exporters write for a dynamic batch fold to constants with the import's batch, in PyTorch's
// flatten (`x.view(x.size(0), -1)`) and ShuffleNet's channel shuffle; misuse names the node.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include "OnnxWriter.h"

#include <onnx/onnx_pb.h>

#include <doctest/doctest.h>

using namespace corpus;
using namespace onnxtest;

namespace {

/// A 0-d int64 initializer (Gather's index as exporters write it).
std::string scalarInt(OnnxWriter &W, int64_t V) {
  auto *T = W.G->add_initializer();
  T->set_name(std::string("k").append(std::to_string(W.G->initializer_size())));
  T->set_data_type(onnx::TensorProto::INT64);
  T->add_int64_data(V);
  return T->name();
}

/// x.size(D) as a 1-element vector: Shape -> Gather(D) -> Unsqueeze(0).
std::string sizeOf(OnnxWriter &W, const std::string &X, int64_t D) {
  std::string S = out(W.node("Shape", {X}));
  std::string G = out(W.node("Gather", {S, scalarInt(W, D)}));
  return out(W.node("Unsqueeze", {G, W.ints({0})}));
}

Network importBatch(const OnnxWriter &W, int64_t Batch) {
  OnnxImportOptions O;
  O.batch = Batch;
  return import(W, O);
}

} // namespace

TEST_CASE("onnx: x.view(x.size(0), -1) with a dynamic batch folds to a reshape") {
  OnnxWriter W(13);
  W.input("x", {-1, 3, 8, 8});
  std::string C = conv(W, "x", 3, 4, 3, 1, 1);
  auto &Cat = W.node("Concat", {sizeOf(W, C, 0), W.ints({-1})});
  setInt(Cat, "axis", 0);
  std::string X = out(W.node("Reshape", {C, out(Cat)}));
  W.output(out(W.node("MatMul", {X, W.weight({256, 10})})));
  for (int64_t Batch : {1, 4}) {
    Network N = importBatch(W, Batch);
    CHECK(kinds(N) == std::vector<std::string>{"input", "conv", "reshape", "dense"});
    CHECK(N.layer(2).shape == Shape{Batch, 256});
  }
}

TEST_CASE("onnx: ShuffleNet's channel shuffle from x.size() arithmetic folds") {
  // n, c, h, w = x.size(); x.view(n, 2, c // 2, h, w).transpose(1, 2).view(n, -1, h, w)
  OnnxWriter W(13);
  W.input("x", {-1, 8, 5, 5});
  std::string N = sizeOf(W, "x", 0), C = sizeOf(W, "x", 1), H = sizeOf(W, "x", 2);
  std::string Wd = sizeOf(W, "x", 3);
  std::string Half = binary(W, "Div", C, W.ints({2}));
  auto &Five = W.node("Concat", {N, W.ints({2}), Half, H, Wd});
  setInt(Five, "axis", 0);
  auto &T = W.node("Transpose", {out(W.node("Reshape", {"x", out(Five)}))});
  setInts(T, "perm", {0, 2, 1, 3, 4});
  auto &Four = W.node("Concat", {N, W.ints({-1}), H, Wd});
  setInt(Four, "axis", 0);
  W.output(out(W.node("Reshape", {out(T), out(Four)})));
  Network Net = importBatch(W, 2);
  CHECK(kinds(Net) == std::vector<std::string>{"input", "reshape", "transpose", "reshape"});
  CHECK(Net.layer(1).shape == Shape{2, 2, 4, 5, 5});
  CHECK(Net.layer(3).shape == Shape{2, 8, 5, 5});
  auto Wl = lower(Net);
  REQUIRE_MESSAGE(bool(Wl), support::errorText(Wl));
  CHECK(Wl->launches.size() == 1); // the shuffle's one copy
}

TEST_CASE("onnx: Shape with Slice, Squeeze and Unsqueeze of activations, integer Cast") {
  OnnxWriter W(13);
  W.input("x", {-1, 6, 1, 1});
  std::string Batch = out(W.node("Slice", {out(W.node("Shape", {"x"})), W.ints({0}), W.ints({1})}));
  auto &Cast = W.node("Cast", {Batch});
  setInt(Cast, "to", onnx::TensorProto::INT64);
  std::string Sq = out(W.node("Squeeze", {"x", W.ints({2, 3})})); // [N, 6]
  std::string Un = out(W.node("Unsqueeze", {Sq, W.ints({1})}));   // [N, 1, 6]
  auto &Cat = W.node("Concat", {out(Cast), W.ints({6})});
  setInt(Cat, "axis", 0);
  W.output(out(W.node("Reshape", {Un, out(Cat)})));
  Network N = importBatch(W, 3);
  CHECK(kinds(N) == std::vector<std::string>{"input", "reshape", "reshape", "reshape"});
  CHECK(N.layer(1).shape == Shape{3, 6});
  CHECK(N.layer(2).shape == Shape{3, 1, 6});
  CHECK(N.layer(3).shape == Shape{3, 6});
  auto Wl = lower(N);
  REQUIRE(bool(Wl));
  CHECK(Wl->launches.empty()); // views only

  OnnxWriter Old(11); // Unsqueeze's axes as an attribute
  Old.input("x", {2, 6});
  auto &U = Old.node("Unsqueeze", {"x"});
  setInts(U, "axes", {0, -1});
  Old.output(out(U));
  CHECK(import(Old).layer(1).shape == Shape{1, 2, 6, 1});
}

TEST_CASE("onnx: shape arithmetic misuse names the node") {
  OnnxWriter G(13);
  G.input("x", {4, 6});
  G.output(out(G.node("Gather", {"x", G.ints({1})}, "g")));
  CHECK(importError(G) == "model.onnx: error: node 'g' (Gather): only a gather from a constant "
                          "1-d integer tensor (shape arithmetic) is supported, not of an "
                          "activation");

  OnnxWriter C(13);
  C.input("x", {4, 6});
  auto &Cast = C.node("Cast", {"x"}, "c");
  setInt(Cast, "to", onnx::TensorProto::FLOAT);
  C.output(out(Cast));
  CHECK(importError(C) == "model.onnx: error: node 'c' (Cast): only a cast of an integer constant "
                          "to an integer type (shape arithmetic) is supported");

  OnnxWriter D(13);
  D.input("x", {4, 6});
  std::string Zero = binary(D, "Div", out(D.node("Shape", {"x"})), D.ints({0}));
  D.output(out(D.node("Reshape", {"x", Zero})));
  D.G->mutable_node(1)->set_name("d");
  CHECK(importError(D) == "model.onnx: error: node 'd' (Div): integer Div of constants 4 and 0 "
                          "is not folded (overflow, division by zero or a power)");

  OnnxWriter S(13);
  S.input("x", {4, 6, 1});
  S.output(out(S.node("Squeeze", {"x", S.ints({1})}, "s")));
  CHECK(importError(S) == "model.onnx: error: node 's' (Squeeze): axis 1 cannot be removed from "
                          "[4,6,1]");
}
