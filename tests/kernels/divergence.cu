// Divergent control flow: an if/else on the thread index, and nested loops whose trip counts
// depend on the data (outer) and on the thread index (inner).
//
// divergent_branches(in, out, n): thread g = blockIdx.x * blockDim.x + threadIdx.x, if g < n:
//   v = in[g];
//   if (threadIdx.x % 2 == 0) v = v * 3 + 1; else v = v / 2 - 7;   (int32; / truncates to zero)
//   if (threadIdx.x % 4 == 0) v = v ^ 0x55;                        (a second, nested split)
//   acc = 0;
//   outer = in[g] & 7                  (0..7 iterations, data-dependent)
//   inner = threadIdx.x % 5            (0..4 iterations, index-dependent)
//   for i in 0..outer-1: for j in 0..inner-1: acc += (i + 1) * (j + 2) ^ v   (i.e. ((i+1)*(j+2)) ^
//   v) out[g] = v + acc All arithmetic is wrapping int32. Threads with g >= n do nothing.
// Launch: 1-D, any geometry.
extern "C" __global__ void divergent_branches(const int *__restrict__ in, int *__restrict__ out,
                                              int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n)
    return;
  int x = in[g];
  int v = x;
  if (threadIdx.x % 2 == 0)
    v = v * 3 + 1;
  else
    v = v / 2 - 7;
  if (threadIdx.x % 4 == 0)
    v = v ^ 0x55;
  int acc = 0;
  int outer = x & 7;
  int inner = threadIdx.x % 5;
#pragma unroll 1
  for (int i = 0; i < outer; ++i) {
#pragma unroll 1
    for (int j = 0; j < inner; ++j)
      acc += ((i + 1) * (j + 2)) ^ v;
  }
  out[g] = v + acc;
}
