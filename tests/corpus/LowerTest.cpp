// Lowering driver tests: fusion decisions, launch order, buffers and arguments, kernel dedup,
// whole-network launch counts derived by hand, the manifest and the atomic directory write.
#include "corpus/Lower.h"
#include "corpus/Builder.h"
#include "corpus/Zoo.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

using namespace corpus;

namespace {

Workload lowerOk(const Network &N, bool Ptx = false, DType Type = DType::F32) {
  LowerOptions O;
  O.emitPtx = Ptx;
  O.dtype = Type;
  auto W = lower(N, O);
  REQUIRE_MESSAGE(bool(W), support::errorText(W));
  return std::move(*W);
}

Network zoo(const std::string &Name) {
  auto N = buildZooModel(Name);
  REQUIRE(N);
  return std::move(*N);
}

/// A residual block with a classifier: conv-bn-relu, conv-bn-add-relu, gap, dense, softmax.
Network tinyResidual() {
  NetworkBuilder B("tiny");
  LayerId X = B.input({1, 3, 8, 8}, "x");
  LayerId A = B.relu(
      B.batchNorm(B.add(LayerKind::Conv, {X}, ConvAttrs{4, 3, 3, 1, 1, 1, 1, 1, 1}, "conv1")));
  LayerId C =
      B.batchNorm(B.add(LayerKind::Conv, {A}, ConvAttrs{4, 3, 3, 1, 1, 1, 1, 1, 1}, "conv2"));
  LayerId R = B.relu(B.addLayers(C, A));
  LayerId D = B.dense(B.flatten(B.globalAvgPool(R)), 10);
  B.softmax(D);
  auto N = B.finish();
  REQUIRE(N);
  return std::move(*N);
}

std::map<std::string, uint64_t> bufferBytes(const Workload &W) {
  std::map<std::string, uint64_t> M;
  for (const WorkloadBuffer &B : W.buffers)
    M[B.name] = B.bytes;
  return M;
}

} // namespace

TEST_CASE("lower: fused epilogues, launch order and arguments") {
  Network N = tinyResidual();
  Workload W = lowerOk(N);
  REQUIRE(W.launches.size() == 5);
  // Strategy names from KernelGen.h's docs/lowering.md; only the family is checked here.
  const char *Families[] = {"conv_", "conv_", "global_avg_pool", "dense_", "softmax"};
  for (size_t I = 0; I < 5; ++I)
    CHECK(W.launches[I].strategy.rfind(Families[I], 0) == 0);
  const WorkloadLaunch &C1 = W.launches[0], &C2 = W.launches[1];
  CHECK(C1.layers == std::vector<std::string>{"conv1", "batchnorm_2", "activation_3"});
  CHECK(C2.layers == std::vector<std::string>{"conv2", "batchnorm_5", "add_6", "activation_7"});
  // conv1: input, weight, bn scale, bn shift, output. conv2 adds the residual = conv1's output.
  auto Bytes = bufferBytes(W);
  REQUIRE(C1.args.size() == 5);
  CHECK(C1.args[0].buffer == "x");
  CHECK(Bytes[C1.args[0].buffer] == 3 * 8 * 8 * 4);
  CHECK(Bytes[C1.args[1].buffer] == 4 * 3 * 9 * 4); // OIHW weights, f32
  CHECK(Bytes[C1.args[2].buffer] == 4 * 4);         // bn scale per channel
  CHECK(Bytes[C1.args[4].buffer] == 4 * 8 * 8 * 4); // output
  REQUIRE(C2.args.size() == 6);
  CHECK(C2.args[4].buffer == C1.args[4].buffer);            // residual
  CHECK(W.launches[2].args[0].buffer == C2.args[5].buffer); // gap reads the block output
  CHECK(W.launches[3].args.size() == 4);                    // input, weight, bias, output
  CHECK(Bytes[W.launches[3].args[1].buffer] == 10 * 4 * 4);
  int64_t Macs = 0;
  for (const WorkloadLaunch &L : W.launches)
    Macs += L.macs;
  CHECK(Macs == N.macs());
  // Every argument names a buffer; random buffers have seeds in order from 7.
  std::set<uint64_t> Seeds;
  for (const WorkloadBuffer &B : W.buffers)
    if (B.random)
      CHECK(Seeds.insert(B.seed).second);
  CHECK(*Seeds.begin() == 7);
}

