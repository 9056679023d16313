// simulate/simulate.hpp: a discrete-event serving simulator (docs/model.md §23).
//
// Requests arrive (open loop at a rate, a closed loop of clients, all at once, or a trace), a
// router spreads them over replicas, and each replica's scheduler forms engine iterations:
// decode tokens plus prefill chunks under a token budget, with paged KV memory, prefix caching
// and preemption. Each iteration's time is the per-operator step model of the mixed batch
// (parallel.hpp iteration_time), memoized. The result is the latency distribution (TTFT, TPOT,
// ITL, end-to-end, queueing), throughput, goodput under SLOs and cost.
//
//   SimConfig c;
//   c.decode = DeploymentInput{&model, &hw, Mapping{.tp = 8}, Precision::native(model)};
//   c.workload.arrivals = {ArrivalKind::kPoisson, units::requests_per_s(10)};
//   c.workload.isl = LengthDist::fixed(2048);  c.workload.osl = LengthDist::fixed(256);
//   c.workload.requests = 10000;
//   auto r = simulate(c);   // Result<SimResult>; the same seed gives the same result
//
// Time is an integer count of nanoseconds (SimTime, conventions §S3); events are ordered by
// (time, kind, sequence number), so a run is deterministic.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parallel/parallel.hpp"
#include "units/error.hpp"
#include "units/names.hpp"

