// `ptxcast dataset frameworks CSV... -o OUT.csv`: framework timings of whole networks (as
// scripts/measure/time_frameworks.py writes them) joined with the fast analysis of the very ONNX
// graph that was timed, imported at the row's batch and precision. One row per timing.
#include "pipeline/Datasets.h"
#include "pipeline/DatasetCommon.h"
#include "pipeline/DatasetShard.h"

#include "corpus/Onnx.h"

#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

namespace pipeline::dataset {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view RequiredColumns[] = {"model", "batch",     "dtype",  "image_size",
                                                "mode",  "median_ms", "status", "device"};

struct Job {
  std::string onnx; ///< path of the timed graph
  int64_t batch = 0;
  corpus::DType dtype = corpus::DType::F32;
};

struct Ingest {
  std::vector<PendingRow> rows;
  std::vector<Job> jobs;
  std::map<std::string, size_t> jobIndex; ///< "onnx|batch|dtype" -> jobs index
  SkipLog skips;
  size_t read = 0;
};

/// fp32 / fp16 (the script's names) or f32 / f16 (ptxcast's).
std::optional<corpus::DType> dtypeOf(const std::string &Text) {
  if (Text == "fp32" || Text == "f32")
    return corpus::DType::F32;
  if (Text == "fp16" || Text == "f16")
    return corpus::DType::F16;
  return std::nullopt;
}

/// The GPU of a row: --gpu, else the catalog entry for the row's device name.
support::Expected<hardware::GpuSpec> gpuOf(const SourceTable &T, const learners::CsvRecord &R,
                                           const DatasetOptions &O,
                                           const hardware::GpuCatalog &Catalog) {
  std::string Name = O.gpu.empty() ? textField(T, R, "device") : O.gpu;
  auto G = Catalog.lookup(Name);
  if (!G)
    return support::Error(T.file, R.line, 0,
                          fmt::format("device '{}' is not in the GPU catalog; name the catalog "
                                      "GPU with --gpu",
                                      Name));
  return *G;
}

/// Reads one file's rows of the selected mode into G.
support::MaybeError readFile(const std::string &Path, const DatasetOptions &O,
                             const hardware::GpuCatalog &Catalog, Ingest &G) {
  auto T = readTable(Path, RequiredColumns);
  if (!T)
    return T.error();
  fs::path OnnxDir =
      O.onnxDir.empty() ? fs::path(Path).parent_path() / "onnx" : fs::path(O.onnxDir);
  size_t Taken = 0;
  for (const learners::CsvRecord &R : T->rows) {
    if (textField(*T, R, "mode") != O.mode)
      continue;
    if (O.limit && Taken >= O.limit)
      break;
    ++Taken, ++G.read;
    auto Batch = intField(*T, R, "batch");
    auto Ms = timeField(*T, R, "median_ms");
    if (textField(*T, R, "status") != "ok") {
      G.skips.add("not timed (status " + textField(*T, R, "status") + ")");
      continue;
    }
    if (!Batch || !Ms)
      return !Batch ? Batch.error() : Ms.error();
    const std::string &Model = textField(*T, R, "model");
    auto Type = dtypeOf(textField(*T, R, "dtype"));
    if (!Type)
      return support::Error(
          T->file, R.line, 0,
          fmt::format("dtype '{}': expected fp32 or fp16", textField(*T, R, "dtype")));
    auto Gpu = gpuOf(*T, R, O, Catalog);
    if (!Gpu)
      return Gpu.error();
    fs::path Onnx = OnnxDir / (Model + ".onnx");
    if (!fs::exists(Onnx)) {
      G.skips.add("no ONNX graph", Onnx.string());
      continue;
    }
    std::string Key =
        fmt::format("{}|{}|{}", Onnx.string(), *Batch, std::string(corpus::dtypeString(*Type)));
    auto [It, New] = G.jobIndex.emplace(Key, G.jobs.size());
    if (New)
      G.jobs.push_back({Onnx.string(), *Batch, *Type});
    // PyTorch's defaults: TF32 tensor cores for fp32 convolutions on sm_80+, fp16 tensor cores
    // under autocast (hardware::defaultMathMode).
    const bool Half = *Type == corpus::DType::F16;
    PendingRow P;
    P.ids = {"frameworks",
             Gpu->name,
             "all",
             O.mode,
             std::string(hardware::mathModeName(
                 hardware::defaultMathMode(Half ? "f16" : "f32", Gpu->computeCapability))),
             std::string(corpus::dtypeString(*Type)),
             Model,
             fmt::format("batch={}", *Batch),
             fs::path(Path).filename().string()};
    P.measuredMs = *Ms;
    P.job = It->second;
    P.gpu = *Gpu;
    P.exec = {hardware::defaultMathMode(Half ? "f16" : "f32", Gpu->computeCapability),
              hardware::Implementation::Framework, Half};
    G.rows.push_back(std::move(P));
  }
  return std::nullopt;
}

/// Analyses every job (or --shard's slice); results land in the slot of their job.
JobOutcome analyseJobs(const std::vector<Job> &Jobs, const DatasetOptions &O) {
  std::vector<NetworkFactory> Factories;
  for (const Job &J : Jobs)
    Factories.push_back([&J] {
      corpus::OnnxImportOptions Opts;
      Opts.batch = J.batch;
      Opts.dtype = J.dtype; // the lowering follows the imported network's element type
      return corpus::importOnnxFile(J.onnx, Opts);
    });
  JobSettings S;
  S.threads = O.threads;
  S.perJob = false; // few large networks: all threads inside each
  S.lower.arch = O.arch;
  S.unit = "analysed networks";
  return runOrShardJobs("frameworks", O, Factories, S);
}

} // namespace

int runFrameworks(const DatasetOptions &O) {
  auto Start = std::chrono::steady_clock::now();
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog) {
    fmt::print(stderr, "{}\n", Catalog.error().str());
    return 1;
  }
  Ingest G;
  for (const std::string &Path : O.inputs)
    if (auto E = readFile(Path, O, *Catalog, G)) {
      fmt::print(stderr, "{}\n", E->str());
      return 1;
    }
  JobOutcome Run = analyseJobs(G.jobs, O);
  if (Run.done)
    return *Run.done;
  const std::vector<JobResult> &Results = Run.results;
  learners::Dataset D = emptyDataset();
  if (int Status = writeJoinedRows(D, G.rows, Results, G.skips, O.output); Status != 0)
    return Status;
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  printSummary("dataset frameworks", G.read, D.size(), G.skips, G.jobs.size(), Seconds);
  return 0;
}

} // namespace pipeline::dataset
