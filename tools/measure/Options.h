// Command-line options of ptxcast-measure, parsed without third-party libraries.
#pragma once

#include "Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace measure {

/// Settings of one ptxcast-measure run (defaults are the documented ones).
struct Options {
  std::string manifest;
  std::string output;                     ///< -o: the CSV to write
  uint32_t repeat = 20;                   ///< timed repetitions per launch / workload / graph
  uint32_t warmup = 5;                    ///< untimed runs before the timed ones
  uint32_t sms = 0;                       ///< 0: all SMs; N: a green context of N SMs
  int device = 0;                         ///< CUDA device ordinal
  bool hold = true;                       ///< queue timed work behind a spin kernel (see docs)
  bool flushL2 = false;                   ///< overwrite a 2 x L2 buffer before each timed run
  std::string driverLib = "libcuda.so.1"; ///< the driver library to dlopen
  bool allowOutsidePaths = false;         ///< manifest paths may leave the manifest's folder
  bool help = false;
  bool version = false;
};

/// The usage text printed by --help.
std::string usageText();

/// Parses Args (without argv[0]). Errors read `ptxcast-measure: error: ...`.
Expected<Options> parseOptions(const std::vector<std::string> &Args);

} // namespace measure
