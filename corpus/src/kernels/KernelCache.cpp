// KernelCache: compiled kernels shared by the lowerings of one process, and library kernels kept
// across processes in a versioned directory (KernelGen.h).
#include "corpus/KernelGen.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <unistd.h>

namespace corpus {

namespace {

namespace fs = std::filesystem;

constexpr const char *KernelVersion =
#include "KernelVersion.inc"
    ;
constexpr std::string_view BodyMark = "\n// ptxcast kernel cache: body\n";

bool persistent(const std::string &Kernel) { return Kernel.rfind("lib_", 0) == 0; }

std::string firstLine(const std::string &Arch, const std::string &Kernel) {
  return "// ptxcast kernel cache: " + Arch + " " + Kernel + "\n";
}

fs::path fileOf(const std::string &Dir, const std::string &Arch, const std::string &Kernel) {
  return fs::path(Dir) / Arch / (Kernel + ".ptx");
}

/// The kernel stored in its file, or null (no file, or not one this cache wrote for the key).
std::shared_ptr<const CompiledKernel> readKernel(const std::string &Dir, const std::string &Arch,
                                                 const std::string &Kernel) {
  std::ifstream In(fileOf(Dir, Arch, Kernel), std::ios::binary);
  if (!In)
    return nullptr;
  std::ostringstream Text;
  Text << In.rdbuf();
  const std::string S = Text.str(), First = firstLine(Arch, Kernel);
  const size_t Mark = S.find(BodyMark);
  if (S.rfind(First, 0) != 0 || Mark == std::string::npos)
    return nullptr;
  CompiledKernel K;
  K.header = S.substr(First.size(), Mark - First.size());
  K.body = S.substr(Mark + BodyMark.size());
  return std::make_shared<const CompiledKernel>(std::move(K));
}

/// Versions of the kernels kept side by side (builds used in turn); older ones are removed.
constexpr size_t KeptVersions = 3;

/// Removes the `kernels-*` directories beside Dir but the KeptVersions most recently written
/// (Dir, just created, among them), so rebuilt generators do not fill the disk.
void pruneVersions(const fs::path &Dir) {
  std::error_code Ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> Versions;
  for (const fs::directory_entry &E : fs::directory_iterator(Dir.parent_path(), Ec))
    if (E.is_directory(Ec) && E.path().filename().string().rfind("kernels-", 0) == 0)
      Versions.emplace_back(E.last_write_time(Ec), E.path());
  std::sort(Versions.begin(), Versions.end(), std::greater<>());
  for (size_t I = KeptVersions; I < Versions.size(); ++I)
    if (Versions[I].second != Dir)
      fs::remove_all(Versions[I].second, Ec);
}

/// Writes the kernel's file through a temporary and a rename; a failure leaves no file (the
/// cache is an optimisation: the kernel is compiled again next time).
void writeKernel(const std::string &Dir, const std::string &Arch, const std::string &Kernel,
                 const CompiledKernel &K) {
  std::error_code Ec;
  const fs::path Path = fileOf(Dir, Arch, Kernel);
  const bool NewVersion = !fs::exists(Dir, Ec);
  fs::create_directories(Path.parent_path(), Ec);
  if (Ec)
    return;
  if (NewVersion)
    pruneVersions(Dir);
  fs::path Tmp = Path;
  Tmp += ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream Out(Tmp, std::ios::binary);
    Out << firstLine(Arch, Kernel) << K.header << BodyMark << K.body;
    if (!Out.flush()) {
      fs::remove(Tmp, Ec);
      return;
    }
  }
  fs::rename(Tmp, Path, Ec);
  if (Ec)
    fs::remove(Tmp, Ec);
}

} // namespace

std::string kernelCacheDir() {
  std::string Root;
  if (const char *Env = std::getenv("PTXCAST_KERNEL_CACHE")) {
    if (std::string(Env).empty() || std::string(Env) == "off")
      return {};
    Root = Env;
  } else if (const char *Xdg = std::getenv("XDG_CACHE_HOME"); Xdg && *Xdg) {
    Root = std::string(Xdg) + "/ptxcast";
  } else if (const char *Home = std::getenv("HOME"); Home && *Home) {
    Root = std::string(Home) + "/.cache/ptxcast";
  } else {
    return {};
  }
  return (fs::path(Root) / (std::string("kernels-") + KernelVersion)).string();
}

std::shared_ptr<const CompiledKernel> KernelCache::find(const std::string &Arch,
                                                        const std::string &Kernel) const {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Kernels.find({Arch, Kernel});
    if (It != Kernels.end()) {
      ++Hits;
      return It->second;
    }
  }
  if (Dir.empty() || !persistent(Kernel))
    return nullptr;
  auto K = readKernel(Dir, Arch, Kernel);
  if (!K)
    return nullptr;
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Hits;
  return Kernels.emplace(std::make_pair(Arch, Kernel), std::move(K)).first->second;
}

void KernelCache::insert(const std::string &Arch, const std::string &Kernel,
                         std::shared_ptr<const CompiledKernel> Ptx) {
  if (!Dir.empty() && persistent(Kernel))
    writeKernel(Dir, Arch, Kernel, *Ptx);
  std::lock_guard<std::mutex> Lock(Mutex);
  Kernels.emplace(std::make_pair(Arch, Kernel), std::move(Ptx));
}

size_t KernelCache::size() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Kernels.size();
}

size_t KernelCache::hits() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Hits;
}

} // namespace corpus
