// Parameter and KV-cache accounting from model dimensions (docs/model.md §2, §3).
#include <algorithm>
#include <cmath>

#include "model/model.hpp"
#include "units/sums.hpp"

namespace llmecon {

std::string_view name(Mixer m) {
  switch (m) {
    case Mixer::kFull:
      return "full";
    case Mixer::kSliding:
      return "sliding";
    case Mixer::kChunked:
      return "chunked";
    case Mixer::kLinear:
      return "linear";
  }
  return "?";
}

namespace {
double d(int v) {
  return static_cast<double>(v);
}
}  // namespace

double ModelSpec::params_attention(const Layer& l) const {
  const double dm = d(d_model);
  if (l.mixer == Mixer::kLinear) {
    // Gated DeltaNet (model.md §2.3): fused q,k,v,z and b,a projections, a causal conv over
    // q,k,v, per-head decay parameters, a gated norm and the output projection.
    const double nk = d(linear.key_heads), nv = d(linear.value_heads);
    const double dk = d(linear.key_head_dim), dv = d(linear.value_head_dim);
    return dm * (2 * nk * dk + 2 * nv * dv) + dm * 2 * nv + (2 * nk * dk + nv * dv) * d(linear.conv_kernel) + 2 * nv +
           dv + nv * dv * dm;
  }
  const double h = d(attn.heads);
  double p = 0.0;
  if (attn.kind == AttentionKind::kMla) {
    const double qk = d(attn.qk_nope_head_dim + attn.qk_rope_head_dim);
    const double ql = d(attn.q_lora_rank), kl = d(attn.kv_lora_rank);
    p += attn.q_lora_rank > 0 ? dm * ql + ql * h * qk : dm * h * qk;
    p += dm * (kl + d(attn.qk_rope_head_dim));                 // kv_a_proj_with_mqa
    p += kl * h * d(attn.qk_nope_head_dim + attn.v_head_dim);  // kv_b_proj
    p += h * d(attn.v_head_dim) * dm;                          // o_proj
    if (attn.sparse == SparseAttention::kTopK) {
      // DSA lightning indexer: wq_b (from the q latent), wk, its LayerNorm, per-head weights.
      const double ih = d(attn.index_heads), id = d(attn.index_head_dim);
      p += (attn.q_lora_rank > 0 ? ql : dm) * ih * id + dm * id + 2 * id + dm * ih;
    }
    return p;
  }
  const double hd = d(attn.head_dim), vd = d(attn.v_head_dim), kv = d(attn.kv_heads);
  p += dm * h * hd * (attn.gated_q ? 2.0 : 1.0);  // q_proj (and its output gate)
  p += dm * kv * (hd + vd);                       // k_proj, v_proj
  p += h * vd * dm;                               // o_proj
  if (attn.qkv_bias) p += h * hd + kv * (hd + vd);
  if (attn.o_bias) p += dm;
  if (attn.sinks) p += h;
  if (attn.rel_pos_proj) p += dm * dm;
  return p;
}

double ModelSpec::params_mlp_dense(const Layer& l) const {
  if (l.moe) return 0.0;
  const double dm = d(d_model), f = d(l.dense_ffn);
  if (mlp == MlpKind::kGated) return 3 * dm * f + (mlp_bias ? 2 * f + dm : 0.0);
  return 2 * dm * f + (mlp_bias ? f + dm : 0.0);
}

double ModelSpec::params_expert() const {
  const double dm = d(d_model), f = d(moe.expert_ffn);
  return 3 * dm * f + (moe.expert_bias ? 2 * f + dm : 0.0);
}

double ModelSpec::params_shared_experts() const {
  return 3 * d(d_model) * d(moe.shared_ffn) + (moe.shared_gate ? d(d_model) : 0.0);
}

double ModelSpec::params_router() const {
  return d(d_model) * d(moe.experts) + (moe.router_bias ? d(moe.experts) : 0.0);
}

double ModelSpec::params_layer_norms(const Layer& l) const {
  double p = d(norms_per_layer) * d(d_model) * (norm_bias ? 2.0 : 1.0);
  if (l.mixer == Mixer::kLinear) return p;
  if (attn.qk_norm) p += 2 * d(attn.head_dim);
  if (attn.kind == AttentionKind::kMla) p += d(attn.q_lora_rank) + d(attn.kv_lora_rank);
  return p;
}

double ModelSpec::params_routed_experts() const {
  double n = 0.0;
  for (const auto& l : layers) {
    if (l.moe) n += d(moe.experts) * params_expert();
  }
  return n;
}

namespace {
// Sum over layers of everything except routed experts, plus routed experts scaled by
// `experts_counted` per MoE layer.
double body(const ModelSpec& m, double experts_counted) {
  double p = 0.0;
  for (const auto& l : m.layers) {
    p += m.params_attention(l) + m.params_layer_norms(l) + m.params_mlp_dense(l);
    if (l.moe) p += m.params_router() + m.params_shared_experts() + experts_counted * m.params_expert();
  }
  return p;
}
double final_norm(const ModelSpec& m) {
  return d(m.d_model) * (m.norm_bias ? 2.0 : 1.0);
}
}  // namespace

double ModelSpec::params_total() const {
  return params_embedding() + (tied_embeddings ? 0.0 : params_head()) + body(*this, d(moe.experts)) + final_norm(*this);
}

double ModelSpec::params_active_matmul() const {
  return body(*this, d(moe.top_k)) + params_head() + final_norm(*this);
}

double ModelSpec::params_active() const {
  // A tied embedding is already counted as the head.
  const double lookup = tied_embeddings ? d(learned_positions) * d(d_model) : params_embedding();
  return params_active_matmul() + lookup;
}

double ModelSpec::kv_bytes_per_token_layer(const Layer& l, DType kv) const {
  if (l.kv_source >= 0 || l.mixer == Mixer::kLinear) return 0.0;
  const double b = bytes_per_element(kv);
  if (attn.kind == AttentionKind::kMla) {
    // Compressed latent plus the shared decoupled RoPE key (model.md §3.2); DSA adds one FP8
    // indexer key per token (model.md §3.4).
    double bytes = d(attn.kv_lora_rank + attn.qk_rope_head_dim) * b;
    if (attn.sparse == SparseAttention::kTopK) bytes += d(attn.index_head_dim) * 1.0;
    return bytes;
  }
  return 2.0 * d(attn.kv_heads) * d(attn.head_dim) * b;  // K and V (model.md F12)
}

BytesPerToken ModelSpec::kv_bytes_per_token(DType kv) const {
  double sum = 0.0;
  for (const auto& l : layers) {
    if (l.mixer == Mixer::kFull) sum += kv_bytes_per_token_layer(l, kv);
  }
  return units::bytes_per_token(sum);
}

double ModelSpec::linear_state_bytes(DType kv) const {
  const double b = bytes_per_element(kv);
  const double nk = d(linear.key_heads), nv = d(linear.value_heads);
  const double dk = d(linear.key_head_dim), dv = d(linear.value_head_dim);
  const double recurrent = nv * dk * dv;
  const double conv = (2 * nk * dk + nv * dv) * std::max(0.0, d(linear.conv_kernel) - 1.0);
  return (recurrent + conv) * b;
}

Bytes ModelSpec::kv_bytes_sequence(double context, DType kv) const {
  // Layer by layer in order; a run of layers alike adds its one term with add_repeated, the same
  // sum as adding it layer by layer.
  auto term = [&](const Layer& l) {
    switch (l.mixer) {
      case Mixer::kFull:
        return kv_bytes_per_token_layer(l, kv) * context;
      case Mixer::kSliding:
      case Mixer::kChunked:
        return kv_bytes_per_token_layer(l, kv) * std::min(context, d(l.window));
      case Mixer::kLinear:
        return linear_state_bytes(kv);
    }
    return 0.0;
  };
  auto alike = [](const Layer& a, const Layer& b) {
    return a.mixer == b.mixer && a.window == b.window && (a.kv_source >= 0) == (b.kv_source >= 0);
  };
  double sum = 0.0;
  for (std::size_t i = 0; i < layers.size();) {
    std::size_t j = i + 1;
    while (j < layers.size() && alike(layers[j], layers[i])) ++j;
    sum = add_repeated(sum, term(layers[i]), static_cast<long>(j - i));
    i = j;
  }
  return units::bytes(sum);
}

Bytes ModelSpec::weight_bytes(DType dense, DType expert) const {
  const double routed = params_routed_experts();
  return units::bytes((params_total() - routed) * bytes_per_element(dense) + routed * bytes_per_element(expert));
}

}  // namespace llmecon
