// The physical skeleton (hardware/Skeleton.h) and the cross-GPU features (hardware/Features.h):
// occupancy limits, per-resource busy times worked out by hand, tensor-core math modes, and
// monotonicity in the GPU's resources. Launch counts are synthetic, for mechanics.
#include "hardware/Skeleton.h"
#include "hardware/Features.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace hardware;

namespace {

GpuSpec catalogGpu(const char *Name) {
  auto C = GpuCatalog::builtin();
  REQUIRE(C);
  auto G = C->lookup(Name);
  REQUIRE(G);
  return *G;
}

/// A launch of `Ctas` CTAs of 256 threads, each thread doing `FmaPerThread` FP32 FMAs and
/// reading 4 bytes per thread (coalesced: 8 sectors per warp request... 4 per 128 bytes).
LaunchWork launch(uint32_t Ctas, double FmaPerThread, std::string Kind = "conv_gemm") {
  LaunchWork W;
  W.kind = std::move(Kind);
  analyzer::KernelProfile &P = W.profile;
  P.grid = {Ctas, 1, 1};
  P.block = {256, 1, 1};
  const double Threads = 256.0 * Ctas;
  P.threadInstructions[size_t(ptx::InstrClass::Fp32)] = uint64_t(Threads * FmaPerThread);
  P.warpInstructions[size_t(ptx::InstrClass::Fp32)] = uint64_t(Threads / 32 * FmaPerThread);
  P.globalLoadRequests = uint64_t(Threads / 32);
  P.globalLoadSectors = uint64_t(Threads / 32 * 4);
  W.footprintBytes = uint64_t(Threads * 4);
  W.macs = Threads * FmaPerThread;
  return W;
}

double ms(const LaunchBound &B, Resource R) { return B.ms[size_t(R)]; }

} // namespace

TEST_CASE("skeleton: occupancy is limited by threads, registers, shared memory and the grid") {
  GpuSpec A100 = catalogGpu("a100");
  LaunchWork W = launch(10000, 1);
  Occupancy O = occupancy(W, A100);
  CHECK(O.warpsPerCta == 8);
  CHECK(O.ctasPerSm == 8); // 64 warps per SM / 8
  CHECK(O.limiter == "threads");
  W.profile.registersPerThread = 128; // 128 x 32 = 4096 per warp, 32768 per CTA: 2 per SM
  O = occupancy(W, A100);
  CHECK(O.ctasPerSm == 2);
  CHECK(O.limiter == "registers");
  W.profile.registersPerThread = 0;
  W.profile.staticSharedBytes = 40 * 1024; // (40 + 1 reserved) KB of 164 KB: 4 per SM
  O = occupancy(W, A100);
  CHECK(O.ctasPerSm == 4);
  CHECK(O.limiter == "shared");
  O = occupancy(launch(100, 1), A100); // 100 CTAs on 108 SMs: one each
  CHECK(O.ctasPerSm == 1);
  CHECK(O.limiter == "grid");
  CHECK(occupancy(launch(10000, 1), catalogGpu("t4")).ctasPerSm == 4); // 32 warps per SM
}

TEST_CASE("skeleton: an FMA-bound launch takes the busiest SM's FMAs at the cores' rate") {
  GpuSpec V100 = catalogGpu("v100-pcie-32gb");
  Execution Simt{MathMode::Simt, Implementation::Ptxcast, false};
  // 801 CTAs on 80 SMs: the busiest SM runs 11 of them.
  LaunchBound B = bound(launch(801, 1000), V100, Simt);
  const double PerCta = 256.0 * 1000;
  const double Expected = 11 * PerCta / 64 / (1380e6) * 1e3; // 64 FP32 lanes at 1380 MHz, ms
  CHECK(ms(B, Resource::Fma) == doctest::Approx(Expected));
  CHECK(B.workMs == doctest::Approx(Expected));
  CHECK(launchLatencyMs(V100) == doctest::Approx(4950 / 1380e3));
  CHECK(B.boundMs == doctest::Approx(Expected + launchLatencyMs(V100)));
  CHECK(B.waves == doctest::Approx(801.0 / (80 * 8)));
  CHECK(B.tailFill == doctest::Approx(801.0 / 640 - 1));
  CHECK(ms(B, Resource::Tensor) == 0);
}

