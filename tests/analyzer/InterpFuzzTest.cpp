// Inputs that crashed, exhausted memory or ran with a wrapped size in the interpreter, found by
// fuzz/ptx_interp_fuzzer or by reading the interpreter next to it (docs/interpreter.md,
// "Fuzzing"): each is now a decode error or a trap with its message.
#include "InterpTestUtil.h"

#include "analyzer/FastMode.h"

#include <cstdint>

using namespace interp_test;
using analyzer::Device;
using analyzer::KernelArg;
using analyzer::LaunchConfig;
using analyzer::RunResult;
using analyzer::TrapKind;

namespace {

/// decodeProgram's error for module body `Body` ("" when it decodes).
std::string decodeError(const std::string &Body) {
  support::Expected<ptx::Module> M = ptx::parseModule(module(Body), "k.ptx");
  REQUIRE_MESSAGE(M, support::errorText(M));
  support::Expected<analyzer::Program> P = analyzer::decodeProgram(*M);
  return P ? "" : P.error().str();
}

LaunchConfig oneThread(std::vector<KernelArg> Args = {}) {
  LaunchConfig L;
  L.args = std::move(Args);
  return L;
}

/// Runs kernel K of Body on one thread with Args: it must trap with Kind, saying Reason.
void expectTrap(const analyzer::Program &P, const char *K, std::vector<KernelArg> Args,
                TrapKind Kind, const std::string &Reason) {
  Device D;
  RunResult R = analyzer::runKernel(P, K, oneThread(std::move(Args)), D);
  REQUIRE(R.trap);
  CHECK(R.trap->kind == Kind);
  CHECK(R.trap->reason == Reason);
}

/// The one reason kernel k of Body is unsupported (Program::unsupported).
std::string unsupportedReason(const analyzer::Program &P) {
  std::vector<support::Error> Why = P.unsupported("k");
  REQUIRE(Why.size() == 1);
  return Why[0].message;
}

/// A barrier-free loop of one warp whose 48-byte stride touches 4 and 5 sectors in turn.
const char *AlternatingSectors = R"(
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, 0;
  mov.f32 %f1, 0f00000000;
LOOP:
  ld.global.f32 %f2, [%rd3];
  add.f32 %f1, %f1, %f2;
  add.s64 %rd3, %rd3, 48;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 64;
  @%p1 bra LOOP;
  ret;
}
)";

} // namespace

TEST_CASE("interp fuzz: wmma.load of .b128 or .b64 elements is unsupported, not a division by "
          "zero") {
  // Found by the fuzzer: a `.b128` modifier made the fragment 32 / 128 = 0 elements per register,
  // and the register count divided by that.
  for (const char *Type : {"b128.aligned.col.m16n16k16.bf16", "aligned.col.m16n16k16.b64"}) {
    CAPTURE(Type);
    const std::string Body = std::string(R"(
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  wmma.load.b.sync.)") + Type +
                             R"( {%r1, %r2, %r3, %r4}, [%rd1], %r5;
  ret;
}
)";
    analyzer::Program P = decode(module(Body));
    CHECK(unsupportedReason(P).find("(no wmma fragment of .b") != std::string::npos);
    Device D;
    RunResult R = analyzer::runKernel(P, "k", oneThread({KernelArg::u64(0)}), D);
    REQUIRE(R.trap);
    CHECK(R.trap->kind == TrapKind::Unsupported);
  }
}

TEST_CASE("interp fuzz: wmma.load of a shape wmma does not have is unsupported, not a modulo by "
          "zero") {
  // Found by the fuzzer: `m32n816.kglobal` names no shape (0 x 0), yet an f16 A fragment has
  // eight registers whatever the shape, and its element table took an index modulo 0.
  for (const char *Shape : {"m32n816.kglobal", "m32n0k16.global", "m64n64k16.global"}) {
    CAPTURE(Shape);
    const std::string Body = std::string(R"(
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  wmma.load.a.sync.aligned.row.)") +
                             Shape + R"(.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9;
  ret;
}
)";
    CHECK(unsupportedReason(decode(module(Body))).find("(wmma shape)") != std::string::npos);
  }
}

TEST_CASE("interp fuzz: KernelArg::raw zero-extends a .b128 scalar instead of reading past V") {
  // Found by the fuzzer, whose harness bound a `.param .b128` to raw(V, 128): 16 bytes copied
  // from an 8-byte value.
  const KernelArg A = KernelArg::raw(0x1122334455667788ull, 128);
  CHECK(A.bytes == std::vector<uint8_t>{0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0, 0, 0, 0,
                                        0, 0, 0, 0});
  CHECK(KernelArg::raw(0x1234, 16).bytes == std::vector<uint8_t>{0x34, 0x12});
}

