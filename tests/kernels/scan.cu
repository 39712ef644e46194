// Block-wide inclusive prefix sum (Hillis-Steele) in double-buffered shared memory.
//
// inclusive_scan_block(in, out, n): each block scans its own segment independently: element
//   i = blockIdx.x * blockDim.x + threadIdx.x gets
//     out[i] = in[base] + in[base+1] + ... + in[i],   base = blockIdx.x * blockDim.x,
//   for i < n (elements past n count as 0 and are not written). Integer (int32, wrapping) sums,
//   so results are exact. Steps: offset = 1, 2, 4, ... < blockDim.x; in each step
//   buf[out][t] = buf[in][t] + (t >= offset ? buf[in][t - offset] : 0), __syncthreads.
// Launch: 1-D; blockDim.x <= 1024 (any value, not only powers of two).
extern "C" __global__ void inclusive_scan_block(const int *__restrict__ in, int *__restrict__ out,
                                                int n) {
  __shared__ int buf[2][1024];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  int cur = 0;
  buf[0][t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset <<= 1) {
    int v = buf[cur][t];
    if (t >= offset)
      v += buf[cur][t - offset];
    buf[cur ^ 1][t] = v;
    cur ^= 1;
    __syncthreads();
  }
  if (i < n)
    out[i] = buf[cur][t];
}
