// Lowering + fast analysis of one network for prediction (NetworkAnalysis.h).
#include "pipeline/NetworkAnalysis.h"

#include "CudnnLayout.h"

#include "analyzer/FastMode.h"
#include "corpus/Lower.h"
#include "corpus/Onnx.h"
#include "corpus/Zoo.h"
#include "ptx/Parser.h"
#include "ptx/Resources.h"
#include "support/Closest.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <unistd.h>

namespace pipeline {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

/// Bytes of the distinct buffers named by the launches' arguments.
uint64_t footprint(const std::map<std::string, uint64_t> &Bytes,
                   const std::vector<const corpus::WorkloadLaunch *> &L) {
  std::set<std::string> Used;
  for (const corpus::WorkloadLaunch *Launch : L)
    for (const corpus::WorkloadArg &A : Launch->args)
      Used.insert(A.buffer);
  uint64_t Sum = 0;
  for (const std::string &Name : Used)
    if (auto It = Bytes.find(Name); It != Bytes.end())
      Sum += It->second;
  return Sum;
}

/// The tensors autocast casts to fp16 for layer L: the weights and bias of a convolution or
/// dense layer (PyTorch's autocast runs those in fp16 and casts their fp32 parameters on every
/// forward pass), and a network input it reads. One cast kernel per tensor.
void addCasts(const corpus::Network &Net, const corpus::Layer &L, hardware::FrameworkPasses &F) {
  if (L.kind != corpus::LayerKind::Conv && L.kind != corpus::LayerKind::Dense)
    return;
  const bool Bias = L.kind == corpus::LayerKind::Conv ? std::get<corpus::ConvAttrs>(L.attrs).bias
                                                      : std::get<corpus::DenseAttrs>(L.attrs).bias;
  F.castElements += uint64_t(L.params);
  F.castTensors += Bias ? 2 : 1;
  if (Bias && L.kind == corpus::LayerKind::Conv && L.shape.size() >= 2) {
    F.biasCastElements += uint64_t(L.shape[1]); // one per output channel
    ++F.biasCastTensors;
  }
  for (corpus::LayerId In : L.inputs)
    if (const corpus::Layer &X = Net.layer(In); X.kind == corpus::LayerKind::Input) {
      F.castElements += uint64_t(corpus::elementCount(X.shape));
      ++F.castTensors;
    }
}

/// What PyTorch and cuDNN run around convolution L (profiled on the H100, docs/cross-gpu.md):
/// a bias gets a broadcast add of its own, one element per thread; a convolution cuDNN runs on
/// tensor cores in NHWC has its input and weights transposed from NCHW and its output back
/// (transposedForTensorCores); an image's first layer (under 8 input channels) runs on CUDA
/// cores in NCHW (FrameworkPasses::imageConv).
void addConvPasses(const corpus::Network &Net, const corpus::Layer &L,
                   hardware::FrameworkPasses &F) {
  const auto &A = std::get<corpus::ConvAttrs>(L.attrs);
  const uint64_t Out = uint64_t(corpus::elementCount(L.shape));
  if (A.bias) {
    ++F.biasAdds;
    F.latencyBoundElements += Out;
  }
  const corpus::Shape &In = Net.layer(L.inputs.front()).shape;
  if (In.size() != 4)
    return;
  F.imageConv |= In[1] < 8;
  if (!transposedForTensorCores(Net, L))
    return;
  F.layoutElements += uint64_t(corpus::elementCount(In)) + convWeightElements(L) + Out;
  F.layoutTensors += 3;
}

/// Elements of fused layer L's inputs other than Previous, the layer before it in the launch
/// (a residual add's shortcut, a channel scale's vector).
uint64_t otherInputElements(const corpus::Network &Net, const corpus::Layer &L,
                            corpus::LayerId Previous) {
  uint64_t Sum = 0;
  for (corpus::LayerId In : L.inputs)
    if (In != Previous)
      Sum += uint64_t(corpus::elementCount(Net.layer(In).shape));
  return Sum;
}

/// What a framework runs around a launch's layers besides their own kernels
/// (hardware::FrameworkPasses): autocast's casts, the convolutions' bias adds and transposes,
/// and NCHW batch norms, which handle one element per thread; and the input a pool reads at
/// memory latency (a pool always heads its launch: the lowering fuses elementwise tails only).
hardware::FrameworkPasses frameworkPassesOf(const corpus::Network &Net,
                                            const std::map<std::string, corpus::LayerId> &ByName,
                                            const std::vector<std::string> &Layers,
                                            corpus::DType Type) {
  hardware::FrameworkPasses F;
  F.elementBytes = Type == corpus::DType::F16 ? 2 : 4;
  std::optional<corpus::LayerId> Previous;
  for (size_t I = 0; I < Layers.size(); ++I) {
    auto It = ByName.find(Layers[I]);
    if (It == ByName.end())
      continue;
    const corpus::Layer &L = Net.layer(It->second);
    if (I > 0 && Previous)
      F.tailInputElements += otherInputElements(Net, L, *Previous);
    Previous = It->second;
    addCasts(Net, L, F);
    if (L.kind == corpus::LayerKind::Conv)
      addConvPasses(Net, L, F);
    if (L.kind == corpus::LayerKind::BatchNorm) // fused: a pass of its own; first: the launch
      (I > 0 ? F.latencyBoundElements : F.leadingLatencyBoundElements) +=
          uint64_t(corpus::elementCount(L.shape));
    const bool Pool = L.kind == corpus::LayerKind::MaxPool || L.kind == corpus::LayerKind::AvgPool;
    if (I == 0 && Pool)
      F.poolInputElements += uint64_t(corpus::elementCount(Net.layer(L.inputs.front()).shape));
  }
  return F;
}

/// Layer L as a GEMM (hardware::GemmShape): a convolution of one group as an implicit GEMM (rows
/// the output pixels, columns the output channels), a dense layer, a batched matmul; each output
/// element takes macs / outputs multiply-adds. Unknown for any other layer.
hardware::GemmShape gemmShapeOf(const corpus::Layer &L) {
  const double Out = double(corpus::elementCount(L.shape));
  if (Out <= 0 || L.macs <= 0 || L.shape.size() < 2)
    return {};
  const double K = double(L.macs) / Out;
  switch (L.kind) {
  case corpus::LayerKind::Conv: {
    const auto &A = std::get<corpus::ConvAttrs>(L.attrs);
    if (A.groups != 1)
      return {};
    return {1, Out / double(A.outChannels), double(A.outChannels), K};
  }
  case corpus::LayerKind::Dense: {
    const double N = double(std::get<corpus::DenseAttrs>(L.attrs).outFeatures);
    return {1, Out / N, N, K};
  }
  case corpus::LayerKind::MatMul: {
    const double M = double(L.shape[L.shape.size() - 2]), N = double(L.shape.back());
    return {Out / (M * N), M, N, K};
  }
  default:
    return {};
  }
}

/// L is a 3x3, stride-1, undilated convolution of one group (hardware::LaunchWork::winograd).
bool winogradShaped(const corpus::Layer &L) {
  if (L.kind != corpus::LayerKind::Conv)
    return false;
  const auto &A = std::get<corpus::ConvAttrs>(L.attrs);
  return A.groups == 1 && A.kernelH == 3 && A.kernelW == 3 && A.strideH == 1 && A.strideW == 1 &&
         A.dilationH == 1 && A.dilationW == 1;
}

/// The static resources (estimated registers, static shared memory) of each launch's kernel,
/// which the analysis cache does not store: they follow from the PTX alone.
support::MaybeError fillResources(const corpus::Workload &W, NetworkAnalysis &Out) {
  std::map<std::string, ptx::KernelResources> ByKernel;
  std::vector<std::string> Names = corpus::ptxFileNames(W);
  for (size_t K = 0; K < W.ptx.size(); ++K) {
    auto M = ptx::parseModule(W.ptx[K], Names[K]);
    if (!M)
      return M.error();
    for (const ptx::Function &F : M->functions)
      if (F.isEntry && F.hasBody)
        ByKernel[F.name] = ptx::estimateResources(*M, F);
  }
  for (LaunchRecord &L : Out.launches) {
    auto It = ByKernel.find(L.profile.kernel);
    if (It == ByKernel.end())
      return support::Error("kernel '" + L.profile.kernel + "' is in no PTX module");
    L.profile.registersPerThread = It->second.registers;
    L.profile.staticSharedBytes = It->second.staticSharedBytes;
  }
  return std::nullopt;
}

} // namespace

