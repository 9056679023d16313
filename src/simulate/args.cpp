// The `simulate` command's arguments, declared beside the serving simulator that reads them
// (simulate_args.hpp); the command table and `validate`'s row notes both go through them.
#include "simulate/simulate_args.hpp"

#include "args/arg_builders.hpp"
#include "simulate/policy.hpp"
#include "simulate/simulate.hpp"

namespace llmecon {

using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
using T = ArgType;

namespace {
// A choice whose first value, "engine", keeps the serving engine's own setting.
std::vector<std::string> engine_or(std::vector<std::string> names) {
  names.insert(names.begin(), "engine");
  return names;
}
}  // namespace

std::vector<ArgSpec> simulate_arguments() {
  std::vector<ArgSpec> args{
      model(),
      hw(),
      chips("the scale-up domain, at most 8", "chips per replica"),
      integer("replicas", "replicas behind the router", "", 1, 1, 4096),
      optional_integer("tp", "tensor-parallel degree", "", 1, 1e6, "inferred by the planner"),
      optional_integer("pp", "pipeline stages", "", 1, 1e6, "inferred by the planner"),
      optional_integer("ep", "expert-parallel degree", "", 1, 1e6, "inferred by the planner"),
      optional_integer("dp_attn", "attention data-parallel degree", "", 1, 1e6, "inferred by the planner")};
  for (auto& f : formats()) args.push_back(std::move(f));
  for (ArgSpec x : std::vector<ArgSpec>{
           serving_engine(),
           choice("scheduler", "continuous (iteration-level, chunked prefill), static, or disaggregated pools",
                  names_in(kSchedulerNames)),
           choice("priority", "which work an iteration takes first: the engine's order, decodes or prefills",
                  engine_or(schedule_names())),
           choice("preemption", "when KV runs out: recompute the victim, or swap it to host memory",
                  preemption_names()),
           choice("admission",
                  "KV admission: the engine's, on-demand (blocks as tokens come, the newest preempted when out), "
                  "reserve (the whole output up front) or token-ratio (SGLang's estimate)",
                  engine_or(admission_names())),
           unit(with_text(bounded(arg("max_batched_tokens", T::kInteger, "tokens one iteration processes"), 1, 1e6),
                          "the engine's"),
                "tok"),
           unit(with_text(bounded(arg("max_seqs", T::kInteger, "sequences one iteration holds"), 1, 1e5),
                          "the engine's"),
                "seq"),
           optional_integer("block_tokens", "tokens per paged-KV block", "tok", 1, 4096, "the engine's"),
           optional_integer("kv_tokens",
                            "the KV pool per replica in tokens, when the engine is told one (TurboMind's "
                            "cache_max_entry_count blocks x 128, TensorRT-LLM's max_tokens_in_paged_kv_cache), in "
                            "place of its memory rule's; at most what all of HBM leaves",
                            "tok", 1, 1e9, "what memory leaves"),
           integer("scheduler_steps",
                   "decode iterations per scheduling (vLLM V0's --num-scheduler-steps): no request is admitted "
                   "inside them, and finished sequences stay in the batch until they end",
                   "", 1, 1, 1024),
           flag("no_chunked_prefill", "prefill whole prompts"),
           flag("no_prefix_caching", "no prefix cache"),
           choice("host_tier", "spill evicted prefix blocks (and swapped requests) to this tier of the chip",
                  {"none", "ddr", "flash", "disk"}),
           prefill_hw(),
           optional_integer("prefill_chips", "disaggregated: chips per prefill replica", "chip", 1, 1e6, "--chips"),
           integer("prefill_replicas", "disaggregated: prefill replicas", "", 1, 1, 4096),
           choice("router", "how requests spread over replicas", names_in(kRouterNames)),
           with_text(unit(bounded(arg("rate", T::kNumber, "open-loop arrivals per second"), 1e-6, 1e7), "req/s"),
                     "the workload's"),
           with_default(arg("arrival", T::kString,
                            "poisson, poisson-exact (gaps rescaled to exactly rate x duration), constant, or "
                            "gamma:CV (bursty, CV > 1)"),
                        "poisson"),
           with_text(arg("stages", T::kString, "staged load, RATE:SECONDS in turn: 5:600,10:600 (open loop)"), "none"),
           optional_integer("report_stage", "staged load: the stage the statistics describe (from 1)", "", 1, 1e6,
                            "the last"),
           optional_integer("concurrency", "closed loop: clients, each waiting for its answer", "", 1, 1e6, "none"),
           number("think_s", "closed loop: seconds between an answer and the next request", "s", 0, 0, 1e6),
           flag("offline", "every request at t = 0"),
           path("trace", "replay a trace: CSV or JSON lines (Azure, BurstGPT, Mooncake layouts read too)", "none"),
           with_text(arg("trace_text", T::kString,
                         "a trace's text instead of a file, as --trace reads it (the API's and Python's way to send "
                         "one; a server takes bodies up to its --max-body)"),
                     "none"),
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
           with_text(arg("shared_prefix", T::kString,
                         "inference-perf's shared_prefix: GROUPS:PREFIX:QUESTION[:USERS] system prompts of PREFIX "
                         "tokens, each request adding a QUESTION (10:2048:256:20)"),
                     "none"),
           flag("no_stream", "unstreamed answers: the client's TTFT is the end-to-end time, and no TPOT is seen"),
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
  return args;
}

}  // namespace llmecon
