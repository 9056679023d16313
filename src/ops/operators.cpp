// The operators of one forward pass (pass.hpp, docs/model.md §4): each adds its kernels' work,
// traffic and shape for one layer.
#include <algorithm>
#include <cmath>

#include "ops/pass.hpp"

namespace llmecon::ops_internal {

void Accumulator::add(OpKind kind, int layer, ComputeClass cls, Flops f, Bytes w, Bytes kv_r, Bytes kv_w, Bytes act,
                      double rows, double cols, double depth, bool split_k, double inner) {
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

void Accumulator::record(const Kernel& k) {
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

Pass::Pass(const ModelSpec& model, std::span<const SeqGroup> seq_groups, const Precision& p, ExpertTouch touch)
    : m(model), groups(seq_groups), precision(p) {
  for (const SeqGroup& g : groups) {
    B += g.count;
    T += g.count * g.new_tokens;
    // Prefill needs logits only for each sequence's last token.
    logits += g.phase == Phase::kDecode ? g.count * g.new_tokens : g.count;
  }
  bw = bytes_per_element(p.weights);
  be = bytes_per_element(p.experts);
  ba = bytes_per_element(p.act);
  bk = bytes_per_element(p.kv);
  dm = d(m.d_model);
  H = d(m.attn.heads);
  touched = m.is_moe() ? (touch == ExpertTouch::kAll ? d(m.moe.experts)
                                                     : expected_experts_touched(d(m.moe.experts), d(m.moe.top_k), T))
                       : 0.0;
}

void add_embedding(const Pass& p, Accumulator& acc) {
  acc.add(OpKind::kEmbedding, -1, ComputeClass::kDense, Flops{},
          units::bytes(std::min(p.T, d(p.m.vocab)) * p.dm * p.bw), Bytes{}, Bytes{}, units::bytes(p.T * p.dm * p.ba));
}

void add_head(const Pass& p, Accumulator& acc) {
  // Final norm and output head; prefill needs logits only for each sequence's last token.
  acc.cost().weights += units::bytes(p.dm * p.bw);
  acc.gemm(OpKind::kLmHead, -1, ComputeClass::kDense, p.logits, d(p.m.vocab), p.dm, p.bw);
}

namespace {

/// Linear attention (Gated DeltaNet): projections, and a recurrent state read and written per
/// sequence whatever the context (model.md §4.2).
class LinearMixerOp final : public Operator {
 public:
  void add(const Pass& p, const Layer& l, int li, Accumulator& acc) const override {
    const ModelSpec& m = p.m;
    const LinearAttention& la = m.linear;
    const double proj = m.params_attention(l);
    acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, p.T, proj / p.dm, p.dm, p.bw);
    // Recurrent update per token: decay, outer-product write, delta correction, readout.
    const double state = d(la.value_heads) * d(la.key_head_dim) * d(la.value_head_dim);
    const Bytes sb = units::bytes(p.B * m.linear_state_bytes(p.precision.kv));
    acc.add(OpKind::kLinearMixer, li, ComputeClass::kAttention, matmul_flops(p.T, 3.0 * state, 1.0), Bytes{}, sb, sb,
            Bytes{});
  }
};

/// Multi-head latent attention (DeepSeek): compressed projections, the cached latent read per
/// group, weight absorption in decode and decompression in prefill, and DSA's indexer (§4.3).
class MlaOp final : public Operator {
 public:
  void add(const Pass& p, const Layer& /*l*/, int li, Accumulator& acc) const override {
    const Attention& a = p.m.attn;
    const double T = p.T, dm = p.dm, bw = p.bw;
    const double ql = d(a.q_lora_rank), kl = d(a.kv_lora_rank);
    const double nope = d(a.qk_nope_head_dim), rope = d(a.qk_rope_head_dim), vd = d(a.v_head_dim);
    if (a.q_lora_rank > 0) {
      acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, ql, dm, bw);
      acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, p.H * (nope + rope), ql, bw);
    } else {
      acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, p.H * (nope + rope), dm, bw);
    }
    acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, T, kl + rope, dm, bw);
    if (a.sparse == SparseAttention::kTopK) {
      const double ih = d(a.index_heads), id = d(a.index_head_dim);
      acc.gemm(OpKind::kIndexer, li, ComputeClass::kDense, T, ih * id, a.q_lora_rank > 0 ? ql : dm, bw);
      acc.gemm(OpKind::kIndexer, li, ComputeClass::kDense, T, id, dm, bw);
      acc.gemm(OpKind::kIndexer, li, ComputeClass::kDense, T, ih, dm, bw);
    }
    for (const SeqGroup& g : p.groups) core(p, g, li, acc);
    acc.gemm_rows(OpKind::kOProj, li, ComputeClass::kDense, T, dm, p.H * vd, bw);
  }

 private:
  // One group's attention over the cached latent; DSA reads only the top-k selected tokens.
  static void core(const Pass& p, const SeqGroup& g, int li, Accumulator& acc) {
    const Attention& a = p.m.attn;
    const double H = p.H, bw = p.bw, ba = p.ba;
    const double kl = d(a.kv_lora_rank), nope = d(a.qk_nope_head_dim), rope = d(a.qk_rope_head_dim);
    const double vd = d(a.v_head_dim), lat = (kl + rope) * p.bk;
    const double seqs = g.count, n = g.new_tokens, c0 = g.cached, toks = seqs * n;
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
      acc.add(OpKind::kAttnCore, li, ComputeClass::kAttention, matmul_flops(seqs * pairs, 1.0, H * (nope + rope + vd)),
              Bytes{}, units::bytes(seqs * read * lat), units::bytes(toks * lat),
              units::bytes(toks * H * (nope + rope + vd) * ba));
    }
    if (a.sparse == SparseAttention::kTopK) {
      const double ih = d(a.index_heads), id = d(a.index_head_dim);
      // The indexer scores every cached token with FP8 keys (1 byte per element).
      acc.add(OpKind::kIndexer, li, ComputeClass::kAttention,
              matmul_flops(seqs * attention_pairs(Mixer::kFull, 0, c0, n), 1.0, ih * id), Bytes{},
              units::bytes(seqs * c0 * id), units::bytes(toks * id), Bytes{});
    }
  }
};

