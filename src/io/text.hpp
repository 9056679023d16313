// io/text.hpp: the text a person reads, one encoder per typed result.
//
// The CLI prints these; the server serves them (format=text) and Python returns them, so every
// shell shows the same words for the same question. Each encoder reads the typed result the
// command computed, never its JSON. The pieces they share (a value in its unit, a padded table)
// are here too.
//
//   std::string s = text(batch_analysis(board, 0), TextHead{"deepseek-v3", "gb200", 72}, false);
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "catalog/hardware.hpp"
#include "lecture/lecture.hpp"
#include "measure/measure.hpp"
#include "model/model.hpp"
#include "plan/plan.hpp"
#include "roofline/roofline.hpp"
#include "scenario/capacity.hpp"
#include "scenario/scaleup.hpp"
#include "simulate/simulate.hpp"
#include "units/analysis.hpp"
#include "validate/validate.hpp"

namespace llmecon {

/// A value with the unit an analysis gives it ("s", "B", "$/Mtok", "x", ...).
std::string format_unit(double v, std::string_view unit);
/// Parameters at a scale a person reads: 8.03B, 1.2T, 350M.
std::string params_text(double v);
/// Dollars per token at a scale a person reads: $/Mtok down to a cent, then per billion or per
/// trillion tokens ($5.358e-06/Mtok reads $5.358/Ttok); `suffix` follows the unit ("/h").
std::string money_per_tokens(double usd_per_mtok, const std::string& suffix);
/// A plain text table with columns padded to their widest cell, one line each.
std::string text_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
/// `heading`, then each line indented, one per line (a derivation, what a run assumed).
std::string text_lines(std::string_view heading, const std::vector<std::string>& lines, std::string_view indent);
/// "warning: ..." lines, which end a command's text.
std::string warnings_text(const std::vector<std::string>& warnings);

/// What an analysis ran on, for its heading ("train: llama-3.1-8b on 64 x h100-sxm").
struct TextHead {
  std::string model;
  std::string hardware;
  std::optional<double> chips;
};

/// One quantity of a --range (train, tco): p10/p50/p90, named and in the unit its key gives
/// ("step_s" reads "step" in seconds, "usd" in dollars, "days" in days).
struct RangeRow {
  std::string key;
  Quantiles q;
};
struct RangeText {
  int samples = 0;
  std::vector<RangeRow> rows;
};

/// An analysis: its heading, figures, tables, the range, notes, then the analyses it carries
/// (fast mode, a price sheet's inverse), and with `explain` its derivation.
std::string text(const Analysis& a, const TextHead& head, bool explain, const std::optional<RangeText>& range = {},
                 const std::vector<Analysis>& parts = {});

/// What a roofline step's text shows beside the step (roofline): the price's basis, --range,
/// --ops (operators summed by kind), the derivation, and the warnings.
struct RooflineText {
  std::string model;
  std::string price_source;
  std::optional<RooflineRange> range;
  std::optional<std::vector<OpCost>> ops_by_kind;
  std::vector<std::string> derivation;  ///< with --explain
  std::vector<std::string> warnings;
};
std::string text(const RooflineResult& r, const RooflineText& x);
/// The sweep's table, one row per step, each row's derivation with `explain`, then the warnings.
std::string sweep_text(const std::string& model, const std::vector<RooflineResult>& rows, bool explain,
                       const std::vector<std::vector<std::string>>& derivations,
                       const std::vector<std::string>& warnings);
/// The deployment report: the model, the pooled chips, the memory fit, decode cost against
/// batch, the balance batch and the cheapest batch.
struct ReportText {
  const ModelSpec* model = nullptr;
  std::string display_name;
  FlopsPerSecond flops;  ///< pooled over the chips, at the GEMMs' format
  BytesPerSecond hbm_bandwidth;
  Bytes hbm;
  Seconds drain_time;
  double usd_per_hour = 0;  ///< the domain's
  double context = 0;
  double max_batch = 0;
  std::optional<double> balance_batch;
  std::vector<RooflineResult> rows;
  std::optional<std::size_t> best;  ///< the cheapest row that fits
  double unbatched_penalty = 0;
  std::vector<std::string> derivation;  ///< with --explain
  std::vector<std::string> warnings;
};
std::string text(const ReportText& r);

/// What a simulation's text says beside its result: the deployment, the workload, the rate
/// search, what was assumed (the envelope) and the warnings.
struct SimText {
  std::string model, hardware, mapping, engine, scheduler, arrival, isl, osl;
  int replicas = 1, chips_per_replica = 1;
  std::uint64_t seed = 1;
  std::optional<double> rate;
  std::optional<int> clients;
  Seconds think{};
  std::optional<double> found_rate;
  std::size_t tried = 0;  ///< rates the search ran
  std::vector<std::string> envelope, warnings;
};
std::string text(const SimResult& r, const SimText& x);

/// The launch configuration plan --emit writes, for the point it launches.
struct LaunchText {
  std::string engine, mapping;
  double batch = 0;
  std::string text;
};
/// A plan: the search, its frontier (the points listed), the best point, --range, capacity,
/// scale-up domains, the launch, the derivation and the warnings.
struct PlanText {
  std::string model, hardware, price_source, rank;
  DType native_weights = DType::kBf16;  ///< narrower weights are a quantized deployment
  int chips = 0, domain = 0;
  double isl = 0, osl = 0;
  std::string isl_dist, osl_dist;  ///< the distributions asked for; empty for a fixed length
  PlanResult result;
  std::vector<std::size_t> frontier;  ///< indices into result.frontier, thinned as the JSON lists them
  std::optional<PlanRange> best_range;
  std::optional<Capacity> capacity;
  std::optional<std::vector<ScaleUpOption>> scaleup;
  std::optional<LaunchText> launch;
  std::vector<std::string> derivation, warnings;
};
std::string text(const PlanText& p);

/// validate --cross-validate: each chip's calibration predicting rows it did not fit.
struct CrossValidation {
  int folds = 0;
  std::vector<CalibrationResult> fits;
  std::vector<std::pair<std::string, std::string>> skipped;  ///< chip, why it was not calibrated
  std::map<std::string, CrossValidatedScenario> by_scenario;
};
/// validate: each row's prediction and error, the summaries per metric and per scenario, the
/// training fit and the cross-validation.
std::string text(const ValidationReport& v, const std::optional<CrossValidation>& cv);
/// calibrate: the fit's errors and its TOML overlay.
std::string text(const CalibrationResult& c);
/// measure: this machine's roofline, and with --decode the measured against predicted sweep.
std::string text(const MachineProfile& p, const std::optional<DecodeSweep>& decode, int layers, int d_model);

/// The lecture's claims: the verdict table, then the claims with real-hardware comparisons or a
/// correction (every claim with `explain`, with its derivation).
std::string text(const std::vector<Claim>& claims, bool explain);

/// The built-in models, one line each (a model that does not load reads "?").
std::string models_text(const ModelCatalog& models);
/// The chip catalog, one line each.
std::string hardware_text(const HardwareCatalog& hw);
/// One model's shape: parameters, layers, attention, experts, KV per token at `kv`, weights, and
/// the published count when the catalog has it.
std::string model_text(const ModelSpec& m, DType kv, const ModelEntry* entry);
/// "mla", "mha", "mqa" or "gqa".
std::string attention_name(const ModelSpec& m);

}  // namespace llmecon
