// The command table (args.hpp): every command, every argument, once.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>

#include "llmecon/args.hpp"
#include "llmecon/train.hpp"
#include "llmecon/units.hpp"

namespace llmecon {
namespace {

using T = ArgType;

// Argument builders: each sets what every use of that argument shares.
ArgSpec arg(std::string key, ArgType type, std::string help) {
  ArgSpec a;
  a.key = std::move(key);
  a.type = type;
  a.help = std::move(help);
  return a;
}
ArgSpec with_default(ArgSpec a, Json def) {
  a.def = std::move(def);
  return a;
}
ArgSpec with_text(ArgSpec a, std::string text) {
  a.def_text = std::move(text);
  return a;
}
ArgSpec bounded(ArgSpec a, std::optional<double> lo, std::optional<double> hi = std::nullopt) {
  a.min = lo;
  a.max = hi;
  return a;
}
ArgSpec unit(ArgSpec a, std::string u) {
  a.unit = std::move(u);
  return a;
}
ArgSpec capped(ArgSpec a, std::size_t items) {
  a.max_items = items;
  return a;
}
ArgSpec short_flag(ArgSpec a, std::string s) {
  a.short_flag = std::move(s);
  return a;
}

// The sane range of every flag (model.md §2.5): physically possible, with headroom.
constexpr double kMaxCount = 2e9;      // chips and other whole counts: no integer overflow downstream
constexpr double kMaxTokens = 1e8;     // a context, prompt, output or chunk: 10^8 tokens (§2.4)
constexpr double kMaxSequences = 1e8;  // sequences in one batch
constexpr double kMaxFactor = 1e6;     // multiples, inefficiencies, model counts
constexpr double kMaxMs = 1e9;         // latencies and targets: about 11 days
constexpr double kMaxRate = 1e15;      // tokens per second of traffic
constexpr double kMaxUsd = 1e9;        // dollars per million tokens

ArgSpec model(const char* fallback = "deepseek-v3") {
  ArgSpec a = short_flag(
      arg("model", T::kModel, "built-in model name or path to a config.json (API, Python: or the config object)"),
      "-m");
  if (fallback != nullptr) a.def = fallback;
  return a;
}
ArgSpec hw(const char* fallback = "gb200") {
  ArgSpec a = arg("hw", T::kHardware, "chip name (see `llmecon hardware`)");
  if (fallback != nullptr) a.def = fallback;
  return a;
}
ArgSpec chips(const char* text = "the whole scale-up domain", const char* help = "chips in the scale-up domain") {
  return unit(with_text(bounded(arg("chips", T::kInteger, help), 1, kMaxCount), text), "chip");
}
ArgSpec dtype(std::string key, std::string help, std::string text) {
  return with_text(arg(std::move(key), T::kDType, std::move(help) + ": fp32, bf16, fp8, int8, fp4, int4"),
                   std::move(text));
}
ArgSpec flag(std::string key, std::string help) {
  return with_default(arg(std::move(key), T::kBool, std::move(help)), false);
}
ArgSpec number(std::string key, std::string help, std::string u, Json def, double lo, double hi) {
  return unit(with_default(bounded(arg(std::move(key), T::kNumber, std::move(help)), lo, hi), std::move(def)),
              std::move(u));
}
ArgSpec integer(std::string key, std::string help, std::string u, Json def, double lo, double hi = kMaxCount) {
  return unit(with_default(bounded(arg(std::move(key), T::kInteger, std::move(help)), lo, hi), std::move(def)),
              std::move(u));
}
ArgSpec choice(std::string key, std::string help, std::vector<std::string> choices) {
  ArgSpec a = with_default(arg(std::move(key), T::kChoice, std::move(help)), choices.front());
  a.choices = std::move(choices);
  return a;
}
// A user's own price per chip-hour of --hw, for every command that costs something.
ArgSpec usd_per_hour() {
  ArgSpec a = with_text(
      unit(bounded(arg("usd_per_hour", T::kNumber, "your own price per chip-hour of --hw"), 1e-6, 1e6), "$/h"),
      "the catalog's rental price");
  return a;
}
// How every dollar is priced (model.md §25.4): the catalog's rent, or tco's owned hour under a
// data/tco.toml profile.
ArgSpec cost() {
  ArgSpec a = with_default(arg("cost", T::kString,
                               "rented (the catalog's price) or owned[:PROFILE]: tco's owned hour under "
                               "data/tco.toml's cluster (the default owner), hyperscaler or enterprise, or a "
                               "--tco-file profile"),
                           "rented");
  // The built-in bases, for the page and the schema; a --tco-file may add profiles.
  a.choices = {"rented", "owned", "owned:hyperscaler", "owned:enterprise"};
  return a;
}
ArgSpec tco_file() {
  ArgSpec a =
      with_text(arg("tco_file", T::kString, "TOML overriding data/tco.toml sections, systems or profiles"), "none");
  a.path = true;
  return a;
}
// Every command that prices chip-hours: a rate, a cost basis, and the owned-cost data.
std::vector<ArgSpec> pricing() {
  return {usd_per_hour(), cost(), tco_file()};
}
std::vector<ArgSpec> priced(std::vector<ArgSpec> a) {
  for (auto& p : pricing()) a.push_back(std::move(p));
  return a;
}
// A service-level target: positive, none when absent.
ArgSpec target(ArgSpec a, double hi, std::string u) {
  a = with_text(unit(bounded(std::move(a), 0, hi), std::move(u)), "none");
  a.exclusive_min = true;
  return a;
}
// The serving engine whose defaults a deployment takes (data/engines, model.md §18.4).
ArgSpec serving_engine() {
  return choice("engine",
                "serving engine profile: its KV memory rule, sequence cap, host time per step and sustained GEMM "
                "share (data/engines)",
                {"generic", "vllm", "sglang", "trtllm"});
}
ArgSpec explain() {
  return flag("explain", "add the derivation: each formula with its values substituted");
}
ArgSpec ideal() {
  return flag("ideal", "the pure roofline: no efficiency factors or fixed costs");
}
ArgSpec file() {
  ArgSpec a = arg("file", T::kString, "measurement CSV (schema: shared/validation/README.md)");
  a.positional = true;
  a.required = true;
  return a;
}

// The formats of one deployment: weights (experts follow unless given), activations, KV.
std::vector<ArgSpec> formats() {
  return {dtype("weight_dtype", "weight format", "as released"),
          dtype("expert_dtype", "routed-expert weight format", "--weight-dtype when given, else as released"),
          dtype("act_dtype", "activation format", "--weight-dtype when given, else as released"),
          dtype("kv_dtype", "KV cache format", "as released (bf16)")};
}

std::vector<ArgSpec> step_args(bool lists) {
  std::vector<ArgSpec> a{model(), hw(), chips(), choice("phase", "decode or prefill", {"decode", "prefill"})};
  if (lists) {
    a.push_back(short_flag(
        unit(with_default(bounded(arg("batch", T::kIntegerList, "batch sizes: 1,8,64 or 1:4096:x2"), 1, kMaxSequences),
                          Json::array({1})),
             "seq"),
        "-b"));
    a.push_back(short_flag(
        unit(with_default(bounded(arg("context", T::kIntegerList, "context lengths: 1024,8192 or 1024:131072:x2"), 0,
                                  kMaxTokens),
                          Json::array({4096})),
             "tok"),
        "-c"));
  } else {
    a.push_back(short_flag(integer("batch", "sequences per step", "seq", 1, 1, kMaxSequences), "-b"));
    a.push_back(short_flag(integer("context", "tokens of context", "tok", 4096, 0, kMaxTokens), "-c"));
  }
  a.push_back(with_text(
      unit(bounded(arg("chunk", T::kInteger, "prefill: tokens processed in this pass"), 1, kMaxTokens), "tok"),
      "the whole context"));
  for (auto& f : formats()) a.push_back(std::move(f));
  a.push_back(choice("expert_touch", "routed experts read per step: expected or all", {"expected", "all"}));
  a.push_back(serving_engine());
  for (auto& p : pricing()) a.push_back(std::move(p));
  a.push_back(ideal());
  return a;
}

// The blackboard analyses pool one scale-up domain of one chip.
std::vector<ArgSpec> board(std::vector<ArgSpec> own) {
  std::vector<ArgSpec> a{model(), hw(), chips("the whole scale-up domain (at most that)")};
  for (auto& f : formats()) a.push_back(std::move(f));
  for (auto& o : own) a.push_back(std::move(o));
  a.push_back(explain());
  return a;
}

ArgSpec prefill_hw() {
  return with_text(arg("prefill_hw", T::kHardware, "disaggregated serving: the prefill pool's chip"),
                   "none: prefill on the decode pool");
}

ArgSpec practical_batch(const char* help) {
  return with_text(unit(bounded(arg("batch", T::kNumber, help), 1, kMaxSequences), "seq"), "2.5 B*");
}

// A command of the table; traits are set on the returned value.
CommandSpec command(std::string name, std::string help, std::vector<ArgSpec> args, bool long_running = false) {
  CommandSpec c;
  c.name = std::move(name);
  c.help = std::move(help);
  c.args = std::move(args);
  c.long_running = long_running;
  return c;
}
CommandSpec charted(CommandSpec c) {
  c.chart = "svg+html";
  return c;
}

std::vector<CommandSpec> build() {
  std::vector<CommandSpec> out;
  auto add = [&out](CommandSpec c) { out.push_back(std::move(c)); };

  add(command("models", "the built-in models", {}));
  add(command("hardware", "the chip catalog: FLOP/s per format, HBM, drain time, scale-up domain, price", {}));
  {
    ArgSpec name = model(nullptr);
    name.positional = true;
    name.required = true;
    CommandSpec c = command("model", "parameters, layers and KV bytes per token of a model",
                            {name, with_default(dtype("kv_dtype", "KV cache format", ""), "bf16")});
    c.cli = "model show";
    add(std::move(c));
  }
  {
    CommandSpec c = command("roofline", "one decode step or prefill chunk on one scale-up domain", step_args(false));
    c.args.push_back(flag("ops", "per-operator FLOPs and bytes (JSON: per layer too)"));
    c.args.push_back(flag("range", "p10/p50/p90 over spec ranges and efficiency priors"));
    c.args.push_back(explain());
    c.redirects = {{"isl", "roofline takes --context and, for a prompt, --phase prefill"},
                   {"osl", "roofline is one step; plan takes --isl/--osl"}};
    add(std::move(c));
  }
  {
    CommandSpec c = command("sweep", "the roofline over lists or ranges of batch sizes and contexts", step_args(true));
    c.args.push_back(explain());
    c.long_running = true;
    c.chart = "svg+html";
    add(std::move(c));
  }
  {
    std::vector<ArgSpec> a = step_args(false);
    a.erase(std::remove_if(a.begin(), a.end(), [](const ArgSpec& s) { return s.key == "batch"; }), a.end());
    a.push_back(explain());
    CommandSpec c = command("report", "a deployment report: memory fit and decode cost across batch sizes", a);
    c.long_running = true;
    c.redirects = {{"batch", "report sweeps batch sizes itself; roofline takes --batch"}};
    add(std::move(c));
  }
  add(charted(command(
      "batch", "cost and latency against batch: B*, the unbatched penalty, latency and slow-mode floors, fast mode",
      board(priced(
          {short_flag(number("context", "tokens of context (0: the lecture's B* without KV)", "tok", 0, 0, kMaxTokens),
                      "-c"),
           number("price_multiple", "fast mode: price multiple (fast mode runs when either multiple is given)", "x", 6,
                  1, kMaxFactor),
           number("speed_multiple", "fast mode: speed multiple", "x", 2.5, 1, kMaxFactor)})))));
  add(command("step", "the step interval from the HBM drain time, queueing, tokens/s per unit, traffic needed",
              board({short_flag(practical_batch("sequences per step"), "-b"),
                     short_flag(number("context", "tokens of context", "tok", 0, 0, kMaxTokens), "-c"),
                     number("provider_tokens_per_s", "a provider's traffic to size for", "tok/s", 5e8, 1, kMaxRate)})));
  add(charted(command(
      "context", "the crossover context, MFU against context, KV from a pricing knee, sparse attention",
      board(priced({short_flag(practical_batch("sequences per step"), "-b"),
                    number("knee", "a pricing knee, to infer KV bytes per token (0: none)", "tok", 0, 0, kMaxTokens),
                    integer("topk", "top-k sparse attention: tokens read", "tok", 2048, 1, kMaxTokens),
                    number("index_bytes", "top-k indexer key bytes per token", "B/tok", 128, 0, 1e9),
                    integer("sqrt_block", "block size of sqrt(context) attention", "tok", 64, 1, kMaxTokens)})))));
  add(command(
      "price", "prices from cost (forward) and what a price sheet implies (inverse, --sheet)",
      board(priced(
          {short_flag(number("context", "prompt length", "tok", 8192, 1, kMaxTokens), "-c"),
           short_flag(practical_batch("decode batch"), "-b"),
           with_text(arg("sheet", T::kString,
                         "price sheet to invert: claude-opus-4.6, gemini-3.1-pro, or one from --price-file"),
                     "none"),
           with_text(unit(bounded(arg("n_active", T::kNumber, "active parameters assumed for the inverse"), 1, 1e15),
                          "param"),
                     "the model's")}))));
  add(command(
      "layout", "expert placement, cross-rack traffic, the pipeline-boundary check, memory per chip, hops",
      board({short_flag(number("context", "tokens of context", "tok", 8192, 0, kMaxTokens), "-c"),
             with_text(
                 unit(bounded(arg("micro_batch", T::kNumber, "sequences per pipeline stage"), 1, kMaxSequences), "seq"),
                 "B*"),
             integer("racks", "racks one MoE layer spans", "rack", 2, 1, 1e5),
             integer("stages", "pipeline stages", "stage", 4, 1, 1e5),
             integer("layers_per_stage", "layers per stage", "layer", 1, 1, 1e5),
             number("hop_ms", "rack-to-rack hop latency", "ms", 2, 0, kMaxMs)})));
  {
    ArgSpec hold = with_default(
        capped(unit(bounded(arg("hold_s", T::kNumberList, "hold times: 300,3600 or 1:86400:x10"), 1e-3, 1e10), "s"),
               10000),
        Json::array({1, 10, 60, 300, 1800, 3600, 21600, 86400}));
    add(command("cache", "KV storage tiers: hold and retrieve cost, the best tier against hold time, TTLs",
                board(priced({hold}))));
  }
  {
    ArgSpec m = model(nullptr);
    m.help = "take the active parameters from this model";
    m.def_text = "none: --n-active";
    add(command(
        "lifecycle", "pre-training, RL and inference compute: the equal-cost split and over-training",
        {m,
         with_text(unit(bounded(arg("n_active", T::kNumber, "active parameters"), 1, 1e15), "param"),
                   "the model's, else 1e11"),
         number("traffic_tokens_per_s", "inference traffic", "tok/s", 5e8, 1, kMaxRate),
         number("lifetime_days", "deployment lifetime", "day", 60, 0.01, 1e5),
         number("models", "models sharing the traffic", "", 10, 1, kMaxFactor),
         number("rl_multiplier", "FLOPs per parameter per RL token: 2 (rollouts only) to 6 (train on all) (F25)",
                "FLOP/param", 3, 2, 6),
         number("rl_inefficiency", "1 / RL MFU", "x", 3, 1, kMaxFactor),
         number("inference_inefficiency", "1 / inference MFU", "x", 3, 1, kMaxFactor),
         choice("policy", "the compute split: thirds or half", {"thirds", "half"}), explain()}));
  }
  add(command("revnet", "training activation memory with and without reversible layers",
              {model(), short_flag(integer("batch", "sequences", "seq", 8, 1, kMaxSequences), "-b"),
               integer("seq_len", "tokens per sequence", "tok", 4096, 1, kMaxTokens),
               with_default(dtype("act_dtype", "activation format", ""), "bf16"), explain()}));
  add(command("lecture", "every claim of the lecture (C1-C24) recomputed, with real-hardware comparisons", {explain()},
              true));
  {
    CommandSpec c = command(
        "plan", "search mappings x batch x formats for the best deployment under SLOs; the Pareto frontier",
        {model(),
         hw(),
         chips("one scale-up domain, or --racks domains", "chips to deploy on"),
         with_text(
             unit(bounded(arg("racks", T::kInteger, "scale-up domains to deploy on (instead of --chips)"), 1, 1e6),
                  "domain"),
             "none"),
         integer("isl", "input tokens per request", "tok", 2048, 1, kMaxTokens),
         integer("osl", "output tokens per request", "tok", 256, 1, kMaxTokens),
         target(arg("ttft_ms", T::kNumber, "time-to-first-token target"), kMaxMs, "ms"),
         target(arg("tpot_ms", T::kNumber, "time-per-output-token target"), kMaxMs, "ms"),
         target(arg("max_usd_per_mtok", T::kNumber, "cost target (blended input and output)"), kMaxUsd, "$/Mtok"),
         with_text(capped(unit(bounded(arg("scaleup", T::kIntegerList,
                                           "also plan on these scale-up domain sizes: 8,72,576 (a whole plan each)"),
                                       1, 1e6),
                               "chip"),
                          16),
                   "none"),
         choice("formats",
                "released: the checkpoint's own formats; search: also fp8 and fp4 weights and an fp8 KV cache",
                {"released", "search"}),
         with_text(capped(arg("weight_dtypes", T::kDTypeList, "weight formats to search: bf16,fp8,fp4"), 6),
                   "as --formats says"),
         with_text(capped(arg("kv_dtypes", T::kDTypeList, "KV formats to search: bf16,fp8"), 6),
                   "as --formats says (released: the engine's for this checkpoint)"),
         with_text(capped(unit(bounded(arg("batches", T::kNumberList, "batch sizes per replica to search: 1:16384:x2"),
                                       1, kMaxSequences),
                               "seq"),
                          256),
                   "powers of two"),
         number("overlap", "fraction of communication hidden under compute", "", 0, 0, 1),
         integer("threads", "search threads", "", 1, 1, 64),
         number("spec_acceptance", "speculative decoding / MTP acceptance rate, below 1", "", 0, 0, 0.999),
         integer("spec_draft", "drafted tokens per step", "tok", 0, 0, 64),
         integer("frontier_max", "thin the frontier to about this many points (0: all)", "", 0, 0, 1e6),
         serving_engine(),
         usd_per_hour(),
         cost(),
         tco_file(),
         choice("rank",
                "what best means among points meeting the SLO: tokens/s per chip, $ per token (blended; "
                "owned with --cost owned) or joules per token",
                {"throughput", "cost", "energy"}),
         prefill_hw(),
         with_text(
             unit(bounded(arg("prefill_chips", T::kInteger, "disaggregated serving: the prefill pool's chips"), 1, 1e6),
                  "chip"),
             "one prefill domain"),
         with_text(unit(bounded(arg("rate", T::kNumber,
                                    "capacity: requests per second to serve; the top layouts are simulated "
                                    "under the SLO (p99 of --ttft-ms and --tpot-ms)"),
                                1e-6, 1e9),
                        "req/s"),
                   "none"),
         integer("sim_requests", "capacity: requests per simulated run (at least 10x the layout's batch)", "", 2000,
                 100, 1e6),
         choice("emit", "write the launch command of this engine for the best point (or --point)",
                {"none", "vllm", "sglang", "trtllm"}),
         with_text(bounded(arg("point", T::kInteger, "with --emit: the frontier point to launch (0: the first listed)"),
                           0, 1e6),
                   "the best"),
         ideal(),
         flag("range", "p10/p50/p90 of the best deployment over spec ranges and priors"),
         explain()},
        true);
    c.chart = "svg+html";
    c.redirects = {{"context", "plan takes --isl (prompt tokens) and --osl (output tokens)"},
                   {"batch", "plan searches batch sizes itself; --batches limits them"},
                   {"weight_dtype", "plan searches formats; --weight-dtypes limits them"},
                   {"kv_dtype", "plan searches formats; --kv-dtypes limits them"},
                   {"phase", "plan covers prefill and decode; --prefill-hw disaggregates them"}};
    add(std::move(c));
  }
  {
    auto opt_int = [](std::string key, std::string help, std::string u, double lo, double hi, std::string text) {
      return with_text(unit(bounded(arg(std::move(key), T::kInteger, std::move(help)), lo, hi), std::move(u)),
                       std::move(text));
    };
    auto path = [](std::string key, std::string help, std::string text) {
      ArgSpec a = with_text(arg(std::move(key), T::kString, std::move(help)), std::move(text));
      a.path = true;
      return a;
    };
    std::vector<ArgSpec> args{
        model("llama-3.1-70b"),
        hw("h100-sxm"),
        chips("the scale-up domain, at most 8", "chips per replica"),
        integer("replicas", "replicas behind the router", "", 1, 1, 4096),
        opt_int("tp", "tensor-parallel degree", "", 1, 1e6, "inferred by the planner"),
        opt_int("pp", "pipeline stages", "", 1, 1e6, "inferred by the planner"),
        opt_int("ep", "expert-parallel degree", "", 1, 1e6, "inferred by the planner"),
        opt_int("dp_attn", "attention data-parallel degree", "", 1, 1e6, "inferred by the planner")};
    for (auto& f : formats()) args.push_back(std::move(f));
    for (ArgSpec x : std::vector<ArgSpec>{
             serving_engine(),
             choice("scheduler", "continuous (iteration-level, chunked prefill), static, or disaggregated pools",
                    {"continuous", "static", "disaggregated"}),
             choice("priority", "which work an iteration takes first: the engine's order, decodes or prefills",
                    {"engine", "decode-first", "prefill-first"}),
             choice("preemption", "when KV runs out: recompute the victim, or swap it to host memory",
                    {"recompute", "swap"}),
             unit(with_text(bounded(arg("max_batched_tokens", T::kInteger, "tokens one iteration processes"), 1, 1e6),
                            "the engine's"),
                  "tok"),
             unit(with_text(bounded(arg("max_seqs", T::kInteger, "sequences one iteration holds"), 1, 1e5),
                            "the engine's"),
                  "seq"),
             opt_int("block_tokens", "tokens per paged-KV block", "tok", 1, 4096, "the engine's"),
             flag("no_chunked_prefill", "prefill whole prompts"),
             flag("no_prefix_caching", "no prefix cache"),
             choice("host_tier", "spill evicted prefix blocks (and swapped requests) to this tier of the chip",
                    {"none", "ddr", "flash", "disk"}),
             prefill_hw(),
             opt_int("prefill_chips", "disaggregated: chips per prefill replica", "chip", 1, 1e6, "--chips"),
             integer("prefill_replicas", "disaggregated: prefill replicas", "", 1, 1, 4096),
             choice("router", "how requests spread over replicas", {"least-tokens", "round-robin", "prefix-affinity"}),
             with_text(unit(bounded(arg("rate", T::kNumber, "open-loop arrivals per second"), 1e-6, 1e7), "req/s"),
                       "the workload's"),
             with_default(arg("arrival", T::kString, "poisson, constant, or gamma:CV (bursty, CV > 1)"), "poisson"),
             opt_int("concurrency", "closed loop: clients, each waiting for its answer", "", 1, 1e6, "none"),
             number("think_s", "closed loop: seconds between an answer and the next request", "s", 0, 0, 1e6),
             flag("offline", "every request at t = 0"),
             path("trace", "replay a trace: CSV or JSON lines (Azure, BurstGPT, Mooncake layouts read too)", "none"),
             with_default(arg("workload", T::kString,
                              "a named workload (data/workloads; NAME:interactive for that SLO), a .toml file, or "
                              "none"),
                          "azure-chat-2023"),
             with_text(
                 arg("isl", T::kString, "input tokens: 2048, uniform:LOW,HIGH, normal:MEAN,SD or lognormal:MEAN,SIGMA"),
                 "the workload's (2048 with --workload none)"),
             with_text(arg("osl", T::kString, "output tokens, as --isl"), "the workload's (256 with --workload none)"),
             path("lengths", "draw (input, output) pairs from a CSV input_tokens,output_tokens", "none"),
             number("prefix_hit", "share of requests that start with a shared prefix", "", 0, 0, 1),
             integer("prefix_tokens", "tokens of each shared prefix", "tok", 0, 0, kMaxTokens),
             integer("prefix_groups", "distinct shared prefixes", "", 1, 1, 1e6),
             integer("requests", "requests to simulate", "", 1000, 1, 1e9),
             integer("max_requests", "refuse workloads larger than this", "", 1e6, 1, 1e8),
             integer("seed", "random seed of arrivals, lengths and prefixes", "", 1, 0, 1e15),
             with_text(arg("slo", T::kString, "targets: ttft_p99=2s,tpot_p99=50ms (also p50, p90; e2e)"),
                       "the workload's, else none"),
             number("warmup", "share of requests left out at each end of an open-loop run", "", 0.1, 0, 0.45),
             flag("find_rate", "bisect the largest Poisson rate that meets --slo"),
             with_text(capped(unit(bounded(arg("grid_rates", T::kNumberList,
                                               "grid: Poisson rates to run, 1,2,4 or 1:64:x2 (one JSON line each)"),
                                           1e-6, 1e7),
                                   "req/s"),
                              256),
                       "none"),
             with_text(arg("grid_layouts", T::kString, "grid: layouts to run, tp8,tp4.pp2,tp1.dpa8.ep8"), "none"),
             with_text(capped(arg("grid_engines", T::kString, "grid: engines to run, vllm,sglang,trtllm"), 8), "none"),
             with_text(
                 arg("shard", T::kString, "grid: run only shard K of N (K/N, from 1): points i with i mod N = K - 1"),
                 "all of it"),
             with_text(arg("chrome_trace", T::kString,
                           "write iterations and requests as a Chrome trace (Perfetto) to this file"),
                       "none"),
             usd_per_hour(),
             cost(),
             tco_file(),
             ideal()}) {
      args.push_back(std::move(x));
    }
    CommandSpec c = command("simulate",
                            "serve traffic in a discrete-event simulation: queues, p50/p99 TTFT and TPOT, goodput, "
                            "KV use, capacity",
                            std::move(args), true);
    c.chart = "svg";
    c.api_caps = {{"requests", 1e6}, {"max_requests", 1e6}};
    c.redirects = {{"context", "simulate takes --isl and --osl (distributions allowed)"},
                   {"batch", "simulate forms batches itself; --max-seqs caps them"}};
    add(std::move(c));
  }
  {
    auto opt_int = [](std::string key, std::string help, std::string u, double lo, double hi, std::string text) {
      return with_text(unit(bounded(arg(std::move(key), T::kInteger, std::move(help)), lo, hi), std::move(u)),
                       std::move(text));
    };
    // A choice with no default: its absence means something (here: the search chooses).
    auto unstated = [](ArgSpec x, std::string text) {
      x.def = nullptr;
      return with_text(std::move(x), std::move(text));
    };
    auto positive = [](std::string key, std::string help, std::string u, Json def, double hi) {
      ArgSpec x = number(std::move(key), std::move(help), std::move(u), std::move(def), 0, hi);
      x.exclusive_min = true;
      return x;
    };
    std::vector<ArgSpec> args{
        model("llama-3.1-70b"),
        hw("h100-sxm"),
        unit(with_default(bounded(arg("chips", T::kInteger, "GPUs (chips) in the run"), 1, kMaxCount), 1024), "chip"),
        with_text(unit(bounded(arg("racks", T::kInteger, "scale-up domains in the run (instead of --chips)"), 1, 1e7),
                       "domain"),
                  "none"),
        number("tokens", "training tokens of the whole run", "tok", 15e12, 1, 1e18),
        integer("seq_len", "tokens per sequence", "tok", 8192, 1, kMaxTokens),
        number("batch_tokens", "global batch in tokens (rounded to whole sequences)", "tok", 16777216, 1, 1e12),
        with_text(
            unit(bounded(arg("global_batch", T::kInteger, "global batch in sequences (instead of --batch-tokens)"), 1,
                         1e9),
                 "seq"),
            "--batch-tokens / --seq-len"),
        opt_int("tp", "tensor (and sequence) parallel degree", "", 1, 1e6, "searched"),
        opt_int("pp", "pipeline stages", "", 1, 1e6, "searched"),
        opt_int("ep", "expert-parallel degree (inside tp x cp x dp)", "", 1, 1e6, "searched"),
        opt_int("cp", "context-parallel degree", "", 1, 1e6, "searched"),
        opt_int("dp", "data-parallel degree", "", 1, 1e9, "chips / (tp x pp x cp)"),
        opt_int("zero", "ZeRO stage over the data-parallel group (3 = FSDP)", "", 0, 3, "searched (1 with a layout)"),
        unstated(choice("recompute", "activation recomputation", {"selective", "none", "full", "reversible"}),
                 "searched (selective with a layout)"),
        with_text(
            arg("recompute_modules", T::kString,
                "what selective recomputation reruns, Megatron-Core's recompute_modules joined by ',': core_attn, "
                "layernorm, moe_act, mla_up_proj, mlp, shared_experts, moe (none: nothing); implies --recompute "
                "selective"),
            "core_attn (searched: also layernorm,moe_act,mla_up_proj)"),
        with_text(arg("offload_modules", T::kString,
                      "activations sent to host memory (the chip's first host tier) after the forward and back "
                      "for the backward, Megatron-Core's offload_modules joined by ',': core_attn, attn_proj, "
                      "expert_fc1, moe_act"),
                  "none"),
        unstated(choice("schedule", "pipeline schedule", {"1f1b", "interleaved", "zero-bubble", "dualpipe"}),
                 "searched (1f1b with a layout)"),
        integer("chunks", "interleaved schedule: model chunks per stage", "", 2, 1, 1024),
        opt_int("micro_batch", "sequences per micro-batch", "seq", 1, 1e6, "searched (1 with a layout)"),
        choice("train_dtype", "the GEMMs' format: bf16, or fp8 (FP8 training)", {"bf16", "fp8"}),
        choice("attention_dtype",
               "attention's core format: bf16, or fp8 (FP8 dot-product attention; at the FP8 rate with "
               "--train-dtype fp8)",
               {"bf16", "fp8"}),
        choice("optimizer", "Adam with fp32 master weights and fp32 (12 B/param) or bf16 moments (8 B/param)",
               {"adam-fp32", "adam-bf16"}),
        choice("grad_dtype",
               "gradients' format, held and reduced over data parallelism: bf16 (2 B/param), or fp32 (Megatron-LM's "
               "default for bf16 training)",
               {"bf16", "fp32"}),
        number("dp_overlap", "share of data-parallel communication hidden under compute", "", 0.9, 0, 1),
        number("tp_overlap", "share of tensor-parallel communication hidden under compute", "", 0, 0, 1),
        number("ep_overlap",
               "MoE: share of the expert all-to-all hidden under another micro-batch's compute (DualPipe: all)", "", 0,
               0, 1),
        number("ep_comm_sms",
               "MoE: SMs the all-to-all holds while it runs beside compute (DeepSeek-V3: 20 of 132); the hidden "
               "share slows that compute by SMs / the chip's SMs",
               "", 20, 0, 1024),
        number("moe_imbalance", "MoE: the busiest expert rank's tokens over the mean", "x", 1.0, 1, 100),
        number("expert_host_us",
               "MoE: host time per local expert per layer and micro-batch, forward and backward: each expert's "
               "GEMMs launched one by one after the dispatch's sync (fitted to dev.csv; 0: none, e.g. sync-free "
               "and graphed)",
               "us", kExpertHostSeconds * 1e6, 0, 1e5),
        number("failures_per_gpu_hour", "interruptions per GPU-hour (Llama 3: 419 in 54 days on 16,384 GPUs)", "1/h",
               419.0 / (54.0 * 24.0 * 16384.0), 0, 1),
        with_text(
            [&] {
              ArgSpec x = unit(
                  bounded(arg("mtbf_hours", T::kNumber, "per-GPU mean time between failures (instead)"), 0, 1e12), "h");
              x.exclusive_min = true;
              return x;
            }(),
            "from --failures-per-gpu-hour"),
        positive("storage_tb_per_s", "checkpoint write bandwidth of the cluster (Llama 3: 2 TB/s sustained)", "TB/s", 2,
                 1e6),
        number("restart_min", "detection, rescheduling and reload after a failure", "min", 10, 0, 1e6),
        with_text(
            [&] {
              ArgSpec x = unit(bounded(arg("checkpoint_min", T::kNumber, "checkpoint interval"), 0, 1e9), "min");
              x.exclusive_min = true;
              return x;
            }(),
            "Young-Daly"),
        with_text(unit(bounded(arg("pue", T::kNumber,
                                   "facility power over IT power (the energy figures; an owned "
                                   "price keeps its profile's)"),
                               1, 5),
                       "x"),
                  "1.25 (data/tco.toml), or --cost's profile"),
        with_text(
            unit(bounded(arg("usd_per_kwh", T::kNumber, "electricity price (the energy figures)"), 0, 10), "$/kWh"),
            "0.08 (data/tco.toml), or --cost's profile"),
        usd_per_hour(),
        cost(),
        tco_file(),
        flag("search", "search layouts: the ranked list, the frontier and the rejections"),
        choice("objective", "search: fastest or cheapest run", {"time", "cost"}),
        integer("top", "search: layouts listed", "", 10, 1, 1000),
        flag("range", "p10/p50/p90 over spec ranges and efficiency priors"),
        ideal(),
        explain()};
    CommandSpec c = command("train",
                            "a training run: memory per GPU, time per step, MFU, failures, days, GPU-hours, $ and "
                            "energy; --search for the layout",
                            std::move(args), true);
    c.redirects = {{"batch", "train takes --global-batch (sequences) or --batch-tokens"},
                   {"context", "train takes --seq-len"}};
    add(std::move(c));
  }
  {
    ArgSpec fit = choice("fit", "the loss fit: Hoffmann et al. 2022 or Epoch's replication (Besiroglu et al. 2024)",
                         {"hoffmann", "epoch"});
    ArgSpec budget = with_text(
        unit(bounded(arg("budget_flops", T::kNumber, "training compute budget"), 1e15, 1e32), "FLOP"), "3.8e25");
    ArgSpec loss = with_text(unit(bounded(arg("loss", T::kNumber, "target loss (instead of a budget)"), 0.5, 20), ""),
                             "the budget's compute-optimal loss");
    CommandSpec c = command(
        "scale",
        "scaling laws tied to dollars: compute-optimal and inference-aware N and D, training and lifetime "
        "inference $",
        {model("llama-3.1-70b"), hw("h100-sxm"),
         unit(with_default(bounded(arg("chips", T::kInteger, "training GPUs (the reference run)"), 1, kMaxCount), 1024),
              "chip"),
         fit, budget, loss,
         number("inference_tokens", "tokens served over the model's life (D_inf)", "tok", 1e13, 0, 1e20),
         number("rl_multiplier", "FLOPs per parameter per RL token (F25)", "FLOP/param", 3, 2, 6),
         integer("seq_len", "training tokens per sequence", "tok", 8192, 1, kMaxTokens), usd_per_hour(), cost(),
         tco_file(), ideal(), explain()},
        true);
    c.chart = "svg";
    add(std::move(c));
  }
  {
    auto optional_number = [](std::string key, std::string help, std::string u, double lo, double hi, std::string text,
                              bool exclusive = false) {
      ArgSpec x = with_text(unit(bounded(arg(std::move(key), T::kNumber, std::move(help)), lo, hi), std::move(u)),
                            std::move(text));
      x.exclusive_min = exclusive;
      return x;
    };
    ArgSpec u = number("utilization", "share of hours the accelerators do paid work", "", 0.8, 0, 1);
    u.exclusive_min = true;
    CommandSpec c = command(
        "tco",
        "what an owned accelerator-hour costs: capex (chip, HBM, host, scale-up and scale-out fabric), opex, "
        "capital; against renting, with the break-even utilization",
        {hw("h100-sxm"),
         unit(with_default(bounded(arg("chips", T::kInteger, "accelerators in the cluster"), 1, kMaxCount), 1024),
              "chip"),
         with_text(
             unit(bounded(arg("racks", T::kInteger, "scale-up domains in the cluster (instead of --chips)"), 1, 1e7),
                  "domain"),
             "none"),
         choice("topology", "scale-out network: a fat-tree of the catalog's switches, or none (one node)",
                {"fat-tree", "none"}),
         u, number("oversubscription", "fat-tree oversubscription at the leaves (1: non-blocking)", "x", 1, 1, 64),
         optional_number("life_years", "depreciation life", "y", 0, 50, "5 (data/tco.toml)", true),
         optional_number("cost_of_capital", "yearly cost of capital", "", 0, 1, "0.10 (data/tco.toml)"),
         optional_number("pue", "facility power over IT power", "x", 1, 5, "1.25 (data/tco.toml)"),
         optional_number("usd_per_kwh", "electricity price", "$/kWh", 0, 10, "0.08 (data/tco.toml)"),
         optional_number("load", "busy IT power over rated", "", 0, 1, "0.75 (data/tco.toml)", true), usd_per_hour(),
         tco_file(), flag("range", "p10/p50/p90 over every sourced range in data/tco.toml"), explain()});
    c.redirects = {{"model", "tco prices hardware; roofline, plan and train take --model"}};
    add(std::move(c));
  }
  {
    CommandSpec c = command(
        "validate", "predict every row of a measurement CSV and report the error per metric",
        {file(), ideal(),
         flag("cross_validate",
              "also calibrate each chip and report in-sample, k-fold and leave-one-source-out error per scenario"),
         integer("folds", "--cross-validate: cross-validation folds", "", 5, 2, 100),
         with_text(arg("fit", T::kString, "--cross-validate: parameters to fit on every chip, comma-separated"),
                   "those each chip's family lists as fitted, else step_overhead and kernel_overhead")},
        true);
    c.reads_files = true;
    add(std::move(c));
  }
  {
    ArgSpec h = hw(nullptr);
    h.help = "the chip to fit (rows measured on it)";
    h.required = true;
    CommandSpec c = command("calibrate", "fit a chip's efficiency to a measurement CSV; prints a --hw-file overlay",
                            {file(), h, integer("folds", "cross-validation folds", "", 5, 2, 100),
                             with_text(arg("fit", T::kString,
                                           "parameters to fit, comma-separated: compute, memory, memory_half, comm, "
                                           "step_overhead, kernel_overhead"),
                                       "those the chip's family lists as fitted, else all six")},
                            true);
    c.reads_files = true;
    c.writes_toml = true;
    add(std::move(c));
  }
  {
    CommandSpec c = command(
        "measure",
        "measure this machine's roofline (memory bandwidth, GEMM rate, caches); --decode runs a real decode sweep",
        {flag("decode", "also run the synthetic decode sweep"),
         flag("quick", "a small, fast version (used by the tests)"),
         with_text(bounded(arg("d_model", T::kInteger, "decode: model width"), 64, 65536), "2048 (1024 with --quick)"),
         with_text(bounded(arg("layers", T::kInteger, "decode: layers"), 1, 1024), "4 (2 to 8 with --quick)"),
         integer("threads", "threads (0: all)", "", 0, 0, 1024)},
        true);
    c.measures = true;
    c.chart = "svg";
    c.writes_toml = true;
    add(std::move(c));
  }
  return out;
}

}  // namespace

const std::vector<CommandSpec>& commands() {
  static const std::vector<CommandSpec> table = build();
  return table;
}

const CommandSpec* find_command(std::string_view name) {
  for (const auto& c : commands()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Error unknown_command(std::string_view name) {
  std::vector<std::string> names;
  std::string list;
  for (const auto& c : commands()) {
    names.push_back(c.name);
    list += (list.empty() ? "" : ", ") + c.name;
  }
  return Error{"command", "", "unknown command '" + std::string(name) + "'",
               "did you mean " + closest_names(name, names) + "? the commands are " + list};
}

Error unknown_argument(const CommandSpec& spec, std::string_view key) {
  const std::string f = flag_of(key);
  for (const auto& [k, why] : spec.redirects) {
    if (k == key) return Error{f, "", spec.cli_name() + " does not take it", why};
  }
  std::vector<std::string> flags;
  for (const auto& a : spec.args) {
    if (!a.positional) flags.push_back(a.flag());
  }
  std::string takers;
  for (const auto& c : commands()) {
    if (&c != &spec && c.arg(key) != nullptr) takers += (takers.empty() ? "" : ", ") + c.cli_name();
  }
  std::string hint;
  // Only near misses are suggested: a third of the flag's letters, at least two.
  const std::string near = closest_names(f, flags, std::max<std::size_t>(2, f.size() / 3));
  if (!near.empty()) hint = "did you mean " + near + "?";
  if (!takers.empty()) hint += (hint.empty() ? "" : " ") + f + " is for " + takers;
  if (hint.empty() && !flags.empty()) {
    // No near miss: the flags that share a word of three letters or more with it (--budget-usd:
    // --budget-flops; --target-loss: --loss), else every flag the command takes.
    auto words = [](std::string_view text) {
      std::vector<std::string> out;
      std::size_t start = 0;
      while (start <= text.size()) {
        const std::size_t end = std::min(text.find_first_of("_-", start), text.size());
        if (end - start >= 3) out.emplace_back(text.substr(start, end - start));
        start = end + 1;
      }
      return out;
    };
    const std::vector<std::string> mine = words(key);
    std::string shared, all;
    for (const std::string& flag : flags) {
      all += (all.empty() ? "" : ", ") + flag;
      const std::vector<std::string> theirs = words(std::string_view(flag).substr(2));
      if (std::any_of(mine.begin(), mine.end(),
                      [&](const std::string& w) { return std::find(theirs.begin(), theirs.end(), w) != theirs.end(); }))
        shared += (shared.empty() ? "" : ", ") + flag;
    }
    hint = shared.empty() ? spec.cli_name() + " takes " + all : "did you mean " + shared + "?";
  }
  if (hint.empty()) hint = spec.cli_name() + " takes no arguments";
  return Error{f, "", "unknown argument of " + spec.cli_name(), hint};
}

Json schema_json() {
  Json out = Json::array();
  for (const auto& c : commands()) {
    Json args = Json::array();
    for (const auto& a : c.args) {
      Json j{{"key", a.key},
             {"flag", a.flag()},
             {"type", std::string(name(a.type))},
             {"help", a.help},
             {"unit", a.unit},
             {"default", a.def},
             {"default_text", a.default_str()},
             {"required", a.required},
             {"positional", a.positional}};
      j["min"] = a.min ? Json(*a.min) : Json(nullptr);
      j["max"] = a.max ? Json(*a.max) : Json(nullptr);
      if (a.exclusive_min) j["exclusive_min"] = true;
      if (a.type == ArgType::kNumberList || a.type == ArgType::kIntegerList || a.type == ArgType::kDTypeList) {
        j["max_items"] = a.max_items;
      }
      if (!a.choices.empty()) j["choices"] = a.choices;
      if (a.type == ArgType::kDType || a.type == ArgType::kDTypeList) {
        Json names = Json::array();
        for (const auto n : kDTypeNames) names.push_back(std::string(n));
        j["choices"] = names;
      }
      if (!a.short_flag.empty()) j["short"] = a.short_flag;
      args.push_back(std::move(j));
    }
    out.push_back({{"name", c.name},
                   {"cli", c.cli_name()},
                   {"help", c.help},
                   {"long_running", c.long_running},
                   {"reads_files", c.reads_files},
                   {"measures", c.measures},
                   {"chart", c.chart},
                   {"args", std::move(args)}});
  }
  return out;
}

std::string schema_markdown() {
  std::string out =
      "<!-- Generated by `llmecon commands --markdown` from the command table (src/io/commands.cpp); "
      "a test fails when it is stale. -->\n\n"
      "Every command also takes `--json` or `--csv`, `--hw-file FILE` and `--price-file FILE`. The API "
      "(`/api/<command>`) and Python (`llmecon.<command>(...)`) take the same arguments by key "
      "(dashes as underscores). Lists and ranges (`1,8,64`, `1:4096:x2`, `0:8192:+1024`) are accepted as "
      "text everywhere, and as JSON arrays in the API and Python.\n";
  for (const auto& c : commands()) {
    std::string sentence = c.help;
    sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
    out += fmt::format("\n### `llmecon {}`\n\n{}.", c.cli_name(), sentence);
    if (c.long_running) out += " Long-running: the server queues it.";
    if (!c.chart.empty())
      out += c.chart == "svg" ? " `--plot FILE.svg` draws it." : " `--plot FILE.svg|FILE.html` draws it.";
    if (c.writes_toml) out += " `--out FILE` writes the TOML.";
    out += "\n\n";
    if (c.args.empty()) {
      out += "No arguments.\n";
      continue;
    }
    out += "| flag | key | type | default | unit | range | what |\n|---|---|---|---|---|---|---|\n";
    for (const auto& a : c.args) {
      std::string flag = a.flag();
      if (!a.short_flag.empty()) flag += ", " + a.short_flag;
      std::string type(name(a.type));
      if (!a.choices.empty()) {
        type.clear();
        for (const auto& ch : a.choices) type += (type.empty() ? "" : " \\| ") + ch;
      }
      std::string range;
      if (a.min || a.max) {
        range = (a.min ? (a.exclusive_min ? "> " : "≥ ") + format_number(*a.min) : std::string()) +
                (a.min && a.max ? ", " : "") + (a.max ? "≤ " + format_number(*a.max) : std::string());
      }
      std::string def = a.required ? "required" : a.default_str();
      out += fmt::format("| `{}` | `{}` | {} | {} | {} | {} | {} |\n", flag, a.key, type, def, a.unit, range, a.help);
    }
  }
  return out;
}

}  // namespace llmecon
