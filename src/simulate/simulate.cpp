// The discrete-event serving simulator (docs/model.md §23).
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

#include "llmecon/simulate.hpp"

namespace llmecon {

std::string_view name(SchedulerKind k) {
  switch (k) {
    case SchedulerKind::kContinuous:
      return "continuous";
    case SchedulerKind::kStatic:
      return "static";
    case SchedulerKind::kDisaggregated:
      return "disaggregated";
  }
  return "?";
}

std::string_view name(Router r) {
  switch (r) {
    case Router::kRoundRobin:
      return "round-robin";
    case Router::kLeastTokens:
      return "least-tokens";
    case Router::kPrefixAffinity:
      return "prefix-affinity";
  }
  return "?";
}

void apply_engine(Scheduler& s, const ServingEngine& e) {
  s.max_batched_tokens = e.max_batched_tokens >= 1e6 ? 8192.0 : e.max_batched_tokens;
  s.max_seqs = std::min(e.max_seqs, 1e5);
  s.block_tokens = e.kv_block_tokens;
  s.chunked_prefill = e.chunked_prefill;
  s.prefix_caching = e.prefix_caching;
  s.reserve_kv = e.reserve_kv;
  s.priority = e.prefill_first ? Priority::kPrefillFirst : Priority::kDecodeFirst;
}

double Distribution::percentile(double p) const {
  if (p <= 50) return p50;
  if (p <= 90) return p90;
  return p99;
}

namespace {

// ---- Random streams (owned by the run; the same seed gives the same draws everywhere) ----

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Stream {
 public:
  explicit Stream(std::uint64_t seed) : g_(splitmix(seed)) {}
  double uniform() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  double normal() {
    // Box-Muller, written out so every platform draws the same numbers.
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  // Marsaglia-Tsang; shape < 1 through the boost x U^(1/shape).
  double gamma(double shape, double scale) {
    if (shape < 1) return gamma(shape + 1, scale) * std::pow(1.0 - uniform(), 1.0 / shape);
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    while (true) {
      double x = 0, v = 0;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const double u = 1.0 - uniform();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale;
    }
  }
  std::uint64_t next() { return g_(); }

 private:
  std::mt19937_64 g_;
};

int draw(const LengthDist& d, Stream& s) {
  double v = d.a;
  switch (d.kind) {
    case LengthKind::kFixed:
      break;
    case LengthKind::kUniform:
      v = d.a + (d.b - d.a) * s.uniform();
      break;
    case LengthKind::kNormal:
      v = d.a + d.b * s.normal();
      break;
    case LengthKind::kLognormal:
      v = std::exp(std::log(d.a) - d.b * d.b / 2 + d.b * s.normal());
      break;
  }
  return static_cast<int>(std::clamp(std::round(v), 1.0, 1e8));
}

// ---- Step memo: iteration costs keyed by a coarse code of each count (model.md §23.2) ----

// Exact below 128; above, 64 steps per octave (at most 0.8% off), as a 12-bit code.
std::uint64_t code(double x) {
  if (x < 128) return static_cast<std::uint64_t>(std::max(0.0, std::round(x)));
  int e = 0;
  const double m = std::frexp(x, &e);  // x = m 2^e, m in [0.5, 1)
  const auto bucket = static_cast<std::uint64_t>(std::min(63.0, std::floor((m * 2 - 1) * 64)));
  return 128 + static_cast<std::uint64_t>(e - 8) * 64 + bucket;
}
double decode(std::uint64_t c) {
  if (c < 128) return static_cast<double>(c);
  const std::uint64_t e = (c - 128) / 64 + 8, b = (c - 128) % 64;
  return std::ldexp(1.0 + (static_cast<double>(b) + 0.5) / 64.0, static_cast<int>(e) - 1);
}

class StepMemo {
 public:
  StepMemo(const DeploymentInput* in, std::size_t* evals, std::size_t* lookups)
      : in_(in), evals_(evals), lookups_(lookups) {}
  // decode: sequences and their mean context; prefill: chunks, tokens and the context that
  // gives them their exact attention pairs.
  struct Cost {
    Seconds time{};
    Watts power{};  // per chip at the facility (model.md §25.6)
  };
  Cost get(double dseq, double dctx, double pchunks, double ptokens, double pctx) {
    ++*lookups_;
    const std::uint64_t key =
        code(dseq) | code(dctx) << 12 | code(pchunks) << 24 | code(ptokens) << 36 | code(pctx) << 48;
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    ++*evals_;
    SeqGroup g[2];
    std::size_t n = 0;
    if (dseq > 0) g[n++] = SeqGroup{Phase::kDecode, decode(code(dseq)), 1, decode(code(dctx))};
    if (pchunks > 0) {
      const double k = decode(code(pchunks)), t = decode(code(ptokens));
      g[n++] = SeqGroup{Phase::kPrefill, k, std::max(1.0, t / k), decode(code(pctx))};
    }
    Cost c;
    if (n > 0) {
      const IterationTime one = iteration_time(*in_, std::span<const SeqGroup>(g, n));
      c = Cost{one.time, one.power_per_chip};
    }
    memo_.emplace(key, c);
    return c;
  }

 private:
  const DeploymentInput* in_;
  std::unordered_map<std::uint64_t, Cost> memo_;
  std::size_t* evals_;
  std::size_t* lookups_;
};

// ---- Latency histogram for inter-token gaps: 2^-30 s (1 ns) to 2^17 s, 1024 bins per octave ----

class LogHistogram {
 public:
  void add(double s) {
    ++n_;
    sum_ += s;
    max_ = std::max(max_, s);
    // The bin from the exponent and mantissa: no logarithm per token (quantiles within 0.05%).
    int e = 0;
    const double m = std::frexp(std::max(s, 0x1p-30), &e);  // s = m 2^e, m in [0.5, 1)
    const auto octave = static_cast<std::size_t>(std::clamp(e + kLowExp, 0, kOctaves - 1));
    const auto step = static_cast<std::size_t>(std::min(kPerOctave - 1.0, (m * 2 - 1) * kPerOctave));
    ++bins_[octave * static_cast<std::size_t>(kPerOctave) + step];
  }
  [[nodiscard]] double quantile(double q) const {
    if (n_ == 0) return 0;
    const auto target = std::max(1L, static_cast<long>(std::ceil(q * static_cast<double>(n_))));
    long seen = 0;
    for (std::size_t i = 0; i < bins_.size(); ++i) {
      seen += bins_[i];
      if (seen < target) continue;
      const auto per = static_cast<std::size_t>(kPerOctave);
      const double m = 0.5 * (1 + (static_cast<double>(i % per) + 0.5) / kPerOctave);
      return std::min(max_, std::ldexp(m, static_cast<int>(i / per) - kLowExp));
    }
    return max_;
  }
  [[nodiscard]] Distribution dist() const {
    Distribution d;
    d.n = n_;
    if (n_ == 0) return d;
    d.mean = sum_ / static_cast<double>(n_);
    d.p50 = quantile(0.5);
    d.p90 = quantile(0.9);
    d.p99 = quantile(0.99);
    d.max = max_;
    for (int i = 0; i <= 100; i += 5) {
      d.cdf_x.push_back(quantile(std::max(0.001, i / 100.0)));
      d.cdf_y.push_back(i / 100.0);
    }
    return d;
  }

 private:
  static constexpr int kLowExp = 29;  // 2^-30 s sits in octave 0
  static constexpr int kOctaves = 48;
  static constexpr double kPerOctave = 1024;
  std::vector<long> bins_ = std::vector<long>(static_cast<std::size_t>(kOctaves * kPerOctave), 0);
  long n_ = 0;
  double sum_ = 0, max_ = 0;
};

Distribution distribution(std::vector<double> v) {
  Distribution d;
  d.n = static_cast<long>(v.size());
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / static_cast<double>(v.size());
  // Nearest rank: the smallest value with at least p% of the sample at or below it.
  auto rank = [&](double p) {
    const auto k = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
  };
  d.p50 = rank(50);
  d.p90 = rank(90);
  d.p99 = rank(99);
  d.max = v.back();
  const std::size_t points = std::min<std::size_t>(101, v.size());
  for (std::size_t i = 0; i < points; ++i) {
    const double q = points == 1 ? 1.0 : static_cast<double>(i) / static_cast<double>(points - 1);
    d.cdf_x.push_back(v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size() - 1)))]);
    d.cdf_y.push_back(q);
  }
  return d;
}

