// A training run: FLOPs, memory per GPU, time per step, the whole run with failures, and the
// layout search (docs/model.md §24).
#include "llmecon/train.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <tuple>

#include "llmecon/comm.hpp"
#include "llmecon/ops.hpp"

namespace llmecon {
namespace {

double d(int v) {
  return static_cast<double>(v);
}
std::string num(double v) {
  return format_number(v);
}

// Bytes per parameter (model.md §24.2): bf16 weights (the ZeRO paper's mixed precision), the
// gradients in their accumulation format (TrainSetup::grad), and Adam's fp32 master weights with
// fp32 or bf16 moments.
constexpr double kWeightBytes = 2.0;
double optimizer_bytes(OptimizerState o) {
  return o == OptimizerState::kAdamFp32 ? 12.0 : 8.0;
}
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
AttnDims attn_dims(const ModelSpec& m) {
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
DenseWidths dense_widths(const ModelSpec& m, const Layer& layer) {
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
int expert_tp(const TrainLayout& l) {
  return l.ep == 1 ? l.tp : 1;
}

// Tokens of context one query attends to in a layer, counted in full (not causal).
double attended(const Layer& l, double seq) {
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
Split param_split(const ModelSpec& m) {
  Split s;
  s.routed = m.params_routed_experts();
  s.embed = m.params_embedding();
  s.head = m.tied_embeddings ? 0.0 : m.params_head();
  s.dense = m.params_total() - s.routed - s.embed - s.head;
  return s;
}

}  // namespace

std::string_view name(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
    case Recompute::kReversible:
      return "reversible";
  }
  return "?";
}
std::optional<Recompute> parse_recompute(std::string_view s) {
  for (Recompute r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull, Recompute::kReversible}) {
    if (s == name(r)) return r;
  }
  return std::nullopt;
}
namespace {
constexpr std::pair<unsigned, std::string_view> kModuleNames[] = {
    {kRecomputeCoreAttn, "core_attn"},
    {kRecomputeLayernorm, "layernorm"},
    {kRecomputeMoeAct, "moe_act"},
    {kRecomputeMlaUpProj, "mla_up_proj"},
    {kRecomputeMlp, "mlp"},
    {kRecomputeSharedExperts, "shared_experts"},
    {kRecomputeMoe, "moe"},
};
constexpr std::pair<unsigned, std::string_view> kOffloadNames[] = {
    {kOffloadCoreAttn, "core_attn"},
    {kOffloadAttnProj, "attn_proj"},
    {kOffloadExpertFc1, "expert_fc1"},
    {kOffloadMoeAct, "moe_act"},
};

// Megatron's module names joined by '+', and read back from ',' or '+' separated lists.
template <std::size_t N>
std::string module_names(unsigned modules, const std::pair<unsigned, std::string_view> (&names)[N]) {
  std::string s;
  for (const auto& [bit, n] : names) {
    if ((modules & bit) == 0) continue;
    if (!s.empty()) s += '+';
    s += n;
  }
  return s;
}
template <std::size_t N>
std::optional<unsigned> parse_module_names(std::string_view s,
                                           const std::pair<unsigned, std::string_view> (&names)[N]) {
  if (s == "none") return 0U;
  unsigned out = 0;
  while (!s.empty()) {
    const std::size_t cut = s.find_first_of(",+");
    std::string_view part = s.substr(0, cut);
    s = cut == std::string_view::npos ? std::string_view{} : s.substr(cut + 1);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty()) continue;
    unsigned bit = 0;
    for (const auto& [b, n] : names)
      if (part == n) bit = b;
    if (bit == 0) return std::nullopt;
    out |= bit;
  }
  return out;
}
}  // namespace

std::string recompute_modules_name(unsigned modules) {
  return module_names(modules, kModuleNames);
}
std::optional<unsigned> parse_recompute_modules(std::string_view s) {
  return parse_module_names(s, kModuleNames);
}

std::string offload_modules_name(unsigned modules) {
  return module_names(modules, kOffloadNames);
}
std::optional<unsigned> parse_offload_modules(std::string_view s) {
  return parse_module_names(s, kOffloadNames);
}

unsigned applicable_modules(const ModelSpec& m, unsigned modules) {
  bool dense = false;
  for (const Layer& l : m.layers) dense = dense || (!l.moe && l.dense_ffn > 0);
  if (m.attn.kind != AttentionKind::kMla) modules &= ~kRecomputeMlaUpProj;
  // Only MLA's input norm and MoE layers' pre-MLP norms stand alone (model.md §24.2).
  if (m.attn.kind != AttentionKind::kMla && !m.is_moe()) modules &= ~kRecomputeLayernorm;
  if (!m.is_moe()) modules &= ~(kRecomputeMoeAct | kRecomputeMoe);
  if (!m.is_moe() || m.moe.shared_ffn <= 0) modules &= ~kRecomputeSharedExperts;
  if (!dense) modules &= ~kRecomputeMlp;
  return modules & kRecomputeAllModules;
}

std::string_view name(PipeSchedule s) {
  switch (s) {
    case PipeSchedule::k1F1B:
      return "1f1b";
    case PipeSchedule::kInterleaved:
      return "interleaved";
    case PipeSchedule::kZeroBubble:
      return "zero-bubble";
    case PipeSchedule::kDualPipe:
      return "dualpipe";
  }
  return "?";
}
std::optional<PipeSchedule> parse_schedule(std::string_view s) {
  for (PipeSchedule p :
       {PipeSchedule::k1F1B, PipeSchedule::kInterleaved, PipeSchedule::kZeroBubble, PipeSchedule::kDualPipe}) {
    if (s == name(p)) return p;
  }
  return std::nullopt;
}

std::string TrainLayout::recompute_label() const {
  if (recompute != Recompute::kSelective || modules == kRecomputeCoreAttn) return std::string(name(recompute));
  return fmt::format("selective({})", modules == 0 ? "nothing" : recompute_modules_name(modules));
}

std::string TrainLayout::str() const {
  std::string s = fmt::format("tp{} pp{}", tp, pp);
  if (ep > 1) s += fmt::format(" ep{}", ep);
  if (cp > 1) s += fmt::format(" cp{}", cp);
  s += fmt::format(" dp{} zero{} {} {}", dp, zero, recompute_label(), name(schedule));
  if (schedule == PipeSchedule::kInterleaved) s += fmt::format("x{}", chunks);
  s += fmt::format(" mb{}", num(micro_batch));
  return s;
}

// ---- model.md §24.1: FLOPs ----

namespace {
// One forward of attention's core per token, counted in full: 2 T_l H (d_qk + d_v) a layer (what
// selective recomputation repeats).
double attention_core_flops_per_token(const ModelSpec& m, double seq_len) {
  const AttnDims a = attn_dims(m);
  double attn = 0;
  for (const auto& l : m.layers) attn += 2.0 * attended(l, seq_len) * a.heads * (a.qk_head + a.v_head);
  return attn;
}
// The scores' share of attention's core FLOPs: QK^T of QK^T and PV (1/2 when d_qk = d_v).
double scores_share(const ModelSpec& m) {
  const AttnDims a = attn_dims(m);
  return a.qk_head + a.v_head > 0 ? a.qk_head / (a.qk_head + a.v_head) : 0.5;
}
}  // namespace

Flops model_flops_per_token(const ModelSpec& m, double seq_len) {
  // 6 N (forward 2 N, backward 4 N) plus attention three times over (forward and backward).
  return units::flops(6.0 * m.params_active_matmul() + 3.0 * attention_core_flops_per_token(m, seq_len));
}

// ---- model.md §24.2: activations ----

namespace {
// Bytes per element of an MLP's width f that it keeps for backward: its activation's inputs in
// bf16 (gated: gate and up, 4; plain: 2) and the down projection's input in the GEMMs' format g
// (Transformer Engine saves an FP8 GEMM's input quantized: 1 byte).
double mlp_width_bytes(const ModelSpec& m, double g) {
  return (m.mlp == MlpKind::kGated ? 4.0 : 2.0) + g;
}

// Bytes a routed token copy keeps for backward: the expert's input (g h) and its MLP's (above).
double routed_copy_bytes(const ModelSpec& m, double g) {
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
bool mla_layer(const ModelSpec& m, const Layer& layer) {
  return m.attn.kind == AttentionKind::kMla && layer.mixer != Mixer::kLinear;
}
StandaloneNorms standalone_norms(const ModelSpec& m, const Layer& layer) {
  return {mla_layer(m, layer), static_cast<bool>(layer.moe)};
}

// The model's MoE layers.
double moe_layer_count(const ModelSpec& m) {
  double n = 0;
  for (const Layer& layer : m.layers) n += layer.moe ? 1.0 : 0.0;
  return n;
}
}  // namespace

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

namespace {
// Micro-batches whose activations the first stage holds at once.
double in_flight(PipeSchedule s, int p, double m, int chunks) {
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
}  // namespace

// ---- model.md §24.5: failures ----

Seconds young_daly_interval(Seconds checkpoint_write, Seconds mtbf) {
  return units::seconds(std::sqrt(2.0 * checkpoint_write.si() * mtbf.si()));
}

double training_goodput(Seconds checkpoint_write, Seconds interval, Seconds restart, Seconds mtbf) {
  const double tau = interval.si(), delta = checkpoint_write.si();
  const double saving = tau > 0 ? 1.0 / (1.0 + delta / tau) : 1.0;
  if (mtbf.si() <= 0) return saving;  // no failures
  // Each failure loses half an interval of work on average, plus the restart.
  const double lost = (restart.si() + tau / 2.0) / mtbf.si();
  return std::clamp(saving * (1.0 - lost), 0.0, 1.0);
}

// ---- model.md §24.1: layout checks ----

std::optional<LayoutIssue> check_layout(const TrainSetup& s, const TrainLayout& l, int chips) {
  const ModelSpec& m = *s.model;
  if (l.tp < 1 || l.pp < 1 || l.ep < 1 || l.cp < 1 || l.dp < 1)
    return LayoutIssue{"chips", "every degree must be at least 1"};
  if (l.chips() != chips) {
    return LayoutIssue{"chips", fmt::format("tp x pp x cp x dp = {} x {} x {} x {} = {} chips, not {}", l.tp, l.pp,
                                            l.cp, l.dp, l.chips(), chips)};
  }
  if (m.attn.heads % l.tp != 0)
    return LayoutIssue{"tp", fmt::format("{} attention heads do not split over tp {}", m.attn.heads, l.tp)};
  if (l.pp > m.n_layers())
    return LayoutIssue{"pp", fmt::format("{} layers cannot fill {} pipeline stages", m.n_layers(), l.pp)};
  if (l.ep > 1) {
    if (!m.is_moe()) return LayoutIssue{"ep", fmt::format("ep {} needs routed experts; {} is dense", l.ep, m.name)};
    if (m.moe.experts % l.ep != 0)
      return LayoutIssue{"ep", fmt::format("{} experts do not split over ep {}", m.moe.experts, l.ep)};
    if ((l.tp * l.cp * l.dp) % l.ep != 0)
      return LayoutIssue{
          "ep", fmt::format("ep {} must divide the tp x cp x dp = {} chips of a stage", l.ep, l.tp * l.cp * l.dp)};
  }
  if (std::fmod(s.seq_len, d(l.cp)) != 0)
    return LayoutIssue{"cp", fmt::format("seq_len {} does not split over cp {}", num(s.seq_len), l.cp)};
  if (l.zero < 0 || l.zero > 3) return LayoutIssue{"zero", "zero stage must be 0, 1, 2 or 3"};
  if (l.micro_batch < 1 || std::floor(l.micro_batch) != l.micro_batch)
    return LayoutIssue{"micro_batch", "micro_batch must be a whole number"};
  const double per_step = l.micro_batch * d(l.dp);
  if (std::fmod(s.global_batch, per_step) != 0) {
    return LayoutIssue{"global_batch", fmt::format("global batch {} is not a multiple of micro_batch x dp = {} x {}",
                                                   num(s.global_batch), num(l.micro_batch), l.dp)};
  }
  const double micro = s.global_batch / per_step;
  if (l.schedule == PipeSchedule::kInterleaved) {
    if (l.chunks < 2) return LayoutIssue{"chunks", "the interleaved schedule needs at least 2 chunks per stage"};
    if (l.pp < 2) return LayoutIssue{"pp", "the interleaved schedule needs at least 2 pipeline stages"};
    if (m.n_layers() < l.pp * l.chunks)
      return LayoutIssue{"chunks",
                         fmt::format("{} layers cannot fill {} stages x {} chunks", m.n_layers(), l.pp, l.chunks)};
    if (std::fmod(micro, d(l.pp)) != 0)
      return LayoutIssue{"global_batch",
                         fmt::format("interleaving needs a multiple of pp micro-batches per data-parallel "
                                     "rank ({} for pp {})",
                                     num(micro), l.pp)};
  }
  if (l.schedule == PipeSchedule::kDualPipe) {
    if (l.pp < 2 || l.pp % 2 != 0) return LayoutIssue{"pp", "DualPipe needs an even number of pipeline stages"};
    if (micro < 2 * l.pp)
      return LayoutIssue{"global_batch",
                         fmt::format("DualPipe needs at least twice pp micro-batches per data-parallel rank "
                                     "({} of {} for pp {})",
                                     num(micro), 2 * l.pp, l.pp)};
  }
  return std::nullopt;
}

// ---- model.md §24.3: one layout ----

namespace {

// All-reduce-equivalent time (an all-gather plus a reduce-scatter) of S bytes per chip over n
// chips, `domain` of them per scale-up domain, at the collective efficiency.
Seconds all_reduce(int n, Bytes bytes, const Hardware& hw, int domain, const Efficiency& eff) {
  if (n <= 1) return Seconds{};
  return group_collective_time(Collective::kAllReduce, Algorithm::kRing, n, bytes, hw, std::max(1, domain)) / eff.comm;
}

// MLA's up projections among the step model's GEMMs (model.md §24.2): the query's and the
// key-value decompression, a GEMM booked under attention's core. The query's reads the query
// latent; without one (q_lora_rank 0) it is the plain query projection from the hidden state,
// which Megatron's up-projection checkpoint reruns all the same.
bool mla_up_projection(const ModelSpec& m, OpKind kind, double depth, double cols) {
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
double exp_ceiling(const Hardware& hw, FlopsPerSecond peak, double flops_per_score) {
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
StepCost training_pass(const ModelSpec& m, const TrainLayout& l, double b, double seq, const Precision& prec) {
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
// (model.md §18): the worst stage runs ceil(L / pp) layers.
Forward stage_forward(const TrainSetup& s, const TrainLayout& l, const StepCost& sc, const Precision& prec) {
  const ModelSpec& m = *s.model;
  const double share = d(l.tp * l.cp);
  const double L = d(m.n_layers());
  const double worst = std::ceil(L / d(l.pp)) / (L / d(l.pp));
  // Routed experts are whole on the chips of their expert-parallel group (or split over the tensor
  // group's columns without one): the chip holds experts / (ep x etp) of them (model.md §24.3).
  const int etp = expert_tp(l);
  const OperatorTimes ops = operator_times(
      sc, *s.hw, prec, s.eff, ChipShare{share, d(l.tp), d(l.cp), d(l.tp), d(l.ep * etp), share, share, d(l.pp), d(etp)},
      L, true);
  Forward f;
  Seconds ops_extra{};
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
      // A fused attention kernel computes at its own rate over the sequence (model.md §24.3),
      // not a GEMM's: its compute-bound time scales by e_c over that rate, and the softmax's
      // exponentials cap the core's (an indexer's scores take none).
      Seconds at = t;
      if (s.flash_attention && k.compute > k.memory && s.eff.attn_compute > 0)
        at = t * (s.eff.compute / s.eff.attention_at(s.seq_len));
      const bool exps = k.kind == OpKind::kAttnCore && k.compute > k.memory;
      const Seconds capped = exps ? at * f.exp_forward : at;
      f.attention += capped;
      f.attention_backward += exps ? at * f.exp_backward : at;
      ops_extra += capped - t;
    }
    if (k.kind == OpKind::kExperts) f.experts += t;
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

}  // namespace

TrainResult evaluate_training(const TrainSetup& s, const TrainLayout& l, bool explain) {
  TrainResult r;
  r.layout = l;
  const ModelSpec& m = *s.model;
  const Hardware& hw = *s.hw;
  auto say = [&](std::string line) {
    if (explain) r.derivation.push_back(std::move(line));
  };
  if (auto why = check_layout(s, l, l.chips())) {
    r.reason = why->why;
    r.issue = why->key;
    return r;
  }
  const int domain = hw.domain_size;
  const double L = d(m.n_layers());
  const double seq = s.seq_len, b = l.micro_batch;
  const double micro = s.global_batch / (b * d(l.dp));
  const double chips = d(l.chips());
  const double h = d(m.d_model);
  r.time.micro_batches = micro;

  // §24.1 FLOPs.
  // Full recomputation and reversible layers both rerun the whole forward in the backward.
  const bool refwd = l.recompute == Recompute::kFull || l.recompute == Recompute::kReversible;
  const double tokens_step = s.global_batch * seq;
  r.model_flops = model_flops_per_token(m, seq) * tokens_step;
  double recompute_flops = 0;
  const unsigned mods = l.recompute == Recompute::kSelective ? applicable_modules(m, l.modules) : 0U;
  auto recomputes = [mods](unsigned bit) { return (mods & bit) != 0; };
  const bool refwd_moe = refwd || recomputes(kRecomputeMoe);  // the MoE blocks' forward runs again
  if (recomputes(kRecomputeCoreAttn)) recompute_flops = attention_core_flops_per_token(m, seq);
  if (refwd) recompute_flops = 2.0 * m.params_active_matmul() + attention_core_flops_per_token(m, seq);
  if (s.flash_attention) recompute_flops += scores_share(m) * attention_core_flops_per_token(m, seq);  // §24.3
  r.hardware_flops = r.model_flops + units::flops(recompute_flops * tokens_step);
  say(fmt::format("model FLOPs per token = 6 N + 12 L H Q T (PaLM) = 6 x {} + attention = {} (§24.1)",
                  num(m.params_active_matmul()), format(model_flops_per_token(m, seq))));

  // §24.2 memory per GPU, on the worst stage.
  const Split ps = param_split(m);
  const int etp = expert_tp(l);
  const double stage_layers = std::ceil(L / d(l.pp));
  const double body_share = stage_layers / L;
  const double tables = l.pp == 1 ? ps.embed + ps.head : std::max(ps.embed, ps.head);
  const double dense_params = ps.dense * body_share / d(l.tp) + tables / d(l.tp);
  const double expert_params = ps.routed * body_share / d(l.ep * etp);
  const double dense_replicas = d(l.dp * l.cp);
  const double expert_replicas = d(l.tp * l.cp * l.dp) / d(l.ep * etp);
  const double ob = optimizer_bytes(s.optimizer);
  const double gb = bytes_per_element(s.grad);
  auto sharded = [&](double params, double per_param, int from_stage, double replicas) {
    return l.zero >= from_stage ? params * per_param / replicas : params * per_param;
  };
  const double copies = l.schedule == PipeSchedule::kDualPipe ? 2.0 : 1.0;  // DualPipe keeps two copies
  r.memory.weights = units::bytes(copies * (sharded(dense_params, kWeightBytes, 3, dense_replicas) +
                                            sharded(expert_params, kWeightBytes, 3, expert_replicas)));
  r.memory.gradients =
      units::bytes(sharded(dense_params, gb, 2, dense_replicas) + sharded(expert_params, gb, 2, expert_replicas));
  r.memory.optimizer =
      units::bytes(sharded(dense_params, ob, 1, dense_replicas) + sharded(expert_params, ob, 1, expert_replicas));
  // Activations: the in-flight micro-batches of the stage's layers, plus one layer's full set
  // while it is recomputed; the last stage's fp32 logits.
  const double flights = in_flight(l.schedule, l.pp, micro, l.chunks);
  double per_micro = 0, one_layer = 0, touched = 0, routed = 0, cast_in = 0, cast_out = 0;
  double mlp_width = 0, shared_width = 0;                 // the stage's dense MLP and shared-expert widths, summed
  double mlp_blocks = 0, shared_blocks = 0, latents = 0;  // their counts; MLA's latent widths, summed
  double rebuilt = 0, norms_rerun = 0;                    // a checkpointed block's set; the stage's standalone norms
  double offloaded = 0, offload_layer = 0;  // bytes a micro-batch sends to host memory; the most of one layer
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
    offloaded += all_kept - kept;  // to host memory after the forward, back before the backward
    offload_layer = std::max(offload_layer, all_kept - kept);
    per_micro += kept;
    // A checkpointed block (the MoE block, a dense MLP, the shared experts) rebuilds its whole set
    // while its backward runs (model.md §24.2).
    if ((mods & kCheckpointedModules) != 0)
      rebuilt = std::max(rebuilt, saved(Recompute::kSelective, s.gemm, mods & ~kCheckpointedModules) - kept);
    norms_rerun += standalone_norms(m, layer).count();
    one_layer = std::max(one_layer, selective);
    touched += selective_bf16;
    if (layer.moe) routed += seq / d(l.cp) * b * d(m.moe.top_k) / d(l.tp);  // routed token copies on this chip
    if (layer.moe) {
      shared_width += d(m.moe.shared_ffn);
      shared_blocks += m.moe.shared_ffn > 0 ? 1.0 : 0.0;
    } else {
      mlp_width += d(layer.dense_ffn);
      mlp_blocks += layer.dense_ffn > 0 ? 1.0 : 0.0;
    }
    // The up projections' inputs: the query latent (or, without one, the hidden state) and the
    // key-value latent.
    if (mla_layer(m, layer)) latents += (m.attn.q_lora_rank > 0 ? d(m.attn.q_lora_rank) : h) + d(m.attn.kv_lora_rank);
    const DenseWidths w = dense_widths(m, layer);
    cast_in += w.in;
    cast_out += w.out;
  }
  double acts = per_micro * flights;
  if (l.recompute == Recompute::kReversible) acts = 2.0 * 2.0 * seq / d(l.cp) * b * h / d(l.tp) * flights;
  if (refwd) acts += one_layer;
  acts += rebuilt;
  // An offloaded layer's set is on the chip while it is copied out or back (model.md §24.2).
  acts += offload_layer;
  const double host_held = offloaded * flights;
  const double logits = seq / d(l.cp) * b * d(m.vocab) / d(l.tp) * 4.0;
  acts = l.pp == 1 ? acts + logits : std::max(acts, logits + per_micro);  // the last stage holds one micro-batch
  r.memory.activations = units::bytes(acts);
  const double tokens_chip = seq / d(l.cp) * b;
  double buffers = 2.0 * tokens_chip * h * 2.0 + 2.0 * kBucketBytes;
  if (m.is_moe()) buffers += 2.0 * tokens_chip / d(l.tp) * d(m.moe.top_k) * h * 2.0;
  if (l.zero == 3) buffers += 2.0 * (dense_params + expert_params) / stage_layers * kWeightBytes;  // prefetch
  r.memory.comm_buffers = units::bytes(buffers);
  r.memory.capacity = hw.hbm_capacity.value * s.usable_hbm;
  say(fmt::format(
      "memory per GPU = weights {} + gradients {} + optimizer {} (ZeRO-{}) + activations {} ({} micro-batches "
      "in flight, recompute {}) + buffers {} = {} of {} usable (§24.2)",
      format(r.memory.weights), format(r.memory.gradients), format(r.memory.optimizer), l.zero,
      format(r.memory.activations), num(flights), l.recompute_label(), format(r.memory.comm_buffers),
      format(r.memory.total()), format(r.memory.capacity)));

  // §24.3 time per micro-batch on the slowest stage.
  Precision prec;
  prec.weights = prec.experts = prec.act = s.gemm;
  prec.kv = s.attention;  // attention's core runs at the wider of this and the GEMMs' format
  const StepCost sc = training_pass(m, l, b, seq, prec);
  const Forward fw = stage_forward(s, l, sc, prec);
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
    if (moe_again) again += 2.0 * d(m.moe.top_k) * m.params_expert() * moe_layer_count(m);
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
  const double copy_fwd = 6.0 * h + (gated ? 6.0 : 4.0) * fe + (cast ? 4.0 * h + 4.0 * fe : 0.0);
  const double copy_bwd = 8.0 * h + (gated ? 10.0 : 6.0) * fe + (cast ? 4.0 * h + (gated ? 8.0 : 4.0) * fe : 0.0);
  const double dense_touched = m.is_moe() ? touched - routed * routed_copy_bytes(m, 2.0) : touched;
  // The dense FP8 GEMMs cast theirs the same way: each linear's input forward and its output's
  // gradient backward, on this chip's tokens and tensor-parallel share of the widths.
  const double cast_fwd = cast ? 4.0 * tokens_chip * cast_in / d(l.tp) : 0.0;
  const double cast_bwd = cast ? 4.0 * tokens_chip * cast_out / d(l.tp) : 0.0;
  const BytesPerSecond hbm = hw.hbm_bandwidth.value * s.eff.memory;
  const Seconds elementwise_fwd = units::bytes(dense_touched + routed * copy_fwd + cast_fwd) / hbm;
  const Seconds elementwise_bwd = units::bytes(2.0 * dense_touched + routed * copy_bwd + cast_bwd) / hbm;
  // Backward: twice the forward's GEMMs, and attention's core as stage_forward prices it (§24.3).
  const double attention_backward = fw.attention.si() > 0 ? fw.attention_backward / fw.attention : 0.0;
  const Seconds fwd = fw.total + elementwise_fwd;
  const Seconds bwd = (fw.total - fw.attention) * 2.0 + fw.attention_backward + elementwise_bwd;
  // What recomputation reruns in the backward (model.md §24.2): the whole forward, or the selective
  // modules': attention's core; MLA's up projections; the dense MLPs' and shared experts' GEMMs and
  // activations; the norms (read h, write h, and in FP8 the GEMM input cast again, read 2 and
  // write 1 byte); the experts' activation (as in its forward, and its FP8 cast). In FP8 a rerun
  // GEMM casts its input again, row- and column-wise (read 2 bytes, write 1 + 1): the MLPs' and
  // shared experts' inputs (h) and down projections' inputs (f), MLA's latents.
  Seconds rec{};
  if (refwd) {
    rec = fw.total;
  } else if (mods != 0) {
    const double act = gated ? 6.0 : 4.0, recast = cast ? 4.0 : 0.0;
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
    if (recomputes(kRecomputeLayernorm)) bytes += norms_rerun * tokens_chip / d(l.tp) * h * (cast ? 7.0 : 4.0);
    if (recomputes(kRecomputeMoeAct) && !recomputes(kRecomputeMoe)) bytes += routed * (act + (cast ? 3.0 : 0.0)) * fe;
    rec += units::bytes(bytes) / hbm;
  }

  // Tensor (sequence) parallelism: an all-gather and a reduce-scatter around each block, forward
  // and backward, and again in a full recompute.
  const double stage_moe = moe_layer_count(m) * stage_layers / L;
  const double blocks = stage_layers + (stage_layers - stage_moe);
  const Bytes block_bytes = units::bytes(tokens_chip * h * 2.0);
  const double passes = refwd ? 3.0 : 2.0;
  // A recomputed dense MLP gathers and scatters again (model.md §24.3).
  const double rerun_blocks = recomputes(kRecomputeMlp) ? stage_layers - stage_moe : 0.0;
  const Seconds tp_mb = all_reduce(l.tp, block_bytes, hw, domain, s.eff) * (blocks * passes + rerun_blocks);
  // Expert parallelism: dispatch (the GEMM format) and combine (bf16), forward and backward.
  Seconds ep_mb{};
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
  Seconds cp_mb{};
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
  Seconds pp_mb{};
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
  const Seconds compute_mb = fwd + bwd + rec;
  const Seconds tp_exp = tp_mb * (1.0 - s.tp_overlap);
  const Seconds cp_exp = max(Seconds{}, cp_mb - fw.attention * 3.5);
  const double ep_share = l.schedule == PipeSchedule::kDualPipe ? 1.0 : s.ep_overlap;
  const Seconds ep_hidden = min(ep_mb * ep_share, compute_mb);
  // The hidden all-to-all still holds its SMs: the compute beside it runs on the rest, so it
  // finishes ep_comm_sms / SMs of the hidden time later (model.md §24.3).
  const double sm_share = s.eff.compute_units > 0 ? std::min(1.0, s.ep_comm_sms / s.eff.compute_units) : 0.0;
  const Seconds ep_exp = ep_mb - ep_hidden + ep_hidden * sm_share;
  const Seconds comm_mb = tp_exp + cp_exp + ep_exp + pp_mb;
  // MoE host time (model.md §24.3): after each dispatch's device-to-host synchronization (the
  // tokens per expert), the host launches every local expert's GEMMs and casts one at a time, and
  // the device waits on it; a third forward, two thirds backward, as the GEMMs split, and a full
  // recomputation's forward again. A chip holds E / ep experts (a tensor-parallel slice of each
  // when ep = 1) and launches each one's.
  const double local_experts = m.is_moe() ? d(m.moe.experts) / d(l.ep) : 0.0;
  const Seconds host_pass = s.expert_host * (stage_moe * local_experts) / 3.0;  // one forward's share
  const Seconds host_mb = host_pass * (refwd_moe ? 4.0 : 3.0);
  // Activation offloading (model.md §24.3): a micro-batch's offloaded set crosses the host link
  // once each way on its own stream, beside the pass that makes it (forward) or needs it
  // (backward); what that pass's compute does not cover is exposed.
  const HostTier* tier =
      !hw.host_tiers.empty() && hw.host_tiers.front().bandwidth.si() > 0 ? &hw.host_tiers.front() : nullptr;
  Seconds off_each{}, off_fwd{}, off_bwd{};
  if (offloaded > 0 && tier != nullptr) {
    off_each = units::bytes(offloaded) / tier->bandwidth;
    off_fwd = max(Seconds{}, off_each - fwd);
    off_bwd = max(Seconds{}, off_each - (compute_mb - fwd));
  }
  const Seconds t_f = fwd + comm_mb / 3.0 + host_pass + off_fwd;
  const Seconds t_b = compute_mb - fwd + comm_mb * (2.0 / 3.0) + (host_mb - host_pass) + off_bwd;
  const Seconds bubble = pipeline_bubble(l.schedule, l.pp, l.chunks, t_f, t_b);
  const Seconds pipe = (t_f + t_b) * micro + bubble;

  // Data parallelism: gradients all-reduced in their format under ZeRO-0; under ZeRO-1 and up
  // reduce-scattered in their format and the bf16 parameters gathered (a ring all-reduce's two
  // halves), over the dense and the expert replicas; ZeRO-3 gathers per micro-batch.
  const int dp_domain = std::max(1, domain / (l.tp * l.cp));
  const int ep_domain = std::max(1, domain / (l.ep * etp));
  const double sync_bytes = l.zero == 0 ? gb : (gb + kWeightBytes) / 2.0;
  auto grad_sync = [&](double params, double replicas, int dom) {
    const int n = static_cast<int>(std::lround(replicas));
    return all_reduce(n, units::bytes(params * sync_bytes), hw, dom, s.eff);
  };
  Seconds dp_total =
      grad_sync(dense_params, dense_replicas, dp_domain) + grad_sync(expert_params, expert_replicas, ep_domain);
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
  const Seconds dp_exp = dp_total - hidden;
  // The optimizer reads and writes its states, reads gradients and writes weights.
  const double local_params =
      dense_params / (l.zero >= 1 ? dense_replicas : 1.0) + expert_params / (l.zero >= 1 ? expert_replicas : 1.0);
  const Seconds opt = units::bytes(local_params * (2.0 * ob + gb + kWeightBytes)) / hbm;

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
  t.host = host_mb * micro;
  t.offload = (off_fwd + off_bwd) * micro;
  t.offload_total = off_each * 2.0 * micro;
  t.step = pipe + dp_exp + opt + s.eff.step_overhead;
  t.bubble_fraction = bubble / t.step;
  say(
      fmt::format("per micro-batch on the slowest stage ({} of {} layers): forward {} (elementwise {}), backward {} "
                  "(2 x the GEMMs, {} x attention's core, elementwise {}), recompute {} (§24.3)",
                  num(stage_layers), num(L), format(fwd), format(elementwise_fwd), format(bwd), num(attention_backward),
                  format(elementwise_bwd), format(rec)));
  if (fw.exp_forward > 1.0 || fw.exp_backward > 1.0)
    say(
        fmt::format("softmax exponentials: {} T a second x {} FLOPs per score cap attention's forward at {} "
                    "against its format's peak {}: forward x {:.3f}, backward x {:.3f} (§24.3)",
                    num(hw.exp_rate->si() / 1e12), num(fw.score_flops), format(*hw.exp_rate * fw.score_flops),
                    format(fw.attn_peak), fw.exp_forward, fw.exp_backward));
  if (host_mb.si() > 0)
    say(
        fmt::format("MoE host time per micro-batch = {} per local expert x {} local experts x {} MoE layers{} = {} "
                    "(§24.3)",
                    format(s.expert_host), num(local_experts), num(stage_moe),
                    refwd_moe ? " x 4/3 (the recomputed forward)" : "", format(host_mb)));
  if (off_each.si() > 0)
    say(
        fmt::format("offloaded per micro-batch: {} ({}) to the {} tier at {}: {} each way, exposed {} forward and {} "
                    "backward (§24.3)",
                    format(units::bytes(offloaded)), offload_modules_name(s.offload), tier->name,
                    format(tier->bandwidth), format(off_each), format(off_fwd), format(off_bwd)));
  say(fmt::format("exposed communication per micro-batch: tp {} of {}, cp {} of {}, ep {} of {}, pp {}", format(tp_exp),
                  format(tp_mb), format(cp_exp), format(cp_mb), format(ep_exp), format(ep_mb), format(pp_mb)));
  say(fmt::format("pipeline = {} micro-batches x {} + bubble {} ({}) = {}", num(micro), format(t_f + t_b),
                  format(bubble), name(l.schedule), format(pipe)));
  say(fmt::format("step = pipeline {} + exposed data-parallel {} of {} + optimizer {} + fixed {} = {}", format(pipe),
                  format(dp_exp), format(dp_total), format(opt), format(s.eff.step_overhead), format(t.step)));

  const FlopsPerSecond peak = hw.peak(DType::kBf16);
  r.mfu = r.model_flops / (t.step * chips * peak);
  r.hfu = r.hardware_flops / (t.step * chips * peak);
  r.tokens_per_s = units::tokens_per_s(tokens_step / t.step.si());
  say(fmt::format("MFU = {} / ({} x {} chips x {}) = {:.1f}%; HFU {:.1f}%", format(r.model_flops), format(t.step),
                  num(chips), format(peak), 100 * r.mfu, 100 * r.hfu));

  // §24.4-24.5 the whole run.
  TrainRun& run = r.run;
  run.steps = s.tokens > 0 ? std::ceil(s.tokens / tokens_step) : 1.0;
  run.useful = t.step * run.steps;
  run.checkpoint_bytes = units::bytes(m.params_total() * (kWeightBytes + ob));
  const FailureModel& fm = s.failures;
  if (fm.storage_bandwidth.si() > 0) run.checkpoint_write = run.checkpoint_bytes / fm.storage_bandwidth;
  if (fm.failures_per_gpu_hour > 0) {
    run.mtbf = units::hours(1.0 / (fm.failures_per_gpu_hour * chips));
    run.checkpoint_interval = fm.interval.value_or(young_daly_interval(run.checkpoint_write, run.mtbf));
  } else {
    run.checkpoint_interval = fm.interval.value_or(Seconds{});
  }
  run.goodput = training_goodput(run.checkpoint_write, run.checkpoint_interval, fm.restart, run.mtbf);
  if (!std::isfinite(run.goodput) || run.goodput <= 0) {
    r.reason = fmt::format(
        "failures outrun checkpoints and restarts, no progress (a failure every {}, checkpoints "
        "of {}, restarts of {})",
        format(run.mtbf), format(run.checkpoint_write), format(fm.restart));
    r.issue = "failures";
    return r;
  }
  run.wall = run.useful / run.goodput;
  run.failures = run.mtbf.si() > 0 ? run.wall / run.mtbf : 0.0;
  run.gpu_hours = run.wall.si() * chips / 3600.0;
  run.usd = s.price * run.wall * chips;
  // model.md §25.6: the board busy at the step's HFU (HBM use is not modelled in training).
  const Watts board = board_power(hw, s.power, r.hfu, 0.0);
  const Watts facility = facility_power(s.power, board);
  run.energy = facility * run.wall * chips;
  run.energy_usd = units::usd(run.energy.si() / 3.6e6 * s.usd_per_kwh);
  if (s.tokens > 0) {
    say(fmt::format("steps = {} tokens / ({} x {}) = {}; useful time {}", num(s.tokens), num(s.global_batch), num(seq),
                    num(run.steps), format(run.useful)));
  }
  if (run.mtbf.si() > 0) {
    say(fmt::format(
        "MTBF = 1 / ({} per GPU-hour x {} GPUs) = {}; checkpoint {} / {} = {}; interval sqrt(2 x {} x {}) "
        "= {} (Young-Daly); goodput = 1/(1 + {}/{}) x (1 - ({} + {}/2)/{}) = {:.3f} (§24.5)",
        num(fm.failures_per_gpu_hour), num(chips), format(run.mtbf), format(run.checkpoint_bytes),
        format(fm.storage_bandwidth), format(run.checkpoint_write), format(run.checkpoint_write), format(run.mtbf),
        format(run.checkpoint_interval), format(run.checkpoint_write), format(run.checkpoint_interval),
        format(fm.restart), format(run.checkpoint_interval), format(run.mtbf), run.goodput));
  }
  say(fmt::format(
      "wall = {} / {:.3f} = {} ({} days); GPU-hours {}; $ = {} x {} chips x wall = {} (§24.4); power = "
      "(board {} at HFU {:.3f} + host {} x {}) x PUE {} = {} per GPU; energy {} x {} x wall = {} MWh "
      "(§25.6)",
      format(run.useful), run.goodput, format(run.wall), num(run.wall.si() / 86400), num(run.gpu_hours),
      format(s.price), num(chips), format(run.usd), format(board), r.hfu, format(s.power.host), num(s.power.host_load),
      num(s.power.pue), format(facility), format(facility), num(chips), num(run.energy.si() / 3.6e9)));
  if (offloaded > 0 && tier == nullptr) {
    r.reason = fmt::format("{} has no host memory tier to offload activations to", hw.name);
    r.issue = "offload_modules";
    return r;
  }
  if (offloaded > 0 && units::bytes(host_held) > tier->capacity) {
    r.reason = fmt::format("offloaded activations need {} of host memory per GPU, {} there ({})",
                           format(units::bytes(host_held)), format(tier->capacity), tier->name);
    r.issue = "offload_modules";
    return r;
  }
  if (r.memory.total() > r.memory.capacity) {
    r.reason = fmt::format("needs {} per GPU, {} usable", format(r.memory.total()), format(r.memory.capacity));
    r.issue = "memory";
    return r;
  }
  r.feasible = true;
  return r;
}

// ---- model.md §24.6: search ----

std::vector<std::pair<Recompute, unsigned>> recompute_choices(const ModelSpec& m, const TrainSearchSpace& space) {
  std::vector<std::pair<Recompute, unsigned>> out;
  auto add = [&out](Recompute rc, unsigned mods) {
    const std::pair<Recompute, unsigned> x{rc, mods};
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  };
  for (Recompute rc : space.recompute) {
    if (rc != Recompute::kSelective) {
      add(rc, kRecomputeCoreAttn);
      continue;
    }
    for (unsigned set : space.module_sets) {
      // A set the model has none of (the light set on a dense model without MLA) recomputes
      // nothing: that is no recomputation, tried once.
      const unsigned mods = applicable_modules(m, set);
      if (mods == 0) {
        add(Recompute::kNone, kRecomputeCoreAttn);
      } else {
        add(rc, mods);
      }
    }
  }
  return out;
}

TrainSearch search_training(const TrainSetup& s, int chips, TrainObjective objective, const TrainSearchSpace& space,
                            std::size_t keep, const std::function<void(double, double)>& progress) {
  const ModelSpec& m = *s.model;
  const int domain = s.hw->domain_size;
  const int max_tp = space.max_tp > 0 ? space.max_tp : domain;
  std::vector<int> tps, cps, eps{1};
  for (int t = 1; t <= std::min(max_tp, chips); t *= 2)
    if (m.attn.heads % t == 0) tps.push_back(t);
  for (int c = 1; c <= space.max_cp && c <= chips; c *= 2)
    if (std::fmod(s.seq_len, d(c)) == 0 && s.seq_len / d(c) >= 1024) cps.push_back(c);
  if (m.is_moe()) {
    for (int e = 2; e <= std::min(m.moe.experts, chips); e *= 2)
      if (m.moe.experts % e == 0) eps.push_back(e);
  }
  const std::vector<std::pair<Recompute, unsigned>> recomputes = recompute_choices(m, space);
  std::map<std::pair<std::string, std::string>, int> rejected;  // (reason class, issue) -> count
  TrainSearch out;
  std::vector<TrainResult> feasible;
  // Outer loops first, to report progress.
  std::vector<std::tuple<int, int, int>> shapes;  // tp, cp, pp
  for (int tp : tps)
    for (int cp : cps) {
      if (chips % (tp * cp) != 0) continue;
      const int rest = chips / (tp * cp);
      for (int pp = 1; pp <= std::min(rest, m.n_layers()); ++pp)
        if (rest % pp == 0) shapes.emplace_back(tp, cp, pp);
    }
  for (const auto& [tp, cp, pp] : shapes) out.dp_degrees.push_back(chips / (tp * cp * pp));
  std::sort(out.dp_degrees.begin(), out.dp_degrees.end());
  out.dp_degrees.erase(std::unique(out.dp_degrees.begin(), out.dp_degrees.end()), out.dp_degrees.end());
  double done = 0;
  for (const auto& [tp, cp, pp] : shapes) {
    if (progress) progress(done, d(static_cast<int>(shapes.size())));
    done += 1;
    const int dp = chips / (tp * cp * pp);
    for (int ep : eps) {
      if ((tp * cp * dp) % ep != 0) continue;
      for (double mb : space.micro_batches) {
        if (std::fmod(s.global_batch, mb * d(dp)) != 0) {
          rejected[{"global batch not a multiple of micro-batch x dp", "global_batch"}]++;
          continue;
        }
        for (PipeSchedule sch : space.schedules) {
          if (pp == 1 && sch != PipeSchedule::k1F1B) continue;
          std::vector<int> chunk_options{1};
          if (sch == PipeSchedule::kInterleaved) {
            chunk_options.clear();
            const int per_stage = m.n_layers() / pp;
            for (int v = 2; v <= std::min(per_stage, 8); ++v)
              if (per_stage % v == 0) chunk_options.push_back(v);
            if (chunk_options.empty()) continue;
          }
          for (int v : chunk_options) {
            for (int z : space.zero) {
              for (const auto& [rc, mods] : recomputes) {
                TrainLayout l{tp, pp, ep, cp, dp, z, rc, sch, v, mb, mods};
                ++out.evaluated;
                TrainResult r = evaluate_training(s, l, false);
                if (!r.feasible) {
                  // One class per reason with its figures left out ("memory" for every memory total).
                  std::string kind =
                      r.issue == "memory" ? "memory" : r.reason.substr(0, r.reason.find_first_of("0123456789("));
                  while (!kind.empty() && (kind.back() == ' ' || kind.back() == ':')) kind.pop_back();
                  rejected[{kind, r.issue}]++;
                  continue;
                }
                feasible.push_back(std::move(r));
              }
            }
          }
        }
      }
    }
  }
  if (progress) progress(done, done);
  auto score = [objective](const TrainResult& r) {
    return objective == TrainObjective::kCost ? r.run.usd.si() : r.run.wall.si();
  };
  std::sort(feasible.begin(), feasible.end(), [&](const TrainResult& a, const TrainResult& b) {
    const double x = score(a), y = score(b);
    if (x != y) return x < y;
    return a.memory.total() < b.memory.total();
  });
  // Frontier: step time against memory headroom.
  double best_headroom = -1;
  for (const TrainResult& r : feasible) {
    const double headroom = (r.memory.capacity - r.memory.total()).si();
    if (headroom > best_headroom) {
      out.frontier.push_back(r);
      best_headroom = headroom;
    }
  }
  if (feasible.size() > keep) feasible.resize(keep);
  out.ranked = std::move(feasible);
  for (const auto& [k, n] : rejected) out.rejected.push_back({k.first, k.second, n});
  std::stable_sort(out.rejected.begin(), out.rejected.end(),
                   [](const auto& a, const auto& b) { return a.count > b.count; });
  return out;
}

// ---- model.md §24.7: scaling laws ----

double LossFit::loss(double n, double dd) const {
  return E + A / std::pow(n, alpha) + B / std::pow(dd, beta);
}
std::optional<double> LossFit::tokens_for(double n, double target) const {
  const double rest = target - E - A / std::pow(n, alpha);
  if (rest <= 0) return std::nullopt;
  return std::pow(B / rest, 1.0 / beta);
}
double LossFit::optimal_params(double flops) const {
  // Minimising L(N, C / 6N): N_opt = G (C/6)^(beta/(alpha+beta)), G = (alpha A / (beta B))^(1/(alpha+beta)).
  const double g = std::pow(alpha * A / (beta * B), 1.0 / (alpha + beta));
  return g * std::pow(flops / 6.0, beta / (alpha + beta));
}

const std::vector<LossFit>& loss_fits() {
  static const std::vector<LossFit> fits{
      {"hoffmann", 1.69, 406.4, 410.7, 0.34, 0.28,
       "Hoffmann et al. 2022, Training Compute-Optimal Large Language Models, eq. 10 (approach 3), "
       "https://arxiv.org/abs/2203.15556"},
      {"epoch", 1.8172, 482.01, 2085.43, 0.3478, 0.3658,
       "Besiroglu et al. 2024, Chinchilla Scaling: A replication attempt, eq. 4, https://arxiv.org/abs/2404.10102"},
  };
  return fits;
}
const LossFit* find_loss_fit(std::string_view n) {
  for (const auto& f : loss_fits())
    if (f.name == n) return &f;
  return nullptr;
}

}  // namespace llmecon

namespace llmecon {

Analysis scale_analysis(const ScaleInputs& in) {
  Analysis a("scale");
  const LossFit& f = *in.fit;
  a.note("fit: " + f.name + ": " + f.source);
  a.explain(fmt::format("L(N, D) = {} + {} / N^{} + {} / D^{} ({})", num(f.E), num(f.A), num(f.alpha), num(f.B),
                        num(f.beta), f.name));
  double target = in.target_loss;
  double n_c = 0, d_c = 0;
  if (in.budget_flops > 0) {
    n_c = f.optimal_params(in.budget_flops);
    d_c = in.budget_flops / (6.0 * n_c);
    if (target <= 0) target = f.loss(n_c, d_c);
    a.explain(fmt::format("compute-optimal for C = {} FLOP: N = G (C/6)^(b/(a+b)) = {}, D = C / 6N = {}, L = {}",
                          num(in.budget_flops), num(n_c), num(d_c), num(f.loss(n_c, d_c))));
  }
  a.figure("target_loss", target, "", "the loss both optima reach");
  // Scan N on a log grid from where the target is first reachable.
  const double n_floor = std::pow(f.A / std::max(1e-12, target - f.E), 1.0 / f.alpha);
  struct Point {
    double n, dd, train, serve;
  };
  std::vector<Point> pts;
  for (int i = 1; i <= 240; ++i) {
    const double n = n_floor * std::pow(10.0, 4.0 * i / 240.0);
    const auto dd = f.tokens_for(n, target);
    if (!dd) continue;
    pts.push_back(
        Point{n, *dd, 6.0 * n * *dd * in.train_usd_per_flop, 2.0 * n * in.inference_tokens * in.serve_usd_per_flop});
  }
  if (pts.empty()) {
    a.figure("params", std::nan(""), "param", "inference-aware optimum", "no N reaches the target loss");
    return a;
  }
  auto total = [](const Point& p) { return p.train + p.serve; };
  const Point best = *std::min_element(pts.begin(), pts.end(), [&](auto& x, auto& y) { return total(x) < total(y); });
  const Point chin =
      *std::min_element(pts.begin(), pts.end(), [](auto& x, auto& y) { return x.n * x.dd < y.n * y.dd; });
  a.figure("params", best.n, "param", "N minimising training + lifetime inference cost (Sardana et al. 2024)");
  a.figure("train_tokens", best.dd, "tok", "D at that N for the target loss");
  a.figure("tokens_per_param", best.dd / best.n, "", "D / N");
  a.figure("overtraining", best.dd / (20.0 * best.n), "x", "D / 20 N (Chinchilla's rule, F30)");
  a.figure("overtraining_vs_optimal", best.dd / chin.dd, "x", "D over the compute-optimal D at the same loss");
  a.figure("train_flops", 6.0 * best.n * best.dd, "FLOP", "6 N D");
  a.figure("train_usd", best.train, "$", "6 N D x training $/FLOP");
  a.figure("train_days", in.train_flops_per_s > 0 ? 6.0 * best.n * best.dd / in.train_flops_per_s / 86400.0 : 0.0,
           "day", "6 N D / the cluster's achieved FLOP/s");
  a.figure("inference_usd_per_mtok", 2.0 * best.n * in.serve_usd_per_flop * 1e6, "$/Mtok",
           "2 N x serving $/FLOP, per million tokens");
  a.figure("inference_usd", best.serve, "$", "2 N D_inf x serving $/FLOP");
  a.figure("total_usd", total(best), "$", "training + lifetime inference");
  a.figure("chinchilla_params", chin.n, "param", "compute-optimal N at the same loss");
  a.figure("chinchilla_train_tokens", chin.dd, "tok", "compute-optimal D at the same loss");
  a.figure("chinchilla_total_usd", total(chin), "$", "training + inference at the compute-optimal N");
  a.figure("saving", 1.0 - total(best) / total(chin), "", "share of the compute-optimal total saved");
  a.explain(fmt::format("training $/FLOP = {} ({}); serving $/FLOP = {} ({})", num(in.train_usd_per_flop),
                        in.train_basis, num(in.serve_usd_per_flop), in.serve_basis));
  a.explain(
      fmt::format("minimise 6 N D(N) x {} + 2 N x {} x {} with L(N, D(N)) = {}: N = {}, D = {} ({} tokens per "
                  "parameter), total ${}",
                  num(in.train_usd_per_flop), num(in.inference_tokens), num(in.serve_usd_per_flop), num(target),
                  num(best.n), num(best.dd), num(best.dd / best.n), num(total(best))));
  // The lecture's equal-cost split (F28) at the real MFUs: 6 D_pre / MFU_train = 2 D_inf / MFU_serve
  // = r D_RL / MFU_serve (RL rollouts priced as decode).
  if (in.train_mfu > 0 && in.serve_mfu > 0 && in.inference_tokens > 0) {
    const double d_pre = 2.0 * in.inference_tokens / in.serve_mfu * in.train_mfu / 6.0;
    const double d_rl = 2.0 * in.inference_tokens / in.rl_multiplier;
    a.figure("lecture_pretrain_tokens", d_pre, "tok", "equal thirds: 6 D_pre / MFU_train = 2 D_inf / MFU_serve (F28)");
    a.figure("lecture_rl_tokens", d_rl, "tok", "equal thirds: RL rollouts priced as decode");
    if (in.reference_params > 0)
      a.figure("lecture_overtraining", d_pre / (20.0 * in.reference_params), "x",
               "D_pre / 20 N for the reference model (F30)");
    a.explain(fmt::format("lecture split: D_pre = 2 x {} / {:.3f} x {:.3f} / 6 = {}; D_RL = 2 D_inf / {} = {}",
                          num(in.inference_tokens), in.serve_mfu, in.train_mfu, num(d_pre), num(in.rl_multiplier),
                          num(d_rl)));
  }
  Table t{"cost_vs_n",
          {{"params", "param", "N"},
           {"train_tokens", "tok", "D"},
           {"train_usd", "$", "training $"},
           {"inference_usd", "$", "inference $"},
           {"total_usd", "$", "total $"}},
          {},
          "total cost against N at the target loss"};
  for (std::size_t i = 0; i < pts.size(); i += 12) {
    const Point& p = pts[i];
    t.rows.push_back({p.n, p.dd, p.train, p.serve, total(p)});
  }
  a.tables.push_back(std::move(t));
  return a;
}

TrainRange train_range(const TrainSetup& s, const TrainLayout& l, const Uncertainty& u, int samples) {
  std::mt19937_64 rng(12345);
  std::vector<double> step, mfu, days, usd;
  for (int i = 0; i < samples; ++i) {
    const Hardware hw = sample_hardware(*s.hw, u, rng);
    TrainSetup x = s;
    x.hw = &hw;
    x.eff = sample_efficiency(s.eff, u, rng);
    // The MoE host time is launch overhead too: it moves with the kernel overhead's draw.
    if (s.eff.kernel_overhead.si() > 0) x.expert_host = s.expert_host * (x.eff.kernel_overhead / s.eff.kernel_overhead);
    x.price = hw.price.value;
    if (s.price.si() != s.hw->price.value.si()) x.price = s.price;  // the user's own price stays
    const TrainResult r = evaluate_training(x, l, false);
    if (r.run.wall.si() <= 0) continue;
    step.push_back(r.time.step.si());
    mfu.push_back(r.mfu);
    days.push_back(r.run.wall.si() / 86400.0);
    usd.push_back(r.run.usd.si());
  }
  TrainRange out;
  out.samples = static_cast<int>(step.size());
  if (out.samples > 0) {
    out.step_s = quantiles(std::move(step));
    out.mfu = quantiles(std::move(mfu));
    out.days = quantiles(std::move(days));
    out.usd = quantiles(std::move(usd));
  }
  return out;
}

}  // namespace llmecon
