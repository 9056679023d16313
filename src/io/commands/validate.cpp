// validate, calibrate and measure: the model against measurements, and this machine measured.
#include <algorithm>
#include <filesystem>

#include "commands.hpp"
#include "io/encode.hpp"
#include "measure/measure.hpp"
#include "measure/measure_args.hpp"
#include "validate/validate_args.hpp"

namespace llmecon::cmd {
namespace {

Result<std::vector<Measurement>> read_measurements(const Args& a, std::string& dir) {
  const std::string file = a.text_or("file", "");
  TRY(text, read_text_file(file, "give the path of a measurement CSV (schema: shared/validation/README.md)"));
  dir = std::filesystem::path(file).parent_path().string();
  return read_validation_csv(text, file);
}

}  // namespace

namespace {

// Each chip with rows that state a batch calibrated in turn, its rows predicted by fits that did
// not see them, and the held-out errors gathered per scenario (model.md §19.1).
Result<CrossValidation> cross_validation(const Engine& e, const Args& a, const std::vector<Measurement>& rows,
                                         const ValidationContext& ctx, const Progress& progress, const Cancel& cancel) {
  std::vector<std::string> chips;
  for (const auto& m : rows) {
    if (is_speed_metric(m.metric) && m.scenario != "training_step" &&
        std::find(chips.begin(), chips.end(), m.hardware) == chips.end())
      chips.push_back(m.hardware);
  }
  std::sort(chips.begin(), chips.end());
  CrossValidation cv;
  cv.folds = static_cast<int>(a.number("folds"));
  for (std::size_t i = 0; i < chips.size(); ++i) {
    if (cancel && cancel()) return cancelled_error();
    if (progress) progress(static_cast<double>(i) / static_cast<double>(chips.size()));
    CalibrateOptions opt;
    opt.folds = cv.folds;
    opt.held_out_rows = true;
    const Hardware* hw = e.hardware_catalog().find(chips[i]);
    if (a.has("fit")) {
      opt.fit = split_list(a.text("fit"));
    } else if (hw != nullptr) {
      // The family's fitted parameters; else only the two fixed costs, which no microbenchmark
      // gives (model.md §19.1).
      opt.fit = e.fitted_parameters(*hw);
      if (opt.fit.empty()) opt.fit = {"step_overhead", "kernel_overhead"};
    }
    auto cal = llmecon::calibrate(rows, ctx, chips[i], opt);
    if (!cal) {
      if (cal.error().where != "--hw") return cal.error();
      cv.skipped.emplace_back(chips[i], cal.error().what);
      continue;
    }
    cv.fits.push_back(std::move(*cal));
  }
  cv.by_scenario = cross_validated_by_scenario(cv.fits);
  if (progress) progress(1.0);
  return cv;
}

}  // namespace

Result<Answer> validate(const Engine& e, const Args& a, const Progress& progress, const Cancel& cancel) {
  // Flags that cannot go together are refused before any row is predicted.
  if (a.has("fit") && !a.flag("cross_validate")) {
    return Error{"--fit", "", "only with --cross-validate", "calibrate --fit fits one chip"};
  }
  if (a.flag("cross_validate") && a.flag("ideal")) {
    return Error{"--cross-validate", "", "the ideal roofline has nothing to fit", "drop --ideal"};
  }
  std::string dir;
  TRY(rows, read_measurements(a, dir));
  ValidationContext ctx;
  ctx.catalogs = &e.catalogs();
  ctx.csv_dir = dir;
  const bool ideal = a.flag("ideal");
  if (!ideal) ctx.efficiency = [&e](const Hardware& h) { return e.efficiency(h); };
  ctx.engines = !ideal;
  ValidationReport rep = llmecon::validate(rows, ctx);
  Json out_rows = Json::array();
  for (const auto& r : rep.rows) {
    out_rows.push_back({{"id", r.id},
                        {"metric", r.metric},
                        {"scenario", r.scenario},
                        {"hardware", r.hardware},
                        {"predicted", r.predicted ? Json(*r.predicted) : Json(nullptr)},
                        {"measured", r.measured},
                        {"error_pct", r.error_pct ? Json(*r.error_pct) : Json(nullptr)},
                        {"fixed_batch", r.fixed_batch ? Json(*r.fixed_batch) : Json(nullptr)},
                        {"envelope", r.envelope},
                        {"skipped", !r.skip_reason.empty()},
                        {"skip_reason", r.skip_reason}});
  }
  Json summary = Json::object();
  for (const auto& [metric, s] : rep.summary) {
    summary[metric] = {{"n", s.n}, {"median_ape", s.median_ape}, {"p90_ape", s.p90_ape}, {"max_ape", s.max_ape}};
  }
  Json by_scenario = Json::object();
  for (const auto& [scenario, s] : rep.by_scenario) {
    by_scenario[scenario] = {{"n", s.n}, {"median_ape", s.median_ape}, {"p90_ape", s.p90_ape}, {"max_ape", s.max_ape}};
  }
  Json out{{"file", a.raw("file")},
           {"efficiency", ideal ? "ideal" : "calibrated defaults"},
           {"rows", out_rows},
           {"summary", summary},
           {"by_scenario", by_scenario}};
  std::optional<CrossValidation> cv;
  if (a.flag("cross_validate")) {
    TRY(fits, cross_validation(e, a, rows, ctx, progress, cancel));
    out["cross_validation"] = to_json(fits);
    cv = std::move(fits);
  }
  if (rep.training_fit) {
    const auto& f = *rep.training_fit;
    out["training_fit"] = {{"rows", f.rows},
                           {"sources", f.sources},
                           {"kernel_efficiency", f.fitted},
                           {"expert_host_us", f.expert_host * 1e6},
                           {"moe_rows", f.moe_rows},
                           {"settled", f.settled},
                           {"in_sample_median_ape", f.in_sample_median_ape},
                           {"in_sample_max_ape", f.in_sample_max_ape},
                           {"kfold_median_ape", f.kfold_median_ape},
                           {"loso_median_ape", f.loso_median_ape},
                           {"loso_p90_ape", f.loso_p90_ape},
                           {"loso_max_ape", f.loso_max_ape},
                           {"dense_rows", f.dense_rows},
                           {"loso_step_ratio_dense", quantiles_json(f.loso_step_ratio_dense)},
                           {"loso_step_ratio_moe", quantiles_json(f.loso_step_ratio_moe)}};
  }
  return Answer{std::move(out), [rep = std::move(rep), cv = std::move(cv)] { return text(rep, cv); }};
}

Result<Answer> calibrate(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  std::string dir;
  TRY(rows, read_measurements(a, dir));
  TRY(hw, e.hardware_catalog().get(a.text("hw"), "--hw"));
  ValidationContext ctx;
  ctx.catalogs = &e.catalogs();
  ctx.csv_dir = dir;
  ctx.efficiency = [&e](const Hardware& h) { return e.efficiency(h); };
  ctx.engines = true;
  const std::vector<std::string> fit = a.has("fit") ? split_list(a.text("fit")) : e.fitted_parameters(*hw);
  CalibrateOptions opt;
  opt.folds = static_cast<int>(a.number("folds"));
  opt.fit = fit;
  TRY(cal, llmecon::calibrate(rows, ctx, hw->name, opt));
  Json out{{"hardware", cal.hardware},
           {"rows", cal.rows},
           {"folds", cal.folds},
           {"in_sample_median_ape", cal.in_sample_median_ape},
           {"cv_median_ape", cal.cv_median_ape},
           {"unstated_batch", cal.unstated_batch},
           {"sources", cal.sources},
           {"loso_median_ape", cal.loso_median_ape},
           {"loso_p90_ape", cal.loso_p90_ape},
           {"efficiency", efficiency_json(cal.eff)},
           {"fitted", cal.fitted},
           {"toml", cal.toml}};
  return Answer{std::move(out), [cal = std::move(cal)] { return text(cal); }};
}

Result<Answer> measure(const Engine&, const Args& a, const Progress&, const Cancel&) {
  const bool quick = a.flag("quick");
  MeasureOptions mo = quick ? MeasureOptions::quick() : MeasureOptions{};
  mo.threads = static_cast<int>(a.number("threads"));
  const MachineProfile p = measure_machine(mo);
  Json gemm = Json::array();
  for (const auto& g : p.gemm_sizes) gemm.push_back({{"n", g.n}, {"flops_per_s", g.rate.si()}});
  Json rows = Json::array();
  for (const auto& g : p.gemm_rows) rows.push_back({{"rows", g.n}, {"flops_per_s", g.rate.si()}});
  Json out{{"cpu", p.cpu},
           {"threads", p.threads},
           {"stream_bytes_per_s", p.stream.si()},
           {"gemm_flops_per_s", p.gemm.si()},
           {"gemm", gemm},
           {"gemm_rows", rows},
           {"weight_n", p.weight_n},
           {"weight_stream_bytes_per_s", p.weight_stream.si()},
           {"memory_fraction", machine_efficiency(p).memory},
           {"l1_bytes", p.l1.si()},
           {"l2_bytes", p.l2.si()},
           {"l3_bytes", p.l3.si()},
           {"memory_bytes", p.memory.si()},
           {"toml", machine_toml(p)}};
  std::optional<DecodeSweep> sweep;
  DecodeOptions d = quick ? DecodeOptions::quick(p) : DecodeOptions{};
  if (a.flag("decode")) {
    d.d_model = static_cast<int>(a.number_or("d_model", d.d_model));
    d.layers = static_cast<int>(a.number_or("layers", d.layers));
    const DecodeSweep s = measure_decode(p, d);
    Json pts = Json::array();
    for (const auto& pt : s.points) {
      pts.push_back({{"batch", pt.batch},
                     {"measured_s", pt.measured.si()},
                     {"predicted_s", pt.predicted.si()},
                     {"measured_s_per_token", pt.measured.si() / pt.batch},
                     {"predicted_s_per_token", pt.predicted.si() / pt.batch},
                     {"error_pct", 100 * (pt.predicted.si() - pt.measured.si()) / pt.measured.si()},
                     {"rows_flops_per_s", pt.rows_rate.si()},
                     {"weight_stream_bytes_per_s", pt.weight_stream.si()}});
    }
    out["decode"] = {{"d_model", d.d_model},
                     {"layers", d.layers},
                     {"params", s.params},
                     {"weight_bytes", s.weight_bytes.si()},
                     {"knee_predicted", s.knee_predicted},
                     {"knee_measured", s.knee_measured},
                     {"points", pts}};
    sweep = s;
  }
  return Answer{std::move(out),
                [p, sweep, layers = d.layers, width = d.d_model] { return text(p, sweep, layers, width); }};
}

// The validate family's commands in the table (commands.hpp); each declares its arguments beside
// its implementation (validate_args.hpp, measure_args.hpp).
std::vector<Command> validate_commands() {
  using argspec::command;
  CommandSpec validate = command("validate", "predict every row of a measurement CSV and report the error per metric",
                                 validate_arguments(), true);
  validate.reads_files = true;
  CommandSpec calibrate =
      command("calibrate", "fit a chip's efficiency to a measurement CSV; prints a --hw-file overlay",
              calibrate_arguments(), true);
  calibrate.reads_files = true;
  calibrate.writes_toml = true;
  CommandSpec measure = command(
      "measure",
      "measure this machine's roofline (memory bandwidth, GEMM rate, caches); --decode runs a real decode sweep",
      measure_arguments(), true);
  measure.measures = true;
  measure.chart = "svg";
  measure.writes_toml = true;
  return {
      {std::move(validate), cmd::validate}, {std::move(calibrate), cmd::calibrate}, {std::move(measure), cmd::measure}};
}

}  // namespace llmecon::cmd