TEST_CASE("interp fuzz: .const variables past the 64 KiB constant bank are a decode error") {
  // A 1 TiB .const array was a 1 TiB const image (std::bad_alloc).
  CHECK(decodeError(".const .b8 c[1099511627776];\n.visible .entry k() { ret; }\n") ==
        "k.ptx:5:1: error: .const variable 'c' of 1099511627776 bytes at offset 0 does not fit in "
        "the 65536 bytes of constant memory");
  CHECK(decodeError(".const .b8 a[32768];\n.const .b8 b[32768];\n.visible .entry k() { ret; }\n")
            .empty());
  CHECK(decodeError(".const .b8 a[32768];\n.const .b8 b[32768];\n.const .u32 c;\n"
                    ".visible .entry k() { ret; }\n") ==
        "k.ptx:7:1: error: .const variable 'c' of 4 bytes at offset 65536 does not fit in the "
        "65536 bytes of constant memory");
}

TEST_CASE("interp fuzz: a module's .shared layout past 16 MiB is a decode error") {
  // Every CTA gets the module's whole .shared layout: 3 GB for a variable no kernel uses, and
  // past 4 GiB the layout's size wrapped to a few bytes.
  CHECK(decodeError(".shared .b8 unused[3000000000];\n.visible .entry k() { ret; }\n") ==
        "k.ptx:5:1: error: .shared variable 'unused' of 3000000000 bytes at offset 0 does not fit "
        "in the 16777216 bytes the interpreter lays out for a module's .shared variables");
  CHECK(decodeError(".shared .b8 s[4294967312];\n.visible .entry k() { ret; }\n") != "");
  CHECK(
      decodeError(".shared .b8 a[153600];\n.shared .b8 b[153600];\n.visible .entry k() { ret; }\n")
          .empty());
}

TEST_CASE("interp fuzz: a function declaring more than 32,768 registers is a decode error") {
  // %r<2000000> took 19 s to decode under the sanitizers and 512 MB per warp to launch.
  CHECK(decodeError(".visible .entry k()\n{\n  .reg .b32 %r<2000000>;\n  ret;\n}\n") ==
        "k.ptx:5:10: error: function 'k' declares 2000000 registers; the interpreter allows 32768 "
        "per function");
  CHECK(decodeError(".visible .entry k()\n{\n  .reg .v4 .b32 %v<8193>;\n  ret;\n}\n") ==
        "k.ptx:5:10: error: function 'k' declares 32772 registers; the interpreter allows 32768 "
        "per function");
  CHECK(decodeError(".visible .entry k()\n{\n  .reg .b32 %r<32768>;\n  ret;\n}\n").empty());
}

TEST_CASE("interp trap: recursion through a function with many registers overflows the stack") {
  // Each frame of f holds 30,000 registers (240 KB per thread): without a limit on registers,
  // 1,024 nested calls took 7.9 GB per warp.
  const std::string Body = R"(
.func f()
{
  .reg .b32 %r<30000>;
  mov.u32 %r1, 1;
  call.uni f, ();
  ret;
}
.visible .entry deep()
{
  call.uni f, ();
  ret;
}
)";
  expectTrap(decode(module(Body)), "deep", {}, TrapKind::StackOverflow,
             "stack overflow calling 'f' (call depth 3, 720064 bytes of registers per thread)");
}

TEST_CASE("interp trap: local memory past 4 GiB overflows the stack instead of wrapping") {
  // 2^32 + 16 bytes of .local were kept as 16: the kernel ran, and a load at offset 1000 was
  // out of bounds of a 16-byte window.
  const std::string Body = R"(
.visible .entry k()
{
  .local .b8 l[4294967312];
  .reg .b32 %r<2>;
  ld.local.u32 %r1, [l+1000];
  ret;
}
)";
  expectTrap(decode(module(Body)), "k", {}, TrapKind::StackOverflow,
             "stack overflow calling 'k' (call depth 0, 4294967295 bytes of local and param "
             "memory per thread)");
}

TEST_CASE("interp trap: a kernel parameter past 4 GiB is not taken for 16 bytes") {
  const std::string Body = R"(
.visible .entry k(.param .b8 p[4294967312])
{
  .reg .b32 %r<2>;
  ld.param.u32 %r1, [p+1000];
  ret;
}
)";
  analyzer::Program P = decode(module(Body));
  CHECK(P.paramSizes("k") == std::vector<uint32_t>{UINT32_MAX});
  expectTrap(P, "k", {KernelArg{std::vector<uint8_t>(16, 0)}}, TrapKind::BadLaunch,
             "argument 0 is 16 bytes; parameter 'p' is 4294967295 bytes");
}

