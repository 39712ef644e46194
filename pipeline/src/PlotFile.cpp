// Plot files: the checks made before any work, and atomic SVG and PNG writes (HeatMap.h).
#include "pipeline/HeatMap.h"

#include "support/Files.h"

#include <cstdlib>
#include <filesystem>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace pipeline {
namespace {

namespace fs = std::filesystem;

constexpr const char *Converter = "rsvg-convert";
constexpr const char *NoConverter =
    "cannot write PNG: rsvg-convert (Debian package librsvg2-bin) is not installed; install it "
    "or write FILE.svg";

/// Whether Program is an executable file in a folder of $PATH.
bool onPath(const std::string &Program) {
  const char *Path = std::getenv("PATH");
  std::string Dirs = Path ? Path : "";
  for (size_t Start = 0; Start <= Dirs.size();) {
    size_t End = std::min(Dirs.find(':', Start), Dirs.size());
    fs::path Dir = Dirs.substr(Start, End - Start);
    if (access((Dir.empty() ? fs::path(".") : Dir / Program).c_str(), X_OK) == 0)
      return true;
    Start = End + 1;
  }
  return false;
}

/// A name for a temporary file beside Path, private to this process.
std::string temporaryBeside(const std::string &Path, const std::string &Ext) {
  return Path + ".tmp" + std::to_string(getpid()) + Ext;
}

/// Runs rsvg-convert In -> Out; an Error naming Path when it cannot run or fails.
support::MaybeError convertToPng(const std::string &In, const std::string &Out,
                                 const std::string &Path) {
  std::string Prog = Converter, Flag = "-o";
  std::vector<char *> Argv = {Prog.data(), Flag.data(), const_cast<char *>(Out.c_str()),
                              const_cast<char *>(In.c_str()), nullptr};
  pid_t Pid;
  if (posix_spawnp(&Pid, Prog.c_str(), nullptr, nullptr, Argv.data(), environ) != 0)
    return support::Error(Path, 0, 0, NoConverter);
  int Status = 0;
  waitpid(Pid, &Status, 0);
  if (WIFEXITED(Status) && WEXITSTATUS(Status) == 127)
    return support::Error(Path, 0, 0, NoConverter);
  if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0)
    return support::Error(Path, 0, 0, "rsvg-convert failed to convert the plot to PNG");
  return std::nullopt;
}

} // namespace

support::MaybeError checkPlotPath(const std::string &Path) {
  const std::string Ext = fs::path(Path).extension().string();
  if (Ext != ".svg" && Ext != ".png")
    return support::Error(Path, 0, 0, "plot files end in .svg or .png");
  fs::path Dir = fs::path(Path).parent_path();
  if (Dir.empty())
    Dir = ".";
  std::error_code Ec;
  if (!fs::is_directory(Dir, Ec))
    return support::Error(Path, 0, 0, "cannot write the plot: no folder '" + Dir.string() + "'");
  if (access(Dir.c_str(), W_OK) != 0)
    return support::Error(Path, 0, 0,
                          "cannot write the plot: folder '" + Dir.string() + "' is not writable");
  if (Ext == ".png" && !onPath(Converter))
    return support::Error(Path, 0, 0, NoConverter);
  return std::nullopt;
}

support::MaybeError writePlot(const std::string &Svg, const std::string &Path) {
  if (auto E = checkPlotPath(Path))
    return E;
  if (fs::path(Path).extension() == ".svg") {
    if (auto E = support::writeFileAtomically(Path, Svg))
      return support::Error(Path, 0, 0, "cannot write the plot");
    return std::nullopt;
  }
  // rsvg-convert reads the SVG from the system's temporary folder and writes the PNG beside
  // Path, renamed into place when whole.
  const fs::path SvgFile =
      fs::temp_directory_path() / ("ptxcast-plot-" + std::to_string(getpid()) + ".svg");
  if (auto E = support::writeFileAtomically(SvgFile.string(), Svg))
    return support::Error(Path, 0, 0, "cannot write the plot: no room in the temporary folder");
  const std::string Png = temporaryBeside(Path, ".png");
  auto E = convertToPng(SvgFile.string(), Png, Path);
  std::error_code Ec;
  fs::remove(SvgFile, Ec);
  if (!E) {
    fs::rename(Png, Path, Ec);
    if (Ec)
      E = support::Error(Path, 0, 0, "cannot write the plot: " + Ec.message());
  }
  if (E)
    fs::remove(Png, Ec);
  return E;
}

} // namespace pipeline