TEST_CASE("skeleton: DRAM time is the footprint not still in L2, at the memory bandwidth") {
  GpuSpec T4 = catalogGpu("t4"); // 4 MB of L2, 320 GB/s
  auto Elementwise = [](uint32_t Ctas) {
    LaunchWork W = launch(Ctas, 0, "eltwise_activation");
    W.profile.globalStoreRequests = W.profile.globalLoadRequests;
    W.profile.globalStoreSectors = W.profile.globalLoadSectors;
    W.footprintBytes *= 2; // read once, written once
    return W;
  };
  const double L2 = 4.0 * 1024 * 1024, Share = L2ResidentShare * L2;
  // 8 MB: the first Share bytes are still in L2 from the launch before.
  LaunchBound Big = bound(Elementwise(4096), T4, {});
  const double Bytes = 2.0 * 4096 * 256 * 4;
  CHECK(Big.dramBytes == doctest::Approx(Bytes - Share));
  CHECK(ms(Big, Resource::Dram) == doctest::Approx((Bytes - Share) / 320e9 * 1e3));
  CHECK(Big.memoryMs >= ms(Big, Resource::Dram));
  // 1 MB fits: no DRAM traffic, and the L2 moves the bytes.
  LaunchBound Small = bound(Elementwise(512), T4, {});
  CHECK(Small.dramBytes == 0);
  CHECK(ms(Small, Resource::L2) > 0);
  CHECK(Small.memoryMs == ms(Small, Resource::L2));
}

TEST_CASE("skeleton: GEMM-like framework launches run on tensor cores in their math mode") {
  GpuSpec A100 = catalogGpu("a100");
  LaunchWork Conv = launch(1080, 2000);
  Execution Tf32{MathMode::Tf32, Implementation::Framework, false};
  LaunchBound B = bound(Conv, A100, Tf32);
  const double Busiest = 10.0 / 1080; // ceil(1080 / 108) CTAs of 1080
  const double TensorMacsPerSmClock = 156e12 / 2 / (108 * 1410e6);
  CHECK(ms(B, Resource::Tensor) ==
        doctest::Approx(Conv.macs * Busiest / TensorMacsPerSmClock / 1410e6 * 1e3));
  CHECK(ms(B, Resource::Fma) == 0); // every FMA moved to the tensor cores
  // PyTorch keeps fp32 matmuls on the CUDA cores (TF32 off for matmul by default).
  LaunchWork Dense = Conv;
  Dense.kind = "dense_gemm";
  CHECK(ms(bound(Dense, A100, Tf32), Resource::Tensor) == 0);
  // ptxcast's own kernels have no tensor instructions; Volta has no TF32 at all.
  CHECK(ms(bound(Conv, A100, {MathMode::Tf32, Implementation::Ptxcast, false}), Resource::Tensor) ==
        0);
  CHECK(ms(bound(Conv, catalogGpu("v100"), Tf32), Resource::Tensor) == 0);
  CHECK(ms(bound(Conv, catalogGpu("v100"), {MathMode::F16, Implementation::Framework, true}),
           Resource::Tensor) > 0);
  CHECK(defaultMathMode("f32", 8.0) == MathMode::Tf32);
  CHECK(defaultMathMode("f32", 7.5) == MathMode::Simt);
  CHECK(defaultMathMode("f16", 7.0) == MathMode::F16);
  CHECK(defaultMathMode("int8", 7.2) == MathMode::Int8); // Jetson Xavier's integer WMMA
  CHECK(defaultMathMode("int8", 7.0) == MathMode::Simt); // the V100: dp4a
}

TEST_CASE("skeleton: which GPUs run fp16 and int8 fast, as TensorRT's support matrix has it") {
  // FP16: tensor cores, or CUDA-core FP16 at half the FP32 rate or more (GP100, GP10B, the
  // Jetson Nano's GM20B); compute capability 6.1 runs it at 1/64.
  for (const char *Fast : {"p100", "jetson-tx2", "jetson-nano", "t4", "v100", "rtx-a4000", "h100"})
    CHECK_MESSAGE(fastFp16(catalogGpu(Fast)), Fast);
  for (const char *Slow : {"p4", "p40", "gtx-1080-ti", "gtx-1060"})
    CHECK_MESSAGE(!fastFp16(catalogGpu(Slow)), Slow);
  // int8: dp4a on 6.1 and from 7.0, or int8 tensor cores; not on 6.0, 6.2 or Maxwell.
  for (const char *Fast : {"p4", "gtx-1080", "v100", "jetson-agx-xavier", "t4", "h100"})
    CHECK_MESSAGE(fastInt8(catalogGpu(Fast)), Fast);
  for (const char *Slow : {"p100", "jetson-tx2", "jetson-nano"})
    CHECK_MESSAGE(!fastInt8(catalogGpu(Slow)), Slow);
}

