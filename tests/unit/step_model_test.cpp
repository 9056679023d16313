// The per-operator step model (model.md §18): golden steps with their derivation, the bound each
// is labelled with, properties over the catalogs, and the serving-engine profiles.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>

#include "catalog/serving_engine.hpp"
#include "io/facade.hpp"
#include "parallel/parallel.hpp"
#include "roofline/roofline.hpp"
#include "simulate_fixture.hpp"
#include "test_catalogs.hpp"

namespace llmecon {
namespace {
using testing_catalogs::families;
using testing_catalogs::hw;
using testing_catalogs::models;

RooflineResult step(const ModelSpec& m, const char* chip, int chips, Step s, bool ideal = false) {
  RooflineInput in;
  in.model = &m;
  in.hw = hw().find(chip);
  in.chips = chips;
  in.step = s;
  in.precision = Precision::native(m);
  if (!ideal) in.eff = efficiency_for(*in.hw, families());
  auto r = roofline(in);
  EXPECT_TRUE(r) << r.error().message();
  return *r;
}

TEST(StepModel, Llama70bBatch1IsAWeightStreamDerivedByHand) {
  // Llama-3.1-70B on 8 H100, batch 1 at 4096 tokens: every kernel is memory-bound, so the step is
  // Σ over kernels of (bytes + b½) / (W · e_m), plus a launch per kernel and a fixed cost; b½ is
  // memory_half, or kv_half for the attention kernels, which read mostly KV.
  const ModelSpec m = models().load("llama-3.1-70b").value();
  const RooflineResult r = step(m, "h100-sxm", 8, Step{Phase::kDecode, 1, 1, 4096});
  const Efficiency e = efficiency_for(*hw().find("h100-sxm"), families());
  double bytes = 0, launches = 0;
  int attention = 0;
  for (const Kernel& k : r.cost.kernels) {
    const double b = (k.weights.si() + k.kv.si() + k.act.si()) / 8;
    const bool kv = k.kv.si() > k.weights.si() + k.act.si();
    attention += kv ? 1 : 0;
    bytes += k.count * (b + (kv ? e.kv_half : e.memory_half).si());
    launches += k.count;
  }
  EXPECT_EQ(attention, 1);  // the attention core, merged over the 80 identical layers
  const double w = 3.35e12 * e.memory;
  EXPECT_NEAR(r.ops.busy.si(), bytes / w, 1e-12);
  launches += e.layer_kernels * m.n_layers();
  EXPECT_DOUBLE_EQ(r.ops.kernels, launches);
  EXPECT_NEAR(r.t_step.si(), bytes / w + launches * e.kernel_overhead.si() + e.step_overhead.si(), 1e-12);
  EXPECT_EQ(r.bound, Bound::kWeights);
  // About 9.1 ms: 139 GB of weights at 3.0 TB/s per chip is 5.8 ms, plus kernel sizes (each layer's
  // attention kernel reads 2 MB of KV per chip, far below its 50 MB ramp: 17 us each), and launches.
  EXPECT_NEAR(r.t_step.si() * 1e3, 9.1, 0.1);
}

TEST(StepModel, BoundLabelsFollowThePhysics) {
  const ModelSpec llama = models().load("llama-3.1-70b").value();
  for (double b : {1.0, 64.0})
    EXPECT_EQ(step(llama, "h100-sxm", 8, Step{Phase::kDecode, b, 1, 4096}).bound, Bound::kWeights) << b;
  // Batch 1024 at 4096 tokens: the KV read (1024 x 1.34 GB / 8) outweighs the weights.
  EXPECT_EQ(step(llama, "h100-sxm", 8, Step{Phase::kDecode, 1024, 1, 4096}).bound, Bound::kKv);
  // A large prefill is compute: 8 prompts of 8192 tokens.
  EXPECT_EQ(step(llama, "h100-sxm", 8, Step{Phase::kPrefill, 8, 8192, 0}).bound, Bound::kCompute);
  // Long context: 64 sequences at 128k tokens read 64 x 42 GB of KV.
  EXPECT_EQ(step(llama, "h100-sxm", 8, Step{Phase::kDecode, 64, 1, 131072}).bound, Bound::kKv);

  const ModelSpec ds = models().load("deepseek-v3").value();
  EXPECT_EQ(step(ds, "gb200", 72, Step{Phase::kDecode, 1, 1, 4096}).bound, Bound::kWeights);
  EXPECT_EQ(step(ds, "gb200", 72, Step{Phase::kPrefill, 16, 8192, 0}).bound, Bound::kCompute);
  const ModelSpec oss = models().load("gpt-oss-120b").value();
  EXPECT_EQ(step(oss, "b200", 1, Step{Phase::kDecode, 1, 1, 4096}).bound, Bound::kWeights);
  EXPECT_EQ(step(oss, "b200", 1, Step{Phase::kPrefill, 4, 8192, 0}).bound, Bound::kCompute);
}

TEST(StepModel, NoBatch1DecodeIsComputeBoundOnAnyChip) {
  int checked = 0;
  for (const char* name : {"llama-3.1-8b", "llama-3.1-70b", "deepseek-v3", "gpt-oss-120b", "qwen3-30b-a3b"}) {
    const ModelSpec m = models().load(name).value();
    for (const Hardware& h : hw().all()) {
      RooflineInput in;
      in.model = &m;
      in.hw = &h;
      in.chips = h.domain_size;
      in.step = Step{Phase::kDecode, 1, 1, 4096};
      in.precision = Precision::native(m);
      in.eff = efficiency_for(h, families());
      const RooflineResult r = roofline_unchecked(in);
      EXPECT_NE(r.bound, Bound::kCompute) << name << " on " << h.name;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

// A random catalog model (kept in `m`) on a random chip: up to `max_chips` of them, or the whole
// domain when 0; native formats, pure roofline.
RooflineInput random_model_on_chip(ModelSpec& m, int max_chips) {
  const auto& cat = models().entries();
  m = models().load(cat[*rc::gen::inRange<std::size_t>(0, cat.size())].name).value();
  const Hardware& h = hw().all()[*rc::gen::inRange<std::size_t>(0, hw().all().size())];
  RooflineInput in;
  in.model = &m;
  in.hw = &h;
  in.chips = max_chips > 0 ? *rc::gen::inRange(1, std::min(h.domain_size, max_chips) + 1) : h.domain_size;
  in.precision = Precision::native(m);
  return in;
}

TEST(StepModel, PerOperatorSumIsNeverBelowThePooledRoofline) {
  EXPECT_TRUE(rc::check([] {
    ModelSpec m;
    RooflineInput in = random_model_on_chip(m, 72);
    const Hardware& h = *in.hw;
    const bool prefill = *rc::gen::arbitrary<bool>();
    in.step = Step{prefill ? Phase::kPrefill : Phase::kDecode, static_cast<double>(*rc::gen::inRange(1, 2049)),
                   prefill ? static_cast<double>(*rc::gen::inRange(1, 16385)) : 1.0,
                   static_cast<double>(*rc::gen::inRange(0, 131073))};
    const RooflineResult pure = roofline_unchecked(in);
    in.eff = efficiency_for(h, families());
    const RooflineResult real = roofline_unchecked(in);
    RC_ASSERT(real.t_step.si() >= pure.t_step.si() * (1 - 1e-12));
    if (in.eff.ideal()) return;  // a chip with no family is the pure roofline itself
    // The per-operator sum, with every efficiency at 1 and no fixed cost, is also a bound: Σ max ≥ max Σ.
    RC_ASSERT(real.ops.busy.si() >= std::max(real.t_compute.si(), (real.t_weights + real.t_kv).si()) * (1 - 1e-12));
  }));
}

TEST(StepModel, StepTimeIsMonotoneInBatchAndContext) {
  EXPECT_TRUE(rc::check([] {
    ModelSpec m;
    RooflineInput in = random_model_on_chip(m, 0);
    in.eff = efficiency_for(*in.hw, families());
    const double b = *rc::gen::inRange(1, 4096), c = *rc::gen::inRange(0, 100000);
    in.step = Step{Phase::kDecode, b, 1, c};
    const double t = roofline_unchecked(in).t_step.si();
    in.step.batch = b + *rc::gen::inRange(1, 512);
    RC_ASSERT(roofline_unchecked(in).t_step.si() >= t * (1 - 1e-12));
    // Chunked local attention reads fewer keys after each chunk boundary: not monotone in context.
    for (const Layer& l : m.layers)
      if (l.mixer == Mixer::kChunked) return;
    in.step.batch = b;
    in.step.cached = c + *rc::gen::inRange(1, 65536);
    RC_ASSERT(roofline_unchecked(in).t_step.si() >= t * (1 - 1e-12));
  }));
}

TEST(StepModel, EveryEfficiencyFractionLiesInZeroOne) {
  for (const auto& f : families()) {
    const Efficiency& e = f.eff;
    for (double m : {1.0, 3.0, 63.0, 64.0, 65.0, 1000.0, 1e6}) {
      for (double n : {0.0, 128.0, 1024.0, 65536.0}) {
        for (double k : {0.0, 1.0, 64.0, 768.0, 65536.0}) {
          for (double rate : {0.5, 1.0, 2.0, 4.0}) {
            const double c = e.compute_at(m, n, k, rate);
            EXPECT_GT(c, 0.0) << f.family;
            EXPECT_LE(c, 1.0) << f.family;
          }
        }
      }
    }
    for (double b : {1.0, 1e6, 1e9}) {
      const double mem = e.memory_at(units::bytes(b));
      EXPECT_GT(mem, 0.0) << f.family;
      EXPECT_LE(mem, 1.0) << f.family;
    }
  }
  // The tile arithmetic: 1 row of a 64-row tile computes at 1/64 of the large-GEMM rate (a chosen
  // tile size, not a catalog's).
  Efficiency e;
  e.compute = 0.8;
  e.tile_m = 64;
  EXPECT_DOUBLE_EQ(e.compute_at(1, 1024), 0.8 / 64);
  EXPECT_DOUBLE_EQ(e.compute_at(128, 1024), 0.8);
  // Wave quantization: 133 tiles on 132 units run in two waves.
  e.tile_n = 128;
  e.compute_units = 132;
  EXPECT_DOUBLE_EQ(e.compute_at(64, 133 * 128), 0.8 * 133 / 264);
  // The depth factor: a 16-bit GEMM as deep as k_half runs at half the rate; an FP8 one (twice
  // the rate per element) needs twice the depth for the same half.
  e.tile_n = 0;
  e.k_half = 245;
  EXPECT_DOUBLE_EQ(e.compute_at(128, 1024, 245), 0.4);
  EXPECT_DOUBLE_EQ(e.compute_at(128, 1024, 490, 2.0), 0.4);
  EXPECT_DOUBLE_EQ(e.compute_at(128, 1024, 3 * 245), 0.8 * 0.75);
  EXPECT_DOUBLE_EQ(e.compute_at(128, 1024, 0), 0.8);  // not a GEMM: no depth
  // A narrower format keeps only its share of the nominal speed-up; 16 bits and wider keep all.
  e.k_half = 0;
  e.narrow_speedup = 0.915;
  EXPECT_DOUBLE_EQ(e.compute_at(128, 1024, 4096, 2.0), 0.8 * 0.915);
  EXPECT_DOUBLE_EQ(e.compute_at(128, 1024, 4096, 1.0), 0.8);
  EXPECT_DOUBLE_EQ(e.compute_at(128, 1024, 4096, 0.5), 0.8);
}

TEST(StepModel, Fp8GemmsKeepTheMeasuredShareOfTheirSpeedup) {
  // Llama-3.1-70B prefill of 8 x 4096 tokens on one B300, weights and activations in FP8 against
  // BF16: the QKV, output, gate/up and down GEMMs are compute-bound, so their time falls by the
  // measured 1.83x (Transformer Engine, MXFP8 on B300), not the peaks' 2x (model.md §18.1).
  const ModelSpec m = models().load("llama-3.1-70b").value();
  const Hardware& chip = *hw().find("b300");
  const Efficiency e = efficiency_for(chip, families());
  EXPECT_DOUBLE_EQ(e.narrow_speedup, 0.915);
  const StepCost c = step_cost(m, Step{Phase::kPrefill, 8, 4096, 0}, Precision::native(m), ExpertTouch::kExpected);
  const ChipShare one{1, 1, 1, 1, 1, 1, 1, 1, 1};
  Precision bf16 = Precision::native(m), fp8 = bf16;
  bf16.weights = bf16.act = DType::kBf16;
  fp8.weights = fp8.act = DType::kFp8;
  const OperatorTimes a = operator_times(c, chip, bf16, e, one, m.n_layers(), true);
  const OperatorTimes b = operator_times(c, chip, fp8, e, one, m.n_layers(), true);
  ASSERT_EQ(a.detail.size(), b.detail.size());
  const double rate = chip.peak(DType::kFp8) / chip.peak(DType::kBf16);
  EXPECT_DOUBLE_EQ(rate, 2.0);
  int gemms = 0;
  for (std::size_t i = 0; i < a.detail.size(); ++i) {
    if (a.detail[i].kind != OpKind::kMlp && a.detail[i].kind != OpKind::kQkvProj) continue;
    EXPECT_NEAR(a.detail[i].compute / b.detail[i].compute, rate * 0.915, 1e-9) << name(a.detail[i].kind);
    ++gemms;
  }
  EXPECT_GE(gemms, 2);
}

TEST(StepModel, TensorParallelismSplitsTheDepthOfRowParallelGemms) {
  // Llama-3.1-70B prefill on 8 H100: the QKV and up/gate GEMMs keep their depth of 8192 and split
  // their columns; the attention output and the down projection keep their 8192 columns and split
  // their depths (8192 and 28672) eight ways.
  const ModelSpec m = models().load("llama-3.1-70b").value();
  const RooflineResult r = step(m, "h100-sxm", 8, Step{Phase::kPrefill, 1, 4096, 0});
  const Efficiency e = efficiency_for(*hw().find("h100-sxm"), families());
  const OperatorTimes ops = operator_times(r.cost, *hw().find("h100-sxm"), r.in.precision, e,
                                           ChipShare{8, 8, 1, 8, 8, 8, 8, 1, 1}, m.n_layers(), true);
  int seen = 0;
  for (const KernelTime& k : ops.detail) {
    if (k.kind == OpKind::kQkvProj) {
      EXPECT_DOUBLE_EQ(k.depth, 8192);
      EXPECT_DOUBLE_EQ(k.cols, (8192.0 + 2 * 1024) / 8);
      ++seen;
    }
    if (k.kind == OpKind::kOProj) {
      EXPECT_DOUBLE_EQ(k.depth, 8192.0 / 8);
      EXPECT_DOUBLE_EQ(k.cols, 8192);
      ++seen;
    }
    if (k.kind == OpKind::kMlp && k.cols == 8192) {
      EXPECT_DOUBLE_EQ(k.depth, 28672.0 / 8);
      ++seen;
    }
    if (k.kind == OpKind::kMlp && k.cols != 8192) {
      EXPECT_DOUBLE_EQ(k.depth, 8192);
      EXPECT_DOUBLE_EQ(k.cols, 2 * 28672.0 / 8);
      ++seen;
    }
    // The fraction each kernel reports is the one its compute time was taken at.
    if (k.rows > 0) {
      EXPECT_DOUBLE_EQ(k.fraction, e.compute_at(k.rows, k.cols, k.depth));
    }
  }
  EXPECT_EQ(seen, 4);
}

TEST(StepModel, RoutedExpertsCarryTheDepthOfTheirThreeGemms) {
  // Qwen3-30B-A3B: gate and up (2/3 of the FLOPs) at depth d = 2048, down at f_e = 768; the merged
  // record's depth gives the same compute time as the two at their own depths.
  const ModelSpec m = models().load("qwen3-30b-a3b").value();
  const RooflineResult r = step(m, "h100-sxm", 1, Step{Phase::kPrefill, 1, 4096, 0});
  bool found = false;
  for (const Kernel& k : r.cost.kernels) {
    if (k.kind != OpKind::kExperts) continue;
    found = true;
    const double h = 245, d = 2048, fe = 768;
    const double apart = 2.0 / 3.0 * (d + h) / d + 1.0 / 3.0 * (fe + h) / fe;  // 1 / fraction, each at its depth
    EXPECT_NEAR((k.depth + h) / k.depth, apart, 1e-12);
  }
  EXPECT_TRUE(found);
}

TEST(StepModel, ExpertTensorParallelismNarrowsTheExpertGemms) {
  // Mixtral-8x7B prefill on 8 H100 with each expert split over the 8 chips (expert tensor
  // parallelism, TensorRT-LLM's default): gate and up keep 2 x 14336 / 8 columns and the down
  // projection a depth of 14336 / 8, so the merged record's depth is 1 / (2 / (3 d) + 8 / (3 f_e)),
  // and the narrower GEMMs take longer at the same FLOPs than whole experts per chip.
  const ModelSpec m = models().load("mixtral-8x7b").value();
  const RooflineResult r = step(m, "h100-sxm", 8, Step{Phase::kPrefill, 1, 4096, 0});
  const Hardware& chip = *hw().find("h100-sxm");
  const Efficiency e = efficiency_for(chip, families());
  auto experts = [&](double etp) {
    const OperatorTimes ops =
        operator_times(r.cost, chip, r.in.precision, e, ChipShare{8, 8, 1, 8, 8, 8, 8, 1, etp}, m.n_layers(), true);
    for (const KernelTime& k : ops.detail)
      if (k.kind == OpKind::kExperts) return k;
    ADD_FAILURE() << "no expert kernel";
    return KernelTime{};
  };
  const KernelTime whole = experts(1), split = experts(8);
  const double d = 4096, fe = 14336;
  EXPECT_DOUBLE_EQ(whole.cols, 2 * fe);
  EXPECT_NEAR(whole.depth, 1 / (2 / (3 * d) + 1 / (3 * fe)), 1e-9);
  EXPECT_DOUBLE_EQ(split.cols, 2 * fe / 8);
  EXPECT_NEAR(split.depth, 1 / (2 / (3 * d) + 8 / (3 * fe)), 1e-9);
  EXPECT_GT(split.compute, whole.compute * 1.05);
  EXPECT_DOUBLE_EQ(split.fraction, e.compute_at(split.rows, split.cols, split.depth));
}

TEST(StepModel, FamiliesSayWhatIsFitted) {
  for (const auto& f : families()) {
    for (const auto& p : f.fitted) {
      EXPECT_TRUE(p == "memory_half" || p == "step_overhead" || p == "kernel_overhead" || p == "compute" ||
                  p == "memory" || p == "comm")
          << f.family << " " << p;
    }
  }
}

TEST(ServingEngines, ProfilesParseCiteAndDiffer) {
  auto engines = builtin_engines();
  ASSERT_TRUE(engines) << engines.error().message();
  std::vector<std::string> names;
  for (const auto& e : *engines) {
    names.push_back(e.name);
    if (e.name != "generic") {
      EXPECT_FALSE(e.sources.empty()) << e.name;
      EXPECT_FALSE(e.flags.empty()) << e.name;
      EXPECT_TRUE(e.launch.has_value()) << e.name;  // each real engine says how to launch it
    }
  }
  // In the order --engine lists them (src/CMakeLists.txt embeds them so).
  EXPECT_EQ(names,
            (std::vector<std::string>{"generic", "vllm", "vllm-v0", "sglang", "trtllm", "lmdeploy", "lmdeploy-v01"}));
  auto bad =
      parse_engine_toml("name = \"x\"\ndisplay_name = \"x\"\nnotes = \"\"\n[memory]\nrule = \"half\"\n", "x.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "memory.rule");
}

// A release line (model.md §18.4): vLLM's V0 engine is picked by the version a row or a user
// states, on dot boundaries ("0.6.3" is V0, "0.60" or "0.10.1" is not), else vLLM's own profile.
TEST(ServingEngines, AReleaseLineIsPickedByItsVersions) {
  const auto engines = builtin_engines().value();
  EXPECT_EQ(find_engine(engines, "vllm")->name, "vllm");
  EXPECT_EQ(find_engine(engines, "vllm", "0.6.3.post2.dev308+gb489fc3c")->name, "vllm-v0");
  EXPECT_EQ(find_engine(engines, "vllm", "0.7")->name, "vllm-v0");
  EXPECT_EQ(find_engine(engines, "vllm", "0.10.1.1")->name, "vllm");
  EXPECT_EQ(find_engine(engines, "vllm", "0.60")->name, "vllm");
  EXPECT_EQ(find_engine(engines, "vllm-v0")->name, "vllm-v0");
  EXPECT_EQ(find_engine(engines, "sglang", "0.6.3")->name, "sglang");  // versions bind their own engine
  EXPECT_EQ(find_engine(engines, "tgi", "0.6"), nullptr);
  EXPECT_EQ(find_engine(engines, "lmdeploy", "0.1.0a1 (TurboMind)")->name, "lmdeploy-v01");
  EXPECT_EQ(find_engine(engines, "lmdeploy", "0.2.0 (TurboMind)")->name, "lmdeploy");
  EXPECT_EQ(find_engine(engines, "lmdeploy")->memory_rule, MemoryRule::kKv);
  EXPECT_FALSE(find_engine(engines, "lmdeploy-v01")->chunked_prefill);
  const ServingEngine& v0 = *find_engine(engines, "vllm-v0");
  EXPECT_GT(v0.host_per_sequence.si(), 0);
  ASSERT_TRUE(v0.unchunked_schedule.has_value());
  EXPECT_EQ(*v0.unchunked_schedule, "prefill-first");
  EXPECT_EQ(v0.schedule, "decode-first");
  // A release line names both its engine and its versions.
  const std::string base = testing_catalogs::minimal_engine_profile();
  auto half = parse_engine_toml("engine = \"vllm\"\n" + base, "r.toml");
  ASSERT_FALSE(half);
  EXPECT_EQ(half.error().field, "versions");
  // Both schedule keys take a schedule policy's name (the registry, a layer above, is checked when
  // a simulation starts), and name themselves when the text cannot be one.
  std::string odd = base;
  odd.insert(odd.find("[kv]"), "unchunked_schedule = \"Side ways\"\n");
  auto sideways = parse_engine_toml(odd, "r.toml");
  ASSERT_FALSE(sideways);
  EXPECT_EQ(sideways.error().field, "batching.unchunked_schedule");
  odd = base;
  odd.insert(odd.find("[kv]"), "schedule = \"prefill first\"\n");
  sideways = parse_engine_toml(odd, "r.toml");
  ASSERT_FALSE(sideways);
  EXPECT_EQ(sideways.error().field, "batching.schedule");
  auto slow = parse_engine_toml(base + "host_per_sequence = \"20 ms\"\n", "r.toml");
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.error().field, "overhead.host_per_sequence");
}

// Host time per sequence (model.md §18.4): a step of Llama-3.1-8B on one H100 costs the engine's
// per-sequence time for each sequence it holds, on the scheduler of the rank that holds them.
TEST(ServingEngines, HostTimePerSequenceGrowsWithTheBatch) {
  const ModelSpec m = models().load("llama-3.1-8b").value();
  DeploymentInput in;
  in.model = &m;
  in.hw = hw().find("h100-sxm");
  in.precision = Precision::with_weights(m, DType::kBf16, DType::kBf16, DType::kBf16);
  const Seconds t64 = evaluate_decode(in, 64, 1024).latency, t128 = evaluate_decode(in, 128, 1024).latency;
  in.host_per_sequence = units::seconds(40e-6);
  EXPECT_NEAR((evaluate_decode(in, 64, 1024).latency - t64).si(), 64 * 40e-6, 1e-9);
  EXPECT_NEAR((evaluate_decode(in, 128, 1024).latency - t128).si(), 128 * 40e-6, 1e-9);
}

TEST(ServingEngines, TheFreeMemoryRuleLeavesMoreRoomForKv) {
  // Llama-3.1-70B at fp8 on one H100: 90% of all 80 GB leaves 1.5 GB for KV; 90% of what the 70.6 GB
  // of weights leave gives 8.5 GB.
  const Bytes hbm = units::bytes(80e9), weights = units::bytes(70.6e9);
  EXPECT_NEAR((usable_memory(hbm, weights, 0.9, MemoryRule::kTotal) - weights).si(), 1.4e9, 1e6);
  EXPECT_NEAR((usable_memory(hbm, weights, 0.9, MemoryRule::kFree) - weights).si(), 8.46e9, 1e6);
  // TurboMind's rule: the KV alone gets the fraction of all HBM, capped by what the weights leave.
  EXPECT_NEAR((usable_memory(hbm, units::bytes(13.5e9), 0.5, MemoryRule::kKv)).si(), 53.5e9, 1e6);
  EXPECT_NEAR((usable_memory(hbm, weights, 0.5, MemoryRule::kKv)).si(), 80e9, 1e6);
  const ModelSpec m = models().load("llama-3.1-70b").value();
  DeploymentInput in;
  in.model = &m;
  in.hw = hw().find("h100-sxm");
  in.precision = Precision::with_weights(m, DType::kFp8, DType::kFp8, DType::kFp8);
  const ServingEngine trt = parse_engine_toml(R"(name = "t"
display_name = "t"
notes = ""
[memory]
rule = "free"
fraction = 0.9
[batching]
max_seqs = 2048
max_batched_tokens = 8192
chunked_prefill = false
[kv]
fp8_checkpoint = "fp8"
[overhead]
host = "0 us"
cuda_graphs = true
)",
                                              "t.toml")
                                .value();
  EXPECT_FALSE(evaluate_decode(in, 16, 2176).feasible);  // the total rule: 16 sequences do not fit
  apply_engine(in, trt);
  EXPECT_TRUE(evaluate_decode(in, 16, 2176).feasible);
}

// An engine's sustained share of the GEMM rates (model.md §18.4) slows what computes and leaves a
// weight stream alone: a 2048-token prefill of Llama-3.1-8B on one H100 is compute-bound, so half
// the rate nearly doubles its compute time; a batch-1 decode step reads its weights in the same time.
TEST(ServingEngines, SustainedComputeScalesOnlyWhatComputes) {
  const std::string base = testing_catalogs::minimal_engine_profile();
  const ServingEngine e =
      parse_engine_toml(base + "[efficiency]\ncompute_sustained = 0.5\nsource = \"test\"\n", "s.toml").value();
  EXPECT_DOUBLE_EQ(e.compute_sustained, 0.5);
  EXPECT_DOUBLE_EQ(parse_engine_toml(base, "s.toml").value().compute_sustained, 1.0);  // absent: no loss
  auto no_source = parse_engine_toml(base + "[efficiency]\ncompute_sustained = 0.5\n", "s.toml");
  ASSERT_FALSE(no_source);
  EXPECT_EQ(no_source.error().field, "efficiency.source");
  auto too_big = parse_engine_toml(base + "[efficiency]\ncompute_sustained = 1.5\nsource = \"x\"\n", "s.toml");
  ASSERT_FALSE(too_big);

  const ModelSpec m = models().load("llama-3.1-8b").value();
  auto run = [&](Step s, bool engine, bool ideal = false) {
    RooflineInput in;
    in.model = &m;
    in.hw = hw().find("h100-sxm");
    in.chips = 1;
    in.step = s;
    in.precision = Precision::native(m);
    if (!ideal) in.eff = efficiency_for(*in.hw, families());
    if (engine) apply_engine(in, e);
    return roofline(in).value();
  };
  const Step prefill{Phase::kPrefill, 1, 2048, 0};
  const RooflineResult fast = run(prefill, false), slow = run(prefill, true);
  EXPECT_EQ(fast.bound, Bound::kCompute);
  EXPECT_NEAR(slow.t_compute / fast.t_compute, 2.0, 1e-9);  // every kernel's compute term halves its rate
  EXPECT_GT(slow.t_step / fast.t_step, 1.6);
  EXPECT_DOUBLE_EQ(slow.compute_sustained, 0.5);
  EXPECT_DOUBLE_EQ(slow.in.compute_sustained, 1.0);  // applied once: the result can be costed again
  EXPECT_NEAR(roofline(slow.in).value().t_step.si(), slow.t_step.si(), 1e-15);
  const Step decode{Phase::kDecode, 1, 1, 4096};
  const RooflineResult d_fast = run(decode, false), d_slow = run(decode, true);
  EXPECT_EQ(d_slow.bound, Bound::kWeights);
  EXPECT_NEAR(d_slow.t_step / d_fast.t_step, 1.0, 0.02);  // a weight stream: the GEMM rate barely matters
  // The pure roofline stays pure.
  EXPECT_DOUBLE_EQ(run(prefill, true, true).t_step.si(), run(prefill, false, true).t_step.si());

  // The deployment model (what simulate and validate cost) applies the same share.
  DeploymentInput din;
  din.model = &m;
  din.hw = hw().find("h100-sxm");
  din.precision = Precision::native(m);
  din.eff = efficiency_for(*din.hw, families());
  const SeqGroup pass{Phase::kPrefill, 1, 2048, 0};
  const double before = iteration_time(din, std::span<const SeqGroup>(&pass, 1)).time.si();
  apply_engine(din, e);
  const double after = iteration_time(din, std::span<const SeqGroup>(&pass, 1)).time.si();
  EXPECT_GT(after / before, 1.6);
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

// The JAX scaling book's worked example (https://jax-ml.github.io/scaling-book/inference/): LLaMA-3-70B
// with int8 weights and an int8 KV cache, batch 32 at 8192 tokens on 8 TPU v5e, about 17 ms per
// step on the pure roofline. The per-operator model adds what kernels lose (memory at 0.9 of peak,
// small-kernel ramp, launches) and stays within a third of it.
TEST(StepModel, ScalingBookTpuV5eExample) {
  static const Engine engine = Engine::open({}).value();
  const Json args{{"model", "llama-3.1-70b"}, {"hw", "tpu-v5e"},        {"chips", 8},        {"batch", 32},
                  {"context", 8192},          {"weight_dtype", "int8"}, {"kv_dtype", "int8"}};
  Json ideal_args = args;
  ideal_args["ideal"] = true;
  auto ideal = engine.run("roofline", ideal_args);
  auto real = engine.run("roofline", args);
  ASSERT_TRUE(ideal && real);
  EXPECT_NEAR((*ideal)["t_step_s"].get<double>() * 1e3, 17.0, 0.35);
  const double t = (*real)["t_step_s"].get<double>() * 1e3;
  EXPECT_GT(t, (*ideal)["t_step_s"].get<double>() * 1e3);
  EXPECT_LT(t, 17.0 * 1.35);
  EXPECT_EQ((*real)["bound"], "weights");
}

}  // namespace
}  // namespace llmecon
