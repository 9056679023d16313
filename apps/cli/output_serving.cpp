// The CLI's text for simulate and plan.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "output.hpp"
#include "text.hpp"

namespace llmecon::cli {

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

}  // namespace llmecon::cli