// The distribution of a whole-number quantity from its counts (value i seen counts[i] times).
Distribution count_distribution(const std::vector<long>& counts) {
  Distribution d;
  double sum = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    d.n += counts[i];
    sum += static_cast<double>(i) * static_cast<double>(counts[i]);
  }
  if (d.n == 0) return d;
  d.mean = sum / static_cast<double>(d.n);
  auto rank = [&](double p) {
    const auto k = std::max(1L, static_cast<long>(std::ceil(p / 100.0 * static_cast<double>(d.n))));
    long seen = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      seen += counts[i];
      if (seen >= k) return static_cast<double>(i);
    }
    return static_cast<double>(counts.size() - 1);
  };
  d.p50 = rank(50);
  d.p90 = rank(90);
  d.p99 = rank(99);
  d.max = rank(100);
  return d;
}

// ---- Requests, replicas and events ----

enum class State : std::uint8_t { kWaiting, kRunning, kTransfer, kDone, kDropped };

struct Request {
  SimTime arrival = 0, scheduled = -1, first_token = -1, last_token = -1, finish = -1;
  int isl = 1, osl = 1;
  int prompt = 1;     // tokens to compute before the next token: isl, or isl + generated after recompute
  int done = 0;       // of prompt, in the KV cache
  int generated = 0;  // output tokens emitted
  int shared = 0;     // tokens of context in pinned prefix-cache entries
  int pinned = 0;     // leading prefix entries pinned
  int blocks = 0;     // private KV blocks held
  int replica = -1;
  int client = -1;
  int hit = 0;           // prompt tokens the cache served at first admission
  bool swapped = false;  // preempted to host memory
  bool looked_up = false;
  State state = State::kWaiting;
  std::int64_t prefix_id = -1;
  int prefix_tokens = 0;
  std::int64_t trace_row = -1;
};

struct CacheEntry {
  int tokens = 0;
  int blocks = 0;
  int refs = 0;
  std::list<std::uint64_t>::iterator lru;
};

