// Instructions of sm_80/sm_90 code (nvcc, Triton, CUTLASS) run on hand-written kernels with
// hand-derived results: cache policies, vector atomics, elect.sync, the cluster registers of a
// one-CTA cluster, griddepcontrol and setmaxnreg. Each kernel assembles with ptxas for sm_90a.
#include "InterpTestUtil.h"

#include <bit>

using namespace interp_test;

TEST_CASE(
    "cache policies: createpolicy, .L2::cache_hint loads and stores, discard, applypriority") {
  // Hints only: each lane copies its word through a hinted load and store, as without them.
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r1;
  createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;
  ld.global.L1::no_allocate.L2::cache_hint.u32 %r2, [%rd3], %rd2;
  add.u32 %r2, %r2, 100;
  applypriority.global.L2::evict_normal [%rd3], 128;
  discard.global.L2 [%rd3], 128;
  st.global.L2::cache_hint.u32 [%rd3+128], %r2, %rd2;
  ret;
}
)";
  std::vector<uint32_t> V = runOut(Body, "k", 64, 32);
  for (uint32_t L = 0; L < 32; ++L) {
    CHECK(V[L] == L);
    CHECK(V[32 + L] == 100 + L);
  }
}

TEST_CASE("vector atomics (sm_90): atom.v2.f32.add returns each element's old value, red.v4") {
  // Lanes in order add {1, 2} to out[0..1] (each gets the old pair back) and {1, 1, 1, 0.5} to
  // out[68..71], both zeroed first; the old pairs go to out[4 + 2 lane ...].
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f40000000;
  mov.f32 %f3, 0f00000000;
  st.global.v2.f32 [%rd1], {%f3, %f3};
  st.global.v4.f32 [%rd1+272], {%f3, %f3, %f3, %f3};
  atom.global.v2.f32.add {%f4, %f5}, [%rd1], {%f1, %f2};
  mov.f32 %f6, 0f3F000000;
  red.global.add.v4.f32 [%rd1+272], {%f1, %f1, %f1, %f6};
  mov.u32 %r1, %laneid;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.f32 [%rd3+16], {%f4, %f5};
  ret;
}
)";
  std::vector<uint32_t> V = runOut(Body, "k", 72, 32);
  auto F = [&](size_t K) { return std::bit_cast<float>(V[K]); };
  CHECK(F(0) == 32.0f);
  CHECK(F(1) == 64.0f);
  for (unsigned L = 0; L < 32; ++L) {
    CHECK(F(4 + 2 * L) == float(L));
    CHECK(F(5 + 2 * L) == float(2 * L));
  }
  CHECK(F(68) == 32.0f);
  CHECK(F(70) == 32.0f);
  CHECK(F(71) == 16.0f);
}

TEST_CASE("elect.sync, cluster registers of a one-CTA cluster, griddepcontrol and setmaxnreg") {
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p1, %r1, 5;
  griddepcontrol.wait;
  setmaxnreg.inc.sync.aligned.u32 240;
  @!%p1 bra DONE;
  elect.sync %r2|%p2, 0xffffffe0;
  selp.u32 %r3, 1, 0, %p2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  add.u32 %r3, %r3, %r2;
  st.global.u32 [%rd3], %r3;
  @!%p2 bra DONE;
  mov.u32 %r4, %clusterid.x;
  mov.u32 %r5, %cluster_ctarank;
  mov.u32 %r6, %cluster_nctarank;
  mov.u32 %r7, %cluster_nctaid.x;
  st.global.v4.u32 [%rd1], {%r4, %r5, %r6, %r7};
DONE:
  griddepcontrol.launch_dependents;
  ret;
}
)";
  // Lanes 5..31 run the elect with exactly them as members: lane 5 leads and every lane reads
  // 5; the leader adds 1. Lanes 0..3 then hold the cluster registers.
  std::vector<uint32_t> V = runOut(Body, "k", 32, 32);
  CHECK(std::vector<uint32_t>(V.begin(), V.begin() + 4) == std::vector<uint32_t>{0, 0, 1, 1});
  CHECK(V[4] == 0xdeadbeef);
  CHECK(V[5] == 6);
  for (unsigned L = 6; L < 32; ++L)
    CHECK(V[L] == 5);
}

TEST_CASE("%is_explicit_cluster is 1 in a kernel declared .explicitcluster, else 0") {
  auto Read = [](const std::string &Directive) {
    std::string Body = ".visible .entry k(.param .u64 out)\n" + Directive +
                       "\n{\n  .reg .pred %p;\n  .reg .b32 %r;\n  .reg .b64 %rd;\n"
                       "  ld.param.u64 %rd, [out];\n  mov.pred %p, %is_explicit_cluster;\n"
                       "  selp.u32 %r, 1, 0, %p;\n  st.global.u32 [%rd], %r;\n  ret;\n}\n";
    return runOut(Body, "k", 1, 1)[0];
  };
  CHECK(Read("") == 0);
  CHECK(Read(".explicitcluster") == 1);
}
