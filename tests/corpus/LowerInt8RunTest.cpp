// The int8 engine lowering (`--dtype int8`, docs/lowering.md, "Int8 engines"): which layers run
// int8 kernels and which f16, where the reformats go, the manifest's buffer types, and whole
// lowered networks (a small residual network and zoo models) run in the exact interpreter without
// a trap, with fast mode within 1 % of exact mode.
#include "corpus/Builder.h"
#include "corpus/Lower.h"
#include "corpus/Zoo.h"

#include "analyzer/FastMode.h"
#include "analyzer/Manifest.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace corpus;

namespace {

/// A stem (3 channels), a strided convolution, a pool, a 1x1 convolution with a residual add, a
/// global pool and a classifier: every boundary between int8 and f16 layers.
Network residualNet() {
  NetworkBuilder B("int8net");
  LayerId X = B.input({1, 3, 16, 16});
  X = B.relu(B.batchNorm(B.conv(X, 16, 3, 1, 1)));
  X = B.relu(B.conv(X, 32, 3, 2, 1));
  LayerId P = B.maxPool(X, 2, 2);
  X = B.relu(B.addLayers(B.batchNorm(B.conv(P, 32, 1, 1, 0)), P));
  X = B.flatten(B.globalAvgPool(X));
  B.dense(X, 10);
  auto N = B.finish();
  REQUIRE_MESSAGE(N, support::errorText(N));
  return std::move(*N);
}

std::vector<std::string> strategies(const Workload &W) {
  std::vector<std::string> S;
  for (const WorkloadLaunch &L : W.launches)
    S.push_back(L.strategy + (L.math == MathMode::Int8 ? "/int8" : "") + "/" +
                std::string(dtypeString(L.dtype)));
  return S;
}

analyzer::AnalysisInput inputOf(const Workload &W) {
  auto M = analyzer::parseManifest(manifestJson(W), W.network + "/manifest.json");
  REQUIRE_MESSAGE(M, support::errorText(M));
  analyzer::AnalysisInput In;
  std::vector<std::string> Names = ptxFileNames(W);
  for (size_t K = 0; K < W.ptx.size(); ++K)
    In.ptx.push_back({Names[K], W.ptx[K]});
  In.buffers = M->buffers;
  In.launches = M->launches;
  return In;
}

double relDiff(uint64_t A, uint64_t B) {
  return A == B ? 0 : std::fabs(double(A) - double(B)) / double(std::max(A, B));
}

/// Exact mode runs every launch (real data, no trap); fast mode's network totals are within 1 %.
void checkFastMatchesExact(const Workload &W) {
  analyzer::AnalysisInput In = inputOf(W);
  analyzer::FastSettings S;
  S.threads = 2;
  auto Exact = analyzer::analyze(In, analyzer::AnalysisMode::Exact, S);
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  auto Fast = analyzer::analyze(In, analyzer::AnalysisMode::Fast, S);
  REQUIRE_MESSAGE(Fast, support::errorText(Fast));
  analyzer::KernelProfile E, F;
  for (size_t L = 0; L < Exact->launches.size(); ++L) {
    E.accumulate(Exact->launches[L].profile);
    F.accumulate(Fast->launches[L].profile);
  }
  CHECK(relDiff(F.warpInstructionsTotal(), E.warpInstructionsTotal()) <= 0.01);
  CHECK(relDiff(F.threadInstructionsTotal(), E.threadInstructionsTotal()) <= 0.01);
  CHECK(relDiff(F.globalLoadSectors, E.globalLoadSectors) <= 0.01);
  CHECK(relDiff(F.globalStoreSectors, E.globalStoreSectors) <= 0.01);
  CHECK(F.tensorMacsInt8 == E.tensorMacsInt8);
  CHECK(F.tensorMacs == E.tensorMacs);
}

Workload lowerInt8(const Network &N, const std::string &Arch, MathMode Math = MathMode::Auto,
                   KernelSet Set = KernelSet::Library) {
  LowerOptions O;
  O.dtype = DType::I8;
  O.arch = Arch;
  O.math = Math;
  O.kernels = Set;
  O.checkKernelNames = true;
  auto W = lower(N, O);
  REQUIRE_MESSAGE(W, support::errorText(W));
  return std::move(*W);
}

} // namespace