/// Multi-head attention with grouped-query KV heads over a full, sliding or chunked window
/// (model.md §4.2); a layer that shares another's KV writes none.
class GqaOp final : public Operator {
 public:
  void add(const Pass& p, const Layer& l, int li, Accumulator& acc) const override {
    const Attention& a = p.m.attn;
    const double hd = d(a.head_dim), vd = d(a.v_head_dim), kvh = d(a.kv_heads);
    const double qkv_out = p.H * hd * (a.gated_q ? 2.0 : 1.0) + kvh * (hd + vd);
    acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, p.T, qkv_out, p.dm, p.bw);
    if (a.rel_pos_proj) acc.gemm(OpKind::kQkvProj, li, ComputeClass::kDense, p.T, p.dm, p.dm, p.bw);
    for (const SeqGroup& g : p.groups) core(p, l, g, li, acc);
    acc.gemm_rows(OpKind::kOProj, li, ComputeClass::kDense, p.T, p.dm, p.H * vd, p.bw);
  }

 private:
  // The KV the group's tokens read: the whole context, the window, or the chunk so far.
  static double kv_read(const Layer& l, double cached) {
    switch (l.mixer) {
      case Mixer::kFull:
        return cached;
      case Mixer::kSliding:
        return std::min(cached, d(l.window));
      case Mixer::kChunked:
        return std::fmod(cached, d(l.window));
      case Mixer::kLinear:
        break;
    }
    return 0.0;
  }
  static void core(const Pass& p, const Layer& l, const SeqGroup& g, int li, Accumulator& acc) {
    const Attention& a = p.m.attn;
    const double hd = d(a.head_dim), vd = d(a.v_head_dim), kvh = d(a.kv_heads);
    const double per_tok = 2.0 * kvh * hd * p.bk;  // K and V (shared layers read their source)
    const double seqs = g.count, n = g.new_tokens, c0 = g.cached, toks = seqs * n;
    double read = kv_read(l, c0), pairs = attention_pairs(l.mixer, d(l.window), c0, n);
    if (l.mixer == Mixer::kFull && a.sparse == SparseAttention::kSqrt) {
      const double mid = c0 + (n + 1) / 2;
      read = std::min(c0, n * std::sqrt(d(a.sqrt_block) * c0));
      pairs = n * std::min(mid, std::sqrt(d(a.sqrt_block) * mid));
    }
    const double write = l.kv_source >= 0 ? 0.0 : toks * per_tok;
    acc.add(OpKind::kAttnCore, li, ComputeClass::kAttention, matmul_flops(seqs * pairs, 1.0, p.H * (hd + vd)), Bytes{},
            units::bytes(seqs * read * per_tok), units::bytes(write), units::bytes(toks * p.H * (hd + vd) * p.ba));
  }
};

