// The ptxcast command line as a function (Commands.h): the executable's main and the Python
// module's `python3 -m ptxcast` run the same parser.
#include "Commands.h"

#include <CLI/CLI.hpp>

namespace ptxcast {

int runCommandLine(int Argc, const char *const *Argv) {
  CLI::App App{"ptxcast: predict how long a CNN takes on an NVIDIA GPU without running it there"};
  App.require_subcommand(1);
  // In pipeline order: corpus, ptx, analyzer, learners; then the GPU catalog.
  addZooCommand(App);
  addLowerCommand(App);
  addInspectCommand(App);
  addRunCommand(App);
  addAnalyzeCommand(App);
  addTrainCommand(App);
  addEvaluateCommand(App);
  addDatasetCommand(App);
  addPredictCommand(App);
  addCompareCommand(App);
  addGpusCommand(App);
  try {
    App.parse(Argc, Argv);
  } catch (const CLI::ParseError &E) {
    return App.exit(E);
  }
  return 0;
}

} // namespace ptxcast