TEST_CASE("skeleton: a framework's GEMM-like launch reads its footprint through L2 once") {
  GpuSpec A100 = catalogGpu("a100"); // 40 MB of L2
  const Execution Tf32{MathMode::Tf32, Implementation::Framework, false};
  LaunchWork Conv = launch(216, 1); // 216 CTAs: every SM runs some
  Conv.footprintBytes = 8u << 20;   // fits in the resident share: no DRAM traffic
  // Our plain kernel's sectors are not the library's traffic: the footprint is, once.
  Conv.profile.globalLoadSectors *= 1000;
  LaunchBound B = bound(Conv, A100, Tf32);
  const double L2Bps = A100.limits.l2BytesPerClockPerSm * A100.smCount * A100.boostClockMhz * 1e6;
  CHECK(B.dramBytes == 0);
  CHECK(B.l2Bytes == doctest::Approx(8.0 * 1024 * 1024));
  CHECK(ms(B, Resource::L2) == doctest::Approx(8.0 * 1024 * 1024 / L2Bps * 1e3));
  CHECK(B.workMs == ms(B, Resource::L2)); // 216 x 256 MACs are nothing next to 8 MB
  // A launch on fewer CTAs than SMs moves its bytes through the L2 slices of the SMs it uses.
  Conv.profile.grid = {54, 1, 1};
  CHECK(ms(bound(Conv, A100, Tf32), Resource::L2) ==
        doctest::Approx(8.0 * 1024 * 1024 / (L2Bps * 54 / A100.smCount) * 1e3));
}

TEST_CASE("skeleton: a framework's one-row dense layer is bound as its library's GEMV") {
  // ptxcast's GEMV issues many instructions per weight; cuBLAS's reads each weight once. A
  // framework's dense layer of one row is bound by that read, as one of two rows is (else the
  // time could fall from batch 1 to 2).
  GpuSpec T4 = catalogGpu("t4");
  const Execution Simt{MathMode::Simt, Implementation::Framework, false};
  auto Dense = [](double Rows) {
    LaunchWork W = launch(512, 200, "dense_gemv");
    W.gemm = GemmShape{1, Rows, 4096, 9216};
    W.macs = Rows * 4096 * 9216;
    W.footprintBytes = uint64_t(4 * (4096.0 * 9216 + Rows * (4096 + 9216)));
    return W;
  };
  const LaunchBound One = bound(Dense(1), T4, Simt), Two = bound(Dense(2), T4, Simt);
  CHECK(One.l2Bytes == doctest::Approx(double(Dense(1).footprintBytes)));
  CHECK(Two.boundMs >= One.boundMs);
  const Execution Own{MathMode::Simt, Implementation::Ptxcast, false};
  // ptxcast's own kernel: its counted sectors.
  CHECK(bound(Dense(1), T4, Own).l2Bytes ==
        doctest::Approx(32.0 * double(Dense(1).profile.globalLoadSectors)));
}

TEST_CASE("skeleton: on Hopper a framework's tensor multiply-adds reach the peak, mma.sync half") {
  GpuSpec H100 = catalogGpu("h100-sxm");
  CHECK(H100.limits.mmaSyncShare() == 0.5); // wgmma reaches the peak, mma.sync and wmma half
  CHECK(catalogGpu("a100").limits.mmaSyncShare() == 1);
  CHECK(catalogGpu("rtx-4090").limits.mmaSyncShare() == 1);
  LaunchWork Conv = launch(1320, 2000);
  const double Busiest = 10.0 / 1320; // ceil(1320 / 132) CTAs of 1320
  const double Hz = H100.boostClockMhz * 1e6;
  // cuDNN's and cuBLAS's sm90 kernels issue wgmma.
  for (auto [Mode, Peak] :
       {std::pair{MathMode::F16, H100.tensor.fp16}, std::pair{MathMode::Tf32, H100.tensor.tf32}}) {
    const double MacsPerSmClock = Peak * 1e12 / 2 / (132 * Hz);
    LaunchBound B = bound(Conv, H100, {Mode, Implementation::Framework, Mode == MathMode::F16});
    CHECK(ms(B, Resource::Tensor) ==
          doctest::Approx(Conv.macs * Busiest / MacsPerSmClock / Hz * 1e3));
  }
  // ptxcast's own tensor-core kernels (mma.sync in their PTX) are charged half of it.
  LaunchWork Own = Conv;
  Own.profile.tensorMacs = uint64_t(Conv.macs);
  LaunchBound B = bound(Own, H100, {MathMode::F16, Implementation::Ptxcast, true});
  CHECK(ms(B, Resource::Tensor) ==
        doctest::Approx(Conv.macs * Busiest / (H100.tensor.fp16 * 0.5e12 / 2 / (132 * Hz)) / Hz *
                        1e3));
}