TEST_CASE("lower: NeuSight's transformer operators, one launch each") {
  NetworkBuilder B("ops");
  LayerId A = B.input({12, 128, 64}, "a");
  LayerId M = B.batchMatMul(A, B.input({12, 64, 96}, "b"));
  LayerId L = B.layerNorm(M);
  LayerId G = B.gelu(L);
  LayerId D = B.divLayers(G, L);
  LayerId P = B.powLayers(D, G);
  LayerId S = B.addScalar(P, 0.25f);
  S = B.mulScalar(S, 3.0f);
  S = B.divScalar(S, 0.5f);
  B.powScalar(S, 0.7f);
  auto N = B.finish();
  REQUIRE_MESSAGE(N, support::errorText(N));
  Workload W = lowerOk(*N);
  const char *Strategies[] = {"bmm_gemm",           "layernorm",          "eltwise_activation",
                              "eltwise_div",        "eltwise_pow",        "eltwise_add_scalar",
                              "eltwise_mul_scalar", "eltwise_div_scalar", "eltwise_pow_scalar"};
  REQUIRE(W.launches.size() == std::size(Strategies));
  for (size_t I = 0; I < W.launches.size(); ++I)
    CHECK(W.launches[I].strategy == Strategies[I]);
  const WorkloadLaunch &Bmm = W.launches[0];
  CHECK(Bmm.kernel == "bmm_b12_m128_n64_k96_f32");
  CHECK(Bmm.grid == std::array<uint32_t, 3>{2, 2, 12}); // 64x64 tiles of the 128 x 96 output
  REQUIRE(Bmm.args.size() == 3);
  CHECK(Bmm.args[0].buffer == "a");
  CHECK(Bmm.args[1].buffer == "b");
  CHECK(Bmm.macs == 12LL * 128 * 64 * 96);
  auto Bytes = bufferBytes(W);
  CHECK(Bytes[Bmm.args[2].buffer] == 12 * 128 * 96 * 4);
  const WorkloadLaunch &Ln = W.launches[1];
  CHECK(Ln.kernel == "layernorm_r1536_c96_f32");
  REQUIRE(Ln.args.size() == 4); // input, weight (scale), bias (shift), output
  CHECK(Ln.args[1].buffer == "layernorm_3.weight");
  CHECK(Bytes[Ln.args[1].buffer] == 96 * 4);
  CHECK(Bytes[Ln.args[2].buffer] == 96 * 4);
  CHECK(W.launches[2].kernel == "eltwise_act_e147456_f32_gelu");
  CHECK(W.launches[3].args.size() == 3);
  CHECK(W.launches[5].kernel == "eltwise_adds_e147456_s0p25_f32");
  CHECK(W.launches[5].args.size() == 2); // the scalar is a kernel constant
  CHECK(W.launches[8].kernel == "eltwise_pows_e147456_s0p7_f32");
}

TEST_CASE("lower: a gelu after a dense layer is fused, div and pow keep their operand order") {
  NetworkBuilder B("fused");
  LayerId X = B.input({16, 32}, "x");
  LayerId G = B.gelu(B.dense(X, 48));
  LayerId Y = B.dense(X, 48);
  B.powLayers(Y, G); // Y ^ G, not G ^ Y
  auto N = B.finish();
  REQUIRE(N);
  Workload W = lowerOk(*N);
  REQUIRE(W.launches.size() == 3);
  CHECK(W.launches[0].kernel == "dense_m16_k32_n48_f32_bias_gelu");
  CHECK(W.launches[2].strategy == "eltwise_pow");
  CHECK(W.launches[2].args[0].buffer == W.launches[1].args.back().buffer); // the base
  CHECK(W.launches[2].args[1].buffer == W.launches[0].args.back().buffer); // the exponent
}

