// Fast mode (abstract memory, CTA sampling, parallel launches) against exact mode: synthetic
// kernels for the mechanics, nvcc kernels through a manifest, and lowered zoo models.
#include "analyzer/FastMode.h"
#include "LoweredInput.h"
#include "corpus/Builder.h"
#include "corpus/Lower.h"
#include "corpus/Zoo.h"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using analyzer::AnalysisMode;

// Synthetic (hand-written) kernel: out[i] = in[i] + 1 for i < n, guarded by an index branch.
const char *GuardPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry inc(.param .u64 pin, .param .u64 pout, .param .u32 n) {
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.f32 %f2, %f1, 0f3F800000;
  add.s64 %rd5, %rd2, %rd3;
  st.global.f32 [%rd5], %f2;
DONE:
  ret;
}
// Synthetic: like inc, and CTA `odd` stores one element more (an irregular CTA inside a class).
.visible .entry oneoff(.param .u64 pout, .param .u32 odd) {
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  ld.param.u32 %r1, [odd];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  setp.ne.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  st.global.u32 [%rd3+4], %r5;
DONE:
  ret;
}
// Synthetic: loops over a loaded count (data-dependent control flow).
.visible .entry loop(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd1, %rd1, %rd3;
  ld.global.u32 %r2, [%rd1];
  and.b32 %r2, %r2, 7;
  mov.u32 %r3, 0;
L:
  setp.ge.u32 %p1, %r3, %r2;
  @%p1 bra E;
  add.u32 %r3, %r3, 1;
  bra L;
E:
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r3;
  ret;
}
)";

analyzer::BufferSpec buffer(const std::string &Name, uint64_t Bytes, bool Random = false) {
  analyzer::BufferSpec B;
  B.name = Name;
  B.bytes = Bytes;
  if (Random) {
    B.init.kind = analyzer::BufferInit::Kind::Random;
    B.init.dtype = "u32";
    B.init.seed = 3;
    B.init.min = 0;
    B.init.max = 1000;
  }
  return B;
}

analyzer::ArgSpec bufArg(const std::string &Name) {
  analyzer::ArgSpec A;
  A.isBuffer = true;
  A.buffer = Name;
  return A;
}

analyzer::ArgSpec u32Arg(uint32_t V) {
  analyzer::ArgSpec A;
  A.type = ptx::Type::U32;
  A.bits = V;
  return A;
}

analyzer::AnalysisInput guardInput(uint32_t N, uint32_t Block) {
  analyzer::AnalysisInput In;
  In.ptx.push_back({"guard.ptx", GuardPtx});
  In.buffers = {buffer("in", N * 4ull, true), buffer("out", N * 4ull)};
  analyzer::LaunchSpec L;
  L.kernel = "inc";
  L.grid = {(N + Block - 1) / Block, 1, 1};
  L.block = {Block, 1, 1};
  L.args = {bufArg("in"), bufArg("out"), u32Arg(N)};
  In.launches = {L, L};
  return In;
}

/// Relative difference, 0 when both are 0.
double relDiff(uint64_t A, uint64_t B) {
  return A == B ? 0 : std::fabs(double(A) - double(B)) / double(std::max(A, B));
}

/// Worst relative difference over classes (warp and thread) and global sectors.
double worstDiff(const analyzer::KernelProfile &F, const analyzer::KernelProfile &E) {
  double W = 0;
  for (size_t C = 0; C < F.warpInstructions.size(); ++C) {
    W = std::max(W, relDiff(F.warpInstructions[C], E.warpInstructions[C]));
    W = std::max(W, relDiff(F.threadInstructions[C], E.threadInstructions[C]));
  }
  W = std::max(W, relDiff(F.globalLoadSectors, E.globalLoadSectors));
  return std::max(W, relDiff(F.globalStoreSectors, E.globalStoreSectors));
}

bool sameCounts(const analyzer::KernelProfile &A, const analyzer::KernelProfile &B) {
  return A.warpInstructions == B.warpInstructions && A.threadInstructions == B.threadInstructions &&
         A.globalLoadSectors == B.globalLoadSectors &&
         A.globalStoreSectors == B.globalStoreSectors && A.branches == B.branches &&
         A.loadBytes == B.loadBytes && A.storeBytes == B.storeBytes;
}

