// A training row predicted by the training model (docs/model.md §24): its settings through
// `train`'s own arguments and readers, its layout stated or inferred by its stack's search.
//
// The notes' settings: zero=, recompute=, recompute_modules= (Megatron's names joined by '+';
// selective implied), schedule=, chunks=, micro_batch=, train_dtype=, attention_dtype=,
// optimizer=, grad_dtype=, dp_overlap=, tp_overlap=, ep_overlap=, ep_comm_sms=, moe_imbalance=
// and offload_modules= (Megatron's names joined by '+'). An unstated micro-batch or recomputation
// is the fastest that fits (as `train --search` would choose); an unstated ZeRO stage is 1 and the
// schedule 1F1B.
#include <fmt/format.h>

#include <algorithm>

#include "args/arg_builders.hpp"
#include "rows.hpp"
#include "train/train_args.hpp"

namespace llmecon::validate_internal {

std::optional<double> training_seq_len(const Measurement& m) {
  if (m.isl) return m.isl;
  if (layout_unstated(m) && row_stack(m) == TrainStack::kMaxText) return 2048.0;
  return std::nullopt;
}

namespace {

// A training row read: its setup, its settings as `train` reads them, and how its metric is
// taken from a result.
struct TrainRow {
  TrainSetup ts;
  Args args;
  double per_peak = 1.0;  ///< llmecon's MFU over the row's peak (mfu_peak=)

