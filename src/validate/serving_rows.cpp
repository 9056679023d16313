// A serving row predicted by the serving simulator (docs/model.md §23): its engine's scheduler,
// its lengths and its load, as `simulate` would run them.
#include <fmt/format.h>

#include <algorithm>

#include "rows.hpp"
#include "simulate/simulate_args.hpp"
#include "units/json_text.hpp"

namespace llmecon::validate_internal {

// A row under traffic through the serving simulator (model.md §23): offline (every request at
// t = 0, the batch as a cap when given) or online (a closed loop of `batch` clients, or Poisson
// arrivals at qps=), with the row's engine scheduler. Rates are the benchmark's: every request's
// tokens over the whole run; latencies are means over every request.
namespace {

// The row's serving settings through simulate's own reader (simulate_args.hpp): its notes' keys
// are simulate's arguments under their measurement names (serve_settings), parsed by simulate's
// spec. read_row_notes checked every value, so a row that does not read has none of its own.
std::optional<SimSettings> row_settings(const Measurement& m) {
  auto args = Args::parse(simulate_spec(), serve_settings(m));
  if (!args) return std::nullopt;
  auto settings = read_sim_settings(*args);
  if (!settings) return std::nullopt;
  return std::move(settings).value();
}

// The row's scheduler: its engine's profile (none named: the batch is what fits), the caps its
// notes state, and prefix caching off (benchmark prompts are random) unless its prompts share
// prefixes. chunked_prefill=true|false in the notes; else the benchmark harness's own default:
// trtllm-bench runs with chunked context on (ExecutorSettingsConfig.chunking = True in
// tensorrt_llm/bench), unlike trtllm-serve (model.md §19).
void row_scheduler(const Measurement& m, const Setup& s, SchedulerSettings st, SimConfig& c,
                   std::vector<std::string>& envelope, bool shared) {
  Scheduler& k = c.scheduler;
  if (s.engine == nullptr) k.max_seqs = 1e5;
  if (!shared) st.prefix_caching = false;
  if (m.settings.contains("chunked_prefill")) {
    st.chunked_prefill = m.settings["chunked_prefill"] == "true";
  } else if (m.notes.find("trtllm-bench") != std::string::npos && s.engine != nullptr && !s.engine->chunked_prefill) {
    st.chunked_prefill = true;
    envelope.emplace_back("trtllm-bench: chunked context on (the harness's default)");
  }
  apply_scheduler(k, s.engine, st, static_cast<double>(c.decode.model->max_context));
  if (s.engine != nullptr) scale_caps_to_ranks(k, *s.engine, c.decode.map.dp_attn);
}

// The row's load as one of simulate's arrival processes: offline (every request at t = 0, the
// batch as a cap when given), a closed loop of `batch` clients, staged or Poisson arrivals at
// qps=, or a benchmark's server scenario (`server`: Poisson at the rate the search finds). The
// run's request count is the published one, else the shared prompts' groups x users, else a
// default. `how` says which; false when the row describes no load.
bool row_load(const Measurement& m, const std::optional<RowWorkload>& workload, int replicas, WorkloadSettings& w,
              Scheduler& k, std::string& how, bool& server) {
  const bool counted = w.requests_given;
  const long users = w.shared_prefix ? static_cast<long>(w.shared_prefix->groups) * w.shared_prefix->users : 0;
  auto requests_or = [&](double fallback) {
    const double n = counted ? static_cast<double>(w.requests) : users > 0 ? static_cast<double>(users) : fallback;
    return std::clamp(static_cast<long>(n), 1L, 200000L);
  };
  w.requests_given = false;  // the count is settled here, with shared prompts or without
  server = workload && (workload->mode == "server" || workload->mode == "interactive") && !w.rate && w.stages.empty() &&
           !m.batch;
  const bool offline = m.scenario == "offline_throughput" || (workload && workload->mode == "offline");
  if (offline || m.batch) {
    w.rate.reset();
    w.stages.clear();
    w.report_stage.reset();
  }
  if (offline) {
    w.offline = true;
    if (m.batch) k.max_seqs = std::max(1.0, *m.batch / replicas);
    w.requests = requests_or(3000);
    how = fmt::format("offline: {} requests at t = 0{}", w.requests, counted ? "" : " (not published: 3000 assumed)");
  } else if (m.batch) {
    w.concurrency = static_cast<int>(*m.batch);
    w.requests = requests_or(std::max(500.0, 10 * *m.batch));
    how = fmt::format("closed loop of {} clients, {} requests{}", format_number(*m.batch), w.requests,
                      counted ? "" : " (count not published)");
  } else if (!w.stages.empty()) {
    // Staged load: the row's metric is its reported stage's (read_row_notes checked the stages).
    w.rate.reset();
    w.requests = 1;
    std::string stages;
    for (const LoadStage& stage : w.stages) {
      stages += fmt::format("{}{}:{}", stages.empty() ? "" : ",", format_number(stage.rate.si()),
                            format_number(stage.length.si()));
    }
    how = fmt::format("staged Poisson arrivals ({}), stage {} reported", stages,
                      w.report_stage.value_or(static_cast<int>(w.stages.size())));
  } else if (w.rate) {
    w.requests = requests_or(1000);
    how = fmt::format("Poisson arrivals at {} req/s, {} requests", format_number(w.rate->si()), w.requests);
  } else if (server) {
    w.rate = units::requests_per_s(1);
    w.requests = requests_or(1000);
  } else {
    return false;
  }
  return true;
}

// The run: the server scenario's rate search, or one simulation; what it did goes to `envelope`.
std::optional<SimResult> run_row(SimConfig& c, const std::optional<RowWorkload>& workload, bool server, std::string how,
                                 std::vector<std::string>& envelope) {
  const Scheduler& k = c.scheduler;
  Result<SimResult> r = Error{};
  if (server) {
    c.slo = workload->slo;
    auto found = find_rate(c);
    if (!found) {
      envelope.push_back("rate search refused: " + found.error().what);
      return std::nullopt;
    }
    how = fmt::format("{} {}: the highest Poisson rate meeting its limits, {} req/s, {} requests",
                      workload->preset.name, workload->mode, format_number(found->rate.si()), c.workload.requests);
    r = std::move(found->at);
  } else {
    r = simulate(c);
  }
  if (!r) {
    envelope.push_back("simulation refused: " + r.error().what);
    return std::nullopt;
  }
  envelope.push_back(
      fmt::format("simulated ({}): {} scheduler, {} tokens and {} sequences per iteration{}", how,
                  k.chunked_prefill ? "chunked-prefill" : "whole-prompt", format_number(k.max_batched_tokens),
                  format_number(k.max_seqs),
                  k.decode_steps > 1 ? fmt::format(", {} decode steps per scheduling", k.decode_steps) : ""));
  if (r->preemptions > 0) envelope.push_back(fmt::format("{} preemptions", r->preemptions));
  return std::move(r).value();
}

std::optional<SimResult> simulate_run(const Measurement& m, const Setup& s, const std::optional<RowWorkload>& workload,
                                      std::vector<std::string>& envelope, double isl, double osl) {
  std::optional<SimSettings> settings = row_settings(m);
  if (!settings) return std::nullopt;
  WorkloadSettings& ws = settings->workload;
  SimConfig c;
  c.decode = s.in;
  c.decode.map.dp = 1;
  c.replicas = std::max(1, static_cast<int>(s.replicas));
  const bool shared = ws.shared_prefix.has_value();
  row_scheduler(m, s, settings->scheduler, c, envelope, shared);
  // Lengths: the notes', else the benchmark workload's, else the row's columns (the shared
  // prompts set their own).
  if (workload && !ws.isl && workload->preset.isl) ws.isl = workload->preset.isl;
  if (workload && !ws.osl && workload->preset.osl) ws.osl = workload->preset.osl;
  if (!ws.isl && !shared) ws.isl = LengthDist::fixed(std::max(1.0, isl));
  if (!ws.osl) ws.osl = LengthDist::fixed(std::max(1.0, osl));
  ws.workload = "none";
  ws.stream = !(m.settings.contains("stream") && m.settings["stream"] == "false");
  std::string how;
  bool server = false;
  if (!row_load(m, workload, c.replicas, ws, c.scheduler, how, server)) return std::nullopt;
  std::vector<std::string> notes;
  if (!build_workload(ws, c, notes)) return std::nullopt;
  envelope.insert(envelope.end(), notes.begin(), notes.end());
  c.workload.requests = ws.requests;
  if (m.settings.contains("ignore_eos") && m.settings["ignore_eos"] == "false") {
    envelope.emplace_back("ignore_eos off: the output lengths were caps, simulated as generated in full");
  }
  c.warmup_fraction = 0;
  return run_row(c, workload, server, how, envelope);
}

}  // namespace

std::optional<double> simulate_row(const Measurement& m, const Setup& s, const std::optional<RowWorkload>& workload,
                                   std::vector<std::string>& envelope, double isl, double osl, SimRuns* runs) {
  // The run: every column and note but the metric, its value, the id and the free text (of which
  // simulate_run reads only whether it names trtllm-bench).
  const std::string key =
      runs == nullptr
          ? std::string()
          : fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", m.model, m.hardware, m.chips,
                        m.tp.value_or(0), m.pp.value_or(0), m.ep.value_or(0), m.dp.value_or(0), m.cp.value_or(0),
                        m.weight_dtype, m.kv_dtype, m.scenario, m.batch.value_or(-1), isl, osl, m.engine,
                        json_text(m.settings), m.notes.find("trtllm-bench") != std::string::npos);
  if (runs != nullptr) {
    if (auto it = runs->find(key); it != runs->end()) {
      envelope.insert(envelope.end(), it->second.envelope.begin(), it->second.envelope.end());
      return it->second.result ? serving_metric(*it->second.result, m.metric) : std::nullopt;
    }
  }
  const std::size_t before = envelope.size();
  std::optional<SimResult> r = simulate_run(m, s, workload, envelope, isl, osl);
  std::optional<double> value = r ? serving_metric(*r, m.metric) : std::nullopt;
  if (runs != nullptr) {
    (*runs)[key] = SimRun{
        std::move(r), std::vector<std::string>(envelope.begin() + static_cast<std::ptrdiff_t>(before), envelope.end())};
  }
  return value;
}

