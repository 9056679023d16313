// simulate/simulate_args.hpp: the `simulate` command's arguments, and the one reader from them
// to a typed configuration.
//
// The serving simulator declares its own arguments (names, units, bounds, choices); the command
// table lists them for the CLI, the API, the grid and Python, and `validate` reads a serving
// row's notes (`qps=4; max_num_seqs=256; isl_dist=lognormal:1000,0.6`) through the same
// declarations. read_sim_settings turns parsed arguments into SimSettings, typed and with what
// was not given left absent; nothing else reads a simulate setting by its key. apply_scheduler
// lays the settings over an engine's profile, build_workload turns them into the workload, its
// arrivals and its SLO.
//
//   const std::vector<ArgSpec> spec = simulate_arguments();
//   CommandSpec cmd;
//   cmd.args = spec;
//   TRY(args, Args::parse(cmd, Json{{"rate", 4}, {"max_seqs", 128}}));
//   TRY(settings, read_sim_settings(args));
//   SimConfig config;
//   apply_scheduler(config.scheduler, nullptr, settings.scheduler, 8192);
//   std::vector<std::string> notes;
//   TRY_STATUS(build_workload(settings.workload, config, notes));
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "args/args.hpp"
#include "simulate/simulate.hpp"

namespace llmecon {

/// Every argument of `simulate`, in the order the CLI lists them.
std::vector<ArgSpec> simulate_arguments();
/// The `simulate` command's spec with those arguments (built once), for readers outside the
/// command table: `validate` parses a serving row's settings with it.
const CommandSpec& simulate_spec();

/// An open-loop arrival process by name (--arrival).
struct ArrivalShape {
  ArrivalKind kind = ArrivalKind::kPoisson;
  bool exact_count = false;  ///< poisson-exact
  double cv = 1;             ///< gamma:CV
};
/// "poisson", "poisson-exact", "constant" or "gamma:CV" (CV from 0.001 to 100); an Error names `flag`.
Result<ArrivalShape> parse_arrival(std::string_view text, const std::string& flag);

/// What the flags say of the scheduler; absent: the engine's own (model.md §23.4).
struct SchedulerSettings {
  std::optional<double> max_batched_tokens;  ///< --max-batched-tokens
  std::optional<double> max_seqs;            ///< --max-seqs
  std::optional<double> kv_tokens;           ///< --kv-tokens
  std::optional<int> block_tokens;           ///< --block-tokens
  int decode_steps = 1;                      ///< --scheduler-steps
  std::optional<bool> chunked_prefill;       ///< false: --no-chunked-prefill
  std::optional<bool> prefix_caching;        ///< false: --no-prefix-caching
  std::optional<std::string> schedule;       ///< --priority: a schedule policy's name (engine: absent)
  std::string preemption = "recompute";      ///< --preemption: a preemption policy's name
  std::optional<std::string> admission;      ///< --admission: an admission policy's name (engine: absent)
  std::string host_tier;                     ///< --host-tier ("": none)
};

/// What the flags say of the workload, its arrivals and its SLO (model.md §23.1, §23.3).
struct WorkloadSettings {
  std::string workload = "none";  ///< --workload: a preset's name (NAME:interactive), a .toml file or none
  std::optional<LengthDist> isl, osl;
  std::optional<std::string> lengths;     ///< --lengths: a CSV of pairs
  std::optional<std::string> trace;       ///< --trace: a file
  std::optional<std::string> trace_text;  ///< --trace-text: a trace's text
  std::optional<RequestsPerSecond> rate;  ///< --rate
  ArrivalShape arrival;                   ///< --arrival
  std::vector<LoadStage> stages;          ///< --stages: rate and length in turn
  std::optional<int> report_stage;        ///< --report-stage
  std::optional<int> concurrency;         ///< --concurrency: closed-loop clients
  Seconds think{};                        ///< --think-s
  bool offline = false;                   ///< --offline
  bool find_rate = false;                 ///< --find-rate
  long requests = 1000;                   ///< --requests (the table's default when not given)
  bool requests_given = false;
  double max_requests = 1e6;  ///< --max-requests
  std::uint64_t seed = 1;
  double prefix_hit = 0;  ///< --prefix-hit, --prefix-tokens, --prefix-groups
  int prefix_tokens = 0, prefix_groups = 1;
  std::optional<std::string> prefix_flag;     ///< the first of those three given, by its key
  std::optional<SharedPrefix> shared_prefix;  ///< --shared-prefix
  bool stream = true;                         ///< false: --no-stream
  std::optional<Slo> slo;                     ///< --slo
  /// Whether a trace gives the arrivals (--trace or --trace-text).
  [[nodiscard]] bool traced() const { return trace || trace_text; }
};

/// Everything `simulate` reads from its arguments but the deployment (model, chips, layout,
/// formats, costs: the scenario's).
struct SimSettings {
  SchedulerSettings scheduler;
  WorkloadSettings workload;
  SchedulerKind kind = SchedulerKind::kContinuous;
  Router router = Router::kLeastTokens;
  int replicas = 1;
  double warmup = 0.1;
};

/// The one reader of `simulate`'s arguments: each given value typed (lengths, stages, arrivals,
/// shared prefixes and SLOs parsed), each absent one left absent or at the table's default. An
/// Error names the flag.
Result<SimSettings> read_sim_settings(const Args& a);

/// The scheduler: `engine`'s profile (model.md §23.4; none: the Scheduler's defaults), then what
/// the settings state, then the engine's rules for unchunked prefills at the model's `context`.
/// The kind and the caps per attention-DP rank are the caller's (they need the layout).
void apply_scheduler(Scheduler& s, const ServingEngine* engine, const SchedulerSettings& st, double context);

/// The workload: a preset's figures unless a setting overrides them, the files it names read, the
/// arrival process (flags that mean nothing together refused), the request and token caps, and
/// the SLO (the settings', else the preset scenario's). What was assumed is appended to `notes`.
Status build_workload(const WorkloadSettings& st, SimConfig& c, std::vector<std::string>& notes);

}  // namespace llmecon
