// Launch manifests: JSON files naming PTX, buffers and launches (format: docs/manifest.md), read
// by support's manifest reader (support/LaunchManifest.h, shared with ptxcast-measure) into the
// interpreter's launch description.
#pragma once

#include "analyzer/Interpreter.h"
#include "support/Expected.h"
#include "support/LaunchManifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace analyzer {

/// How a buffer is filled before the first launch.
struct BufferInit {
  enum class Kind : uint8_t { Zero, Random, File };
  Kind kind = Kind::Zero;
  std::string dtype = "f32"; ///< Random: f32, f64, f16, bf16, s32, u32, s8, u8
  uint64_t seed = 0;
  double min = 0, max = 1; ///< Random: inclusive range (integers: [min, max])
  std::string file;        ///< File: absolute path (resolved against the manifest)
};

struct BufferSpec {
  std::string name;
  uint64_t bytes = 0;
  BufferInit init;
  std::string output; ///< absolute path written after all launches; empty = none
  /// Element order of a weight buffer when not ONNX's ("oihw16i": filters
  /// [cout][cin / 16][kh][kw][16]); informational: the interpreter fills and reads bytes.
  std::string layout = {};
};

/// One kernel argument as written in the manifest: a typed scalar, a buffer reference or a struct
/// of them.
struct ArgSpec {
  /// A struct passed by value: `fields` in order, laid out as C does (support/StructLayout.h).
  bool isStruct = false;
  std::vector<ArgSpec> fields;
  bool isBuffer = false;
  std::string buffer;  ///< isBuffer: the buffer's name
  uint64_t offset = 0; ///< isBuffer: bytes added to the buffer's address
  ptx::Type type = ptx::Type::U32;
  uint64_t bits = 0; ///< scalar value as raw little-endian bits of `type`
};

struct LaunchSpec {
  std::string kernel;
  Dim3 grid{1, 1, 1}, block{1, 1, 1};
  uint32_t sharedBytes = 0;
  std::vector<ArgSpec> args;
};

struct Manifest {
  std::string path;             ///< the manifest file, for diagnostics
  std::vector<std::string> ptx; ///< absolute paths
  std::vector<BufferSpec> buffers;
  std::vector<LaunchSpec> launches;
};

/// How a manifest is read: paths stay inside its folder unless allowOutsidePaths.
using support::manifest::ManifestOptions;

/// Parses manifest text; relative paths are resolved against the directory of `Path`, and a path
/// leaving it is an error unless Options allow it. Errors point at the value:
/// `m.json:3:27: error: grid must have 1 to 3 elements`.
support::Expected<Manifest> parseManifest(std::string_view Text, const std::string &Path,
                                          const ManifestOptions &Options = {});
support::Expected<Manifest> loadManifest(const std::string &Path,
                                         const ManifestOptions &Options = {});

/// The bytes of a Random init: support's fill (support/BufferFill.h, ptxcast-measure's too), a
/// splitmix64 stream from `seed`, one 64-bit draw per element (docs/manifest.md gives the exact
/// mapping per dtype).
support::Expected<std::vector<uint8_t>> randomBytes(const BufferInit &Init, uint64_t Bytes);

/// The result of running a whole manifest: one profile per launch, in order.
struct ManifestRun {
  std::vector<KernelProfile> launches;
};

/// Parses every PTX file, allocates and fills the buffers, runs the launches in order, then
/// writes the buffers that have an "output" (temp file + rename). A trap stops the run and is
/// returned as an Error whose message is Trap::str().
support::Expected<ManifestRun> runManifest(const Manifest &M, const RunSettings &Settings = {});

} // namespace analyzer
