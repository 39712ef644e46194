// libFuzzer target: parse any bytes as PTX; when the module parses and decodes, run up to three of
// its kernels on the interpreter as `ptxcast run` (exact mode) and `ptxcast analyze` (fast mode)
// would, but tiny: one or two CTAs of at most 64 threads, every pointer parameter bound to its own
// zero-filled 4 KiB buffer, every other parameter to a small scalar or zero bytes, and a budget of
// 2^15 warp instructions per launch. A value or an error (a trap, a decode error) is fine; a
// crash, a sanitizer report, a leak, an allocation past -rss_limit_mb or a timeout is a defect.
#include "analyzer/FastMode.h"
#include "analyzer/Interpreter.h"
#include "analyzer/Program.h"
#include "ptx/Parser.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr size_t MaxKernels = 3;
constexpr uint64_t Budget = uint64_t(1) << 15; ///< warp instructions per launch
constexpr uint64_t BufferBytes = 4096;         ///< each pointer parameter's buffer
constexpr uint64_t MaxParamBytes = 4096;       ///< larger parameter lists are not launched
constexpr uint64_t DeviceBytes = uint64_t(64) << 20;

/// FNV-1a of a kernel's name: the launch shape is a function of the kernel, not of its body, so
/// mutating an instruction does not also change the geometry it runs with.
uint64_t nameHash(std::string_view Name) {
  uint64_t H = 0xcbf29ce484222325ull;
  for (char C : Name)
    H = (H ^ static_cast<uint8_t>(C)) * 0x100000001b3ull;
  return H;
}

/// The block: the kernel's `.reqntid` when it asks for at most 64 threads, else one of a few
/// shapes (full warps, a partial warp, a single thread, three dimensions).
analyzer::Dim3 blockFor(const ptx::Function &F, uint64_t H) {
  if (const std::vector<uint32_t> *R = F.directive("reqntid")) {
    analyzer::Dim3 B{1, 1, 1};
    uint64_t Threads = 1;
    for (size_t K = 0; K < std::min<size_t>(R->size(), 3); ++K) {
      B[K] = std::max<uint32_t>((*R)[K], 1);
      Threads *= B[K];
    }
    if (Threads <= 64)
      return B;
  }
  static constexpr analyzer::Dim3 Shapes[] = {{64, 1, 1}, {32, 1, 1}, {1, 1, 1}, {33, 1, 1},
                                              {8, 4, 2},  {16, 2, 1}, {5, 3, 1}, {48, 1, 1}};
  return Shapes[H % std::size(Shapes)];
}

analyzer::Dim3 gridFor(uint64_t H) {
  static constexpr analyzer::Dim3 Grids[] = {{1, 1, 1}, {2, 1, 1}, {1, 2, 1}};
  return Grids[(H >> 8) % std::size(Grids)];
}

/// How one kernel parameter is bound: a buffer, a scalar of `bits` bits, or zero bytes.
struct ParamBinding {
  enum class Kind : uint8_t { Buffer, Scalar, Bytes } kind = Kind::Bytes;
  ptx::Type type = ptx::Type::U32;
  uint64_t bits = 0; ///< Scalar: raw value
  uint32_t size = 0;
};

/// A small value of type T (1 + a few, as an integer or a float), as raw bits.
uint64_t smallValue(ptx::Type T, uint64_t H) {
  const uint64_t V = 1 + (H >> 16) % 8;
  switch (ptx::typeKind(T)) {
  case ptx::TypeKind::Float:
    if (ptx::typeBits(T) == 32)
      return std::bit_cast<uint32_t>(static_cast<float>(V));
    if (ptx::typeBits(T) == 64)
      return std::bit_cast<uint64_t>(static_cast<double>(V));
    return 0x3c00; // 1.0 in f16; bf16 reads it as a small number too
  default:
    return V;
  }
}

ParamBinding bind(const ptx::Variable &V, uint32_t Size, uint64_t H) {
  ParamBinding B;
  B.size = Size;
  const bool Scalar =
      V.dims.empty() && V.vectorWidth == 1 && Size <= 8 && ptx::typeBits(V.type) == Size * 8;
  if (!Scalar || ptx::typeKind(V.type) == ptx::TypeKind::Pred)
    return B;
  B.type = V.type;
  const bool Integer = ptx::typeKind(V.type) != ptx::TypeKind::Float;
  B.kind = Size == 8 && Integer ? ParamBinding::Kind::Buffer : ParamBinding::Kind::Scalar;
  B.bits = smallValue(V.type, H);
  return B;
}

/// One kernel to launch: its name, shape and parameter bindings.
struct KernelLaunch {
  std::string name;
  analyzer::Dim3 grid, block;
  std::vector<ParamBinding> params;
};

