// `ptxcast dataset timm CSV... [--onnx-dir DIR] -o OUT.csv`: timm whole-network AMP inference
// step times joined with the fast analysis of the same network lowered in f16 at the row's batch
// and image size: a zoo model, or with --onnx-dir the torchvision graph of an architecture timm
// implements layer for layer. Two tables map the names (docs/datasets.md); other models are
// skipped.
#include "pipeline/Datasets.h"
#include "pipeline/DatasetCommon.h"
#include "pipeline/DatasetShard.h"

#include "corpus/Onnx.h"
#include "corpus/Zoo.h"

#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

namespace pipeline::dataset {
namespace {

constexpr std::string_view RequiredColumns[] = {"model", "infer_img_size", "infer_batch_size",
                                                "infer_step_time"};

/// timm model name -> zoo model name. timm's efficientnet_bN (symmetric padding) and
/// tf_efficientnet_bN (TF "SAME" padding) both map to the zoo's efficientnet-bN (SAME padding).
std::string zooModelFor(std::string_view Timm) {
  static const std::map<std::string_view, std::string_view> Table = {
      {"resnet50", "resnet50"},
      {"vgg16", "vgg16"},
      {"legacy_xception", "xception"},
      {"mobilenetv2_035", "mobilenetv2-0.35"},
      {"mobilenetv2_050", "mobilenetv2-0.5"},
      {"mobilenetv2_075", "mobilenetv2-0.75"},
      {"mobilenetv2_100", "mobilenetv2-1.0"},
      {"mobilenetv2_140", "mobilenetv2-1.4"},
  };
  if (auto It = Table.find(Timm); It != Table.end())
    return std::string(It->second);
  for (std::string_view Prefix : {"efficientnet_b", "tf_efficientnet_b"})
    if (Timm.size() == Prefix.size() + 1 && Timm.substr(0, Prefix.size()) == Prefix &&
        Timm.back() >= '0' && Timm.back() <= '7')
      return "efficientnet-b" + std::string(1, Timm.back());
  return "";
}

/// timm model name -> the torchvision ONNX graph (DIR/NAME.onnx, as scripts/measure/
/// time_frameworks.py exports them) of the same layers: timm's ResNets (stride on the 3x3),
/// ResNeXt, Wide ResNet, DenseNet, Inception v3 and VGG (its 7x7 convolution head has the dense
/// layer's multiply-adds) are torchvision's architectures; regnety_008_tv is torchvision's
/// RegNetY-800MF configuration; mnasnet_100 and mobilenetv3_*_100 are the same MNASNet-B1 and
/// MobileNetV3 blocks and widths (the head's 1x1 convolution for torchvision's dense layer).
std::string onnxModelFor(std::string_view Timm) {
  static const std::map<std::string_view, std::string_view> Table = {
      {"densenet121", "densenet121"},
      {"inception_v3", "inception_v3"},
      {"mnasnet_100", "mnasnet1_0"},
      {"mobilenetv3_large_100", "mobilenet_v3_large"},
      {"mobilenetv3_small_100", "mobilenet_v3_small"},
      {"regnety_008_tv", "regnet_y_800mf"},
      {"resnet18", "resnet18"},
      {"resnet34", "resnet34"},
      {"resnet101", "resnet101"},
      {"resnet152", "resnet152"},
      {"resnext50_32x4d", "resnext50_32x4d"},
      {"vgg11", "vgg11"},
      {"vgg19", "vgg19"},
      {"wide_resnet50_2", "wide_resnet50_2"},
  };
  auto It = Table.find(Timm);
  return It == Table.end() ? "" : std::string(It->second);
}

/// The network a timm model is: a zoo model, or with an ONNX folder a torchvision graph in it.
struct TimmNetwork {
  std::string workload; ///< the zoo's or torchvision's name; empty: skipped
  std::string onnx;     ///< the graph's path, for a torchvision architecture
  std::string skip, detail;
};

TimmNetwork networkFor(std::string_view Timm, const std::string &OnnxDir) {
  if (std::string Zoo = zooModelFor(Timm); !Zoo.empty())
    return {Zoo, "", "", ""};
  std::string Tv = onnxModelFor(Timm);
  if (OnnxDir.empty() || Tv.empty())
    return {"", "", OnnxDir.empty() ? "model not in zoo" : "model not in zoo or --onnx-dir", ""};
  std::string Path = (std::filesystem::path(OnnxDir) / (Tv + ".onnx")).string();
  if (!std::filesystem::exists(Path))
    return {"", "", "no ONNX graph", Path};
  // Named as torchvision names it, as the frameworks rows of the same graph are.
  return {Tv, Path, "", ""};
}

/// What a timm result file's name says: layout and GPU (benchmark-infer-amp-nchw-pt240-cu124-
/// rtx3090.csv). A training or non-AMP file is an error.
struct FileFacts {
  std::string name;      ///< the file name without directories
  std::string layout;    ///< "nchw", "nhwc" or "unknown"
  bool compiled = false; ///< torch.compile's rows ("-dynamo" in the name), not eager PyTorch's
  hardware::GpuSpec gpu;
};

support::Expected<FileFacts> fileFacts(const std::string &Path, const std::string &GpuOverride,
                                       const hardware::GpuCatalog &Catalog) {
  FileFacts F;
  F.name = std::filesystem::path(Path).filename().string();
  std::string Stem = std::filesystem::path(Path).stem().string();
  if (Stem.find("-train") != std::string::npos)
    return support::Error(Path, 0, 0,
                          "a training benchmark; `ptxcast dataset timm` reads AMP inference "
                          "files only (benchmark-infer-amp-*.csv)");
  if (Stem.rfind("benchmark-infer-amp-", 0) != 0)
    return support::Error(Path, 0, 0,
                          "not a timm AMP inference file: expected a name like "
                          "benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv");
  std::vector<std::string> Tokens;
  for (size_t Pos = 0, Dash; Pos <= Stem.size(); Pos = Dash + 1) {
    Dash = std::min(Stem.find('-', Pos), Stem.size());
    Tokens.push_back(Stem.substr(Pos, Dash - Pos));
  }
  F.layout = "unknown";
  for (const std::string &T : Tokens) {
    if (T == "nchw" || T == "nhwc")
      F.layout = T;
    F.compiled |= T == "dynamo";
  }
  if (!GpuOverride.empty()) {
    auto G = Catalog.lookup(GpuOverride);
    if (!G)
      return support::Error("--gpu", 0, 0, G.error().message);
    F.gpu = *G;
    return F;
  }
  for (size_t I = Tokens.size(); I-- > 4;) // after "benchmark-infer-amp-LAYOUT"
    if (auto G = Catalog.lookup(Tokens[I]))
      return F.gpu = *G, F;
  return support::Error(Path, 0, 0, "no GPU of the catalog in the file name; name it with --gpu");
}

struct Job {
  std::string zooModel; ///< a zoo model, or
  std::string onnx;     ///< the path of a torchvision graph
  int64_t batch = 0, imageSize = 0;
};

struct Ingest {
  std::vector<PendingRow> rows;
  std::vector<Job> jobs;
  std::map<std::string, size_t> jobIndex; ///< "model|batch|size" -> jobs index
  SkipLog skips;
  size_t read = 0;
};

/// Reads one file's rows into G (with --limit, its first N rows of zoo models).
support::MaybeError readFile(const std::string &Path, const DatasetOptions &O,
                             const hardware::GpuCatalog &Catalog, Ingest &G) {
  auto F = fileFacts(Path, O.gpu, Catalog);
  if (!F)
    return F.error();
  auto T = readTable(Path, RequiredColumns);
  if (!T)
    return T.error();
  const size_t First = G.rows.size();
  for (const learners::CsvRecord &R : T->rows) {
    if (O.limit && G.rows.size() - First >= O.limit)
      break;
    ++G.read;
    const std::string &Model = textField(*T, R, "model");
    auto Batch = intField(*T, R, "infer_batch_size");
    auto Size = intField(*T, R, "infer_img_size");
    auto Step = timeField(*T, R, "infer_step_time");
    if (!Batch || !Size || !Step)
      return !Batch ? Batch.error() : !Size ? Size.error() : Step.error();
    TimmNetwork N = networkFor(Model, O.onnxDir);
    if (N.workload.empty()) {
      G.skips.add(N.skip, N.detail);
      continue;
    }
    std::string Key = fmt::format("{}|{}|{}", N.workload, *Batch, *Size);
    auto [It, New] = G.jobIndex.emplace(Key, G.jobs.size());
    if (New)
      G.jobs.push_back({N.onnx.empty() ? N.workload : "", N.onnx, *Batch, *Size});
    // AMP inference (fp16 tensor cores for convolutions and GEMMs), eager PyTorch at the largest
    // batch that fit: GPU-bound, so the per-launch host overhead is not modelled (0).
    PendingRow P;
    P.ids = {"timm",
             F->gpu.name,
             "all",
             F->compiled ? "compile" : "eager",
             "f16",
             "f16",
             N.workload,
             fmt::format("batch={};image={};layout={}", *Batch, *Size, F->layout),
             Model + " " + F->name};
    P.measuredMs = *Step;
    P.job = It->second;
    P.gpu = F->gpu;
    P.exec = {hardware::MathMode::F16, hardware::Implementation::Framework, true};
    if (F->compiled)
      P.exec.passes = hardware::PassStructure::Inductor;
    G.rows.push_back(std::move(P));
  }
  return std::nullopt;
}

} // namespace

int runTimm(const DatasetOptions &O) {
  auto Start = std::chrono::steady_clock::now();
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog) {
    fmt::print(stderr, "{}\n", Catalog.error().str());
    return 1;
  }
  Ingest G;
  for (const std::string &Path : O.inputs) {
    if (auto E = readFile(Path, O, *Catalog, G)) {
      fmt::print(stderr, "{}\n", E->str());
      return 1;
    }
  }
  std::vector<NetworkFactory> Jobs;
  for (const Job &J : G.jobs)
    Jobs.push_back([&J]() -> support::Expected<corpus::Network> {
      if (J.onnx.empty())
        return corpus::buildZooModel(J.zooModel,
                                     corpus::ZooOptions{J.batch, J.imageSize, corpus::DType::F16});
      corpus::OnnxImportOptions Opts;
      Opts.batch = J.batch;
      Opts.imageSize = J.imageSize;
      Opts.dtype = corpus::DType::F16; // the timed runs were AMP: f16 tensor cores, autocast
      return corpus::importOnnxFile(J.onnx, Opts);
    });
  JobSettings S;
  S.threads = O.threads;
  S.perJob = false; // few large networks: all threads inside each
  S.lower.arch = O.arch;
  S.unit = "analysed networks";
  JobOutcome Run = runOrShardJobs("timm", O, Jobs, S);
  if (Run.done)
    return *Run.done;
  const std::vector<JobResult> &Results = Run.results;

  learners::Dataset D = emptyDataset();
  if (int Status = writeJoinedRows(D, G.rows, Results, G.skips, O.output); Status != 0)
    return Status;
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  printSummary("dataset timm", G.read, D.size(), G.skips, Jobs.size(), Seconds);
  for (size_t I = 0; I < Jobs.size(); ++I)
    fmt::print(stderr, "  {} batch {} size {}: {:.1f} s{}\n",
               G.jobs[I].onnx.empty() ? G.jobs[I].zooModel : G.jobs[I].onnx, G.jobs[I].batch,
               G.jobs[I].imageSize, Results[I].seconds, Results[I].analysis ? "" : " (skipped)");
  return 0;
}

} // namespace pipeline::dataset
