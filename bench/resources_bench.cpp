// Time of ptx::estimateResources per kernel (parsing excluded): the fastest of --runs calls per
// kernel, then the median, 90th percentile and maximum over kernels.
// Usage: resources_bench [--runs N] [FILE.ptx ...]   (default: every PTX file in the build's
// kernels/ directory; pass a lowered model's DIR/kernels*.ptx for zoo kernels)
#include "ptx/Parser.h"
#include "ptx/Resources.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace {

struct Timing {
  double micros = 0;
  std::string kernel;
  size_t instructions = 0;
};

double fastestMicros(const ptx::Module &M, const ptx::Function &F, int Runs) {
  double Best = 1e300;
  for (int R = 0; R < Runs; ++R) {
    auto Start = std::chrono::steady_clock::now();
    volatile uint32_t Sink = ptx::estimateResources(M, F).registers;
    (void)Sink;
    std::chrono::duration<double, std::micro> D = std::chrono::steady_clock::now() - Start;
    Best = std::min(Best, D.count());
  }
  return Best;
}

std::vector<std::string> defaultFiles() {
  std::vector<std::string> Paths;
  if (std::filesystem::is_directory(PTXCAST_KERNEL_DIR))
    for (const auto &E : std::filesystem::directory_iterator(PTXCAST_KERNEL_DIR))
      if (E.path().extension() == ".ptx")
        Paths.push_back(E.path().string());
  std::sort(Paths.begin(), Paths.end());
  return Paths;
}

} // namespace

int main(int Argc, char **Argv) {
  int Runs = 7;
  std::vector<std::string> Files;
  for (int A = 1; A < Argc; ++A) {
    std::string Arg = Argv[A];
    if (Arg == "--runs" && A + 1 < Argc)
      Runs = std::max(1, std::atoi(Argv[++A]));
    else
      Files.push_back(Arg);
  }
  if (Files.empty())
    Files = defaultFiles();
  std::vector<Timing> Times;
  for (const std::string &File : Files) {
    support::Expected<ptx::Module> M = ptx::parseFile(File);
    if (!M) {
      fmt::print(stderr, "{}\n", M.error().str());
      return 1;
    }
    for (const ptx::Function &F : M->functions) {
      if (!F.isEntry || !F.hasBody)
        continue;
      Timing T{fastestMicros(*M, F, Runs), F.name, 0};
      for (const ptx::BasicBlock &B : F.blocks)
        T.instructions += B.instrs.size();
      Times.push_back(std::move(T));
    }
  }
  if (Times.empty()) {
    fmt::print(stderr, "resources_bench: no kernels\n");
    return 1;
  }
  std::sort(Times.begin(), Times.end(),
            [](const Timing &A, const Timing &B) { return A.micros < B.micros; });
  const Timing &Max = Times.back();
  fmt::print("{} kernels: median {:.1f} us, p90 {:.1f} us, max {:.1f} us ({}, {} instructions)\n",
             Times.size(), Times[Times.size() / 2].micros, Times[Times.size() * 9 / 10].micros,
             Max.micros, Max.kernel, Max.instructions);
  return 0;
}
