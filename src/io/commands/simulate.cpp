// simulate: traffic through the discrete-event serving simulator (simulate.hpp, model.md §23).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "commands.hpp"
#include "io/encode.hpp"
#include "io/grid.hpp"
#include "plan/plan.hpp"
#include "scenario/layout.hpp"
#include "scenario/serving.hpp"
#include "simulate/simulate.hpp"
#include "simulate/simulate_args.hpp"
#include "units/json_text.hpp"

namespace llmecon::cmd {
namespace {

// The grid's axes from the flags (engines, layouts, rates and the shard), simulated by the
// scenario layer and written as one JSON row per point.
Result<Json> run_grid(const Engine& e, const Args& a, const SimSettings& settings, const Scenario& sc,
                      const SimConfig& c, const Progress& progress) {
  std::pair<std::size_t, std::size_t> shard{1, 1};
  if (a.has("shard")) {
    TRY(sh, parse_shard(a.text("shard"), "--shard"));
    shard = sh;
  }
  std::vector<const ServingEngine*> engines{sc.engine};
  if (a.has("grid_engines")) {
    engines.clear();
    for (const auto& name_text : split_list(a.text("grid_engines"))) {
      TRY(ge, e.serving_engine(name_text, "--grid-engines"));
      engines.push_back(ge);
    }
  }
  std::vector<Mapping> layouts{c.decode.map};
  if (a.has("grid_layouts")) {
    layouts.clear();
    for (const auto& l : split_list(a.text("grid_layouts"))) {
      TRY(m, parse_layout(l));
      if (auto why = validate(m, *sc.model, m.replica_chips())) return Error{"--grid-layouts", "", l + ": " + *why, ""};
      layouts.push_back(m);
    }
  }
  std::vector<RequestsPerSecond> rates{c.workload.arrivals.rate};
  if (a.has("grid_rates")) {
    rates.clear();
    for (const double r : a.numbers("grid_rates")) rates.push_back(units::requests_per_s(r));
  }
  const std::size_t total = engines.size() * layouts.size() * rates.size();
  if (total * static_cast<std::size_t>(c.workload.requests) > 100'000'000) {
    return Error{"--grid-rates", "", "the grid simulates more than 10^8 requests", "fewer points or --requests"};
  }
  Json lines = Json::array();
  TRY_STATUS(simulate_grid(
      c, settings, sc, engines, layouts, rates, shard,
      [&lines](const ServingGridPoint& p) {
        lines.push_back(grid_row_json(p.index, p.engine->name, p.map, p.rate, *p.result));
      },
      progress));
  return Json{{"points", total}, {"shard", fmt::format("{}/{}", shard.first, shard.second)}, {"rows", lines}};
}

}  // namespace

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = std::min(text.find(',', start), text.size());
    if (comma > start) out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// What a simulation's text says of its deployment and workload (text.hpp), as its JSON says it.
SimText describe(const Scenario& sc, const SimConfig& c, const std::string& arrival, const std::string& isl,
                 const std::string& osl, bool open_rate) {
  const Workload& w = c.workload;
  const DeploymentInput& in = c.decode;
  SimText x;
  x.model = sc.model->name;
  x.hardware = sc.hw->name;
  x.mapping = in.map.str();
  x.engine = sc.engine->name;
  x.scheduler = std::string(name(c.scheduler.kind));
  x.arrival = arrival;
  if (!w.arrivals.stages.empty()) {
    std::string said;
    for (const LoadStage& stage : w.arrivals.stages) {
      said += fmt::format("{}{} req/s for {}", said.empty() ? "" : ", ", format_number(stage.rate.si()),
                          format(stage.length));
    }
    x.arrival += fmt::format(" in stages: {}; reporting stage {}", said, w.arrivals.reported_stage());
  }
  x.isl = isl;
  x.osl = osl;
  x.replicas = c.replicas;
  x.chips_per_replica = in.map.replica_chips();
  x.seed = w.seed;
  if (open_rate && w.arrivals.stages.empty()) x.rate = w.arrivals.rate.si();
  if (w.arrivals.kind == ArrivalKind::kClosed) {
    x.clients = w.arrivals.clients;
    x.think = w.arrivals.think;
  }
  return x;
}

Result<Answer> simulate(const Engine& e, const Args& a, const Progress& progress, const Cancel& cancel) {
  TRY(sc, resolve_scenario(e.catalogs(), a, ScenarioDefaults{8, std::nullopt}));
  const ModelSpec& model = *sc.model;
  const Hardware* hw = sc.hw.get();
  const ServingEngine* engine = sc.engine;
  SimConfig c;
  Json envelope = Json::array();

  TRY(settings, read_sim_settings(a));
  std::vector<std::string> notes;
  TRY_STATUS(build_workload(settings.workload, c, notes));
  for (std::string& n : notes) envelope.push_back(std::move(n));
  const Workload& w = c.workload;
  const bool trace = settings.workload.traced();

  std::shared_ptr<const Hardware> prefill_owner;  // outlives the run: the prefill pool's priced chip
  std::vector<std::string> placed;
  TRY_STATUS(place_replica(e.catalogs(), a, settings, sc, c, placed, prefill_owner));
  for (std::string& n : placed) envelope.push_back(std::move(n));
  const DeploymentInput& in = c.decode;
  const Scheduler& s = c.scheduler;
  c.chrome_trace = a.has("chrome_trace");
  c.progress = progress;
  c.cancelled = cancel;

  // Lengths from a file (a trace, --lengths) are the file's.
  const std::string arrival = std::string(name(w.arrivals.kind)) + (w.arrivals.exact_count ? "-exact" : "");
  const std::string isl = w.pairs.empty() && !trace ? w.isl.str() : "from the file";
  const std::string osl = w.pairs.empty() && !trace ? w.osl.str() : "from the file";
  Json out{{"model", model.name},
           {"hardware", hw->name},
           {"price_source", hw->price_source},
           {"chips_per_replica", in.map.replica_chips()},
           {"replicas", c.replicas},
           {"mapping", in.map.str()},
           {"engine", engine->name},
           {"scheduler", std::string(name(s.kind))},
           {"router", std::string(name(c.router))},
           {"weight_dtype", std::string(name(in.precision.weights))},
           {"kv_dtype", std::string(name(in.precision.kv))},
           {"arrival", arrival},
           {"isl", isl},
           {"osl", osl},
           {"seed", w.seed}};
  if (w.arrivals.kind == ArrivalKind::kClosed) {
    out["concurrency"] = w.arrivals.clients;
    out["think_s"] = w.arrivals.think.si();
  } else if (w.arrivals.kind != ArrivalKind::kOffline && w.arrivals.kind != ArrivalKind::kTrace) {
    out["rate"] = w.arrivals.rate.si();
  }
  if (!w.arrivals.stages.empty()) {
    Json stages = Json::array();
    for (const LoadStage& stage : w.arrivals.stages) {
      stages.push_back({{"rate", stage.rate.si()}, {"seconds", stage.length.si()}});
    }
    out["stages"] = std::move(stages);
    out["report_stage"] = w.arrivals.reported_stage();
  }
  if (trace) out["trace_format"] = w.trace.format;
  out["efficiency"] = a.flag("ideal") ? "ideal" : e.efficiency_is_prior(*hw) ? "prior" : "sourced";
  const bool grid = a.has("grid_rates") || a.has("grid_layouts") || a.has("grid_engines");
  if (a.has("shard") && !grid) {
    return Error{"--shard", "", "shards a grid", "add --grid-rates, --grid-layouts or --grid-engines, or --grid"};
  }
  if (grid && a.flag("find_rate")) {
    return Error{"--find-rate", "", "a grid runs the rates --grid-rates lists", "drop --find-rate, or the grid"};
  }
  if (grid) {
    TRY(points, run_grid(e, a, settings, sc, c, progress));
    out["grid"] = std::move(points);
    out["envelope"] = envelope;
    // A grid's text is one JSON line per point, so shards concatenate into one file.
    Json rows = out["grid"]["rows"];
    return Answer{std::move(out), [rows = std::move(rows)] {
                    std::string lines;
                    for (const auto& row : rows) lines += json_text(row) + "\n";
                    return lines;
                  }};
  }
  SimText x = describe(sc, c, arrival, isl, osl, out.contains("rate"));
  SimResult result;
  if (a.flag("find_rate")) {
    TRY(found, find_rate(c));
    out["found_rate"] = found.rate.si();
    out["rate_tolerance"] = kRateTolerance;  // the bisection's bracket when it stops
    Json tried = Json::array();
    for (const auto& [rate, met] : found.tried) tried.push_back({{"rate", rate}, {"slo_met", met}});
    out["tried"] = tried;
    out["rate"] = found.rate.si();
    x.rate = found.rate.si();
    x.found_rate = found.rate.si();
    x.tried = found.tried.size();
    result = std::move(found.at);
  } else {
    TRY(r, llmecon::simulate(c));
    result = std::move(r);
  }
  const Json res = to_json(result);
  for (const auto& [k, v] : res.items()) out[k] = v;
  out["charts"] = charts_json(result);
  if (c.chrome_trace && !a.flag("find_rate")) out["chrome_trace"] = chrome_trace_json(result);
  out["envelope"] = envelope;
  for (const auto& l : envelope) x.envelope.push_back(l.get<std::string>());
  if (model.max_context > 0 && w.isl.mean() + w.osl.mean() > model.max_context) {
    x.warnings.push_back(fmt::format("mean context {} exceeds {}'s max_position_embeddings ({})",
                                     format_number(w.isl.mean() + w.osl.mean()), model.name, model.max_context));
    out["warnings"] = x.warnings;
  }
  // The text needs the counts and distributions, not the samples and trace the charts keep.
  result.samples.clear();
  result.trace.clear();
  return Answer{std::move(out), [result = std::move(result), x = std::move(x)] { return text(result, x); }};
}

// The simulate family's commands in the table (commands.hpp).
std::vector<Command> simulate_commands() {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  std::vector<Command> out;
  auto add = [&out](CommandSpec c, Fn run) { out.push_back(Command{std::move(c), run}); };
  {
    CommandSpec c = command("simulate",
                            "serve traffic in a discrete-event simulation: queues, p50/p99 TTFT and TPOT, goodput, "
                            "KV use, capacity",
                            simulate_arguments(), true);
    c.chart = "svg";
    c.api_caps = {{"requests", 1e6}, {"max_requests", 1e6}};
    c.redirects = {{"context", "simulate takes --isl and --osl (distributions allowed)"},
                   {"batch", "simulate forms batches itself; --max-seqs caps them"}};
    add(std::move(c), simulate);
  }
  return out;
}

}  // namespace llmecon::cmd
