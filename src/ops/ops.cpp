// Operator accounting for one forward pass (docs/model.md §4).
#include "ops/ops.hpp"

#include <algorithm>
#include <cmath>

namespace llmecon {

std::string_view name(Phase p) {
  return name_in(kPhaseNames, p);
}

namespace {
constexpr std::array<std::string_view, kOpKindCount> kOpNames{"embedding",    "qkv_proj",       "attn_core", "indexer",
                                                              "linear_mixer", "o_proj",         "router",    "mlp",
                                                              "experts",      "shared_experts", "lm_head"};
static_assert(kOpNames.size() == kOpKindCount);
double d(int v) {
  return static_cast<double>(v);
}
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

class Accumulator {
 public:
  Accumulator(StepCost& c, bool detail, double act_bytes) : c_(c), detail_(detail), ba_(act_bytes) {}

  /// Later adds count `k` times: identical layers are costed once and multiplied.
  void set_repeat(double k) { k_ = k; }

  void add(OpKind kind, int layer, ComputeClass cls, Flops f, Bytes w, Bytes kv_r, Bytes kv_w, Bytes act,
           double rows = 0, double cols = 0, double depth = 0, bool split_k = false, double inner = 0) {
    record(Kernel{kind, cls, k_, rows, cols, depth, split_k, f, w, kv_r + kv_w, act, inner});
    f *= k_;
    w *= k_;
    kv_r *= k_;
    kv_w *= k_;
    act *= k_;
    switch (cls) {
      case ComputeClass::kDense:
        c_.flops_dense += f;
        break;
      case ComputeClass::kExpert:
        c_.flops_expert += f;
        break;
      case ComputeClass::kAttention:
        c_.flops_attention += f;
        break;
    }
    c_.weights += w;
    c_.kv_read += kv_r;
    c_.kv_write += kv_w;
    c_.act += act;
    if (detail_) c_.ops.push_back(OpCost{kind, layer, cls, f, w, kv_r, kv_w, act});
  }

  // A GEMM of an (m x k) activation by a (k x n) weight: FLOPs, weight bytes, activation bytes.
  // split_k: a row-parallel GEMM (the attention output, the MLP's down projection), whose depth k
  // tensor parallelism splits while its n columns stay whole on each chip.
  void gemm(OpKind kind, int layer, ComputeClass cls, double m, double n, double k, double weight_bpe,
            double weight_fraction = 1.0, bool split_k = false) {
    add(kind, layer, cls, matmul_flops(m, n, k), units::bytes(n * k * weight_bpe * weight_fraction), Bytes{}, Bytes{},
        units::bytes((m * k + m * n) * ba_), m, n, k, split_k);
  }
  void gemm_rows(OpKind kind, int layer, ComputeClass cls, double m, double n, double k, double weight_bpe) {
    gemm(kind, layer, cls, m, n, k, weight_bpe, 1.0, true);
  }

 private:
  // Identical launches (the same operator in identical layers, alternating or not) merge into one
  // record with their count.
  void record(const Kernel& k) {
    for (Kernel& x : c_.kernels) {
      if (x.kind == k.kind && x.cls == k.cls && x.rows == k.rows && x.cols == k.cols && x.depth == k.depth &&
          x.split_k == k.split_k && x.flops == k.flops && x.weights == k.weights && x.kv == k.kv && x.act == k.act &&
          x.inner == k.inner) {
        x.count += k.count;
        return;
      }
    }
    c_.kernels.push_back(k);
  }

