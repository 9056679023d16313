// The scenario layer: a command's arguments resolved once, and the one rule for unstated degrees
#include <cmath>

// (scenario.hpp, layout.hpp; model.md §17.5).
#include <gtest/gtest.h>

#include <cmath>

#include "io/facade.hpp"
#include "plan/plan.hpp"
#include "scenario/capacity.hpp"
#include "scenario/layout.hpp"
#include "scenario/scale.hpp"
#include "scenario/scaleup.hpp"
#include "scenario/scenario.hpp"

namespace llmecon {
namespace {

const Catalogs& catalogs() {
  static const Catalogs c = Catalogs::open({}).value();
  return c;
}

Args parse(const std::string& command, const Json& given) {
  const CommandSpec* spec = find_command(command);
  EXPECT_NE(spec, nullptr);
  return Args::parse(*spec, given).value();
}

TEST(Scenario, ResolvesModelChipEngineFormatsAndChipsOnce) {
  const Args a = parse("simulate", {{"model", "llama-3.1-70b"},
                                    {"hw", "h100-sxm"},
                                    {"engine", "vllm"},
                                    {"weight_dtype", "fp8"},
                                    {"tp", 4},
                                    {"rate", 1}});
  const auto s = resolve_scenario(catalogs(), a, ScenarioDefaults{8, std::nullopt});
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(s->model->name, "llama-3.1-70b");
  EXPECT_EQ(s->hw->name, "h100-sxm");
  ASSERT_NE(s->engine, nullptr);
  EXPECT_EQ(s->engine->name, "vllm");
  EXPECT_EQ(s->precision.weights, DType::kFp8);
  EXPECT_EQ(s->chips, 8);  // simulate's default: the domain, up to 8
  EXPECT_EQ(s->stated.tp, 4);
  EXPECT_EQ(s->stated.pp, 0);  // unstated
  // The deployment carries the engine's memory rule, which --ideal drops.
  EXPECT_EQ(s->deployment().memory_rule, s->engine->memory_rule);
  EXPECT_FALSE(s->deployment().eff.ideal());
  const Args ideal = parse("roofline", {{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"ideal", true}});
  const auto r = resolve_scenario(catalogs(), ideal);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->eff.ideal());
  EXPECT_EQ(r->chips, r->hw->domain_size);  // roofline's default: one scale-up domain
}

// KV left unstated is the serving engine's for the checkpoint (model.md §18.4): trtllm gives an
// FP8 checkpoint an FP8 cache, vllm keeps bf16; a stated format stands; another engine of a grid
// (serve_on) brings its own default and memory rule.
TEST(Scenario, UnstatedKvIsTheEnginesDefault) {
  auto on = [](const char* engine, Json extra) {
    Json q{{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}, {"engine", engine}, {"weight_dtype", "fp8"}, {"rate", 1}};
    q.update(extra);
    return resolve_scenario(catalogs(), parse("simulate", q)).value();
  };
  const Scenario trt = on("trtllm", Json::object());
  EXPECT_FALSE(trt.kv_stated);
  EXPECT_EQ(trt.precision.kv, DType::kFp8);
  EXPECT_EQ(on("vllm", Json::object()).precision.kv, DType::kBf16);
  const Scenario stated = on("trtllm", {{"kv_dtype", "bf16"}});
  EXPECT_TRUE(stated.kv_stated);
  EXPECT_EQ(stated.precision.kv, DType::kBf16);
  const ServingEngine* vllm = catalogs().serving_engine("vllm").value();
  DeploymentInput in = trt.deployment();
  trt.serve_on(in, *vllm);
  EXPECT_EQ(in.precision.kv, DType::kBf16);
  EXPECT_EQ(in.usable_hbm, vllm->memory_fraction);
  DeploymentInput kept = stated.deployment();
  stated.serve_on(kept, *vllm);
  EXPECT_EQ(kept.precision.kv, DType::kBf16);
  // A command without an engine (roofline) keeps bf16 KV whatever the weights.
  const auto r = resolve_scenario(
      catalogs(), parse("roofline", {{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}, {"weight_dtype", "fp8"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->precision.kv, DType::kBf16);
}

TEST(Scenario, BadInputNamesTheFlag) {
  const auto both = resolve_scenario(
      catalogs(), parse("plan", {{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 8}, {"racks", 1}}));
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().where, "--racks");
  const auto model = resolve_scenario(catalogs(), parse("roofline", {{"model", "llama-9-8b"}, {"hw", "h100-sxm"}}));
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error().where, "--model");
  const auto price = resolve_scenario(
      catalogs(),
      parse("roofline", {{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"usd_per_hour", 2}, {"cost", "owned"}}));
  ASSERT_FALSE(price);
  EXPECT_EQ(price.error().where, "--cost");
}

DeploymentInput on_h100(const ModelSpec& m) {
  DeploymentInput in;
  in.model = &m;
  in.hw = *catalogs().hw.get("h100-sxm", "hw");
  in.precision = Precision::native(m);
  return in;
}

TEST(Layout, StatedDegreesThatMultiplyToTheChipsStand) {
  const ModelSpec m = catalogs().models.resolve("llama-3.1-70b", "model").value();
  const DeploymentInput in = on_h100(m);
  // Every degree stated: taken as it is.
  const auto all = complete_layout(in, 8, Mapping{2, 1, 1, 1, 4, 1}, LayoutLoad{64, 2048, 2048});
  ASSERT_TRUE(all);
  EXPECT_FALSE(all->inferred);
  EXPECT_EQ(all->map.str(), (Mapping{2, 1, 1, 1, 4, 1}).str());
  // TP 8 on 8 chips, the rest unstated: 1.
  const auto tp = complete_layout(in, 8, Mapping{8, 0, 0, 0, 0, 1}, LayoutLoad{64, 2048, 2048});
  ASSERT_TRUE(tp);
  EXPECT_FALSE(tp->inferred);
  EXPECT_EQ(tp->map.tp, 8);
  EXPECT_EQ(tp->map.pp, 1);
  // TP 4 on 16 chips with DP unstated: DP takes the rest.
  const auto dp = complete_layout(in, 16, Mapping{4, 0, 0, 0, 0, 0}, LayoutLoad{64, 2048, 2048});
  ASSERT_TRUE(dp);
  EXPECT_FALSE(dp->inferred);
  EXPECT_EQ(dp->map.dp, 4);
  // The fill alone: DP takes what divides, and stays 1 where the stated degrees do not divide.
  EXPECT_EQ(fill_stated(m, 16, Mapping{4, 0, 0, 0, 2, 0}).dp, 2);
  EXPECT_EQ(fill_stated(m, 8, Mapping{3, 0, 0, 0, 0, 0}).dp, 1);
  EXPECT_EQ(fill_stated(m, 8, Mapping{2, 0, 0, 0, 0, 1}).chips(), 2);  // DP stated: nothing fills
}

TEST(Layout, AttentionDataParallelismFillsTheEpGroupOfAMoe) {
  const ModelSpec m = catalogs().models.resolve("mixtral-8x7b", "model").value();
  const auto l = complete_layout(on_h100(m), 8, Mapping{1, 0, 8, 0, 0, 0}, LayoutLoad{64, 2048, 2048});
  ASSERT_TRUE(l);
  EXPECT_FALSE(l->inferred);
  EXPECT_EQ(l->map.dp_attn, 8);
  EXPECT_EQ(l->map.ep, 8);
  EXPECT_EQ(l->map.dp, 1);
  // EP without TP is the planner's to complete, keeping EP.
  const auto free_tp = complete_layout(on_h100(m), 8, Mapping{0, 0, 8, 0, 0, 0}, LayoutLoad{64, 2048, 2048});
  ASSERT_TRUE(free_tp);
  EXPECT_TRUE(free_tp->inferred);
  EXPECT_EQ(free_tp->map.ep, 8);
}

TEST(Layout, OtherwiseThePlannersBestKeepingWhatIsStated) {
  const ModelSpec m = catalogs().models.resolve("llama-3.1-70b", "model").value();
  const DeploymentInput in = on_h100(m);
  // PP 2 and one replica on 16 chips do not multiply: the planner fills TP (and the rest).
  const auto l = complete_layout(in, 16, Mapping{0, 0, 0, 0, 2, 1}, LayoutLoad{64, 1088, 1024});
  ASSERT_TRUE(l);
  EXPECT_TRUE(l->inferred);
  EXPECT_EQ(l->map.pp, 2);
  EXPECT_EQ(l->map.dp, 1);
  EXPECT_EQ(l->map.chips(), 16);
  EXPECT_EQ(l->map.str(), infer_mapping(in, 16, Mapping{0, 0, 0, 0, 2, 1}, 64, 1088, 1024)->str());
  EXPECT_EQ(l->batch, 64);
  // A batch no layout holds is halved until one does: 2^20 sequences of 128k tokens on 8 chips.
  const auto halved = complete_layout(in, 8, Mapping{0, 0, 0, 0, 0, 1}, LayoutLoad{1 << 20, 131072, 131072});
  ASSERT_TRUE(halved);
  EXPECT_LT(halved->batch, 1 << 20);
  EXPECT_GE(halved->batch, 1);
  // Nothing holds a 405B model in bf16 on one H100, so the planner has nothing to offer; a layout
  // the caller states in full stands, and its memory is the evaluation's to check.
  const ModelSpec big = catalogs().models.resolve("llama-3.1-405b", "model").value();
  EXPECT_FALSE(complete_layout(on_h100(big), 1, Mapping{0, 0, 0, 0, 0, 0}, LayoutLoad{1, 1024, 1024}));
  const auto stated = complete_layout(on_h100(big), 1, Mapping{1, 0, 0, 0, 0, 1}, LayoutLoad{1, 1024, 1024});
  ASSERT_TRUE(stated);
  EXPECT_FALSE(stated->inferred);
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

// The planner's question for `m` on one 8-GPU H100 domain, 1024 tokens in and 128 out.
PlanRequest on_eight_h100(const ModelSpec& m) {
  PlanRequest rq;
  rq.model = &m;
  rq.hw = *catalogs().hw.get("h100-sxm", "hw");
  rq.chips = 8;
  rq.isl = 1024;
  rq.osl = 128;
  return rq;
}

TEST(Capacity, AFleetPerLayoutCheapestFirst) {
  const ModelSpec m = catalogs().models.resolve("llama-3.1-8b", "model").value();
  PlanRequest rq = on_eight_h100(m);
  const PlanResult plan_result = plan(rq);
  // No latency target: nothing to size a fleet against.
  const auto none = size_capacity(rq, plan_result, CapacityAsk{units::requests_per_s(10), 200, nullptr, {}, {}});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().where, "--rate");
  rq.ttft = units::ms(500);
  rq.tpot = units::ms(40);
  const auto cap = size_capacity(rq, plan_result, CapacityAsk{units::requests_per_s(30), 200, nullptr, {}, {}});
  ASSERT_TRUE(cap) << cap.error().message();
  ASSERT_FALSE(cap->options.empty());
  EXPECT_LE(cap->options.size(), cap->simulated_layouts);
  for (std::size_t i = 0; i < cap->options.size(); ++i) {
    const CapacityOption& o = cap->options[i];
    EXPECT_EQ(o.replicas, std::ceil(30 / o.rate_per_replica.si()));
    EXPECT_EQ(o.chips, o.replicas * o.map.replica_chips());
    EXPECT_LE(o.ttft_p99.si(), 0.5);  // the rate one replica sustains meets the SLO
    EXPECT_LE(o.tpot_p99.si(), 0.04);
    if (i > 0) {
      EXPECT_LE(cap->options[i - 1].cost, o.cost);
    }
  }
  // Cancelled before the first simulation.
  const auto stop =
      size_capacity(rq, plan_result, CapacityAsk{units::requests_per_s(30), 200, [] { return true; }, {}, {}});
  ASSERT_FALSE(stop);
  EXPECT_EQ(stop.error().what.rfind("cancelled", 0), 0U);
}

TEST(Scale, TrainingAndServingRatesFromTheReference) {
  const ModelSpec m = catalogs().models.resolve("llama-3.1-8b", "model").value();
  const Hardware* h100 = *catalogs().hw.get("h100-sxm", "hw");
  TrainSetup s;
  s.model = &m;
  s.hw = h100;
  s.eff = catalogs().efficiency(*h100);
  s.price = h100->price.value;
  s.seq_len = 8192;
  const auto ref = scale_reference(s, 64);
  ASSERT_TRUE(ref) << ref.error().message();
  EXPECT_GT(ref->train_mfu, 0.2);
  EXPECT_LT(ref->train_mfu, 0.8);
  EXPECT_GT(ref->serve_mfu, 0);
  EXPECT_LT(ref->serve_mfu, ref->train_mfu);  // decode is memory-bound
  EXPECT_EQ(ref->reference_params, m.params_active_matmul());
  // The training rate is the cluster's price over what it achieves.
  EXPECT_NEAR(ref->train_usd_per_flop.si(), h100->price.value.si() * 64 / ref->train_rate.si(),
              1e-9 * ref->train_usd_per_flop.si());
  // Too few chips to hold a 405B model's training state.
  const ModelSpec big = catalogs().models.resolve("llama-3.1-405b", "model").value();
  s.model = &big;
  const auto none = scale_reference(s, 1);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().where, "--chips");
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

TEST(ScaleUp, EachDomainPricedWithItsFabric) {
  const ModelSpec m = catalogs().models.resolve("llama-3.1-8b", "model").value();
  PlanRequest rq = on_eight_h100(m);
  const TcoCatalog tco = TcoCatalog::builtin().value();
  const TcoProfile* owner = tco.profile("cluster", "--cost").value();
  const ScaleUpSweep sweep = sweep_scaleup(rq, tco, *owner, {8, 72});
  ASSERT_EQ(sweep.rows.size(), 2U);
  EXPECT_TRUE(sweep.unpriced.empty());
  // The chip's own domain adds no fabric; a 72-chip domain adds some, and its chips cost more.
  ASSERT_TRUE(sweep.rows[0].fabric_rent && sweep.rows[1].fabric_rent);
  EXPECT_NEAR(sweep.rows[0].fabric_rent->si(), 0, 1e-12);
  EXPECT_GT(sweep.rows[1].fabric_rent->si(), 0);
  EXPECT_GT(sweep.rows[1].chip_rent, sweep.rows[0].chip_rent);
  EXPECT_EQ(sweep.rows[1].chip_rent, rq.hw->price.value + *sweep.rows[1].fabric_rent);
  for (const ScaleUpOption& o : sweep.rows) {
    ASSERT_TRUE(o.plan.best.has_value());
    EXPECT_EQ(o.plan.best->map.chips(), o.domain);
  }
}

}  // namespace
}  // namespace llmecon
