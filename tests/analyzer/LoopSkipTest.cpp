// Loop-trip extrapolation (FastSettings::skipLoops): skipping iterations of CTA loops with a
// barrier must give exactly the counts of interpreting them, also when the path changes
// mid-way. Synthetic kernels (hand-written PTX, labelled as such) with a CPU reference, an nvcc
// tiled GEMM, and lowered convolutions with long K loops.
#include "LoweredInput.h"
#include "analyzer/FastMode.h"
#include "corpus/Builder.h"
#include "corpus/Lower.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using analyzer::AnalysisMode;

// Synthetic: 64 threads (2 warps) run n iterations (n > 250) of
//   acc += tile[0] * in[i*64 + tid]  (global load, shared store, bar.sync, shared broadcast load)
//   if (i >= 100) acc += 1           (a path change at iteration 100, uniform)
//   if (i + tid < 300) acc += 2      (guarded: per-lane change from iteration 237 to 299)
//   if (i == 250) acc *= 3           (one iteration only, an equality compare)
//   bar.sync; exit when ++i == n     (setp.ne exit, as LLVM and nvcc emit it)
// Integer arithmetic: with abstract (zero) loads the accumulator advances by a constant step.
const char *TilesPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry tiles(.param .u64 pin, .param .u64 pout, .param .u32 n) {
  .reg .pred %p<5>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b8 tile[256];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r3, tile;
  shl.b32 %r4, %r2, 2;
  add.u32 %r5, %r3, %r4;
  mov.u32 %r6, 0;
  mov.u32 %r10, 0;
L:
  ld.global.u32 %r8, [%rd4];
  st.shared.u32 [%r5], %r8;
  bar.sync 0;
  ld.shared.u32 %r9, [%r3];
  mad.lo.u32 %r10, %r9, %r8, %r10;
  setp.lt.u32 %p1, %r6, 100;
  @%p1 bra SKIP;
  add.u32 %r10, %r10, 1;
SKIP:
  add.u32 %r7, %r6, %r2;
  setp.lt.u32 %p4, %r7, 300;
  @%p4 add.u32 %r10, %r10, 2;
  setp.ne.u32 %p2, %r6, 250;
  @%p2 bra NEXT;
  mul.lo.u32 %r10, %r10, 3;
NEXT:
  bar.sync 0;
  add.s64 %rd4, %rd4, 256;
  add.u32 %r6, %r6, 1;
  setp.ne.u32 %p3, %r6, %r1;
  @%p3 bra L;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r10;
  ret;
}
)";

/// CPU reference for `tiles`: warp and thread instruction totals (guard-true lanes), derived
/// from the PTX above line by line.
struct TilesReference {
  uint64_t warp = 0, thread = 0;
};
TilesReference tilesReference(uint32_t N) {
  TilesReference R;
  auto Both = [&](uint64_t Lanes) { // one warp instruction with `Lanes` guard-true lanes
    ++R.warp;
    R.thread += Lanes;
  };
  for (uint32_t W = 0; W < 2; ++W) {
    for (int K = 0; K < 11; ++K) // prologue
      Both(32);
    for (uint32_t I = 0; I < N; ++I) {
      for (int K = 0; K < 6; ++K) // ld, st, bar, ld.shared, fma, setp
        Both(32);
      Both(I < 100 ? 32 : 0); // @%p1 bra SKIP
      if (I >= 100)
        Both(32);
      Both(32); // add.u32
      Both(32); // setp p4
      uint64_t Lanes = 0;
      for (uint32_t L = 0; L < 32; ++L)
        Lanes += I + W * 32 + L < 300;
      Both(Lanes); // @%p4 add.f32
      Both(32);    // setp p2
      Both(I != 250 ? 32 : 0);
      if (I == 250)
        Both(32);
      for (int K = 0; K < 4; ++K) // bar, add.s64, add.u32, setp p3
        Both(32);
      Both(I + 1 != N ? 32 : 0); // @%p3 bra L
    }
    for (int K = 0; K < 3; ++K) // add.s64, st.global, ret
      Both(32);
  }
  return R;
}

