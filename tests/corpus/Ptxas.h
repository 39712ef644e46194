// ptxas acceptance for the kernel tests: assembles PTX text with the CUDA toolkit's ptxas
// (PTXCAST_PTXAS, empty when the build found none).
#pragma once

#include <doctest/doctest.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace ptxastest {

inline bool havePtxas() { return std::string(PTXCAST_PTXAS).size() > 0; }

/// Runs ptxas on `Ptx` for `Arch`; returns "" on success, else ptxas's output.
inline std::string ptxasErrors(const std::string &Ptx, const std::string &Arch) {
  static std::atomic<int> Counter{0};
  auto Path =
      std::filesystem::temp_directory_path() /
      ("ptxcast_kernelgen_" + std::to_string(getpid()) + "_" + std::to_string(Counter++) + ".ptx");
  std::ofstream(Path) << Ptx;
  std::string Cmd =
      std::string(PTXCAST_PTXAS) + " -arch=" + Arch + " " + Path.string() + " -o /dev/null 2>&1";
  std::string Out;
  FILE *Pipe = popen(Cmd.c_str(), "r");
  REQUIRE(Pipe != nullptr);
  std::array<char, 256> Buf;
  while (fgets(Buf.data(), Buf.size(), Pipe))
    Out += Buf.data();
  int Rc = pclose(Pipe);
  std::filesystem::remove(Path);
  return Rc == 0 ? std::string() : "ptxas failed (" + std::to_string(Rc) + "): " + Out;
}

} // namespace ptxastest
