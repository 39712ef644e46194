// `ptxcast lower --math` and `ptxcast analyze --math`: tensor-core GEMM kernels on request or, by
// default (auto), where PyTorch uses them; recorded in the manifest and workload, refused where
// they cannot run (docs/lower-driver.md).
#include "RunPtxcast.h"

#include <nlohmann/json.hpp>

#include <string>

using namespace clitest;
using Json = nlohmann::json;

namespace {

/// `ptxcast lower lenet5 ARGS -o DIR/SUB`: its workload.json and manifest.json, and its PTX.
struct Lowered {
  Json workload, manifest;
  std::string ptx;
};

Lowered lowerLenet(const TempDir &Dir, const std::string &Sub, const std::string &Args) {
  RunResult R = runPtxcast("lower lenet5 " + Args + " -o " + Dir / Sub);
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Lowered L{Json::parse(readAll(Dir / (Sub + "/workload.json"))),
            Json::parse(readAll(Dir / (Sub + "/manifest.json"))), ""};
  for (const Json &P : L.manifest["ptx"])
    L.ptx += readAll(Dir / (Sub + "/" + P.get<std::string>()));
  return L;
}

/// The launches whose recorded math is `Math` ("simt" where none is recorded), each checked to
/// have `Part` in its field `Field`.
size_t launchesWith(const Json &Workload, const std::string &Math, const std::string &Field,
                    const std::string &Part) {
  size_t N = 0;
  for (const Json &L : Workload["launches"])
    if (L.value("math", "simt") == Math) {
      ++N;
      CHECK(L[Field].get<std::string>().find(Part) != std::string::npos);
    }
  return N;
}

bool has(const std::string &Text, const char *Part) { return Text.find(Part) != std::string::npos; }

} // namespace

TEST_CASE("lower --math tf32 puts lenet5's implicit GEMM on tensor cores and says so") {
  TempDir Dir("lower_math");
  Lowered T = lowerLenet(Dir, "tf32", "--arch sm_80 --math tf32");
  CHECK(T.manifest["math"] == "tf32");
  CHECK(T.workload["math"] == "tf32");
  // conv2: 6 -> 16 channels, 5x5
  CHECK(launchesWith(T.workload, "tf32", "strategy", "conv_implicit_gemm_mma") == 1);
  CHECK(has(T.ptx, "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"));
  // --math simt: no "math" in the manifest and no tensor-core kernel.
  Lowered S = lowerLenet(Dir, "simt", "--arch sm_80 --math simt");
  CHECK_FALSE(S.manifest.contains("math"));
  CHECK(S.workload["math"] == "simt");
  CHECK(launchesWith(S.workload, "simt", "kernel", "") == S.workload["launches"].size());
}

TEST_CASE("lower defaults to --math auto: PyTorch's choice per layer and architecture") {
  TempDir Dir("lower_math_auto");
  // f32 on sm_80: the implicit-GEMM convolution on tf32 tensor cores, the rest (dense GEMVs,
  // pools, direct convolution) on CUDA cores.
  Lowered A = lowerLenet(Dir, "f32", "--arch sm_80");
  CHECK(A.manifest["math"] == "auto");
  CHECK(A.workload["math"] == "auto");
  CHECK(launchesWith(A.workload, "tf32", "strategy", "conv_implicit_gemm_mma") == 1);
  // f16 on sm_70: sm_70's f16 kernel for the same convolution.
  Lowered V = lowerLenet(Dir, "f16", "--arch sm_70 --dtype f16");
  CHECK(launchesWith(V.workload, "f16", "kernel", "_mma_f16_sm70_") == 1);
  CHECK(has(V.ptx, "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32"));
  // f32 on sm_75: nothing PyTorch runs on tensor cores there.
  Lowered T = lowerLenet(Dir, "t4", "--arch sm_75");
  CHECK(launchesWith(T.workload, "simt", "kernel", "") == T.workload["launches"].size());
}

TEST_CASE("lower --math f16 on sm_75: m16n8k8 and ldmatrix, no cp.async") {
  TempDir Dir("lower_math_sm75");
  Lowered H = lowerLenet(Dir, "f16", "--arch sm_75 --dtype f16 --math f16");
  CHECK(launchesWith(H.workload, "f16", "kernel", "_mma_f16_sm75_") == 1);
  CHECK(has(H.ptx, "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"));
  CHECK(has(H.ptx, "ldmatrix.sync.aligned.m8n8.x4"));
  CHECK_FALSE(has(H.ptx, "cp.async"));
}

TEST_CASE("lower --math refuses what cannot run, with the reason") {
  TempDir Dir("lower_math_bad");
  RunResult R = runPtxcast("lower lenet5 --arch sm_75 --math tf32 -o " + Dir / "x");
  CHECK(R.status == 1);
  CHECK(R.err == "error: lower: --math tf32 is not available on sm_75: tf32 mma needs sm_80\n");
  R = runPtxcast("lower lenet5 --arch sm_70 --math bf16 -o " + Dir / "x");
  CHECK(R.status == 1);
  CHECK(R.err == "error: lower: --math bf16 is not available on sm_70: bf16 mma needs sm_80\n");
  R = runPtxcast("lower lenet5 --dtype f16 --math bf16 -o " + Dir / "x");
  CHECK(R.status == 1);
  CHECK(R.err.find("--math bf16 needs f32 data") != std::string::npos);
  R = runPtxcast("lower lenet5 --math fp8 -o " + Dir / "x");
  CHECK(R.status != 0);
  CHECK(R.err.find("--math") != std::string::npos);
}

TEST_CASE("analyze --math f16 counts the tensor-core multiply-adds") {
  RunResult R = runPtxcast("analyze lenet5 --arch sm_80 --dtype f16 --math f16 --format json "
                           "--threads 2");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json Total = Json::parse(R.out)["total"];
  // conv2 as a 16 x 100 x 150 GEMM padded to one 32 x 32 tile grid: 1 x 4 CTAs, K to 160.
  CHECK(Total["tensor_macs"] == 32 * 32 * 4 * 160);
  R = runPtxcast("analyze lenet5 --arch sm_80 --math simt --format json --threads 2");
  REQUIRE(R.status == 0);
  CHECK_FALSE(Json::parse(R.out)["total"].contains("tensor_macs"));
  // The default (auto) puts the f32 convolution on tf32 tensor cores: the same padded GEMM.
  R = runPtxcast("analyze lenet5 --arch sm_80 --format json --threads 2");
  REQUIRE(R.status == 0);
  CHECK(Json::parse(R.out)["total"]["tensor_macs"] == 32 * 32 * 4 * 160);
}
