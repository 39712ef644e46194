// Functional tests: control-flow, atomic, call and integer test kernels (nvcc 13 for sm_75 and
// sm_90; llc-19 for the .ll kernels) in the interpreter, compared exactly with CPU references.
#include "ReferenceKernels.h"
#include "ReferenceRunner.h"

#include <climits>

using analyzer::Device;
using analyzer::KernelArg;
using namespace reftest;

TEST_CASE("functional: histogram256 (shared atomics, red.global)") {
  if (!haveNvcc())
    return;
  const int N = 3000;
  std::vector<uint8_t> Data;
  for (int32_t V : randomInts(N, 20, 0, 255))
    Data.push_back(uint8_t(V));
  std::vector<uint32_t> Bins0(256);
  for (int I = 0; I < 256; ++I)
    Bins0[I] = uint32_t(I * 3); // the kernel accumulates into existing counts
  std::vector<uint32_t> Want = Bins0;
  histogram256(Data, Want);
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("histogram", Arch), "histogram256");
    if (!P)
      continue;
    Device D;
    std::vector<KernelArg> Args = {upload(D, "data", Data), KernelArg::s32(N),
                                   upload(D, "bins", Bins0)};
    if (launch(*P, "histogram256", {3, 1, 1}, {96, 1, 1}, Args, D))
      checkEqual(download<uint32_t>(D, "bins"), Want, "histogram " + Arch);
  }
}

TEST_CASE("functional: inclusive_scan_block (Hillis-Steele in shared memory)") {
  if (!haveNvcc())
    return;
  for (uint32_t Block : {128u, 100u}) {
    auto In = randomInts(290, 21, -100000, 100000);
    checkIntMap("scan", "inclusive_scan_block", In, blockScan(In, int(Block)), Block);
  }
}

TEST_CASE("functional: divergent_branches (nested divergence, data-dependent loops)") {
  if (!haveNvcc())
    return;
  for (uint32_t Block : {64u, 48u}) { // 48: the second warp of each block has 16 lanes
    auto In = randomInts(200, 22, -1000, 1000);
    checkIntMap("divergence", "divergent_branches", In, divergentBranches(In, int(Block)), Block);
  }
}

TEST_CASE("functional: fib_kernel (recursive device function)") {
  if (!haveNvcc())
    return;
  auto In = randomInts(40, 23, 0, 1000);
  checkIntMap("recursion", "fib_kernel", In, fibOf(In), 32);
}

TEST_CASE("functional: call_poly (non-inlined device function with a return value)") {
  if (!haveNvcc())
    return;
  const int N = 100, K = 5;
  auto X = randomFloats(N, 24);
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("devicecall", Arch), "call_poly");
    if (!P)
      continue;
    Device D;
    std::vector<KernelArg> Args = {upload(D, "x", X), upload(D, "y", std::vector<float>(N)),
                                   KernelArg::s32(N), KernelArg::s32(K)};
    if (launch(*P, "call_poly", {2, 1, 1}, {64, 1, 1}, Args, D))
      checkClose(download<float>(D, "y"), callPoly(X, K), 0.0, "call_poly " + Arch);
  }
}

TEST_CASE("functional: atomics_global and atomics_shared (every integer atomic)") {
  if (!haveNvcc())
    return;
  const int N = 300, Grid = 3, Block = 128;
  auto Vals = randomInts(N, 25, -50000, 50000);
  std::vector<int32_t> C0 = {0, 0, INT_MAX, INT_MIN, 0, 0};
  std::vector<uint32_t> U0 = {~0u, 0, 0, 0, 0, 0};
  AtomicsGlobal Want = atomicsGlobal(Vals, C0, U0);
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("atomics", Arch), "atomics_global");
    if (!P)
      continue;
    Device D;
    std::vector<KernelArg> Args = {upload(D, "vals", Vals), KernelArg::s32(N), upload(D, "c", C0),
                                   upload(D, "u", U0),
                                   upload(D, "tickets", std::vector<int32_t>(N))};
    if (launch(*P, "atomics_global", {Grid, 1, 1}, {Block, 1, 1}, Args, D)) {
      checkEqual(download<int32_t>(D, "c"), Want.c, "atomics_global c " + Arch);
      checkEqual(download<uint32_t>(D, "u"), Want.u, "atomics_global u " + Arch);
      checkEqual(download<int32_t>(D, "tickets"), std::vector<int32_t>(N, 1), "tickets " + Arch);
    }
    std::vector<KernelArg> Args2 = {upload(D, "vals2", Vals), KernelArg::s32(N),
                                    upload(D, "out", std::vector<int32_t>(11 * Grid))};
    if (launch(*P, "atomics_shared", {Grid, 1, 1}, {Block, 1, 1}, Args2, D))
      checkEqual(download<int32_t>(D, "out"), atomicsShared(Vals, Grid, Block),
                 "atomics_shared " + Arch);
  }
}

