// PTX that other compilers and people write, run on hand-written kernels with hand-derived
// results: condition-code chains, symbols in initialisers, vector registers, .reg parameters,
// 128-bit moves, cp.async forms, match/bar.red, brx.idx and indirect calls.
#include "InterpTestUtil.h"

using namespace interp_test;
using analyzer::Device;
using analyzer::KernelArg;
using analyzer::LaunchConfig;
using analyzer::RunResult;

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

TEST_CASE("initialisers holding symbols read back the symbols' addresses, as mov gives them") {
  // PTX ISA 5.4.4: a .const offset (cx, cy+4), .global addresses (ga, gb+4) and a generic
  // address (generic(gb) and generic(cy)). Each word pair is compared with mov's value.
  const char *Body = R"(
.const .u32 cx = 7;
.const .u32 cy[2] = {8, 9};
.const .u64 cp[3] = {cx, cy+4, generic(cy)};
.global .u32 ga[4];
.global .u32 gb[4] = {1, 2, 3, 4};
.global .u64 gp[2] = {ga, gb+4};
.global .u64 gq = generic(gb);
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [out];
  ld.const.u64 %rd2, [cp];
  mov.u64 %rd3, cx;
  ld.const.u64 %rd4, [cp+8];
  mov.u64 %rd5, cy+4;
  ld.global.u64 %rd6, [gp];
  mov.u64 %rd7, ga;
  ld.global.u64 %rd8, [gp+8];
  mov.u64 %rd9, gb+4;
  ld.global.u64 %rd10, [gq];
  cvta.global.u64 %rd11, gb;
  ld.const.u64 %rd12, [cp+16];
  ld.u32 %r1, [%rd12+4];
  ld.u32 %r2, [%rd10+8];
  ld.u32 %r3, [%rd9];
  st.global.v2.u64 [%rd1], {%rd2, %rd3};
  st.global.v2.u64 [%rd1+16], {%rd4, %rd5};
  st.global.v2.u64 [%rd1+32], {%rd6, %rd7};
  st.global.v2.u64 [%rd1+48], {%rd8, %rd9};
  st.global.v2.u64 [%rd1+64], {%rd10, %rd11};
  st.global.v2.u32 [%rd1+80], {%r1, %r2};
  st.global.u32 [%rd1+88], %r3;
  ret;
}
)";
  std::vector<uint32_t> V = runOut(Body, "k", 32);
  auto U64 = [&](size_t K) { return uint64_t(V[2 * K]) | uint64_t(V[2 * K + 1]) << 32; };
  for (size_t Pair = 0; Pair < 5; ++Pair) {
    CAPTURE(Pair);
    CHECK(U64(2 * Pair) == U64(2 * Pair + 1));
  }
  CHECK(U64(2) != 0);
  CHECK(U64(4) != U64(6));
  CHECK(V[20] == 9); // through generic(cy)+4
  CHECK(V[21] == 3); // through generic(gb)+8
  CHECK(V[22] == 2); // through gb+4
}

