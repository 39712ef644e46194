// ptxcast-measure: times a launch manifest's kernels on a real NVIDIA GPU (CUDA driver API).
#include "Csv.h"
#include "Driver.h"
#include "Manifest.h"
#include "Options.h"
#include "Report.h"
#include "Runner.h"

#include <cstdio>
#include <iostream>

namespace {

int fail(const measure::Error &E) {
  std::cerr << E.str() << "\n";
  return 1;
}

int run(const measure::Options &O) {
  using namespace measure;
  auto M = loadManifest(O.manifest, ManifestOptions{O.allowOutsidePaths});
  if (!M)
    return fail(M.error());
  for (const std::string &W : M->warnings)
    std::cerr << W << "\n";
  // Zero-filled buffers (a network's activations: most of the bytes) stay empty here and are
  // cleared on the device, so a large batch needs no host copy of them.
  std::vector<std::vector<uint8_t>> Initial;
  for (const Buffer &B : M->buffers) {
    if (B.init.kind == InitKind::Zero) {
      Initial.emplace_back();
      continue;
    }
    auto Bytes = makeInitialBytes(B);
    if (!Bytes)
      return fail(Bytes.error());
    Initial.push_back(std::move(*Bytes));
  }
  auto D = Driver::load(O.driverLib);
  if (!D)
    return fail(D.error());
  if (auto S = (*D)->initDevice(O.device))
    return fail(*S);
  RunSettings Set{O.device, O.sms, O.repeat, O.warmup, O.hold, O.flushL2};
  auto R = runMeasurement(**D, *M, Initial, Set);
  if (!R)
    return fail(R.error());
  for (const std::string &N : R->notes)
    std::cerr << "ptxcast-measure: note: " << N << "\n";
  if (auto W = writeFileAtomic(O.output, buildTable(*M, *R).render()))
    return fail(*W);
  std::fprintf(stderr,
               "ptxcast-measure: %zu launches on %s (%d SMs): workload median %.4f ms, graph "
               "median %.4f ms -> %s\n",
               M->launches.size(), R->device.name.c_str(), R->device.smsUsed, R->workload.median,
               R->graph.median, O.output.c_str());
  return 0;
}

} // namespace

int main(int Argc, char **Argv) {
  std::vector<std::string> Args(Argv + 1, Argv + Argc);
  auto O = measure::parseOptions(Args);
  if (!O) {
    std::cerr << O.error().str() << "\n";
    return 2;
  }
  if (O->help) {
    std::cout << measure::usageText();
    return 0;
  }
  if (O->version) {
    std::cout << "ptxcast-measure 0.1.0 (built with CUDA " << CUDA_VERSION / 1000 << "."
              << (CUDA_VERSION % 1000) / 10 << " headers)\n";
    return 0;
  }
  return run(*O);
}
