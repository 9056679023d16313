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
#include "simulate/simulate.hpp"
#include "simulate/simulate_args.hpp"
#include "units/json_text.hpp"

namespace llmecon::cmd {
namespace {

// "tp4.pp2.dpa2.ep8": a layout of the grid; absent degrees are 1.
Result<Mapping> parse_layout(const std::string& text) {
  Mapping m;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto dot = std::min(text.find('.', start), text.size());
    const std::string part = text.substr(start, dot - start);
    std::size_t digits = 0;
    while (digits < part.size() && std::isalpha(static_cast<unsigned char>(part[digits])) != 0) ++digits;
    const auto v = parse_number_text(part.substr(digits));
    const std::string key = part.substr(0, digits);
    if (!v || *v < 1 || *v > 1e6 || *v != std::floor(*v)) {
      return Error{"--grid-layouts", "", "'" + text + "' is not a layout", "tp8, tp4.pp2 or tp1.dpa8.ep8"};
    }
    const int d = static_cast<int>(*v);
    if (key == "tp") {
      m.tp = d;
    } else if (key == "pp") {
      m.pp = d;
    } else if (key == "ep") {
      m.ep = d;
    } else if (key == "dpa") {
      m.dp_attn = d;
    } else {
      return Error{"--grid-layouts", "", fmt::format("unknown degree '{}' in '{}'", key, text), "tp, pp, ep or dpa"};
    }
    start = dot + 1;
  }
  return m;
}

// The replica: its chips, layout (stated or inferred), formats, efficiency and engine; the
// prefill pool's (its chip kept alive by `prefill_owner`) when disaggregated.
Status place_replica(const Engine& e, const Args& a, const SimSettings& settings, const Scenario& sc, SimConfig& c,
                     Json& envelope, std::shared_ptr<const Hardware>& prefill_owner) {
  const ModelSpec& model = *sc.model;
  const Hardware* hw = sc.hw.get();
  const ServingEngine* engine = sc.engine;
  const Workload& w = c.workload;
  DeploymentInput& in = c.decode;
  in = sc.deployment();
  const int chips = sc.chips;
  Scheduler& s = c.scheduler;
  apply_scheduler(s, engine, settings.scheduler, static_cast<double>(model.max_context));
  s.kind = settings.kind;
  c.router = settings.router;
  c.replicas = settings.replicas;
  c.warmup_fraction = settings.warmup;
  // One replica (--replicas counts them) without context parallelism; the rest as stated, and
  // what is not, by the one rule (model.md §17.5): the planner's best for min(256, the engine's
  // sequence cap) sequences at the mean context, halved until some layout holds them.
  Mapping stated = sc.stated;
  stated.cp = 1;
  stated.dp = 1;
  const auto layout = complete_layout(
      in, chips, stated, LayoutLoad{std::min(s.max_seqs, 256.0), w.isl.mean() + w.osl.mean() / 2, w.isl.mean()});
  if (!layout) {
    // A stated degree larger than the replica's chips is the flag to change.
    std::string flag = "--chips";
    for (const char* key : {"tp", "pp", "ep", "dp_attn"}) {
      if (a.has(key) && a.number(key) > chips) flag = flag_of(key);
    }
    return Error{flag, "", fmt::format("no layout of {} on {} x {} fits", model.name, chips, hw->name),
                 flag == "--chips" ? "more chips per replica, or a narrower --weight-dtype"
                                   : "a degree no larger than the replica's chips (--chips)"};
  }
  in.map = layout->map;
  in.map.dp = 1;
  scale_caps_to_ranks(s, *engine, in.map.dp_attn);  // caps given per rank bind each attention-DP rank
  if (!layout->inferred) {
    if (auto why = validate(in.map, model, chips)) return Error{"--tp", "", *why, "a layout whose degrees fit"};
  } else {
    envelope.push_back(fmt::format("layout not stated: the planner's best on {} chips, {}", chips, in.map.str()));
  }
  if (s.kind == SchedulerKind::kDisaggregated) {
    DeploymentInput p = in;
    const Hardware* phw = hw;
    if (a.has("prefill_hw")) {
      TRY(ph, prefill_hardware(e.catalogs(), a, prefill_owner));
      phw = ph;
      p.hw = phw;
      p.eff = efficiency_from(e.catalogs(), a, *phw);
      TRY(ppower, power_model(a, *phw));
      p.power = ppower;
    }
    const int pchips = static_cast<int>(a.number_or("prefill_chips", chips));
    const auto best = complete_layout(p, pchips, Mapping{0, 0, 0, 0, 0, 1}, LayoutLoad{1, w.isl.mean(), w.isl.mean()});
    if (!best) return Error{"--prefill-chips", "", "no prefill layout fits", "more prefill chips"};
    p.map = best->map;
    p.map.dp = 1;
    c.prefill = p;
    c.prefill_replicas = static_cast<int>(a.number("prefill_replicas"));
    envelope.push_back(
        fmt::format("prefill pool: {} x {} {} ({})", c.prefill_replicas, pchips, phw->name, p.map.str()));
  } else if (a.has("prefill_hw") || a.has("prefill_chips")) {
    return Error{"--prefill-hw", "", "a prefill pool needs --scheduler disaggregated", ""};
  }
  envelope.push_back(
      fmt::format("engine {}: {} tokens and {} sequences per iteration, KV blocks of {}, {}{}{}{}{}{}", engine->name,
                  format_number(s.max_batched_tokens), format_number(s.max_seqs), s.block_tokens,
                  s.chunked_prefill ? "chunked prefill" : "whole prompts", s.prefix_caching ? ", prefix caching" : "",
                  s.priority == Priority::kPrefillFirst ? ", prefills first" : ", decodes first",
                  s.decode_steps > 1 ? fmt::format(", {} decode steps per scheduling", s.decode_steps) : "",
                  in.compute_sustained != 1.0
                      ? fmt::format(", GEMMs at {} of the chip's rate (§18.4)", format_number(in.compute_sustained))
                      : "",
                  host_time_clause(*engine)));
  if (!sc.kv_stated) {
    // The format decides how many sequences fit (model.md §18.4): say which one was taken.
    envelope.push_back(fmt::format("KV format not stated: {}, {}'s default for {} weights", name(in.precision.kv),
                                   engine->name, name(in.precision.weights)));
  }
  if (!s.chunked_prefill && w.isl.mean() > s.max_batched_tokens) {
    envelope.push_back(fmt::format(
        "prompts of {} tokens pass the {}-token budget: each runs whole beside the decodes as its iteration's only "
        "prefill (an engine that does not chunk needs a budget that holds its longest prompt)",
        format_number(w.isl.mean()), format_number(s.max_batched_tokens)));
  }
  return {};
}

// The grid: engines x layouts x rates in that order; a shard runs every N-th point.
Result<Json> run_grid(const Engine& e, const Args& a, const SimSettings& settings, const Scenario& sc,
                      const SimConfig& c, const Progress& progress) {
  const ModelSpec& model = *sc.model;
  const ServingEngine* engine = sc.engine;
  const Workload& w = c.workload;
  const DeploymentInput& in = c.decode;
  std::size_t shard_k = 1, shard_n = 1;
  if (a.has("shard")) {
    TRY(sh, parse_shard(a.text("shard"), "--shard"));
    std::tie(shard_k, shard_n) = sh;
  }
  std::vector<const ServingEngine*> engines{engine};
  if (a.has("grid_engines")) {
    engines.clear();
    for (const auto& name_text : split_list(a.text("grid_engines"))) {
      TRY(ge, e.serving_engine(name_text, "--grid-engines"));
      engines.push_back(ge);
    }
  }
  std::vector<Mapping> layouts{in.map};
  if (a.has("grid_layouts")) {
    layouts.clear();
    for (const auto& l : split_list(a.text("grid_layouts"))) {
      TRY(m, parse_layout(l));
      if (auto why = validate(m, model, m.replica_chips())) return Error{"--grid-layouts", "", l + ": " + *why, ""};
      layouts.push_back(m);
    }
  }
  std::vector<double> rates{w.arrivals.rate.si()};
  if (a.has("grid_rates")) rates = a.numbers("grid_rates");
  const std::size_t total = engines.size() * layouts.size() * rates.size();
  if (total * static_cast<std::size_t>(w.requests) > 100'000'000) {
    return Error{"--grid-rates", "", "the grid simulates more than 10^8 requests", "fewer points or --requests"};
  }
  Json lines = Json::array();
  std::size_t index = 0;
  for (const ServingEngine* ge : engines) {
    for (const Mapping& m : layouts) {
      for (const double rate : rates) {
        const std::size_t i = index++;
        if (i % shard_n != shard_k - 1) continue;
        SimConfig g = c;
        g.decode.map = m;
        sc.serve_on(g.decode, *ge);
        apply_scheduler(g.scheduler, ge, settings.scheduler, static_cast<double>(model.max_context));
        scale_caps_to_ranks(g.scheduler, *ge, m.dp_attn);
        g.workload.arrivals.kind = ArrivalKind::kPoisson;
        g.workload.arrivals.rate = units::requests_per_s(rate);
        g.progress = nullptr;
        TRY(r, llmecon::simulate(g));
        lines.push_back(grid_row_json(i, ge->name, m, rate, r));
        if (progress) progress(static_cast<double>(index) / static_cast<double>(total));
      }
    }
  }
  return Json{{"points", total}, {"shard", fmt::format("{}/{}", shard_k, shard_n)}, {"rows", lines}};
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
    for (const auto& [rate, seconds] : w.arrivals.stages) {
      said += fmt::format("{}{} req/s for {}", said.empty() ? "" : ", ", format_number(rate),
                          format(units::seconds(seconds)));
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
    x.think_s = w.arrivals.think_s;
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
  TRY_STATUS(place_replica(e, a, settings, sc, c, envelope, prefill_owner));
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
    out["think_s"] = w.arrivals.think_s;
  } else if (w.arrivals.kind != ArrivalKind::kOffline && w.arrivals.kind != ArrivalKind::kTrace) {
    out["rate"] = w.arrivals.rate.si();
  }
  if (!w.arrivals.stages.empty()) {
    Json stages = Json::array();
    for (const auto& [rate, seconds] : w.arrivals.stages) stages.push_back({{"rate", rate}, {"seconds", seconds}});
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
