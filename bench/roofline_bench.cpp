// Roofline evaluations per second (Google Benchmark). Run: build/release/bench/llmecon_bench
#include <benchmark/benchmark.h>

#include "io/facade.hpp"
#include "io/grid.hpp"
#include "roofline/roofline.hpp"

namespace {
using namespace llmecon;

struct Setup {
  HardwareCatalog hw = HardwareCatalog::builtin().value();
  ModelCatalog models = ModelCatalog::builtin().value();
  std::vector<FamilyEfficiency> families = builtin_efficiency().value();
};
const Setup& setup() {
  static const Setup s;
  return s;
}

// The pure roofline (F1) by default; with `per_operator`, the chip's efficiency family (model.md §18).
void roofline_eval(benchmark::State& state, const char* model, const char* chip, bool per_operator) {
  const ModelSpec m = setup().models.load(model).value();
  RooflineInput in;
  in.model = &m;
  in.hw = setup().hw.find(chip);
  if (per_operator) in.eff = efficiency_for(*in.hw, setup().families);
  in.chips = in.hw->domain_size;
  in.step = Step{Phase::kDecode, 256, 1, 8192};
  in.precision = Precision::native(m);
  double batch = 1;
  for (auto _ : state) {
    in.step.batch = batch;
    batch = batch < 4096 ? batch + 1 : 1;
    RooflineResult r = roofline_unchecked(in);
    benchmark::DoNotOptimize(r.t_step);
  }
  state.counters["evals_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(roofline_eval, deepseek_v3_gb200, "deepseek-v3", "gb200", false);
BENCHMARK_CAPTURE(roofline_eval, llama_3_1_70b_h100, "llama-3.1-70b", "h100-sxm", false);
BENCHMARK_CAPTURE(roofline_eval, gpt_oss_120b_b200, "gpt-oss-120b", "b200", false);
BENCHMARK_CAPTURE(roofline_eval, per_operator_deepseek_v3_gb200, "deepseek-v3", "gb200", true);
BENCHMARK_CAPTURE(roofline_eval, per_operator_llama_3_1_70b_h100, "llama-3.1-70b", "h100-sxm", true);
BENCHMARK_CAPTURE(roofline_eval, per_operator_gpt_oss_120b_b200, "gpt-oss-120b", "b200", true);

// The whole JSON path a CLI or server request takes: parse arguments, load the model, evaluate.
void facade_roofline(benchmark::State& state) {
  static const Engine e = Engine::open({}).value();
  const Json args{{"model", "deepseek-v3"}, {"hw", "gb200"}, {"batch", 256}, {"context", 8192}};
  for (auto _ : state) {
    auto r = e.roofline(args);
    benchmark::DoNotOptimize(r.ok());
  }
}
BENCHMARK(facade_roofline);

// A roofline grid of 10^5 points (batch x context) into columns on 1 and 2 threads (io/grid.hpp): the
// C++ side of llmecon.grid; bench/python_grid.py times the DataFrame around it.
void grid_roofline(benchmark::State& state) {
  static const Engine e = Engine::open({}).value();
  GridRequest g;
  g.command = "roofline";
  g.fixed = Json{{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}};
  Json batches = Json::array();
  for (int b = 1; b <= 20000; ++b) batches.push_back(b);
  g.axes = {{"batch", batches}, {"context", Json{1024, 4096, 16384, 65536, 131072}}};
  g.threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    auto t = run_grid(e, g);
    benchmark::DoNotOptimize(t.ok());
  }
  state.counters["points_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 1e5, benchmark::Counter::kIsRate);
}
BENCHMARK(grid_roofline)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void model_parse(benchmark::State& state) {
  for (auto _ : state) {
    auto m = setup().models.load("deepseek-v3");
    benchmark::DoNotOptimize(m.ok());
  }
}
BENCHMARK(model_parse);

}  // namespace

BENCHMARK_MAIN();