struct Replica {
  int id = 0;
  bool prefill_pool = false;
  const DeploymentInput* in = nullptr;
  StepMemo* memo = nullptr;
  long capacity = 0;  // KV blocks
  long used = 0;      // private + cache
  long peak = 0;
  std::deque<int> waiting;
  std::vector<int> running;
  bool busy = false;
  std::vector<std::pair<int, int>> plan;  // (request, tokens) of the iteration in flight
  double plan_seqs = 0;                   // sequences the pass computes (static batching pads)
  SimTime started = 0;
  double outstanding = 0;  // tokens still to process, for routing
  long out_tokens = 0;
  long completed = 0;
  std::unordered_map<std::uint64_t, CacheEntry> cache;
  std::list<std::uint64_t> lru;  // front: most recent
  long cache_blocks = 0;
  std::unordered_map<std::uint64_t, int> host;  // spilled entries: tokens
  std::list<std::uint64_t> host_lru;
  long host_blocks = 0, host_capacity = 0;
  double extra_s = 0;  // swap and tier transfers of the iteration being formed
  bool static_active = false;
  double busy_s = 0;  // seconds of iterations
  double joules = 0;  // facility energy of its iterations (model.md §25.6)
};

struct ArrivalEv {
  int client;
};
struct IterationEv {
  int replica;
};
struct TransferEv {
  int request;
};
// Ordered by (time, kind, sequence): iterations end before transfers land before arrivals.
using EventData = std::variant<IterationEv, TransferEv, ArrivalEv>;
struct Event {
  SimTime t = 0;
  std::uint64_t seq = 0;
  EventData data;
  bool operator>(const Event& o) const {
    if (t != o.t) return t > o.t;
    if (data.index() != o.data.index()) return data.index() > o.data.index();
    return seq > o.seq;
  }
};

class Sim {
 public:
  explicit Sim(const SimConfig& c)
      : c_(c),
        arrivals_(c.workload.seed),
        lengths_(c.workload.seed ^ 0x5bd1e995ULL),
        prefixes_(c.workload.seed ^ 0x27d4eb2fULL) {}

  Result<SimResult> run();

 private:
  // ---- setup ----
  Status build_replicas();
  // ---- requests ----
  void next_arrival(SimTime now, int client);
  int make_request(SimTime t, int client);
  void route(int r, SimTime now, bool to_decode_pool);
  // ---- KV memory ----
  [[nodiscard]] int blocks_for(int tokens) const { return (tokens + block_ - 1) / block_; }
  std::vector<std::pair<std::uint64_t, int>> chain(const Request& q) const;
  bool evict_one(Replica& rep);
  bool reserve(Replica& rep, long blocks);
  bool grow(Replica& rep, Request& q, int context);
  void release(Replica& rep, Request& q);
  void lookup_prefix(Replica& rep, Request& q);
  void insert_prefix(Replica& rep, Request& q);
  void preempt(Replica& rep, int r);
  // ---- iterations ----
  void try_start(Replica& rep, SimTime now);
  bool form_continuous(Replica& rep);
  bool form_static(Replica& rep);
  bool admit(Replica& rep, int r, double& budget);
  void end_iteration(Replica& rep, SimTime now);
  void emit_token(Replica& rep, Request& q, SimTime now);
  void finish(Replica& rep, int r, SimTime now);
  void push(SimTime t, EventData d) { events_.push(Event{t, seq_++, d}); }
  void drop(int r, const std::string& why);
  SimResult collect();

  const SimConfig& c_;
  Stream arrivals_, lengths_, prefixes_;
  std::vector<Request> reqs_;
  std::vector<Replica> reps_;
  int n_prefill_ = 0;  // the first n_prefill_ replicas are the prefill pool
  std::vector<std::unique_ptr<StepMemo>> memos_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::uint64_t seq_ = 0;
  int block_ = 16;
  double block_bytes_ = 0;
  long target_ = 0;
  SimTime next_open_ = 0;
  std::size_t rr_ = 0;
  std::map<std::string, long> drops_;
  LogHistogram itl_;
  long completed_ = 0;
  long counted_lo_ = 0, counted_hi_ = 0;
  SimTime win_lo_ = 0, win_hi_ = 0;
  long win_out_ = 0, win_in_ = 0, win_done_ = 0;
  long preemptions_ = 0, iterations_ = 0, prefill_tokens_ = 0, out_tokens_ = 0, cached_tokens_ = 0,
       admitted_prompt_ = 0;
  double kv_weighted_ = 0, busy_time_ = 0, kv_max_ = 0;
  std::vector<long> batch_counts_;  // iterations by sequences in the pass
  std::vector<SimSample> samples_;
  std::size_t sample_stride_ = 1, sample_skip_ = 0;
  std::vector<SimResult::Event> trace_;
  std::size_t evals_ = 0, lookups_ = 0;
  SimTime now_ = 0, last_finish_ = 0;
  SimTime first_arrival_ = std::numeric_limits<SimTime>::max();
  const HostTier* tier_ = nullptr;
};

// ---- setup ----

