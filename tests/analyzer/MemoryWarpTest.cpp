// Memory spaces, barriers, bank conflicts, atomics, warp instructions and calls on small
// hand-written kernels (expected values derived by hand).
#include "InterpTestUtil.h"

using namespace interp_test;
using analyzer::Device;
using analyzer::KernelArg;
using analyzer::LaunchConfig;
using analyzer::RunResult;
using IC = ptx::InstrClass;

namespace {

RunResult runOne(const std::string &Body, const std::string &Kernel, LaunchConfig L, Device &D) {
  analyzer::Program P = decode(module(Body));
  RunResult R = analyzer::runKernel(P, Kernel, L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  return R;
}

LaunchConfig block(uint32_t N, std::vector<KernelArg> Args, uint32_t Grid = 1) {
  LaunchConfig L;
  L.grid = {Grid, 1, 1};
  L.block = {N, 1, 1};
  L.args = std::move(Args);
  return L;
}

} // namespace

TEST_CASE("shared memory and bar.sync: a CTA reverses its 128 elements") {
  const char *Body = R"(
.visible .entry rev(.param .u64 buf)
{
  .reg .b32 %r<11>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 sm[512];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [buf];
  mov.u32 %r9, %ctaid.x;
  shl.b32 %r9, %r9, 7;
  add.u32 %r10, %r9, %r1;
  mul.wide.u32 %rd2, %r10, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, sm;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r2;
  bar.sync 0;
  mov.u32 %r8, 127;
  sub.u32 %r6, %r8, %r1;
  shl.b32 %r6, %r6, 2;
  add.u32 %r6, %r4, %r6;
  ld.shared.u32 %r7, [%r6];
  st.global.u32 [%rd3], %r7;
  ret;
}
)";
  Device D;
  std::vector<uint32_t> In(256);
  for (uint32_t I = 0; I < 256; ++I)
    In[I] = I * 3;
  uint64_t Buf = makeBuffer(D, "buf", In);
  RunResult R = runOne(Body, "rev", block(128, {KernelArg::pointer(Buf)}, 2), D);
  std::vector<uint32_t> Out = readBuffer<uint32_t>(D, "buf");
  for (uint32_t I = 0; I < 256; ++I)
    CHECK(Out[I] == In[(I / 128) * 128 + 127 - I % 128]);
  CHECK(R.profile.barrierSyncs == 2);
  CHECK(cls(R.profile.warpInstructions, IC::Barrier) == 8);
  CHECK(R.profile.sharedStoreRequests == 8);
  CHECK(R.profile.sharedLoadRequests == 8);
  CHECK(R.profile.sharedBankConflicts == 0);
  CHECK(R.profile.storeBytes[size_t(analyzer::MemSpace::Shared)] == 1024);
}

TEST_CASE("shared addresses are 32-bit: [reg+imm] wraps as nvcc's sm_100 code expects") {
  // nvcc -arch=sm_100a writes `out[i] = s[127 - i]` as [s - 4i + 508]: the 32-bit register is
  // below zero (it wraps) before the offset brings it back into the window. Local memory too.
  const char *Body = R"(
.visible .entry rev32(.param .u64 buf)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 sm[512];
  .local .align 4 .b8 loc[8];
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [buf];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, sm;
  add.u32 %r5, %r4, %r3;
  st.shared.u32 [%r5], %r2;
  bar.sync 0;
  sub.s32 %r6, %r4, %r3;
  ld.shared.u32 %r7, [%r6+508];
  mov.u32 %r4, loc;
  sub.s32 %r6, %r4, 16;
  st.local.u32 [%r6+20], %r7;
  ld.local.u32 %r7, [%r4+4];
  st.global.u32 [%rd3], %r7;
  ret;
}
)";
  Device D;
  std::vector<uint32_t> In(128);
  for (uint32_t I = 0; I < 128; ++I)
    In[I] = I * 5 + 1;
  uint64_t Buf = makeBuffer(D, "buf", In);
  RunResult R = runOne(Body, "rev32", block(128, {KernelArg::pointer(Buf)}), D);
  std::vector<uint32_t> Out = readBuffer<uint32_t>(D, "buf");
  for (uint32_t I = 0; I < 128; ++I)
    CHECK(Out[I] == In[127 - I]);
  CHECK(R.profile.sharedBankConflicts == 0);
}

