// economics/economics.hpp: the blackboard analyses (docs/model.md §6-§13) for any model and chip.
//
// The lecture pools one scale-up domain into one big chip and reasons with closed forms:
//   t_compute = 2·B·n·N_active / FLOPS,  t_weights = N_total·b_w / BW,  t_kv = B·c·kv / BW.
// A Board holds those inputs, from the catalog (board_from) or typed in (the lecture's own
// numbers). Each analysis returns an Analysis with figures, tables and its derivation.
//
//   Board b = board_from(model, hw, hw.domain_size, Precision::with_weights(model, DType::kFp8,
//                                                                       DType::kBf16, DType::kBf16));
//   Analysis a = batch_analysis(b, /*context=*/4096);
//   double bstar = a.get("b_star");
#pragma once

#include <string>
#include <vector>

#include "catalog/hardware.hpp"
#include "model/model.hpp"
#include "ops/ops.hpp"
#include "units/analysis.hpp"
#include "units/units.hpp"

namespace llmecon {

/// The closed-form inputs of the lecture, for one scale-up domain.
struct Board {
  std::string model;
  std::string hardware;
  double n_total = 0;          ///< parameters stored
  double n_active = 0;         ///< parameters multiplied per token
  double bytes_per_param = 1;  ///< weight bytes per parameter
  BytesPerToken kv{};          ///< KV bytes per context token
  double experts = 0;          ///< routed experts (0 = dense)
  double top_k = 0;
  int layers = 0;
  int chips = 1;                       ///< chips pooled in the domain
  FlopsPerSecond flops{};              ///< pooled
  BytesPerSecond mem_bw{};             ///< pooled
  Bytes hbm{};                         ///< pooled
  DollarsPerSecond price{};            ///< pooled
  BytesPerSecond scale_up_bw{};        ///< per chip, one direction
  BytesPerSecond scale_out_bw{};       ///< per chip, one direction
  Seconds hop_latency = units::ms(2);  ///< rack-to-rack pipeline hop (F22: "a few ms")
  std::vector<HostTier> tiers;         ///< per chip

  /// R = FLOPS / (2 · params fetched per second): multiply-accumulates per parameter read (F7).
  [[nodiscard]] double R() const { return flops.si() * bytes_per_param / (2.0 * mem_bw.si()); }
  /// S = N_total / N_active (the lecture's sparsity).
  [[nodiscard]] double S() const { return n_total / n_active; }
  [[nodiscard]] Bytes weight_bytes() const { return units::bytes(n_total * bytes_per_param); }

  // The three roofline terms in the lecture's closed forms (F2, F3, F14).
  [[nodiscard]] Seconds t_compute(double batch, double new_tokens = 1) const;
  [[nodiscard]] Seconds t_weights() const;
  [[nodiscard]] Seconds t_kv(double batch, double context) const;
  /// F1: max(t_compute, t_weights + t_kv).
  [[nodiscard]] Seconds t_step(double batch, double context, double new_tokens = 1) const;
  /// F21: the weights and B sequences' KV at `context` fit in the pooled HBM.
  [[nodiscard]] bool fits(double batch, double context) const {
    return (weight_bytes() + kv * units::tokens(context) * batch) <= hbm;
  }
  /// F21: sequences of `context` tokens whose KV fills the HBM left after the weights (unrounded;
  /// infinite without KV per token, at most 0 when the weights alone do not fit).
  [[nodiscard]] double batch_fills_hbm(double context) const {
    return (hbm - weight_bytes()).si() / (kv * units::tokens(context)).si();
  }
  /// F5/D1: t_step · price / (B · n).
  [[nodiscard]] DollarsPerToken cost(double batch, double context, double new_tokens = 1) const;
};

/// Board inputs from a catalog model and chip: N_active counts matmul weights (model.md §2.2),
/// bytes per parameter averages dense and expert formats, FLOPS is the GEMM rate at
/// wider(weights, activations).
Board board_from(const ModelSpec& m, const Hardware& hw, int chips, const Precision& p);

/// §6 batch: cost and latency against B, B* with and without KV, the unbatched penalty, the
/// latency floor and the slow-mode floor.
Analysis batch_analysis(const Board& b, double context);
/// §6.4 fast mode: the batch ratio that explains a price multiple and a speed multiple, and
/// whether the roofline allows it at this context.
Analysis fast_mode_analysis(const Board& b, double context, double price_multiple, double speed_multiple);
/// §7 step: the drain-time interval, queueing on the train, tokens/s per unit, traffic needed.
Analysis step_analysis(const Board& b, double batch, double context, TokensPerSecond provider);
/// §8 context: the crossover context, MFU above it, the inverse from a pricing knee, and sparse
/// attention variants.
Analysis context_analysis(const Board& b, double batch, double knee_context, double topk, double index_bytes,
                          double sqrt_block);
/// §10 layout: experts per chip, cross-domain traffic, the pipeline-boundary check, memory per
/// chip against pipeline stages, pipeline latency, and scale-up generations.
Analysis layout_analysis(const Board& b, double context, double micro_batch, int racks, int stages,
                         int layers_per_stage);
/// §11 cache: hold and retrieve cost per tier, the best tier against hold time, TTL mapping.
Analysis cache_analysis(const Board& b, const std::vector<double>& hold_times_s);
/// §12 lifecycle: pre-training, RL and inference compute, the equal-cost split, Chinchilla.
struct LifecycleInputs {
  double n_active = 100e9;
  TokensPerSecond traffic = units::tokens_per_s(5e8);  ///< inference traffic over all models (F29)
  double lifetime_s = 60 * 86400.0;
  double models_sharing_traffic = 10;
  double rl_multiplier = 3;    ///< 2 (rollouts only) .. 6 (train on all)
  double rl_inefficiency = 3;  ///< 1 / decode MFU
  double inference_inefficiency = 3;
  double chinchilla_tokens_per_param = 20;
  std::string policy = "thirds";  ///< "thirds" or "half"
};
Analysis lifecycle_analysis(const LifecycleInputs& in);
/// §13 RevNet: training activation memory with and without reversible layers.
Analysis revnet_analysis(const ModelSpec& m, double batch, double seq_len, DType act);

/// The tier choice of §11 as a function: index into {hbm, tiers..., recompute} minimizing the
/// cost of holding one token's KV for `hold` and retrieving it once.
struct TierCost {
  std::string name;
  DollarsPerSecond hold_rate{};  ///< per token
  Dollars retrieve{};            ///< per token
  Seconds drain{};               ///< capacity / bandwidth (0 for recompute)
};
std::vector<TierCost> tier_costs(const Board& b);
std::size_t best_tier(const std::vector<TierCost>& tiers, Seconds hold);
/// The drain-time rule (F33): the stored tier whose capacity / bandwidth is nearest the hold
/// time, in ratio terms.
std::size_t drain_rule_tier(const std::vector<TierCost>& tiers, Seconds hold);

}  // namespace llmecon
