// The GPU catalog: datasheet facts per GPU and per-architecture limits, looked up by the names
// users type. The facts live in one file, hardware/data/gpus.json, embedded into the library at
// build time (docs/gpu-catalog.md explains every field and lists the GPUs; `ptxcast gpus --format
// json` shows the source of each figure).
#pragma once

#include "support/Expected.h"

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hardware {

/// What one SM of an architecture (a compute capability) can hold and issue per clock. From the
/// CUDA C++ Programming Guide's table of technical specifications per compute capability and the
/// architecture whitepapers (gpus.json "architectures" gives the source of each row).
struct ArchLimits {
  std::string computeCapability; ///< "8.6"
  double maxThreadsPerSm = 0;
  double maxCtasPerSm = 0;
  double maxWarpsPerSm = 0;
  double registersPerSm = 0;        ///< 32-bit registers
  double maxRegistersPerThread = 0; ///< 255 on every architecture ptxcast knows
  double registerAllocUnit = 0;     ///< registers are allocated per warp in units of this many
  double sharedMemPerSmKB = 0;      ///< largest shared-memory carve-out of an SM
  double maxSharedMemPerCtaKB = 0;  ///< largest a CTA can opt in to
  double sharedMemPerCtaReservedKB = 0; ///< the runtime reserves this much per CTA (sm_80+: 1 KB)
  double warpSchedulersPerSm = 0;   ///< warp instructions issued per clock per SM
  double int32LanesPerSm = 0;       ///< integer ALU results per clock per SM
  double sfuLanesPerSm = 0;         ///< special-function (MUFU) results per clock per SM
  double l1BytesPerClockPerSm = 0;  ///< L1 / shared-memory data path per SM
  double l2BytesPerClockPerSm = 0;  ///< L2 bandwidth of the whole GPU divided by its SMs
  /// Dense FP16 tensor-core FLOP per clock per SM (FP32 accumulate, full-rate parts); 0 = no tensor
  /// cores. Optional in gpus.json. GeForce parts (and the L40) run FP32 accumulate at half this.
  double tensorFp16FlopsPerClockPerSm = 0;
  /// The same rate reached by warp-level mma.sync (what ptxcast's kernels and sm_80-style
  /// library kernels issue), where it is lower than the full rate: Hopper's full rate needs the
  /// asynchronous warpgroup wgmma. Optional in gpus.json; 0 = the full rate.
  double mmaSyncFp16FlopsPerClockPerSm = 0;
  /// Energy of a tensor-core FLOP as a share of a CUDA-core FP32 FLOP's on the same process,
  /// where it was measured for this architecture (hardware/Power.h, tensorEnergyShare).
  /// Optional in gpus.json; 0 = Power.h's TensorFlopEnergyShare.
  double tensorFlopEnergyShare = 0;
  /// The share of the tensor peaks (TensorRates) that mma.sync reaches: 1, or mma.sync's rate over
  /// the full rate.
  double mmaSyncShare() const {
    return mmaSyncFp16FlopsPerClockPerSm > 0 && tensorFp16FlopsPerClockPerSm > 0
               ? mmaSyncFp16FlopsPerClockPerSm / tensorFp16FlopsPerClockPerSm
               : 1.0;
  }
  /// Integer instructions take FP32 lanes: every lane before Volta and on RTX Blackwell, the
  /// INT32-capable half (int32LanesPerSm) of the FP32 lanes on GA10x and AD10x.
  bool int32SharesFp32 = false;
  /// Each warp scheduler dispatches two instructions per clock (Maxwell, Pascal); from Volta on
  /// one, so a 128-lane SM needs every issue slot for FP32 instructions to reach its FP32 peak.
  bool dualIssue = false;
  std::string process;        ///< the chip's manufacturing process ("TSMC 4N")
  /// Energy per operation of `process` relative to TSMC 16FF+ (the catalog's "processes" table).
  double relativeEnergy = 0;
  std::string source;
};

/// Dense tensor-core peaks per input precision (no sparsity), TFLOP/s (int8: TOP/s). 0 = the GPU
/// cannot run that precision on tensor cores.
struct TensorRates {
  double fp16 = 0; ///< FP16 inputs, FP32 accumulate
  double bf16 = 0;
  double tf32 = 0;
  double int8 = 0;
  double fp8 = 0;
};

/// The CPU that launches a GPU's kernels, as eager PyTorch sees it: its single-thread speed
/// relative to the x86 server host the project measured eager overhead on (hardware/Host.h).
struct HostSpec {
  std::string name;         ///< "x86-server", "jetson-agx-orin", ...
  std::string cpu;          ///< "Arm Cortex-A78AE at 2.2 GHz"
  double relativeSpeed = 1; ///< single-thread speed over the x86 server's
  /// relativeSpeed comes from PyTorch's own host time on this CPU (gpus.json speed_basis
  /// "pytorch"), not from a CPU benchmark or an inference ("estimate"): CPU benchmarks overstated
  /// Grace's PyTorch speed about 3x (docs/cross-gpu.md), so an estimate is an upper bound.
  bool speedFromPyTorch = false;
  std::string source;
};

/// Facts about one GPU. Unknown numbers are never guessed: `sources` says where each figure
/// comes from, and which are derived (e.g. peak = SMs x cores x 2 x clock) or unconfirmed.
struct GpuSpec {
  std::string name;                 ///< canonical catalog name, e.g. "a100-40gb-pcie"
  std::string fullName;             ///< vendor marketing name, e.g. "NVIDIA A100 PCIe 40GB"
  std::vector<std::string> aliases; ///< other names users or datasets use (lower-case matched)
  std::string architecture;         ///< e.g. "Ampere"
  std::string formFactor;           ///< "sxm", "pcie", "desktop", "laptop", "module", ...
  std::string memoryType;           ///< "HBM3", "GDDR6X", "LPDDR5", ...
  double smCount = 0;
  double fp32CoresPerSm = 0;
  double baseClockMhz = 0;
  double boostClockMhz = 0;      ///< the clock the peaks below are quoted at
  /// The highest clock GPU Boost runs it at while power and temperature allow: a GeForce card's
  /// rated boost is a typical clock, and it runs above it (catalog "max_clock_mhz", else the
  /// boost clock times its form factor's "boost_headroom"); other GPUs' boost is their top.
  double maxClockMhz = 0;
  double fp32Tflops = 0;         ///< FP32 peak (non-tensor)
  double fp16Tflops = 0;         ///< FP16 peak on the CUDA cores (non-tensor)
  double bf16Tflops = 0;         ///< BF16 peak on the CUDA cores (non-tensor); 0 = none
  double fp64Tflops = 0;         ///< FP64 peak (non-tensor)
  TensorRates tensor;            ///< dense tensor-core peaks
  double memoryBandwidthGBs = 0; ///< GB/s
  double memoryGB = 0;           ///< device memory size, GB
  double l2MB = 0;               ///< L2 cache, MB
  double computeCapability = 0;  ///< major.minor as a number, e.g. 8.6
  double tdpW = 0;               ///< board power (max of the configurable range), W
  /// Energy per bit moved by its memory type (the catalog's "memory_types" table); 0 = unknown
  /// (Jetson LPDDR, or a spec file without memory_type): memory power is then not charged.
  double memoryPjPerBit = 0;
  HostSpec host;                 ///< the CPU that launches its kernels (catalog "hosts")
  ArchLimits limits;             ///< per-SM limits of the compute capability
  /// Where each figure comes from: field names (comma-separated JSON keys) -> source note.
  std::map<std::string, std::string> sources;

  /// All source notes in one line (for tables).
  std::string sourceText() const;
};

/// The same GPU restricted to `Sms` of its SMs (a CUDA green context): SM count and the
/// SM-proportional peaks scale; clocks, memory, L2 and per-SM limits stay.
GpuSpec withSmCount(GpuSpec Gpu, double Sms);

/// A named numeric vector (feature name, value), in a fixed order.
using NamedVector = std::vector<std::pair<std::string, double>>;

/// Every numeric field of a GPU as (gpus.json key, value): sm_count .. tdp_w, then the tensor
/// rates (what `ptxcast gpus --format json` prints and every source note must name).
NamedVector catalogFields(const GpuSpec &Gpu);
/// Every numeric per-SM field of an architecture as (gpus.json key, value).
NamedVector catalogFields(const ArchLimits &Arch);

/// All GPUs in the catalog, in file order.
class GpuCatalog {
public:
  /// The catalog compiled into the library (hardware/data/gpus.json).
  static support::Expected<GpuCatalog> builtin();
  /// Parses a catalog in the gpus.json format; `File` names it in error messages.
  static support::Expected<GpuCatalog> parse(std::string_view JsonText, std::string_view File);

  const std::vector<GpuSpec> &gpus() const { return Gpus; }
  const std::vector<ArchLimits> &architectures() const { return Archs; }

  /// Finds a GPU by canonical name, alias or full name, case-insensitively, ignoring everything
  /// but letters, digits, '@' and '.' ("H100", "h100-sxm", "Tesla V100-PCIE-32GB"). A power mode
  /// "NAME@MODE" may use any name of its module ("orin-nano@7w" = "jetson-orin-nano@7w"). An
  /// unknown name is an error listing the closest catalog names (or the module's power modes).
  support::Expected<GpuSpec> lookup(std::string_view Name) const;

  /// A GPU described by the user (`--gpu-spec FILE.json`): one JSON object with the fields of a
  /// catalog entry. Per-SM limits default to those of its compute capability (any may be given
  /// to override them), tensor rates default to 0 and source notes are optional. Errors name
  /// the file and the field.
  support::Expected<GpuSpec> parseSpec(std::string_view JsonText, std::string_view File) const;

  /// The limits of a compute capability ("8.6"), or an error naming the known ones.
  support::Expected<ArchLimits> limits(std::string_view ComputeCapability) const;

  /// Canonical names, in catalog order.
  std::vector<std::string> names() const;

  /// Energy tables of the catalog: process -> energy relative to TSMC 16FF+, memory type ->
  /// pJ per bit (each row with its source in gpus.json).
  const std::map<std::string, double> &processEnergies() const { return Processes; }
  const std::map<std::string, double> &memoryEnergies() const { return Memories; }
  /// The hosts of the catalog's "hosts" table, in file order.
  const std::vector<HostSpec> &hosts() const { return Hosts; }
  /// A host by name, or an error listing them.
  support::Expected<HostSpec> host(std::string_view Name) const;

private:
  std::vector<GpuSpec> Gpus;
  std::vector<ArchLimits> Archs;
  std::map<std::string, double> Processes;
  std::map<std::string, double> Memories;
  std::vector<HostSpec> Hosts;
  std::map<std::string, double> Headroom; ///< "boost_headroom": form factor -> share
};

} // namespace hardware
