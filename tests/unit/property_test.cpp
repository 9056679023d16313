// Properties that hold for every model, chip and step (rapidcheck).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "roofline/roofline.hpp"

namespace llmecon {
namespace {

struct World {
  HardwareCatalog hw = HardwareCatalog::builtin().value();
  std::vector<ModelSpec> models;
  World() {
    auto cat = ModelCatalog::builtin().value();
    for (const auto& e : cat.entries()) models.push_back(cat.load(e.name).value());
  }
};
const World& world() {
  static const World w;
  return w;
}

// A random model, chip, chip count and decode or prefill step.
RooflineInput random_input() {
  const World& w = world();
  const auto mi = *rc::gen::inRange<std::size_t>(0, w.models.size());
  const auto hi = *rc::gen::inRange<std::size_t>(0, w.hw.all().size());
  const Hardware& hw = w.hw.all()[hi];
  RooflineInput in;
  in.model = &w.models[mi];
  in.hw = &hw;
  in.chips = *rc::gen::inRange(1, std::min(hw.domain_size, 128) + 1);
  const bool prefill = *rc::gen::arbitrary<bool>();
  in.step.phase = prefill ? Phase::kPrefill : Phase::kDecode;
  in.step.batch = *rc::gen::inRange(1, 4097);
  in.step.new_tokens = prefill ? *rc::gen::inRange(1, 32769) : 1;
  in.step.cached = *rc::gen::inRange(0, 200001);
  in.precision = Precision::native(*in.model);
  return in;
}

TEST(Properties, MoreFlopsOrBandwidthIsNeverSlower) {
  EXPECT_TRUE(rc::check([] {
    RooflineInput in = random_input();
    Hardware faster = *in.hw;
    const double k = *rc::gen::inRange(101, 400) / 100.0;
    if (*rc::gen::arbitrary<bool>()) {
      for (auto& c : faster.compute)
        if (c) c->value = c->value * k;
    } else {
      faster.hbm_bandwidth.value = faster.hbm_bandwidth.value * k;
    }
    const RooflineResult a = roofline_unchecked(in);
    in.hw = &faster;
    const RooflineResult b = roofline_unchecked(in);
    RC_ASSERT(b.t_step <= a.t_step);
  }));
}

TEST(Properties, LowerBoundBelowUpperBound) {
  EXPECT_TRUE(rc::check([] {
    const RooflineResult r = roofline_unchecked(random_input());
    RC_ASSERT(r.t_step <= r.t_upper);
    RC_ASSERT(r.t_step.si() > 0);
    RC_ASSERT(r.t_upper <= r.t_step * 2.0 + Seconds{});
  }));
}

TEST(Properties, CostPerTokenNeverRisesWithBatchWhileWeightBound) {
  EXPECT_TRUE(rc::check([] {
    RooflineInput in = random_input();
    in.step.phase = Phase::kDecode;
    in.step.new_tokens = 1;
    in.step.batch = *rc::gen::inRange(1, 65);  // small batches and contexts: the weight-bound regime
    in.step.cached = *rc::gen::inRange(0, 4097);
    const RooflineResult a = roofline_unchecked(in);
    RC_PRE(a.bound == Bound::kWeights);
    in.step.batch += *rc::gen::inRange(1, 64);
    const RooflineResult b = roofline_unchecked(in);
    RC_ASSERT(b.usd_per_token.si() <= a.usd_per_token.si() * (1 + 1e-12));
  }));
}

TEST(Properties, KvBytesLinearInContextForDenseAttention) {
  EXPECT_TRUE(rc::check([] {
    const World& w = world();
    const ModelSpec& m = w.models[*rc::gen::inRange<std::size_t>(0, w.models.size())];
    bool dense = m.attn.sparse == SparseAttention::kDense;
    for (const auto& l : m.layers) dense = dense && l.mixer == Mixer::kFull;
    RC_PRE(dense);
    const double c = *rc::gen::inRange(1, 1000000);
    const double k = *rc::gen::inRange(2, 9);
    const double a = m.kv_bytes_sequence(c, DType::kBf16).si();
    const double b = m.kv_bytes_sequence(c * k, DType::kBf16).si();
    RC_ASSERT(std::abs(b - k * a) <= 1e-9 * b);
    RC_ASSERT(std::abs(a - c * m.kv_bytes_per_token(DType::kBf16).si()) <= 1e-9 * a);
  }));
}

TEST(Properties, TimeIsMonotoneInContextAndBatch) {
  EXPECT_TRUE(rc::check([] {
    RooflineInput in = random_input();
    // Chunked attention (Llama 4) reads only the current chunk, so its KV traffic falls back
    // at every chunk boundary; the property holds for every other mixer.
    for (const auto& l : in.model->layers) RC_PRE(l.mixer != Mixer::kChunked);
    const RooflineResult a = roofline_unchecked(in);
    if (*rc::gen::arbitrary<bool>()) {
      in.step.cached += *rc::gen::inRange(1, 10000);
    } else {
      in.step.batch += *rc::gen::inRange(1, 100);
    }
    RC_ASSERT(roofline_unchecked(in).t_step >= a.t_step);
  }));
}

}  // namespace
}  // namespace llmecon
