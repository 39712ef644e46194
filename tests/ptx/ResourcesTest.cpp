// Resource estimate tests (ptx/Resources.h): static shared bytes on hand-written modules whose
// layout ptxas 13 was checked to agree with (the numbers in the comments are ptxas's), register
// pressure on small kernels whose live values are counted by hand in the comments, and, where
// ptxas is installed, the estimate against ptxas -v on the nvcc test kernels.
#include "ptx/Resources.h"
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace {

const char *Header = ".version 8.0\n.target sm_90\n.address_size 64\n";

/// Parses a module; the test fails if it does not parse.
ptx::Module parse(const std::string &Text) {
  support::Expected<ptx::Module> M = ptx::parseModule(Header + Text, "resources.ptx");
  if (!M)
    FAIL(M.error().str());
  return *M;
}

const ptx::Function &fn(const ptx::Module &M, const char *Name) {
  const ptx::Function *F = M.findFunction(Name);
  REQUIRE(F);
  return *F;
}

uint32_t sharedOf(const std::string &Text, const char *Kernel = "k") {
  ptx::Module M = parse(Text);
  return ptx::estimateResources(M, fn(M, Kernel)).staticSharedBytes;
}

/// Kernel `k(.param .u64 p)` with the usual register files around Body.
std::string kernel(const std::string &Body) {
  return ".visible .entry k(.param .u64 p)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b32 %r<16>;\n  .reg .f32 %f<16>;\n"
         "  .reg .b64 %rd<16>;\n  .reg .f64 %fd<16>;\n"
         "  ld.param.u64 %rd1, [p];\n" +
         Body + "  ret;\n}\n";
}

uint32_t unitsOf(const std::string &Body) {
  ptx::Module M = parse(kernel(Body));
  return ptx::maxLiveRegisterUnits(M, fn(M, "k"));
}

} // namespace

// --- static shared memory ------------------------------------------------------------------------

TEST_CASE("shared: only the variables the kernel names count") {
  const char *Vars = ".shared .align 4 .b8 used[16];\n.shared .align 4 .b8 unused[1000];\n";
  CHECK(sharedOf(std::string(Vars) + kernel("  ld.shared.u32 %r1, [used+4];\n"
                                            "  st.global.u32 [%rd1], %r1;\n")) == 16);
  // Taking the address (mov) names it too.
  CHECK(sharedOf(std::string(Vars) + kernel("  mov.u64 %rd2, used;\n"
                                            "  st.shared.u32 [%rd2], 1;\n")) == 16);
  CHECK(sharedOf(std::string(Vars) + kernel("  st.global.u32 [%rd1], 1;\n")) == 0);
}

TEST_CASE("shared: variables named by a called .func count (transitively)") {
  std::string Text = ".shared .align 8 .b8 a[8];\n.shared .align 4 .b8 b[12];\n"
                     ".func g()\n{\n  .reg .b32 %q;\n  ld.shared.u32 %q, [b];\n"
                     "  st.shared.u32 [b], %q;\n  ret;\n}\n"
                     ".func f()\n{\n  call.uni g;\n  ret;\n}\n" +
                     kernel("  call.uni f;\n") + ".visible .entry other()\n{\n  ret;\n}\n";
  CHECK(sharedOf(Text) == 12);
  CHECK(sharedOf(Text, "other") == 0);
}

TEST_CASE("shared: declaration order with alignment padding, nothing after the last") {
  auto Two = [](const char *First, const char *Second) {
    return sharedOf(std::string(".shared ") + First + ";\n.shared " + Second + ";\n" +
                    kernel("  st.shared.u8 [v0], 1;\n  st.shared.u8 [v1], 1;\n"));
  };
  CHECK(Two(".b8 v0[1]", ".align 16 .b8 v1[16]") == 32); // ptxas: 32
  CHECK(Two(".align 16 .b8 v0[16]", ".b8 v1[1]") == 17); // ptxas: 17
  CHECK(Two(".b8 v0[1]", ".f32 v1[2]") == 12);           // natural alignment 4: 4 + 8
  CHECK(Two(".b8 v0[1]", ".v2 .f32 v1[1]") == 16);       // a .v2 .f32 aligns to 8
}

TEST_CASE("shared: variables declared in the body come first") {
  // ptxas: 6 (loc at 0..5, then a at 5), not 13 (a at 0, loc at 8..13).
  CHECK(sharedOf(".shared .b8 a[1];\n"
                 ".visible .entry k()\n{\n  .shared .align 8 .b8 loc[5];\n"
                 "  st.shared.u8 [a], 1;\n  st.shared.u8 [loc], 1;\n  ret;\n}\n") == 6);
}

