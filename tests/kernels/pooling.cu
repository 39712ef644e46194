// 2-D max pooling and average pooling, NCHW, window kH x kW, stride, zero padding; one output
// element per thread.
//
// maxpool2d_nchw(in, out, N, C, H, W, kH, kW, strideH, strideW, padH, padW, P, Q):
//   in [N][C][H][W], out [N][C][P][Q]. Thread g < N*C*P*Q, g = ((n*C + c)*P + p)*Q + q:
//   m = -INFINITY; for r in 0..kH-1, s in 0..kW-1: h = p*strideH - padH + r,
//   x = q*strideW - padW + s; if inside the image: m = fmaxf(m, in[n][c][h][x]).
//   out[g] = m (padding never wins; a window entirely in padding gives -inf).
// avgpool2d_nchw(same arguments): sum the in-image values in the same order starting from 0.0f
//   (plain float adds), count them; out[g] = count > 0 ? sum / count : 0.0f (count excludes
//   padding, i.e. PyTorch's count_include_pad=False). The division is IEEE (div.rn.f32).
// Launch: 1-D, any block size; threads past N*C*P*Q do nothing.
#include <math_constants.h>

extern "C" __global__ void maxpool2d_nchw(const float *__restrict__ in, float *__restrict__ out,
                                          int N, int C, int H, int W, int kH, int kW, int strideH,
                                          int strideW, int padH, int padW, int P, int Q) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= N * C * P * Q)
    return;
  int q = g % Q;
  int p = (g / Q) % P;
  int nc = g / (P * Q);
  const float *plane = in + nc * H * W;
  float m = -CUDART_INF_F;
  for (int r = 0; r < kH; ++r) {
    int h = p * strideH - padH + r;
    if (h < 0 || h >= H)
      continue;
    for (int s = 0; s < kW; ++s) {
      int x = q * strideW - padW + s;
      if (x >= 0 && x < W)
        m = fmaxf(m, plane[h * W + x]);
    }
  }
  out[g] = m;
}

extern "C" __global__ void avgpool2d_nchw(const float *__restrict__ in, float *__restrict__ out,
                                          int N, int C, int H, int W, int kH, int kW, int strideH,
                                          int strideW, int padH, int padW, int P, int Q) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= N * C * P * Q)
    return;
  int q = g % Q;
  int p = (g / Q) % P;
  int nc = g / (P * Q);
  const float *plane = in + nc * H * W;
  float sum = 0.0f;
  int count = 0;
  for (int r = 0; r < kH; ++r) {
    int h = p * strideH - padH + r;
    if (h < 0 || h >= H)
      continue;
    for (int s = 0; s < kW; ++s) {
      int x = q * strideW - padW + s;
      if (x >= 0 && x < W) {
        sum += plane[h * W + x];
        ++count;
      }
    }
  }
  out[g] = count > 0 ? __fdiv_rn(sum, (float)count) : 0.0f;
}
