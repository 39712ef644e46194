// `ptxcast dataset neusight CSV... -o OUT.csv`: NeuSight per-operator latencies (conv, linear,
// bmm and the operators on (b, h) tensors of the training and test splits) joined with the fast
// analysis of the same operator lowered by ptxcast.
// Each distinct (op, shape) is analysed once, whatever the number of GPU files.
#include "pipeline/Datasets.h"
#include "pipeline/DatasetCommon.h"
#include "pipeline/DatasetShard.h"

#include "corpus/Builder.h"

#include <fmt/core.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <functional>
#include <map>
#include <optional>

namespace pipeline::dataset {
namespace {

/// Columns every NeuSight file has, and the shape columns per operator (SOURCES.md).
constexpr std::string_view CommonColumns[] = {"op", "latency_ms", "device", "kernel_name"};

struct OpShape {
  std::string_view op;
  std::vector<std::string_view> columns; ///< shape columns, in source order
  std::vector<std::string_view> keys;    ///< their names in the compact shape string
};

const std::vector<OpShape> &opShapes() {
  static const std::vector<OpShape> Shapes = [] {
    std::vector<OpShape> Shapes = {
        {"conv",
         {"b", "input_channel", "output_channel", "kernel_size", "input_size", "stride", "padding"},
         {"b", "in", "out", "k", "hw", "s", "p"}},
        {"linear", {"b", "m", "n", "k"}, {"b", "m", "n", "k"}},
        {"bmm", {"b", "m", "n", "k"}, {"b", "m", "n", "k"}},
    };
    // Operators on (b, h) tensors.
    for (std::string_view Op : {"relu", "gelu", "tanh", "add", "mul", "div", "pow", "addu", "mulu",
                                "divu", "powu", "softmax", "ln"})
      Shapes.push_back({Op, {"b", "h"}, {"b", "h"}});
    return Shapes;
  }();
  return Shapes;
}

const OpShape *findOp(std::string_view Op) {
  for (const OpShape &S : opShapes())
    if (S.op == Op)
      return &S;
  return nullptr;
}

/// One operator instance: its op, shape values (in OpShape::columns order) and shape string.
struct OpInstance {
  const OpShape *op = nullptr;
  std::vector<int64_t> dims;
  std::string shape;
};

/// The scalar of NeuSight's tensor-with-scalar operators (addu, mulu, divu, powu): a Python
/// float drawn in (0, 1] that the source does not record. Any value but the special exponents
/// (0, 1, +-0.5, 2, ...) gives the general kernels.
constexpr float UnrecordedScalar = 0.37f;

/// The one-operator network of a NeuSight row (fp32, SOURCES.md gives the PyTorch modules).
support::Expected<corpus::Network> buildOperator(const OpInstance &I) {
  const std::vector<int64_t> &D = I.dims;
  corpus::NetworkBuilder B(std::string(I.op->op) + "_" + I.shape, corpus::DType::F32);
  std::string_view Op = I.op->op;
  if (Op == "conv") { // Conv2d(in, out, k, stride, padding, bias=False) on (b, in, H, H)
    corpus::LayerId X = B.input({D[0], D[1], D[4], D[4]});
    B.conv(X, D[2], D[3], D[5], D[6], 1, false);
  } else if (Op == "linear") { // Linear(n, k, bias=True) on (b, m, n)
    B.dense(B.input({D[0], D[1], D[2]}), D[3], true);
  } else if (Op == "bmm") { // bmm of (b, m, n) by (b, n, k)
    B.batchMatMul(B.input({D[0], D[1], D[2]}, "a"), B.input({D[0], D[2], D[3]}, "b"));
  } else {
    corpus::LayerId X = B.input({D[0], D[1]}, "a");
    auto Y = [&] { return B.input({D[0], D[1]}, "b"); };
    const std::map<std::string_view, std::function<void()>> Build = {
        {"relu", [&] { B.relu(X); }},
        {"gelu", [&] { B.gelu(X); }},
        {"tanh", [&] { B.tanh(X); }},
        {"add", [&] { B.addLayers(X, Y()); }},
        {"mul", [&] { B.mulLayers(X, Y()); }},
        {"div", [&] { B.divLayers(X, Y()); }},
        {"pow", [&] { B.powLayers(X, Y()); }},
        {"addu", [&] { B.addScalar(X, UnrecordedScalar); }},
        {"mulu", [&] { B.mulScalar(X, UnrecordedScalar); }},
        {"divu", [&] { B.divScalar(X, UnrecordedScalar); }},
        {"powu", [&] { B.powScalar(X, UnrecordedScalar); }},
        {"softmax", [&] { B.softmax(X, -1); }},
        {"ln", [&] { B.layerNorm(X); }},
    };
    auto It = Build.find(Op);
    assert(It != Build.end() && "operator table and builder disagree");
    It->second();
  }
  return B.finish();
}

/// The files, read and checked: every row's device known to the catalog, fields well formed.
struct Ingest {
  std::vector<PendingRow> rows;
  std::vector<OpInstance> jobs;
  std::map<std::string, size_t> jobIndex; ///< "op|shape" -> jobs index
  std::map<std::string, hardware::GpuSpec> gpus;
  SkipLog skips;
  size_t read = 0;
};

/// A kernel name without its return type and template or parameter lists:
/// "void at::native::(anonymous namespace)::softmax_warp_forward<float, ...>(...)" ->
/// "at::native::softmax_warp_forward".
std::string shortKernelName(std::string_view Name) {
  if (Name.starts_with("void "))
    Name.remove_prefix(5);
  std::string Out(Name);
  const std::string Anonymous = "(anonymous namespace)::";
  for (size_t At; (At = Out.find(Anonymous)) != std::string::npos;)
    Out.erase(At, Anonymous.size());
  return Out.substr(0, Out.find_first_of("<("));
}

/// Rows of the training split (random shapes) are source "neusight", those of the test split
/// (shapes of real transformers, a folder named neusight-testsplit) "neusight-test".
std::string sourceOf(const std::string &File) {
  return File.find("neusight-testsplit") != std::string::npos ? "neusight-test" : "neusight";
}

support::MaybeError readRow(const SourceTable &T, const learners::CsvRecord &R,
                            const hardware::GpuCatalog &Catalog, Ingest &G) {
  ++G.read;
  const std::string &Op = textField(T, R, "op");
  const OpShape *S = findOp(Op);
  if (!S) {
    G.skips.add("unsupported op", Op);
    return std::nullopt;
  }
  for (std::string_view C : S->columns)
    if (!T.column(C))
      return support::Error(
          T.file, R.line, 0,
          fmt::format("op '{}' needs column '{}', which the header lacks", Op, C));
  OpInstance I{S, {}, {}};
  for (size_t K = 0; K < S->columns.size(); ++K) {
    auto V = intField(T, R, S->columns[K]);
    if (!V)
      return V.error();
    I.dims.push_back(*V);
    I.shape += fmt::format("{}{}={}", K ? ";" : "", S->keys[K], *V);
  }
  auto Latency = timeField(T, R, "latency_ms");
  if (!Latency)
    return Latency.error();
  const std::string &Device = textField(T, R, "device");
  auto Gpu = G.gpus.find(Device);
  if (Gpu == G.gpus.end()) {
    auto Spec = Catalog.lookup(Device);
    if (!Spec)
      return support::Error(T.file, R.line, 0,
                            fmt::format("column 'device': {}", Spec.error().message));
    Gpu = G.gpus.emplace(Device, *Spec).first;
  }
  auto [It, New] = G.jobIndex.emplace(Op + "|" + I.shape, G.jobs.size());
  if (New)
    G.jobs.push_back(I);
  // NeuSight timed PyTorch 2.1 fp32 operators with TF32 off: CUDA-core math, one eager call
  // between two CUDA events (SOURCES.md).
  PendingRow P;
  P.ids = {sourceOf(T.file),
           Gpu->second.name,
           "all",
           "op-call",
           "simt",
           "f32",
           Op,
           I.shape,
           shortKernelName(textField(T, R, "kernel_name"))};
  P.measuredMs = *Latency;
  P.job = It->second;
  P.gpu = Gpu->second;
  P.exec = {hardware::MathMode::Simt, hardware::Implementation::Framework, false};
  G.rows.push_back(std::move(P));
  return std::nullopt;
}

support::Expected<Ingest> readFiles(const DatasetOptions &O, const hardware::GpuCatalog &Catalog) {
  Ingest G;
  for (const std::string &File : O.inputs) {
    auto T = readTable(File, CommonColumns);
    if (!T)
      return T.error();
    size_t Taken = 0; // --limit counts rows per file: the GPU files list the same shapes
    for (const learners::CsvRecord &R : T->rows) {
      if (O.limit && Taken++ >= O.limit)
        break;
      if (auto E = readRow(*T, R, Catalog, G))
        return *E;
    }
  }
  return G;
}

} // namespace

int runNeusight(const DatasetOptions &O) {
  auto Start = std::chrono::steady_clock::now();
  auto Catalog = hardware::GpuCatalog::builtin();
  if (!Catalog) {
    fmt::print(stderr, "{}\n", Catalog.error().str());
    return 1;
  }
  auto G = readFiles(O, *Catalog);
  if (!G) {
    fmt::print(stderr, "{}\n", G.error().str());
    return 1;
  }
  std::vector<NetworkFactory> Jobs;
  for (const OpInstance &I : G->jobs)
    Jobs.push_back([&I] { return buildOperator(I); });
  JobSettings S;
  S.threads = O.threads;
  S.perJob = true;
  S.lower.arch = O.arch;
  S.unit = "analysed shapes";
  JobOutcome Run = runOrShardJobs("neusight", O, Jobs, S);
  if (Run.done)
    return *Run.done;
  const std::vector<JobResult> &Results = Run.results;
  estimateCallOverheads(G->rows, Results, "neusight");

  learners::Dataset D = emptyDataset();
  if (int Status = writeJoinedRows(D, G->rows, Results, G->skips, O.output); Status != 0)
    return Status;
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  printSummary("dataset neusight", G->read, D.size(), G->skips, Jobs.size(), Seconds);
  fmt::print(stderr, "{}\n", costSummary(Results));
  return 0;
}

} // namespace pipeline::dataset
