// ops/ops.hpp: operator accounting for one forward pass (a prefill chunk or a decode step).
//
// Every GEMM goes through matmul_flops(m, n, k) = 2*m*n*k. Bytes are split by class: weights,
// KV read, KV write and activations (docs/model.md §4).
//
//   Step s{Phase::kDecode, /*batch=*/64, /*new_tokens=*/1, /*cached=*/8192};
//   StepCost c = step_cost(model, s, Precision::native(model));
//   Flops f = c.flops_total();  Bytes w = c.weights;
#pragma once

#include <array>
#include <span>
#include <string_view>
#include <vector>

#include "catalog/dtype.hpp"
#include "model/model.hpp"
#include "units/names.hpp"
#include "units/units.hpp"

namespace llmecon {

/// 2*m*n*k: the one FLOP formula for every matrix multiply (model.md §4.1).
constexpr Flops matmul_flops(double m, double n, double k) {
  return units::flops(2.0 * m * n * k);
}

enum class Phase { kPrefill, kDecode };
/// The phases' names, in the order the command table lists them.
inline constexpr NameTable<Phase, 2> kPhaseNames{{{Phase::kDecode, "decode"}, {Phase::kPrefill, "prefill"}}};
std::string_view name(Phase p);
/// The tokens a pass's price divides (docs/quantities.md): a decode step's output, a prefill's input.
constexpr const char* priced_tokens(Phase p) {
  return p == Phase::kPrefill ? "input" : "output";
}

/// One forward pass over `batch` sequences, each adding `new_tokens` tokens after `cached`
/// tokens already in the KV cache. Decode: new_tokens = 1. Prefill of a whole prompt:
/// cached = 0, new_tokens = prompt length.
struct Step {
  Phase phase = Phase::kDecode;
  double batch = 1;
  double new_tokens = 1;
  double cached = 0;
  [[nodiscard]] double tokens() const { return batch * new_tokens; }
};

/// Numeric formats per tensor class.
struct Precision {
  DType weights = DType::kBf16;  ///< dense weights (attention, dense MLP, shared experts, head)
  DType experts = DType::kBf16;  ///< routed-expert weights
  DType act = DType::kBf16;      ///< activations: GEMMs run at wider(weights, act)
  DType kv = DType::kBf16;       ///< KV cache: attention runs at wider(kv, act)
  /// The released formats, activations at the dense weight format, KV at bf16.
  static Precision native(const ModelSpec& m);
  /// Weights at `w`, activations at `act`, KV at `kv`. Routed experts follow `w`, except experts
  /// released narrower than the dense weights (gpt-oss's MXFP4), which are never widened
  /// (model.md §4.7). Every shell's --weight-dtype goes through this one rule.
  static Precision with_weights(const ModelSpec& m, DType w, DType act, DType kv);
};

/// How many routed experts a step reads from memory (model.md §4.4).
enum class ExpertTouch {
  kExpected,  ///< E*(1-(1-k/E)^T) distinct experts for T tokens under uniform routing
  kAll,       ///< every expert, every step (the lecture's assumption)
};
inline constexpr NameTable<ExpertTouch, 2> kExpertTouchNames{
    {{ExpertTouch::kExpected, "expected"}, {ExpertTouch::kAll, "all"}}};

enum class OpKind {
  kEmbedding,
  kQkvProj,
  kAttnCore,     ///< scores and weighted values over the cached context
  kIndexer,      ///< DSA lightning indexer
  kLinearMixer,  ///< linear-attention state update
  kOProj,
  kRouter,
  kMlp,
  kExperts,
  kSharedExperts,
  kLmHead,
};
inline constexpr std::size_t kOpKindCount = 11;
std::string_view name(OpKind k);

/// The compute rate an op's FLOPs run at.
enum class ComputeClass { kDense, kExpert, kAttention };

/// One operator's cost in one layer (layer -1 for embedding and head).
struct OpCost {
  OpKind kind = OpKind::kQkvProj;
  int layer = -1;
  ComputeClass cls = ComputeClass::kDense;
  Flops flops{};
  Bytes weights{};
  Bytes kv_read{};
  Bytes kv_write{};
  Bytes act{};
};

/// A pass's operator costs summed by kind, in OpKind order, each kind with any work or traffic
/// (layer -1).
std::vector<OpCost> ops_by_kind(const std::vector<OpCost>& ops);

/// One kind of kernel in a pass: `count` identical launches (one per layer of identical layers,
/// merged across them), each with these costs. The per-operator step model (model.md §18) times
/// each against the chip's achievable rates.
struct Kernel {
  OpKind kind = OpKind::kQkvProj;
  ComputeClass cls = ComputeClass::kDense;
  double count = 1;
  double rows = 0;  ///< GEMM rows (tokens; routed experts: tokens per expert read); 0: not a GEMM
  double cols = 0;  ///< GEMM output columns before tensor parallelism splits them; 0: not a GEMM
  /// GEMM reduction depth k before tensor parallelism splits it (model.md §18.3); a record of two
  /// GEMMs carries the depth with the same compute time, 1 / sum(share_i / k_i). 0: not a GEMM.
  double depth = 0;
  bool split_k = false;  ///< row-parallel: tensor parallelism splits the depth, not the columns
  Flops flops{};         ///< per launch
  Bytes weights{};       ///< per launch
  Bytes kv{};            ///< KV read and written, per launch
  Bytes act{};           ///< activations read and written, per launch
  /// Routed experts: the expert's intermediate width, the depth of its down projection, which
  /// expert tensor parallelism splits (model.md §18.2). 0: not an expert GEMM.
  double inner = 0;
};

struct StepCost {
  Flops flops_dense{};
  Flops flops_expert{};
  Flops flops_attention{};
  Bytes weights{};
  Bytes weights_expert{};  ///< the routed-expert part of `weights`
  Bytes kv_read{};
  Bytes kv_write{};
  Bytes act{};
  double experts_read_per_layer = 0;  ///< distinct routed experts read per MoE layer
  std::vector<OpCost> ops;            ///< filled only when detail is requested
  std::vector<Kernel> kernels;        ///< every kernel of the pass, identical ones merged

