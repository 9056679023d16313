// io/encode.hpp: the JSON of the typed results the analyses return, one encoder per result type,
// with the keys docs/cli.md documents (times in seconds unless a key says ms).
//
//   TRY(r, simulate(config));
//   Json j = to_json(r);            // ttft_s, tpot_ms, ... as `llmecon simulate --json` prints them
//   j["charts"] = charts_json(r);   // CDFs and the batch over time, for --plot and the page
#pragma once

#include <cstddef>
#include <string>

#include "args/args.hpp"
#include "scenario/capacity.hpp"
#include "simulate/simulate.hpp"

namespace llmecon {

/// A simulation's figures: rates, latency distributions, KV use, SLO checks, cost and energy.
Json to_json(const SimResult& r);
/// Its CDFs (TTFT, TPOT, E2E) and the batch and KV use over time.
Json charts_json(const SimResult& r);
/// Its iterations and requests in the Chrome trace-event format (Perfetto, chrome://tracing).
Json chrome_trace_json(const SimResult& r);
/// One point of simulate's grid as one JSON line.
Json grid_row_json(std::size_t index, const std::string& engine, const Mapping& m, double rate, const SimResult& r);
/// plan --rate's fleets; `osl` prices them per output token.
Json to_json(const Capacity& cap, double osl);

}  // namespace llmecon