TEST_CASE("interp trap: a .global array past the device cap fails its launch, not its decode") {
  // Decoding a 1 TiB .global array allocated its 1 TiB of initial bytes (std::bad_alloc).
  const std::string Body = R"(
.global .b8 g[1099511627776];
.global .u32 t[4] = {7, 8};
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [t+4];
  ld.global.u32 %r2, [t+12];
  st.global.v2.u32 [%rd1], {%r1, %r2};
  ret;
}
)";
  analyzer::Program P = decode(module(Body));
  Device Small(1 << 20);
  uint64_t Out = makeBuffer(Small, "out", std::vector<uint32_t>(2, 0xdeadbeef));
  RunResult R = analyzer::runKernel(P, "k", oneThread({KernelArg::pointer(Out)}), Small);
  REQUIRE(R.trap);
  CHECK(R.trap->kind == TrapKind::BadLaunch);
  CHECK(R.trap->reason ==
        "buffer 'g' of 1099511627776 bytes exceeds the device memory cap of 1048576 bytes");
  // Without the large array, the initialised one reads its initialiser, then zeros.
  analyzer::Program Q = decode(module(Body.substr(Body.find(".global .u32"))));
  Device D;
  Out = makeBuffer(D, "out", std::vector<uint32_t>(2, 0xdeadbeef));
  R = analyzer::runKernel(Q, "k", oneThread({KernelArg::pointer(Out)}), D);
  REQUIRE_MESSAGE(R.ok(), R.trap->str());
  CHECK(readBuffer<uint32_t>(D, "out") == std::vector<uint32_t>{8, 0});
}

TEST_CASE("interp fuzz: fast mode caps the real memory of module .global variables") {
  analyzer::AnalysisInput In;
  In.ptx.push_back({"k.ptx", module(".global .b8 g[2097152];\n"
                                    ".visible .entry k() { ret; }\n")});
  analyzer::LaunchSpec L;
  L.kernel = "k";
  In.launches.push_back(L);
  analyzer::FastSettings S;
  S.threads = 1;
  S.deviceBytes = 1 << 20;
  support::Expected<analyzer::AnalysisResult> R =
      analyzer::analyze(In, analyzer::AnalysisMode::Fast, S);
  REQUIRE_FALSE(R);
  CHECK(R.error().str().find("buffer 'g' of 2097152 bytes exceeds the device memory cap of "
                             "1048576 bytes") != std::string::npos);
  S.deviceBytes = 4 << 20;
  CHECK(analyzer::analyze(In, analyzer::AnalysisMode::Fast, S));
}

TEST_CASE("interp fuzz: a warp loop whose sector counts alternate is interpreted, not a null "
          "dereference") {
  // Found by the fuzzer (a lowered GEMV's K loop with its stride changed): a 48-byte stride
  // touches 4 and 5 sectors in turn, so the warp-loop skip's counter steps differ; the failed
  // attempt restored the state with steps it had not sized yet (a null read in fast mode).
  analyzer::AnalysisInput In;
  In.ptx.push_back({"k.ptx", module(AlternatingSectors)});
  analyzer::BufferSpec Buf;
  Buf.name = "data";
  Buf.bytes = 4096;
  In.buffers.push_back(Buf);
  analyzer::LaunchSpec L;
  L.kernel = "k";
  L.block = {32, 1, 1};
  analyzer::ArgSpec A;
  A.isBuffer = true;
  A.buffer = "data";
  A.type = ptx::Type::U64;
  L.args.push_back(A);
  In.launches.push_back(L);
  analyzer::FastSettings S;
  S.threads = 1;
  support::Expected<analyzer::AnalysisResult> Fast =
      analyzer::analyze(In, analyzer::AnalysisMode::Fast, S);
  support::Expected<analyzer::AnalysisResult> Exact =
      analyzer::analyze(In, analyzer::AnalysisMode::Exact, S);
  REQUIRE_MESSAGE(Fast, support::errorText(Fast));
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  CHECK(Fast->total.warpInstructionsTotal() == Exact->total.warpInstructionsTotal());
  CHECK(Fast->total.globalLoadSectors == Exact->total.globalLoadSectors);
  CHECK(Exact->total.globalLoadSectors == 32 * 4 + 32 * 5);
}
