// `ptxcast gpus` and user-described GPUs end to end: the catalog listing (every figure with a
// source), `--gpu-spec FILE.json` / `--gpu FILE.json` on predict and compare with the shipped
// examples (docs/examples), clear errors for bad spec files, and a prediction for every catalog
// GPU through `ptxcast compare --gpus all`.
#include "RunPtxcast.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using Json = nlohmann::json;
using clitest::runPtxcast;
using clitest::RunResult;

namespace {

std::string example(const std::string &Name) {
  return std::string(PTXCAST_SOURCE_DIR) + "/docs/examples/" + Name;
}

Json catalogJson() {
  RunResult R = runPtxcast("gpus --format json");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  return Json::parse(R.out);
}

/// The field names a GPU's source notes cover (keys are comma-separated field lists).
std::set<std::string> covered(const Json &Sources) {
  std::set<std::string> Out;
  for (const auto &[Keys, Note] : Sources.items()) {
    CHECK(!Note.get<std::string>().empty());
    std::stringstream S(Keys);
    for (std::string Key; std::getline(S, Key, ',');)
      Out.insert(Key);
  }
  return Out;
}

} // namespace

TEST_CASE("gpus: the JSON lists at least 70 GPUs, each figure with a source, with its limits") {
  Json J = catalogJson();
  const Json &Gpus = J["gpus"];
  CHECK(Gpus.size() >= 70);
  std::set<std::string> Archs;
  for (const Json &A : J["architectures"])
    Archs.insert(A["compute_capability"].get<std::string>());
  for (const char *Cc : {"6.1", "7.5", "8.6", "8.9", "9.0", "10.0", "11.0", "12.0"})
    CHECK(Archs.count(Cc));
  for (const Json &G : Gpus) {
    CAPTURE(G["name"].get<std::string>());
    std::set<std::string> Sourced = covered(G["sources"]);
    size_t Numbers = 0;
    for (const auto &[Key, Value] : G.items())
      if (Value.is_number()) {
        ++Numbers;
        CHECK_MESSAGE(Sourced.count(Key), "no source for ", Key);
      }
    CHECK(Numbers == 17);
    CHECK(Sourced.count("compute_capability"));
    CHECK(G["limits"]["max_threads_per_sm"].get<double>() > 0);
    CHECK(Archs.count(G["compute_capability"].get<std::string>()));
  }
}

TEST_CASE("gpus: the table has one row per GPU, names and spec files select rows") {
  size_t Count = catalogJson()["gpus"].size();
  RunResult Table = runPtxcast("gpus");
  REQUIRE(Table.status == 0);
  std::string Footer = "\n";
  Footer += std::to_string(Count) + " GPUs.";
  CHECK(Table.out.find(Footer) != std::string::npos);
  CHECK(Table.out.find("\nrtx-5090 ") != std::string::npos);
  CHECK(Table.out.find("\njetson-orin-nano@7w ") != std::string::npos);

  RunResult Some = runPtxcast("gpus 5090 orin-nano@15w " + example("made-up-200sm.json") +
                              " --format json");
  REQUIRE_MESSAGE(Some.status == 0, Some.err);
  Json J = Json::parse(Some.out);
  REQUIRE(J["gpus"].size() == 3);
  CHECK(J["gpus"][0]["name"] == "rtx-5090");
  CHECK(J["gpus"][1]["name"] == "jetson-orin-nano");
  CHECK(J["gpus"][2]["name"] == "made-up-200sm");
  // The spec overrides two per-SM limits of its compute capability and inherits the rest.
  CHECK(J["gpus"][2]["limits"]["shared_mem_per_sm_kb"] == 256);
  CHECK(J["gpus"][2]["limits"]["max_threads_per_sm"] == 2048);

  RunResult Unknown = runPtxcast("gpus rtx-5099");
  CHECK(Unknown.status == 1);
  CHECK(Unknown.err.find("error: unknown gpu 'rtx-5099' (closest: rtx-5090") != std::string::npos);
}

TEST_CASE("predict: a GPU spec file through --gpu-spec and --gpu FILE.json") {
  RunResult Capped = runPtxcast("predict efficientnet-b0 --gpu-spec " + example("h100-1400mhz.json") +
                                " --format json");
  REQUIRE_MESSAGE(Capped.status == 0, Capped.err);
  Json C = Json::parse(Capped.out);
  CHECK(C["gpu"] == "h100-sxm-1400mhz");
  CHECK(C["time_ms"].get<double>() > 0);

  RunResult MadeUp = runPtxcast("predict efficientnet-b0 --gpu " + example("made-up-200sm.json") +
                                " --format json");
  REQUIRE_MESSAGE(MadeUp.status == 0, MadeUp.err);
  Json M = Json::parse(MadeUp.out);
  CHECK(M["gpu"] == "made-up-200sm");
  CHECK(M["tdp_w"] == 1400);
  CHECK(std::isfinite(M["time_ms"].get<double>()));
  CHECK(M["time_ms"].get<double>() > 0);

  RunResult Both = runPtxcast("predict efficientnet-b0 --gpu h100 --gpu-spec " +
                              example("h100-1400mhz.json"));
  CHECK(Both.status != 0);
  RunResult Neither = runPtxcast("predict efficientnet-b0");
  CHECK(Neither.status != 0);
}

