// Every trap kind, with its exact message (kernel, PTX line, CTA, thread, reason).
#include "InterpTestUtil.h"

#include <algorithm>

using namespace interp_test;
using analyzer::Device;
using analyzer::KernelArg;
using analyzer::LaunchConfig;
using analyzer::RunResult;
using analyzer::TrapKind;

namespace {

/// 1-based line of the first line of `Text` containing `Needle`.
uint32_t lineOf(const std::string &Text, const std::string &Needle) {
  size_t At = Text.find(Needle);
  REQUIRE(At != std::string::npos);
  return static_cast<uint32_t>(std::count(Text.begin(), Text.begin() + At, '\n') + 1);
}

std::string at(const std::string &Text, const std::string &Needle) {
  return "k.ptx:" + std::to_string(lineOf(Text, Needle)) + ": ";
}

struct Run {
  std::string text;
  RunResult result;
};

Run run(const std::string &Body, const std::string &Kernel, LaunchConfig L, Device &D,
        analyzer::RunSettings S = {}) {
  std::string Text = module(Body);
  analyzer::Program P = decode(Text);
  return {Text, analyzer::runKernel(P, Kernel, L, D, S)};
}

const char *Indexed = R"(
.visible .entry idx(.param .u64 x, .param .u64 off)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd4, [off];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  add.s64 %rd5, %rd3, %rd4;
  ld.global.u32 %r2, [%rd5];
  ret;
}
)";

LaunchConfig threads(uint32_t N, std::vector<KernelArg> Args) {
  LaunchConfig L;
  L.block = {N, 1, 1};
  L.args = std::move(Args);
  return L;
}

} // namespace

TEST_CASE("trap: out-of-bounds global load names buffer, thread and line") {
  Device D;
  uint64_t X = makeBuffer(D, "x", std::vector<uint32_t>(4, 1));
  CHECK(X == 0x100000000u);
  Run R = run(Indexed, "idx", threads(8, {KernelArg::pointer(X), KernelArg::u64(0)}), D);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->kind == TrapKind::OutOfBounds);
  CHECK(R.result.trap->str() ==
        at(R.text, "ld.global.u32") +
            "trap in kernel 'idx' (ctaid 0,0,0 tid 4,0,0): out-of-bounds global load of 4 bytes "
            "at 0x100000010 (buffer 'x' is 16 bytes at 0x100000000)");
}

TEST_CASE("trap: a null pointer is in no buffer") {
  Device D;
  makeBuffer(D, "x", std::vector<uint32_t>(4, 1));
  Run R = run(Indexed, "idx", threads(1, {KernelArg::pointer(0), KernelArg::u64(0)}), D);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->reason == "out-of-bounds global load of 4 bytes at 0x0 (no buffer there)");
}

TEST_CASE("trap: misaligned global load") {
  Device D;
  uint64_t X = makeBuffer(D, "x", std::vector<uint32_t>(64, 1));
  Run R = run(Indexed, "idx", threads(4, {KernelArg::pointer(X), KernelArg::u64(2)}), D);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->kind == TrapKind::Misaligned);
  CHECK(R.result.trap->str() == at(R.text, "ld.global.u32") +
                                    "trap in kernel 'idx' (ctaid 0,0,0 tid 0,0,0): misaligned "
                                    "global load of 4 bytes at 0x100000002 (needs 4-byte "
                                    "alignment)");
}

TEST_CASE("trap: shared-memory store past the CTA's shared memory") {
  Device D;
  const char *Body = R"(
.visible .entry sh()
{
  .reg .b32 %r<4>;
  .shared .align 4 .b8 buf[64];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, buf;
  add.u32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  ret;
}
)";
  Run R = run(Body, "sh", threads(32, {}), D);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->str() == at(R.text, "st.shared") +
                                    "trap in kernel 'sh' (ctaid 0,0,0 tid 16,0,0): out-of-bounds "
                                    "shared store of 4 bytes at 0x40 (shared window is 64 bytes)");
}