std::optional<double> serving_metric(const SimResult& r, const std::string& metric) {
  // The run's rates: with every request counted, over the whole run as the harness timed it; a
  // staged run's, over its reported stage (model.md §23.6).
  if (metric == "output_tokens_per_s") return r.output_throughput.si();
  if (metric == "input_tokens_per_s") return r.input_throughput.si();
  if (metric == "total_tokens_per_s") return (r.input_throughput + r.output_throughput).si();
  if (metric == "requests_per_s") return r.requests_per_s.si();
  // "<family>[_pNN]_<unit>": the mean, or the NN-th percentile, of a latency in s or ms.
  const std::pair<const char*, const Latency*> families[] = {
      {"ttft", &r.ttft}, {"tpot", &r.tpot}, {"itl", &r.itl}, {"e2e", &r.e2e}};
  for (const auto& [family, dist] : families) {
    const std::string f = family;
    if (metric.rfind(f + "_", 0) != 0) continue;
    std::string rest = metric.substr(f.size() + 1);
    if (rest == "latency_s") rest = "s";  // e2e_latency_s: the mean
    const bool ms = rest.size() >= 2 && rest.compare(rest.size() - 2, 2, "ms") == 0;
    const double scale = ms ? 1e3 : 1.0;
    if (rest == "s" || rest == "ms") return dist->mean.si() * scale;
    for (const auto& [name, q] :
         {std::pair{"p50_", &dist->p50}, std::pair{"p90_", &dist->p90}, std::pair{"p99_", &dist->p99}}) {
      if (rest.rfind(name, 0) == 0) return q->si() * scale;
    }
  }
  return std::nullopt;
}

}  // namespace llmecon::validate_internal
