// pipeline/Memory.h: the device-memory accounting on small networks, every byte computed by hand
// in the comments (allocations round up to 512 B; fp32 = 4 B, fp16 = 2 B per element).
#include "pipeline/Memory.h"

#include "corpus/Lower.h"
#include "hardware/GpuCatalog.h"

#include <doctest/doctest.h>

using namespace corpus;
using pipeline::MemoryPeak;
using pipeline::NetworkMemory;

namespace {

template <class T> T must(support::Expected<T> E) {
  REQUIRE_MESSAGE(E, (E ? "" : E.error().str()));
  return std::move(*E);
}

ConvAttrs conv(int64_t Out, int64_t K, int64_t Pad, bool Bias) {
  ConvAttrs A;
  A.outChannels = Out;
  A.kernelH = A.kernelW = K;
  A.padTop = A.padLeft = A.padBottom = A.padRight = Pad;
  A.bias = Bias;
  return A;
}

/// x [1,8,8,8] -> conv_a 3x3 -> bn -> relu -> conv_b 3x3 -> add(conv_b, x) -> relu_out: a
/// ResNet basic block without its own downsampling, 8 channels, 512 elements per activation.
Network residualBlock(DType Type) {
  Network N("block", Type);
  LayerId X = must(N.addInput("x", {1, 8, 8, 8}));
  LayerId A = must(N.add("conv_a", LayerKind::Conv, {X}, conv(8, 3, 1, false)));
  LayerId B = must(N.add("bn", LayerKind::BatchNorm, {A}, BatchNormAttrs{}));
  LayerId R = must(N.add("relu", LayerKind::Activation, {B}, ActivationAttrs{}));
  LayerId C = must(N.add("conv_b", LayerKind::Conv, {R}, conv(8, 3, 1, false)));
  LayerId S = must(N.add("add", LayerKind::Add, {C, X}, EltwiseAttrs{}));
  must(N.add("relu_out", LayerKind::Activation, {S}, ActivationAttrs{}));
  return N;
}

void checkPeak(const MemoryPeak &P, uint64_t Activations, uint64_t Casts, uint64_t Workspace,
               const std::string &Layer) {
  CHECK(P.activationBytes == Activations);
  CHECK(P.castBytes == Casts);
  CHECK(P.workspaceBytes == Workspace);
  CHECK(P.layer == Layer);
}

} // namespace

TEST_CASE("memory: two convolutions, each tensor freed after its last reader") {
  Network N("two", DType::F32);
  LayerId X = must(N.addInput("x", {2, 3, 8, 8}));                              // 384 el = 1536 B
  LayerId C1 = must(N.add("conv1", LayerKind::Conv, {X}, conv(4, 3, 1, true))); // 2048 B
  LayerId R = must(N.add("relu", LayerKind::Activation, {C1}, ActivationAttrs{})); // 2048 B
  must(N.add("conv2", LayerKind::Conv, {R}, conv(2, 1, 0, false)));                // 1024 B
  const NetworkMemory M = pipeline::networkMemory(N);
  // conv1: weight 108 el = 432 B -> 512, bias 16 B -> 512; conv2: weight 32 B -> 512.
  CHECK(M.weightBytes == 1536);
  CHECK(M.castBytes == 0);
  // x 1536 live; conv1: + 2048 = 3584, x freed -> 2048; relu: + 2048 = 4096 (the peak), conv1's
  // output freed -> 2048; conv2: + 1024 = 3072.
  checkPeak(M.cudaCores, 4096, 0, 0, "relu");
  // conv1 reads 3 channels (an image: CUDA cores, NCHW) and conv2 is a plain GEMM (1x1): no
  // transposes, no workspace on tensor cores either.
  checkPeak(M.tensorCores, 4096, 0, 0, "relu");
}

TEST_CASE("memory: a residual block keeps its input live until the add") {
  const NetworkMemory M = pipeline::networkMemory(residualBlock(DType::F32));
  // conv weights 576 el = 2304 B -> 2560 each; bn: weight, bias, running mean and variance
  // (32 B -> 512 each) and num_batches_tracked (8 B -> 512).
  CHECK(M.weightBytes == 2560 + 2560 + 2560);
  // Every activation 2048 B. x; conv_a 4096; bn 6144 (first at the peak), conv_a freed; relu
  // 6144, bn freed; conv_b 6144; add 6144, conv_b and x freed; relu_out 4096.
  checkPeak(M.cudaCores, 6144, 0, 0, "bn");
  // On tensor cores cuDNN copies input, weights and output to NHWC: 512 + 576 + 512 el = 6400 B
  // -> 6656 B of workspace; conv_b's 6144 + 6656 = 12800 beats conv_a's 4096 + 6656.
  checkPeak(M.tensorCores, 6144, 0, 6656, "conv_b");
}

