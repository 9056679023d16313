// One training layout: memory per GPU, time per step, the whole run with failures and its
// explanation (docs/model.md §24.2-24.5).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "internal.hpp"
#include "layout_eval.hpp"
#include "train/train.hpp"

namespace llmecon {

using train_internal::all_reduce;
using train_internal::attention_core_flops_per_token;
using train_internal::d;
using train_internal::dense_widths;
using train_internal::DenseWidths;
using train_internal::expert_tp;
using train_internal::Forward;
using train_internal::in_flight;
using train_internal::kBucketBytes;
using train_internal::kWeightBytes;
using train_internal::mla_layer;
using train_internal::mla_up_projection;
using train_internal::moe_layer_count;
using train_internal::num;
using train_internal::optimizer_bytes;
using train_internal::param_split;
using train_internal::routed_copy_bytes;
using train_internal::scores_share;
using train_internal::Split;
using train_internal::stage_forward;
using train_internal::StageSet;
using train_internal::standalone_norms;
using train_internal::training_pass;

// ---- model.md §24.3: one layout ----
namespace train_internal {

void LayoutEval::flops() {
  domain = hw.domain_size;
  L = d(m.n_layers());
  seq = s.seq_len;
  b = l.micro_batch;
  micro = s.global_batch / (b * d(l.dp));
  chips = d(l.chips());
  h = d(m.d_model);
  r.time.micro_batches = micro;

  // §24.1 FLOPs.
  // Full recomputation and reversible layers both rerun the whole forward in the backward.
  refwd = l.recompute == Recompute::kFull || l.recompute == Recompute::kReversible;
  tokens_step = s.global_batch * seq;
  r.model_flops = units::flops(tot.flops_per_token * tokens_step);
  double recompute_flops = 0;
  mods = l.recompute == Recompute::kSelective ? applicable_modules(m, l.modules) : 0U;
  refwd_moe = refwd || recomputes(kRecomputeMoe);  // the MoE blocks' forward runs again
  if (recomputes(kRecomputeCoreAttn)) recompute_flops = tot.attention_core;
  if (refwd) recompute_flops = 2.0 * tot.active_matmul + tot.attention_core;
  if (s.flash_attention) recompute_flops += scores_share(m) * tot.attention_core;  // §24.3
  r.hardware_flops = r.model_flops + units::flops(recompute_flops * tokens_step);
  if (explaining)
    say(fmt::format("model FLOPs per token = 6 N + 12 L H Q T (PaLM) = 6 x {} + attention = {} (§24.1)",
                    num(tot.active_matmul), format(units::flops(tot.flops_per_token))));
}

void LayoutEval::compute() {
  // §24.3 time per micro-batch on the slowest stage.
  Precision prec;
  prec.weights = prec.experts = prec.act = s.gemm;
  prec.kv = s.attention;  // attention's core runs at the wider of this and the GEMMs' format
  StepCost local;
  const StepCost* pass = &local;
  if (cache != nullptr) {
    auto [it, fresh] = cache->passes.try_emplace({l.tp, l.cp, l.pp, l.ep, static_cast<int>(l.micro_batch)});
    if (fresh) {
      it->second.pass = training_pass(m, l, b, seq, prec);
      it->second.forward = stage_forward(s, l, it->second.pass, prec);
    }
    pass = &it->second.pass;
    fw = it->second.forward;
  } else {
    local = training_pass(m, l, b, seq, prec);
    fw = stage_forward(s, l, local, prec);
  }
  const StepCost& sc = *pass;
  // Selective modules' GEMMs run again in the backward (model.md §24.2): their FLOPs join HFU.
  if ((mods & (kRecomputeMlaUpProj | kRecomputeMlp | kRecomputeSharedExperts | kRecomputeMoe)) != 0) {
    const bool moe_again = recomputes(kRecomputeMoe);
    double again = 0;
    for (const Kernel& k : sc.kernels) {
      if ((recomputes(kRecomputeMlaUpProj) && mla_up_projection(m, k.kind, k.depth, k.cols)) ||
          (recomputes(kRecomputeMlp) && k.kind == OpKind::kMlp) ||
          ((recomputes(kRecomputeSharedExperts) || moe_again) && k.kind == OpKind::kSharedExperts) ||
          (moe_again && k.kind == OpKind::kRouter))
        again += k.flops.si() * k.count;
    }
    again /= b * seq;
    // The routed experts' FLOPs per token, top_k experts in each MoE layer (sc books them for the
    // expert-parallel group's tokens).
    if (moe_again) again += 2.0 * d(m.moe.top_k) * tot.params_expert * tot.moe_layers;
    r.hardware_flops += units::flops(again * tokens_step);
  }
  // The elementwise kernels between GEMMs (norms, activations, residuals, format casts) write each
  // activation of the layer's set once forward, then read it and write its gradient backward: 3
  // passes over Korthikanti's bytes at HBM bandwidth, one forward and two backward (model.md
  // §24.3). The step model's per-kernel memory time covers the GEMMs' own inputs and outputs only.
  // A routed copy instead costs its own kernels' bytes, as Megatron-Core runs them: forward the
  // permutation (read and write h), the activation (gated: read 2 f_e, write f_e) and the inverse
  // permutation's read; backward the two permutations' gradients and the activation's (read its
  // gradient and saved input, write the input's gradient); in FP8 each expert GEMM's input and
  // output gradient is also cast, row- and column-wise (read 2 bytes, write 1 + 1).
  const double fe = m.is_moe() ? d(m.moe.expert_ffn) : 0.0;
  const bool gated = m.mlp == MlpKind::kGated, cast = s.gemm == DType::kFp8;
  const double cb = cast ? fp8_cast_bytes(s.fp8_recipe) : 0.0;  // per element cast (§24.3)
  const double copy_fwd = 6.0 * h + (gated ? 6.0 : 4.0) * fe + cb * (h + fe);
  const double copy_bwd = 8.0 * h + (gated ? 10.0 : 6.0) * fe + cb * (h + (gated ? 2.0 : 1.0) * fe);
  const double dense_touched = m.is_moe() ? touched - routed * routed_copy_bytes(m, 2.0) : touched;
  // The dense FP8 GEMMs cast theirs the same way: each linear's input forward and its output's
  // gradient backward, on this chip's tokens and tensor-parallel share of the widths.
  const double cast_fwd = cb * tokens_chip * cast_in / d(l.tp);
  const double cast_bwd = cb * tokens_chip * cast_out / d(l.tp);
  hbm = hw.hbm_bandwidth.value * s.eff.memory;
  elementwise_fwd = units::bytes(dense_touched + routed * copy_fwd + cast_fwd) / hbm;
  elementwise_bwd = units::bytes(2.0 * dense_touched + routed * copy_bwd + cast_bwd) / hbm;
  // Backward: twice the forward's GEMMs, and attention's core as stage_forward prices it (§24.3).
  attention_backward = fw.attention.si() > 0 ? fw.attention_backward / fw.attention : 0.0;
  fwd = fw.total + elementwise_fwd;
  bwd = (fw.total - fw.attention) * 2.0 + fw.attention_backward + elementwise_bwd;
  // What recomputation reruns in the backward (model.md §24.2): the whole forward, or the selective
  // modules': attention's core; MLA's up projections; the dense MLPs' and shared experts' GEMMs and
  // activations; the norms (read h, write h, and in FP8 the GEMM input cast again, read 2 and
  // write 1 byte); the experts' activation (as in its forward, and its FP8 cast). In FP8 a rerun
  // GEMM casts its input again, row- and column-wise (read 2 bytes, write 1 + 1): the MLPs' and
  // shared experts' inputs (h) and down projections' inputs (f), MLA's latents. Tensorwise current
  // scaling reads each cast's input once more for its amax (2 bytes more per element).
  if (refwd) {
    rec = fw.total;
  } else if (mods != 0) {
    const double act = gated ? 6.0 : 4.0, recast = cb;
    const double single = cast ? fp8_cast_bytes(s.fp8_recipe, 1.0) : 0.0;
    double bytes = 0;
    if (recomputes(kRecomputeCoreAttn)) rec += fw.attention;
    if (recomputes(kRecomputeMlaUpProj)) {
      rec += fw.up_proj;
      bytes += tokens_chip * recast * latents / d(l.tp);
    }
    if (recomputes(kRecomputeMlp)) {
      rec += fw.mlp;
      bytes += tokens_chip * (act * mlp_width + recast * (mlp_blocks * h + mlp_width)) / d(l.tp);
    }
    if (recomputes(kRecomputeSharedExperts) || recomputes(kRecomputeMoe)) {
      rec += fw.shared;
      bytes += tokens_chip * (act * shared_width + recast * (shared_blocks * h + shared_width)) / d(l.tp);
    }
    if (recomputes(kRecomputeMoe)) rec += fw.router + fw.experts + units::bytes(routed * copy_fwd) / hbm;
    if (recomputes(kRecomputeLayernorm)) bytes += norms_rerun * tokens_chip / d(l.tp) * h * (4.0 + single);
    if (recomputes(kRecomputeMoeAct) && !recomputes(kRecomputeMoe)) bytes += routed * (act + single) * fe;
    rec += units::bytes(bytes) / hbm;
  }
}

void LayoutEval::communication() {
  // Tensor (sequence) parallelism: an all-gather and a reduce-scatter around each block, forward
  // and backward, and again in a full recompute.
  stage_moe = tot.moe_layers * stage_layers / L;
  const double blocks = stage_layers + (stage_layers - stage_moe);
  const Bytes block_bytes = units::bytes(tokens_chip * h * 2.0);
  const double passes = refwd ? 3.0 : 2.0;
  // A recomputed dense MLP gathers and scatters again (model.md §24.3).
  const double rerun_blocks = recomputes(kRecomputeMlp) ? stage_layers - stage_moe : 0.0;
  tp_mb = all_reduce(l.tp, block_bytes, hw, domain, s.eff) * (blocks * passes + rerun_blocks);
  // Expert parallelism: dispatch (the GEMM format) and combine (bf16), forward and backward.
  if (m.is_moe() && l.ep > 1) {
    const int ranks = std::max(1, domain / (l.tp * l.cp));
    const double tok = tokens_chip / d(l.tp);
    auto a2a = [&](double token_bytes) {
      return expert_all_to_all(l.ep, ranks, m.moe.top_k, m.moe.group_limit, tok, token_bytes, hw) / s.eff.comm;
    };
    // Forward and backward, and again where the MoE block is recomputed (§24.2).
    ep_mb = (a2a(h * bytes_per_element(s.gemm)) + a2a(h * 2.0)) * ((refwd_moe ? 3.0 : 2.0) * stage_moe);
  }
  // Context parallelism: each layer's K and V chunks pass around the ring, forward; keys, values and
  // their gradients backward.
  if (l.cp > 1) {
    double kv = 0;
    for (std::size_t i = 0; i < m.layers.size() && d(static_cast<int>(i)) < stage_layers; ++i)
      kv += m.kv_bytes_per_token_layer(m.layers[i], DType::kBf16);
    const Link& link = l.tp * l.cp <= domain ? hw.scale_up : hw.scale_out;
    cp_mb = collective_time(Collective::kAllGather, Algorithm::kRing, l.cp, units::bytes(kv * tokens_chip * d(l.cp)),
                            link) *
            3.0 / s.eff.comm;
  }
  // Pipeline: activations forward and their gradients back, at each boundary a chunk crosses.
  if (l.pp > 1) {
    const Link& link = l.chips() <= domain ? hw.scale_up : hw.scale_out;
    const double crossings = l.schedule == PipeSchedule::kInterleaved ? d(l.chunks) : 1.0;
    pp_mb = collective_time(Collective::kSendRecv, Algorithm::kDirect, 2, units::bytes(tokens_chip * h * 2.0 / d(l.tp)),
                            link) *
            (2.0 * crossings) / s.eff.comm;
  }
  // What stays exposed: TP by the stated overlap; CP under the attention it feeds; EP but the
  // stated share overlapped with another micro-batch's compute (Megatron-Core's 1F1B all-to-all
  // overlap), all of it under DualPipe; never more than that compute.
  compute_mb = fwd + bwd + rec;
  tp_exp = tp_mb * (1.0 - s.tp_overlap);
  cp_exp = max(Seconds{}, cp_mb - fw.attention * 3.5);
  const double ep_share = l.schedule == PipeSchedule::kDualPipe ? 1.0 : s.ep_overlap;
  const Seconds ep_hidden = min(ep_mb * ep_share, compute_mb);
  // The hidden all-to-all still holds its SMs: the compute beside it runs on the rest, so it
  // finishes ep_comm_sms / SMs of the hidden time later (model.md §24.3).
  const double sm_share = s.eff.compute_units > 0 ? std::min(1.0, s.ep_comm_sms / s.eff.compute_units) : 0.0;
  ep_exp = ep_mb - ep_hidden + ep_hidden * sm_share;
  const Seconds comm_mb = tp_exp + cp_exp + ep_exp + pp_mb;
  // MoE host time (model.md §24.3): after each dispatch's device-to-host synchronization (the
  // tokens per expert), the host launches every local expert's GEMMs and casts one at a time, and
  // the device waits on it; a third forward, two thirds backward, as the GEMMs split, and a full
  // recomputation's forward again. A chip holds E / ep experts (a tensor-parallel slice of each
  // when ep = 1) and launches each one's.
  local_experts = m.is_moe() ? d(m.moe.experts) / d(l.ep) : 0.0;
  const Seconds host_pass = s.expert_host * (stage_moe * local_experts) / 3.0;  // one forward's share
  host_mb = host_pass * (refwd_moe ? 4.0 : 3.0);
  // Activation offloading (model.md §24.3): a micro-batch's offloaded set crosses the host link
  // once each way on its own stream, beside the pass that makes it (forward) or needs it
  // (backward); what that pass's compute does not cover is exposed.
  if (offloaded > 0 && tier != nullptr) {
    off_each = units::bytes(offloaded) / tier->bandwidth;
    off_fwd = max(Seconds{}, off_each - fwd);
    off_bwd = max(Seconds{}, off_each - (compute_mb - fwd));
  }
  t_f = fwd + comm_mb / 3.0 + host_pass + off_fwd;
  t_b = compute_mb - fwd + comm_mb * (2.0 / 3.0) + (host_mb - host_pass) + off_bwd;
  bubble = pipeline_bubble(l.schedule, l.pp, l.chunks, t_f, t_b);
  pipe = (t_f + t_b) * micro + bubble;
}

void LayoutEval::data_parallel() {
  // Data parallelism: gradients all-reduced in their format under ZeRO-0; under ZeRO-1 and up
  // reduce-scattered in their format and the bf16 parameters gathered (a ring all-reduce's two
  // halves), over the dense and the expert replicas; ZeRO-3 gathers per micro-batch.
  const int dp_domain = std::max(1, domain / (l.tp * l.cp));
  const int ep_domain = std::max(1, domain / (l.ep * etp));
  // ZeRO-1 and up: a reduce-scatter of the gradients and an all-gather of the weights, which on
  // one ring cost what an all-reduce of their mean does; a measured cluster times each apart.
  auto grad_sync = [&](double params, double replicas, int dom) {
    const int n = static_cast<int>(std::lround(replicas));
    if (l.zero == 0) return all_reduce(n, units::bytes(params * gb), hw, dom, s.eff);
    return ring_collective(Collective::kReduceScatter, n, units::bytes(params * gb), hw, dom, s.eff) +
           ring_collective(Collective::kAllGather, n, units::bytes(params * kWeightBytes), hw, dom, s.eff);
  };
  dp_total = grad_sync(dense_params, dense_replicas, dp_domain) + grad_sync(expert_params, expert_replicas, ep_domain);
  if (l.zero == 3) dp_total = dp_total * (1.0 + micro);  // the forward's and backward's gathers, every micro-batch
  // What can hide it (model.md §24.3): ZeRO-3's gathers run beside every micro-batch's compute.
  // Otherwise the gradients are final only in the last micro-batch's backward, so their reduction
  // hides under that backward and the pipeline's cool-down; ZeRO-1/2's gather of the updated
  // weights hides under the next step's first forward and the warm-up.
  Seconds hidden{};
  if (l.zero == 3) {
    hidden = min(dp_total * s.dp_overlap, compute_mb * micro);
  } else {
    const double reduce_share = l.zero == 0 ? 1.0 : gb / (gb + kWeightBytes);
    const Seconds reduce = dp_total * reduce_share, gather = dp_total - reduce;
    hidden = min(reduce * s.dp_overlap, t_b + bubble / 2.0) + min(gather * s.dp_overlap, t_f + bubble / 2.0);
  }
  dp_exp = dp_total - hidden;
  // The optimizer reads and writes its states, reads gradients and writes weights, in HBM for the
  // share it keeps. The offloaded share's gradients go to the host and its new weights come back
  // over the host tier, and the host's update reads and writes the states, reads the fp32
  // gradients and writes the bf16 weights, at the same tier's bandwidth (model.md §24.3).
  const double f_off = std::clamp(s.optimizer_offload, 0.0, 1.0);
  opt = units::bytes(opt_params * (1.0 - f_off) * (2.0 * ob + gb + kWeightBytes)) / hbm;
  opt_host = Seconds{};
  if (f_off > 0 && tier != nullptr) {
    const double copies = gb + kWeightBytes, update = 2.0 * ob + kHostGradBytes + kWeightBytes;
    opt_host = units::bytes(opt_params * f_off * (copies + update)) / tier->bandwidth;
    if (explaining)
      say(fmt::format("optimizer on the host: {} params x (copies {} B + update {} B) / {} ({}) = {} (§24.3)",
                      num(opt_params * f_off), num(copies), num(update), format(tier->bandwidth), tier->name,
                      format(opt_host)));
  }
  opt = opt + opt_host;
}

void LayoutEval::step_time() {
  TrainTime& t = r.time;
  t.forward = fwd * micro;
  t.backward = bwd * micro;
  t.elementwise = (elementwise_fwd + elementwise_bwd) * micro;
  t.recompute = rec * micro;
  t.tp_comm_total = tp_mb * micro;
  t.cp_comm_total = cp_mb * micro;
  t.ep_comm_total = ep_mb * micro;
  t.pp_comm_total = pp_mb * micro;
  t.dp_comm_total = dp_total;
  t.tp_comm = tp_exp * micro;
  t.cp_comm = cp_exp * micro;
  t.ep_comm = ep_exp * micro;
  t.pp_comm = pp_mb * micro;
  t.dp_comm = dp_exp;
  t.bubble = bubble;
  t.optimizer = opt;
  t.optimizer_host = opt_host;
  t.host = host_mb * micro;
  t.offload = (off_fwd + off_bwd) * micro;
  t.offload_total = off_each * 2.0 * micro;
  t.step = pipe + dp_exp + opt + s.eff.step_overhead;
  t.bubble_fraction = bubble / t.step;
  if (explaining)
    say(
        fmt::format("per micro-batch on the slowest stage ({} of {} layers): forward {} (elementwise {}), backward {} "
                    "(2 x the GEMMs, {} x attention's core, elementwise {}), recompute {} (§24.3)",
                    num(stage_layers), num(L), format(fwd), format(elementwise_fwd), format(bwd),
                    num(attention_backward), format(elementwise_bwd), format(rec)));
  if (fw.exp_forward > 1.0 || fw.exp_backward > 1.0)
    if (explaining)
      say(
          fmt::format("softmax exponentials: {} T a second x {} FLOPs per score cap attention's forward at {} "
                      "against its format's peak {}: forward x {:.3f}, backward x {:.3f} (§24.3)",
                      num(hw.exp_rate->si() / 1e12), num(fw.score_flops), format(*hw.exp_rate * fw.score_flops),
                      format(fw.attn_peak), fw.exp_forward, fw.exp_backward));
  if (host_mb.si() > 0)
    if (explaining)
      say(
          fmt::format("MoE host time per micro-batch = {} per local expert x {} local experts x {} MoE layers{} = {} "
                      "(§24.3)",
                      format(s.expert_host), num(local_experts), num(stage_moe),
                      refwd_moe ? " x 4/3 (the recomputed forward)" : "", format(host_mb)));
  if (off_each.si() > 0)
    if (explaining)
      say(
          fmt::format("offloaded per micro-batch: {} ({}) to the {} tier at {}: {} each way, exposed {} forward and {} "
                      "backward (§24.3)",
                      format(units::bytes(offloaded)), offload_modules_name(s.offload), tier->name,
                      format(tier->bandwidth), format(off_each), format(off_fwd), format(off_bwd)));
  if (explaining)
    say(fmt::format("exposed communication per micro-batch: tp {} of {}, cp {} of {}, ep {} of {}, pp {}",
                    format(tp_exp), format(tp_mb), format(cp_exp), format(cp_mb), format(ep_exp), format(ep_mb),
                    format(pp_mb)));
  if (explaining)
    say(fmt::format("pipeline = {} micro-batches x {} + bubble {} ({}) = {}", num(micro), format(t_f + t_b),
                    format(bubble), name(l.schedule), format(pipe)));
  if (explaining)
    say(fmt::format("step = pipeline {} + exposed data-parallel {} of {} + optimizer {} + fixed {} = {}", format(pipe),
                    format(dp_exp), format(dp_total), format(opt), format(s.eff.step_overhead), format(t.step)));

  const FlopsPerSecond peak = hw.peak(DType::kBf16);
  r.mfu = r.model_flops / (t.step * chips * peak);
  r.hfu = r.hardware_flops / (t.step * chips * peak);
  r.tokens_per_s = units::tokens_per_s(tokens_step / t.step.si());
  if (explaining)
    say(fmt::format("MFU = {} / ({} x {} chips x {}) = {:.1f}%; HFU {:.1f}%", format(r.model_flops), format(t.step),
                    num(chips), format(peak), 100 * r.mfu, 100 * r.hfu));
}

}  // namespace train_internal

TrainResult evaluate_training(const TrainSetup& s, const TrainLayout& l, bool explain) {
  return train_internal::evaluate_layout(s, l, explain, nullptr);
}

TrainResult train_internal::evaluate_layout(const TrainSetup& s, const TrainLayout& l, bool explain,
                                            SearchCache* cache) {
  TrainResult r;
  r.layout = l;
  if (auto why = check_layout(s, l, l.chips())) {
    r.reason = why->why;
    r.issue = why->key;
    return r;
  }
  LayoutEval e(s, l, explain, r, cache);
  e.flops();
  e.memory();
  r.derivation_facts = r.derivation.size();
  // The search needs no time for a layout that does not fit; failures outrunning progress depend
  // on the chips, not the layout, so every layout meets them alike and whole_run says so below.
  if (cache != nullptr && (!e.progresses() || !e.fits())) return r;
  e.compute();
  e.communication();
  e.data_parallel();
  e.step_time();
  r.feasible = e.whole_run();
  return r;
}

}  // namespace llmecon