TEST_CASE("skeleton: a framework runs an image's first convolution on CUDA cores") {
  GpuSpec H100 = catalogGpu("h100-sxm");
  LaunchWork Conv = launch(1320, 2000, "conv_implicit_gemm");
  const double Busiest = 10.0 / 1320;
  const double Hz = H100.boostClockMhz * 1e6;
  for (bool Half : {false, true}) {
    const Execution E{Half ? MathMode::F16 : MathMode::Tf32, Implementation::Framework, Half};
    CHECK(ms(bound(Conv, H100, E), Resource::Tensor) > 0);
    LaunchWork Image = Conv;
    Image.framework.imageConv = true; // 3 input channels: no tensor-core kernel takes them
    LaunchBound B = bound(Image, H100, E);
    CHECK(ms(B, Resource::Tensor) == 0);
    CHECK(ms(B, Resource::Fma) == doctest::Approx(Conv.macs * Busiest / 128 / Hz * 1e3));
    CHECK(B.boundMs > bound(Conv, H100, E).boundMs);
  }
}

TEST_CASE("skeleton: an engine runs a 3x3 stride-1 convolution on CUDA cores as Winograd") {
  GpuSpec T4 = catalogGpu("t4");
  LaunchWork Conv = launch(1200, 2000, "conv_implicit_gemm");
  Conv.winograd = true;
  Execution Engine{MathMode::Simt, Implementation::Framework, false};
  Engine.engine = true;
  const Execution PyTorch{MathMode::Simt, Implementation::Framework, false};
  const double Direct = ms(bound(Conv, T4, PyTorch), Resource::Fma);
  CHECK(ms(bound(Conv, T4, Engine), Resource::Fma) == doctest::Approx(Direct * 16 / 36));
  // Not for another shape, nor where the engine's convolution runs on tensor cores or on int8.
  LaunchWork Other = Conv;
  Other.winograd = false;
  CHECK(ms(bound(Other, T4, Engine), Resource::Fma) == doctest::Approx(Direct));
  Execution Half = Engine;
  Half.math = MathMode::F16;
  CHECK(ms(bound(Conv, T4, Half), Resource::Fma) == 0);
  Execution Int8 = Engine;
  Int8.int8 = true;
  CHECK(ms(bound(Conv, T4, Int8), Resource::Fma) == doctest::Approx(Direct / 4));
}

TEST_CASE("skeleton: an engine copies only the concatenation inputs not written in place") {
  GpuSpec T4 = catalogGpu("t4");
  LaunchWork Cat = launch(400, 2, "concat");
  Cat.profile.globalStoreRequests = Cat.profile.globalLoadRequests;
  Cat.profile.globalStoreSectors = Cat.profile.globalLoadSectors;
  Execution Engine{MathMode::F16, Implementation::Framework, false};
  Engine.engine = true;
  const Execution PyTorch{MathMode::F16, Implementation::Framework, false};
  const LaunchBound Copy = bound(Cat, T4, Engine);
  REQUIRE(Copy.workMs > 0);
  // A quarter of the bytes moved into the output: three quarters of every busy time and byte.
  Cat.inPlaceShare = 0.25;
  const LaunchBound Part = bound(Cat, T4, Engine);
  CHECK(Part.workMs == doctest::Approx(0.75 * Copy.workMs));
  CHECK(ms(Part, Resource::L2) == doctest::Approx(0.75 * ms(Copy, Resource::L2)));
  CHECK(Part.dramBytes == doctest::Approx(0.75 * Copy.dramBytes));
  CHECK(Part.kernels == 1);
  CHECK(Part.latencyMs == doctest::Approx(Copy.latencyMs));
  // Every input in place: no copy and no launch, and the group's features stay finite.
  Cat.inPlaceShare = 1;
  const LaunchBound None = bound(Cat, T4, Engine);
  CHECK(None.boundMs == 0);
  CHECK(None.kernels == 0);
  LaunchWork Both[] = {launch(800, 100), Cat};
  const GroupFeatures G = groupFeatures(Both, T4, Engine);
  CHECK(G.boundMs == doctest::Approx(bound(Both[0], T4, Engine).boundMs));
  CHECK(G.launches.size() == 2);
  for (const auto &[Name, V] : G.features)
    CHECK_MESSAGE(std::isfinite(V), Name);
  // PyTorch's torch.cat copies every input.
  CHECK(bound(Cat, T4, PyTorch).workMs == doctest::Approx(Copy.workMs));
}

