// The blackboard analyses: closed forms, the properties issue #3 names, and price round trips.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>

#include "economics/economics.hpp"
#include "economics/pricing.hpp"
#include "test_catalogs.hpp"

namespace llmecon {
namespace {
using namespace units;

using testing_catalogs::hw;
using testing_catalogs::models;

// A board on a random catalog chip with random (but valid) model numbers.
Board random_board() {
  const auto& chips = hw().all();
  const Hardware& h = chips[*rc::gen::inRange<std::size_t>(0, chips.size())];
  Board b;
  b.hardware = h.name;
  b.chips = *rc::gen::inRange(1, std::min(h.domain_size, 72) + 1);
  b.n_active = *rc::gen::inRange(1, 400) * 1e9;
  b.n_total = b.n_active * *rc::gen::inRange(1, 64);
  b.bytes_per_param = *rc::gen::element(0.5, 1.0, 2.0);
  b.kv = bytes_per_token(*rc::gen::inRange(500, 400000));
  b.top_k = *rc::gen::inRange(1, 17);
  b.flops = h.peak(DType::kBf16) * static_cast<double>(b.chips);
  b.mem_bw = h.hbm_bandwidth.value * static_cast<double>(b.chips);
  b.hbm = h.hbm_capacity.value * static_cast<double>(b.chips);
  b.price = h.price.value * static_cast<double>(b.chips);
  b.scale_up_bw = h.scale_up.bandwidth;
  b.scale_out_bw = h.scale_out.bandwidth;
  b.tiers = h.host_tiers;
  return b;
}

TEST(Economics, BatchClosedForms) {
  const ModelSpec m = models().load("llama-3.1-70b").value();
  const Board b = board_from(m, *hw().find("h100-sxm"), 8, Precision{});
  const Analysis a = batch_analysis(b, 0);
  // R = 8 x 989.4 TFLOP/s x 2 B / (2 x 8 x 3.35 TB/s) = 295.34.
  EXPECT_NEAR(a.get("r"), 989.4e12 * 2 / (2 * 3.35e12), 1e-9);
  EXPECT_NEAR(a.get("b_star"), a.get("r") * a.get("sparsity"), 1e-9);
  EXPECT_NEAR(a.get("latency_floor_s"), m.params_total() * 2 / (8 * 3.35e12), 1e-12);
  // With KV the balance batch grows (F6 with KV) and stays finite below the crossover.
  const Analysis k = batch_analysis(b, 1000);
  EXPECT_GT(k.get("b_star_kv"), a.get("b_star"));
  EXPECT_TRUE(std::isfinite(k.get("b_star_kv")));
  // Past the crossover no batch balances compute.
  const double cross = context_analysis(b, 1, 0, 2048, 0, 64).get("crossover_context");
  EXPECT_TRUE(std::isinf(batch_analysis(b, 2 * cross).get("b_star_kv")));
}

TEST(Economics, OptimalBatchScalesWithSparsityNotScale) {
  EXPECT_TRUE(rc::check([] {
    Board b = random_board();
    const double bstar = batch_analysis(b, 0).get("b_star");
    Board bigger = b;  // same sparsity, k times the parameters
    const double k = *rc::gen::inRange(2, 50);
    bigger.n_total *= k;
    bigger.n_active *= k;
    RC_ASSERT(std::fabs(batch_analysis(bigger, 0).get("b_star") - bstar) <= 1e-9 * bstar);
    Board sparser = b;  // k times the sparsity
    sparser.n_total *= k;
    RC_ASSERT(std::fabs(batch_analysis(sparser, 0).get("b_star") - k * bstar) <= 1e-9 * k * bstar);
  }));
}

TEST(Economics, KvPerChipIndependentOfPipelineStages) {
  // F21: with B = P x b, each chip holds b x c x kv / E whatever P is.
  EXPECT_TRUE(rc::check([] {
    const Board b = random_board();
    const double micro = *rc::gen::inRange(1, 5000);
    const double ctx = *rc::gen::inRange(1, 200000);
    const Analysis a = layout_analysis(b, ctx, micro, 2, 4, 1);
    const Table* t = a.table("memory_per_chip");
    RC_ASSERT(t != nullptr);
    const double kv1 = t->rows.front()[2].value;
    RC_ASSERT(std::fabs(kv1 - micro * ctx * b.kv.si() / b.chips) <= 1e-9 * kv1);
    for (const auto& r : t->rows) {
      RC_ASSERT(std::fabs(r[2].value - kv1) <= 1e-9 * kv1);
      RC_ASSERT(std::fabs(r[1].value - b.weight_bytes().si() / (b.chips * r[0].value)) <= 1e-6 * r[1].value);
    }
  }));
}

TEST(Economics, CacheTierChoiceIsMonotoneInHoldTime) {
  // Holding longer never picks a tier that is dearer to hold (the lower envelope of lines).
  EXPECT_TRUE(rc::check([] {
    const Board b = random_board();
    const auto tiers = tier_costs(b);
    double last_rate = std::numeric_limits<double>::infinity();
    std::size_t last_index = 0;
    for (double hold = 1e-3; hold < 1e8; hold *= 1.7) {
      const std::size_t i = best_tier(tiers, seconds(hold));
      RC_ASSERT(tiers[i].hold_rate.si() <= last_rate);
      RC_ASSERT(i >= last_index);  // catalog tiers are ordered hbm, ddr, flash, disk, recompute
      last_rate = tiers[i].hold_rate.si();
      last_index = i;
    }
  }));
}

TEST(Economics, CacheTiersOnBlackboard) {
  Board b = board_from(models().load("deepseek-v3").value(), *hw().find("blackboard"), 64, Precision{});
  const auto tiers = tier_costs(b);
  ASSERT_EQ(tiers.size(), 5u);
  EXPECT_EQ(tiers.front().name, "hbm");
  EXPECT_EQ(tiers.back().name, "recompute");
  EXPECT_DOUBLE_EQ(tiers.back().hold_rate.si(), 0.0);
  EXPECT_NEAR(tiers[1].drain.si(), 5.0, 1e-9);   // DDR 500 GB / 100 GB/s
  EXPECT_NEAR(tiers[2].drain.si(), 60.0, 1e-9);  // flash 3.84 TB / 64 GB/s
  EXPECT_EQ(tiers[drain_rule_tier(tiers, minutes(5))].name, "flash");
  EXPECT_EQ(tiers[drain_rule_tier(tiers, hours(1))].name, "disk");
  // Recompute wins for very long holds: nothing to pay while waiting.
  EXPECT_EQ(tiers[best_tier(tiers, seconds(1e12))].name, "recompute");
}

TEST(Economics, PriceRoundTrip) {
  // inverse(forward(x)) ~ x: the decode MFU and the KV bytes per token come back.
  EXPECT_TRUE(rc::check([] {
    const Board b = random_board();
    const double bstar = b.R() * b.S();
    const double ctx = std::max(4 * bstar, 1024.0);  // a prompt long enough to be compute-bound
    const double batch = *rc::gen::inRange(1, 20000);
    const Analysis fwd = price_forward(b, ctx, batch);
    PriceSheet s;
    s.provider = "synthetic";
    s.model = "x";
    s.date = "today";
    s.input = usd_per_mtok(fwd.get("usd_per_mtok_input"));
    s.output = usd_per_mtok(fwd.get("usd_per_mtok_output"));
    s.long_context_threshold = fwd.get("long_context_knee");
    s.long_input = s.input * 2.0;
    s.long_output = s.output * 1.5;
    const Analysis inv = price_inverse(s, b, b.n_active);
    RC_ASSERT(std::fabs(inv.get("decode_mfu") - fwd.get("decode_mfu")) <= 1e-9 * fwd.get("decode_mfu"));
    RC_ASSERT(std::fabs(inv.get("kv_bytes_per_token") - b.kv.si()) <= 1e-9 * b.kv.si());
  }));
}

TEST(Economics, MfuHalvesAtTwiceTheCrossover) {
  // F10: above len*, MFU ~ len*/len once weights are amortized (large B).
  const Board b = board_from(models().load("llama-3.1-70b").value(), *hw().find("h100-sxm"), 8, Precision{});
  const double cross = context_analysis(b, 1, 0, 2048, 0, 64).get("crossover_context");
  const double B = 1e7;
  EXPECT_NEAR(b.t_compute(B) / b.t_step(B, 2 * cross), 0.5, 1e-3);
}

TEST(Economics, FastModeSolvesTheRoofline) {
  const Board b = board_from(models().load("deepseek-v3").value(), *hw().find("gb200"), 72,
                             Precision{DType::kFp8, DType::kFp8, DType::kFp8, DType::kBf16});
  const Analysis a = fast_mode_analysis(b, 65536, 6, 2.5);
  ASSERT_EQ(a.get("consistent"), 1.0);
  const double bstd = a.get("b_std");
  EXPECT_NEAR(b.t_step(bstd, 65536).si() / b.t_step(bstd / 15, 65536).si(), 2.5, 1e-4);
  // With no KV the pair is still explained, from a compute-bound standard batch down to the
  // weight-fetch floor.
  const Analysis nokv = fast_mode_analysis(b, 0, 6, 2.5);
  ASSERT_EQ(nokv.get("consistent"), 1.0);
  EXPECT_NEAR(nokv.get("t_std_s"), b.t_compute(nokv.get("b_std")).si(), 1e-12);
  EXPECT_NEAR(nokv.get("t_fast_s"), b.t_weights().si(), 1e-12);
  // A "fast mode" that is cheaper is not one.
  const Analysis bad = fast_mode_analysis(b, 0, 0.5, 2.5);
  EXPECT_EQ(bad.get("consistent"), 0.0);
  ASSERT_FALSE(bad.notes.empty());
}

TEST(Economics, LifecycleEqualCosts) {
  LifecycleInputs in;
  const Analysis a = lifecycle_analysis(in);
  EXPECT_NEAR(a.get("pretrain_flops"), a.get("rl_flops"), 1e-6 * a.get("rl_flops"));
  EXPECT_NEAR(a.get("pretrain_flops"), a.get("inference_flops"), 1e-6 * a.get("rl_flops"));
  in.policy = "half";
  const Analysis h = lifecycle_analysis(in);
  EXPECT_NEAR(h.get("pretrain_flops") + h.get("rl_flops"), h.get("inference_flops"), 1e-6 * h.get("inference_flops"));
}

TEST(Economics, RevnetIsConstantInDepth) {
  ModelSpec shallow = models().load("llama-3.1-8b").value();
  ModelSpec deep = shallow;
  deep.layers.resize(shallow.layers.size() * 4, shallow.layers.front());
  const Analysis a = revnet_analysis(shallow, 8, 4096, DType::kBf16);
  const Analysis b = revnet_analysis(deep, 8, 4096, DType::kBf16);
  EXPECT_DOUBLE_EQ(a.get("activations_revnet_bytes"), b.get("activations_revnet_bytes"));
  EXPECT_NEAR(b.get("activations_store_all_bytes"), 4 * a.get("activations_store_all_bytes"), 1);
}

TEST(Economics, StepFromDrainTime) {
  const Board b = board_from(models().load("deepseek-v3").value(), *hw().find("blackboard"), 64, Precision{});
  const Analysis a = step_analysis(b, 2400, 0, units::tokens_per_s(5e8));
  EXPECT_NEAR(a.get("drain_time_s"), 0.020, 1e-12);
  EXPECT_NEAR(a.get("worst_latency_s"), 0.040, 1e-12);
  EXPECT_NEAR(a.get("tokens_per_s"), 2400 / 0.020, 1e-6);
}

TEST(Pricing, BuiltinSheetsAndErrors) {
  auto cat = PriceCatalog::builtin();
  ASSERT_TRUE(cat) << cat.error().message();
  const PriceSheet* claude = cat->find("claude-opus-4.6");
  ASSERT_NE(claude, nullptr);
  EXPECT_NEAR(claude->output / claude->input, 5.0, 1e-12);
  EXPECT_EQ(claude->cache_writes.size(), 2u);
  EXPECT_FALSE(claude->sources.empty());
  const PriceSheet* gem = cat->find("gemini-3.1-pro");
  ASSERT_NE(gem, nullptr);
  EXPECT_NEAR(*gem->long_output / gem->output, 1.5, 1e-12);
  auto bad = parse_price_sheet(
      "provider = \"x\"\nmodel = \"m\"\ndate = \"d\"\nsources = [\"u\"]\n[base]\ninput = \"5\"\noutput = \"$1/Mtok\"\n",
      "sheet.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "base.input");
  EXPECT_EQ(bad.error().what, "'5' has no unit");
}

// The kinds docs/quantities.md names: by a figure's unit, and by a JSON key's suffix.
TEST(Infeasible, QuantityKindsByUnitAndKey) {
  EXPECT_EQ(quantity_kind("$/Mtok"), QuantityKind::kPrice);
  EXPECT_EQ(quantity_kind("$"), QuantityKind::kPrice);
  EXPECT_EQ(quantity_kind("tok/s"), QuantityKind::kThroughput);
  EXPECT_EQ(quantity_kind("s"), QuantityKind::kDuration);
  EXPECT_EQ(quantity_kind("day"), QuantityKind::kDuration);
  EXPECT_EQ(quantity_kind("MWh"), QuantityKind::kEnergy);
  EXPECT_EQ(quantity_kind("x", "mfu"), QuantityKind::kThroughput);
  // A chip's capability holds whether or not a configuration fits.
  EXPECT_EQ(quantity_kind("B/s"), QuantityKind::kOther);
  EXPECT_EQ(quantity_kind("B"), QuantityKind::kOther);
  EXPECT_EQ(key_kind("usd_per_mtok"), QuantityKind::kPrice);
  EXPECT_EQ(key_kind("tokens_per_s"), QuantityKind::kThroughput);
  EXPECT_EQ(key_kind("tokens_per_s_per_mw"), QuantityKind::kThroughput);
  EXPECT_EQ(key_kind("model_flops_per_step"), QuantityKind::kOther);
  EXPECT_EQ(key_kind("t_step_s"), QuantityKind::kDuration);
  EXPECT_EQ(key_kind("joules_per_token"), QuantityKind::kEnergy);
  EXPECT_EQ(key_kind("mem_kv_bytes"), QuantityKind::kOther);
}

// An infeasible analysis keeps what it is and why, and drops every price, throughput, duration
// and energy, with the tables that hold nothing else.
TEST(Infeasible, AnalysisWithholdsPricesTimesAndRates) {
  Analysis a("t");
  a.figure("memory_bytes", 2e11, "B", "per GPU");
  a.figure("step_s", 6.9, "s", "step");
  a.figure("usd", 7e6, "$", "cost");
  a.figure("tokens_per_s", 1e6, "tok/s", "rate");
  a.figure("mfu", 0.47, "x", "MFU");
  a.tables.push_back(Table{"memory", {{"term", ""}, {"per_gpu", "B"}}, {{"weights", 6.5e9}}});
  a.tables.push_back(Table{"time", {{"term", ""}, {"total_s", "s"}}, {{"forward", 1.4}}});
  a.explain_fact("model FLOPs per token = 167 GFLOP");
  a.explain("step = 6.9 s");
  a.explain("memory? no: a line that explains a withheld number, whatever its words");
  a.explain_fact("memory per GPU = 219 GB");
  ASSERT_TRUE(a.feasible());
  a.set_infeasible("needs 219 GB per GPU");
  EXPECT_FALSE(a.feasible());
  ASSERT_EQ(a.figures.size(), 1U);
  EXPECT_EQ(a.figures[0].key, "memory_bytes");
  ASSERT_EQ(a.tables.size(), 1U);  // the time table held nothing but durations
  EXPECT_EQ(a.tables[0].key, "memory");
  // The facts stay, in order, by how they were given, not by their words.
  ASSERT_EQ(a.derivation.size(), 2U);
  EXPECT_EQ(a.derivation[0], "model FLOPs per token = 167 GFLOP");
  EXPECT_EQ(a.derivation[1], "memory per GPU = 219 GB");
}

// A curve's row past HBM keeps its inputs and loses its prices and times.
TEST(Infeasible, CurveRowsPastHbmAreWithheld) {
  const Board b = board_from(models().load("llama-3.1-70b").value(), *hw().find("h100-sxm"), 8, Precision{});
  const Analysis a = batch_analysis(b, 16384);
  ASSERT_TRUE(a.feasible());
  const Table* t = a.table("curve");
  ASSERT_NE(t, nullptr);
  int past = 0;
  for (const auto& row : t->rows) {
    const bool fits = row[4].value != 0;
    EXPECT_EQ(row[2].withheld, !fits);  // usd_per_mtok
    EXPECT_EQ(row[1].withheld, !fits);  // t_step_s
    EXPECT_FALSE(row[0].withheld);      // the batch stays
    past += fits ? 0 : 1;
  }
  EXPECT_GT(past, 0);
  EXPECT_LE(a.get("practical_batch_high"), a.get("max_batch_fits"));
  // The weights alone past HBM: the whole analysis is infeasible.
  const Analysis none =
      batch_analysis(board_from(models().load("llama-3.1-405b").value(), *hw().find("h100-sxm"), 1, Precision{}), 4096);
  EXPECT_FALSE(none.feasible());
  for (const auto& f : none.figures) EXPECT_FALSE(withheld_when_infeasible(quantity_kind(f.unit, f.key))) << f.key;
}

}  // namespace
}  // namespace llmecon
