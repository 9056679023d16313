// roofline/roofline.hpp: one forward pass on one scale-up domain (the lecture's model).
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
//   Seconds t = r->t_step;   // also r->bound, r->tokens_per_s, r->usd_per_token
#pragma once

#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/efficiency.hpp"
#include "catalog/hardware.hpp"
#include "catalog/serving_engine.hpp"
#include "model/model.hpp"
#include "ops/ops.hpp"
#include "units/error.hpp"

namespace llmecon {

enum class Bound { kCompute, kWeights, kKv };
std::string_view name(Bound b);

/// How one chip's share of a pass is divided (model.md §18.2). The single-domain roofline pools
/// n chips as tensor parallelism over all of them; a deployment stage divides by its mapping.
struct ChipShare {
  double dense_flops = 1;    ///< chips sharing the dense GEMMs' FLOPs (tp x dp_attn x cp)
  double dense_weights = 1;  ///< chips sharing the dense weights (tp)
  double rows = 1;           ///< divisor of a dense GEMM's rows (dp_attn x cp: tokens split)
  double cols = 1;           ///< divisor of a dense GEMM's columns (tp)
  double experts = 1;        ///< chips sharing the routed experts (the stage)
  double attention = 1;      ///< chips sharing attention FLOPs
  double kv = 1;             ///< chips sharing KV bytes
  double stages = 1;         ///< pipeline stages: each chip runs 1/stages of the layers
  double expert_cols = 1;    ///< chips one routed expert is split over (expert tensor parallelism)
};

/// The per-operator step of one chip (model.md §18): each kernel's max(compute, memory) at its
/// achievable rates, summed, plus a launch cost per kernel.
/// One kernel group's time on one chip (for --explain).
struct KernelTime {
  OpKind kind = OpKind::kQkvProj;
  double launches = 0;          ///< per chip per pass
  double rows = 0, cols = 0;    ///< the chip's GEMM shape (0: not a GEMM)
  double depth = 0;             ///< the chip's GEMM depth k (0: not a GEMM)
  double fraction = 0;          ///< of peak FLOP/s the kernel reaches
  Seconds compute{}, memory{};  ///< per launch
  Bound bound = Bound::kWeights;
};

struct OperatorTimes {
  Seconds compute{};   ///< Σ FLOPs / achievable FLOP/s
  Seconds weights{};   ///< Σ weight bytes / achievable bandwidth
  Seconds kv{};        ///< Σ KV bytes / achievable bandwidth
  Seconds act{};       ///< Σ activation bytes / achievable bandwidth
  Seconds busy{};      ///< Σ max(compute, memory) over kernels
  Seconds launches{};  ///< kernels x kernel_overhead
  double kernels = 0;  ///< kernels launched per chip per pass
  /// The term that binds most of `busy`: the time of kernels bound by compute against the time of
  /// memory-bound kernels, split between weights and KV by their bytes. Never a penalty.
  Bound bound = Bound::kWeights;
  std::vector<KernelTime> detail;  ///< filled only when asked for
};
OperatorTimes operator_times(const StepCost& c, const Hardware& hw, const Precision& p, const Efficiency& e,
                             const ChipShare& share, double layers, bool detail = false);

/// The power a pass draws (model.md §25.6). A board draws its idle power plus a share of the rest
/// of its TDP that grows with how busy its compute and its HBM are:
///   P_board = P_idle + (TDP - P_idle) x min(1, a_c u_c + a_m u_m)
/// with u_c and u_m the achieved shares of peak FLOP/s and HBM bandwidth. The facility adds the
/// host's share and cooling: P = (P_board + P_host x host_load) x PUE. The default is the board
/// alone (no host, PUE 1); the shells fill it from data/tco.toml.
struct PowerModel {
  Watts idle{};             ///< per board at rest
  Watts host{};             ///< host share per board at its rating
  double host_load = 0.75;  ///< host power while serving over its rating
  double host_idle = 0.5;   ///< host power while idle over its rating (as tco's, model.md §25.3)
  double pue = 1.0;         ///< facility power over IT power
  double compute_weight = 1.7;
  double memory_weight = 0.3;
};
/// One board's power at these utilizations (each clamped to [0, 1]).
Watts board_power(const Hardware& hw, const PowerModel& pm, double u_compute, double u_memory);
/// The facility's power per board: (board + host x host_load) x PUE.
Watts facility_power(const PowerModel& pm, Watts board);
/// The facility's power per board at rest: (P_idle + host x host_idle) x PUE.
Watts idle_power(const Hardware& hw, const PowerModel& pm);

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
  /// The serving engine's rule (model.md §18.4): what usable_hbm is a fraction of.
  MemoryRule memory_rule = MemoryRule::kTotal;
  Seconds host_overhead{};      ///< the serving engine's exposed host time per step
  Seconds host_per_sequence{};  ///< and per sequence of the step (model.md §18.4)
  /// The serving engine's share of the GEMM rates (ServingEngine::compute_sustained); 1 = none.
  double compute_sustained = 1.0;
  PowerModel power;  ///< what a chip draws (model.md §25.6)
  /// model->weight_bytes(precision.weights, precision.experts), given by a caller that evaluates
  /// many steps of one scenario (the grid) so each step does not sum the layers again.
  std::optional<Bytes> weight_bytes;
  /// model->kv_bytes_sequence(step.cached + step.new_tokens, precision.kv), given by a caller
  /// that has it for this step's context (the grid keeps it per context).
  std::optional<Bytes> kv_sequence;
};

