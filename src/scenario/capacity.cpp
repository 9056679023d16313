// A fleet sized for a request rate (capacity.hpp, model.md §23.7).
#include "scenario/capacity.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "simulate/simulate.hpp"

namespace llmecon {

Result<Capacity> size_capacity(const PlanRequest& rq, const PlanResult& r, const CapacityAsk& ask) {
  if (!rq.ttft && !rq.tpot) {
    return Error{"--rate", "", "capacity needs a latency target",
                 "--slo ttft_p99=2s,tpot_p99=50ms (or --ttft-ms, --tpot-ms)"};
  }
  Capacity out;
  out.rate = ask.rate;
  out.ttft_p99 = rq.ttft;
  out.tpot_p99 = rq.tpot;
  Slo slo;
  if (rq.ttft) slo.ttft_s = rq.ttft->si();
  if (rq.tpot) slo.tpot_s = rq.tpot->si();
  std::vector<const PlanPoint*> picks;
  std::vector<std::string> seen;
  for (const auto& p : r.ranked) {
    Mapping m = p.map;
    m.dp = 1;
    const std::string key = m.str() + std::string(name(p.weights)) + std::string(name(p.kv));
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    picks.push_back(&p);
    if (picks.size() == 5) break;
  }
  out.simulated_layouts = picks.size();
  for (const PlanPoint* pick : picks) {
    Mapping m = pick->map;
    m.dp = 1;
    if (ask.cancelled && ask.cancelled()) return Error{"request", "", "cancelled", ""};
    SimConfig c;
    c.decode = deployment_input(rq, m, pick->weights, pick->kv);
    if (rq.engine != nullptr) apply_engine(c.scheduler, *rq.engine);
    c.workload.isl = ask.isl.value_or(LengthDist::fixed(rq.isl));
    c.workload.osl = ask.osl.value_or(LengthDist::fixed(rq.osl));
    // The one capacity search simulate --find-rate runs (model.md §23.7), on as many requests.
    c.workload.requests = static_cast<long>(ask.sim_requests);
    c.slo = slo;
    c.cancelled = ask.cancelled;
    auto found = find_rate(c);
    if (!found) {
      if (found.error().what.rfind("cancelled", 0) == 0) return found.error();
      continue;  // a layout the simulator refuses (no KV room) is no option
    }
    if (found->rate.si() <= 0) continue;
    CapacityOption o;
    o.map = m;
    o.weights = pick->weights;
    o.kv = pick->kv;
    o.rate_per_replica = found->rate;
    o.replicas = std::ceil(ask.rate / o.rate_per_replica);
    o.chips = o.replicas * m.replica_chips();
    o.cost = rq.hw->price.value * o.chips;
    o.ttft_p99 = found->at.ttft.p99;
    o.tpot_p99 = found->at.tpot.p99;
    o.batch_mean = found->at.batch.mean;
    out.options.push_back(o);
  }
  std::stable_sort(out.options.begin(), out.options.end(),
                   [](const CapacityOption& x, const CapacityOption& y) { return x.cost < y.cost; });
  return out;
}

}  // namespace llmecon
