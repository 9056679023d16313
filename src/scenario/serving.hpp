// scenario/serving.hpp: a `simulate` question's deployment and its grid (docs/model.md §23,
// §17.5): the replica's layout (stated, else the one rule for unstated degrees), its engine's
// scheduler, the disaggregated prefill pool, and the grid of engines, layouts and rates, each
// point simulated on the same workload.
//
//   std::vector<std::string> notes;
//   std::shared_ptr<const Hardware> prefill_owner;
//   TRY_STATUS(place_replica(catalogs, args, settings, scenario, config, notes, prefill_owner));
//   TRY(layout, parse_layout("tp4.pp2"));
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"
#include "simulate/simulate.hpp"
#include "simulate/simulate_args.hpp"

namespace llmecon {

/// The replica `config` runs: its chips, layout (stated, or by complete_layout for min(256, the
/// engine's sequence cap) sequences at the mean context), formats, efficiency and engine, the
/// engine's scheduler under the settings (caps per attention-DP rank scaled), and when
/// disaggregated the prefill pool (its chip kept alive by `prefill_owner`). What was assumed is
/// appended to `notes`; an Error names the flag to change.
Status place_replica(const Catalogs& cat, const Args& a, const SimSettings& settings, const Scenario& sc,
                     SimConfig& config, std::vector<std::string>& notes,
                     std::shared_ptr<const Hardware>& prefill_owner);

/// "tp4.pp2.dpa2.ep8": a layout of the grid; absent degrees are 1. An Error names --grid-layouts.
Result<Mapping> parse_layout(const std::string& text);

/// One point of a serving grid as it is simulated.
struct ServingGridPoint {
  std::size_t index = 0;  ///< in the grid's order: engines, then layouts, then rates
  const ServingEngine* engine = nullptr;
  Mapping map;
  RequestsPerSecond rate{};  ///< Poisson arrivals
  const SimResult* result = nullptr;
};

/// The grid: `engines` x `layouts` x `rates`, in that order, each point `base` served on that
/// engine (its scheduler under `settings`) and layout at Poisson arrivals of that rate; only the
/// points i with i mod shard_n = shard_k - 1 run. Each point is passed to `each` as it is done
/// (its result lives for the call), with the share of the grid done to `progress`.
Status simulate_grid(const SimConfig& base, const SimSettings& settings, const Scenario& sc,
                     const std::vector<const ServingEngine*>& engines, const std::vector<Mapping>& layouts,
                     const std::vector<RequestsPerSecond>& rates, std::pair<std::size_t, std::size_t> shard,
                     const std::function<void(const ServingGridPoint&)>& each,
                     const std::function<void(double)>& progress);

}  // namespace llmecon