TEST_CASE("predict: a spec file with a missing or negative field is an error naming file and field") {
  clitest::TempDir Dir("gpus_spec");
  std::string Text = clitest::readAll(example("made-up-200sm.json"));

  std::string Missing = Text;
  size_t At = Missing.find("  \"sm_count\": 200,\n");
  REQUIRE(At != std::string::npos);
  Missing.erase(At, std::string("  \"sm_count\": 200,\n").size());
  clitest::writeFile(Dir / "missing.json", Missing);
  RunResult R1 = runPtxcast("predict efficientnet-b0 --gpu-spec " + (Dir / "missing.json"));
  CHECK(R1.status == 1);
  CHECK(R1.err == Dir / "missing.json" +
                      ": error: gpu 'made-up-200sm': field 'sm_count' is missing\n");

  std::string Negative = Text;
  At = Negative.find("\"l2_mb\": 192");
  REQUIRE(At != std::string::npos);
  Negative.replace(At, 12, "\"l2_mb\": -5");
  clitest::writeFile(Dir / "negative.json", Negative);
  RunResult R2 = runPtxcast("predict efficientnet-b0 --gpu " + (Dir / "negative.json"));
  CHECK(R2.status == 1);
  CHECK(
      R2.err ==
      Dir / "negative.json" +
          ":19:12: error: gpu 'made-up-200sm': field 'l2_mb' must be a positive number, got -5\n");

  clitest::writeFile(Dir / "spec.txt", Text);
  RunResult R3 = runPtxcast("predict efficientnet-b0 --gpu-spec " + (Dir / "spec.txt"));
  CHECK(R3.status == 1);
  CHECK(R3.err.find("spec.txt: error: a GPU spec file must end in .json") != std::string::npos);

  RunResult R4 = runPtxcast("compare --models efficientnet-b0 --gpus t4," + (Dir / "nowhere.json"));
  CHECK(R4.status == 1);
  CHECK(R4.err.find("nowhere.json: error: cannot read the GPU spec file") != std::string::npos);
}

TEST_CASE("compare: efficientnet-b0 is predicted on every catalog GPU and on spec files") {
  std::vector<std::string> Names;
  const Json Catalog = catalogJson();
  for (const Json &G : Catalog["gpus"])
    Names.push_back(G["name"].get<std::string>());
  RunResult R = runPtxcast("compare --models efficientnet-b0 --gpus all --gpu-spec " +
                           example("h100-1400mhz.json") + " --format csv");
  REQUIRE_MESSAGE(R.status == 0, R.err);
  std::stringstream Lines(R.out);
  std::string Line;
  std::getline(Lines, Line);
  CHECK(Line.rfind("model,batch,gpu,time_ms,", 0) == 0);
  std::vector<std::string> Rows;
  while (std::getline(Lines, Line)) {
    std::vector<std::string> Cells;
    std::stringstream S(Line);
    for (std::string Cell; std::getline(S, Cell, ',');)
      Cells.push_back(Cell);
    REQUIRE(Cells.size() >= 4);
    CAPTURE(Cells[2]);
    CHECK(Cells[0] == "efficientnet-b0");
    double Ms = std::stod(Cells[3]);
    CHECK(std::isfinite(Ms));
    CHECK(Ms > 0);
    Rows.push_back(Cells[2]);
  }
  Names.push_back("h100-sxm-1400mhz");
  CHECK(Rows == Names);
}

TEST_CASE("predict: names as users type them, including power modes") {
  for (auto [Typed, Canonical] : {std::pair{"5090", "rtx-5090"}, std::pair{"'rtx 5090'", "rtx-5090"},
                                  std::pair{"RTX-5090", "rtx-5090"}, std::pair{"l40s", "l40s"},
                                  std::pair{"orin-nano@7w", "jetson-orin-nano@7w"}}) {
    CAPTURE(Typed);
    RunResult R = runPtxcast(std::string("predict efficientnet-b0 --format json --gpu ") + Typed);
    REQUIRE_MESSAGE(R.status == 0, R.err);
    CHECK(Json::parse(R.out)["gpu"] == Canonical);
  }
}
