// Tensor-core GEMMs written with inline PTX: mma.sync on fragments loaded by ldmatrix from
// shared memory that cp.async filled (sm_80+), the way CUTLASS-style kernels do it.
//
// Every kernel: one warp (block of 32 threads) per 16 x 8 tile of C (grid (N/8, M/16)), C
// row-major with leading dimension N, a loop over k in steps of the mma's k; per step the warp
// copies the A tile (16 rows x k) and the B tile (k x 8) to shared memory with cp.async (16
// bytes per copy), waits (cp.async.wait_group, then __syncthreads), and multiplies, with a
// __syncthreads before the next step's copies. Per element C[i][j] = sum over k of A[i][k]*B[k][j]
// in increasing k. M multiple of 16, N of 8, K of the step.
//   mma_f16  m16n8k16 .f32.f16.f16.f32: A half row-major (M x K), B half row-major (K x N);
//            A by ldmatrix.x4, B by ldmatrix.x2.trans.
//   mma_bf16 m16n8k16 .f32.bf16.bf16.f32: as mma_f16 with bf16 elements.
//   mma_tf32 m16n8k8 .f32.tf32.tf32.f32: A float row-major, B float column-major (B[k][j] at
//            B[j*K + k]), values already tf32; fragments read from shared memory by index.
//   mma_s8   m16n8k32 .s32.s8.s8.s32: A s8 row-major, B s8 column-major; fragments read as
//            32-bit words from shared memory.
// Below sm_80 every body is empty.
#include <cstdint>

namespace {

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
__device__ inline uint32_t smem(const void *P) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(P));
}

/// One 16-byte cp.async.cg copy from global to shared memory.
__device__ inline void copy16(const void *Dst, const void *Src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem(Dst)), "l"(Src));
}

__device__ inline void waitAsync() {
  asm volatile("cp.async.commit_group;\n" ::);
  asm volatile("cp.async.wait_group 0;\n" ::);
  __syncthreads();
}

/// The 16 x 8 f32 accumulator tile of lane L (c0..c3, PTX ISA mma m16n8 C layout) to C.
__device__ inline void storeC(float *C, int N, const float (&Acc)[4]) {
  const int G = threadIdx.x / 4, T = threadIdx.x % 4;
  for (int I = 0; I < 4; ++I)
    C[(G + 8 * (I / 2)) * N + 2 * T + I % 2] = Acc[I];
}
#endif

/// m16n8k16 with 16-bit inputs: A (16 x 16) rows and B (16 x 8) rows staged in shared memory.
template <bool Bf16>
__device__ void mma16(const uint16_t *A, const uint16_t *B, float *C, int N, int K) {
#if __CUDA_ARCH__ >= 800
  __shared__ alignas(128) uint16_t As[16 * 16], Bs[16 * 8];
  const int Tm = blockIdx.y * 16, Tn = blockIdx.x * 8, L = threadIdx.x;
  float Acc[4] = {0, 0, 0, 0};
  for (int K0 = 0; K0 < K; K0 += 16) {
    if (L < 16) { // lane L copies A row L (two 16-byte halves) and B row L (16 bytes)
      asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(smem(As + L * 16)),
                   "l"(A + (Tm + L) * K + K0));
      asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(smem(As + L * 16 + 8)),
                   "l"(A + (Tm + L) * K + K0 + 8));
      copy16(Bs + L * 8, B + (K0 + L) * N + Tn);
    }
    waitAsync();
    uint32_t Fa[4], Fb[2];
    // Lane L points at row L % 16 of A, column half L / 16: matrices (rows 0-7 | 8-15) x
    // (cols 0-7 | 8-15) in the order of the A fragment.
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(Fa[0]), "=r"(Fa[1]), "=r"(Fa[2]), "=r"(Fa[3])
                 : "r"(smem(As + (L % 16) * 16 + (L / 16) * 8)));
    // B rows k = L % 16 (lanes 0-15 matter), transposed: lane L gets B[2t..2t+1][g].
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(Fb[0]), "=r"(Fb[1])
                 : "r"(smem(Bs + (L % 16) * 8)));
    if (Bf16)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                   "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                   : "+f"(Acc[0]), "+f"(Acc[1]), "+f"(Acc[2]), "+f"(Acc[3])
                   : "r"(Fa[0]), "r"(Fa[1]), "r"(Fa[2]), "r"(Fa[3]), "r"(Fb[0]), "r"(Fb[1]));
    else
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                   "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                   : "+f"(Acc[0]), "+f"(Acc[1]), "+f"(Acc[2]), "+f"(Acc[3])
                   : "r"(Fa[0]), "r"(Fa[1]), "r"(Fa[2]), "r"(Fa[3]), "r"(Fb[0]), "r"(Fb[1]));
    __syncthreads();
  }
  storeC(C + Tm * N + Tn, N, Acc);