  StepCost& c_;
  bool detail_;
  double ba_;
  double k_ = 1.0;
};

bool same_cost(const Layer& a, const Layer& b) {
  return a.mixer == b.mixer && a.window == b.window && a.moe == b.moe && a.dense_ffn == b.dense_ffn &&
         (a.kv_source >= 0) == (b.kv_source >= 0);
}

}  // namespace

StepCost step_cost(const ModelSpec& m, const Step& s, const Precision& p, ExpertTouch touch, bool detail) {
  const SeqGroup g{s.phase, s.batch, s.new_tokens, s.cached};
  return step_cost(m, std::span<const SeqGroup>(&g, 1), p, touch, detail);
}

StepCost step_cost(const ModelSpec& m, std::span<const SeqGroup> groups_in, const Precision& p, ExpertTouch touch,
                   bool detail) {
  StepCost c;
  // Every GEMM sees all the pass's tokens at once; attention is per group (model.md §4, §23.2).
  double B = 0, T = 0, logits = 0;
  for (const SeqGroup& g : groups_in) {
    B += g.count;
    T += g.count * g.new_tokens;
    // Prefill needs logits only for each sequence's last token.
    logits += g.phase == Phase::kDecode ? g.count * g.new_tokens : g.count;
  }
  const double bw = bytes_per_element(p.weights), be = bytes_per_element(p.experts);
  const double ba = bytes_per_element(p.act), bk = bytes_per_element(p.kv);
  const double dm = d(m.d_model);
  const Attention& a = m.attn;
  const double H = d(a.heads);
  Accumulator acc(c, detail, ba);
  if (detail) c.ops.reserve(m.layers.size() * 6 + 2);
  c.kernels.reserve(24);

  // Embedding lookup: T rows of the table.
  acc.add(OpKind::kEmbedding, -1, ComputeClass::kDense, Flops{}, units::bytes(std::min(T, d(m.vocab)) * dm * bw),
          Bytes{}, Bytes{}, units::bytes(T * dm * ba));

  const double touched =
      m.is_moe() ? (touch == ExpertTouch::kAll ? d(m.moe.experts)
                                               : expected_experts_touched(d(m.moe.experts), d(m.moe.top_k), T))
                 : 0.0;
  c.experts_read_per_layer = touched;

  // Without detail, identical layers are costed once and counted (model.md §4.5): sums do not
  // depend on order, so alternating layers (sliding and full attention) group as well as runs do.
  const int n_layers = m.n_layers();
  std::vector<std::pair<int, int>> groups;  // (first layer, layers like it)
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
  for (const auto& [li, run] : groups) {
    const Layer& l = m.layers[static_cast<std::size_t>(li)];
    acc.set_repeat(run);
    // Norm vectors are read every step.
    c.weights += units::bytes(m.params_layer_norms(l) * bw * run);

    if (l.mixer == Mixer::kLinear) {
      const LinearAttention& la = m.linear;
      const double proj = m.params_attention(l);
      acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, proj / dm, dm, bw);
      // Recurrent update per token: decay, outer-product write, delta correction, readout.
      const double state = d(la.value_heads) * d(la.key_head_dim) * d(la.value_head_dim);
      const Bytes sb = units::bytes(B * m.linear_state_bytes(p.kv));
      acc.add(OpKind::kLinearMixer, li, ComputeClass::kAttention, matmul_flops(T, 3.0 * state, 1.0), Bytes{}, sb, sb,
              Bytes{});
    } else if (a.kind == AttentionKind::kMla) {
      const double ql = d(a.q_lora_rank), kl = d(a.kv_lora_rank);
      const double nope = d(a.qk_nope_head_dim), rope = d(a.qk_rope_head_dim), vd = d(a.v_head_dim);
      if (a.q_lora_rank > 0) {
        acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, ql, dm, bw);
        acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, H * (nope + rope), ql, bw);
      } else {
        acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, H * (nope + rope), dm, bw);
      }
      acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, kl + rope, dm, bw);
      const double lat = (kl + rope) * bk;
      if (a.sparse == SparseAttention::kTopK) {
        const double ih = d(a.index_heads), id = d(a.index_head_dim);
        acc.gemm(OpKind::kIndexer, li, ComputeClass::kDense, T, ih * id, a.q_lora_rank > 0 ? ql : dm, bw);
        acc.gemm(OpKind::kIndexer, li, ComputeClass::kDense, T, id, dm, bw);
        acc.gemm(OpKind::kIndexer, li, ComputeClass::kDense, T, ih, dm, bw);
      }
      for (const SeqGroup& g : groups_in) {
        const double seqs = g.count, n = g.new_tokens, c0 = g.cached, toks = seqs * n;
        // Attention over the cached latent; DSA reads only the top-k selected tokens.
        double read = c0;
        double pairs = attention_pairs(Mixer::kFull, 0, c0, n);
        if (a.sparse == SparseAttention::kTopK) {
          read = std::min(c0, d(a.index_topk) * n);
          pairs = attention_pairs(Mixer::kSliding, d(a.index_topk), c0, n);
        } else if (a.sparse == SparseAttention::kSqrt) {
          read = std::min(c0, n * std::sqrt(d(a.sqrt_block) * c0));
          pairs = n * std::min(c0 + (n + 1) / 2, std::sqrt(d(a.sqrt_block) * (c0 + (n + 1) / 2)));
        }
        if (g.phase == Phase::kDecode) {
          // MLA weight absorption for decode (§4.3): q_nope absorbs W_UK and the output absorbs
          // W_UV: kv_b_proj weights, per token.
          acc.add(OpKind::kAttnCore, li, ComputeClass::kDense,
                  matmul_flops(toks * H, kl, nope) + matmul_flops(toks * H, vd, kl),
                  units::bytes(kl * H * (nope + vd) * bw), Bytes{}, Bytes{}, Bytes{}, toks, H * kl);
          acc.add(OpKind::kAttnCore, li, ComputeClass::kAttention, matmul_flops(seqs * pairs, 1.0, H * (2 * kl + rope)),
                  Bytes{}, units::bytes(seqs * read * lat), units::bytes(toks * lat),
                  units::bytes(toks * H * (kl + rope + kl) * ba));
        } else {
          // Decompress K and V for every attended token, then plain attention.
          acc.gemm(OpKind::kAttnCore, li, ComputeClass::kDense, seqs * (read + n), H * (nope + vd), kl, bw);
          acc.add(OpKind::kAttnCore, li, ComputeClass::kAttention,
                  matmul_flops(seqs * pairs, 1.0, H * (nope + rope + vd)), Bytes{}, units::bytes(seqs * read * lat),
                  units::bytes(toks * lat), units::bytes(toks * H * (nope + rope + vd) * ba));
        }
        if (a.sparse == SparseAttention::kTopK) {
          const double ih = d(a.index_heads), id = d(a.index_head_dim);
          // The indexer scores every cached token with FP8 keys (1 byte per element).
          acc.add(OpKind::kIndexer, li, ComputeClass::kAttention,
                  matmul_flops(seqs * attention_pairs(Mixer::kFull, 0, c0, n), 1.0, ih * id), Bytes{},
                  units::bytes(seqs * c0 * id), units::bytes(toks * id), Bytes{});
        }
      }
      acc.gemm_rows(OpKind::kOProj, li, ComputeClass::kDense, T, dm, H * vd, bw);
    } else {
      const double hd = d(a.head_dim), vd = d(a.v_head_dim), kvh = d(a.kv_heads);
      const double qkv_out = H * hd * (a.gated_q ? 2.0 : 1.0) + kvh * (hd + vd);
      acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, qkv_out, dm, bw);
      if (a.rel_pos_proj) acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, dm, dm, bw);
      const double per_tok = 2.0 * kvh * hd * bk;  // K and V (shared layers read their source)
      for (const SeqGroup& g : groups_in) {
        const double seqs = g.count, n = g.new_tokens, c0 = g.cached, toks = seqs * n;
        double read = 0.0, pairs = attention_pairs(l.mixer, d(l.window), c0, n);
        switch (l.mixer) {
          case Mixer::kFull:
            read = c0;
            break;
          case Mixer::kSliding:
            read = std::min(c0, d(l.window));
            break;
          case Mixer::kChunked:
            read = std::fmod(c0, d(l.window));
            break;
          case Mixer::kLinear:
            break;
        }
        if (l.mixer == Mixer::kFull && a.sparse == SparseAttention::kSqrt) {
          const double mid = c0 + (n + 1) / 2;
          read = std::min(c0, n * std::sqrt(d(a.sqrt_block) * c0));
          pairs = n * std::min(mid, std::sqrt(d(a.sqrt_block) * mid));
        }
        const double write = l.kv_source >= 0 ? 0.0 : toks * per_tok;
        acc.add(OpKind::kAttnCore, li, ComputeClass::kAttention, matmul_flops(seqs * pairs, 1.0, H * (hd + vd)),
                Bytes{}, units::bytes(seqs * read * per_tok), units::bytes(write),
                units::bytes(toks * H * (hd + vd) * ba));
      }
      acc.gemm_rows(OpKind::kOProj, li, ComputeClass::kDense, T, dm, H * vd, bw);
    }

    if (l.moe) {
      const double E = d(m.moe.experts), k = d(m.moe.top_k), fe = d(m.moe.expert_ffn);
      acc.gemm(OpKind::kRouter, li, ComputeClass::kDense, T, E, dm, bw);
      // T*k token-expert pairs; only the experts actually selected are read from memory.
      const double pairs = T * k;
      c.weights_expert += units::bytes(touched * m.params_expert() * be * run);
      acc.add(OpKind::kExperts, li, ComputeClass::kExpert,
              matmul_flops(pairs, 2 * fe, dm) + matmul_flops(pairs, dm, fe),
              units::bytes(touched * m.params_expert() * be), Bytes{}, Bytes{},
              units::bytes(pairs * (3 * dm + 3 * fe) * ba), touched > 0 ? pairs / touched : 0.0, 2 * fe,
              1.0 / (2.0 / (3.0 * dm) + 1.0 / (3.0 * fe)),  // gate and up (2/3 of the FLOPs) at dm, down at fe
              false, fe);
      if (m.moe.shared_ffn > 0) {
        const double fs = d(m.moe.shared_ffn);
        acc.gemm(OpKind::kSharedExperts, li, ComputeClass::kDense, T, 2 * fs, dm, bw);
        acc.gemm_rows(OpKind::kSharedExperts, li, ComputeClass::kDense, T, dm, fs, bw);
      }
    } else {
      const double f = d(l.dense_ffn);
      const double up = m.mlp == MlpKind::kGated ? 2 * f : f;
      acc.gemm(OpKind::kMlp, li, ComputeClass::kDense, T, up, dm, bw);
      acc.gemm_rows(OpKind::kMlp, li, ComputeClass::kDense, T, dm, f, bw);
    }
  }
  acc.set_repeat(1);

  // Final norm and output head; prefill needs logits only for each sequence's last token.
  c.weights += units::bytes(dm * bw);
  acc.gemm(OpKind::kLmHead, -1, ComputeClass::kDense, logits, d(m.vocab), dm, bw);
  return c;
}

}  // namespace llmecon
