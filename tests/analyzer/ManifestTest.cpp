// Launch manifests: field errors, the documented random generator, an end-to-end run with an
// output file, and struct arguments (layout, and launch deduplication in fast mode).
#include "analyzer/Manifest.h"
#include "analyzer/FastMode.h"

#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using analyzer::BufferInit;

namespace {

std::string errorOf(const std::string &Json) {
  support::Expected<analyzer::Manifest> M = analyzer::parseManifest(Json, "m.json");
  REQUIRE(!M);
  return M.error().str();
}

const char *SaxpyPtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry saxpy(.param .u32 n, .param .f32 a, .param .u64 x, .param .u64 y)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u32 %r1, [n];
  ld.param.f32 %f1, [a];
  ld.param.u64 %rd1, [x];
  ld.param.u64 %rd2, [y];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd1, %rd5;
  add.s64 %rd7, %rd2, %rd5;
  ld.global.f32 %f2, [%rd6];
  ld.global.f32 %f3, [%rd7];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f4;
DONE:
  ret;
}
)";

} // namespace

TEST_CASE("manifest: malformed fields are the shared reader's errors, at the value") {
  // The interpreter reads manifests with support's reader, as ptxcast-measure does
  // (tests/support/LaunchManifestTest.cpp covers every rule); its errors come through as they are.
  CHECK(errorOf("{") == "m.json:1:2: error: unexpected end of input, expected a string key");
  CHECK(errorOf(R"({"launches": []})") == "m.json:1:1: error: the manifest has no 'ptx'");
  CHECK(errorOf(R"({"ptx": "k.ptx", "launches": [{"kernel": "k", "grid": [0], "block": [1]}]})") ==
        "m.json:1:56: error: grid element must be in [1, 4294967295], got 0");
  CHECK(errorOf(R"({"ptx": "k.ptx", "buffers": [{"name": "x", "bytes": 4,
                   "init": {"random": "f8"}}], "launches": []})") ==
        "m.json:2:39: error: random fill type must be one of f32, f16, f64, bf16, s32, u32, s16, "
        "u16, s8, u8");
  CHECK(errorOf(R"({"ptx": "k.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1],
                   "args": [{"u8": 300}]}]})") ==
        "m.json:2:36: error: u8 argument must be in [0, 255], got 300");
  CHECK(errorOf(R"({"ptx": "k.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1],
                   "args": [{"q32": 1}]}]})") ==
        "m.json:2:29: error: unknown argument type 'q32' (expected buffer, u8..u64, s8..s64, "
        "b8..b64, f16, bf16, f32, f64)");
  CHECK(errorOf(R"({"ptx": "k.ptx", "launches": [{"grid": [1], "block": [1]}]})") ==
        "m.json:1:31: error: launch has no 'kernel'");
  // Values a type cannot hold are errors, not wrapped, zeroed or infinite data.
  CHECK(errorOf(R"({"ptx": "k.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1],
                   "args": [{"f32": 1e300}]}]})") ==
        "m.json:2:37: error: f32 argument 1e300 overflows f32");
  CHECK(errorOf(R"({"ptx": "k.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1],
                   "args": [{"f16": 70000}]}]})") ==
        "m.json:2:37: error: f16 argument 70000 overflows f16");
  CHECK(errorOf(R"({"ptx": "k.ptx", "buffers": [{"name": "x", "bytes": 4,
                   "init": {"random": "s32", "max": 1099511627776}}], "launches": []})") ==
        "m.json:2:53: error: bound 1099511627776 is outside the range of s32");
  CHECK(errorOf(R"({"ptx": "k.ptx", "buffers": [{"name": "x", "bytes": 4,
                   "init": {"random": "u8", "min": -5}}], "launches": []})") ==
        "m.json:2:52: error: bound -5 is outside the range of u8");
  CHECK(errorOf(R"({"ptx": "k.ptx", "buffers": [{"name": "x", "bytes": 4,
                   "init": {"random": "u8", "max": 2.5}}], "launches": []})") ==
        "m.json:2:52: error: max: expected an integer, got 2.5");
  // A path that leaves the manifest's folder is refused unless the caller allows it.
  CHECK(errorOf(R"({"ptx": "../k.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1]}]})") ==
        "m.json:1:9: error: ptx: '../k.ptx' is outside the manifest's folder ('..' leaves it; "
        "--allow-outside-paths accepts it)");
  auto Allowed =
      analyzer::parseManifest(R"({"ptx": "../k.ptx", "launches": [{"kernel": "k", "grid": [1],
                                  "block": [1]}]})",
                              "d/m.json", analyzer::ManifestOptions{.allowOutsidePaths = true});
  REQUIRE(Allowed);
  CHECK(Allowed->ptx[0] == "k.ptx");
}