TEST_CASE("bank conflicts: stride 2 costs one extra wavefront, stride 32 costs 31, broadcast 0") {
  const char *Body = R"(
.visible .entry banks(.param .u32 stride)
{
  .reg .b32 %r<6>;
  .shared .align 4 .b8 sm[4096];
  ld.param.u32 %r1, [stride];
  mov.u32 %r2, %tid.x;
  mul.lo.u32 %r3, %r2, %r1;
  shl.b32 %r3, %r3, 2;
  mov.u32 %r4, sm;
  add.u32 %r4, %r4, %r3;
  st.shared.u32 [%r4], %r2;
  ret;
}
)";
  // Stride 3 spreads over every bank; 4 and 8 put 4 and 8 words in each used bank (spans of
  // 125 and 249 words); 16 and 32 span more than 256 words. Within 65-256 words, odd strides 5
  // and 7 still reach every bank once, stride 6 two words in each of 16 banks.
  for (auto [Stride, Conflicts] : {std::pair{1u, 0u},
                                   {2u, 1u},
                                   {3u, 0u},
                                   {5u, 0u},
                                   {6u, 1u},
                                   {7u, 0u},
                                   {4u, 3u},
                                   {8u, 7u},
                                   {16u, 15u},
                                   {32u, 31u},
                                   {0u, 0u}}) {
    Device D;
    RunResult R = runOne(Body, "banks", block(32, {KernelArg::u32(Stride)}), D);
    CHECK(R.profile.sharedBankConflicts == Conflicts);
  }
}

TEST_CASE("vector accesses: 16 bytes per lane in shared banks and global sectors") {
  const char *Body = R"(
.visible .entry vec(.param .u64 buf, .param .u32 stride)
{
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 sm[16384];
  ld.param.u64 %rd1, [buf];
  ld.param.u32 %r1, [stride];
  mov.u32 %r2, %tid.x;
  mul.lo.u32 %r3, %r2, %r1;
  shl.b32 %r3, %r3, 4;
  mov.u32 %r4, sm;
  add.u32 %r4, %r4, %r3;
  st.shared.v4.u32 [%r4], {%r2, %r2, %r2, %r2};
  cvt.u64.u32 %rd2, %r3;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.v4.u32 {%r5, %r6, %r7, %r8}, [%rd3];
  ret;
}
)";
  // Stride in 16-byte units. Shared: 4 words per lane; stride 1 fills every bank 4 times (the
  // ideal 4 wavefronts), stride 2 uses 16 banks 8 times (4 extra), stride 0 is a broadcast.
  // Global: 16 sectors when contiguous, one per lane at stride 2, one in all at stride 0.
  for (auto [Stride, Conflicts, Sectors] : {std::tuple{1u, 0u, 16u}, {2u, 4u, 32u}, {0u, 0u, 1u}}) {
    Device D;
    uint64_t Buf = makeBuffer(D, "buf", std::vector<uint32_t>(1024, 0));
    RunResult R =
        runOne(Body, "vec", block(32, {KernelArg::pointer(Buf), KernelArg::u32(Stride)}), D);
    CHECK(R.profile.sharedBankConflicts == Conflicts);
    CHECK(R.profile.globalLoadSectors == Sectors);
    CHECK(R.profile.globalLoadRequests == 1);
  }
}

TEST_CASE("coalescing: strided global loads touch one sector per lane") {
  const char *Body = R"(
.visible .entry strided(.param .u64 buf, .param .u32 stride)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [buf];
  ld.param.u32 %r1, [stride];
  mov.u32 %r2, %tid.x;
  mul.lo.u32 %r3, %r2, %r1;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r4, [%rd3];
  ret;
}
)";
  for (auto [Stride, Sectors] : {std::pair{1u, 4u}, {2u, 8u}, {8u, 32u}, {0u, 1u}}) {
    Device D;
    uint64_t Buf = makeBuffer(D, "buf", std::vector<uint32_t>(1024, 0));
    RunResult R =
        runOne(Body, "strided", block(32, {KernelArg::pointer(Buf), KernelArg::u32(Stride)}), D);
    CHECK(R.profile.globalLoadSectors == Sectors);
    CHECK(R.profile.globalLoadRequests == 1);
  }
}

