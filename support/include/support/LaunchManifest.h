// The launch manifest (docs/manifest.md): PTX files, device buffers with their initial contents,
// and the ordered kernel launches with typed arguments. The one reader of the format, used by
// the interpreter (analyzer/) and ptxcast-measure alike; it needs nothing but the standard
// library, so ptxcast-measure still builds on a bare GPU box. Every value is checked, and an
// error points at it: `m.json:3:15: error: ...`.
//
// Paths in a manifest (PTX files, init files, output files) resolve inside the manifest's
// folder: an absolute path or one whose `..` leaves the folder is an error naming the field,
// unless ManifestOptions::allowOutsidePaths (the tools' --allow-outside-paths) says otherwise. A
// manifest is a file people pass around; it must not write or read anywhere it likes.
#pragma once

#include "support/Expected.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace support::manifest {

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

/// Element types of seeded random fills (docs/manifest.md gives the exact rule).
enum class RandomType { F32, F16, F64, BF16, S32, U32, S16, U16, S8, U8 };

/// A random fill type as the manifest spells it, with the values an integer type holds.
struct RandomTypeRow {
  const char *name;
  RandomType type;
  int64_t lo, hi; ///< integer types: the values the type holds; lo == hi for floating point
  bool isFloat() const { return lo == hi; }
};
/// The row of T.
const RandomTypeRow &randomTypeRow(RandomType T);
/// The row of the type spelled Name, or nullptr.
const RandomTypeRow *randomTypeNamed(std::string_view Name);

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
  /// Element order of a weight buffer when not ONNX's ("oihw16i"); informational.
  std::string layout = {};
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

/// How a manifest is read.
struct ManifestOptions {
  /// Accept absolute paths and paths that leave the manifest's folder (`..`).
  bool allowOutsidePaths = false;
};

/// Parses and validates manifest JSON text. Path names the file in messages and is the base for
/// relative paths. Errors: `Path:line:col: error: ...` at the offending value.
Expected<Manifest> parseManifest(std::string_view Text, const std::string &Path,
                                 const ManifestOptions &Options = {});

/// Reads Path and parses it.
Expected<Manifest> loadManifest(const std::string &Path, const ManifestOptions &Options = {});

} // namespace support::manifest
