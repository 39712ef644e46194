// The JSON documents of `ptxcast predict|compare|analyze|gpus|zoo --format json` as functions of
// library-level requests. The commands print them (tools/ptxcast parses the flags into these
// requests) and the Python module (python/) returns them, so both give the same fields and
// values by construction (docs/python.md).
#pragma once

#include "pipeline/NetworkAnalysis.h"
#include "pipeline/Prediction.h"

#include "analyzer/FastMode.h"
#include "corpus/Network.h"
#include "support/Expected.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace pipeline {

/// One network on one GPU: what to analyse, the GPU and how to predict.
struct PredictRequest {
  NetworkRequest network;
  std::string gpu;   ///< a catalog name or a GPU spec FILE.json (resolveGpu)
  std::string model; ///< a shipped bundle's name or FILE.json (empty: DefaultModel)
  std::string runtime = "graph";
  std::string math; ///< empty: PyTorch's default for the dtype and GPU
  std::string host; ///< the host for eager time (empty: the GPU's own)
  /// Timings on the GPU, FILE.csv, to calibrate the prediction by (Calibration.h); empty: none.
  std::string calibrate;
};

/// The analysed network, the bundle and its prediction for the one GPU.
struct PredictOutcome {
  NetworkAnalysis network;
  learners::Predictor predictor;
  GpuPrediction prediction;
};

/// Analyses the network and predicts it on the request's GPU.
support::Expected<PredictOutcome> predictNetwork(const PredictRequest &R);

/// How the commands name a dtype to people: "f32", or "f16 (PyTorch autocast: ...)"; under an
/// inference engine (Runtime::Engine) f16 is pure fp16.
std::string dtypeText(const std::string &Dtype, Runtime R = Runtime::Graph);

/// The JSON of a prediction's device memory (`"memory"` of predict and compare).
nlohmann::ordered_json memoryJson(const DeviceMemory &M);

/// The JSON of a prediction's calibration (`"calibration"`): {"factor", "timings"}, or null.
nlohmann::ordered_json calibrationJson(const GpuPrediction &G);

/// The JSON of one network on one GPU (`ptxcast predict --format json`).
nlohmann::ordered_json predictionJson(const NetworkAnalysis &N, const learners::Predictor &P,
                                      const GpuPrediction &G);

/// What `ptxcast predict --format json` prints.
support::Expected<nlohmann::ordered_json> predictDocument(const PredictRequest &R);

/// Every model on every GPU at every batch size.
struct CompareRequest {
  std::vector<std::string> models;   ///< zoo names or FILE.onnx; {"all"}: the zoo
  std::vector<std::string> gpus;     ///< catalog names or spec files; {"all"}: the catalog
  std::vector<std::string> gpuSpecs; ///< GPU spec files, after `gpus`
  std::vector<int64_t> batches = {1};
  double budgetMs = 0;  ///< time per batch to stay within; 0: no budget
  double targetIps = 0; ///< images per second to reach; 0: no target
  /// Instead of `batches`: per model and GPU, the largest batch (1..MaxBatch) that fits the
  /// GPU's memory and meets the budget (compareNetworks searches it, MaxBatch.cpp).
  bool maxBatch = false;
  int64_t imageSize = 0;
  /// Worker threads per network analysis (0 = all cores); two networks are analysed at a time
  /// unless 1.
  unsigned threads = 0;
  std::string dtype = "f32";
  std::string model; ///< the bundle (empty: the shipped default)
  std::string runtime = "graph", math, host;
  /// Timings, FILE.csv: each GPU they name is calibrated by its own (Calibration.h); empty: none.
  std::string calibrate;
  /// ONNX models in memory, by index of `models` (none or one per model; empty: by name).
  std::vector<std::string> modelBytes;
  /// Called before each network's analysis with the analyses started so far, their total (0
  /// when unknown: a max-batch search) and the network about to be analysed (model and batch),
  /// and once more at the end with Done == Total and an empty model; empty: no reports. Calls
  /// come one at a time, from the analysing threads.
  std::function<void(size_t Done, size_t Total, const std::string &Model, int64_t Batch)> progress;
};

/// The largest batch size compare and Python accept (`--batch 1..MaxBatch`).
constexpr int64_t MaxBatch = 4096;

/// One model at one batch size on one GPU.
struct CompareCell {
  std::string input; ///< the model as requested
  GpuPrediction prediction;
  /// With CompareRequest::maxBatch: the batch found (the prediction's), or 0 when even batch
  /// 1 does not fit or meet the budget (the prediction is then batch 1's).
  std::optional<int64_t> maxBatch;
  /// With maxBatch: the lowering refused the next batch up (an int8 engine's kernels index with
  /// 32 bits), so it, not the memory, set the answer; the prediction's warnings say why.
  bool loweringLimited = false;
};

