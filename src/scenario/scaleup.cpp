// The planner across scale-up domain sizes (scaleup.hpp, model.md §25.5).
#include "scenario/scaleup.hpp"

namespace llmecon {

ScaleUpSweep sweep_scaleup(const PlanRequest& rq, const TcoCatalog& tco, const TcoProfile& owner,
                           const std::vector<double>& domains) {
  ScaleUpSweep out;
  const Hardware& hw = *rq.hw;
  const TcoInputs tin = profile_inputs(owner);
  auto sys = tco.system(hw.name);
  if (!sys) out.unpriced = sys.error().what;
  for (const double d : domains) {
    ScaleUpOption o;
    PlanRequest r2 = rq;
    r2.domain = static_cast<int>(d);
    r2.chips = static_cast<int>(d);
    o.domain = r2.domain;
    Hardware priced_domain = hw;
    if (sys) {
      const Dollars f = scale_up_fabric(hw, **sys, tco.defaults(), d);
      const DollarsPerSecond extra = capex_per_hour(tco.defaults(), tin, f - (*sys)->scale_up.value);
      priced_domain.price.value = priced_domain.price.value + extra;
      o.fabric_capex = f;
      o.fabric_rent = extra;
    }
    o.chip_rent = priced_domain.price.value;
    r2.hw = &priced_domain;
    o.plan = plan(r2);
    if (o.plan.cancelled) {
      out.cancelled = true;
      return out;
    }
    out.rows.push_back(std::move(o));
  }
  return out;
}

}  // namespace llmecon
