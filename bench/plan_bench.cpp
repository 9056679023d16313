// Deployment step evaluations per second and full-plan wall time (Google Benchmark).
#include <benchmark/benchmark.h>

#include "plan/plan.hpp"

namespace {
using namespace llmecon;

struct Setup {
  HardwareCatalog hw = HardwareCatalog::builtin().value();
  ModelCatalog models = ModelCatalog::builtin().value();
  ModelSpec ds = models.load("deepseek-v3").value();
};
const Setup& setup() {
  static const Setup s;
  return s;
}

// One deployment step evaluation: a mapping, batch and context on cached step costs, the unit a
// search repeats (model.md §17.2).
void deployment_step_eval(benchmark::State& state) {
  const Setup& s = setup();
  StepCostCache cache;
  const auto maps = candidate_mappings(s.ds, 72, 2048);
  DeploymentInput in;
  in.model = &s.ds;
  in.hw = s.hw.find("gb200");
  in.precision = Precision::native(s.ds);
  in.cache = &cache;
  std::size_t i = 0;
  for (auto _ : state) {
    in.map = maps[i % maps.size()];
    const double batch = static_cast<double>(1u << (i % 12)) * in.map.pp;
    PhaseResult r = evaluate_decode(in, batch, 2176);
    benchmark::DoNotOptimize(r.latency);
    ++i;
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(deployment_step_eval);

// A full plan: every mapping x batch x format for deepseek-v3 on 72 gb200.
void full_plan(benchmark::State& state) {
  const Setup& s = setup();
  PlanRequest rq;
  rq.model = &s.ds;
  rq.hw = s.hw.find("gb200");
  rq.chips = 72;
  rq.isl = 2048;
  rq.osl = 256;
  rq.threads = static_cast<int>(state.range(0));
  long evaluated = 0;
  for (auto _ : state) {
    PlanResult r = plan(rq);
    evaluated = r.evaluated;
    benchmark::DoNotOptimize(r.best);
  }
  state.counters["configs"] = static_cast<double>(evaluated);
}
BENCHMARK(full_plan)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
