// The `plan` command's arguments (plan_args.hpp).
#include "plan/plan_args.hpp"

#include "args/arg_builders.hpp"
#include "plan/plan.hpp"

namespace llmecon {

std::vector<ArgSpec> plan_arguments() {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  using T = ArgType;
  return {
      model(),
      hw(),
      chips("one scale-up domain, or --racks domains", "chips to deploy on"),
      with_text(unit(bounded(arg("racks", T::kInteger, "scale-up domains to deploy on (instead of --chips)"), 1, 1e6),
                     "domain"),
                "none"),
      with_default(arg("isl", T::kString,
                       "input tokens per request: 2048, or as simulate takes them, uniform:LOW,HIGH, normal:MEAN,SD or "
                       "lognormal:MEAN,SIGMA (the search prices the mean; --rate simulates the distribution)"),
                   "2048"),
      with_default(arg("osl", T::kString, "output tokens per request, as --isl"), "256"),
      with_text(arg("slo", T::kString,
                    "targets as simulate takes them: ttft_p99=2s,tpot_p99=50ms (held at p99; --ttft-ms and --tpot-ms "
                    "are its short forms)"),
                "none"),
      target(arg("ttft_ms", T::kNumber, "time-to-first-token target"), kMaxMs, "ms"),
      target(arg("tpot_ms", T::kNumber, "time-per-output-token target"), kMaxMs, "ms"),
      target(arg("max_usd_per_mtok", T::kNumber, "cost target (blended input and output)"), kMaxUsd, "$/Mtok"),
      with_text(capped(unit(bounded(arg("scaleup", T::kIntegerList,
                                        "also plan on these scale-up domain sizes: 8,72,576 (a whole plan each)"),
                                    1, 1e6),
                            "chip"),
                       16),
                "none"),
      choice("formats", "released: the checkpoint's own formats; search: also fp8 and fp4 weights and an fp8 KV cache",
             {"released", "search"}),
      with_text(capped(arg("weight_dtypes", T::kDTypeList, "weight formats to search: bf16,fp8,fp4"), 6),
                "as --formats says"),
      with_text(capped(arg("kv_dtypes", T::kDTypeList, "KV formats to search: bf16,fp8"), 6),
                "as --formats says (released: the engine's for this checkpoint)"),
      with_text(capped(unit(bounded(arg("batches", T::kNumberList, "batch sizes per replica to search: 1:16384:x2"), 1,
                                    kMaxSequences),
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
             names_in(kPlanRankNames)),
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
      integer("sim_requests",
              "capacity: requests per simulated run, as simulate's --requests (the same replica gives the same rate)",
              "", 1000, 100, 1e6),
      choice("emit", "write the launch command of this engine for the best point (or --point)",
             [] {
               std::vector<std::string> engines{"none"};
               for (std::string& n : engine_names(true)) engines.push_back(std::move(n));
               return engines;
             }()),
      with_text(
          bounded(arg("point", T::kInteger, "with --emit: the frontier point to launch (0: the first listed)"), 0, 1e6),
          "the best"),
      ideal(),
      flag("range", "p10/p50/p90 of the best deployment over spec ranges and priors"),
      explain()};
}

}  // namespace llmecon
