// Block-wise sum reduction: grid-stride accumulation, warp shuffles (shfl.sync.down) inside each
// warp, shared memory across the warps of a block.
//
// reduce_sum(in, partial, n): thread g = blockIdx.x * blockDim.x + threadIdx.x sums in[g],
//   in[g + S], ... (S = gridDim.x * blockDim.x) in float, in that order, starting from 0.0f.
//   Each warp then adds its 32 lane sums by a shuffle-down tree (offsets 16, 8, 4, 2, 1: lane l
//   adds lane l+offset's value; lanes with l+offset >= 32 get their own value back, which only
//   affects lanes whose result is never used); lane 0 writes its warp sum to shared memory;
//   warp 0 then reduces the blockDim.x/32 warp sums with the same tree (missing warps
//   contribute 0.0f) and thread 0 writes partial[blockIdx.x] = block sum. The exact float
//   association order is as described (a CPU reference reproducing it gets bit-identical results).
// Launch: 1-D; blockDim.x a multiple of 32 and <= 1024; partial has gridDim.x elements.
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(FULL_MASK, v, offset);
  return v;
}

extern "C" __global__ void reduce_sum(const float *__restrict__ in, float *__restrict__ partial,
                                      int n) {
  __shared__ float warpSums[32];
  int stride = gridDim.x * blockDim.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    acc += in[i];
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  acc = warpSum(acc);
  if (lane == 0)
    warpSums[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    int numWarps = blockDim.x >> 5;
    float v = lane < numWarps ? warpSums[lane] : 0.0f;
    v = warpSum(v);
    if (lane == 0)
      partial[blockIdx.x] = v;
  }
}