TEST_CASE("lower: a tensor past 2^31 elements lowers with 64-bit index arithmetic") {
  // VGG-16's first convolution at batch 1024: 1024 x 64 x 224 x 224 = 3.3e9 outputs.
  auto N = buildZooModel("vgg16", ZooOptions{1024, 0});
  REQUIRE(N);
  Workload W = lowerOk(*N);
  CHECK(W.launches[0].kernel == "conv_igemm_n1024_c3x64_h224w224_k3_s1_p1_f32_bias_relu_i64");
  // The classifier's tensors are small: 32-bit.
  CHECK(W.launches.back().kernel == "dense_m1024_k4096_n1000_f32_bias");
}

TEST_CASE("lower: f16 halves every buffer") {
  Network N = tinyResidual();
  Workload F32 = lowerOk(N), F16 = lowerOk(N, false, DType::F16);
  REQUIRE(F32.buffers.size() == F16.buffers.size());
  for (size_t I = 0; I < F32.buffers.size(); ++I)
    CHECK(F16.buffers[I].bytes * 2 == F32.buffers[I].bytes);
  CHECK(manifestJson(F16).find("\"random\": \"f16\"") != std::string::npos);
}

TEST_CASE("lower: resnet50 launch count derived by hand") {
  Network N = zoo("resnet50");
  Workload W = lowerOk(N);
  // stem conv(+bn+relu), maxpool, 16 bottlenecks x 3 convs + 4 projection convs (every residual
  // add and relu fused into a conv), global pool, dense.
  CHECK(W.launches.size() == 1 + 1 + 16 * 3 + 4 + 1 + 1);
  int64_t Macs = 0;
  for (const WorkloadLaunch &L : W.launches)
    Macs += L.macs;
  CHECK(Macs == N.macs());
  CHECK(W.kernelCount < W.launches.size()); // repeated bottlenecks share kernels
}

TEST_CASE("lower: efficientnet-b0 launch count derived by hand") {
  Workload W = lowerOk(zoo("efficientnet-b0"));
  // stem; 16 MBConv blocks: [expand] depthwise, SE (pool, reduce, expand, channel scale),
  // project (+ residual) -> 6 launches for the first block (no expansion), 7 for the 15 others;
  // head conv, global pool, dense.
  CHECK(W.launches.size() == 1 + 6 + 15 * 7 + 3);
  size_t Scale = 0;
  for (const WorkloadLaunch &L : W.launches)
    Scale += L.strategy == "eltwise_scale_channels";
  CHECK(Scale == 16);
}

TEST_CASE("lower: every zoo model lowers") {
  for (const ZooModel &M : zooModels()) {
    CAPTURE(M.name);
    Network N = zoo(M.name);
    Workload W = lowerOk(N);
    int64_t Macs = 0;
    for (const WorkloadLaunch &L : W.launches)
      Macs += L.macs;
    CHECK(Macs == N.macs());
  }
}

