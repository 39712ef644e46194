// mbarrier and the bulk copies that complete on one: nvcc's output for libcu++'s cuda::barrier,
// cuda::memcpy_async and sm_90 bulk copies (tests/kernels/barrier.cu) against CPU references,
// exact and fast mode alike; hand-written PTX for the forms nvcc did not write (parity waits,
// arrive.expect_tx, arrive_drop, pending_count, complete_tx) and for the misuse that traps.
#include "InterpTestUtil.h"
#include "ReferenceRunner.h"

#include "analyzer/FastMode.h"

#include <fstream>
#include <sstream>

using namespace reftest;

namespace {

std::string readText(const std::string &Path) {
  std::ifstream F(Path);
  std::stringstream S;
  S << F.rdbuf();
  return S.str();
}

analyzer::ArgSpec bufArg(const std::string &Name) {
  analyzer::ArgSpec A;
  A.isBuffer = true;
  A.buffer = Name;
  return A;
}

/// bulk_tiles of `Arch` on 2 blocks of 256 threads and 3 tiles, inputs random.
analyzer::AnalysisInput bulkTilesInput(const std::string &Arch) {
  analyzer::AnalysisInput In;
  In.ptx.push_back({kernelPath("barrier", Arch), readText(kernelPath("barrier", Arch))});
  analyzer::BufferSpec Src{"in", 2 * 3 * 256 * 4, {}, {}}, Dst{"out", 2 * 256 * 4, {}, {}};
  Src.init.kind = analyzer::BufferInit::Kind::Random;
  Src.init.seed = 5;
  In.buffers = {Src, Dst};
  analyzer::LaunchSpec L;
  L.kernel = "bulk_tiles";
  L.grid = {2, 1, 1};
  L.block = {256, 1, 1};
  analyzer::ArgSpec Tiles;
  Tiles.type = ptx::Type::S32;
  Tiles.bits = 3;
  L.args = {bufArg("in"), bufArg("out"), Tiles};
  In.launches = {L};
  return In;
}

} // namespace

TEST_CASE("cuda::barrier with memcpy_async (nvcc, sm_75/80/90): staged data reach every thread") {
  if (!haveNvcc())
    return;
  std::vector<float> In = randomFloats(3 * 256, 11), Want(In.size());
  for (size_t B = 0; B < 3; ++B)
    for (size_t T = 0; T < 256; ++T)
      Want[B * 256 + T] = 2.0f * In[B * 256 + (T + 1) % 256];
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("barrier", Arch), "staged_rotate");
    if (!P)
      continue;
    analyzer::Device D;
    std::vector<analyzer::KernelArg> Args = {upload(D, "in", In),
                                             upload(D, "out", std::vector<float>(In.size()))};
    if (launch(*P, "staged_rotate", {3, 1, 1}, {256, 1, 1}, Args, D))
      checkEqual(download<float>(D, "out"), Want, "staged_rotate " + Arch);
  }
}

TEST_CASE("bulk copies on an mbarrier's transaction count (nvcc): two phases per tile, in order") {
  if (!haveNvcc())
    return;
  const int Tiles = 3;
  std::vector<float> In = randomFloats(2 * Tiles * 256, 12), Want(2 * 256, 0.0f);
  for (size_t B = 0; B < 2; ++B)
    for (size_t T = 0; T < 256; ++T)
      for (int K = 0; K < Tiles; ++K)
        Want[B * 256 + T] += In[(B * Tiles + K) * 256 + (T * 7) % 256];
  std::vector<float> Store = randomFloats(2 * 256, 13), WantStore(Store.size());
  for (size_t I = 0; I < Store.size(); ++I)
    WantStore[I] = 3.0f * Store[I];
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("barrier", Arch), "bulk_tiles");
    if (!P)
      continue;
    analyzer::Device D;
    std::vector<analyzer::KernelArg> Args = {upload(D, "in", In),
                                             upload(D, "out", std::vector<float>(Want.size())),
                                             analyzer::KernelArg::s32(Tiles)};
    if (launch(*P, "bulk_tiles", {2, 1, 1}, {256, 1, 1}, Args, D))
      checkEqual(download<float>(D, "out"), Want, "bulk_tiles " + Arch);
    analyzer::Device D2;
    Args = {upload(D2, "in", Store), upload(D2, "out", std::vector<float>(Store.size()))};
    if (launch(*P, "bulk_store", {2, 1, 1}, {256, 1, 1}, Args, D2))
      checkEqual(download<float>(D2, "out"), WantStore, "bulk_store " + Arch);
  }
}

