// The network document behind `ptxcast zoo` and `--format json`: each layer's detail says what
// its kind alone does not (a window, a group count, an activation's alpha, a number operand, an
// upsampling's factors and mode, the axes of a reduction).
#include "pipeline/Documents.h"

#include "corpus/Builder.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace corpus;

TEST_CASE("network document: a layer's detail names its window, alpha, scalar or axes") {
  NetworkBuilder B("details");
  LayerId X = B.input({1, 8, 16, 16});
  X = B.conv(X, 8, 3, 2, 1, /*Groups=*/2);
  X = B.activation(X, ActKind::Elu, 0.5f);
  X = B.activation(X, ActKind::Relu);
  X = B.maxPool(X, 3, 2);
  X = B.add(LayerKind::Pow, {X}, EltwiseAttrs{std::nullopt, 0.75f});
  X = B.upsample(X, 2);
  X = B.add(LayerKind::Upsample, {X}, UpsampleAttrs{3, 2, true, ResizeCoords::AlignCorners});
  B.add(LayerKind::Reduce, {X}, ReduceAttrs{ReduceOp::L2, 2, 4, true});
  auto N = B.finish();
  REQUIRE_MESSAGE(bool(N), support::errorText(N));
  std::vector<std::string> Details;
  const auto Doc = pipeline::networkDocument(*N);
  for (const auto &L : Doc.at("layers"))
    Details.push_back(L.at("detail").get<std::string>());
  CHECK(Details == std::vector<std::string>{"", "3x3/2 g2", "elu 0.5", "relu", "3x3/2", "0.75",
                                            "x2x2", "x3x2 lin-ac", "l2 axes 2-3"});
}
