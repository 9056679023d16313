// The text of simulate and plan (text.hpp).
#include <fmt/format.h>

#include <tuple>

#include "io/text.hpp"

namespace llmecon {
namespace {

// One planned point as a row of the plan's tables.
std::vector<std::string> point_row(const PlanPoint& p, DType native) {
  const bool quantized = bytes_per_element(p.weights) < bytes_per_element(native);
  return {p.map.str(),
          format_number(p.batch),
          std::string(name(p.weights)) + "/" + std::string(name(p.kv)) + (quantized ? " q" : ""),
          format_number(p.decode.tokens_per_s_per_chip.si()),
          format_number(p.decode.tokens_per_s_per_user.si()),
          format(p.prefill.latency),
          format_number(p.decode.latency.si() * 1e3) + " ms",
          "$" + format_number(p.decode.usd_per_token.si() * 1e6),
          "$" + format_number(p.usd_per_token.si() * 1e6),
          fmt::format("{:.3g}", p.energy_per_token.si()),
          std::string(p.decode.bound),
          p.meets_slo ? "yes" : "no"};
}

std::string capacity_text(const Capacity& c, double osl) {
  std::string out = fmt::format("\ncapacity at {} req/s (SLO at p99, {} layouts simulated):\n",
                                format_number(c.rate.si()), c.simulated_layouts);
  std::vector<std::vector<std::string>> rows;
  for (const CapacityOption& o : c.options) {
    const double usd_per_hour = o.cost.si() * 3600;
    rows.push_back({o.map.str(), format_number(o.rate_per_replica.si()), format_number(o.replicas),
                    format_number(o.chips), "$" + format_number(usd_per_hour),
                    "$" + format_number(usd_per_hour / 3600 / (c.rate.si() * osl) * 1e6), format(o.ttft_p99),
                    format_number(o.tpot_p99.si() * 1e3) + " ms"});
  }
  return out +
         text_table({"replica", "req/s each", "replicas", "chips", "$/h", "$/Mtok out", "TTFT p99", "TPOT p99"}, rows);
}

std::string scaleup_text(const std::vector<ScaleUpOption>& sweep) {
  std::vector<std::vector<std::string>> s;
  for (const ScaleUpOption& r : sweep) {
    if (!r.plan.best) {
      s.push_back({std::to_string(r.domain), "-", "-", "-", "-", "-", "-", r.plan.empty_reason});
      continue;
    }
    const PlanPoint& b = *r.plan.best;
    s.push_back({std::to_string(r.domain), b.map.str(), format_number(b.decode.tokens_per_s_per_chip.si()),
                 format_number(b.decode.latency.si() * 1e3) + " ms",
                 r.fabric_rent ? "$" + format_number(r.fabric_rent->si() * 3600.0) + "/h" : std::string("-"),
                 "$" + format_number(b.usd_per_token.si() * 1e6), fmt::format("{:.3g}", b.energy_per_token.si()), ""});
  }
  return "\nscale-up domain sizes:\n" +
         text_table({"domain", "best mapping", "tok/s/chip", "TPOT", "fabric/chip", "$/Mtok", "J/tok", "note"}, s);
}

}  // namespace

std::string text(const SimResult& r, const SimText& x) {
  std::string arrival = x.arrival;
  if (x.rate) arrival += fmt::format(" at {} req/s", format_number(*x.rate));
  if (x.clients) arrival += fmt::format(", {} clients, think {}", *x.clients, format(x.think));
  std::string out = fmt::format("simulate: {} on {} replica(s) of {} x {} ({}), {} engine, {} scheduler\n", x.model,
                                x.replicas, x.chips_per_replica, x.hardware, x.mapping, x.engine, x.scheduler);
  out += fmt::format("workload: {}; input {}, output {}; seed {}\n", arrival, x.isl, x.osl, x.seed);
  if (x.found_rate) {
    out += fmt::format("largest rate meeting the SLO: {} req/s ({} runs, bisected to {}%)\n",
                       format_number(*x.found_rate), x.tried, format_number(100 * kRateTolerance));
  }
  out += fmt::format("\ncompleted {} of {} requests ({} dropped), {} counted: {}\n", r.completed, r.arrived, r.dropped,
                     r.counted, r.rule);
  for (const std::string& d : r.drop_reasons) out += "  dropped: " + d + "\n";
  const double chips = std::max(1, r.chips);
  out += fmt::format("throughput: {} req/s, {} output tok/s ({} per chip), {} input tok/s\n",
                     format_number(r.requests_per_s.si()), format_number(r.output_throughput.si()),
                     format_number(r.output_throughput.si() / chips), format_number(r.input_throughput.si()));
  if (r.load && r.load->overloaded) {
    out += fmt::format(
        "OVERLOADED: offered {} req/s, served {} req/s (end to end {} for the first tenth counted, {} for the "
        "last): these latencies describe a growing queue, not a steady state (fewer req/s per replica, or more "
        "replicas)\n",
        format_number(r.load->offered_requests_per_s.si()), format_number(r.load->served_requests_per_s.si()),
        format(r.load->e2e_early), format(r.load->e2e_late));
  }
  out += fmt::format("cost: ${}/Mtok output, ${}/Mtok blended, at the achieved rate\n",
                     format_number(r.cost_per_output_token.si() * 1e6), format_number(r.cost_per_token.si() * 1e6));
  out += fmt::format("energy: {:.3g} J per output token, {:.3g} J per token processed, {} kWh in all\n\n",
                     r.energy_per_output_token.si(), r.energy_per_token.si(), format_number(r.energy.si() / 3.6e6));
  auto row = [](const char* label, const Latency& d, bool ms) {
    auto show = [ms](Seconds v) { return ms ? format_number(v.si() * 1e3) + " ms" : format(v); };
    return std::vector<std::string>{label, show(d.mean), show(d.p50), show(d.p90), show(d.p99), show(d.max)};
  };
  // A latency no request showed (TPOT and ITL of unstreamed or one-token answers) is left out.
  std::vector<std::vector<std::string>> latencies;
  for (const auto& [label, d, ms] :
       {std::tuple{"TTFT", &r.ttft, false}, std::tuple{"TPOT", &r.tpot, true}, std::tuple{"ITL", &r.itl, true},
        std::tuple{"end to end", &r.e2e, false}, std::tuple{"queueing", &r.queue, false}}) {
    if (d->n > 0) latencies.push_back(row(label, *d, ms));
  }
  out += text_table({"latency", "mean", "p50", "p90", "p99", "max"}, latencies);
  out += fmt::format("\nbatch per iteration: mean {}, p50 {}, p99 {}, max {} ({} iterations)\n",
                     format_number(r.batch.mean), format_number(r.batch.p50), format_number(r.batch.p99),
                     format_number(r.batch.max), r.iterations);
  out += fmt::format("KV cache: mean {:.0f}%, peak {:.0f}% of {} blocks; {} preemption(s)\n", 100 * r.kv_mean,
                     100 * r.kv_max, r.kv_blocks_capacity, r.preemptions);
  if (r.prefix_hit_rate > 0) {
    out += fmt::format("prefix cache: {:.1f}% of prompt tokens served from cache, ${} of prefill saved\n",
                       100 * r.prefix_hit_rate, format_number(r.saved_by_cache.si()));
  }
  if (r.replica_completed.size() > 1) {
    out += fmt::format("replicas: imbalance {:.1f}% (max over mean output tokens)\n", 100 * r.imbalance);
  }
  if (!r.slo.empty()) {
    out += fmt::format("\nSLO {}: goodput {} req/s\n", r.slo_met ? "met" : "missed",
                       format_number(r.goodput_requests_per_s.si()));
    for (const auto& s : r.slo) {
      out += fmt::format("  {} p{}: {} against {} {}\n", s.metric, s.pct, format(s.observed), format(s.bound),
                         s.met ? "ok" : "MISSED");
    }
  }
  out += text_lines("\nassumed:\n", x.envelope, "  ");
  out += warnings_text(x.warnings);
  return out;
}

std::string text(const PlanText& p) {
  const PlanResult& r = p.result;
  // A distribution reads as its mean, which the search priced, and its form.
  auto length = [](double mean, const std::string& dist) {
    return dist.empty() ? format_number(mean) : fmt::format("mean {} ({})", format_number(mean), dist);
  };
  std::string out = fmt::format("plan: {} on {} x {} (scale-up domain {}), {} in / {} out tokens\n", p.model, p.chips,
                                p.hardware, p.domain, length(p.isl, p.isl_dist), length(p.osl, p.osl_dist));
  if (p.price_source.rfind("owned", 0) == 0 || p.price_source == "--usd-per-hour") {
    out += "priced " + p.price_source + "\n";
  }
  // No recommendation: the reason leads, once; a frontier below fits in memory but misses the SLO.
  if (!r.best) {
    out += fmt::format("INFEASIBLE: {}{}\n", r.empty_reason.empty() ? std::string("no feasible point") : r.empty_reason,
                       r.frontier.empty() ? "" : " (the frontier below fits in memory and misses the SLO)");
  }
  if (p.rank != "throughput") out += "ranked by " + p.rank + " per token\n";
  out += fmt::format("searched {} configurations: {} fit in memory, {} meet the SLO\n", r.evaluated, r.feasible,
                     r.meeting_slo);
  // Prices name what they divide: decode's chip-hours over output tokens, and prefill's and
  // decode's over input + output tokens at the plan's mix (docs/quantities.md).
  const std::vector<std::string> header{"mapping", "batch",      "w/kv",  "tok/s/chip", "tok/s/user", "TTFT",
                                        "TPOT",    "$/Mtok out", "blend", "J/tok",      "bound",      "SLO"};
  std::vector<std::vector<std::string>> rows;
  bool quantized = false;
  for (const std::size_t i : p.frontier) {
    const PlanPoint& pt = r.frontier[i];
    rows.push_back(point_row(pt, p.native_weights));
    quantized = quantized || bytes_per_element(pt.weights) < bytes_per_element(p.native_weights);
  }
  // An empty frontier is no table: nothing fits in memory, and the INFEASIBLE line said why.
  if (!rows.empty()) {
    out += "\nPareto frontier (tokens/s per chip against tokens/s per user):\n";
    out += text_table(header, rows);
    out += fmt::format(
        "$/Mtok out: decode over output tokens; blend: prefill and decode over input + output tokens at "
        "{}:{} in:out; J/tok blended as the dollars\n",
        format_number(p.isl), format_number(p.osl));
    if (quantized) out += "q: weights quantized below the checkpoint as released\n";
  }
  if (r.best) out += "\nbest under the SLO:\n" + text_table(header, {point_row(*r.best, p.native_weights)});
  if (p.best_range) {
    const PlanRange& g = *p.best_range;
    auto q = [](const Quantiles& x, std::string (*show)(double)) {
      return fmt::format("p10 {}  p50 {}  p90 {}", show(x.p10), show(x.p50), show(x.p90));
    };
    out += fmt::format("\nbest, range over spec ranges and efficiency priors ({} samples):\n", g.samples);
    out += "  tok/s/chip  " + q(g.tokens_per_s_per_chip, [](double v) { return format_number(v); }) + "\n";
    out += "  TPOT        " + q(g.tpot_ms, [](double v) { return format_number(v) + " ms"; }) + "\n";
    out += "  TTFT        " + q(g.ttft_s, [](double v) { return format(units::seconds(v)); }) + "\n";
    out += "  $/Mtok out  " + q(g.usd_per_mtok_output, [](double v) { return "$" + format_number(v); }) + "\n";
  }
  if (!r.rejected.empty()) {
    out += "\nrejected:\n";
    for (const auto& [k, v] : r.rejected) out += fmt::format("  {:>8}  {}\n", v, k);
  }
  if (p.capacity) out += capacity_text(*p.capacity, p.osl);
  if (p.scaleup) out += scaleup_text(*p.scaleup);
  if (p.launch) {
    out += "\nlaunch (" + p.launch->engine + ", " + p.launch->mapping + " at batch " + format_number(p.launch->batch) +
           "):\n" + p.launch->text;
  }
  if (!p.derivation.empty()) out += text_lines("\nderivation:\n", p.derivation, "  ");
  out += warnings_text(p.warnings);
  return out;
}

}  // namespace llmecon
