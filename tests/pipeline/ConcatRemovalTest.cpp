// An engine's concat removal (pipeline::LaunchRecord::inPlaceShare, hardware::bound): which
// inputs of each concatenation its producers write in place, on a network built to have each
// case, and what the engine's bound then charges against PyTorch's torch.cat.
#include "pipeline/NetworkAnalysis.h"
#include "pipeline/Prediction.h"

#include "hardware/GpuCatalog.h"
#include "hardware/Skeleton.h"

#include "../corpus/OnnxWriter.h"

#include <doctest/doctest.h>

#include <vector>

using namespace onnxtest;

namespace {

std::string concat(OnnxWriter &W, const std::vector<std::string> &Inputs) {
  auto &N = W.node("Concat", Inputs);
  setInt(N, "axis", 1);
  return out(N);
}

/// x [N, 8, 16, 16]; a, b = convolutions of x; c1 = cat(a, b); b2 = conv(c1);
/// c2 = cat(x, b2); c3 = cat(a, b2); y = cat(c2, c3). Every tensor has 8 channels of 16 x 16
/// but the concatenations' outputs.
std::string network() {
  OnnxWriter W(13);
  W.input("x", {-1, 8, 16, 16});
  const std::string A = conv(W, "x", 8, 8, 1, 1, 0), B = conv(W, "x", 8, 8, 3, 1, 1);
  const std::string C1 = concat(W, {A, B});
  const std::string B2 = conv(W, C1, 16, 8, 3, 1, 1);
  const std::string C2 = concat(W, {"x", B2});
  const std::string C3 = concat(W, {A, B2});
  W.output(concat(W, {C2, C3}));
  return W.bytes();
}

} // namespace

TEST_CASE("engine: concatenation inputs move in place once, network inputs are copied") {
  pipeline::NetworkRequest R;
  R.input = "cats";
  R.onnxBytes = network();
  R.batch = 2;
  R.dtype = "f16";
  R.progress = [](size_t, size_t) {};
  auto N = pipeline::analyseFor(R, pipeline::Runtime::Engine, {});
  REQUIRE_MESSAGE(N, N.error().str());
  std::vector<double> Shares;
  for (const pipeline::LaunchRecord &L : N->launches)
    if (L.strategy == "concat")
      Shares.push_back(L.inPlaceShare);
    else
      CHECK(L.inPlaceShare == 0);
  // c1: a and b move; c2: x is the network's input, b2 moves (half the bytes); c3: a and b2
  // already live in c1 and c2, so both are copied; y: c2 and c3 move.
  CHECK(Shares == std::vector<double>{1, 0.5, 0, 1});

  auto C = hardware::GpuCatalog::builtin();
  REQUIRE(C);
  auto T4 = C->lookup("t4");
  REQUIRE(T4);
  hardware::Execution Engine{hardware::MathMode::F16, hardware::Implementation::Framework, false};
  Engine.engine = true;
  hardware::Execution Cat = Engine; // PyTorch's torch.cat copies every input
  Cat.engine = false;
  size_t K = 0;
  for (const hardware::LaunchWork &W : N->work()) {
    if (W.kind != "concat")
      continue;
    CAPTURE(K);
    const hardware::LaunchBound Copy = hardware::bound(W, *T4, Cat);
    const hardware::LaunchBound Moved = hardware::bound(W, *T4, Engine);
    CHECK(Moved.workMs == doctest::Approx((1 - Shares[K]) * Copy.workMs));
    CHECK(Moved.kernels == (Shares[K] == 1 ? 0 : 1));
    ++K;
  }
  CHECK(K == 4);
}
