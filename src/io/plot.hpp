// io/plot.hpp: small self-contained SVG line charts for the CLI's --plot (no dependencies).
//
//   Chart c{"Decode step", "batch", "seconds per token"};
//   c.log_x = c.log_y = true;
//   c.series.push_back({"measured", {{1, 0.04}, {2, 0.025}}});
//   std::string svg = render_svg(c);
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llmecon {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;
  bool dashed = false;
};

struct Region {
  double from = 0;
  double to = 0;
  std::string label;
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool log_y = false;
  std::vector<Series> series;
  std::vector<std::pair<double, std::string>> x_markers;  ///< vertical lines with labels
  /// Shaded x-ranges behind the data, labelled ("compute", "weights", "kv" get the web page's colours).
  std::vector<Region> regions;
};

/// Consecutive points with the same label become one region; edges sit halfway between samples
/// (geometrically when log_x), as the web page's charts draw them.
std::vector<Region> regions_of(const std::vector<std::pair<double, std::string>>& labelled_x, bool log_x);

/// Text made safe inside XML or HTML elements and attributes (< > & ").
std::string xml_escape(std::string_view text);

/// An SVG document (800 x 500) with axes, ticks, a legend and one polyline per series.
std::string render_svg(const Chart& c);

}  // namespace llmecon
