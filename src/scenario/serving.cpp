// A `simulate` question's deployment and its grid (serving.hpp, docs/model.md §23, §17.5).
#include "scenario/serving.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "scenario/layout.hpp"

namespace llmecon {

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

namespace {

// How the engine note names a schedule: ", decodes first", ", prefills first", else its name.
std::string schedule_words(const std::string& schedule) {
  if (schedule == "decode-first") return ", decodes first";
  if (schedule == "prefill-first") return ", prefills first";
  return ", schedule " + schedule;
}

// Disaggregated: the prefill pool's chip (--prefill-hw, kept alive by `prefill_owner`), chips
// and layout (the planner's best for one prompt at a time); a prefill flag without the pool is
// refused.
Status place_prefill_pool(const Catalogs& cat, const Args& a, int chips, SimConfig& c, std::vector<std::string>& notes,
                          std::shared_ptr<const Hardware>& prefill_owner) {
  const DeploymentInput& in = c.decode;
  const Hardware* hw = in.hw;
  const Workload& w = c.workload;
  const Scheduler& s = c.scheduler;
  if (s.kind == SchedulerKind::kDisaggregated) {
    DeploymentInput p = in;
    const Hardware* phw = hw;
    if (a.has("prefill_hw")) {
      TRY(ph, prefill_hardware(cat, a, prefill_owner));
      phw = ph;
      p.hw = phw;
      p.eff = efficiency_from(cat, a, *phw);
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
    notes.push_back(fmt::format("prefill pool: {} x {} {} ({})", c.prefill_replicas, pchips, phw->name, p.map.str()));
  } else if (a.has("prefill_hw") || a.has("prefill_chips")) {
    return Error{"--prefill-hw", "", "a prefill pool needs --scheduler disaggregated", ""};
  }
  return {};
}

}  // namespace

Status place_replica(const Catalogs& cat, const Args& a, const SimSettings& settings, const Scenario& sc, SimConfig& c,
                     std::vector<std::string>& notes, std::shared_ptr<const Hardware>& prefill_owner) {
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
    notes.push_back(fmt::format("layout not stated: the planner's best on {} chips, {}", chips, in.map.str()));
  }
  TRY_STATUS(place_prefill_pool(cat, a, chips, c, notes, prefill_owner));
  notes.push_back(fmt::format("engine {}: {} tokens and {} sequences per iteration, KV blocks of {}, {}{}{}{}{}{}",
                              engine->name, format_number(s.max_batched_tokens), format_number(s.max_seqs),
                              s.block_tokens, s.chunked_prefill ? "chunked prefill" : "whole prompts",
                              s.prefix_caching ? ", prefix caching" : "", schedule_words(s.schedule),
                              s.decode_steps > 1 ? fmt::format(", {} decode steps per scheduling", s.decode_steps) : "",
                              in.compute_sustained != 1.0 ? fmt::format(", GEMMs at {} of the chip's rate (§18.4)",
                                                                        format_number(in.compute_sustained))
                                                          : "",
                              host_time_clause(*engine)));
  if (!sc.kv_stated) {
    // The format decides how many sequences fit (model.md §18.4): say which one was taken.
    notes.push_back(fmt::format("KV format not stated: {}, {}'s default for {} weights", name(in.precision.kv),
                                engine->name, name(in.precision.weights)));
  }
  if (!s.chunked_prefill && w.isl.mean() > s.max_batched_tokens) {
    notes.push_back(fmt::format(
        "prompts of {} tokens pass the {}-token budget: each runs whole beside the decodes as its iteration's only "
        "prefill (an engine that does not chunk needs a budget that holds its longest prompt)",
        format_number(w.isl.mean()), format_number(s.max_batched_tokens)));
  }
  return {};
}

Status simulate_grid(const SimConfig& base, const SimSettings& settings, const Scenario& sc,
                     const std::vector<const ServingEngine*>& engines, const std::vector<Mapping>& layouts,
                     const std::vector<RequestsPerSecond>& rates, std::pair<std::size_t, std::size_t> shard,
                     const std::function<void(const ServingGridPoint&)>& each,
                     const std::function<void(double)>& progress) {
  const auto [shard_k, shard_n] = shard;
  const std::size_t total = engines.size() * layouts.size() * rates.size();
  const double context = static_cast<double>(sc.model->max_context);
  std::size_t index = 0;
  for (const ServingEngine* engine : engines) {
    for (const Mapping& m : layouts) {
      for (const RequestsPerSecond rate : rates) {
        const std::size_t i = index++;
        if (i % shard_n != shard_k - 1) continue;
        SimConfig g = base;
        g.decode.map = m;
        sc.serve_on(g.decode, *engine);
        apply_scheduler(g.scheduler, engine, settings.scheduler, context);
        scale_caps_to_ranks(g.scheduler, *engine, m.dp_attn);
        g.workload.arrivals.kind = ArrivalKind::kPoisson;
        g.workload.arrivals.rate = rate;
        g.progress = nullptr;
        TRY(r, simulate(g));
        each(ServingGridPoint{i, engine, m, rate, &r});
        if (progress) progress(static_cast<double>(index) / static_cast<double>(total));
      }
    }
  }
  return {};
}

}  // namespace llmecon
