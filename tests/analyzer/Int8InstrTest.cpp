// The instructions of the int8 kernels beyond the ones other tests cover: cvt.rni.sat.s8.f32 into
// a 32-bit register (PTX ISA 9.7.9.21: round to nearest even, saturate to [-128, 127], NaN to 0),
// and the int8 share of the tensor-core multiply-adds (KernelProfile::tensorMacsInt8: s8 mma
// m16n8k32 and m8n8k16 count there, f16 mma only in tensorMacs), in exact and fast mode.
#include "InterpTestUtil.h"

#include "analyzer/FastMode.h"

#include <cmath>
#include <limits>

using namespace interp_test;

TEST_CASE("cvt.rni.sat.s8.f32: nearest even, saturated, NaN to 0 (low byte of a .b32)") {
  const float Inf = std::numeric_limits<float>::infinity();
  const std::vector<float> In = {0.5f, 1.5f,  2.5f,          -0.5f,   -1.5f,  -2.5f,
                                 3.7f, -3.7f, 126.5f,        127.4f,  127.5f, 128,
                                 300,  1e9f,  -127.5f,       -128.5f, -129,   -1e9f,
                                 Inf,  -Inf,  std::nanf(""), 0,       -0.0f,  64.5f};
  const std::string Body = R"(
.visible .entry k(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<4>; .reg .f32 %f<2>; .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  cvt.rni.sat.s8.f32 %r2, %f1;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
})";
  analyzer::Program P = decode(module(Body));
  analyzer::Device D;
  uint64_t InBuf = makeBuffer(D, "in", In);
  uint64_t Out = makeBuffer(D, "out", std::vector<uint32_t>(In.size(), 0xdeadbeef));
  analyzer::LaunchConfig L;
  L.block = {uint32_t(In.size()), 1, 1};
  L.args = {analyzer::KernelArg::pointer(InBuf), analyzer::KernelArg::pointer(Out)};
  analyzer::RunResult R = analyzer::runKernel(P, "k", L, D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  std::vector<uint32_t> Got = readBuffer<uint32_t>(D, "out");
  for (size_t I = 0; I < In.size(); ++I) {
    const double Want =
        std::isnan(In[I]) ? 0 : std::clamp(std::nearbyint(double(In[I])), -128.0, 127.0);
    CAPTURE(In[I]);
    CHECK(int8_t(Got[I] & 0xff) == int8_t(Want));
  }
}

namespace {

/// Three iterations of one s8 m16n8k32 and one f16 m16n8k16 mma, then one s8 m8n8k16: one warp.
const char *MixedMma = R"(
.visible .entry mixed(.param .u64 out) {
  .reg .pred %p<2>; .reg .b32 %r<40>; .reg .f32 %f<8>; .reg .b64 %rd<3>;
  mov.b32 %r1, 0x01020304; mov.b32 %r2, 0xfffefdfc; mov.b32 %r3, 0x3c003c00;
  mov.b32 %r10, 0; mov.b32 %r11, 0; mov.b32 %r12, 0; mov.b32 %r13, 0;
  mov.f32 %f1, 0f00000000; mov.f32 %f2, 0f00000000; mov.f32 %f3, 0f00000000; mov.f32 %f4, 0f00000000;
  mov.u32 %r20, 0;
LOOP:
  mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%r10, %r11, %r12, %r13}, {%r1, %r2, %r1, %r2}, {%r1, %r2}, {%r10, %r11, %r12, %r13};
  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r3, %r3, %r3, %r3}, {%r3, %r3}, {%f1, %f2, %f3, %f4};
  add.u32 %r20, %r20, 1;
  setp.lt.u32 %p1, %r20, 3;
  @%p1 bra LOOP;
  mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r10, %r11}, {%r1}, {%r2}, {%r10, %r11};
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r10;
  ret;
})";

} // namespace

TEST_CASE("tensorMacsInt8: the s8 mma's multiply-adds, in exact and fast mode") {
  analyzer::AnalysisInput In;
  In.ptx.push_back({"mixed.ptx", module(MixedMma)});
  analyzer::BufferSpec B;
  B.name = "out";
  B.bytes = 4;
  In.buffers = {B};
  analyzer::LaunchSpec L;
  L.kernel = "mixed";
  L.grid = {3, 1, 1};
  L.block = {32, 1, 1};
  analyzer::ArgSpec A;
  A.isBuffer = true;
  A.buffer = "out";
  L.args = {A};
  In.launches = {L};
  const uint64_t Int8 = 3 * (3 * 16 * 8 * 32 + 8 * 8 * 16), F16 = 3 * 3 * 16 * 8 * 16;
  for (analyzer::AnalysisMode Mode :
       {analyzer::AnalysisMode::Exact, analyzer::AnalysisMode::Fast}) {
    auto R = analyzer::analyze(In, Mode);
    REQUIRE_MESSAGE(R, support::errorText(R));
    const analyzer::KernelProfile &P = R->launches.front().profile;
    CHECK(P.tensorMacsInt8 == Int8);
    CHECK(P.tensorMacs == Int8 + F16);
    analyzer::KernelProfile Sum;
    Sum.accumulate(P);
    Sum.accumulate(P);
    CHECK(Sum.tensorMacsInt8 == 2 * Int8);
  }
}
