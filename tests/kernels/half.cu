// Half precision: __half and __half2 arithmetic, f32 <-> f16 and f32 <-> bf16 conversions.
//
// half_ops(x, y, out, n): thread g = blockIdx.x * blockDim.x + threadIdx.x, if g < n, with
//   a = __float2half_rn(x[g]), b = __float2half_rn(y[g]) (round to nearest even):
//     h1 = __hfma(a, b, a)             (fma.rn.f16: a*b + a, one rounding)
//     h2 = __hadd(__hmul(a, b), b)     (mul.rn.f16 then add.rn.f16)
//     p  = __hmul2(__halves2half2(a, b), __halves2half2(b, a))   (low = a*b, high = b*a)
//     p  = __hadd2(p, __float2half2_rn(1.0f))                     (each half + 1)
//     hm = __hmax(a, b)                (max.f16)
//     out[4g+0] = __half2float(h1); out[4g+1] = __half2float(h2);
//     out[4g+2] = __low2float(p) + __high2float(p)   (f32 add); out[4g+3] = __half2float(hm)
// bf16_convert(x, out, n): if g < n: b = __float2bfloat16_rn(x[g]) (round to nearest even,
//   NaN stays NaN); out[2g] = __bfloat162float(b); out[2g+1] = __bfloat162float(
//   __float2bfloat16_rz(x[g]))  (round toward zero). Only conversions: no bf16 arithmetic, so
//   this compiles for sm_75 too (nvcc emulates bf16 cvt there with integer code).
// Launch: 1-D, any geometry; out has 4n (half_ops) or 2n (bf16_convert) floats.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void half_ops(const float *__restrict__ x, const float *__restrict__ y,
                                    float *__restrict__ out, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n)
    return;
  __half a = __float2half_rn(x[g]);
  __half b = __float2half_rn(y[g]);
  __half h1 = __hfma(a, b, a);
  __half h2 = __hadd(__hmul(a, b), b);
  __half2 p = __hmul2(__halves2half2(a, b), __halves2half2(b, a));
  p = __hadd2(p, __float2half2_rn(1.0f));
  __half hm = __hmax(a, b);
  out[4 * g + 0] = __half2float(h1);
  out[4 * g + 1] = __half2float(h2);
  out[4 * g + 2] = __low2float(p) + __high2float(p);
  out[4 * g + 3] = __half2float(hm);
}

extern "C" __global__ void bf16_convert(const float *__restrict__ x, float *__restrict__ out,
                                        int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n)
    return;
  __nv_bfloat16 b = __float2bfloat16_rn(x[g]);
  out[2 * g] = __bfloat162float(b);
  out[2 * g + 1] = __bfloat162float(__float2bfloat16_rz(x[g]));
}
