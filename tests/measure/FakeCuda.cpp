// A CPU test double of libcuda for the mechanics of ptxcast-measure (SYNTHETIC: no GPU, no PTX
// execution). Buffers live in host memory; a launch advances a virtual clock by one microsecond
// per block, so event timings are known exactly; kernels are found by scanning the PTX for
// `.entry NAME(`. It also checks the hold protocol: waiting on a stream whose hold kernel was
// never released marks that hold as timed out, which the tool then reports.
#include <cuda.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

struct FakeFunction {
  std::string name;
  std::vector<size_t> paramSizes;
};
struct FakeModule {
  std::string ptx;
  std::map<std::string, std::unique_ptr<FakeFunction>> functions; ///< freed with the module
};
struct FakeGraph {
  double micros = 0;
};

// All state of the fake driver in one place (one process, one device, one stream in use).
struct FakeState {
  double clockMicros = 0;
  bool capturing = false;
  double captureMicros = 0;
  volatile uint32_t *pendingHold = nullptr;
  bool faulted = false;
};

FakeState &state() {
  static FakeState S; // a test double: process-wide state stands in for the driver's
  return S;
}

// Sizes of the `.param` declarations of entry Name in Ptx (0 if absent).
bool scanEntry(const std::string &Ptx, const std::string &Name, std::vector<size_t> &Sizes) {
  size_t At = Ptx.find(".entry " + Name + "(");
  if (At == std::string::npos)
    return false;
  size_t End = Ptx.find(')', At);
  std::string Params = Ptx.substr(At, End - At);
  for (size_t P = Params.find(".param"); P != std::string::npos; P = Params.find(".param", P + 6)) {
    size_t Type = Params.find('.', P + 6);
    if (Params.compare(Type, 7, ".align ") == 0) { // .param .align A .b8 name[N]: N bytes
      size_t Open = Params.find('[', Type);
      Sizes.push_back(std::stoul(Params.substr(Open + 1)));
      continue;
    }
    std::string Width = Params.substr(Type + 2, 2);
    Sizes.push_back(Width == "64" ? 8 : Width == "32" ? 4 : Width == "16" ? 2 : 1);
  }
  return true;
}

