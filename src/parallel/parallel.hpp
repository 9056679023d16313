// parallel/parallel.hpp: a model split across chips and racks (docs/model.md §16).
//
// A Mapping places one model replica on tp x dp_attn x cp chips per pipeline stage, pp stages,
// and dp replicas. Attention is tensor-parallel over tp and data-parallel over dp_attn (the
// DeepSeek/SGLang "DP attention"); routed experts spread over ep chips of a stage; cp splits long
// prompts. A Deployment adds the hardware, precision, batch and phase, and evaluates per-chip
// memory, compute, HBM traffic and communication.
//
//   Mapping m{.tp = 8};
//   auto why = validate(m, model, 8);            // std::nullopt when feasible
//   DeploymentInput in{&model, &hw, m, Precision::native(model)};
//   PhaseResult d = evaluate_decode(in, /*batch=*/64, /*context=*/4096);
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>

#include "catalog/hardware.hpp"
#include "catalog/serving_engine.hpp"
#include "model/model.hpp"
#include "ops/ops.hpp"
#include "roofline/roofline.hpp"

namespace llmecon {

struct Mapping {
  int tp = 1;       ///< tensor parallel (attention, dense MLP, shared experts, embeddings)
  int dp_attn = 1;  ///< attention data parallel inside a stage
  int ep = 1;       ///< routed experts spread over ep chips of a stage
  int cp = 1;       ///< context parallel: a prompt's tokens split over cp chips
  int pp = 1;       ///< pipeline stages
  int dp = 1;       ///< replicas
  [[nodiscard]] int stage_chips() const { return tp * dp_attn * cp; }
  [[nodiscard]] int replica_chips() const { return stage_chips() * pp; }
  [[nodiscard]] int chips() const { return replica_chips() * dp; }
  [[nodiscard]] std::string str() const;
};

/// Why a mapping cannot hold this model on `chips` chips, or nullopt. Checks the chip count and
/// divisibility (heads, KV heads, experts, layers); memory is checked per batch by evaluate_*.
std::optional<std::string> validate(const Mapping& m, const ModelSpec& model, int chips);

/// Step costs keyed by (phase, micro-batch, tokens, context, formats): a mapping changes only how
/// a step is split, so a search computes each step once (model.md §17.2). Not thread-safe: one per
/// thread.
class StepCostCache {
 public:
  const StepCost& get(const ModelSpec& m, const Step& s, const Precision& p);
  /// KV bytes of one sequence at `context` tokens (ModelSpec::kv_bytes_sequence), memoized.
  Bytes kv_sequence(const ModelSpec& m, double context, DType kv);
  /// {dense, routed-expert} weight bytes at these formats, memoized.
  std::pair<double, double> weight_split(const ModelSpec& m, DType dense, DType experts);
  [[nodiscard]] std::size_t size() const { return entries_.size(); }

