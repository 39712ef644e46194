// Interpreter throughput in exact mode, one core: thread-instructions per second on (a) a fully
// converged arithmetic kernel and (b) a memory-heavy kernel, both embedded PTX. Optional: any
// launch manifest given on the command line (docs/benchmarks.md, "Interpreter").
#include "analyzer/Interpreter.h"
#include "analyzer/Manifest.h"
#include "ptx/Parser.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <string>

namespace {

// (a) 64 dependent-free FMA/int operations per trip, 256 trips, every lane converged.
std::string arithmeticPtx() {
  std::string Body;
  for (int K = 0; K < 16; ++K)
    Body += fmt::format("  fma.rn.f32 %f{0}, %f{0}, %f9, %f10;\n"
                        "  add.s32 %r{1}, %r{1}, %r1;\n"
                        "  mul.f32 %f{2}, %f{2}, %f10;\n"
                        "  xor.b32 %r{3}, %r{3}, %r2;\n",
                        K % 8 + 1, K % 4 + 4, (K + 3) % 8 + 1, (K + 1) % 4 + 4);
  return R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry arith(.param .u64 out, .param .u32 trips)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r10, [trips];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r4, %r1; mov.u32 %r5, %r2; mov.u32 %r6, 3; mov.u32 %r7, 5;
  cvt.rn.f32.u32 %f1, %r1;
  mov.f32 %f2, %f1; mov.f32 %f3, %f1; mov.f32 %f4, %f1; mov.f32 %f5, %f1;
  mov.f32 %f6, %f1; mov.f32 %f7, %f1; mov.f32 %f8, %f1;
  mov.f32 %f9, 0f3F7FF000;
  mov.f32 %f10, 0f3C000000;
  mov.u32 %r3, 0;
LOOP:
)" + Body +
         R"(  add.s32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, %r10;
  @%p1 bra LOOP;
  ld.param.u64 %rd1, [out];
  mov.u32 %r8, %ntid.x;
  mad.lo.s32 %r9, %r2, %r8, %r1;
  mul.wide.u32 %rd2, %r9, 4;
  add.s64 %rd3, %rd1, %rd2;
  add.f32 %f11, %f1, %f2;
  add.s32 %r11, %r4, %r5;
  st.global.f32 [%rd3], %f11;
  ret;
}
)";
}

// (b) grid-stride y = a * x + y: two loads and a store per 8 arithmetic instructions.
const char *MemoryPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry axpy(.param .u64 x, .param .u64 y, .param .f32 a, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  ld.param.f32 %f1, [a];
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
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.nc.f32 %f2, [%rd4];
  ld.global.f32 %f3, [%rd5];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd5], %f4;
  add.u32 %r5, %r5, %r7;
  setp.lt.u32 %p1, %r5, %r1;
  @%p1 bra LOOP;
END:
  ret;
}
)";

struct Measured {
  analyzer::KernelProfile profile;
  double seconds = 0;    ///< wall time, median of the runs
  double cpuSeconds = 0; ///< this thread's CPU time, median of the runs
};

double threadCpuSeconds() {
  timespec T;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
  return double(T.tv_sec) + double(T.tv_nsec) * 1e-9;
}

constexpr int Runs = 5;

Measured timeLaunch(const std::string &Text, const std::string &Kernel, analyzer::LaunchConfig L,
                    analyzer::Device &D) {
  support::Expected<ptx::Module> M = ptx::parseModule(Text, Kernel + ".ptx");
  if (!M) {
    fmt::print(stderr, "{}\n", M.error().str());
    std::exit(1);
  }
  support::Expected<analyzer::Program> P = analyzer::decodeProgram(*M);
  if (!P) {
    fmt::print(stderr, "{}\n", P.error().str());
    std::exit(1);
  }
  std::vector<double> Wall, Cpu;
  analyzer::KernelProfile Profile;
  for (int K = 0; K < Runs; ++K) {
    auto T0 = std::chrono::steady_clock::now();
    double C0 = threadCpuSeconds();
    analyzer::RunResult R = analyzer::runKernel(*P, Kernel, L, D); // same counts each run
    double C1 = threadCpuSeconds();
    auto T1 = std::chrono::steady_clock::now();
    if (!R.ok()) {
      fmt::print(stderr, "{}\n", R.trap->str());
      std::exit(1);
    }
    Wall.push_back(std::chrono::duration<double>(T1 - T0).count());
    Cpu.push_back(C1 - C0);
    Profile = R.profile;
  }
  std::sort(Wall.begin(), Wall.end());
  std::sort(Cpu.begin(), Cpu.end());
  return {Profile, Wall[Runs / 2], Cpu[Runs / 2]};
}

void report(const char *Name, const Measured &M) {
  double Thread = double(M.profile.threadInstructionsTotal());
  double Warp = double(M.profile.warpInstructionsTotal());
  double Cpu = M.cpuSeconds > 0 ? M.cpuSeconds : M.seconds;
  fmt::print("{:<28} {:>14.0f} {:>12.0f} {:>9.3f} {:>12.1f} {:>12.1f} {:>12.1f}\n", Name, Thread,
             Warp, M.seconds, Thread / M.seconds / 1e6, Thread / Cpu / 1e6, Warp / Cpu / 1e6);
}

} // namespace

int main(int argc, char **argv) {
  fmt::print("{:<28} {:>14} {:>12} {:>9} {:>12} {:>12} {:>12}\n", "kernel", "thread instr",
             "warp instr", "wall s", "M thr/s wall", "M thr/s cpu", "M warp/s cpu");
  {
    analyzer::Device D;
    uint64_t Out = *D.allocate("out", 64 * 256 * 4);
    analyzer::LaunchConfig L;
    L.grid = {64, 1, 1};
    L.block = {256, 1, 1};
    L.args = {analyzer::KernelArg::pointer(Out), analyzer::KernelArg::u32(256)};
    report("arithmetic (converged)", timeLaunch(arithmeticPtx(), "arith", L, D));
  }
  {
    analyzer::Device D;
    const uint32_t N = 1 << 22;
    uint64_t X = *D.allocate("x", N * 4ull), Y = *D.allocate("y", N * 4ull);
    analyzer::LaunchConfig L;
    L.grid = {512, 1, 1};
    L.block = {256, 1, 1};
    L.args = {analyzer::KernelArg::pointer(X), analyzer::KernelArg::pointer(Y),
              analyzer::KernelArg::f32(2.0f), analyzer::KernelArg::u32(N)};
    report("memory (grid-stride axpy)", timeLaunch(MemoryPtx, "axpy", L, D));
  }
  for (int A = 1; A < argc; ++A) { // extra manifests: whole-run time
    support::Expected<analyzer::Manifest> M = analyzer::loadManifest(argv[A]);
    if (!M) {
      fmt::print(stderr, "{}\n", M.error().str());
      return 1;
    }
    auto T0 = std::chrono::steady_clock::now();
    support::Expected<analyzer::ManifestRun> R = analyzer::runManifest(*M);
    auto T1 = std::chrono::steady_clock::now();
    if (!R) {
      fmt::print(stderr, "{}\n", R.error().str());
      return 1;
    }
    Measured Sum;
    for (const analyzer::KernelProfile &P : R->launches)
      Sum.profile.accumulate(P);
    Sum.seconds = std::chrono::duration<double>(T1 - T0).count();
    report(argv[A], Sum);
  }
  return 0;
}
