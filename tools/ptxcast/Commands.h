// Each ptxcast subcommand registers itself on the root CLI::App through one of these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
class Validator;
} // namespace CLI

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

/// The names `--math` takes (corpus::MathMode: auto, then simt and the tensor-core modes) and
/// `--kernels` takes (corpus::KernelSet), for the commands that lower.
inline std::vector<std::string> mathChoices() { return {"auto", "simt", "tf32", "f16", "bf16"}; }
/// `lower` and `analyze` also take int8 (int8 tensor cores, with --dtype int8).
inline std::vector<std::string> lowerMathChoices() {
  return {"auto", "simt", "tf32", "f16", "bf16", "int8"};
}
inline std::vector<std::string> kernelSetChoices() { return {"library", "specialised"}; }

/// Adds --runtime and --math (pipeline::predictSettings reads them) to a command.
/// --runtime, --math and --host; with SeveralRuntimes, --runtime takes a comma-separated list.
void addRuntimeOptions(CLI::App &Cmd, std::string &Runtime, std::string &Math, std::string &Host,
                       bool SeveralRuntimes = false);

/// An integer option's check: an integer from Lo to Hi ("'abc' is not an integer", and
/// CLI::Range's words out of range).
CLI::Validator integerIn(int64_t Lo, int64_t Hi);

/// A number option's check: finite and above 0 (CLI::PositiveNumber passes "nan").
CLI::Validator finitePositive();

/// Adds --dtype: f32 or f16, also spelt fp32, float, float32 and fp16, half, float16.
void addDtypeOption(CLI::App &Cmd, std::string &Dtype);

/// Parses and runs `Argv` (Argv[0] is the program name) with every subcommand registered:
/// 0 on success, else the exit status; help goes to stdout, errors to stderr.
int runCommandLine(int Argc, const char *const *Argv);
} // namespace ptxcast
