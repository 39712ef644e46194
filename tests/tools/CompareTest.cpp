// `ptxcast compare` end to end with the synthetic bundle (SyntheticBundle.h): the matrix, the
// budget, images/s per watt, and the SVG and PNG heat maps.
#include "RunPtxcast.h"
#include "SyntheticBundle.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

using clitest::readAll;
using clitest::runPtxcast;
using clitest::RunResult;
using synthbundle::bundlePath;
using synthbundle::predictJson;
using synthbundle::scratch;

/// Tags of an XML document must nest; returns the element names in document order.
std::vector<std::string> xmlElements(const std::string &Text) {
  std::vector<std::string> Stack, All;
  std::regex Tag(R"(<(/?)([a-zA-Z][\w:-]*)[^>]*?(/?)>)");
  for (auto It = std::sregex_iterator(Text.begin(), Text.end(), Tag); It != std::sregex_iterator();
       ++It) {
    std::string Name = (*It)[2];
    if ((*It)[1] == "/") {
      REQUIRE_MESSAGE(!Stack.empty(), (std::string("closing tag without an opening one: ") + Name));
      REQUIRE(Stack.back() == Name);
      Stack.pop_back();
      continue;
    }
    All.push_back(Name);
    if ((*It)[3] != "/")
      Stack.push_back(Name);
  }
  CHECK(Stack.empty());
  return All;
}

uint32_t bigEndian32(const std::string &S, size_t At) {
  return uint32_t(uint8_t(S[At])) << 24 | uint32_t(uint8_t(S[At + 1])) << 16 |
         uint32_t(uint8_t(S[At + 2])) << 8 | uint32_t(uint8_t(S[At + 3]));
}

} // namespace

TEST_CASE("compare: matrix, budget, images/s per watt and an SVG heat map") {
  auto Time = [](const std::string &Gpu, int Batch) {
    return predictJson("lenet5 --gpu " + Gpu + " --batch " + std::to_string(Batch))["time_ms"]
        .get<double>();
  };
  // Batch 8, not 2: LeNet-5 at batch 1 and 2 is mostly launch latency, a few percent apart.
  double T1 = Time("t4", 1), T2 = Time("t4", 8);
  REQUIRE(T1 < T2);
  double Budget = (T1 + T2) / 2; // batch 1 meets it, batch 8 does not
  fs::path Svg = scratch() / "matrix.svg";
  RunResult R = runPtxcast("compare --models lenet5 --gpus t4,a100 --batch 1,8 --model " +
                           bundlePath() + " --format json --budget-ms " + std::to_string(Budget) +
                           " --plot " + Svg.string());
  REQUIRE_MESSAGE(R.status == 0, R.err);
  Json J = Json::parse(R.out);
  REQUIRE(J["results"].size() == 4);
  for (const Json &Row : J["results"]) {
    double T = Row["time_ms"].get<double>();
    int Batch = Row["batch"].get<int>();
    CHECK(T == doctest::Approx(Time(Row["gpu"], Batch)).epsilon(1e-9));
    if (Row["gpu"] == "t4")
      CHECK(Row["meets_budget"] == (Batch == 1));
    double Ips = 1000.0 * Batch / T;
    CHECK(Row["images_per_s"].get<double>() == doctest::Approx(Ips));
    CHECK(Row["images_per_s_per_w"].get<double>() ==
          doctest::Approx(Ips / Row["tdp_w"].get<double>()));
  }
  CHECK(J["results"][0]["gpu"] == "t4");
  std::string Text = readAll(Svg);
  REQUIRE(!Text.empty());
  std::vector<std::string> Elements = xmlElements(Text);
  REQUIRE(!Elements.empty());
  CHECK(Elements.front() == "svg");
  std::regex Cell(R"(<rect class="cell( meets)?")"), Meets(R"(<rect class="cell meets")");
  auto Count = [&](const std::regex &Re) {
    return std::distance(std::sregex_iterator(Text.begin(), Text.end(), Re),
                         std::sregex_iterator());
  };
  CHECK(Count(Cell) == 4);
  CHECK(Count(Meets) >= 1);
  CHECK(Text.find(">lenet5 (batch 8)</text>") != std::string::npos);
  CHECK(Text.find(">t4</text>") != std::string::npos);

  RunResult Csv =
      runPtxcast("compare --models lenet5 --gpus t4 --model " + bundlePath() + " --format csv");
  REQUIRE(Csv.status == 0);
  CHECK(Csv.out.starts_with("model,batch,gpu,time_ms,low_ms,high_ms,images_per_s,"));
  CHECK(Csv.out.find("\nlenet5,1,t4,") != std::string::npos);
}

TEST_CASE("compare: PNG plot has the PNG signature and the SVG's size") {
  fs::path Png = scratch() / "matrix.png", Svg = scratch() / "same.svg";
  std::string Args = "compare --models lenet5 --gpus t4,h100,orin --model " + bundlePath();
  RunResult R = runPtxcast(Args + " --plot " + Png.string());
  bool HaveRsvg = std::system("command -v rsvg-convert >/dev/null 2>&1") == 0;
  if (!HaveRsvg) {
    CHECK(R.status == 1);
    CHECK(R.err.find("rsvg-convert (Debian package librsvg2-bin) is not installed") !=
          std::string::npos);
    return;
  }
  REQUIRE_MESSAGE(R.status == 0, R.err);
  REQUIRE(runPtxcast(Args + " --plot " + Svg.string()).status == 0);
  std::string Bytes = readAll(Png);
  REQUIRE(Bytes.size() > 33);
  CHECK(Bytes.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(Bytes.substr(12, 4) == "IHDR");
  std::smatch M;
  std::string SvgText = readAll(Svg);
  REQUIRE(
      std::regex_search(SvgText, M, std::regex(R"re(<svg [^>]*width="(\d+)" height="(\d+)")re")));
  CHECK(bigEndian32(Bytes, 16) == std::stoul(M[1]));
  CHECK(bigEndian32(Bytes, 20) == std::stoul(M[2]));
}
