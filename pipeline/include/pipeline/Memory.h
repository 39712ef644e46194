// Device memory of one network under PyTorch inference (`torch.inference_mode`, eager or CUDA
// graph): its weights, the largest set of live activations along the layers' schedule, cuDNN's
// convolution workspace and the runtime's fixed reserve, and whether that fits a GPU's memory.
// Every figure is bytes as PyTorch's CUDA caching allocator counts them (docs/predict.md,
// "Device memory"). An inference engine's, over ptxcast's own lowering, beside it.
#pragma once

#include "corpus/Network.h"
#include "corpus/Workload.h"
#include "hardware/GpuCatalog.h"

#include <cstdint>
#include <string>

namespace pipeline {

/// PyTorch's caching allocator rounds every allocation up to this many bytes (kMinBlockSize,
/// c10/cuda/CUDACachingAllocator.cpp); torch.cuda.max_memory_allocated counts the rounded sizes.
constexpr uint64_t AllocationGranule = 512;

/// The fixed reserve on a discrete GPU: the CUDA context with cuBLAS and cuDNN loaded (their
/// handles, kernels under lazy module loading, cuBLAS's workspace). It is outside what
/// max_memory_allocated counts; nvidia-smi shows it.
constexpr uint64_t DiscreteReserveBytes = uint64_t(512) << 20;
/// The fixed reserve on a Jetson module (form factor "module"), whose one memory is shared by
/// the operating system, the CPU side of the process and the GPU: 1 GiB for a headless L4T
/// (the desktop takes about 1 GiB more) and 1.5 GiB for the PyTorch process (Python, libtorch,
/// the CUDA context and the cuDNN and cuBLAS libraries, all in the same memory).
constexpr uint64_t SharedReserveBytes = uint64_t(5) << 29;

/// The moment of the schedule when the most memory is live, and what is live then.
struct MemoryPeak {
  uint64_t activationBytes = 0; ///< live activations: the network input, outputs not yet freed
  uint64_t castBytes = 0;       ///< autocast's fp16 weight copies made so far (f16 only)
  uint64_t workspaceBytes = 0;  ///< the running layer's transient buffers (cuDNN, input casts)
  std::string layer;            ///< the layer running then
  uint64_t bytes() const { return activationBytes + castBytes + workspaceBytes; }
};

/// What a network needs, independent of the GPU except for the workspace, which depends on
/// whether cuDNN runs the convolutions on tensor cores.
struct NetworkMemory {
  uint64_t weightBytes = 0; ///< parameters and batch-norm buffers, fp32, one allocation each
  uint64_t castBytes = 0;   ///< every fp16 weight copy autocast makes in a pass (f16 only)
  MemoryPeak cudaCores;     ///< the peak when convolutions run on CUDA cores (no workspace)
  MemoryPeak tensorCores;   ///< the peak when cuDNN runs them on tensor cores in NHWC
};

/// The memory accounting of Net as built (its batch and dtype; f16 means autocast).
NetworkMemory networkMemory(const corpus::Network &Net);

/// What an inference engine running W, ptxcast's own lowering of Net, needs: the weights as the
/// lowering stores them (batch norms folded, in the engine's element types) and the largest sum
/// of activation buffers live at one launch, a buffer reused once its last reader has run (the
/// network's inputs live from the start, a buffer no later launch reads to the end). No weight
/// copies, no workspace: the peak is the same with or without tensor cores.
NetworkMemory engineMemory(const corpus::Workload &W, const corpus::Network &Net);

/// One network's memory on one GPU.
struct DeviceMemory {
  uint64_t weightBytes = 0;
  MemoryPeak peak;
  uint64_t reserveBytes = 0;  ///< the runtime's fixed reserve (DiscreteReserveBytes or Shared...)
  bool shared = false;        ///< the GPU shares its memory with the OS (a Jetson module)
  uint64_t capacityBytes = 0; ///< the catalog's memory_gb in GiB; 0 = unknown
  uint64_t totalBytes() const { return weightBytes + peak.bytes() + reserveBytes; }
  /// Fits when the GPU's memory is unknown, too (nothing to check against).
  bool fits() const { return capacityBytes == 0 || totalBytes() <= capacityBytes; }
};

/// Net's memory on Gpu, with cuDNN's NHWC workspace when its convolutions run on tensor cores.
DeviceMemory deviceMemory(const NetworkMemory &Net, const hardware::GpuSpec &Gpu,
                          bool TensorCoreConvs);

/// A warning when Memory does not fit the GPU (empty when it fits).
std::string memoryWarning(const DeviceMemory &Memory, const hardware::GpuSpec &Gpu);

/// Bytes as people read them: "812 KiB", "23.4 MiB", "5.91 GiB".
std::string bytesText(uint64_t Bytes);

} // namespace pipeline
