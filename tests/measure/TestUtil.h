// Helpers for tests that run the ptxcast-measure binary: temp folders, files, captured stderr.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace measure_test {

inline std::string readAll(const std::filesystem::path &P) {
  std::ifstream In(P, std::ios::binary);
  std::stringstream Ss;
  Ss << In.rdbuf();
  return Ss.str();
}

/// A fresh, empty folder under the system temp folder.
inline std::filesystem::path makeDir(const std::string &Name) {
  std::filesystem::path Dir = std::filesystem::temp_directory_path() / Name;
  std::filesystem::remove_all(Dir);
  std::filesystem::create_directories(Dir);
  return Dir;
}

/// Runs Command with stderr sent to a file in Dir; returns the exit status and the stderr text.
inline std::pair<int, std::string> runCapture(const std::string &Command,
                                              const std::filesystem::path &Dir) {
  std::filesystem::path Err = Dir / "stderr.txt";
  int Raw = std::system((Command + " 2> '" + Err.string() + "'").c_str());
  int Status = WIFEXITED(Raw) ? WEXITSTATUS(Raw) : -1;
  return {Status, readAll(Err)};
}

} // namespace measure_test
