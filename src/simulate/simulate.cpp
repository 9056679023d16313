// The discrete-event serving simulator (docs/model.md §23): the event loop, the results, and
// the rate search. The state and its other members are in sim.hpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <list>
#include <map>
#include <queue>
#include <random>
#include <unordered_map>
#include <variant>

#include "sim.hpp"
#include "simulate/simulate.hpp"

namespace llmecon {

void apply_engine(Scheduler& s, const ServingEngine& e) {
  s.max_batched_tokens = e.max_batched_tokens >= 1e6 ? 8192.0 : e.max_batched_tokens;
  s.max_seqs = std::min(e.max_seqs, 1e5);
  s.block_tokens = e.kv_block_tokens;
  s.chunked_prefill = e.chunked_prefill;
  s.prefix_caching = e.prefix_caching;
  s.admission = e.admission;
  s.token_ratio = e.token_ratio;
  s.schedule = e.schedule;
}

void apply_unchunked(Scheduler& s, const ServingEngine& e, double context, bool budget_told) {
  if (s.chunked_prefill) return;
  if (e.unchunked_schedule) s.schedule = *e.unchunked_schedule;
  if (e.unchunked_budget_context && !budget_told) s.max_batched_tokens = std::max(context, 2048.0);
}

void scale_caps_to_ranks(Scheduler& s, const ServingEngine& e, int dp_attn) {
  s.max_seqs *= e.cap_scopes(dp_attn);
  s.max_batched_tokens *= e.cap_scopes(dp_attn);
}

namespace sim_internal {

Result<SimResult> Sim::run() {
  TRY_STATUS(build_replicas());
  const Workload& w = c_.workload;
  const bool trace = w.arrivals.kind == ArrivalKind::kTrace;
  target_ = trace ? static_cast<long>(w.trace.requests.size()) : w.requests;
  const auto stage = schedule_arrivals();  // staged or exact-count: the arrivals drawn now
  if (target_ < 1) return Error{"--stages", "", "no request arrives in the stages", "higher rates or longer stages"};
  reqs_.reserve(static_cast<std::size_t>(target_));
  const bool offline = w.arrivals.kind == ArrivalKind::kOffline;
  const double wf = offline ? 0.0 : std::clamp(c_.warmup_fraction, 0.0, 0.45);
  counted_lo_ = static_cast<long>(std::floor(wf * static_cast<double>(target_)));
  counted_hi_ = target_ - counted_lo_;
  if (stage) std::tie(counted_lo_, counted_hi_) = *stage;
  // The window opens when the first counted request arrives and closes when the last one does
  // (offline: the whole run); it is fixed once those arrivals happen.
  win_lo_ = std::numeric_limits<SimTime>::max();
  win_hi_ = std::numeric_limits<SimTime>::max();
  // Start: the first arrival, every client, or every request.
  if (offline) {
    for (long i = 0; i < target_; ++i) push(0, ArrivalEv{-1});
  } else if (w.arrivals.kind == ArrivalKind::kClosed) {
    for (int k = 0; k < w.arrivals.clients && k < target_; ++k) push(0, ArrivalEv{k});
  } else if (trace) {
    next_open_ = to_ticks(units::seconds(w.trace.requests.front().t_s));
    push(next_open_, ArrivalEv{-1});
  } else if (!schedule_.empty()) {
    push(schedule_.front(), ArrivalEv{-1});
  } else {
    push(0, ArrivalEv{-1});
  }
  std::size_t steps = 0;
  while (!events_.empty()) {
    const Event ev = events_.top();
    events_.pop();
    now_ = ev.t;
    if ((++steps & 0xffff) == 0 && c_.cancelled && c_.cancelled()) {
      return Error{"request", "", "cancelled: past its deadline", "fewer --requests"};
    }
    if (const auto* a = std::get_if<ArrivalEv>(&ev.data)) {
      if (static_cast<long>(reqs_.size()) >= target_) continue;
      const int r = make_request(now_, a->client);
      if (r == counted_lo_ && !offline) win_lo_ = now_;
      if (r == counted_hi_ - 1 && !offline) win_hi_ = now_;
      Request& q = reqs_[static_cast<std::size_t>(r)];
      if (blocks_for(q.isl + q.osl) > reps_.back().kv.capacity() ||
          (n_prefill_ > 0 && blocks_for(q.isl) > reps_.front().kv.capacity())) {
        drop(r, "its context needs more KV blocks than a replica holds");
      } else {
        route(r, now_, false);
      }
      if (!offline && a->client < 0) next_arrival(now_, -1);
    } else if (const auto* it = std::get_if<IterationEv>(&ev.data)) {
      end_iteration(reps_[static_cast<std::size_t>(it->replica)], now_);
    } else if (const auto* tr = std::get_if<TransferEv>(&ev.data)) {
      route(tr->request, now_, true);
    }
  }
  return collect();
}

namespace {

// Served under this share of the offered rate, with the system growing by this many requests over
// the window, is overload (model.md §23.6).
constexpr double kOverloadServedShare = 0.9;
constexpr double kOverloadGrowth = 10;  // requests

// Offered against served (model.md §23.6): `e2e` holds the counted requests' end-to-end
// latencies in arrival order.
SimResult::Load load_against_service(const std::vector<double>& e2e, double offered, double served, double window) {
  SimResult::Load l;
  l.offered_requests_per_s = units::requests_per_s(offered);
  l.served_requests_per_s = units::requests_per_s(served);
  // Arrivals less completions over the window: how many more requests are in the system at its end.
  l.overloaded = served < kOverloadServedShare * offered && (offered - served) * window >= kOverloadGrowth;
  const std::size_t tenth = e2e.size() / 10;
  if (tenth == 0) return l;
  double early = 0, late = 0;
  for (std::size_t i = 0; i < tenth; ++i) {
    early += e2e[i];
    late += e2e[e2e.size() - 1 - i];
  }
  l.e2e_early = units::seconds(early / static_cast<double>(tenth));
  l.e2e_late = units::seconds(late / static_cast<double>(tenth));
  return l;
}

// The counted requests' completions: their span, and the tokens they carried.
struct Completions {
  SimTime first = std::numeric_limits<SimTime>::max(), last = 0;
  long in = 0, out = 0, n = 0;
  void add(const Request& q) {
    first = std::min(first, q.finish);
    last = std::max(last, q.finish);
    in += q.isl;
    out += q.generated;
    ++n;
  }
};

// Rates over the span from `from` to the last counted completion: `counted` of the d.n requests
// (and that share of their tokens) are what the span holds.
void rates_over(SimResult& out, const Completions& d, SimTime from, long counted, const char* rule) {
  const double span = tick_seconds(d.last - from);
  if (counted < 1 || !(span > 0)) return;
  const double share = static_cast<double>(counted) / static_cast<double>(d.n);
  out.requests_per_s = units::requests_per_s(static_cast<double>(counted) / span);
  out.output_throughput = units::tokens(static_cast<double>(d.out) * share) / units::seconds(span);
  out.input_throughput = units::tokens(static_cast<double>(d.in) * share) / units::seconds(span);
  if (out.load) out.load->served_requests_per_s = out.requests_per_s;
  out.rule += rule;
}

// A growing queue (model.md §23.6): what the arrival window saw completing is the backlog's head,
// not the service rate (a window shorter than one answer holds no completion at all). The counted
// requests complete at the service rate, so the span of their completions measures it: the first
// completion opens it, and the other n - 1 fill it.
void at_service_rate(SimResult& out, const Completions& d) {
  rates_over(out, d, d.first, d.n - 1, "; overloaded, so rates over the span of their completions (the service rate)");
}

// Every request counted (no warmup left out): rates over the whole run, from the first arrival to the
// last completion, the duration benchmark harnesses divide by (vLLM's benchmark_serving, SGLang's
// bench_serving; model.md §23.6), so a run's drain counts as the harness saw it.
void over_whole_run(SimResult& out, const Completions& d, SimTime first_arrival) {
  rates_over(out, d, first_arrival, d.n,
             "; every request counted, so rates over the whole run, from the first arrival to the last completion");
}

}  // namespace

SimResult Sim::collect() {
  SimResult out;
  out.arrived = static_cast<long>(reqs_.size());
  std::vector<double> ttft, tpot, e2e, queue;
  long input = 0;
  Completions done;
  const bool stream = c_.workload.stream;
  for (std::size_t i = 0; i < reqs_.size(); ++i) {
    const Request& q = reqs_[i];
    if (q.state == State::kDone) {
      ++out.completed;
      input += q.isl;
      out.output_tokens += q.generated;
      out.asked_output_tokens += q.osl;
    }
    const auto idx = static_cast<long>(i);
    if (q.state != State::kDone || idx < counted_lo_ || idx >= counted_hi_) continue;
    ++out.counted;
    done.add(q);
    // Unstreamed, the client's first token comes with the whole answer (model.md §23.1).
    ttft.push_back(tick_seconds((stream ? q.first_token : q.finish) - q.arrival));
    e2e.push_back(tick_seconds(q.finish - q.arrival));
    queue.push_back(tick_seconds(q.scheduled - q.arrival));
    if (stream && q.osl > 1) tpot.push_back(tick_seconds(q.finish - q.first_token) / (q.osl - 1));
  }
  for (const auto& [why, n] : drops_) {
    out.dropped += n;
    out.drop_reasons.push_back(fmt::format("{} request(s): {}", n, why));
  }
  out.input_tokens = input;
  out.prefill_tokens = prefill_tokens_;
  out.emitted_tokens = out_tokens_;
  out.cached_tokens = cached_tokens_;
  out.prefix_hit_rate =
      admitted_prompt_ > 0 ? static_cast<double>(cached_tokens_) / static_cast<double>(admitted_prompt_) : 0;
  out.makespan = units::seconds(tick_seconds(last_finish_));
  const bool offline = c_.workload.arrivals.kind == ArrivalKind::kOffline;
  SimTime lo = win_lo_, hi = win_hi_;
  if (offline || hi <= lo || hi == std::numeric_limits<SimTime>::max() || lo == hi) {
    // Offline, or too few requests for a window: the whole run.
    lo = 0;
    hi = last_finish_;
    out.rule = "every request, from t = 0 to the last completion";
    if (hi > 0) {
      out.output_throughput = units::tokens(static_cast<double>(out_tokens_)) / units::seconds(tick_seconds(hi));
      out.input_throughput = units::tokens(static_cast<double>(prefill_tokens_)) / units::seconds(tick_seconds(hi));
    }
    out.requests_per_s = units::requests_per_s(hi > 0 ? static_cast<double>(out.completed) / tick_seconds(hi) : 0);
  } else {
    const Arrivals& a = c_.workload.arrivals;
    if (a.stages.empty()) {
      out.rule = fmt::format(
          "latencies of requests {} to {} (the first and last {:.0f}% left out); rates over the window from the "
          "first of them arriving to the last arriving",
          counted_lo_ + 1, counted_hi_, c_.warmup_fraction * 100);
    } else {
      const std::size_t k = a.reported_stage();
      out.rule = fmt::format(
          "latencies of requests {} to {}, those arriving in stage {} of {} ({} req/s); rates over the window from "
          "the first of them arriving to the last arriving",
          counted_lo_ + 1, counted_hi_, k, a.stages.size(), format_number(a.stages[k - 1].rate.si()));
    }
    const double win = tick_seconds(hi - lo);
    out.output_throughput = units::tokens(static_cast<double>(win_out_)) / units::seconds(win);
    out.input_throughput = units::tokens(static_cast<double>(win_in_)) / units::seconds(win);
    out.requests_per_s = units::requests_per_s(static_cast<double>(win_done_) / win);
    if (c_.workload.arrivals.kind != ArrivalKind::kClosed) {
      out.load =
          load_against_service(e2e, static_cast<double>(counted_hi_ - counted_lo_) / win, out.requests_per_s.si(), win);
      if (c_.warmup_fraction == 0 && a.stages.empty()) {
        over_whole_run(out, done, first_arrival_);
      } else if (out.load->overloaded) {
        at_service_rate(out, done);
      }
    } else if (c_.warmup_fraction == 0) {
      over_whole_run(out, done, first_arrival_);
    }
  }
  out.window = units::seconds(tick_seconds(hi - lo));
  for (const Replica& r : reps_) out.chips += r.in->map.replica_chips();
  out.ttft = in_seconds(distribution(ttft));
  out.tpot = in_seconds(distribution(tpot));
  out.e2e = in_seconds(distribution(e2e));
  out.queue = in_seconds(distribution(queue));
  flush_itl();
  if (stream) out.itl = in_seconds(itl_.dist());
  out.batch = count_distribution(batch_counts_);
  out.kv_mean = busy_time_ > 0 ? kv_weighted_ / busy_time_ : 0;
  out.kv_max = kv_max_;
  out.iterations = iterations_;
  out.preemptions = preemptions_;
  long end_blocks = 0;
  for (const Replica& r : reps_) {
    out.kv_blocks_capacity += r.kv.capacity();
    out.kv_blocks_peak = std::max(out.kv_blocks_peak, r.kv.peak());
    end_blocks += r.kv.used() - r.kv.cached();
    if (!r.prefill_pool) out.replica_completed.push_back(r.completed);
  }
  out.kv_blocks_end = end_blocks;
  {
    double mx = 0, sum = 0;
    int n = 0;
    for (const Replica& r : reps_) {
      if (r.prefill_pool) continue;
      mx = std::max(mx, static_cast<double>(r.out_tokens));
      sum += static_cast<double>(r.out_tokens);
      ++n;
    }
    out.imbalance = sum > 0 ? mx / (sum / n) - 1 : 0;
  }
  cost_and_energy(out);
  slo_and_goodput(out);
  if (out.dropped > 0) out.slo_met = out.slo.empty() ? out.slo_met : false;
  out.samples = std::move(samples_);
  out.step_evaluations = evals_;
  out.step_lookups = lookups_;
  out.trace = std::move(trace_);
  return out;
}

// Cost at the achieved rate, the run's energy, and the prefill the prefix cache avoided
// (model.md §23.5, §25.6).
void Sim::cost_and_energy(SimResult& out) const {
  // Cost at the achieved rate: every chip of every pool, for the tokens served.
  DollarsPerSecond rent{};
  for (const Replica& r : reps_) rent += units::usd_per_s(r.in->hw->price.value.si() * r.in->map.replica_chips());
  if (out.output_throughput > TokensPerSecond{}) out.cost_per_output_token = rent / out.output_throughput;
  if (out.output_throughput + out.input_throughput > TokensPerSecond{}) {
    out.cost_per_token = rent / (out.output_throughput + out.input_throughput);
  }
  // Energy over the run (model.md §25.6), from the first arrival to the last completion: each
  // replica's iterations, and its idle power for the rest of that span.
  {
    const double run_s =
        first_arrival_ < last_finish_ ? tick_seconds(last_finish_) - tick_seconds(first_arrival_) : 0.0;
    double joules = 0;
    for (const Replica& r : reps_) {
      const Watts idle = idle_power(*r.in->hw, r.in->power);
      joules += r.joules + idle.si() * r.in->map.replica_chips() * std::max(0.0, run_s - r.busy_s);
    }
    out.energy = units::joules(joules);
    out.run = units::seconds(run_s);
    if (out.emitted_tokens > 0) {
      out.energy_per_output_token = out.energy / units::tokens(static_cast<double>(out.emitted_tokens));
    }
    const double all = static_cast<double>(out.emitted_tokens + out.prefill_tokens);
    if (all > 0) out.energy_per_token = out.energy / units::tokens(all);
  }
  // The prefill the cache avoided, at the price of prefilling those tokens (model.md §23.5).
  if (cached_tokens_ > 0) {
    const Replica& r = reps_.front();
    const double isl =
        std::max(1.0, static_cast<double>(admitted_prompt_) / static_cast<double>(std::max(1L, out.arrived)));
    const PhaseResult p = evaluate_prefill(*r.in, 1, isl);
    out.saved_by_cache = units::tokens(static_cast<double>(cached_tokens_)) * p.usd_per_token;
  }
}

// SLOs and goodput (model.md §23.7).
void Sim::slo_and_goodput(SimResult& out) const {
  // SLOs and goodput: the share of counted requests within every bound, times the request rate.
  const Slo& s = c_.slo;
  auto check = [&](const char* metric, const std::optional<double>& bound, double pct, const Latency& d) {
    if (!bound) return;
    const Seconds limit = units::seconds(*bound);
    SloCheck k{metric, pct, limit, d.percentile(pct), d.percentile(pct) <= limit};
    out.slo_met = out.slo_met && k.met;
    out.slo.push_back(k);
  };
  check("ttft", s.ttft_s, s.ttft_pct, out.ttft);
  check("tpot", s.tpot_s, s.tpot_pct, out.tpot);
  check("e2e", s.e2e_s, s.e2e_pct, out.e2e);
  if (s.empty()) out.goodput_requests_per_s = out.requests_per_s;  // no bound to miss
  if (!s.empty() && out.counted > 0) {
    long good = 0;
    for (std::size_t i = static_cast<std::size_t>(counted_lo_);
         i < static_cast<std::size_t>(counted_hi_) && i < reqs_.size(); ++i) {
      const Request& q = reqs_[i];
      if (q.state != State::kDone) continue;
      const double t1 = tick_seconds(q.first_token - q.arrival);
      const double tp = q.osl > 1 ? tick_seconds(q.finish - q.first_token) / (q.osl - 1) : 0;
      const double te = tick_seconds(q.finish - q.arrival);
      if ((!s.ttft_s || t1 <= *s.ttft_s) && (!s.tpot_s || tp <= *s.tpot_s) && (!s.e2e_s || te <= *s.e2e_s)) ++good;
    }
    out.goodput_requests_per_s = out.requests_per_s * static_cast<double>(good) / static_cast<double>(out.counted);
  }
}

}  // namespace sim_internal

using sim_internal::Sim;

Result<SimResult> simulate(const SimConfig& c) {
  const Workload& w = c.workload;
  if (c.decode.model == nullptr || c.decode.hw == nullptr) return Error{"--model", "", "no model or chip", ""};
  if (c.replicas < 1 || c.prefill_replicas < 1) return Error{"--replicas", "", "at least one replica", ""};
  if (w.arrivals.kind == ArrivalKind::kTrace && w.trace.requests.empty()) {
    return Error{"--trace", "", "the trace has no requests", ""};
  }
  if (w.arrivals.kind != ArrivalKind::kTrace && w.requests < 1) return Error{"--requests", "", "at least 1", ""};
  if ((w.arrivals.kind == ArrivalKind::kPoisson || w.arrivals.kind == ArrivalKind::kGamma ||
       w.arrivals.kind == ArrivalKind::kConstant) &&
      !(w.arrivals.rate.si() > 0)) {
    return Error{"--rate", "", "a positive request rate", "requests per second"};
  }
  for (const LoadStage& stage : w.arrivals.stages) {
    if (!(stage.rate.si() > 0) || !(stage.length.si() > 0))
      return Error{"--stages", "", "each stage needs a positive rate and duration", "5:600,10:600"};
  }
  if (w.arrivals.report_stage < 0 || w.arrivals.report_stage > static_cast<int>(w.arrivals.stages.size())) {
    return Error{"--report-stage", "", "there is no such stage", "1 to the number of --stages, or 0 for the last"};
  }
  // A CV below 10^-3 is constant arrivals in all but name, and its gamma shape (1/CV^2) past 10^6.
  if (w.arrivals.kind == ArrivalKind::kGamma && !(w.arrivals.cv >= 1e-3 && w.arrivals.cv <= 100)) {
    return Error{"--arrival", "", "gamma needs a coefficient of variation from 0.001 to 100", "gamma:CV, e.g. gamma:2"};
  }
  if (w.arrivals.kind == ArrivalKind::kClosed && w.arrivals.clients < 1) {
    return Error{"--concurrency", "", "at least one client", ""};
  }
  if (c.scheduler.max_batched_tokens < 1 || c.scheduler.max_seqs < 1) {
    return Error{"--max-batched-tokens", "", "an iteration must hold at least one token and one sequence", ""};
  }
  Sim s(c);
  return s.run();
}

Result<RateSearch> find_rate(const SimConfig& c) {
  if (c.slo.empty()) return Error{"--find-rate", "", "needs an SLO to meet", "--slo ttft_p99=2s,tpot_p99=50ms"};
  RateSearch out;
  // Bisection runs on at most kCoarse requests; the answer is confirmed on the full count
  // (model.md §23.7).
  constexpr long kCoarse = 50000;
  const long full = c.workload.requests;
  auto at = [&](double rate, long requests) -> Result<SimResult> {
    SimConfig k = c;
    k.workload.arrivals.kind =
        c.workload.arrivals.kind == ArrivalKind::kGamma ? ArrivalKind::kGamma : ArrivalKind::kPoisson;
    k.workload.arrivals.rate = units::requests_per_s(rate);
    k.workload.requests = requests;
    k.progress = nullptr;
    TRY(r, simulate(k));
    out.tried.emplace_back(rate, r.slo_met);
    return r;
  };
  // Bracket: the offline throughput bounds the rate any SLO can hold.
  SimConfig off = c;
  off.workload.arrivals.kind = ArrivalKind::kOffline;
  off.workload.requests = std::min(full, kCoarse);
  off.progress = nullptr;
  TRY(cap, simulate(off));
  double hi = std::max(1e-6, cap.requests_per_s.si() * 1.05), lo = 0;
  const long coarse = std::min(full, kCoarse);
  TRY(first, at(hi, coarse));
  if (first.slo_met) {
    lo = hi;
  } else {
    for (int i = 0; i < kRateIterations; ++i) {
      const double mid = lo > 0 ? std::sqrt(lo * hi) : hi / 2;
      TRY(r, at(mid, coarse));
      if (r.slo_met) {
        lo = mid;
      } else {
        hi = mid;
      }
      if (lo > 0 && hi / lo < 1 + kRateTolerance) break;
    }
  }
  // Confirm on every request; step down 3% at a time (at most three times) if the full run misses.
  for (int k = 0; k < 4 && lo > 0; ++k) {
    TRY(r, at(lo, full));
    if (r.slo_met) {
      out.rate = units::requests_per_s(lo);
      out.at = std::move(r);
      return out;
    }
    lo *= 0.97;
  }
  out.rate = RequestsPerSecond{};
  return out;
}

}  // namespace llmecon
