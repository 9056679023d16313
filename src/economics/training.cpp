// The training-side blackboard analyses: the compute lifecycle and RevNets (docs/model.md §12-§13).
#include <fmt/format.h>

#include <cmath>

#include "economics/economics.hpp"

namespace llmecon {
namespace {
using units::bytes;
using units::seconds;
std::string num(double v) {
  return format_number(v);
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// §12 lifecycle

Analysis lifecycle_analysis(const LifecycleInputs& in) {
  Analysis a("lifecycle");
  const double d_inf = in.traffic.si() * in.lifetime_s / in.models_sharing_traffic;  // F29
  a.figure("inference_tokens", d_inf, "tok", "D_inf = traffic x lifetime / models sharing it (F29)");
  a.explain(fmt::format("D_inf = {} tok/s x {} / {} models (F29) = {}", num(in.traffic.si()),
                        format(seconds(in.lifetime_s)), num(in.models_sharing_traffic), num(d_inf)));
  const double pre = 6.0, rl = in.rl_multiplier * in.rl_inefficiency, inf = 2.0 * in.inference_inefficiency;
  a.figure("cost_per_token_pretrain", pre, "", "FLOPs per active parameter per token (F24)");
  a.figure("cost_per_token_rl", rl, "", "RL multiplier x inefficiency (F25)");
  a.figure("cost_per_token_inference", inf, "", "2 x inefficiency (F26)");
  double d_pre = 0, d_rl = 0;
  if (in.policy == "half") {
    // (pre + RL) = inference, split evenly between pre-training and RL.
    d_pre = inf * d_inf / 2 / pre;
    d_rl = inf * d_inf / 2 / rl;
    a.explain(fmt::format("half: {} D_pre = {} D_RL = {} D_inf / 2 (F27)", num(pre), num(rl), num(inf)));
  } else {
    d_pre = inf * d_inf / pre;  // F28: equal thirds
    d_rl = inf * d_inf / rl;
    a.explain(fmt::format("thirds: {} D_pre = {} D_RL = {} D_inf (F28)", num(pre), num(rl), num(inf)));
  }
  a.figure("pretrain_tokens", d_pre, "tok", "D_pre");
  a.figure("rl_tokens", d_rl, "tok", "D_RL");
  a.figure("pretrain_over_rl", d_pre / d_rl, "x", "D_pre / D_RL");
  a.figure("pretrain_over_inference", d_pre / d_inf, "x", "D_pre / D_inf");
  const double chin = in.chinchilla_tokens_per_param * in.n_active;  // F30
  a.figure("chinchilla_tokens", chin, "tok", "20 x N_active (F30)");
  a.figure("overtraining", d_pre / chin, "x", "D_pre / D_chinchilla (F30)");
  a.explain(fmt::format("over-training = D_pre / (20 N_active) (F30) = {} / {} = {}x", num(d_pre), num(chin),
                        num(d_pre / chin)));
  a.figure("pretrain_flops", pre * in.n_active * d_pre, "FLOP", "6 N D_pre (F24)");
  a.figure("rl_flops", rl * in.n_active * d_rl, "FLOP", "C_RL (F25)");
  a.figure("inference_flops", inf * in.n_active * d_inf, "FLOP", "C_inf (F26)");
  return a;
}

// ---------------------------------------------------------------------------------------------
// §13 RevNet

Analysis revnet_analysis(const ModelSpec& m, double batch, double seq, DType act) {
  Analysis a("revnet");
  // Per layer, stored activations for backward (Korthikanti et al. 2022, with flash attention so
  // the s^2 score term is not stored): 34 s b h bytes at 16-bit, i.e. 17 elements per s b h.
  const double elems = 17.0 * seq * batch * m.d_model;
  const double per_layer = elems * bytes_per_element(act);
  const double L = m.n_layers();
  const double store_all = per_layer * L;
  const double boundary = seq * batch * m.d_model * bytes_per_element(act);
  const double checkpoint = boundary * L + per_layer;  // keep layer inputs, recompute one layer at a time
  const double revnet = 2 * boundary + per_layer;      // two streams, reconstructed backwards (F35)
  a.figure("activations_store_all_bytes", store_all, "B", "every layer's activations kept (linear in depth)");
  a.figure("activations_checkpoint_bytes", checkpoint, "B", "layer inputs kept, one layer recomputed at a time");
  a.figure("activations_revnet_bytes", revnet, "B", "reversible layers: two streams, constant in depth (F35)");
  a.figure("revnet_over_store_all", revnet / store_all, "x", "memory ratio");
  a.figure("recompute_flops_factor", 8.0 / 6.0, "x", "one extra forward: 8 N D instead of 6 N D");
  a.explain(fmt::format("per layer = 17 x s x b x d x bytes = 17 x {} x {} x {} x {} = {}", num(seq), num(batch),
                        m.d_model, num(bytes_per_element(act)), format(bytes(per_layer))));
  a.explain(fmt::format("store all = L x per layer = {} x {} = {}; RevNet = 2 s b d bytes + one layer = {}", num(L),
                        format(bytes(per_layer)), format(bytes(store_all)), format(bytes(revnet))));
  a.explain("RevNet recomputes each layer's forward during backward: 6ND + 2ND = 8ND (F35)");
  return a;
}

}  // namespace llmecon