TEST_CASE("manifest: scalar arguments become little-endian bits of their PTX type") {
  auto M = analyzer::parseManifest(R"({"ptx": ["k.ptx"], "buffers": [{"name": "x", "bytes": 64}],
      "launches": [{"kernel": "k", "grid": [2, 3], "block": [64], "args": [{"s32": -2},
      {"f32": 2.0}, {"u64": 7}, {"buffer": "x", "offset": 16}]}]})",
                                   "/tmp/m.json");
  REQUIRE(M);
  const analyzer::LaunchSpec &L = M->launches[0];
  CHECK(M->ptx[0] == "/tmp/k.ptx");
  CHECK(L.grid == analyzer::Dim3{2, 3, 1});
  CHECK(L.block == analyzer::Dim3{64, 1, 1});
  CHECK(L.args[0].bits == 0xfffffffeu);
  CHECK(L.args[1].bits == 0x40000000u);
  CHECK(L.args[2].bits == 7);
  CHECK(L.args[3].isBuffer);
  CHECK(L.args[3].offset == 16);
}

TEST_CASE("manifest: random fills follow the documented splitmix64 rule bit for bit") {
  // Reference values from docs/measure.md (ptxcast-measure fills buffers identically).
  auto Fill = [](const char *Type, uint64_t Seed, double Min, double Max, uint64_t Bytes) {
    BufferInit I;
    I.kind = BufferInit::Kind::Random;
    I.dtype = Type;
    I.seed = Seed;
    I.min = Min;
    I.max = Max;
    auto B = analyzer::randomBytes(I, Bytes);
    REQUIRE(B);
    return *B;
  };
  auto Word = [](const std::vector<uint8_t> &B, size_t K, size_t Size) {
    uint64_t V = 0;
    std::memcpy(&V, B.data() + K * Size, Size);
    return V;
  };
  std::vector<uint8_t> F32 = Fill("f32", 7, -1, 1, 16);
  CHECK(Word(F32, 0, 4) == 0xBE61A0F8u);
  CHECK(Word(F32, 1, 4) == 0xBF776788u);
  CHECK(Word(F32, 2, 4) == 0x3F4D3080u);
  CHECK(Word(F32, 3, 4) == 0x3E29D758u);
  std::vector<uint8_t> F16 = Fill("f16", 7, -1, 1, 8);
  CHECK(Word(F16, 0, 2) == 0xB30Du);
  CHECK(Word(F16, 1, 2) == 0xBBBBu);
  CHECK(Word(F16, 2, 2) == 0x3A6Au);
  CHECK(Word(F16, 3, 2) == 0x314Fu);
  std::vector<uint8_t> S32 = Fill("s32", 0, -5, 5, 16);
  CHECK(int32_t(Word(S32, 0, 4)) == -4);
  CHECK(int32_t(Word(S32, 1, 4)) == 5);
  CHECK(int32_t(Word(S32, 2, 4)) == -4);
  CHECK(int32_t(Word(S32, 3, 4)) == -2);
  std::vector<uint8_t> U8 = Fill("u8", 0, 0, 255, 3);
  CHECK(U8 == std::vector<uint8_t>{0xAF, 0xF4, 0x4F});
  BufferInit Odd;
  Odd.kind = BufferInit::Kind::Random;
  Odd.dtype = "f32";
  CHECK(!analyzer::randomBytes(Odd, 6));
}

