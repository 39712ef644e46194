// One measurement session on one device: context (primary, or a green context of N SMs), stream,
// loaded PTX modules, device buffers and the hold kernel. Releases everything when destroyed.
#pragma once

#include "Driver.h"
#include "Manifest.h"
#include "Report.h"

#include <cstdint>
#include <string>
#include <vector>

namespace measure {

class Session {
public:
  explicit Session(const Driver &D) : Drv(D), Api(D.api()) {}
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  /// Makes a context current on device Ordinal (the primary context, or with Sms > 0 a green
  /// context restricted to Sms SMs), creates the stream and fills Info. Changes no device setting.
  MaybeError open(int Ordinal, uint32_t Sms, DeviceInfo &Info);

  /// Loads each PTX file with cuModuleLoadDataEx; on failure the JIT's error and info logs are
  /// part of the message.
  MaybeError loadPtx(const std::vector<std::string> &Files);

  /// The kernel Name from the first module that has it.
  Expected<CUfunction> findKernel(const std::string &Name) const;

  /// Registers, static shared and local bytes of F as the driver reports them.
  KernelFacts kernelFacts(CUfunction F) const;

  /// Allocates one device buffer per manifest buffer.
  MaybeError allocate(const Manifest &M);
  /// Copies Bytes[i] into buffer i of M (sizes must match the manifest); an empty Bytes[i]
  /// clears buffer i to zeros on the device instead.
  MaybeError upload(const Manifest &M, const std::vector<std::vector<uint8_t>> &Bytes);
  /// Copies buffer I back to the host.
  Expected<std::vector<uint8_t>> download(size_t I, uint64_t Bytes) const;
  CUdeviceptr address(size_t I) const { return Buffers[I]; }

  CUstream stream() const { return Stream; }

  /// Queues an overwrite of a scratch buffer of max(2 x L2 size, 8 MiB) bytes (allocated on
  /// first use), evicting the timed kernels' data from L2.
  MaybeError flushL2();

  /// Queues the hold kernel on the stream (loads it on first use).
  MaybeError hold();
  /// Lets a queued hold kernel finish.
  void release();
  /// True if the last hold kernel gave up waiting (read after synchronizing the stream).
  bool lastHoldTimedOut() const;

  MaybeError synchronize() const {
    return Drv.check(Api.cuStreamSynchronize(Stream), "synchronize");
  }

private:
  MaybeError openGreenContext(CUdevice Dev, uint32_t Sms, DeviceInfo &Info);
  MaybeError loadOne(const std::string &File, const std::string &Text);
  MaybeError prepareHold();

  const Driver &Drv;
  const DriverApi &Api;
  CUdevice Device = 0;
  bool PrimaryRetained = false;
  CUcontext Context = nullptr;
#if CUDA_VERSION >= 12040
  CUgreenCtx Green = nullptr;
#endif
  CUstream Stream = nullptr;
  std::vector<CUmodule> Modules;
  std::vector<std::string> ModuleFiles;
  std::vector<CUdeviceptr> Buffers;
  CUmodule HoldModule = nullptr;
  CUfunction HoldFunction = nullptr;
  volatile uint32_t *HoldFlag = nullptr; ///< host-mapped: [0] release, [1] timed out
  CUdeviceptr HoldFlagDevice = 0;
  CUdeviceptr FlushBuffer = 0;
  uint64_t FlushBytes = 0;
  uint64_t L2Bytes = 0; ///< from open()
  uint8_t FlushValue = 0;
};

} // namespace measure