analyzer::AnalysisInput zooInput(const std::string &Model, int64_t Batch, int64_t Size) {
  auto N = corpus::buildZooModel(Model, corpus::ZooOptions{Batch, Size, corpus::DType::F32});
  REQUIRE_MESSAGE(N, support::errorText(N));
  return loweredInput(*N);
}

} // namespace

TEST_CASE("fast mode: abstract buffers keep the exact address layout and hold no data") {
  analyzer::Device Real, Abs;
  auto A1 = Real.allocate("a", 1000), B1 = Real.allocate("b", 24);
  auto A2 = Abs.allocateAbstract("a", 1000), B2 = Abs.allocateAbstract("b", 24);
  REQUIRE((A1 && B1 && A2 && B2));
  CHECK(*A1 == *A2);
  CHECK(*B1 == *B2);
  CHECK(Abs.bytesAllocated() == 0);
  CHECK(Abs.find("a")->data.empty());
  CHECK(Abs.find("a")->bytes() == 1000);
  std::vector<uint8_t> V = {1, 2, 3, 4};
  CHECK(Abs.write(*A2 + 8, V));
  CHECK(Abs.read(*A2 + 8, V));
  CHECK(V == std::vector<uint8_t>{0, 0, 0, 0});
  CHECK(!Abs.read(*A2 + 998, V)); // bounds still hold
}

TEST_CASE("fast mode: index-dependent guard is extrapolated exactly") {
  // 4000 elements, 64 threads per CTA: 63 CTAs, the last one half full (32 threads). (A class
  // of at most 8x its samples that is cheap to count whole is run whole.)
  analyzer::AnalysisInput In = guardInput(4000, 64);
  analyzer::FastSettings S;
  S.interiorSamples = 3; // 61 interior CTAs, 3 interpreted
  auto Exact = analyzer::analyze(In, AnalysisMode::Exact, S);
  auto Fast = analyzer::analyze(In, AnalysisMode::Fast, S);
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  REQUIRE_MESSAGE(Fast, support::errorText(Fast));
  const analyzer::LaunchAnalysis &F = Fast->launches[0];
  CHECK(F.ctasTotal == 63);
  CHECK(F.classes == 3);
  CHECK(F.ctasSampled == 5);
  CHECK(F.extrapolated);
  CHECK(F.errorEstimate == 0);
  CHECK(!F.dataDependent);
  CHECK(sameCounts(F.profile, Exact->launches[0].profile));
  // By hand: 4000 threads store 4 bytes each; 4000*4/32 = 500 store sectors.
  CHECK(F.profile.storeBytes[size_t(analyzer::MemSpace::Global)] == 16000);
  CHECK(F.profile.globalStoreSectors == 500);
  CHECK(Fast->total.globalStoreSectors == 1000);
}

TEST_CASE("fast mode: a small class is counted whole, so no irregular CTA escapes its samples") {
  // 16 CTAs of 32 threads, 14 interior; CTA `Odd` stores once more per thread. Samples that
  // agree cannot tell whether an unsampled CTA differs; a class this small and cheap is run
  // whole (docs/fast-mode.md, "Small classes whole"), so every choice of Odd counts exactly.
  for (uint32_t Odd = 1; Odd < 15; ++Odd) {
    CAPTURE(Odd);
    analyzer::AnalysisInput In;
    In.ptx.push_back({"guard.ptx", GuardPtx});
    In.buffers = {buffer("out", 16 * 32 * 4 + 4)};
    analyzer::LaunchSpec L;
    L.kernel = "oneoff";
    L.grid = {16, 1, 1};
    L.block = {32, 1, 1};
    L.args = {bufArg("out"), u32Arg(Odd)};
    In.launches = {L};
    auto Exact = analyzer::analyze(In, AnalysisMode::Exact);
    auto Fast = analyzer::analyze(In, AnalysisMode::Fast);
    REQUIRE_MESSAGE(Exact, support::errorText(Exact));
    REQUIRE_MESSAGE(Fast, support::errorText(Fast));
    CHECK(sameCounts(Fast->launches[0].profile, Exact->launches[0].profile));
    CHECK(Fast->launches[0].profile.storeBytes[size_t(analyzer::MemSpace::Global)] ==
          (16 * 32 + 32) * 4);
  }
}

