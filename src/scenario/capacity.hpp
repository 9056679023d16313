// scenario/capacity.hpp: a fleet sized for a request rate, from the planner's layouts through the
// serving simulator (plan --rate; model.md §23.7).
//
//   const PlanResult planned = plan(rq);                            // rq with --ttft-ms/--tpot-ms
//   TRY(cap, size_capacity(rq, planned, CapacityAsk{units::requests_per_s(20), 1000}));
//   cap.options.front().replicas;                                   // the cheapest layout's fleet
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "catalog/dtype.hpp"
#include "plan/plan.hpp"
#include "simulate/simulate.hpp"
#include "units/error.hpp"

namespace llmecon {

struct CapacityAsk {
  RequestsPerSecond rate = units::requests_per_s(1);  ///< what the fleet must serve
  double sim_requests = 1000;                         ///< requests per simulated run (simulate's --requests default)
  std::function<bool()> cancelled;
  /// The lengths to simulate; none: the request's fixed isl and osl.
  std::optional<LengthDist> isl, osl;
};

/// One layout's fleet: as many replicas as the rate needs at what one replica sustains under the
/// SLO (at p99).
struct CapacityOption {
  Mapping map;  ///< one replica (dp = 1)
  DType weights = DType::kBf16;
  DType kv = DType::kBf16;
  RequestsPerSecond rate_per_replica{};  ///< what one replica sustains within the SLO
  double replicas = 0;
  double chips = 0;
  DollarsPerSecond cost{};  ///< the fleet's rent
  Seconds ttft_p99{};       ///< at rate_per_replica
  Seconds tpot_p99{};
  double batch_mean = 0;
};

struct Capacity {
  RequestsPerSecond rate{};
  std::optional<Seconds> ttft_p99, tpot_p99;  ///< the SLO held
  std::size_t simulated_layouts = 0;          ///< distinct layouts simulated (at most 5)
  std::vector<CapacityOption> options;        ///< cheapest first; layouts the simulator refuses are none
};

/// The planner's best distinct layouts (up to 5, by its ranking), each simulated as one replica
/// under the SLO the request's TTFT/TPOT targets set (at p99) to find the rate it sustains, then
/// as many replicas as the rate needs. An Error names --rate when no latency target is set;
/// cancelled: an Error whose `what` begins "cancelled".
Result<Capacity> size_capacity(const PlanRequest& rq, const PlanResult& r, const CapacityAsk& ask);

}  // namespace llmecon