TEST_CASE("trap: a wrapped 32-bit shared address outside the window still traps") {
  // -8 + 72 wraps to 64, one past the window; a 64-bit base of 2^32 is no 32-bit offset of 0.
  auto Store = [](const std::string &Line) {
    return R"(
.visible .entry wrap()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .shared .align 4 .b8 buf[64];
  mov.u32 %r1, buf;
  sub.s32 %r2, %r1, 8;
  mov.u64 %rd1, 4294967296;
  )" + Line +
           R"(
  ret;
}
)";
  };
  Device D;
  Run R = run(Store("st.shared.u32 [%r2+72], %r1;"), "wrap", threads(1, {}), D);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->str() == at(R.text, "st.shared") +
                                    "trap in kernel 'wrap' (ctaid 0,0,0 tid 0,0,0): out-of-bounds "
                                    "shared store of 4 bytes at 0x40 (shared window is 64 bytes)");
  Run Wide = run(Store("st.shared.u32 [%rd1], %r1;"), "wrap", threads(1, {}), D);
  REQUIRE(Wide.result.trap);
  CHECK(Wide.result.trap->str() == at(Wide.text, "st.shared") +
                                       "trap in kernel 'wrap' (ctaid 0,0,0 tid 0,0,0): "
                                       "out-of-bounds shared store of 4 bytes at 0x100000000 "
                                       "(shared window is 64 bytes)");
}

TEST_CASE("trap: unsupported instruction is reported before running") {
  const char *Body = R"(
.visible .entry un()
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  mov.u32 %r2, 1;
  stacksave.u64 %rd1;
  ret;
}
)";
  std::string Text = module(Body);
  analyzer::Program P = decode(Text);
  std::vector<support::Error> U = P.unsupported("un");
  REQUIRE(U.size() == 1);
  CHECK(U[0].str() == "k.ptx:" + std::to_string(lineOf(Text, "stacksave")) +
                          ":3: error: unsupported instruction 'stacksave.u64'");
  Device D;
  RunResult R = analyzer::runKernel(P, "un", threads(32, {}), D);
  REQUIRE(R.trap);
  CHECK(R.trap->kind == TrapKind::Unsupported);
  CHECK(R.trap->str() ==
        at(Text, "stacksave") + "trap in kernel 'un': unsupported instruction 'stacksave.u64'");
  CHECK(R.profile.warpInstructionsTotal() == 0);
}

TEST_CASE("trap: barrier deadlock when some warps exited") {
  const char *Body = R"(
.visible .entry bx()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 exit;
  bar.sync 0;
  ret;
}
)";
  Device D;
  Run R = run(Body, "bx", threads(64, {}), D);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->kind == TrapKind::BarrierDeadlock);
  CHECK(R.result.trap->str() == at(R.text, "bar.sync") +
                                    "trap in kernel 'bx' (ctaid 0,0,0 tid 32,0,0): barrier "
                                    "deadlock: barrier 0 waits for 64 threads, 32 arrived");
}

TEST_CASE("trap: barrier deadlock inside divergent code") {
  const char *Body = R"(
.visible .entry bd()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 16;
  @%p1 bra SKIP;
  bar.sync 0;
SKIP:
  ret;
}
)";
  Device D;
  Run R = run(Body, "bd", threads(32, {}), D);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->str() ==
        at(R.text, "bar.sync") +
            "trap in kernel 'bd' (ctaid 0,0,0 tid 0,0,0): barrier deadlock: barrier 0 waits for "
            "32 threads, 16 arrived (the barrier is in divergent code)");
}

TEST_CASE("trap: instruction budget stops an infinite loop") {
  const char *Body = R"(
.visible .entry spin()
{
LOOP:
  bra.uni LOOP;
}
)";
  Device D;
  analyzer::RunSettings S;
  S.maxWarpInstructions = 1000;
  Run R = run(Body, "spin", threads(32, {}), D, S);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->kind == TrapKind::BudgetExceeded);
  CHECK(R.result.trap->str() == at(R.text, "bra.uni") +
                                    "trap in kernel 'spin' (ctaid 0,0,0 tid 0,0,0): instruction "
                                    "budget of 1000 warp instructions exceeded");
  CHECK(R.result.profile.warpInstructionsTotal() == 1000);
}