TEST_CASE("fast mode: results do not depend on the thread count") {
  analyzer::AnalysisInput In = guardInput(5000, 128);
  for (int K = 0; K < 6; ++K)
    In.launches.push_back(In.launches[0]);
  analyzer::FastSettings One, Four;
  One.threads = 1;
  Four.threads = 4;
  auto A = analyzer::analyze(In, AnalysisMode::Fast, One);
  auto B = analyzer::analyze(In, AnalysisMode::Fast, Four);
  REQUIRE((A && B));
  REQUIRE(A->launches.size() == B->launches.size());
  for (size_t K = 0; K < A->launches.size(); ++K)
    CHECK(sameCounts(A->launches[K].profile, B->launches[K].profile));
}

TEST_CASE("fast mode: loops over loaded values are reported as data-dependent") {
  analyzer::AnalysisInput In;
  In.ptx.push_back({"loop.ptx", GuardPtx});
  In.buffers = {buffer("in", 128, true), buffer("out", 128)};
  analyzer::LaunchSpec L;
  L.kernel = "loop";
  L.block = {32, 1, 1};
  L.args = {bufArg("in"), bufArg("out")};
  In.launches = {L};
  auto Fast = analyzer::analyze(In, AnalysisMode::Fast);
  REQUIRE_MESSAGE(Fast, support::errorText(Fast));
  CHECK(Fast->launches[0].dataDependent);
  analyzer::FastSettings NoCheck;
  NoCheck.checkDataDependence = false;
  auto Unchecked = analyzer::analyze(In, AnalysisMode::Fast, NoCheck);
  REQUIRE(Unchecked);
  CHECK(!Unchecked->launches[0].dataDependent);
}

namespace {

/// nvcc's conv2d_nchw on N=1 C=3 H=W=40 K=4 R=S=3 pad 1 stride 1 (buffers in, w, b, out).
constexpr const char *Conv2dLaunch = R"({"kernel": "conv2d_nchw", "grid": [100], "block": [64],
                  "args": [{"buffer": "in"}, {"buffer": "w"}, {"buffer": "b"}, {"buffer": "out"},
                           {"s32": 1}, {"s32": 3}, {"s32": 40}, {"s32": 40}, {"s32": 4},
                           {"s32": 3}, {"s32": 3}, {"s32": 1}, {"s32": 1}, {"s32": 1},
                           {"s32": 1}, {"s32": 40}, {"s32": 40}]})";

/// The analysis input of Dir/m.json.
analyzer::AnalysisInput loadInput(const fs::path &Dir) {
  // The manifests name the test kernels by absolute path (PTXCAST_KERNEL_DIR).
  auto M = analyzer::loadManifest((Dir / "m.json").string(),
                                  analyzer::ManifestOptions{.allowOutsidePaths = true});
  REQUIRE_MESSAGE(M, support::errorText(M));
  auto In = analyzer::analysisInput(*M);
  REQUIRE_MESSAGE(In, support::errorText(In));
  return std::move(*In);
}

} // namespace

