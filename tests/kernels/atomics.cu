// Every integer atomic on global and on shared memory: atomicAdd/Sub/Min/Max/Exch/CAS/And/Or/
// Xor/Inc/Dec. Final values are order-independent (each location gets one kind of operation),
// so a sequential CPU reference reproduces them exactly.
//
// atomics_global(vals, n, c, u, tickets): thread g = blockIdx.x * blockDim.x + threadIdx.x,
//   if g < n, with v = vals[g] (int32):
//     atomicAdd(&c[0], v)      -> c[0] += sum of v                  (wrapping int32)
//     atomicSub(&c[1], v)      -> c[1] -= sum of v
//     atomicMin(&c[2], v)      -> c[2] = min(c[2], all v)           (signed)
//     atomicMax(&c[3], v)      -> c[3] = max(c[3], all v)           (signed)
//     atomicExch(&c[4], 42)    -> c[4] = 42 (every thread writes the same value)
//     CAS loop on c[5]: old = c[5]; do { assumed = old; old = atomicCAS(&c[5], assumed,
//                       assumed + v); } while (assumed != old)   -> c[5] += sum of v
//     atomicAnd(&u[0], ~(1u << (g & 31)))  -> u[0] &= ~(union of those bits)
//     atomicOr (&u[1], 1u << (g & 31))     -> u[1] |= union of those bits
//     atomicXor(&u[2], (unsigned)v)        -> u[2] ^= xor of all v
//     atomicInc(&u[3], 9u)     -> each step old >= 9 ? 0 : old + 1  (with u[3] = 0 initially,
//                                 final = n mod 10)
//     atomicDec(&u[4], 9u)     -> each step (old == 0 || old > 9) ? 9 : old - 1
//                                 (with u[4] = 0 initially, final = (10 - n mod 10) mod 10)
//     t = atomicAdd(&u[5], 1u); tickets[t] = 1   (returned value used: with u[5] = 0 initially,
//                                 tickets[0..n-1] all become 1)
// atomics_shared(vals, n, out): the same operations on a block's shared counters, initialised
//   by thread 0 to s[0..5] = {0, 0, INT_MAX, INT_MIN, 0, 0}, su[0..4] = {~0u, 0, 0, 0, 0};
//   every thread of the block with g < n takes part; after __syncthreads thread 0 writes
//   out[blockIdx.x * 11 + j] = s[j] for j = 0..5 and su[j - 6] for j = 6..10 (as int bits).
// Launch: 1-D, any geometry; tickets has n elements; out has 11 * gridDim.x elements.
#include <climits>

__device__ __forceinline__ int casAdd(int *addr, int v) {
  int old = *addr;
  int assumed;
  do {
    assumed = old;
    old = atomicCAS(addr, assumed, assumed + v);
  } while (assumed != old);
  return old;
}

extern "C" __global__ void atomics_global(const int *__restrict__ vals, int n, int *c,
                                          unsigned int *u, int *tickets) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n)
    return;
  int v = vals[g];
  atomicAdd(&c[0], v);
  atomicSub(&c[1], v);
  atomicMin(&c[2], v);
  atomicMax(&c[3], v);
  atomicExch(&c[4], 42);
  casAdd(&c[5], v);
  atomicAnd(&u[0], ~(1u << (g & 31)));
  atomicOr(&u[1], 1u << (g & 31));
  atomicXor(&u[2], (unsigned int)v);
  atomicInc(&u[3], 9u);
  atomicDec(&u[4], 9u);
  unsigned int t = atomicAdd(&u[5], 1u);
  tickets[t] = 1;
}

extern "C" __global__ void atomics_shared(const int *__restrict__ vals, int n, int *out) {
  __shared__ int s[6];
  __shared__ unsigned int su[5];
  if (threadIdx.x == 0) {
    s[0] = 0;
    s[1] = 0;
    s[2] = INT_MAX;
    s[3] = INT_MIN;
    s[4] = 0;
    s[5] = 0;
    su[0] = ~0u;
    su[1] = 0;
    su[2] = 0;
    su[3] = 0;
    su[4] = 0;
  }
  __syncthreads();
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n) {
    int v = vals[g];
    atomicAdd(&s[0], v);
    atomicSub(&s[1], v);
    atomicMin(&s[2], v);
    atomicMax(&s[3], v);
    atomicExch(&s[4], 42);
    casAdd(&s[5], v);
    atomicAnd(&su[0], ~(1u << (g & 31)));
    atomicOr(&su[1], 1u << (g & 31));
    atomicXor(&su[2], (unsigned int)v);
    atomicInc(&su[3], 9u);
    atomicDec(&su[4], 9u);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int *o = out + blockIdx.x * 11;
    for (int j = 0; j < 6; ++j)
      o[j] = s[j];
    for (int j = 0; j < 5; ++j)
      o[6 + j] = (int)su[j];
  }
}