/// The matrix: the request with "all" expanded and the spec files appended to `gpus`, the
/// settings parsed, the bundle, and the cells in model, batch, GPU order.
struct CompareResult {
  CompareRequest request;
  PredictSettings settings;
  learners::Predictor predictor;
  std::vector<CompareCell> cells; ///< per runtime (in the request's order), model, batch, GPU
  size_t analyses = 0;            ///< networks lowered and analysed (one per model and batch tried)
  /// The request named several runtimes (`--runtime eager,graph,tensorrt`); `settings` is the
  /// first one's, each cell's prediction says its own.
  bool severalRuntimes = false;
  /// Catalog GPUs `--gpus all` left out: they cannot run the dtype or a runtime (checkDtype),
  /// and what those need (dtypeRequirement, runtimeRequirement), as a line for people.
  std::vector<std::string> leftOut;
  std::string leftOutWhy;

  bool hasTargets() const { return request.budgetMs > 0 || request.targetIps > 0; }
  /// Whether a cell is within the budget (false when there is none).
  bool withinBudget(const GpuPrediction &G) const {
    return request.budgetMs > 0 && G.timeMs <= request.budgetMs;
  }
  /// Whether a cell reaches the images/s target (false when there is none).
  bool reachesTarget(const GpuPrediction &G) const {
    return request.targetIps > 0 && G.imagesPerSecond() >= request.targetIps;
  }
  /// Whether a cell meets every target given and fits in memory (false without targets).
  bool meets(const GpuPrediction &G) const {
    return hasTargets() && (request.budgetMs <= 0 || withinBudget(G)) &&
           (request.targetIps <= 0 || reachesTarget(G)) && G.memory.fits();
  }
  /// Whether a cell meets every target at the slow end of its error band too (its time where it
  /// has no band): a cell that meets them only at its predicted time may miss them on the GPU.
  bool meetsAcrossBand(const GpuPrediction &G) const {
    const double SlowMs = G.intervalMs ? std::max(G.timeMs, G.intervalMs->second) : G.timeMs;
    return meets(G) && (request.budgetMs <= 0 || SlowMs <= request.budgetMs) &&
           (request.targetIps <= 0 || G.imagesPerSecondAt(SlowMs) >= request.targetIps);
  }
};

/// Checks every name before any analysis runs, then analyses each model and batch once and
/// predicts it on every GPU.
support::Expected<CompareResult> compareNetworks(CompareRequest R);

/// The runtimes of `--runtime A,B,...` in order (one name: itself).
std::vector<std::string> splitRuntimes(const std::string &List);

/// The JSON of a matrix (`ptxcast compare --format json`).
nlohmann::ordered_json compareJson(const CompareResult &C);

/// What `ptxcast compare --format json` prints.
support::Expected<nlohmann::ordered_json> compareDocument(CompareRequest R);

/// Counts of a zoo model, an ONNX file or a launch manifest (`ptxcast analyze`).
struct AnalyzeRequest {
  std::string input;
  std::string onnxBytes; ///< an ONNX model in memory, named `input` (empty: read `input`)
  std::string dtype = "f32";
  std::string arch = "sm_90";
  /// The lowering's math mode (corpus::MathMode by name); auto: what PyTorch runs per layer.
  std::string math = "auto";
  /// The lowering's kernels (corpus::KernelSet by name): library or specialised.
  std::string kernels = "library";
  std::string mode = "fast";
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
  /// A manifest's paths may leave its folder (analyzer::ManifestOptions).
  bool allowOutsidePaths = false;
};

/// Lowers (models, ONNX) or reads (manifests) the input and analyses it in the request's mode.
support::Expected<analyzer::AnalysisResult> analyzeInput(const AnalyzeRequest &R);

/// The JSON of an analysis (`ptxcast analyze --format json`).
nlohmann::ordered_json analysisJson(const analyzer::AnalysisResult &R);

/// What `ptxcast analyze --format json` prints.
support::Expected<nlohmann::ordered_json> analyzeDocument(const AnalyzeRequest &R);

/// What `ptxcast gpus [NAME...] --format json` prints (no names: the whole catalog).
support::Expected<nlohmann::ordered_json> gpusDocument(const std::vector<std::string> &Names);

/// What `ptxcast zoo --format json` prints.
support::Expected<nlohmann::ordered_json> zooDocument();

/// What `ptxcast zoo MODEL --format json` prints: the network's summary and its layers.
nlohmann::ordered_json networkDocument(const corpus::Network &N);

/// A layer's attributes in a few characters: an activation's kind, a convolution's kernel,
/// stride and groups ("3x3/2 g32"); empty for other layers.
std::string layerDetail(const corpus::Layer &L);

} // namespace pipeline