analyzer::BufferSpec buffer(const std::string &Name, uint64_t Bytes) {
  analyzer::BufferSpec B;
  B.name = Name;
  B.bytes = Bytes;
  B.init.kind = analyzer::BufferInit::Kind::Random;
  B.init.dtype = "u32";
  B.init.seed = 7;
  return B;
}

analyzer::ArgSpec bufArg(const std::string &Name) {
  analyzer::ArgSpec A;
  A.isBuffer = true;
  A.buffer = Name;
  return A;
}

bool sameCounts(const analyzer::KernelProfile &A, const analyzer::KernelProfile &B) {
  return A.warpInstructions == B.warpInstructions && A.threadInstructions == B.threadInstructions &&
         A.branches == B.branches && A.branchesTaken == B.branchesTaken &&
         A.branchesDivergent == B.branchesDivergent &&
         A.globalLoadRequests == B.globalLoadRequests &&
         A.globalLoadSectors == B.globalLoadSectors &&
         A.globalStoreSectors == B.globalStoreSectors &&
         A.sharedLoadRequests == B.sharedLoadRequests &&
         A.sharedStoreRequests == B.sharedStoreRequests &&
         A.sharedBankConflicts == B.sharedBankConflicts && A.loadBytes == B.loadBytes &&
         A.storeBytes == B.storeBytes && A.barrierSyncs == B.barrierSyncs;
}

struct Three {
  analyzer::AnalysisResult skip, noSkip, exact;
};

/// Fast mode with and without the skip, and exact mode; every launch must agree exactly.
Three runThree(const analyzer::AnalysisInput &In, analyzer::FastSettings S = {}) {
  S.skipLoops = true;
  auto Skip = analyzer::analyze(In, AnalysisMode::Fast, S);
  S.skipLoops = false;
  auto NoSkip = analyzer::analyze(In, AnalysisMode::Fast, S);
  auto Exact = analyzer::analyze(In, AnalysisMode::Exact, S);
  REQUIRE_MESSAGE(Skip, support::errorText(Skip));
  REQUIRE_MESSAGE(NoSkip, support::errorText(NoSkip));
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  REQUIRE(Skip->launches.size() == Exact->launches.size());
  for (size_t K = 0; K < Skip->launches.size(); ++K) {
    CAPTURE(K);
    CHECK(sameCounts(Skip->launches[K].profile, NoSkip->launches[K].profile));
    CHECK(Skip->launches[K].dataDependent == NoSkip->launches[K].dataDependent);
    CHECK(NoSkip->launches[K].loopIterationsSkipped == 0);
    if (!Skip->launches[K].extrapolated)
      CHECK(sameCounts(Skip->launches[K].profile, Exact->launches[K].profile));
  }
  return {std::move(*Skip), std::move(*NoSkip), std::move(*Exact)};
}

/// One 3x3 convolution (stride 1, padding 1) of input `In` to `Cout` channels, lowered.
analyzer::AnalysisInput loweredConv3x3(std::vector<int64_t> In, int64_t Cout,
                                       corpus::MathMode Math = corpus::MathMode::Simt,
                                       corpus::KernelSet Set = corpus::KernelSet::Specialised) {
  corpus::NetworkBuilder B("conv");
  B.conv(B.input(std::move(In)), Cout, 3, 1, 1);
  auto Net = B.finish();
  REQUIRE_MESSAGE(Net, support::errorText(Net));
  analyzer::AnalysisInput A = loweredInput(*Net, corpus::DType::F32, Math, Set);
  REQUIRE(A.launches.size() == 1);
  return A;
}

uint64_t skippedTotal(const analyzer::AnalysisResult &R) {
  uint64_t S = 0;
  for (const analyzer::LaunchAnalysis &L : R.launches)
    S += L.loopIterationsSkipped;
  return S;
}

} // namespace

