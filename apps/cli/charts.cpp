// Charts of command results as SVG (plot.hpp), for --plot FILE.svg.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "output.hpp"
#include "units/embedded.hpp"

namespace llmecon::cli {

namespace {

// A row that does not fit has no price or time to draw (docs/quantities.md).
bool drawn(const Json& row) {
  return row.value("feasible", true);
}

// A sweep row's price: per output token of a decode step, per input token of a prefill pass.
double pass_price(const Json& row) {
  return (row.contains("usd_per_mtok_output") ? row["usd_per_mtok_output"] : row["usd_per_mtok_input"]).get<double>();
}

// (x, bound) pairs of rows sorted by x, for the shaded regions.
std::vector<std::pair<double, std::string>> bounds(const Json& rows, const char* x_key) {
  std::vector<std::pair<double, std::string>> out;
  for (const auto& row : rows) out.emplace_back(row[x_key].get<double>(), row["bound"].get<std::string>());
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

// measure --decode: the measured and predicted decode step against batch.
std::optional<Chart> measure_chart(const Json& r) {
  Chart c;
  if (!r.contains("decode")) return std::nullopt;
  const Json& d = r["decode"];
  c = Chart{"Decode step on this machine: measured vs predicted", "batch", "seconds per token", true, true, {}, {}, {}};
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

// scale: training, lifetime inference and total dollars against N at the target loss (model.md §24.7).
std::optional<Chart> scale_chart(const Json& r) {
  Chart c;
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

// simulate: latency CDFs on one log axis: TTFT, TPOT and end to end, in seconds.
std::optional<Chart> simulate_chart(const Json& r) {
  Chart c;
  c = Chart{fmt::format("{} on {} x {}: latency CDFs", r["model"].get<std::string>(), r["chips_per_replica"].get<int>(),
                        r["hardware"].get<std::string>()),
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

// simulate: the batch and KV use over time.
std::optional<Chart> simulate_time_chart(const Json& r) {
  Chart c;
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

// sweep: cost per token against batch, one series per context.
std::optional<Chart> sweep_chart(const Json& r) {
  Chart c;
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
    if (!drawn(row)) continue;
    const double ctx = row["context"].get<double>();
    auto& s = by_ctx[ctx];
    s.name = "context " + format_number(ctx);
    s.points.emplace_back(row["batch"].get<double>(), pass_price(row));
  }
  for (auto& [k, s] : by_ctx) c.series.push_back(s);
  if (by_ctx.size() == 1) c.regions = regions_of(bounds(r["rows"], "batch"), true);
  return c;
}

// batch: cost per token against batch, with B*.
std::optional<Chart> batch_chart(const Json& r) {
  Chart c;
  c = Chart{"Cost per token against batch", "batch", "$ per million tokens", true, true, {}, {}, {}};
  Series s{"cost", {}, false};
  for (const auto& row : r["curve"]) {
    if (drawn(row)) s.points.emplace_back(row["batch"].get<double>(), row["usd_per_mtok_output"].get<double>());
  }
  c.series = {s};
  c.x_markers = {{r["b_star"].get<double>(), "B* = R x S"}};
  c.regions = regions_of(bounds(r["curve"], "batch"), true);
  return c;
}

// context: cost per token against context, with the crossover.
std::optional<Chart> context_chart(const Json& r) {
  Chart c;
  c = Chart{"Cost per token against context", "context (tokens)", "$ per million tokens", true, true, {}, {}, {}};
  Series s{"cost", {}, false};
  for (const auto& row : r["curve"]) {
    if (drawn(row)) s.points.emplace_back(row["context"].get<double>(), row["usd_per_mtok_output"].get<double>());
  }
  c.series = {s};
  if (!r["crossover_context"].is_null()) c.x_markers = {{r["crossover_context"].get<double>(), "KV = compute"}};
  c.regions = regions_of(bounds(r["curve"], "context"), true);
  return c;
}

// plan: the Pareto frontier.
std::optional<Chart> plan_chart(const Json& r) {
  Chart c;
  c = Chart{"Pareto frontier", "tokens/s per user", "tokens/s per chip", true, true, {}, {}, {}};
  Series s{"frontier", {}, false};
  for (const auto& pt : r["frontier"])
    s.points.emplace_back(pt["tokens_per_s_per_user"].get<double>(), pt["tokens_per_s_per_chip"].get<double>());
  std::sort(s.points.begin(), s.points.end());
  c.series = {s};
  return c;
}

}  // namespace

std::optional<Chart> chart_for(const std::string& command, const Json& r) {
  using Builder = std::optional<Chart> (*)(const Json&);
  static const std::map<std::string, Builder> charts = {
      {"measure", measure_chart},   {"scale", scale_chart},
      {"simulate", simulate_chart}, {"simulate-time", simulate_time_chart},
      {"sweep", sweep_chart},       {"batch", batch_chart},
      {"context", context_chart},   {"plan", plan_chart},
  };
  const auto it = charts.find(command);
  return it == charts.end() ? std::nullopt : it->second(r);
}

}  // namespace llmecon::cli
