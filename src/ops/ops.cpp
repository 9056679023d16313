// Operator accounting for one forward pass (docs/model.md §4).
#include "ops/ops.hpp"

#include <algorithm>
#include <cmath>

#include "ops/pass.hpp"

namespace llmecon {

std::string_view name(Phase p) {
  return name_in(kPhaseNames, p);
}

namespace {
constexpr std::array<std::string_view, kOpKindCount> kOpNames{"embedding",    "qkv_proj",       "attn_core", "indexer",
                                                              "linear_mixer", "o_proj",         "router",    "mlp",
                                                              "experts",      "shared_experts", "lm_head"};
static_assert(kOpNames.size() == kOpKindCount);
}  // namespace

std::string_view name(OpKind k) {
  return kOpNames[static_cast<std::size_t>(k)];
}

Precision Precision::native(const ModelSpec& m) {
  return Precision{m.native_weight_dtype, m.native_expert_dtype, m.native_weight_dtype, DType::kBf16};
}

Precision Precision::with_weights(const ModelSpec& m, DType w, DType act, DType kv) {
  // model.md §4.7: experts follow the weight format, except experts released narrower than the
  // dense weights (gpt-oss's MXFP4), which are never widened.
  const double ne = bytes_per_element(m.native_expert_dtype);
  const bool shipped_narrow = ne < bytes_per_element(m.native_weight_dtype);
  const DType ex = shipped_narrow && ne < bytes_per_element(w) ? m.native_expert_dtype : w;
  return Precision{w, ex, act, kv};
}

double attention_pairs(Mixer mixer, double window, double cached, double n) {
  // Token i (1..n) of the pass sits at position cached+i and attends to a(i) keys.
  const double c0 = cached;
  switch (mixer) {
    case Mixer::kFull:
      return n * c0 + n * (n + 1) / 2;  // sum of (c0 + i)
    case Mixer::kSliding: {
      const double w = window;
      if (c0 + n <= w) return n * c0 + n * (n + 1) / 2;
      if (c0 + 1 >= w) return n * w;
      const double m = w - c0;  // tokens before the window fills
      return m * c0 + m * (m + 1) / 2 + (n - m) * w;
    }
    case Mixer::kChunked: {
      // Position p (0-based) attends to (p mod w) + 1 keys; S(P) sums that over p < P.
      const double w = window;
      auto s = [w](double p) {
        const double q = std::floor(p / w);
        const double r = p - q * w;
        return q * w * (w + 1) / 2 + r * (r + 1) / 2;
      };
      return s(c0 + n) - s(c0);
    }
    case Mixer::kLinear:
      return 0.0;
  }
  return 0.0;
}

double expected_experts_touched(double experts, double top_k, double tokens) {
  if (experts <= 0) return 0.0;
  if (tokens <= 0) return 0.0;
  return experts * (1.0 - std::pow(1.0 - top_k / experts, tokens));
}

namespace {

bool same_cost(const Layer& a, const Layer& b) {
  return a.mixer == b.mixer && a.window == b.window && a.moe == b.moe && a.dense_ffn == b.dense_ffn &&
         (a.kv_source >= 0) == (b.kv_source >= 0);
}

// Layers that cost the same, as (first layer, layers like it). Without detail, identical layers
// are costed once and counted (model.md §4.5): sums do not depend on order, so alternating layers
// (sliding and full attention) group as well as runs do. With detail, each layer is its own.
std::vector<std::pair<int, int>> like_layers(const ModelSpec& m, bool detail) {
  const int n_layers = m.n_layers();
  std::vector<std::pair<int, int>> groups;
  groups.reserve(detail ? m.layers.size() : 4);
  std::size_t last = 0;  // the group of the layer before: a run of like layers joins it at once
  for (int li = 0; li < n_layers; ++li) {
    const Layer& l = m.layers[static_cast<std::size_t>(li)];
    if (!detail && li > 0 && same_cost(m.layers[static_cast<std::size_t>(li - 1)], l)) {
      ++groups[last].second;
      continue;
    }
    auto same = detail ? groups.end() : std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return same_cost(m.layers[static_cast<std::size_t>(g.first)], l);
    });
    if (same == groups.end()) {
      last = groups.size();
      groups.emplace_back(li, 1);
    } else {
      last = static_cast<std::size_t>(same - groups.begin());
      ++same->second;
    }
  }
  return groups;
}

}  // namespace

StepCost step_cost(const ModelSpec& m, std::span<const SeqGroup> groups_in, const Precision& p, ExpertTouch touch,
                   bool detail) {
  using ops_internal::Accumulator, ops_internal::Pass, ops_internal::add_embedding, ops_internal::add_head,
      ops_internal::ffn_of, ops_internal::mixer_of;
  StepCost c;
  // Every GEMM sees all the pass's tokens at once; attention is per group (model.md §4, §23.2).
  const Pass pass(m, groups_in, p, touch);
  Accumulator acc(c, detail, pass.ba);
  if (detail) c.ops.reserve(m.layers.size() * 6 + 2);
  c.kernels.reserve(24);
  add_embedding(pass, acc);
  c.experts_read_per_layer = pass.touched;
  for (const auto& [li, run] : like_layers(m, detail)) {
    const Layer& l = m.layers[static_cast<std::size_t>(li)];
    acc.set_repeat(run);
    // Norm vectors are read every step.
    c.weights += units::bytes(m.params_layer_norms(l) * pass.bw * run);
    mixer_of(pass, l).add(pass, l, li, acc);
    ffn_of(l).add(pass, l, li, acc);
  }
  acc.set_repeat(1);
  add_head(pass, acc);
  return c;
}

StepCost step_cost(const ModelSpec& m, const Step& s, const Precision& p, ExpertTouch touch, bool detail) {
  const SeqGroup g{s.phase, s.batch, s.new_tokens, s.cached};
  return step_cost(m, std::span<const SeqGroup>(&g, 1), p, touch, detail);
}

std::vector<OpCost> ops_by_kind(const std::vector<OpCost>& ops) {
  std::vector<OpCost> by_kind(kOpKindCount);
  for (const OpCost& op : ops) {
    OpCost& k = by_kind[static_cast<std::size_t>(op.kind)];
    k.kind = op.kind;
    k.flops += op.flops;
    k.weights += op.weights;
    k.kv_read += op.kv_read;
    k.kv_write += op.kv_write;
    k.act += op.act;
  }
  std::vector<OpCost> out;
  for (const OpCost& k : by_kind) {
    if (k.flops.si() == 0 && k.weights.si() == 0 && k.kv_read.si() == 0 && k.kv_write.si() == 0) continue;
    out.push_back(k);
  }
  return out;
}

}  // namespace llmecon