  [[nodiscard]] Flops flops_total() const { return flops_dense + flops_expert + flops_attention; }
  [[nodiscard]] Bytes kv_bytes() const { return kv_read + kv_write; }
};

/// Costs of one forward pass. With `detail`, ops holds one record per layer and operator.
StepCost step_cost(const ModelSpec& m, const Step& s, const Precision& p, ExpertTouch touch = ExpertTouch::kExpected,
                   bool detail = false);

/// Sequences of one pass that share a phase, a number of new tokens and a cached context: a
/// serving engine's iteration mixes decode tokens with prefill chunks (model.md §23.2).
struct SeqGroup {
  Phase phase = Phase::kDecode;
  double count = 1;       ///< sequences
  double new_tokens = 1;  ///< tokens each adds in this pass
  double cached = 0;      ///< tokens each already holds in the KV cache
};

/// Costs of one mixed pass: every GEMM runs over all the groups' tokens at once and reads the
/// weights once; attention and KV reads are per group, at its own context.
StepCost step_cost(const ModelSpec& m, std::span<const SeqGroup> groups, const Precision& p,
                   ExpertTouch touch = ExpertTouch::kExpected, bool detail = false);

/// Query-key pairs one sequence evaluates in a layer when `n` new tokens follow `cached`
/// tokens, for each mixer (model.md §4.2). Exposed for tests.
double attention_pairs(Mixer mixer, double window, double cached, double n);

/// Expected distinct experts read by T tokens each choosing k of E (model.md §4.4).
double expected_experts_touched(double experts, double top_k, double tokens);

}  // namespace llmecon
