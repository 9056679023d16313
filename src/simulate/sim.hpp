// The serving simulator's state (internal to src/simulate): the step memo, requests, replicas,
// events and the Sim class whose members live in arrivals.cpp, kv.cpp, scheduler.cpp and
// simulate.cpp (docs/model.md §23).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <limits>
#include <list>
#include <map>
#include <queue>
#include <random>
#include <unordered_map>
#include <variant>

#include "kv_cache.hpp"
#include "random.hpp"
#include "simulate/policy.hpp"
#include "simulate/simulate.hpp"
#include "stats.hpp"

namespace llmecon::sim_internal {

// ---- Step memo: iteration costs keyed by a coarse code of each count (model.md §23.2) ----

// Exact below 128; above, 64 steps per octave (at most 0.8% off), as a 12-bit code.
inline std::uint64_t code(double x) {
  if (x < 128) return static_cast<std::uint64_t>(std::max(0.0, std::round(x)));
  // x = (1 + f) 2^(E - 1023) with f the mantissa: the octave from the exponent field E, the step
  // from f's top 6 bits (what frexp and floor((m 2 - 1) 64) give, without the library call).
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t octave = ((bits >> 52) & 0x7ff) - 1022 - 8;
  return 128 + octave * 64 + ((bits >> 46) & 63);
}
inline double decode(std::uint64_t c) {
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
    if (key == last_key_) return last_;
    last_key_ = key;
    // Open addressing with linear probing over a power-of-two table, half full at most.
    std::size_t i = slot(key);
    for (; slots_[i].key != kEmpty; i = (i + 1) & mask_) {
      if (slots_[i].key == key) return last_ = slots_[i].cost;
    }
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
    slots_[i] = Slot{key, c};
    if (++size_ * 2 > slots_.size()) rehash();
    return last_ = c;
  }

 private:
  // A key is five 12-bit codes: all ones is never one.
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct Slot {
    std::uint64_t key = kEmpty;
    Cost cost;
  };
  [[nodiscard]] std::size_t slot(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9e3779b97f4a7c15ULL) >> shift_);
  }
  void rehash() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    --shift_;
    for (const Slot& e : old) {
      if (e.key == kEmpty) continue;
      std::size_t i = slot(e.key);
      while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
      slots_[i] = e;
    }
  }

  const DeploymentInput* in_;
  std::vector<Slot> slots_ = std::vector<Slot>(std::size_t{1} << 12);
  std::size_t mask_ = (std::size_t{1} << 12) - 1;
  int shift_ = 64 - 12;
  std::size_t size_ = 0;
  std::uint64_t last_key_ = kEmpty;
  Cost last_{};
  std::size_t* evals_;
  std::size_t* lookups_;
};

// ---- Requests, replicas and events ----

enum class State : std::uint8_t { kWaiting, kRunning, kTransfer, kDone, kDropped };

// The fields every iteration reads come first, and a request starts a cache line: a decode
// touches one line.
struct alignas(64) Request {
  SimTime first_token = -1, last_token = -1;
  int prompt = 1;     // tokens to compute before the next token: isl, or isl + generated after recompute
  int done = 0;       // of prompt, in the KV cache
  int generated = 0;  // output tokens emitted
  int osl = 1;
  int shared = 0;  // tokens of context in pinned prefix-cache entries
  int blocks = 0;  // private KV blocks held
  State state = State::kWaiting;
  bool swapped = false;  // preempted to host memory
  bool looked_up = false;
  SimTime arrival = 0, scheduled = -1, finish = -1;
  int isl = 1;
  int pinned = 0;  // leading prefix entries pinned
  int replica = -1;
  int client = -1;
  int hit = 0;  // prompt tokens the cache served at first admission
  std::int64_t prefix_id = -1;
  int prefix_tokens = 0;
  std::int64_t trace_row = -1;
};

/// What a policy sees of a request (policy.hpp).
inline RequestView view_of(const Request& q) {
  return RequestView{q.isl, q.osl, q.prompt, q.done, q.generated, q.blocks, q.shared};
}

// An iteration's work as it is formed: (request, tokens) in order, and the sums its cost needs,
// kept as entries are added (a request's done and prompt do not change while it is planned).
struct Plan {
  std::vector<std::pair<int, int>> items;
  double dseq = 0, dctx = 0;         // decode rows and their contexts' sum
  double pk = 0, pt = 0, pairs = 0;  // prefill chunks, their tokens and attention pairs
  void add(int r, int tok, const Request& q) {
    items.emplace_back(r, tok);
    if (q.done >= q.prompt) {
      dseq += 1;
      dctx += q.done;
    } else {
      pk += 1;
      pt += tok;
      pairs += tok * static_cast<double>(q.done) + tok * (tok + 1.0) / 2;
    }
  }
  void clear() {
    items.clear();
    dseq = dctx = pk = pt = pairs = 0;
  }
  [[nodiscard]] bool empty() const { return items.empty(); }
};

