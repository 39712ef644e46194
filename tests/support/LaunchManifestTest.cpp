// Tests for manifest parsing and validation: the documented example, scalar encodings, and one
// error (with its position) per rule.
#include "support/LaunchManifest.h"

#include <doctest/doctest.h>

#include <string>

using namespace support::manifest;

namespace {

// A manifest around one launch's args and one extra buffer list.
std::string withArgs(const std::string &Args) {
  return R"({"ptx": ["k.ptx"], "buffers": [{"name": "x", "bytes": 64}],
"launches": [{"kernel": "k", "grid": [1], "block": [32], "args": [)" +
         Args + "]}]}";
}

std::string manifestError(const std::string &Text) {
  auto M = parseManifest(Text, "dir/m.json");
  return M ? "" : M.error().str();
}

// The error of a manifest with Buffers (the text inside "buffers": [...]) and one launch.
std::string bufferError(const std::string &Buffers) {
  return manifestError(
      R"({"ptx": ["k.ptx"], "buffers": [)" + Buffers +
      R"(], "launches": [{"kernel": "k", "grid": [1], "block": [1], "args": []}]})");
}

} // namespace

TEST_CASE("manifest: the documented example parses into the expected fields") {
  const char *Text = R"({"ptx": ["k.ptx"],
 "buffers": [{"name": "x", "bytes": 4096, "init": "zero"},
             {"name": "y", "bytes": 4096, "init": {"random": "f32", "seed": 7, "min": -1, "max": 1}},
             {"name": "z", "bytes": 4096, "init": {"file": "z.bin"}, "output": "z_out.bin"}],
 "launches": [{"kernel": "saxpy", "grid": [4, 1, 1], "block": [256, 1, 1], "shared_bytes": 0,
               "args": [{"u32": 1024}, {"f32": 2.0}, {"buffer": "x"}, {"buffer": "y", "offset": 16}]}]})";
  auto M = parseManifest(Text, "runs/net/m.json");
  REQUIRE(M);
  CHECK(M->warnings.empty());
  REQUIRE(M->ptxFiles.size() == 1);
  CHECK(M->ptxFiles[0] == "runs/net/k.ptx");
  REQUIRE(M->buffers.size() == 3);
  CHECK(M->buffers[0].init.kind == InitKind::Zero);
  CHECK(M->buffers[1].init.kind == InitKind::Random);
  CHECK(M->buffers[1].init.type == RandomType::F32);
  CHECK(M->buffers[1].init.seed == 7);
  CHECK(M->buffers[1].init.minReal == -1.0);
  CHECK(M->buffers[1].init.maxReal == 1.0);
  CHECK(M->buffers[2].init.kind == InitKind::File);
  CHECK(M->buffers[2].init.file == "runs/net/z.bin");
  CHECK(M->buffers[2].output == "runs/net/z_out.bin");
  CHECK(M->buffers[0].output.empty());
  REQUIRE(M->launches.size() == 1);
  const Launch &L = M->launches[0];
  CHECK(L.kernel == "saxpy");
  CHECK(L.grid.x == 4);
  CHECK(L.block.x == 256);
  CHECK(L.block.y == 1);
  REQUIRE(L.args.size() == 4);
  CHECK(L.args[0].type == ScalarType::U32);
  CHECK(L.args[0].bits == 1024);
  CHECK(L.args[1].type == ScalarType::F32);
  CHECK(L.args[1].bits == 0x40000000); // 2.0f: exponent 128, mantissa 0
  CHECK(L.args[2].isBuffer);
  CHECK(L.args[2].buffer == 0);
  CHECK(L.args[2].offset == 0);
  CHECK(L.args[3].buffer == 1);
  CHECK(L.args[3].offset == 16);
}

TEST_CASE("manifest: scalar arguments become their bit patterns") {
  auto M = parseManifest(withArgs(R"({"s32": -1}, {"f16": 1.0}, {"f64": 0.1}, {"u8": 255},
    {"s8": -128}, {"b64": 18446744073709551615}, {"f16": 0.1}, {"s64": -2}, {"u64": 7})"),
                         "m.json");
  REQUIRE(M);
  const auto &A = M->launches[0].args;
  REQUIRE(A.size() == 9);
  CHECK(A[0].bits == 0xFFFFFFFFULL);
  CHECK(A[1].bits == 0x3C00);
  CHECK(A[2].bits == 0x3FB999999999999AULL);
  CHECK(A[3].bits == 255);
  CHECK(A[4].bits == 0x80);
  CHECK(A[5].bits == 0xFFFFFFFFFFFFFFFFULL);
  CHECK(A[6].bits == 0x2E66);
  CHECK(A[7].bits == 0xFFFFFFFFFFFFFFFEULL);
  CHECK(A[8].bits == 7);
  CHECK(scalarTypeSize(ScalarType::F16) == 2);
  CHECK(scalarTypeSize(ScalarType::B64) == 8);
  CHECK(std::string(scalarTypeName(ScalarType::S16)) == "s16");
  CHECK(scalarTypeFromName("f32") == ScalarType::F32);
  CHECK_FALSE(scalarTypeFromName("f8"));
}