TEST_CASE("lower: a channel concat is one batched copy launch into one output buffer") {
  NetworkBuilder B("cat");
  LayerId X = B.input({2, 4, 5, 5}, "x");
  LayerId A = B.relu(B.conv(X, 3, 3, 1, 1));                  // 3 channels, relu fused: one launch
  LayerId P = B.maxPool(X, 3, 1, 1);                          // 4 channels
  B.add(LayerKind::Concat, {A, P, X}, ConcatAttrs{1}, "cat"); // 3 + 4 + 4 = 11 channels
  auto N = B.finish();
  REQUIRE(N);
  Workload W = lowerOk(*N);
  REQUIRE(W.launches.size() == 2 + 1);
  const std::string ConvOut = W.launches[0].args.back().buffer;
  const std::string PoolOut = W.launches[1].args.back().buffer;
  const WorkloadLaunch &L = W.launches[2];
  CHECK(L.strategy == "concat");
  CHECK(L.layers == std::vector<std::string>{"cat"});
  CHECK(L.macs == 0);
  REQUIRE(L.args.size() == 4); // the inputs in order, then the output
  CHECK(L.args[0].buffer == ConvOut);
  CHECK(L.args[1].buffer == PoolOut);
  CHECK(L.args[2].buffer == "x");
  CHECK(L.args[3].buffer == "cat.out");
  // grid y = input; x: 128-thread blocks over the largest input, 2 * 4 * 25 = 200 elements (a
  // 3- or 4-channel slice of 25 floats is no multiple of 16 bytes: element copies)
  CHECK(L.grid == std::array<uint32_t, 3>{2, 3, 1});
  CHECK(L.block == std::array<uint32_t, 3>{128, 1, 1});
  CHECK(L.kernel == "concat_n2_of11_at0_s25_c3_4_4_f32");
  size_t CatBuffers = 0;
  for (const WorkloadBuffer &Buf : W.buffers)
    if (Buf.name == "cat.out") {
      ++CatBuffers;
      CHECK(Buf.bytes == 2u * 11 * 25 * 4);
      CHECK_FALSE(Buf.random);
    }
  CHECK(CatBuffers == 1);
}

TEST_CASE("lower: a concat of 130 inputs takes two launches (128 + 2) into one buffer") {
  NetworkBuilder B("cat130");
  LayerId X = B.input({1, 2, 3, 3}, "x");
  LayerId Y = B.maxPool(X, 3, 1, 1); // 2 channels
  std::vector<LayerId> In;
  for (int K = 0; K < 130; ++K)
    In.push_back(K % 2 ? Y : X);
  B.add(LayerKind::Concat, In, ConcatAttrs{1}, "cat"); // 260 channels
  auto N = B.finish();
  REQUIRE(N);
  Workload W = lowerOk(*N, true);
  REQUIRE(W.launches.size() == 1 + 2);
  const WorkloadLaunch &First = W.launches[1], &Second = W.launches[2];
  REQUIRE(First.args.size() == 129);
  REQUIRE(Second.args.size() == 3);
  const std::string PoolOut = W.launches[0].args.back().buffer;
  for (size_t K = 0; K < 128; ++K)
    CHECK(First.args[K].buffer == (K % 2 ? PoolOut : "x"));
  CHECK(Second.args[0].buffer == "x"); // input 128
  CHECK(Second.args[1].buffer == PoolOut);
  CHECK(First.args.back().buffer == "cat.out");
  CHECK(Second.args.back().buffer == "cat.out");
  CHECK(First.grid[1] == 128);
  CHECK(Second.grid[1] == 2);
  CHECK(Second.kernel == "concat_n1_of260_at256_s9_c2_2_f32"); // after 128 * 2 channels
  CHECK(W.kernelCount == 1 + 2);
}

TEST_CASE("lower: a concat along another axis is the batched copy over [outer, axis, inner]") {
  NetworkBuilder B("n");
  LayerId X = B.input({2, 4, 3, 5});
  LayerId H = B.add(LayerKind::Concat, {X, X}, ConcatAttrs{2}, "rows"); // [2, 4, 6, 5]
  B.add(LayerKind::Concat, {H, B.relu(H)}, ConcatAttrs{-1}, "columns"); // [2, 4, 6, 10]
  auto N = B.finish();
  REQUIRE(N);
  Workload W = lowerOk(*N);
  REQUIRE(W.launches.size() == 3);
  // outer 2 x 4 = 8, 3 + 3 rows of 5 elements; then outer 48, 5 + 5 columns of 1 element.
  CHECK(W.launches[0].kernel == "concat_n8_of6_at0_s5_c3_3_f32");
  CHECK(W.launches[2].kernel == "concat_n48_of10_at0_s1_c5_5_f32");
}