 private:
  using Key = std::tuple<int, double, double, double, int, int, int, int>;
  std::map<Key, StepCost> entries_;
  std::map<std::pair<double, int>, Bytes> kv_;
  std::map<std::pair<int, int>, std::pair<double, double>> weights_;
};

struct DeploymentInput {
  const ModelSpec* model = nullptr;
  const Hardware* hw = nullptr;
  Mapping map;
  Precision precision;
  int domain = 0;        ///< chips per scale-up domain (0 = the hardware's)
  double overlap = 0.0;  ///< fraction of communication hidden under compute/memory, 0..1
  Efficiency eff;
  Seconds hop_latency = units::us(10);          ///< pipeline stage-to-stage latency beyond the transfer
  double usable_hbm = 0.9;                      ///< fraction of HBM for weights, KV and buffers
  MemoryRule memory_rule = MemoryRule::kTotal;  ///< what usable_hbm is a fraction of (model.md §18.4)
  Seconds host_overhead{};                      ///< the serving engine's exposed host time per step
  Seconds host_per_sequence{};                  ///< and per sequence of the step, on its rank's scheduler
  double compute_sustained = 1.0;               ///< the serving engine's share of the GEMM rates (1 = none)
  PowerModel power;                             ///< what a chip draws (model.md §25.6)
  StepCostCache* cache = nullptr;               ///< optional, for searches
};

/// The serving engine's memory rule and exposed host time (model.md §18.4).
void apply_engine(DeploymentInput& in, const ServingEngine& e);

/// Per-chip memory of a replica at a batch and context (model.md §16.2).
struct ChipMemory {
  Bytes weights{};
  Bytes kv{};
  Bytes activations{};
  Bytes comm_buffers{};
  Bytes capacity{};
  [[nodiscard]] Bytes total() const { return weights + kv + activations + comm_buffers; }
};

/// One stage's step on one micro-batch, per chip (model.md §16.3).
struct StageTime {
  Seconds compute{};
  Seconds weights{};
  Seconds kv{};
  Seconds comm{};
  Seconds total{};
  Bound bound = Bound::kCompute;
  bool comm_bound = false;
};

struct PhaseResult {
  bool feasible = false;
  std::string reason;  ///< why not, when infeasible
  ChipMemory memory;
  StageTime stage;
  Seconds latency{};  ///< TTFT for prefill, TPOT for decode
  TokensPerSecond tokens_per_s_per_chip{};
  TokensPerSecond tokens_per_s_per_user{};
  DollarsPerToken usd_per_token{};
  Watts power_per_chip{};  ///< at the facility, while the phase runs (model.md §25.6)
  JoulesPerToken energy_per_token{};
  std::string_view bound;  ///< "compute", "weights", "kv" or "comm"
};

/// Decode: `batch` sequences per replica (split into pp micro-batches), at `context` tokens.
/// TPOT = pp x (stage time + hop) for pp > 1; tokens per step per sequence =
/// `tokens_per_step` (speculative decoding: the expected accepted tokens).
PhaseResult evaluate_decode(const DeploymentInput& in, double batch, double context, double tokens_per_step = 1,
                            double verify_tokens = 1);
/// Prefill of `prompts` prompts of `isl` tokens on one replica: TTFT and prefill throughput.
PhaseResult evaluate_prefill(const DeploymentInput& in, double prompts, double isl);

/// One serving-engine iteration of a replica over a mixed batch (model.md §23.2): decode tokens
/// and prefill chunks, each group at its own context, share one weight fetch; the pass splits into
/// pp micro-batches, and every stage runs once per micro-batch: pp x (stage time + hop).
struct IterationTime {
  Seconds time{};
  std::string_view bound;  ///< "compute", "weights", "kv" or "comm"
  Watts power_per_chip{};  ///< at the facility, while the iteration runs (model.md §25.6)
};
/// The facility power per chip of a stage, from its times at achievable rates (model.md §25.6).
Watts stage_power(const DeploymentInput& in, const StageTime& t);
IterationTime iteration_time(const DeploymentInput& in, std::span<const SeqGroup> groups);

/// What a replica's HBM holds for the KV cache once weights and one iteration's buffers of
/// `max_batched_tokens` are placed (model.md §23.3): the tokens of context it can cache, and
/// the bytes of one cached token across the replica. Zero tokens when the weights do not fit.
struct KvCapacity {
  double tokens = 0;
  Bytes bytes_per_token{};
};
KvCapacity kv_capacity(const DeploymentInput& in, double max_batched_tokens);

/// Expected tokens per verify step with k drafted tokens accepted with probability a each:
/// (1 - a^(k+1)) / (1 - a) (model.md §16.5).
double speculative_tokens_per_step(double acceptance, int draft_tokens);

/// KV-cache transfer time from a prefill pool to a decode pool for one prompt (model.md §16.6).
Seconds kv_transfer_time(const ModelSpec& m, double isl, DType kv, const Hardware& from, int from_chips);

}  // namespace llmecon
