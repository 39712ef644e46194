// Fast mode's data-dependence check (docs/fast-mode.md, shortcut 2) on synthetic (hand-written)
// kernels: a kernel whose loaded data can reach control flow or an address is rerun with other
// data and reported; one whose data only flows into arithmetic and stored values is proven
// data-independent by the static taint analysis and not rerun.
#include "analyzer/FastMode.h"

#include <doctest/doctest.h>

#include <string>

namespace {

using analyzer::AnalysisMode;

/// One warp pair per CTA: v = in[tid], then BODY (out + tid * 4 in %rd4, shared buf available).
const char *TaintPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout) {
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .shared .align 4 .b8 buf[256];
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd9, %r1, 4;
  add.s64 %rd3, %rd1, %rd9;
  add.s64 %rd4, %rd2, %rd9;
  ld.global.u32 %r3, [%rd3];
  BODY
  ret;
}
)";

/// Fast mode over the kernel with `Body`, with the data check on or off.
analyzer::LaunchAnalysis analyse(const std::string &Body, bool Check) {
  std::string Ptx = TaintPtx;
  Ptx.replace(Ptx.find("BODY"), 4, Body);
  analyzer::AnalysisInput In;
  In.ptx.push_back({"taint.ptx", Ptx});
  for (const char *Name : {"in", "out"}) {
    analyzer::BufferSpec B;
    B.name = Name;
    B.bytes = 256;
    In.buffers.push_back(B);
  }
  analyzer::LaunchSpec L;
  L.kernel = "k";
  L.grid = {4, 1, 1};
  L.block = {64, 1, 1};
  for (const char *Name : {"in", "out"}) {
    analyzer::ArgSpec A;
    A.isBuffer = true;
    A.buffer = Name;
    L.args.push_back(A);
  }
  In.launches = {L};
  analyzer::FastSettings S;
  S.checkDataDependence = Check;
  auto R = analyzer::analyze(In, AnalysisMode::Fast, S);
  REQUIRE_MESSAGE(R, support::errorText(R));
  return R->launches[0];
}

} // namespace

TEST_CASE("data check: data that only flows into stored values needs no rerun") {
  const std::string Body = "mad.lo.u32 %r4, %r3, 2, 1;\n  st.global.u32 [%rd4], %r4;";
  analyzer::LaunchAnalysis On = analyse(Body, true), Off = analyse(Body, false);
  CHECK(!On.dataDependent);
  CHECK(On.dataCheck == analyzer::DataCheck::Proven);
  CHECK(Off.dataCheck == analyzer::DataCheck::Off);
  CHECK(On.interpreted == Off.interpreted); // proven by the taint analysis: not rerun
}

TEST_CASE("data check: loaded data that reaches a guard or an address is reported") {
  struct Case {
    const char *name, *body;
  };
  const Case Cases[] = {
      // out[in[tid] & 63]: every lane stores to word 0 with zeros, elsewhere with other data.
      {"address", "and.b32 %r5, %r3, 63;\n  mul.wide.u32 %rd5, %r5, 4;\n"
                  "  add.s64 %rd6, %rd2, %rd5;\n  st.global.u32 [%rd6], %r3;"},
      // The carry of v + (2^32 - 1) guards the store: it is set for every v but 0.
      {"carry", "add.cc.u32 %r5, %r3, 4294967295;\n  addc.u32 %r6, 0, 0;\n"
                "  setp.ne.u32 %p1, %r6, 0;\n  @%p1 st.global.u32 [%rd4], %r3;"},
      // Through shared memory: a loaded word, stored and read back, guards the store.
      {"shared", "mov.u64 %rd7, buf;\n  add.s64 %rd8, %rd7, %rd9;\n"
                 "  st.shared.u32 [%rd8], %r3;\n  bar.sync 0;\n  ld.shared.u32 %r7, [%rd8];\n"
                 "  setp.eq.u32 %p2, %r7, 0;\n  @%p2 st.global.u32 [%rd4], %r7;"},
      // A loop whose trip count is the loaded value's low bits.
      {"branch", "and.b32 %r5, %r3, 7;\n  mov.u32 %r6, 0;\nL:\n  setp.ge.u32 %p1, %r6, %r5;\n"
                 "  @%p1 bra E;\n  add.u32 %r6, %r6, 1;\n  bra L;\nE:\n"
                 "  st.global.u32 [%rd4], %r6;"},
  };
  for (const Case &C : Cases) {
    std::string Name = C.name;
    CAPTURE(Name);
    analyzer::LaunchAnalysis On = analyse(C.body, true), Off = analyse(C.body, false);
    CHECK(On.dataDependent);
    CHECK(On.dataCheck == analyzer::DataCheck::Rerun);
    CHECK(!Off.dataDependent);
  }
}

TEST_CASE("fast mode: every launch sees module .global variables as initialised") {
  // Synthetic: the first warp to run does some work only while `flag` is 0, then sets it. Two
  // launches on one worker thread (no launch reuse) must count alike: launches share abstract
  // buffers, never a module variable's real memory.
  analyzer::AnalysisInput In;
  In.ptx.push_back({"once.ptx", R"(.version 8.0
.target sm_80
.address_size 64
.global .align 4 .u32 flag;
.visible .entry once() {
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  ld.global.u32 %r1, [flag];
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra DONE;
  mov.u32 %r2, %tid.x;
  mul.lo.u32 %r3, %r2, 3;
  add.u32 %r4, %r3, 7;
  mov.u32 %r5, 1;
  st.global.u32 [flag], %r5;
DONE:
  ret;
}
)"});
  analyzer::LaunchSpec L;
  L.kernel = "once";
  L.block = {32, 1, 1};
  In.launches = {L, L};
  analyzer::FastSettings S;
  S.threads = 1;
  S.dedupeLaunches = false;
  auto R = analyzer::analyze(In, AnalysisMode::Fast, S);
  REQUIRE_MESSAGE(R, support::errorText(R));
  CHECK(R->launches[0].profile.warpInstructionsTotal() == 9);
  CHECK(R->launches[1].profile.warpInstructionsTotal() == 9);
}