#endif
}

} // namespace

extern "C" __global__ void mma_f16(const uint16_t *A, const uint16_t *B, float *C, int M, int N,
                                   int K) {
  mma16<false>(A, B, C, N, K);
}

extern "C" __global__ void mma_bf16(const uint16_t *A, const uint16_t *B, float *C, int M, int N,
                                    int K) {
  mma16<true>(A, B, C, N, K);
}

extern "C" __global__ void mma_tf32(const float *A, const float *B, float *C, int M, int N, int K) {
#if __CUDA_ARCH__ >= 800
  __shared__ alignas(128) float As[16 * 8], Bs[8 * 8]; // A rows (k contiguous), B columns
  const int Tm = blockIdx.y * 16, Tn = blockIdx.x * 8, L = threadIdx.x;
  const int G = L / 4, T = L % 4;
  float Acc[4] = {0, 0, 0, 0};
  for (int K0 = 0; K0 < K; K0 += 8) {
    // 16 A rows of 32 bytes and 8 B columns of 32 bytes: two 16-byte copies each.
    const int R = L / 2, H = (L % 2) * 4;
    copy16(As + R * 8 + H, A + (Tm + R) * K + K0 + H);
    if (L < 16)
      copy16(Bs + R * 8 + H, B + (Tn + R) * K + K0 + H);
    waitAsync();
    // PTX ISA m16n8k8 .tf32: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4);
    // b0 (k t, n g), b1 (k t+4, n g).
    uint32_t A0 = __float_as_uint(As[G * 8 + T]), A1 = __float_as_uint(As[(G + 8) * 8 + T]);
    uint32_t A2 = __float_as_uint(As[G * 8 + T + 4]), A3 = __float_as_uint(As[(G + 8) * 8 + T + 4]);
    uint32_t B0 = __float_as_uint(Bs[G * 8 + T]), B1 = __float_as_uint(Bs[G * 8 + T + 4]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(Acc[0]), "+f"(Acc[1]), "+f"(Acc[2]), "+f"(Acc[3])
                 : "r"(A0), "r"(A1), "r"(A2), "r"(A3), "r"(B0), "r"(B1));
    __syncthreads();
  }
  storeC(C + Tm * N + Tn, N, Acc);
#endif
}

extern "C" __global__ void mma_s8(const int8_t *A, const int8_t *B, int *C, int M, int N, int K) {
#if __CUDA_ARCH__ >= 800
  __shared__ alignas(128) int8_t As[16 * 32], Bs[8 * 32]; // A rows, B columns (32 k each)
  const int Tm = blockIdx.y * 16, Tn = blockIdx.x * 8, L = threadIdx.x;
  const int G = L / 4, T = L % 4;
  int Acc[4] = {0, 0, 0, 0};
  for (int K0 = 0; K0 < K; K0 += 32) {
    const int R = L / 2, H = (L % 2) * 16;
    copy16(As + R * 32 + H, A + (Tm + R) * K + K0 + H);
    if (L < 16)
      copy16(Bs + R * 32 + H, B + (Tn + R) * K + K0 + H);
    waitAsync();
    // PTX ISA m16n8k32 .s8: register r of A holds row g + 8 (r % 2), k 16 (r / 2) + 4t..+3;
    // register r of B holds k 16 r + 4t..+3 of column g.
    uint32_t Fa[4], Fb[2];
    for (int Rg = 0; Rg < 4; ++Rg)
      Fa[Rg] = *reinterpret_cast<const uint32_t *>(As + (G + 8 * (Rg % 2)) * 32 + 16 * (Rg / 2) +
                                                   4 * T);
    for (int Rg = 0; Rg < 2; ++Rg)
      Fb[Rg] = *reinterpret_cast<const uint32_t *>(Bs + G * 32 + 16 * Rg + 4 * T);
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+r"(Acc[0]), "+r"(Acc[1]), "+r"(Acc[2]), "+r"(Acc[3])
                 : "r"(Fa[0]), "r"(Fa[1]), "r"(Fa[2]), "r"(Fa[3]), "r"(Fb[0]), "r"(Fb[1]));
    __syncthreads();
  }
  for (int I = 0; I < 4; ++I)
    C[(Tm + G + 8 * (I / 2)) * N + Tn + 2 * T + I % 2] = Acc[I];
#endif
}
