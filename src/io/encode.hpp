// io/encode.hpp: the JSON of the typed results the analyses return, one encoder per result type,
// with the keys docs/cli.md documents (times in seconds unless a key says ms). Every encoder lives
// in src/io/json/ (common, serving, plan, train, validation), as every text rendering lives in
// src/io/text/; a command assembles its answer from them and adds only what the question asked.
//
//   TRY(r, simulate(config));
//   Json j = to_json(r);            // ttft_s, tpot_ms, ... as `llmecon simulate --json` prints them
//   j["charts"] = charts_json(r);   // CDFs and the batch over time, for --plot and the page
#pragma once

#include <cstddef>
#include <string>

#include "args/args.hpp"
#include "ops/ops.hpp"
#include "plan/plan.hpp"
#include "roofline/roofline.hpp"
#include "scenario/capacity.hpp"
#include "simulate/simulate.hpp"
#include "train/train.hpp"

namespace llmecon {

/// A simulation's figures: rates, latency distributions, KV use, SLO checks, cost and energy.
Json to_json(const SimResult& r);
/// Its CDFs (TTFT, TPOT, E2E) and the batch and KV use over time.
Json charts_json(const SimResult& r);
/// Its iterations and requests in the Chrome trace-event format (Perfetto, chrome://tracing).
Json chrome_trace_json(const SimResult& r);
/// One point of simulate's grid as one JSON line.
Json grid_row_json(std::size_t index, const std::string& engine, const Mapping& m, RequestsPerSecond rate,
                   const SimResult& r);
/// plan --rate's fleets; `osl` prices them per output token.
Json to_json(const Capacity& cap, double osl);

/// One point of a deployment search: its mapping, batch, formats, speeds, prices, energy and bounds.
Json to_json(const PlanPoint& p, const ModelSpec& m);
/// A deployment search: the frontier points `shown`, the best, the ten best mappings and what was
/// rejected; with `explain_for`, every point carries its derivation.
Json to_json(const PlanResult& r, const ModelSpec& m, const std::vector<std::size_t>& shown,
             const PlanRequest* explain_for);

/// A training layout's degrees, ZeRO stage, recomputation and schedule.
Json to_json(const TrainLayout& l);

/// validate --cross-validate: each chip's fit and the errors per scenario (io/text.hpp's type).
struct CrossValidation;
Json to_json(const CrossValidation& cv);

/// {"p10", "p50", "p90"} of a sample, with its point and the point's percentile when it has one.
Json quantiles_json(const Quantiles& x);
/// One operator's work and traffic (model.md §4), with its layer when `with_layer`.
Json to_json(const OpCost& op, bool with_layer);

}  // namespace llmecon
