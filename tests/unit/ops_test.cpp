// Operator accounting: closed forms against brute force, and FLOP/byte totals against params.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ops/ops.hpp"

namespace llmecon {
namespace {

ModelSpec load(const char* name) {
  return ModelCatalog::builtin()->load(name).value();
}

TEST(Ops, MatmulFlopsIsTwoMnk) {
  static_assert(matmul_flops(2, 3, 4).si() == 48.0);
  EXPECT_DOUBLE_EQ(matmul_flops(1, 8192, 8192).si(), 2.0 * 8192 * 8192);
}

// Brute force: token i of the pass (at position c0+i) attends to a(i) keys.
double brute_pairs(Mixer mx, double w, int c0, int n) {
  double sum = 0;
  for (int i = 1; i <= n; ++i) {
    const int pos = c0 + i;  // keys visible incl. itself under full attention
    switch (mx) {
      case Mixer::kFull:
        sum += pos;
        break;
      case Mixer::kSliding:
        sum += std::min<double>(pos, w);
        break;
      case Mixer::kChunked:
        sum += (pos - 1) % static_cast<int>(w) + 1;
        break;
      case Mixer::kLinear:
        break;
    }
  }
  return sum;
}

TEST(Ops, AttentionPairsClosedFormsMatchBruteForce) {
  for (Mixer mx : {Mixer::kFull, Mixer::kSliding, Mixer::kChunked}) {
    for (int c0 : {0, 1, 5, 127, 128, 300, 1000}) {
      for (int n : {1, 2, 7, 128, 500}) {
        EXPECT_DOUBLE_EQ(attention_pairs(mx, 128, c0, n), brute_pairs(mx, 128, c0, n))
            << name(mx) << " c0=" << c0 << " n=" << n;
      }
    }
  }
}

TEST(Ops, ExpectedExpertsTouched) {
  // One token reads exactly k experts; many tokens read all of them.
  EXPECT_NEAR(expected_experts_touched(256, 8, 1), 8.0, 1e-9);
  EXPECT_NEAR(expected_experts_touched(256, 8, 100000), 256.0, 1e-9);
  // Two tokens: 256*(1-(248/256)^2) = 15.75.
  EXPECT_NEAR(expected_experts_touched(256, 8, 2), 15.75, 1e-9);
}

TEST(Ops, DenseDecodeFlopsAreTwoParamsPlusAttention) {
  // Llama 3.1 8B decode, B=1, 1000 cached tokens:
  // FLOPs = 2 * matmul params + 2 * 1001 keys * 32 heads * (128 + 128) per layer * 32 layers.
  const ModelSpec m = load("llama-3.1-8b");
  const StepCost c = step_cost(m, Step{Phase::kDecode, 1, 1, 1000}, Precision{});
  const double norms = 32 * 2 * 4096.0 + 4096;  // norm vectors are not multiplied
  const double expected = 2 * (m.params_active_matmul() - norms) + 2.0 * 1001 * 32 * 256 * 32;
  EXPECT_NEAR(c.flops_total().si(), expected, expected * 1e-12);
  // Every weight is read once: bytes = 2 * (params - embedding table) + one embedding row.
  EXPECT_NEAR(c.weights.si(), 2 * (m.params_total() - m.params_embedding()) + 2 * 4096.0, 1.0);
  // KV: read 1000 cached tokens, write one, 131,072 B each (32 x 2 x 8 x 128 x 2).
  EXPECT_DOUBLE_EQ(c.kv_read.si(), 1000 * 131072.0);
  EXPECT_DOUBLE_EQ(c.kv_write.si(), 131072.0);
}

TEST(Ops, KvTrafficLinearInContextAndBatch) {
  const ModelSpec m = load("llama-3.1-70b");
  const Precision p{};
  const double a = step_cost(m, Step{Phase::kDecode, 8, 1, 4096}, p).kv_read.si();
  const double b = step_cost(m, Step{Phase::kDecode, 8, 1, 8192}, p).kv_read.si();
  const double c = step_cost(m, Step{Phase::kDecode, 16, 1, 4096}, p).kv_read.si();
  EXPECT_DOUBLE_EQ(b, 2 * a);
  EXPECT_DOUBLE_EQ(c, 2 * a);
  EXPECT_DOUBLE_EQ(a, 8 * 4096 * 327680.0);
}

TEST(Ops, PrefillKeepsChunkKvOnChip) {
  // F14: a prefill pass reads only the previously cached KV; the chunk's own stays on chip.
  const ModelSpec m = load("llama-3.1-8b");
  const StepCost c = step_cost(m, Step{Phase::kPrefill, 1, 4096, 0}, Precision{});
  EXPECT_DOUBLE_EQ(c.kv_read.si(), 0.0);
  EXPECT_DOUBLE_EQ(c.kv_write.si(), 4096 * 131072.0);
}

TEST(Ops, MoeReadsOnlyTouchedExperts) {
  const ModelSpec m = load("deepseek-v3");
  const Precision p = Precision::native(m);
  const StepCost one = step_cost(m, Step{Phase::kDecode, 1, 1, 0}, p);
  const StepCost all = step_cost(m, Step{Phase::kDecode, 1, 1, 0}, p, ExpertTouch::kAll);
  EXPECT_NEAR(one.experts_read_per_layer, 8.0, 1e-9);
  EXPECT_DOUBLE_EQ(all.experts_read_per_layer, 256.0);
  // Reading every expert equals reading every weight (fp8) less the embedding table.
  EXPECT_NEAR(all.weights.si(), m.params_total() - m.params_embedding() + 7168, m.params_total() * 1e-6);
  EXPECT_LT(one.weights.si(), all.weights.si() / 10);
  // Routed-expert FLOPs follow top-k, not the number read.
  EXPECT_DOUBLE_EQ(one.flops_expert.si(), all.flops_expert.si());
}

TEST(Ops, MlaDecodeUsesAbsorbedForm) {
  // Absorbed MLA attention over c cached latents: 2 * 128 heads * (2*512 + 64) per key.
  const ModelSpec m = load("deepseek-v3");
  const Precision p = Precision::native(m);
  const StepCost c1 = step_cost(m, Step{Phase::kDecode, 1, 1, 1000}, p);
  const StepCost c2 = step_cost(m, Step{Phase::kDecode, 1, 1, 2000}, p);
  EXPECT_NEAR(c2.flops_attention.si() - c1.flops_attention.si(), 61 * 1000 * 2.0 * 128 * (2 * 512 + 64), 1.0);
  EXPECT_DOUBLE_EQ(c2.kv_read.si() - c1.kv_read.si(), 61 * 1000 * 576 * 2.0);
}

TEST(Ops, SparseAttentionReadsLess) {
  const ModelSpec v3 = load("deepseek-v3");
  const ModelSpec v32 = load("deepseek-v3.2-exp");
  const Precision p = Precision::native(v3);
  const Step s{Phase::kDecode, 1, 1, 128000};
  const StepCost dense = step_cost(v3, s, p);
  const StepCost dsa = step_cost(v32, s, p);
  // DSA: 2048 latents of 1152 B per layer plus every 128-byte indexer key.
  EXPECT_DOUBLE_EQ(dsa.kv_read.si(), 61 * (2048 * 1152.0 + 128000 * 128.0));
  EXPECT_LT(dsa.kv_read.si(), dense.kv_read.si() / 5);
  // sqrt block-sparse: sqrt(64 * c) tokens read per layer.
  auto plain = load_model_file(std::string(LLMECON_TEST_DATA) + "/tiny_llama.json").value();
  auto sq = load_model_file(std::string(LLMECON_TEST_DATA) + "/tiny_llama_sqrt.json").value();
  const Step big{Phase::kDecode, 1, 1, 1 << 20};
  EXPECT_DOUBLE_EQ(step_cost(sq, big, Precision{}).kv_read.si(), 4 * std::sqrt(64.0 * (1 << 20)) * 2 * 2 * 64 * 2);
  EXPECT_LT(step_cost(sq, big, Precision{}).kv_read.si(), step_cost(plain, big, Precision{}).kv_read.si());
}

TEST(Ops, AttentionFlopsGrowWithContext) {
  const ModelSpec m = load("llama-3.1-70b");
  double last = 0;
  for (double ctx : {0.0, 1e3, 1e4, 1e5, 1e6}) {
    const double f = step_cost(m, Step{Phase::kDecode, 1, 1, ctx}, Precision{}).flops_attention.si();
    EXPECT_GT(f, last);
    last = f;
  }
}

TEST(Ops, DetailRecordsSumToTotals) {
  const ModelSpec m = load("mixtral-8x7b");
  const StepCost c = step_cost(m, Step{Phase::kDecode, 4, 1, 512}, Precision{}, ExpertTouch::kExpected, true);
  double f = 0, kv = 0;
  for (const auto& op : c.ops) {
    f += op.flops.si();
    kv += (op.kv_read + op.kv_write).si();
  }
  EXPECT_NEAR(f, c.flops_total().si(), c.flops_total().si() * 1e-12);
  EXPECT_NEAR(kv, c.kv_bytes().si(), 1e-6);
  EXPECT_GT(c.ops.size(), 32u * 5);
}

}  // namespace
}  // namespace llmecon