TEST_CASE("fast mode: a spin lock that other data never releases is data-dependent, not a hang") {
  // One thread takes a lock with compare-and-swap. Zeros let it in at once; the data check's
  // address-hashed values never do, so that run must stop at its budget and say so.
  analyzer::AnalysisInput In;
  In.ptx.push_back({"spin.ptx", R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry spin(.param .u64 lock, .param .u64 out) {
  .reg .pred %p;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [lock];
  ld.param.u64 %rd2, [out];
SPIN:
  atom.global.cas.b32 %r1, [%rd1], 0, 1;
  setp.ne.s32 %p, %r1, 0;
  @%p bra SPIN;
  st.global.u32 [%rd2], %r1;
  atom.global.exch.b32 %r2, [%rd1], 0;
  ret;
}
)"});
  In.buffers = {buffer("lock", 4), buffer("out", 4)};
  analyzer::LaunchSpec L;
  L.kernel = "spin";
  L.args = {bufArg("lock"), bufArg("out")};
  In.launches = {L};
  auto Fast = analyzer::analyze(In, AnalysisMode::Fast);
  REQUIRE_MESSAGE(Fast, support::errorText(Fast));
  CHECK(Fast->launches[0].dataDependent);
  CHECK(Fast->launches[0].profile.warpInstructionsTotal() < 100); // the zero run's counts
}

TEST_CASE("fast mode: nvcc kernels through a manifest") {
  fs::path Dir = fs::temp_directory_path() / "ptxcast_fastmode_nvcc";
  fs::create_directories(Dir);
  // conv2d_nchw: N=1 C=3 H=W=40 K=4 R=S=3 pad 1 stride 1 -> P=Q=40, 6400 outputs; 64-thread
  // CTAs: 100 CTAs whose padding taps vary with the position (index-dependent only).
  std::ofstream(Dir / "m.json") << R"({"ptx": [")" PTXCAST_KERNEL_DIR R"(/conv2d.sm_90.ptx",
                                        ")" PTXCAST_KERNEL_DIR R"(/divergence.sm_90.ptx"],
    "buffers": [{"name": "in", "bytes": 19200, "init": {"random": "f32", "seed": 1}},
                {"name": "w", "bytes": 432, "init": {"random": "f32", "seed": 2}},
                {"name": "b", "bytes": 16},
                {"name": "out", "bytes": 25600},
                {"name": "ints", "bytes": 4000, "init": {"random": "s32", "seed": 5,
                                                         "min": 0, "max": 100}}],
    "launches": [)" + std::string(Conv2dLaunch) +
                                       R"(,
                 {"kernel": "divergent_branches", "grid": [8], "block": [128],
                  "args": [{"buffer": "ints"}, {"buffer": "out"}, {"s32": 1000}]}]})";
  auto In = loadInput(Dir);
  analyzer::FastSettings S;
  S.interiorSamples = 8;
  S.maxInteriorSamples = 32; // 98 interior CTAs: still extrapolated
  auto Exact = analyzer::analyze(In, AnalysisMode::Exact, S);
  auto Fast = analyzer::analyze(In, AnalysisMode::Fast, S);
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  REQUIRE_MESSAGE(Fast, support::errorText(Fast));
  const analyzer::LaunchAnalysis &Conv = Fast->launches[0];
  CHECK(Conv.extrapolated);
  CHECK(!Conv.dataDependent);
  double D = worstDiff(Conv.profile, Exact->launches[0].profile);
  MESSAGE("conv2d_nchw worst class/sector difference: " << D * 100 << "%, estimate "
                                                        << Conv.errorEstimate * 100 << "%");
  CHECK(Conv.errorEstimate > 0); // the sampled interior CTAs disagree
  CHECK(D <= 0.03);
  CHECK(Fast->launches[1].dataDependent); // trip count = loaded value & 7
  fs::remove_all(Dir);
}

TEST_CASE("fast mode: zoo models within 1% of exact mode") {
  struct Case {
    const char *model;
    int64_t batch, size;
  };
  for (Case C :
       {Case{"lenet5", 2, 0}, Case{"mobilenetv2-0.35", 1, 32}, Case{"efficientnet-b0", 1, 32}}) {
    std::string Model = C.model;
    CAPTURE(Model);
    analyzer::AnalysisInput In = zooInput(C.model, C.batch, C.size);
    auto Exact = analyzer::analyze(In, AnalysisMode::Exact);
    auto Fast = analyzer::analyze(In, AnalysisMode::Fast);
    REQUIRE_MESSAGE(Exact, support::errorText(Exact));
    REQUIRE_MESSAGE(Fast, support::errorText(Fast));
    double Worst = 0;
    size_t Extrapolated = 0, DataDependent = 0;
    for (size_t K = 0; K < In.launches.size(); ++K) {
      const analyzer::LaunchAnalysis &F = Fast->launches[K];
      Extrapolated += F.extrapolated;
      DataDependent += F.dataDependent;
      double D = worstDiff(F.profile, Exact->launches[K].profile);
      Worst = std::max(Worst, D);
      if (!F.extrapolated)
        CHECK(sameCounts(F.profile, Exact->launches[K].profile));
    }
    double Total = worstDiff(Fast->total, Exact->total);
    MESSAGE(Model << ": " << In.launches.size() << " launches, " << Extrapolated
                  << " extrapolated, " << DataDependent << " data-dependent; worst per-launch "
                  << "difference " << Worst * 100 << "%, network total " << Total * 100 << "%");
    CHECK(Total <= 0.01);
  }
}

