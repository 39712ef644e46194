// `ptxcast lower MODEL|FILE.onnx [--batch N] [--image-size S] [--dtype f32|f16|int8]
// [--arch sm_XX] [--math auto|simt|tf32|f16|bf16|int8] -o DIR`: lowers a zoo model or an ONNX file
// to PTX kernels plus a launch manifest (DIR/manifest.json, DIR/kernels_*.ptx, DIR/workload.json),
// written atomically.
#include "Commands.h"

#include "pipeline/NetworkAnalysis.h"

#include "corpus/KernelGen.h"
#include "corpus/Lower.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>
#include <string>

namespace ptxcast {
namespace {

struct LowerCommandOptions {
  std::string model;
  std::string out;
  std::string dtype = "f32";
  std::string arch = "sm_90";
  std::string math = "auto";
  std::string kernels = "library";
  int64_t batch = 1;
  int64_t imageSize = 0;
};

int runLower(const LowerCommandOptions &O) {
  corpus::DType Type = *corpus::parseDType(O.dtype); // CLI11 checked the names
  pipeline::NetworkRequest Request;
  Request.input = O.model;
  Request.batch = O.batch;
  Request.imageSize = O.imageSize;
  Request.dtype = O.dtype;
  support::Expected<corpus::Network> N = pipeline::buildNetwork(Request);
  if (!N) {
    fmt::print(stderr, "{}\n", N.error().str());
    return 1;
  }
  corpus::LowerOptions LO;
  LO.dtype = Type;
  LO.arch = O.arch;
  LO.math = *corpus::parseMathMode(O.math); // CLI11 checked the names
  LO.kernels = *corpus::parseKernelSet(O.kernels);
  corpus::KernelCache Cache(corpus::kernelCacheDir()); // kernels compiled earlier
  LO.cache = &Cache;
  auto W = corpus::lower(*N, LO);
  if (!W) {
    fmt::print(stderr, "{}\n", pipeline::inInput(W.error(), O.model).str());
    return 1;
  }
  if (auto E = corpus::writeWorkload(*W, O.out)) {
    fmt::print(stderr, "{}\n", E->str());
    return 1;
  }
  uint64_t Bytes = 0;
  for (const corpus::WorkloadBuffer &B : W->buffers)
    Bytes += B.bytes;
  const std::string Reused = Cache.directory().empty()
                                 ? ""
                                 : fmt::format(" ({} from the kernel cache)", Cache.hits());
  fmt::print("{}: {} launches, {} distinct {} kernels{}, {} buffers ({:.1f} MiB) -> "
             "{}/manifest.json\n",
             N->name(), W->launches.size(), W->kernelCount, corpus::kernelSetName(LO.kernels),
             Reused, W->buffers.size(), static_cast<double>(Bytes) / (1024.0 * 1024.0), O.out);
  return 0;
}

} // namespace

void addLowerCommand(CLI::App &App) {
  auto Opts = std::make_shared<LowerCommandOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "lower", "lower a zoo model or ONNX file to PTX kernels and a launch manifest");
  Cmd->add_option("model", Opts->model, "zoo model name (see `ptxcast zoo`) or FILE.onnx")
      ->required();
  Cmd->add_option("-o,--output", Opts->out, "output directory (replaced atomically)")->required();
  Cmd->add_option("--batch", Opts->batch, "batch size")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  Cmd->add_option("--image-size", Opts->imageSize,
                  "input height = width (default: the model's own; ONNX: its 4-D input with a "
                  "dynamic batch)")
      ->check(CLI::PositiveNumber);
  Cmd->add_option("--dtype", Opts->dtype,
                  "element type (int8: an int8 inference engine, docs/lowering.md)")
      ->check(CLI::IsMember({"f32", "f16", "int8"}))
      ->capture_default_str();
  Cmd->add_option("--arch", Opts->arch, "target architecture")
      ->check(CLI::IsMember({"sm_70", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90"}))
      ->capture_default_str();
  Cmd->add_option(
         "--math", Opts->math,
         "convolution/dense/bmm math: auto (what PyTorch runs per layer: tf32 convolutions "
         "for f32 on sm_80+, f16 tensor cores for f16 on sm_70+, else simt), simt "
         "(CUDA-core FMAs; dp4a for int8), or tensor cores with tf32 or bf16 (sm_80+), f16 "
         "(sm_70+) or int8 (--dtype int8, sm_75+) operands")
      ->check(CLI::IsMember(lowerMathChoices()))
      ->capture_default_str();
  Cmd->add_option("--kernels", Opts->kernels,
                  "library (kernels that take shapes as parameters, shared by layers of any "
                  "shape) or specialised (one kernel per layer shape, shapes as constants: the "
                  "kernels the shipped model and the measured H100 data describe)")
      ->check(CLI::IsMember(kernelSetChoices()))
      ->capture_default_str();
  Cmd->callback([Opts] {
    if (int Status = runLower(*Opts); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
