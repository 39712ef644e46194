// ptxcast: predict CNN runtime on NVIDIA GPUs from PTX analysis. Subcommands live in one file each.
#include "Commands.h"

#include <CLI/CLI.hpp>

int main(int argc, char **argv) {
  CLI::App App{"ptxcast: predict how long a CNN takes on an NVIDIA GPU without running it there"};
  App.require_subcommand(1);
  // In pipeline order: corpus, ptx, analyzer, learners; then the GPU catalog.
  ptxcast::addZooCommand(App);
  ptxcast::addLowerCommand(App);
  ptxcast::addInspectCommand(App);
  ptxcast::addRunCommand(App);
  ptxcast::addAnalyzeCommand(App);
  ptxcast::addTrainCommand(App);
  ptxcast::addEvaluateCommand(App);
  ptxcast::addDatasetCommand(App);
  ptxcast::addPredictCommand(App);
  ptxcast::addCompareCommand(App);
  ptxcast::addGpusCommand(App);
  CLI11_PARSE(App, argc, argv);
  return 0;
}
