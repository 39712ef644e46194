// The GPU catalog: datasheet facts per GPU, looked up by the names users type, and the hardware
// feature vector a learner sees for a GPU. The facts live in one file, hardware/data/gpus.json,
// embedded into the library at build time (docs/gpu-catalog.md lists them with sources).
#pragma once

#include "support/Expected.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hardware {

/// Datasheet facts about one GPU. Unknown numbers are never guessed: the entry's note says which
/// figure is derived (e.g. peak = SMs x cores x 2 x clock) and which is unpublished.
struct GpuSpec {
  std::string name;                 ///< canonical catalog name, e.g. "a100-40gb-pcie"
  std::string fullName;             ///< vendor marketing name, e.g. "NVIDIA A100 PCIe 40GB"
  std::vector<std::string> aliases; ///< other names users or datasets use (lower-case matched)
  std::string architecture;         ///< e.g. "Ampere"
  double smCount = 0;
  double fp32CoresPerSm = 0;
  double boostClockMhz = 0;
  double fp32Tflops = 0;         ///< FP32 peak (non-tensor)
  double fp16Tflops = 0;         ///< FP16 peak on the CUDA cores (non-tensor)
  double fp16TensorTflops = 0;   ///< FP16 tensor-core dense peak (no sparsity); 0 = no tensor cores
  double memoryBandwidthGBs = 0; ///< GB/s
  double memoryGB = 0;           ///< device memory size, GB
  double l2MB = 0;               ///< L2 cache, MB
  double computeCapability = 0;  ///< major.minor as a number, e.g. 8.6
  double tdpW = 0;               ///< board power (max of the configurable range), W
  std::string source;            ///< datasheet / whitepaper the numbers come from, and caveats
};

/// A named numeric vector (feature name, value), in a fixed order.
using NamedVector = std::vector<std::pair<std::string, double>>;

/// All GPUs in the catalog, in file order.
class GpuCatalog {
public:
  /// The catalog compiled into the library (hardware/data/gpus.json).
  static support::Expected<GpuCatalog> builtin();
  /// Parses a catalog in the gpus.json format; `File` names it in error messages.
  static support::Expected<GpuCatalog> parse(std::string_view JsonText, std::string_view File);

  const std::vector<GpuSpec> &gpus() const { return Gpus; }

  /// Finds a GPU by canonical name, alias or full name, case-insensitively, ignoring spaces,
  /// '-' and '_' ("H100", "h100-sxm", "Tesla V100-PCIE-32GB"). An unknown name is an error
  /// listing every valid canonical name.
  support::Expected<GpuSpec> lookup(std::string_view Name) const;

  /// Canonical names, in catalog order.
  std::vector<std::string> names() const;

private:
  std::vector<GpuSpec> Gpus;
};

/// The hardware features of a GPU, names prefixed "gpu_" (gpu_sm_count, gpu_fp32_tflops, ...),
/// in a fixed order.
NamedVector hardwareFeatures(const GpuSpec &Gpu);

} // namespace hardware
