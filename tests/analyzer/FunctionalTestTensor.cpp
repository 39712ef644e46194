// Functional tests: tensor-core GEMMs compiled by nvcc (tests/kernels/tensor_wmma.cu with the
// wmma API, tensor_mma.cu with inline mma.sync, ldmatrix and cp.async) run in the interpreter and
// compared with CPU references bit for bit (docs/semantics.md: an f32 fma chain over k in
// increasing order for 16-bit and tf32 inputs, exact sums for s8); their counts show the tensor
// class and the multiply-adds; fast mode counts them as exact mode does.
#include "ReferenceKernels.h"
#include "ReferenceRunner.h"
#include "analyzer/FastMode.h"
#include "analyzer/ScalarOps.h"

#include <filesystem>
#include <fstream>

using analyzer::Device;
using analyzer::KernelArg;
using namespace reftest;
namespace S = analyzer::scalar;

namespace {

constexpr int M = 32, N = 64, K = 64; // multiples of every kernel's tile and k step

/// Seeded inputs in [-1, 1] rounded to a 16-bit format: the bits and their values as floats.
struct Half16 {
  std::vector<uint16_t> bits;
  std::vector<float> values;
};
Half16 randomHalf(size_t Count, uint32_t Seed, bool Bf16) {
  Half16 H;
  for (float X : randomFloats(Count, Seed)) {
    H.bits.push_back(Bf16 ? S::f32ToBf16(X) : S::f32ToF16(X));
    H.values.push_back(Bf16 ? S::bf16ToF32(H.bits.back()) : S::f16ToF32(H.bits.back()));
  }
  return H;
}

/// A column-major copy (element (i, j) at j * Rows + i) of a row-major Rows x Cols matrix.
template <class T> std::vector<T> colMajor(const std::vector<T> &RowMajor, int Rows, int Cols) {
  std::vector<T> Out(RowMajor.size());
  for (int I = 0; I < Rows; ++I)
    for (int J = 0; J < Cols; ++J)
      Out[size_t(J) * Rows + I] = RowMajor[size_t(I) * Cols + J];
  return Out;
}

bool archHasSm80(const std::string &Arch) { return Arch != "sm_75"; }

/// Runs `Kernel(A, B, C, M, N, K[, Extra])` with one warp per (TileM x TileN) tile of C and
/// returns C; checks the tensor class (every lane) and the multiply-adds M * N * K.
template <class Out, class In>
std::optional<std::vector<Out>> gemm(const std::string &File, const std::string &Arch,
                                     const std::string &Kernel, const std::vector<In> &A,
                                     const std::vector<In> &B, int TileM, int TileN,
                                     std::vector<KernelArg> Extra = {}) {
  auto P = loadKernel(kernelPath(File, Arch), Kernel);
  if (!P)
    return std::nullopt;
  Device D;
  std::vector<KernelArg> Args = {upload(D, "A", A), upload(D, "B", B),
                                 upload(D, "C", std::vector<Out>(size_t(M) * N)),
                                 KernelArg::s32(M), KernelArg::s32(N), KernelArg::s32(K)};
  Args.insert(Args.end(), Extra.begin(), Extra.end());
  analyzer::LaunchConfig L;
  L.grid = {uint32_t(N / TileN), uint32_t(M / TileM), 1};
  L.block = {32, 1, 1};
  L.args = Args;
  analyzer::RunResult R = analyzer::runKernel(*P, Kernel, L, D);
  if (R.trap) {
    FAIL_CHECK(R.trap->str());
    return std::nullopt;
  }
  const size_t Tensor = size_t(ptx::InstrClass::Tensor);
  CHECK(R.profile.warpInstructions[Tensor] > 0);
  CHECK(R.profile.threadInstructions[Tensor] == 32 * R.profile.warpInstructions[Tensor]);
  CHECK(R.profile.tensorMacs == uint64_t(M) * N * K);
  return download<Out>(D, "C");
}

/// C = A x B over exact integers (s8 inputs, s32 results).
std::vector<int32_t> matmulInt(const std::vector<int8_t> &A, const std::vector<int8_t> &B) {
  std::vector<int32_t> C(size_t(M) * N);
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J)
      for (int Kk = 0; Kk < K; ++Kk)
        C[size_t(I) * N + J] += int32_t(A[size_t(I) * K + Kk]) * B[size_t(Kk) * N + J];
  return C;
}

std::vector<int8_t> randomS8(size_t Count, uint32_t Seed) {
  std::vector<int8_t> V;
  for (int32_t X : randomInts(Count, Seed, -128, 127))
    V.push_back(int8_t(X));
  return V;
}

} // namespace