TEST_CASE("skeleton: a framework's bias adds and batch norms are bound by memory latency") {
  GpuSpec H100 = catalogGpu("h100-sxm");
  GpuSpec H200 = catalogGpu("h200");
  LaunchWork Conv = launch(132, 100);
  Conv.profile.storeBytes[size_t(analyzer::MemSpace::Global)] = 2000000; // 1 M fp16 outputs
  Conv.framework.elementBytes = 2;
  Conv.fusedLayers = 2; // a batch norm and a ReLU
  Conv.framework.biasAdds = 1;
  Conv.framework.latencyBoundElements = 2000000; // the batch norm's and the bias add's outputs
  const Execution Amp{MathMode::F16, Implementation::Framework, true};
  LaunchBound B = bound(Conv, H100, Amp);
  const double Bw = H100.memoryBandwidthGBs * 1e9;
  const double Latency = 2e6 * MemoryLatencyNs * 1e-9 / (132 * 2048);
  const double Slow = std::hypot(8e6 / Bw, Latency); // the 8 MB they move, and their latency
  CHECK(passSeconds(8e6, 2e6, H100) == doctest::Approx(Slow));
  CHECK(Latency > 8e6 / Bw); // on the H100 latency, more than bandwidth, bounds them
  CHECK(B.unfusedMs == doctest::Approx((4e6 / Bw + Slow) * 1e3)); // the ReLU moves 4 MB
  CHECK(B.latencyMs == doctest::Approx(4 * launchLatencyMs(H100)));
  // The H200's 1.43x memory bandwidth speeds up the ReLU by that, the latency-bound passes by
  // a few percent.
  LaunchBound On200 = bound(Conv, H200, Amp);
  const double Slow200 = On200.unfusedMs - 4e6 / (H200.memoryBandwidthGBs * 1e9) * 1e3;
  CHECK(Slow200 == doctest::Approx(passSeconds(8e6, 2e6, H200) * 1e3));
  CHECK(Slow200 / (Slow * 1e3) > 0.95);
  CHECK(Slow200 / (Slow * 1e3) < 1);
  // fp32's twice the bytes per element cost more than latency alone, less than bandwidth alone.
  const double F32 = passSeconds(16e6, 2e6, H100) / Slow;
  CHECK(F32 > 1.1);
  CHECK(F32 < 1.5);
  // A batch norm that begins a launch: its DRAM term is at least the pass's time.
  LaunchWork Bn = launch(1000, 1, "eltwise_batch_norm");
  Bn.framework.leadingLatencyBoundElements = 50000000;
  const double BnMs = passSeconds(8 * 5e7, 5e7, H100) * 1e3; // fp32: 4 bytes read, 4 written
  CHECK(ms(bound(Bn, H100, Amp), Resource::Dram) == doctest::Approx(BnMs));
  CHECK(ms(bound(Bn, H100, {MathMode::F16, Implementation::Ptxcast, true}), Resource::Dram) <
        BnMs); // ptxcast's own kernel vectorises
}

TEST_CASE("skeleton: a framework's pool reads its input at memory latency, fp16 as fp32") {
  GpuSpec H100 = catalogGpu("h100-sxm");
  // ResNet's 3x3 stride-2 max pool at batch 64: 64 x 64 x 112 x 112 inputs, a quarter as many
  // outputs; its DRAM bytes are its footprint less what the L2 still holds.
  const double In = 64.0 * 64 * 112 * 112;
  const double Resident = L2ResidentShare * H100.l2MB * 1024 * 1024;
  LaunchWork Pool = launch(50176, 1, "pool_max");
  Pool.framework.poolInputElements = uint64_t(In);
  const Execution Fp32{MathMode::Tf32, Implementation::Framework, false};
  for (uint32_t Bytes : {4u, 2u}) {
    Pool.footprintBytes = uint64_t(In * 1.25 * Bytes);
    const double Expected = passSeconds(In * 1.25 * Bytes - Resident, In, H100) * 1e3;
    CHECK(ms(bound(Pool, H100, Fp32), Resource::Dram) == doctest::Approx(Expected));
    // Measured 0.204 ms (fp32) and 0.209 ms (fp16): latency, not bandwidth, bounds it.
    CHECK(Expected > 0.15);
    CHECK(Expected < 0.21);
  }
  // ptxcast's own pool kernel is charged its footprint at the bandwidth only.
  const Execution Own{MathMode::Simt, Implementation::Ptxcast, false};
  CHECK(ms(bound(Pool, H100, Own), Resource::Dram) ==
        doctest::Approx((In * 2.5 - Resident) / (H100.memoryBandwidthGBs * 1e9) * 1e3));
}