TEST_CASE("atomics: a histogram with global atom.add and a CAS counter") {
  const char *Body = R"(
.visible .entry hist(.param .u64 bins, .param .u64 ctr)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [bins];
  ld.param.u64 %rd4, [ctr];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  atom.global.add.u32 %r3, [%rd3], 1;
  red.global.add.u32 [%rd4+4], %r1;
  atom.global.max.s32 %r5, [%rd4+8], %r1;
  atom.global.exch.b32 %r6, [%rd4+12], %r1;
  atom.global.cas.b32 %r7, [%rd4], %r1, 99;
  ret;
}
)";
  Device D;
  uint64_t Bins = makeBuffer(D, "bins", std::vector<uint32_t>(4, 0));
  uint64_t Ctr = makeBuffer(D, "ctr", std::vector<uint32_t>(4, 0));
  RunResult R =
      runOne(Body, "hist", block(64, {KernelArg::pointer(Bins), KernelArg::pointer(Ctr)}), D);
  CHECK(readBuffer<uint32_t>(D, "bins") == std::vector<uint32_t>{16, 16, 16, 16});
  std::vector<uint32_t> C = readBuffer<uint32_t>(D, "ctr");
  CHECK(C[0] == 99); // only thread 0 sees 0 == tid; later lanes compare 99 with their tid
  CHECK(C[1] == 63 * 64 / 2);
  CHECK(C[2] == 63);
  CHECK(C[3] == 63); // lanes run in order, the last exchange wins
  CHECK(cls(R.profile.warpInstructions, IC::Atomic) == 10);
  CHECK(R.profile.globalAtomicRequests == 10);
}

TEST_CASE("shfl.sync and vote.sync: butterfly sum, up with clamp, ballot") {
  const char *Body = R"(
.visible .entry warp(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shfl.sync.bfly.b32 %r2, %r1, 16, 31, -1;
  add.u32 %r2, %r2, %r1;
  shfl.sync.bfly.b32 %r3, %r2, 8, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 4, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 2, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.bfly.b32 %r3, %r2, 1, 31, -1;
  add.u32 %r2, %r2, %r3;
  shfl.sync.up.b32 %r4|%p1, %r1, 3, 0, -1;
  selp.u32 %r5, 1, 0, %p1;
  and.b32 %r6, %r1, 1;
  setp.eq.u32 %p2, %r6, 1;
  vote.sync.ballot.b32 %r7, %p2, -1;
  vote.sync.any.pred %p3, %p2, -1;
  selp.u32 %r8, 1, 0, %p3;
  shfl.sync.idx.b32 %r9, %r1, 5, 31, -1;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r2, %r4};
  st.global.v4.u32 [%rd3+16], {%r5, %r7, %r8, %r9};
  ret;
}
)";
  Device D;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(32 * 8, 0));
  runOne(Body, "warp", block(32, {KernelArg::pointer(Out)}), D);
  std::vector<uint32_t> V = readBuffer<uint32_t>(D, "out");
  for (uint32_t L = 0; L < 32; ++L) {
    CAPTURE(L);
    CHECK(V[L * 8 + 0] == 496);                  // sum of 0..31
    CHECK(V[L * 8 + 1] == (L >= 3 ? L - 3 : L)); // up: lanes below 3 keep their own value
    CHECK(V[L * 8 + 4] == (L >= 3 ? 1u : 0u));   // ... and report it in the predicate
    CHECK(V[L * 8 + 5] == 0xaaaaaaaau);          // odd lanes
    CHECK(V[L * 8 + 6] == 1u);
    CHECK(V[L * 8 + 7] == 5u);
  }
}

TEST_CASE("calls: recursive .func with .param arguments under divergence") {
  const char *Body = R"(
.func (.param .b32 ret) fact(.param .b32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  ld.param.b32 %r1, [n];
  setp.le.u32 %p1, %r1, 1;
  @%p1 bra BASE;
  sub.u32 %r2, %r1, 1;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r2;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r3, [retval0];
  }
  mul.lo.u32 %r4, %r1, %r3;
  st.param.b32 [ret], %r4;
  ret;
BASE:
  mov.u32 %r4, 1;
  st.param.b32 [ret], %r4;
  ret;
}

