// dlopen/dlsym loading of libcuda and plain-language messages for the ways it can be missing.
#include "Driver.h"

#include <dlfcn.h>

#include <cstring>

#define PTXCAST_STR_(x) #x
#define PTXCAST_STR(x) PTXCAST_STR_(x) // expands cuda.h's macros first: cuMemAlloc_v2

namespace measure {

namespace {

// Older drivers may lack a versioned symbol the header prefers; these fall back to an older
// symbol with the identical signature.
const char *fallbackSymbol(const char *Name) {
  if (std::strcmp(Name, "cuEventElapsedTime_v2") == 0)
    return "cuEventElapsedTime"; // _v2 (CUDA 12.8) only changed documentation-level semantics
  return nullptr;
}

template <class Fn> bool resolve(void *Handle, const char *Name, Fn &Out) {
  void *Sym = ::dlsym(Handle, Name);
  if (!Sym)
    if (const char *Old = fallbackSymbol(Name))
      Sym = ::dlsym(Handle, Old);
  Out = reinterpret_cast<Fn>(Sym);
  return Sym != nullptr;
}

} // namespace

Expected<std::unique_ptr<Driver>> Driver::load(const std::string &LibPath) {
  std::unique_ptr<Driver> D(new Driver());
  D->Path = LibPath;
  D->Handle = ::dlopen(LibPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!D->Handle) {
    const char *Why = ::dlerror();
    return Error("ptxcast-measure", 0, 0,
                 "no CUDA driver found (" + LibPath +
                     "): this tool needs an NVIDIA GPU and its driver [" +
                     (Why ? Why : "dlopen failed") + "]");
  }
  std::string Missing;
#define CU_REQUIRED(name)                                                                          \
  if (!resolve(D->Handle, PTXCAST_STR(name), D->Api.name))                                         \
    Missing += std::string(Missing.empty() ? "" : ", ") + PTXCAST_STR(name);
#define CU_OPTIONAL(name) resolve(D->Handle, PTXCAST_STR(name), D->Api.name);
#include "DriverFunctions.def"
  if (!Missing.empty())
    return Error("ptxcast-measure", 0, 0,
                 "the CUDA driver in " + LibPath + " is too old: it lacks " + Missing);
  return D;
}

Driver::~Driver() {
  if (Handle)
    ::dlclose(Handle);
}

std::string Driver::describe(CUresult R) const {
  const char *Name = nullptr, *Text = nullptr;
  if (Api.cuGetErrorName(R, &Name) != CUDA_SUCCESS || !Name)
    Name = nullptr;
  if (Api.cuGetErrorString(R, &Text) != CUDA_SUCCESS || !Text)
    Text = nullptr;
  std::string S = Name ? Name : "CUresult " + std::to_string(static_cast<int>(R));
  if (Text)
    S += std::string(" (") + Text + ")";
  return S;
}

MaybeError Driver::check(CUresult R, const std::string &What) const {
  if (R == CUDA_SUCCESS)
    return std::nullopt;
  return Error("ptxcast-measure", 0, 0, What + " failed: " + describe(R));
}

MaybeError Driver::initDevice(int Ordinal) const {
  auto Fail = [](const std::string &M) { return Error("ptxcast-measure", 0, 0, M); };
  CUresult R = Api.cuInit(0);
  if (R == CUDA_ERROR_STUB_LIBRARY)
    return Fail("no CUDA driver found (" + Path +
                " is the CUDA toolkit's stub library, not a driver): this tool needs an NVIDIA "
                "GPU and its driver");
  if (R == CUDA_ERROR_NO_DEVICE)
    return Fail("no CUDA device: the driver (" + Path + ") loaded but found no GPU");
  if (R == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH || R == CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    return Fail("the CUDA driver (" + Path +
                ") is too old for this device or toolkit: " + describe(R));
  if (R != CUDA_SUCCESS)
    return Fail("cuInit failed: " + describe(R));
  int Count = 0;
  if (auto S = check(Api.cuDeviceGetCount(&Count), "cuDeviceGetCount"))
    return S;
  if (Count == 0)
    return Fail("no CUDA device: the driver reports 0 devices");
  if (Ordinal >= Count)
    return Fail("no CUDA device " + std::to_string(Ordinal) + ": the driver reports " +
                std::to_string(Count) + " device(s)");
  return std::nullopt;
}

} // namespace measure