TEST_CASE("skeleton: tensor-core convolutions pay NCHW/NHWC transposes, CUDA-core ones do not") {
  GpuSpec H100 = catalogGpu("h100-sxm");
  GpuSpec V100 = catalogGpu("v100-sxm2");
  LaunchWork Conv = launch(132, 100);
  Conv.framework.layoutElements = 3000000; // input, weights, output
  Conv.framework.layoutTensors = 3;
  Conv.framework.elementBytes = 4;
  const Execution Fp32{MathMode::Tf32, Implementation::Framework, false};
  LaunchBound B = bound(Conv, H100, Fp32);
  // One element per thread, like the batch norm: bytes and memory latency bound them.
  CHECK(B.unfusedMs == doctest::Approx(passSeconds(2 * 4 * 3e6, 3e6, H100) * 1e3));
  CHECK(B.unfusedMs > 2 * 4 * 3e6 / (H100.memoryBandwidthGBs * 1e9) * 1e3 * 1.5);
  CHECK(B.latencyMs == doctest::Approx(4 * launchLatencyMs(H100)));
  // fp32 before Ampere runs on CUDA cores in NCHW; so do ptxcast's kernels, and depthwise ones.
  const Execution Simt{defaultMathMode("f32", 7.0), Implementation::Framework, false};
  CHECK(bound(Conv, V100, Simt).unfusedMs == 0);
  CHECK(bound(Conv, H100, {MathMode::Tf32, Implementation::Ptxcast, false}).unfusedMs == 0);
  LaunchWork Dw = Conv;
  Dw.kind = "conv_depthwise";
  CHECK(bound(Dw, H100, Fp32).unfusedMs == 0);
}

TEST_CASE("skeleton: under autocast a framework first casts fp32 parameters to fp16") {
  GpuSpec H100 = catalogGpu("h100-sxm");
  LaunchWork Conv = launch(132, 100);
  Conv.framework.castElements = 1000000; // a weight and a bias
  Conv.framework.castTensors = 2;
  const double Latency = launchLatencyMs(H100);
  const Execution Amp{MathMode::F16, Implementation::Framework, true};
  LaunchBound B = bound(Conv, H100, Amp);
  CHECK(B.latencyMs == doctest::Approx(3 * Latency)); // the launch and two casts
  CHECK(B.unfusedMs == doctest::Approx(6e6 / (H100.memoryBandwidthGBs * 1e9) * 1e3));
  CHECK(B.boundMs == doctest::Approx(B.workMs + B.unfusedMs + B.latencyMs));
  // fp32 networks cast nothing, and ptxcast's own kernels read their parameters as stored.
  LaunchBound F32 = bound(Conv, H100, {MathMode::Tf32, Implementation::Framework, false});
  CHECK(F32.latencyMs == doctest::Approx(Latency));
  CHECK(F32.unfusedMs == 0);
  LaunchBound Own = bound(Conv, H100, {MathMode::F16, Implementation::Ptxcast, true});
  CHECK(Own.latencyMs == doctest::Approx(Latency));
  CHECK(Own.unfusedMs == 0);
}

