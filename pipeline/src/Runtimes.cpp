// The runtimes a prediction models (Prediction.h): their names, the analysis each predicts from,
// a request's settings, and which data types a runtime and a GPU take.
#include "pipeline/Prediction.h"

#include "corpus/KernelGen.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>

namespace pipeline {

namespace {

/// Every runtime and its name, in the order messages list them.
constexpr std::pair<Runtime, std::string_view> RuntimeNames[] = {{Runtime::Graph, "graph"},
                                                                 {Runtime::Eager, "eager"},
                                                                 {Runtime::Engine, "tensorrt"},
                                                                 {Runtime::Compile, "compile"}};

/// The engine one precision wider than Dtype's that predictions on Gpus may give instead
/// (NetworkAnalysis::widerEngine), or "" where none may (mayTakeWiderEngine).
std::string widerDtype(const std::string &Dtype, const std::vector<hardware::GpuSpec> &Gpus) {
  const auto May = [&](const hardware::GpuSpec &G) { return mayTakeWiderEngine(Dtype, G); };
  if (std::none_of(Gpus.begin(), Gpus.end(), May))
    return "";
  return Dtype == "int8" ? "f16" : "f32";
}

} // namespace

std::string_view runtimeName(Runtime R) {
  for (const auto &[Each, Name] : RuntimeNames)
    if (Each == R)
      return Name;
  assert(false && "a runtime without a name");
  return "graph";
}

std::string runtimeNames(std::string_view Separator) {
  std::string Out;
  for (const auto &[Each, Name] : RuntimeNames)
    Out.append(Out.empty() ? "" : Separator).append(Name);
  return Out;
}

support::Expected<Runtime> parseRuntime(std::string_view Name) {
  for (const auto &[Each, Known] : RuntimeNames)
    if (Name == Known)
      return Each;
  return support::Error("unknown runtime '" + std::string(Name) +
                        "' (valid: " + runtimeNames(", ") + ")");
}

NetworkRequest engineRequest(NetworkRequest R) {
  R.frameworkPasses = false;
  if (R.dtype == "int8")
    R.math = "int8";
  return R;
}

NetworkRequest requestFor(NetworkRequest R, Runtime Runtime) {
  return Runtime == Runtime::Engine ? engineRequest(std::move(R)) : R;
}

bool mayTakeWiderEngine(const std::string &Dtype, const hardware::GpuSpec &Gpu) {
  return Dtype == "int8" || (Dtype == "f16" && !hardware::fastFp16(Gpu));
}

namespace {

/// analyseFor without the batch-1 analysis: the request and its wider engines.
support::Expected<NetworkAnalysis> analyseEngines(const NetworkRequest &R, Runtime Runtime,
                                                  const std::vector<hardware::GpuSpec> &Gpus) {
  auto N = analyseNetwork(requestFor(R, Runtime));
  const std::string Wider = widerDtype(R.dtype, Gpus);
  if (!N || Runtime != Runtime::Engine || Wider.empty())
    return N;
  NetworkRequest W = R;
  W.dtype = Wider;
  auto F = analyseEngines(W, Runtime, Gpus);
  if (!F)
    return F.error();
  N->widerEngine = std::make_shared<const NetworkAnalysis>(std::move(*F));
  return N;
}

} // namespace

support::Expected<NetworkAnalysis> analyseFor(const NetworkRequest &R, Runtime Runtime,
                                              const std::vector<hardware::GpuSpec> &Gpus,
                                              std::shared_ptr<const NetworkAnalysis> BatchOne) {
  auto N = analyseEngines(R, Runtime, Gpus);
  if (!N || R.batch <= 1)
    return N;
  if (BatchOne) {
    N->batchOne = std::move(BatchOne);
    return N;
  }
  // Only here: the batch floor compares the batch's chosen engine with batch 1's, so the wider
  // engines carry no batch-1 analysis of their own.
  NetworkRequest One = R;
  One.batch = 1;
  auto B = analyseEngines(One, Runtime, Gpus);
  if (!B)
    return B.error();
  N->batchOne = std::make_shared<const NetworkAnalysis>(std::move(*B));
  return N;
}

support::Expected<PredictSettings> predictSettings(const std::string &RuntimeName,
                                                   const std::string &Math, const std::string &Host,
                                                   const hardware::GpuCatalog *Catalog) {
  PredictSettings S;
  if (!Host.empty()) {
    assert(Catalog && "--host needs the catalog");
    auto H = Catalog->host(Host);
    if (!H)
      return H.error();
    S.host = *H;
  }
  auto R = parseRuntime(RuntimeName);
  if (!R)
    return R.error();
  S.runtime = *R;
  if (!Math.empty()) {
    auto M = hardware::parseMathMode(Math);
    if (!M)
      return M.error();
    S.math = *M;
  }
  return S;
}

std::string dtypeRequirement(const std::string &Dtype) {
  return Dtype == "int8" ? std::string(hardware::FastInt8Requirement) : "";
}

/// The oldest compute capability Triton generates kernels for: torch.compile's default backend
/// (inductor) refuses older GPUs ("Triton only supports devices of CUDA Capability >= 7.0",
/// torch/_inductor/exc.py, GPUTooOldForTriton).
constexpr double TritonComputeCapability = 7.0;

std::string runtimeRequirement(Runtime R) {
  if (R != Runtime::Compile)
    return "";
  return fmt::format(
      "compute capability {:.1f} or newer, the oldest Triton (torch.compile's backend) runs on",
      TritonComputeCapability);
}

support::MaybeError checkDtype(const std::string &Dtype, Runtime R, const hardware::GpuSpec *Gpu,
                               std::optional<hardware::MathMode> Math) {
  if (Math) { // the lowering's rule; the architecture's own is the GPU's (mathFor)
    if (Dtype == "int8" && *Math != hardware::MathMode::Simt) // predict's --math has no int8
      return support::Error(fmt::format("--math {} does not take int8 data (an int8 engine runs "
                                        "its own int8 math: leave --math out, or simt for dp4a)",
                                        hardware::mathModeName(*Math)));
    auto M = corpus::parseMathMode(hardware::mathModeName(*Math));
    auto T = corpus::parseDType(Dtype); // an unknown dtype is the analysis' error to report
    if (M && T)
      if (auto E = corpus::mathModeError(*M, *T, ""))
        return support::Error(*E);
  }
  if (R == Runtime::Compile && Gpu && Gpu->computeCapability < TritonComputeCapability)
    return support::Error(fmt::format("--runtime compile needs {}; the {} is {:.1f}",
                                      runtimeRequirement(R), Gpu->name, Gpu->computeCapability));
  if (Dtype != "int8")
    return std::nullopt;
  if (R != Runtime::Engine)
    return support::Error("--dtype int8 is an inference engine's precision: use --runtime "
                          "tensorrt (PyTorch runs no int8 convolutions on the GPU)");
  if (Gpu && !hardware::fastInt8(*Gpu))
    return support::Error(fmt::format("--dtype int8 needs {}; the {} is {:.1f}",
                                      dtypeRequirement(Dtype), Gpu->name, Gpu->computeCapability));
  return std::nullopt;
}

} // namespace pipeline
