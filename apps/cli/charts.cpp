// Charts of command results as SVG (plot.hpp), for --plot FILE.svg.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "output.hpp"
#include "units/embedded.hpp"

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
  if (command == "scale") {
    // Training, lifetime inference and total dollars against N at the target loss (model.md §24.7).
    c = Chart{fmt::format("{}: cost against N at loss {}", r["fit"].get<std::string>(),
                          format_number(r["target_loss"].get<double>())),
              "parameters N",
              "dollars",
              true,
              true,
              {},
              {},
              {}};
    Series total{"total", {}, false}, train{"training", {}, false}, serve{"lifetime inference", {}, false};
    for (const auto& row : r["cost_vs_n"]) {
      const double n = row["params"].get<double>();
      total.points.emplace_back(n, row["total_usd"].get<double>());
      train.points.emplace_back(n, row["train_usd"].get<double>());
      if (row["inference_usd"].get<double>() > 0) serve.points.emplace_back(n, row["inference_usd"].get<double>());
    }
    c.series = {total, train, serve};
    c.x_markers = {{r["params"].get<double>(), "cheapest"}, {r["chinchilla_params"].get<double>(), "compute-optimal"}};
    return c;
  }
  if (command == "simulate") {
    // Latency CDFs on one log axis: TTFT, TPOT and end to end, in seconds.
    c = Chart{fmt::format("{} on {} x {}: latency CDFs", r["model"].get<std::string>(),
                          r["chips_per_replica"].get<int>(), r["hardware"].get<std::string>()),
              "seconds",
              "fraction of requests",
              true,
              false,
              {},
              {},
              {}};
    const Json& ch = r["charts"];
    auto cdf = [&](const char* key, const char* label, double scale) {
      Series s{label, {}, false};
      const Json& d = ch[key];
      for (std::size_t i = 0; i < d["x"].size(); ++i) {
        const double x = d["x"][i].get<double>() * scale;
        if (x > 0) s.points.emplace_back(x, d["y"][i].get<double>());
      }
      return s;
    };
    c.series = {cdf("ttft_s", "TTFT", 1), cdf("tpot_ms", "TPOT", 1e-3), cdf("e2e_s", "end to end", 1)};
    for (const auto& slo : r["slo"]) {
      c.x_markers.emplace_back(
          slo["bound_s"].get<double>(),
          fmt::format("{} p{} target", slo["metric"].get<std::string>(), slo["percentile"].get<double>()));
    }
    return c;
  }
  if (command == "simulate-time") {
    c = Chart{"Batch and KV use over time (replica 0)", "seconds", "sequences per iteration", false, false, {}, {}, {}};
    const Json& t = r["charts"]["over_time"];
    Series b{"batch", {}, false}, kv{"KV use x max batch", {}, true};
    double peak = 1;
    for (const auto& v : t["batch"]) peak = std::max(peak, v.get<double>());
    for (std::size_t i = 0; i < t["t_s"].size(); ++i) {
      b.points.emplace_back(t["t_s"][i].get<double>(), t["batch"][i].get<double>());
      kv.points.emplace_back(t["t_s"][i].get<double>(), t["kv_used"][i].get<double>() * peak);
    }
    c.series = {b, kv};
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