TEST_CASE("loop skip: a loop whose path changes mid-way is counted exactly") {
  for (uint32_t N : {260u, 301u, 2000u}) {
    CAPTURE(N);
    analyzer::AnalysisInput In;
    In.ptx.push_back({"tiles.ptx", TilesPtx});
    In.buffers = {buffer("in", 256ull * N), buffer("out", 256)};
    analyzer::LaunchSpec L;
    L.kernel = "tiles";
    L.block = {64, 1, 1};
    analyzer::ArgSpec Count;
    Count.type = ptx::Type::U32;
    Count.bits = N;
    L.args = {bufArg("in"), bufArg("out"), Count};
    In.launches = {L};
    Three R = runThree(In);
    const analyzer::KernelProfile &P = R.skip.launches[0].profile;
    CHECK(sameCounts(P, R.exact.launches[0].profile));
    TilesReference Ref = tilesReference(N);
    CHECK(P.warpInstructionsTotal() == Ref.warp);
    CHECK(P.threadInstructionsTotal() == Ref.thread);
    CHECK(P.globalLoadSectors == 2ull * 4 * N); // 2 warps x 128 contiguous bytes per iteration
    CHECK(P.barrierSyncs == 2ull * N);
    if (N == 2000) // a long straight stretch after iteration 300
      CHECK(R.skip.launches[0].loopIterationsSkipped > 1500);
    MESSAGE("n = " << N << ": " << R.skip.launches[0].loopIterationsSkipped
                   << " iterations skipped, " << R.skip.launches[0].interpreted << " of "
                   << R.noSkip.launches[0].interpreted << " warp instructions interpreted");
  }
}

// Synthetic: 64 threads run n iterations of t = i * i (not affine in i), stored; bar.sync;
// ++i; then TAIL after the loop. t is written before it is read in every iteration, so at the
// barrier it is dead unless TAIL reads it.
const char *SquaresPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry squares(.param .u64 pout, .param .u32 n) {
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [pout];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r6, 0;
L:
  mul.lo.u32 %r7, %r6, %r6;
  st.global.u32 [%rd4], %r7;
  bar.sync 0;
  add.u32 %r6, %r6, 1;
  setp.ne.u32 %p1, %r6, %r1;
  @%p1 bra L;
  TAIL
  ret;
}
)";

/// The `squares` kernel with Tail after its loop, 300 iterations, in the three modes.
Three runSquares(const std::string &Tail) {
  std::string Ptx = SquaresPtx;
  Ptx.replace(Ptx.find("TAIL"), 4, Tail);
  analyzer::AnalysisInput In;
  In.ptx.push_back({"squares.ptx", Ptx});
  In.buffers = {buffer("out", 512)};
  analyzer::LaunchSpec L;
  L.kernel = "squares";
  L.block = {64, 1, 1};
  analyzer::ArgSpec Count;
  Count.type = ptx::Type::U32;
  Count.bits = 300;
  L.args = {bufArg("out"), Count};
  In.launches = {L};
  Three R = runThree(In);
  CHECK(sameCounts(R.skip.launches[0].profile, R.exact.launches[0].profile));
  return R;
}

TEST_CASE("loop skip: a register dead at every barrier release does not stop a jump") {
  // t is not affine, but no resume point reads it: only i and the counters need to advance
  // by a constant step.
  CHECK(skippedTotal(runSquares("").skip) > 250);
}

TEST_CASE("loop skip: a register read after the loop is live at the barrier release") {
  // t reaches the store after the loop only along the exit (the guarded branch's fall-through):
  // it is live where the warps resume, and not affine, so no period may be confirmed.
  CHECK(skippedTotal(runSquares("st.global.u32 [%rd4+256], %r7;").skip) == 0);
}

TEST_CASE("loop skip: nvcc tiled GEMM with a partial last tile") {
  fs::path Dir = fs::temp_directory_path() / "ptxcast_loopskip_nvcc";
  fs::create_directories(Dir);
  // matmul_tiled M = 40, N = 48, K = 1000: 63 tiles of 16, the last one 8 wide; grid 3 x 3.
  std::ofstream(Dir / "m.json") << R"({"ptx": [")" PTXCAST_KERNEL_DIR R"(/matmul.sm_90.ptx"],
    "buffers": [{"name": "a", "bytes": 160000, "init": {"random": "f32", "seed": 1}},
                {"name": "b", "bytes": 192000, "init": {"random": "f32", "seed": 2}},
                {"name": "c", "bytes": 7680}],
    "launches": [{"kernel": "matmul_tiled", "grid": [3, 3], "block": [16, 16],
                  "args": [{"buffer": "a"}, {"buffer": "b"}, {"buffer": "c"},
                           {"s32": 40}, {"s32": 48}, {"s32": 1000}]}]})";
  auto M = analyzer::loadManifest((Dir / "m.json").string(),
                                  analyzer::ManifestOptions{.allowOutsidePaths = true});
  REQUIRE_MESSAGE(M, support::errorText(M));
  auto In = analyzer::analysisInput(*M);
  REQUIRE_MESSAGE(In, support::errorText(In));
  Three R = runThree(*In);
  CHECK(!R.skip.launches[0].extrapolated); // 9 CTAs: every class run whole
  CHECK(sameCounts(R.skip.launches[0].profile, R.exact.launches[0].profile));
  CHECK(!R.skip.launches[0].dataDependent);
  CHECK(skippedTotal(R.skip) > 9 * 40);
  MESSAGE("matmul_tiled: " << skippedTotal(R.skip) << " iterations skipped, "
                           << R.skip.launches[0].interpreted << " of "
                           << R.noSkip.launches[0].interpreted << " warp instructions");
  fs::remove_all(Dir);
}

