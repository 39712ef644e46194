// Each ptxcast subcommand registers itself on the root CLI::App through one of these.
#pragma once

namespace CLI {
class App;
}

namespace ptxcast {
void addInspectCommand(CLI::App &App);
void addRunCommand(CLI::App &App);
void addAnalyzeCommand(CLI::App &App);
void addZooCommand(CLI::App &App);
void addLowerCommand(CLI::App &App);
void addTrainCommand(CLI::App &App);
void addEvaluateCommand(CLI::App &App);
void addDatasetCommand(CLI::App &App);
void addPredictCommand(CLI::App &App);
void addCompareCommand(CLI::App &App);
void addGpusCommand(CLI::App &App);
} // namespace ptxcast
