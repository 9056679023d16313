// The simulator's replicas, arrivals, requests and routing (docs/model.md §23.1, §23.5).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim.hpp"

namespace llmecon::sim_internal {

// ---- setup ----

namespace {

// One replica's policy of `name` from its registry (policy.hpp); an Error names the flag, where
// the name came from and the registered names.
template <class Policy>
Result<std::unique_ptr<Policy>> make_policy(std::unique_ptr<Policy> (*make)(std::string_view, const Scheduler&),
                                            std::vector<std::string> (*names)(), const Scheduler& s,
                                            const std::string& name, const char* flag, const char* from,
                                            const char* what) {
  std::unique_ptr<Policy> policy = make(name, s);
  if (policy) return policy;
  std::string known;
  for (const std::string& n : names()) known += (known.empty() ? "" : ", ") + n;
  return Error{flag, "", fmt::format("no {} '{}' (from {})", what, name, from), "one of " + known};
}

}  // namespace

Status Sim::build_replicas() {
  const Scheduler& s = c_.scheduler;
  block_ = std::max(1, s.block_tokens);
  auto add_pool = [&](const DeploymentInput& in, int n, bool prefill) -> Status {
    memos_.push_back(std::make_unique<StepMemo>(&in, &evals_, &lookups_));
    // A pool the engine was told (model.md §23.4) replaces its memory rule's, within what all of
    // HBM leaves beside the weights and activations.
    DeploymentInput all = in;
    all.usable_hbm = 1.0;
    all.memory_rule = MemoryRule::kTotal;
    KvCapacity kv = kv_capacity(s.kv_tokens > 0 ? all : in, s.max_batched_tokens);
    if (s.kv_tokens > 0) kv.tokens = std::min(kv.tokens, s.kv_tokens);
    const char* flag = prefill ? "--prefill-chips" : "--chips";
    if (kv.tokens < block_) {
      return Error{flag, "",
                   fmt::format("{} on {} x {} leaves no HBM for the KV cache", in.model->name, in.map.replica_chips(),
                               in.hw->name),
                   "more chips per replica, a narrower weight format, or a larger chip"};
    }
    block_bytes_ = kv.bytes_per_token.si() * block_;
    for (int i = 0; i < n; ++i) {
      Replica r;
      r.id = static_cast<int>(reps_.size());
      r.prefill_pool = prefill;
      r.in = &in;
      r.memo = memos_.back().get();
      TRY(admission, make_policy(make_admission, admission_names, s, s.admission, "--admission",
                                 "--admission or the engine profile's batching.kv_admission", "admission policy"));
      TRY(schedule, make_policy(make_schedule, schedule_names, s, s.schedule, "--priority",
                                "--priority or the engine profile's batching.schedule", "schedule"));
      TRY(preemption, make_policy(make_preemption, preemption_names, s, s.preemption, "--preemption", "--preemption",
                                  "preemption policy"));
      r.admission = std::move(admission);
      r.schedule = std::move(schedule);
      r.preemption = std::move(preemption);
      const long host =
          tier_ != nullptr ? static_cast<long>(tier_->capacity.si() * in.map.replica_chips() / block_bytes_) : 0;
      r.kv = KvCache(static_cast<long>(kv.tokens) / block_, block_, host);
      reps_.push_back(std::move(r));
    }
    return {};
  };
  if (!s.host_tier.empty()) {
    tier_ = c_.decode.hw->tier(s.host_tier);
    if (tier_ == nullptr) return Error{"--host-tier", "", "the chip has no tier '" + s.host_tier + "'", ""};
  }
  if (s.kind == SchedulerKind::kDisaggregated) {
    if (!c_.prefill) return Error{"--scheduler", "", "disaggregated serving needs a prefill pool", "--prefill-chips"};
    TRY_STATUS(add_pool(*c_.prefill, c_.prefill_replicas, true));
    n_prefill_ = c_.prefill_replicas;
  }
  TRY_STATUS(add_pool(c_.decode, c_.replicas, false));
  return {};
}

// ---- requests ----

int Sim::make_request(SimTime t, int client) {
  Request q;
  q.arrival = t;
  first_arrival_ = std::min(first_arrival_, t);
  q.client = client;
  const Workload& w = c_.workload;
  const auto idx = static_cast<long>(reqs_.size());
  if (w.arrivals.kind == ArrivalKind::kTrace) {
    const TraceRequest& tr = w.trace.requests[static_cast<std::size_t>(idx)];
    q.isl = tr.input;
    q.osl = tr.output;
    q.prefix_id = tr.prefix_id;
    q.prefix_tokens = tr.prefix_tokens;
    if (!tr.hashes.empty()) q.trace_row = idx;
  } else if (!w.pairs.empty()) {
    const auto k = static_cast<std::size_t>(lengths_.uniform() * static_cast<double>(w.pairs.size()));
    q.isl = w.pairs[std::min(k, w.pairs.size() - 1)].first;
    q.osl = w.pairs[std::min(k, w.pairs.size() - 1)].second;
  } else {
    q.isl = draw(w.isl, lengths_);
    q.osl = draw(w.osl, lengths_);
  }
  if (w.prefix_hit > 0 && w.prefix_tokens > 0 && q.prefix_id < 0 && prefixes_.uniform() < w.prefix_hit) {
    q.prefix_id =
        static_cast<std::int64_t>(prefixes_.next() % static_cast<std::uint64_t>(std::max(1, w.prefix_groups)));
    q.prefix_tokens = std::min(w.prefix_tokens, q.isl);
  }
  q.prompt = q.isl;
  reqs_.push_back(q);
  return static_cast<int>(idx);
}

double Sim::gap(double rate) {
  const Arrivals& a = c_.workload.arrivals;
  switch (a.kind) {
    case ArrivalKind::kPoisson:
      return arrivals_.exponential(1.0 / rate);
    case ArrivalKind::kGamma: {
      const double k = 1.0 / (a.cv * a.cv);
      return arrivals_.gamma(k, 1.0 / (rate * k));
    }
    case ArrivalKind::kConstant:
      return 1.0 / rate;
    default:
      LLMECON_ASSERT(false, "gaps are drawn for open-loop arrivals only");
      return 0;
  }
}

std::optional<std::pair<long, long>> Sim::schedule_arrivals() {
  const Arrivals& a = c_.workload.arrivals;
  const bool open =
      a.kind == ArrivalKind::kPoisson || a.kind == ArrivalKind::kGamma || a.kind == ArrivalKind::kConstant;
  if (!open || (a.stages.empty() && !a.exact_count)) return std::nullopt;
  // One stage of requests / rate seconds when none are given (exact count).
  std::vector<LoadStage> stages = a.stages;
  if (stages.empty()) {
    stages.push_back(LoadStage{a.rate, units::seconds(static_cast<double>(c_.workload.requests) / a.rate.si())});
  }
  std::optional<std::pair<long, long>> reported;
  std::vector<double> times;
  double start = 0;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const double rate = stages[s].rate.si(), seconds = stages[s].length.si();
    const std::size_t first = times.size();
    if (a.exact_count && a.kind == ArrivalKind::kPoisson) {
      // rate x seconds exponential gaps, scaled to fill the stage exactly.
      const auto n = static_cast<std::size_t>(std::llround(rate * seconds));
      std::vector<double> gaps(n);
      double sum = 0;
      for (double& g : gaps) sum += (g = gap(rate));
      double t = start;
      for (const double g : gaps) times.push_back(t += g * seconds / sum);
    } else {
      for (double t = start + gap(rate); t < start + seconds; t += gap(rate)) times.push_back(t);
    }
    // A stage reports every request that arrives in it.
    if (s + 1 == a.reported_stage()) reported = std::pair{static_cast<long>(first), static_cast<long>(times.size())};
    start += seconds;
  }
  schedule_.reserve(times.size());
  for (const double t : times) schedule_.push_back(to_ticks(units::seconds(t)));
  target_ = static_cast<long>(schedule_.size());
  return reported;
}

