// JSON and CSV of the engine's typed results (the keys documented in docs/cli.md).
#include <cmath>

#include "commands/commands.hpp"
#include "io/facade.hpp"

namespace llmecon {

namespace {

Json cell_json(const Cell& c) {
  if (c.withheld) return Json(nullptr);
  return c.text ? Json(*c.text) : whole_json(c.value);
}

}  // namespace

Json efficiency_json(const Efficiency& e) {
  Json rows = Json::array();
  for (std::size_t i = 0; i < static_cast<std::size_t>(e.rows_n); ++i)
    rows.push_back(Json{{"rows", e.rows_m[i]}, {"compute", e.rows_compute[i]}});
  Json out = Json::object();
  for (const EfficiencyField& f : efficiency_fields()) out[f.json_key()] = f.si(e);
  out["rows_compute"] = std::move(rows);
  return out;
}

Json to_json(const RooflineResult& r) {
  const auto& in = r.in;
  // Built key by key into reserved storage: an initializer list makes every pair a JSON array
  // first, and this runs once per sweep row and per server request.
  Json out = Json::object();
  auto& o = out.get_ref<Json::object_t&>();
  o.reserve(38);
  // An infeasible point (it does not fit) keeps its inputs, work and memory, and withholds every
  // price, throughput, duration and energy (docs/quantities.md).
  auto put = [&o, fits = r.fits](const char* key, Json v) {
    if (!fits && withheld_when_infeasible(key_kind(key))) return;
    o.emplace_back(key, std::move(v));
  };
  put("model", in.model ? Json(in.model->name) : Json());
  put("hardware", in.hw->name);
  put("chips", in.chips);
  put("phase", std::string(name(in.step.phase)));
  put("batch", whole_json(in.step.batch));
  put("context", whole_json(in.step.cached + (in.step.phase == Phase::kPrefill ? in.step.new_tokens : 0.0)));
  put("new_tokens", whole_json(in.step.new_tokens));
  put("weight_dtype", std::string(name(in.precision.weights)));
  put("expert_dtype", std::string(name(in.precision.experts)));
  put("act_dtype", std::string(name(in.precision.act)));
  put("kv_dtype", std::string(name(in.precision.kv)));
  put("flops", r.cost.flops_total().si());
  put("bytes_weights", r.cost.weights.si());
  put("bytes_kv_read", r.cost.kv_read.si());
  put("bytes_kv_write", r.cost.kv_write.si());
  put("t_compute_s", r.t_compute.si());
  put("t_weights_s", r.t_weights.si());
  put("t_kv_s", r.t_kv.si());
  put("t_overhead_s", r.t_overhead.si());
  put("t_busy_s", (r.in.eff.ideal() ? r.t_step : r.ops.busy).si());
  put("kernels", whole_json(r.ops.kernels));
  // Which step this is (docs/quantities.md): the chips as one pooled domain, calibrated or ideal.
  put("step_model", r.in.eff.ideal() ? kStepIdealPooled : kStepCalibratedPooled);
  put("t_step_s", r.t_step.si());
  put("t_upper_s", r.t_upper.si());
  put("bound", std::string(name(r.bound)));
  put("tokens_per_s", r.tokens_per_s.si());
  // A price names the tokens it divides: a decode step's output tokens, a prefill pass's prompt.
  put((std::string("usd_per_mtok_") + priced_tokens(in.step.phase)).c_str(), r.usd_per_token.si() * 1e6);
  put("mfu", r.mfu);
  put("hbm_utilization", r.hbm_utilization);
  put("board_power_w", r.board_power.si());
  put("facility_power_w", r.facility_power.si());
  put("joules_per_token", r.energy_per_token.si());
  put("tokens_per_s_per_mw", tokens_per_mw_json(r.tokens_per_s, r.facility_power));
  put("arithmetic_intensity", r.intensity.si());
  put("mem_weights_bytes", r.mem_weights.si());
  put("mem_kv_bytes", r.mem_kv.si());
  put("mem_capacity_bytes", r.mem_capacity.si());
  put("feasible", r.fits);
  if (!r.fits) put("reason", r.fit_reason);
  return out;
}

Json to_json(const Analysis& a) {
  Json out{{"analysis", a.title}, {"feasible", a.feasible()}};
  if (!a.feasible()) out["reason"] = a.infeasible;
  if (!a.step_model.empty()) out["step_model"] = a.step_model;
  Json figs = Json::array();
  Json reasons = Json::object();
  for (const auto& f : a.figures) {
    // A figure without a finite value is null only with the reason the analysis gives for it.
    LLMECON_ASSERT(std::isfinite(f.value) || !f.reason.empty(), "a non-finite figure needs its reason");
    out[f.key] =
        std::isfinite(f.value) ? Json(f.unit == "bool" ? Json(f.value != 0) : whole_json(f.value)) : Json(nullptr);
    Json fig{{"key", f.key},
             {"value", std::isfinite(f.value) ? Json(f.value) : Json(nullptr)},
             {"unit", f.unit},
             {"label", f.label}};
    if (!std::isfinite(f.value)) {
      fig["reason"] = f.reason;
      reasons[f.key] = f.reason;
    }
    figs.push_back(std::move(fig));
  }
  for (const auto& t : a.tables) {
    Json rows = Json::array();
    for (const auto& r : t.rows) {
      Json row = Json::object();
      for (std::size_t i = 0; i < t.columns.size() && i < r.size(); ++i) {
        row[t.columns[i].key] = t.columns[i].unit == "bool" && !r[i].withheld ? Json(r[i].value != 0) : cell_json(r[i]);
      }
      rows.push_back(row);
    }
    out[t.key] = rows;
  }
  out["figures"] = figs;
  if (!reasons.empty()) out["reasons"] = reasons;
  Json units = Json::object();
  for (const auto& t : a.tables)
    for (const auto& c : t.columns) units[t.key + "." + c.key] = c.unit;
  out["table_units"] = units;
  Json labels = Json::object();
  for (const auto& t : a.tables) {
    if (!t.title.empty()) labels[t.key] = t.title;
    for (const auto& c : t.columns) {
      if (!c.label.empty()) labels[t.key + "." + c.key] = c.label;
    }
  }
  out["table_labels"] = labels;
  out["notes"] = a.notes;
  out["explain"] = a.derivation;
  return out;
}

}  // namespace llmecon