TEST_CASE("fast mode: loop-trip extrapolation changes no count of a network") {
  analyzer::AnalysisInput In = zooInput("resnet50", 1, 64);
  analyzer::FastSettings Skip, NoSkip;
  NoSkip.skipLoops = false;
  auto A = analyzer::analyze(In, AnalysisMode::Fast, Skip);
  auto B = analyzer::analyze(In, AnalysisMode::Fast, NoSkip);
  REQUIRE_MESSAGE(A, support::errorText(A));
  REQUIRE_MESSAGE(B, support::errorText(B));
  uint64_t Skipped = 0, Interp = 0, InterpNoSkip = 0;
  for (size_t K = 0; K < In.launches.size(); ++K) {
    CAPTURE(K);
    CHECK(sameCounts(A->launches[K].profile, B->launches[K].profile));
    CHECK(A->launches[K].errorEstimate == B->launches[K].errorEstimate);
    CHECK(A->launches[K].dataDependent == B->launches[K].dataDependent);
    Skipped += A->launches[K].loopIterationsSkipped;
    Interp += A->launches[K].interpreted;
    InterpNoSkip += B->launches[K].interpreted;
  }
  CHECK(Skipped > 0);
  MESSAGE("resnet50 32x32: " << Skipped << " loop iterations skipped, " << Interp << " of "
                             << InterpNoSkip << " warp instructions interpreted");
}

TEST_CASE("fast mode: class transfer along the batch keeps lowered kernels within 1% of exact") {
  // Depthwise 3x3 (grid 40 x 6 x 4: pixel tiles x channels x batch), a 1x1 convolution (GEMM
  // tiles x batch) and a global average pool (channels x batch). Interior classes are sampled;
  // the first and last batch entries differ from them only along the batch dimension. Tiles of
  // 256 pixels over rows of 100 hold different numbers of border pixels, so the depthwise
  // samples disagree and escalate; the transferred classes need three CTAs instead.
  corpus::NetworkBuilder B("transfer");
  corpus::LayerId X = B.input({4, 6, 100, 100});
  X = B.conv(X, 6, 3, 1, 1, 6);
  X = B.conv(X, 8, 1, 1, 0);
  X = B.globalAvgPool(X);
  auto Net = B.finish();
  REQUIRE_MESSAGE(Net, support::errorText(Net));
  analyzer::AnalysisInput In = loweredInput(*Net);
  analyzer::FastSettings On, Off;
  Off.transferClasses = false;
  auto Exact = analyzer::analyze(In, AnalysisMode::Exact);
  auto A = analyzer::analyze(In, AnalysisMode::Fast, On);
  auto O = analyzer::analyze(In, AnalysisMode::Fast, Off);
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  REQUIRE_MESSAGE(A, support::errorText(A));
  REQUIRE_MESSAGE(O, support::errorText(O));
  uint64_t CtasOn = 0, CtasOff = 0;
  for (size_t K = 0; K < In.launches.size(); ++K) {
    const analyzer::LaunchAnalysis &F = A->launches[K];
    std::string Kernel = In.launches[K].kernel;
    CAPTURE(Kernel);
    CHECK(F.classes == O->launches[K].classes);
    CHECK(F.ctasSampled <= O->launches[K].ctasSampled);
    CHECK(worstDiff(F.profile, Exact->launches[K].profile) <= 0.01);
    if (!F.extrapolated)
      CHECK(sameCounts(F.profile, Exact->launches[K].profile));
    CtasOn += F.ctasSampled;
    CtasOff += O->launches[K].ctasSampled;
    MESSAGE(Kernel << ": " << F.ctasSampled << " CTAs with transfer, " << O->launches[K].ctasSampled
                   << " without; difference to exact "
                   << worstDiff(F.profile, Exact->launches[K].profile) * 100 << "% (without "
                   << worstDiff(O->launches[K].profile, Exact->launches[K].profile) * 100
                   << "%), error estimate " << F.errorEstimate * 100 << "%");
  }
  CHECK(CtasOn < CtasOff); // some class was transferred
  CHECK(worstDiff(A->total, Exact->total) <= 0.01);
}

