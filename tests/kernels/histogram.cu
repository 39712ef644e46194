// 256-bin byte histogram: per-block bins in shared memory (atom.shared.add), merged into the
// global histogram with atomicAdd (red.global.add).
//
// histogram256(data, n, bins): data [n] unsigned bytes, bins [256] unsigned int (the caller
//   zeroes it, or it accumulates). After the launch bins[v] += number of i in [0, n) with
//   data[i] == v. Each block zeroes its 256 shared bins (thread t zeroes t, t+blockDim.x, ...),
//   __syncthreads, counts a grid-stride share of the input (thread g reads g, g + S, ...,
//   S = gridDim.x * blockDim.x), __syncthreads, then adds every nonzero shared bin to bins.
// Launch: 1-D, any grid and block size. The result is independent of the order of atomics.
extern "C" __global__ void histogram256(const unsigned char *__restrict__ data, int n,
                                        unsigned int *__restrict__ bins) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    unsigned int c = local[b];
    if (c != 0)
      atomicAdd(&bins[b], c);
  }
}
