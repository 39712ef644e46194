// A zoo model or ONNX file lowered in memory and analysed in fast mode, with what prediction
// needs per launch: counts, launch kind (the lowering's strategy), layers and buffer footprint.
// Shared by `ptxcast predict` and `ptxcast compare`; analysisInput by analyze and dataset too.
#pragma once

#include "pipeline/AnalysisCache.h"
#include "pipeline/Memory.h"

#include "analyzer/Counts.h"
#include "analyzer/FastMode.h"
#include "corpus/KernelGen.h"
#include "corpus/Lower.h"
#include "corpus/Network.h"
#include "corpus/Workload.h"
#include "hardware/Skeleton.h"
#include "support/Expected.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace pipeline {

/// Reports analysed launches as (done, total); may be called from analysis worker threads.
using ProgressFn = std::function<void(size_t Done, size_t Total)>;

/// The progress line `ptxcast predict` prints on stderr while it is a terminal (else none).
ProgressFn terminalProgress();
/// For RunSettings::ctaProgress: "CTA done/total" of the running launch on stderr, only when it
/// is a terminal (empty otherwise), the line cleared when the launch ends.
std::function<void(uint64_t, uint64_t)> terminalCtaProgress();

/// What to lower and how.
struct NetworkRequest {
  std::string input; ///< zoo model name or FILE.onnx; with onnxBytes, the network's name
  int64_t batch = 1;
  int64_t imageSize = 0; ///< zoo models: H = W; 0 = the model's own resolution
  std::string dtype = "f32";
  std::string arch = "sm_90";
  unsigned threads = 0;                    ///< analysis worker threads; 0 = all cores
  corpus::KernelCache *cache = nullptr;    ///< kernels shared with other requests (may be null)
  const AnalysisCache *analyses = nullptr; ///< on-disk analysis cache (may be null)
  std::string onnxBytes; ///< an ONNX model held in memory (empty: `input` says what to build)
  ProgressFn progress;   ///< analysis progress (empty: terminalProgress())
  /// LowerOptions::math by name (simt, tf32, f16, bf16, auto): the kernels lowered, not
  /// predict's --math (the tensor rates the predictor assumes). Predict and compare keep simt:
  /// the shipped model was trained on the CUDA-core kernels' counts.
  std::string math = "simt";
  /// What PyTorch runs around the layers (LaunchRecord::framework); off for an inference engine,
  /// which runs ptxcast's fused kernels alone.
  bool frameworkPasses = true;
};

/// One launch of the lowered network.
struct LaunchRecord {
  analyzer::KernelProfile profile;
  std::string strategy; ///< conv_gemm, conv_dw, eltwise, ... (corpus lowering)
  std::vector<std::string> layers;
  uint64_t footprintBytes = 0;         ///< bytes of the distinct buffers this launch uses
  int64_t macs = 0;                    ///< multiply-adds of the layers it computes
  hardware::FrameworkPasses framework; ///< what PyTorch runs around the launch's layers
  hardware::GemmShape gemm;            ///< its first layer as a GEMM, when it is GEMM-like
  bool winograd = false; ///< its first layer is a Winograd-shaped convolution (LaunchWork)
  double inPlaceShare = 0; ///< a concatenation's input bytes an engine writes in place (LaunchWork)
};

/// The analysed network.
struct NetworkAnalysis {
  std::string network; ///< the network's name
  int64_t batch = 1;
  int64_t imageSize = 0; ///< input height (= width for the zoo)
  std::string dtype;
  std::vector<LaunchRecord> launches;
  uint64_t footprintBytes = 0; ///< bytes of the distinct buffers all launches use
  NetworkMemory memory;        ///< what PyTorch, or an engine, needs in device memory (Memory.h)
  double lowerSeconds = 0;     ///< wall time of building + lowering
  double analyseSeconds = 0;   ///< wall time of fast analysis
  bool fromCache = false;      ///< the counts came from the on-disk analysis cache
  /// An int8 or f16 engine's: the same network as the engine one precision wider (analyseFor).
  /// TensorRT keeps an int8 engine's fp16 tactics where they are faster (on GPUs whose int8 runs
  /// on the CUDA cores' dp4a beside fp16 tensor cores, and where an int8 layer's reformats cost
  /// more than they save), and builds no fp16 on a GPU without fast FP16 (hardware::fastFp16), so
  /// predictOnGpus gives this engine's time there.
  std::shared_ptr<const NetworkAnalysis> widerEngine;
  /// Above batch 1, the same request at batch 1 (analyseFor): predictOnGpus never gives a batch
  /// less GPU time than one of its images takes alone.
  std::shared_ptr<const NetworkAnalysis> batchOne;

  /// The launches as the physical model sees them (hardware/Skeleton.h).
  std::vector<hardware::LaunchWork> work() const;
};

/// The analyzer's input for a lowered workload: its PTX modules (moved out of W) and manifest.
/// `Input` names the network in diagnostics (`Input/manifest.json`).
support::Expected<analyzer::AnalysisInput> analysisInput(corpus::Workload &W,
                                                         const std::string &Input);

/// True when Input names an ONNX file rather than a zoo model.
bool isOnnxPath(const std::string &Input);

/// E naming the ONNX file Input when it names no file itself (a layer of the file that does
/// not lower, say); E unchanged for zoo models.
support::Error inInput(support::Error E, const std::string &Input);

/// Nothing when Input is a zoo model or names an ONNX file, else an Error suggesting the zoo's
/// closest names.
support::MaybeError checkModelName(const std::string &Input);

/// The network of a request: a zoo model built, or an ONNX model (file or bytes) imported.
support::Expected<corpus::Network> buildNetwork(const NetworkRequest &R);

/// Lowers a built network and fast-analyses it with the settings `ptxcast predict` and
/// `ptxcast dataset` share (quick sampling, no data-dependence check: lowered kernels branch on
/// indices only) on `Threads` threads (0 = all cores), reporting to `Progress` (may be empty). With
/// a `Cache`, counts of a workload analysed before are read back instead. Sets everything but batch
/// and dtype; lowerSeconds covers lowering only.
/// Whose accounting NetworkAnalysis::memory follows: PyTorch's (networkMemory) or an inference
/// engine's running the lowered kernels (engineMemory).
enum class MemoryModel { PyTorch, Engine };

support::Expected<NetworkAnalysis> analyseLowered(const corpus::Network &Net,
                                                  const corpus::LowerOptions &Lower,
                                                  unsigned Threads, const ProgressFn &Progress,
                                                  const AnalysisCache *Cache = nullptr,
                                                  MemoryModel Memory = MemoryModel::PyTorch);

/// The device memory of request R's network Net without analysing it: PyTorch's accounting, or
/// for an engine request (frameworkPasses off) the engine's over the lowering's plan.
support::Expected<NetworkMemory> memoryOf(const corpus::Network &Net, const NetworkRequest &R);

/// Builds (zoo) or imports (ONNX), lowers (kernels planned and emitted) and fast-analyses the
/// network. Unknown model names, unreadable or unsupported ONNX files and analysis traps are
/// Errors with the message of the stage that failed.
support::Expected<NetworkAnalysis> analyseNetwork(const NetworkRequest &R);

} // namespace pipeline
