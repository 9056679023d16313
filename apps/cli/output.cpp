#include "output.hpp"
#include "text.hpp"

#include "units/embedded.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

namespace llmecon::cli {

int print_models(const Json& models) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& m : models) {
    rows.push_back({m["name"], m.value("family", "?"), params(m.value("params_total", 0.0)),
                    params(m.value("params_active", 0.0)), std::to_string(m.value("layers", 0)),
                    m.value("moe", false) ? "moe" : "dense"});
  }
  table({"name", "family", "total", "active", "layers", "kind"}, rows);
  return 0;
}

int print_hardware(const Json& hw) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& h : hw) {
    const Json& c = h["flops_per_s"];
    auto rate = [&](const char* k) {
      return c.contains(k) ? format(units::flop_per_s(c[k].get<double>())) : std::string("-");
    };
    rows.push_back({h["name"], rate("bf16"), rate("fp8"), rate("fp4"), format(byt(h["hbm_bytes"])),
                    format(units::bytes_per_s(h["hbm_bytes_per_s"].get<double>())), format(secs(h["drain_time_s"])),
                    std::to_string(h["scaleup_domain"].get<int>()) + " " + h["scaleup_topology"].get<std::string>(),
                    fmt::format("${:.2f}", h["usd_per_hour"].get<double>())});
  }
  table({"name", "bf16", "fp8", "fp4", "HBM", "HBM bw", "drain", "scale-up", "$/chip-h"}, rows);
  return 0;
}

int print_model(const Json& m) {
  out(fmt::format("{} ({}), from {}\n", m["name"].get<std::string>(), m["family"].get<std::string>(),
                  m["origin"].get<std::string>()));
  out(fmt::format("  parameters      {} total, {} active ({} in matmuls), sparsity {}\n", params(m["params_total"]),
                  params(m["params_active"]), params(m["params_active_matmul"]),
                  format_number(m["sparsity"].get<double>(), 3)));
  std::string kinds;
  for (const auto& [k, v] : m["layer_kinds"].items())
    kinds += fmt::format("{}{} x {}", kinds.empty() ? "" : ", ", v.get<int>(), k);
  out(fmt::format("  layers          {} ({})\n", m["layers"].get<int>(), kinds));
  out(fmt::format("  attention       {}, {} heads, {} KV heads, head dim {}\n", m["attention"].get<std::string>(),
                  m["heads"].get<int>(), m["kv_heads"].get<int>(), m["head_dim"].get<int>()));
  if (m.contains("experts")) {
    out(fmt::format("  experts         {} routed, {} per token, FFN {}, shared FFN {}\n", m["experts"].get<int>(),
                    m["experts_per_token"].get<int>(), m["expert_ffn"].get<int>(), m["shared_ffn"].get<int>()));
  }
  out(fmt::format("  KV per token    {} at {}\n", format(units::bytes_per_token(m["kv_bytes_per_token"].get<double>())),
                  m["kv_dtype"].get<std::string>()));
  out(fmt::format("  weights         {} as released ({} dense, {} experts)\n", format(byt(m["weight_bytes_native"])),
                  m["native_weight_dtype"].get<std::string>(), m["native_expert_dtype"].get<std::string>()));
  if (m.contains("published")) {
    const Json& p = m["published"];
    out(fmt::format("  published       {} total{}  [{}]\n", params(p["total"]),
                    p["active"].get<double>() > 0 ? ", " + params(p["active"]) + " active" : std::string(),
                    p["source"].get<std::string>()));
  }
  return 0;
}

