// ONNX import: an ONNX model (with or without weights) -> Network, through libonnx's protobuf
// classes and shape inference. Supported operators and limits: docs/onnx.md.
#pragma once

#include "corpus/Network.h"

#include <string>
#include <string_view>

namespace corpus {

struct OnnxImportOptions {
  /// Value of a graph input's symbolic or unknown first dimension (a dynamic batch).
  int64_t batch = 1;
  /// Height = width of a 4-D graph input with a dynamic batch (NCHW images); 0 keeps the
  /// exported size. A graph whose layers fix the size (a reshape to a constant) then fails its
  /// shape checks with an error.
  int64_t imageSize = 0;
  DType dtype = DType::F32;
  /// Fuse Sigmoid(x)*x into one Swish activation and HardSigmoid(x; 1/6, 1/2)*x into HardSwish.
  bool fuseSwish = true;
};

/// Imports a serialized ModelProto, naming the network after `FileName`'s stem (exporters name
/// graphs "main_graph" whatever the model). `FileName` prefixes diagnostics:
/// `model.onnx: error: node 'conv_7' (LSTM): unsupported operator`.
support::Expected<Network> importOnnx(std::string_view Bytes, const std::string &FileName,
                                      const OnnxImportOptions &Options = {});

/// Reads and imports an ONNX file; an unreadable file is an Error too.
support::Expected<Network> importOnnxFile(const std::string &Path,
                                          const OnnxImportOptions &Options = {});

} // namespace corpus
