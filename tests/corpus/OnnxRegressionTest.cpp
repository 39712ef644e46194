// ONNX import on adversarial models (tests/corpus/onnx_regressions, README.md there): each once
// crashed, overflowed or imported with wrong counts, and must now be an error, never a crash.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include "OnnxText.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

using namespace corpus;
namespace fs = std::filesystem;

namespace {

/// The error a regression names on its first line (`# error: MESSAGE`), or "".
std::string expectedError(const std::string &Text) {
  const std::string Tag = "# error: ";
  if (Text.rfind(Tag, 0) != 0)
    return "";
  return Text.substr(Tag.size(), Text.find('\n') - Tag.size());
}

std::vector<fs::path> regressions() {
  std::vector<fs::path> Files;
  for (const auto &E : fs::directory_iterator(fs::path(PTXCAST_SOURCE_DIR) / "tests" / "corpus" /
                                              "onnx_regressions"))
    if (E.path().extension() == ".textproto" || E.path().extension() == ".onnx")
      Files.push_back(E.path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

} // namespace

TEST_CASE("onnx regressions: each adversarial model is the error it names, never a crash") {
  const std::vector<fs::path> Files = regressions();
  REQUIRE(Files.size() >= 10);
  for (const fs::path &Path : Files) {
    CAPTURE(Path.filename().string());
    const std::string Text = onnxtest::readFile(Path);
    if (Path.extension() == ".textproto") {
      const std::string Expected = expectedError(Text);
      REQUIRE_FALSE(Expected.empty());
      auto N = importOnnx(onnxtest::encodeTextProto(Text), "model.onnx");
      REQUIRE_FALSE(N);
      CHECK(N.error().str() == "model.onnx: error: " + Expected);
      continue;
    }
    // A fuzzer's input: import and lowering each give a value or an error.
    auto N = importOnnx(Text, "model.onnx");
    if (!N) {
      CHECK_FALSE(N.error().message.empty());
      continue;
    }
    LowerOptions Options;
    Options.emitPtx = false;
    auto W = lower(*N, Options);
    CHECK((W || !W.error().message.empty()));
  }
}