TEST_CASE("fused declarations, vector registers, WARP_SZ, body statics and offsets in mov") {
  const char *Body = R"(
.visible .entry k(.param.u64 out)
{
  .reg.u64 %rd<6>;
  .reg.u32 %r<8>;
  .reg.v4.u16 a;
  .reg .v2 .u32 %v;
  .reg .v4 .f32 %f4;
  .reg .u64 temp;
  .global .u32 gfun[2] = {11, 12};
  .shared .align 16 .b8 sfun[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, WARP_SZ;
  mov.u16 a.x, 1;
  mov.u16 a.w, 5;
  add.u16 a.y, a.x, a.w;
  mov.v2.u32 %v, {%r1, 7};
  ld.global.v4.f32 %f4, [%rd1+64];
  st.global.v4.f32 [%rd1+16], %f4;
  mov.v4.f32 {%f4.w, %f4.z, %f4.y, %f4.x}, %f4;
  st.global.v4.f32 [%rd1+32], %f4;
  mov.b64 %rd4, %v;
  mov.u64 temp, %rd1;
  mov.u64 %rd2, temp+48;
  mov.u64 %rd3, gfun+4;
  ld.global.u32 %r2, [%rd3];
  mov.u32 %r3, sfun+16;
  mov.u32 %r4, sfun;
  sub.u32 %r3, %r3, %r4;
  cvt.u32.u16 %r5, a.y;
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r5};
  st.global.u64 [%rd2], %rd4;
  ret;
}
)";
  analyzer::Program P = decode(module(Body));
  Device D;
  std::vector<float> Init(24, 0.0f);
  for (int I = 0; I < 4; ++I)
    Init[16 + I] = float(I + 1);
  uint64_t Out = makeBuffer(D, "out", Init);
  LaunchConfig L;
  L.args = {KernelArg::pointer(Out)};
  RunResult R = analyzer::runKernel(P, "k", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  std::vector<uint32_t> V = readBuffer<uint32_t>(D, "out");
  std::vector<float> F = readBuffer<float>(D, "out");
  CHECK(V[0] == 32); // WARP_SZ
  CHECK(V[1] == 12); // gfun+4, a .global declared in the body
  CHECK(V[2] == 16); // sfun+16 - sfun
  CHECK(V[3] == 6);  // a.y = a.x + a.w
  for (int I = 0; I < 4; ++I) {
    CHECK(F[4 + I] == float(I + 1)); // ld.v4 into %f4, st.v4 from it
    CHECK(F[8 + I] == float(4 - I)); // reversed through mov.v4
  }
  CHECK(V[12] == 32); // mov.b64 %rd4, %v packs {%v.x, %v.y}
  CHECK(V[13] == 7);
}

TEST_CASE(".reg parameters of a .func, calls with register and constant arguments") {
  const char *Body = R"(
.func (.reg .u32 r) addf (.reg .u32 a, .reg .u32 b)
{
  add.u32 r, a, b;
  ret;
}
.func (.param .u32 r) mix (.reg .u32 a, .param .u32 b)
{
  .reg .u32 %t<3>;
  ld.param.u32 %t1, [b];
  mul.lo.u32 %t2, a, %t1;
  st.param.u32 [r], %t2;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  .param .u32 pb;
  .param .u32 pr;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  call (%r2), addf, (%r1, 100);
  st.param.u32 [pb], 3;
  call (pr), mix, (%r2, pb);
  ld.param.u32 %r3, [pr];
  call (%r4), mix, (%r1, 5);
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r3;
  st.global.u32 [%rd1+128], %r4;
  ret;
}
)";
  std::vector<uint32_t> V = runOut(Body, "k", 64, 32);
  for (uint32_t T = 0; T < 32; ++T) {
    CHECK(V[T] == (T + 100) * 3);
    CHECK(V[32 + T] == T * 5);
  }
}

TEST_CASE("128-bit loads, stores and moves on .b128 registers") {
  // A .b128 register holds two 64-bit halves, the low half first (PTX ISA 5.2.1): the value
  // loaded from out[0..3] is swapped through mov.b128 pack and unpack and stored back at
  // out[4..7] via shared memory; the halves are also stored at out[8..11].
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b128 %q<3>;
  .reg .b64 %rd<6>;
  .shared .align 16 .b8 sm[32];
  ld.param.u64 %rd1, [out];
  ld.global.b128 %q1, [%rd1];
  mov.b128 {%rd2, %rd3}, %q1;
  mov.b128 %q2, {%rd3, %rd2};
  st.shared.b128 [sm], %q2;
  ld.shared.b128 %q1, [sm];
  st.global.b128 [%rd1+16], %q1;
  st.global.v2.b64 [%rd1+32], {%rd2, %rd3};
  ret;
}
)";
  analyzer::Program P = decode(module(Body));
  Device D;
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>{1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0});
  LaunchConfig L;
  L.args = {KernelArg::pointer(Out)};
  RunResult R = analyzer::runKernel(P, "k", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  CHECK(readBuffer<uint32_t>(D, "out") ==
        std::vector<uint32_t>{1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4});
  CHECK(R.profile.globalLoadRequests == 1);
  CHECK(R.profile.loadBytes[size_t(analyzer::MemSpace::Global)] == 16);
}