int print_roofline(const Json& r) {
  out(fmt::format("{} on {} x {}, {} batch {} context {} ({} weights, {} KV)\n", r["model"].get<std::string>(),
                  r["chips"].get<int>(), r["hardware"].get<std::string>(), r["phase"].get<std::string>(),
                  format_number(r["batch"].get<double>()), format_number(r["context"].get<double>()),
                  r["weight_dtype"].get<std::string>(), r["kv_dtype"].get<std::string>()));
  out(fmt::format("  t_compute   {}\n  t_weights   {}\n  t_kv        {}\n", format(secs(r["t_compute_s"])),
                  format(secs(r["t_weights_s"])), format(secs(r["t_kv_s"]))));
  if (r.value("t_overhead_s", 0.0) > 0) out(fmt::format("  t_overhead  {}\n", format(secs(r["t_overhead_s"]))));
  out(fmt::format("  t_step      {}  ({}-bound; no-overlap bound {})\n", format(secs(r["t_step_s"])),
                  r["bound"].get<std::string>(), format(secs(r["t_upper_s"]))));
  out(fmt::format("  throughput  {}   MFU {}%\n", format(units::tokens_per_s(r["tokens_per_s"].get<double>())),
                  format_number(100 * r["mfu"].get<double>(), 3)));
  // A price other than the catalog's rent says what it is.
  const std::string basis = r.value("price_source", std::string());
  const std::string priced = basis.rfind("owned", 0) == 0 ? ", " + basis
                             : basis == "--usd-per-hour"  ? ", at --usd-per-hour"
                                                          : std::string();
  out(fmt::format("  cost        ${}/Mtok{}\n", format_number(r["usd_per_mtok"].get<double>()), priced));
  if (r.value("facility_power_w", 0.0) > 0) {
    out(fmt::format("  energy      {:.3g} J/token at the facility ({} per board, {} for the domain)\n",
                    r["joules_per_token"].get<double>(), format(units::watts(r["board_power_w"].get<double>())),
                    format(units::watts(r["facility_power_w"].get<double>()))));
  }
  out(fmt::format(
      "  memory      {} weights + {} KV of {} HBM: {}\n", format(byt(r["mem_weights_bytes"])),
      format(byt(r["mem_kv_bytes"])), format(byt(r["mem_capacity_bytes"])),
      r["fits"].get<bool>() ? std::string("fits") : "DOES NOT FIT (" + r["fit_reason"].get<std::string>() + ")"));
  if (r.contains("range")) {
    const Json& g = r["range"];
    auto line = [&](const char* label, const Json& q, const std::function<std::string(double)>& show) {
      out(fmt::format("  {:<11} p10 {}  p50 {}  p90 {}\n", label, show(q["p10"].get<double>()),
                      show(q["p50"].get<double>()), show(q["p90"].get<double>())));
    };
    out(fmt::format("\nrange ({} samples over spec ranges and efficiency priors):\n", g["samples"].get<int>()));
    line("t_step", g["t_step_s"], [](double v) { return format(units::seconds(v)); });
    line("throughput", g["tokens_per_s"], [](double v) { return format(units::tokens_per_s(v)); });
    line("cost", g["usd_per_mtok"], [](double v) { return "$" + format_number(v) + "/Mtok"; });
  }
  if (r.contains("ops_by_kind")) {
    out("\noperators (summed over layers):\n");
    std::vector<std::vector<std::string>> rows;
    for (const auto& k : r["ops_by_kind"]) {
      rows.push_back({k["op"].get<std::string>(), format(units::flops(k["flops"].get<double>())),
                      format(byt(k["bytes_weights"])), format(byt(k["bytes_kv_read"])),
                      format(byt(k["bytes_kv_write"])), format(byt(k["bytes_act"]))});
    }
    table({"op", "FLOPs", "weights", "KV read", "KV write", "activations"}, rows);
  }
  if (r.contains("explain")) {
    out("\nderivation (docs/model.md):\n");
    for (const auto& l : r["explain"]) out("  " + l.get<std::string>() + "\n");
  }
  return 0;
}

int print_report(const Json& r) {
  const Json& rows = r["rows"];
  const Json& m = r["model"];
  const Json& h = r["hardware"];
  out(fmt::format("llmecon report: {} on {} x {} ({})\n\n", m["name"].get<std::string>(), h["chips"].get<int>(),
                  h["name"].get<std::string>(), h["display_name"].get<std::string>()));
  out(fmt::format("model     {} total, {} active parameters; KV {} per token ({}); weights {} at {}\n",
                  params(m["params_total"]), params(m["params_active"]),
                  format(units::bytes(m["kv_bytes_per_token"].get<double>())), r["kv_dtype"].get<std::string>(),
                  format(byt(r["rows"][0]["mem_weights_bytes"])), r["weight_dtype"].get<std::string>()));
  out(fmt::format("hardware  {} compute, {} HBM bandwidth, {} HBM, drain time {}, ${}/h\n",
                  format(units::flop_per_s(h["flops_per_s"].get<double>())),
                  format(units::bytes_per_s(h["hbm_bytes_per_s"].get<double>())), format(byt(h["hbm_bytes"])),
                  format(secs(h["drain_time_s"])), format_number(h["usd_per_hour"].get<double>())));
  out(fmt::format("memory    at {} tokens of context, at most {} sequences fit\n\n",
                  format_number(r["context"].get<double>()), format_number(r["max_batch_fits"].get<double>())));
  std::vector<std::vector<std::string>> t;
  for (const auto& row : rows) {
    t.push_back({format_number(row["batch"].get<double>()), format(secs(row["t_step_s"])),
                 row["bound"].get<std::string>(), format(units::tokens_per_s(row["tokens_per_s"].get<double>())),
                 format_number(row["usd_per_mtok"].get<double>()), format_number(100 * row["mfu"].get<double>(), 3),
                 row["fits"].get<bool>() ? "yes" : "no"});
  }
  table({"batch", "t_step", "bound", "tokens/s", "$/Mtok", "MFU %", "fits"}, t);
  out("\n");
  if (r["balance_batch"].is_null()) {
    out("balance   the step never turns compute-bound at this context: KV traffic outgrows compute\n");
  } else {
    out(fmt::format("balance   decode turns compute-bound at batch {} (F6)\n",
                    format_number(r["balance_batch"].get<double>())));
  }
  if (!r["best"].is_null()) {
    const Json& b = r["best"];
    out(fmt::format("cheapest  batch {}: ${}/Mtok, {} per step; unbatched (B=1) costs {}x more\n",
                    format_number(b["batch"].get<double>()), format_number(b["usd_per_mtok"].get<double>()),
                    format(secs(b["t_step_s"])), format_number(r["unbatched_penalty"].get<double>(), 3)));
  }
  return 0;
}

