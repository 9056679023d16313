#include "output.hpp"

#include "llmecon/embedded.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

namespace llmecon::cli {
namespace {

void out(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
}

std::string params(double v) {
  if (v >= 1e12) return format_number(v / 1e12) + "T";
  if (v >= 1e9) return format_number(v / 1e9) + "B";
  return format_number(v / 1e6) + "M";
}

// A plain text table with columns padded to their widest cell.
void table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> w(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) w[i] = header[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto line = [&](const std::vector<std::string>& r) {
    std::string s;
    for (std::size_t i = 0; i < r.size(); ++i) s += fmt::format("{:<{}}", r[i], w[i] + 2);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out(s + "\n");
  };
  line(header);
  for (const auto& r : rows) line(r);
}

Seconds secs(const Json& v) {
  return units::seconds(v.get<double>());
}
Bytes byt(const Json& v) {
  return units::bytes(v.get<double>());
}

}  // namespace

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

int print_simulate(const Json& r) {
  if (r.contains("grid")) {
    // A grid prints one JSON line per point: shards concatenate into one file.
    for (const auto& row : r["grid"]["rows"]) out(row.dump() + "\n");
    return 0;
  }
  auto num = [&](const char* k) { return r[k].get<double>(); };
  std::string arrival = r["arrival"].get<std::string>();
  if (r.contains("rate")) arrival += fmt::format(" at {} req/s", format_number(r["rate"].get<double>()));
  if (r.contains("concurrency")) {
    arrival += fmt::format(", {} clients, think {}", r["concurrency"].get<int>(),
                           format(units::seconds(r["think_s"].get<double>())));
  }
  out(fmt::format("simulate: {} on {} replica(s) of {} x {} ({}), {} engine, {} scheduler\n",
                  r["model"].get<std::string>(), r["replicas"].get<int>(), r["chips_per_replica"].get<int>(),
                  r["hardware"].get<std::string>(), r["mapping"].get<std::string>(), r["engine"].get<std::string>(),
                  r["scheduler"].get<std::string>()));
  out(fmt::format("workload: {}; input {}, output {}; seed {}\n", arrival, r["isl"].get<std::string>(),
                  r["osl"].get<std::string>(), r["seed"].get<long>()));
  if (r.contains("found_rate")) {
    out(fmt::format("largest rate meeting the SLO: {} req/s ({} runs)\n", format_number(num("found_rate")),
                    r["tried"].size()));
  }
  out(fmt::format("\ncompleted {} of {} requests ({} dropped), {} counted: {}\n", r["completed"].get<long>(),
                  r["arrived"].get<long>(), r["dropped"].get<long>(), r["counted"].get<long>(),
                  r["rule"].get<std::string>()));
  for (const auto& d : r["drop_reasons"]) out("  dropped: " + d.get<std::string>() + "\n");
  out(fmt::format("throughput: {} req/s, {} output tok/s ({} per chip), {} input tok/s\n",
                  format_number(num("requests_per_s")), format_number(num("output_tokens_per_s")),
                  format_number(num("output_tokens_per_s_per_chip")), format_number(num("input_tokens_per_s"))));
  out(fmt::format("cost: ${}/Mtok output, ${}/Mtok blended, at the achieved rate\n",
                  format_number(num("usd_per_mtok_output")), format_number(num("usd_per_mtok"))));
  out(fmt::format("energy: {:.3g} J per output token, {:.3g} J per token processed, {} kWh in all\n\n",
                  num("joules_per_token_output"), num("joules_per_token"), format_number(num("energy_kwh"))));
  auto row = [&](const char* label, const char* key, bool ms) {
    const Json& d = r[key];
    auto show = [ms](double v) { return ms ? format_number(v) + " ms" : format(units::seconds(v)); };
    return std::vector<std::string>{label,
                                    show(d["mean"].get<double>()),
                                    show(d["p50"].get<double>()),
                                    show(d["p90"].get<double>()),
                                    show(d["p99"].get<double>()),
                                    show(d["max"].get<double>())};
  };
  table({"latency", "mean", "p50", "p90", "p99", "max"},
        {row("TTFT", "ttft_s", false), row("TPOT", "tpot_ms", true), row("ITL", "itl_ms", true),
         row("end to end", "e2e_s", false), row("queueing", "queue_s", false)});
  const Json& b = r["batch"];
  out(fmt::format("\nbatch per iteration: mean {}, p50 {}, p99 {}, max {} ({} iterations)\n",
                  format_number(b["mean"].get<double>()), format_number(b["p50"].get<double>()),
                  format_number(b["p99"].get<double>()), format_number(b["max"].get<double>()),
                  r["iterations"].get<long>()));
  out(fmt::format("KV cache: mean {:.0f}%, peak {:.0f}% of {} blocks; {} preemption(s)\n",
                  100 * r["kv_utilization"]["mean"].get<double>(), 100 * r["kv_utilization"]["max"].get<double>(),
                  r["kv_blocks"]["capacity"].get<long>(), r["preemptions"].get<long>()));
  if (num("prefix_hit_rate") > 0) {
    out(fmt::format("prefix cache: {:.1f}% of prompt tokens served from cache, ${} of prefill saved\n",
                    100 * num("prefix_hit_rate"), format_number(num("usd_saved_by_cache"))));
  }
  if (r["replica_completed"].size() > 1) {
    out(fmt::format("replicas: imbalance {:.1f}% (max over mean output tokens)\n", 100 * num("imbalance")));
  }
  if (!r["slo"].empty()) {
    out(fmt::format("\nSLO {}: goodput {} req/s\n", r["slo_met"].get<bool>() ? "met" : "missed",
                    format_number(num("goodput_requests_per_s"))));
    for (const auto& s : r["slo"]) {
      out(fmt::format("  {} p{}: {} against {} {}\n", s["metric"].get<std::string>(), s["percentile"].get<double>(),
                      format(units::seconds(s["observed_s"].get<double>())),
                      format(units::seconds(s["bound_s"].get<double>())), s["met"].get<bool>() ? "ok" : "MISSED"));
    }
  }
  out("\nassumed:\n");
  for (const auto& e : r["envelope"]) out("  " + e.get<std::string>() + "\n");
  return 0;
}

int print_plan(const Json& p) {
  const Json& fr = p["frontier"];
  out(fmt::format("plan: {} on {} x {} (scale-up domain {}), {} in / {} out tokens\n", p["model"].get<std::string>(),
                  p["chips"].get<int>(), p["hardware"].get<std::string>(), p["domain"].get<int>(),
                  format_number(p["isl"].get<double>()), format_number(p["osl"].get<double>())));
  if (const std::string basis = p.value("price_source", std::string());
      basis.rfind("owned", 0) == 0 || basis == "--usd-per-hour") {
    out("priced " + basis + "\n");
  }
  if (p.value("rank", std::string("throughput")) != "throughput") {
    out("ranked by " + p["rank"].get<std::string>() + " per token\n");
  }
  out(fmt::format("searched {} configurations: {} fit in memory, {} meet the SLO\n\n", p["evaluated"].get<long>(),
                  p["feasible"].get<long>(), p["meeting_slo"].get<long>()));
  auto row = [](const Json& pt) {
    return std::vector<std::string>{pt["mapping"].get<std::string>(),
                                    format_number(pt["batch"].get<double>()),
                                    pt["weight_dtype"].get<std::string>() + "/" + pt["kv_dtype"].get<std::string>() +
                                        (pt.value("quantized", false) ? " q" : ""),
                                    format_number(pt["tokens_per_s_per_chip"].get<double>()),
                                    format_number(pt["tokens_per_s_per_user"].get<double>()),
                                    format(units::seconds(pt["ttft_s"].get<double>())),
                                    format_number(pt["tpot_ms"].get<double>()) + " ms",
                                    "$" + format_number(pt["usd_per_mtok"].get<double>()),
                                    fmt::format("{:.3g}", pt["joules_per_token"].get<double>()),
                                    pt["bound_decode"].get<std::string>(),
                                    pt["meets_slo"].get<bool>() ? "yes" : "no"};
  };
  const std::vector<std::string> header{"mapping", "batch",  "w/kv",  "tok/s/chip", "tok/s/user", "TTFT",
                                        "TPOT",    "$/Mtok", "J/tok", "bound",      "SLO"};
  std::vector<std::vector<std::string>> rows;
  bool quantized = false;
  for (const auto& pt : fr) {
    rows.push_back(row(pt));
    quantized = quantized || pt.value("quantized", false);
  }
  out("Pareto frontier (tokens/s per chip against tokens/s per user):\n");
  table(header, rows);
  if (quantized) out("q: weights quantized below the checkpoint as released\n");
  if (p["best"].is_null()) {
    out("\nbest: none (" + p["empty_reason"].get<std::string>() + ")\n");
  } else {
    out("\nbest under the SLO:\n");
    table(header, {row(p["best"])});
  }
  if (p.contains("best_range")) {
    const Json& g = p["best_range"];
    auto q = [](const Json& x, const std::function<std::string(double)>& show) {
      return fmt::format("p10 {}  p50 {}  p90 {}", show(x["p10"].get<double>()), show(x["p50"].get<double>()),
                         show(x["p90"].get<double>()));
    };
    out(fmt::format("\nbest, range over spec ranges and efficiency priors ({} samples):\n", g["samples"].get<int>()));
    out("  tok/s/chip  " + q(g["tokens_per_s_per_chip"], [](double v) { return format_number(v); }) + "\n");
    out("  TPOT        " + q(g["tpot_ms"], [](double v) { return format_number(v) + " ms"; }) + "\n");
    out("  TTFT        " + q(g["ttft_s"], [](double v) { return format(units::seconds(v)); }) + "\n");
    out("  $/Mtok out  " + q(g["usd_per_mtok_output"], [](double v) { return "$" + format_number(v); }) + "\n");
  }
  if (!p["rejected"].empty()) {
    out("\nrejected:\n");
    for (const auto& [k, v] : p["rejected"].items()) out(fmt::format("  {:>8}  {}\n", v.get<long>(), k));
  }
  if (p.contains("capacity")) {
    const Json& c = p["capacity"];
    out(fmt::format("\ncapacity at {} req/s (SLO at p99, {} layouts simulated):\n",
                    format_number(c["rate"].get<double>()), c["simulated_layouts"].get<int>()));
    std::vector<std::vector<std::string>> cap_rows;
    for (const auto& o : c["options"]) {
      cap_rows.push_back({o["mapping"].get<std::string>(), format_number(o["rate_per_replica"].get<double>()),
                          format_number(o["replicas"].get<double>()), format_number(o["chips"].get<double>()),
                          "$" + format_number(o["usd_per_hour"].get<double>()),
                          "$" + format_number(o["usd_per_mtok_output"].get<double>()),
                          format(units::seconds(o["ttft_s_p99"].get<double>())),
                          format_number(o["tpot_ms_p99"].get<double>()) + " ms"});
    }
    table({"replica", "req/s each", "replicas", "chips", "$/h", "$/Mtok out", "TTFT p99", "TPOT p99"}, cap_rows);
  }
  if (p.contains("scaleup")) {
    out("\nscale-up domain sizes:\n");
    std::vector<std::vector<std::string>> s;
    for (const auto& r : p["scaleup"]) {
      if (r["best"].is_null()) {
        s.push_back({std::to_string(r["domain"].get<int>()), "-", "-", "-", "-", "-", "-",
                     r["empty_reason"].get<std::string>()});
      } else {
        const Json& b = r["best"];
        const Json& f = r["fabric_usd_per_chip_hour"];
        s.push_back({std::to_string(r["domain"].get<int>()), b["mapping"].get<std::string>(),
                     format_number(b["tokens_per_s_per_chip"].get<double>()),
                     format_number(b["tpot_ms"].get<double>()) + " ms",
                     f.is_null() ? std::string("-") : "$" + format_number(f.get<double>()) + "/h",
                     "$" + format_number(b["usd_per_mtok"].get<double>()),
                     fmt::format("{:.3g}", b["joules_per_token"].get<double>()), ""});
      }
    }
    table({"domain", "best mapping", "tok/s/chip", "TPOT", "fabric/chip", "$/Mtok", "J/tok", "note"}, s);
  }
  if (p.contains("launch")) {
    const Json& l = p["launch"];
    out("\nlaunch (" + l["engine"].get<std::string>() + ", " + l["mapping"].get<std::string>() + " at batch " +
        format_number(l["batch"].get<double>()) + "):\n" + l["text"].get<std::string>());
  }
  return 0;
}

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
