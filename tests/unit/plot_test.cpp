// SVG charts: every series becomes a polyline with its points, log axes place decades evenly.
#include <gtest/gtest.h>

#include "io/plot.hpp"

namespace llmecon {
namespace {

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Plot, SeriesMarkersAndEscaping) {
  Chart c{"cost <per> token", "batch", "$/Mtok", true, true, {}, {}, {}};
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
  Chart c{"t", "x", "y", true, true, {}, {}, {}};
  c.series.push_back({"s", {{0, 1}, {1, -1}, {1, 1}, {10, 10}}, false});
  EXPECT_EQ(count(render_svg(c), "<circle"), 2);
}

// Bound regions: runs of one label merge, edges at geometric midpoints on log axes.
TEST(Plot, RegionsFollowTheBound) {
  const auto r = regions_of({{1, "weights"}, {4, "weights"}, {16, "compute"}, {64, "compute"}}, true);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].label, "weights");
  EXPECT_DOUBLE_EQ(r[0].from, 1);
  EXPECT_DOUBLE_EQ(r[0].to, 8);  // sqrt(4 x 16)
  EXPECT_DOUBLE_EQ(r[1].from, 8);
  EXPECT_DOUBLE_EQ(r[1].to, 64);
  const auto lin = regions_of({{0, "a"}, {10, "b"}}, false);
  EXPECT_DOUBLE_EQ(lin[0].to, 5);
  Chart c{"t", "x", "y", true, true, {}, {}, r};
  c.series.push_back({"s", {{1, 1}, {64, 10}}, false});
  const std::string svg = render_svg(c);
  EXPECT_EQ(count(svg, "class=\"region\""), 2);
  EXPECT_NE(svg.find("rgba(230,159,0,0.13)"), std::string::npos);  // compute, as on the web page
  EXPECT_NE(svg.find("weights-bound"), std::string::npos);
}

}  // namespace
}  // namespace llmecon
