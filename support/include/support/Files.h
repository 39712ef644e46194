// Whole-file reads, and writes that never leave a half-written file behind (a temporary file in
// the same directory, then a rename). Errors name the file: `PATH: error: ...`.
#pragma once

#include "support/Expected.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>

namespace support {

/// The bytes of the file at Path.
inline Expected<std::string> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return Error(Path, 0, 0, "cannot open file");
  std::ostringstream Buf;
  Buf << In.rdbuf();
  return Buf.str();
}

/// Writes Bytes to Path atomically: readers see the old file or the whole new one. The temporary
/// file is named after the process and thread, so concurrent writers of one path (threads or
/// processes sharing a cache) never write into each other's; the last rename wins.
inline MaybeError writeFileAtomically(const std::string &Path, std::string_view Bytes) {
  namespace fs = std::filesystem;
  const std::string Tmp = Path + ".tmp" + std::to_string(getpid()) + "." +
                          std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  {
    std::ofstream Out(Tmp, std::ios::binary | std::ios::trunc);
    if (!Out)
      return Error(Path, 0, 0, "cannot write file");
    Out.write(Bytes.data(), static_cast<std::streamsize>(Bytes.size()));
    Out.close();
    if (!Out) {
      std::error_code Ignored;
      fs::remove(Tmp, Ignored);
      return Error(Path, 0, 0, "write failed");
    }
  }
  std::error_code Ec;
  fs::rename(Tmp, Path, Ec);
  if (Ec) {
    std::error_code Ignored;
    fs::remove(Tmp, Ignored);
    return Error(Path, 0, 0, "cannot replace file: " + Ec.message());
  }
  return std::nullopt;
}

} // namespace support