  [[nodiscard]] std::optional<double> metric_of(const Measurement& m, const TrainResult& r) const {
    const double chips = m.chips;
    if (m.metric == "mfu") return r.mfu * per_peak;
    if (m.metric == "hfu") return r.hfu * per_peak;
    if (m.metric == "tflops_per_gpu") return r.model_flops.si() / r.time.step.si() / chips / 1e12;
    if (m.metric == "training_gpu_hours") return r.run.gpu_hours;
    if (m.metric == "training_tokens_per_s_per_gpu") return r.tokens_per_s.si() / chips;
    return std::nullopt;
  }
};

// The notes' training settings through `train`'s own arguments and readers (train_args.hpp).
const CommandSpec& train_spec() {
  static const CommandSpec spec = argspec::command("train", "", train_arguments());
  return spec;
}

// A source's MFU over another peak (mfu_peak: the FP8 peak, or another chip's in TFLOP/s) is
// llmecon's over the bf16 peak times bf16 peak / that peak.
double mfu_peak_ratio(const Measurement& m, const Hardware& hw) {
  if (!m.settings.contains("mfu_peak")) return 1.0;
  const std::string peak = m.settings["mfu_peak"].get<std::string>();
  const double divisor = peak == "fp8"    ? hw.peak(DType::kFp8).si()
                         : peak == "bf16" ? peak_bf16(hw)
                                          : mfu_peak_tflops(peak).value_or(0.0) * 1e12;
  return divisor > 0 ? peak_bf16(hw) / divisor : 1.0;
}

std::optional<TrainRow> read_train_row(const Measurement& m, const Setup& s, double isl,
                                       std::optional<double> k_override, std::optional<double> host_override) {
  TrainSetup ts;
  ts.model = &s.model;
  ts.hw = s.hw;
  ts.eff = s.in.eff;
  if (s.in.eff.ideal()) {
    ts.kernel_efficiency = 1.0;
    ts.expert_host = Seconds{};
  }
  if (k_override) ts.kernel_efficiency = *k_override;
  if (host_override) ts.expert_host = units::seconds(*host_override);
  ts.seq_len = isl;
  ts.global_batch = m.batch.value_or(m.chips);
  ts.price = s.hw->price.value;
  Json given = train_settings(m);
  if (m.weight_dtype == "fp8") given["train_dtype"] = "fp8";  // FP8 weights: FP8 GEMMs
  auto args = Args::parse(train_spec(), given);
  if (!args) return std::nullopt;  // read_row_notes checked these values
  const Args& a = *args;
  const Seconds host = ts.expert_host;
  const double kernel = ts.kernel_efficiency;
  if (!read_train_settings(a, ts)) return std::nullopt;
  ts.expert_host = host;  // the fitted constant (or none when ideal), not the flag's rounding of it
  ts.kernel_efficiency = kernel;
  ts.failures = FailureModel{};  // a measured step: no interruptions
  ts.dropout = m.settings.value("dropout", 0) != 0;
  ts.flash_attention = m.settings.value("flash", 1) != 0;
  if (m.metric == "training_gpu_hours") {
    if (!a.has("tokens")) return std::nullopt;
    ts.tokens = a.number("tokens");
  }
  return TrainRow{ts, std::move(*args), mfu_peak_ratio(m, *s.hw)};
}

// A row that states no degrees: the layout its stack's search chooses (model.md §24.6), flagged
// as inferred; its batch, when unstated too, the per-device batch the search finds fastest.
std::optional<double> predict_inferred(const Measurement& m, Setup& s, const TrainRow& row) {
  const Args& a = row.args;
  const TrainStack stack = row_stack(m);
  TrainSearchSpace space = stack_space(stack);
  if (a.has("zero")) space.zero = {static_cast<int>(a.number("zero"))};
  if (a.has("recompute") || a.has("recompute_modules")) {
    const auto rc = read_train_layout(a, s.model);
    if (!rc) return std::nullopt;
    space.recompute = {rc->recompute};
    space.module_sets = {rc->modules};
  }
  // Per-device batches when the row states none; the fastest per token wins.
  std::vector<double> batches{row.ts.global_batch};
  if (!m.batch) {
    batches.clear();
    for (double per_device : {1.0, 2.0, 4.0, 8.0, 16.0}) batches.push_back(per_device * static_cast<double>(m.chips));
  }
  std::optional<TrainResult> best;
  double best_per_token = 0;
  std::vector<double> top;
  for (double gb : batches) {
    TrainSetup x = row.ts;
    x.global_batch = gb;
    TrainSearch found = search_training(x, m.chips, TrainObjective::kTime, space, 5);
    if (found.ranked.empty()) {
      // The row ran, so where no layout fits the memory model is what is off: rank them as if
      // HBM held them, and say so.
      x.usable_hbm *= 8.0;
      found = search_training(x, m.chips, TrainObjective::kTime, space, 5);
      if (found.ranked.empty()) continue;
      found.ranked.front().reason = "predicted not to fit in HBM";
    }
    const double per_token = found.ranked.front().time.step.si() / gb;
    if (!best || per_token < best_per_token) {
      best_per_token = per_token;
      top.clear();
      for (const TrainResult& r : found.ranked)
        if (auto v = row.metric_of(m, r)) top.push_back(*v);
      best = std::move(found.ranked.front());
    }
  }
  if (!best || top.empty()) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(top.begin(), top.end());
  if (!best->reason.empty()) s.envelope.push_back(best->reason + " at the inferred layouts");
  s.envelope.push_back(fmt::format("training: {} (layout: inferred, {} search{}; the top {} layouts give {}-{})",
                                   best->layout.str(), name(stack), m.batch ? "" : ", per-device batch searched",
                                   top.size(), format_number(*lo), format_number(*hi)));
  return row.metric_of(m, *best);
}

// A row that states its degrees: an unstated micro-batch or recomputation is the fastest that
// fits, as `train --search` chooses; when none fits, the one needing the least memory, noted (the
// row ran, so the memory model is what is off).
std::optional<double> predict_stated(const Measurement& m, Setup& s, const TrainRow& row) {
  const Args& a = row.args;
  const Mapping& mp = s.in.map;
  auto stated = read_train_layout(a, s.model);
  if (!stated) return std::nullopt;
  TrainLayout l = *stated;
  l.tp = mp.tp;
  l.pp = mp.pp;
  l.cp = mp.cp;
  l.ep = m.ep.value_or(1);
  const int slice = l.tp * l.pp * l.cp;
  if (slice <= 0 || m.chips % slice != 0) return std::nullopt;
  l.dp = m.chips / slice;
  std::vector<double> micro{1, 2, 4, 8};
  if (a.has("micro_batch")) micro = {l.micro_batch};
  std::vector<std::pair<Recompute, unsigned>> rec;
  if (a.has("recompute") || a.has("recompute_modules")) {
    rec = {{l.recompute, l.modules}};
  } else {
    rec = recompute_choices(s.model, TrainSearchSpace{});
  }
  std::optional<TrainResult> best, least;
  for (double mb : micro) {
    for (const auto& [r, mods] : rec) {
      TrainLayout x = l;
      x.micro_batch = mb;
      x.recompute = r;
      x.modules = mods;
      TrainResult res = evaluate_training(row.ts, x, false);
      if (res.time.step.si() <= 0) continue;  // the layout itself is invalid
      if (!res.feasible) {
        if (!least || res.memory.total() < least->memory.total()) least = std::move(res);
        continue;
      }
      if (!best || res.time.step < best->time.step) best = std::move(res);
    }
  }
  if (!best && least) {
    s.envelope.push_back("predicted not to fit in HBM: " + least->reason);
    best = std::move(least);
  }
  if (!best) return std::nullopt;
  if (micro.size() > 1 || rec.size() > 1) {
    s.envelope.push_back("training: " + best->layout.str() +
                         " (unstated micro-batch or recomputation: the fastest that fits)");
  } else {
    s.envelope.push_back("training: " + best->layout.str());
  }
  return row.metric_of(m, *best);
}

}  // namespace

std::optional<double> predict_training(const Measurement& m, Setup& s, std::optional<double> k_override,
                                       std::optional<double> host_override) {
  // A row that states no degrees is predicted with the layout the search chooses under its stack's
  // constraints (model.md §24.6), flagged as inferred; its batch, when unstated too, is the
  // per-device batch the search finds fastest, and its sequence the stack's default.
  const bool inferred = layout_unstated(m);
  const std::optional<double> isl = training_seq_len(m);
  if (!isl || (!m.batch && !inferred)) return std::nullopt;
  if (!m.isl) s.envelope.emplace_back("sequence length unstated: MaxText's default 2048");
  const std::optional<TrainRow> row = read_train_row(m, s, *isl, k_override, host_override);
  if (!row) return std::nullopt;
  return inferred ? predict_inferred(m, s, *row) : predict_stated(m, s, *row);
}

}  // namespace llmecon::validate_internal