.visible .entry callk(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 7;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r2;
  .param .b32 retval0;
  call.uni (retval0), fact, (param0);
  ld.param.b32 %r3, [retval0];
  }
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";
  Device D;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(40, 0));
  runOne(Body, "callk", block(40, {KernelArg::pointer(Out)}), D);
  const uint32_t Fact[8] = {1, 1, 2, 6, 24, 120, 720, 5040};
  std::vector<uint32_t> V = readBuffer<uint32_t>(D, "out");
  for (uint32_t T = 0; T < 40; ++T)
    CHECK(V[T] == Fact[T % 8]);
}

TEST_CASE("local, const and module .global variables, dynamic shared memory, cvta") {
  const char *Body = R"(
.const .align 4 .u32 table[4] = {10, 20, 30, 40};
.global .align 4 .u32 counter;
.extern .shared .align 16 .b8 dyn[];

.visible .entry spaces(.param .u64 out)
{
  .local .align 4 .b8 scratch[16];
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 3;
  shl.b32 %r3, %r2, 2;
  mov.u64 %rd1, table;
  cvt.u64.u32 %rd2, %r3;
  add.s64 %rd3, %rd1, %rd2;
  ld.const.u32 %r4, [%rd3];
  mov.u64 %rd4, scratch;
  st.local.u32 [%rd4+4], %r4;
  cvta.local.u64 %rd5, %rd4;
  ld.u32 %r5, [%rd5+4];
  mov.u32 %r6, dyn;
  shl.b32 %r7, %r1, 2;
  add.u32 %r6, %r6, %r7;
  st.shared.u32 [%r6], %r5;
  mov.u64 %rd6, dyn;
  cvta.shared.u64 %rd6, %rd6;
  cvt.u64.u32 %rd7, %r7;
  add.s64 %rd6, %rd6, %rd7;
  ld.u32 %r8, [%rd6];
  mov.u32 %r9, %dynamic_smem_size;
  add.u32 %r8, %r8, %r9;
  atom.global.add.u32 %r9, [counter], 1;
  ld.param.u64 %rd8, [out];
  mul.wide.u32 %rd9, %r1, 4;
  add.s64 %rd8, %rd8, %rd9;
  st.global.u32 [%rd8], %r8;
  ret;
}
)";
  Device D;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(64, 0));
  LaunchConfig L = block(64, {KernelArg::pointer(Out)});
  L.sharedBytes = 256;
  RunResult R = runOne(Body, "spaces", L, D);
  std::vector<uint32_t> V = readBuffer<uint32_t>(D, "out");
  for (uint32_t T = 0; T < 64; ++T)
    CHECK(V[T] == 10 * (T % 4 + 1) + 256);
  CHECK(readBuffer<uint32_t>(D, "counter") == std::vector<uint32_t>{64});
  CHECK(R.profile.loadBytes[size_t(analyzer::MemSpace::Const)] == 256);
  CHECK(R.profile.loadBytes[size_t(analyzer::MemSpace::Local)] == 256);
  CHECK(cls(R.profile.warpInstructions, IC::LdGlobal) == 4); // two generic loads per warp
}