/// Routed experts: the router, T*k token-expert pairs over the experts actually selected (only
/// those are read from memory), and the shared experts (model.md §4.4).
class MoeOp final : public Operator {
 public:
  void add(const Pass& p, const Layer& /*l*/, int li, Accumulator& acc) const override {
    const ModelSpec& m = p.m;
    const double T = p.T, dm = p.dm, touched = p.touched;
    const double E = d(m.moe.experts), k = d(m.moe.top_k), fe = d(m.moe.expert_ffn);
    acc.gemm(OpKind::kRouter, li, ComputeClass::kDense, T, E, dm, p.bw);
    const double pairs = T * k;
    acc.cost().weights_expert += units::bytes(touched * m.params_expert() * p.be * acc.repeat());
    acc.add(OpKind::kExperts, li, ComputeClass::kExpert, matmul_flops(pairs, 2 * fe, dm) + matmul_flops(pairs, dm, fe),
            units::bytes(touched * m.params_expert() * p.be), Bytes{}, Bytes{},
            units::bytes(pairs * (3 * dm + 3 * fe) * p.ba), touched > 0 ? pairs / touched : 0.0, 2 * fe,
            1.0 / (2.0 / (3.0 * dm) + 1.0 / (3.0 * fe)),  // gate and up (2/3 of the FLOPs) at dm, down at fe
            false, fe);
    if (m.moe.shared_ffn > 0) {
      const double fs = d(m.moe.shared_ffn);
      acc.gemm(OpKind::kSharedExperts, li, ComputeClass::kDense, T, 2 * fs, dm, p.bw);
      acc.gemm_rows(OpKind::kSharedExperts, li, ComputeClass::kDense, T, dm, fs, p.bw);
    }
  }
};

/// A dense MLP: up (and gate) projection, then the row-parallel down projection.
class MlpOp final : public Operator {
 public:
  void add(const Pass& p, const Layer& l, int li, Accumulator& acc) const override {
    const double f = d(l.dense_ffn);
    const double up = p.m.mlp == MlpKind::kGated ? 2 * f : f;
    acc.gemm(OpKind::kMlp, li, ComputeClass::kDense, p.T, up, p.dm, p.bw);
    acc.gemm_rows(OpKind::kMlp, li, ComputeClass::kDense, p.T, p.dm, f, p.bw);
  }
};

const LinearMixerOp kLinearMixer;
const MlaOp kMla;
const GqaOp kGqa;
const MoeOp kMoe;
const MlpOp kMlp;

}  // namespace

const Operator& mixer_of(const Pass& p, const Layer& l) {
  if (l.mixer == Mixer::kLinear) return kLinearMixer;
  if (p.m.attn.kind == AttentionKind::kMla) return kMla;
  return kGqa;
}

const Operator& ffn_of(const Layer& l) {
  if (l.moe) return kMoe;
  return kMlp;
}

}  // namespace llmecon::ops_internal