TEST_CASE("skeleton: under torch.compile a convolution's fused layers are one streaming pass") {
  GpuSpec Rtx4090 = catalogGpu("rtx4090");
  // A tensor-core convolution with a bias, a batch norm, a ReLU and a residual add fused after
  // it, under autocast: 1 M fp16 outputs, a 1 M-element shortcut, a weight and a bias to cast.
  LaunchWork Conv = launch(128, 100);
  Conv.profile.storeBytes[size_t(analyzer::MemSpace::Global)] = 2000000;
  Conv.fusedLayers = 3;
  FrameworkPasses &F = Conv.framework;
  F.elementBytes = 2;
  F.biasAdds = 1;
  F.latencyBoundElements = 2000000; // the bias add's and the batch norm's outputs
  F.layoutElements = 3000000;
  F.layoutTensors = 3;
  F.castElements = 500064;
  F.castTensors = 2;
  F.biasCastElements = 64;
  F.biasCastTensors = 1;
  F.tailInputElements = 1000000;
  Execution Eager{MathMode::F16, Implementation::Framework, true};
  Execution Compiled = Eager;
  Compiled.passes = PassStructure::Inductor;
  const LaunchBound E = bound(Conv, Rtx4090, Eager), C = bound(Conv, Rtx4090, Compiled);
  // Eager: the launch, 3 fused layers, the bias add, 2 casts, 3 transposes. Compiled: the
  // convolution, one pointwise kernel, the weight's cast (the bias is read by the bias add).
  CHECK(E.kernels == 10);
  CHECK(C.kernels == 3);
  CHECK(C.latencyMs == doctest::Approx(3 * launchLatencyMs(Rtx4090)));
  // The pointwise kernel reads the output and the shortcut and writes the output, at the
  // bandwidth (no pass at memory latency); the weight's cast reads 4 and writes 2 bytes each.
  const double Bw = Rtx4090.memoryBandwidthGBs * 1e9;
  CHECK(C.unfusedMs == doctest::Approx((3 * 2e6 + 6 * 500000.0) / Bw * 1e3));
  CHECK(C.unfusedMs < E.unfusedMs / 2);
  CHECK(C.workMs == doctest::Approx(E.workMs)); // the convolution is cuDNN's either way
  // Without a fused layer or a bias, a convolution is one kernel; fp32 casts nothing.
  LaunchWork Plain = launch(128, 100);
  Compiled.half = false;
  CHECK(bound(Plain, Rtx4090, Compiled).kernels == 1);
  CHECK(bound(Plain, Rtx4090, Compiled).unfusedMs == 0);
}

TEST_CASE("skeleton: under torch.compile pools and batch norms stream and fuse their tails") {
  GpuSpec H100 = catalogGpu("h100-sxm");
  Execution Compiled{MathMode::F16, Implementation::Framework, true};
  Compiled.passes = PassStructure::Inductor;
  const Execution Eager{MathMode::F16, Implementation::Framework, true};
  // A batch norm that heads a launch with a ReLU fused: eager runs two kernels, the first at
  // memory latency; inductor one generated kernel, charged its footprint like ptxcast's own.
  LaunchWork Bn = launch(1000, 1, "eltwise_batch_norm");
  Bn.fusedLayers = 1;
  Bn.framework.leadingLatencyBoundElements = 50000000;
  const LaunchBound E = bound(Bn, H100, Eager), C = bound(Bn, H100, Compiled);
  CHECK(E.kernels == 2);
  CHECK(C.kernels == 1);
  CHECK(C.unfusedMs == 0);
  CHECK(ms(C, Resource::Dram) < ms(E, Resource::Dram));
  CHECK(ms(C, Resource::Dram) ==
        doctest::Approx(
            ms(bound(Bn, H100, {MathMode::F16, Implementation::Ptxcast, true}), Resource::Dram)));
  // A max pool's input is not read at memory latency either.
  LaunchWork Pool = launch(50176, 1, "pool_max");
  Pool.framework.poolInputElements = 64 * 64 * 112 * 112;
  CHECK(ms(bound(Pool, H100, Compiled), Resource::Dram) <
        ms(bound(Pool, H100, Eager), Resource::Dram) / 2);
}

TEST_CASE("skeleton: a GPU at least as good on every line never has a larger bound") {
  GpuSpec Base = catalogGpu("a100");
  GpuSpec Better = Base;
  Better.smCount *= 1.5;
  Better.boostClockMhz *= 1.2;
  Better.memoryBandwidthGBs *= 2;
  Better.l2MB *= 2;
  Better.fp32Tflops *= 1.8;
  Better.tensor.tf32 *= 1.8;
  for (uint32_t Ctas : {1u, 50u, 107u, 108u, 109u, 5000u})
    for (double Fma : {0.0, 10.0, 5000.0}) {
      CAPTURE(Ctas);
      CAPTURE(Fma);
      Execution E{MathMode::Tf32, Implementation::Framework, false};
      CHECK(bound(launch(Ctas, Fma), Better, E).boundMs <=
            bound(launch(Ctas, Fma), Base, E).boundMs * (1 + 1e-12));
    }
  CHECK(dominates(Better, Base));
  CHECK(!dominates(Base, Better));
  CHECK(!dominates(Base, Base)); // better on no line
}

