// Roofline: hand-derived cases, bound classification, cost and memory fit.
#include <gtest/gtest.h>

#include "roofline/roofline.hpp"

namespace llmecon {
namespace {
using namespace units;

RooflineInput input(const ModelSpec* m, const Hardware* hw, int chips, Step s, Precision p) {
  RooflineInput in;
  in.model = m;
  in.hw = hw;
  in.chips = chips;
  in.step = s;
  in.precision = p;
  return in;
}

struct Fixture {
  HardwareCatalog hw = HardwareCatalog::builtin().value();
  ModelCatalog models = ModelCatalog::builtin().value();
};

TEST(Roofline, Llama70bOnH100x8HandDerived) {
  Fixture f;
  const ModelSpec m = f.models.load("llama-3.1-70b").value();
  RooflineInput in = input(&m, f.hw.find("h100-sxm"), 8, Step{Phase::kDecode, 1, 1, 0}, Precision{});
  auto r = roofline(in);
  ASSERT_TRUE(r) << r.error().message();
  // Weight fetch (F4): every bf16 weight except the embedding table, over 8 x 3.35 TB/s.
  const double weight_bytes = 2 * (m.params_total() - m.params_embedding()) + 2 * 8192;
  EXPECT_NEAR(r->t_weights.si(), weight_bytes / (8 * 3.35e12), 1e-12);
  // At batch 1 with no context, decode is weight-bound: t_step = t_weights + t_kv.
  EXPECT_EQ(r->bound, Bound::kWeights);
  EXPECT_DOUBLE_EQ(r->t_step.si(), (r->t_weights + r->t_kv).si());
  EXPECT_NEAR(r->t_step / ms(1), 5.187, 0.001);  // 139.0 GB / 26.8 TB/s
  // $/token = 8 chips x $2.95/h x t_step / 1 token (D1).
  EXPECT_NEAR(r->usd_per_token.si(), 8 * 2.95 / 3600 * r->t_step.si(), 1e-15);
  EXPECT_TRUE(r->fits);
  EXPECT_LE(r->t_step, r->t_upper);
}

TEST(Roofline, LargeBatchBecomesComputeBound) {
  Fixture f;
  const ModelSpec m = f.models.load("llama-3.1-70b").value();
  RooflineInput in = input(&m, f.hw.find("h100-sxm"), 8, Step{Phase::kDecode, 4096, 1, 0}, Precision{});
  auto r = roofline(in);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(r->t_step.si(), r->t_compute.si());
  // Prefill of a long prompt is compute-bound too (F14).
  RooflineInput pre = input(&m, f.hw.find("h100-sxm"), 8, Step{Phase::kPrefill, 1, 8192, 0}, Precision{});
  EXPECT_EQ(roofline(pre)->bound, Bound::kCompute);
}

TEST(Roofline, LongContextBecomesKvBound) {
  Fixture f;
  const ModelSpec m = f.models.load("llama-3.1-70b").value();
  RooflineInput in = input(&m, f.hw.find("h100-sxm"), 8, Step{Phase::kDecode, 64, 1, 100000}, Precision{});
  auto r = roofline(in);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->bound, Bound::kKv);
  // 64 x 100k x 327,680 B = 2.1 TB of KV > 640 GB of HBM.
  EXPECT_FALSE(r->fits);
  EXPECT_NE(r->fit_reason.find("> 640 GB HBM on 8 x h100-sxm"), std::string::npos) << r->fit_reason;
}

TEST(Roofline, ComputeUsesFormatRates) {
  // fp8 weights and activations run GEMMs at the fp8 rate: compute time halves on H100.
  Fixture f;
  const ModelSpec m = f.models.load("llama-3.1-8b").value();
  const Step s{Phase::kPrefill, 1, 8192, 0};
  RooflineInput bf = input(&m, f.hw.find("h100-sxm"), 1, s, Precision{});
  RooflineInput f8 =
      input(&m, f.hw.find("h100-sxm"), 1, s, Precision{DType::kFp8, DType::kFp8, DType::kFp8, DType::kFp8});
  const double ratio = roofline(bf)->t_compute / roofline(f8)->t_compute;
  EXPECT_NEAR(ratio, 1978.9 / 989.4, 1e-6);
}

TEST(Roofline, RejectsBadChipCounts) {
  Fixture f;
  const ModelSpec m = f.models.load("llama-3.1-8b").value();
  RooflineInput in = input(&m, f.hw.find("h100-sxm"), 16, Step{}, Precision{});
  auto r = roofline(in);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "--chips");
  EXPECT_EQ(r.error().what, "16 chips exceed the 8-chip scale-up domain of h100-sxm");
  in.chips = 0;
  EXPECT_EQ(roofline(in).error().what, "must be at least 1, got 0");
}