support::Expected<analyzer::AnalysisInput> analysisInput(corpus::Workload &W,
                                                         const std::string &Input) {
  auto M = analyzer::parseManifest(corpus::manifestJson(W), Input + "/manifest.json");
  if (!M)
    return M.error();
  analyzer::AnalysisInput In;
  std::vector<std::string> Names = corpus::ptxFileNames(W);
  for (size_t K = 0; K < W.ptx.size(); ++K)
    In.ptx.push_back({Names[K], std::move(W.ptx[K])});
  In.buffers = std::move(M->buffers);
  In.launches = std::move(M->launches);
  return In;
}

bool isOnnxPath(const std::string &Input) {
  return Input.size() >= 5 && Input.compare(Input.size() - 5, 5, ".onnx") == 0;
}

support::Error inInput(support::Error E, const std::string &Input) {
  if (E.file.empty() && isOnnxPath(Input))
    E.file = Input;
  return E;
}

std::function<void(uint64_t, uint64_t)> terminalCtaProgress() {
  if (!isatty(STDERR_FILENO))
    return {};
  return [](uint64_t Done, uint64_t Total) {
    if (Done == Total)
      fmt::print(stderr, "\r\033[K");
    else
      fmt::print(stderr, "\rCTA {}/{}", Done, Total);
  };
}