TEST_CASE("shared: extern (dynamic) arrays count 0 but align the static part") {
  CHECK(sharedOf(".extern .shared .align 16 .b8 dyn[];\n" +
                 kernel("  st.shared.u32 [dyn], 1;\n")) == 0);
  // With an extern array in the module, ptxas rounds a static size up to max(16, its align).
  const char *Static = ".shared .b8 a[17];\n";
  CHECK(sharedOf(std::string(Static) + kernel("  st.shared.u8 [a], 1;\n")) == 17);
  CHECK(sharedOf(std::string(Static) + ".extern .shared .align 4 .b8 dyn[];\n" +
                 kernel("  st.shared.u8 [a], 1;\n")) == 32); // ptxas: 32
  CHECK(sharedOf(std::string(Static) + ".extern .shared .align 128 .b8 dyn[];\n" +
                 kernel("  st.shared.u8 [a], 1;\n")) == 128); // ptxas: 128
}

// --- register pressure ---------------------------------------------------------------------------

TEST_CASE("registers: more values live at once need more registers") {
  // %rd1 (a kernel parameter) is read from the constant bank: 0 units. With N loads issued
  // before the sums, N values are live at the last load.
  const char *Three = "  ld.global.f32 %f1, [%rd1];\n  ld.global.f32 %f2, [%rd1+4];\n"
                      "  ld.global.f32 %f3, [%rd1+8];\n  add.f32 %f5, %f1, %f2;\n"
                      "  add.f32 %f5, %f5, %f3;\n";
  const char *Four = "  ld.global.f32 %f1, [%rd1];\n  ld.global.f32 %f2, [%rd1+4];\n"
                     "  ld.global.f32 %f3, [%rd1+8];\n  ld.global.f32 %f4, [%rd1+12];\n"
                     "  add.f32 %f5, %f1, %f2;\n  add.f32 %f5, %f5, %f3;\n"
                     "  add.f32 %f5, %f5, %f4;\n";
  std::string Store = "  st.global.f32 [%rd1], %f5;\n";
  CHECK(unitsOf(Three + Store) == 3);
  CHECK(unitsOf(Four + Store) == 4);
  ptx::Module M = parse(kernel(Four + Store));
  CHECK(ptx::estimateResources(M, fn(M, "k")).registers > 4);
}

TEST_CASE("registers: 64-bit values take two units") {
  CHECK(unitsOf("  ld.global.f64 %fd1, [%rd1];\n  ld.global.f64 %fd2, [%rd1+8];\n"
                "  ld.global.f64 %fd3, [%rd1+16];\n  add.f64 %fd4, %fd1, %fd2;\n"
                "  add.f64 %fd4, %fd4, %fd3;\n  st.global.f64 [%rd1], %fd4;\n") == 6);
}

TEST_CASE("registers: a value dead after its last use frees its register") {
  // Pairs summed as they arrive: at most (sum, next, next) live = 3 of 7 values.
  const char *Body = "  ld.global.f32 %f1, [%rd1];\n  ld.global.f32 %f2, [%rd1+4];\n"
                     "  add.f32 %f3, %f1, %f2;\n  ld.global.f32 %f4, [%rd1+8];\n"
                     "  ld.global.f32 %f5, [%rd1+12];\n  add.f32 %f6, %f4, %f5;\n"
                     "  add.f32 %f7, %f3, %f6;\n";
  CHECK(unitsOf(std::string(Body) + "  st.global.f32 [%rd1], %f7;\n") == 3);
  // Reading %f1 once more at the end keeps it live throughout: one more.
  CHECK(unitsOf(std::string(Body) + "  add.f32 %f7, %f7, %f1;\n  st.global.f32 [%rd1], %f7;\n") ==
        4);
}

TEST_CASE("registers: a loop keeps values live across its back edge") {
  // %f1 is last read textually before %f4/%f5 are loaded; without the back edge it is dead
  // there: live {%f3, %f4, %f5, %r1} = 4. The back edge reads it again: 5.
  auto Body = [](const char *Branch) {
    return std::string("  ld.global.f32 %f1, [%rd1];\n  mov.u32 %r1, 0;\nLOOP:\n"
                       "  ld.global.f32 %f2, [%rd1+4];\n  add.f32 %f3, %f2, %f1;\n"
                       "  ld.global.f32 %f4, [%rd1+8];\n  ld.global.f32 %f5, [%rd1+12];\n"
                       "  add.f32 %f6, %f4, %f5;\n  add.f32 %f6, %f6, %f3;\n"
                       "  st.global.f32 [%rd1], %f6;\n  add.s32 %r1, %r1, 1;\n"
                       "  setp.lt.u32 %p1, %r1, 10;\n") +
           Branch;
  };
  CHECK(unitsOf(Body("")) == 4);
  CHECK(unitsOf(Body("  @%p1 bra LOOP;\n")) == 5);
}