// Waiting on work: an unreleased hold would spin until its timeout on a real GPU.
CUresult drain() {
  FakeState &S = state();
  if (S.pendingHold) {
    if (S.pendingHold[0] == 0)
      S.pendingHold[1] = 1;
    S.pendingHold = nullptr;
  }
  return S.faulted ? CUDA_ERROR_ILLEGAL_ADDRESS : CUDA_SUCCESS;
}

} // namespace

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *V) { return *V = 12080, CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult R, const char **Str) {
  *Str = R == CUDA_ERROR_ILLEGAL_ADDRESS ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_FAKE";
  return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult, const char **Str) { return *Str = "fake", CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *N) { return *N = 1, CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *D, int Ordinal) {
  return Ordinal == 0 ? (*D = 0, CUDA_SUCCESS) : CUDA_ERROR_INVALID_DEVICE;
}
CUresult cuDeviceGetName(char *Name, int Len, CUdevice) {
  std::strncpy(Name, "ptxcast fake device", Len);
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int *V, CUdevice_attribute A, CUdevice) {
  *V = A == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT       ? 132
       : A == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9
       : A == CU_DEVICE_ATTRIBUTE_CLOCK_RATE               ? 1980000
       : A == CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE            ? (1 << 20)
                                                           : 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(size_t *B, CUdevice) { return *B = size_t(80) << 30, CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *C, CUdevice) {
  return *C = reinterpret_cast<CUcontext>(0x1), CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
CUresult cuCtxSynchronize() { return drain(); }
CUresult cuModuleLoadDataEx(CUmodule *M, const void *Image, unsigned int, CUjit_option *, void **) {
  *M = reinterpret_cast<CUmodule>(new FakeModule{static_cast<const char *>(Image), {}});
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule M) {
  delete reinterpret_cast<FakeModule *>(M);
  return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *F, CUmodule M, const char *Name) {
  auto *Module = reinterpret_cast<FakeModule *>(M);
  auto &Slot = Module->functions[Name];
  if (!Slot) {
    auto Fn = std::make_unique<FakeFunction>(FakeFunction{Name, {}});
    if (!scanEntry(Module->ptx, Name, Fn->paramSizes)) {
      Module->functions.erase(Name);
      return CUDA_ERROR_NOT_FOUND;
    }
    Slot = std::move(Fn);
  }
  *F = reinterpret_cast<CUfunction>(Slot.get());
  return CUDA_SUCCESS;
}
CUresult cuFuncGetAttribute(int *V, CUfunction_attribute A, CUfunction) {
  *V = A == CU_FUNC_ATTRIBUTE_NUM_REGS ? 10 : 0;
  return CUDA_SUCCESS;
}
CUresult cuFuncSetAttribute(CUfunction, CUfunction_attribute, int) { return CUDA_SUCCESS; }
CUresult cuFuncGetParamInfo(CUfunction F, size_t I, size_t *Offset, size_t *Size) {
  auto &Sizes = reinterpret_cast<FakeFunction *>(F)->paramSizes;
  if (I >= Sizes.size())
    return CUDA_ERROR_INVALID_VALUE;
  *Offset = 0;
  *Size = Sizes[I];
  return CUDA_SUCCESS;
}
// Fresh device memory holds garbage, as on a real GPU: the tool must clear zero-init buffers.
CUresult cuMemAlloc(CUdeviceptr *P, size_t Bytes) {
  void *Memory = std::malloc(Bytes ? Bytes : 1);
  std::memset(Memory, 0xA5, Bytes);
  *P = reinterpret_cast<CUdeviceptr>(Memory);
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr P) {
  std::free(reinterpret_cast<void *>(P));
  return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD(CUdeviceptr Dst, const void *Src, size_t Bytes) {
  std::memcpy(reinterpret_cast<void *>(Dst), Src, Bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH(void *Dst, CUdeviceptr Src, size_t Bytes) {
  std::memcpy(Dst, reinterpret_cast<void *>(Src), Bytes);
  return CUDA_SUCCESS;
}
// A flush costs a virtual millisecond: if it were inside an event pair, the times would show it.
CUresult cuMemsetD8Async(CUdeviceptr Dst, unsigned char Value, size_t Bytes, CUstream) {
  std::memset(reinterpret_cast<void *>(Dst), Value, Bytes);
  state().clockMicros += 1000;
  return CUDA_SUCCESS;
}
CUresult cuMemHostAlloc(void **P, size_t Bytes, unsigned int) {
  *P = std::calloc(Bytes, 1);
  return CUDA_SUCCESS;
}
CUresult cuMemFreeHost(void *P) {
  std::free(P);
  return CUDA_SUCCESS;
}
CUresult cuMemHostGetDevicePointer(CUdeviceptr *D, void *P, unsigned int) {
  *D = reinterpret_cast<CUdeviceptr>(P);
  return CUDA_SUCCESS;
}
CUresult cuStreamCreate(CUstream *S, unsigned int) {
  return *S = reinterpret_cast<CUstream>(0x2), CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream) { return drain(); }
CUresult cuStreamBeginCapture(CUstream, CUstreamCaptureMode) {
  state().capturing = true;
  state().captureMicros = 0;
  return CUDA_SUCCESS;
}
CUresult cuStreamEndCapture(CUstream, CUgraph *G) {
  state().capturing = false;
  *G = reinterpret_cast<CUgraph>(new FakeGraph{state().captureMicros});
  return CUDA_SUCCESS;
}
CUresult cuGraphInstantiate(CUgraphExec *E, CUgraph G, unsigned long long) {
  *E = reinterpret_cast<CUgraphExec>(new FakeGraph(*reinterpret_cast<FakeGraph *>(G)));
  return CUDA_SUCCESS;
}
CUresult cuGraphLaunch(CUgraphExec E, CUstream) {
  state().clockMicros += reinterpret_cast<FakeGraph *>(E)->micros;
  return CUDA_SUCCESS;
}
CUresult cuGraphExecDestroy(CUgraphExec E) {
  delete reinterpret_cast<FakeGraph *>(E);
  return CUDA_SUCCESS;
}
CUresult cuGraphDestroy(CUgraph G) {
  delete reinterpret_cast<FakeGraph *>(G);
  return CUDA_SUCCESS;
}
CUresult cuEventCreate(CUevent *E, unsigned int) {
  *E = reinterpret_cast<CUevent>(new double(0));
  return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent E, CUstream) {
  if (state().capturing)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  *reinterpret_cast<double *>(E) = state().clockMicros;
  return CUDA_SUCCESS;
}
CUresult cuEventSynchronize(CUevent) { return drain(); }
CUresult cuEventElapsedTime(float *Ms, CUevent Start, CUevent End) {
  *Ms = float((*reinterpret_cast<double *>(End) - *reinterpret_cast<double *>(Start)) / 1000.0);
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent E) {
  delete reinterpret_cast<double *>(E);
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction F, unsigned int Gx, unsigned int Gy, unsigned int Gz,
                        unsigned int, unsigned int, unsigned int, unsigned int, CUstream,
                        void **Params, void **) {
  FakeState &S = state();
  const std::string &Name = reinterpret_cast<FakeFunction *>(F)->name;
  if (Name == "ptxcast_hold") {
    CUdeviceptr Flag = *static_cast<CUdeviceptr *>(Params[0]);
    S.pendingHold = reinterpret_cast<volatile uint32_t *>(Flag);
    return CUDA_SUCCESS;
  }
  if (Name == "fake_fault")
    S.faulted = true; // like an illegal address: reported at the next synchronisation
  if (Name == "fake_struct") { // a 24-byte struct: its first 16 bytes to the pointer at 16
    const auto *P = static_cast<const uint8_t *>(Params[0]);
    CUdeviceptr To;
    std::memcpy(&To, P + 16, 8);
    std::memcpy(reinterpret_cast<void *>(To), P, 16);
  }
  double Micros = double(Gx) * Gy * Gz;
  (S.capturing ? S.captureMicros : S.clockMicros) += Micros;
  return CUDA_SUCCESS;
}

// Green contexts: 132 SMs; the split grants a multiple of 2 SMs (8 without the flag).
CUresult cuDeviceGetDevResource(CUdevice, CUdevResource *R, CUdevResourceType) {
  R->type = CU_DEV_RESOURCE_TYPE_SM;
  R->sm.smCount = 132;
  return CUDA_SUCCESS;
}
CUresult cuDevSmResourceSplitByCount(CUdevResource *Result, unsigned int *Groups,
                                     const CUdevResource *, CUdevResource *, unsigned int Flags,
                                     unsigned int MinCount) {
  unsigned Align = Flags & 1 ? 2 : 8;
  *Result = CUdevResource{};
  Result->type = CU_DEV_RESOURCE_TYPE_SM;
  Result->sm.smCount = (MinCount + Align - 1) / Align * Align;
  *Groups = 1;
  return CUDA_SUCCESS;
}
CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *D, CUdevResource *, unsigned int) {
  return *D = reinterpret_cast<CUdevResourceDesc>(0x3), CUDA_SUCCESS;
}
CUresult cuGreenCtxCreate(CUgreenCtx *G, CUdevResourceDesc, CUdevice, unsigned int) {
  return *G = reinterpret_cast<CUgreenCtx>(0x4), CUDA_SUCCESS;
}
CUresult cuGreenCtxDestroy(CUgreenCtx) { return CUDA_SUCCESS; }
CUresult cuCtxFromGreenCtx(CUcontext *C, CUgreenCtx) {
  return *C = reinterpret_cast<CUcontext>(0x5), CUDA_SUCCESS;
}
CUresult cuGreenCtxStreamCreate(CUstream *S, CUgreenCtx, unsigned int, int) {
  return *S = reinterpret_cast<CUstream>(0x6), CUDA_SUCCESS;
}
