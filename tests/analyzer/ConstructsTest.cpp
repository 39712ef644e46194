// PTX that other compilers and people write, run on hand-written kernels with hand-derived
// results: condition-code chains, symbols in initialisers, vector registers, .reg parameters.
#include "InterpTestUtil.h"

using namespace interp_test;
using analyzer::Device;
using analyzer::KernelArg;
using analyzer::LaunchConfig;
using analyzer::RunResult;

namespace {

/// Runs `Kernel(.param .u64 out)` of `Body` on one warp; returns the first `N` u32 of `out`.
std::vector<uint32_t> runOut(const std::string &Body, const std::string &Kernel, size_t N = 32,
                             uint32_t Threads = 1) {
  analyzer::Program P = decode(module(Body));
  Device D;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(N, 0xdeadbeef));
  LaunchConfig L;
  L.block = {Threads, 1, 1};
  L.args = {KernelArg::pointer(Out)};
  RunResult R = analyzer::runKernel(P, Kernel, L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  return readBuffer<uint32_t>(D, "out");
}

} // namespace

TEST_CASE("carry: CC.CF after a subtraction is NOT-borrow, as on NVIDIA GPUs") {
  // sub.cc 5 - 3 does not borrow: CC.CF = 1, so addc 0 + 0 + CF = 1. add.cc 0xffffffff + 1
  // carries: subc 5 - 3 with CF = 1 is 5 + ~3 + 1 = 2. A borrow (3 - 5) clears CF: subc 7 - 2
  // then gives 7 + ~2 + 0 = 4. Pure chains: a 64-bit subtraction 0x1_00000000 - 1.
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  sub.cc.u32 %r1, 5, 3;
  addc.u32 %r2, 0, 0;
  add.cc.u32 %r3, 4294967295, 1;
  subc.u32 %r4, 5, 3;
  sub.cc.u32 %r5, 3, 5;
  subc.u32 %r6, 7, 2;
  sub.cc.u32 %r7, 0, 1;
  subc.u32 %r8, 1, 0;
  add.cc.u32 %r9, 1, 2;
  subc.cc.u32 %r10, 2, 2;
  addc.u32 %r11, 0, 0;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r4, %r6};
  st.global.v4.u32 [%rd1+16], {%r7, %r8, %r10, %r11};
  ret;
}
)";
  std::vector<uint32_t> V = runOut(Body, "k");
  CHECK(V[0] == 2);
  CHECK(V[1] == 1);          // addc after sub.cc without borrow
  CHECK(V[2] == 2);          // subc after add.cc with carry-out 1
  CHECK(V[3] == 4);          // subc after a borrow
  CHECK(V[4] == 0xffffffff); // low word of 0x1_00000000 - 1
  CHECK(V[5] == 0);          // high word
  CHECK(V[6] == 0xffffffff); // 2 - 2 - borrow(no carry from 1 + 2)
  CHECK(V[7] == 0);          // ... which borrowed: CF = 0
}
