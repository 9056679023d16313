// The `train` command's arguments, declared beside the training model that reads them
// (train_args.hpp); the command table and `validate`'s row notes both go through them.
#include "train/train_args.hpp"

#include <fmt/format.h>

#include <cmath>

#include "args/arg_builders.hpp"

namespace llmecon {

using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
using T = ArgType;

std::vector<ArgSpec> scale_arguments() {
  ArgSpec fit = choice("fit", "the loss fit: Hoffmann et al. 2022 or Epoch's replication (Besiroglu et al. 2024)",
                       {"hoffmann", "epoch"});
  ArgSpec budget = with_text(
      unit(bounded(arg("budget_flops", T::kNumber, "training compute budget"), 1e15, 1e32), "FLOP"), "3.8e25");
  ArgSpec loss = with_text(unit(bounded(arg("loss", T::kNumber, "target loss (instead of a budget)"), 0.5, 20), ""),
                           "the budget's compute-optimal loss");
  return {
      model("deepseek-v3"),
      hw("gb200"),
      unit(with_default(bounded(arg("chips", T::kInteger, "training GPUs (the reference run)"), 1, kMaxCount), 1024),
           "chip"),
      fit,
      budget,
      loss,
      number("inference_tokens", "tokens served over the model's life (D_inf)", "tok", 1e13, 0, 1e20),
      number("rl_multiplier", "FLOPs per parameter per RL token (F25)", "FLOP/param", 3, 2, 6),
      integer("seq_len", "training tokens per sequence", "tok", 8192, 1, kMaxTokens),
      usd_per_hour(),
      cost(),
      tco_file(),
      ideal(),
      explain()};
}

namespace {

// The run's formats, kernels, optimizer, overlaps and MoE constants (read by read_train_settings).
std::vector<ArgSpec> run_setting_arguments() {
  return {
      choice("train_dtype", "the GEMMs' format: bf16, or fp8 (FP8 training)", {"bf16", "fp8"}),
      choice("attention_dtype",
             "attention's core format: bf16, or fp8 (FP8 dot-product attention; at the FP8 rate with "
             "--train-dtype fp8)",
             {"bf16", "fp8"}),
      choice("attention_kernel",
             "the fused attention kernel: the chip family's fastest (fused: cuDNN on Hopper and Blackwell), or "
             "fa2 (FlashAttention-2, as nanotron and llm-foundry run it)",
             names_in(kAttentionKernelNames)),
      choice("pipeline_split",
             "how pipeline stages share the layers and the output head: spread (balanced around the head, its time "
             "1/pp on every stage), or even (Megatron's default: ceil(L/pp) whole layers a stage, the head on the "
             "last)",
             names_in(kPipelineSplitNames)),
      choice("fp8_recipe",
             "FP8 training's scaling (Megatron-LM's --fp8-recipe): delayed (an amax history), tensorwise (current "
             "scaling: one more read of each cast's input for its amax), blockwise or mxfp8 (scales inside the cast)",
             names_in(kFp8RecipeNames)),
      choice("optimizer", "Adam with fp32 master weights and fp32 (12 B/param) or bf16 moments (8 B/param)",
             names_in(kOptimizerNames)),
      choice("grad_dtype",
             "gradients' format, held and reduced over data parallelism: bf16 (2 B/param), or fp32 (Megatron-LM's "
             "default for bf16 training)",
             {"bf16", "fp32"}),
      number("dp_overlap", "share of data-parallel communication hidden under compute", "", 0.9, 0, 1),
      number("tp_overlap", "share of tensor-parallel communication hidden under compute", "", 0, 0, 1),
      number("ep_overlap",
             "MoE: share of the expert all-to-all hidden under another micro-batch's compute (DualPipe: all)", "", 0, 0,
             1),
      number("ep_comm_sms",
             "MoE: SMs the all-to-all holds while it runs beside compute (DeepSeek-V3: 20 of 132); the hidden "
             "share slows that compute by SMs / the chip's SMs",
             "", 20, 0, 1024),
      number("moe_imbalance", "MoE: the busiest expert rank's tokens over the mean", "x", 1.0, 1, 100),
      number("expert_host_us",
             "MoE: host time per local expert per layer and micro-batch, forward and backward: each expert's "
             "GEMMs launched one by one after the dispatch's sync (fitted to dev.csv; 0: none, e.g. sync-free "
             "and graphed)",
             "us", kExpertHostSeconds * 1e6, 0, 1e5),
  };
}

}  // namespace

std::vector<ArgSpec> train_arguments() {
  // A choice with no default: its absence means something (here: the search chooses).
  auto unstated = [](ArgSpec x, std::string text) {
    x.def = nullptr;
    return with_text(std::move(x), std::move(text));
  };
  auto positive = [](std::string key, std::string help, std::string u, Json def, double hi) {
    ArgSpec x = number(std::move(key), std::move(help), std::move(u), std::move(def), 0, hi);
    x.exclusive_min = true;
    return x;
  };
  std::vector<ArgSpec> v{
      model("deepseek-v3"),
      hw("gb200"),
      unit(with_default(bounded(arg("chips", T::kInteger, "GPUs (chips) in the run"), 1, kMaxCount), 1024), "chip"),
      with_text(unit(bounded(arg("racks", T::kInteger, "scale-up domains in the run (instead of --chips)"), 1, 1e7),
                     "domain"),
                "none"),
      number("tokens", "training tokens of the whole run", "tok", 15e12, 1, 1e18),
      integer("seq_len", "tokens per sequence", "tok", 8192, 1, kMaxTokens),
      number("batch_tokens", "global batch in tokens (rounded to whole sequences)", "tok", 16777216, 1, 1e12),
      with_text(unit(bounded(arg("global_batch", T::kInteger, "global batch in sequences (instead of --batch-tokens)"),
                             1, 1e9),
                     "seq"),
                "--batch-tokens / --seq-len"),
      optional_integer("tp", "tensor (and sequence) parallel degree", "", 1, 1e6, "searched"),
      optional_integer("pp", "pipeline stages", "", 1, 1e6, "searched"),
      optional_integer("ep", "expert-parallel degree (inside tp x cp x dp)", "", 1, 1e6, "searched"),
      optional_integer("cp", "context-parallel degree", "", 1, 1e6, "searched"),
      optional_integer("dp", "data-parallel degree", "", 1, 1e9, "chips / (tp x pp x cp)"),
      optional_integer("zero", "ZeRO stage over the data-parallel group (3 = FSDP)", "", 0, 3,
                       "searched (1 with a layout)"),
      unstated(choice("recompute", "activation recomputation", names_in(kRecomputeNames)),
               "searched (selective with a layout)"),
      with_text(arg("recompute_modules", T::kString,
                    "what selective recomputation reruns, Megatron-Core's recompute_modules joined by ',': core_attn, "
                    "layernorm, moe_act, mla_up_proj, mlp, shared_experts, moe (none: nothing); implies --recompute "
                    "selective"),
                "core_attn (searched: also layernorm,moe_act,mla_up_proj)"),
      with_text(arg("offload_modules", T::kString,
                    "activations sent to host memory (the chip's first host tier) after the forward and back "
                    "for the backward, Megatron-Core's offload_modules joined by ',': core_attn, attn_proj, "
                    "expert_fc1, moe_act"),
                "none"),
      number("offload_optimizer_states",
             "share of the optimizer's states (fp32 master weights and moments) held and updated in host memory, the "
             "chip's first host tier: Megatron-Core's optimizer_cpu_offload with optimizer_offload_fraction (1: all)",
             "", 0, 0, 1),
      unstated(choice("schedule", "pipeline schedule", names_in(kScheduleNames)), "searched (1f1b with a layout)"),
      integer("chunks", "interleaved schedule: model chunks per stage", "", 2, 1, 1024),
      optional_integer("micro_batch", "sequences per micro-batch", "seq", 1, 1e6, "searched (1 with a layout)"),
  };
  std::vector<ArgSpec> settings = run_setting_arguments();
  v.insert(v.end(), std::make_move_iterator(settings.begin()), std::make_move_iterator(settings.end()));
  v.insert(
      v.end(),
      {number("failures_per_gpu_hour", "interruptions per GPU-hour (Llama 3: 419 in 54 days on 16,384 GPUs)", "1/h",
              419.0 / (54.0 * 24.0 * 16384.0), 0, 1),
       with_text(
           [&] {
             ArgSpec x = unit(
                 bounded(arg("mtbf_hours", T::kNumber, "per-GPU mean time between failures (instead)"), 0, 1e12), "h");
             x.exclusive_min = true;
             return x;
           }(),
           "from --failures-per-gpu-hour"),
       positive("storage_tb_per_s", "checkpoint write bandwidth of the cluster (Llama 3: 2 TB/s sustained)", "TB/s", 2,
                1e6),
       number("restart_min", "detection, rescheduling and reload after a failure", "min", 10, 0, 1e6),
       with_text(
           [&] {
             ArgSpec x = unit(bounded(arg("checkpoint_min", T::kNumber, "checkpoint interval"), 0, 1e9), "min");
             x.exclusive_min = true;
             return x;
           }(),
           "Young-Daly"),
       with_text(unit(bounded(arg("pue", T::kNumber,
                                  "facility power over IT power (the energy figures; an owned "
                                  "price keeps its profile's)"),
                              1, 5),
                      "x"),
                 "1.25 (data/tco.toml), or --cost's profile"),
       with_text(
           unit(bounded(arg("usd_per_kwh", T::kNumber, "electricity price (the energy figures)"), 0, 10), "$/kWh"),
           "0.08 (data/tco.toml), or --cost's profile"),
       usd_per_hour(), cost(), tco_file(),
       flag("search", "search layouts: the ranked list, the frontier and the rejections"),
       choice("objective", "search: fastest or cheapest run", names_in(kObjectiveNames)),
       choice("stack",
              "search: the training stack whose constraints narrow it: megatron (tp, pp, cp, ep; 1F1B or "
              "interleaved; its distributed optimizer under a pipeline, Megatron-FSDP without), maxtext (FSDP and "
              "tp, no pipeline), torchtitan (FSDP2 with tp, pp, cp), llm-foundry (FSDP alone); the last three "
              "without gradient accumulation",
              names_in(kStackNames)),
       integer("top", "search: layouts listed", "", 10, 1, 1000),
       flag("range", "p10/p50/p90 over spec ranges and efficiency priors"), ideal(), explain()});
  return v;
}

Status read_train_settings(const Args& a, TrainSetup& s) {
  s.gemm = a.text("train_dtype") == "fp8" ? DType::kFp8 : DType::kBf16;
  s.attention = a.text("attention_dtype") == "fp8" ? DType::kFp8 : DType::kBf16;
  s.optimizer = value_in(kOptimizerNames, a.text("optimizer")).value_or(OptimizerState::kAdamFp32);
  s.fp8_recipe = value_in(kFp8RecipeNames, a.text("fp8_recipe")).value_or(Fp8Recipe::kDelayed);
  s.attention_kernel = value_in(kAttentionKernelNames, a.text("attention_kernel")).value_or(AttentionKernel::kFused);
  s.pipeline_split = value_in(kPipelineSplitNames, a.text("pipeline_split")).value_or(PipelineSplit::kSpread);
  s.grad = a.text("grad_dtype") == "fp32" ? DType::kFp32 : DType::kBf16;
  s.dp_overlap = a.number("dp_overlap");
  s.tp_overlap = a.number("tp_overlap");
  s.ep_overlap = a.number("ep_overlap");
  s.ep_comm_sms = a.number("ep_comm_sms");
  s.moe_imbalance = a.number("moe_imbalance");
  s.expert_host = a.flag("ideal") ? Seconds{} : units::seconds(a.number("expert_host_us") * 1e-6);
  if (a.has("offload_modules")) {
    const auto off = parse_offload_modules(a.text("offload_modules"));
    if (!off) {
      return Error{"--offload-modules", "", fmt::format("unknown module in '{}'", a.text("offload_modules")),
                   "name core_attn, attn_proj, expert_fc1 or moe_act, joined by ',' (recompute the norms instead: "
                   "--recompute-modules layernorm)"};
    }
    s.offload = *off;
  }
  s.optimizer_offload = a.number("offload_optimizer_states");
  s.failures.failures_per_gpu_hour =
      a.has("mtbf_hours") ? 1.0 / a.number("mtbf_hours") : a.number("failures_per_gpu_hour");
  s.failures.storage_bandwidth = units::tb_per_s(a.number("storage_tb_per_s"));
  s.failures.restart = units::minutes(a.number("restart_min"));
  if (a.has("checkpoint_min")) s.failures.interval = units::minutes(a.number("checkpoint_min"));
  return {};
}

Result<TrainLayout> read_train_layout(const Args& a, const ModelSpec& m) {
  TrainLayout l;
  l.zero = static_cast<int>(a.number_or("zero", 1));
  l.recompute = parse_recompute(a.text_or("recompute", "selective")).value_or(Recompute::kSelective);
  if (a.has("recompute_modules")) {
    const std::string text = a.text("recompute_modules");
    const auto mods = parse_recompute_modules(text);
    if (!mods) {
      return Error{"--recompute-modules", "", fmt::format("unknown module in '{}'", text),
                   "name core_attn, layernorm, moe_act, mla_up_proj, mlp, shared_experts or moe, joined by ','"};
    }
    if (l.recompute != Recompute::kSelective) {
      return Error{"--recompute-modules", "", "modules apply to selective recomputation only",
                   fmt::format("drop --recompute {} or --recompute-modules", name(l.recompute))};
    }
    l.modules = applicable_modules(m, *mods);  // what the model lacks changes nothing
  }
  l.schedule = parse_schedule(a.text_or("schedule", "1f1b")).value_or(PipeSchedule::k1F1B);
  l.chunks = static_cast<int>(a.number("chunks"));
  l.micro_batch = a.number_or("micro_batch", 1);
  return l;
}

}  // namespace llmecon