ProgressFn terminalProgress() {
  if (!isatty(STDERR_FILENO))
    return {};
  return [](size_t Done, size_t Total) {
    fmt::print(stderr, "\ranalysed {}/{} launches", Done, Total);
    if (Done == Total)
      fmt::print(stderr, "\r\033[K");
  };
}

support::MaybeError checkModelName(const std::string &Input) {
  std::vector<std::string> Names;
  for (const corpus::ZooModel &M : corpus::zooModels())
    Names.push_back(M.name);
  if (isOnnxPath(Input) || std::find(Names.begin(), Names.end(), Input) != Names.end())
    return std::nullopt;
  return support::Error(fmt::format("unknown model '{}' (closest: {}; `ptxcast zoo` lists all "
                                    "{}; or give an ONNX file, FILE.onnx)",
                                    Input, support::closestNames(Input, Names, 5), Names.size()));
}

namespace {

/// The element type a request names; an unknown name is an error, never f32 by default.
support::Expected<corpus::DType> dtypeOf(const NetworkRequest &R) {
  if (auto T = corpus::parseDType(R.dtype))
    return *T;
  return support::Error("unknown dtype '" + R.dtype + "' (expected " +
                        corpus::dtypeNames(", ", " or ") + ")");
}

/// LaunchRecord::inPlaceShare of every concatenation in W: the bytes of its inputs that an
/// engine's producers write straight into its output. As TensorRT's builder logs its concat
/// removal ("Retargeting X to Y" or "Generating copy for X to Y because input is not movable"),
/// an input moves into the output when an earlier launch wrote it whole (not a network input or
/// a weight; a channel slice is a copy launch of its own, so it moves too) and no earlier
/// concatenation took it (a tensor has one place: DenseNet's features move into one
/// concatenation, the others copy). The lowering passes whole buffers (offset 0); one read at an
/// offset would be part of another tensor, and is copied.
void markInPlaceConcats(const corpus::Workload &W, const std::map<std::string, uint64_t> &Bytes,
                        std::vector<LaunchRecord> &Records) {
  std::set<std::string> Written, Moved;
  for (size_t K = 0; K < W.launches.size(); ++K) {
    const corpus::WorkloadLaunch &L = W.launches[K];
    const std::string &Out = corpus::outputBuffer(L);
    if (L.strategy == "concat") {
      double All = 0, InPlace = 0;
      for (const corpus::WorkloadArg &A : L.args) {
        if (A.buffer.empty() || A.buffer == Out)
          continue;
        const double Size = double(Bytes.at(A.buffer));
        All += Size;
        if (A.offset == 0 && Written.count(A.buffer) && Moved.insert(A.buffer).second)
          InPlace += Size;
      }
      Records[K].inPlaceShare = All > 0 ? InPlace / All : 0;
    }
    Written.insert(Out);
  }
}

} // namespace