TEST_CASE("manifest: an end-to-end run writes its output atomically") {
  fs::path Dir = fs::temp_directory_path() / "ptxcast_manifest_test";
  fs::create_directories(Dir);
  std::ofstream(Dir / "k.ptx") << SaxpyPtx;
  std::vector<float> X(100);
  for (int I = 0; I < 100; ++I)
    X[I] = float(I);
  std::ofstream(Dir / "x.bin", std::ios::binary)
      .write(reinterpret_cast<const char *>(X.data()), 400);
  std::ofstream(Dir / "m.json") << R"({"ptx": ["k.ptx"],
    "buffers": [{"name": "x", "bytes": 400, "init": {"file": "x.bin"}},
                {"name": "y", "bytes": 400, "init": "zero", "output": "y_out.bin"}],
    "launches": [{"kernel": "saxpy", "grid": [2, 1, 1], "block": [64, 1, 1],
                  "args": [{"u32": 100}, {"f32": 3.0}, {"buffer": "x"}, {"buffer": "y"}]},
                 {"kernel": "saxpy", "grid": [1], "block": [32],
                  "args": [{"u32": 10}, {"f32": 1.0}, {"buffer": "x"}, {"buffer": "y"}]}]})";
  fs::remove(Dir / "y_out.bin");
  auto M = analyzer::loadManifest((Dir / "m.json").string());
  REQUIRE_MESSAGE(M, support::errorText(M));
  auto R = analyzer::runManifest(*M);
  REQUIRE_MESSAGE(R, support::errorText(R));
  REQUIRE(R->launches.size() == 2);
  CHECK(R->launches[0].ctasRun == 2);
  CHECK(R->launches[1].kernel == "saxpy");
  std::vector<float> Y(100);
  std::ifstream(Dir / "y_out.bin", std::ios::binary).read(reinterpret_cast<char *>(Y.data()), 400);
  for (int I = 0; I < 100; ++I)
    CHECK(Y[I] == (I < 10 ? 4.0f * float(I) : 3.0f * float(I)));
  CHECK(!fs::exists(Dir / "y_out.bin.tmp"));
  fs::remove_all(Dir);
}

TEST_CASE("manifest: a struct passed by value is laid out as C lays it out") {
  // struct { uint32_t n; float a; float *x; uint16_t tag[3]; float *y; }: x at 8, tag at 16,
  // y at 24 after two bytes of padding, 32 bytes; y[i] = a x[i] + tag[2].
  const char *Ptx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry ssaxpy(.param .align 8 .b8 p[32])
{
  .reg .pred %p<2>;
  .reg .b16 %h<2>;
  .reg .b32 %r<7>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<8>;
  ld.param.u32 %r1, [p];
  ld.param.f32 %f1, [p+4];
  ld.param.u64 %rd1, [p+8];
  ld.param.u16 %h1, [p+20];
  ld.param.u64 %rd2, [p+24];
  mov.u32 %r4, %tid.x;
  setp.ge.u32 %p1, %r4, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd5, %r4, 4;
  add.s64 %rd6, %rd1, %rd5;
  add.s64 %rd7, %rd2, %rd5;
  ld.global.f32 %f2, [%rd6];
  cvt.rn.f32.u16 %f3, %h1;
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd7], %f4;
DONE:
  ret;
}
)";
  fs::path Dir = fs::temp_directory_path() / "ptxcast_manifest_struct";
  fs::create_directories(Dir);
  std::ofstream(Dir / "k.ptx") << Ptx;
  std::ofstream(Dir / "m.json") << R"({"ptx": ["k.ptx"],
    "buffers": [{"name": "x", "bytes": 64, "init": {"random": "u8", "max": 0}},
                {"name": "y", "bytes": 64, "output": "y.bin"}],
    "launches": [{"kernel": "ssaxpy", "grid": [1], "block": [32],
                  "args": [{"struct": [{"u32": 12}, {"f32": 3.0}, {"buffer": "x"},
                                       {"u16": [1, 5, 2]}, {"buffer": "y"}]}]}]})";
  auto M = analyzer::loadManifest((Dir / "m.json").string());
  REQUIRE_MESSAGE(M, support::errorText(M));
  REQUIRE(M->launches[0].args[0].fields.size() == 7); // the array is three u16 fields
  auto R = analyzer::runManifest(*M);
  REQUIRE_MESSAGE(R, support::errorText(R));
  std::vector<float> Y(16);
  std::ifstream(Dir / "y.bin", std::ios::binary).read(reinterpret_cast<char *>(Y.data()), 64);
  for (int I = 0; I < 16; ++I)
    CHECK(Y[I] == (I < 12 ? 2.0f : 0.0f)); // 3 x 0 + tag[2]
  // A struct whose layout does not match the parameter's size is the interpreter's size error.
  std::ofstream(Dir / "m.json") << R"({"ptx": ["k.ptx"], "buffers": [{"name": "x", "bytes": 64}],
    "launches": [{"kernel": "ssaxpy", "grid": [1], "block": [32],
                  "args": [{"struct": [{"u32": 12}, {"buffer": "x"}]}]}]})";
  M = analyzer::loadManifest((Dir / "m.json").string());
  REQUIRE(M);
  R = analyzer::runManifest(*M);
  REQUIRE(!R);
  CHECK(R.error().message.find("argument 0 is 16 bytes; parameter 'p' is 32 bytes") !=
        std::string::npos);
  CHECK(errorOf(R"({"ptx": "k.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1],
                   "args": [{"struct": []}]}]})") ==
        "m.json:2:40: error: a struct needs at least one field");
  CHECK(errorOf(R"({"ptx": "k.ptx", "launches": [{"kernel": "k", "grid": [1], "block": [1],
                   "args": [{"struct": [{"f32": 1}, {"u8": [1, 300]}]}]}]})") ==
        "m.json:2:64: error: u8 argument must be in [0, 255], got 300");
  fs::remove_all(Dir);
}