TEST_CASE("lower: transposes and slices are strided copies: a view is no launch") {
  NetworkBuilder B("n");
  LayerId X = B.input({1, 8, 6, 5}, "x");
  LayerId View = B.transpose(X, {1, 0, 2, 3}); // moves a dimension of 1: same order
  LayerId Whole = B.slice(View, 0, 0, 8);      // every element: a view too
  LayerId T = B.transpose(B.reshape(Whole, {2, 4, 30}), {1, 0, 2}); // [4, 2, 30]
  B.slice(B.reshape(T, {1, 8, 6, 5}), 2, 1, 5, 2);                  // rows 1 and 3
  auto N = B.finish();
  REQUIRE(N);
  Workload W = lowerOk(*N);
  REQUIRE(W.launches.size() == 2);
  CHECK(W.launches[0].strategy == "copy_strided");
  // [4, 2, 30] from strides [30, 120, 1] of the 240-element input: nothing merges.
  CHECK(W.launches[0].kernel == "copy_4s30_2s120_30s1_at0_of240_f32");
  CHECK(W.launches[0].grid[0] == 1);
  // rows 1, 3 of every (n, c) plane: the 5 columns of a row merge with nothing else.
  CHECK(W.launches[1].kernel == "copy_8s30_2s10_5s1_at5_of240_f32");
  CHECK(W.launches[0].args[0].buffer == "x"); // the views read the input's own buffer

  NetworkBuilder U("u"); // [1, 2, 3, 4] upsampled 2x: [planes x H, 2, W, 2], repeats at stride 0
  U.upsample(U.upsample(U.input({1, 2, 3, 4}), 2), 1);
  auto NU = U.finish();
  REQUIRE(NU);
  Workload WU = lowerOk(*NU);
  REQUIRE(WU.launches.size() == 1); // the factor-1 upsample is a view
  CHECK(WU.launches[0].kernel == "copy_6s4_2s0_4s1_2s0_at0_of24_f32");

  NetworkBuilder L("l"); // bilinear: a kernel of its own, one thread per output; factor 1 a view
  L.upsample(L.upsample(L.input({2, 3, 5, 7}, "x"), 1, true), 4, true);
  auto NL = L.finish();
  REQUIRE(NL);
  Workload WL = lowerOk(*NL);
  REQUIRE(WL.launches.size() == 1);
  CHECK(WL.launches[0].strategy == "upsample_bilinear");
  CHECK(WL.launches[0].kernel == "upsample_bilinear_n2_c3_h5w7_x4_f32");
  CHECK(WL.launches[0].grid == std::array<uint32_t, 3>{3, 3, 2}); // 560 pixels in 256-thread CTAs
  CHECK(WL.launches[0].args[0].buffer == "x");
}

TEST_CASE("lower: a constant operand is a scalar, per-channel, last-axis or full-size kernel") {
  NetworkBuilder B("n");
  LayerId X = B.input({2, 4, 3, 5}, "x");
  X = B.add(LayerKind::Add, {X}, EltwiseAttrs{Shape{1, 4, 1, 1}}, "per_channel"); // x - mean
  X = B.add(LayerKind::Mul, {X}, EltwiseAttrs{Shape{5}}, "per_last");             // layer scale
  X = B.add(LayerKind::Div, {X}, EltwiseAttrs{Shape{1}}, "one");                  // no data
  X = B.add(LayerKind::Add, {X}, EltwiseAttrs{Shape{2, 4, 3, 5}}, "full");
  auto N = B.finish();
  REQUIRE(N);
  Workload W = lowerOk(*N);
  REQUIRE(W.launches.size() == 4);
  CHECK(W.launches[0].kernel == "eltwise_bn_n2_c4_s15_f32");
  CHECK(W.launches[1].kernel == "eltwise_bn_n24_c5_s1_f32");
  CHECK(W.launches[2].kernel == "eltwise_divs_e120_s1_f32");
  CHECK(W.launches[3].kernel == "eltwise_add_e120_f32");
  CHECK(W.launches[3].args[1].buffer == "full.constant");

  NetworkBuilder P("p");
  P.add(LayerKind::Pow, {P.input({2, 4, 3, 5})}, EltwiseAttrs{Shape{4, 1, 1}}, "pow");
  auto NP = P.finish();
  REQUIRE(NP);
  auto WP = lower(*NP);
  REQUIRE(!WP);
  CHECK(WP.error().str() == "error: layer 'pow' (pow): a constant operand of shape [4,1,1] "
                            "broadcast to [2,4,3,5] is not supported by the lowering");
}