TEST_CASE("skeleton: dominance needs every line at least as good, per-SM limits included") {
  GpuSpec A100 = catalogGpu("a100-sxm4-80gb");
  GpuSpec H100 = catalogGpu("h100-sxm");
  CHECK(dominates(H100, A100));
  GpuSpec Capped = H100;
  Capped.memoryBandwidthGBs = A100.memoryBandwidthGBs - 1; // one line worse
  CHECK(!dominates(Capped, A100));
  GpuSpec FewerRegs = H100;
  FewerRegs.limits.registersPerSm /= 2;
  CHECK(!dominates(FewerRegs, A100));
  GpuSpec CoarserAlloc = H100;
  CoarserAlloc.limits.registerAllocUnit *= 2; // larger is worse
  CHECK(!dominates(CoarserAlloc, A100));
  // Jetson Orin and a T4 differ in both directions (bandwidth vs tensor rates): neither wins.
  GpuSpec Orin = catalogGpu("jetson-agx-orin"), T4 = catalogGpu("t4");
  CHECK(!dominates(Orin, T4));
}

TEST_CASE("features: names, shares of the bound, and bound-weighted averages over a group") {
  GpuSpec H100 = catalogGpu("h100");
  Execution E{MathMode::Simt, Implementation::Ptxcast, false};
  LaunchWork Big = launch(5000, 4000), Small = launch(2, 1, "eltwise_add");
  GroupFeatures One = groupFeatures({&Big, 1}, H100, E);
  std::vector<std::string> Names;
  for (const auto &[Name, V] : One.features)
    Names.push_back(Name);
  CHECK(Names == featureNames());
  auto Get = [](const GroupFeatures &G, const std::string &Name) {
    auto It = std::find_if(G.features.begin(), G.features.end(),
                           [&](const auto &P) { return P.first == Name; });
    REQUIRE(It != G.features.end());
    return It->second;
  };
  CHECK(Get(One, "share_fma") == doctest::Approx(1));
  CHECK(Get(One, "kind_gemm") == 1);
  CHECK(Get(One, "framework") == 0);
  CHECK(One.boundMs == doctest::Approx(bound(Big, H100, E).boundMs));
  LaunchWork Both[] = {Big, Small};
  GroupFeatures Two = groupFeatures(Both, H100, E);
  const double Wb = bound(Big, H100, E).boundMs, Ws = bound(Small, H100, E).boundMs;
  CHECK(Two.boundMs == doctest::Approx(Wb + Ws));
  CHECK(Get(Two, "kind_gemm") == doctest::Approx(Wb / (Wb + Ws)));
  CHECK(Get(Two, "kind_eltwise") == doctest::Approx(Ws / (Wb + Ws)));
  CHECK(Two.launches.size() == 2);
}

TEST_CASE("library tiles: few or ragged tiles leave SMs idle, and a large GEMM spreads evenly") {
  // A bmm of (3 x 26 x 1020) by (1020 x 12): three one-tile products on an A100's 108 SMs. The
  // busiest SM computes a whole 64x64 (or 128x32) tile, 4.4x the product's real work.
  const GemmShape Small{3, 26, 12, 1020};
  CHECK(libraryTileShare(Small, 108) == doctest::Approx(64.0 * 64 / (3 * 26 * 12)));
  // 4096^3: 2,048 tiles of 128x64 in 19 rounds of 108 SMs, 0.2 % over an even spread (1,024
  // of 128x128 would take 10 rounds, 5 % over).
  const GemmShape Large{1, 4096, 4096, 4096};
  CHECK(libraryTileShare(Large, 108) * 108 ==
        doctest::Approx(19.0 * 128 * 64 * 108 / (4096.0 * 4096)));
  CHECK(libraryTileShare(Large, 108) >= 1.0 / 108);
  CHECK(libraryTileShare(GemmShape{}, 108) == 0);
  // As a feature: log2 of the busiest SM's share over an even spread, for a framework's bmm only.
  GpuSpec A100 = catalogGpu("a100-40gb-sxm");
  LaunchWork W = launch(1000, 1, "bmm_gemm");
  W.macs = 3.0 * 26 * 12 * 1020;
  auto Waste = [&](const LaunchWork &L, Implementation I) {
    const Execution E{MathMode::Simt, I, false};
    for (const auto &[Name, V] : groupFeatures({&L, 1}, A100, E).features)
      if (Name == "log2_tile_waste")
        return V;
    FAIL("no log2_tile_waste feature");
    return -1.0;
  };
  CHECK(Waste(W, Implementation::Framework) == 0); // shape unknown
  W.gemm = Small;
  CHECK(Waste(W, Implementation::Framework) ==
        doctest::Approx(std::log2(libraryTileShare(Small, 108) * 108)));
  CHECK(Waste(W, Implementation::Ptxcast) == 0); // ptxcast's own kernel: its counts say it
  W.gemm = GemmShape{1, 26, 12, 1020};           // one product: split-K fills the SMs
  CHECK(Waste(W, Implementation::Framework) == 0);
}
