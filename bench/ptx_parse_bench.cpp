// PTX parse throughput: one >= 20 MB module built from the real nvcc/llc test kernels (copies with
// functions and globals renamed so the module stays valid), parsed repeatedly on one core.
// Usage: ptx_parse_bench [--mb N] [--runs N] [--out FILE]   (prints the median MB/s)
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace fs = std::filesystem;
using namespace ptx;

namespace {

struct Options {
  double targetMb = 24;
  int runs = 7;
  std::string out;
};

std::vector<Module> loadKernels(const std::string &Dir) {
  std::vector<std::string> Paths;
  if (fs::is_directory(Dir))
    for (const fs::directory_entry &E : fs::directory_iterator(Dir))
      if (E.path().extension() == ".ptx")
        Paths.push_back(E.path().string());
  std::sort(Paths.begin(), Paths.end());
  std::vector<Module> Mods;
  for (const std::string &P : Paths) {
    support::Expected<Module> M = parseFile(P);
    if (!M) {
      fmt::print(stderr, "skipping {}\n", M.error().str());
      continue;
    }
    Mods.push_back(std::move(*M));
  }
  return Mods;
}

void renameOperand(Operand &O, const std::unordered_map<std::string, std::string> &Map) {
  if (O.kind == Operand::Kind::Symbol || O.kind == Operand::Kind::Address) {
    auto It = Map.find(O.name);
    if (It != Map.end())
      O.name = It->second;
  }
  for (Operand &E : O.elems)
    renameOperand(E, Map);
}

/// Copy `Copy` of module M: every global and non-extern function gets the suffix `_cN`.
Module renamedCopy(const Module &M, size_t Copy) {
  Module R = M;
  std::unordered_map<std::string, std::string> Map;
  std::string Suffix = "_c" + std::to_string(Copy);
  for (const Variable &V : R.globals)
    Map[V.name] = V.name + Suffix;
  for (const Function &F : R.functions)
    if (F.linkage != Linkage::Extern)
      Map[F.name] = F.name + Suffix;
  for (Variable &V : R.globals) {
    V.name = Map[V.name];
    for (Operand &O : V.init)
      renameOperand(O, Map);
  }
  for (Function &F : R.functions) {
    if (F.linkage != Linkage::Extern)
      F.name = Map[F.name];
    for (BasicBlock &B : F.blocks)
      for (Instruction &I : B.instrs)
        for (Operand &O : I.operands)
          renameOperand(O, Map);
  }
  return R;
}

/// One module text of at least `TargetBytes` bytes from renamed copies of the kernels.
std::string buildInput(const std::vector<Module> &Kernels, size_t TargetBytes) {
  Module Big;
  Big.versionMajor = 9;
  Big.versionMinor = 0;
  Big.targets = {"sm_90"};
  std::set<std::string> Externs;
  for (const Module &K : Kernels)
    for (const Function &F : K.functions)
      if (F.linkage == Linkage::Extern && Externs.insert(F.name).second)
        Big.functions.push_back(F);
  size_t Bytes = 0;
  for (size_t Copy = 0; Bytes < TargetBytes; ++Copy) {
    for (const Module &K : Kernels) {
      Module R = renamedCopy(K, Copy);
      Bytes += print(R).size();
      for (Variable &V : R.globals)
        Big.globals.push_back(std::move(V));
      for (Function &F : R.functions)
        if (F.linkage != Linkage::Extern)
          Big.functions.push_back(std::move(F));
    }
  }
  return print(Big);
}

double threadCpuSeconds() {
  timespec T{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
  return static_cast<double>(T.tv_sec) + static_cast<double>(T.tv_nsec) * 1e-9;
}

Options parseArgs(int Argc, char **Argv) {
  Options O;
  for (int I = 1; I + 1 < Argc; I += 2) {
    std::string A = Argv[I];
    if (A == "--mb")
      O.targetMb = std::atof(Argv[I + 1]);
    else if (A == "--runs")
      O.runs = std::max(1, std::atoi(Argv[I + 1]));
    else if (A == "--out")
      O.out = Argv[I + 1];
  }
  return O;
}

} // namespace

int main(int Argc, char **Argv) {
  Options Opt = parseArgs(Argc, Argv);
  std::vector<Module> Kernels = loadKernels(PTXCAST_KERNEL_DIR);
  if (Kernels.empty()) {
    fmt::print(stderr, "no kernels in {} (build the test_kernels target)\n", PTXCAST_KERNEL_DIR);
    return 1;
  }
  std::string Text = buildInput(Kernels, static_cast<size_t>(Opt.targetMb * 1e6));
  if (!Opt.out.empty())
    std::ofstream(Opt.out) << Text;
  support::Expected<Module> Check = parseModule(Text, "bench.ptx");
  if (!Check) {
    fmt::print(stderr, "generated input does not parse: {}\n", Check.error().str());
    return 1;
  }
  size_t Instrs = 0;
  for (const Function &F : Check->functions)
    for (const BasicBlock &B : F.blocks)
      Instrs += B.instrs.size();
  fmt::print("input: {:.1f} MB, {} kernels x copies, {} functions, {} instructions\n",
             Text.size() / 1e6, Kernels.size(), Check->functions.size(), Instrs);
  // Wall time, and this thread's CPU time (robust when other jobs share the cores).
  std::vector<double> Wall, Cpu;
  for (int R = 0; R < Opt.runs; ++R) {
    auto T0 = std::chrono::steady_clock::now();
    double C0 = threadCpuSeconds();
    support::Expected<Module> M = parseModule(Text, "bench.ptx");
    double C1 = threadCpuSeconds();
    auto T1 = std::chrono::steady_clock::now();
    if (!M)
      return 1;
    Wall.push_back(Text.size() / 1e6 / std::chrono::duration<double>(T1 - T0).count());
    Cpu.push_back(Text.size() / 1e6 / (C1 - C0));
    fmt::print("run {}: {:.1f} MB/s wall, {:.1f} MB/s cpu\n", R + 1, Wall.back(), Cpu.back());
  }
  std::sort(Wall.begin(), Wall.end());
  std::sort(Cpu.begin(), Cpu.end());
  fmt::print("median parse throughput over {} runs: {:.1f} MB/s wall (min {:.1f}, max {:.1f}), "
             "{:.1f} MB/s thread cpu time\n",
             Wall.size(), Wall[Wall.size() / 2], Wall.front(), Wall.back(), Cpu[Cpu.size() / 2]);
  return 0;
}
