// Every real compiler-generated test kernel (nvcc sm_75/sm_90, llc-19) decodes with no
// unsupported instruction.
#include "analyzer/Interpreter.h"
#include "analyzer/Program.h"
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>

namespace {

std::vector<std::filesystem::path> kernelFiles() {
  namespace fs = std::filesystem;
  std::vector<fs::path> Files;
  if (fs::exists(PTXCAST_KERNEL_DIR))
    for (const fs::directory_entry &E : fs::directory_iterator(PTXCAST_KERNEL_DIR))
      if (E.path().extension() == ".ptx")
        Files.push_back(E.path());
  std::sort(Files.begin(), Files.end());
  if (Files.empty())
    MESSAGE("no compiled test kernels in " PTXCAST_KERNEL_DIR);
  return Files;
}

} // namespace

TEST_CASE("every test kernel decodes with no unsupported instruction") {
  for (const std::filesystem::path &F : kernelFiles()) {
    CAPTURE(F.string());
    support::Expected<ptx::Module> M = ptx::parseFile(F.string());
    REQUIRE_MESSAGE(M, support::errorText(M));
    support::Expected<analyzer::Program> P = analyzer::decodeProgram(*M);
    REQUIRE_MESSAGE(P, support::errorText(P));
    for (const std::string &K : P->kernels())
      for (const support::Error &E : P->unsupported(K))
        FAIL_CHECK(E.str());
  }
}

TEST_CASE("hostile launches trap cleanly: null pointers, odd geometry, a tiny budget") {
  // Every kernel with every pointer 0 and every scalar 0x7fffffff (huge sizes), in a 3-D grid
  // with a partial last warp: the run must end in a trap or finish, never in undefined
  // behaviour (this test matters most under the sanitizers).
  for (const std::filesystem::path &F : kernelFiles()) {
    support::Expected<ptx::Module> M = ptx::parseFile(F.string());
    REQUIRE(M);
    support::Expected<analyzer::Program> P = analyzer::decodeProgram(*M);
    REQUIRE(P);
    for (const std::string &K : P->kernels()) {
      CAPTURE(F.filename().string() + ":" + K);
      for (uint64_t Fill : {uint64_t(0), uint64_t(0x7fffffff)}) {
        analyzer::LaunchConfig L;
        L.grid = {2, 2, 1};
        L.block = {33, 2, 1};
        L.sharedBytes = 1024;
        for (uint32_t Size : P->paramSizes(K))
          L.args.push_back(analyzer::KernelArg::raw(Fill, Size * 8));
        analyzer::Device D;
        analyzer::RunSettings S;
        S.maxWarpInstructions = 20000;
        analyzer::RunResult R = analyzer::runKernel(*P, K, L, D, S);
        if (R.trap)
          CHECK(R.trap->kind != analyzer::TrapKind::BadLaunch);
      }
    }
  }
}
