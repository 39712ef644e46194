// A lowered network: PTX module text plus a launch manifest (buffers and launches in execution
// order) in the format the analyzer and ptxcast-measure read (docs/lowering.md, "Manifest").
#pragma once

#include "corpus/DType.h"
#include "support/Expected.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace corpus {

/// A device buffer: zero-filled (activations) or seeded random (inputs and weights).
struct WorkloadBuffer {
  std::string name;
  uint64_t bytes = 0;
  bool random = false; ///< else zero-filled
  uint64_t seed = 0;
  double min = 0, max = 0; ///< random range (values of the workload's dtype)
  /// How a weight buffer's elements are ordered when not as ONNX orders them: "oihw16i" for
  /// filters stored [cout][cin / 16][kh][kw][16] (KernelLaunch::filtersBlocked); empty otherwise.
  std::string layout;
  DType dtype = DType::F32; ///< its elements' type (the random fill's: f32, f16 or s8)
};

/// A kernel argument: a buffer at a byte offset, or (a library kernel's shape) a u32 scalar.
struct WorkloadArg {
  std::string buffer;  ///< the buffer; empty for a scalar
  uint64_t offset = 0; ///< bytes into the buffer
  std::string shape;   ///< a scalar: the shape it gives the kernel (KernelLaunch::shapeArgs)
  uint32_t value = 0;  ///< a scalar's value
};

/// One kernel launch and the network layers it computes.
struct WorkloadLaunch {
  std::string kernel;
  std::string strategy; ///< "conv_direct", "dense_gemm", ... (KernelLaunch::strategy)
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  uint32_t sharedBytes = 0;
  std::vector<WorkloadArg> args;
  std::vector<std::string> layers; ///< the layer and the layers fused into it, in order
  int64_t macs = 0;                ///< MACs of those layers
  MathMode math = MathMode::Simt;  ///< KernelLaunch::math: tensor-core operands, or Simt
  /// KernelLaunch::dtype: in an int8 engine, I8 for the int8 kernels and reformats, F16 for the
  /// others (written to workload.json for int8 workloads only).
  DType dtype = DType::F32;
};

struct Workload {
  std::string network;
  std::string arch;
  DType dtype = DType::F32;
  MathMode math = MathMode::Simt;             ///< LowerOptions::math
  KernelSet kernels = KernelSet::Specialised; ///< LowerOptions::kernels
  std::vector<std::string> ptx;               ///< module texts, written as kernels[_N].ptx
  std::vector<WorkloadBuffer> buffers;
  std::vector<WorkloadLaunch> launches;
  size_t kernelCount = 0; ///< distinct kernels (identical layer shapes share one)
};

/// The buffer a launch writes: its last buffer argument (shape arguments come after it).
const std::string &outputBuffer(const WorkloadLaunch &L);

/// File names the PTX modules get: "kernels.ptx", or "kernels_0.ptx", ... when several.
std::vector<std::string> ptxFileNames(const Workload &W);

/// The launch manifest: {"ptx": [...], "buffers": [...], "launches": [...]}, paths relative.
std::string manifestJson(const Workload &W);

/// Per-launch metadata the manifest has no room for (layers, strategy, MACs) plus totals.
std::string workloadJson(const Workload &W);

/// Writes DIR/manifest.json, DIR/workload.json and the PTX files atomically: everything goes to a
/// fresh sibling directory that replaces DIR by rename (an existing DIR is replaced).
support::MaybeError writeWorkload(const Workload &W, const std::string &Dir);

} // namespace corpus
