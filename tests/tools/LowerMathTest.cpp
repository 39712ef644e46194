// `ptxcast lower --math` and `ptxcast analyze --math`: tensor-core GEMM kernels on request,
// recorded in the manifest and workload, refused where they cannot run (docs/lower-driver.md).
#include "RunPtxcast.h"

#include <nlohmann/json.hpp>

#include <string>

using namespace clitest;
using Json = nlohmann::json;

TEST_CASE("lower --math tf32 puts lenet5's implicit GEMM on tensor cores and says so") {
  TempDir Dir("lower_math");
  RunResult R = runPtxcast("lower lenet5 --arch sm_80 --math tf32 -o " + Dir / "tf32");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json Manifest = Json::parse(readAll(Dir / "tf32/manifest.json"));
  CHECK(Manifest["math"] == "tf32");
  Json Workload = Json::parse(readAll(Dir / "tf32/workload.json"));
  CHECK(Workload["math"] == "tf32");
  size_t Mma = 0;
  for (const Json &L : Workload["launches"])
    if (L.value("math", "simt") == "tf32") {
      ++Mma;
      CHECK(L["strategy"] == "conv_implicit_gemm_mma"); // conv2: 6 -> 16 channels, 5x5
    }
  CHECK(Mma == 1);
  std::string Ptx;
  for (const Json &P : Manifest["ptx"])
    Ptx += readAll(Dir / ("tf32/" + P.get<std::string>()));
  CHECK(Ptx.find("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32") != std::string::npos);
  // The default lowering has no "math" in its manifest and no tensor-core kernel.
  R = runPtxcast("lower lenet5 --arch sm_80 -o " + Dir / "simt");
  REQUIRE(R.status == 0);
  CHECK_FALSE(Json::parse(readAll(Dir / "simt/manifest.json")).contains("math"));
  CHECK(Json::parse(readAll(Dir / "simt/workload.json"))["math"] == "simt");
}

TEST_CASE("lower --math f16 on sm_75: m16n8k8 and ldmatrix, no cp.async") {
  TempDir Dir("lower_math_sm75");
  RunResult R = runPtxcast("lower lenet5 --arch sm_75 --dtype f16 --math f16 -o " + Dir / "f16");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json Workload = Json::parse(readAll(Dir / "f16/workload.json"));
  size_t F16 = 0;
  for (const Json &L : Workload["launches"])
    if (L.value("math", "simt") == "f16") {
      ++F16;
      CHECK(L["kernel"].get<std::string>().find("_mma_f16_sm75_") != std::string::npos);
    }
  CHECK(F16 == 1);
  Json Manifest = Json::parse(readAll(Dir / "f16/manifest.json"));
  std::string Ptx;
  for (const Json &P : Manifest["ptx"])
    Ptx += readAll(Dir / ("f16/" + P.get<std::string>()));
  CHECK(Ptx.find("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32") != std::string::npos);
  CHECK(Ptx.find("ldmatrix.sync.aligned.m8n8.x4") != std::string::npos);
  CHECK(Ptx.find("cp.async") == std::string::npos);
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
  R = runPtxcast("analyze lenet5 --arch sm_80 --format json --threads 2");
  REQUIRE(R.status == 0);
  CHECK_FALSE(Json::parse(R.out)["total"].contains("tensor_macs"));
}
