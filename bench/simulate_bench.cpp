// The serving simulator's speed (Google Benchmark): 10^6 chat-like requests through one replica
// of Llama-3.1-70B on 8 H100, the rate search on the same setup, and the mixed-batch step it
// memoizes (model.md §23).
#include <benchmark/benchmark.h>

#include "simulate/simulate.hpp"

namespace {
using namespace llmecon;

struct SimSetup {
  HardwareCatalog hw = HardwareCatalog::builtin().value();
  ModelCatalog models = ModelCatalog::builtin().value();
  std::vector<FamilyEfficiency> eff = builtin_efficiency().value();
  ModelSpec llama = models.load("llama-3.1-70b").value();
};
const SimSetup& sim_setup() {
  static const SimSetup s;
  return s;
}

SimConfig chat(long requests, double rate) {
  const SimSetup& s = sim_setup();
  SimConfig c;
  c.decode.model = &s.llama;
  c.decode.hw = s.hw.find("h100-sxm");
  c.decode.map = Mapping{.tp = 8};
  c.decode.precision = Precision::native(s.llama);
  c.decode.eff = efficiency_for(*c.decode.hw, s.eff);
  c.scheduler.max_batched_tokens = 8192;
  c.scheduler.max_seqs = 1024;
  // The Azure 2023 conversation trace's lengths (data/workloads/azure-chat-2023.toml).
  c.workload.isl = LengthDist{LengthKind::kLognormal, 1155, 0.498};
  c.workload.osl = LengthDist{LengthKind::kLognormal, 211, 0.992};
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(rate)};
  c.workload.requests = requests;
  return c;
}

// 10^6 requests at 13 req/s (the largest rate under TTFT p99 < 2 s and TPOT p99 < 50 ms).
void simulate_million_requests(benchmark::State& state) {
  const SimConfig c = chat(1'000'000, 13);
  long iterations = 0, completed = 0;
  for (auto _ : state) {
    const SimResult r = simulate(c).value();
    iterations = r.iterations;
    completed = r.completed;
    benchmark::DoNotOptimize(r.ttft.p99);
  }
  state.counters["requests_per_s"] =
      benchmark::Counter(static_cast<double>(completed * state.iterations()), benchmark::Counter::kIsRate);
  state.counters["iterations_per_s"] =
      benchmark::Counter(static_cast<double>(iterations * state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(simulate_million_requests)->Unit(benchmark::kSecond)->Iterations(1);

// The largest rate under TTFT p99 < 2 s and TPOT p99 < 50 ms, on the same setup.
void simulate_find_rate(benchmark::State& state) {
  SimConfig c = chat(1'000'000, 20);
  c.slo = parse_slo("ttft_p99=2s,tpot_p99=50ms", "--slo").value();
  double rate = 0;
  for (auto _ : state) {
    const RateSearch r = find_rate(c).value();
    rate = r.rate.si();
  }
  state.counters["found_rate"] = rate;
}
BENCHMARK(simulate_find_rate)->Unit(benchmark::kSecond)->Iterations(1);

// One mixed iteration costed afresh (what the memo saves): 64 decodes and a 2048-token chunk.
void mixed_iteration_eval(benchmark::State& state) {
  const SimConfig c = chat(1, 1);
  std::size_t i = 0;
  for (auto _ : state) {
    const SeqGroup g[2] = {{Phase::kDecode, 64, 1, 1500.0 + static_cast<double>(i % 64)},
                           {Phase::kPrefill, 1, 2048, 0}};
    benchmark::DoNotOptimize(iteration_time(c.decode, std::span<const SeqGroup>(g, 2)).time);
    ++i;
  }
}
BENCHMARK(mixed_iteration_eval);

}  // namespace
