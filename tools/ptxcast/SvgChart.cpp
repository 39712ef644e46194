// The heat-map SVG writer and PNG conversion (SvgChart.h).
#include "SvgChart.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>

extern char **environ;

namespace ptxcast {
namespace {

constexpr double CellW = 74, CellH = 26, Top = 150, BarH = 14;

std::string escape(const std::string &S) {
  std::string Out;
  for (char C : S) {
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    default:
      Out += C;
    }
  }
  return Out;
}

struct Rgb {
  double r, g, b;
};

/// Viridis at T in [0, 1] (five stops of matplotlib's map, linearly interpolated).
Rgb viridis(double T) {
  static constexpr std::array<Rgb, 5> Stops = {
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  T = std::clamp(T, 0.0, 1.0) * (Stops.size() - 1);
  size_t I = std::min(size_t(T), Stops.size() - 2);
  double F = T - double(I);
  const Rgb &A = Stops[I], &B = Stops[I + 1];
  return {A.r + (B.r - A.r) * F, A.g + (B.g - A.g) * F, A.b + (B.b - A.b) * F};
}

std::string hex(const Rgb &C) {
  return fmt::format("#{:02x}{:02x}{:02x}", int(std::lround(C.r)), int(std::lround(C.g)),
                     int(std::lround(C.b)));
}

/// Three significant digits, no exponent for the values a chart shows.
std::string number(double V) {
  if (V >= 99.95)
    return fmt::format("{:.0f}", V);
  if (V >= 9.995)
    return fmt::format("{:.1f}", V);
  if (V >= 0.9995)
    return fmt::format("{:.2f}", V);
  return fmt::format("{:.3g}", V);
}

/// Position in [0, 1] of V between Lo and Hi on a log scale.
double logPosition(double V, double Lo, double Hi) {
  return Hi > Lo ? (std::log(V) - std::log(Lo)) / (std::log(Hi) - std::log(Lo)) : 0.5;
}

void cells(std::string &S, const HeatMap &H, double Left, double Lo, double Hi) {
  for (size_t R = 0; R < H.rows.size(); ++R) {
    double Y = Top + double(R) * CellH;
    S += fmt::format("<text class=\"row\" x=\"{}\" y=\"{}\">{}</text>\n", Left - 8,
                     Y + CellH / 2 + 4, escape(H.rows[R]));
    for (size_t C = 0; C < H.columns.size(); ++C) {
      double X = Left + double(C) * CellW, V = H.values[R][C];
      bool Missing = !(V > 0);
      Rgb Fill = Missing ? Rgb{200, 200, 200} : viridis(logPosition(V, Lo, Hi));
      bool Dark = 0.299 * Fill.r + 0.587 * Fill.g + 0.114 * Fill.b < 140;
      bool Meets = !Missing && H.budget && V <= *H.budget;
      S += fmt::format("<rect class=\"cell{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                       "fill=\"{}\"/>\n",
                       Meets ? " meets" : "", X, Y, CellW, CellH, hex(Fill));
      S += fmt::format("<text class=\"value\" x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n",
                       X + CellW / 2, Y + CellH / 2 + 4, Dark ? "#ffffff" : "#000000",
                       Missing ? "n/a" : number(V));
    }
  }
}

void colourBar(std::string &S, const HeatMap &H, double Left, double Y, double Lo, double Hi) {
  double Width = std::max(CellW * double(H.columns.size()), 240.0);
  constexpr int Steps = 32;
  for (int I = 0; I < Steps; ++I)
    S += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>\n",
                     Left + Width * I / Steps, Y, Width / Steps + 0.5, BarH,
                     hex(viridis((I + 0.5) / Steps)));
  S += fmt::format("<text class=\"legend\" x=\"{}\" y=\"{}\">{} {}</text>\n", Left, Y + BarH + 16,
                   number(Lo), escape(H.unit));
  S += fmt::format("<text class=\"legend end\" x=\"{}\" y=\"{}\">{} {} (log scale)</text>\n",
                   Left + Width, Y + BarH + 16, number(Hi), escape(H.unit));
  if (H.budget)
    S += fmt::format("<text class=\"legend\" x=\"{}\" y=\"{}\">outlined: within the budget of "
                     "{} {}</text>\n",
                     Left, Y + BarH + 36, number(*H.budget), escape(H.unit));
}

} // namespace

