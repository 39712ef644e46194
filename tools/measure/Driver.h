// The CUDA driver API loaded at run time (dlopen libcuda.so.1 + dlsym), so ptxcast-measure starts
// on machines without a driver and says so instead of failing to load.
#pragma once

#include "Error.h"

#include <cuda.h>

#include <memory>
#include <string>

namespace measure {

/// Function pointers for every entry point in DriverFunctions.def (member names follow cuda.h's
/// macros, so `Api.cuMemAlloc(...)` calls cuMemAlloc_v2 as a linked program would).
struct DriverApi {
#define CU_REQUIRED(name) decltype(&::name) name = nullptr;
#define CU_OPTIONAL(name) decltype(&::name) name = nullptr;
#include "DriverFunctions.def"
};

/// An open driver library. Not copyable; closes the library when destroyed.
class Driver {
public:
  /// Loads LibPath (normally "libcuda.so.1") and resolves the entry points. Fails with
  /// `no CUDA driver found (LIB): this tool needs an NVIDIA GPU` when the library is missing.
  static Expected<std::unique_ptr<Driver>> load(const std::string &LibPath);

  /// cuInit(0) and a check that device Ordinal exists; names a missing device, a stub library
  /// or a driver too old in plain words.
  MaybeError initDevice(int Ordinal) const;

  /// Ok for CUDA_SUCCESS, else `What failed: CUDA_ERROR_NAME (description)`.
  MaybeError check(CUresult R, const std::string &What) const;

  /// `CUDA_ERROR_NAME (description)` for R.
  std::string describe(CUresult R) const;

  const DriverApi &api() const { return Api; }
  const std::string &libraryPath() const { return Path; }

  Driver(const Driver &) = delete;
  Driver &operator=(const Driver &) = delete;
  ~Driver();

private:
  Driver() = default;
  void *Handle = nullptr;
  std::string Path;
  DriverApi Api;
};

} // namespace measure