TEST_CASE("mbarrier waits yield the warp: no spinning, and fast mode counts what exact mode does") {
  if (!haveNvcc())
    return;
  for (const std::string Arch : {"sm_80", "sm_90"}) {
    INFO("arch " << Arch);
    analyzer::AnalysisInput In = bulkTilesInput(Arch);
    auto Exact = analyzer::analyze(In, analyzer::AnalysisMode::Exact);
    auto Fast = analyzer::analyze(In, analyzer::AnalysisMode::Fast);
    REQUIRE_MESSAGE(Exact, support::errorText(Exact));
    REQUIRE_MESSAGE(Fast, support::errorText(Fast));
    const analyzer::KernelProfile &E = Exact->launches[0].profile, &F = Fast->launches[0].profile;
    // 16 warps x 2 blocks; each tile's two waits fail at most once per warp before the last
    // warp arrives, so a warp runs a few hundred instructions, not a 65,536-jump spin.
    CHECK(E.warpInstructionsTotal() < 32 * 400);
    CHECK(E.warpInstructions == F.warpInstructions);
    CHECK(E.threadInstructions == F.threadInstructions);
    CHECK(E.sharedAtomicRequests == F.sharedAtomicRequests);
    CHECK(E.sharedAtomicRequests > 0);
  }
}

namespace {

/// Runs `k(.param .u64 out)` on one CTA of `Threads` threads; the result (trap or not).
analyzer::RunResult runHand(const std::string &Body, uint32_t Threads, analyzer::Device &D,
                            const analyzer::RunSettings &S = {}) {
  analyzer::Program P = interp_test::decode(interp_test::module(Body));
  uint64_t Out = interp_test::makeBuffer(D, "out", std::vector<uint32_t>(128, 0xdeadbeef));
  analyzer::LaunchConfig L;
  L.block = {Threads, 1, 1};
  L.args = {analyzer::KernelArg::pointer(Out)};
  return analyzer::runKernel(P, "k", L, D, S);
}

/// A kernel of 32 threads whose body `Code` uses a shared mbarrier at %r2.
std::string handKernel(const std::string &Code) {
  return R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 8 .b64 bar;
  mov.u32 %r2, bar;
)" + Code + "\n  ret;\n}\n";
}

} // namespace

TEST_CASE("mbarrier phases by hand: expect_tx, complete_tx, arrive_drop, parity and token waits") {
  // 64 threads. Phase 0: all arrive (thread 0 expects 16 transaction bytes and completes them);
  // out[t] = the pending count its arrival left. Phase 1: warp 1 drops out (arrive_drop), so
  // phase 2 expects 32 arrivals: warp 0 arrives (thread 0 with 32 more bytes, completed after),
  // out[64 + lane] = pending after it. Then thread 0 tests parity 0 (over: phase 2 had parity 0)
  // and 1 (the current phase: not over) into out[96] and out[97].
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, bar;
  mov.u32 %r7, 0;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 mbarrier.init.shared::cta.b64 [%r2], 64;
  bar.sync 0;
  @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], 16;
  mbarrier.arrive.shared::cta.b64 %rd2, [%r2];
  @%p1 mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r2], 16;
  mbarrier.pending_count.b64 %r3, %rd2;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r3;
W0:
  mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r2], %r7;
  @!%p2 bra W0;
  setp.ge.u32 %p3, %r1, 32;
  @%p3 mbarrier.arrive_drop.shared::cta.b64 _, [%r2];
  @%p3 bra DONE;
  mbarrier.arrive.shared::cta.b64 %rd2, [%r2];
