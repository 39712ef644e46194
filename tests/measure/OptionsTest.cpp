// Tests for ptxcast-measure's command-line parsing.
#include "Options.h"

#include <doctest/doctest.h>

using namespace measure;

namespace {

std::string optionsError(const std::vector<std::string> &Args) {
  auto O = parseOptions(Args);
  return O ? "" : O.error().str();
}

} // namespace

TEST_CASE("measure options: defaults and every flag") {
  auto D = parseOptions({"m.json", "-o", "t.csv"});
  REQUIRE(D);
  CHECK(D->manifest == "m.json");
  CHECK(D->output == "t.csv");
  CHECK(D->repeat == 20);
  CHECK(D->warmup == 5);
  CHECK(D->sms == 0);
  CHECK(D->device == 0);
  CHECK(D->hold);
  CHECK_FALSE(D->flushL2);
  CHECK(D->driverLib == "libcuda.so.1");
  auto O =
      parseOptions({"--repeat", "50", "--warmup", "0", "--sms", "16", "--device", "1", "--no-hold",
                    "--flush-l2", "--driver-lib", "/x/libcuda.so", "--output", "o.csv", "m.json"});
  REQUIRE(O);
  CHECK(O->repeat == 50);
  CHECK(O->warmup == 0);
  CHECK(O->sms == 16);
  CHECK(O->device == 1);
  CHECK_FALSE(O->hold);
  CHECK(O->flushL2);
  CHECK(O->driverLib == "/x/libcuda.so");
  CHECK(O->output == "o.csv");
  auto H = parseOptions({"--help"});
  REQUIRE(H);
  CHECK(H->help);
}

TEST_CASE("measure options: errors") {
  CHECK(optionsError({"m.json"}) ==
        "ptxcast-measure: error: no output file given: use -o TIMES.csv");
  CHECK(optionsError({"-o", "t.csv"}) == "ptxcast-measure: error: no manifest given (see --help)");
  CHECK(optionsError({"m.json", "-o", "t.csv", "--repeat", "0"}) ==
        "ptxcast-measure: error: --repeat needs an integer in [1, 1000000], got '0'");
  CHECK(optionsError({"m.json", "-o", "t.csv", "--sms", "8x"}) ==
        "ptxcast-measure: error: --sms needs an integer in [1, 1000000], got '8x'");
  CHECK(optionsError({"m.json", "-o"}) == "ptxcast-measure: error: -o needs a value");
  CHECK(optionsError({"m.json", "-o", "t.csv", "--fast"}) ==
        "ptxcast-measure: error: unknown option '--fast' (see --help)");
  CHECK(optionsError({"a.json", "b.json", "-o", "t.csv"}) ==
        "ptxcast-measure: error: unexpected argument 'b.json': give one manifest");
}
