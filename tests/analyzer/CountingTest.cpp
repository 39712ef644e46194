// Dynamic counts on small hand-written kernels whose counts are derived by hand in the comments.
#include "InterpTestUtil.h"

using namespace interp_test;
using analyzer::Device;
using analyzer::KernelArg;
using analyzer::LaunchConfig;
using analyzer::RunResult;
using IC = ptx::InstrClass;

namespace {

const char *Saxpy = R"(
.visible .entry saxpy(.param .u32 n, .param .f32 a, .param .u64 x, .param .u64 y)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u32 %r1, [n];
  ld.param.f32 %f1, [a];
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f4;
DONE:
  ret;
}
)";

} // namespace

TEST_CASE("saxpy: a guarded tail gives hand-derived warp and thread counts") {
  analyzer::Program P = decode(module(Saxpy));
  Device D;
  std::vector<float> X(1000), Y(1000);
  for (int I = 0; I < 1000; ++I) {
    X[I] = float(I);
    Y[I] = float(2 * I);
  }
  uint64_t XA = makeBuffer(D, "x", X), YA = makeBuffer(D, "y", Y);
  LaunchConfig L;
  L.grid = {4, 1, 1};
  L.block = {256, 1, 1};
  L.args = {KernelArg::u32(1000), KernelArg::f32(0.5f), KernelArg::pointer(XA),
            KernelArg::pointer(YA)};
  RunResult R = analyzer::runKernel(P, "saxpy", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  std::vector<float> Out = readBuffer<float>(D, "y");
  for (int I = 0; I < 1000; ++I)
    REQUIRE(Out[I] == 0.5f * float(I) + float(2 * I));
  const analyzer::KernelProfile &Pr = R.profile;
  // 32 warps; warps 0..30 run 10 + 9 + 1 instructions, warp 31 (8 live lanes of 32 threads
  // 992..1023, 24 of them >= n) diverges: 10 + 9 (8 lanes) + ret (32 lanes) = 20 as well.
  CHECK(Pr.warpInstructionsTotal() == 640);
  // Thread counts: the guarded bra counts only guard-true lanes (0 for warps 0..30, 24 for 31).
  CHECK(Pr.threadInstructionsTotal() == 31 * 608 + 416);
  CHECK(cls(Pr.warpInstructions, IC::LdParam) == 128);
  CHECK(cls(Pr.threadInstructions, IC::LdParam) == 4096);
  CHECK(cls(Pr.warpInstructions, IC::Move) == 96);
  CHECK(cls(Pr.warpInstructions, IC::IntMul) == 64);
  CHECK(cls(Pr.threadInstructions, IC::IntMul) == 1024 + 1000);
  CHECK(cls(Pr.threadInstructions, IC::IntArith) == 2000);
  CHECK(cls(Pr.warpInstructions, IC::Control) == 64);
  CHECK(cls(Pr.threadInstructions, IC::Control) == 24 + 1024);
  CHECK(cls(Pr.threadInstructions, IC::Convert) == 2000);
  CHECK(cls(Pr.warpInstructions, IC::LdGlobal) == 64);
  CHECK(cls(Pr.threadInstructions, IC::Fp32) == 1000);
  CHECK(cls(Pr.warpInstructions, IC::StGlobal) == 32);
  CHECK(Pr.branches == 32);
  CHECK(Pr.branchesTaken == 1);
  CHECK(Pr.branchesDivergent == 1);
  CHECK(Pr.globalLoadRequests == 64);
  CHECK(Pr.globalLoadSectors == 2 * (31 * 4 + 1));
  CHECK(Pr.globalStoreRequests == 32);
  CHECK(Pr.globalStoreSectors == 31 * 4 + 1);
  CHECK(Pr.loadBytes[size_t(analyzer::MemSpace::Global)] == 8000);
  CHECK(Pr.storeBytes[size_t(analyzer::MemSpace::Global)] == 4000);
  CHECK(Pr.loadBytes[size_t(analyzer::MemSpace::Param)] == 24 * 1024);
  CHECK(Pr.ctasRun == 4);
}

TEST_CASE("a counted loop runs its body exactly ten times per warp") {
  analyzer::Program P = decode(module(R"(
.visible .entry loop(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, 0;
  mov.u32 %r2, 0;
LOOP:
  add.s32 %r2, %r2, %r1;
  add.s32 %r1, %r1, 1;
  setp.lt.u32 %p1, %r1, 10;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out];
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)"));
  Device D;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(64, 0));
  LaunchConfig L;
  L.block = {64, 1, 1};
  L.args = {KernelArg::pointer(Out)};
  RunResult R = analyzer::runKernel(P, "loop", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  for (uint32_t V : readBuffer<uint32_t>(D, "out"))
    CHECK(V == 45);
  // Per warp: 2 + 10 * 4 + 6 = 48; two warps.
  CHECK(R.profile.warpInstructionsTotal() == 96);
  // Threads: 38 unguarded instructions x 64 + the back edge taken 9 times x 64.
  CHECK(R.profile.threadInstructionsTotal() == 38 * 64 + 9 * 64);
  CHECK(R.profile.branches == 20);
  CHECK(R.profile.branchesTaken == 18);
  CHECK(R.profile.branchesDivergent == 0);
  CHECK(cls(R.profile.warpInstructions, IC::IntArith) == 2 * (20 + 1));
}

TEST_CASE("a divergent if/else runs both sides and reconverges at the post-dominator") {
  analyzer::Program P = decode(module(R"(
.visible .entry split(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  mov.u32 %r3, 100;
  add.u32 %r3, %r3, %r1;
  bra.uni JOIN;
EVEN:
  mov.u32 %r3, 200;
JOIN:
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)"));
  Device D;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(32, 0));
  LaunchConfig L;
  L.block = {32, 1, 1};
  L.args = {KernelArg::pointer(Out)};
  RunResult R = analyzer::runKernel(P, "split", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  std::vector<uint32_t> V = readBuffer<uint32_t>(D, "out");
  for (uint32_t T = 0; T < 32; ++T)
    CHECK(V[T] == (T % 2 ? 100 + T : 200));
  // 4 + 3 (odd side) + 1 (even side) + 5 after the join.
  CHECK(R.profile.warpInstructionsTotal() == 13);
  // 3 x 32 + bra (16 even lanes) + 3 x 16 + 16 + 5 x 32.
  CHECK(R.profile.threadInstructionsTotal() == 96 + 16 + 48 + 16 + 160);
  CHECK(R.profile.branches == 2);
  CHECK(R.profile.branchesTaken == 2);
  CHECK(R.profile.branchesDivergent == 1);
  // Three stores instructions-worth of work happened once per warp, fully coalesced.
  CHECK(R.profile.globalStoreRequests == 1);
  CHECK(R.profile.globalStoreSectors == 4);
}

TEST_CASE("a grid-stride loop covers every element once and counts per trip") {
  analyzer::Program P = decode(module(R"(
.visible .entry gs(.param .u64 buf, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x;
  mul.lo.s32 %r7, %r6, %r3;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra END;
LOOP:
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r8, [%rd3];
  add.u32 %r8, %r8, 1;
  st.global.u32 [%rd3], %r8;
  add.u32 %r5, %r5, %r7;
  setp.lt.u32 %p1, %r5, %r1;
  @%p1 bra LOOP;
END:
  ret;
}
)"));
  Device D;
  uint64_t Buf = makeBuffer(D, "buf", std::vector<uint32_t>(1024, 7));
  LaunchConfig L;
  L.grid = {2, 1, 1};
  L.block = {128, 1, 1};
  L.args = {KernelArg::pointer(Buf), KernelArg::u32(1024)};
  RunResult R = analyzer::runKernel(P, "gs", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  for (uint32_t V : readBuffer<uint32_t>(D, "buf"))
    CHECK(V == 8);
  // 256 threads, 1024 elements: every thread makes 4 trips. 8 warps x (10 + 4 x 8 + 1).
  CHECK(R.profile.warpInstructionsTotal() == 8 * 43);
  // Thread counts: 9 unguarded + guarded bra (0) + 4 x (7 + bra) where the back edge is true
  // 3 of 4 times, + ret.
  CHECK(R.profile.threadInstructionsTotal() == 256 * (9 + 4 * 7 + 3 + 1));
  CHECK(R.profile.globalLoadRequests == 32);
  CHECK(R.profile.globalLoadSectors == 32 * 4);
}

TEST_CASE("ctaSubset runs only the chosen CTAs and counts only them") {
  analyzer::Program P = decode(module(Saxpy));
  Device D;
  uint64_t XA = makeBuffer(D, "x", std::vector<float>(1024, 1.0f));
  uint64_t YA = makeBuffer(D, "y", std::vector<float>(1024, 0.0f));
  LaunchConfig L;
  L.grid = {4, 1, 1};
  L.block = {256, 1, 1};
  L.args = {KernelArg::u32(1024), KernelArg::f32(2.0f), KernelArg::pointer(XA),
            KernelArg::pointer(YA)};
  L.ctaSubset = {3, 1};
  RunResult R = analyzer::runKernel(P, "saxpy", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  std::vector<float> Y = readBuffer<float>(D, "y");
  for (int I = 0; I < 1024; ++I)
    CHECK(Y[I] == ((I / 256) % 2 == 1 ? 2.0f : 0.0f));
  CHECK(R.profile.ctasRun == 2);
  // 16 full warps, each 10 + 9 + 1 instructions with all 32 lanes active (bra guard false).
  CHECK(R.profile.warpInstructionsTotal() == 16 * 20);
  CHECK(R.profile.threadInstructionsTotal() == 16 * 19 * 32);
}
