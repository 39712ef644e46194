// A recursive __device__ function (a real call stack in PTX: .func calling itself).
//
// fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)   (int32; fib(0) = 0, fib(1) = 1, fib(10) = 55)
// fib_kernel(in, out, n): thread g = blockIdx.x * blockDim.x + threadIdx.x, if g < n:
//   out[g] = fib(in[g] & 15)   (depth at most 16, so at most fib(15) = 610 and 1973 calls).
// Launch: 1-D, any geometry.
extern "C" __device__ __noinline__ int fib(int n) {
  if (n < 2)
    return n;
  return fib(n - 1) + fib(n - 2);
}

extern "C" __global__ void fib_kernel(const int *__restrict__ in, int *__restrict__ out, int n) {
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < n)
    out[g] = fib(in[g] & 15);
}
