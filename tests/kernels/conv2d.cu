// Direct 2-D convolution, NCHW, zero padding and stride, one output element per thread.
//
// conv2d_nchw(in, w, bias, out, N, C, H, W, K, R, S, padH, padW, strideH, strideW, P, Q):
//   in  [N][C][H][W], w [K][C][R][S], bias [K], out [N][K][P][Q] (all float, row-major).
//   Thread g = blockIdx.x * blockDim.x + threadIdx.x with g < N*K*P*Q decodes
//   g = ((n*K + k)*P + p)*Q + q and computes
//     acc = bias[k]; for c in 0..C-1, r in 0..R-1, s in 0..S-1 (in this order):
//       h = p*strideH - padH + r; x = q*strideW - padW + s;
//       if 0 <= h < H and 0 <= x < W: acc = fmaf(in[n][c][h][x], w[k][c][r][s], acc)
//     out[n][k][p][q] = acc.
//   Threads with g >= N*K*P*Q do nothing. The caller picks P = (H + 2*padH - R)/strideH + 1 and
//   Q = (W + 2*padW - S)/strideW + 1.
// Launch: 1-D, any block size, enough threads to cover N*K*P*Q.
extern "C" __global__ void conv2d_nchw(const float *__restrict__ in, const float *__restrict__ w,
                                       const float *__restrict__ bias, float *__restrict__ out,
                                       int N, int C, int H, int W, int K, int R, int S, int padH,
                                       int padW, int strideH, int strideW, int P, int Q) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= N * K * P * Q)
    return;
  int q = g % Q;
  int p = (g / Q) % P;
  int k = (g / (P * Q)) % K;
  int n = g / (K * P * Q);
  float acc = bias[k];
  for (int c = 0; c < C; ++c) {
    for (int r = 0; r < R; ++r) {
      int h = p * strideH - padH + r;
      if (h < 0 || h >= H)
        continue;
      for (int s = 0; s < S; ++s) {
        int x = q * strideW - padW + s;
        if (x < 0 || x >= W)
          continue;
        acc = fmaf(in[((n * C + c) * H + h) * W + x], w[((k * C + c) * R + r) * S + s], acc);
      }
    }
  }
  out[g] = acc;
}