struct Replica {
  int id = 0;
  bool prefill_pool = false;
  const DeploymentInput* in = nullptr;
  StepMemo* memo = nullptr;
  KvCache kv;  // its paged KV memory and prefix cache
  std::deque<int> waiting;
  std::vector<int> running;
  bool busy = false;
  Plan plan;             // the iteration in flight
  double plan_seqs = 0;  // sequences the pass computes (static batching pads)
  SimTime started = 0;
  double outstanding = 0;  // tokens still to process, for routing
  long out_tokens = 0;
  long completed = 0;
  double extra_s = 0;  // swap and tier transfers of the iteration being formed
  bool static_active = false;
  std::vector<int> window;  // multi-step scheduling: the decode batch the window's iterations repeat
  int window_left = 0;      // iterations of it still to run
  // Its policies, each with any state of its own (policy.hpp).
  std::unique_ptr<AdmissionPolicy> admission;
  std::unique_ptr<SchedulePolicy> schedule;
  std::unique_ptr<PreemptionPolicy> preemption;
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
  /// The next open-loop gap at `rate`, of the arrival kind.
  double gap(double rate);
  /// Staged or exact-count arrivals, drawn before the run into schedule_ (target_ their count);
  /// with stages, the requests [first, last) that arrive in the reported one.
  std::optional<std::pair<long, long>> schedule_arrivals();
  int make_request(SimTime t, int client);
  void route(int r, SimTime now, bool to_decode_pool);
  // ---- KV memory ----
  [[nodiscard]] int blocks_for(int tokens) const { return (tokens + block_ - 1) / block_; }
  Chain chain(const Request& q) const;
  bool grow(Replica& rep, Request& q, int context) {
    // Most decode steps stay within the blocks held: a multiply, not blocks_for's division.
    return context - q.shared <= q.blocks * block_ || grow_blocks(rep, q, context);
  }
  bool grow_blocks(Replica& rep, Request& q, int context);
  void release(Replica& rep, Request& q);
  void lookup_prefix(Replica& rep, Request& q);
  void insert_prefix(Replica& rep, Request& q);
  void preempt(Replica& rep, int r);
  // ---- iterations ----
  void try_start(Replica& rep, SimTime now);
  bool continue_window(Replica& rep);
  bool form_continuous(Replica& rep);
  bool form_static(Replica& rep);
  /// An iteration being formed: its token budget left, and what happened so far.
  struct Forming {
    double budget = 0;
    bool preempted = false;  // a running request went back to the queue
    bool decoded = false;    // a decode is planned
    long partials = -1;      // running requests with prompt left, once plan_decodes saw them all
  };
  void plan_decodes(Replica& rep, Forming& f);
  /// A decode of request r (q) found no free block: the newest running requests are preempted
  /// until its next token fits; false when q itself was (kept out of line: the decode loop's
  /// common path stays small).
  [[gnu::noinline]] bool make_room(Replica& rep, int r, Request& q, Forming& f);
  void plan_prefills(Replica& rep, Forming& f);
  bool admit(Replica& rep, int r, double& budget);
  /// What an admission policy sees of a replica and may do to it, and what a schedule may do
  /// while an iteration is formed (scheduler.cpp).
  class View;
  class Builder;
  friend class View;
  friend class Builder;
  void end_iteration(Replica& rep, SimTime now);
  void end_prefill(Replica& rep, int r, int tok, SimTime now);
  void emit_token(Replica& rep, Request& q, SimTime now);
  void finish(Replica& rep, int r, SimTime now);
  void push(SimTime t, EventData d) { events_.push(Event{t, seq_++, d}); }
  void drop(int r, const std::string& why);
  SimResult collect();
  void cost_and_energy(SimResult& out) const;
  void slo_and_goodput(SimResult& out) const;

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
  std::vector<SimTime> schedule_;  // staged or exact-count arrivals, drawn before the run
  std::size_t rr_ = 0;
  std::map<std::string, long> drops_;
  // The run of tokens not yet in itl_: how many, and their gap. Kept apart in the layout, so the
  // compiler does not pack the pair into one vector register through the decode loop.
  long itl_run_ = 0;
  LogHistogram itl_;
  SimTime itl_gap_ = 0;
  void flush_itl() {
    if (itl_run_ > 0) itl_.add(tick_seconds(itl_gap_), itl_run_);
    itl_run_ = 0;
  }
  /// A token of request r (q) at `now`: its first, or, when r is in the counted range [lo, hi),
  /// its gap joins the ITL run (gap, run), which goes into itl_ when the gap changes. Tokens of
  /// one iteration mostly share their gap: a run is added once. The end of an iteration passes
  /// its own locals for the run and the range, emit_token the members.
  void time_token(Request& q, long r, SimTime now, long lo, long hi, SimTime& gap, long& run) {
    if (q.first_token < 0) {
      q.first_token = now;
    } else if (r >= lo && r < hi) {
      const SimTime g = now - q.last_token;
      if (run > 0 && g != gap) {
        itl_.add(tick_seconds(gap), run);
        run = 0;
      }
      gap = g;
      ++run;
    }
    q.last_token = now;
  }
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

/// What routing balances: the tokens a replica still has to process.
double load_of(const Replica& r);

}  // namespace llmecon::sim_internal
