// The JSON documents of `ptxcast predict|compare|analyze|gpus|zoo --format json` as functions.
// The commands print them and the Python module (python/) returns them, so both give the same
// fields and values by construction (docs/python.md).
#pragma once

#include "NetworkAnalysis.h"
#include "Prediction.h"

#include "support/Expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ptxcast {

/// Flags of `ptxcast predict`.
struct PredictOptions {
  NetworkRequest network;
  std::string gpu;
  std::string model; ///< --model: a shipped name or FILE.json (empty: the default)
  std::string runtime = "graph";
  std::string math; ///< empty: PyTorch's default for the dtype and GPU
  std::string host; ///< empty: the GPU's own host
  std::string format = "table";
  bool timings = false;
};

/// What `ptxcast predict --format json` prints.
support::Expected<nlohmann::ordered_json> predictDocument(const PredictOptions &O);

/// The JSON of one network on one GPU (`ptxcast predict --format json`).
nlohmann::ordered_json predictionJson(const NetworkAnalysis &N, const learners::Predictor &P,
                                      const GpuPrediction &G);

/// Flags of `ptxcast compare`.
struct CompareOptions {
  std::vector<std::string> models, gpus;
  std::vector<std::string> gpuSpecs; ///< --gpu-spec files, after --gpus
  std::vector<int64_t> batches = {1};
  double budgetMs = 0;
  std::string plot;
  std::string format = "table";
  int64_t imageSize = 0;
  unsigned threads = 0;
  std::string dtype = "f32";
  std::string model; ///< --model (empty: the shipped default)
  std::string runtime = "graph", math, host;
  PredictSettings settings;
  /// ONNX models in memory, by index of `models` (none or one per model; empty: by name).
  std::vector<std::string> modelBytes;
  /// Networks analysed so far, as (done, total); empty: none.
  std::function<void(size_t Done, size_t Total)> progress;
};

/// What `ptxcast compare --format json` prints.
support::Expected<nlohmann::ordered_json> compareDocument(CompareOptions O);

/// Flags of `ptxcast analyze`.
struct AnalyzeOptions {
  std::string input;
  std::string onnxBytes; ///< an ONNX model in memory, named `input` (empty: read `input`)
  std::string dtype = "f32";
  std::string arch = "sm_90";
  /// The lowering's math mode (corpus::MathMode by name); auto: what PyTorch runs per layer.
  std::string math = "auto";
  /// The lowering's kernels (corpus::KernelSet by name): library or specialised.
  std::string kernels = "library";
  std::string mode = "fast";
  std::string format = "table";
  int64_t batch = 1;
  int64_t imageSize = 0;
  uint32_t samples = 3;
  unsigned threads = 0;
  bool noAbstract = false, noSampling = false, noDataCheck = false, noDedupe = false;
  bool noLoopSkip = false;
  bool noWarpLoopSkip = false;
  bool noClassTransfer = false;
  bool noResidueStrata = false;
  bool quick = false;
  uint32_t maxSamples = 64;
};

/// What `ptxcast analyze --format json` prints.
support::Expected<nlohmann::ordered_json> analyzeDocument(const AnalyzeOptions &O);

/// What `ptxcast gpus [NAME...] --format json` prints (no names: the whole catalog).
support::Expected<nlohmann::ordered_json> gpusDocument(const std::vector<std::string> &Names);

/// What `ptxcast zoo --format json` prints.
support::Expected<nlohmann::ordered_json> zooDocument();

} // namespace ptxcast
