// Shared-memory tiled GEMM, 16x16 tiles: C = A * B for row-major A (M x K), B (K x N), C (M x N).
//
// matmul_tiled(A, B, C, M, N, K): thread (tx, ty) of block (bx, by) computes
//   C[row][col], row = by*16 + ty, col = bx*16 + tx, when row < M and col < N, as
//   acc = 0.0f; for t in tiles(0..ceil(K/16)-1): for k in 0..15: acc += As[ty][k] * Bs[k][tx]
//   where As[ty][k] = A[row][t*16+k] (0 if out of bounds) and Bs[k][tx] = B[t*16+k][col]
//   (0 if out of bounds); i.e. the plain dot product over k = 0..K-1 in increasing k, with extra
//   "+ 0*0" terms past K (each step acc = fmaf(a, b, acc)).
// Launch: block (16, 16, 1); grid (ceil(N/16), ceil(M/16), 1). Any M, N, K >= 1.
#define TILE 16

extern "C" __global__ void matmul_tiled(const float *__restrict__ A, const float *__restrict__ B,
                                        float *__restrict__ C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  int numTiles = (K + TILE - 1) / TILE;
  for (int t = 0; t < numTiles; ++t) {
    int ka = t * TILE + tx;
    int kb = t * TILE + ty;
    As[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    Bs[ty][tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}