TEST_CASE("functional: f16 and bf16 tensor-core GEMMs (wmma API, mma.sync, ldmatrix, cp.async)") {
  if (!haveNvcc())
    return;
  for (bool Bf16 : {false, true}) {
    Half16 A = randomHalf(size_t(M) * K, 11, Bf16), B = randomHalf(size_t(K) * N, 12, Bf16);
    const std::vector<float> Want = matmul(A.values, B.values, M, N, K);
    for (const std::string &Arch : nvccArchs()) {
      INFO("arch " << Arch << (Bf16 ? " bf16" : " f16"));
      if (!Bf16) { // wmma_f16: A and B row-major
        if (auto C = gemm<float>("tensor_wmma", Arch, "wmma_f16", A.bits, B.bits, 16, 16))
          checkEqual(*C, Want, "wmma_f16");
      } else if (archHasSm80(Arch)) { // wmma_bf16: A and B column-major
        if (auto C = gemm<float>("tensor_wmma", Arch, "wmma_bf16", colMajor(A.bits, M, K),
                                 colMajor(B.bits, K, N), 16, 16))
          checkEqual(*C, Want, "wmma_bf16");
      }
      if (!archHasSm80(Arch))
        continue;
      std::string Kernel = Bf16 ? "mma_bf16" : "mma_f16";
      if (auto C = gemm<float>("tensor_mma", Arch, Kernel, A.bits, B.bits, 16, 8))
        checkEqual(*C, Want, Kernel);
    }
  }
}

TEST_CASE("functional: tf32 tensor-core GEMMs (wmma with cvt.rna.tf32.f32, mma.sync m16n8k8)") {
  if (!haveNvcc())
    return;
  std::vector<float> A = randomFloats(size_t(M) * K, 13), B = randomFloats(size_t(K) * N, 14);
  auto Tf32 = [](std::vector<float> V) {
    for (float &X : V)
      X = S::f32FromBits(S::f32ToTf32(X, S::Round::Rna));
    return V;
  };
  const std::vector<float> At = Tf32(A), Bt = Tf32(B);
  std::vector<float> Want = matmul(At, Bt, M, N, K);
  const float Alpha = 0.75f;
  std::vector<float> Scaled = Want;
  for (float &X : Scaled)
    X *= Alpha;
  for (const std::string &Arch : nvccArchs()) {
    if (!archHasSm80(Arch))
      continue;
    INFO("arch " << Arch);
    // wmma_tf32 rounds the raw f32 inputs itself (to nearest, ties away: cvt.rna.tf32.f32).
    if (auto C = gemm<float>("tensor_wmma", Arch, "wmma_tf32", A, B, 16, 16,
                             {KernelArg::f32(Alpha)}))
      checkEqual(*C, Scaled, "wmma_tf32");
    // mma_tf32 takes tf32 values, B column-major.
    if (auto C = gemm<float>("tensor_mma", Arch, "mma_tf32", At, colMajor(Bt, K, N), 16, 8))
      checkEqual(*C, Want, "mma_tf32");
  }
}

TEST_CASE("functional: s8 tensor-core GEMMs with s32 accumulators (wmma, mma.sync m16n8k32)") {
  if (!haveNvcc())
    return;
  std::vector<int8_t> A = randomS8(size_t(M) * K, 15), B = randomS8(size_t(K) * N, 16);
  const std::vector<int32_t> Want = matmulInt(A, B);
  const std::vector<int8_t> Bc = colMajor(B, K, N); // B column-major in both kernels
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    if (auto C = gemm<int32_t>("tensor_wmma", Arch, "wmma_s8", A, Bc, 16, 16))
      checkEqual(*C, Want, "wmma_s8");
    if (archHasSm80(Arch))
      if (auto C = gemm<int32_t>("tensor_mma", Arch, "mma_s8", A, Bc, 16, 8))
        checkEqual(*C, Want, "mma_s8");
  }
}

TEST_CASE("functional: wmma m32n8k16 with half accumulators and m8n32k16 with u8 inputs") {
  if (!haveNvcc())
    return;
  // Half accumulators: each wmma step (16 k) is an f32 fma chain from the accumulator's value,
  // rounded to half at its end (docs/semantics.md).
  Half16 A = randomHalf(size_t(M) * K, 17, false), B = randomHalf(size_t(K) * N, 18, false);
  std::vector<uint16_t> Want(size_t(M) * N);
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J) {
      uint16_t Acc = 0;
      for (int K0 = 0; K0 < K; K0 += 16) {
        float V = S::f16ToF32(Acc);
        for (int Kk = K0; Kk < K0 + 16; ++Kk)
          V = std::fma(A.values[size_t(I) * K + Kk], B.values[size_t(Kk) * N + J], V);
        Acc = S::f32ToF16(V);
      }
      Want[size_t(I) * N + J] = Acc;
    }
  std::vector<uint8_t> Au, Bu;
  for (int32_t X : randomInts(size_t(M) * K, 19, 0, 255))
    Au.push_back(uint8_t(X));
  for (int32_t X : randomInts(size_t(K) * N, 20, 0, 255))
    Bu.push_back(uint8_t(X));
  std::vector<int32_t> WantU(size_t(M) * N);
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J)
      for (int Kk = 0; Kk < K; ++Kk)
        WantU[size_t(I) * N + J] += int32_t(Au[size_t(I) * K + Kk]) * Bu[size_t(Kk) * N + J];
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    if (auto C = gemm<uint16_t>("tensor_wmma", Arch, "wmma_f16_acc16_m32n8", A.bits,
                                colMajor(B.bits, K, N), 32, 8))
      checkEqual(*C, Want, "wmma_f16_acc16_m32n8");
    if (auto C = gemm<int32_t>("tensor_wmma", Arch, "wmma_u8_m8n32", colMajor(Au, M, K), Bu, 8, 32))
      checkEqual(*C, WantU, "wmma_u8_m8n32");
  }
}

