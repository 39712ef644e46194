// Row softmax with warp shuffles: one warp per row computes the row max (shfl.sync.bfly), the
// exponentials and their sum (shfl.sync.bfly), then writes the normalised row.
//
// softmax_rows(in, out, rows, cols): in, out [rows][cols] float, row-major.
//   warp w = threadIdx.x / 32 of block b handles row = b * (blockDim.x / 32) + w (if < rows).
//   Lane l visits columns j = l, l+32, l+64, ... < cols:
//     pass 1: m_l = max over its columns (start -INFINITY, fmaxf); m = max over the 32 lanes by
//             a butterfly (xor offsets 16, 8, 4, 2, 1).
//     pass 2: e_j = expf(in[row][j] - m); out[row][j] = e_j; s_l = sum of its e_j (start 0.0f,
//             in column order); s = butterfly sum over lanes (xor 16, 8, 4, 2, 1).
//     pass 3: out[row][j] = out[row][j] * (1.0f / s)   (the reciprocal is IEEE rcp.rn / div.rn).
//   expf is CUDA's (ex2.approx based, <= 2 ulp), so a CPU reference should compare with a
//   relative tolerance (1e-5 is ample); every row sums to 1 within a few ulp.
// Launch: 1-D; blockDim.x a multiple of 32; gridDim.x = ceil(rows / (blockDim.x / 32)); cols >= 1.
#include <math_constants.h>

#define FULL_MASK 0xffffffffu

extern "C" __global__ void softmax_rows(const float *__restrict__ in, float *__restrict__ out,
                                        int rows, int cols) {
  int lane = threadIdx.x & 31;
  int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (row >= rows)
    return;
  const float *x = in + (size_t)row * cols;
  float *y = out + (size_t)row * cols;
  float m = -CUDART_INF_F;
  for (int j = lane; j < cols; j += 32)
    m = fmaxf(m, x[j]);
  for (int offset = 16; offset > 0; offset >>= 1)
    m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, offset));
  float s = 0.0f;
  for (int j = lane; j < cols; j += 32) {
    float e = expf(x[j] - m);
    y[j] = e;
    s += e;
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    s += __shfl_xor_sync(FULL_MASK, s, offset);
  float inv = __frcp_rn(s);
  for (int j = lane; j < cols; j += 32)
    y[j] = y[j] * inv;
}
