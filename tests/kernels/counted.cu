// Kernels whose dynamic instruction counts follow by hand from the PTX, for checking the
// interpreter's counters. "Static(B)" below means the number of instructions in PTX block B;
// W = number of warps launched, T = number of threads launched.
//
// straight_line(out): no branches at all (no guard, no loop). Every thread runs every
//   instruction exactly once: warp instructions = W * Static(body), thread instructions =
//   T * Static(body); per class likewise (the body is: ld.param, special-register moves, integer
//   index arithmetic, a few fp32 ops, cvta, one st.global, ret).
//   Semantics: g = blockIdx.x * blockDim.x + threadIdx.x; f = (float)g;
//   out[g] = fmaf(f, 0.5f, 2.0f) * f - 1.0f   (fma, then mul, then sub; each rounded).
//   (nvcc 13.0 -O3 sm_90: 17 instructions: 1 ld_param, 1 convert(cvta), 3+3 move (sregs and
//   float constants), 1 int_mul (mad.lo), 1 convert (cvt.rn.f32.s32), 3 fp32, 1 int_mul
//   (mul.wide), 1 int (add.s64), 1 st_global, 1 control (ret).)
//
// counted_loop(out, a): a loop with a compile-time trip count of exactly 10, not unrolled
//   (#pragma unroll 1), and no other branch besides the loop's back edge:
//   acc = 1.0f; for i in 0..9: acc = fmaf(acc, a, (float)i); out[g] = acc.
//   Counts: each thread runs Static(entry) + 10 * Static(loop body block) + Static(exit block)
//   instructions; the loop body's bra is taken 9 times and falls through once per warp; no
//   branch is divergent. (nvcc 13.0 -O3 sm_90: entry 8, loop block 5 (cvt, fma, add, setp,
//   bra; the .pragma is not an instruction), exit 6: 8 + 10*5 + 6 = 64 per thread.)
//
// grid_stride(n, x): for i = g; i < n; i += S (S = gridDim.x * blockDim.x): x[i] = x[i] * 2.0f.
//   Thread g runs the loop body trips(g) = g < n ? ceil((n - g) / S) : 0 times. Example: n = 1000,
//   grid 2 x block 128 (S = 256): threads g < 232 run 4 trips, threads 232..255 run 3, so the
//   body runs 232*4 + 24*3 = 1000 times at thread level. At warp level (global warps 0..7,
//   warp w = threads 32w..32w+31) every warp runs 4 trips: warps 0..6 fully active, warp 7's
//   last trip with 8 active lanes (g 224..231): 32 warp-level body executions, one divergent
//   loop exit (warp 7).
//
// divergent_split(out, aux): lane = threadIdx.x & 31; lanes 0..7 take path A
//   (out[g] = (float)lane * 2.0f), lanes 8..31 take path B (out[g] = (float)lane + 100.0f and
//   aux[g] = (float)lane * (float)lane; aux[g] is untouched for lanes 0..7). Two stores on one
//   side keep nvcc from turning the split into a selp: the PTX has a real divergent bra.
//   With blockDim.x a multiple of 32, every warp executes both paths: the path-A block with
//   8 active lanes and the path-B block with 24 active lanes, then reconverges; thread
//   instructions = 8 * Static(A) + 24 * Static(B) + 32 * Static(common) per warp.
// Launch: 1-D; out/aux have one element per launched thread (grid_stride: x has n elements).
extern "C" __global__ void straight_line(float *__restrict__ out) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  float f = (float)g;
  out[g] = __fsub_rn(__fmul_rn(fmaf(f, 0.5f, 2.0f), f), 1.0f);
}

extern "C" __global__ void counted_loop(float *__restrict__ out, float a) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 1.0f;
#pragma unroll 1
  for (int i = 0; i < 10; ++i)
    acc = fmaf(acc, a, (float)i);
  out[g] = acc;
}

extern "C" __global__ void grid_stride(int n, float *__restrict__ x) {
  int stride = gridDim.x * blockDim.x;
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = x[i] * 2.0f;
}

extern "C" __global__ void divergent_split(float *__restrict__ out, float *__restrict__ aux) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31;
  if (lane < 8) {
    out[g] = (float)lane * 2.0f;
  } else {
    float v = (float)lane;
    out[g] = v + 100.0f;
    aux[g] = v * v;
  }
}
