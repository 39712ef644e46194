// Device-side resources of a measurement: contexts (primary or green), modules, buffers, hold
// kernel.
#include "Session.h"

#include "HoldKernel.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>

// Returns the error of a failed driver call from the enclosing function.
#define PTXCAST_CU_TRY(call, what)                                                                 \
  if (auto S_ = Drv.check((call), (what)))                                                         \
  return *S_

namespace measure {

namespace {

// Hold kernels give up after this long, so a full launch queue can never deadlock the tool.
constexpr uint64_t HoldTimeoutNs = 1'000'000'000;

Error sessionError(const std::string &Message) { return Error("ptxcast-measure", 0, 0, Message); }

} // namespace

Session::~Session() {
  if (Context)
    Api.cuCtxSetCurrent(Context);
  if (Stream) {
    Api.cuStreamSynchronize(Stream);
    Api.cuStreamDestroy(Stream);
  }
  for (CUmodule M : Modules)
    Api.cuModuleUnload(M);
  if (HoldModule)
    Api.cuModuleUnload(HoldModule);
  for (CUdeviceptr P : Buffers)
    Api.cuMemFree(P);
  if (FlushBuffer)
    Api.cuMemFree(FlushBuffer);
  if (HoldFlag)
    Api.cuMemFreeHost(const_cast<uint32_t *>(HoldFlag));
#if CUDA_VERSION >= 12040
  if (Green) {
    Api.cuCtxSetCurrent(nullptr);
    Api.cuGreenCtxDestroy(Green);
  }
#endif
  if (PrimaryRetained) {
    Api.cuCtxSetCurrent(nullptr);
    Api.cuDevicePrimaryCtxRelease(Device);
  }
}

MaybeError Session::open(int Ordinal, uint32_t Sms, DeviceInfo &Info) {
  PTXCAST_CU_TRY(Api.cuDeviceGet(&Device, Ordinal), "cuDeviceGet");
  PTXCAST_CU_TRY(Api.cuDevicePrimaryCtxRetain(&Context, Device), "cuDevicePrimaryCtxRetain");
  PrimaryRetained = true;
  PTXCAST_CU_TRY(Api.cuCtxSetCurrent(Context), "cuCtxSetCurrent");

  char Name[256] = {};
  PTXCAST_CU_TRY(Api.cuDeviceGetName(Name, sizeof(Name) - 1, Device), "cuDeviceGetName");
  Info.name = Name;
  Info.ordinal = Ordinal;
  const std::pair<CUdevice_attribute, int *> Attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &Info.ccMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &Info.ccMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &Info.smCount},
      {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &Info.clockRateKhz},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &Info.memoryClockRateKhz},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &Info.memoryBusWidthBits},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &Info.l2CacheBytes}};
  for (auto [Attr, Out] : Attrs)
    PTXCAST_CU_TRY(Api.cuDeviceGetAttribute(Out, Attr, Device), "cuDeviceGetAttribute");
  size_t Total = 0;
  PTXCAST_CU_TRY(Api.cuDeviceTotalMem(&Total, Device), "cuDeviceTotalMem");
  Info.totalMemoryBytes = Total;
  L2Bytes = static_cast<uint64_t>(std::max(Info.l2CacheBytes, 0));
  PTXCAST_CU_TRY(Api.cuDriverGetVersion(&Info.driverVersion), "cuDriverGetVersion");
  Info.cudaHeaderVersion = CUDA_VERSION;
  Info.smsRequested = static_cast<int>(Sms);
  Info.smsUsed = Info.smCount;

  if (Sms > 0)
    return openGreenContext(Device, Sms, Info);
  PTXCAST_CU_TRY(Api.cuStreamCreate(&Stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return std::nullopt;
}

// Green context of Sms SMs: resource query, split, descriptor, context, stream (CUDA 12.4+).
MaybeError Session::openGreenContext(CUdevice Dev, uint32_t Sms, DeviceInfo &Info) {
#if CUDA_VERSION >= 12040
  if (!Api.cuDeviceGetDevResource || !Api.cuDevSmResourceSplitByCount ||
      !Api.cuDevResourceGenerateDesc || !Api.cuGreenCtxCreate || !Api.cuCtxFromGreenCtx ||
      !Api.cuGreenCtxStreamCreate || !Api.cuGreenCtxDestroy)
    return sessionError("--sms needs green contexts (CUDA driver 12.4 or newer); this driver is " +
                        cudaVersionString(Info.driverVersion));
  CUdevResource All{};
  PTXCAST_CU_TRY(Api.cuDeviceGetDevResource(Dev, &All, CU_DEV_RESOURCE_TYPE_SM),
                 "cuDeviceGetDevResource");
  if (Sms > All.sm.smCount)
    return sessionError("--sms " + std::to_string(Sms) + " exceeds the " +
                        std::to_string(All.sm.smCount) + " SMs of the device");
  CUdevResource Part = All;
  if (Sms < All.sm.smCount) {
    // Ask for SMs without co-scheduling constraints first (finer granularity; our kernels use
    // no clusters); older drivers that reject the flag get the default split.
    const unsigned IgnoreCoscheduling = 0x1; // CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING
    unsigned Groups = 1;
    CUresult R =
        Api.cuDevSmResourceSplitByCount(&Part, &Groups, &All, nullptr, IgnoreCoscheduling, Sms);
    if (R != CUDA_SUCCESS || Groups == 0) {
      Groups = 1;
      R = Api.cuDevSmResourceSplitByCount(&Part, &Groups, &All, nullptr, 0, Sms);
    }
    PTXCAST_CU_TRY(R, "cuDevSmResourceSplitByCount");
    if (Groups == 0)
      return sessionError("cannot split " + std::to_string(Sms) + " SMs off the device");
  }
  Info.smsUsed = static_cast<int>(Part.sm.smCount);
  CUdevResourceDesc Desc = nullptr;
  PTXCAST_CU_TRY(Api.cuDevResourceGenerateDesc(&Desc, &Part, 1), "cuDevResourceGenerateDesc");
  PTXCAST_CU_TRY(Api.cuGreenCtxCreate(&Green, Desc, Dev, CU_GREEN_CTX_DEFAULT_STREAM),
                 "cuGreenCtxCreate");
  PTXCAST_CU_TRY(Api.cuCtxFromGreenCtx(&Context, Green), "cuCtxFromGreenCtx");
  PTXCAST_CU_TRY(Api.cuCtxSetCurrent(Context), "cuCtxSetCurrent (green context)");
  PTXCAST_CU_TRY(Api.cuGreenCtxStreamCreate(&Stream, Green, CU_STREAM_NON_BLOCKING, 0),
                 "cuGreenCtxStreamCreate");
  return std::nullopt;
#else
  (void)Dev;
  (void)Info;
  return sessionError("--sms " + std::to_string(Sms) +
                      " needs green contexts: rebuild with CUDA 12.4 or newer headers");
#endif
}

MaybeError Session::loadOne(const std::string &File, const std::string &Text) {
  std::string InfoLog(1 << 16, '\0'), ErrorLog(1 << 16, '\0');
  CUjit_option Options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_LOG_VERBOSE};
  void *Values[] = {InfoLog.data(), reinterpret_cast<void *>(uintptr_t(InfoLog.size())),
                    ErrorLog.data(), reinterpret_cast<void *>(uintptr_t(ErrorLog.size())),
                    reinterpret_cast<void *>(uintptr_t(1))};
  CUmodule M = nullptr;
  CUresult R = Api.cuModuleLoadDataEx(&M, Text.c_str(), 5, Options, Values);
  if (R != CUDA_SUCCESS) {
    std::string Message = "cannot load the PTX: cuModuleLoadDataEx failed: " + Drv.describe(R);
    if (ErrorLog[0])
      Message += "\nJIT error log:\n" + std::string(ErrorLog.c_str());
    if (InfoLog[0])
      Message += "\nJIT info log:\n" + std::string(InfoLog.c_str());
    return Error(File, 0, 0, Message);
  }
  if (File == HoldKernelName) {
    HoldModule = M;
  } else {
    Modules.push_back(M);
    ModuleFiles.push_back(File);
  }
  return std::nullopt;
}