// Dollars per token at a scale a person reads: $/Mtok down to a cent, then per billion or per
// trillion tokens ($5.358e-06/Mtok reads $5.358/Ttok).
std::string money_per_tokens(double usd_per_mtok, const std::string& suffix) {
  if (usd_per_mtok == 0 || std::fabs(usd_per_mtok) >= 0.01) return "$" + format_number(usd_per_mtok) + "/Mtok" + suffix;
  if (std::fabs(usd_per_mtok) >= 1e-5) return "$" + format_number(usd_per_mtok * 1e3) + "/Gtok" + suffix;
  return "$" + format_number(usd_per_mtok * 1e6) + "/Ttok" + suffix;
}

std::string format_unit(double v, const std::string& unit) {
  if (unit == "s") return format(units::seconds(v));
  if (unit == "B") return format(units::bytes(v));
  if (unit == "B/s") return format(units::bytes_per_s(v));
  if (unit == "FLOP/s") return format(units::flop_per_s(v));
  if (unit == "FLOP") return format(units::flops(v));
  if (unit == "tok/s") return format(units::tokens_per_s(v));
  if (unit == "B/tok") return format(units::bytes_per_token(v));
  if (unit == "tok") return format(units::tokens(v));
  if (unit == "$/Mtok" || unit == "$/Mtok/h") return money_per_tokens(v, unit == "$/Mtok" ? "" : "/h");
  if (unit == "param") return params(v) + " params";
  if (unit == "$/h") return "$" + format_number(v) + "/h";
  if (unit == "x") return format_number(v) + "x";
  if (unit == "$") return "$" + format_number(v);
  if (unit == "W") return format(units::watts(v));
  if (unit == "day") return format_number(v) + " days";
  if (unit == "GPU-h" || unit == "MWh" || unit == "J/tok" || unit == "kWh") return format_number(v) + " " + unit;
  if (unit == "bool") return v != 0 ? "yes" : "no";
  return format_number(v);
}

namespace {
std::string cell_text(const Json& v, const std::string& unit) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_null()) return "-";
  return format_unit(v.get<double>(), unit);
}

void print_tables(const Json& a) {
  const Json& units = a.value("table_units", Json::object());
  const Json& labels = a.value("table_labels", Json::object());
  // A header a person reads: the table's label, else its key with spaces.
  auto label = [&labels](const std::string& key) {
    if (labels.contains(key)) return labels[key].get<std::string>();
    std::string s = key.substr(key.find('.') == std::string::npos ? 0 : key.find('.') + 1);
    std::replace(s.begin(), s.end(), '_', ' ');
    return s;
  };
  for (const auto& [key, val] : a.items()) {
    if (!val.is_array() || val.empty() || !val[0].is_object() || key == "figures") continue;
    out("\n" + label(key) + ":\n");
    std::vector<std::string> cols, header;
    for (const auto& [col, _] : val[0].items()) {
      cols.push_back(col);
      std::string path = key;
      path += "." + col;
      header.push_back(label(path));
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : val) {
      std::vector<std::string> row;
      row.reserve(cols.size());
      for (const auto& col : cols) {
        std::string unit_key = key;
        unit_key += "." + col;
        row.push_back(cell_text(r.value(col, Json()), units.value(unit_key, "")));
      }
      rows.push_back(row);
    }
    table(header, rows);
  }
}
// --range of an analysis (train, tco): each quantity's p10/p50/p90, in the unit its key names.
void print_range(const Json& g) {
  auto unit_of = [](const std::string& key) -> std::string {
    if (key == "usd") return "$";
    if (key == "days") return "day";
    if (key.rfind("usd_per_gpu_hour", 0) == 0) return "$/h";
    if (key.size() > 2 && key.compare(key.size() - 2, 2, "_s") == 0) return "s";
    return "";
  };
  out(fmt::format("\nrange ({} samples over spec ranges and priors):\n", g.value("samples", 0)));
  std::vector<std::vector<std::string>> rows;
  for (const auto& [key, q] : g.items()) {
    if (!q.is_object() || !q.contains("p10")) continue;
    const std::string unit = unit_of(key);
    std::string name = unit == "s" ? key.substr(0, key.size() - 2) : key;  // step_s reads "step"
    std::replace(name.begin(), name.end(), '_', ' ');
    rows.push_back({name, format_unit(q["p10"].get<double>(), unit), format_unit(q["p50"].get<double>(), unit),
                    format_unit(q["p90"].get<double>(), unit)});
  }
  table({"", "p10", "p50", "p90"}, rows);
}
}  // namespace

