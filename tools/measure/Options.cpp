// Hand-written argument parsing for ptxcast-measure (the tool must build with the C++ library
// only).
#include "Options.h"

#include <charconv>

namespace measure {

namespace {

Error optionError(const std::string &Message) { return Error("ptxcast-measure", 0, 0, Message); }

Expected<uint32_t> parseCount(const std::string &Flag, const std::string &Text, uint32_t Min,
                              uint32_t Max) {
  uint32_t V = 0;
  auto [End, Ec] = std::from_chars(Text.data(), Text.data() + Text.size(), V);
  if (Text.empty() || Ec != std::errc() || End != Text.data() + Text.size() || V < Min || V > Max)
    return optionError(Flag + " needs an integer in [" + std::to_string(Min) + ", " +
                       std::to_string(Max) + "], got '" + Text + "'");
  return V;
}

/// Sets the field of a flag that takes no value; false when A is not one.
bool setFlag(Options &O, const std::string &A) {
  if (A == "-h" || A == "--help")
    O.help = true;
  else if (A == "--version")
    O.version = true;
  else if (A == "--no-hold")
    O.hold = false;
  else if (A == "--flush-l2")
    O.flushL2 = true;
  else if (A == "--allow-outside-paths")
    O.allowOutsidePaths = true;
  else
    return false;
  return true;
}

} // namespace

std::string usageText() {
  return "usage: ptxcast-measure MANIFEST.json -o TIMES.csv [options]\n"
         "\n"
         "Times every kernel launch of a ptxcast launch manifest on a real NVIDIA GPU through\n"
         "the CUDA driver API (CUDA events), and the whole workload end to end, also replayed\n"
         "as a CUDA graph. Never changes device settings. See docs/measure.md.\n"
         "\n"
         "options:\n"
         "  -o, --output FILE   CSV to write (atomically)\n"
         "  --repeat N          timed repetitions (default 20)\n"
         "  --warmup N          untimed warm-up runs before timing (default 5)\n"
         "  --sms N             run in a green context restricted to N SMs (CUDA 12.4+)\n"
         "  --device N          CUDA device ordinal (default 0)\n"
         "  --no-hold           do not queue timed work behind a spin kernel\n"
         "  --flush-l2          overwrite a buffer of twice the L2 size before every timed\n"
         "                      run (cold-cache times; default: warm)\n"
         "  --driver-lib PATH   driver library to load (default libcuda.so.1)\n"
         "  --allow-outside-paths\n"
         "                      accept manifest paths outside the manifest's folder (absolute,\n"
         "                      or leaving it with '..'); refused by default\n"
         "  -h, --help          this text\n"
         "  --version           print the version\n";
}

Expected<Options> parseOptions(const std::vector<std::string> &Args) {
  Options O;
  for (size_t I = 0; I < Args.size(); ++I) {
    const std::string &A = Args[I];
    auto Value = [&]() -> Expected<std::string> {
      if (I + 1 >= Args.size())
        return optionError(A + " needs a value");
      return Args[++I];
    };
    if (setFlag(O, A)) {
      continue;
    } else if (A == "-o" || A == "--output" || A == "--driver-lib") {
      auto V = Value();
      if (!V)
        return V.error();
      (A == "--driver-lib" ? O.driverLib : O.output) = *V;
    } else if (A == "--repeat" || A == "--warmup" || A == "--sms" || A == "--device") {
      auto V = Value();
      if (!V)
        return V.error();
      uint32_t Min = A == "--repeat" || A == "--sms" ? 1 : 0;
      uint32_t Max = A == "--device" ? 1023 : 1000000;
      auto N = parseCount(A, *V, Min, Max);
      if (!N)
        return N.error();
      if (A == "--repeat")
        O.repeat = *N;
      else if (A == "--warmup")
        O.warmup = *N;
      else if (A == "--sms")
        O.sms = *N;
      else
        O.device = static_cast<int>(*N);
    } else if (!A.empty() && A[0] == '-') {
      return optionError("unknown option '" + A + "' (see --help)");
    } else if (O.manifest.empty()) {
      O.manifest = A;
    } else {
      return optionError("unexpected argument '" + A + "': give one manifest");
    }
  }
  if (O.help || O.version)
    return O;
  if (O.manifest.empty())
    return optionError("no manifest given (see --help)");
  if (O.output.empty())
    return optionError("no output file given: use -o TIMES.csv");
  return O;
}

} // namespace measure