MaybeError Session::loadPtx(const std::vector<std::string> &Files) {
  for (const std::string &File : Files) {
    std::ifstream In(File, std::ios::binary);
    if (!In)
      return Error(File, 0, 0, "cannot read the PTX file");
    std::stringstream Ss;
    Ss << In.rdbuf();
    if (auto S = loadOne(File, Ss.str()))
      return S;
  }
  return std::nullopt;
}

Expected<CUfunction> Session::findKernel(const std::string &Name) const {
  for (CUmodule M : Modules) {
    CUfunction F = nullptr;
    CUresult R = Api.cuModuleGetFunction(&F, M, Name.c_str());
    if (R == CUDA_SUCCESS)
      return F;
    if (R != CUDA_ERROR_NOT_FOUND)
      return sessionError("cuModuleGetFunction('" + Name + "') failed: " + Drv.describe(R));
  }
  std::string List;
  for (const std::string &F : ModuleFiles)
    List += (List.empty() ? "" : ", ") + F;
  return sessionError("kernel '" + Name + "' is in none of the PTX files (" + List + ")");
}

KernelFacts Session::kernelFacts(CUfunction F) const {
  KernelFacts K;
  const std::pair<CUfunction_attribute, int *> Attrs[] = {
      {CU_FUNC_ATTRIBUTE_NUM_REGS, &K.registers},
      {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &K.staticSharedBytes},
      {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &K.localBytes}};
  for (auto [Attr, Out] : Attrs)
    if (Api.cuFuncGetAttribute(Out, Attr, F) != CUDA_SUCCESS)
      *Out = -1;
  return K;
}