TEST_CASE("manifest: random fills default to seed 0 and [0, 1]") {
  auto M = parseManifest(R"({"ptx": ["k.ptx"], "buffers": [
    {"name": "a", "bytes": 8, "init": {"random": "bf16"}},
    {"name": "b", "bytes": 8, "init": {"random": "u32", "max": 4294967295}}],
    "launches": [{"kernel": "k", "grid": [1], "block": [1], "args": []}]})",
                         "m.json");
  REQUIRE(M);
  CHECK(M->buffers[0].init.type == RandomType::BF16);
  CHECK(M->buffers[0].init.seed == 0);
  CHECK(M->buffers[0].init.minReal == 0.0);
  CHECK(M->buffers[0].init.maxReal == 1.0);
  CHECK(M->buffers[1].init.type == RandomType::U32);
  CHECK(M->buffers[1].init.minInt == 0);
  CHECK(M->buffers[1].init.maxInt == 4294967295LL);
}

TEST_CASE("manifest: a single PTX path, a launch without args, bf16 scalars") {
  auto M = parseManifest(
      R"({"ptx": "k.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1]},
          {"kernel": "k", "grid": [1], "block": [1], "args": [{"bf16": 0.1}]}]})",
      "d/m.json");
  REQUIRE(M);
  REQUIRE(M->ptxFiles.size() == 1);
  CHECK(M->ptxFiles[0] == "d/k.ptx");
  CHECK(M->launches[0].args.empty());
  CHECK(M->launches[1].args[0].type == ScalarType::BF16);
  CHECK(M->launches[1].args[0].bits == 0x3DCD);
  CHECK(scalarTypeSize(ScalarType::BF16) == 2);
}

TEST_CASE("manifest: defaults for optional fields") {
  auto M = parseManifest(
      R"({"ptx": ["/abs/k.ptx"], "launches": [{"kernel": "k", "grid": [2, 3], "block": [64], "args": []}]})",
      "m.json", ManifestOptions{.allowOutsidePaths = true});
  REQUIRE(M);
  CHECK(M->ptxFiles[0] == "/abs/k.ptx");
  CHECK(M->buffers.empty());
  CHECK(M->launches[0].grid.y == 3);
  CHECK(M->launches[0].grid.z == 1);
  CHECK(M->launches[0].block.y == 1);
  CHECK(M->launches[0].sharedBytes == 0);
}

TEST_CASE("manifest: unknown keys are warnings with positions, not errors") {
  auto M = parseManifest(R"({"ptx": ["k.ptx"], "note": 1,
"launches": [{"kernel": "k", "grid": [1], "block": [1], "args": [], "layer": "conv1"}]})",
                         "m.json");
  REQUIRE(M);
  REQUIRE(M->warnings.size() == 2);
  CHECK(M->warnings[0] ==
        "m.json:1:28: warning: unknown key 'note' in the manifest ignored (expected ptx, "
        "buffers, launches, math)");
  CHECK(M->warnings[1] == "m.json:2:78: warning: unknown key 'layer' in a launch ignored "
                          "(expected kernel, grid, block, shared_bytes, args)");
}

TEST_CASE("manifest: validation errors point at the offending value") {
  CHECK(manifestError("[]") == "dir/m.json:1:1: error: the manifest must be an object, got array");
  CHECK(manifestError(R"({"ptx": []})") ==
        "dir/m.json:1:9: error: ptx must list at least one file");
  CHECK(manifestError(R"({"ptx": ["k.ptx"]})") ==
        "dir/m.json:1:1: error: the manifest has no 'launches'");
  CHECK(manifestError(withArgs(R"({"buffer": "nope"})")) ==
        "dir/m.json:2:78: error: unknown buffer 'nope'");
  CHECK(manifestError(withArgs(R"({"u33": 1})")) ==
        "dir/m.json:2:67: error: unknown argument type 'u33' (expected buffer, u8..u64, "
        "s8..s64, b8..b64, f16, bf16, f32, f64)");
  CHECK(manifestError(withArgs(R"({"u8": 256})")) ==
        "dir/m.json:2:74: error: u8 argument must be in [0, 255], got 256");
  CHECK(manifestError(withArgs(R"({"s8": -129})")) ==
        "dir/m.json:2:74: error: s8 argument -129 is out of range");
  CHECK(manifestError(withArgs(R"({"u32": 1.5})")) ==
        "dir/m.json:2:75: error: u32 argument: expected an integer, got 1.5");
  CHECK(manifestError(withArgs(R"({"f32": 1e39})")) ==
        "dir/m.json:2:75: error: f32 argument 1e39 overflows f32");
  CHECK(manifestError(withArgs(R"({"buffer": "x", "offset": 65})")) ==
        "dir/m.json:2:93: error: buffer offset must be in [0, 64], got 65");
  CHECK(manifestError(withArgs(R"({"u32": 1, "f32": 2})")) ==
        "dir/m.json:2:67: error: a scalar argument must have exactly one key, its type (u8..u64, "
        "s8..s64, b8..b64, f16, bf16, f32, f64)");
}

