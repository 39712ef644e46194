// The ptxcast command line as a function (Commands.h): the executable's main runs it, and the
// Python package's `python3 -m ptxcast` runs the executable.
#include "Commands.h"

#include "corpus/Network.h"
#include "pipeline/Documents.h"
#include "support/Closest.h"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace ptxcast {

void addRuntimeOptions(CLI::App &Cmd, std::string &Runtime, std::string &Math, std::string &Host,
                       bool SeveralRuntimes) {
  Cmd.add_option("--runtime", Runtime,
                 std::string("graph: the GPU's own time (CUDA-graph replay); eager: eager PyTorch, "
                             "whose host launch overhead can exceed the GPU time; tensorrt: an "
                             "inference engine (experimental; pure fp16 under --dtype f16); "
                             "compile: torch.compile's default mode (inductor, no CUDA graphs)") +
                     (SeveralRuntimes ? "; several, comma-separated, side by side" : ""))
      ->check(CLI::Validator(
          [SeveralRuntimes](std::string &Text) -> std::string {
            const std::vector<std::string> Names = pipeline::splitRuntimes(Text);
            if (Names.size() > 1 && !SeveralRuntimes)
              return "one runtime, not a list: " + Text;
            for (const std::string &N : Names)
              if (!pipeline::parseRuntime(N)) // CLI11's words, which Python's checks repeat
                return N + " not in {" + pipeline::runtimeNames(",") + "}";
            return "";
          },
          SeveralRuntimes ? "RUNTIME[,RUNTIME...]" : "RUNTIME"))
      ->capture_default_str();
  Cmd.add_option("--math", Math,
                 "math mode of convolutions and GEMMs: simt, tf32, f16, bf16 (default: what "
                 "PyTorch does: tf32 for f32 on sm_80+, f16 for f16 on sm_70+, else simt)")
      ->check(CLI::IsMember({"simt", "tf32", "f16", "bf16"}));
  Cmd.add_option(
      "--host", Host,
      "the CPU that launches the kernels, for --runtime eager, compile or tensorrt: x86-server, "
      "x86-desktop, grace, jetson-agx-orin, ... (`ptxcast gpus --hosts`; default: the GPU's own)");
}

CLI::Validator integerIn(int64_t Lo, int64_t Hi) {
  return CLI::Validator(
      [Lo, Hi](std::string &Text) -> std::string {
        int64_t V = 0;
        const char *End = Text.data() + Text.size();
        auto [Ptr, Ec] = std::from_chars(Text.data(), End, V);
        if (Text.empty() || Ec != std::errc() || Ptr != End)
          return fmt::format("'{}' is not an integer (give one from {} to {})", Text, Lo, Hi);
        if (V < Lo || V > Hi) // CLI::Range's words, which Python's checks repeat
          return fmt::format("Value {} not in range {} to {}", Text, Lo, Hi);
        return "";
      },
      fmt::format("INT in [{} - {}]", Lo, Hi));
}

CLI::Validator finitePositive() {
  return CLI::Validator(
      [](std::string &Text) -> std::string {
        double V = 0;
        const char *End = Text.data() + Text.size();
        auto [Ptr, Ec] = std::from_chars(Text.data(), End, V);
        if (Text.empty() || Ec != std::errc() || Ptr != End)
          return fmt::format("'{}' is not a number", Text);
        if (!std::isfinite(V) || !(V > 0)) // words Python's check repeats
          return fmt::format("Value {} is not a positive finite number", Text);
        return "";
      },
      "POSITIVE");
}

void addDtypeOption(CLI::App &Cmd, std::string &Dtype) {
  Cmd.add_option("--dtype", Dtype,
                 "element type: f32 (also fp32, float), f16 (also fp16, half: PyTorch "
                 "autocast, fp32 weights cast to fp16 every pass; pure fp16 in an engine) or "
                 "int8 (also i8; an engine's int8 convolutions and dense layers, with "
                 "--runtime tensorrt)")
      ->transform(CLI::Validator(
          [](std::string &Text) -> std::string {
            auto T = corpus::parseDTypeSpelling(Text);
            if (!T)
              return Text + " not in {" + corpus::dtypeNames(",", ",") + "} (also " +
                     corpus::dtypeAliases() + ")";
            Text = corpus::dtypeString(*T);
            return "";
          },
          "f32|f16|int8"))
      ->capture_default_str();
}

namespace {

/// An error for a first argument that names no command (CLI11 would say "A subcommand is
/// required"), or nothing.
std::optional<std::string> unknownCommand(const CLI::App &App, int Argc, const char *const *Argv) {
  if (Argc < 2 || Argv[1][0] == '-')
    return std::nullopt;
  std::vector<std::string> Names;
  for (const CLI::App *Sub : App.get_subcommands([](const CLI::App *) { return true; }))
    Names.push_back(Sub->get_name());
  if (std::find(Names.begin(), Names.end(), Argv[1]) != Names.end())
    return std::nullopt;
  std::string All;
  for (const std::string &N : Names)
    All += (All.empty() ? "" : ", ") + N;
  return fmt::format("error: unknown command '{}' (closest: {}; commands: {}; `ptxcast --help` "
                     "says what each does)",
                     Argv[1], support::closestNames(Argv[1], Names, 1), All);
}

} // namespace

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
  if (auto E = unknownCommand(App, Argc, Argv)) {
    fmt::print(stderr, "{}\n", *E);
    return 1;
  }
  try {
    App.parse(Argc, Argv);
  } catch (const CLI::ParseError &E) {
    return App.exit(E);
  }
  return 0;
}

} // namespace ptxcast
