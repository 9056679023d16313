// scenario/scaleup.hpp: the planner across scale-up domain sizes, each priced with its own
// fabric (plan --scaleup; model.md §25.5).
//
//   TRY(owner, tco.profile("cluster", "--cost"));
//   const ScaleUpSweep sweep = sweep_scaleup(rq, tco, *owner, {8, 72});
//   sweep.rows[1].plan.best;   // the best deployment on one 72-chip domain, fabric included
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "tco/tco.hpp"

namespace llmecon {

/// One domain size: its fabric's capex beyond the chip's own domain and what that adds to a
/// chip-hour (recovered over the owner's life at its utilization), and the plan on it.
struct ScaleUpOption {
  int domain = 0;
  std::optional<Dollars> fabric_capex;          ///< per chip; none when data/tco.toml does not price the chip
  std::optional<DollarsPerSecond> fabric_rent;  ///< per chip
  DollarsPerSecond chip_rent{};                 ///< the chip's price with the fabric
  PlanResult plan;
};

struct ScaleUpSweep {
  std::vector<ScaleUpOption> rows;
  std::string unpriced;  ///< why the fabric is not priced (no system in data/tco.toml), or ""
  bool cancelled = false;
};

/// The planner on one domain of each size (chips = domain), each chip priced with its domain's
/// fabric recovered as `owner`'s capital.
ScaleUpSweep sweep_scaleup(const PlanRequest& rq, const TcoCatalog& tco, const TcoProfile& owner,
                           const std::vector<double>& domains);

}  // namespace llmecon
