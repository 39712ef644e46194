// CPU references for the project's test kernels (tests/kernels/*.cu, *.ll): each follows the
// semantics stated in the kernel file's top comment, in the same association order, written
// independently of the interpreter and of analyzer/ScalarOps.
#pragma once

#include <cstdint>
#include <vector>

namespace reftest {

/// matmul.cu: C = A * B, row-major, fmaf in increasing k (padded to a multiple of 16 with 0*0).
std::vector<float> matmul(const std::vector<float> &A, const std::vector<float> &B, int M, int N,
                          int K);

struct ConvShape {
  int n, c, h, w, k, r, s, padH, padW, strideH, strideW;
  int p() const { return (h + 2 * padH - r) / strideH + 1; }
  int q() const { return (w + 2 * padW - s) / strideW + 1; }
};
/// conv2d.cu: direct NCHW convolution with bias, fmaf over (c, r, s).
std::vector<float> conv2d(const std::vector<float> &In, const std::vector<float> &W,
                          const std::vector<float> &Bias, const ConvShape &S);
/// depthwise.cu: 3x3 depthwise NCHW convolution (no bias), fmaf over (r, s).
std::vector<float> depthwise3x3(const std::vector<float> &In, const std::vector<float> &W, int N,
                                int C, int H, int Wd, int Pad, int Stride);
/// pooling.cu: max (fmaxf from -inf) or average (count excludes padding) pooling.
std::vector<float> pool2d(const std::vector<float> &In, bool Max, const ConvShape &S);
/// softmax.cu: row softmax (lane-strided max/sum, butterfly reductions, multiply by 1/s).
std::vector<float> softmaxRows(const std::vector<float> &In, int Rows, int Cols);
/// reduction.cu: per-block sums in the kernel's association order.
std::vector<float> reduceSum(const std::vector<float> &In, int Grid, int Block);
/// histogram.cu: 256-bin counts added to `Bins`.
void histogram256(const std::vector<uint8_t> &Data, std::vector<uint32_t> &Bins);
/// scan.cu: per-block inclusive prefix sums (wrapping int32).
std::vector<int32_t> blockScan(const std::vector<int32_t> &In, int Block);
/// divergence.cu: divergent_branches.
std::vector<int32_t> divergentBranches(const std::vector<int32_t> &In, int Block);
/// recursion.cu: fib(in & 15).
std::vector<int32_t> fibOf(const std::vector<int32_t> &In);
/// devicecall.cu: poly(x, k) + poly(-x, k).
std::vector<float> callPoly(const std::vector<float> &X, int K);
/// elementwise.cu.
std::vector<float> saxpy(float A, const std::vector<float> &X, const std::vector<float> &Y);
std::vector<float> biasRelu(const std::vector<float> &X, const std::vector<float> &Bias, int C,
                            int Inner);
/// half.cu: half_ops (4 floats per element) and bf16_convert (2 floats per element).
std::vector<float> halfOps(const std::vector<float> &X, const std::vector<float> &Y);
std::vector<float> bf16Convert(const std::vector<float> &X);

/// atomics.cu: the final counters of atomics_global (c[0..5], u[0..5]) for n values, and the
/// out[] of atomics_shared for a 1-D launch.
struct AtomicsGlobal {
  std::vector<int32_t> c;
  std::vector<uint32_t> u;
};
AtomicsGlobal atomicsGlobal(const std::vector<int32_t> &Vals, std::vector<int32_t> C0,
                            std::vector<uint32_t> U0);
std::vector<int32_t> atomicsShared(const std::vector<int32_t> &Vals, int Grid, int Block);

/// counted.cu semantics.
std::vector<float> straightLine(int Threads);
std::vector<float> countedLoop(int Threads, float A);
std::vector<float> gridStride(const std::vector<float> &X, int Threads);

/// LLVM IR kernels: loop_ll, shared_reduce_ll.
std::vector<int32_t> loopLl(int N, int Grid, int Block);
std::vector<float> sharedReduceLl(const std::vector<float> &In, int Grid);

} // namespace reftest
