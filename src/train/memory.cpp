// A training layout's FLOPs per token, activations per layer and pipeline bubble (docs/model.md
// §24.1-24.3).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "internal.hpp"
#include "layout_eval.hpp"
#include "train/train.hpp"

namespace llmecon {

using train_internal::attended;
using train_internal::attention_core_flops_per_token;
using train_internal::attn_dims;
using train_internal::AttnDims;
using train_internal::d;
using train_internal::mla_layer;
using train_internal::mlp_width_bytes;
using train_internal::routed_copy_bytes;
using train_internal::standalone_norms;
using train_internal::StandaloneNorms;

// ---- model.md §24.1: FLOPs ----

Flops model_flops_per_token(const ModelSpec& m, double seq_len) {
  // 6 N (forward 2 N, backward 4 N) plus attention three times over (forward and backward).
  return units::flops(6.0 * m.params_active_matmul() + 3.0 * attention_core_flops_per_token(m, seq_len));
}

// ---- model.md §24.2: activations ----

Bytes layer_activation_bytes(const ModelSpec& m, const Layer& layer, double seq, double batch, int tp, int cp,
                             Recompute r, bool dropout, bool flash, DType gemm, unsigned modules, unsigned offload) {
  const double h = d(m.d_model);
  const double g = bytes_per_element(gemm);  // a GEMM input saved in the GEMMs' format
  const double sb = seq / d(cp) * batch;     // tokens this chip's slice of the micro-batch holds
  const double t = d(tp);
  if (r == Recompute::kFull || r == Recompute::kReversible) return units::bytes(2.0 * sb * h / t);
  // Megatron-Core's selective modules (model.md §24.2); none without selective recomputation.
  const unsigned mods = r == Recompute::kSelective ? modules : 0U;
  auto dropped = [mods](unsigned bit) { return (mods & bit) != 0; };
  const AttnDims a = attn_dims(m);
  const bool mla = mla_layer(m, layer);
  const double mask = dropout ? h : 0.0;  // a 1-byte dropout mask per block
  // Megatron recomputes only the norms that stand alone (standalone_norms).
  const StandaloneNorms norms = standalone_norms(m, layer);
  const bool norm_attn = dropped(kRecomputeLayernorm) && norms.attn;
  const bool norm_mlp = dropped(kRecomputeLayernorm) && norms.mlp;
  const bool up_proj = dropped(kRecomputeMlaUpProj) && mla;
  // Attention block: the QKV projection's input (g h), Q, K and V (2 bytes each), the output
  // projection's input (g o) (Korthikanti et al. 2022: 11 s b h for GPT-3 in bf16, with its
  // dropout mask). A fused attention kernel also keeps its output for its backward; in bf16 that
  // is the same tensor as the projection's input, in FP8 a second, bf16 copy. MLA also keeps its
  // compressed query and key-value latents: the up projections' inputs and their norms' inputs.
  // Recomputing the norm drops the GEMM input it makes (Megatron keeps no quantized copy then);
  // recomputing MLA's up projections drops Q, K and V and keeps only the latents before their norms.
  const double o_kept = flash && g < 2.0 ? 2.0 * a.o : 0.0;
  // Offloaded modules (model.md §24.2) keep nothing here: attention's core its Q, K, V and the
  // fused kernel's output, the output projection its input, a routed copy its first GEMM's input
  // (expert_fc1) and its activation's input (moe_act).
  auto off = [offload](unsigned bit) { return (offload & bit) != 0; };
  const double core = off(kOffloadCoreAttn) ? 0.0 : (up_proj ? 0.0 : 2.0 * (a.q + a.k + a.v)) + o_kept;
  double per_token = (norm_attn ? 0.0 : g * h) + core + (off(kOffloadAttnProj) ? 0.0 : g * a.o) + mask;
  if (mla) per_token += (up_proj ? 2.0 : g + 2.0) * d(m.attn.q_lora_rank + m.attn.kv_lora_rank);
  // MLP block: its input and the activation's inputs and output (19 s b h for a 4h GELU MLP with
  // its mask in bf16; gated MLPs keep gate, up and their product). An MoE block keeps its router's
  // input in bf16, each routed copy's own input in the GEMMs' format, and the shared expert's
  // quantized copy of the router's input in FP8. Recomputing the experts' activation drops each
  // copy's down-projection input; recomputing the whole block, a dense MLP or the shared experts
  // keeps only their input, the residual a norm's input already is (or the router's).
  if (layer.moe) {
    const double router_in = norm_mlp ? 0.0 : 2.0 * h;
    if (dropped(kRecomputeMoe)) {
      per_token += router_in + mask;
    } else {
      double copy = routed_copy_bytes(m, g);
      if (dropped(kRecomputeMoeAct)) copy -= g * d(m.moe.expert_ffn);
      if (off(kOffloadExpertFc1)) copy -= g * h;
      if (off(kOffloadMoeAct)) copy -= (mlp_width_bytes(m, g) - g) * d(m.moe.expert_ffn);
      per_token += router_in + mask + d(m.moe.top_k) * copy;
      if (m.moe.shared_ffn > 0 && !dropped(kRecomputeSharedExperts))
        per_token += (g < 2.0 && !norm_mlp ? g * h : 0.0) + mlp_width_bytes(m, g) * d(m.moe.shared_ffn);
    }
  } else {
    per_token += mask + (dropped(kRecomputeMlp) ? 0.0 : g * h + mlp_width_bytes(m, g) * d(layer.dense_ffn));
  }
  per_token += 2.0 * h * d(m.norms_per_layer);  // the norms' inputs
  double bytes = sb * per_token / t;
  // Without recomputation of attention's core and without a fused (flash) attention kernel, the
  // scores, the softmax output and its dropout mask stay: 5 a s^2 b.
  if (!dropped(kRecomputeCoreAttn) && !flash && layer.mixer != Mixer::kLinear)
    bytes += 5.0 * a.heads * sb * attended(layer, seq) / t;
  return units::bytes(bytes);
}

// ---- model.md §24.3: pipeline ----

Seconds pipeline_bubble(PipeSchedule s, int p, int chunks, Seconds fwd, Seconds bwd) {
  if (p <= 1) return Seconds{};
  const double stages = d(p) - 1.0;
  switch (s) {
    case PipeSchedule::k1F1B:
      return (fwd + bwd) * stages;
    case PipeSchedule::kInterleaved:
      return (fwd + bwd) * (stages / d(std::max(1, chunks)));
    case PipeSchedule::kZeroBubble:
      // ZB-H1: (p - 1)(F + B - W), the backward split evenly into input (B) and weight (W) grads.
      return fwd * stages;
    case PipeSchedule::kDualPipe:
      // DeepSeek-V3: (p/2 - 1)(F&B + B - 3W) with F&B = F + B + W: (p/2 - 1) F.
      return fwd * std::max(0.0, d(p) / 2.0 - 1.0);
  }
  return Seconds{};
}

// ---- model.md §24.2: one layout's memory ----

namespace train_internal {

void LayoutEval::memory() {
  // §24.2 memory per GPU, on the worst stage.
  const Split& ps = tot.split;
  etp = expert_tp(l);
  stage_layers = std::ceil(L / d(l.pp));
  const double body_share = stage_layers / L;
  const double tables = l.pp == 1 ? ps.embed + ps.head : std::max(ps.embed, ps.head);
  dense_params = ps.dense * body_share / d(l.tp) + tables / d(l.tp);
  expert_params = ps.routed * body_share / d(l.ep * etp);
  dense_replicas = d(l.dp * l.cp);
  expert_replicas = d(l.tp * l.cp * l.dp) / d(l.ep * etp);
  ob = optimizer_bytes(s.optimizer);
  gb = bytes_per_element(s.grad);
  auto sharded = [&](double params, double per_param, int from_stage, double replicas) {
    return l.zero >= from_stage ? params * per_param / replicas : params * per_param;
  };
  const double copies = l.schedule == PipeSchedule::kDualPipe ? 2.0 : 1.0;  // DualPipe keeps two copies
  r.memory.weights = units::bytes(copies * (sharded(dense_params, kWeightBytes, 3, dense_replicas) +
                                            sharded(expert_params, kWeightBytes, 3, expert_replicas)));
  r.memory.gradients =
      units::bytes(sharded(dense_params, gb, 2, dense_replicas) + sharded(expert_params, gb, 2, expert_replicas));
  // The parameters this chip's optimizer updates (its ZeRO shard); an offloaded share of them keeps
  // its states, and an fp32 copy of its gradients, in host memory instead (model.md §24.2).
  opt_params =
      dense_params / (l.zero >= 1 ? dense_replicas : 1.0) + expert_params / (l.zero >= 1 ? expert_replicas : 1.0);
  const double f_off = std::clamp(s.optimizer_offload, 0.0, 1.0);
  r.memory.optimizer = units::bytes(opt_params * ob * (1.0 - f_off));
  host_opt = opt_params * f_off * (ob + kHostGradBytes);
  // Activations: the in-flight micro-batches of the stage's layers, plus one layer's full set
  // while it is recomputed; the last stage's fp32 logits.
  const double flights = in_flight(l.schedule, l.pp, micro, l.chunks);
  StageSet local;
  const StageSet* set = &local;
  if (cache != nullptr) {
    auto [it, fresh] = cache->stages.try_emplace(
        {l.tp, l.cp, l.pp, static_cast<int>(b), static_cast<int>(l.recompute), static_cast<int>(mods)});
    if (fresh) it->second = stage_set();
    set = &it->second;
  } else {
    local = stage_set();
  }
  const double per_micro = set->per_micro, one_layer = set->one_layer, rebuilt = set->rebuilt;
  const double offload_layer = set->offload_layer;
  offloaded = set->offloaded;
  norms_rerun = set->norms_rerun;
  touched = set->touched;
  routed = set->routed;
  shared_width = set->shared_width;
  shared_blocks = set->shared_blocks;
  mlp_width = set->mlp_width;
  mlp_blocks = set->mlp_blocks;
  latents = set->latents;
  cast_in = set->cast_in;
  cast_out = set->cast_out;
  double acts = per_micro * flights;
  if (l.recompute == Recompute::kReversible) acts = 2.0 * 2.0 * seq / d(l.cp) * b * h / d(l.tp) * flights;
  if (refwd) acts += one_layer;
  acts += rebuilt;
  // An offloaded layer's set is on the chip while it is copied out or back (model.md §24.2).
  acts += offload_layer;
  host_held = offloaded * flights;
  tier = first_host_tier(hw);  // what offloading's checks (fits) and copies (communication) use
  r.memory.host = units::bytes(host_held + host_opt);
  const double logits = seq / d(l.cp) * b * d(m.vocab) / d(l.tp) * 4.0;
  acts = l.pp == 1 ? acts + logits : std::max(acts, logits + per_micro);  // the last stage holds one micro-batch
  r.memory.activations = units::bytes(acts);
  tokens_chip = seq / d(l.cp) * b;
  double buffers = 2.0 * tokens_chip * h * 2.0 + 2.0 * kBucketBytes;
  if (m.is_moe()) buffers += 2.0 * tokens_chip / d(l.tp) * d(m.moe.top_k) * h * 2.0;
  if (l.zero == 3) buffers += 2.0 * (dense_params + expert_params) / stage_layers * kWeightBytes;  // prefetch
  r.memory.comm_buffers = units::bytes(buffers);
  r.memory.capacity = hw.hbm_capacity.value * s.usable_hbm;
  if (explaining)
    say(fmt::format(
        "memory per GPU = weights {} + gradients {} + optimizer {} (ZeRO-{}) + activations {} ({} micro-batches "
        "in flight, recompute {}) + buffers {} = {} of {} usable (§24.2)",
        format(r.memory.weights), format(r.memory.gradients), format(r.memory.optimizer), l.zero,
        format(r.memory.activations), num(flights), l.recompute_label(), format(r.memory.comm_buffers),
        format(r.memory.total()), format(r.memory.capacity)));
  if (explaining && host_opt > 0)
    say(fmt::format(
        "optimizer offloaded to host memory: {} of its states, {} params x ({} B of states + {} B fp32 "
        "gradient) = {} per GPU (§24.2)",
        num(s.optimizer_offload), num(opt_params), num(ob), num(kHostGradBytes), format(units::bytes(host_opt))));
}

StageSet LayoutEval::stage_set() const {
  StageSet st;
  for (std::size_t i = 0; i < m.layers.size() && d(static_cast<int>(i)) < stage_layers; ++i) {
    const Layer& layer = m.layers[i];
    auto saved = [&](Recompute rc, DType g, unsigned modules, unsigned offload = 0) {
      return layer_activation_bytes(m, layer, seq, b, l.tp, l.cp, rc, s.dropout, s.flash_attention, g, modules, offload)
          .si();
    };
    // The selective set (attention's core recomputed), in the run's format and (for the
    // elementwise kernels' traffic below, priced on the bf16 set; FP8 casts come apart) in bf16,
    // each computed once.
    const double selective = saved(Recompute::kSelective, s.gemm, kRecomputeCoreAttn);
    const double selective_bf16 =
        s.gemm == DType::kBf16 ? selective : saved(Recompute::kSelective, DType::kBf16, kRecomputeCoreAttn);
    const bool as_selective = l.recompute == Recompute::kSelective && mods == kRecomputeCoreAttn;
    const double all_kept = as_selective ? selective : saved(l.recompute, s.gemm, mods);
    const double kept = s.offload == 0 ? all_kept : saved(l.recompute, s.gemm, mods, s.offload);
    st.offloaded += all_kept - kept;  // to host memory after the forward, back before the backward
    st.offload_layer = std::max(st.offload_layer, all_kept - kept);
    st.per_micro += kept;
    // A checkpointed block (the MoE block, a dense MLP, the shared experts) rebuilds its whole set
    // while its backward runs (model.md §24.2).
    if ((mods & kCheckpointedModules) != 0)
      st.rebuilt = std::max(st.rebuilt, saved(Recompute::kSelective, s.gemm, mods & ~kCheckpointedModules) - kept);
    st.norms_rerun += standalone_norms(m, layer).count();
    st.one_layer = std::max(st.one_layer, selective);
    st.touched += selective_bf16;
    if (layer.moe) st.routed += seq / d(l.cp) * b * d(m.moe.top_k) / d(l.tp);  // routed token copies on this chip
    if (layer.moe) {
      st.shared_width += d(m.moe.shared_ffn);
      st.shared_blocks += m.moe.shared_ffn > 0 ? 1.0 : 0.0;
    } else {
      st.mlp_width += d(layer.dense_ffn);
      st.mlp_blocks += layer.dense_ffn > 0 ? 1.0 : 0.0;
    }
    // The up projections' inputs: the query latent (or, without one, the hidden state) and the
    // key-value latent.
    if (mla_layer(m, layer))
      st.latents += (m.attn.q_lora_rank > 0 ? d(m.attn.q_lora_rank) : h) + d(m.attn.kv_lora_rank);
    const DenseWidths w = dense_widths(m, layer);
    st.cast_in += w.in;
    st.cast_out += w.out;
  }
  return st;
}

}  // namespace train_internal

}  // namespace llmecon
