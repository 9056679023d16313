// The JSON of the engine's common results (encode.hpp, facade.hpp): roofline points, analyses,
// efficiencies, quantiles and operator costs, and the CSV of rows (the keys docs/cli.md documents).
#include <array>
#include <cmath>
#include <utility>

#include "io/encode.hpp"
#include "io/facade.hpp"
#include "io/fields.hpp"

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

namespace {

// Writes each field as a JSON member, in order.
class JsonSink final : public FieldSink {
 public:
  explicit JsonSink(Json::object_t& o) : o_(o) {}
  void put(std::string_view key, const Field& v) override { o_.emplace_back(std::string(key), v.json()); }

 private:
  Json::object_t& o_;
};

Field whole_field(double v) {
  const Json j = whole_json(v);
  return j.is_number_integer() ? Field::integer(v) : Field::real(v);
}

}  // namespace

void roofline_fields(const RooflineResult& r, FieldSink& out) {
  const auto& in = r.in;
  const Json per_mw = tokens_per_mw_json(r.tokens_per_s, r.facility_power);
  static_assert(std::string_view(priced_tokens(Phase::kPrefill)) == "input" &&
                std::string_view(priced_tokens(Phase::kDecode)) == "output");
  const std::array<std::pair<std::string_view, Field>, 39> fields{{
      {"model", in.model ? Field::text_of(in.model->name) : Field{}},
      {"hardware", Field::text_of(in.hw->name)},
      {"chips", Field::integer(in.chips)},
      {"phase", Field::text_of(name(in.step.phase))},
      {"batch", whole_field(in.step.batch)},
      {"context", whole_field(in.step.cached + (in.step.phase == Phase::kPrefill ? in.step.new_tokens : 0.0))},
      {"new_tokens", whole_field(in.step.new_tokens)},
      {"weight_dtype", Field::text_of(name(in.precision.weights))},
      {"expert_dtype", Field::text_of(name(in.precision.experts))},
      {"act_dtype", Field::text_of(name(in.precision.act))},
      {"kv_dtype", Field::text_of(name(in.precision.kv))},
      {"flops", Field::real(r.cost.flops_total().si())},
      {"bytes_weights", Field::real(r.cost.weights.si())},
      {"bytes_kv_read", Field::real(r.cost.kv_read.si())},
      {"bytes_kv_write", Field::real(r.cost.kv_write.si())},
      {"t_compute_s", Field::real(r.t_compute.si())},
      {"t_weights_s", Field::real(r.t_weights.si())},
      {"t_kv_s", Field::real(r.t_kv.si())},
      {"t_overhead_s", Field::real(r.t_overhead.si())},
      {"t_busy_s", Field::real((r.in.eff.ideal() ? r.t_step : r.ops.busy).si())},
      {"kernels", whole_field(r.ops.kernels)},
      // Which step this is (docs/quantities.md): the chips as one pooled domain, calibrated or ideal.
      {"step_model", Field::text_of(r.in.eff.ideal() ? kStepIdealPooled : kStepCalibratedPooled)},
      {"t_step_s", Field::real(r.t_step.si())},
      {"t_upper_s", Field::real(r.t_upper.si())},
      {"bound", Field::text_of(name(r.bound))},
      {"tokens_per_s", Field::real(r.tokens_per_s.si())},
      // A price names the tokens it divides: a decode step's output tokens, a prefill pass's prompt.
      {in.step.phase == Phase::kPrefill ? "usd_per_mtok_input" : "usd_per_mtok_output",
       Field::real(r.usd_per_token.si() * 1e6)},
      {"mfu", Field::real(r.mfu)},
      {"hbm_utilization", Field::real(r.hbm_utilization)},
      {"board_power_w", Field::real(r.board_power.si())},
      {"facility_power_w", Field::real(r.facility_power.si())},
      {"joules_per_token", Field::real(r.energy_per_token.si())},
      {"tokens_per_s_per_mw", per_mw.is_number() ? Field::real(per_mw.get<double>()) : Field{}},
      {"arithmetic_intensity", Field::real(r.intensity.si())},
      {"mem_weights_bytes", Field::real(r.mem_weights.si())},
      {"mem_kv_bytes", Field::real(r.mem_kv.si())},
      {"mem_capacity_bytes", Field::real(r.mem_capacity.si())},
      {"feasible", Field::boolean(r.fits)},
      {"reason", r.fits ? Field{} : Field::text_of(r.fit_reason)},
  }};
  // An infeasible point (it does not fit) keeps its inputs, work and memory, and withholds every
  // price, throughput, duration and energy (docs/quantities.md). The keys' kinds, once: every call
  // lists the same keys but the price's, whose kind is the same.
  constexpr std::size_t kFields = std::tuple_size_v<decltype(fields)>;
  static const std::array<bool, kFields> withheld = [&fields] {
    std::array<bool, kFields> w{};
    for (std::size_t i = 0; i < fields.size(); ++i) w[i] = withheld_when_infeasible(key_kind(fields[i].first));
    return w;
  }();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].second.kind == Field::Kind::kNull && fields[i].first == "reason") continue;
    if (r.fits || !withheld[i]) out.put(fields[i].first, fields[i].second);
  }
}

Json to_json(const RooflineResult& r) {
  // Built key by key into reserved storage: this runs once per sweep row and per server request.
  Json out = Json::object();
  auto& o = out.get_ref<Json::object_t&>();
  o.reserve(38);
  JsonSink sink(o);
  roofline_fields(r, sink);
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

Json quantiles_json(const Quantiles& x) {
  Json out{{"p10", x.p10}, {"p50", x.p50}, {"p90", x.p90}};
  if (x.point) out["point"] = *x.point;
  if (x.point_rank) out["point_percentile"] = 100.0 * *x.point_rank;
  return out;
}

Json to_json(const OpCost& op, bool with_layer) {
  Json out{{"op", std::string(name(op.kind))},   {"flops", op.flops.si()},
           {"bytes_weights", op.weights.si()},   {"bytes_kv_read", op.kv_read.si()},
           {"bytes_kv_write", op.kv_write.si()}, {"bytes_act", op.act.si()}};
  if (with_layer) out["layer"] = op.layer;
  return out;
}

}  // namespace llmecon
