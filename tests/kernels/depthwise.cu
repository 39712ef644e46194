// Depthwise 3x3 convolution, NCHW, zero padding and stride, one output element per thread.
//
// depthwise3x3_nchw(in, w, out, N, C, H, W, pad, stride, P, Q):
//   in [N][C][H][W], w [C][3][3], out [N][C][P][Q] (float, row-major). Thread
//   g = blockIdx.x * blockDim.x + threadIdx.x with g < N*C*P*Q decodes
//   g = ((n*C + c)*P + p)*Q + q and computes
//     acc = 0.0f; for r in 0..2, s in 0..2 (in this order):
//       h = p*stride - pad + r; x = q*stride - pad + s;
//       if 0 <= h < H and 0 <= x < W: acc = fmaf(in[n][c][h][x], w[c][r][s], acc)
//     out[n][c][p][q] = acc.
//   P = (H + 2*pad - 3)/stride + 1, Q = (W + 2*pad - 3)/stride + 1 (chosen by the caller).
// Launch: 1-D, any block size; threads past N*C*P*Q do nothing.
extern "C" __global__ void depthwise3x3_nchw(const float *__restrict__ in,
                                             const float *__restrict__ w, float *__restrict__ out,
                                             int N, int C, int H, int W, int pad, int stride, int P,
                                             int Q) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= N * C * P * Q)
    return;
  int q = g % Q;
  int p = (g / Q) % P;
  int c = (g / (P * Q)) % C;
  int n = g / (C * P * Q);
  const float *plane = in + (n * C + c) * H * W;
  const float *filt = w + c * 9;
  float acc = 0.0f;
#pragma unroll
  for (int r = 0; r < 3; ++r) {
    int h = p * stride - pad + r;
#pragma unroll
    for (int s = 0; s < 3; ++s) {
      int x = q * stride - pad + s;
      if (h >= 0 && h < H && x >= 0 && x < W)
        acc = fmaf(plane[h * W + x], filt[r * 3 + s], acc);
    }
  }
  out[g] = acc;
}