namespace {

/// Fast and exact analysis of a one-layer network's single launch; checks that fast mode
/// extrapolated and that its store sectors and every other count are within 1 % of exact.
void checkOneLaunchWithinOnePercent(const support::Expected<corpus::Network> &Net,
                                    uint64_t *ExactStoreSectors = nullptr) {
  REQUIRE_MESSAGE(Net, support::errorText(Net));
  analyzer::AnalysisInput In = loweredInput(*Net);
  auto Exact = analyzer::analyze(In, AnalysisMode::Exact);
  auto Fast = analyzer::analyze(In, AnalysisMode::Fast);
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  REQUIRE_MESSAGE(Fast, support::errorText(Fast));
  const analyzer::LaunchAnalysis &L = Fast->launches[0];
  const analyzer::KernelProfile &F = L.profile, &E = Exact->launches[0].profile;
  REQUIRE(L.extrapolated);
  if (ExactStoreSectors)
    *ExactStoreSectors = E.globalStoreSectors;
  double D = std::fabs(double(F.globalStoreSectors) - double(E.globalStoreSectors)) /
             double(E.globalStoreSectors);
  MESSAGE("store sectors: fast " << F.globalStoreSectors << ", exact " << E.globalStoreSectors
                                 << ", error estimate " << L.errorEstimate);
  CHECK(D <= 0.01);
  CHECK(worstDiff(F, E) <= 0.01);
}

} // namespace

TEST_CASE("fast mode: samples do not alias with a periodic pattern of the grid") {
  // AlexNet's last max pool: one CTA per channel stores 6 x 6 floats (144 bytes), so the stores
  // of every other channel start on a 32-byte sector boundary and touch 5 sectors, the others 6
  // (exact mean 5.5). Evenly spaced samples of the 254 interior channels all had one parity and
  // counted 8.7 % too many store sectors; jittered strata must stay within 1 %.
  corpus::NetworkBuilder B("alias");
  corpus::LayerId X = B.input({1, 256, 13, 13});
  X = B.maxPool(X, 3, 2);
  uint64_t ExactStores = 0;
  checkOneLaunchWithinOnePercent(B.finish(), &ExactStores);
  CHECK(ExactStores == 256 * 11 / 2); // 128 channels x 5 + 128 x 6
}

TEST_CASE("fast mode: agreeing samples of one parity are checked against a neighbour") {
  // MobileNetV2's depthwise 3x3 over 576 channels of 14 x 14: a plane is 784 bytes, so even
  // channels start on a sector boundary and odd ones 16 bytes into one; per-CTA store sectors
  // alternate with the channel's parity. The jittered samples of the interior class all drew
  // one parity, agreed, and the launch was 10.7 % off in store sectors with an error estimate
  // of 0; the neighbour of a sample has the other parity, so the class is sampled denser.
  corpus::NetworkBuilder B("parity");
  corpus::LayerId X = B.input({1, 576, 14, 14});
  X = B.conv(X, 576, 3, 1, 1, 576);
  checkOneLaunchWithinOnePercent(B.finish());
}