TEST_CASE("loop skip: lowered 1x1 and 3x3 convolutions with long K loops") {
  corpus::NetworkBuilder B("convs");
  corpus::LayerId X = B.input({1, 1024, 7, 7});
  X = B.conv(X, 256, 1, 1, 0); // 1x1: GEMM with K = 1024
  X = B.conv(X, 64, 3, 1, 1);  // 3x3: implicit GEMM with K = 2304
  auto Net = B.finish();
  REQUIRE_MESSAGE(Net, support::errorText(Net));
  analyzer::AnalysisInput In = loweredInput(*Net);
  Three R = runThree(In);
  for (size_t K = 0; K < In.launches.size(); ++K) {
    CAPTURE(K);
    CHECK(sameCounts(R.skip.launches[K].profile, R.exact.launches[K].profile));
  }
  // The 1x1 convolution's K loop (64 tiles) is affine per iteration; the implicit-GEMM 3x3 one
  // (144 tiles) only per 9 iterations: its im2col indices (k / 9, k % 9) repeat with period 9.
  REQUIRE(In.launches.size() == 2);
  const analyzer::LaunchAnalysis &Gemm = R.skip.launches[0], &Igemm = R.skip.launches[1];
  CHECK(Gemm.loopIterationsSkipped > 0);
  CHECK(Gemm.interpreted * 3 < R.noSkip.launches[0].interpreted);
  CHECK(Igemm.loopIterationsSkipped > 0);
  CHECK(Igemm.interpreted * 3 < R.noSkip.launches[1].interpreted * 2);
  MESSAGE("1x1 conv: " << Gemm.loopIterationsSkipped << " iterations skipped, " << Gemm.interpreted
                       << " of " << R.noSkip.launches[0].interpreted
                       << " warp instructions interpreted; 3x3 conv: "
                       << Igemm.loopIterationsSkipped << " skipped, " << Igemm.interpreted << " of "
                       << R.noSkip.launches[1].interpreted);
}

TEST_CASE("loop skip: later CTAs reuse the steps an earlier CTA confirmed") {
  // A lowered 3x3 convolution whose four CTAs (blocks of 64 output channels) run the same
  // implicit-GEMM K loop: 144 tiles, affine per 9. The first CTA finds the period through the
  // hash window and confirms it over two periods; the next ones start confirming at once and
  // take one period that moves by the first CTA's steps (docs/fast-mode.md, shortcut 6, known
  // steps).
  analyzer::AnalysisInput In = loweredConv3x3({1, 256, 8, 8}, 256);
  analyzer::FastSettings S;
  S.sampleCtas = false; // every CTA
  Three R = runThree(In, S);
  const analyzer::LaunchAnalysis &All = R.skip.launches[0];
  CHECK(sameCounts(All.profile, R.exact.launches[0].profile));
  const uint64_t Ctas = All.profile.ctasRun;
  REQUIRE(Ctas == 4);
  In.launches[0].grid = {1, 1, 1};
  auto One = analyzer::analyze(In, AnalysisMode::Fast, S);
  REQUIRE_MESSAGE(One, support::errorText(One));
  const uint64_t First = One->launches[0].interpreted, Later = (All.interpreted - First) / 3;
  MESSAGE("first CTA " << First << ", each later CTA " << Later << ", a CTA without the skip "
                       << R.noSkip.launches[0].interpreted / 4 << " warp instructions");
  // 2026-11-23: 184,232 and 132,104 (72 %); without known steps a later CTA took 158,168 (86 %).
  CHECK(Later * 100 < First * 78);
}

