// Runs the built `ptxcast` binary for CLI tests: stdout, stderr and exit status, plus file helpers.
#pragma once

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace clitest {

struct RunResult {
  int status = -1;
  std::string out, err;
};

inline std::string readAll(const std::filesystem::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

inline void writeFile(const std::filesystem::path &P, const std::string &Text) {
  std::ofstream Out(P, std::ios::binary);
  Out << Text;
  REQUIRE(Out.good());
}

/// An ONNX model that imports but does not lower: Clip(x, min = 6, max = 0) on a [1,3,8,8]
/// input, a valid graph for which the lowering has no kernel (a clip whose min is above its
/// max). 110 bytes, written by hand; its error names layer 'c'.
inline std::string unlowerableOnnx() {
  static const char Model[] =
      "\x08\x08\x12\x04\x66\x75\x7a\x7a\x42\x02\x10\x11\x3a\x60\x0a\x17\x0a\x01\x78\x0a\x02\x6c"
      "\x6f\x0a\x02\x68\x69\x12\x01\x79\x1a\x01\x63\x22\x04\x43\x6c\x69\x70\x12\x01\x67\x2a\x0c"
      "\x10\x01\x42\x02\x6c\x6f\x4a\x04\x00\x00\xc0\x40\x2a\x0c\x10\x01\x42\x02\x68\x69\x4a\x04"
      "\x00\x00\x00\x00\x5a\x1b\x0a\x01\x78\x12\x16\x0a\x14\x08\x01\x12\x10\x0a\x02\x08\x01\x0a"
      "\x02\x08\x03\x0a\x02\x08\x08\x0a\x02\x08\x08\x62\x09\x0a\x01\x79\x12\x04\x0a\x02\x08\x01";
  return std::string(Model, sizeof(Model) - 1);
}

/// A fresh directory under the system temp directory, removed with the object.
struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string &Tag)
      : path(std::filesystem::temp_directory_path() /
             ("ptxcast_" + Tag + "_" + std::to_string(getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string &Name) const { return (path / Name).string(); }
};

/// Runs `ptxcast ARGS` (a shell command line fragment) and captures its output and status.
inline RunResult runPtxcast(const std::string &Args) {
  static int Calls = 0;
  std::filesystem::path ErrFile =
      std::filesystem::temp_directory_path() /
      ("ptxcast_cli_err_" + std::to_string(getpid()) + "_" + std::to_string(Calls++));
  std::string Cmd = std::string(PTXCAST_BIN) + " " + Args + " 2>" + ErrFile.string();
  RunResult R;
  FILE *Pipe = popen(Cmd.c_str(), "r");
  REQUIRE(Pipe);
  char Buf[4096];
  for (size_t N; (N = fread(Buf, 1, sizeof Buf, Pipe)) > 0;)
    R.out.append(Buf, N);
  int Wait = pclose(Pipe);
  R.status = WIFEXITED(Wait) ? WEXITSTATUS(Wait) : -1;
  R.err = readAll(ErrFile);
  std::filesystem::remove(ErrFile);
  return R;
}

} // namespace clitest
