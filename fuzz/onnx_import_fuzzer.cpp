// libFuzzer target: import any bytes as an ONNX model, as `ptxcast zoo FILE.onnx` does; a model
// that imports is then lowered at batch 1 with `ptxcast lower`'s defaults (auto math, the kernel
// library, sm_90), planning kernels and launches without emitting PTX. Either step may return an
// error; a crash, a sanitizer report, a leak or a timeout is a defect.
#include "corpus/Lower.h"
#include "corpus/Onnx.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Bytes(reinterpret_cast<const char *>(Data), Size);
  support::Expected<corpus::Network> Net = corpus::importOnnx(Bytes, "fuzz.onnx");
  if (!Net)
    return 0;
  corpus::LowerOptions Options;
  Options.math = corpus::MathMode::Auto;
  Options.kernels = corpus::KernelSet::Library;
  Options.emitPtx = false;
  Options.threads = 1;
  support::Expected<corpus::Workload> W = corpus::lower(*Net, Options);
  (void)W; // a value or an error; both are fine
  return 0;
}