TEST_CASE("fast mode: tensor-core GEMMs count as in exact mode, loop skips included") {
  if (!haveNvcc())
    return;
  namespace fs = std::filesystem;
  fs::path Dir = fs::temp_directory_path() / "ptxcast_fastmode_tensor";
  fs::create_directories(Dir);
  // 128 x 128 x 2048: 128 (mma) or 64 (wmma) CTAs, k loops of 64 to 256 steps.
  auto Launch = [](const char *Kernel, int TileN, int TileM, const std::string &Extra = "") {
    return std::string(R"({"kernel": ")") + Kernel + R"(", "grid": [)" +
           std::to_string(128 / TileN) + ", " + std::to_string(128 / TileM) +
           R"(], "block": [32], "args": [{"buffer": "A"}, {"buffer": "B"}, {"buffer": "C"}, )" +
           R"({"s32": 128}, {"s32": 128}, {"s32": 2048})" + Extra + "]}";
  };
  std::ofstream(Dir / "m.json")
      << R"({"ptx": [")" PTXCAST_KERNEL_DIR R"(/tensor_mma.sm_80.ptx", ")" PTXCAST_KERNEL_DIR
         R"(/tensor_wmma.sm_80.ptx"],
    "buffers": [{"name": "A", "bytes": 1048576, "init": {"random": "f16", "seed": 1}},
                {"name": "B", "bytes": 1048576, "init": {"random": "f16", "seed": 2}},
                {"name": "C", "bytes": 65536}],
    "launches": [)" + Launch("mma_f16", 8, 16) +
             ", " + Launch("mma_s8", 8, 16) + ", " + Launch("wmma_f16", 16, 16) + ", " +
             Launch("wmma_tf32", 16, 16, R"(, {"f32": 0.5})") + "]}";
  auto Man = analyzer::loadManifest((Dir / "m.json").string(),
                                    analyzer::ManifestOptions{.allowOutsidePaths = true});
  REQUIRE_MESSAGE(Man, support::errorText(Man));
  auto In = analyzer::analysisInput(*Man);
  REQUIRE_MESSAGE(In, support::errorText(In));
  auto Exact = analyzer::analyze(*In, analyzer::AnalysisMode::Exact);
  auto Fast = analyzer::analyze(*In, analyzer::AnalysisMode::Fast);
  REQUIRE_MESSAGE(Exact, support::errorText(Exact));
  REQUIRE_MESSAGE(Fast, support::errorText(Fast));
  for (size_t L = 0; L < Fast->launches.size(); ++L) {
    CAPTURE(L);
    const analyzer::KernelProfile &F = Fast->launches[L].profile, &E = Exact->launches[L].profile;
    CHECK(Fast->launches[L].extrapolated);
    CHECK(F.warpInstructions == E.warpInstructions);
    CHECK(F.threadInstructions == E.threadInstructions);
    CHECK(F.tensorMacs == uint64_t(128) * 128 * 2048);
    CHECK(F.tensorMacs == E.tensorMacs);
    CHECK(F.tensorMacsInt8 == (L == 1 ? F.tensorMacs : 0)); // mma_s8 only
    CHECK(F.tensorMacsInt8 == E.tensorMacsInt8);
    CHECK(F.globalLoadSectors == E.globalLoadSectors);
    CHECK(F.sharedBankConflicts == E.sharedBankConflicts);
    CHECK(F.loadBytes == E.loadBytes);
    CHECK(F.storeBytes == E.storeBytes);
  }
  // The mma kernels' k loops (cp.async, bar.sync, ldmatrix, mma) are jumped over.
  CHECK(Fast->launches[0].loopIterationsSkipped > 0);
  CHECK(Fast->launches[1].loopIterationsSkipped > 0);
  fs::remove_all(Dir);
}
