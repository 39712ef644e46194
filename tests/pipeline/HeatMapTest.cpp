// pipeline/HeatMap.h: the compare heat map from a document, its SVG's geometry (the long
// subtitle wraps instead of widening the canvas), and the checks made on a plot's path.
#include "pipeline/HeatMap.h"

#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <regex>
#include <unistd.h>

namespace {

using OJson = nlohmann::ordered_json;

OJson row(const std::string &Model, const std::string &Gpu, int Batch, double Ms, bool Fits,
          OJson Meets, OJson MaxBatch = nullptr) {
  return {{"model", Model},
          {"batch", Batch},
          {"gpu", Gpu},
          {"time_ms", Ms},
          {"images_per_s", 1e3 * Batch / Ms},
          {"images_per_s_per_w", 1e3 * Batch / Ms / 100},
          {"memory", {{"fits", Fits}}},
          {"meets_targets", Meets},
          {"max_batch", MaxBatch}};
}

/// 300 characters of words of 2-11 letters (synthetic), too long for one line of the chart.
std::string longSubtitle() {
  std::string S;
  for (int I = 0; S.size() < 300; ++I)
    S += std::string(2 + I % 10, char('a' + I % 26)) + " ";
  return S.substr(0, 300);
}

OJson document(OJson Rows, bool MaxBatch = false) {
  return {{"model", {{"name", "cross-gpu"}, {"predicts", longSubtitle()}}},
          {"runtime", "graph"},
          {"dtype", "f32"},
          {"budget_ms", 10.0},
          {"target_ips", nullptr},
          {"max_batch", MaxBatch},
          {"results", Rows}};
}

double attribute(const std::string &Svg, const std::string &Name) {
  std::smatch M;
  REQUIRE(std::regex_search(Svg, M, std::regex("<svg [^>]*" + Name + "=\"([0-9.]+)\"")));
  return std::stod(M[1]);
}

} // namespace

TEST_CASE("heat map: rows, columns and marks from a compare document") {
  OJson Rows = OJson::array(
      {row("resnet50", "t4", 1, 5, true, true), row("resnet50", "h100-sxm", 1, 1, true, true),
       row("vgg16", "t4", 1, 20, false, false), row("vgg16", "h100-sxm", 1, 4, true, true)});
  pipeline::HeatMap H = pipeline::compareHeatMap(document(Rows), pipeline::PlotValue::Time);
  CHECK(H.rows == std::vector<std::string>{"resnet50", "vgg16"});
  CHECK(H.columns == std::vector<std::string>{"t4", "h100-sxm"});
  CHECK(H.values[1][0] == 20);
  CHECK(H.meets[0][1]);
  CHECK(!H.meets[1][0]);
  CHECK(H.misfit[1][0]);
  CHECK(H.meetsLegend == "within 10 ms per batch, in memory");
  CHECK(!H.higherIsBetter);
  CHECK(H.title == "Predicted time per batch (ms)");

  const std::string Svg = pipeline::heatMapSvg(H);
  CHECK(Svg.find("grey: does not fit in the GPU's memory") != std::string::npos);
  CHECK(Svg.find("outlined: within 10 ms per batch, in memory") != std::string::npos);
  // A 300-character subtitle wraps: the canvas is the grid's width, not the subtitle's.
  const double Width = attribute(Svg, "width");
  CHECK(Width < 500);
  std::regex Line("<text class=\"subtitle\" x=\"16\" y=\"[0-9.]+\">([^<]*)</text>");
  size_t Lines = 0;
  for (auto It = std::sregex_iterator(Svg.begin(), Svg.end(), Line); It != std::sregex_iterator();
       ++It, ++Lines)
    CHECK(16 + 6.6 * double((*It)[1].length()) <= Width);
  CHECK(Lines > 3);
}

TEST_CASE("heat map: images/s are dark where high: max-batch cells name their batch") {
  OJson Rows = OJson::array({row("resnet50", "t4", 64, 100, true, true, 64),
                             row("resnet50", "a100", 8, 20, true, true, 8),
                             row("resnet50", "h100-sxm", 1, 50, true, false, 0)});
  pipeline::HeatMap H =
      pipeline::compareHeatMap(document(Rows, true), pipeline::PlotValue::ImagesPerSecond);
  CHECK(H.higherIsBetter);
  CHECK(H.rows == std::vector<std::string>{"resnet50"});
  CHECK(H.notes[0][0] == " @64");
  CHECK(H.notes[0][1] == " @8");
  CHECK(H.notes[0][2] == "none");
  CHECK(std::isnan(H.values[0][2]));
  const std::string Svg = pipeline::heatMapSvg(H);
  CHECK(Svg.find(">640 @64</text>") != std::string::npos);
  CHECK(Svg.find(">none</text>") != std::string::npos);
  CHECK(Svg.find("fill=\"#440154\"") != std::string::npos); // viridis' darkest: the best cell
}

TEST_CASE("heat map: plot paths are checked before any work, errors name the user's path") {
  auto Message = [](const std::string &Path) {
    auto E = pipeline::checkPlotPath(Path);
    return E ? E->str() : std::string();
  };
  CHECK(Message("out.pdf") == "out.pdf: error: plot files end in .svg or .png");
  CHECK(Message("/no/such/folder/x.svg") ==
        "/no/such/folder/x.svg: error: cannot write the plot: no folder '/no/such/folder'");
  CHECK(Message("x.svg").empty());
  if (geteuid() != 0) // root writes anywhere
    CHECK(Message("/proc/x.svg").find("is not writable") != std::string::npos);

  const std::filesystem::path Dir =
      std::filesystem::temp_directory_path() / ("ptxcast_heatmap_" + std::to_string(getpid()));
  std::filesystem::create_directories(Dir);
  const std::string Svg = (Dir / "m.svg").string();
  CHECK(!pipeline::writePlot("<svg/>\n", Svg));
  CHECK(std::filesystem::file_size(Svg) == 7);
  CHECK(std::distance(std::filesystem::directory_iterator(Dir), {}) == 1); // no temporary left
  std::filesystem::remove_all(Dir);
}