TEST_CASE("loop skip: a channel-blocked tensor-core convolution jumps at the window's period") {
  // The tf32 library kernel runs the 9 taps of each 16-channel block in turn: 144 K stages of a
  // 3x3 window over 256 channels, periodic every 9. Inside a period the three taps of one window
  // row advance affinely (period 3) but not across rows; taken for the loop's period, that failed
  // its probes in every CTA and the loop was interpreted whole (VGG-16's 28x28 layers).
  analyzer::AnalysisInput In =
      loweredConv3x3({1, 256, 28, 28}, 128, corpus::MathMode::Tf32, corpus::KernelSet::Library);
  REQUIRE(In.launches[0].kernel.find("_oihw16i_mma_tf32") != std::string::npos);
  analyzer::FastSettings S;
  auto Skip = analyzer::analyze(In, AnalysisMode::Fast, S);
  S.skipLoops = false;
  auto NoSkip = analyzer::analyze(In, AnalysisMode::Fast, S);
  REQUIRE_MESSAGE(Skip, support::errorText(Skip));
  REQUIRE_MESSAGE(NoSkip, support::errorText(NoSkip));
  const analyzer::LaunchAnalysis &A = Skip->launches[0], &N = NoSkip->launches[0];
  CHECK(sameCounts(A.profile, N.profile));
  MESSAGE(A.loopIterationsSkipped << " iterations skipped; " << A.interpreted << " of "
                                  << N.interpreted << " warp instructions interpreted");
  CHECK(A.loopIterationsSkipped > 0);
  CHECK(A.interpreted * 2 < N.interpreted);
}

namespace {

// Synthetic: 64 threads (2 warps) run n iterations of a barrier-free loop, one warp at a time
// (docs/fast-mode.md, warp loops):
//   acc += in[lane address]            (global load; the address advances by `stride` bytes)
//   if (i + tid < 300) acc += 2        (per-lane guard: changes from iteration 237 to 299)
//   [wrap] if ((i & 1023) == 5) acc += 5   (non-linear: fires at i = 5 and i = 1029)
//   exit when ++i == n
const char *WarpLoopPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry warploop(.param .u64 pin, .param .u64 pout, .param .u32 n, .param .u64 stride) {
  .reg .pred %p<5>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<7>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [n];
  ld.param.u64 %rd6, [stride];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r6, 0;
  mov.u32 %r10, 0;
L:
  ld.global.u32 %r8, [%rd4];
  add.u32 %r10, %r10, %r8;
  add.u32 %r7, %r6, %r2;
  setp.lt.u32 %p4, %r7, 300;
  @%p4 add.u32 %r10, %r10, 2;
  WRAP
  add.s64 %rd4, %rd4, %rd6;
  add.u32 %r6, %r6, 1;
  setp.ne.u32 %p3, %r6, %r1;
  @%p3 bra L;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r10;
  ret;
}
)";

analyzer::AnalysisInput warpLoopInput(uint32_t N, uint64_t Stride, bool Wrap) {
  std::string Ptx = WarpLoopPtx;
  Ptx.replace(Ptx.find("WRAP"), 4,
              Wrap ? "and.b32 %r9, %r6, 1023;\n  setp.eq.u32 %p1, %r9, 5;\n  @%p1 add.u32 %r10, "
                     "%r10, 5;"
                   : "");
  analyzer::AnalysisInput In;
  In.ptx.push_back({"warploop.ptx", Ptx});
  In.buffers = {buffer("in", Stride * N + 256), buffer("out", 256)};
  analyzer::LaunchSpec L;
  L.kernel = "warploop";
  L.block = {64, 1, 1};
  analyzer::ArgSpec Count, Step;
  Count.type = ptx::Type::U32;
  Count.bits = N;
  Step.type = ptx::Type::U64;
  Step.bits = Stride;
  L.args = {bufArg("in"), bufArg("out"), Count, Step};
  In.launches = {L};
  return In;
}

} // namespace