TEST_CASE("trap: a lock between threads of one warp is a livelock, reported in seconds") {
  // Every thread takes one lock with compare-and-swap. On a GPU with independent thread
  // scheduling (sm_70+) the holder releases it; with one program counter per warp the holder
  // waits at the loop's exit for lanes that spin forever. The interpreter sees the warp come
  // back to the same state and stops, long before the instruction budget.
  const char *Body = R"(
.visible .entry lk(.param .u64 lock, .param .u64 sum)
{
  .reg .pred %p;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [lock];
  ld.param.u64 %rd2, [sum];
SPIN:
  atom.global.cas.b32 %r1, [%rd1], 0, 1;
  setp.ne.s32 %p, %r1, 0;
  @%p bra SPIN;
  atom.global.add.u32 %r2, [%rd2], 1;
  atom.global.exch.b32 %r2, [%rd1], 0;
  ret;
}
)";
  Device D;
  uint64_t Lock = makeBuffer(D, "lock", std::vector<uint32_t>(1, 0));
  uint64_t Sum = makeBuffer(D, "sum", std::vector<uint32_t>(1, 0));
  Run R = run(Body, "lk", threads(64, {KernelArg::pointer(Lock), KernelArg::pointer(Sum)}), D);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->kind == TrapKind::Livelock);
  CHECK(R.result.trap->str() ==
        at(R.text, "atom.global.cas") +
            "trap in kernel 'lk' (ctaid 0,0,0 tid 1,0,0): no progress: every running warp of the "
            "CTA loops back to the same state (a lock between threads of one warp needs "
            "independent thread scheduling, which the interpreter does not model; a wait for "
            "another CTA never ends)");
  CHECK(R.result.profile.warpInstructionsTotal() < 10'000'000);
}

TEST_CASE("trap: a loop that only stores, with its registers the same at every latch, is not a "
          "livelock") {
  // Each pass adds one to a shared counter and reloads it into a register the loop then resets:
  // the registers repeat, the memory does not, and the loop ends after 2^20 passes.
  const char *Body = R"(
.visible .entry cnt(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  .shared .align 4 .b32 c;
  ld.param.u64 %rd1, [out];
  st.shared.u32 [c], 0;
  mov.u32 %r1, 0;
LOOP:
  ld.shared.u32 %r1, [c];
  add.u32 %r1, %r1, 1;
  st.shared.u32 [c], %r1;
  setp.lt.u32 %p, %r1, 1048576;
  mov.u32 %r1, 0;
  @%p bra LOOP;
  ld.shared.u32 %r2, [c];
  st.global.u32 [%rd1], %r2;
  ret;
}
)";
  Device D;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(1, 0));
  Run R = run(Body, "cnt", threads(1, {KernelArg::pointer(Out)}), D);
  REQUIRE_FALSE(R.result.trap);
}

TEST_CASE("run settings: a progress call every 4,096 CTAs and after the last") {
  const char *Body = R"(
.visible .entry nop()
{
  ret;
}
)";
  Device D;
  analyzer::RunSettings S;
  std::vector<std::pair<uint64_t, uint64_t>> Calls;
  S.ctaProgress = [&](uint64_t Done, uint64_t Total) { Calls.emplace_back(Done, Total); };
  LaunchConfig L = threads(32, {});
  L.grid = {100, 100, 1};
  Run R = run(Body, "nop", L, D, S);
  REQUIRE_FALSE(R.result.trap);
  using P = std::pair<uint64_t, uint64_t>;
  CHECK(Calls == std::vector<P>{{4096, 10000}, {8192, 10000}, {10000, 10000}});
}

TEST_CASE("trap: a launch against the kernel's .maxntid, .reqntid or .reqnctapercluster") {
  Device D;
  auto Launch = [&](const std::string &Directive, uint32_t X, uint32_t Y) {
    LaunchConfig L = threads(X, {});
    L.block[1] = Y;
    Run R = run(".visible .entry d()\n" + Directive + "\n{\n  ret;\n}\n", "d", L, D);
    return R.result.trap ? R.result.trap->reason : std::string();
  };
  CHECK(Launch(".maxntid 64, 2", 64, 2).empty());
  CHECK(Launch(".maxntid 64, 2", 32, 8) ==
        "block 32,8,1 has 256 threads; the kernel's .maxntid allows 128");
  CHECK(Launch(".reqntid 32, 4", 32, 4).empty());
  CHECK(Launch(".reqntid 32, 4", 128, 1) == "block 128,1,1 is not the kernel's .reqntid 32,4,1");
  CHECK(Launch(".reqnctapercluster 1, 1, 1", 32, 1).empty());
  CHECK(Launch(".reqnctapercluster 2, 1, 1", 32, 1) ==
        "the kernel requires clusters of 2 CTAs (.reqnctapercluster); launches are modelled as "
        "clusters of one CTA");
}

