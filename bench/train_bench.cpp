// The training layout search's speed (Google Benchmark): Llama-3.1-405B on 16,384 H100s and
// DeepSeek-V3 on 16,384 and 1,024 GB200s, every layout of model.md §24.6 (budget: 0.4 s on one
// core), and one layout's evaluation.
#include <benchmark/benchmark.h>

#include "train/train.hpp"

namespace {
using namespace llmecon;

struct TrainBenchSetup {
  HardwareCatalog hw = HardwareCatalog::builtin().value();
  ModelCatalog models = ModelCatalog::builtin().value();
  std::vector<FamilyEfficiency> eff = builtin_efficiency().value();
  ModelSpec llama = models.load("llama-3.1-405b").value();
  ModelSpec dsv3 = models.load("deepseek-v3").value();
  TrainSetup setup() const {
    TrainSetup s;
    s.model = &llama;
    s.hw = hw.find("h100-sxm");
    s.eff = efficiency_for(*s.hw, eff);
    s.price = s.hw->price.value;
    s.seq_len = 8192;
    s.global_batch = 2048;
    s.tokens = 15e12;
    return s;
  }
};
const TrainBenchSetup& bench_setup() {
  static const TrainBenchSetup s;
  return s;
}

void BM_TrainSearch16k(benchmark::State& state) {
  const TrainSetup s = bench_setup().setup();
  for (auto _ : state) {
    const TrainSearch r = search_training(s, 16384, TrainObjective::kTime, TrainSearchSpace{}, 10);
    benchmark::DoNotOptimize(r.evaluated);
    state.counters["layouts"] = r.evaluated;
  }
}
BENCHMARK(BM_TrainSearch16k)->Unit(benchmark::kMillisecond);

// DeepSeek-V3 on GB200 (train's default model and chip): 4k sequences, 4,096 a step, FP8.
void BM_TrainSearchMoE(benchmark::State& state) {
  TrainSetup s = bench_setup().setup();
  s.model = &bench_setup().dsv3;
  s.hw = bench_setup().hw.find("gb200");
  s.eff = efficiency_for(*s.hw, bench_setup().eff);
  s.price = s.hw->price.value;
  s.seq_len = 4096;
  s.global_batch = 4096;
  s.gemm = DType::kFp8;
  for (auto _ : state) {
    const TrainSearch r =
        search_training(s, static_cast<int>(state.range(0)), TrainObjective::kTime, TrainSearchSpace{}, 10);
    benchmark::DoNotOptimize(r.evaluated);
    state.counters["layouts"] = r.evaluated;
  }
}
BENCHMARK(BM_TrainSearchMoE)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);

void BM_TrainOneLayout(benchmark::State& state) {
  const TrainSetup s = bench_setup().setup();
  const TrainLayout l{8, 16, 1, 1, 128, 1, Recompute::kSelective, PipeSchedule::k1F1B, 1, 1};
  for (auto _ : state) benchmark::DoNotOptimize(evaluate_training(s, l).time.step);
}
BENCHMARK(BM_TrainOneLayout)->Unit(benchmark::kMicrosecond);

}  // namespace