namespace llmecon {

/// The simulator's clock: integer nanoseconds. The resolution is fixed at compile time.
using SimTime = std::int64_t;
inline constexpr double kSimTicksPerSecond = 1e9;
/// The one conversion from an analytic time: rounded to the nearest tick, at least one tick for
/// any positive duration (an event never happens in zero time).
SimTime to_ticks(Seconds s);
inline double tick_seconds(SimTime t) {
  return static_cast<double>(t) / kSimTicksPerSecond;
}

// ---- Workloads (model.md §23.1) ----

enum class ArrivalKind {
  kPoisson,   ///< exponential gaps at `rate`
  kGamma,     ///< gamma gaps at `rate` with coefficient of variation `cv` (burstiness)
  kConstant,  ///< one request every 1/rate
  kClosed,    ///< `clients` clients, each sending its next request `think` after an answer
  kOffline,   ///< every request at t = 0
  kTrace,     ///< the trace's timestamps
};
std::string_view name(ArrivalKind k);

/// One stage of staged load: arrivals at `rate` for `length`.
struct LoadStage {
  RequestsPerSecond rate{};
  Seconds length{};
};

struct Arrivals {
  ArrivalKind kind = ArrivalKind::kPoisson;
  RequestsPerSecond rate = units::requests_per_s(1);  ///< poisson, gamma, constant
  double cv = 1;                                      ///< gamma: coefficient of variation of the gaps
  int clients = 1;                                    ///< closed loop
  Seconds think{};                                    ///< closed loop: between an answer and the next request
  /// Poisson gaps rescaled so that the requests span exactly requests / rate seconds (in each
  /// stage, rate x seconds requests over exactly its seconds), as load generators that fix the
  /// count send them (model.md §23.1).
  bool exact_count = false;
  /// Staged load (open loop): (rate, seconds) in turn, arrivals of `kind` at each stage's rate;
  /// the statistics describe stage `report_stage` (1-based; 0: the last).
  std::vector<LoadStage> stages = {};
  int report_stage = 0;
  /// The stage the statistics describe, from 1: report_stage, else the last (0 without stages).
  [[nodiscard]] std::size_t reported_stage() const {
    return report_stage > 0 ? static_cast<std::size_t>(report_stage) : stages.size();
  }
};

enum class LengthKind { kFixed, kUniform, kNormal, kLognormal };

/// A distribution of token counts; samples are rounded and kept within [1, cap].
struct LengthDist {
  LengthKind kind = LengthKind::kFixed;
  double a = 1;  ///< fixed: the value; uniform: low; normal: mean; lognormal: mean (tokens)
  double b = 0;  ///< uniform: high; normal: standard deviation; lognormal: sigma of the log
  /// normal, lognormal: samples above it are clipped to it (a harness's length limit); `mean()`
  /// stays the unclipped mean.
  double cap = 1e8;
  static LengthDist fixed(double v) { return {LengthKind::kFixed, v, 0}; }
  [[nodiscard]] double mean() const;
  /// The token count below which a share `p` (0-1) of draws falls, within [1, cap].
  [[nodiscard]] double quantile(double p) const;
  [[nodiscard]] bool is_fixed() const { return kind == LengthKind::kFixed; }
  [[nodiscard]] std::string str() const;
};
/// "2048", "fixed:2048", "uniform:128,4096", "normal:1000,300", "lognormal:1000,0.8" (a mean
/// in tokens and the sigma of the log); normal and lognormal take a cap third ("lognormal:161,1.75,1024").
/// Errors name `flag`.
Result<LengthDist> parse_length_dist(std::string_view text, const std::string& flag);
/// Staged load, "5:600,10:600": each stage's rate (req/s) and seconds, 1 to 100 stages; an Error
/// names `flag`.
Result<std::vector<LoadStage>> parse_stages(std::string_view text, const std::string& flag);

/// One request of a trace. Prefix reuse is either a prefix id with its length, or the trace's
/// block hashes (Mooncake: one hash per `hash_block` tokens).
struct TraceRequest {
  double t_s = 0;
  int input = 1;
  int output = 1;
  std::int64_t prefix_id = -1;
  int prefix_tokens = 0;
  std::vector<std::uint64_t> hashes;
};

struct Trace {
  std::vector<TraceRequest> requests;
  std::string format;    ///< "csv", "azure", "burstgpt", "mooncake", "jsonl"
  int hash_block = 512;  ///< tokens per hash id (mooncake)
};
/// Parses a trace: CSV with a header (timestamp_s,input_tokens,output_tokens[,prefix_id,
/// prefix_tokens]; Azure's TIMESTAMP,ContextTokens,GeneratedTokens; BurstGPT's Timestamp,
/// Request tokens,Response tokens) or JSON lines (timestamp_s / input_tokens / output_tokens, or
/// Mooncake's timestamp in ms, input_length, output_length, hash_ids). Timestamps become seconds
/// from the first request and must not decrease. Errors name the line and column.
Result<Trace> parse_trace(std::string_view text, const std::string& origin);
/// (input, output) pairs from a CSV with columns input_tokens,output_tokens (an empirical joint
/// length distribution).
Result<std::vector<std::pair<int, int>>> parse_length_pairs(std::string_view text, const std::string& origin);

/// A named workload (data/workloads/*.toml): length distributions, a rate and SLOs, each sourced.
/// What a source does not publish is absent, and the command asks for it.
struct WorkloadPreset {
  std::string name;
  std::string description;
  std::string model;  ///< the model the benchmark runs, when it names one
  std::vector<std::string> sources;
  std::string notes;
  std::optional<LengthDist> isl, osl;
  std::optional<double> rate;
  std::string slo_server, slo_interactive;
};
Result<WorkloadPreset> parse_workload_toml(std::string_view text, const std::string& origin);
/// The shipped presets, in name order.
Result<std::vector<WorkloadPreset>> builtin_workloads();

struct Workload {
  Arrivals arrivals;
  LengthDist isl = LengthDist::fixed(2048);
  LengthDist osl = LengthDist::fixed(256);
  std::vector<std::pair<int, int>> pairs;  ///< when not empty, lengths are drawn from these pairs
  Trace trace;                             ///< ArrivalKind::kTrace
  long requests = 1000;
  std::uint64_t seed = 1;
  /// Prefix reuse without a trace: with probability prefix_hit a request starts with one of
  /// `prefix_groups` shared prefixes of prefix_tokens tokens (a system prompt, a document).
  double prefix_hit = 0;
  int prefix_tokens = 0;
  int prefix_groups = 1;
  /// Streamed answers (the default): the client sees each token as it is made. Unstreamed, it
  /// sees the whole answer at once, so its time to first token is the end-to-end time and no
  /// TPOT or ITL is observed (model.md §23.1).
  bool stream = true;
};

/// inference-perf's shared_prefix workload (model.md §23.1): `groups` system prompts of `prefix`
/// tokens, each shared by `users` users whose requests add a question of `question` tokens.
struct SharedPrefix {
  int groups = 1;
  int prefix = 0;
  int question = 0;
  int users = 0;  ///< 0: not stated (the request count is --requests)
  /// Every request starts with one of the group prompts: prefix_hit 1, `groups` groups of `prefix`
  /// tokens, prompts of prefix + question tokens; with users stated, groups x users requests.
  void apply(Workload& w) const;
  [[nodiscard]] std::string str() const;
};
/// "GROUPS:PREFIX:QUESTION[:USERS]", e.g. "10:2048:256:20"; an Error names `flag`.
Result<SharedPrefix> parse_shared_prefix(std::string_view text, const std::string& flag);

// ---- Serving (model.md §23.2-19.5) ----

enum class SchedulerKind {
  kContinuous,     ///< iteration-level batching with chunked prefill (vLLM V1, SGLang)
  kStatic,         ///< a batch runs to its longest output before the next starts (FasterTransformer)
  kDisaggregated,  ///< prefill and decode on separate pools, KV moved between them
};
inline constexpr NameTable<SchedulerKind, 3> kSchedulerNames{{{SchedulerKind::kContinuous, "continuous"},
                                                              {SchedulerKind::kStatic, "static"},
                                                              {SchedulerKind::kDisaggregated, "disaggregated"}}};
inline std::string_view name(SchedulerKind k) {
  return name_in(kSchedulerNames, k);
}
enum class Router { kRoundRobin, kLeastTokens, kPrefixAffinity };
/// Router's names, in the order `simulate --router` lists them (least-tokens, the default, first).
inline constexpr NameTable<Router, 3> kRouterNames{{{Router::kLeastTokens, "least-tokens"},
                                                    {Router::kRoundRobin, "round-robin"},
                                                    {Router::kPrefixAffinity, "prefix-affinity"}}};
inline std::string_view name(Router r) {
  return name_in(kRouterNames, r);
}

struct Scheduler {
  SchedulerKind kind = SchedulerKind::kContinuous;
  std::string schedule = "decode-first";  ///< the schedule policy's name (policy.hpp): order and chunks
  std::string preemption = "recompute";   ///< the preemption policy's name (policy.hpp)
  double max_batched_tokens = 8192;
  double max_seqs = 256;
  bool chunked_prefill = true;
  int block_tokens = 16;                ///< paged KV block
  bool prefix_caching = true;           ///< cached prefix blocks live in HBM under LRU
  std::string admission = "on-demand";  ///< the admission policy's name (policy.hpp)
  TokenRatio token_ratio;               ///< the token-ratio rule's constants
  std::string host_tier;                ///< spill evicted prefix blocks to this tier of the chip ("" = none)
  double kv_tokens = 0;  ///< the KV pool per replica in tokens, as the engine was told (0: what memory leaves)
  /// Decode iterations run per scheduling (vLLM V0's --num-scheduler-steps, model.md §23.4): a
  /// decode-only batch runs this many iterations with no request admitted and finished sequences
  /// kept as padding; a prefill runs one.
  int decode_steps = 1;
};

/// What a serving engine's profile says of its scheduler (model.md §23.4): token budget (8192,
/// vLLM's server default, when the engine has none), sequence cap (at most 10^5), KV block,
/// chunked prefill, prefix caching, admission policy and schedule. The kind, preemption and host
/// tier are left as they are.
void apply_engine(Scheduler& s, const ServingEngine& e);
/// What the engine does when prefills are not chunked, once `s.chunked_prefill` is settled: its
/// schedule (vLLM V0: prefills first; an engine that keeps one schedule leaves it) and, unless a budget
/// was told, its token budget (vLLM V0: max(context, 2048), `context` the model's).
void apply_unchunked(Scheduler& s, const ServingEngine& e, double context, bool budget_told);
/// The caps of an engine whose caps bind each attention data-parallel rank, over the replica's
/// `dp_attn` ranks (model.md §23.4): sequences and tokens per iteration times dp_attn.
void scale_caps_to_ranks(Scheduler& s, const ServingEngine& e, int dp_attn);

struct Slo {
  std::optional<double> ttft_s, tpot_s, e2e_s;  ///< bounds
  double ttft_pct = 99, tpot_pct = 99, e2e_pct = 99;
  [[nodiscard]] bool empty() const { return !ttft_s && !tpot_s && !e2e_s; }
};
/// "ttft_p99=2s,tpot_p99=50ms,e2e_p90=30s"; units s or ms. Errors name `flag`.
Result<Slo> parse_slo(std::string_view text, const std::string& flag);

struct SimConfig {
  DeploymentInput decode;                  ///< the replica (for disaggregated: the decode pool)
  int replicas = 1;                        ///< replicas of `decode` (its mapping's dp is ignored)
  std::optional<DeploymentInput> prefill;  ///< disaggregated: the prefill pool's replica
  int prefill_replicas = 1;
  Scheduler scheduler;
  Router router = Router::kLeastTokens;
  Workload workload;
  Slo slo;
  /// Requests left out at each end of an open-loop run before latencies and rates are taken
  /// (model.md §23.6); offline runs count every request.
  double warmup_fraction = 0.1;
  bool chrome_trace = false;  ///< collect iterations and request spans (at most kTraceEvents)
  std::function<void(double)> progress;
  std::function<bool()> cancelled;
};
inline constexpr std::size_t kTraceEvents = 200000;

/// Mean, percentiles, maximum and a thinned CDF of a sample of Q: Seconds for latencies, a plain
/// count for batch sizes (model.md §23.6).
template <class Q>
struct Distribution {
  Q mean{}, p50{}, p90{}, p99{}, max{};
  long n = 0;
  std::vector<Q> cdf_x;       ///< up to 101 points of the CDF, for plots
  std::vector<double> cdf_y;  ///< the fraction at or below each
  /// p50, p90 or p99 (others: the nearest of those above).
  [[nodiscard]] Q percentile(double p) const { return p <= 50 ? p50 : p <= 90 ? p90 : p99; }
};
using Latency = Distribution<Seconds>;

struct SloCheck {
  std::string metric;  ///< "ttft", "tpot", "e2e"
  double pct = 99;
  Seconds bound{};
  Seconds observed{};  ///< that percentile of the run
  bool met = false;
};

struct SimSample {
  Seconds t{};
  double batch = 0;
  double kv_used = 0;  ///< fraction of the replica's KV blocks in use
};

struct SimResult {
  long arrived = 0, completed = 0, dropped = 0, counted = 0;
  std::vector<std::string> drop_reasons;  ///< one per kind, with a count
  Seconds window{};                       ///< the measurement window
  Seconds makespan{};                     ///< to the last completion
  RequestsPerSecond requests_per_s{};     ///< completed requests per second of the window
  TokensPerSecond input_throughput{};     ///< prompt tokens prefilled per second of the window
  TokensPerSecond output_throughput{};    ///< output tokens per second of the window
  int chips = 0;
  Latency ttft, tpot, itl, e2e, queue;
  Distribution<double> batch;  ///< sequences per iteration, over iterations
  double kv_mean = 0, kv_max = 0;
  long iterations = 0;
  long preemptions = 0;
  long input_tokens = 0, output_tokens = 0, prefill_tokens = 0;  ///< conservation: processed
  long asked_output_tokens = 0;                                  ///< output tokens the completed requests asked for
  long emitted_tokens = 0;     ///< output tokens emitted by iterations, counted as they happen
  long cached_tokens = 0;      ///< prompt tokens served from the prefix cache
  double prefix_hit_rate = 0;  ///< cached / prompt tokens of admitted requests
  Dollars saved_by_cache{};    ///< prefill the cache avoided, at the replica's price
  long kv_blocks_capacity = 0, kv_blocks_peak = 0, kv_blocks_end = 0;
  std::vector<long> replica_completed;
  double imbalance = 0;  ///< max / mean - 1 of output tokens per replica
  RequestsPerSecond goodput_requests_per_s{};
  /// Open-loop load against what was served (model.md §23.6): requests arriving per second of the
  /// window against those completing, and the mean end-to-end latency of the first and the last
  /// tenth of the counted requests. Overloaded: served under 90% of offered, the requests in the
  /// system growing by at least 10 over the window, so the run's latencies describe a growing
  /// queue, not a steady state.
  struct Load {
    RequestsPerSecond offered_requests_per_s{};
    RequestsPerSecond served_requests_per_s{};
    Seconds e2e_early{}, e2e_late{};
    bool overloaded = false;
  };
  std::optional<Load> load;  ///< open-loop runs with a window (not offline or closed-loop)
  std::vector<SloCheck> slo;
  bool slo_met = true;
  /// What every chip of every pool costs for the tokens served: per output token, and per token
  /// processed (prompt and output).
  DollarsPerToken cost_per_output_token{}, cost_per_token{};
  /// Facility energy of the whole run, busy and idle (model.md §25.6), over every output token,
  /// and over every token processed (prompt tokens prefilled and output tokens).
  Joules energy{};
  JoulesPerToken energy_per_output_token{}, energy_per_token{};
  Seconds run{};                   ///< simulated time from the first arrival to the last completion
  std::vector<SimSample> samples;  ///< batch and KV use over time (thinned to at most 4096)
  std::size_t step_evaluations = 0, step_lookups = 0;
  std::string rule;  ///< the warm-up rule in words
  struct Event {
    std::string name;
    char ph = 'X';
    double ts_us = 0, dur_us = 0;
    int pid = 0;
    long id = -1;
    double decode = 0, prefill = 0;
  };
  std::vector<Event> trace;  ///< Chrome trace events when asked for
};

/// Validates and runs. Infeasible setups (weights that do not fit) are an Error naming the flag.
Result<SimResult> simulate(const SimConfig& c);

struct RateSearch {
  RequestsPerSecond rate{};  ///< the largest Poisson rate that met the SLO
  SimResult at;              ///< the run at that rate
  std::vector<std::pair<double, bool>> tried;
};
/// The one capacity search, behind simulate --find-rate and plan --rate (model.md §23.7): the SLO
/// must be non-empty. Brackets with the offline throughput, bisects geometrically until the bracket
/// is within kRateTolerance (at most kRateIterations halvings, on at most 50,000 requests), then
/// confirms on every request, stepping down 3% at a time.
inline constexpr double kRateTolerance = 0.01;
inline constexpr int kRateIterations = 10;
Result<RateSearch> find_rate(const SimConfig& c);

}  // namespace llmecon
