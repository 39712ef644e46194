// Models kept as files in the repository: read whole, and text-format ModelProtos encoded as the
// binary bytes an .onnx file holds (the fuzz seeds, the regression models).
#pragma once

#include <google/protobuf/text_format.h>
#include <onnx/onnx_pb.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace onnxtest {

inline std::string readFile(const std::filesystem::path &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream Buffer;
  Buffer << In.rdbuf();
  return Buffer.str();
}

/// A ModelProto in text format, serialized as a binary .onnx file holds it.
inline std::string encodeTextProto(const std::string &Text) {
  onnx::ModelProto Model;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(Text, &Model));
  return Model.SerializeAsString();
}

} // namespace onnxtest