TEST_CASE("memory: under autocast, fp16 activations, fp32 weights and their cached fp16 copies") {
  const NetworkMemory M = pipeline::networkMemory(residualBlock(DType::F16));
  CHECK(M.weightBytes == 7680);      // the module keeps its fp32 weights
  CHECK(M.castBytes == 1536 + 1536); // conv weights 576 el x 2 B = 1152 -> 1536 each
  // x stays fp32 (2048 B); conv outputs, bn and relu are fp16 (1024 B); add promotes fp16 + fp32
  // to fp32 (2048 B), and relu_out follows it.
  // conv_a: live 3072 + casts 1536 + x's transient fp16 copy 1024 = 5632;
  // conv_b: live 4096 + casts 3072 = 7168; add: live 3072 + 2048 = 5120, + casts 3072 = 8192.
  checkPeak(M.cudaCores, 5120, 3072, 0, "add");
  // Tensor cores: conv_b adds its NHWC workspace, 1600 el x 2 B = 3200 -> 3584: 10752.
  checkPeak(M.tensorCores, 4096, 3072, 3584, "conv_b");
}

TEST_CASE("memory: an engine keeps what its fused kernels use, each buffer freed after its "
          "last reader") {
  const Network N = residualBlock(DType::F16);
  LowerOptions O;
  O.dtype = DType::F16;
  O.emitPtx = false;
  const Workload W = must(lower(N, O));
  REQUIRE(W.launches.size() == 2); // conv_a + bn + relu, conv_b + add + relu_out
  const NetworkMemory M = pipeline::engineMemory(W, N);
  // fp16, no rounding: conv weights 576 el = 1152 B each, bn folded into conv_a as a scale and a
  // shift of 8 el = 16 B each; no running statistics, no fp32 masters, no copies.
  CHECK(M.weightBytes == 1152 + 16 + 16 + 1152);
  CHECK(M.castBytes == 0);
  // x 1024 B live from the start; launch 1: + relu's output 1024 = 2048; launch 2 reads x (the
  // residual) and relu's output and writes relu_out's 1024: 3072, the peak. No workspace.
  checkPeak(M.cudaCores, 3072, 0, 0, "conv_b");
  checkPeak(M.tensorCores, 3072, 0, 0, "conv_b");
}

TEST_CASE("memory: a view allocates nothing and keeps its source live") {
  Network N("view", DType::F32);
  LayerId X = must(N.addInput("x", {2, 8, 2, 2}));                             // 256 B -> 512
  LayerId F = must(N.add("flatten", LayerKind::Flatten, {X}, FlattenAttrs{})); // a view of x
  must(N.add("fc", LayerKind::Dense, {F}, DenseAttrs{10, true}));              // 80 B -> 512
  const NetworkMemory M = pipeline::networkMemory(N);
  CHECK(M.weightBytes == 1536 + 512);       // weight 320 el = 1280 B -> 1536, bias 40 B -> 512
  checkPeak(M.cudaCores, 1024, 0, 0, "fc"); // x (through the view) and fc's output
}

TEST_CASE("memory: reserve and capacity per GPU: a batch that does not fit is said") {
  auto Catalog = hardware::GpuCatalog::builtin();
  REQUIRE(Catalog);
  const hardware::GpuSpec H100 = must(Catalog->lookup("h100-sxm"));
  const hardware::GpuSpec Nano = must(Catalog->lookup("jetson-orin-nano-4gb"));
  NetworkMemory M;
  M.weightBytes = 1000;
  M.cudaCores = {2000, 0, 0, "a"};
  M.tensorCores = {2000, 0, 500, "b"};
  const pipeline::DeviceMemory D = pipeline::deviceMemory(M, H100, true);
  CHECK(D.capacityBytes == 80ull << 30);
  CHECK(D.reserveBytes == pipeline::DiscreteReserveBytes);
  CHECK(!D.shared);
  CHECK(D.totalBytes() == 1000 + 2500 + (512ull << 20));
  CHECK(D.fits());
  CHECK(pipeline::memoryWarning(D, H100).empty());
  CHECK(pipeline::deviceMemory(M, H100, false).totalBytes() == 3000 + (512ull << 20));

  M.cudaCores.activationBytes = 2ull << 30; // 2 GiB of activations on a 4 GiB Jetson
  const pipeline::DeviceMemory J = pipeline::deviceMemory(M, Nano, false);
  CHECK(J.shared);
  CHECK(J.reserveBytes == pipeline::SharedReserveBytes);
  CHECK(J.capacityBytes == 4ull << 30);
  CHECK(!J.fits());
  CHECK(pipeline::memoryWarning(J, Nano) ==
        "does not fit: needs 4.50 GiB of device memory (weights 1000 B, activations 2.00 GiB "
        "and workspace 0 B at layer 'a', runtime reserve 2.50 GiB), more than the 4.00 GiB of "
        "jetson-orin-nano-4gb (shared with the OS)");
}

TEST_CASE("memory: bytes as people read them") {
  CHECK(pipeline::bytesText(512) == "512 B");
  CHECK(pipeline::bytesText(1536) == "1.50 KiB");
  CHECK(pipeline::bytesText(23ull << 20) == "23.0 MiB");
  CHECK(pipeline::bytesText(300ull << 30) == "300 GiB");
}