TEST_CASE("manifest: a trap in a launch is an error naming the launch") {
  fs::path Dir = fs::temp_directory_path() / "ptxcast_manifest_trap";
  fs::create_directories(Dir);
  std::ofstream(Dir / "k.ptx") << SaxpyPtx;
  std::ofstream(Dir / "m.json") << R"({"ptx": "k.ptx",
    "buffers": [{"name": "x", "bytes": 16}, {"name": "y", "bytes": 16}],
    "launches": [{"kernel": "saxpy", "grid": [1], "block": [32],
                  "args": [{"u32": 5}, {"f32": 1.0}, {"buffer": "x"}, {"buffer": "y"}]}]})";
  auto M = analyzer::loadManifest((Dir / "m.json").string());
  REQUIRE(M);
  auto R = analyzer::runManifest(*M);
  REQUIRE(!R);
  CHECK(R.error().message.starts_with("launches[0]: "));
  CHECK(R.error().message.find("trap in kernel 'saxpy' (ctaid 0,0,0 tid 4,0,0): out-of-bounds "
                               "global load of 4 bytes") != std::string::npos);
  fs::remove_all(Dir);
}

TEST_CASE("manifest: buffers past the device cap in all are refused before any is allocated") {
  fs::path Dir = fs::temp_directory_path() / "ptxcast_manifest_cap";
  fs::create_directories(Dir);
  std::ofstream(Dir / "k.ptx") << SaxpyPtx;
  // Three 8 GiB buffers: each fits under the 16 GiB cap, together they do not. Allocated one by
  // one, the first two (16 GiB, zero-filled) would be held before the third failed.
  std::ofstream(Dir / "m.json") << R"({"ptx": "k.ptx",
    "buffers": [{"name": "x", "bytes": 8589934592}, {"name": "y", "bytes": 8589934592},
                {"name": "z", "bytes": 8589934592}],
    "launches": [{"kernel": "saxpy", "grid": [1], "block": [32],
                  "args": [{"u32": 5}, {"f32": 1.0}, {"buffer": "x"}, {"buffer": "y"}]}]})";
  auto M = analyzer::loadManifest((Dir / "m.json").string());
  REQUIRE(M);
  auto R = analyzer::runManifest(*M);
  REQUIRE(!R);
  CHECK(R.error().message == "the buffers total 25769803776 bytes, above the device memory cap "
                             "of 17179869184 bytes");
  fs::remove_all(Dir);
}

TEST_CASE("fast mode: struct arguments count as their fields when launches are deduplicated") {
  // struct { uint32_t n; uint32_t *out; }: each thread loops n times. Launches with the same
  // struct share one analysis; a different n is analysed on its own.
  analyzer::AnalysisInput In;
  In.ptx.push_back({"s.ptx", R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry loopn(.param .align 8 .b8 p[16]) {
  .reg .pred %p;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u32 %r1, [p];
  ld.param.u64 %rd1, [p+8];
  mov.u32 %r2, 0;
L:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p, %r2, %r1;
  @%p bra L;
  st.global.u32 [%rd1], %r2;
  ret;
}
)"});
  In.buffers = {analyzer::BufferSpec{"out", 4, {}, ""}};
  auto Launch = [](uint32_t N) {
    analyzer::ArgSpec Count, Out;
    Count.type = ptx::Type::U32;
    Count.bits = N;
    Out.isBuffer = true;
    Out.buffer = "out";
    analyzer::ArgSpec S;
    S.isStruct = true;
    S.fields = {Count, Out};
    analyzer::LaunchSpec L;
    L.kernel = "loopn";
    L.block = {32, 1, 1};
    L.args = {S};
    return L;
  };
  In.launches = {Launch(10), Launch(10), Launch(20)};
  auto R = analyzer::analyze(In, analyzer::AnalysisMode::Fast);
  REQUIRE_MESSAGE(R, support::errorText(R));
  CHECK(R->launches[1].reusedFrom == 0);
  CHECK(R->launches[2].reusedFrom == -1);
  const uint64_t A = R->launches[0].profile.warpInstructionsTotal();
  const uint64_t B = R->launches[2].profile.warpInstructionsTotal();
  CHECK(B - A == 10 * 3); // ten more turns of a three-instruction loop
}