TEST_CASE("registers: predicates do not count") {
  // One f32 value and four live predicates: 1 unit.
  CHECK(unitsOf("  ld.global.f32 %f1, [%rd1];\n  setp.gt.f32 %p1, %f1, 0f00000000;\n"
                "  setp.gt.f32 %p2, %f1, 0f3F800000;\n  setp.gt.f32 %p3, %f1, 0f40000000;\n"
                "  setp.gt.f32 %p4, %f1, 0f40400000;\n  @%p1 st.global.f32 [%rd1], %f1;\n"
                "  @%p2 st.global.f32 [%rd1+4], %f1;\n  @%p3 st.global.f32 [%rd1+8], %f1;\n"
                "  @%p4 st.global.f32 [%rd1+12], %f1;\n") == 1);
}

TEST_CASE("registers: kernel parameters and constants are rematerialised, not kept") {
  // Four pointers loaded up front and used at the end: 0 units in a kernel (constant bank),
  // while the loaded value is one.
  std::string Body = "  ld.param.u64 %rd2, [p];\n  ld.param.u64 %rd3, [p];\n"
                     "  cvta.to.global.u64 %rd4, %rd3;\n  mov.u32 %r2, %ntid.x;\n"
                     "  mov.f32 %f2, 0f3F800000;\n  ld.global.f32 %f1, [%rd1];\n"
                     "  add.f32 %f1, %f1, %f2;\n  st.global.f32 [%rd2], %f1;\n"
                     "  st.global.f32 [%rd4], %f1;\n  st.global.u32 [%rd4+4], %r2;\n";
  CHECK(unitsOf(Body) == 1);
  // A special register that needs S2R (%tid) is a real value.
  CHECK(unitsOf("  mov.u32 %r1, %tid.x;\n  ld.global.f32 %f1, [%rd1];\n"
                "  st.global.f32 [%rd1], %f1;\n  st.global.u32 [%rd1+4], %r1;\n") == 2);
}

TEST_CASE("registers: 64-bit shared-memory addresses take one unit") {
  // %rd3 = sh + %rd2 is a shared-window address (32 bits in SASS); %rd2 is a plain 64-bit value.
  std::string Text = ".shared .align 4 .b8 sh[1024];\n" +
                     kernel("  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd2, %r1, 4;\n"
                            "  mov.u64 %rd5, sh;\n  add.s64 %rd3, %rd5, %rd2;\n"
                            "  ld.shared.f32 %f1, [%rd3];\n  ld.shared.f32 %f2, [%rd3+4];\n"
                            "  add.f32 %f1, %f1, %f2;\n  st.shared.f32 [%rd3], %f1;\n");
  ptx::Module M = parse(Text);
  // Peak: %rd3 (1) + %f1 + %f2 = 3 (with %rd3 as 64 bits it would be 4).
  CHECK(ptx::maxLiveRegisterUnits(M, fn(M, "k")) == 3);
}

TEST_CASE("registers: a call adds the callee's pressure to the values live across it") {
  std::string Callee = ".func (.param .b32 res) f(.param .b32 x)\n{\n"
                       "  .reg .b32 %a<4>;\n  ld.param.b32 %a1, [x];\n  add.s32 %a2, %a1, 1;\n"
                       "  add.s32 %a3, %a1, %a2;\n  mul.lo.s32 %a3, %a3, %a2;\n"
                       "  st.param.b32 [res], %a3;\n  ret;\n}\n";
  std::string Body = "  ld.global.f32 %f1, [%rd1];\n  ld.global.f32 %f2, [%rd1+4];\n"
                     "  {\n  .param .b32 a0;\n  .param .b32 r0;\n  st.param.b32 [a0], 7;\n"
                     "  call.uni (r0), f, (a0);\n  ld.param.b32 %r1, [r0];\n  }\n"
                     "  add.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd1], %f3;\n"
                     "  st.global.u32 [%rd1+4], %r1;\n";
  ptx::Module M = parse(Callee + kernel(Body));
  uint32_t Own = ptx::maxLiveRegisterUnits(M, fn(M, "k"));
  uint32_t InCallee = ptx::maxLiveRegisterUnits(M, fn(M, "f"));
  CHECK(Own == 3);      // %f1, %f2 and then %r1
  CHECK(InCallee == 2); // %a1 and %a2
  ptx::Module Without = parse(kernel(Body.substr(0, Body.find("  {")) +
                                     "  add.f32 %f3, %f1, %f2;\n  st.global.f32 [%rd1], %f3;\n"));
  // %f1, %f2 live across the call + the callee's 2 = 4 units, one more than the kernel alone.
  CHECK(ptx::estimateResources(M, fn(M, "k")).registers ==
        ptx::estimateResources(Without, fn(Without, "k")).registers + 2);
}

