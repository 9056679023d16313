// The CLI's text for validate, calibrate, measure and sweep.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "output.hpp"
#include "text.hpp"

namespace llmecon::cli {

int print_validation(const Json& v) {
  const Json& rows = v["rows"];
  std::vector<std::vector<std::string>> t;
  for (const auto& r : rows) {
    auto num = [](const Json& x) { return x.is_null() ? std::string("-") : format_number(x.get<double>()); };
    const std::string err = r["error_pct"].is_null() ? "-" : fmt::format("{:+.1f}%", r["error_pct"].get<double>());
    t.push_back({r["id"].get<std::string>(), r["metric"].get<std::string>(), num(r["predicted"]), num(r["measured"]),
                 err,
                 r["skipped"].get<bool>() ? "skipped: " + r["skip_reason"].get<std::string>()
                                          : r["envelope"].get<std::string>()});
  }
  table({"id", "metric", "predicted", "measured", "error", "envelope"}, t);
  // One row per key of a {key: {n, median_ape, p90_ape, max_ape}} object.
  auto ape_table = [](const char* key, const Json& o) {
    std::vector<std::vector<std::string>> cells;
    for (const auto& [k, m] : o.items()) {
      cells.push_back({k, std::to_string(m["n"].get<int>()), fmt::format("{:.1f}%", m["median_ape"].get<double>()),
                       fmt::format("{:.1f}%", m["p90_ape"].get<double>()),
                       fmt::format("{:.1f}%", m["max_ape"].get<double>())});
    }
    table({key, "n", "median", "p90", "max"}, cells);
  };
  out("\nsummary (absolute percentage error):\n");
  ape_table("metric", v["summary"]);
  if (!v["by_scenario"].empty()) {
    out("\nunder traffic, through the simulator and by the fixed-batch formula:\n");
    ape_table("scenario", v["by_scenario"]);
  }
  if (v.contains("training_fit")) {
    const Json& f = v["training_fit"];
    out(fmt::format(
        "\ntraining kernel efficiency fitted to {} rows from {} sources: {:.3f}, with MoE host time "
        "{:.0f} us per local expert (from {} MoE rows{}); median error in-sample "
        "{:.1f}%, 5-fold {:.1f}%, leave-one-source-out {:.1f}% (p90 {:.1f}%)\n",
        f["rows"].get<int>(), f["sources"].get<int>(), f["kernel_efficiency"].get<double>(),
        f["expert_host_us"].get<double>(), f["moe_rows"].get<int>(),
        f["settled"].get<bool>() ? "" : "; the fit did not settle", f["in_sample_median_ape"].get<double>(),
        f["kfold_median_ape"].get<double>(), f["loso_median_ape"].get<double>(), f["loso_p90_ape"].get<double>()));
  }
  if (v.contains("cross_validation")) {
    const Json& cv = v["cross_validation"];
    out(
        fmt::format("\ncross-validated: each chip's calibration predicting rows it did not fit ({}-fold; LOSO: "
                    "leave one source out), median / p90 absolute error:\n",
                    cv["folds"].get<int>()));
    auto c = [](const Json& x) {
      return x["n"].get<int>() == 0 ? std::string("-")
                                    : fmt::format("{:.1f}% / {:.1f}% ({})", x["median_ape"].get<double>(),
                                                  x["p90_ape"].get<double>(), x["n"].get<int>());
    };
    std::vector<std::vector<std::string>> cells;
    for (const auto& [scenario, x] : cv["by_scenario"].items())
      cells.push_back({scenario, c(x["default"]), c(x["in_sample"]), c(x["kfold"]), c(x["loso"])});
    table({"scenario", "default (rows)", "in-sample", "k-fold", "LOSO"}, cells);
    std::vector<std::vector<std::string>> chips;
    for (const auto& ch : cv["chips"]) {
      std::string fitted;
      for (const auto& f : ch["fitted"]) fitted += (fitted.empty() ? "" : ",") + f.get<std::string>();
      chips.push_back({ch["hardware"].get<std::string>(), std::to_string(ch["fitted_rows"].get<int>()),
                       std::to_string(ch["predicted_rows"].get<int>()), std::to_string(ch["sources"].get<int>()),
                       fitted});
    }
    out("\n");
    table({"chip", "rows fitted", "rows predicted", "sources", "fitted"}, chips);
    for (const auto& sk : cv["skipped"]) {
      out(fmt::format("not calibrated: {}: {}\n", sk["hardware"].get<std::string>(), sk["reason"].get<std::string>()));
    }
  }
  return 0;
}

int print_calibration(const Json& c) {
  out(fmt::format("calibrated {} on {} rows: in-sample median APE {:.1f}%, {}-fold cross-validated {:.1f}%\n\n",
                  c["hardware"].get<std::string>(), c["rows"].get<int>(), c["in_sample_median_ape"].get<double>(),
                  c["folds"].get<int>(), c["cv_median_ape"].get<double>()));
  out(c["toml"].get<std::string>());
  return 0;
}

int print_measure(const Json& m) {
  out(fmt::format("{} ({} threads)\n", m["cpu"].get<std::string>(), m["threads"].get<int>()));
  out(fmt::format("  memory bandwidth (triad)  {}\n",
                  format(units::bytes_per_s(m["stream_bytes_per_s"].get<double>()))));
  for (const auto& g : m["gemm"]) {
    out(fmt::format("  SGEMM {:>5}^3            {}\n", g["n"].get<int>(),
                    format(units::flop_per_s(g["flops_per_s"].get<double>()))));
  }
  out(fmt::format("  caches                    L1 {}  L2 {}  L3 {}\n", format(byt(m["l1_bytes"])),
                  format(byt(m["l2_bytes"])), format(byt(m["l3_bytes"]))));
  if (m.contains("decode")) {
    const Json& d = m["decode"];
    out(fmt::format("\ndecode sweep: {} layers, d = {}, {} of fp32 weights\n", d["layers"].get<int>(),
                    d["d_model"].get<int>(), format(byt(d["weight_bytes"]))));
    std::vector<std::vector<std::string>> rows;
    for (const auto& p : d["points"]) {
      rows.push_back({std::to_string(p["batch"].get<int>()), format(secs(p["measured_s"])),
                      format(secs(p["predicted_s"])), format(secs(p["measured_s_per_token"])),
                      format(secs(p["predicted_s_per_token"])), fmt::format("{:+.0f}%", p["error_pct"].get<double>())});
    }
    table({"batch", "step measured", "step predicted", "per token measured", "per token predicted", "error"}, rows);
    out(fmt::format("\nknee (balance batch): predicted {}, measured {}\n",
                    format_number(d["knee_predicted"].get<double>()), format_number(d["knee_measured"].get<double>())));
  }
  return 0;
}

int print_sweep(const Json& s) {
  const Json& rows = s["rows"];
  out(fmt::format("{} on {} x {}\n", s["model"].get<std::string>(), s["chips"].get<int>(),
                  s["hardware"].get<std::string>()));
  std::vector<std::vector<std::string>> t;
  for (const auto& r : rows) {
    t.push_back({format_number(r["batch"].get<double>()), format_number(r["context"].get<double>()),
                 format(secs(r["t_compute_s"])), format(secs(r["t_weights_s"])), format(secs(r["t_kv_s"])),
                 format(secs(r["t_step_s"])), r["bound"].get<std::string>(),
                 format(units::tokens_per_s(r["tokens_per_s"].get<double>())),
                 format_number(r["usd_per_mtok"].get<double>()), r["fits"].get<bool>() ? "yes" : "no"});
  }
  table({"batch", "context", "t_compute", "t_weights", "t_kv", "t_step", "bound", "tokens/s", "$/Mtok", "fits"}, t);
  return 0;
}

}  // namespace llmecon::cli
