// KernelCache: compiled kernels shared by the lowerings of one process, and kept across processes
// in a versioned directory (KernelGen.h). An entry file is
//   // ptxcast kernel cache: ARCH KERNEL VERSION CHECKSUM
//   HEADER
//   // ptxcast kernel cache: body
//   BODY
// where CHECKSUM is support::checksumHex of everything after the first line: a truncated,
// altered or stale entry is compiled again (a note on stderr names it), never used.
#include "corpus/KernelGen.h"

#include "support/CacheDir.h"
#include "support/Checksum.h"

#include <algorithm>
#include <cstdio>
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

/// Kernel files kept per architecture: specialised kernels (one per layer shape, about 20 KB
/// each) are an unbounded set, so the cache forgets the oldest past this (about 200 MB).
constexpr size_t MaxEntriesPerArch = 10000;

/// The first line of an entry: what it is, for which kernel and version, and its checksum.
std::string firstLine(const std::string &Arch, const std::string &Kernel,
                      const std::string &Checksum) {
  return "// ptxcast kernel cache: " + Arch + " " + Kernel + " " + KernelVersion + " " + Checksum +
         "\n";
}

fs::path fileOf(const std::string &Dir, const std::string &Arch, const std::string &Kernel) {
  return fs::path(Dir) / Arch / (Kernel + ".ptx");
}

/// The entry's text after its first line.
std::string entryContent(const CompiledKernel &K) {
  return K.header + std::string(BodyMark) + K.body;
}

/// Why a cache file cannot be used, or "" when it holds the kernel for Arch intact.
std::string entryProblem(const std::string &S, const std::string &Arch, const std::string &Kernel) {
  const size_t Eol = S.find('\n');
  if (Eol == std::string::npos || S.rfind("// ptxcast kernel cache: ", 0) != 0)
    return "not a kernel cache entry";
  const std::string Content = S.substr(Eol + 1);
  if (S.compare(0, Eol + 1, firstLine(Arch, Kernel, support::checksumHex(Content))) == 0)
    return Content.find(BodyMark) == std::string::npos ? "no body" : "";
  const std::string Prefix = firstLine(Arch, Kernel, "");
  if (S.compare(0, Prefix.size() - 1, Prefix, 0, Prefix.size() - 1) != 0)
    return "written for another kernel, architecture or kernel version";
  return "its checksum does not match: truncated or altered";
}

/// The kernel stored in its file, or null: no file, or one that cannot be used (then a note on
/// stderr says why; the caller compiles the kernel and rewrites the file).
std::shared_ptr<const CompiledKernel> readKernel(const std::string &Dir, const std::string &Arch,
                                                 const std::string &Kernel) {
  const fs::path Path = fileOf(Dir, Arch, Kernel);
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return nullptr;
  std::ostringstream Text;
  Text << In.rdbuf();
  const std::string S = Text.str();
  if (std::string Problem = entryProblem(S, Arch, Kernel); !Problem.empty()) {
    std::fprintf(stderr,
                 "ptxcast: note: kernel cache entry %s is not used (%s); compiling the "
                 "kernel again\n",
                 Path.string().c_str(), Problem.c_str());
    return nullptr;
  }
  const std::string Content = S.substr(S.find('\n') + 1);
  const size_t Mark = Content.find(BodyMark);
  CompiledKernel K;
  K.header = Content.substr(0, Mark);
  K.body = Content.substr(Mark + BodyMark.size());
  return std::make_shared<const CompiledKernel>(std::move(K));
}

/// Versions of the kernels kept side by side (builds used in turn); older ones are removed.
constexpr size_t KeptVersions = 3;

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
  if (NewVersion) // rebuilt generators do not fill the disk
    support::pruneVersions(Dir, "kernels-", KeptVersions);
  fs::path Tmp = Path;
  Tmp += ".tmp." + std::to_string(::getpid()) + "." +
         std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream Out(Tmp, std::ios::binary);
    const std::string Content = entryContent(K);
    Out << firstLine(Arch, Kernel, support::checksumHex(Content)) << Content;
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
  return support::userCacheDir(std::string("kernels-") + KernelVersion);
}

KernelCache::KernelCache(std::string Directory) : Dir(std::move(Directory)) {
  std::error_code Ec;
  if (!Dir.empty())
    for (const fs::directory_entry &E : fs::directory_iterator(Dir, Ec))
      if (E.is_directory(Ec))
        support::pruneEntries(E.path().string(), MaxEntriesPerArch);
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
  if (Dir.empty())
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
  if (!Dir.empty())
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