TEST(Roofline, RangeContainsThePointAndCollapses) {
  Fixture f;
  const ModelSpec m = f.models.load("llama-3.1-70b").value();
  RooflineInput in = input(&m, f.hw.find("b200"), 8, Step{Phase::kDecode, 64, 1, 8192}, Precision{});
  in.eff = Efficiency{0.7, 64, 128, 148, 0.8, units::bytes(4e6), 0.75, us(500), us(2), 4};
  const RooflineResult point = roofline_unchecked(in);
  const RooflineRange r = roofline_range(in, Uncertainty{});
  EXPECT_LE(r.t_step_s.p10, point.t_step.si());
  EXPECT_GE(r.t_step_s.p90, point.t_step.si());
  EXPECT_LT(r.t_step_s.p10, r.t_step_s.p90);
  EXPECT_LE(r.usd_per_mtok.p10, point.usd_per_token.si() * 1e6);
  EXPECT_GE(r.usd_per_mtok.p90, point.usd_per_token.si() * 1e6);
  // Fixed seed: the same answer twice.
  EXPECT_DOUBLE_EQ(roofline_range(in, Uncertainty{}).t_step_s.p50, r.t_step_s.p50);
  // No ranges at all: a point.
  const RooflineRange none = roofline_range(in, Uncertainty::none());
  EXPECT_DOUBLE_EQ(none.t_step_s.p10, point.t_step.si());
  EXPECT_DOUBLE_EQ(none.t_step_s.p90, point.t_step.si());
  EXPECT_DOUBLE_EQ(none.usd_per_mtok.p50, point.usd_per_token.si() * 1e6);
}

// A point among the draws: its rank is the share below it, ties counted half.
TEST(Roofline, QuantilesPlaceThePoint) {
  const Quantiles q = quantiles({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 2.5);
  ASSERT_TRUE(q.point && q.point_rank);
  EXPECT_DOUBLE_EQ(*q.point, 2.5);
  EXPECT_DOUBLE_EQ(*q.point_rank, 0.2);
  EXPECT_DOUBLE_EQ(*quantiles({4, 4, 4, 4}, 4.0).point_rank, 0.5);
  EXPECT_DOUBLE_EQ(*quantiles({1, 2, 3}, 0.5).point_rank, 0.0);
  EXPECT_FALSE(quantiles({1, 2, 3}).point.has_value());
}

TEST(Roofline, ExplainSubstitutesValues) {
  Fixture f;
  const ModelSpec m = f.models.load("llama-3.1-70b").value();
  RooflineInput in = input(&m, f.hw.find("h100-sxm"), 8, Step{Phase::kDecode, 1, 1, 0}, Precision{});
  auto lines = explain(*roofline(in));
  ASSERT_GE(lines.size(), 8u);
  bool step_line = false;
  for (const auto& l : lines) step_line = step_line || l.find("t_step = max(t_compute, t_weights + t_kv) (F1)") == 0;
  EXPECT_TRUE(step_line);
  bool weights_line = false;
  for (const auto& l : lines) {
    weights_line = weights_line || (l.rfind("t_weights = ", 0) == 0 && l.find("(8 x 3.35 TB/s)") != std::string::npos);
  }
  EXPECT_TRUE(weights_line);
}

}  // namespace
}  // namespace llmecon
