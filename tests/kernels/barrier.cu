// Split arrive/wait barriers as libcu++ writes them: cuda::barrier, cuda::memcpy_async and the
// sm_90 bulk copies. nvcc lowers them to mbarrier.init/arrive/test_wait (sm_80), try_wait with a
// %globaltimer back-off, mbarrier.expect_tx and cp.async.bulk (sm_90); on sm_75 to a software
// barrier. extern "C" keeps the kernel names plain.
//
// staged_rotate(in, out): each block of 256 threads stages in[256 b .. 256 b + 255] in shared
//   memory with one group memcpy_async (cp.async on sm_80+) tracked by a block barrier, waits,
//   and writes out[256 b + t] = 2 * in[256 b + (t + 1) % 256].
// bulk_tiles(in, out, tiles): thread 0 of each block moves tile k (256 floats, in[256 (b tiles +
//   k) ..]) into shared memory with one memcpy_async of 1 KiB on the block barrier (sm_90: a bulk
//   copy completing on the barrier's transaction count), every thread waits for it, adds
//   tile[(7 t) % 256] to its sum and waits again before the next tile overwrites it: two phases
//   per tile. out[256 b + t] = the sum over k, in order k = 0, 1, ...
// bulk_store(in, out): out[256 b + t] = 3 * in[256 b + t], staged in shared memory and stored
//   by thread 0 with one shared -> global bulk copy on sm_90 (a plain store elsewhere).
// Launch: blocks of 256 threads.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/std/utility>

using block_barrier = cuda::barrier<cuda::thread_scope_block>;

extern "C" __global__ void staged_rotate(const float *in, float *out) {
  __shared__ alignas(16) float buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  auto block = cooperative_groups::this_thread_block();
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(block, buf, in + blockIdx.x * 256, sizeof(buf), bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = 2.0f * buf[(threadIdx.x + 1) % 256];
}

extern "C" __global__ void bulk_tiles(const float *in, float *out, int tiles) {
  __shared__ alignas(128) float buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  float acc = 0;
  for (int k = 0; k < tiles; ++k) {
    const float *src = in + (size_t(blockIdx.x) * tiles + k) * 256;
    if (threadIdx.x == 0)
      cuda::memcpy_async(buf, src, cuda::aligned_size_t<16>(sizeof(buf)), bar);
    block_barrier::arrival_token token = bar.arrive();
    bar.wait(cuda::std::move(token));
    acc += buf[(threadIdx.x * 7) % 256];
    bar.arrive_and_wait();
  }
  out[blockIdx.x * 256 + threadIdx.x] = acc;
}

extern "C" __global__ void bulk_store(const float *in, float *out) {
  __shared__ alignas(128) float buf[256];
  buf[threadIdx.x] = 3.0f * in[blockIdx.x * 256 + threadIdx.x];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cde = cuda::device::experimental;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_shared_to_global(out + blockIdx.x * 256, buf, sizeof(buf));
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
#else
  __syncthreads();
  out[blockIdx.x * 256 + threadIdx.x] = buf[threadIdx.x];
#endif
}
