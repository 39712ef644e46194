// The heat-map SVG writer (HeatMap.h).
#include "pipeline/HeatMap.h"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace pipeline {
namespace {

constexpr double CellW = 74, CellH = 26, BarH = 14, LineH = 16;
/// Room for the GPU names, written at 45 degrees above the first row.
constexpr double ColumnLabels = 104;
/// Average advance of a 12 px DejaVu Sans character, and of a 16 px bold one.
constexpr double CharW = 6.6, TitleCharW = 9.6;

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

bool cellFlag(const std::vector<std::vector<bool>> &M, size_t R, size_t C) {
  return R < M.size() && C < M[R].size() && M[R][C];
}

/// Text split at spaces into lines of at most Width characters (a longer word gets a line).
std::vector<std::string> wrapped(const std::string &Text, size_t Width) {
  std::vector<std::string> Lines;
  std::string Line;
  size_t Start = 0;
  while (Start < Text.size()) {
    size_t End = std::min(Text.find(' ', Start), Text.size());
    std::string Word = Text.substr(Start, End - Start);
    if (!Line.empty() && Line.size() + 1 + Word.size() > Width) {
      Lines.push_back(Line);
      Line.clear();
    }
    Line += (Line.empty() ? "" : " ") + Word;
    Start = End + 1;
  }
  if (!Line.empty())
    Lines.push_back(Line);
  return Lines;
}

/// The chart's geometry.
struct Layout {
  double left = 0, top = 0, width = 0, height = 0, barY = 0, lo = 1, hi = 1;
  std::vector<std::string> subtitle;
  size_t legendLines = 0;
};

Layout layoutOf(const HeatMap &H) {
  Layout L;
  L.lo = INFINITY;
  L.hi = 0;
  size_t Longest = 8;
  for (size_t R = 0; R < H.rows.size(); ++R) {
    Longest = std::max(Longest, H.rows[R].size());
    for (double V : H.values[R])
      if (V > 0) {
        L.lo = std::min(L.lo, V);
        L.hi = std::max(L.hi, V);
      }
  }
  if (L.hi == 0)
    L.lo = L.hi = 1;
  L.left = 20 + 7.2 * double(Longest);
  L.width = std::max(L.left + std::max(CellW * double(H.columns.size()), 240.0) + 40,
                     32 + TitleCharW * double(H.title.size()));
  L.subtitle = wrapped(H.subtitle, size_t((L.width - 32) / CharW));
  L.top = 46 + LineH * double(std::max<size_t>(L.subtitle.size(), 1) - 1) + ColumnLabels;
  L.barY = L.top + CellH * double(H.rows.size()) + 24;
  bool Misfit = false, Meets = false;
  for (size_t R = 0; R < H.rows.size(); ++R)
    for (size_t C = 0; C < H.columns.size(); ++C) {
      Misfit |= cellFlag(H.misfit, R, C);
      Meets |= cellFlag(H.meets, R, C);
    }
  L.legendLines = (Meets && !H.meetsLegend.empty()) + Misfit;
  L.height = L.barY + BarH + 36 + 20 * double(L.legendLines);
  return L;
}

void cells(std::string &S, const HeatMap &H, const Layout &L) {
  for (size_t R = 0; R < H.rows.size(); ++R) {
    double Y = L.top + double(R) * CellH;
    S += fmt::format("<text class=\"row\" x=\"{}\" y=\"{}\">{}</text>\n", L.left - 8,
                     Y + CellH / 2 + 4, escape(H.rows[R]));
    for (size_t C = 0; C < H.columns.size(); ++C) {
      double X = L.left + double(C) * CellW, V = H.values[R][C];
      bool Missing = !(V > 0), Misfit = cellFlag(H.misfit, R, C);
      double T = Missing ? 0 : logPosition(V, L.lo, L.hi);
      Rgb Fill = Missing  ? Rgb{200, 200, 200}
                 : Misfit ? Rgb{215, 215, 215}
                          : viridis(H.higherIsBetter ? 1 - T : T);
      bool Dark = 0.299 * Fill.r + 0.587 * Fill.g + 0.114 * Fill.b < 140;
      bool Meets = !Missing && cellFlag(H.meets, R, C);
      std::string Note = R < H.notes.size() && C < H.notes[R].size() ? H.notes[R][C] : "";
      std::string Label = Missing ? (Note.empty() ? "n/a" : Note) : number(V) + Note;
      S += fmt::format("<rect class=\"cell{}{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
                       "fill=\"{}\"/>\n",
                       Meets ? " meets" : "", Misfit ? " misfit" : "", X, Y, CellW, CellH,
                       hex(Fill));
      S += fmt::format("<text class=\"value\" x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n",
                       X + CellW / 2, Y + CellH / 2 + 4, Dark ? "#ffffff" : "#000000",
                       escape(Label));
    }
  }
}

void colourBar(std::string &S, const HeatMap &H, const Layout &L) {
  double Width = std::max(CellW * double(H.columns.size()), 240.0);
  constexpr int Steps = 32;
  for (int I = 0; I < Steps; ++I)
    S += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>\n",
                     L.left + Width * I / Steps, L.barY, Width / Steps + 0.5, BarH,
                     hex(viridis((I + 0.5) / Steps)));
  const double Dark = H.higherIsBetter ? L.hi : L.lo, Light = H.higherIsBetter ? L.lo : L.hi;
  double Y = L.barY + BarH + 16;
  S += fmt::format("<text class=\"legend\" x=\"{}\" y=\"{}\">{} {}</text>\n", L.left, Y,
                   number(Dark), escape(H.unit));
  S += fmt::format("<text class=\"legend end\" x=\"{}\" y=\"{}\">{} {} (log scale)</text>\n",
                   L.left + Width, Y, number(Light), escape(H.unit));
  std::vector<std::string> Legend;
  bool Misfit = false;
  for (const auto &Row : H.misfit)
    Misfit |= std::find(Row.begin(), Row.end(), true) != Row.end();
  if (L.legendLines > size_t(Misfit))
    Legend.push_back("outlined: " + H.meetsLegend);
  if (Misfit)
    Legend.push_back("grey: does not fit in the GPU's memory");
  for (const std::string &Line : Legend)
    S += fmt::format("<text class=\"legend\" x=\"{}\" y=\"{}\">{}</text>\n", L.left, Y += 20,
                     escape(Line));
}

} // namespace

std::string heatMapSvg(const HeatMap &H) {
  const Layout L = layoutOf(H);
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
      "<text class=\"title\" x=\"16\" y=\"26\">{2}</text>\n",
      std::ceil(L.width), std::ceil(L.height), escape(H.title));
  for (size_t I = 0; I < L.subtitle.size(); ++I)
    S += fmt::format("<text class=\"subtitle\" x=\"16\" y=\"{}\">{}</text>\n",
                     46 + LineH * double(I), escape(L.subtitle[I]));
  for (size_t C = 0; C < H.columns.size(); ++C) {
    double X = L.left + (double(C) + 0.5) * CellW;
    S +=
        fmt::format("<text class=\"column\" transform=\"translate({},{}) rotate(-45)\">{}</text>\n",
                    X, L.top - 6, escape(H.columns[C]));
  }
  cells(S, H, L);
  colourBar(S, H, L);
  return S + "</svg>\n";
}

} // namespace pipeline