TEST_CASE("loop skip: barrier-free warp loops are counted exactly, proven or probed") {
  for (bool Wrap : {false, true})
    for (uint32_t N : {20u, 301u, 2000u}) {
      CAPTURE(Wrap);
      CAPTURE(N);
      Three R = runThree(warpLoopInput(N, 256, Wrap));
      const analyzer::LaunchAnalysis &L = R.skip.launches[0];
      CHECK(sameCounts(L.profile, R.exact.launches[0].profile));
      // One thread per lane and iteration loads 4 bytes; 2 warps x 4 sectors per iteration.
      CHECK(L.profile.globalLoadSectors == 2ull * 4 * N);
      if (N == 2000) { // long straight stretches before 237 and after 300 (and 1029)
        // Per warp; the probed jumps stop at 1029 too, and each confirms and probes anew.
        CHECK(L.loopIterationsSkipped > 2 * (Wrap ? 1000 : 1500));
        // Proven bodies need no probes; the non-linear `and` costs two per jump.
        CHECK(L.interpreted * (Wrap ? 3 : 2) < R.noSkip.launches[0].interpreted * (Wrap ? 2 : 1));
      }
      // Without the warp-level skip nothing is skipped here (no barrier).
      analyzer::FastSettings S;
      S.skipWarpLoops = false;
      auto Cta = analyzer::analyze(warpLoopInput(N, 256, Wrap), AnalysisMode::Fast, S);
      REQUIRE(Cta);
      CHECK(Cta->launches[0].loopIterationsSkipped == 0);
      MESSAGE("n = " << N << (Wrap ? " (probed)" : " (proven)") << ": " << L.loopIterationsSkipped
                     << " iterations skipped, " << L.interpreted << " of "
                     << R.noSkip.launches[0].interpreted << " warp instructions interpreted");
      CHECK(sameCounts(Cta->launches[0].profile, L.profile));
    }
}

TEST_CASE("loop skip: a warp loop whose sectors shift with the address is not skipped") {
  // 36 bytes per iteration: the lanes' 128 bytes straddle 4 or 5 sectors depending on the
  // iteration, so the per-iteration sector count is not constant and no jump is allowed.
  Three R = runThree(warpLoopInput(1000, 36, false));
  const analyzer::LaunchAnalysis &L = R.skip.launches[0];
  CHECK(sameCounts(L.profile, R.exact.launches[0].profile));
  CHECK(L.loopIterationsSkipped == 0);
  CHECK(L.profile.globalLoadSectors > 2ull * 4 * 1000);
}

// Synthetic: one warp runs the barrier-free loop `x = x * f + 4` until x >= 100000, first with
// f = 1 from x = 0 (25,000 iterations, jumped), then with f = 2 from x = 2^32 - 2, whose first
// step is 4 as well (0, 4, 12, 28, ...: 15 iterations). The second run moves by the steps the
// first jump confirmed, but its body is another affine map (factor 2): the known steps must
// not be taken for it.
const char *FactorsPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry factors(.param .u64 pout) {
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, 1;
  mov.u32 %r10, 0;
OUTER:
  setp.eq.u32 %p1, %r1, 1;
  selp.u32 %r3, 0, 4294967294, %p1;
INNER:
  mad.lo.u32 %r3, %r3, %r1, 4;
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p2, %r3, 100000;
  @%p2 bra INNER;
  add.u32 %r1, %r1, 1;
  setp.le.u32 %p3, %r1, 2;
  @%p3 bra OUTER;
  mov.u32 %r4, %tid.x;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r10;
  ret;
}
)";

TEST_CASE("loop skip: a warp loop reuses confirmed steps only with the same factors") {
  analyzer::AnalysisInput In;
  In.ptx.push_back({"factors.ptx", FactorsPtx});
  In.buffers = {buffer("out", 256)};
  analyzer::LaunchSpec L;
  L.kernel = "factors";
  L.block = {32, 1, 1};
  L.args = {bufArg("out")};
  In.launches = {L};
  Three R = runThree(In);
  const analyzer::LaunchAnalysis &A = R.skip.launches[0];
  CHECK(sameCounts(A.profile, R.exact.launches[0].profile));
  CHECK(A.loopIterationsSkipped > 24000); // the first run is jumped over
}
