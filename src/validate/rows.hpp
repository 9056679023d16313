// A validation row mapped onto the model (internal to src/validate): its model, chip, engine,
// formats and layout, and its prediction by the one-step formula, the training model or the
// serving simulator (docs/model.md §18-§19, §23-§24).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "notes.hpp"
#include "parallel/parallel.hpp"
#include "simulate/simulate.hpp"
#include "train/train.hpp"
#include "validate/validate.hpp"

namespace llmecon::validate_internal {

struct Setup {
  ModelSpec model;
  const Hardware* hw = nullptr;
  DeploymentInput in;
  double replicas = 1;
  const ServingEngine* engine = nullptr;  ///< the row's engine, when its notes name one
  std::vector<std::string> envelope;
};

/// The row's model, chip, engine, formats and layout (the planner's best where unstated), with
/// what was assumed in `envelope`; an Error when the row cannot be mapped.
Result<Setup> setup(const Measurement& m, const ValidationContext& ctx);
/// The largest batch per replica whose KV fits at `context` (for rows where the engine chose it).
double max_batch(const Setup& s, double context);
/// The chip's dense bf16 peak, FLOP/s.
double peak_bf16(const Hardware& hw);
/// Model FLOPs of a pass per token (inference: 2 N + attention), from the ideal step cost.
double model_flops(const ModelSpec& m, const Step& st, const Precision& p);
/// The training stack a row names (`stack=` in its notes); any when it names none.
TrainStack row_stack(const Measurement& m);
/// Whether a training row states none of its parallel degrees: its layout is then inferred by its
/// stack's search (model.md §24.6).
bool layout_unstated(const Measurement& m);
/// A training row's sequence length: its own, or for an inferred MaxText row MaxText's default
/// (base.yml's max_target_length, 2048); none otherwise.
std::optional<double> training_seq_len(const Measurement& m);
/// A training step through the training model (model.md §24), the notes' settings read through
/// `train`'s arguments.
std::optional<double> predict_training(const Measurement& m, Setup& s, std::optional<double> k_override,
                                       std::optional<double> host_override);
/// Simulated runs by the run they describe (every column and note but the metric): the rows of
/// one run share its simulation and what it assumed.
struct SimRun {
  std::optional<SimResult> result;
  std::vector<std::string> envelope;
};
using SimRuns = std::map<std::string, SimRun>;
/// A row under traffic through the serving simulator (model.md §23); with `runs`, a run simulated
/// before is looked up.
std::optional<double> simulate_row(const Measurement& m, const Setup& s, const std::optional<RowWorkload>& workload,
                                   std::vector<std::string>& envelope, double isl, double osl, SimRuns* runs = nullptr);
/// A run's statistic by the schema's metric name: rates over the whole run (the benchmark's
/// definition), and the mean or p50/p90/p99 of TTFT, TPOT, ITL and end-to-end latency
/// (`ttft_p99_s`, `tpot_p50_ms`, `e2e_latency_s`); nullopt for a metric it does not describe.
std::optional<double> serving_metric(const SimResult& r, const std::string& metric);
/// The training rows' fit of k_t and c_e, in-sample, k-fold and leave-one-source-out (model.md §24.3).
std::optional<ValidationReport::TrainingFit> fit_training(const std::vector<Measurement>& rows,
                                                          const ValidationContext& ctx);

}  // namespace llmecon::validate_internal