namespace {

/// A one-launch network's exact counts and its fast analysis with residue strata (Fast[0]) and
/// without (Fast[1]).
struct StrataRuns {
  analyzer::KernelProfile exact;
  analyzer::LaunchAnalysis fast[2];
};

StrataRuns runWithAndWithoutStrata(const support::Expected<corpus::Network> &Net,
                                   corpus::DType Type = corpus::DType::F32) {
  REQUIRE_MESSAGE(Net, support::errorText(Net));
  analyzer::AnalysisInput In = loweredInput(*Net, Type);
  auto Exact = analyzer::analyze(In, AnalysisMode::Exact);
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  StrataRuns Out;
  Out.exact = Exact->launches[0].profile;
  for (int I = 0; I < 2; ++I) {
    analyzer::FastSettings S;
    S.residueStrata = I == 0;
    auto Fast = analyzer::analyze(In, AnalysisMode::Fast, S);
    REQUIRE_MESSAGE(Fast, support::errorText(Fast));
    Out.fast[I] = Fast->launches[0];
    const analyzer::LaunchAnalysis &L = Out.fast[I];
    MESSAGE(L.profile.kernel << ", residue strata " << (I == 0) << ": " << L.ctasSampled << " of "
                             << L.ctasTotal << " CTAs, load sectors " << L.profile.globalLoadSectors
                             << " (exact " << Out.exact.globalLoadSectors << "), "
                             << worstDiff(L.profile, Out.exact) * 100 << "% from exact, estimate "
                             << L.errorEstimate * 100 << "%");
    CHECK(L.extrapolated);
  }
  return Out;
}

} // namespace

TEST_CASE("fast mode: counts that vary with a coordinate mod 8 are weighted per residue") {
  // ResNet-50's global average pool, on 256 channels: a 7 x 7 plane is 196 bytes, so channel c
  // starts 4c mod 32 bytes into a sector and one channel in eight loads one sector fewer. The
  // samples and their neighbour all agreed and the launch was 1.6 % off in load sectors with an
  // error estimate of 0. Eight consecutive channels show the pattern, 16 give its period, the
  // next round's samples and a run a multiple of 8 channels on confirm it, and the class is
  // weighted per residue: exact, with a small error estimate for exceptions the checks missed.
  corpus::NetworkBuilder B("residue");
  corpus::LayerId X = B.input({1, 256, 7, 7});
  X = B.globalAvgPool(X);
  StrataRuns R = runWithAndWithoutStrata(B.finish());
  const analyzer::LaunchAnalysis &On = R.fast[0], &Off = R.fast[1];
  CHECK(worstDiff(On.profile, R.exact) == 0);
  CHECK(On.profile.globalLoadSectors == R.exact.globalLoadSectors);
  CHECK(On.ctasSampled < On.ctasTotal / 3);
  CHECK(On.errorEstimate > 0); // 3 / (CTAs checked) x the spread of a residue
  CHECK(On.errorEstimate < 0.01);
  // What the residue strata fix: agreeing samples of one residue, estimate 0.
  CHECK(worstDiff(Off.profile, R.exact) > 0.01);
  CHECK(Off.errorEstimate == 0);
}

TEST_CASE("fast mode: fp16 kernels get residue strata of period 16") {
  // The same pool in fp16: a plane is 98 bytes, channel c starts 2c mod 32 bytes into a sector,
  // and one channel in 16 loads a sector fewer; blocks of 8 all agreed (1.26 % off in
  // ResNet-50, estimate 0). A kernel with 2-byte global accesses gets blocks of 16: exact.
  corpus::NetworkBuilder B("residue16");
  corpus::LayerId X = B.input({1, 256, 7, 7});
  X = B.globalAvgPool(X);
  StrataRuns R = runWithAndWithoutStrata(B.finish(), corpus::DType::F16);
  const analyzer::LaunchAnalysis &On = R.fast[0], &Off = R.fast[1];
  CHECK(On.profile.kernel.find("_f16") != std::string::npos);
  CHECK(worstDiff(On.profile, R.exact) == 0);
  CHECK(worstDiff(Off.profile, R.exact) > 0.01);
}

