// The one reader of `simulate`'s arguments (simulate_args.hpp): parsed arguments to typed
// settings, and the scheduler they lay over an engine's profile (docs/model.md §23.4).
#include "simulate/simulate_args.hpp"

#include "args/arg_builders.hpp"
#include "simulate/policy.hpp"

namespace llmecon {

const CommandSpec& simulate_spec() {
  static const CommandSpec spec = argspec::command("simulate", "", simulate_arguments(), true);
  return spec;
}

Result<ArrivalShape> parse_arrival(std::string_view text, const std::string& flag) {
  ArrivalShape r;
  if (text == "poisson" || text == "poisson-exact") {
    r.kind = ArrivalKind::kPoisson;
    r.exact_count = text == "poisson-exact";
  } else if (text == "constant") {
    r.kind = ArrivalKind::kConstant;
  } else if (text.rfind("gamma:", 0) == 0) {
    r.kind = ArrivalKind::kGamma;
    const auto cv = parse_number_text(text.substr(6));
    if (!cv || !(*cv >= 1e-3 && *cv <= 100)) {
      return Error{flag, "", "gamma needs a coefficient of variation from 0.001 to 100",
                   "gamma:2 (a CV of 1 is Poisson; use constant for evenly spaced arrivals)"};
    }
    r.cv = *cv;
  } else {
    return Error{flag, "", "unknown arrival '" + std::string(text) + "'",
                 "poisson, poisson-exact, constant or gamma:CV"};
  }
  return r;
}

namespace {

template <class T>
std::optional<T> given_number(const Args& a, const char* key) {
  if (!a.has(key)) return std::nullopt;
  return static_cast<T>(a.number(key));
}

std::optional<std::string> given_text(const Args& a, const char* key) {
  if (!a.has(key)) return std::nullopt;
  return a.text(key);
}

SchedulerSettings read_scheduler(const Args& a) {
  SchedulerSettings s;
  s.max_batched_tokens = given_number<double>(a, "max_batched_tokens");
  s.max_seqs = given_number<double>(a, "max_seqs");
  s.kv_tokens = given_number<double>(a, "kv_tokens");
  s.block_tokens = given_number<int>(a, "block_tokens");
  s.decode_steps = static_cast<int>(a.number("scheduler_steps"));
  if (a.flag("no_chunked_prefill")) s.chunked_prefill = false;
  if (a.flag("no_prefix_caching")) s.prefix_caching = false;
  // The table checked each choice: every policy name here is one of its registry's.
  if (a.text("priority") != "engine") s.schedule = a.text("priority");
  s.preemption = a.text("preemption");
  if (a.text("admission") != "engine") s.admission = a.text("admission");
  s.host_tier = a.text("host_tier") == "none" ? "" : a.text("host_tier");
  if (s.host_tier.empty()) {
    const auto preemption = make_preemption(s.preemption, Scheduler{});
    if (preemption && preemption->wants_host_tier()) s.host_tier = "ddr";
  }
  return s;
}

Result<WorkloadSettings> read_workload_settings(const Args& a) {
  WorkloadSettings w;
  w.workload = a.text("workload");
  for (const char* key : {"isl", "osl"}) {
    if (!a.has(key)) continue;
    TRY(dist, parse_length_dist(a.text(key), flag_of(key)));
    (std::string_view(key) == "isl" ? w.isl : w.osl) = dist;
  }
  w.lengths = given_text(a, "lengths");
  w.trace = given_text(a, "trace");
  w.trace_text = given_text(a, "trace_text");
  if (a.has("rate")) w.rate = units::requests_per_s(a.number("rate"));
  TRY(arrival, parse_arrival(a.text("arrival"), "--arrival"));
  w.arrival = arrival;
  if (a.has("stages")) {
    TRY(stages, parse_stages(a.text("stages"), "--stages"));
    w.stages = std::move(stages);
  }
  w.report_stage = given_number<int>(a, "report_stage");
  w.concurrency = given_number<int>(a, "concurrency");
  w.think = units::seconds(a.number("think_s"));
  w.offline = a.flag("offline");
  w.find_rate = a.flag("find_rate");
  w.requests = static_cast<long>(a.number("requests"));
  w.requests_given = a.has("requests");
  w.max_requests = a.number("max_requests");
  w.seed = static_cast<std::uint64_t>(a.number("seed"));
  w.prefix_hit = a.number("prefix_hit");
  w.prefix_tokens = static_cast<int>(a.number("prefix_tokens"));
  w.prefix_groups = static_cast<int>(a.number("prefix_groups"));
  for (const char* key : {"prefix_hit", "prefix_tokens", "prefix_groups"}) {
    if (a.has(key) && !w.prefix_flag) w.prefix_flag = key;
  }
  if (a.has("shared_prefix")) {
    TRY(sp, parse_shared_prefix(a.text("shared_prefix"), "--shared-prefix"));
    w.shared_prefix = sp;
  }
  w.stream = !a.flag("no_stream");
  if (a.has("slo")) {
    TRY(slo, parse_slo(a.text("slo"), "--slo"));
    w.slo = slo;
  }
  return w;
}

}  // namespace

Result<SimSettings> read_sim_settings(const Args& a) {
  SimSettings s;
  s.scheduler = read_scheduler(a);
  TRY(w, read_workload_settings(a));
  s.workload = std::move(w);
  s.kind = value_in(kSchedulerNames, a.text("scheduler")).value_or(SchedulerKind::kContinuous);
  s.router = value_in(kRouterNames, a.text("router")).value_or(Router::kLeastTokens);
  s.replicas = static_cast<int>(a.number("replicas"));
  s.warmup = a.number("warmup");
  return s;
}

void apply_scheduler(Scheduler& s, const ServingEngine* engine, const SchedulerSettings& st, double context) {
  if (engine != nullptr) apply_engine(s, *engine);
  if (st.max_batched_tokens) s.max_batched_tokens = *st.max_batched_tokens;
  if (st.max_seqs) s.max_seqs = *st.max_seqs;
  if (st.block_tokens) s.block_tokens = *st.block_tokens;
  if (st.kv_tokens) s.kv_tokens = *st.kv_tokens;
  s.decode_steps = st.decode_steps;
  if (st.chunked_prefill) s.chunked_prefill = *st.chunked_prefill;
  if (st.prefix_caching) s.prefix_caching = s.prefix_caching && *st.prefix_caching;
  if (engine != nullptr) apply_unchunked(s, *engine, context, st.max_batched_tokens.has_value());
  if (st.schedule) s.schedule = *st.schedule;
  s.preemption = st.preemption;
  if (st.admission) s.admission = *st.admission;
  s.host_tier = st.host_tier;
}

}  // namespace llmecon
