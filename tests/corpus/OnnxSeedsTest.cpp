// The fuzzer's seed models (fuzz/onnx-seeds) are the operators in the forms exporters write:
// each must import and lower, or the fuzzer would start from errors. Two of them are detection
// heads as YOLOv5 and YOLOv8 export them (5-d views and constants, Split by sizes, the DFL's
// softmax over an inner axis), whose output shapes are checked.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include "OnnxText.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace corpus;
namespace fs = std::filesystem;

TEST_CASE("onnx seeds: every fuzz seed imports and lowers and the YOLO heads keep their shapes") {
  std::vector<fs::path> Seeds;
  for (const auto &E : fs::directory_iterator(fs::path(PTXCAST_SOURCE_DIR) / "fuzz" / "onnx-seeds"))
    if (E.path().extension() == ".textproto")
      Seeds.push_back(E.path());
  std::sort(Seeds.begin(), Seeds.end());
  REQUIRE(Seeds.size() >= 13);
  const std::map<std::string, Shape> Outputs = {{"yolov5_head", {1, 192, 85}},
                                                {"yolov8_head", {1, 84, 80}}};
  size_t Checked = 0;
  for (const fs::path &Path : Seeds) {
    const std::string Name = Path.stem().string();
    CAPTURE(Name);
    auto N =
        importOnnx(onnxtest::encodeTextProto(onnxtest::readFile(Path)), Path.filename().string());
    REQUIRE_MESSAGE(bool(N), support::errorText(N));
    // As the fuzzer lowers (fuzz/onnx_import_fuzzer.cpp), and with the defaults, PTX included.
    LowerOptions Fuzzer;
    Fuzzer.math = MathMode::Auto;
    Fuzzer.kernels = KernelSet::Library;
    Fuzzer.emitPtx = false;
    for (const LowerOptions &O : {Fuzzer, LowerOptions{}}) {
      auto W = lower(*N, O);
      CHECK_MESSAGE(bool(W), support::errorText(W));
    }
    if (auto It = Outputs.find(Name); It != Outputs.end()) {
      CHECK(N->layers().back().shape == It->second);
      ++Checked;
    }
  }
  CHECK(Checked == Outputs.size());
}