TEST_CASE("fast mode: residue strata find a tile period that is not a power of two") {
  // An implicit-GEMM 3x3 convolution over 56 x 56: tiles of 16 output pixels wrap the 56-pixel
  // rows with a period of 7 tiles, so per-CTA counts vary and the class used to be sampled 64
  // times. Sixteen consecutive tiles give the period 7, the tiles of the first and last image
  // rows are run as they are, and the rest is weighted per residue: exact.
  corpus::NetworkBuilder B("period7");
  corpus::LayerId X = B.input({1, 16, 56, 56});
  X = B.conv(X, 16, 3, 1, 1);
  StrataRuns R = runWithAndWithoutStrata(B.finish());
  const analyzer::LaunchAnalysis &On = R.fast[0], &Off = R.fast[1];
  CHECK(worstDiff(On.profile, R.exact) == 0);
  CHECK(On.errorEstimate < 0.005);
  CHECK(On.ctasSampled < Off.ctasSampled);
  CHECK(worstDiff(Off.profile, R.exact) <= Off.errorEstimate);
}

TEST_CASE("fast mode: a class whose blocks vary without a period keeps the spread") {
  // EfficientNet-B5's stem: a stride-2 3x3 convolution with 16-pixel tiles over 228-pixel
  // output rows (a period of 57 tiles, beyond the 16 the blocks can find). The blocks show the
  // variation; the denser round's 12 samples then agreed and ended the escalation with an
  // error estimate of 0 while the launch was 0.29 % off. Known variation must keep escalating
  // and stay in the estimate.
  corpus::NetworkBuilder B("noperiod");
  corpus::LayerId X = B.input({1, 3, 456, 456});
  X = B.convSame(X, 32, 3, 2);
  StrataRuns R = runWithAndWithoutStrata(B.finish());
  const analyzer::LaunchAnalysis &On = R.fast[0];
  CHECK(worstDiff(On.profile, R.exact) <= On.errorEstimate);
  CHECK(On.errorEstimate > 0);
  CHECK(worstDiff(On.profile, R.exact) <= 0.01);
}

TEST_CASE("fast mode: escalating a class interprets each CTA at most once") {
  // nvcc's conv2d_nchw (see the manifest test above): the 98 interior CTAs disagree, so their
  // samples escalate 8 -> 32 -> 128, which enumerates the class. Earlier rounds' CTAs are
  // reused: no more work than exact mode (loop skip and the data check off, which would add or
  // remove work of their own), and the same counts.
  fs::path Dir = fs::temp_directory_path() / "ptxcast_fastmode_escalate";
  fs::create_directories(Dir);
  std::ofstream(Dir / "m.json") << R"({"ptx": [")" PTXCAST_KERNEL_DIR R"(/conv2d.sm_90.ptx"],
    "buffers": [{"name": "in", "bytes": 19200}, {"name": "w", "bytes": 432},
                {"name": "b", "bytes": 16}, {"name": "out", "bytes": 25600}],
    "launches": [)" + std::string(Conv2dLaunch) +
                                       R"(]})";
  auto In = loadInput(Dir);
  analyzer::FastSettings S;
  S.interiorSamples = 8;
  S.maxInteriorSamples = 1024;
  S.skipLoops = false;
  S.checkDataDependence = false;
  auto Exact = analyzer::analyze(In, AnalysisMode::Exact, S);
  auto Fast = analyzer::analyze(In, AnalysisMode::Fast, S);
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  REQUIRE_MESSAGE(Fast, support::errorText(Fast));
  const analyzer::LaunchAnalysis &F = Fast->launches[0];
  MESSAGE(F.ctasSampled << " CTAs, " << F.classes << " classes, extrapolated " << F.extrapolated
                        << ", interpreted " << F.interpreted << " of "
                        << Exact->launches[0].profile.warpInstructionsTotal());
  CHECK(!F.extrapolated);
  CHECK(F.ctasSampled == 100);
  CHECK(sameCounts(F.profile, Exact->launches[0].profile));
  CHECK(F.interpreted == Exact->launches[0].profile.warpInstructionsTotal());
  fs::remove_all(Dir);
}
