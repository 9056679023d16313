// llmecon/roofline.hpp: one forward pass on one scale-up domain (the lecture's model).
//
// The domain's chips pool their FLOP/s and HBM bandwidth perfectly (docs/model.md §5):
//   t_compute = FLOPs / (chips * peak * eff_compute)
//   t_weights = weight bytes / (chips * HBM bandwidth * eff_memory)
//   t_kv      = KV bytes     / (chips * HBM bandwidth * eff_memory)
//   t_step    = max(t_compute, t_weights + t_kv)          (lower bound, F1)
//   t_upper   = t_compute + t_weights + t_kv             (no overlap)
//
//   RooflineInput in{&model, &hw, 8, Step{Phase::kDecode, 64, 1, 4096}, Precision::native(model)};
//   auto r = roofline(in);   // Result<RooflineResult>
//   r->t_step, r->bound, r->tokens_per_s, r->usd_per_token
#pragma once

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "llmecon/efficiency.hpp"
#include "llmecon/error.hpp"
#include "llmecon/hardware.hpp"
#include "llmecon/model.hpp"
#include "llmecon/ops.hpp"

namespace llmecon {

enum class Bound { kCompute, kWeights, kKv };
std::string_view name(Bound b);

struct RooflineInput {
  const ModelSpec* model = nullptr;
  const Hardware* hw = nullptr;
  int chips = 1;
  Step step;
  Precision precision;
  ExpertTouch touch = ExpertTouch::kExpected;
  Efficiency eff;
  /// Fraction of HBM usable for weights and KV (the rest: activations, runtime). 1 = all.
  double usable_hbm = 1.0;
};

struct RooflineResult {
  RooflineInput in;
  StepCost cost;
  FlopsPerSecond flops_per_s_dense{};   ///< pooled rate for dense-weight GEMMs
  FlopsPerSecond flops_per_s_expert{};  ///< pooled rate for expert GEMMs
  FlopsPerSecond flops_per_s_attention{};
  BytesPerSecond mem_bw{};  ///< pooled HBM bandwidth
  Seconds t_compute{};
  Seconds t_weights{};
  Seconds t_kv{};
  Seconds t_overhead{};  ///< fixed per-pass and per-layer costs (model.md §18)
  Seconds t_step{};
  Seconds t_upper{};
  Bound bound = Bound::kCompute;
  TokensPerSecond tokens_per_s{};
  DollarsPerSecond usd_per_s{};
  DollarsPerToken usd_per_token{};
  Bytes mem_weights{};
  Bytes mem_kv{};
  Bytes mem_capacity{};
  bool fits = true;
  std::string fit_reason;  ///< why it does not fit, empty when it fits
  /// Useful FLOPs over what the domain could do in t_step.
  double mfu = 0.0;
  /// FLOPs per byte moved from HBM.
  FlopsPerByte intensity{};
};

/// Validates the input (Error naming the flag for bad chip counts) and evaluates the step.
Result<RooflineResult> roofline(const RooflineInput& in);

/// The evaluation without validation, for hot loops (sweeps, search, benchmarks).
RooflineResult roofline_unchecked(const RooflineInput& in);

/// The balance batch (F6, model.md §5.4): the smallest batch whose step is compute-bound, found
/// by bisection up to 10^7 sequences; nullopt when even that is not compute-bound.
std::optional<double> balance_batch(const RooflineInput& in);
/// The largest batch whose weights and KV fit in the domain's HBM (F21, model.md §5.3); 0 when
/// the weights alone do not fit.
double max_fitting_batch(const RooflineInput& in);
/// The batch the blackboard analyses take as practical when none is given: 2.5 x B* (model.md §6).
inline constexpr double kPracticalBatchFactor = 2.5;

/// Widths of the efficiency priors for uncertainty ranges (model.md §21); zero widths give a
/// point.
struct Uncertainty {
  double compute_rel = 0.15;     ///< compute fraction x U-triangular(1 - w, 1, 1 + w), capped at 1
  double memory_rel = 0.10;      ///< memory fraction likewise
  double overhead_factor = 1.5;  ///< fixed costs x / this factor, log-triangular
  double half_m_factor = 2.0;    ///< gemm_half_m x / this factor
  bool spec_ranges = true;       ///< sample the catalog's disagreeing-source ranges
  static Uncertainty none() { return Uncertainty{0, 0, 1, 1, false}; }
};

struct Quantiles {
  double p10 = 0, p50 = 0, p90 = 0;
};

struct RooflineRange {
  Quantiles t_step_s;
  Quantiles tokens_per_s;
  Quantiles usd_per_mtok;
  int samples = 0;
};

/// One draw of a chip within its catalog ranges (triangular, mode at the default); every compute
/// format moves together.
Hardware sample_hardware(const Hardware& hw, const Uncertainty& u, std::mt19937_64& rng);
/// One draw of efficiency within the priors.
Efficiency sample_efficiency(const Efficiency& e, const Uncertainty& u, std::mt19937_64& rng);
/// p10, p50, p90 of a sample.
Quantiles quantiles(std::vector<double> v);

/// Monte Carlo with a fixed seed over the catalog's spec ranges (HBM bandwidth and capacity,
/// compute, price) and the efficiency priors; triangular distributions peak at the defaults.
/// Monte Carlo samples behind every p10/p50/p90 (model.md §21).
inline constexpr int kRangeSamples = 400;
RooflineRange roofline_range(const RooflineInput& in, const Uncertainty& u, int samples = kRangeSamples,
                             unsigned seed = 1);

/// The derivation as the lecture would write it, one line per formula with values substituted.
std::vector<std::string> explain(const RooflineResult& r);

}  // namespace llmecon