support::Expected<corpus::Network> buildNetwork(const NetworkRequest &R) {
  auto Dtype = dtypeOf(R);
  if (!Dtype)
    return Dtype.error();
  const corpus::DType Type = *Dtype;
  const bool Onnx = !R.onnxBytes.empty() || isOnnxPath(R.input);
  if (!Onnx)
    if (auto E = checkModelName(R.input))
      return *E;
  if (!Onnx)
    return corpus::buildZooModel(R.input, corpus::ZooOptions{R.batch, R.imageSize, Type});
  corpus::OnnxImportOptions Opts;
  Opts.batch = R.batch;
  Opts.imageSize = R.imageSize; // 0: the size the graph was exported at
  Opts.dtype = Type;
  // In memory, the network takes its name from `input` (importOnnx names it after a file stem).
  if (!R.onnxBytes.empty())
    return corpus::importOnnx(R.onnxBytes, R.input + ".onnx", Opts);
  return corpus::importOnnxFile(R.input, Opts);
}

std::vector<hardware::LaunchWork> NetworkAnalysis::work() const {
  std::vector<hardware::LaunchWork> Out;
  Out.reserve(launches.size());
  for (const LaunchRecord &L : launches) {
    hardware::LaunchWork &W = Out.emplace_back();
    W.profile = L.profile;
    W.kind = L.strategy;
    W.footprintBytes = L.footprintBytes;
    W.macs = double(L.macs);
    W.fusedLayers = L.layers.empty() ? 0 : uint32_t(L.layers.size() - 1);
    W.framework = L.framework;
    W.gemm = L.gemm;
    W.winograd = L.winograd;
    W.inPlaceShare = L.inPlaceShare;
  }
  return Out;
}

support::Expected<NetworkAnalysis> analyseLowered(const corpus::Network &Net,
                                                  const corpus::LowerOptions &Lower,
                                                  unsigned Threads, const ProgressFn &Progress,
                                                  const AnalysisCache *Cache, MemoryModel Memory) {
  Clock::time_point Start = Clock::now();
  auto W = corpus::lower(Net, Lower);
  if (!W)
    return W.error();
  if (W->launches.empty())
    return support::Error("the network has no GPU work: every layer is a view of its input or "
                          "folds into a constant");
  NetworkAnalysis Out;
  Out.network = Net.name();
  const corpus::Shape &InShape = Net.layer(Net.inputs().front()).shape;
  Out.imageSize = InShape.size() >= 4 ? InShape[2] : 0;
  std::map<std::string, corpus::LayerId> ByName;
  for (corpus::LayerId Id = 0; Id < Net.size(); ++Id)
    ByName.emplace(Net.layer(Id).name, Id);
  std::map<std::string, uint64_t> Bytes; // per buffer, built once: networks of 10^5 layers
  for (const corpus::WorkloadBuffer &B : W->buffers)
    Bytes.emplace(B.name, B.bytes);
  std::vector<const corpus::WorkloadLaunch *> All;
  for (const corpus::WorkloadLaunch &L : W->launches) {
    All.push_back(&L);
    LaunchRecord &Rec = Out.launches.emplace_back();
    Rec.strategy = L.strategy;
    Rec.layers = L.layers;
    Rec.footprintBytes = footprint(Bytes, {&L});
    Rec.macs = L.macs;
    Rec.framework = frameworkPassesOf(Net, ByName, L.layers, Lower.dtype);
    if (auto It = ByName.find(L.layers.empty() ? "" : L.layers.front()); It != ByName.end()) {
      Rec.gemm = gemmShapeOf(Net.layer(It->second));
      Rec.winograd = winogradShaped(Net.layer(It->second));
    }
  }
  Out.footprintBytes = footprint(Bytes, All);
  markInPlaceConcats(*W, Bytes, Out.launches);
  Out.memory = Memory == MemoryModel::Engine ? engineMemory(*W, Net) : networkMemory(Net);
  std::string Key;
  if (Cache) {
    std::vector<std::string_view> Texts(W->ptx.begin(), W->ptx.end());
    Key = AnalysisCache::key("fast-quick-nodata", corpus::manifestJson(*W), Texts);
    if (auto Hit = Cache->load(Key); Hit && Hit->size() == Out.launches.size()) {
      for (size_t K = 0; K < Hit->size(); ++K)
        Out.launches[K].profile = std::move((*Hit)[K]);
      if (auto E = fillResources(*W, Out))
        return *E;
      Out.lowerSeconds = secondsSince(Start);
      Out.fromCache = true;
      return Out;
    }
  }
  auto In = analysisInput(*W, Net.name());
  if (!In)
    return In.error();
  Out.lowerSeconds = secondsSince(Start);
  Start = Clock::now();
  // Quick sampling, and no data-dependence check: lowered kernels branch on indices only
  // (docs/fast-mode.md, "Quick settings").
  analyzer::FastSettings S = analyzer::quickSettings();
  S.checkDataDependence = false;
  S.threads = Threads;
  S.progress = Progress;
  auto A = analyzer::analyze(*In, analyzer::AnalysisMode::Fast, S);
  if (!A)
    return A.error();
  for (size_t K = 0; K < A->launches.size(); ++K)
    Out.launches[K].profile = std::move(A->launches[K].profile);
  Out.analyseSeconds = secondsSince(Start);
  if (Cache) {
    std::vector<analyzer::KernelProfile> Profiles;
    for (const LaunchRecord &L : Out.launches)
      Profiles.push_back(L.profile);
    Cache->store(Key, Profiles);
  }
  return Out;
}

