// The training model's shared pieces (internal to src/train): layer widths, FLOP and activation
// helpers, and the per-micro-batch kernels, used by the memory, time and search files
// (docs/model.md §24).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string>

#include "ops/ops.hpp"
#include "parallel/comm.hpp"
#include "train/train.hpp"

namespace llmecon::train_internal {

inline double d(int v) {
  return static_cast<double>(v);
}
inline std::string num(double v) {
  return format_number(v);
}

// Bytes per parameter (model.md §24.2): bf16 weights (the ZeRO paper's mixed precision), the
// gradients in their accumulation format (TrainSetup::grad), and Adam's fp32 master weights with
// fp32 or bf16 moments.
constexpr double kWeightBytes = 2.0;
inline double optimizer_bytes(OptimizerState o) {
  return o == OptimizerState::kAdamFp32 ? 12.0 : 8.0;
}
// Bytes an FP8 cast moves per element (model.md §24.3): read 2 (bf16), write 1 for each copy (row-
// and column-wise: 2; a recast of one: 1); tensorwise current scaling reads the input once more
// for its amax first.
inline double fp8_cast_bytes(Fp8Recipe r, double copies = 2.0) {
  return 2.0 + copies + (r == Fp8Recipe::kTensorwise ? 2.0 : 0.0);
}
// The chip's first host tier, where offloaded activations and optimizer states go; none when the
// chip lists none or its bandwidth is unknown.
inline const HostTier* first_host_tier(const Hardware& hw) {
  return !hw.host_tiers.empty() && hw.host_tiers.front().bandwidth.si() > 0 ? &hw.host_tiers.front() : nullptr;
}
// An offloaded optimizer's host copy of each gradient: fp32, the format its update reads
// (Megatron-Core's HybridDeviceOptimizer copies the gradients into fp32 host tensors; model.md §24.2).
constexpr double kHostGradBytes = 4.0;
// Two gradient buckets of PyTorch DDP's default 25 MB in flight.
constexpr double kBucketBytes = 25e6;
// A fused attention kernel's backward runs at this share of its forward's FLOP rate: cuDNN's
// fused attention at sequence 4,096 and 16,384 reaches 422/553 and 523/638 TFLOP/s backward
// against forward on Hopper, 1083/1324 and 1298/1698 on Blackwell (the Megatron-Core MoE report,
// arXiv 2603.07685, Table 9): 0.76-0.82, mean 0.79 (model.md §24.3).
constexpr double kFusedAttentionBackwardRate = 0.79;

// Query, key, value and attention-output widths of a layer (model.md §24.2).
struct AttnDims {
  double q = 0, k = 0, v = 0, o = 0, heads = 0, qk_head = 0, v_head = 0;
};
inline AttnDims attn_dims(const ModelSpec& m) {
  const Attention& a = m.attn;
  AttnDims r;
  r.heads = d(a.heads);
  if (a.kind == AttentionKind::kMla) {
    r.qk_head = d(a.qk_nope_head_dim + a.qk_rope_head_dim);
    r.v_head = d(a.v_head_dim);
    r.q = r.heads * r.qk_head;
    r.k = r.heads * r.qk_head;  // training materializes per-head keys and values
    r.v = r.heads * r.v_head;
  } else {
    r.qk_head = d(a.head_dim);
    r.v_head = d(a.v_head_dim > 0 ? a.v_head_dim : a.head_dim);
    r.q = r.heads * r.qk_head;
    r.k = d(a.kv_heads) * r.qk_head;
    r.v = d(a.kv_heads) * r.v_head;
  }
  r.o = r.heads * r.v_head;
  return r;
}

// Summed input and output widths of a layer's dense linear layers, the ones an FP8 run casts per
// token (model.md §24.3): the attention's QKV and output projections, the dense MLP or the
// shared experts (the router stays in 16 bits; the routed experts are counted per copy).
struct DenseWidths {
  double in = 0, out = 0;
};
inline DenseWidths dense_widths(const ModelSpec& m, const Layer& layer) {
  const AttnDims a = attn_dims(m);
  const double h = d(m.d_model);
  const bool gated = m.mlp == MlpKind::kGated;
  DenseWidths w{h + a.o, a.q + a.k + a.v + h};
  const double f = layer.moe ? d(m.moe.shared_ffn) : d(layer.dense_ffn);
  if (f > 0) {
    w.in += h + f;
    w.out += (gated ? 2.0 : 1.0) * f + h;
  }
  return w;
}

// The experts' tensor-parallel degree: they split over the tensor group's columns only without
// expert parallelism; with it each expert is whole on its chip (model.md §24.3).
inline int expert_tp(const TrainLayout& l) {
  return l.ep == 1 ? l.tp : 1;
}

// Tokens of context one query attends to in a layer, counted in full (not causal).
inline double attended(const Layer& l, double seq) {
  switch (l.mixer) {
    case Mixer::kFull:
      return seq;
    case Mixer::kSliding:
    case Mixer::kChunked:
      return std::min(seq, d(l.window));
    case Mixer::kLinear:
      return 0.0;
  }
  return seq;
}

struct Split {
  double dense = 0, routed = 0, embed = 0, head = 0;
};
inline Split param_split(const ModelSpec& m) {
  Split s;
  s.routed = m.params_routed_experts();
  s.embed = m.params_embedding();
  s.head = m.tied_embeddings ? 0.0 : m.params_head();
  s.dense = m.params_total() - s.routed - s.embed - s.head;
  return s;
}

// ---- model.md §24.1: FLOPs ----

// One forward of attention's core per token, counted in full: 2 T_l H (d_qk + d_v) a layer (what
// selective recomputation repeats).
inline double attention_core_flops_per_token(const ModelSpec& m, double seq_len) {
  const AttnDims a = attn_dims(m);
  double attn = 0;
  for (const auto& l : m.layers) attn += 2.0 * attended(l, seq_len) * a.heads * (a.qk_head + a.v_head);
  return attn;
}
// The scores' share of attention's core FLOPs: QK^T of QK^T and PV (1/2 when d_qk = d_v).
inline double scores_share(const ModelSpec& m) {
  const AttnDims a = attn_dims(m);
  return a.qk_head + a.v_head > 0 ? a.qk_head / (a.qk_head + a.v_head) : 0.5;
}

// ---- model.md §24.2: activations ----

// Bytes per element of an MLP's width f that it keeps for backward: its activation's inputs in
// bf16 (gated: gate and up, 4; plain: 2) and the down projection's input in the GEMMs' format g
// (Transformer Engine saves an FP8 GEMM's input quantized: 1 byte).
inline double mlp_width_bytes(const ModelSpec& m, double g) {
  return (m.mlp == MlpKind::kGated ? 4.0 : 2.0) + g;
}

// Bytes a routed token copy keeps for backward: the expert's input (g h) and its MLP's (above).
inline double routed_copy_bytes(const ModelSpec& m, double g) {
  return g * d(m.d_model) + mlp_width_bytes(m, g) * d(m.moe.expert_ffn);
}

// The norms of a layer that stand alone, the ones the `layernorm` module recomputes (model.md
// §24.2): MLA's input norm and an MoE layer's pre-MLP norm. Transformer Engine fuses the others
// into the linear that follows.
struct StandaloneNorms {
  bool attn = false;  ///< MLA's input norm
  bool mlp = false;   ///< an MoE layer's pre-MLP norm
  [[nodiscard]] double count() const { return (attn ? 1.0 : 0.0) + (mlp ? 1.0 : 0.0); }
};
// A layer whose mixer is MLA attention (not a linear-attention layer of a hybrid model).
inline bool mla_layer(const ModelSpec& m, const Layer& layer) {
  return m.attn.kind == AttentionKind::kMla && layer.mixer != Mixer::kLinear;
}
inline StandaloneNorms standalone_norms(const ModelSpec& m, const Layer& layer) {
  return {mla_layer(m, layer), static_cast<bool>(layer.moe)};
}

// The model's MoE layers.
inline double moe_layer_count(const ModelSpec& m) {
  double n = 0;
  for (const Layer& layer : m.layers) n += layer.moe ? 1.0 : 0.0;
  return n;
}

// Micro-batches whose activations the first stage holds at once.
inline double in_flight(PipeSchedule s, int p, double m, int chunks) {
  const double pp = d(p);
  switch (s) {
    case PipeSchedule::k1F1B:
    case PipeSchedule::kZeroBubble:
      return std::min(pp, m);
    case PipeSchedule::kInterleaved:
      return std::min(pp, m) * (1.0 + (pp - 1.0) / (pp * d(std::max(1, chunks))));
    case PipeSchedule::kDualPipe:
      return std::min(pp + 1.0, m);
  }
  return std::min(pp, m);
}

// ---- model.md §24.3: kernels ----

// A ring collective of S bytes per chip over n chips, `domain` of them per scale-up domain, at the
// collective efficiency; across domains on a chip whose cluster measured its collectives, never
// faster than the measured bus bandwidth at that many nodes gives (model.md §15.4).
inline Seconds ring_collective(Collective c, int n, Bytes bytes, const Hardware& hw, int domain,
                               const Efficiency& eff) {
  if (n <= 1) return Seconds{};
  const int dom = std::max(1, domain);
  const Seconds modelled = group_collective_time(c, Algorithm::kRing, n, bytes, hw, dom) / eff.comm;
  const std::optional<Seconds> measured = measured_collective_time(c, n, bytes, hw, dom);
  return measured ? max(modelled, *measured) : modelled;
}
inline Seconds all_reduce(int n, Bytes bytes, const Hardware& hw, int domain, const Efficiency& eff) {
  return ring_collective(Collective::kAllReduce, n, bytes, hw, domain, eff);
}

// MLA's up projections among the step model's GEMMs (model.md §24.2): the query's and the
// key-value decompression, a GEMM booked under attention's core. The query's reads the query
// latent; without one (q_lora_rank 0) it is the plain query projection from the hidden state,
// which Megatron's up-projection checkpoint reruns all the same.
inline bool mla_up_projection(const ModelSpec& m, OpKind kind, double depth, double cols) {
  if (m.attn.kind != AttentionKind::kMla || depth <= 0) return false;
  if (kind == OpKind::kAttnCore) return true;
  if (kind != OpKind::kQkvProj) return false;
  if (m.attn.q_lora_rank > 0) return depth == d(m.attn.q_lora_rank);
  return depth == d(m.d_model) && cols == d(m.attn.heads) * d(m.attn.qk_nope_head_dim + m.attn.qk_rope_head_dim);
}

struct Forward {
  Seconds total{}, attention{}, experts{};
  /// What selective modules rerun (model.md §24.2): MLA's up projections (the query's and the
  /// key-value decompression), the dense MLPs' and the shared experts' GEMMs.
  Seconds up_proj{}, mlp{}, shared{}, router{};
  Seconds attention_backward{};              ///< attention's core backward, scores recomputed (fused) or not
  double exp_forward = 1, exp_backward = 1;  ///< the exponential units' slow-down of each pass
  double score_flops = 0;                    ///< attention's forward FLOPs per score
  FlopsPerSecond attn_peak{};                ///< the peak of attention's format
};

// How much slower than its tensor cores a fused attention pass runs because each score takes one
// exponential on the special-function units (model.md §24.3): the pass does `flops_per_score`
// FLOPs a score, so those units cap it at exp_rate x flops_per_score; 1 where they do not bind or
// the chip states no rate.
inline double exp_ceiling(const Hardware& hw, FlopsPerSecond peak, double flops_per_score) {
  if (!hw.exp_rate || flops_per_score <= 0) return 1.0;
  return std::max(1.0, peak / (*hw.exp_rate * flops_per_score));
}

// One micro-batch's forward kernels as one chip of the layout meets them (model.md §24.3), from
// the serving step's kernels of b sequences with two changes:
// - training computes logits for every token, not each sequence's last;
// - the routed experts' GEMMs are those of the expert-parallel group: its ep ranks each send
//   their tokens' k copies (a tensor group's sequence-parallel slice each) to the ep x etp chips
//   holding the experts, so a chip's local expert sees ep x etp / (tp x cp) sequences' worth of
//   rows and reads only its own experts' weights (ChipShare::experts = ep x etp).
inline StepCost training_pass(const ModelSpec& m, const TrainLayout& l, double b, double seq, const Precision& prec) {
  StepCost sc = step_cost(m, Step{Phase::kPrefill, b, seq, 0}, prec, ExpertTouch::kExpected, false);
  for (Kernel& k : sc.kernels) {
    if (k.kind != OpKind::kLmHead) continue;
    k.rows *= seq;
    k.flops = k.flops * seq;
    k.act = k.act * seq;
  }
  if (!m.is_moe()) return sc;
  const int etp = expert_tp(l);
  const double group = b * d(l.ep * etp) / d(l.tp * l.cp);
  const StepCost routed = step_cost(m, Step{Phase::kPrefill, group, seq, 0}, prec, ExpertTouch::kExpected, false);
  std::erase_if(sc.kernels, [](const Kernel& k) { return k.kind == OpKind::kExperts; });
  for (const Kernel& k : routed.kernels)
    if (k.kind == OpKind::kExperts) sc.kernels.push_back(k);
  return sc;
}

// One micro-batch's forward through one stage on one chip, from the per-operator step model
// (model.md §18): the worst stage runs ceil(L / pp) layers and 1/pp of the output head, or, with
// --pipeline-split even, every stage ceil(L / pp) layers but the last, which runs the rest and the
// whole head, the slower of the two setting the pace.
inline Forward stage_forward(const TrainSetup& s, const TrainLayout& l, const StepCost& sc, const Precision& prec) {
  const ModelSpec& m = *s.model;
  const double share = d(l.tp * l.cp);
  const double L = d(m.n_layers());
  double worst = std::ceil(L / d(l.pp)) / (L / d(l.pp));
  // Routed experts are whole on the chips of their expert-parallel group (or split over the tensor
  // group's columns without one): the chip holds experts / (ep x etp) of them (model.md §24.3).
  const int etp = expert_tp(l);
  const OperatorTimes ops = operator_times(
      sc, *s.hw, prec, s.eff, ChipShare{share, d(l.tp), d(l.cp), d(l.tp), d(l.ep * etp), share, share, d(l.pp), d(etp)},
      L, true);
  Forward f;
  Seconds ops_extra{}, head{};
  // A fused attention forward takes one exponential per score over 2 (d_qk + d_v) FLOPs; its
  // backward one (the recomputed softmax) over 2 + the scores' share times as many (model.md §24.3).
  const AttnDims dims = attn_dims(m);
  f.score_flops = 2.0 * (dims.qk_head + dims.v_head);
  f.attn_peak = s.hw->peak(wider(prec.kv, prec.act));
  const double backward_flops = 2.0 + scores_share(m);
  if (s.flash_attention) {
    f.exp_forward = exp_ceiling(*s.hw, f.attn_peak, f.score_flops);
    f.exp_backward = exp_ceiling(*s.hw, f.attn_peak, f.score_flops * backward_flops);
  }
  for (const KernelTime& k : ops.detail) {
    const Seconds t = max(k.compute, k.memory) * k.launches;
    if (mla_up_projection(m, k.kind, k.depth, k.cols * d(l.tp))) f.up_proj += t;  // chip columns x tp
    if (k.kind == OpKind::kMlp) f.mlp += t;
    if (k.kind == OpKind::kSharedExperts) f.shared += t;
    if (k.kind == OpKind::kRouter) f.router += t;
    // GEMMs the step model books under attention's core or the indexer (MLA's key-value
    // decompression, the indexer's projections) run and differentiate as GEMMs, not as the fused
    // kernel.
    if ((k.kind == OpKind::kAttnCore || k.kind == OpKind::kIndexer) && k.depth <= 0) {
      // A fused attention kernel computes at its own rate over the keys one call sweeps (model.md
      // §24.3), not a GEMM's: its compute-bound time scales by e_c over that rate, and the
      // softmax's exponentials cap the core's (an indexer's scores take none). Under context
      // parallelism each ring step's call sweeps one chunk of seq / cp keys.
      Seconds at = t;
      const bool fa2 = s.attention_kernel == AttentionKernel::kFa2;
      if (s.flash_attention && k.compute > k.memory && s.eff.attention_rated(fa2))
        at = t * (s.eff.compute / s.eff.attention_at(s.seq_len / d(l.cp), fa2));
      const bool exps = k.kind == OpKind::kAttnCore && k.compute > k.memory;
      const Seconds capped = exps ? at * f.exp_forward : at;
      f.attention += capped;
      f.attention_backward += exps ? at * f.exp_backward : at;
      ops_extra += capped - t;
    }
    if (k.kind == OpKind::kExperts) f.experts += t;
    if (k.kind == OpKind::kLmHead) head += t;
  }
  // Whole layers per stage and the output head on the last (model.md §24.3): the pass above spreads
  // the head over the stages (1/pp each), as a split balanced around it would; Megatron's default
  // split gives every stage ceil(L / pp) whole layers but the last, which holds the rest,
  // L - (pp - 1) ceil(L / pp), and the head's logits. In units of the spread stage's busy time: a
  // layer takes (1 - h) pp / L and the whole head h pp.
  if (s.pipeline_split == PipelineSplit::kEven && l.pp > 1 && ops.busy.si() > 0) {
    const double pp = d(l.pp), per_stage = std::ceil(L / pp), rest = std::max(0.0, L - (pp - 1.0) * per_stage);
    const double h = head / ops.busy, layer = (1.0 - h) * pp / L;
    worst = std::max(per_stage * layer, rest * layer + h * pp);
  }
  // Without a fused attention kernel the scores are written and read in HBM (model.md §24.3):
  // QK^T written (2 B), masked softmax read and written (4 B), dropout read, written and its mask
  // (5 B), read by the product with V (2 B): 13 bytes per score, each layer.
  if (!s.flash_attention) {
    const AttnDims a = attn_dims(m);
    double scores = 0;
    for (const auto& layer : m.layers) scores += a.heads / d(l.tp) * (s.seq_len / d(l.cp)) * attended(layer, s.seq_len);
    const Seconds t =
        units::bytes(13.0 * scores * l.micro_batch / d(l.pp)) / (s.hw->hbm_bandwidth.value * s.eff.memory);
    f.attention += t;
    f.attention_backward += t;
    ops_extra += t;
  }
  const double scale = worst / s.kernel_efficiency;
  f.total = (ops.busy + ops.launches + ops_extra + f.experts * (s.moe_imbalance - 1.0)) * scale;
  f.attention = f.attention * scale;
  // Backward is twice forward, but a fused attention kernel recomputes the scores QK^T from the
  // saved softmax statistics (FlashAttention-2's backward: five matmuls to the forward's two), so
  // attention's core does 2 + its scores' share (2.5 when d_qk = d_v) of its forward's FLOPs, at
  // kFusedAttentionBackwardRate of the forward's rate (§24.3).
  f.attention_backward =
      f.attention_backward * (s.flash_attention ? backward_flops / kFusedAttentionBackwardRate : 2.0) * scale;
  f.experts = f.experts * s.moe_imbalance * scale;
  f.up_proj = f.up_proj * scale;
  f.mlp = f.mlp * scale;
  f.shared = f.shared * scale;
  f.router = f.router * scale;
  return f;
}

// What the layouts of one setup share: the model's totals (per-layer sums), read by every
// evaluation.
struct ModelTotals {
  Split split;
  double flops_per_token = 0;  ///< model FLOPs per token (§24.1)
  double attention_core = 0;   ///< attention's core forward FLOPs per token
  double active_matmul = 0;    ///< N_active's matmul parameters
  double params_total = 0, params_expert = 0, moe_layers = 0;
};
inline ModelTotals model_totals(const ModelSpec& m, double seq_len) {
  return {param_split(m),
          model_flops_per_token(m, seq_len).si(),
          attention_core_flops_per_token(m, seq_len),
          m.params_active_matmul(),
          m.params_total(),
          m.is_moe() ? m.params_expert() : 0.0,
          moe_layer_count(m)};
}

// The sums over the worst stage's layers (§24.2) that memory and the time terms read; they depend
// on tp, cp, pp, the micro-batch and recomputation only.
struct StageSet {
  double per_micro = 0, one_layer = 0;
  double rebuilt = 0;        ///< a checkpointed block's set
  double offload_layer = 0;  ///< the most of one layer's set sent to host memory
  double offloaded = 0, norms_rerun = 0, touched = 0, routed = 0, shared_width = 0, shared_blocks = 0;
  double mlp_width = 0, mlp_blocks = 0, latents = 0, cast_in = 0, cast_out = 0;
};

// One micro-batch's pass: the kernels and the stage's forward depend on tp, cp, pp, ep and the
// micro-batch only (not on ZeRO, recomputation or the schedule).
struct CachedPass {
  StepCost pass;
  Forward forward;
};

// What the search's layouts share, worked out once for the first layout that needs it.
struct SearchCache {
  ModelTotals totals;
  std::map<std::array<int, 5>, CachedPass> passes;  ///< tp, cp, pp, ep, micro-batch
  std::map<std::array<int, 6>, StageSet> stages;    ///< tp, cp, pp, micro-batch, recompute, modules
};

// evaluate_training with the search's cache: a layout that does not fit stops after its memory,
// with no time.
TrainResult evaluate_layout(const TrainSetup& s, const TrainLayout& l, bool explain, SearchCache* cache);

}  // namespace llmecon::train_internal