TEST_CASE("trap: the trap instruction") {
  const char *Body = R"(
.visible .entry tr()
{
  trap;
}
)";
  Device D;
  LaunchConfig L = threads(32, {});
  L.grid = {2, 3, 1};
  Run R = run(Body, "tr", L, D);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->kind == TrapKind::TrapInstruction);
  CHECK(R.result.trap->str() == at(R.text, "trap;") +
                                    "trap in kernel 'tr' (ctaid 0,0,0 tid 0,0,0): trap "
                                    "instruction executed");
}

TEST_CASE("trap: runaway recursion overflows the call stack") {
  const char *Body = R"(
.func rec()
{
  call.uni rec, ();
  ret;
}
.visible .entry deep()
{
  call.uni rec, ();
  ret;
}
)";
  Device D;
  analyzer::RunSettings S;
  S.maxCallDepth = 100;
  Run R = run(Body, "deep", threads(1, {}), D, S);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->kind == TrapKind::StackOverflow);
  CHECK(R.result.trap->str() == at(R.text, "call.uni rec") +
                                    "trap in kernel 'deep' (ctaid 0,0,0 tid 0,0,0): stack overflow "
                                    "calling 'rec' (call depth 100, 0 bytes of local and param "
                                    "memory per thread)");
}

TEST_CASE("trap: a kernel whose local memory exceeds the per-thread limit") {
  const char *Body = R"(
.visible .entry big()
{
  .local .align 8 .b8 arr[1024];
  ret;
}
)";
  Device D;
  analyzer::RunSettings S;
  S.maxLocalBytesPerThread = 512;
  Run R = run(Body, "big", threads(32, {}), D, S);
  REQUIRE(R.result.trap);
  CHECK(R.result.trap->kind == TrapKind::StackOverflow);
  CHECK(R.result.trap->reason == "stack overflow calling 'big' (call depth 0, 1024 bytes of local "
                                 "and param memory per thread)");
}

TEST_CASE("trap: bad launches are refused before running") {
  Device D;
  std::string Text = module(Indexed);
  analyzer::Program P = decode(Text);
  std::string Where = at(Text, ".entry idx");
  RunResult R = analyzer::runKernel(P, "idx", threads(8, {}), D);
  REQUIRE(R.trap);
  CHECK(R.trap->kind == TrapKind::BadLaunch);
  CHECK(R.trap->str() == Where + "trap in kernel 'idx': kernel takes 2 arguments, 0 given");
  R = analyzer::runKernel(P, "idx", threads(8, {KernelArg::u32(0), KernelArg::u64(0)}), D);
  CHECK(R.trap->reason == "argument 0 is 4 bytes; parameter 'x' is 8 bytes");
  R = analyzer::runKernel(P, "idx", threads(2048, {KernelArg::u64(0), KernelArg::u64(0)}), D);
  CHECK(R.trap->reason == "block 2048,1,1 has 2048 threads; the limit is 1024");
  R = analyzer::runKernel(P, "nope", threads(1, {}), D);
  CHECK(R.trap->str() == "k.ptx: trap in kernel 'nope': no kernel named 'nope'");
}

TEST_CASE("trap: the shared-memory limit is per kernel, not per module") {
  // Two kernels with 150 KB of static shared memory each: 300 KB in the module, but a CTA of
  // either needs only its own 150 KB (the driver allocates a kernel's variables, not the
  // module's). 100 KB of dynamic shared memory on top passes the 228 KB limit.
  const char *Two = R"(
.shared .align 4 .b8 a_buf[153600];
.shared .align 4 .b8 b_buf[153600];
.visible .entry ka()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 1;
  st.shared.u32 [a_buf], %r1;
  ret;
}
.visible .entry kb()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 2;
  st.shared.u32 [b_buf+4], %r1;
  ret;
}
)";
  Device D;
  analyzer::Program P = decode(module(Two));
  for (const char *K : {"ka", "kb"}) {
    CAPTURE(K);
    RunResult R = analyzer::runKernel(P, K, threads(32, {}), D);
    CHECK_FALSE(R.trap);
    LaunchConfig Big = threads(32, {});
    Big.sharedBytes = 100 * 1024;
    R = analyzer::runKernel(P, K, Big, D);
    REQUIRE(R.trap);
    CHECK(R.trap->reason == "256000 bytes of shared memory exceed the limit of 233472");
  }
}
