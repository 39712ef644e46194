// The ptxcast command line as a function (Commands.h): the executable's main runs it, and the
// Python package's `python3 -m ptxcast` runs the executable.
#include "Commands.h"

#include <CLI/CLI.hpp>

namespace ptxcast {

void addRuntimeOptions(CLI::App &Cmd, std::string &Runtime, std::string &Math, std::string &Host) {
  Cmd.add_option("--runtime", Runtime,
                 "graph: the GPU's own time (CUDA-graph replay); eager: eager PyTorch, whose "
                 "host launch overhead can exceed the GPU time")
      ->check(CLI::IsMember({"graph", "eager"}))
      ->capture_default_str();
  Cmd.add_option("--math", Math,
                 "math mode of convolutions and GEMMs: simt, tf32, f16, bf16 (default: what "
                 "PyTorch does: tf32 for f32 on sm_80+, f16 for f16 on sm_70+, else simt)")
      ->check(CLI::IsMember({"simt", "tf32", "f16", "bf16"}));
  Cmd.add_option("--host", Host,
                 "the CPU that launches the kernels, for --runtime eager: x86-server, x86-desktop, "
                 "grace, jetson-agx-orin, ... (`ptxcast gpus --hosts`; default: the GPU's own)");
}

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