TEST_CASE("cp.async with an ignore-src predicate, a cache hint and .ca/.cg copies") {
  // Lane L copies 16 bytes of `out` (its words 4L..4L+3 = 100 + index) into shared memory; odd
  // lanes set ignore-src (zeros are written); every lane also copies 8 bytes elsewhere through
  // .L2::cache_hint with a policy operand; then each writes its 16 shared bytes back to
  // out[128 + 4L...].
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .pred %p;
  .shared .align 16 .b8 sm[1024];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  shl.b32 %r2, %r1, 4;
  cvt.u64.u32 %rd2, %r2;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r3, sm;
  add.u32 %r4, %r3, %r2;
  and.b32 %r5, %r1, 1;
  setp.eq.u32 %p, %r5, 1;
  cp.async.cg.shared.global [%r4], [%rd3], 16, %p;
  mov.b64 %rd4, 0;
  cp.async.ca.shared.global.L2::cache_hint [%r4+512], [%rd3], 8, %rd4;
  cp.async.wait_all;
  bar.sync 0;
  ld.shared.v4.u32 {%r1, %r2, %r5, %r6}, [%r4];
  st.global.v4.u32 [%rd3+512], {%r1, %r2, %r5, %r6};
  ret;
}
)";
  analyzer::Program P = decode(module(Body));
  Device D;
  std::vector<uint32_t> Init(256);
  for (uint32_t I = 0; I < 128; ++I)
    Init[I] = 100 + I;
  uint64_t Out = makeBuffer(D, "out", Init);
  LaunchConfig L;
  L.block = {32, 1, 1};
  L.args = {KernelArg::pointer(Out)};
  RunResult R = analyzer::runKernel(P, "k", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  std::vector<uint32_t> V = readBuffer<uint32_t>(D, "out");
  for (uint32_t Ln = 0; Ln < 32; ++Ln)
    for (uint32_t W = 0; W < 4; ++W)
      CHECK(V[128 + 4 * Ln + W] == (Ln % 2 ? 0 : 100 + 4 * Ln + W));
  // The ignore-src copy reads 16 bytes from the 16 even lanes only; the hinted one 8 per lane.
  CHECK(R.profile.loadBytes[size_t(analyzer::MemSpace::Global)] == 16 * 16 + 32 * 8);
  CHECK(R.profile.storeBytes[size_t(analyzer::MemSpace::Shared)] == 32 * 16 + 32 * 8);
}

