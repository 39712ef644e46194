// The synthetic bundle the predict and compare CLI tests share: trained in the test process on
// synthetic rows (labelled as such, not measurements: rows of `ptxcast dataset neusight` on
// made-up relu latencies whose target is then set to exactly twice the row's physical bound), so
// every prediction must be Factor x the network's bound on the GPU.
#pragma once

#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace synthbundle {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using clitest::runPtxcast;
using clitest::RunResult;

/// A scratch directory for this test process.
inline fs::path scratch() {
  struct Dir {
    fs::path path =
        fs::temp_directory_path() / ("ptxcast_predict_test_" + std::to_string(getpid()));
    Dir() { fs::create_directories(path); }
    ~Dir() { fs::remove_all(path); }
  };
  static const Dir D;
  return D.path;
}

inline constexpr double Factor = 2; // synthetic law: time = Factor x bound

/// Splits one line of a CSV without quoted commas.
inline std::vector<std::string> fields(const std::string &Line) {
  std::vector<std::string> Out;
  std::stringstream In(Line);
  for (std::string F; std::getline(In, F, ',');)
    Out.push_back(F);
  return Out;
}

/// Synthetic rows (mechanics only): made-up NeuSight relu latencies on a T4 and a V100 turned
/// into dataset rows by `ptxcast dataset neusight`, then their target set to overhead + Factor x
/// bound exactly.
inline fs::path syntheticCsv() {
  fs::path Source = scratch() / "synthetic-neusight.csv", Rows = scratch() / "rows.csv";
  {
    std::ofstream Out(Source);
    Out << "op,latency_ms,device,kernel_name,b,h\n";
    for (const char *Device : {"Tesla T4", "Tesla V100-PCIE-32GB"})
      for (int I = 1; I <= 12; ++I)
        Out << "relu," << 0.01 * I << "," << Device << ",synthetic," << 8 * I << "," << 512 * I
            << "\n";
  }
  RunResult R = runPtxcast("dataset neusight " + Source.string() + " -o " + Rows.string());
  REQUIRE_MESSAGE(R.status == 0, R.err);
  std::ifstream In(Rows);
  std::string Line, Text;
  std::getline(In, Line);
  std::vector<std::string> Header = fields(Line);
  Text = Line + "\n";
  auto Col = [&](const std::string &Name) {
    return size_t(std::find(Header.begin(), Header.end(), Name) - Header.begin());
  };
  const size_t Bound = Col("bound_ms"), Overhead = Col("overhead_ms");
  REQUIRE(Bound < Header.size());
  REQUIRE(Header.back() == "measured_ms");
  while (std::getline(In, Line)) {
    std::vector<std::string> F = fields(Line);
    char Exact[32]; // every digit: the law must hold to rounding
    std::snprintf(Exact, sizeof Exact, "%.17g",
                  std::stod(F[Overhead]) + Factor * std::stod(F[Bound]));
    F.back() = Exact;
    for (size_t I = 0; I < F.size(); ++I)
      Text += (I ? "," : "") + F[I];
    Text += "\n";
  }
  fs::path Out = scratch() / "synthetic.csv";
  std::ofstream(Out) << Text;
  return Out;
}

/// The bundle trained on syntheticCsv (linear, band leaving one GPU out); made once.
inline std::string bundlePath() {
  static const std::string Path = [] {
    std::string Out = (scratch() / "synthetic-bundle.json").string();
    RunResult R = runPtxcast("train --data " + syntheticCsv().string() +
                             " --learner linear --param lambda=0 --bundle --cv group=gpu "
                             "--name synthetic --predicts 'synthetic: twice the bound' -o " +
                             Out);
    REQUIRE_MESSAGE(R.status == 0, R.err);
    return Out;
  }();
  return Path;
}

/// `ptxcast predict ... --format json` with the synthetic bundle.
inline Json predictJson(const std::string &Args) {
  RunResult R = runPtxcast("predict " + Args + " --model " + bundlePath() + " --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  return Json::parse(R.out);
}

/// Whether one of a predict document's warnings contains Text.
inline bool warns(const Json &Doc, const std::string &Text) {
  for (const Json &W : Doc["warnings"])
    if (W.get<std::string>().find(Text) != std::string::npos)
      return true;
  return false;
}

} // namespace synthbundle
