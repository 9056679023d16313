// The text of validate, calibrate and measure (text.hpp).
#include <fmt/format.h>

#include "io/text.hpp"

namespace llmecon {
namespace {

// One row per entry of a {key: summary} map.
std::string ape_table(const char* key, const std::map<std::string, MetricSummary>& o) {
  std::vector<std::vector<std::string>> cells;
  cells.reserve(o.size());
  for (const auto& [k, m] : o) {
    cells.push_back({k, std::to_string(m.n), fmt::format("{:.1f}%", m.median_ape), fmt::format("{:.1f}%", m.p90_ape),
                     fmt::format("{:.1f}%", m.max_ape)});
  }
  return text_table({key, "n", "median", "p90", "max"}, cells);
}

std::string cross_validation_text(const CrossValidation& cv) {
  std::string out = fmt::format(
      "\ncross-validated: each chip's calibration predicting rows it did not fit ({}-fold; LOSO: leave one source "
      "out), median / p90 absolute error:\n",
      cv.folds);
  auto c = [](const ErrorCell& x) {
    return x.n == 0 ? std::string("-") : fmt::format("{:.1f}% / {:.1f}% ({})", x.median_ape, x.p90_ape, x.n);
  };
  std::vector<std::vector<std::string>> cells;
  for (const auto& [scenario, x] : cv.by_scenario)
    cells.push_back({scenario, c(x.defaults), c(x.in_sample), c(x.kfold), c(x.loso)});
  out += text_table({"scenario", "default (rows)", "in-sample", "k-fold", "LOSO"}, cells);
  std::vector<std::vector<std::string>> chips;
  for (const CalibrationResult& ch : cv.fits) {
    std::string fitted;
    for (const std::string& f : ch.fitted) fitted += (fitted.empty() ? "" : ",") + f;
    chips.push_back({ch.hardware, std::to_string(ch.rows), std::to_string(ch.default_rows.size()),
                     std::to_string(ch.sources), fitted});
  }
  out += "\n" + text_table({"chip", "rows fitted", "rows predicted", "sources", "fitted"}, chips);
  for (const auto& [chip, why] : cv.skipped) out += fmt::format("not calibrated: {}: {}\n", chip, why);
  return out;
}

}  // namespace

std::string text(const ValidationReport& v, const std::optional<CrossValidation>& cv) {
  std::vector<std::vector<std::string>> t;
  auto num = [](const std::optional<double>& x) { return x ? format_number(*x) : std::string("-"); };
  for (const RowResult& r : v.rows) {
    t.push_back({r.id, r.metric, num(r.predicted), format_number(r.measured),
                 r.error_pct ? fmt::format("{:+.1f}%", *r.error_pct) : std::string("-"),
                 r.skip_reason.empty() ? r.envelope : "skipped: " + r.skip_reason});
  }
  std::string out = text_table({"id", "metric", "predicted", "measured", "error", "envelope"}, t);
  out += "\nsummary (absolute percentage error):\n" + ape_table("metric", v.summary);
  if (!v.by_scenario.empty()) {
    out += "\nunder traffic, through the simulator and by the fixed-batch formula:\n" +
           ape_table("scenario", v.by_scenario);
  }
  if (v.training_fit) {
    const auto& f = *v.training_fit;
    out += fmt::format(
        "\ntraining kernel efficiency fitted to {} rows from {} sources: {:.3f}, with MoE host time {:.0f} us per "
        "local expert (from {} MoE rows{}); median error in-sample {:.1f}%, 5-fold {:.1f}%, leave-one-source-out "
        "{:.1f}% (p90 {:.1f}%)\n",
        f.rows, f.sources, f.fitted, f.expert_host * 1e6, f.moe_rows, f.settled ? "" : "; the fit did not settle",
        f.in_sample_median_ape, f.kfold_median_ape, f.loso_median_ape, f.loso_p90_ape);
  }
  if (cv) out += cross_validation_text(*cv);
  return out;
}

std::string text(const CalibrationResult& c) {
  return fmt::format("calibrated {} on {} rows: in-sample median APE {:.1f}%, {}-fold cross-validated {:.1f}%\n\n",
                     c.hardware, c.rows, c.in_sample_median_ape, c.folds, c.cv_median_ape) +
         c.toml;
}

std::string text(const MachineProfile& p, const std::optional<DecodeSweep>& decode, int layers, int d_model) {
  std::string out = fmt::format("{} ({} threads)\n", p.cpu, p.threads);
  out += fmt::format("  memory bandwidth (triad)  {}\n", format(p.stream));
  for (const auto& g : p.gemm_sizes) out += fmt::format("  SGEMM {:>5}^3            {}\n", g.n, format(g.rate));
  out += fmt::format("  caches                    L1 {}  L2 {}  L3 {}\n", format(p.l1), format(p.l2), format(p.l3));
  if (decode) {
    const DecodeSweep& d = *decode;
    out +=
        fmt::format("\ndecode sweep: {} layers, d = {}, {} of fp32 weights\n", layers, d_model, format(d.weight_bytes));
    std::vector<std::vector<std::string>> rows;
    for (const DecodePoint& pt : d.points) {
      rows.push_back({std::to_string(pt.batch), format(pt.measured), format(pt.predicted),
                      format(units::seconds(pt.measured.si() / pt.batch)),
                      format(units::seconds(pt.predicted.si() / pt.batch)),
                      fmt::format("{:+.0f}%", 100 * (pt.predicted.si() - pt.measured.si()) / pt.measured.si())});
    }
    out += text_table(
        {"batch", "step measured", "step predicted", "per token measured", "per token predicted", "error"}, rows);
    out += fmt::format("\nknee (balance batch): predicted {}, measured {}\n", format_number(d.knee_predicted),
                       format_number(d.knee_measured));
  }
  return out;
}

}  // namespace llmecon
