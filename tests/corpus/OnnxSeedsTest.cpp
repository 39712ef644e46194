// The fuzzer's seed models (fuzz/onnx-seeds) are the operators in the forms exporters write:
// each must import and lower, or the fuzzer would start from errors. Two of them are detection
// heads as YOLOv5 and YOLOv8 export them (5-d views and constants, Split by sizes, the DFL's
// softmax over an inner axis), whose output shapes are checked.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace corpus;
namespace fs = std::filesystem;

namespace {

/// The seed's text-format model as the binary bytes of an .onnx file.
std::string seedBytes(const fs::path &Path) {
  std::ifstream In(Path);
  std::ostringstream Text;
  Text << In.rdbuf();
  onnx::ModelProto Model;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(Text.str(), &Model));
  return Model.SerializeAsString();
}

} // namespace

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
    auto N = importOnnx(seedBytes(Path), Path.filename().string());
    REQUIRE_MESSAGE(bool(N), support::errorText(N));
    auto W = lower(*N);
    CHECK_MESSAGE(bool(W), support::errorText(W));
    if (auto It = Outputs.find(Name); It != Outputs.end()) {
      CHECK(N->layers().back().shape == It->second);
      ++Checked;
    }
  }
  CHECK(Checked == Outputs.size());
}