std::string heatMapSvg(const HeatMap &H) {
  double Lo = INFINITY, Hi = 0;
  size_t Longest = 8;
  for (size_t R = 0; R < H.rows.size(); ++R) {
    Longest = std::max(Longest, H.rows[R].size());
    for (double V : H.values[R])
      if (V > 0) {
        Lo = std::min(Lo, V);
        Hi = std::max(Hi, V);
      }
  }
  if (Hi == 0)
    Lo = Hi = 1;
  double Left = 20 + 7.2 * double(Longest);
  double Width = Left + std::max(CellW * double(H.columns.size()), 240.0) + 40;
  Width =
      std::max(Width, 32 + 6.6 * double(std::max(H.title.size() * 1.4, double(H.subtitle.size()))));
  double BarY = Top + CellH * double(H.rows.size()) + 24;
  double Height = BarY + BarH + (H.budget ? 56 : 36);
  std::string S = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n"
      "<style>text {{ font-size: 12px; }} .title {{ font-size: 16px; font-weight: bold; }} "
      ".row {{ text-anchor: end; }} .value {{ text-anchor: middle; font-size: 11px; }} "
      ".end {{ text-anchor: end; }} .legend {{ font-size: 11px; }} "
      ".cell {{ stroke: #ffffff; stroke-width: 1; }} "
      ".meets {{ stroke: #d62728; stroke-width: 3; }}</style>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
      "<text class=\"title\" x=\"16\" y=\"26\">{2}</text>\n"
      "<text x=\"16\" y=\"46\">{3}</text>\n",
      std::ceil(Width), std::ceil(Height), escape(H.title), escape(H.subtitle));
  for (size_t C = 0; C < H.columns.size(); ++C) {
    double X = Left + (double(C) + 0.5) * CellW;
    S +=
        fmt::format("<text class=\"column\" transform=\"translate({},{}) rotate(-45)\">{}</text>\n",
                    X, Top - 6, escape(H.columns[C]));
  }
  cells(S, H, Left, Lo, Hi);
  colourBar(S, H, Left, BarY, Lo, Hi);
  return S + "</svg>\n";
}

namespace {

/// Runs rsvg-convert In -> Out; an Error naming Out when it cannot run or fails.
support::MaybeError convertToPng(const std::string &In, const std::string &Out) {
  std::string Prog = "rsvg-convert", Flag = "-o";
  std::vector<char *> Argv = {Prog.data(), Flag.data(), const_cast<char *>(Out.c_str()),
                              const_cast<char *>(In.c_str()), nullptr};
  pid_t Pid;
  if (posix_spawnp(&Pid, Prog.c_str(), nullptr, nullptr, Argv.data(), environ) != 0)
    return support::Error(Out, 0, 0,
                          "cannot write PNG: rsvg-convert (Debian package librsvg2-bin) is not "
                          "installed; install it or write FILE.svg");
  int Status = 0;
  waitpid(Pid, &Status, 0);
  if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0)
    return support::Error(Out, 0, 0,
                          WIFEXITED(Status) && WEXITSTATUS(Status) == 127
                              ? "cannot write PNG: rsvg-convert (Debian package librsvg2-bin) is "
                                "not installed; install it or write FILE.svg"
                              : "rsvg-convert failed to convert the plot to PNG");
  return std::nullopt;
}

} // namespace

support::MaybeError writePlot(const std::string &Svg, const std::string &Path) {
  std::string Ext = std::filesystem::path(Path).extension().string();
  if (Ext != ".svg" && Ext != ".png")
    return support::Error(Path, 0, 0, "plot files end in .svg or .png");
  std::string SvgPath = Ext == ".svg" ? Path : Path + ".tmp.svg";
  {
    std::ofstream Out(SvgPath, std::ios::binary);
    Out << Svg;
    if (!Out)
      return support::Error(SvgPath, 0, 0, "cannot write file");
  }
  if (Ext == ".svg")
    return std::nullopt;
  auto E = convertToPng(SvgPath, Path);
  std::filesystem::remove(SvgPath);
  return E;
}

} // namespace ptxcast