int print_analysis(const Json& a, bool explain) {
  std::string head = a.value("analysis", "");
  if (a.contains("model") && a.contains("hardware")) {
    head += fmt::format(": {} on {} x {}", a["model"].get<std::string>(), a["chips"].get<int>(),
                        a["hardware"].get<std::string>());
  } else if (a.contains("model")) {
    head += ": " + a["model"].get<std::string>();
  } else if (a.contains("hardware") && a.contains("chips")) {
    head += fmt::format(": {} x {}", format_number(a["chips"].get<double>()), a["hardware"].get<std::string>());
  }
  out(head + "\n\n");
  std::vector<std::vector<std::string>> rows;
  for (const auto& fig : a["figures"]) {
    rows.push_back(
        {fig["label"].get<std::string>().empty() ? fig["key"].get<std::string>() : fig["label"].get<std::string>(),
         fig["value"].is_null() ? "infinite" : format_unit(fig["value"].get<double>(), fig["unit"])});
  }
  std::size_t w = 0;
  for (const auto& r : rows) w = std::max(w, r[0].size());
  for (const auto& r : rows) out(fmt::format("  {:<{}}  {}\n", r[0], w, r[1]));
  print_tables(a);
  if (a.contains("range") && a["range"].is_object()) print_range(a["range"]);
  for (const auto& n : a["notes"]) out("\nnote: " + n.get<std::string>() + "\n");
  for (const char* sub : {"fast_mode", "inverse"}) {
    if (a.contains(sub)) {
      out("\n");
      print_analysis(a[sub], explain);
    }
  }
  if (explain) {
    out("\nderivation (docs/model.md):\n");
    for (const auto& l : a["explain"]) out("  " + l.get<std::string>() + "\n");
  }
  return 0;
}

int print_lecture(const Json& claims, bool explain) {
  auto value = [](const Json& v, const std::string& unit) {
    return v.is_string() ? v.get<std::string>() : format_unit(v.get<double>(), unit == "sequences" ? "" : unit);
  };
  std::vector<std::vector<std::string>> rows;
  int passed = 0;
  for (const auto& c : claims) {
    const std::string unit = c["unit"];
    passed += c["pass"].get<bool>() ? 1 : 0;
    rows.push_back({c["id"], c["pass"].get<bool>() ? "pass" : "FAIL", value(c["expected"], unit),
                    value(c["computed"], unit),
                    c["check"].get<std::string>() + " " + format_number(c["tolerance"].get<double>()), c["claim"]});
  }
  table({"id", "verdict", "lecture", "llmecon", "check", "claim"}, rows);
  out(fmt::format("\n{} of {} claims reproduced\n", passed, claims.size()));
  for (const auto& c : claims) {
    const bool has_real = !c["real"].empty();
    const bool has_fix = !c["corrected_note"].get<std::string>().empty();
    if (!explain && !has_real && !has_fix) continue;
    out(fmt::format("\n{} {}\n  inputs: {}\n", c["id"].get<std::string>(), c["claim"].get<std::string>(),
                    c["inputs"].get<std::string>()));
    if (has_fix) {
      out("  corrected: " + c["corrected_note"].get<std::string>() + "\n");
    }
    for (const auto& r : c["real"]) {
      out(fmt::format("  real: {} = {} ({})\n", r["label"].get<std::string>(), value(r["computed"], c["unit"]),
                      r["why"].get<std::string>()));
    }
    if (explain) {
      for (const auto& l : c["explain"]) out("    " + l.get<std::string>() + "\n");
    }
  }
  return 0;
}

}  // namespace llmecon::cli
