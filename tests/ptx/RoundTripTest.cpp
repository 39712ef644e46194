// parse -> print -> parse gives an equal module for real compiler output (nvcc sm_75/sm_90 and
// llc-19 kernels built into PTXCAST_KERNEL_DIR, plus the fixtures in tests/ptx/fixtures) and for
// every fuzzer regression input that parses; ptxas accepts the printed text.
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

using namespace ptx;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> filesIn(const std::string &Dir, const std::string &Ext) {
  std::vector<std::string> Files;
  if (!fs::is_directory(Dir))
    return Files;
  for (const fs::directory_entry &E : fs::directory_iterator(Dir))
    if (E.is_regular_file() && (Ext.empty() || E.path().extension() == Ext))
      Files.push_back(E.path().string());
  std::sort(Files.begin(), Files.end());
  return Files;
}

std::string fixtureDir() { return std::string(PTXCAST_SOURCE_DIR) + "/tests/ptx/fixtures"; }

/// Parses `Path`, prints it, re-parses the text: both parses succeed and agree.
void checkRoundTrip(const std::string &Path) {
  CAPTURE(Path);
  support::Expected<Module> M = parseFile(Path);
  if (!M)
    FAIL(M.error().str());
  std::string Text = print(*M);
  support::Expected<Module> Back = parseModule(Text, "printed.ptx");
  if (!Back)
    FAIL(Back.error().str());
  CHECK(*Back == *M);
  CHECK(print(*Back) == Text); // printing is a fixed point
  CHECK_FALSE(M->functions.empty());
}

/// ptxas (compile only, externs allowed) accepts the printed module.
void checkPtxas(const std::string &Path) {
  CAPTURE(Path);
  support::Expected<Module> M = parseFile(Path);
  REQUIRE(M);
  // `.target sm_90, debug` needs the DWARF sections the parser drops.
  M->targets.erase(std::remove(M->targets.begin(), M->targets.end(), "debug"), M->targets.end());
  fs::path Out = fs::temp_directory_path() / ("ptxcast_rt_" + std::to_string(getpid()) + "_" +
                                              fs::path(Path).filename().string());
  {
    std::ofstream OS(Out);
    OS << print(*M);
  }
  std::string Cmd =
      std::string(PTXCAST_PTXAS) + " -c -arch=sm_90 " + Out.string() + " -o /dev/null 2>&1";
  int Rc = std::system(Cmd.c_str());
  CHECK(Rc == 0);
  fs::remove(Out);
}

} // namespace

TEST_CASE("fixtures round-trip") {
  std::vector<std::string> Files = filesIn(fixtureDir(), ".ptx");
  REQUIRE(Files.size() >= 8);
  for (const std::string &F : Files)
    checkRoundTrip(F);
}

TEST_CASE("real nvcc and llc-19 kernels from PTXCAST_KERNEL_DIR round-trip") {
  std::vector<std::string> Files = filesIn(PTXCAST_KERNEL_DIR, ".ptx");
  if (Files.empty()) {
    MESSAGE("no kernels in " PTXCAST_KERNEL_DIR);
    return;
  }
  for (const std::string &F : Files)
    checkRoundTrip(F);
}

TEST_CASE("ptxas accepts the printed text" * doctest::skip(std::string(PTXCAST_PTXAS).empty())) {
  for (const std::string &F : filesIn(fixtureDir(), ".ptx"))
    checkPtxas(F);
  // a few real kernels: the first nvcc and the first llc output, if built
  std::vector<std::string> Kernels = filesIn(PTXCAST_KERNEL_DIR, ".ptx");
  auto Nvcc = std::find_if(Kernels.begin(), Kernels.end(),
                           [](const std::string &P) { return P.find(".sm_90.") != P.npos; });
  auto Llc = std::find_if(Kernels.begin(), Kernels.end(),
                          [](const std::string &P) { return P.find(".llc.") != P.npos; });
  if (Nvcc != Kernels.end())
    checkPtxas(*Nvcc);
  if (Llc != Kernels.end())
    checkPtxas(*Llc);
}

TEST_CASE("fuzzer regressions parse to a value or an error, and values round-trip") {
  std::vector<std::string> Files =
      filesIn(std::string(PTXCAST_SOURCE_DIR) + "/tests/ptx/regressions", "");
  REQUIRE(Files.size() >= 10);
  for (const std::string &Path : Files) {
    if (fs::path(Path).extension() == ".md")
      continue;
    CAPTURE(Path);
    support::Expected<Module> M = parseFile(Path);
    if (!M) {
      CHECK_FALSE(M.error().message.empty());
      continue;
    }
    support::Expected<Module> Back = parseModule(print(*M), "printed.ptx");
    if (!Back)
      FAIL(Back.error().str());
    CHECK(*Back == *M);
  }
}
