// Charts of command results as SVG (plot.hpp), for --plot FILE.svg.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "llmecon/embedded.hpp"
#include "output.hpp"

namespace llmecon::cli {

namespace {

// (x, bound) pairs of rows sorted by x, for the shaded regions.
std::vector<std::pair<double, std::string>> bounds(const Json& rows, const char* x_key) {
  std::vector<std::pair<double, std::string>> out;
  for (const auto& row : rows) out.emplace_back(row[x_key].get<double>(), row["bound"].get<std::string>());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace

std::optional<Chart> chart_for(const std::string& command, const Json& r) {
  Chart c;
  if (command == "measure" && r.contains("decode")) {
    const Json& d = r["decode"];
    c = Chart{
        "Decode step on this machine: measured vs predicted", "batch", "seconds per token", true, true, {}, {}, {}};
    Series m{"measured", {}, false}, p{"predicted (roofline)", {}, true};
    for (const auto& pt : d["points"]) {
      m.points.emplace_back(pt["batch"].get<double>(), pt["measured_s_per_token"].get<double>());
      p.points.emplace_back(pt["batch"].get<double>(), pt["predicted_s_per_token"].get<double>());
    }
    c.series = {m, p};
    c.x_markers = {{d["knee_predicted"].get<double>(), "knee predicted"},
                   {d["knee_measured"].get<double>(), "knee measured"}};
    return c;
  }
  if (command == "sweep") {
    c = Chart{fmt::format("{} on {} x {}", r["model"].get<std::string>(), r["chips"].get<int>(),
                          r["hardware"].get<std::string>()),
              "batch",
              "$ per million tokens",
              true,
              true,
              {},
              {},
              {}};
    std::map<double, Series> by_ctx;
    for (const auto& row : r["rows"]) {
      const double ctx = row["context"].get<double>();
      auto& s = by_ctx[ctx];
      s.name = "context " + format_number(ctx);
      s.points.emplace_back(row["batch"].get<double>(), row["usd_per_mtok"].get<double>());
    }
    for (auto& [k, s] : by_ctx) c.series.push_back(s);
    if (by_ctx.size() == 1) c.regions = regions_of(bounds(r["rows"], "batch"), true);
    return c;
  }
  if (command == "batch") {
    c = Chart{"Cost per token against batch", "batch", "$ per million tokens", true, true, {}, {}, {}};
    Series s{"cost", {}, false};
    for (const auto& row : r["curve"])
      s.points.emplace_back(row["batch"].get<double>(), row["usd_per_mtok"].get<double>());
    c.series = {s};
    c.x_markers = {{r["b_star"].get<double>(), "B* = R x S"}};
    c.regions = regions_of(bounds(r["curve"], "batch"), true);
    return c;
  }
  if (command == "context") {
    c = Chart{"Cost per token against context", "context (tokens)", "$ per million tokens", true, true, {}, {}, {}};
    Series s{"cost", {}, false};
    for (const auto& row : r["curve"])
      s.points.emplace_back(row["context"].get<double>(), row["usd_per_mtok"].get<double>());
    c.series = {s};
    if (!r["crossover_context"].is_null()) c.x_markers = {{r["crossover_context"].get<double>(), "KV = compute"}};
    c.regions = regions_of(bounds(r["curve"], "context"), true);
    return c;
  }
  if (command == "plan") {
    c = Chart{"Pareto frontier", "tokens/s per user", "tokens/s per chip", true, true, {}, {}, {}};
    Series s{"frontier", {}, false};
    for (const auto& pt : r["frontier"])
      s.points.emplace_back(pt["tokens_per_s_per_user"].get<double>(), pt["tokens_per_s_per_chip"].get<double>());
    std::sort(s.points.begin(), s.points.end());
    c.series = {s};
    return c;
  }
  return std::nullopt;
}

}  // namespace llmecon::cli
