// validate/validate.hpp: predictions against published measurements, and calibration
// (docs/model.md §18-§19).
//
//   auto rows = read_validation_csv(text, "dev.csv");          // Result<std::vector<Measurement>>
//   ValidationReport rep = validate(*rows, ctx);                // per-row error, per-metric summary
//   auto cal = calibrate(*rows, ctx, "h100-sxm");              // fitted efficiency + k-fold error
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "args/args.hpp"
#include "catalog/hardware.hpp"
#include "model/model.hpp"
#include "roofline/roofline.hpp"
#include "scenario/catalogs.hpp"
#include "units/error.hpp"

namespace llmecon {

/// One row of the validation schema (shared/validation/README.md).
struct Measurement {
  int line = 0;
  std::string id;
  std::string model;
  std::string hardware;
  int chips = 0;
  std::optional<int> tp, pp, ep, dp, cp;
  std::string weight_dtype;
  std::string kv_dtype;
  std::string scenario;
  std::optional<double> batch, isl, osl;
  std::string metric;
  double value = 0;
  std::string unit;
  std::string source;
  std::string notes;
  /// Formats per tensor class from `formats=experts:fp4,attn:fp8,kv:fp8` in the notes: experts,
  /// attn or dense (the dense weights), act, kv (model.md §19).
  std::map<std::string, DType> formats;
  std::string engine;  ///< the optional `engine` column; else `engine=NAME` or an engine the notes name
  /// The notes' `key=value` settings, each checked against the argument that declares it
  /// (notes_spec()): JSON by notes key, only those given.
  Json settings = Json::object();
  /// Why the notes could not be read (an unknown or misspelled key, a bad value, a restated
  /// column that disagrees): "row ID: notes KEY: what (hint: ...)". Such a row is not predicted.
  std::string notes_error;
};

/// The keys a row's notes may set (shared/validation/README.md): the training and serving
/// settings borrow the `train` and `simulate` arguments that declare them (under the benchmark's
/// spelling where it differs: qps for rate, max_num_seqs for max_seqs, train_tokens for tokens,
/// microbatch or micro_batch); engine, engine_version, formats, workload, chunked_prefill,
/// dropout and flash are a measurement's own. The row's columns (tp, batch, ...) may be restated
/// when they agree.
const CommandSpec& notes_spec();

/// Parses the CSV; malformed rows give an Error naming the line and column.
Result<std::vector<Measurement>> read_validation_csv(std::string_view text, const std::string& origin);

struct ValidationContext {
  /// The models, chips and serving engines a row names, resolved as every command resolves them
  /// (scenario.hpp).
  const Catalogs* catalogs = nullptr;
  std::string csv_dir;  ///< where `models/<file>.json` paths resolve
  /// Efficiency per chip; unset = ideal roofline.
  std::function<Efficiency(const Hardware&)> efficiency;
  /// Apply the serving engine a row's notes name (model.md §19); off: no engine (the ideal roofline).
  bool engines = false;
  /// Offline and online-load rows through the serving simulator (model.md §23); calibrate keeps
  /// the one-step formula, which fits kernel costs and not a scheduler.
  bool simulate_traffic = true;
  /// The training kernel efficiency (model.md §24.3) when set; else the model's default.
  std::optional<double> train_kernel_efficiency;
  /// The training model's MoE host time per local expert, seconds (model.md §24.3) when set.
  std::optional<double> train_expert_host;
  /// Fit the training kernel efficiency and report its in-sample, k-fold and leave-one-source-out
  /// error over the training rows (off inside that fit).
  bool fit_training = true;
};

struct RowResult {
  std::string id;
  std::string metric;
  std::string scenario;
  std::string hardware;
  double measured = 0;
  std::optional<double> predicted;
  std::optional<double> error_pct;  ///< 100 (predicted - measured) / measured
  std::string envelope;             ///< "ok" or why the row lies outside the model's envelope
  std::string skip_reason;          ///< set when no prediction was made
  /// Rows under traffic (offline, online load) are predicted by simulation (model.md §23); this
  /// is the fixed-batch prediction they had before, kept for comparison.
  std::optional<double> fixed_batch;
};

struct MetricSummary {
  int n = 0;
  double median_ape = 0;
  double p90_ape = 0;
  double max_ape = 0;
};

struct ValidationReport {
  std::vector<RowResult> rows;
  std::map<std::string, MetricSummary> summary;  ///< per metric, plus "overall"
  /// Offline and online-load rows: "<scenario>" through the simulator and "<scenario> fixed batch"
  /// by the one-step formula, over the same rows.
  std::map<std::string, MetricSummary> by_scenario;
  /// The training rows (model.md §24.3): the kernel efficiency fitted to them (the median of
  /// measured over predicted at 1) and the error it leaves, in-sample, 5-fold and leaving out
  /// each source in turn. Absent without training rows.
  struct TrainingFit {
    int rows = 0;
    int sources = 0;
    double fitted = 0;       ///< the kernel efficiency k_t
    double expert_host = 0;  ///< seconds of host time per local expert per MoE layer per micro-batch
    int moe_rows = 0;        ///< rows the host time was fitted to
    bool settled = false;    ///< the alternating fit converged (relative change under 1e-5)
    double in_sample_median_ape = 0, in_sample_max_ape = 0;
    double kfold_median_ape = 0;
    double loso_median_ape = 0, loso_p90_ape = 0, loso_max_ape = 0;
    /// Leaving each source out, each row's measured step over its predicted one (p10, p50, p90),
    /// the dense rows and the MoE rows apart: the band a prediction carries (model.md §24.3).
    Quantiles loso_step_ratio_dense, loso_step_ratio_moe;
    int dense_rows = 0;
  };
  std::optional<TrainingFit> training_fit;
};

/// Predicts every row's metric and summarizes the absolute percentage errors.
ValidationReport validate(const std::vector<Measurement>& rows, const ValidationContext& ctx);

/// Metrics whose errors count towards "overall" (throughput and latency).
bool is_speed_metric(const std::string& metric);
/// A serving metric's family, as errors under load are summarized (model.md §23.6): "TTFT",
/// "TPOT" (TPOT and ITL), "E2E" or "throughput" (rates); "" for the others.
std::string serving_family(const std::string& metric);

struct CalibrationResult {
  std::string hardware;
  Efficiency eff;
  int rows = 0;
  double in_sample_median_ape = 0;
  double cv_median_ape = 0;  ///< k-fold cross-validated
  int folds = 0;
  int unstated_batch = 0;      ///< rows left out because they do not state their batch
  int sources = 0;             ///< distinct sources among the rows
  double loso_median_ape = 0;  ///< leave-one-source-out (0 with a single source)
  double loso_p90_ape = 0;
  std::vector<std::string> fitted;  ///< the parameters fitted; the rest kept as the family sets them
  /// A TOML overlay for --hw-file: `name` plus the fitted [efficiency] table.
  std::string toml;
  /// With CalibrateOptions::held_out_rows: every speed row of the chip but training steps (the
  /// fitted rows, then those without a batch and those under load, which are predicted but never
  /// fitted), predicted as `validate` would (traffic through the simulator) by: the default
  /// efficiency; the fit to all rows; the fit without the row's fold; the fit without the row's
  /// source (rows whose source holds every fitted row are left out of `loso_rows`).
  std::vector<RowResult> default_rows, in_sample_rows, kfold_rows, loso_rows;
};

struct CalibrateOptions {
  int folds = 5;
  /// compute, memory, memory_half, comm, step_overhead, kernel_overhead; empty: all of them.
  std::vector<std::string> fit;
  bool held_out_rows = false;  ///< fill CalibrationResult's *_rows (model.md §19.1)
};

/// Fits the efficiency parameters `opt.fit` of one chip to the rows measured on it that state
/// their batch: least squares on log(predicted / measured) (model.md §19). Errors when no usable
/// row exists or a parameter is unknown.
Result<CalibrationResult> calibrate(const std::vector<Measurement>& rows, const ValidationContext& ctx,
                                    const std::string& hardware, const CalibrateOptions& opt = {});

/// Median and p90 absolute percentage error of the speed metrics of some rows.
struct ErrorCell {
  int n = 0;
  double median_ape = 0;
  double p90_ape = 0;
};
/// One scenario's error under per-chip calibration (model.md §19.1).
struct CrossValidatedScenario {
  ErrorCell defaults, in_sample, kfold, loso;
};
/// The held-out rows of several chips' calibrations (each with held_out_rows), per scenario, plus
/// "decode, prefill and offline" over those three together.
std::map<std::string, CrossValidatedScenario> cross_validated_by_scenario(const std::vector<CalibrationResult>& chips);

}  // namespace llmecon
