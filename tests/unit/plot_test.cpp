// SVG charts: every series becomes a polyline with its points, log axes place decades evenly.
#include <gtest/gtest.h>

#include "llmecon/plot.hpp"

namespace llmecon {
namespace {

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Plot, SeriesMarkersAndEscaping) {
  Chart c{"cost <per> token", "batch", "$/Mtok", true, true, {}, {}};
  c.series.push_back({"a", {{1, 100}, {10, 10}, {100, 1}}, false});
  c.series.push_back({"b & c", {{1, 50}, {100, 5}}, true});
  c.x_markers = {{10, "B*"}};
  const std::string svg = render_svg(c);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_EQ(count(svg, "<polyline"), 2);
  EXPECT_EQ(count(svg, "<circle"), 5);
  EXPECT_NE(svg.find("cost &lt;per&gt; token"), std::string::npos);
  EXPECT_NE(svg.find("b &amp; c"), std::string::npos);
  EXPECT_NE(svg.find("stroke-dasharray=\"6 4\""), std::string::npos);
  EXPECT_NE(svg.find(">B*<"), std::string::npos);
  // Log x from 1 to 100: the decade 10 sits halfway across the plot area (80 .. 630).
  EXPECT_NE(svg.find("<circle cx=\"355.00\""), std::string::npos);
}

TEST(Plot, NonPositiveValuesAreDroppedOnLogAxes) {
  Chart c{"t", "x", "y", true, true, {}, {}};
  c.series.push_back({"s", {{0, 1}, {1, -1}, {1, 1}, {10, 10}}, false});
  EXPECT_EQ(count(render_svg(c), "<circle"), 2);
}

}  // namespace
}  // namespace llmecon