MaybeError Session::allocate(const Manifest &M) {
  for (const Buffer &B : M.buffers) {
    CUdeviceptr P = 0;
    PTXCAST_CU_TRY(Api.cuMemAlloc(&P, B.bytes),
                   "cuMemAlloc of buffer '" + B.name + "' (" + std::to_string(B.bytes) + " bytes)");
    Buffers.push_back(P);
  }
  return std::nullopt;
}

MaybeError Session::upload(const Manifest &M, const std::vector<std::vector<uint8_t>> &Bytes) {
  for (size_t I = 0; I < Bytes.size(); ++I) {
    if (Bytes[I].empty()) {
      PTXCAST_CU_TRY(Api.cuMemsetD8Async(Buffers[I], 0, M.buffers[I].bytes, Stream),
                     "cuMemsetD8Async (zero fill)");
    } else {
      PTXCAST_CU_TRY(Api.cuMemcpyHtoD(Buffers[I], Bytes[I].data(), Bytes[I].size()),
                     "cuMemcpyHtoD");
    }
  }
  PTXCAST_CU_TRY(Api.cuCtxSynchronize(), "cuCtxSynchronize after the upload");
  return std::nullopt;
}

Expected<std::vector<uint8_t>> Session::download(size_t I, uint64_t Bytes) const {
  std::vector<uint8_t> Out(Bytes);
  PTXCAST_CU_TRY(Api.cuStreamSynchronize(Stream), "synchronize before a download");
  PTXCAST_CU_TRY(Api.cuMemcpyDtoH(Out.data(), Buffers[I], Bytes), "cuMemcpyDtoH");
  return Out;
}

MaybeError Session::flushL2() {
  if (!FlushBuffer) {
    FlushBytes = std::max<uint64_t>(2 * L2Bytes, uint64_t(8) << 20);
    PTXCAST_CU_TRY(Api.cuMemAlloc(&FlushBuffer, FlushBytes), "cuMemAlloc of the L2 flush buffer");
  }
  // A different byte each time, so no layer of the memory system can skip the writes.
  PTXCAST_CU_TRY(Api.cuMemsetD8Async(FlushBuffer, ++FlushValue, FlushBytes, Stream),
                 "cuMemsetD8Async (L2 flush)");
  return std::nullopt;
}

MaybeError Session::prepareHold() {
  if (auto S = loadOne(HoldKernelName, holdKernelPtx()))
    return S;
  PTXCAST_CU_TRY(Api.cuModuleGetFunction(&HoldFunction, HoldModule, HoldKernelName),
                 "cuModuleGetFunction(ptxcast_hold)");
  void *Host = nullptr;
  PTXCAST_CU_TRY(Api.cuMemHostAlloc(&Host, 64, CU_MEMHOSTALLOC_DEVICEMAP), "cuMemHostAlloc");
  HoldFlag = static_cast<volatile uint32_t *>(Host);
  PTXCAST_CU_TRY(Api.cuMemHostGetDevicePointer(&HoldFlagDevice, Host, 0),
                 "cuMemHostGetDevicePointer");
  return std::nullopt;
}

MaybeError Session::hold() {
  if (!HoldFunction)
    if (auto S = prepareHold())
      return S;
  HoldFlag[0] = 0;
  HoldFlag[1] = 0;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  CUdeviceptr FlagArg = HoldFlagDevice;
  uint64_t TimeoutArg = HoldTimeoutNs;
  void *Params[] = {&FlagArg, &TimeoutArg};
  PTXCAST_CU_TRY(Api.cuLaunchKernel(HoldFunction, 1, 1, 1, 1, 1, 1, 0, Stream, Params, nullptr),
                 "cuLaunchKernel(ptxcast_hold)");
  return std::nullopt;
}

void Session::release() {
  if (!HoldFlag)
    return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  HoldFlag[0] = 1;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool Session::lastHoldTimedOut() const { return HoldFlag && HoldFlag[1] != 0; }

} // namespace measure