/// The launches of the module's first kernels; a kernel whose parameters the decoded program
/// sizes differently from the parsed ones, or that take more than MaxParamBytes, is skipped.
std::vector<KernelLaunch> plan(const ptx::Module &M, const analyzer::Program &P) {
  std::vector<KernelLaunch> Out;
  for (const std::string &Name : P.kernels()) {
    const ptx::Function *F = M.findFunction(Name);
    std::vector<uint32_t> Sizes = P.paramSizes(Name);
    uint64_t Total = 0;
    for (uint32_t S : Sizes)
      Total += S;
    if (!F || Sizes.size() != F->params.size() || Total > MaxParamBytes)
      continue;
    const uint64_t H = nameHash(Name);
    KernelLaunch L{Name, gridFor(H), blockFor(*F, H), {}};
    for (size_t K = 0; K < Sizes.size(); ++K)
      L.params.push_back(bind(F->params[K], Sizes[K], H));
    Out.push_back(std::move(L));
    if (Out.size() == MaxKernels)
      break;
  }
  return Out;
}

std::string bufferName(size_t Kernel, size_t Param) {
  return "k" + std::to_string(Kernel) + "p" + std::to_string(Param);
}

/// Exact mode: every launch on one Device, as `ptxcast run` runs a manifest.
void runExact(const analyzer::Program &P, const std::vector<KernelLaunch> &Launches, bool Verbose) {
  analyzer::Device D(DeviceBytes);
  analyzer::RunSettings S;
  S.maxWarpInstructions = Budget;
  for (size_t K = 0; K < Launches.size(); ++K) {
    const KernelLaunch &L = Launches[K];
    analyzer::LaunchConfig C;
    C.grid = L.grid;
    C.block = L.block;
    for (size_t A = 0; A < L.params.size(); ++A) {
      const ParamBinding &B = L.params[A];
      if (B.kind == ParamBinding::Kind::Buffer) {
        support::Expected<uint64_t> Addr = D.allocate(bufferName(K, A), BufferBytes);
        C.args.push_back(analyzer::KernelArg::pointer(Addr ? *Addr : 0));
      } else if (B.kind == ParamBinding::Kind::Scalar) {
        C.args.push_back(analyzer::KernelArg::raw(B.bits, B.size * 8));
      } else {
        C.args.push_back(analyzer::KernelArg{std::vector<uint8_t>(B.size, 0)});
      }
    }
    analyzer::RunResult R = analyzer::runKernel(P, L.name, C, D, S);
    std::string Outcome = R.trap ? R.trap->str() : "ok"; // the message must render
    if (Verbose)
      std::fprintf(stderr, "exact %s: %s, %llu warp instructions\n", L.name.c_str(),
                   Outcome.c_str(),
                   static_cast<unsigned long long>(R.profile.warpInstructionsTotal()));
  }
}

analyzer::ArgSpec argSpec(const ParamBinding &B, const std::string &Buffer) {
  analyzer::ArgSpec A;
  if (B.kind == ParamBinding::Kind::Bytes) {
    A.isStruct = true;
    analyzer::ArgSpec Byte;
    Byte.type = ptx::Type::U8;
    A.fields.assign(B.size, Byte);
    return A;
  }
  A.type = B.type;
  A.bits = B.bits;
  A.isBuffer = B.kind == ParamBinding::Kind::Buffer;
  A.buffer = Buffer;
  return A;
}

/// Fast mode on one thread: abstract memory, sampling, data check and loop skips switched on.
void runFast(std::string_view Text, const std::vector<KernelLaunch> &Launches, bool Verbose) {
  analyzer::AnalysisInput In;
  In.ptx.push_back({"fuzz.ptx", std::string(Text)});
  for (size_t K = 0; K < Launches.size(); ++K) {
    analyzer::LaunchSpec Spec;
    Spec.kernel = Launches[K].name;
    Spec.grid = Launches[K].grid;
    Spec.block = Launches[K].block;
    for (size_t A = 0; A < Launches[K].params.size(); ++A) {
      const ParamBinding &B = Launches[K].params[A];
      if (B.kind == ParamBinding::Kind::Buffer) {
        analyzer::BufferSpec Buf;
        Buf.name = bufferName(K, A);
        Buf.bytes = BufferBytes;
        In.buffers.push_back(std::move(Buf));
      }
      Spec.args.push_back(argSpec(B, bufferName(K, A)));
    }
    In.launches.push_back(std::move(Spec));
  }
  analyzer::FastSettings S;
  S.threads = 1;
  S.deviceBytes = DeviceBytes;
  S.run.maxWarpInstructions = Budget;
  support::Expected<analyzer::AnalysisResult> R =
      analyzer::analyze(In, analyzer::AnalysisMode::Fast, S);
  std::string Outcome = R ? "ok" : R.error().str(); // the message must render
  if (Verbose)
    std::fprintf(stderr, "fast: %s\n", Outcome.c_str());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  support::Expected<ptx::Module> M = ptx::parseModule(Text, "fuzz.ptx");
  if (!M)
    return 0;
  support::Expected<analyzer::Program> P = analyzer::decodeProgram(*M);
  if (!P)
    return 0;
  std::vector<KernelLaunch> Launches = plan(*M, *P);
  if (Launches.empty())
    return 0;
  // PTXCAST_FUZZ_VERBOSE=1 prints each launch's outcome (to check what a corpus exercises).
  const bool Verbose = std::getenv("PTXCAST_FUZZ_VERBOSE") != nullptr;
  runExact(*P, Launches, Verbose);
  runFast(Text, Launches, Verbose);
  return 0;
}
