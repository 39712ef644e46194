// KernelProfile's resource estimates: exact and fast analysis report ptx::estimateResources for
// the launched kernel (not counted, not scaled, not summed), and accumulate keeps them.
#include "analyzer/FastMode.h"
#include "analyzer/Manifest.h"
#include "ptx/Parser.h"
#include "ptx/Resources.h"

#include <doctest/doctest.h>

namespace {

// out[i] = in[i] staged through a 256-byte static shared array.
const char *StagePtx = R"(.version 8.0
.target sm_80
.address_size 64
.shared .align 4 .f32 tile[64];
.shared .align 4 .f32 unused[1024];
.visible .entry stage(.param .u64 pin, .param .u64 pout) {
  .reg .b32 %r<5>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r4, %r2, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f1, [%rd4];
  mul.wide.u32 %rd5, %r1, 4;
  mov.u64 %rd6, tile;
  add.s64 %rd7, %rd6, %rd5;
  st.shared.f32 [%rd7], %f1;
  bar.sync 0;
  ld.shared.f32 %f2, [%rd7];
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f2;
  ret;
}
)";

// Two launches of 16 CTAs of 64 threads over 1024 floats.
const char *StageManifest = R"({"ptx": ["stage.ptx"],
  "buffers": [{"name": "in", "bytes": 4096}, {"name": "out", "bytes": 4096}],
  "launches": [
    {"kernel": "stage", "grid": [16], "block": [64], "args": [{"buffer": "in"}, {"buffer": "out"}]},
    {"kernel": "stage", "grid": [16], "block": [64], "args": [{"buffer": "in"}, {"buffer": "out"}]}]})";

analyzer::AnalysisInput stageInput() {
  auto M = analyzer::parseManifest(StageManifest, "stage/manifest.json");
  REQUIRE_MESSAGE(M, support::errorText(M));
  analyzer::AnalysisInput In;
  In.ptx.push_back({"stage.ptx", StagePtx});
  In.buffers = M->buffers;
  In.launches = M->launches;
  return In;
}

ptx::KernelResources expected() {
  support::Expected<ptx::Module> M = ptx::parseModule(StagePtx, "stage.ptx");
  REQUIRE(M);
  return ptx::estimateResources(*M, *M->findFunction("stage"));
}

} // namespace

TEST_CASE("profile: exact and fast analysis report the kernel's resource estimate") {
  ptx::KernelResources Want = expected();
  CHECK(Want.staticSharedBytes == 256); // tile only; unused is not named
  CHECK(Want.registers > 0);
  analyzer::FastSettings S;
  S.interiorSamples = 2; // 14 interior CTAs: sampled and extrapolated
  for (analyzer::AnalysisMode Mode :
       {analyzer::AnalysisMode::Exact, analyzer::AnalysisMode::Fast}) {
    auto R = analyzer::analyze(stageInput(), Mode, S);
    REQUIRE_MESSAGE(R, support::errorText(R));
    REQUIRE(R->launches.size() == 2);
    for (const analyzer::LaunchAnalysis &L : R->launches) {
      CHECK(L.profile.registersPerThread == Want.registers);
      CHECK(L.profile.staticSharedBytes == Want.staticSharedBytes);
    }
    CHECK(R->launches[0].profile.ctasRun > 0);
    CHECK(R->total.registersPerThread == 0); // a sum over launches has no kernel
    CHECK(R->total.staticSharedBytes == 0);
  }
}

TEST_CASE("profile: accumulate keeps the resource estimate like the geometry") {
  analyzer::KernelProfile A, B;
  A.registersPerThread = 40;
  A.staticSharedBytes = 2048;
  A.barrierSyncs = 1;
  B.registersPerThread = 12;
  B.staticSharedBytes = 64;
  B.barrierSyncs = 2;
  A.accumulate(B);
  CHECK(A.barrierSyncs == 3);
  CHECK(A.registersPerThread == 40);
  CHECK(A.staticSharedBytes == 2048);
  analyzer::addScaled(A, B, 10.0);
  CHECK(A.registersPerThread == 40);
  CHECK(A.staticSharedBytes == 2048);
}
