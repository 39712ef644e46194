// `ptxcast dataset neusight|timm|kernels|frameworks CSV... -o OUT.csv`: real measurements joined
// with ptxcast's analysis of the same workload, one feature row per measurement; `--shard K/N`
// and `ptxcast dataset merge` split the analyses over machines (docs/datasets.md).
#include "Commands.h"

#include "pipeline/DatasetShard.h"
#include "pipeline/Datasets.h"

#include <CLI/CLI.hpp>

#include <memory>

namespace ptxcast {
namespace {

/// --shard K/N, checked as the flags are parsed.
void addShardOption(CLI::App *Cmd, pipeline::dataset::DatasetOptions &O) {
  Cmd->add_option("--shard", O.shard,
                  "analyse only slice K of N of the distinct analyses and write them to -o as a "
                  "shard file for `ptxcast dataset merge`")
      ->check(CLI::Validator(
          [](std::string &Text) {
            auto S = pipeline::dataset::parseShard(Text);
            return S ? std::string() : S.error().message;
          },
          "K/N"));
}

/// Flags shared by the sources.
void addCommonOptions(CLI::App *Cmd, pipeline::dataset::DatasetOptions &O) {
  Cmd->add_option("inputs", O.inputs, "source CSV files")->required()->check(CLI::ExistingFile);
  Cmd->add_option("-o,--output", O.output, "output CSV (replaced atomically)")->required();
  Cmd->add_option("--threads", O.threads, "worker threads (0 = all cores)")->capture_default_str();
  Cmd->add_option("--arch", O.arch, "lowering target")->capture_default_str();
  Cmd->add_option("--cache", O.cacheDir,
                  "directory of cached analyses: a workload analysed before (same PTX and "
                  "manifest) is read back instead of analysed again");
  addShardOption(Cmd, O);
}

void addMergeCommand(CLI::App *Dataset) {
  auto Shards = std::make_shared<std::vector<std::string>>();
  auto Output = std::make_shared<std::string>();
  auto Threads = std::make_shared<unsigned>(0);
  CLI::App *Merge = Dataset->add_subcommand(
      "merge", "the dataset of N `--shard K/N` runs, byte-identical to the unsharded run (reads "
               "the sources again, analyses nothing)");
  Merge->add_option("shards", *Shards, "the N shard files, in any order")
      ->required()
      ->check(CLI::ExistingFile);
  Merge->add_option("-o,--output", *Output, "output CSV (replaced atomically)")->required();
  Merge->add_option("--threads", *Threads, "worker threads (0 = all cores)")->capture_default_str();
  Merge->callback([Shards, Output, Threads] {
    if (int Status = pipeline::dataset::runMerge(*Shards, *Output, *Threads); Status != 0)
      throw CLI::RuntimeError(Status);
  });
}

} // namespace

void addDatasetCommand(CLI::App &App) {
  auto O = std::make_shared<pipeline::dataset::DatasetOptions>();
  CLI::App *Cmd = App.add_subcommand(
      "dataset", "join measured latencies with ptxcast's analysis into a learner dataset CSV");
  Cmd->require_subcommand(1);

  CLI::App *Neu = Cmd->add_subcommand(
      "neusight", "NeuSight per-operator latencies (conv, linear, relu, tanh, add, mul, softmax; fp32)");
  addCommonOptions(Neu, *O);
  Neu->add_option("--limit", O->limit, "read only the first N rows of each file (0 = all)");
  Neu->callback([O] {
    if (int Status = pipeline::dataset::runNeusight(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });

  CLI::App *Timm = Cmd->add_subcommand(
      "timm", "timm whole-network AMP inference step times (benchmark-infer-amp-*.csv; f16)");
  addCommonOptions(Timm, *O);
  Timm->add_option("--gpu", O->gpu, "catalog GPU (default: from the file name)");
  Timm->add_option("--onnx-dir", O->onnxDir,
                   "folder of torchvision MODEL.onnx graphs for the timm models that are "
                   "torchvision architectures (resnet18, densenet121, ...; docs/datasets.md)");
  Timm->add_option("--limit", O->limit,
                   "take only the first N rows of known models of each file (0 = all)");
  Timm->callback([O] {
    if (int Status = pipeline::dataset::runTimm(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });

  CLI::App *Kern = Cmd->add_subcommand(
      "kernels",
      "ptxcast's own kernels timed on a GPU (kernels.csv of scripts/measure/collect.py)");
  Kern->add_option("inputs", O->inputs, "kernels.csv file(s)")
      ->required()
      ->check(CLI::ExistingFile);
  Kern->add_option("-o,--output", O->output, "output CSV (replaced atomically)")->required();
  Kern->add_option("--threads", O->threads, "worker threads (0 = all cores)")
      ->capture_default_str();
  Kern->add_option("--cache", O->cacheDir, "directory of cached analyses (as for neusight)");
  addShardOption(Kern, *O);
  Kern->add_option("--gpu", O->gpu, "catalog GPU the file was measured on (default: h100-sxm)");
  Kern->add_option("--run", O->run,
                   "only the rows of this run (e.g. run1; run2 repeats some as a noise check)");
  Kern->add_option("--level", O->level, "launch: a row per launch; network: per graph run")
      ->check(CLI::IsMember({"launch", "network"}))
      ->capture_default_str();
  Kern->add_option("--limit", O->limit, "take only the first N rows of the level (0 = all)");
  Kern->add_option("--math", O->math,
                   "the rows lowered with this --math (column math; absent = simt) are joined, "
                   "others skipped")
      ->check(CLI::IsMember(mathChoices()))
      ->capture_default_str();
  Kern->add_option("--kernels", O->kernelSet,
                   "likewise for the kernel set (column kernel_set; absent = specialised)")
      ->check(CLI::IsMember(kernelSetChoices()))
      ->capture_default_str();
  Kern->callback([O] {
    if (int Status = pipeline::dataset::runKernels(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });

  CLI::App *Fw = Cmd->add_subcommand(
      "frameworks", "whole-network framework timings from scripts/measure/time_frameworks.py, "
                    "analysed from the ONNX graphs that were timed");
  addCommonOptions(Fw, *O);
  Fw->add_option("--mode", O->mode, "timing mode to take")
      ->check(CLI::IsMember({"graph", "eager"}))
      ->capture_default_str();
  Fw->add_option("--onnx-dir", O->onnxDir, "folder of MODEL.onnx (default: onnx/ beside the CSV)");
  Fw->add_option("--gpu", O->gpu, "catalog GPU (default: the rows' device)");
  Fw->add_option("--limit", O->limit, "take only the first N rows of the mode of each file");
  Fw->callback([O] {
    if (int Status = pipeline::dataset::runFrameworks(*O); Status != 0)
      throw CLI::RuntimeError(Status);
  });

  addMergeCommand(Cmd);
}

} // namespace ptxcast
