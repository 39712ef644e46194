// Helpers for functional tests: load a compiled test kernel, move typed data in and out of an
// analyzer::Device, launch through the interpreter's C++ API, compare with a CPU reference.
#pragma once

#include "analyzer/Device.h"
#include "analyzer/Interpreter.h"
#include "analyzer/Program.h"
#include "ptx/Parser.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace reftest {

/// `PTXCAST_KERNEL_DIR/Name.Arch.ptx` (Arch: sm_75, sm_80, sm_90, or llc).
inline std::string kernelPath(const std::string &Name, const std::string &Arch) {
  return std::string(PTXCAST_KERNEL_DIR) + "/" + Name + "." + Arch + ".ptx";
}

/// nvcc-compiled kernels exist only where CMake found nvcc.
inline bool haveNvcc() { return std::string_view(PTXCAST_NVCC).size() > 0; }

/// The architectures nvcc compiles every tests/kernels/*.cu for (tests/CMakeLists.txt).
inline const std::vector<std::string> &nvccArchs() {
  static const std::vector<std::string> Archs = {"sm_75", "sm_80", "sm_90"};
  return Archs;
}

/// Parses and decodes a kernel file and checks that `Kernel` has no unsupported instruction;
/// reports every problem as a test failure and returns nullopt then.
inline std::optional<analyzer::Program> loadKernel(const std::string &Path,
                                                   const std::string &Kernel) {
  auto M = ptx::parseFile(Path);
  if (!M) {
    FAIL_CHECK(M.error().str());
    return std::nullopt;
  }
  auto P = analyzer::decodeProgram(*M);
  if (!P) {
    FAIL_CHECK(P.error().str());
    return std::nullopt;
  }
  if (!P->hasKernel(Kernel)) {
    FAIL_CHECK("no kernel '" << Kernel << "' in " << Path);
    return std::nullopt;
  }
  auto Unsupported = P->unsupported(Kernel);
  for (const support::Error &E : Unsupported)
    FAIL_CHECK(E.str());
  if (!Unsupported.empty())
    return std::nullopt;
  return std::move(*P);
}

/// Allocates buffer `Name` holding `Data`; returns its address as a kernel argument.
template <class T>
analyzer::KernelArg upload(analyzer::Device &D, const std::string &Name,
                           const std::vector<T> &Data) {
  auto Addr = D.allocate(Name, std::max<uint64_t>(1, Data.size() * sizeof(T)));
  REQUIRE_MESSAGE(bool(Addr), support::errorText(Addr));
  auto Bytes = std::span(reinterpret_cast<const uint8_t *>(Data.data()), Data.size() * sizeof(T));
  REQUIRE(D.write(*Addr, Bytes));
  return analyzer::KernelArg::pointer(*Addr);
}

/// The contents of buffer `Name` as elements of T.
template <class T> std::vector<T> download(analyzer::Device &D, const std::string &Name) {
  const analyzer::Buffer *B = D.find(Name);
  REQUIRE(B != nullptr);
  std::vector<T> Out(B->bytes() / sizeof(T));
  std::memcpy(Out.data(), B->data.data(), Out.size() * sizeof(T));
  return Out;
}

/// Runs one launch; a trap is a test failure (with the interpreter's message).
inline bool launch(const analyzer::Program &P, const std::string &Kernel, analyzer::Dim3 Grid,
                   analyzer::Dim3 Block, std::vector<analyzer::KernelArg> Args, analyzer::Device &D,
                   uint32_t SharedBytes = 0) {
  analyzer::LaunchConfig L;
  L.grid = Grid;
  L.block = Block;
  L.sharedBytes = SharedBytes;
  L.args = std::move(Args);
  analyzer::RunResult R = analyzer::runKernel(P, Kernel, L, D);
  if (R.trap)
    FAIL_CHECK(R.trap->str());
  return R.ok();
}

/// Seeded uniform values in [Lo, Hi].
inline std::vector<float> randomFloats(size_t N, uint32_t Seed, float Lo = -1, float Hi = 1) {
  std::mt19937 G(Seed);
  std::uniform_real_distribution<float> U(Lo, Hi);
  std::vector<float> V(N);
  for (float &X : V)
    X = U(G);
  return V;
}
inline std::vector<int32_t> randomInts(size_t N, uint32_t Seed, int32_t Lo, int32_t Hi) {
  std::mt19937 G(Seed);
  std::uniform_int_distribution<int32_t> U(Lo, Hi);
  std::vector<int32_t> V(N);
  for (int32_t &X : V)
    X = U(G);
  return V;
}

/// Element-wise comparison: |got - want| <= Rel * |want| (NaN matches NaN, inf matches inf).
/// Reports the first mismatches and their count; true when every element matched.
inline bool checkClose(const std::vector<float> &Got, const std::vector<float> &Want, double Rel,
                       const std::string &What) {
  REQUIRE_MESSAGE(Got.size() == Want.size(), What);
  size_t Bad = 0;
  for (size_t I = 0; I < Got.size(); ++I) {
    double G = Got[I], W = Want[I];
    bool Ok = (std::isnan(G) && std::isnan(W)) || G == W || std::fabs(G - W) <= Rel * std::fabs(W);
    if (!Ok && ++Bad <= 5)
      FAIL_CHECK(What << "[" << I << "]: got " << G << ", want " << W);
  }
  CHECK_MESSAGE(Bad == 0, What << ": " << Bad << " of " << Got.size() << " elements differ");
  return Bad == 0;
}

template <class T>
void checkEqual(const std::vector<T> &Got, const std::vector<T> &Want, const std::string &What) {
  REQUIRE_MESSAGE(Got.size() == Want.size(), What);
  size_t Bad = 0;
  for (size_t I = 0; I < Got.size(); ++I)
    if (Got[I] != Want[I] && ++Bad <= 5)
      FAIL_CHECK(What << "[" << I << "]: got " << Got[I] << ", want " << Want[I]);
  CHECK_MESSAGE(Bad == 0, What << ": " << Bad << " of " << Got.size() << " elements differ");
}

/// Runs `Kernel(const int *in, int *out, int n)` from tests/kernels/File.cu on every nvcc arch,
/// one thread per element in 1-D blocks of Block threads, and checks out == Want exactly.
inline void checkIntMap(const std::string &File, const std::string &Kernel,
                        const std::vector<int32_t> &In, const std::vector<int32_t> &Want,
                        uint32_t Block) {
  const int32_t N = int32_t(In.size());
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch << " block " << Block);
    auto P = loadKernel(kernelPath(File, Arch), Kernel);
    if (!P)
      continue;
    analyzer::Device D;
    std::vector<analyzer::KernelArg> Args = {upload(D, "in", In),
                                             upload(D, "out", std::vector<int32_t>(In.size())),
                                             analyzer::KernelArg::s32(N)};
    uint32_t Grid = (uint32_t(N) + Block - 1) / Block;
    if (launch(*P, Kernel, {Grid, 1, 1}, {Block, 1, 1}, Args, D))
      checkEqual(download<int32_t>(D, "out"), Want, Kernel + " " + Arch);
  }
}

} // namespace reftest