TEST_CASE("match.any/all.sync group lanes by value, bar.red reduces a predicate over the CTA") {
  // Lane L holds L % 3 (match.any: the lanes with the same residue), then 7 everywhere but lane
  // 5 (match.all: 0 and p false), then 9 everywhere (the whole mask and p true). Two warps meet
  // at bar.red: popc counts the lanes with L % 3 == 0 over the 64 threads (22), and.pred asks
  // whether every thread is below 64 (true), or.pred whether any is 63 (true).
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .reg .pred %p<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 3;
  match.any.sync.b32 %r3, %r2, 0xffffffff;
  mov.u32 %r4, %laneid;
  setp.eq.u32 %p1, %r4, 5;
  selp.b32 %r5, 8, 7, %p1;
  match.all.sync.b32 %r6|%p2, %r5, 0xffffffff;
  mov.b64 %rd2, 9;
  match.all.sync.b64 %r7|%p3, %rd2, 0xffffffff;
  selp.b32 %r8, 1, 0, %p2;
  selp.b32 %r9, 1, 0, %p3;
  setp.eq.u32 %p4, %r2, 0;
  bar.red.popc.u32 %r10, 0, %p4;
  setp.lt.u32 %p4, %r1, 64;
  bar.red.and.pred %p5, 1, 64, %p4;
  selp.b32 %r11, 1, 0, %p5;
  setp.ne.u32 %p4, %r1, 63;
  bar.red.or.pred %p5, 2, !%p4;
  selp.b32 %r12, 1, 0, %p5;
  mul.wide.u32 %rd3, %r1, 32;
  add.s64 %rd1, %rd1, %rd3;
  st.global.v4.u32 [%rd1], {%r3, %r6, %r8, %r7};
  st.global.v4.u32 [%rd1+16], {%r9, %r10, %r11, %r12};
  ret;
}
)";
  std::vector<uint32_t> V = runOut(Body, "k", 64 * 8, 64);
  for (uint32_t T = 0; T < 64; ++T) {
    CAPTURE(T);
    uint32_t Same = 0;
    for (uint32_t K = 0; K < 32; ++K)
      Same |= uint32_t((32 * (T / 32) + K) % 3 == T % 3) << K;
    CHECK(V[8 * T] == Same);
    CHECK(V[8 * T + 1] == 0);          // lane 5 differs
    CHECK(V[8 * T + 2] == 0);          // p false
    CHECK(V[8 * T + 3] == 0xffffffff); // all equal: the member mask
    CHECK(V[8 * T + 4] == 1);
    CHECK(V[8 * T + 5] == 22); // 0, 3, ..., 63
    CHECK(V[8 * T + 6] == 1);
    CHECK(V[8 * T + 7] == 1);
  }
}

TEST_CASE("brx.idx branches each lane through a target list, guard-false lanes fall through") {
  // Lane L takes target L % 3 (lanes 30, 31 are guarded off and skip the switch): 10, 20, 30
  // plus 100 after the join, where all lanes meet again.
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  .reg .pred %p;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  rem.u32 %r2, %r1, 3;
  mov.u32 %r3, 0;
  setp.lt.u32 %p, %r1, 30;
  ts: .branchtargets L0, L1, L2;
  @%p brx.idx %r2, ts;
  bra.uni JOIN;
L0:
  mov.u32 %r3, 10;
  bra.uni JOIN;
L1:
  mov.u32 %r3, 20;
  bra.uni JOIN;
L2:
  mov.u32 %r3, 30;
JOIN:
  add.u32 %r3, %r3, 100;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r3;
  ret;
}
)";
  std::vector<uint32_t> V = runOut(Body, "k", 32, 32);
  for (uint32_t L = 0; L < 32; ++L)
    CHECK(V[L] == (L < 30 ? 110 + 10 * (L % 3) : 100));
}

TEST_CASE("indirect calls through function addresses, uniform and divergent") {
  // A table of two .func addresses in a .global initialiser and a third taken with mov: even
  // lanes call twice (table[0]), odd lanes add (table[1]), then every lane calls neg, uniformly.
  const char *Body = R"(
.func (.param .u32 r) twice (.param .u32 a)
{
  .reg .b32 %t<2>;
  ld.param.u32 %t0, [a];
  add.u32 %t1, %t0, %t0;
  st.param.u32 [r], %t1;
  ret;
}
.func (.param .u32 r) addten (.param .u32 a)
{
  .reg .b32 %t<2>;
  ld.param.u32 %t0, [a];
  add.u32 %t1, %t0, 10;
  st.param.u32 [r], %t1;
  ret;
}
.func (.reg .u32 r) neg (.reg .u32 a)
{
  neg.s32 r, a;
  ret;
}
.global .u64 table[2] = {twice, addten};
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<6>;
  .param .u32 pa;
  .param .u32 pr;
  proto: .callprototype (.param .u32 _) _ (.param .u32 _);
  negproto: .callprototype (.reg .u32 _) _ (.reg .u32 _);
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  and.b32 %r2, %r1, 1;
  mul.wide.u32 %rd2, %r2, 8;
  mov.u64 %rd3, table;
  add.s64 %rd3, %rd3, %rd2;
  ld.global.u64 %rd4, [%rd3];
  st.param.u32 [pa], %r1;
  call (pr), %rd4, (pa), proto;
  ld.param.u32 %r3, [pr];
  mov.u64 %rd5, neg;
  call (%r4), %rd5, (%r3), negproto;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r4;
  ret;
}
)";
  std::vector<uint32_t> V = runOut(Body, "k", 32, 32);
  for (uint32_t L = 0; L < 32; ++L)
    CHECK(int32_t(V[L]) == -int32_t(L % 2 ? L + 10 : 2 * L));
}