void Sim::next_arrival(SimTime now, int client) {
  if (static_cast<long>(reqs_.size()) >= target_) return;
  const Arrivals& a = c_.workload.arrivals;
  if (!schedule_.empty()) {
    next_open_ = schedule_[reqs_.size()];
    push(next_open_, ArrivalEv{-1});
    return;
  }
  switch (a.kind) {
    case ArrivalKind::kPoisson:
    case ArrivalKind::kGamma:
    case ArrivalKind::kConstant:
      next_open_ += to_ticks(units::seconds(gap(a.rate.si())));
      break;
    case ArrivalKind::kClosed:
      push(now + to_ticks(a.think), ArrivalEv{client});
      return;
    case ArrivalKind::kOffline:
      return;
    case ArrivalKind::kTrace:
      next_open_ = to_ticks(units::seconds(c_.workload.trace.requests[reqs_.size()].t_s));
      break;
  }
  push(next_open_, ArrivalEv{-1});
}

Chain Sim::chain(const Request& q) const {
  Chain out;
  if (q.trace_row >= 0) {
    const auto& tr = c_.workload.trace;
    const auto& h = tr.requests[static_cast<std::size_t>(q.trace_row)].hashes;
    int left = q.isl;
    for (std::uint64_t x : h) {
      if (left <= 0) break;
      const int t = std::min(left, tr.hash_block);
      // A chained hash: a block matches only after the same blocks before it.
      const std::uint64_t prev = out.empty() ? 0 : out.back().first;
      out.emplace_back(splitmix(x ^ splitmix(prev)), t);
      left -= t;
    }
  } else if (q.prefix_id >= 0 && q.prefix_tokens > 0) {
    out.emplace_back(splitmix(static_cast<std::uint64_t>(q.prefix_id) ^ 0x70726566ULL), q.prefix_tokens);
  }
  return out;
}

double load_of(const Replica& r) {
  return r.outstanding;
}

void Sim::route(int r, SimTime now, bool to_decode_pool) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  const int lo = to_decode_pool ? n_prefill_ : 0;
  const int hi = to_decode_pool || n_prefill_ == 0 ? static_cast<int>(reps_.size()) : n_prefill_;
  const int n = hi - lo;
  int pick = lo;
  if (c_.router == Router::kRoundRobin || n == 1) {
    pick = lo + static_cast<int>(rr_++ % static_cast<std::size_t>(n));
  } else {
    double best = 1e300;
    const auto ch = c_.router == Router::kPrefixAffinity ? chain(q) : Chain{};
    bool any_hit = false;
    for (int i = lo; i < hi; ++i) {
      const Replica& rep = reps_[static_cast<std::size_t>(i)];
      const bool hit = !ch.empty() && rep.kv.has(ch.front().first);
      if (hit && !any_hit) {
        any_hit = true;
        best = 1e300;
      }
      if (any_hit && !hit) continue;
      if (load_of(rep) < best) {
        best = load_of(rep);
        pick = i;
      }
    }
  }
  Replica& rep = reps_[static_cast<std::size_t>(pick)];
  q.replica = pick;
  q.state = State::kWaiting;
  rep.outstanding += (rep.prefill_pool ? q.prompt : q.prompt - q.done + q.osl - q.generated);
  rep.waiting.push_back(r);
  try_start(rep, now);
}

void Sim::drop(int r, const std::string& why) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  q.state = State::kDropped;
  ++drops_[why];
  if (q.client >= 0) next_arrival(now_, q.client);
}

}  // namespace llmecon::sim_internal