TEST_CASE("lower: ceil-mode pooling gets the ceil kernel only where it changes the shape") {
  NetworkBuilder B("ceil");
  LayerId X = B.input({1, 2, 8, 7}, "x");
  PoolAttrs Ceil{3, 3, 2, 2, 0, 0, 0, 0, true, false};
  LayerId P = B.add(LayerKind::MaxPool, {X}, Ceil, "pool_ceil");
  PoolAttrs Same{3, 3, 1, 1, 1, 1, 1, 1, true, false}; // ceil and floor agree: 4x3
  B.add(LayerKind::MaxPool, {P}, Same, "pool_same");
  auto N = B.finish();
  REQUIRE(N);
  // floor: (8-3)/2+1 = 3 by (7-3)/2+1 = 3; ceil: ceil(5/2)+1 = 4 by ceil(4/2)+1 = 3
  REQUIRE(N->layer(P).shape == Shape{1, 2, 4, 3});
  Workload W = lowerOk(*N);
  REQUIRE(W.launches.size() == 2);
  CHECK(W.launches[0].strategy == "pool_max");
  CHECK(W.launches[0].kernel.find("_ceil") != std::string::npos);
  CHECK(uint64_t(W.launches[0].grid[0]) * W.launches[0].block[0] >= 4 * 3);
  CHECK(W.launches[1].kernel.find("_ceil") == std::string::npos);
}

TEST_CASE("lower: a batch norm after a concat is a per-channel kernel with the relu fused") {
  NetworkBuilder B("bn");
  LayerId X = B.input({2, 3, 4, 4}, "x");
  LayerId C = B.add(LayerKind::Concat, {X, X}, ConcatAttrs{1}, "cat");
  B.relu(B.batchNorm(C));
  auto N = B.finish();
  REQUIRE(N);
  Workload W = lowerOk(*N);
  REQUIRE(W.launches.size() == 2); // one batched concat copy, then the batch norm
  CHECK(W.launches[0].strategy == "concat");
  const WorkloadLaunch &L = W.launches[1];
  CHECK(L.strategy == "eltwise_batch_norm");
  CHECK(L.layers.size() == 2); // the batch norm and the relu
  CHECK(L.kernel.find("relu") != std::string::npos);
  REQUIRE(L.args.size() == 4); // input, bn scale, bn shift, output
  CHECK(L.args[0].buffer == "cat.out");
  std::map<std::string, uint64_t> Bytes;
  for (const WorkloadBuffer &Buf : W.buffers)
    Bytes[Buf.name] = Buf.bytes;
  CHECK(Bytes[L.args[1].buffer] == 6 * 4); // one value per channel of the 6
  CHECK(Bytes[L.args[2].buffer] == 6 * 4);
  CHECK(Bytes[L.args[3].buffer] == 2 * 6 * 16 * 4);
}

