// The JSON of serving results (encode.hpp): simulations, their charts, traces and grid rows,
// and plan --rate's fleets.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "io/encode.hpp"
#include "units/analysis.hpp"

namespace llmecon {
namespace {

double si(double x) {
  return x;
}
template <Dim D>
double si(Quantity<D> x) {
  return x.si();
}

// A distribution's summary, in SI units times `scale` (1e3 for milliseconds).
template <class Q>
Json dist_json(const Distribution<Q>& d, double scale) {
  return Json{{"mean", si(d.mean) * scale}, {"p50", si(d.p50) * scale}, {"p90", si(d.p90) * scale},
              {"p99", si(d.p99) * scale},   {"max", si(d.max) * scale}, {"n", d.n}};
}

Json cdf_json(const Latency& d, double scale) {
  Json x = Json::array(), y = Json::array();
  for (std::size_t i = 0; i < d.cdf_x.size(); ++i) {
    x.push_back(d.cdf_x[i].si() * scale);
    y.push_back(d.cdf_y[i]);
  }
  return Json{{"x", x}, {"y", y}};
}

}  // namespace

Json to_json(const SimResult& r) {
  Json out;
  const double chips = std::max(1, r.chips);
  out["requests_per_s"] = r.requests_per_s.si();
  out["output_tokens_per_s"] = r.output_throughput.si();
  out["input_tokens_per_s"] = r.input_throughput.si();
  out["output_tokens_per_s_per_chip"] = r.output_throughput.si() / chips;
  out["input_tokens_per_s_per_chip"] = r.input_throughput.si() / chips;
  out["ttft_s"] = dist_json(r.ttft, 1);
  out["tpot_ms"] = dist_json(r.tpot, 1e3);
  out["itl_ms"] = dist_json(r.itl, 1e3);
  out["e2e_s"] = dist_json(r.e2e, 1);
  out["queue_s"] = dist_json(r.queue, 1);
  out["batch"] = dist_json(r.batch, 1);
  out["kv_utilization"] = {{"mean", r.kv_mean}, {"max", r.kv_max}};
  out["arrived"] = r.arrived;
  out["completed"] = r.completed;
  out["dropped"] = r.dropped;
  out["drop_reasons"] = r.drop_reasons;
  out["counted"] = r.counted;
  out["window_s"] = r.window.si();
  out["makespan_s"] = r.makespan.si();
  out["iterations"] = r.iterations;
  out["preemptions"] = r.preemptions;
  out["prefix_hit_rate"] = r.prefix_hit_rate;
  out["cached_tokens"] = r.cached_tokens;
  out["usd_saved_by_cache"] = r.saved_by_cache.si();
  out["tokens"] = {{"input", r.input_tokens}, {"output", r.output_tokens}, {"prefilled", r.prefill_tokens}};
  out["kv_blocks"] = {{"capacity", r.kv_blocks_capacity}, {"peak_per_replica", r.kv_blocks_peak}};
  out["replica_completed"] = r.replica_completed;
  out["imbalance"] = r.imbalance;
  out["goodput_requests_per_s"] = r.goodput_requests_per_s.si();
  if (r.load) {
    out["load"] = {{"offered_requests_per_s", r.load->offered_requests_per_s.si()},
                   {"served_requests_per_s", r.load->served_requests_per_s.si()},
                   {"e2e_early_s", r.load->e2e_early.si()},
                   {"e2e_late_s", r.load->e2e_late.si()},
                   {"overloaded", r.load->overloaded}};
  }
  Json slo = Json::array();
  for (const auto& s : r.slo) {
    slo.push_back({{"metric", s.metric},
                   {"percentile", s.pct},
                   {"bound_s", s.bound.si()},
                   {"observed_s", s.observed.si()},
                   {"met", s.met}});
  }
  out["slo"] = slo;
  out["slo_met"] = r.slo_met;
  out["usd_per_mtok_output"] = r.cost_per_output_token.si() * 1e6;
  out["usd_per_mtok_blended"] = r.cost_per_token.si() * 1e6;
  out["energy_kwh"] = r.energy.si() / 3.6e6;
  out["joules_per_token_output"] = r.energy_per_output_token.si();
  out["joules_per_token"] = r.energy_per_token.si();
  out["chips"] = r.chips;
  out["step_model"] = kStepCalibratedMapped;  // the replica's layout and its collectives
  out["rule"] = r.rule;
  out["step_evaluations"] = r.step_evaluations;
  out["step_lookups"] = r.step_lookups;
  return out;
}

Json charts_json(const SimResult& r) {
  Json t = Json::array(), b = Json::array(), kv = Json::array();
  for (const auto& s : r.samples) {
    t.push_back(s.t.si());
    b.push_back(s.batch);
    kv.push_back(s.kv_used);
  }
  return Json{{"ttft_s", cdf_json(r.ttft, 1)},
              {"tpot_ms", cdf_json(r.tpot, 1e3)},
              {"e2e_s", cdf_json(r.e2e, 1)},
              {"over_time", {{"t_s", t}, {"batch", b}, {"kv_used", kv}}}};
}

// The Chrome trace-event format: iterations as complete slices per replica, requests as async
// spans (opens in Perfetto and chrome://tracing).
Json chrome_trace_json(const SimResult& r) {
  Json ev = Json::array();
  for (const auto& e : r.trace) {
    Json j{{"name", e.name}, {"ph", std::string(1, e.ph)}, {"ts", e.ts_us}, {"pid", e.pid}, {"tid", 0}};
    if (e.ph == 'X') {
      j["dur"] = e.dur_us;
      j["args"] = {{"decode_seqs", e.decode}, {"prefill_tokens", e.prefill}};
    } else {
      j["cat"] = "request";
      j["id"] = e.id;
    }
    ev.push_back(std::move(j));
  }
  return Json{{"traceEvents", ev}, {"displayTimeUnit", "ms"}};
}

Json grid_row_json(std::size_t index, const std::string& engine, const Mapping& m, RequestsPerSecond rate,
                   const SimResult& r) {
  return Json{{"index", index},
              {"engine", engine},
              {"mapping", m.str()},
              {"rate", rate.si()},
              {"requests_per_s", r.requests_per_s.si()},
              {"output_tokens_per_s", r.output_throughput.si()},
              {"ttft_s_p50", r.ttft.p50.si()},
              {"ttft_s_p99", r.ttft.p99.si()},
              {"tpot_ms_p50", r.tpot.p50.si() * 1e3},
              {"tpot_ms_p99", r.tpot.p99.si() * 1e3},
              {"goodput_requests_per_s", r.goodput_requests_per_s.si()},
              {"slo_met", r.slo_met},
              {"preemptions", r.preemptions},
              {"usd_per_mtok_output", r.cost_per_output_token.si() * 1e6},
              {"joules_per_token_output", r.energy_per_output_token.si()}};
}

Json to_json(const Capacity& cap, double osl) {
  Json options = Json::array();
  for (const CapacityOption& o : cap.options) {
    const double usd_per_hour = o.cost.si() * 3600;
    options.push_back({{"mapping", o.map.str()},
                       {"weight_dtype", std::string(name(o.weights))},
                       {"kv_dtype", std::string(name(o.kv))},
                       {"chips_per_replica", o.map.replica_chips()},
                       {"rate_per_replica", o.rate_per_replica.si()},
                       {"replicas", o.replicas},
                       {"chips", o.chips},
                       {"usd_per_hour", usd_per_hour},
                       {"usd_per_mtok_output", usd_per_hour / 3600 / (cap.rate.si() * osl) * 1e6},
                       {"ttft_s_p99", o.ttft_p99.si()},
                       {"tpot_ms_p99", o.tpot_p99.si() * 1e3},
                       {"batch_mean", o.batch_mean}});
  }
  return Json{{"rate", cap.rate.si()},
              {"rate_tolerance", kRateTolerance},
              {"slo",
               {{"ttft_s_p99", cap.ttft_p99 ? Json(cap.ttft_p99->si()) : Json(nullptr)},
                {"tpot_s_p99", cap.tpot_p99 ? Json(cap.tpot_p99->si()) : Json(nullptr)}}},
              {"simulated_layouts", cap.simulated_layouts},
              {"options", options},
              {"best", options.empty() ? Json(nullptr) : options.front()}};
}

}  // namespace llmecon
