// `ptxcast dataset neusight CSV... -o OUT.csv`: NeuSight per-operator latencies (conv, linear,
// relu, add, softmax) joined with the fast analysis of the same operator lowered by ptxcast.
// Each distinct (op, shape) is analysed once, whatever the number of GPU files.
#include "DatasetCommands.h"
#include "DatasetCommon.h"

#include "corpus/Builder.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <regex>

namespace ptxcast::dataset {
namespace {

/// Columns every NeuSight file has, and the shape columns per operator (SOURCES.md).
constexpr std::string_view CommonColumns[] = {"op", "latency_ms", "device", "kernel_name"};

struct OpShape {
  std::string_view op;
  std::vector<std::string_view> columns; ///< shape columns, in source order
  std::vector<std::string_view> keys;    ///< their names in the compact shape string
};

const std::vector<OpShape> &opShapes() {
  static const std::vector<OpShape> Shapes = {
      {"conv",
       {"b", "input_channel", "output_channel", "kernel_size", "input_size", "stride", "padding"},
       {"b", "in", "out", "k", "hw", "s", "p"}},
      {"linear", {"b", "m", "n", "k"}, {"b", "m", "n", "k"}},
      {"relu", {"b", "h"}, {"b", "h"}},
      {"add", {"b", "h"}, {"b", "h"}},
      {"softmax", {"b", "h"}, {"b", "h"}},
  };
  return Shapes;
}

const OpShape *findOp(std::string_view Op) {
  for (const OpShape &S : opShapes())
    if (S.op == Op)
      return &S;
  return nullptr;
}

/// --launch-columns: the launch record of the kernel the source measured (NeuSight logged the
/// kernel that dominated each operator), as numeric columns. Source columns copied as they are:
constexpr std::pair<std::string_view, std::string_view> LaunchCopied[] = {
    {"launch_grid_x", "grid_x"},
    {"launch_grid_y", "grid_y"},
    {"launch_grid_z", "grid_z"},
    {"launch_warps_per_sm", "warps_per_sm"},
    {"launch_blocks_per_sm", "blocks_per_sm"}};
/// The algorithm family from the kernel name: the first entry whose fragment the name contains
/// gets 1 in its column (cuDNN 8.9 and cuBLAS names; none for elementwise and softmax kernels).
constexpr std::pair<std::string_view, std::string_view> LaunchFamilies[] = {
    {"launch_winograd", "winograd"},     {"launch_fft", "gcgemm"},
    {"launch_3dconv", "3dconv"},         {"launch_implicit_gemm", "scudnn"},
    {"launch_legacy", "convolve_sgemm"}, {"launch_gemm", "sgemm"}};

std::vector<std::string> launchColumnNames() {
  std::vector<std::string> Names;
  for (const auto &[Name, Source] : LaunchCopied)
    Names.emplace_back(Name);
  for (std::string_view Name :
       {"launch_threads_per_cta", "launch_ctas", "launch_tile_m", "launch_tile_n"})
    Names.emplace_back(Name);
  for (const auto &[Name, Fragment] : LaunchFamilies)
    Names.emplace_back(Name);
  return Names;
}

/// The tile of a GEMM-like kernel name, e.g. 128x64 in volta_sgemm_128x64_nn: the first
/// MxN (numbers of up to 6 digits) with both at least 16, which skips cuDNN's "sliced1x4";
/// {0, 0} when there is none.
std::pair<double, double> nameTile(const std::string &Name) {
  static const std::regex Tile("(?:^|[^0-9])([0-9]{1,6})x([0-9]{1,6})(?![0-9])");
  for (auto It = std::sregex_iterator(Name.begin(), Name.end(), Tile); It != std::sregex_iterator();
       ++It) {
    double M = std::stod((*It)[1].str()), N = std::stod((*It)[2].str());
    if (M >= 16 && N >= 16)
      return {M, N};
  }
  return {0, 0};
}

/// The launch columns of one source row, in launchColumnNames() order.
support::Expected<std::vector<double>> launchColumns(const SourceTable &T,
                                                     const learners::CsvRecord &R) {
  std::vector<double> V;
  for (const auto &[Name, Source] : LaunchCopied) {
    auto X = numberField(T, R, Source);
    if (!X)
      return X.error();
    V.push_back(*X);
  }
  double Threads = 1;
  for (std::string_view C : {"block_x", "block_y", "block_z"}) {
    auto X = numberField(T, R, C);
    if (!X)
      return X.error();
    Threads *= *X;
  }
  V.push_back(Threads);
  V.push_back(V[0] * V[1] * V[2]);
  const std::string &Kernel = textField(T, R, "kernel_name");
  auto [M, N] = nameTile(Kernel);
  V.push_back(M);
  V.push_back(N);
  bool Found = false;
  for (const auto &[Name, Fragment] : LaunchFamilies) {
    bool Hit = !Found && Kernel.find(Fragment) != std::string::npos;
    V.push_back(Hit ? 1 : 0);
    Found |= Hit;
  }
  return V;
}

/// One operator instance: its op, shape values (in OpShape::columns order) and shape string.
struct OpInstance {
  const OpShape *op = nullptr;
  std::vector<int64_t> dims;
  std::string shape;
};

/// --shape-columns: `shape_OP_KEY` for every shape column of each operator the rows have, in
/// opShapes() order (e.g. shape_conv_b ... shape_conv_p); a row fills its operator's, 0 elsewhere.
std::vector<const OpShape *> shapeColumnOps(const std::vector<OpInstance> &Jobs) {
  std::vector<const OpShape *> Ops;
  for (const OpShape &S : opShapes())
    if (std::any_of(Jobs.begin(), Jobs.end(), [&](const OpInstance &I) { return I.op == &S; }))
      Ops.push_back(&S);
  return Ops;
}

void appendShapeColumns(learners::Dataset &D, std::vector<PendingRow> &Rows,
                        const std::vector<OpInstance> &Jobs) {
  std::vector<const OpShape *> Ops = shapeColumnOps(Jobs);
  for (const OpShape *S : Ops)
    for (std::string_view Key : S->keys)
      D.featureNames.push_back(fmt::format("shape_{}_{}", S->op, Key));
  for (PendingRow &P : Rows) {
    const OpInstance &I = Jobs[P.job];
    for (const OpShape *S : Ops)
      for (size_t K = 0; K < S->keys.size(); ++K)
        P.extra.push_back(S == I.op ? double(I.dims[K]) : 0.0);
  }
}

/// The one-operator network of a NeuSight row (fp32, SOURCES.md gives the PyTorch module).
support::Expected<corpus::Network> buildOperator(const OpInstance &I) {
  const std::vector<int64_t> &D = I.dims;
  corpus::NetworkBuilder B(std::string(I.op->op) + "_" + I.shape, corpus::DType::F32);
  std::string_view Op = I.op->op;
  if (Op == "conv") { // Conv2d(in, out, k, stride, padding, bias=False) on (b, in, H, H)
    corpus::LayerId X = B.input({D[0], D[1], D[4], D[4]});
    B.conv(X, D[2], D[3], D[5], D[6], 1, false);
  } else if (Op == "linear") { // Linear(n, k, bias=True) on (b, m, n)
    corpus::LayerId X = B.input({D[0], D[1], D[2]});
    B.dense(X, D[3], true);
  } else if (Op == "relu") {
    B.relu(B.input({D[0], D[1]}));
  } else if (Op == "add") {
    corpus::LayerId X = B.input({D[0], D[1]}, "a");
    B.addLayers(X, B.input({D[0], D[1]}, "b"));
  } else {
    assert(Op == "softmax" && "operator table and builder disagree");
    B.softmax(B.input({D[0], D[1]}), -1);
  }
  return B.finish();
}

/// The files, read and checked: every row's device known to the catalog, fields well formed.
/// Row ids: source, op, gpu, device, shape, kernel_name; `extra`: the --launch-columns values.
struct Ingest {
  std::vector<PendingRow> rows;
  std::vector<OpInstance> jobs;
  std::map<std::string, size_t> jobIndex; ///< "op|shape" -> jobs index
  std::map<std::string, hardware::GpuSpec> gpus;
  SkipLog skips;
  size_t read = 0;
};

std::optional<support::Error> readRow(const SourceTable &T, const learners::CsvRecord &R,
                                      const hardware::GpuCatalog &Catalog, bool Launch, Ingest &G) {
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
  auto Latency = numberField(T, R, "latency_ms");
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
  PendingRow P{{"neusight", Op, Gpu->second.name, Device, I.shape, textField(T, R, "kernel_name")},
               *Latency,
               It->second,
               Gpu->second,
               {}};
  if (Launch) {
    auto V = launchColumns(T, R);
    if (!V)
      return V.error();
    P.extra = std::move(*V);
  }
  G.rows.push_back(std::move(P));
  return std::nullopt;
}

support::Expected<Ingest> readFiles(const DatasetOptions &O, const hardware::GpuCatalog &Catalog) {
  Ingest G;
  for (const std::string &File : O.inputs) {
    auto T = readTable(File, CommonColumns);
    if (!T)
      return T.error();
    if (O.launchColumns)
      for (std::string_view C : {"grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z",
                                 "warps_per_sm", "blocks_per_sm"})
        if (!T->column(C))
          return support::Error(T->file, 1, 0,
                                fmt::format("--launch-columns needs column '{}', which the "
                                            "header lacks",
                                            C));
    size_t Taken = 0; // --limit counts rows per file: the GPU files list the same shapes
    for (const learners::CsvRecord &R : T->rows) {
      if (O.limit && Taken++ >= O.limit)
        break;
      if (auto E = readRow(*T, R, Catalog, O.launchColumns, G))
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
  std::vector<JobResult> Results = runJobs(Jobs, S);

  learners::Dataset D =
      emptyDataset({"source", "op", "gpu", "device", "shape", "kernel_name"}, "latency_ms");
  if (O.launchColumns)
    for (std::string &Name : launchColumnNames())
      D.featureNames.push_back(std::move(Name));
  if (O.shapeColumns)
    appendShapeColumns(D, G->rows, G->jobs);
  if (int Status = writeJoinedRows(D, G->rows, Results, G->skips, O.output); Status != 0)
    return Status;
  double Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  printSummary("dataset neusight", G->read, D.size(), G->skips, Jobs.size(), Seconds);
  fmt::print(stderr, "{}\n", costSummary(Results));
  return 0;
}

} // namespace ptxcast::dataset