TEST_CASE("lower: PTX, manifest and the atomic directory write") {
  Network N = zoo("lenet5");
  Workload W = lowerOk(N, true);
  REQUIRE(W.ptx.size() == 2); // 7 kernels in runs of KernelsPerModule = 4
  for (const WorkloadLaunch &L : W.launches) {
    size_t In = 0;
    for (const std::string &Ptx : W.ptx)
      In += Ptx.find(".entry " + L.kernel + "(") != std::string::npos;
    CHECK(In == 1);
  }
  auto J = nlohmann::json::parse(manifestJson(W));
  CHECK(J["ptx"] == nlohmann::json::array({"kernels_0.ptx", "kernels_1.ptx"}));
  std::set<std::string> Names;
  for (const auto &B : J["buffers"])
    Names.insert(B["name"].get<std::string>());
  REQUIRE(J["launches"].size() == W.launches.size());
  for (const auto &L : J["launches"])
    for (const auto &A : L["args"])
      CHECK(Names.count(A["buffer"].get<std::string>()) == 1);

  namespace fs = std::filesystem;
  fs::path Dir = fs::temp_directory_path() / ("ptxcast_lower_test_" + std::to_string(::getpid()));
  fs::remove_all(Dir);
  REQUIRE(!writeWorkload(W, Dir.string()));
  REQUIRE(!writeWorkload(W, Dir.string())); // replaces an existing directory
  CHECK(fs::exists(Dir / "manifest.json"));
  CHECK(fs::exists(Dir / "kernels_0.ptx"));
  CHECK(fs::exists(Dir / "kernels_1.ptx"));
  CHECK(fs::exists(Dir / "workload.json"));
  CHECK(!fs::exists(Dir.string() + ".partial"));
  CHECK(!fs::exists(Dir.string() + ".old"));
  std::ifstream In(Dir / "manifest.json");
  std::stringstream S;
  S << In.rdbuf();
  CHECK(S.str() == manifestJson(W));

  // Anything else at the path is the user's: never deleted to make room.
  std::ofstream(Dir / "notes.txt") << "mine";
  auto Refused = writeWorkload(W, Dir.string());
  REQUIRE(Refused);
  CHECK(Refused->message.find("not the output of an earlier lowering") != std::string::npos);
  CHECK(fs::exists(Dir / "notes.txt"));
  fs::path File = Dir / "notes.txt";
  CHECK(writeWorkload(W, File.string()));
  CHECK(fs::is_regular_file(File));
  fs::remove_all(Dir);
}

TEST_CASE("lower: many kernels spread over parallel modules, the same on 1 or 2 threads") {
  ZooOptions Small;
  Small.imageSize = 32;
  auto N = buildZooModel("efficientnet-b0", Small);
  REQUIRE(N);
  Workload ByThreads[2];
  for (unsigned T : {1u, 2u}) {
    LowerOptions O;
    O.threads = T;
    auto W = lower(*N, O);
    REQUIRE_MESSAGE(bool(W), support::errorText(W));
    ByThreads[T - 1] = std::move(*W);
  }
  const Workload &W = ByThreads[0];
  CHECK(W.ptx == ByThreads[1].ptx);
  // Runs of KernelsPerModule kernels fill up to four modules in turn.
  size_t Expected = std::min<size_t>(4, (W.kernelCount + KernelsPerModule - 1) / KernelsPerModule);
  REQUIRE(W.kernelCount > KernelsPerModule);
  CHECK(W.ptx.size() == Expected);
  CHECK(nlohmann::json::parse(manifestJson(W))["ptx"][0] == "kernels_0.ptx");
  // Every launched kernel is defined in exactly one module.
  for (const WorkloadLaunch &L : W.launches) {
    int Defined = 0;
    for (const std::string &Ptx : W.ptx)
      Defined += Ptx.find(".entry " + L.kernel + "(") != std::string::npos;
    CHECK_MESSAGE(Defined == 1, L.kernel);
  }
}