Status Sim::build_replicas() {
  const Scheduler& s = c_.scheduler;
  block_ = std::max(1, s.block_tokens);
  auto add_pool = [&](const DeploymentInput& in, int n, bool prefill) -> Status {
    memos_.push_back(std::make_unique<StepMemo>(&in, &evals_, &lookups_));
    const KvCapacity kv = kv_capacity(in, s.max_batched_tokens);
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
      r.capacity = static_cast<long>(kv.tokens) / block_;
      if (tier_ != nullptr) {
        r.host_capacity = static_cast<long>(tier_->capacity.si() * in.map.replica_chips() / block_bytes_);
      }
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

void Sim::next_arrival(SimTime now, int client) {
  if (static_cast<long>(reqs_.size()) >= target_) return;
  const Arrivals& a = c_.workload.arrivals;
  switch (a.kind) {
    case ArrivalKind::kPoisson:
      next_open_ += to_ticks(units::seconds(arrivals_.exponential(1.0 / a.rate)));
      break;
    case ArrivalKind::kGamma: {
      const double k = 1.0 / (a.cv * a.cv);
      next_open_ += to_ticks(units::seconds(arrivals_.gamma(k, 1.0 / (a.rate * k))));
      break;
    }
    case ArrivalKind::kConstant:
      next_open_ += to_ticks(units::seconds(1.0 / a.rate));
      break;
    case ArrivalKind::kClosed:
      push(now + to_ticks(units::seconds(a.think_s)), ArrivalEv{client});
      return;
    case ArrivalKind::kOffline:
      return;
    case ArrivalKind::kTrace:
      next_open_ = to_ticks(units::seconds(c_.workload.trace.requests[reqs_.size()].t_s));
      break;
  }
  push(next_open_, ArrivalEv{-1});
}

std::vector<std::pair<std::uint64_t, int>> Sim::chain(const Request& q) const {
  std::vector<std::pair<std::uint64_t, int>> out;
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
    const auto ch = c_.router == Router::kPrefixAffinity ? chain(q) : std::vector<std::pair<std::uint64_t, int>>{};
    bool any_hit = false;
    for (int i = lo; i < hi; ++i) {
      const Replica& rep = reps_[static_cast<std::size_t>(i)];
      const bool hit = !ch.empty() && rep.cache.count(ch.front().first) > 0;
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

// ---- KV memory ----

bool Sim::evict_one(Replica& rep) {
  for (auto it = rep.lru.rbegin(); it != rep.lru.rend(); ++it) {
    auto e = rep.cache.find(*it);
    if (e->second.refs > 0) continue;
    rep.used -= e->second.blocks;
    rep.cache_blocks -= e->second.blocks;
    if (rep.host_capacity > 0 && e->second.blocks <= rep.host_capacity) {
      // Spill to the host tier, evicting its oldest entries.
      while (rep.host_blocks + e->second.blocks > rep.host_capacity && !rep.host_lru.empty()) {
        const std::uint64_t old = rep.host_lru.back();
        rep.host_lru.pop_back();
        rep.host_blocks -= blocks_for(rep.host[old]);
        rep.host.erase(old);
      }
      if (rep.host.emplace(e->first, e->second.tokens).second) {
        rep.host_lru.push_front(e->first);
        rep.host_blocks += e->second.blocks;
      }
    }
    rep.lru.erase(e->second.lru);
    rep.cache.erase(e);
    return true;
  }
  return false;
}

bool Sim::reserve(Replica& rep, long blocks) {
  if (blocks <= 0) return true;
  while (rep.capacity - rep.used < blocks) {
    if (!evict_one(rep)) return false;
  }
  rep.used += blocks;
  rep.peak = std::max(rep.peak, rep.used);
  return true;
}

bool Sim::grow(Replica& rep, Request& q, int context) {
  const int need = blocks_for(std::max(0, context - q.shared)) - q.blocks;
  if (need <= 0) return true;
  if (!reserve(rep, need)) return false;
  q.blocks += need;
  return true;
}

void Sim::release(Replica& rep, Request& q) {
  rep.used -= q.blocks;
  q.blocks = 0;
  if (q.pinned > 0) {
    const auto ch = chain(q);
    for (int i = 0; i < q.pinned; ++i) {
      auto e = rep.cache.find(ch[static_cast<std::size_t>(i)].first);
      if (e != rep.cache.end()) --e->second.refs;
    }
  }
  q.pinned = 0;
  q.shared = 0;
}

void Sim::lookup_prefix(Replica& rep, Request& q) {
  if (!c_.scheduler.prefix_caching) return;
  const auto ch = chain(q);
  int tokens = 0, pinned = 0;
  for (const auto& [h, t] : ch) {
    auto e = rep.cache.find(h);
    if (e == rep.cache.end()) {
      auto s = rep.host.find(h);
      if (s == rep.host.end() || !reserve(rep, blocks_for(t))) break;
      // A hit in the host tier: loaded back at the tier's bandwidth, across the replica's chips.
      rep.extra_s +=
          blocks_for(t) * block_bytes_ / (tier_->bandwidth.si() * static_cast<double>(rep.in->map.replica_chips()));
      rep.host_lru.remove(h);
      rep.host_blocks -= blocks_for(s->second);
      rep.host.erase(s);
      rep.lru.push_front(h);
      rep.cache_blocks += blocks_for(t);
      e = rep.cache.emplace(h, CacheEntry{t, blocks_for(t), 0, rep.lru.begin()}).first;
    } else {
      rep.lru.splice(rep.lru.begin(), rep.lru, e->second.lru);
    }
    ++e->second.refs;
    ++pinned;
    tokens += t;
  }
  q.pinned = pinned;
  q.shared = tokens;
  // At least the last prompt token is computed: it yields the next token.
  q.done = std::min(tokens, q.prompt - 1);
}

void Sim::insert_prefix(Replica& rep, Request& q) {
  if (!c_.scheduler.prefix_caching || c_.scheduler.kind == SchedulerKind::kStatic) return;
  const auto ch = chain(q);
  for (std::size_t i = static_cast<std::size_t>(q.pinned); i < ch.size(); ++i) {
    const auto [h, t] = ch[i];
    const int b = blocks_for(t);
    auto e = rep.cache.find(h);
    if (e == rep.cache.end()) {
      if (q.blocks < b) break;
      // The request's own blocks become the cache entry.
      rep.lru.push_front(h);
      rep.cache.emplace(h, CacheEntry{t, b, 1, rep.lru.begin()});
      rep.cache_blocks += b;
    } else {
      ++e->second.refs;
      rep.used -= std::min(b, q.blocks);  // a duplicate: the cached copy serves it
      rep.lru.splice(rep.lru.begin(), rep.lru, e->second.lru);
    }
    q.blocks -= std::min(b, q.blocks);
    q.shared += t;
    ++q.pinned;
  }
}

void Sim::preempt(Replica& rep, int r) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  ++preemptions_;
  rep.running.erase(std::find(rep.running.begin(), rep.running.end(), r));
  const bool swap = c_.scheduler.preemption == Preemption::kSwap && tier_ != nullptr;
  if (swap) {
    rep.extra_s += q.blocks * block_bytes_ / (tier_->bandwidth.si() * rep.in->map.replica_chips());
    q.swapped = true;
  } else {
    // Recompute: the prompt and every token so far are prefilled again.
    rep.outstanding += q.done;
    q.prompt = q.isl + q.generated;
    q.done = 0;
    q.looked_up = false;
  }
  release(rep, q);
  q.state = State::kWaiting;
  rep.waiting.push_front(r);
}

// ---- iterations ----

bool Sim::admit(Replica& rep, int r, double& budget) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  const bool first = q.scheduled < 0;
  if (!q.looked_up && !q.swapped) {
    lookup_prefix(rep, q);
    q.looked_up = true;
    if (first) {
      q.hit = q.done;
      cached_tokens_ += q.done;
      admitted_prompt_ += q.isl;
      rep.outstanding -= q.done;
    }
  }
  if (q.swapped || q.done >= q.prompt) {
    // Swapped back in, or prefilled on another pool: the whole context comes back (or over),
    // and the request decodes from the next iteration.
    if (!grow(rep, q, q.done + 1)) return false;
    if (q.swapped) {
      rep.extra_s += q.blocks * block_bytes_ / (tier_->bandwidth.si() * rep.in->map.replica_chips());
    }
    q.swapped = false;
    q.state = State::kRunning;
    rep.running.push_back(r);
    return true;
  }
  const int rem = q.prompt - q.done;
  int chunk = static_cast<int>(std::min<double>(rem, budget));
  if (!c_.scheduler.chunked_prefill) {
    // Without chunking a prompt goes whole. An engine that does not chunk sizes its token budget
    // to its longest prompt (vLLM refuses max_num_batched_tokens below max_model_len, TensorRT-LLM
    // max_num_tokens below max_input_len), so a prompt past the budget still runs beside the
    // iteration's decodes, as its only prefill (model.md §23.4).
    if (rem > budget) {
      const bool prefilling = std::any_of(rep.plan.begin(), rep.plan.end(), [&](const std::pair<int, int>& e) {
        const Request& o = reqs_[static_cast<std::size_t>(e.first)];
        return o.done < o.prompt;
      });
      if (prefilling) return false;
    }
    chunk = rem;
  }
  if (chunk <= 0) return false;
  // Reserving engines (TensorRT-LLM's GUARANTEED_NO_EVICT) hold blocks for the whole output.
  const int ctx = c_.scheduler.reserve_kv ? q.prompt + q.osl - q.generated : q.done + chunk;
  if (!grow(rep, q, ctx)) return false;
  q.state = State::kRunning;
  if (first) q.scheduled = now_;
  rep.running.push_back(r);
  rep.plan.emplace_back(r, chunk);
  budget -= chunk;
  return true;
}

bool Sim::form_continuous(Replica& rep) {
  double budget = c_.scheduler.max_batched_tokens;
  const bool prefill_first = c_.scheduler.priority == Priority::kPrefillFirst;
  bool preempted = false;
  auto decodes = [&]() {
    for (std::size_t i = 0; i < rep.running.size() && budget >= 1;) {
      const int r = rep.running[i];
      Request& q = reqs_[static_cast<std::size_t>(r)];
      if (q.done < q.prompt) {
        ++i;
        continue;
      }
      bool self = false;
      while (!grow(rep, q, q.done + 1)) {
        const int victim = rep.running.back();
        preempt(rep, victim);
        preempted = true;
        if (victim == r) {
          self = true;
          break;
        }
      }
      if (self) break;
      rep.plan.emplace_back(r, 1);
      budget -= 1;
      ++i;
    }
  };
  auto prefills = [&]() {
    // Partial prefills first, then new requests.
    // A running request with prompt left was admitted in an earlier iteration, so it is not in
    // this plan yet; growing its blocks never changes the running list.
    for (const int r : rep.running) {
      Request& q = reqs_[static_cast<std::size_t>(r)];
      if (q.done >= q.prompt || budget < 1) continue;
      const int chunk = static_cast<int>(std::min<double>(q.prompt - q.done, budget));
      if (!c_.scheduler.chunked_prefill && chunk < q.prompt - q.done && !rep.plan.empty()) continue;
      if (!grow(rep, q, q.done + chunk)) break;
      rep.plan.emplace_back(r, chunk);
      budget -= chunk;
    }
    // No new requests in an iteration that had to preempt, unless nothing else can run.
    if (preempted && !rep.plan.empty()) return;
    while (!rep.waiting.empty() && budget >= 1 && static_cast<double>(rep.running.size()) < c_.scheduler.max_seqs) {
      const int r = rep.waiting.front();
      if (!admit(rep, r, budget)) break;
      rep.waiting.pop_front();
    }
  };
  if (prefill_first) {
    prefills();
    if (rep.plan.empty()) decodes();
  } else {
    decodes();
    prefills();
  }
  // Requests admitted with their whole context (swapped in, or prefilled on the other pool)
  // decode at once when nothing else would run.
  if (rep.plan.empty() && !rep.running.empty()) decodes();
  rep.plan_seqs = static_cast<double>(rep.plan.size());
  return !rep.plan.empty();
}

bool Sim::form_static(Replica& rep) {
  if (!rep.static_active) {
    // A new batch: as many waiting requests as fit, each with its whole context reserved.
    while (!rep.waiting.empty() && static_cast<double>(rep.running.size()) < c_.scheduler.max_seqs) {
      const int r = rep.waiting.front();
      Request& q = reqs_[static_cast<std::size_t>(r)];
      if (!reserve(rep, blocks_for(q.isl + q.osl))) break;
      q.blocks = blocks_for(q.isl + q.osl);
      rep.waiting.pop_front();
      q.state = State::kRunning;
      q.scheduled = now_;
      rep.running.push_back(r);
      rep.plan.emplace_back(r, q.prompt);
    }
    rep.static_active = !rep.running.empty();
    rep.plan_seqs = static_cast<double>(rep.plan.size());
    return !rep.plan.empty();
  }
  for (const int r : rep.running) {
    const Request& q = reqs_[static_cast<std::size_t>(r)];
    if (q.state == State::kRunning) rep.plan.emplace_back(r, 1);
  }
  // Finished sequences stay in the batch as padding until the longest one ends.
  rep.plan_seqs = static_cast<double>(rep.running.size());
  return !rep.plan.empty();
}

void Sim::try_start(Replica& rep, SimTime now) {
  if (rep.busy) return;
  rep.plan.clear();
  rep.extra_s = 0;
  const bool formed = c_.scheduler.kind == SchedulerKind::kStatic ? form_static(rep) : form_continuous(rep);
  if (!formed) {
    // Nothing can run: a request at the head of the queue that needs more KV than the replica has.
    if (rep.running.empty() && !rep.waiting.empty()) {
      const int r = rep.waiting.front();
      rep.waiting.pop_front();
      Request& q = reqs_[static_cast<std::size_t>(r)];
      release(rep, q);
      rep.outstanding -= q.prompt - q.done + q.osl - q.generated;
      drop(r, "its context needs more KV blocks than a replica holds");
      try_start(rep, now);
    }
    return;
  }
  // The iteration's cost: decode tokens at their mean context, prefill chunks with the context
  // that gives their exact attention pairs (model.md §23.2).
  double dseq = 0, dctx = 0, pk = 0, pt = 0, pairs = 0;
  for (const auto& [r, tok] : rep.plan) {
    const Request& q = reqs_[static_cast<std::size_t>(r)];
    if (q.done >= q.prompt) {
      dseq += 1;
      dctx += q.done;
    } else {
      pk += 1;
      pt += tok;
      pairs += tok * static_cast<double>(q.done) + tok * (tok + 1.0) / 2;
    }
  }
  if (c_.scheduler.kind == SchedulerKind::kStatic && rep.plan_seqs > pk + dseq && dseq > 0) {
    dctx *= rep.plan_seqs / dseq;  // padding rows attend over their own contexts too
    dseq = rep.plan_seqs;
  }
  if (dseq > 0) dctx /= dseq;
  double pctx = 0;
  if (pk > 0) {
    const double n = pt / pk;
    pctx = std::max(0.0, (pairs - pk * n * (n + 1) / 2) / pt);
  }
  const StepMemo::Cost cost = rep.memo->get(dseq, dctx, pk, pt, pctx);
  const Seconds step = cost.time;
  const SimTime dur = to_ticks(step + units::seconds(rep.extra_s));
  rep.busy_s += tick_seconds(dur);
  rep.joules += cost.power.si() * rep.in->map.replica_chips() * tick_seconds(dur);
  rep.busy = true;
  rep.started = now;
  push(now + dur, IterationEv{rep.id});
  ++iterations_;
  {
    const auto b = static_cast<std::size_t>(dseq + pk);
    if (b >= batch_counts_.size()) batch_counts_.resize(b + 1, 0);
    ++batch_counts_[b];
  }
  const double util = rep.capacity > 0 ? static_cast<double>(rep.used) / static_cast<double>(rep.capacity) : 0;
  kv_weighted_ += util * tick_seconds(dur);
  busy_time_ += tick_seconds(dur);
  kv_max_ = std::max(kv_max_, util);
  if (rep.id == n_prefill_) {
    if (sample_skip_ == 0) {
      samples_.push_back(SimSample{tick_seconds(now), dseq + pk, util});
      if (samples_.size() >= 4096) {
        // Thin to half and sample half as often.
        std::vector<SimSample> half;
        for (std::size_t i = 0; i < samples_.size(); i += 2) half.push_back(samples_[i]);
        samples_ = std::move(half);
        sample_stride_ *= 2;
      }
      sample_skip_ = sample_stride_ - 1;
    } else {
      --sample_skip_;
    }
  }
  if (c_.chrome_trace && trace_.size() < kTraceEvents) {
    trace_.push_back(
        SimResult::Event{"iteration", 'X', tick_seconds(now) * 1e6, tick_seconds(dur) * 1e6, rep.id, -1, dseq, pt});
  }
}

void Sim::emit_token(Replica& rep, Request& q, SimTime now) {
  ++q.generated;
  ++out_tokens_;
  ++rep.out_tokens;
  rep.outstanding -= 1;
  const auto idx = static_cast<long>(&q - reqs_.data());
  const bool counted = idx >= counted_lo_ && idx < counted_hi_;
  if (q.first_token < 0) {
    q.first_token = now;
  } else if (counted) {
    itl_.add(tick_seconds(now - q.last_token));
  }
  q.last_token = now;
  if (now >= win_lo_ && now <= win_hi_) ++win_out_;
}

void Sim::finish(Replica& rep, int r, SimTime now) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  q.finish = now;
  q.state = State::kDone;
  last_finish_ = std::max(last_finish_, now);
  ++rep.completed;
  if (now >= win_lo_ && now <= win_hi_) ++win_done_;
  if (c_.chrome_trace && trace_.size() + 2 < kTraceEvents) {
    trace_.push_back(SimResult::Event{"request", 'b', tick_seconds(q.arrival) * 1e6, 0, rep.id, r, 0, 0});
    trace_.push_back(SimResult::Event{"request", 'e', tick_seconds(now) * 1e6, 0, rep.id, r, 0, 0});
  }
  if (c_.scheduler.kind != SchedulerKind::kStatic) {
    release(rep, q);
    rep.running.erase(std::find(rep.running.begin(), rep.running.end(), r));
  }
  if (c_.progress && (++completed_ & 0xfff) == 0) {
    c_.progress(std::min(1.0, static_cast<double>(completed_) / static_cast<double>(std::max(1L, target_))));
  }
  if (q.client >= 0) next_arrival(now, q.client);
}

void Sim::end_iteration(Replica& rep, SimTime now) {
  rep.busy = false;
  for (const auto& [r, tok] : rep.plan) {
    Request& q = reqs_[static_cast<std::size_t>(r)];
    if (q.state != State::kRunning) continue;
    if (q.done < q.prompt) {
      q.done += tok;
      prefill_tokens_ += tok;
      rep.outstanding -= tok;
      if (now >= win_lo_ && now <= win_hi_) win_in_ += tok;
      if (q.done < q.prompt) continue;
      // The prompt's last chunk yields a token.
      insert_prefix(rep, q);
      emit_token(rep, q, now);
      if (q.generated >= q.osl) {
        finish(rep, r, now);
      } else if (rep.prefill_pool) {
        // Disaggregated: the KV moves to a decode replica (model.md §23.4).
        const Seconds move =
            kv_transfer_time(*rep.in->model, q.done, rep.in->precision.kv, *rep.in->hw, rep.in->map.replica_chips());
        release(rep, q);
        rep.running.erase(std::find(rep.running.begin(), rep.running.end(), r));
        rep.outstanding -= q.osl - q.generated;
        q.state = State::kTransfer;
        push(now + to_ticks(move), TransferEv{r});
      }
    } else {
      ++q.done;
      emit_token(rep, q, now);
      if (q.generated >= q.osl) finish(rep, r, now);
    }
  }
  if (c_.scheduler.kind == SchedulerKind::kStatic && rep.static_active) {
    const bool all_done = std::all_of(rep.running.begin(), rep.running.end(),
                                      [&](int r) { return reqs_[static_cast<std::size_t>(r)].state == State::kDone; });
    if (all_done) {
      for (const int r : rep.running) release(rep, reqs_[static_cast<std::size_t>(r)]);
      rep.running.clear();
      rep.static_active = false;
    }
  }
  rep.plan.clear();
  try_start(rep, now);
}

Result<SimResult> Sim::run() {
  TRY_STATUS(build_replicas());
  const Workload& w = c_.workload;
  const bool trace = w.arrivals.kind == ArrivalKind::kTrace;
  target_ = trace ? static_cast<long>(w.trace.requests.size()) : w.requests;
  reqs_.reserve(static_cast<std::size_t>(target_));
  const bool offline = w.arrivals.kind == ArrivalKind::kOffline;
  const double wf = offline ? 0.0 : std::clamp(c_.warmup_fraction, 0.0, 0.45);
  counted_lo_ = static_cast<long>(std::floor(wf * static_cast<double>(target_)));
  counted_hi_ = target_ - counted_lo_;
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
      if (blocks_for(q.isl + q.osl) > reps_.back().capacity ||
          (n_prefill_ > 0 && blocks_for(q.isl) > reps_.front().capacity)) {
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

SimResult Sim::collect() {
  SimResult out;
  out.arrived = static_cast<long>(reqs_.size());
  std::vector<double> ttft, tpot, e2e, queue;
  long input = 0;
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
    ttft.push_back(tick_seconds(q.first_token - q.arrival));
    e2e.push_back(tick_seconds(q.finish - q.arrival));
    queue.push_back(tick_seconds(q.scheduled - q.arrival));
    if (q.osl > 1) tpot.push_back(tick_seconds(q.finish - q.first_token) / (q.osl - 1));
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
  out.makespan_s = tick_seconds(last_finish_);
  const bool offline = c_.workload.arrivals.kind == ArrivalKind::kOffline;
  SimTime lo = win_lo_, hi = win_hi_;
  if (offline || hi <= lo || hi == std::numeric_limits<SimTime>::max() || lo == hi) {
    // Offline, or too few requests for a window: the whole run.
    lo = 0;
    hi = last_finish_;
    out.rule = "every request, from t = 0 to the last completion";
    out.output_tokens_per_s = hi > 0 ? static_cast<double>(out_tokens_) / tick_seconds(hi) : 0;
    out.input_tokens_per_s = hi > 0 ? static_cast<double>(prefill_tokens_) / tick_seconds(hi) : 0;
    out.requests_per_s = hi > 0 ? static_cast<double>(out.completed) / tick_seconds(hi) : 0;
  } else {
    out.rule = fmt::format(
        "latencies of requests {} to {} (the first and last {:.0f}% left out); rates over the window from the "
        "first of them arriving to the last arriving",
        counted_lo_ + 1, counted_hi_, c_.warmup_fraction * 100);
    const double win = tick_seconds(hi - lo);
    out.output_tokens_per_s = static_cast<double>(win_out_) / win;
    out.input_tokens_per_s = static_cast<double>(win_in_) / win;
    out.requests_per_s = static_cast<double>(win_done_) / win;
  }
  out.window_s = tick_seconds(hi - lo);
  for (const Replica& r : reps_) out.chips += r.in->map.replica_chips();
  out.ttft_s = distribution(ttft);
  out.tpot_s = distribution(tpot);
  out.e2e_s = distribution(e2e);
  out.queue_s = distribution(queue);
  out.itl_s = itl_.dist();
  out.batch = count_distribution(batch_counts_);
  out.kv_mean = busy_time_ > 0 ? kv_weighted_ / busy_time_ : 0;
  out.kv_max = kv_max_;
  out.iterations = iterations_;
  out.preemptions = preemptions_;
  long end_blocks = 0;
  for (const Replica& r : reps_) {
    out.kv_blocks_capacity += r.capacity;
    out.kv_blocks_peak = std::max(out.kv_blocks_peak, r.peak);
    end_blocks += r.used - r.cache_blocks;
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
  // Cost at the achieved rate: every chip of every pool, for the tokens served.
  double usd_per_s = 0;
  for (const Replica& r : reps_) usd_per_s += r.in->hw->price.value.si() * r.in->map.replica_chips();
  if (out.output_tokens_per_s > 0) out.usd_per_mtok_output = usd_per_s / out.output_tokens_per_s * 1e6;
  if (out.output_tokens_per_s + out.input_tokens_per_s > 0) {
    out.usd_per_mtok = usd_per_s / (out.output_tokens_per_s + out.input_tokens_per_s) * 1e6;
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
    out.energy_j = joules;
    out.run_s = run_s;
    if (out.emitted_tokens > 0) out.joules_per_token_output = joules / static_cast<double>(out.emitted_tokens);
    const double all = static_cast<double>(out.emitted_tokens + out.prefill_tokens);
    if (all > 0) out.joules_per_token = joules / all;
  }
  // The prefill the cache avoided, at the price of prefilling those tokens (model.md §23.5).
  if (cached_tokens_ > 0) {
    const Replica& r = reps_.front();
    const double isl =
        std::max(1.0, static_cast<double>(admitted_prompt_) / static_cast<double>(std::max(1L, out.arrived)));
    const PhaseResult p = evaluate_prefill(*r.in, 1, isl);
    out.usd_saved = static_cast<double>(cached_tokens_) * p.usd_per_token.si();
  }
  // SLOs and goodput: the share of counted requests within every bound, times the request rate.
  const Slo& s = c_.slo;
  auto check = [&](const char* metric, const std::optional<double>& bound, double pct, const Distribution& d) {
    if (!bound) return;
    SloCheck k{metric, pct, *bound, d.percentile(pct), d.percentile(pct) <= *bound};
    out.slo_met = out.slo_met && k.met;
    out.slo.push_back(k);
  };
  check("ttft", s.ttft_s, s.ttft_pct, out.ttft_s);
  check("tpot", s.tpot_s, s.tpot_pct, out.tpot_s);
  check("e2e", s.e2e_s, s.e2e_pct, out.e2e_s);
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
  if (out.dropped > 0) out.slo_met = out.slo.empty() ? out.slo_met : false;
  out.samples = std::move(samples_);
  out.step_evaluations = evals_;
  out.step_lookups = lookups_;
  out.trace = std::move(trace_);
  return out;
}

}  // namespace

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
      !(w.arrivals.rate > 0)) {
    return Error{"--rate", "", "a positive request rate", "requests per second"};
  }
  if (w.arrivals.kind == ArrivalKind::kGamma && !(w.arrivals.cv > 0)) {
    return Error{"--arrival", "", "gamma needs a positive coefficient of variation", "gamma:CV, e.g. gamma:2"};
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

Result<RateSearch> find_rate(const SimConfig& c, int iterations) {
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
    k.workload.arrivals.rate = rate;
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
  double hi = std::max(1e-6, cap.requests_per_s * 1.05), lo = 0;
  const long coarse = std::min(full, kCoarse);
  TRY(first, at(hi, coarse));
  if (first.slo_met) {
    lo = hi;
  } else {
    for (int i = 0; i < iterations; ++i) {
      const double mid = lo > 0 ? std::sqrt(lo * hi) : hi / 2;
      TRY(r, at(mid, coarse));
      if (r.slo_met) {
        lo = mid;
      } else {
        hi = mid;
      }
      if (lo > 0 && hi / lo < 1.01) break;
    }
  }
  // Confirm on every request; step down 3% at a time (at most three times) if the full run misses.
  for (int k = 0; k < 4 && lo > 0; ++k) {
    TRY(r, at(lo, full));
    if (r.slo_met) {
      out.rate = lo;
      out.at = std::move(r);
      return out;
    }
    lo *= 0.97;
  }
  out.rate = 0;
  return out;
}

}  // namespace llmecon
