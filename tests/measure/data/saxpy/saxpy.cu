// The smoke-test kernel for ptxcast-measure's first run on a GPU: y = a * x + y over n elements.
// saxpy.ptx beside it is `nvcc -ptx -arch=sm_75 -O3 saxpy.cu` (CUDA 13.0) with `.version 9.0`
// lowered to `.version 7.0` (every instruction in it exists since PTX 2.0), so drivers from CUDA
// 11.0 on can JIT it. Committed, so a GPU box needs nothing but the driver to run manifest.json.
// expected_y.bin: y after the launch, from a CPU reference (tests/measure/SmokeDataTest.cpp).
extern "C" __global__ void saxpy(unsigned n, float a, const float *x, float *y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