TEST_CASE("3-D grids and blocks: special registers per thread, deterministic counts") {
  const char *Body = R"(
.visible .entry ids(.param .u64 out)
{
  .reg .b32 %r<20>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %tid.z;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ctaid.y;
  mov.u32 %r6, %ctaid.z;
  mov.u32 %r7, %ntid.x;
  mov.u32 %r8, %ntid.y;
  mov.u32 %r9, %nctaid.x;
  mov.u32 %r10, %nctaid.y;
  mad.lo.u32 %r11, %r6, %r10, %r5;
  mad.lo.u32 %r11, %r11, %r9, %r4;
  mov.u32 %r12, %ntid.z;
  mul.lo.u32 %r13, %r7, %r8;
  mul.lo.u32 %r13, %r13, %r12;
  mad.lo.u32 %r14, %r3, %r8, %r2;
  mad.lo.u32 %r14, %r14, %r7, %r1;
  mad.lo.u32 %r15, %r11, %r13, %r14;
  shl.b32 %r16, %r6, 24;
  shl.b32 %r17, %r5, 16;
  or.b32 %r16, %r16, %r17;
  shl.b32 %r17, %r4, 8;
  or.b32 %r16, %r16, %r17;
  mov.u32 %r18, %laneid;
  or.b32 %r16, %r16, %r18;
  mov.u32 %r19, %warpid;
  shl.b32 %r19, %r19, 6;
  or.b32 %r16, %r16, %r19;
  mul.wide.u32 %rd1, %r15, 4;
  ld.param.u64 %rd2, [out];
  add.s64 %rd3, %rd2, %rd1;
  st.global.u32 [%rd3], %r16;
  ret;
}
)";
  Device D;
  const uint32_t Threads = 5 * 3 * 4, Ctas = 2 * 3 * 2;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(Threads * Ctas, 0xffffffffu));
  LaunchConfig L;
  L.grid = {2, 3, 2};
  L.block = {5, 3, 4};
  L.args = {KernelArg::pointer(Out)};
  RunResult R1 = runOne(Body, "ids", L, D);
  std::vector<uint32_t> V = readBuffer<uint32_t>(D, "out");
  for (uint32_t C = 0; C < Ctas; ++C)
    for (uint32_t T = 0; T < Threads; ++T) {
      uint32_t Cx = C % 2, Cy = C / 2 % 3, Cz = C / 6;
      uint32_t Want = (Cz << 24) | (Cy << 16) | (Cx << 8) | ((T / 32) << 6) | (T % 32);
      CHECK(V[C * Threads + T] == Want);
    }
  RunResult R2 = runOne(Body, "ids", L, D);
  CHECK(R1.profile.threadInstructions == R2.profile.threadInstructions);
  CHECK(R1.profile.warpInstructions == R2.profile.warpInstructions);
  CHECK(R1.profile.warpInstructionsTotal() == 12 * 2 * 33); // 2 warps per CTA, 33 instructions
  CHECK(R1.profile.threadInstructionsTotal() == 12 * Threads * 33);
}

TEST_CASE("cp.async copies global to shared at once, wait_group is a no-op") {
  const char *Body = R"(
.visible .entry cpa(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  .shared .align 16 .b8 tile[512];
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  mov.u32 %r3, tile;
  add.u32 %r3, %r3, %r2;
  cvt.u64.u32 %rd3, %r2;
  add.s64 %rd4, %rd1, %rd3;
  and.b32 %r4, %r1, 1;
  shl.b32 %r4, %r4, 3;
  add.u32 %r4, %r4, 8;
  cp.async.cg.shared.global [%r3], [%rd4], 16, %r4;
  cp.async.commit_group;
  cp.async.wait_group 0;
  bar.sync 0;
  ld.shared.v4.u32 {%r1, %r2, %r4, %r5}, [%r3];
  add.s64 %rd5, %rd2, %rd3;
  st.global.v4.u32 [%rd5], {%r1, %r2, %r4, %r5};
  ret;
}
)";
  Device D;
  std::vector<uint32_t> In(128);
  for (uint32_t I = 0; I < 128; ++I)
    In[I] = I + 1;
  uint64_t A = makeBuffer(D, "in", In), B = makeBuffer(D, "out", std::vector<uint32_t>(128, 7));
  RunResult R = runOne(Body, "cpa", block(32, {KernelArg::pointer(A), KernelArg::pointer(B)}), D);
  std::vector<uint32_t> V = readBuffer<uint32_t>(D, "out");
  for (uint32_t T = 0; T < 32; ++T) // even lanes copy 8 bytes (rest zero), odd lanes 16
    for (uint32_t K = 0; K < 4; ++K)
      CHECK(V[T * 4 + K] == (K < 2 || T % 2 ? In[T * 4 + K] : 0u));
  CHECK(R.profile.globalLoadRequests == 1);
  CHECK(R.profile.sharedStoreRequests == 1);
  CHECK(cls(R.profile.warpInstructions, IC::LdGlobal) == 1);
  CHECK(cls(R.profile.warpInstructions, IC::Barrier) == 3);
}