TEST_CASE("lower: a leaky relu fuses into a convolution with its slope in the kernel's name") {
  // Darknet's conv -> LeakyRelu(0.1), as TensorRT and inductor fuse it: the slope is a constant
  // of the convolution's epilogue. After an elementwise kernel (whose one scalar may be its own)
  // the activation is a kernel of its own; int8 runs that one in fp16.
  NetworkBuilder B("darknet");
  LayerId X = B.input({1, 16, 8, 8}, "x");
  auto Conv = [&](LayerId In, const char *Name) {
    return B.add(LayerKind::Conv, {In}, ConvAttrs{16, 3, 3, 1, 1, 1, 1, 1, 1}, Name);
  };
  LayerId A = B.activation(Conv(X, "conv1"), ActKind::LeakyRelu, 0.1f);
  LayerId C = B.activation(Conv(A, "conv2"), ActKind::LeakyRelu, 0.01f);
  B.activation(B.addLayers(A, C), ActKind::LeakyRelu, 0.2f); // the add fuses into conv2
  B.activation(Conv(X, "conv3"), ActKind::LeakyRelu, 0.3f);  // conv1 but for the slope
  auto N = B.finish();
  REQUIRE(N);
  for (DType T : {DType::F32, DType::F16, DType::I8}) {
    CAPTURE(dtypeString(T));
    Workload W = lowerOk(*N, true, T);
    std::vector<const WorkloadLaunch *> Leaky;
    for (const WorkloadLaunch &L : W.launches)
      if (L.kernel.find("leakyrelu") != std::string::npos)
        Leaky.push_back(&L);
    REQUIRE(Leaky.size() == 4);
    CHECK(Leaky[0]->kernel.find("leakyrelu0p1") != std::string::npos);
    CHECK(Leaky[0]->strategy.rfind("conv", 0) == 0);
    CHECK(Leaky[1]->kernel.find("leakyrelu0p01_res") != std::string::npos);
    CHECK(Leaky[1]->strategy.rfind("conv", 0) == 0);
    CHECK(Leaky[2]->kernel.find("leakyrelu0p2") != std::string::npos);
    CHECK(Leaky[2]->strategy.find("eltwise") != std::string::npos);
    CHECK(Leaky[3]->kernel.find("leakyrelu0p3") != std::string::npos);
    CHECK(Leaky[3]->strategy == Leaky[0]->strategy);
  }
  // The library's kernels take shapes as parameters and are shared by name: two slopes must
  // still be two kernels, or the second layer would run the first's slope.
  LowerOptions O;
  O.kernels = KernelSet::Library;
  auto L = lower(*N, O);
  REQUIRE_MESSAGE(L, support::errorText(L));
  std::vector<std::string> Library;
  for (const WorkloadLaunch &Launch : L->launches)
    if (Launch.kernel.find("leakyrelu") != std::string::npos)
      Library.push_back(Launch.kernel);
  REQUIRE(Library.size() == 4);
  CHECK(Library[0] != Library[3]); // conv1 and conv3: the same kernel but for the slope
  CHECK(std::set<std::string>(Library.begin(), Library.end()).size() == 4);
}

TEST_CASE("lower: a global pool fuses an ELU with its alpha and a batch norm runs it apart") {
  NetworkBuilder B("elu");
  LayerId X = B.input({2, 8, 4, 4}, "x");
  B.activation(B.globalAvgPool(X), ActKind::Elu, 0.7f);
  B.activation(B.batchNorm(X), ActKind::Elu, 0.7f); // an elementwise kernel: an ELU of its own
  auto N = B.finish();
  REQUIRE(N);
  Workload W = lowerOk(*N, true);
  REQUIRE(W.launches.size() == 3);
  CHECK(W.launches[0].strategy == "global_avg_pool");
  CHECK(W.launches[0].kernel.find("elu0p7") != std::string::npos);
  CHECK(W.launches[1].kernel.find("elu") == std::string::npos);
  CHECK(W.launches[2].kernel.find("elu0p7") != std::string::npos);
}

TEST_CASE("lower: a max pool over a whole 56x56 image (ONNX GlobalMaxPool) stays a small kernel") {
  NetworkBuilder B("gmp");
  B.maxPool(B.input({2, 64, 56, 56}, "x"), 56, 1);
  auto N = B.finish();
  REQUIRE(N);
  Workload W = lowerOk(*N, true);
  REQUIRE(W.launches.size() == 1);
  CHECK(W.launches[0].strategy.rfind("pool_max", 0) == 0);
  size_t Bytes = 0;
  for (const std::string &P : W.ptx)
    Bytes += P.size();
  CHECK(Bytes < 64 * 1024); // the window is a loop, not 3,136 unrolled loads
}