TEST_CASE("int8 lowering: int8 convolutions and dense layers, f16 elsewhere, reformats between") {
  const Network N = residualNet();
  const Workload W = lowerInt8(N, "sm_80");
  CHECK(W.dtype == DType::I8);
  CHECK(strategies(W) ==
        std::vector<std::string>{"copy_quantize/int8",               // the f16 input
                                 "conv_direct/int8",                 // the 3-channel stem, dp4a
                                 "conv_implicit_gemm_mma/int8/int8", // f16 out: the pool reads it
                                 "pool_max/f16",
                                 "copy_quantize/int8",      // the pool's output for the 1x1
                                 "conv_gemm_mma/int8/int8", // + bn + residual (int8) + relu
                                 "global_avg_pool/f16",
                                 "copy_quantize/int8", // the pooled features
                                 "dense_gemv/int8"});
  const std::string Man = manifestJson(W), Wl = workloadJson(W);
  CHECK(Man.find("\"random\": \"s8\"") != std::string::npos); // int8 weights
  CHECK(Man.find("\"layout\": \"ohwi\"") != std::string::npos);
  CHECK(Wl.find("\"dtype\": \"int8\"") != std::string::npos);
  CHECK(Wl.find("\"math\": \"int8\"") != std::string::npos);
  checkFastMatchesExact(W);
  // sm_70 has no int8 tensor cores: every int8 layer on dp4a; sm_75 its own mma.
  for (const WorkloadLaunch &L : lowerInt8(N, "sm_70").launches)
    CHECK(L.math != MathMode::Int8);
  const Workload W75 = lowerInt8(N, "sm_75", MathMode::Int8, KernelSet::Specialised);
  CHECK(W75.ptx.front().find("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32") !=
        std::string::npos);
  checkFastMatchesExact(W75);
  checkFastMatchesExact(lowerInt8(N, "sm_70", MathMode::Simt));
}

TEST_CASE("int8 lowering: refusals name the math modes") {
  const Network N = residualNet();
  LowerOptions O;
  O.dtype = DType::I8;
  O.math = MathMode::F16;
  CHECK(support::errorText(lower(N, O)).find("does not take int8 data") != std::string::npos);
  O.math = MathMode::Int8;
  O.arch = "sm_70";
  CHECK(support::errorText(lower(N, O)).find("int8 tensor cores need sm_75") != std::string::npos);
  O.dtype = DType::F16;
  O.arch = "sm_80";
  CHECK(support::errorText(lower(N, O)).find("--math int8 needs --dtype int8") !=
        std::string::npos);
}

TEST_CASE("int8 lowering: zoo models run in the interpreter, fast mode within 1 % of exact") {
  struct Model {
    const char *name;
    int64_t size;
  };
  // Every block kind of the zoo: residual bottlenecks, inverted residuals with depthwise
  // convolutions, squeeze-excitation, separable convolutions, channel shuffles, classifiers.
  for (Model M :
       {Model{"lenet5", 32}, Model{"resnet50", 32}, Model{"mobilenetv2-0.35", 32},
        Model{"efficientnet-b0", 32}, Model{"shufflenetv2-0.5", 32}, Model{"xception", 71}})
    for (const char *Arch : {"sm_80", "sm_75", "sm_70"}) {
      INFO(M.name << " " << Arch);
      auto N = buildZooModel(M.name, ZooOptions{1, M.size, DType::F32});
      REQUIRE_MESSAGE(N, support::errorText(N));
      checkFastMatchesExact(lowerInt8(*N, Arch));
    }
}