TEST_CASE("functional: counted.cu kernels compute what their comments say") {
  if (!haveNvcc())
    return;
  const int Threads = 128, N = 1000;
  auto X = randomFloats(N, 26);
  for (const std::string &Arch : nvccArchs()) {
    INFO("arch " << Arch);
    auto P = loadKernel(kernelPath("counted", Arch), "straight_line");
    if (!P)
      continue;
    Device D;
    if (launch(*P, "straight_line", {2, 1, 1}, {64, 1, 1},
               {upload(D, "out", std::vector<float>(Threads))}, D))
      checkClose(download<float>(D, "out"), straightLine(Threads), 0.0, "straight_line " + Arch);
    if (launch(*P, "counted_loop", {2, 1, 1}, {64, 1, 1},
               {upload(D, "out2", std::vector<float>(Threads)), KernelArg::f32(0.75f)}, D))
      checkClose(download<float>(D, "out2"), countedLoop(Threads, 0.75f), 0.0,
                 "counted_loop " + Arch);
    if (launch(*P, "grid_stride", {2, 1, 1}, {128, 1, 1}, {KernelArg::s32(N), upload(D, "x", X)},
               D))
      checkClose(download<float>(D, "x"), gridStride(X, 256), 0.0, "grid_stride " + Arch);
    std::vector<float> Aux0(Threads, -1.0f);
    if (launch(*P, "divergent_split", {2, 1, 1}, {64, 1, 1},
               {upload(D, "out3", std::vector<float>(Threads)), upload(D, "aux", Aux0)}, D)) {
      std::vector<float> Out(Threads), Aux = Aux0;
      for (int G = 0; G < Threads; ++G) {
        int Lane = G & 31;
        Out[G] = Lane < 8 ? float(Lane) * 2.0f : float(Lane) + 100.0f;
        if (Lane >= 8)
          Aux[G] = float(Lane) * float(Lane);
      }
      checkClose(download<float>(D, "out3"), Out, 0.0, "divergent_split out " + Arch);
      checkClose(download<float>(D, "aux"), Aux, 0.0, "divergent_split aux " + Arch);
    }
  }
}

TEST_CASE("functional: llc-19 kernels (saxpy_ll, loop_ll, shared_reduce_ll)") {
  {
    auto P = loadKernel(kernelPath("saxpy_ll", "llc"), "saxpy_ll");
    REQUIRE(P);
    const int N = 300;
    auto X = randomFloats(N, 27), Y = randomFloats(N, 28);
    Device D;
    std::vector<KernelArg> Args = {upload(D, "x", X), upload(D, "y", Y), KernelArg::f32(-2.5f),
                                   KernelArg::s32(N)};
    if (launch(*P, "saxpy_ll", {3, 1, 1}, {128, 1, 1}, Args, D))
      checkClose(download<float>(D, "y"), saxpy(-2.5f, X, Y), 0.0, "saxpy_ll");
  }
  {
    auto P = loadKernel(kernelPath("loop_ll", "llc"), "loop_ll");
    REQUIRE(P);
    for (int N : {0, 1, 13}) {
      Device D;
      if (launch(*P, "loop_ll", {2, 1, 1}, {64, 1, 1},
                 {upload(D, "out", std::vector<int32_t>(128)), KernelArg::s32(N)}, D))
        checkEqual(download<int32_t>(D, "out"), loopLl(N, 2, 64), "loop_ll n=" + std::to_string(N));
    }
  }
  {
    auto P = loadKernel(kernelPath("shared_reduce_ll", "llc"), "shared_reduce_ll");
    REQUIRE(P);
    const int Grid = 3;
    auto In = randomFloats(256 * Grid, 29);
    Device D;
    if (launch(*P, "shared_reduce_ll", {Grid, 1, 1}, {256, 1, 1},
               {upload(D, "in", In), upload(D, "out", std::vector<float>(Grid))}, D))
      checkClose(download<float>(D, "out"), sharedReduceLl(In, Grid), 0.0, "shared_reduce_ll");
  }
}
