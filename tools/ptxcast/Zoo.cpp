// `ptxcast zoo [MODEL|FILE.onnx] [--format table|json] [--batch N] [--image-size S]`: lists the
// model zoo with parameters and MACs at each model's own resolution and batch 1, or, given a
// model name or an ONNX file, its layers one per line.
#include "Commands.h"

#include "pipeline/Documents.h"

#include "corpus/Onnx.h"
#include "corpus/Zoo.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <memory>
#include <string>

namespace ptxcast {
namespace {

struct ZooCommandOptions {
  std::string model;
  std::string format = "table";
  int64_t batch = 1;
  int64_t imageSize = 0;
};

bool endsWith(const std::string &S, const std::string &Suffix) {
  return S.size() >= Suffix.size() &&
         S.compare(S.size() - Suffix.size(), Suffix.size(), Suffix) == 0;
}

int listZoo(const ZooCommandOptions &O) {
  if (O.format == "json") {
    auto Doc = pipeline::zooDocument();
    if (!Doc) {
      fmt::print(stderr, "{}\n", Doc.error().str());
      return 1;
    }
    fmt::print("{}\n", Doc->dump(2));
    return 0;
  }
  fmt::print("{:<18} {:>13} {:>12} {:>10} {:>7}\n", "model", "input", "params (M)", "MACs (M)",
             "layers");
  for (const corpus::ZooModel &M : corpus::zooModels()) {
    auto N = corpus::buildZooModel(M.name);
    if (!N) {
      fmt::print(stderr, "{}\n", N.error().str());
      return 1;
    }
    const corpus::Shape &In = N->layer(N->inputs().front()).shape;
    fmt::print("{:<18} {:>13} {:>12.3f} {:>10.2f} {:>7}\n", M.name,
               fmt::format("{}x{}x{}", In[1], In[2], In[3]), N->params() / 1e6, N->macs() / 1e6,
               N->computeLayerCount());
  }
  return 0;
}

int showModel(const ZooCommandOptions &O) {
  support::Expected<corpus::Network> N = corpus::Network();
  if (endsWith(O.model, ".onnx")) {
    corpus::OnnxImportOptions Opts;
    Opts.batch = O.batch;
    Opts.imageSize = O.imageSize;
    N = corpus::importOnnxFile(O.model, Opts);
  } else {
    N = corpus::buildZooModel(O.model, corpus::ZooOptions{O.batch, O.imageSize});
  }
  if (!N) {
    fmt::print(stderr, "{}\n", N.error().str());
    return 1;
  }
  if (O.format == "json") {
    fmt::print("{}\n", pipeline::networkDocument(*N).dump(2));
    return 0;
  }
  fmt::print("{:<28} {:<14} {:<12} {:<20} {:>11} {:>14}\n", "layer", "kind", "detail", "shape",
             "params", "MACs");
  for (const corpus::Layer &L : N->layers())
    fmt::print("{:<28} {:<14} {:<12} {:<20} {:>11} {:>14}\n", L.name, corpus::layerKindName(L.kind),
               pipeline::layerDetail(L), corpus::shapeStr(L.shape), L.params, L.macs);
  fmt::print("total: {} layers, {} params, {} MACs\n", N->computeLayerCount(), N->params(),
             N->macs());
  return 0;
}

} // namespace

void addZooCommand(CLI::App &App) {
  auto Opts = std::make_shared<ZooCommandOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "zoo", "list the model zoo (parameters, MACs, layers), or the layers of one model or ONNX "
             "file");
  Cmd->add_option("model", Opts->model, "zoo model name or FILE.onnx (omit to list the zoo)");
  Cmd->add_option("--format", Opts->format, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  Cmd->add_option("--batch", Opts->batch, "batch size (1..4096, with a model)")
      ->check(integerIn(1, 4096))
      ->capture_default_str();
  Cmd->add_option("--image-size", Opts->imageSize,
                  "input height = width (default: the model's own; an ONNX graph's 4-D input with "
                  "a dynamic batch)")
      ->check(CLI::PositiveNumber);
  Cmd->callback([Opts] {
    int Status = Opts->model.empty() ? listZoo(*Opts) : showModel(*Opts);
    if (Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace ptxcast
