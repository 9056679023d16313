// train/train.hpp: a training run on a cluster (docs/model.md §24): FLOPs, memory per GPU,
// time per step, MFU and HFU, failures and checkpoints, the whole run's days, GPU-hours, $ and
// energy; a search over layouts; and scaling laws tied to those dollars.
//
//   TrainSetup s{&model, &hw, eff};
//   s.seq_len = 8192; s.global_batch = 2048; s.tokens = 15e12;
//   TrainLayout l{.tp = 8, .pp = 16, .dp = 128};
//   TrainResult r = evaluate_training(s, l);   // r.feasible, r.memory, r.time, r.mfu, r.run
//   TrainSearch best = search_training(s, 16384, TrainObjective::kTime, TrainSearchSpace{}, /*keep=*/10);
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/hardware.hpp"
#include "model/model.hpp"
#include "roofline/roofline.hpp"
#include "units/analysis.hpp"
#include "units/names.hpp"
#include "units/units.hpp"

namespace llmecon {

/// What the backward pass recomputes of the forward (model.md §24.2).
enum class Recompute {
  kNone,        ///< every activation stored
  kSelective,   ///< attention's core recomputed (Korthikanti et al. 2022)
  kFull,        ///< only each layer's input stored; the whole forward recomputed
  kReversible,  ///< RevNet-style reversible layers: one layer's activations, inputs rebuilt backwards
};
/// Recompute's names, in the order `train --recompute` lists them.
inline constexpr NameTable<Recompute, 4> kRecomputeNames{{{Recompute::kSelective, "selective"},
                                                          {Recompute::kNone, "none"},
                                                          {Recompute::kFull, "full"},
                                                          {Recompute::kReversible, "reversible"}}};
inline std::string_view name(Recompute r) {
  return name_in(kRecomputeNames, r);
}
inline std::optional<Recompute> parse_recompute(std::string_view s) {
  return value_in(kRecomputeNames, s);
}

/// Megatron-Core's selective recomputation modules (its recompute_modules), a bit set that
/// Recompute::kSelective applies (model.md §24.2): each drops tensors from the saved set and its
/// backward reruns what made them. A module the model lacks (MLA's up projections in a GQA model,
/// dense MLPs in an all-MoE stack) changes nothing.
enum RecomputeModule : unsigned {
  kRecomputeCoreAttn = 1U << 0,       ///< attention's core (Korthikanti et al.'s selective; the default)
  kRecomputeLayernorm = 1U << 1,      ///< the norms: the GEMM inputs they feed are not kept
  kRecomputeMoeAct = 1U << 2,         ///< the routed experts' activation: their down projections' inputs
  kRecomputeMlaUpProj = 1U << 3,      ///< MLA's up projections (and RoPE): Q, K and V
  kRecomputeMlp = 1U << 4,            ///< dense MLP blocks: only their input kept
  kRecomputeSharedExperts = 1U << 5,  ///< MoE shared experts: only their input kept
  kRecomputeMoe = 1U << 6,            ///< the whole MoE block, its all-to-all included: only its input kept
};
inline constexpr unsigned kRecomputeAllModules = (1U << 7) - 1;
/// The modules Megatron checkpoints whole (the others discard one output and recompute it).
inline constexpr unsigned kCheckpointedModules = kRecomputeMlp | kRecomputeSharedExperts | kRecomputeMoe;
/// "core_attn+layernorm", Megatron's names joined by '+' ("" for none).
std::string recompute_modules_name(unsigned modules);
/// Megatron's module names separated by ',' or '+'; "" and "none" are the empty set; nullopt names
/// an unknown one.
std::optional<unsigned> parse_recompute_modules(std::string_view s);
/// The modules that change something for this model (the rest are dropped).
unsigned applicable_modules(const ModelSpec& m, unsigned modules);

/// Megatron-Core's fine-grained activation offloading (its offload_modules), a bit set (model.md
/// §24.2): the tensors a module keeps for its backward go to host memory after its forward and
/// come back before its backward.
enum OffloadModule : unsigned {
  kOffloadCoreAttn = 1U << 0,   ///< attention's core: Q, K, V and the fused kernel's output
  kOffloadAttnProj = 1U << 1,   ///< the attention output projection's input
  kOffloadExpertFc1 = 1U << 2,  ///< each routed copy's input to its first expert GEMM
  kOffloadMoeAct = 1U << 3,     ///< each routed copy's activation input (the first GEMM's output)
};
/// "expert_fc1+moe_act", Megatron's names joined by '+' ("" for none).
std::string offload_modules_name(unsigned modules);
/// Megatron's names separated by ',' or '+'; "" and "none" are the empty set; nullopt names an
/// unknown one (Megatron's attn_norm and mlp_norm are not modelled: recompute the norms instead).
std::optional<unsigned> parse_offload_modules(std::string_view s);

/// The pipeline schedule (model.md §24.3).
enum class PipeSchedule { k1F1B, kInterleaved, kZeroBubble, kDualPipe };
/// PipeSchedule's names, in the order `train --schedule` lists them.
inline constexpr NameTable<PipeSchedule, 4> kScheduleNames{{{PipeSchedule::k1F1B, "1f1b"},
                                                            {PipeSchedule::kInterleaved, "interleaved"},
                                                            {PipeSchedule::kZeroBubble, "zero-bubble"},
                                                            {PipeSchedule::kDualPipe, "dualpipe"}}};
inline std::string_view name(PipeSchedule s) {
  return name_in(kScheduleNames, s);
}
inline std::optional<PipeSchedule> parse_schedule(std::string_view s) {
  return value_in(kScheduleNames, s);
}

/// How a run is split: tp x cp chips share a micro-batch's layers, pp stages, dp replicas;
/// routed experts spread over ep of the tp x cp x dp chips of a stage (Megatron's expert
/// parallelism inside data parallelism).
struct TrainLayout {
  int tp = 1;
  int pp = 1;
  int ep = 1;
  int cp = 1;
  int dp = 1;
  int zero = 1;  ///< ZeRO stage 0-3 over the data-parallel group (3 = FSDP)
  Recompute recompute = Recompute::kSelective;
  PipeSchedule schedule = PipeSchedule::k1F1B;
  int chunks = 1;                         ///< interleaved schedule: model chunks per stage (v)
  double micro_batch = 1;                 ///< sequences per micro-batch
  unsigned modules = kRecomputeCoreAttn;  ///< RecomputeModule bits, with Recompute::kSelective
  [[nodiscard]] int chips() const { return tp * pp * cp * dp; }
  [[nodiscard]] std::string str() const;
  /// "selective", or "selective(layernorm+moe_act)" for other modules than attention's core.
  [[nodiscard]] std::string recompute_label() const;
};

/// Optimizer state formats: Adam with fp32 master weights and fp32 moments (12 B per parameter,
/// the ZeRO paper's mixed-precision Adam), or with bf16 moments (8 B: DeepSeek-V3).
enum class OptimizerState { kAdamFp32, kAdamBf16Moments };
inline constexpr NameTable<OptimizerState, 2> kOptimizerNames{
    {{OptimizerState::kAdamFp32, "adam-fp32"}, {OptimizerState::kAdamBf16Moments, "adam-bf16"}}};

/// How FP8 training scales each cast (model.md §24.3; Transformer Engine's recipes, Megatron-LM's
/// --fp8-recipe): delayed scaling takes the scale from an amax history of earlier steps, so the
/// cast finds the new amax as it goes; tensorwise current scaling needs the tensor's amax before
/// it casts, one more read of the input; blockwise (DeepSeek-V3's 1x128 and 128x128 tiles) and
/// MXFP8 (32-element blocks) scale each block inside the cast kernel.
enum class Fp8Recipe { kDelayed, kTensorwise, kBlockwise, kMxfp8 };
inline constexpr NameTable<Fp8Recipe, 4> kFp8RecipeNames{{{Fp8Recipe::kDelayed, "delayed"},
                                                          {Fp8Recipe::kTensorwise, "tensorwise"},
                                                          {Fp8Recipe::kBlockwise, "blockwise"},
                                                          {Fp8Recipe::kMxfp8, "mxfp8"}}};

/// Which fused attention kernel a training stack runs (model.md §24.3): the chip family's fastest
/// (cuDNN's through Transformer Engine on Hopper and Blackwell), or FlashAttention-2 (the
/// flash-attn package, as nanotron and llm-foundry call it).
enum class AttentionKernel { kFused, kFa2 };
inline constexpr NameTable<AttentionKernel, 2> kAttentionKernelNames{
    {{AttentionKernel::kFused, "fused"}, {AttentionKernel::kFa2, "fa2"}}};

/// How a pipeline's stages share the layers and the output head (model.md §24.3): spread, as a
/// split balanced around the head (the head's time 1/pp on every stage, Llama 3's moving a layer
/// out of the last stage, Megatron-Core's account_for_loss_in_pipeline_split); or even, Megatron's
/// default, ceil(L / pp) whole layers a stage and the head on the last.
enum class PipelineSplit { kSpread, kEven };
inline constexpr NameTable<PipelineSplit, 2> kPipelineSplitNames{
    {{PipelineSplit::kSpread, "spread"}, {PipelineSplit::kEven, "even"}}};

/// Failures and checkpoints (model.md §24.5).
struct FailureModel {
  double failures_per_gpu_hour = 0;    ///< 0: no failures
  BytesPerSecond storage_bandwidth{};  ///< checkpoint write bandwidth of the whole cluster
  Seconds restart{};                   ///< detection, rescheduling and reload after a failure
  std::optional<Seconds> interval;     ///< checkpoint interval; nullopt: Young-Daly
};

/// The fitted host time per local expert per MoE layer per micro-batch (TrainSetup::expert_host).
inline constexpr double kExpertHostSeconds = 400e-6;

/// The measured step over the predicted one on the published training runs of
/// data/validation/dev.csv, each row predicted by a fit that leaves its source out (p10, p50 and
/// p90 over the rows; `llmecon validate` reports them as training_fit.loso_step_ratio_dense and
/// _moe; model.md §24.3): the band a prediction for a dense or an MoE model carries.
struct ValidatedBand {
  double p10 = 1, p50 = 1, p90 = 1;
  int rows = 0;
  /// The band's width, p90 / p10: two predictions closer than this are not ranked apart.
  [[nodiscard]] constexpr double width() const { return p90 / p10; }
  /// Whether a step lies within the band's width of the fastest one (model.md §24.6).
  [[nodiscard]] constexpr bool within(double step, double fastest) const { return step <= fastest * width(); }
};
inline constexpr ValidatedBand kValidatedDense{0.926, 0.986, 1.086, 18};
inline constexpr ValidatedBand kValidatedMoe{0.774, 0.989, 1.349, 33};
/// The band of the model's kind.
inline const ValidatedBand& validated_band(const ModelSpec& m) {
  return m.is_moe() ? kValidatedMoe : kValidatedDense;
}

/// Everything a training run is, but its layout.
struct TrainSetup {
  const ModelSpec* model = nullptr;
  const Hardware* hw = nullptr;
  Efficiency eff;             ///< the chip's achievable rates (the step model's)
  double seq_len = 4096;      ///< tokens per sequence
  double global_batch = 1;    ///< sequences per optimizer step
  double tokens = 0;          ///< training tokens of the whole run (0: one step only)
  DType gemm = DType::kBf16;  ///< the GEMMs' format: bf16, or fp8 (FP8 training)
  OptimizerState optimizer = OptimizerState::kAdamFp32;
  Fp8Recipe fp8_recipe = Fp8Recipe::kDelayed;                  ///< how FP8 casts find their scales (with gemm fp8)
  AttentionKernel attention_kernel = AttentionKernel::kFused;  ///< with flash_attention: which kernel
  PipelineSplit pipeline_split = PipelineSplit::kSpread;       ///< how stages share layers and the head
  /// Gradients' format, accumulated and reduced over data parallelism: bf16 (the ZeRO paper's
  /// 2 B/param), or fp32 (Megatron-LM's default for bf16 training: 4 B/param held and reduced).
  DType grad = DType::kBf16;
  double dp_overlap = 0.9;      ///< share of data-parallel communication hidden under compute
  double tp_overlap = 0.0;      ///< share of tensor-parallel communication hidden under compute
  double ep_overlap = 0.0;      ///< share of the MoE all-to-all hidden under another micro-batch's compute
  double moe_imbalance = 1.0;   ///< busiest expert rank's tokens over the mean (>= 1)
  double usable_hbm = 0.95;     ///< share of HBM a framework can fill
  bool dropout = false;         ///< dropout masks stored (GPT-3-era models)
  bool flash_attention = true;  ///< a fused attention kernel: scores never stored
  /// Attention's core format: bf16, or fp8 (FP8 dot-product attention, Transformer Engine's
  /// fp8_dpa): QK^T and PV at the FP8 rate when the GEMMs are FP8 too (model.md §24.3).
  DType attention = DType::kBf16;
  /// SMs the all-to-all kernels hold while they run beside compute (model.md §24.3): DeepSeek-V3
  /// dedicates 20 of H800's 132 to them; the compute they hide under runs on the rest.
  double ep_comm_sms = 20;
  /// Activations offloaded to the chip's first host tier (OffloadModule bits; model.md §24.2-24.3).
  unsigned offload = 0;
  /// Share of the optimizer's states (fp32 master weights and moments) held and updated on the host,
  /// in the chip's first host tier (Megatron-Core's optimizer_cpu_offload with its
  /// optimizer_offload_fraction; model.md §24.2-24.3): 0 keeps them all in HBM, 1 offloads them all.
  double optimizer_offload = 0;
  /// Share of the step model's kernel rate a training step keeps (backward GEMMs, kernels the
  /// step model does not list, framework gaps), fitted with expert_host on the training rows of
  /// data/validation/dev.csv (0.804 on 51 rows; `llmecon validate` reports the fit as training_fit;
  /// model.md §24.3). `--ideal`: 1.
  double kernel_efficiency = 0.804;
  /// Host time per local expert of an MoE layer per micro-batch, forward and backward (model.md
  /// §24.3): the host launches each expert's GEMMs and casts one by one after the dispatch's
  /// device-to-host synchronization, so this time adds to the step. Fitted with kernel_efficiency
  /// to the MoE training rows of dev.csv (`llmecon validate` reports it as training_fit).
  /// `--ideal`: 0.
  Seconds expert_host = units::seconds(kExpertHostSeconds);
  /// What a GPU draws while training (model.md §25.6): the board at the step's HFU, the host and
  /// PUE; the shells fill it from data/tco.toml.
  PowerModel power;
  double usd_per_kwh = 0.08;
  DollarsPerSecond price{};  ///< per chip; the catalog's rental price by default
  FailureModel failures;
};

/// Bytes per GPU by term (model.md §24.2); the worst pipeline stage (the first).
struct TrainMemory {
  Bytes weights{}, gradients{}, optimizer{}, activations{}, comm_buffers{};
  Bytes capacity{};  ///< usable HBM
  /// Host memory per GPU (not in total()): offloaded activations in flight and offloaded optimizer
  /// states with their fp32 gradients (model.md §24.2).
  Bytes host{};
  [[nodiscard]] Bytes total() const { return weights + gradients + optimizer + activations + comm_buffers; }
};

/// Seconds per optimizer step by term (model.md §24.3). Compute terms are per GPU over the whole
/// step (every micro-batch); communication terms are what stays exposed.
struct TrainTime {
  Seconds forward{}, backward{}, recompute{};
  Seconds elementwise{};  ///< of forward and backward: the HBM passes between GEMMs (model.md §24.3)
  Seconds tp_comm{}, cp_comm{}, ep_comm{}, pp_comm{}, dp_comm{};  ///< exposed
  Seconds tp_comm_total{}, cp_comm_total{}, ep_comm_total{}, pp_comm_total{}, dp_comm_total{};
  Seconds bubble{}, optimizer{};
  /// Of the optimizer: the offloaded share's gradient and weight copies and its update in host
  /// memory (model.md §24.3).
  Seconds optimizer_host{};
  Seconds host{};                      ///< MoE: the host's expert launches after each dispatch's sync (model.md §24.3)
  Seconds offload{}, offload_total{};  ///< activation copies to and from host memory: exposed, all
  Seconds step{};
  double bubble_fraction = 0;  ///< bubble over the step
  double micro_batches = 0;    ///< per data-parallel replica per step
};

/// The whole run (model.md §24.4-24.5).
struct TrainRun {
  double steps = 0;
  Seconds useful{};  ///< steps x step time, no failures
  Seconds wall{};    ///< with checkpoints, failures and restarts
  double goodput = 1;
  double gpu_hours = 0;
  Dollars usd{};
  Joules energy{};
  Dollars energy_usd{};
  double failures = 0;  ///< expected interruptions
  Seconds mtbf{};       ///< of the whole cluster (0: no failures)
  Bytes checkpoint_bytes{};
  Seconds checkpoint_write{};
  Seconds checkpoint_interval{};
};

struct TrainResult {
  bool feasible = false;
  std::string reason;  ///< why not, when infeasible
  /// What made it infeasible: the layout key a LayoutIssue names ("tp", "global_batch", ...),
  /// "memory", or "failures"; empty when feasible.
  std::string issue;
  TrainLayout layout;
  TrainMemory memory;
  TrainTime time;
  Flops model_flops{};             ///< per step (PaLM's MFU count: 6N + 12 L H Q T per token)
  Flops hardware_flops{};          ///< per step, recomputation included
  double mfu = 0, hfu = 0;         ///< against the dense bf16 peak
  TokensPerSecond tokens_per_s{};  ///< the cluster's
  TrainRun run;
  std::vector<std::string> derivation;  ///< filled when asked
  /// How many first lines of `derivation` state the run's work and memory (§24.1-24.2): what an
  /// infeasible run's answer still explains (Analysis::explain_fact).
  std::size_t derivation_facts = 0;
};

/// Why a layout cannot run: the flag at fault (its argument key: "pp", "global_batch", ...) and
/// the reason.
struct LayoutIssue {
  std::string key;
  std::string why;
};
/// Why a layout cannot run this model on this many chips, or nullopt: divisibility of heads,
/// experts, layers and the batch (model.md §24.1).
std::optional<LayoutIssue> check_layout(const TrainSetup& s, const TrainLayout& l, int chips);

/// One layout, evaluated. An infeasible layout (memory, divisibility) carries its reason.
TrainResult evaluate_training(const TrainSetup& s, const TrainLayout& l, bool explain = false);

/// Model FLOPs of one token in PaLM's convention: 6 N_active (matmul weights) + 12 L H Q T
/// (attention counted in full, not causal), model.md §24.1.
Flops model_flops_per_token(const ModelSpec& m, double seq_len);

/// Korthikanti et al.'s activation bytes of one transformer layer per micro-batch per chip, with
/// sequence parallelism over tp and each recompute choice (model.md §24.2): 34 s b h / t for GPT-3
/// with dropout and selective recomputation in bf16. FP8 training (gemm = fp8) saves each GEMM's
/// input at 1 byte, as Transformer Engine does. Selective recomputation drops what `modules`
/// (RecomputeModule bits) recompute. Exposed for tests.
/// `offload` (OffloadModule bits) leaves out what goes to host memory.
Bytes layer_activation_bytes(const ModelSpec& m, const Layer& layer, double seq, double batch, int tp, int cp,
                             Recompute r, bool dropout, bool flash, DType gemm, unsigned modules = kRecomputeCoreAttn,
                             unsigned offload = 0);

/// Pipeline bubble time over p stages (v = chunks when interleaved) with per-micro-batch forward and
/// backward times (model.md §24.3). Exposed for tests.
Seconds pipeline_bubble(PipeSchedule s, int p, int chunks, Seconds fwd, Seconds bwd);

/// The Young-Daly checkpoint interval sqrt(2 delta M) (model.md §24.5).
Seconds young_daly_interval(Seconds checkpoint_write, Seconds mtbf);
/// The share of wall time that is useful work, given the checkpoint write time, interval,
/// restart time and the cluster's MTBF (0 when failures outrun checkpoints; 1 without failures).
double training_goodput(Seconds checkpoint_write, Seconds interval, Seconds restart, Seconds mtbf);

enum class TrainObjective { kTime, kCost };
inline constexpr NameTable<TrainObjective, 2> kObjectiveNames{
    {{TrainObjective::kTime, "time"}, {TrainObjective::kCost, "cost"}}};

/// A training stack whose known constraints narrow the search (model.md §24.6): what it shards and
/// how it splits a replica's batch.
enum class TrainStack { kAny, kMegatron, kMaxText, kTorchTitan, kLlmFoundry };
inline constexpr NameTable<TrainStack, 5> kStackNames{{{TrainStack::kAny, "any"},
                                                       {TrainStack::kMegatron, "megatron"},
                                                       {TrainStack::kMaxText, "maxtext"},
                                                       {TrainStack::kTorchTitan, "torchtitan"},
                                                       {TrainStack::kLlmFoundry, "llm-foundry"}}};
/// The named stacks, in the order a search reports them.
inline constexpr TrainStack kNamedStacks[] = {TrainStack::kMegatron, TrainStack::kTorchTitan, TrainStack::kMaxText,
                                              TrainStack::kLlmFoundry};
/// What the search considers (defaults: everything sensible for the model).
/// Candidate layouts one search may hold: about 10 s of evaluation on one core, far above any
/// real search (a 1,024-chip DeepSeek-V3 search holds about 4 x 10^5).
inline constexpr double kMaxLayouts = 1e7;

struct TrainSearchSpace {
  std::vector<int> zero{0, 1, 2, 3};
  std::vector<Recompute> recompute{Recompute::kNone, Recompute::kSelective, Recompute::kFull};
  /// Module sets tried with Recompute::kSelective (those the model lacks dropped): attention's
  /// core, and the light set Megatron's recipes use (norms, expert activation, MLA up projections).
  std::vector<unsigned> module_sets{kRecomputeCoreAttn, kRecomputeLayernorm | kRecomputeMoeAct | kRecomputeMlaUpProj};
  std::vector<PipeSchedule> schedules{PipeSchedule::k1F1B, PipeSchedule::kInterleaved, PipeSchedule::kZeroBubble,
                                      PipeSchedule::kDualPipe};
  std::vector<double> micro_batches{1, 2, 4, 8};
  int max_tp = 0;  ///< 0: the scale-up domain
  int max_cp = 32;
  int max_pp = 0;  ///< 0: the layers
  /// Whether a replica may accumulate gradients over several micro-batches; without, its
  /// micro-batch is its whole share of the global batch (global batch / dp).
  bool accumulate = true;
  /// Also try each replica's whole share as one micro-batch (with accumulation allowed).
  bool whole_share = false;
  TrainStack stack = TrainStack::kAny;  ///< layouts it does not run are left out
  /// The most candidate layouts one search may hold (kMaxLayouts): a larger space is refused
  /// before any is evaluated (TrainSearch::over_cap).
  double max_layouts = kMaxLayouts;
};

/// The search space of a stack: Megatron-Core with tp, pp, cp and ep, 1F1B or interleaved, its
/// distributed optimizer (ZeRO-1) under a pipeline and Megatron-FSDP (ZeRO 0-3) without, and
/// gradient accumulation; MaxText shards with FSDP (ZeRO-3) and tensor parallelism and no
/// pipeline, torchtitan with FSDP2 (ZeRO-3) and tp, pp and cp, llm-foundry with PyTorch FSDP
/// (ZeRO-3) alone; none of those three accumulates gradients in its published runs (a device's
/// batch is its micro-batch). The unconstrained space (`any`) and Megatron's add that whole-batch
/// micro-batch to their own, so every stack's layouts are in `any`'s.
TrainSearchSpace stack_space(TrainStack stack);
/// Whether `stack` runs the layout with this global batch (`any` runs everything): the one rule
/// the search filters by and a listed layout is labelled with.
bool stack_runs(TrainStack stack, const TrainLayout& l, double global_batch);
inline std::string_view name(TrainStack s) {
  return name_in(kStackNames, s);
}

/// The recomputations a search tries: each of space.recompute, selective once per module set the
/// model can use (each distinct set once; a set the model has none of is no recomputation).
std::vector<std::pair<Recompute, unsigned>> recompute_choices(const ModelSpec& m, const TrainSearchSpace& space);

struct TrainSearch {
  std::vector<TrainResult> ranked;    ///< feasible layouts, best first (capped)
  std::vector<TrainResult> frontier;  ///< step time against memory headroom: no point beats another on both
  /// A class of rejected layouts: its reason, the key of what rejected them (TrainResult::issue)
  /// and how many.
  struct Rejection {
    std::string reason;
    std::string issue;
    int count = 0;
  };
  std::vector<Rejection> rejected;  ///< most common first
  /// The data-parallel degrees the searched shapes (tp x cp x pp) leave, ascending: what a global
  /// batch must split over.
  std::vector<int> dp_degrees;
  int evaluated = 0;
  /// The candidate layouts the space holds (before the stack's and the batch's filters), when
  /// that is above space.max_layouts (`cap`): nothing was evaluated. 0 otherwise.
  double over_cap = 0, cap = 0;
  /// The fastest (or cheapest) feasible layout each named stack runs, in kNamedStacks order; a
  /// stack none of whose layouts fits is absent.
  std::vector<std::pair<TrainStack, TrainResult>> per_stack;
};

/// The best layouts of `chips` chips for this run, fastest (or cheapest) first (model.md §24.6).
/// `progress(done, total)` may be empty.
TrainSearch search_training(const TrainSetup& s, int chips, TrainObjective objective, const TrainSearchSpace& space,
                            std::size_t keep, const std::function<void(double, double)>& progress = {});
/// The error a search over its cap answers with: the layouts, the cap, and what narrows it.
Error layouts_over_cap(const TrainSearch& found, int chips);

// ---- scaling laws (model.md §24.7) ----

/// L(N, D) = E + A / N^alpha + B / D^beta.
struct LossFit {
  std::string name;
  double E = 0, A = 0, B = 0, alpha = 0, beta = 0;
  std::string source;
  [[nodiscard]] double loss(double n, double d) const;
  /// Tokens needed to reach `target` with N parameters; nullopt when N cannot reach it.
  [[nodiscard]] std::optional<double> tokens_for(double n, double target) const;
  /// Compute-optimal N for a budget of C = 6 N D FLOPs.
  [[nodiscard]] double optimal_params(double flops) const;
};
/// The named fits: "hoffmann" (Hoffmann et al. 2022) and "epoch" (Besiroglu et al. 2024).
const std::vector<LossFit>& loss_fits();
const LossFit* find_loss_fit(std::string_view name);

/// What `scale` prices N and D with: dollars per FLOP of training and of serving, measured on a
/// reference model by `train` and the step model, and applied to every N (model.md §24.7).
struct ScaleInputs {
  const LossFit* fit = nullptr;
  double budget_flops = 0;              ///< training compute budget; 0: use target_loss
  double target_loss = 0;               ///< 0: the loss the budget reaches compute-optimally
  double inference_tokens = 0;          ///< tokens served over the model's life (D_inf)
  DollarsPerFlop train_usd_per_flop{};  ///< training, per model FLOP
  FlopsPerSecond train_rate{};          ///< the training cluster's achieved model FLOP/s
  DollarsPerFlop serve_usd_per_flop{};  ///< serving, per 2 N FLOPs of a generated token
  double train_mfu = 0, serve_mfu = 0;
  double rl_multiplier = 3;  ///< FLOPs per parameter per RL token (F25)
  double reference_params = 0;
  std::string train_basis, serve_basis;  ///< where the two rates come from
};
/// Chinchilla's compute-optimal point, the inference-aware optimum (Sardana et al. 2024) and the
/// lecture's equal-cost split, with a table of total cost against N.
Analysis scale_analysis(const ScaleInputs& in);

/// p10/p50/p90 of a layout's step time, MFU, days and $ over the catalog's spec ranges and the
/// efficiency priors (model.md §21), with a fixed seed.
struct TrainRange {
  Quantiles step_s, mfu, days, usd;
  int samples = 0;
};
TrainRange train_range(const TrainSetup& s, const TrainLayout& l, const Uncertainty& u, int samples);

}  // namespace llmecon
