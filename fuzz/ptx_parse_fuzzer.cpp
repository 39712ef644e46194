// libFuzzer target: parse any bytes as PTX; whatever parses must print to text that parses back
// to an equal module and prints identically again. Any other outcome aborts.
#include "ptx/Parser.h"
#include "ptx/Printer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string_view Text(reinterpret_cast<const char *>(Data), Size);
  support::Expected<ptx::Module> M = ptx::parseModule(Text, "fuzz.ptx");
  if (!M)
    return 0;
  std::string Printed = ptx::print(*M);
  support::Expected<ptx::Module> Back = ptx::parseModule(Printed, "printed.ptx");
  if (!Back) {
    std::fprintf(stderr, "printed text does not parse: %s\n--- printed:\n%s\n",
                 Back.error().str().c_str(), Printed.c_str());
    std::abort();
  }
  if (!(*Back == *M)) {
    std::fprintf(stderr, "round trip changed the module\n--- printed:\n%s\n", Printed.c_str());
    std::abort();
  }
  if (ptx::print(*Back) != Printed) {
    std::fprintf(stderr, "printing is not a fixed point\n--- printed:\n%s\n", Printed.c_str());
    std::abort();
  }
  return 0;
}