W1:
  mbarrier.test_wait.shared::cta.b64 %p2, [%r2], %rd2;
  @!%p2 bra W1;
  @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%r2], 32;
  @!%p1 mbarrier.arrive.shared::cta.b64 %rd2, [%r2];
  @%p1 mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r2], 32;
  mbarrier.pending_count.b64 %r3, %rd2;
  st.global.u32 [%rd4+256], %r3;
W2:
  mbarrier.try_wait.shared::cta.b64 %p2, [%r2], %rd2, 1000;
  @!%p2 bra W2;
  @!%p1 bra DONE;
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r2], 0;
  selp.u32 %r4, 1, 0, %p2;
  st.global.u32 [%rd1+384], %r4;
  mbarrier.test_wait.parity.shared::cta.b64 %p2, [%r2], 1;
  selp.u32 %r4, 1, 0, %p2;
  st.global.u32 [%rd1+388], %r4;
DONE:
  ret;
}
)";
  analyzer::Device D;
  analyzer::RunResult R = runHand(Body, 64, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  std::vector<uint32_t> V = interp_test::readBuffer<uint32_t>(D, "out");
  for (uint32_t T = 0; T < 64; ++T) // warp 0 arrives first, then warp 1
    CHECK(V[T] == (T < 32 ? 63 - T : 31 - (T - 32)));
  for (uint32_t L = 0; L < 32; ++L)
    CHECK(V[64 + L] == 31 - L);
  CHECK(V[96] == 1);
  CHECK(V[97] == 0);
}

TEST_CASE("mbarrier misuse traps: before init, more arrivals than pending, a wait nobody ends") {
  analyzer::Device D1, D2, D3;
  analyzer::RunResult Before =
      runHand(handKernel("  mbarrier.arrive.shared.b64 %rd1, [%r2];"), 32, D1);
  REQUIRE(Before.trap);
  CHECK(Before.trap->kind == analyzer::TrapKind::Undefined);
  CHECK(Before.trap->str().find("mbarrier used before mbarrier.init") != std::string::npos);

  analyzer::RunResult Many = runHand(handKernel(R"(
  mbarrier.init.shared.b64 [%r2], 16;
  mbarrier.arrive.shared.b64 %rd1, [%r2], 20;)"),
                                     32, D2);
  REQUIRE(Many.trap);
  CHECK(Many.trap->kind == analyzer::TrapKind::Undefined);
  CHECK(Many.trap->str().find("arrival of 20 with 16 pending") != std::string::npos);

  // 64 arrivals expected, 32 threads arrive: the wait can never end (no hang: a clear trap).
  analyzer::RunResult Stuck = runHand(handKernel(R"(
  mbarrier.init.shared.b64 [%r2], 64;
  mbarrier.arrive.shared.b64 %rd1, [%r2];
W:
  mbarrier.try_wait.shared.b64 %p1, [%r2], %rd1;
  @!%p1 bra W;)"),
                                      32, D3);
  REQUIRE(Stuck.trap);
  CHECK(Stuck.trap->kind == analyzer::TrapKind::Livelock);
}

TEST_CASE("mbarrier: a wait that backs off on %globaltimer and never ends is a livelock too") {
  // nvcc's cuda::barrier wait counts its tries and reads %globaltimer between them, so the
  // waiting warp's registers change every time: the wait, not the registers, must decide.
  const std::string Body = handKernel(R"(
  mbarrier.init.shared.b64 [%r2], 64;
  mbarrier.arrive.shared.b64 %rd1, [%r2];
  mov.u32 %r3, 0;
W:
  mbarrier.try_wait.shared.b64 %p1, [%r2], %rd1;
  @%p1 bra DONE;
  add.u32 %r3, %r3, 1;
  mov.u64 %rd2, %globaltimer;
  nanosleep.u32 100;
  bra W;
DONE:)");
  analyzer::Device D;
  analyzer::RunSettings S;
  S.maxWarpInstructions = 1000000; // a regression shows as a budget trap, not hours
  analyzer::RunResult R = runHand(Body, 32, D, S);
  REQUIRE(R.trap);
  CHECK(R.trap->kind == analyzer::TrapKind::Livelock);
  CHECK(R.trap->str().find("an mbarrier wait that no arrival") != std::string::npos);
}
