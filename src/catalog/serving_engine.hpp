// catalog/serving_engine.hpp: what a serving engine does by default (data/engines/*.toml,
// docs/model.md §18.4): how much memory its KV cache gets, how many sequences and tokens one
// iteration holds, the KV format it gives an FP8 checkpoint, and its exposed host time per step.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/dtype.hpp"
#include "units/error.hpp"
#include "units/names.hpp"
#include "units/units.hpp"

namespace llmecon {

/// The admission policy whose constants the profile's [admission] table holds (model.md §23.4).
inline constexpr std::string_view kTokenRatioAdmission = "token-ratio";

/// SGLang's admission estimate (model.md §23.4): a new request is charged its prompt and its
/// output (clipped), each running request its remaining output (clipped) times a ratio that
/// starts at `init`, falls by (init - init x min_factor) / decay_steps per decode iteration,
/// returns to `init` when the replica idles, and after a retraction jumps to (tokens decoded +
/// retract_steps x requests) / (tokens asked), at most 1.
struct TokenRatio {
  double init = 0.7;
  double min_factor = 0.14;
  double decay_steps = 600;
  double clip = 4096;
  double retract_steps = 20;
};

/// What an engine's memory fraction f is of (model.md §18.4).
enum class MemoryRule {
  kTotal,  ///< weights, activations and KV fill f of all HBM (vLLM, SGLang)
  kFree,   ///< KV fills f of what the weights leave (TensorRT-LLM)
  kKv,     ///< KV alone fills f of all HBM, beside the weights (LMDeploy TurboMind through 0.2.1)
};
inline constexpr NameTable<MemoryRule, 3> kMemoryRuleNames{
    {{MemoryRule::kTotal, "total"}, {MemoryRule::kFree, "free"}, {MemoryRule::kKv, "kv"}}};

/// The memory a rule's fraction is of, in words ("all memory", "the free memory", "all memory,
/// for the KV beside the weights").
inline const char* memory_rule_words(MemoryRule r) {
  switch (r) {
    case MemoryRule::kFree:
      return "the free memory";
    case MemoryRule::kKv:
      return "all memory, for the KV beside the weights";
    case MemoryRule::kTotal:
      break;
  }
  return "all memory";
}

struct ServingEngine {
  std::string name;
  std::string display_name;
  std::vector<std::string> sources;
  std::string notes;
  /// The KV cache's memory: `memory_fraction` of all HBM for weights, activations and KV
  /// (vLLM, SGLang), of what the weights and activations leave (TensorRT-LLM), or of all HBM for
  /// the KV alone (LMDeploy TurboMind).
  MemoryRule memory_rule = MemoryRule::kTotal;
  double memory_fraction = 0.9;
  double max_seqs = 1e8;            ///< sequences one iteration holds
  double max_batched_tokens = 1e8;  ///< tokens one iteration processes
  bool chunked_prefill = true;
  int kv_block_tokens = 16;    ///< tokens per paged-KV block
  bool prefix_caching = true;  ///< cached prefix blocks reused across requests
  /// The order an iteration is filled in: the name of a schedule policy of the simulator's
  /// registry (simulate/policy.hpp: decode-first, the running decodes before new prefills;
  /// prefill-first; or one registered beside them), checked when a simulation starts.
  std::string schedule = "decode-first";
  /// The schedule when prefills are not chunked, where the engine changes it then (vLLM V0:
  /// prefill-first without chunking, decode-first with it); absent: `schedule` either way.
  std::optional<std::string> unchunked_schedule;
  /// Without chunking the token budget is max(the model's context, 2048) unless one is told (vLLM
  /// V0's SchedulerConfig: whole prompts need a budget that holds the longest).
  bool unchunked_budget_context = false;
  /// How a continuous-batching engine admits a request against its KV memory: the name of an
  /// admission policy of the simulator's registry (simulate/policy.hpp: on-demand, the vLLM way;
  /// reserve, TensorRT-LLM's GUARANTEED_NO_EVICT; token-ratio, SGLang's estimate; or one
  /// registered beside them), checked when a simulation starts.
  std::string admission = "on-demand";
  /// The sequence and token caps bind each attention data-parallel rank (its own scheduler: vLLM's
  /// DP ranks, TensorRT-LLM's attention DP), not the instance (SGLang divides them over its ranks).
  bool caps_per_rank = false;
  /// How many schedulers an instance with `dp_attn` attention-DP ranks runs, each under the caps:
  /// dp_attn when they bind each rank, else 1.
  [[nodiscard]] int cap_scopes(int dp_attn) const { return caps_per_rank && dp_attn > 1 ? dp_attn : 1; }
  TokenRatio token_ratio;                  ///< the token-ratio rule's constants ([admission] in the profile)
  DType fp8_checkpoint_kv = DType::kBf16;  ///< the KV format an FP8 checkpoint gets unless told
  Seconds host_overhead{};                 ///< host time per step the GPU waits for
  /// Host time per step for each sequence the step holds (building its inputs, sampling metadata,
  /// block tables: model.md §18.4), on the scheduler that holds it.
  Seconds host_per_sequence{};
  bool cuda_graphs = true;
  /// Fraction of the chip's GEMM rates (its efficiency family, model.md §18) that this engine's
  /// GEMMs sustain through a whole forward pass; fitted to the validation rows (model.md §18.4).
  double compute_sustained = 1.0;
  std::string compute_sustained_source;      ///< how compute_sustained was measured or fitted
  std::map<std::string, std::string> flags;  ///< launch-flag names, from the engine's documentation
  /// The words (lowercase) a measurement's free text names this engine by ("tensorrt-llm",
  /// "trt-llm"); empty: never inferred from text.
  std::vector<std::string> mentioned_as;
  /// A release line of another profile's engine: `engine` names it and `versions` the releases
  /// ("0.6", "0.7": a version matches a prefix that ends at a dot or the end) that run as this
  /// profile (vllm-v0: vLLM's V0 engine). Empty: the engine's own profile.
  std::string engine;
  std::vector<std::string> versions;
  /// Whether `version` (as published: "0.6.3.post2.dev308+gb489fc3c") is one of `versions`.
  [[nodiscard]] bool runs_version(std::string_view version) const;
  /// How the launch command spells a plan (the profile's [launch] table); absent: the engine has
  /// no launch command (`plan --emit` refuses it).
  struct Launch {
    bool tp_counts_instance = false;   ///< --tp counts every GPU of the instance, attention DP included
    bool ep_switch = false;            ///< expert parallelism is a switch (it spans tp x dp), not a degree
    bool options_file = false;         ///< attention DP and the KV format go in an options file (YAML)
    bool fp8_from_checkpoint = false;  ///< FP8 weights come from the checkpoint, with no flag
    std::string kv_fp8;                ///< the KV format flag's value for FP8 ("fp8", "fp8_e4m3")
    /// How an instance spans nodes: "ranks" (one command per node with its rank: SGLang),
    /// "dp-local" (data-parallel ranks per node, the others headless: vLLM), "mpi" (every rank in
    /// one MPI job: TensorRT-LLM), or "" (the profile does not say).
    std::string multinode;
  };
  std::optional<Launch> launch;
};

/// The KV format a checkpoint with `weights` gets when none is given: the engine's for an FP8
/// checkpoint, else bf16 (also without an engine).
inline DType default_kv(const ServingEngine* e, DType weights) {
  return e != nullptr && weights == DType::kFp8 ? e->fp8_checkpoint_kv : DType::kBf16;
}

/// The profile that runs `name` at `version`: a release line's profile whose versions hold it,
/// else the engine's own; nullptr when no profile is named `name`.
const ServingEngine* find_engine(const std::vector<ServingEngine>& engines, std::string_view name,
                                 std::string_view version = {});

/// The engine's host time as a clause for an envelope (", host 500 us per step + 40 us per
/// sequence"); empty when it has none.
std::string host_time_clause(const ServingEngine& e);

/// The shipped profiles, data/engines/*.toml (generic, vllm, sglang, trtllm).
Result<std::vector<ServingEngine>> builtin_engines();
/// Parses one profile; strict like every catalog file.
Result<ServingEngine> parse_engine_toml(std::string_view text, const std::string& origin);

}  // namespace llmecon