namespace {

/// The lowering a request asks for.
support::Expected<corpus::LowerOptions> lowerOptions(const NetworkRequest &R) {
  corpus::LowerOptions LO;
  auto Dtype = dtypeOf(R);
  if (!Dtype)
    return Dtype.error();
  LO.dtype = *Dtype;
  LO.arch = R.arch;
  LO.cache = R.cache;
  auto Math = corpus::parseMathMode(R.math);
  if (!Math)
    return support::Error("unknown math mode '" + R.math +
                          "' (expected auto, simt, tf32, f16, bf16 or int8)");
  LO.math = *Math;
  return LO;
}

MemoryModel memoryModel(const NetworkRequest &R) {
  return R.frameworkPasses ? MemoryModel::PyTorch : MemoryModel::Engine;
}

} // namespace

support::Expected<NetworkMemory> memoryOf(const corpus::Network &Net, const NetworkRequest &R) {
  if (memoryModel(R) == MemoryModel::PyTorch)
    return networkMemory(Net);
  auto LO = lowerOptions(R);
  if (!LO)
    return LO.error();
  LO->emitPtx = false; // the plan's buffers and launches are enough
  auto W = corpus::lower(Net, *LO);
  if (!W)
    return W.error();
  return engineMemory(*W, Net);
}

support::Expected<NetworkAnalysis> analyseNetwork(const NetworkRequest &R) {
  Clock::time_point Start = Clock::now();
  auto N = buildNetwork(R);
  if (!N)
    return N.error();
  double BuildSeconds = secondsSince(Start);
  auto LO = lowerOptions(R);
  if (!LO)
    return LO.error();
  auto Out = analyseLowered(*N, *LO, R.threads, R.progress ? R.progress : terminalProgress(),
                            R.analyses, memoryModel(R));
  if (!Out) // in memory, the model is named as its import errors name it
    return inInput(Out.error(), R.onnxBytes.empty() ? R.input : R.input + ".onnx");
  if (!R.frameworkPasses)
    for (LaunchRecord &L : Out->launches)
      L.framework = {};
  Out->batch = R.batch;
  Out->dtype = R.dtype;
  Out->lowerSeconds += BuildSeconds;
  return Out;
}

} // namespace pipeline
