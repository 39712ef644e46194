// Device memory of a network under PyTorch inference: weights, a liveness walk over the layers
// in execution order, cuDNN's workspace, the runtime's reserve; and an engine's, a liveness walk
// over the lowering's launches (Memory.h).
#include "pipeline/Memory.h"

#include "CudnnLayout.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <vector>

namespace pipeline {
namespace {

using corpus::Layer;
using corpus::LayerId;
using corpus::LayerKind;

uint64_t rounded(uint64_t Bytes) {
  return (Bytes + AllocationGranule - 1) / AllocationGranule * AllocationGranule;
}

uint64_t elements(const corpus::Shape &S) { return uint64_t(corpus::elementCount(S)); }

/// Bytes of each fp32 tensor PyTorch holds for layer L: a convolution's or dense layer's weight
/// and bias, batch norm's weight, bias, running mean and variance (and its int64
/// num_batches_tracked), layer norm's scale and shift, an elementwise layer's constant.
std::vector<uint64_t> weightTensors(const Layer &L) {
  const uint64_t P = uint64_t(L.params);
  switch (L.kind) {
  case LayerKind::Conv: {
    const auto &A = std::get<corpus::ConvAttrs>(L.attrs);
    if (!A.bias)
      return {4 * P};
    return {4 * convWeightElements(L), 4 * uint64_t(A.outChannels)};
  }
  case LayerKind::Dense: {
    const auto &A = std::get<corpus::DenseAttrs>(L.attrs);
    if (!A.bias)
      return {4 * P};
    return {4 * (P - uint64_t(A.outFeatures)), 4 * uint64_t(A.outFeatures)};
  }
  case LayerKind::BatchNorm:
    return {2 * P, 2 * P, 2 * P, 2 * P, 8};
  case LayerKind::LayerNorm:
    return {2 * P, 2 * P};
  default:
    return P > 0 ? std::vector<uint64_t>{4 * P} : std::vector<uint64_t>{};
  }
}

/// Layers whose output is a view of their input in PyTorch (no allocation of their own).
bool isView(LayerKind K) {
  return K == LayerKind::Flatten || K == LayerKind::Reshape || K == LayerKind::Identity ||
         K == LayerKind::Slice || K == LayerKind::Expand;
}

/// Layers autocast runs in fp16 (its fp16 list: convolutions, linear, matmul).
bool runsInHalf(LayerKind K) {
  return K == LayerKind::Conv || K == LayerKind::Dense || K == LayerKind::MatMul;
}

/// Layers autocast runs in fp32 (its fp32 list: softmax, layer_norm, pow).
bool runsInFloat(LayerKind K) {
  return K == LayerKind::Softmax || K == LayerKind::LayerNorm || K == LayerKind::Pow;
}

/// The schedule's storage: which allocation each layer's output lives in, its bytes and the last
/// step that reads it (the network's outputs are read after the last step).
struct Storage {
  std::vector<LayerId> owner;  ///< per layer: the layer whose allocation holds its output
  std::vector<uint64_t> width; ///< per layer: bytes per element of its output
  std::vector<uint64_t> bytes; ///< per owner: bytes of its allocation (rounded)
  std::vector<size_t> lastUse; ///< per owner: the last step reading it
};

Storage storageOf(const corpus::Network &Net) {
  const size_t N = Net.size();
  const bool Autocast = Net.dtype() == corpus::DType::F16;
  Storage S{std::vector<LayerId>(N), std::vector<uint64_t>(N, 4), std::vector<uint64_t>(N, 0),
            std::vector<size_t>(N, 0)};
  for (LayerId I = 0; I < N; ++I) {
    const Layer &L = Net.layer(I);
    S.owner[I] = isView(L.kind) && !L.inputs.empty() ? S.owner[L.inputs.front()] : I;
    if (Autocast && L.kind != LayerKind::Input) {
      uint64_t Widest = 2;
      for (LayerId In : L.inputs)
        Widest = std::max(Widest, S.width[In]);
      S.width[I] = runsInHalf(L.kind) ? 2 : runsInFloat(L.kind) ? 4 : Widest;
    }
    if (S.owner[I] == I)
      S.bytes[I] = rounded(elements(L.shape) * S.width[I]);
    for (LayerId In : L.inputs)
      S.lastUse[S.owner[In]] = std::max(S.lastUse[S.owner[In]], size_t(I));
  }
  for (LayerId Out : Net.outputs())
    S.lastUse[S.owner[Out]] = std::numeric_limits<size_t>::max();
  return S;
}

/// The transient buffers of step I besides cuDNN's: autocast's fp16 copies of fp32 inputs to a
/// layer it runs in fp16 (freed when the layer returns).
uint64_t inputCasts(const corpus::Network &Net, const Storage &S, LayerId I) {
  const Layer &L = Net.layer(I);
  uint64_t Bytes = 0;
  if (Net.dtype() == corpus::DType::F16 && runsInHalf(L.kind))
    for (LayerId In : L.inputs)
      if (S.width[In] == 4)
        Bytes += rounded(2 * elements(Net.layer(In).shape));
  return Bytes;
}

/// cuDNN's workspace for step I on tensor cores: NHWC copies of input, weights and output.
uint64_t cudnnWorkspace(const corpus::Network &Net, const Storage &S, LayerId I) {
  const Layer &L = Net.layer(I);
  if (!transposedForTensorCores(Net, L))
    return 0;
  const uint64_t Elements =
      elements(Net.layer(L.inputs.front()).shape) + convWeightElements(L) + elements(L.shape);
  return rounded(Elements * S.width[I]);
}

/// Autocast's fp16 copies of layer L's weights (kept in its cache until the pass ends).
uint64_t castCopies(const corpus::Network &Net, const Layer &L) {
  if (Net.dtype() != corpus::DType::F16 ||
      (L.kind != LayerKind::Conv && L.kind != LayerKind::Dense))
    return 0;
  uint64_t Bytes = 0;
  for (uint64_t B : weightTensors(L))
    Bytes += rounded(B / 2);
  return Bytes;
}

void keepPeak(MemoryPeak &Peak, const MemoryPeak &Now) {
  if (Now.bytes() > Peak.bytes())
    Peak = Now;
}

} // namespace

NetworkMemory networkMemory(const corpus::Network &Net) {
  NetworkMemory M;
  for (const Layer &L : Net.layers())
    for (uint64_t B : weightTensors(L))
      M.weightBytes += rounded(B);
  const Storage S = storageOf(Net);
  uint64_t Live = 0;
  for (LayerId In : Net.inputs())
    Live += S.bytes[In];
  for (LayerId I = 0; I < Net.size(); ++I) {
    const Layer &L = Net.layer(I);
    if (L.kind == LayerKind::Input)
      continue;
    if (S.owner[I] == I)
      Live += S.bytes[I];
    M.castBytes += castCopies(Net, L);
    const uint64_t Casts = inputCasts(Net, S, I);
    keepPeak(M.cudaCores, {Live, M.castBytes, Casts, L.name});
    keepPeak(M.tensorCores, {Live, M.castBytes, Casts + cudnnWorkspace(Net, S, I), L.name});
    std::set<LayerId> Freed;
    for (LayerId In : L.inputs)
      if (S.lastUse[S.owner[In]] == I && Freed.insert(S.owner[In]).second)
        Live -= S.bytes[S.owner[In]];
  }
  return M;
}

NetworkMemory engineMemory(const corpus::Workload &W, const corpus::Network &Net) {
  std::set<std::string> Inputs;
  for (LayerId I : Net.inputs())
    Inputs.insert(Net.layer(I).name);
  std::map<std::string, size_t> Index;
  for (size_t B = 0; B < W.buffers.size(); ++B)
    Index.emplace(W.buffers[B].name, B);
  // Each buffer's first and last launch; a network input is live from the start.
  constexpr size_t Never = std::numeric_limits<size_t>::max();
  std::vector<size_t> First(W.buffers.size(), Never), Last(W.buffers.size(), 0);
  for (size_t L = 0; L < W.launches.size(); ++L)
    for (const corpus::WorkloadArg &A : W.launches[L].args)
      if (auto It = Index.find(A.buffer); It != Index.end()) {
        First[It->second] = std::min(First[It->second], Inputs.count(A.buffer) ? 0 : L);
        Last[It->second] = std::max(Last[It->second], L);
      }
  NetworkMemory M;
  std::vector<int64_t> Change(W.launches.size() + 1, 0); // live bytes gained at each launch
  for (size_t B = 0; B < W.buffers.size(); ++B) {
    const corpus::WorkloadBuffer &Buf = W.buffers[B];
    const bool Activation = !Buf.random || Inputs.count(Buf.name);
    if (!Activation) {
      M.weightBytes += Buf.bytes;
      continue;
    }
    if (First[B] == Never)
      continue;                                                         // no launch touches it
    const bool Output = First[B] == Last[B] && !Inputs.count(Buf.name); // written, never read
    const size_t End = Output ? W.launches.size() : Last[B] + 1;
    Change[First[B]] += int64_t(Buf.bytes);
    Change[End] -= int64_t(Buf.bytes);
  }
  int64_t Live = 0;
  for (size_t L = 0; L < W.launches.size(); ++L) {
    Live += Change[L];
    const std::string Layer = W.launches[L].layers.empty() ? "" : W.launches[L].layers.front();
    keepPeak(M.cudaCores, {uint64_t(Live), 0, 0, Layer});
  }
  M.tensorCores = M.cudaCores;
  return M;
}

DeviceMemory deviceMemory(const NetworkMemory &Net, const hardware::GpuSpec &Gpu,
                          bool TensorCoreConvs) {
  DeviceMemory D;
  D.weightBytes = Net.weightBytes;
  D.peak = TensorCoreConvs ? Net.tensorCores : Net.cudaCores;
  D.shared = Gpu.formFactor == "module";
  D.reserveBytes = D.shared ? SharedReserveBytes : DiscreteReserveBytes;
  D.capacityBytes = uint64_t(std::llround(Gpu.memoryGB * double(uint64_t(1) << 30)));
  return D;
}

std::string memoryWarning(const DeviceMemory &M, const hardware::GpuSpec &Gpu) {
  if (M.fits())
    return "";
  return fmt::format("does not fit: needs {} of device memory (weights {}, activations {} and "
                     "workspace {} at layer '{}', runtime reserve {}), more than the {} of {}{}",
                     bytesText(M.totalBytes()), bytesText(M.weightBytes + M.peak.castBytes),
                     bytesText(M.peak.activationBytes), bytesText(M.peak.workspaceBytes),
                     M.peak.layer, bytesText(M.reserveBytes), bytesText(M.capacityBytes), Gpu.name,
                     M.shared ? " (shared with the OS)" : "");
}

std::string bytesText(uint64_t Bytes) {
  if (Bytes < 1024)
    return fmt::format("{} B", Bytes);
  static constexpr const char *Units[] = {"KiB", "MiB", "GiB", "TiB"};
  double V = double(Bytes) / 1024;
  size_t U = 0;
  for (; V >= 1024 && U + 1 < std::size(Units); ++U)
    V /= 1024;
  return fmt::format("{:.{}f} {}", V, V < 10 ? 2 : V < 100 ? 1 : 0, Units[U]);
}

} // namespace pipeline