TEST_CASE("manifest: a struct argument's fields, its bytes and its errors") {
  auto M = parseManifest(withArgs(R"({"struct": [{"u8": 1}, {"f64": 2}, {"u16": [3, 4]},
                                    {"buffer": "x", "offset": 8}]})"),
                         "dir/m.json");
  REQUIRE_MESSAGE(M, M.error().str());
  const Arg &A = M->launches[0].args[0];
  REQUIRE(A.isStruct);
  CHECK(A.fields.size() == 5);
  // u8 at 0, f64 at 8, u16 at 16 and 18, the pointer at 24: 32 bytes.
  std::vector<uint8_t> B = argBytes(A, [](size_t) { return uint64_t(0x1000); });
  REQUIRE(B.size() == 32);
  CHECK(B[0] == 1);
  CHECK(B[15] == 0x40); // 2.0 as f64: 0x4000000000000000
  CHECK(B[16] == 3);
  CHECK(B[18] == 4);
  CHECK(B[24] == 0x08);
  CHECK(B[25] == 0x10); // 0x1000 + 8
  CHECK(manifestError(withArgs(R"({"struct": []})")) ==
        "dir/m.json:2:78: error: a struct needs at least one field");
  CHECK(manifestError(withArgs(R"({"struct": [{"u8": [1, 256]}]})")) ==
        "dir/m.json:2:90: error: u8 argument must be in [0, 255], got 256");
}

TEST_CASE("manifest: buffer and launch rules") {
  CHECK(bufferError(R"({"name": "a", "bytes": 4}, {"name": "a", "bytes": 4})") ==
        "dir/m.json:1:59: error: duplicate buffer name 'a'");
  CHECK(bufferError(R"({"name": "a", "bytes": 0})") ==
        "dir/m.json:1:55: error: buffer bytes must be in [1, 1099511627776], got 0");
  CHECK(
      bufferError(R"({"name": "a", "bytes": 6, "init": {"random": "f32", "seed": 1, "min": 0, "max": 1}})") ==
      "dir/m.json:1:77: error: buffer of 6 bytes is not a whole number of f32 elements");
  CHECK(bufferError(R"({"name": "a", "bytes": 8, "init": {"random": "f8", "seed": 1}})") ==
        "dir/m.json:1:77: error: random fill type must be one of f32, f16, f64, bf16, s32, u32, "
        "s16, u16, s8, u8");
  CHECK(
      bufferError(R"({"name": "a", "bytes": 8, "init": {"random": "s32", "seed": 1, "min": 3, "max": 2}})") ==
      "dir/m.json:1:112: error: max must not be below min");
  CHECK(
      bufferError(R"({"name": "a", "bytes": 8, "init": {"random": "u8", "seed": 1, "min": 0, "max": 256}})") ==
      "dir/m.json:1:111: error: bound 256 is outside the range of u8");
  CHECK(
      bufferError(R"({"name": "a", "bytes": 8, "init": {"random": "u8", "seed": 1, "min": 0.5, "max": 2}})") ==
      "dir/m.json:1:101: error: min: expected an integer, got 0.5");
  CHECK(bufferError(R"({"name": "a", "bytes": 8, "init": {"random": "f16", "max": -1}})") ==
        "dir/m.json:1:91: error: max must not be below min"); // min defaults to 0
  CHECK(bufferError(R"({"name": "a", "bytes": 8, "init": {"random": "s8", "min": -129}})") ==
        "dir/m.json:1:90: error: bound -129 is outside the range of s8");
  CHECK(
      bufferError(R"({"name": "a", "bytes": 8, "init": "ones"})") ==
      "dir/m.json:1:66: error: buffer init must be \"zero\", {\"random\": ...} or {\"file\": ...}");
  CHECK(
      manifestError(
          R"({"ptx": ["k.ptx"], "launches": [{"kernel": "k", "grid": [1, 0], "block": [1], "args": []}]})") ==
      "dir/m.json:1:61: error: grid element must be in [1, 4294967295], got 0");
  CHECK(
      manifestError(
          R"({"ptx": ["k.ptx"], "launches": [{"kernel": "k", "grid": [1, 1, 1, 1], "block": [1], "args": []}]})") ==
      "dir/m.json:1:57: error: grid must have 1 to 3 elements");
  CHECK(manifestError(
            R"({"ptx": ["k.ptx"], "launches": [{"grid": [1], "block": [1], "args": []}]})") ==
        "dir/m.json:1:33: error: launch has no 'kernel'");
  CHECK(manifestError(R"({"ptx": ["k.ptx"], "launches": []})") ==
        "dir/m.json:1:32: error: launches must list at least one launch");
}

