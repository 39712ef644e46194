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
