// simulate's workload: the preset, lengths, trace, arrival process and SLO its flags describe
// (simulate.hpp, model.md §23.3).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "commands.hpp"
#include "simulate/simulate.hpp"
#include "simulate/simulate_args.hpp"

namespace llmecon::cmd {
namespace {

constexpr double kMaxSimulatedTokens = 1e11;  // prompt and output tokens of one run

// A named preset (data/workloads), or a preset file; ":interactive" picks that scenario's SLO.
Result<std::pair<WorkloadPreset, std::string>> preset(const Args& a) {
  std::string name = a.text("workload");
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

Result<LengthDist> length(const Args& a, const char* key, const std::optional<LengthDist>& from_preset,
                          const std::string& preset_name) {
  if (a.has(key)) return parse_length_dist(a.text(key), flag_of(key));
  if (from_preset) return *from_preset;
  if (!preset_name.empty()) {
    return Error{flag_of(key), "",
                 preset_name + " publishes no " + (std::string(key) == "isl" ? "input" : "output") + " lengths",
                 "give " + flag_of(key)};
  }
  return LengthDist::fixed(std::string(key) == "isl" ? 2048 : 256);
}

// --stages 5:600,10:600: each stage's rate and seconds, and --report-stage.
Status read_stages(const Args& a, Arrivals& r) {
  if (a.has("report_stage") && !a.has("stages")) {
    return Error{"--report-stage", "", "only with --stages", "--stages 5:600,10:600 --report-stage 1"};
  }
  if (!a.has("stages")) return {};
  TRY(stages, parse_stages(a.text("stages"), "--stages"));
  r.stages = std::move(stages);
  double requests = 0;
  for (const auto& [rate, seconds] : r.stages) requests += rate * seconds;
  if (requests > a.number("max_requests")) {
    return Error{"--stages", "",
                 fmt::format("the stages send about {} requests, past --max-requests", format_number(requests)),
                 "shorter stages, or a larger --max-requests"};
  }
  if (a.has("report_stage")) {
    r.report_stage = static_cast<int>(a.number("report_stage"));
    if (r.report_stage > static_cast<int>(r.stages.size())) {
      return Error{"--report-stage", "", fmt::format("there are {} stages", r.stages.size()), "count from 1"};
    }
  }
  return {};
}

Result<Arrivals> arrivals(const Args& a, const std::optional<double>& preset_rate, bool trace) {
  Arrivals r;
  const int given =
      (a.has("rate") ? 1 : 0) + (a.has("concurrency") ? 1 : 0) + (a.flag("offline") ? 1 : 0) + (trace ? 1 : 0);
  if (given > 1) {
    return Error{"--rate", "", "give one of --rate, --concurrency, --offline or --trace", "they are arrival processes"};
  }
  // Flags that mean nothing together are refused, never ignored.
  if (a.flag("find_rate") && (trace || a.flag("offline") || a.has("concurrency"))) {
    return Error{"--find-rate", "",
                 "searches an open-loop request rate, which a trace, --offline or --concurrency fixes",
                 "drop --find-rate, or give the workload's lengths (--isl/--osl, --workload) without them"};
  }
  if (a.has("think_s") && a.number("think_s") > 0 && !a.has("concurrency")) {
    return Error{"--think-s", "", "is a closed loop's pause between a client's requests",
                 "give --concurrency N with it, or drop it"};
  }
  if (a.has("stages") && (trace || a.flag("offline") || a.has("concurrency") || a.has("rate") || a.flag("find_rate"))) {
    return Error{"--stages", "", "staged load is an open-loop process of its own",
                 "give --stages with --arrival, not with --rate, --offline, --concurrency, --trace or --find-rate"};
  }
  if (trace) {
    r.kind = ArrivalKind::kTrace;
    return r;
  }
  if (a.flag("offline")) {
    r.kind = ArrivalKind::kOffline;
    return r;
  }
  if (a.has("concurrency")) {
    r.kind = ArrivalKind::kClosed;
    r.clients = static_cast<int>(a.number("concurrency"));
    r.think_s = a.number("think_s");
    return r;
  }
  if (!a.has("rate") && !preset_rate && !a.flag("find_rate") && !a.has("stages")) {
    return Error{"--rate", "", "no arrival process", "--rate R, --concurrency N, --offline or --trace FILE"};
  }
  r.rate = a.has("rate") ? a.number("rate") : preset_rate.value_or(1);
  const std::string arr = a.text("arrival");
  if (arr == "poisson" || arr == "poisson-exact") {
    r.kind = ArrivalKind::kPoisson;
    r.exact_count = arr == "poisson-exact";
  } else if (arr == "constant") {
    r.kind = ArrivalKind::kConstant;
  } else if (arr.rfind("gamma:", 0) == 0) {
    r.kind = ArrivalKind::kGamma;
    const auto cv = parse_number_text(arr.substr(6));
    if (!cv || !(*cv >= 1e-3 && *cv <= 100)) {
      return Error{"--arrival", "", "gamma needs a coefficient of variation from 0.001 to 100",
                   "gamma:2 (a CV of 1 is Poisson; use constant for evenly spaced arrivals)"};
    }
    r.cv = *cv;
  } else {
    return Error{"--arrival", "", "unknown arrival '" + arr + "'", "poisson, poisson-exact, constant or gamma:CV"};
  }
  TRY_STATUS(read_stages(a, r));
  if (!r.stages.empty()) {
    // The rate a staged run reports at: its reported stage's.
    r.rate = r.stages[r.reported_stage() - 1].first;
  }
  return r;
}

}  // namespace

// The workload: a preset's figures unless a flag overrides them; the SLO: --slo, else the preset
// scenario's.
Status read_workload(const Args& a, SimConfig& c, Json& envelope) {
  std::optional<WorkloadPreset> pre;
  std::string scenario;
  if (a.text("workload") != "none") {
    TRY(p, preset(a));
    pre = std::move(p.first);
    scenario = p.second;
    envelope.push_back(fmt::format("workload {} ({})", pre->name, pre->description));
  }
  const std::string pname = pre ? pre->name : "";
  Workload& w = c.workload;
  TRY(isl, length(a, "isl", pre ? pre->isl : std::nullopt, pname));
  TRY(osl, length(a, "osl", pre ? pre->osl : std::nullopt, pname));
  w.isl = isl;
  w.osl = osl;
  if (a.has("lengths")) {
    TRY(text, read_text_file(a.text("lengths"), "a CSV of input_tokens,output_tokens"));
    TRY(pairs, parse_length_pairs(text, a.text("lengths")));
    w.pairs = std::move(pairs);
  }
  // A trace from a file, or its text sent inline (the API's and Python's way, the page's upload).
  const bool trace = a.has("trace") || a.has("trace_text");
  if (a.has("trace") && a.has("trace_text")) {
    return Error{"--trace-text", "", "a trace comes from --trace or --trace-text, not both", "drop one"};
  }
  if (a.has("trace_text") && a.text("trace_text").size() > kMaxInputFileBytes) {
    return Error{"--trace-text", "", "larger than 64 MiB", "send a shorter trace, or a file with --trace"};
  }
  if (trace) {
    std::string text = a.has("trace_text") ? a.text("trace_text") : std::string();
    if (!a.has("trace_text")) {
      TRY(file, read_text_file(a.text("trace"), "a CSV or JSONL trace (docs/cli.md: simulate)"));
      text = std::move(file);
    }
    TRY(tr, parse_trace(text, a.has("trace_text") ? "--trace-text" : a.text("trace")));
    w.trace = std::move(tr);
  }
  TRY(arr, arrivals(a, pre ? pre->rate : std::nullopt, trace));
  w.arrivals = arr;
  w.requests = static_cast<long>(a.number("requests"));
  const double cap = a.number("max_requests");
  const double asked = trace ? static_cast<double>(w.trace.requests.size()) : a.number("requests");
  if (asked > cap) {
    return Error{trace ? "--trace" : "--requests", "",
                 fmt::format("{} requests exceed --max-requests ({})", format_number(asked), format_number(cap)),
                 "raise --max-requests (up to 10^8) if you mean it; each request costs memory and time"};
  }
  // The work the run simulates, bounded like its requests: about 10^11 tokens is hours of
  // simulation, past any question a request should hold a machine for.
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
  w.seed = static_cast<std::uint64_t>(a.number("seed"));
  w.prefix_hit = a.number("prefix_hit");
  w.prefix_tokens = static_cast<int>(a.number("prefix_tokens"));
  w.prefix_groups = static_cast<int>(a.number("prefix_groups"));
  if (w.prefix_hit > 0 && w.prefix_tokens == 0) {
    return Error{"--prefix-tokens", "", "--prefix-hit needs the shared prefix's length", "--prefix-tokens 1024"};
  }
  if (w.prefix_tokens > 0 && !trace && w.pairs.empty() && w.prefix_tokens >= w.isl.mean()) {
    return Error{"--prefix-tokens", "",
                 fmt::format("a shared prefix of {} tokens is not shorter than the prompts ({} tokens on average)",
                             w.prefix_tokens, format_number(w.isl.mean())),
                 "a prefix is the start of a prompt: fewer --prefix-tokens than --isl"};
  }
  if (a.has("shared_prefix")) {
    for (const char* other :
         {"prefix_hit", "prefix_tokens", "prefix_groups", "isl", "lengths", "trace", "trace_text"}) {
      if (!a.has(other)) continue;
      return Error{"--shared-prefix", "",
                   fmt::format("sets the prompts and prefixes that {} would set", flag_of(other)),
                   "give the shared prefix alone, or drop it and use --prefix-hit/--prefix-tokens"};
    }
    TRY(sp, parse_shared_prefix(a.text("shared_prefix"), "--shared-prefix"));
    sp.apply(w);
    if (sp.users > 0 && a.has("requests")) {
      return Error{"--requests", "", "--shared-prefix with USERS sends groups x users requests",
                   "drop --requests, or USERS from --shared-prefix"};
    }
    envelope.push_back("shared prefix: " + sp.str());
  }
  w.stream = !a.flag("no_stream");
  if (!w.stream) envelope.emplace_back("unstreamed: TTFT is the end-to-end time; no TPOT or ITL is observed");
  if (a.has("slo")) {
    TRY(slo, parse_slo(a.text("slo"), "--slo"));
    c.slo = slo;
  } else if (pre) {
    const std::string& s = scenario == "interactive" ? pre->slo_interactive : pre->slo_server;
    if (!s.empty()) {
      TRY(slo, parse_slo(s, "--workload"));
      c.slo = slo;
      envelope.push_back(fmt::format("SLO of the {} scenario: {}", scenario, s));
    } else if (scenario == "interactive") {
      return Error{"--workload", "", pre->name + " has no interactive scenario", "use " + pre->name};
    }
  }

  return {};
}

}  // namespace llmecon::cmd
