// simulate's workload from its settings (simulate_args.hpp): the preset, lengths, trace, arrival
// process and SLO they describe (docs/model.md §23.1, §23.3).
#include <fmt/format.h>

#include "simulate/simulate_args.hpp"

namespace llmecon {
namespace {

constexpr double kMaxSimulatedTokens = 1e11;  // prompt and output tokens of one run

// A named preset (data/workloads), or a preset file; ":interactive" picks that scenario's SLO.
Result<std::pair<WorkloadPreset, std::string>> preset(const std::string& given) {
  std::string name = given;
  std::string scenario = "server";
  if (const auto colon = name.rfind(':'); colon != std::string::npos && name.find('/') == std::string::npos) {
    scenario = name.substr(colon + 1);
    name.resize(colon);
    if (scenario != "server" && scenario != "interactive") {
      return Error{"--workload", "", "unknown scenario '" + scenario + "'", "NAME:server or NAME:interactive"};
    }
  }
  TRY(builtin, builtin_workloads());
  for (auto& w : builtin) {
    if (w.name == name) return std::make_pair(std::move(w), scenario);
  }
  if (name.find('/') == std::string::npos && name.find(".toml") == std::string::npos) {
    std::string names;
    for (const auto& w : builtin) names += (names.empty() ? "" : ", ") + w.name;
    return Error{"--workload", "", "no workload named '" + name + "'", "one of " + names + ", or a .toml file"};
  }
  TRY(text, read_text_file(name, "a workload TOML (see data/workloads)"));
  TRY(w, parse_workload_toml(text, name));
  return std::make_pair(std::move(w), scenario);
}

Result<LengthDist> length(const std::optional<LengthDist>& given, const char* key,
                          const std::optional<LengthDist>& from_preset, const std::string& preset_name) {
  if (given) return *given;
  if (from_preset) return *from_preset;
  if (!preset_name.empty()) {
    return Error{flag_of(key), "",
                 preset_name + " publishes no " + (std::string(key) == "isl" ? "input" : "output") + " lengths",
                 "give " + flag_of(key)};
  }
  return LengthDist::fixed(std::string(key) == "isl" ? 2048 : 256);
}

// Staged load: each stage's rate and seconds, and the stage reported.
Status read_stages(const WorkloadSettings& st, Arrivals& r) {
  if (st.report_stage && st.stages.empty()) {
    return Error{"--report-stage", "", "only with --stages", "--stages 5:600,10:600 --report-stage 1"};
  }
  if (st.stages.empty()) return {};
  r.stages = st.stages;
  double requests = 0;
  for (const LoadStage& stage : r.stages) requests += stage.rate.si() * stage.length.si();
  if (requests > st.max_requests) {
    return Error{"--stages", "",
                 fmt::format("the stages send about {} requests, past --max-requests", format_number(requests)),
                 "shorter stages, or a larger --max-requests"};
  }
  if (st.report_stage) {
    r.report_stage = *st.report_stage;
    if (r.report_stage > static_cast<int>(r.stages.size())) {
      return Error{"--report-stage", "", fmt::format("there are {} stages", r.stages.size()), "count from 1"};
    }
  }
  return {};
}

// Flags that mean nothing together are refused, never ignored.
Status arrival_conflicts(const WorkloadSettings& st) {
  const bool trace = st.traced();
  const int given = (st.rate ? 1 : 0) + (st.concurrency ? 1 : 0) + (st.offline ? 1 : 0) + (trace ? 1 : 0);
  if (given > 1) {
    return Error{"--rate", "", "give one of --rate, --concurrency, --offline or --trace", "they are arrival processes"};
  }
  if (st.find_rate && (trace || st.offline || st.concurrency)) {
    return Error{"--find-rate", "",
                 "searches an open-loop request rate, which a trace, --offline or --concurrency fixes",
                 "drop --find-rate, or give the workload's lengths (--isl/--osl, --workload) without them"};
  }
  if (st.think.si() > 0 && !st.concurrency) {
    return Error{"--think-s", "", "is a closed loop's pause between a client's requests",
                 "give --concurrency N with it, or drop it"};
  }
  if (!st.stages.empty() && (trace || st.offline || st.concurrency || st.rate || st.find_rate)) {
    return Error{"--stages", "", "staged load is an open-loop process of its own",
                 "give --stages with --arrival, not with --rate, --offline, --concurrency, --trace or --find-rate"};
  }
  return {};
}

Result<Arrivals> arrivals(const WorkloadSettings& st, const std::optional<double>& preset_rate) {
  TRY_STATUS(arrival_conflicts(st));
  Arrivals r;
  if (st.traced()) {
    r.kind = ArrivalKind::kTrace;
    return r;
  }
  if (st.offline) {
    r.kind = ArrivalKind::kOffline;
    return r;
  }
  if (st.concurrency) {
    r.kind = ArrivalKind::kClosed;
    r.clients = *st.concurrency;
    r.think = st.think;
    return r;
  }
  if (!st.rate && !preset_rate && !st.find_rate && st.stages.empty()) {
    return Error{"--rate", "", "no arrival process", "--rate R, --concurrency N, --offline or --trace FILE"};
  }
  r.rate = st.rate ? *st.rate : units::requests_per_s(preset_rate.value_or(1));
  r.kind = st.arrival.kind;
  r.exact_count = st.arrival.exact_count;
  if (st.arrival.kind == ArrivalKind::kGamma) r.cv = st.arrival.cv;
  TRY_STATUS(read_stages(st, r));
  if (!r.stages.empty()) {
    // The rate a staged run reports at: its reported stage's.
    r.rate = r.stages[r.reported_stage() - 1].rate;
  }
  return r;
}

// A trace from a file, or its text sent inline (the API's and Python's way, the page's upload).
Status read_trace(const WorkloadSettings& st, Workload& w) {
  if (st.trace && st.trace_text) {
    return Error{"--trace-text", "", "a trace comes from --trace or --trace-text, not both", "drop one"};
  }
  if (st.trace_text && st.trace_text->size() > kMaxInputFileBytes) {
    return Error{"--trace-text", "", "larger than 64 MiB", "send a shorter trace, or a file with --trace"};
  }
  if (!st.traced()) return {};
  std::string text = st.trace_text.value_or(std::string());
  if (!st.trace_text) {
    TRY(file, read_text_file(*st.trace, "a CSV or JSONL trace (docs/cli.md: simulate)"));
    text = std::move(file);
  }
  TRY(tr, parse_trace(text, st.trace_text ? "--trace-text" : *st.trace));
  w.trace = std::move(tr);
  return {};
}

// The requests and tokens the run simulates, bounded: about 10^11 tokens is hours of simulation,
// past any question a request should hold a machine for.
Status check_size(const WorkloadSettings& st, const Workload& w) {
  const bool trace = st.traced();
  const double asked = trace ? static_cast<double>(w.trace.requests.size()) : static_cast<double>(st.requests);
  if (asked > st.max_requests) {
    return Error{
        trace ? "--trace" : "--requests", "",
        fmt::format("{} requests exceed --max-requests ({})", format_number(asked), format_number(st.max_requests)),
        "raise --max-requests (up to 10^8) if you mean it; each request costs memory and time"};
  }
  double tokens = 0;
  if (trace) {
    for (const TraceRequest& r : w.trace.requests) tokens += static_cast<double>(r.input) + r.output;
  } else {
    tokens = asked * (w.isl.mean() + w.osl.mean());
  }
  if (tokens > kMaxSimulatedTokens) {
    return Error{trace ? "--trace" : "--requests", "",
                 fmt::format("the run would simulate about {} tokens, past the cap of {}", format_number(tokens),
                             format_number(kMaxSimulatedTokens)),
                 "fewer requests or shorter prompts and outputs; a grid spreads many runs over machines"};
  }
  return {};
}

// Prefix reuse: a share of requests that start with shared prefixes, or inference-perf's shared
// prompts, which set the prompts and prefixes themselves.
Status read_prefixes(const WorkloadSettings& st, Workload& w, std::vector<std::string>& notes) {
  w.prefix_hit = st.prefix_hit;
  w.prefix_tokens = st.prefix_tokens;
  w.prefix_groups = st.prefix_groups;
  if (w.prefix_hit > 0 && w.prefix_tokens == 0) {
    return Error{"--prefix-tokens", "", "--prefix-hit needs the shared prefix's length", "--prefix-tokens 1024"};
  }
  if (w.prefix_tokens > 0 && !st.traced() && w.pairs.empty() && w.prefix_tokens >= w.isl.mean()) {
    return Error{"--prefix-tokens", "",
                 fmt::format("a shared prefix of {} tokens is not shorter than the prompts ({} tokens on average)",
                             w.prefix_tokens, format_number(w.isl.mean())),
                 "a prefix is the start of a prompt: fewer --prefix-tokens than --isl"};
  }
  if (!st.shared_prefix) return {};
  const std::pair<std::string, bool> others[] = {{st.prefix_flag.value_or(""), st.prefix_flag.has_value()},
                                                 {"isl", st.isl.has_value()},
                                                 {"lengths", st.lengths.has_value()},
                                                 {"trace", st.trace.has_value()},
                                                 {"trace_text", st.trace_text.has_value()}};
  for (const auto& [other, given] : others) {
    if (!given) continue;
    return Error{"--shared-prefix", "", fmt::format("sets the prompts and prefixes that {} would set", flag_of(other)),
                 "give the shared prefix alone, or drop it and use --prefix-hit/--prefix-tokens"};
  }
  st.shared_prefix->apply(w);
  if (st.shared_prefix->users > 0 && st.requests_given) {
    return Error{"--requests", "", "--shared-prefix with USERS sends groups x users requests",
                 "drop --requests, or USERS from --shared-prefix"};
  }
  notes.push_back("shared prefix: " + st.shared_prefix->str());
  return {};
}

// The SLO: the settings', else the preset scenario's.
Status read_slo(const WorkloadSettings& st, const std::optional<WorkloadPreset>& pre, const std::string& scenario,
                SimConfig& c, std::vector<std::string>& notes) {
  if (st.slo) {
    c.slo = *st.slo;
    return {};
  }
  if (!pre) return {};
  const std::string& s = scenario == "interactive" ? pre->slo_interactive : pre->slo_server;
  if (!s.empty()) {
    TRY(slo, parse_slo(s, "--workload"));
    c.slo = slo;
    notes.push_back(fmt::format("SLO of the {} scenario: {}", scenario, s));
  } else if (scenario == "interactive") {
    return Error{"--workload", "", pre->name + " has no interactive scenario", "use " + pre->name};
  }
  return {};
}

}  // namespace

Status build_workload(const WorkloadSettings& st, SimConfig& c, std::vector<std::string>& notes) {
  std::optional<WorkloadPreset> pre;
  std::string scenario;
  if (st.workload != "none") {
    TRY(p, preset(st.workload));
    pre = std::move(p.first);
    scenario = p.second;
    notes.push_back(fmt::format("workload {} ({})", pre->name, pre->description));
  }
  const std::string pname = pre ? pre->name : "";
  Workload& w = c.workload;
  TRY(isl, length(st.isl, "isl", pre ? pre->isl : std::nullopt, pname));
  TRY(osl, length(st.osl, "osl", pre ? pre->osl : std::nullopt, pname));
  w.isl = isl;
  w.osl = osl;
  if (st.lengths) {
    TRY(text, read_text_file(*st.lengths, "a CSV of input_tokens,output_tokens"));
    TRY(pairs, parse_length_pairs(text, *st.lengths));
    w.pairs = std::move(pairs);
  }
  TRY_STATUS(read_trace(st, w));
  TRY(arr, arrivals(st, pre ? pre->rate : std::nullopt));
  w.arrivals = arr;
  w.requests = st.requests;
  TRY_STATUS(check_size(st, w));
  w.seed = st.seed;
  TRY_STATUS(read_prefixes(st, w, notes));
  w.stream = st.stream;
  if (!w.stream) notes.emplace_back("unstreamed: TTFT is the end-to-end time; no TPOT or ITL is observed");
  return read_slo(st, pre, scenario, c, notes);
}

}  // namespace llmecon