TEST_CASE("vector .reg formals take vector registers, a generic access to a variable is to its space") {
  // pack(.reg .v4 .u16 v) packs four bytes; the caller passes a .v4.u16 register. A generic
  // ld/st naming a .shared variable (`st.u32 [sm+4], %r`) reaches that variable, as its generic
  // address does. An indirect call through a register named without a %.
  const char *Body = R"(
.func (.reg .u32 r) pack (.reg .v4 .u16 v)
{
  .reg .u32 %t<4>;
  cvt.u32.u16 %t0, v.x;
  cvt.u32.u16 %t1, v.y;
  cvt.u32.u16 %t2, v.z;
  cvt.u32.u16 %t3, v.w;
  shl.b32 %t1, %t1, 8;
  shl.b32 %t2, %t2, 16;
  shl.b32 %t3, %t3, 24;
  or.b32 r, %t0, %t1;
  or.b32 r, r, %t2;
  or.b32 r, r, %t3;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  .reg .v4 .u16 %v;
  .reg .b64 fptr;
  .shared .align 4 .b32 sm[2];
  proto: .callprototype (.reg .u32 _) _ (.reg .v4 .u16 _);
  ld.param.u64 %rd1, [out];
  mov.v4.u16 %v, {1, 2, 3, 4};
  call (%r1), pack, (%v);
  mov.u32 %r2, 99;
  st.u32 [sm+4], %r2;
  st.shared.u32 [sm], 80;
  ld.shared.u32 %r3, [sm+4];
  ld.u32 %r4, [sm];
  mov.u64 fptr, pack;
  mov.v4.u16 %v, {5, 6, 7, 8};
  call (%r5), fptr, (%v), proto;
  st.global.v4.u32 [%rd1], {%r1, %r3, %r4, %r5};
  ret;
}
)";
  CHECK(runOut(Body, "k", 4) == std::vector<uint32_t>{0x04030201, 99, 80, 0x08070605});
}

TEST_CASE("scheduling: a warp waiting on a flag another warp sets, without a barrier, ends") {
  // Warp 0 spins on a volatile shared flag that warp 1 sets after writing a value (legal on any
  // GPU: the warp scheduler runs both). The interpreter lets a looping warp yield to the others.
  const char *Body = R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .shared .align 4 .b32 flag;
  .shared .align 4 .b32 val;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra CONSUMER;
  setp.ne.u32 %p2, %r1, 32;
  @%p2 bra DONE;
  st.volatile.shared.u32 [val], 42;
  membar.cta;
  st.volatile.shared.u32 [flag], 1;
  bra.uni DONE;
CONSUMER:
  ld.volatile.shared.u32 %r2, [flag];
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra CONSUMER;
  ld.volatile.shared.u32 %r3, [val];
  st.global.u32 [%rd1], %r3;
DONE:
  ret;
}
)";
  std::vector<uint32_t> V = runOut(Body, "k", 1, 64);
  CHECK(V[0] == 42);
}