TEST_CASE("registers: the estimate is capped at 255") {
  std::string Loads, Sum = "  mov.f32 %f1, 0f00000000;\n";
  std::string Decl = "  .reg .f32 %v<300>;\n";
  for (int I = 0; I < 300; ++I) {
    Loads += "  ld.global.f32 %v" + std::to_string(I) + ", [%rd1+" + std::to_string(4 * I) + "];\n";
    Sum += "  add.f32 %f1, %f1, %v" + std::to_string(I) + ";\n";
  }
  ptx::Module M = parse(kernel(Decl + Loads + Sum + "  st.global.f32 [%rd1], %f1;\n"));
  CHECK(ptx::maxLiveRegisterUnits(M, fn(M, "k")) == 301); // 300 loaded values and the sum
  CHECK(ptx::estimateResources(M, fn(M, "k")).registers == 255);
}

// --- against ptxas -------------------------------------------------------------------------------

namespace {

struct PtxasNumbers {
  uint32_t registers = 0, shared = 0;
};

/// `ptxas -v` per entry: "Compiling entry function 'k'" ... "Used N registers, ..., M bytes smem".
std::map<std::string, PtxasNumbers> runPtxas(const std::string &Path) {
  std::string Cmd = std::string(PTXCAST_PTXAS) + " -v -arch=sm_90 -o /dev/null " + Path + " 2>&1";
  std::map<std::string, PtxasNumbers> Out;
  FILE *P = popen(Cmd.c_str(), "r");
  REQUIRE(P);
  std::string Kernel;
  static const std::regex Entry("Compiling entry function '([^']+)'");
  static const std::regex Used("Used ([0-9]+) registers");
  static const std::regex Smem("([0-9]+) bytes smem");
  char Line[4096];
  std::smatch Match;
  while (fgets(Line, sizeof Line, P)) {
    std::string L = Line;
    if (std::regex_search(L, Match, Entry))
      Kernel = Match[1];
    if (!Kernel.empty() && std::regex_search(L, Match, Used)) {
      Out[Kernel].registers = std::stoul(Match[1]);
      if (std::regex_search(L, Match, Smem))
        Out[Kernel].shared = std::stoul(Match[1]);
      Kernel.clear();
    }
  }
  CHECK(pclose(P) == 0);
  return Out;
}

/// CTAs per SM for 256-thread CTAs on an SM with 65536 registers (allocated per warp in units
/// of 256) and 2048 threads.
uint32_t ctasPerSm(uint32_t Registers) {
  uint32_t PerWarp = (Registers * 32 + 255) / 256 * 256;
  return std::min(65536 / PerWarp / 8, 2048u / 256u);
}

} // namespace

TEST_CASE("registers and shared memory agree with ptxas on the nvcc test kernels" *
          doctest::skip(std::string(PTXCAST_PTXAS).empty())) {
  std::vector<std::string> Files;
  if (std::filesystem::exists(PTXCAST_KERNEL_DIR))
    for (const auto &E : std::filesystem::directory_iterator(PTXCAST_KERNEL_DIR))
      if (E.path().string().ends_with(".sm_90.ptx"))
        Files.push_back(E.path().string());
  if (Files.empty()) {
    MESSAGE("no kernels in " PTXCAST_KERNEL_DIR);
    return;
  }
  std::vector<double> Errors;
  size_t SameBucket = 0;
  for (const std::string &File : Files) {
    CAPTURE(File);
    support::Expected<ptx::Module> M = ptx::parseFile(File);
    REQUIRE(M);
    std::map<std::string, PtxasNumbers> Ref = runPtxas(File);
    for (const ptx::Function &F : M->functions) {
      if (!F.isEntry || !F.hasBody)
        continue;
      CAPTURE(F.name);
      REQUIRE(Ref.count(F.name));
      ptx::KernelResources R = ptx::estimateResources(*M, F);
      CHECK(R.staticSharedBytes == Ref[F.name].shared); // exact
      double Reg = Ref[F.name].registers;
      Errors.push_back(std::abs(R.registers - Reg) / Reg);
      SameBucket += ctasPerSm(R.registers) == ctasPerSm(Ref[F.name].registers);
    }
  }
  REQUIRE(Errors.size() >= 10);
  std::sort(Errors.begin(), Errors.end());
  // Measured with ptxas 13.0 on the 22 kernels without tensor cores: median 32 %, 21 of 22 in
  // ptxas's occupancy bucket (docs/ptx-frontend.md); the tensor-core kernels (mma/wmma
  // fragments, where ptxas allocates 38-44 registers against an estimate of about 30) bring it to
  // 26 of 32. The bounds leave room for another ptxas, not for a broken analysis.
  CHECK(Errors[Errors.size() / 2] <= 0.40);
  CHECK(double(SameBucket) / double(Errors.size()) >= 0.75);
}
