// Tensor-core GEMMs through the CUDA wmma API (mma.h): C = A x B with f32 (s32) accumulators.
//
// Every kernel: one warp (block of 32 threads) per 16 x 16 tile of C (grid (N/16, M/16)), a loop
// over k in steps of the fragment's k, C stored row-major with leading dimension N. M and N are
// multiples of 16, K of the kernel's k step. Per element C[i][j] = sum over k of A[i][k]*B[k][j]
// in increasing k (each wmma step continues the accumulator).
//   wmma_f16  (sm_75+): A half row-major (M x K), B half row-major (K x N), m16n16k16.
//   wmma_s8   (sm_75+): A s8 row-major, B s8 column-major (B[k][j] at B[j*K + k]), m16n16k16,
//                       s32 accumulators.
//   wmma_f16_acc16_m32n8 (sm_75+): 32 x 8 tiles (m32n8k16), A row-major, B column-major, half
//                       accumulators: each k step's f32 result is rounded to half.
//   wmma_u8_m8n32 (sm_75+): 8 x 32 tiles (m8n32k16), u8 A column-major, B row-major, s32.
//   wmma_bf16 (sm_80+): A bf16 column-major (A[i][k] at A[k*M + i]), B bf16 column-major.
//   wmma_tf32 (sm_80+): A and B float row-major, rounded to tf32 in the kernel
//                       (wmma::__float_to_tf32, cvt.rna.tf32.f32), m16n16k8; the tile is then
//                       scaled by alpha through the fragment's elements.
// Below sm_80 the bf16 and tf32 kernels have empty bodies.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <type_traits>

using namespace nvcuda;

namespace {

/// The TM x TN tile of C = A x B at block (x, y), in k steps of 16; LayoutA and LayoutB say how
/// A (M x K) and B (K x N) are stored.
template <class T, class LayoutA, class LayoutB, class Acc, int TM = 16, int TN = 16>
__device__ void wmmaTile(const T *A, const T *B, Acc *C, int M, int N, int K) {
  constexpr bool ARow = std::is_same_v<LayoutA, wmma::row_major>;
  constexpr bool BRow = std::is_same_v<LayoutB, wmma::row_major>;
  const int Tm = blockIdx.y * TM, Tn = blockIdx.x * TN;
  wmma::fragment<wmma::matrix_a, TM, TN, 16, T, LayoutA> Fa;
  wmma::fragment<wmma::matrix_b, TM, TN, 16, T, LayoutB> Fb;
  wmma::fragment<wmma::accumulator, TM, TN, 16, Acc> Fc;
  wmma::fill_fragment(Fc, Acc(0));
  for (int K0 = 0; K0 < K; K0 += 16) {
    wmma::load_matrix_sync(Fa, ARow ? A + Tm * K + K0 : A + K0 * M + Tm, ARow ? K : M);
    wmma::load_matrix_sync(Fb, BRow ? B + K0 * N + Tn : B + Tn * K + K0, BRow ? N : K);
    wmma::mma_sync(Fc, Fa, Fb, Fc);
  }
  wmma::store_matrix_sync(C + Tm * N + Tn, Fc, N, wmma::mem_row_major);
}

} // namespace

extern "C" __global__ void wmma_f16(const half *A, const half *B, float *C, int M, int N, int K) {
  wmmaTile<half, wmma::row_major, wmma::row_major>(A, B, C, M, N, K);
}

extern "C" __global__ void wmma_s8(const signed char *A, const signed char *B, int *C, int M,
                                   int N, int K) {
  wmmaTile<signed char, wmma::row_major, wmma::col_major>(A, B, C, M, N, K);
}

extern "C" __global__ void wmma_f16_acc16_m32n8(const half *A, const half *B, half *C, int M,
                                                int N, int K) {
  wmmaTile<half, wmma::row_major, wmma::col_major, half, 32, 8>(A, B, C, M, N, K);
}

extern "C" __global__ void wmma_u8_m8n32(const unsigned char *A, const unsigned char *B, int *C,
                                        int M, int N, int K) {
  wmmaTile<unsigned char, wmma::col_major, wmma::row_major, int, 8, 32>(A, B, C, M, N, K);
}

extern "C" __global__ void wmma_bf16(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C,
                                     int M, int N, int K) {
#if __CUDA_ARCH__ >= 800
  wmmaTile<__nv_bfloat16, wmma::col_major, wmma::col_major>(A, B, C, M, N, K);
#endif
}

extern "C" __global__ void wmma_tf32(const float *A, const float *B, float *C, int M, int N, int K,
                                     float Alpha) {
#if __CUDA_ARCH__ >= 800
  const int Tm = blockIdx.y * 16, Tn = blockIdx.x * 16;
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> Fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> Fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> Fc;
  wmma::fill_fragment(Fc, 0.0f);
  for (int K0 = 0; K0 < K; K0 += 8) {
    wmma::load_matrix_sync(Fa, A + Tm * K + K0, K);
    wmma::load_matrix_sync(Fb, B + K0 * N + Tn, N);
    for (int E = 0; E < Fa.num_elements; ++E)
      Fa.x[E] = wmma::__float_to_tf32(Fa.x[E]);
    for (int E = 0; E < Fb.num_elements; ++E)
      Fb.x[E] = wmma::__float_to_tf32(Fb.x[E]);
    wmma::mma_sync(Fc, Fa, Fb, Fc);
  }
  for (int E = 0; E < Fc.num_elements; ++E)
    Fc.x[E] *= Alpha;
  wmma::store_matrix_sync(C + Tm * N + Tn, Fc, N, wmma::mem_row_major);
#endif
}
