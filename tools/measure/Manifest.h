// The launch manifest (docs/manifest.md): PTX files, device buffers with their initial contents,
// and the ordered kernel launches with typed arguments. Parsed and validated here.
#pragma once

#include "Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace measure {

/// Scalar argument types (PTX fundamental types usable as kernel parameters).
enum class ScalarType {
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  B8,
  B16,
  B32,
  B64,
  F16,
  F32,
  F64,
  BF16
};

/// The manifest spelling of a type ("u32", "f16", ...).
const char *scalarTypeName(ScalarType T);
/// The type spelled Name, if any.
std::optional<ScalarType> scalarTypeFromName(std::string_view Name);
/// Size in bytes of one value of T.
uint32_t scalarTypeSize(ScalarType T);

/// Element types of seeded random fills (docs/measure.md gives the exact rule).
enum class RandomType { F32, F16, F64, BF16, S32, U32, S16, U16, S8, U8 };

/// How a buffer's initial bytes are made.
enum class InitKind { Zero, Random, File };

struct BufferInit {
  InitKind kind = InitKind::Zero;
  // Random:
  RandomType type = RandomType::F32;
  uint64_t seed = 0;
  double minReal = 0, maxReal = 1; ///< floating-point types: [min, max)
  int64_t minInt = 0, maxInt = 1;  ///< integer types: [min, max], inclusive
  // File (resolved against the manifest's folder):
  std::string file;
};

struct Buffer {
  std::string name;
  uint64_t bytes = 0;
  BufferInit init;
  std::string output; ///< file to write the final contents to (resolved), empty if none
};

/// A kernel argument: a typed scalar (its bytes, little-endian), a buffer address + offset, or a
/// struct of them passed by value (laid out as C does: support/StructLayout.h).
struct Arg {
  bool isStruct = false;
  std::vector<Arg> fields; ///< isStruct: the fields in order
  bool isBuffer = false;
  ScalarType type = ScalarType::U64;
  uint64_t bits = 0;   ///< scalar bit pattern in the low scalarTypeSize(type) bytes
  size_t buffer = 0;   ///< index into Manifest::buffers
  uint64_t offset = 0; ///< byte offset added to the buffer's address
};

/// The bytes the kernel receives for A, with `Address(buffer index)` each buffer's device
/// address.
std::vector<uint8_t> argBytes(const Arg &A, const std::function<uint64_t(size_t)> &Address);

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

struct Launch {
  std::string kernel;
  Dim3 grid, block;
  uint32_t sharedBytes = 0;
  std::vector<Arg> args;
};

struct Manifest {
  std::string path;                  ///< the manifest file as given
  std::vector<std::string> ptxFiles; ///< resolved against the manifest's folder
  std::vector<Buffer> buffers;
  std::vector<Launch> launches;
  /// Rendered `file:line:col: warning: ...` lines (unknown keys, which are ignored).
  std::vector<std::string> warnings;
};

/// Parses and validates manifest JSON text. Path names the file in messages and is the base for
/// relative paths. Errors: `Path:line:col: error: ...` at the offending value.
Expected<Manifest> parseManifest(std::string_view Text, const std::string &Path);

/// Reads Path and parses it.
Expected<Manifest> loadManifest(const std::string &Path);

} // namespace measure