struct RooflineResult {
  /// The input as costed: `in.eff` already holds the engine's sustained GEMM rates, and
  /// `compute_sustained` below records the factor applied (so `in.compute_sustained` is 1).
  RooflineInput in;
  double compute_sustained = 1.0;
  StepCost cost;
  FlopsPerSecond flops_per_s_dense{};   ///< pooled rate for dense-weight GEMMs
  FlopsPerSecond flops_per_s_expert{};  ///< pooled rate for expert GEMMs
  FlopsPerSecond flops_per_s_attention{};
  BytesPerSecond mem_bw{};  ///< pooled HBM bandwidth
  Seconds t_compute{};
  Seconds t_weights{};
  Seconds t_kv{};
  Seconds t_overhead{};  ///< fixed costs: per pass and per kernel launched (model.md §18)
  OperatorTimes ops;     ///< the per-operator times (empty under --ideal, the pooled roofline)
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
  /// Energy (model.md §25.6): the achieved share of peak HBM bandwidth, each board's power, the
  /// facility's power for the domain, and joules per token processed.
  double hbm_utilization = 0.0;
  Watts board_power{};
  Watts facility_power{};
  JoulesPerToken energy_per_token{};
};

/// The HBM that weights and KV may fill under a serving engine's memory rule (model.md §18.4):
/// `fraction` of all of it, the weights plus `fraction` of what they leave, or the weights plus
/// `fraction` of all of it (at most all of it).
Bytes usable_memory(Bytes hbm, Bytes weights, double fraction, MemoryRule rule);

/// The serving engine's memory rule and exposed host time (model.md §18.4).
void apply_engine(RooflineInput& in, const ServingEngine& e);

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
  double compute_rel = 0.15;       ///< compute fraction x U-triangular(1 - w, 1, 1 + w), capped at 1
  double memory_rel = 0.10;        ///< memory fraction likewise
  double overhead_factor = 1.5;    ///< fixed costs x / this factor, log-triangular
  double half_bytes_factor = 2.0;  ///< memory_half x / this factor
  bool spec_ranges = true;         ///< sample the catalog's disagreeing-source ranges
  static Uncertainty none() { return Uncertainty{0, 0, 1, 1, false}; }
};

struct Quantiles {
  double p10 = 0, p50 = 0, p90 = 0;
  /// The answer's own value (at the defaults) and the share of draws below it, 0-1: a range
  /// whose inputs reach further one way than the other puts the point off its median, even
  /// outside p10-p90, and says so rather than looking contradictory.
  std::optional<double> point, point_rank;
};

struct RooflineRange {
  Quantiles t_step_s;
  Quantiles tokens_per_s;
  Quantiles usd_per_mtok;
  int samples = 0;
};

/// A triangular draw on [lo, hi] with its mode at `mode`, from a uniform u in [0, 1) (inverse CDF);
/// the mode itself when the range is empty.
double triangular(double lo, double mode, double hi, double u);
/// One draw of a chip within its catalog ranges (triangular, mode at the default); every compute
/// format moves together.
Hardware sample_hardware(const Hardware& hw, const Uncertainty& u, std::mt19937_64& rng);
/// One draw of efficiency within the priors.
Efficiency sample_efficiency(const Efficiency& e, const Uncertainty& u, std::mt19937_64& rng);
/// p10, p50, p90 of a sample; with `point`, also where that value falls among the draws.
Quantiles quantiles(std::vector<double> v, std::optional<double> point = std::nullopt);

/// Monte Carlo with a fixed seed over the catalog's spec ranges (HBM bandwidth and capacity,
/// compute, price) and the efficiency priors; triangular distributions peak at the defaults.
/// Monte Carlo samples behind every p10/p50/p90 (model.md §21).
inline constexpr int kRangeSamples = 400;
RooflineRange roofline_range(const RooflineInput& in, const Uncertainty& u, int samples = kRangeSamples,
                             unsigned seed = 1);

/// The derivation as the lecture would write it, one line per formula with values substituted; for
/// a point that does not fit, only what it is (model, formats, FLOPs) and its memory.
std::vector<std::string> explain(const RooflineResult& r);

}  // namespace llmecon
