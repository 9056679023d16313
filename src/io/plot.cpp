// SVG line charts (docs/cli.md, --plot).
#include "io/plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "units/units.hpp"

namespace llmecon {
namespace {

// Okabe and Ito's colour-blind-safe palette, as the web page draws (web/charts.js).
constexpr const char* kColors[] = {"#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9"};

// The web page's region colours (web/charts.js): compute orange, weights blue, KV bluish green.
const char* region_fill(const std::string& label) {
  if (label == "compute") return "rgba(230,159,0,0.13)";
  if (label == "weights") return "rgba(0,114,178,0.13)";
  if (label == "kv") return "rgba(0,158,115,0.13)";
  return "rgba(0,0,0,0.05)";
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string o;
  for (char ch : text) {
    switch (ch) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += ch;
    }
  }
  return o;
}

std::vector<Region> regions_of(const std::vector<std::pair<double, std::string>>& xs, bool log_x) {
  std::vector<Region> out;
  auto mid = [log_x](double a, double b) { return log_x ? std::sqrt(a * b) : (a + b) / 2; };
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double x = xs[i].first;
    const double lo = i == 0 ? x : mid(xs[i - 1].first, x);
    const double hi = i + 1 == xs.size() ? x : mid(x, xs[i + 1].first);
    if (!out.empty() && out.back().label == xs[i].second) {
      out.back().to = hi;
    } else {
      out.push_back({lo, hi, xs[i].second});
    }
  }
  return out;
}

std::string render_svg(const Chart& c) {
  const double W = 800, H = 500, L = 80, R = 170, T = 40, B = 60;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) {
      if ((c.log_x && x <= 0) || (c.log_y && y <= 0) || !std::isfinite(x) || !std::isfinite(y)) continue;
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
  }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) y1 = y0 + 1;
  auto tx = [&](double v) { return c.log_x ? std::log10(v) : v; };
  auto ty = [&](double v) { return c.log_y ? std::log10(v) : v; };
  const double ax0 = tx(x0), ax1 = tx(x1), ay0 = ty(y0), ay1 = ty(y1);
  auto px = [&](double v) { return L + (tx(v) - ax0) / (ax1 - ax0) * (W - L - R); };
  auto py = [&](double v) { return H - B - (ty(v) - ay0) / (ay1 - ay0) * (H - T - B); };
  std::string o = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      W, H, W, H);
  o += fmt::format("<text x=\"{}\" y=\"24\" font-size=\"16\" text-anchor=\"middle\">{}</text>\n", (W - R + L) / 2,
                   xml_escape(c.title));
  for (const Region& r : c.regions) {
    if (c.log_x && (r.from <= 0 || r.to <= 0)) continue;
    const double a = std::max(L, px(r.from)), b = std::min(W - R, px(r.to));
    if (!(b > a)) continue;
    o += fmt::format("<rect class=\"region\" x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"/>", a, T,
                     b - a, H - T - B, region_fill(r.label));
    if (b - a > 60)
      o += fmt::format("<text x=\"{:.2f}\" y=\"{}\" fill=\"#777\" font-size=\"11\">{}-bound</text>", a + 4, T + 12,
                       xml_escape(r.label));
    o += "\n";
  }
  o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", L, H - B, W - R, H - B);
  o += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", L, T, L, H - B);
  // Ticks: decades on log axes, five steps on linear ones.
  auto ticks = [](double a0, double a1, bool log) {
    std::vector<double> t;
    if (log) {
      for (double e = std::floor(a0); e <= std::ceil(a1); e += 1)
        if (e >= a0 - 1e-9 && e <= a1 + 1e-9) t.push_back(std::pow(10.0, e));
      if (t.size() < 3) {
        // Short spans: 1-2-5 steps inside each decade.
        t.clear();
        for (double e = std::floor(a0); e <= std::ceil(a1); e += 1)
          for (double mant : {1.0, 2.0, 5.0}) {
            const double v = mant * std::pow(10.0, e);
            if (std::log10(v) >= a0 - 1e-9 && std::log10(v) <= a1 + 1e-9) t.push_back(v);
          }
      }
    } else {
      for (int i = 0; i <= 5; ++i) t.push_back(a0 + (a1 - a0) * i / 5);
    }
    return t;
  };
  for (double v : ticks(ax0, ax1, c.log_x)) {
    o += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0}\" y=\"{3}\" "
        "text-anchor=\"middle\">{4}</text>\n",
        px(v), T, H - B, H - B + 16, format_number(v, 3));
  }
  for (double v : ticks(ay0, ay1, c.log_y)) {
    o += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4}\" "
        "text-anchor=\"end\">{5}</text>\n",
        L, py(v), W - R, L - 6, py(v) + 4, format_number(v, 3));
  }
  o += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (W - R + L) / 2, H - 18,
                   xml_escape(c.x_label));
  o += fmt::format("<text x=\"18\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {0})\">{1}</text>\n",
                   (H - B + T) / 2, xml_escape(c.y_label));
  double marker_y = T + 28;  // below the region labels; labels step down so neighbouring markers stay readable
  for (const auto& [x, label] : c.x_markers) {
    if (c.log_x && x <= 0) continue;
    o += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\" stroke-dasharray=\"4 4\"/>"
        "<text x=\"{3}\" y=\"{4}\" fill=\"#555\">{5}</text>\n",
        px(x), T, H - B, px(x) + 4, marker_y, xml_escape(label));
    marker_y += 14;
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const Series& s = c.series[i];
    const char* color = kColors[i % (sizeof(kColors) / sizeof(kColors[0]))];
    std::string pts;
    for (const auto& [x, y] : s.points) {
      if ((c.log_x && x <= 0) || (c.log_y && y <= 0)) continue;
      pts += fmt::format("{:.2f},{:.2f} ", px(x), py(y));
    }
    o += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>\n", color,
                     s.dashed ? " stroke-dasharray=\"6 4\"" : "", pts);
    for (const auto& [x, y] : s.points) {
      if ((c.log_x && x <= 0) || (c.log_y && y <= 0)) continue;
      o += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"3\" fill=\"{}\"/>\n", px(x), py(y), color);
    }
    const double ly = T + 20 + 20.0 * static_cast<double>(i);
    o += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>\n",
        W - R + 10, ly, W - R + 34, ly, color, W - R + 40, ly + 4, xml_escape(s.name));
  }
  o += "</svg>\n";
  return o;
}

}  // namespace llmecon
