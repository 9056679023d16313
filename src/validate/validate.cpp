// Validation against published measurements: every row predicted and the errors summarized
// (docs/model.md §18-§19). Rows are mapped in rows.cpp, read in csv.cpp and notes.cpp; the
// training fit is fit.cpp.
#include "validate/validate.hpp"

#include "notes.hpp"

#include "plan/plan.hpp"
#include "simulate/simulate.hpp"
#include "train/train.hpp"
#include "train/train_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "parallel/comm.hpp"
#include "parallel/parallel.hpp"
#include "units/embedded.hpp"
#include "units/units_parse.hpp"

#include "rows.hpp"

namespace llmecon {

using validate_internal::fit_training;

namespace {
// A training step's work is its tokens: the global batch and the sequence length, which no layout
// stands in for. Empty when the row states both.
std::string training_work_missing(const Measurement& m) {
  if (m.scenario != "training_step" || (m.batch && m.isl)) return "";
  // A row that states no degrees has its layout inferred (model.md §24.6): a rate per chip then
  // takes the per-device batch the search finds fastest, and MaxText's sequence its default.
  const bool per_chip = m.metric != "training_gpu_hours";
  if (validate_internal::layout_unstated(m) && per_chip && validate_internal::training_seq_len(m)) return "";
  return fmt::format("a training step needs its global batch and sequence length; the row states {}",
                     !m.batch && !m.isl ? "neither"
                     : !m.batch         ? "no batch"
                                        : "no sequence length");
}
}  // namespace
using validate_internal::max_batch;
using validate_internal::model_flops;
using validate_internal::peak_bf16;
using validate_internal::predict_training;
using validate_internal::Setup;
using validate_internal::setup;
using validate_internal::simulate_row;

namespace {

// The one-step formula for a decode, offline or online row (model.md §18-§19): the decode step at
// the row's batch (or the largest that fits, up to the engine's cap) and mean context, with the
// prefill for rates that include it. `fits` turns false when not one sequence fits.
std::optional<double> predict_decode(const Measurement& m, Setup& s, double isl, double osl, bool& fits) {
  std::optional<double> pred;
  const double ctxlen = isl + osl / 2;
  double batch = m.batch ? *m.batch / s.replicas : 0;
  if (!m.batch) {
    batch = max_batch(s, isl + osl);
    if (s.engine != nullptr && batch > s.engine->max_seqs) {
      batch = s.engine->max_seqs;
      s.envelope.emplace_back("batch not published: the engine's sequence cap is assumed");
    } else {
      s.envelope.emplace_back("batch not published: the largest that fits is assumed");
    }
  }
  if (m.scenario == "online_load" && !m.batch) s.envelope.emplace_back("request-rate load: queueing not modelled");
  if (batch < 1) {
    fits = false;
    return std::nullopt;
  }
  batch = std::max(batch, static_cast<double>(s.in.map.pp));
  const PhaseResult d = evaluate_decode(s.in, batch, ctxlen);
  if (!d.feasible) s.envelope.push_back("predicted not to fit in HBM: " + d.reason);
  const double tpot = d.latency.si();
  const double total_batch = batch * s.replicas;
  const PhaseResult pre = isl > 0 ? evaluate_prefill(s.in, batch, isl) : PhaseResult{};
  const double t_pre = isl > 0 ? pre.latency.si() : 0.0;
  const bool includes_prefill = m.scenario != "decode_fixed_batch";
  const double wave = (includes_prefill ? t_pre : 0.0) + std::max(osl, 1.0) * tpot;
  if (m.metric == "ms_per_output_token" || m.metric == "tpot_ms") pred = tpot * 1e3;
  if (m.metric == "decode_latency_s") pred = osl * tpot;
  if (m.metric == "e2e_latency_s") pred = t_pre + osl * tpot;
  if (m.metric == "output_tokens_per_s") pred = includes_prefill ? total_batch * osl / wave : total_batch / tpot;
  if (m.metric == "input_tokens_per_s") pred = total_batch * isl / wave;
  if (m.metric == "total_tokens_per_s") pred = total_batch * (isl + osl) / wave;
  if (m.metric == "ttft_s") {
    pred = evaluate_prefill(s.in, 1, isl).latency.si();
    s.envelope.emplace_back("TTFT without queueing");
  }
  if (m.metric == "mfu") {
    const double f = model_flops(s.model, Step{Phase::kDecode, batch, 1, ctxlen}, s.in.precision);
    const double rate =
        includes_prefill ? (f * osl + model_flops(s.model, Step{Phase::kPrefill, batch, isl, 0}, s.in.precision)) / wave
                         : f / tpot;
    pred = rate * s.replicas / (m.chips * peak_bf16(*s.hw));
  }
  return pred;
}

// The one-step formula for a prefill row: the row's batch, else the notes' tokens per device per
// pass, else 8K tokens per attention group.
std::optional<double> predict_prefill(const Measurement& m, Setup& s, double isl) {
  std::optional<double> pred;
  double per_group = 8192;
  if (const auto pos = m.notes.find(" tokens per device per forward pass"); pos != std::string::npos) {
    std::size_t b = pos;
    while (b > 0 && (std::isdigit(static_cast<unsigned char>(m.notes[b - 1])) || m.notes[b - 1] == ',')) --b;
    std::string digits;
    for (std::size_t i = b; i < pos; ++i)
      if (m.notes[i] != ',') digits += m.notes[i];
    if (!digits.empty()) per_group = std::stod(digits);
  }
  double batch =
      m.batch ? *m.batch / s.replicas : std::max(1.0, std::ceil(per_group / std::max(isl, 1.0))) * s.in.map.dp_attn;
  if (!m.batch) {
    s.envelope.push_back(
        fmt::format("batch not published: {} tokens per attention group per pass assumed", format_number(per_group)));
  }
  const PhaseResult p = evaluate_prefill(s.in, batch, isl);
  const double t = p.latency.si();
  if (m.metric == "prefill_latency_s" || m.metric == "ttft_s") pred = t;
  if (m.metric == "input_tokens_per_s") pred = batch * isl * s.replicas / t;
  if (m.metric == "mfu") {
    pred = model_flops(s.model, Step{Phase::kPrefill, batch, isl, 0}, s.in.precision) / t * s.replicas /
           (m.chips * peak_bf16(*s.hw));
  }
  return pred;
}

// A row's mean input (or output) length: its column, else its notes' shared prefix and question or
// distribution, else its named workload's (means for the one-step formula; the simulator draws from the distributions).
std::optional<double> mean_length(const Measurement& m, const std::optional<double>& column, const char* key,
                                  const std::optional<RowWorkload>& workload, bool input) {
  if (column) return column;
  if (input && m.settings.contains("shared_prefix")) {
    if (auto sp = parse_shared_prefix(m.settings["shared_prefix"].get<std::string>(), "shared_prefix"))
      return sp->prefix + sp->question;
  }
  if (m.settings.contains(key)) {
    if (auto d = parse_length_dist(m.settings[key].get<std::string>(), key)) return d->mean();
  }
  const std::optional<LengthDist>* preset =
      workload ? (input ? &workload->preset.isl : &workload->preset.osl) : nullptr;
  if (preset != nullptr && *preset) return (*preset)->mean();
  return std::nullopt;
}

}  // namespace

ValidationReport validate(const std::vector<Measurement>& rows, const ValidationContext& ctx) {
  ValidationReport rep;
  std::map<std::string, std::vector<double>> apes, scenario_apes;
  validate_internal::SimRuns runs;
  for (const auto& m : rows) {
    RowResult r;
    r.id = m.id;
    r.metric = m.metric;
    r.scenario = m.scenario;
    r.hardware = m.hardware;
    r.measured = m.value;
    if (!m.notes_error.empty()) {
      r.skip_reason = m.notes_error;
      r.envelope = "error: the notes";
      rep.rows.push_back(r);
      continue;
    }
    auto s_r = setup(m, ctx);
    if (!s_r) {
      r.skip_reason = s_r.error().message();
      r.envelope = "outside: " + s_r.error().what;
      rep.rows.push_back(r);
      continue;
    }
    Setup s = std::move(s_r).value();
    s.in.model = &s.model;
    // A named workload gives the lengths the row leaves out (means for the one-step formula).
    std::optional<RowWorkload> workload;
    if (m.settings.contains("workload")) {
      auto w = row_workload(m.settings["workload"].get<std::string>(), m.scenario);
      if (w) workload = std::move(w).value();  // read_row_notes checked it
    }
    const std::optional<double> isl_mean = mean_length(m, m.isl, "isl_dist", workload, true);
    const std::optional<double> osl_mean = mean_length(m, m.osl, "osl_dist", workload, false);
    const double isl = isl_mean.value_or(0), osl = osl_mean.value_or(0);
    if (workload) {
      auto length = [](const std::optional<double>& column, const std::optional<LengthDist>& preset) {
        return column ? format_number(*column) : preset ? preset->str() : std::string("not published");
      };
      s.envelope.push_back(fmt::format("workload {} ({}): input {}, output {}", workload->preset.name, workload->mode,
                                       length(m.isl, workload->preset.isl), length(m.osl, workload->preset.osl)));
    }
    if (!isl_mean && m.scenario != "training_step") {
      r.skip_reason = workload ? "input length published by neither the row nor workload " + workload->preset.name
                               : "input length not published (production traffic)";
      r.envelope = "outside: no sequence lengths";
      rep.rows.push_back(r);
      continue;
    }
    if (const std::string missing = training_work_missing(m); !missing.empty()) {
      r.skip_reason = missing;
      r.envelope = "outside: no batch or sequence length";
      rep.rows.push_back(r);
      continue;
    }
    std::optional<double> pred;
    const std::size_t setup_notes = s.envelope.size();  // before the one-step prediction adds its own
    if (m.scenario == "training_step") {
      pred = predict_training(m, s, ctx.train_kernel_efficiency, ctx.train_expert_host);
    } else if (m.scenario == "decode_fixed_batch" || m.scenario == "offline_throughput" ||
               m.scenario == "online_load") {
      bool fits = true;
      pred = predict_decode(m, s, isl, osl, fits);
      if (!fits) {
        r.skip_reason = "the model does not fit on this mapping";
        r.envelope = "outside: does not fit";
        rep.rows.push_back(r);
        continue;
      }
    } else if (m.scenario == "prefill") {
      pred = predict_prefill(m, s, isl);
    }
    // Traffic through the simulator; the one-step formula stays as the comparison.
    if (ctx.simulate_traffic && (m.scenario == "offline_throughput" || m.scenario == "online_load") &&
        m.metric != "mfu") {
      std::vector<std::string> notes(s.envelope.begin(), s.envelope.begin() + static_cast<std::ptrdiff_t>(setup_notes));
      if (auto sim = simulate_row(m, s, workload, notes, isl, osl, &runs)) {
        r.fixed_batch = pred;
        pred = sim;
        s.envelope = std::move(notes);
      }
    }
    if (!pred) {
      r.skip_reason = "no prediction for metric " + m.metric + " in scenario " + m.scenario;
      r.envelope = "outside: unsupported metric";
      rep.rows.push_back(r);
      continue;
    }
    r.predicted = *pred;
    r.error_pct = 100.0 * (*pred - m.value) / m.value;
    std::string env;
    for (const auto& e : s.envelope) env += (env.empty() ? "" : "; ") + e;
    r.envelope = env.empty() ? "ok" : env;
    apes[m.metric].push_back(std::fabs(*r.error_pct));
    if (r.fixed_batch) {
      scenario_apes[m.scenario].push_back(std::fabs(*r.error_pct));
      scenario_apes[m.scenario + " fixed batch"].push_back(100.0 * std::fabs(*r.fixed_batch - m.value) / m.value);
    }
    if (const std::string family = serving_family(m.metric); m.scenario == "online_load" && !family.empty())
      scenario_apes[m.scenario + ": " + family].push_back(std::fabs(*r.error_pct));
    if (is_speed_metric(m.metric)) apes["overall"].push_back(std::fabs(*r.error_pct));
    rep.rows.push_back(r);
  }
  auto summarize = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    MetricSummary ms;
    ms.n = static_cast<int>(v.size());
    const Quantiles q = quantiles(v);
    ms.median_ape = q.p50;
    ms.p90_ape = q.p90;
    ms.max_ape = v.back();
    return ms;
  };
  for (auto& [metric, v] : apes) rep.summary[metric] = summarize(v);
  for (auto& [scenario, v] : scenario_apes) rep.by_scenario[scenario] = summarize(v);
  if (ctx.fit_training) rep.training_fit = fit_training(rows, ctx);
  return rep;
}

}  // namespace llmecon