TEST_CASE("manifest: paths stay inside the manifest's folder unless allowed") {
  CHECK(bufferError(R"({"name": "a", "bytes": 4, "output": "../../escaped.bin"})") ==
        "dir/m.json:1:68: error: buffers[0].output: '../../escaped.bin' is outside the "
        "manifest's folder ('..' leaves it; --allow-outside-paths accepts it)");
  CHECK(bufferError(R"({"name": "a", "bytes": 4}, {"name": "b", "bytes": 4, "output": "/tmp/abs.bin"})") ==
        "dir/m.json:1:95: error: buffers[1].output: '/tmp/abs.bin' is outside the manifest's "
        "folder (an absolute path; --allow-outside-paths accepts it)");
  CHECK(bufferError(R"({"name": "a", "bytes": 4, "init": {"file": "/etc/passwd"}})") ==
        "dir/m.json:1:75: error: buffers[0].init.file: '/etc/passwd' is outside the manifest's "
        "folder (an absolute path; --allow-outside-paths accepts it)");
  CHECK(manifestError(R"({"ptx": ["k.ptx", "sub/../../k.ptx"], "launches": []})") ==
        "dir/m.json:1:19: error: ptx[1]: 'sub/../../k.ptx' is outside the manifest's folder "
        "('..' leaves it; --allow-outside-paths accepts it)");
  CHECK(manifestError(R"({"ptx": "/k.ptx", "launches": []})") ==
        "dir/m.json:1:9: error: ptx: '/k.ptx' is outside the manifest's folder (an absolute "
        "path; --allow-outside-paths accepts it)");

  // `..` that stays inside, and anything once allowed, resolve against the folder.
  const std::string Inside =
      R"({"ptx": ["sub/../k.ptx"], "buffers": [{"name": "a", "bytes": 4, "output": "o/../a.bin",
          "init": {"file": "../in.bin"}}], "launches": [{"kernel": "k", "grid": [1], "block": [1]}]})";
  auto M = parseManifest(Inside, "dir/m.json");
  REQUIRE(!M);
  CHECK(M.error().message.find("buffers[0].init.file") == 0);
  auto Allowed = parseManifest(Inside, "dir/m.json", ManifestOptions{.allowOutsidePaths = true});
  REQUIRE_MESSAGE(Allowed, Allowed.error().str());
  CHECK(Allowed->ptxFiles[0] == "dir/k.ptx");
  CHECK(Allowed->buffers[0].output == "dir/a.bin");
  CHECK(Allowed->buffers[0].init.file == "in.bin");
}

TEST_CASE("manifest: an output names a file of its own, never an input or another output") {
  CHECK(bufferError(R"({"name": "a", "bytes": 4, "output": "."})") ==
        "dir/m.json:1:68: error: buffers[0].output: '.' names a folder, not a file");
  CHECK(bufferError(R"({"name": "a", "bytes": 4, "output": "k.ptx"})") ==
        "dir/m.json:1:68: error: buffers[0].output: 'k.ptx' is a PTX file the manifest reads");
  CHECK(bufferError(R"({"name": "a", "bytes": 4, "output": "o.bin"}, )"
                    R"({"name": "b", "bytes": 4, "output": "./o.bin"})") ==
        "dir/m.json:1:114: error: buffers[1].output: './o.bin' is also buffer 'a''s output");
  CHECK(bufferError(R"({"name": "a", "bytes": 4, "init": {"file": "in.bin"}}, )"
                    R"({"name": "b", "bytes": 4, "output": "in.bin"})") ==
        "dir/m.json:1:123: error: buffers[1].output: 'in.bin' is buffer 'a''s init file");
}

TEST_CASE("manifest: f16 and bf16 scalars that round to infinity are errors") {
  CHECK(manifestError(withArgs(R"({"f16": 70000})")) ==
        "dir/m.json:2:75: error: f16 argument 70000 overflows f16");
  CHECK(manifestError(withArgs(R"({"bf16": 1e39})")) ==
        "dir/m.json:2:76: error: bf16 argument 1e39 overflows bf16");
  CHECK(manifestError(withArgs(R"({"f16": 65504})")).empty()); // the largest finite f16
}
