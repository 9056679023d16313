// The facade: JSON arguments in, JSON results out (docs/cli.md lists the keys).
#include "llmecon/facade.hpp"

#include "llmecon/economics.hpp"
#include "llmecon/lecture.hpp"
#include "llmecon/measure.hpp"
#include "llmecon/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <set>

namespace llmecon {
namespace {

// Whole counts print as integers ("batch": 64), others as numbers.
Json count(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9e15) return static_cast<long long>(v);
  return v;
}

std::string flag(const std::string& key) {
  std::string f = "--" + key;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

Result<bool> only_keys(const Json& args, std::initializer_list<const char*> allowed) {
  if (!args.is_object()) return Error{"request", "", "expected a JSON object of arguments", ""};
  for (const auto& [k, v] : args.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + flag(a);
      return Error{flag(k), "", "unknown argument", "known: " + list};
    }
  }
  return true;
}

Result<std::string> get_string(const Json& args, const char* key, bool required, std::string fallback = "") {
  if (!args.contains(key) || args[key].is_null()) {
    if (required) return Error{flag(key), "", "is required", ""};
    return fallback;
  }
  if (!args[key].is_string()) return Error{flag(key), "", "expected a string", ""};
  return args[key].get<std::string>();
}

// --model is a built-in name, a path to a config.json, or (from the server and Python) the
// config.json object itself, as pasted into the web page.
Result<ModelSpec> get_model(const ModelCatalog& cat, const Json& args, bool required, const std::string& fallback = "") {
  if (args.contains("model") && args["model"].is_object()) {
    const Json& cfg = args["model"];
    std::string name = "pasted-config";
    const char* key = cfg.contains("_name_or_path") ? "_name_or_path" : "model_type";
    if (cfg.contains(key) && cfg[key].is_string()) {
      name = cfg[key].get<std::string>();
      if (auto slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      name = name.empty() ? "pasted-config" : "pasted:" + name;
    }
    return parse_model_config(cfg.dump(), "--model", name);
  }
  auto n = get_string(args, "model", required, fallback);
  if (!n) return n.error();
  return cat.resolve(*n, "--model");
}

// A boolean argument: absent or null is false; anything but true/false is an error.
Result<bool> get_bool(const Json& args, const char* key) {
  if (!args.contains(key) || args[key].is_null()) return false;
  if (!args[key].is_boolean()) return Error{flag(key), "", "expected true or false, got " + args[key].dump(), ""};
  return args[key].get<bool>();
}

// A boolean argument that is present and true.
bool get_flag(const Json& args, const char* key) {
  return args.contains(key) && args[key].is_boolean() && args[key].get<bool>();
}

Result<double> get_number(const Json& args, const char* key, double fallback, double min_value, bool integer) {
  if (!args.contains(key) || args[key].is_null()) return fallback;
  const Json& v = args[key];
  if (!v.is_number()) return Error{flag(key), "", "expected a number, got " + v.dump(), ""};
  const double x = v.get<double>();
  if (!std::isfinite(x)) return Error{flag(key), "", "must be finite", ""};
  if (integer && x != std::floor(x)) return Error{flag(key), "", "expected a whole number, got " + v.dump(), ""};
  if (integer && x > 2e9) return Error{flag(key), "", "must be at most 2e9, got " + v.dump(), "counts are chips, sequences or tokens"};
  if (x < min_value) {
    return Error{flag(key), "", fmt::format("must be at least {}, got {}", format_number(min_value), v.dump()),
                 "sizes and counts are positive"};
  }
  return x;
}

Result<DType> get_dtype(const Json& args, const char* key, DType fallback) {
  auto s = get_string(args, key, false);
  if (!s) return s.error();
  if (s->empty()) return fallback;
  auto d = parse_dtype(*s);
  if (!d) return d.error().at(flag(key));
  return *d;
}

#define TRY(var, expr)                  \
  auto var##_r = (expr);                \
  if (!var##_r) return var##_r.error(); \
  auto var = std::move(var##_r).value()

constexpr std::initializer_list<const char*> kRooflineKeys = {
    "model", "hw", "chips", "phase", "batch", "context", "chunk", "weight_dtype", "expert_dtype", "act_dtype",
    "kv_dtype", "expert_touch", "ops", "ideal", "range", "explain"};

// Everything roofline needs, resolved; the model is owned here.
struct Resolved {
  ModelSpec model;
  const Hardware* hw = nullptr;
  RooflineInput in;
};

Result<Resolved> resolve(const Engine& e, const Json& args, const Json& batch_override = Json(),
                         const Json& context_override = Json()) {
  Resolved r;
  TRY(model, get_model(e.model_catalog(), args, true));
  r.model = std::move(model);
  TRY(hw_name, get_string(args, "hw", true));
  TRY(hw, e.hardware_catalog().get(hw_name, "--hw"));
  r.hw = hw;
  TRY(chips, get_number(args, "chips", hw->domain_size, 1, true));
  TRY(phase_s, get_string(args, "phase", false, "decode"));
  Phase phase;
  if (phase_s == "decode") {
    phase = Phase::kDecode;
  } else if (phase_s == "prefill") {
    phase = Phase::kPrefill;
  } else {
    return Error{"--phase", "", "unknown phase '" + phase_s + "'", "use decode or prefill"};
  }
  Json a = args;
  if (!batch_override.is_null()) a["batch"] = batch_override;
  if (!context_override.is_null()) a["context"] = context_override;
  TRY(batch, get_number(a, "batch", 1, 1, true));
  TRY(context, get_number(a, "context", phase == Phase::kDecode ? 4096 : 4096, phase == Phase::kDecode ? 0 : 1, true));
  Step step;
  step.phase = phase;
  step.batch = batch;
  if (phase == Phase::kDecode) {
    step.new_tokens = 1;
    step.cached = context;
  } else {
    TRY(chunk, get_number(a, "chunk", context, 1, true));
    if (chunk > context) return Error{"--chunk", "", "must not exceed --context", "the chunk is the last part of the prompt"};
    step.new_tokens = chunk;
    step.cached = context - chunk;
  }
  Precision native = Precision::native(r.model);
  TRY(wd, get_dtype(args, "weight_dtype", native.weights));
  // One --weight-dtype sets experts too unless --expert-dtype says otherwise.
  const bool weight_given = args.contains("weight_dtype") && !args["weight_dtype"].is_null();
  TRY(ed, get_dtype(args, "expert_dtype", weight_given ? wd : native.experts));
  TRY(ad, get_dtype(args, "act_dtype", weight_given ? wd : native.act));
  TRY(kd, get_dtype(args, "kv_dtype", native.kv));
  TRY(touch_s, get_string(args, "expert_touch", false, "expected"));
  ExpertTouch touch;
  if (touch_s == "expected") {
    touch = ExpertTouch::kExpected;
  } else if (touch_s == "all") {
    touch = ExpertTouch::kAll;
  } else {
    return Error{"--expert-touch", "", "unknown value '" + touch_s + "'", "use expected or all"};
  }
  r.in.hw = hw;
  r.in.chips = static_cast<int>(chips);
  r.in.step = step;
  r.in.precision = Precision{wd, ed, ad, kd};
  r.in.touch = touch;
  const bool ideal = get_flag(args, "ideal");
  r.in.eff = ideal ? Efficiency{} : e.efficiency(*hw);
  return r;
}

}  // namespace

Result<Engine> Engine::open(const std::vector<std::string>& hw_files, const std::vector<std::string>& price_files) {
  Engine e;
  TRY(hw, HardwareCatalog::builtin());
  e.hw_ = std::move(hw);
  for (const auto& f : hw_files) {
    TRY(ok, e.hw_.add_file(f));
    (void)ok;
  }
  TRY(models, ModelCatalog::builtin());
  e.models_ = std::move(models);
  TRY(families, builtin_efficiency());
  e.families_ = std::move(families);
  TRY(prices, PriceCatalog::builtin());
  e.prices_ = std::move(prices);
  for (const auto& f : price_files) {
    TRY(ok, e.prices_.add_file(f));
    (void)ok;
  }
  return e;
}

Json Engine::models() const {
  Json out = Json::array();
  for (const auto& e : models_.entries()) {
    auto m = models_.load(e.name);
    Json row{{"name", e.name}, {"source", e.source}};
    if (m) {
      row["family"] = m->family;
      row["params_total"] = m->params_total();
      row["params_active"] = m->params_active();
      row["layers"] = m->n_layers();
      row["moe"] = m->is_moe();
    } else {
      row["error"] = m.error().message();
    }
    out.push_back(row);
  }
  return out;
}

Json Engine::hardware() const {
  Json out = Json::array();
  for (const auto& h : hw_.all()) {
    Json compute = Json::object();
    for (std::size_t i = 0; i < kDTypeCount; ++i) {
      if (h.compute[i]) compute[std::string(kDTypeNames[i])] = h.compute[i]->value.si();
    }
    Json tiers = Json::array();
    for (const auto& t : h.host_tiers) {
      tiers.push_back({{"name", t.name},
                       {"capacity_bytes", t.capacity.si()},
                       {"bandwidth_bytes_per_s", t.bandwidth.si()},
                       {"usd_per_hour", t.price.si() * 3600.0}});
    }
    out.push_back({{"name", h.name},
                   {"display_name", h.display_name},
                   {"vendor", h.vendor},
                   {"year", h.year},
                   {"status", h.status},
                   {"flops_per_s", compute},
                   {"hbm_bytes", h.hbm_capacity.value.si()},
                   {"hbm_bytes_per_s", h.hbm_bandwidth.value.si()},
                   {"drain_time_s", h.drain_time().si()},
                   {"scaleup_domain", h.domain_size},
                   {"scaleup_topology", std::string(name(h.topology))},
                   {"scaleup_bytes_per_s", h.scale_up.bandwidth.si()},
                   {"scaleout_bytes_per_s", h.scale_out.bandwidth.si()},
                   {"host_tiers", tiers},
                   {"tdp_w", h.tdp.si()},
                   {"usd_per_hour", h.price.value.si() * 3600.0},
                   {"usd_per_hour_range", {h.price.low().si() * 3600.0, h.price.high().si() * 3600.0}},
                   {"sources", h.sources},
                   {"origin", h.origin}});
  }
  return out;
}

Result<Json> Engine::model_show(const Json& args) const {
  TRY(ok, only_keys(args, {"model", "kv_dtype"}));
  (void)ok;
  TRY(m, get_model(models_, args, true));
  TRY(kv, get_dtype(args, "kv_dtype", DType::kBf16));
  Json layers = Json::object();
  for (const auto& l : m.layers) {
    const std::string key = std::string(name(l.mixer)) + (l.moe ? "+moe" : "");
    layers[key] = layers.value(key, 0) + 1;
  }
  Json out{{"name", m.name},
           {"family", m.family},
           {"origin", m.origin},
           {"params_total", m.params_total()},
           {"params_active", m.params_active()},
           {"params_active_matmul", m.params_active_matmul()},
           {"params_embedding", m.params_embedding()},
           {"sparsity", m.sparsity()},
           {"layers", m.n_layers()},
           {"layer_kinds", layers},
           {"d_model", m.d_model},
           {"vocab", m.vocab},
           {"attention", m.attn.kind == AttentionKind::kMla ? "mla" : (m.attn.kv_heads == m.attn.heads ? "mha" : (m.attn.kv_heads == 1 ? "mqa" : "gqa"))},
           {"heads", m.attn.heads},
           {"kv_heads", m.attn.kv_heads},
           {"head_dim", m.attn.head_dim},
           {"kv_dtype", std::string(name(kv))},
           {"kv_bytes_per_token", m.kv_bytes_per_token(kv).si()},
           {"native_weight_dtype", std::string(name(m.native_weight_dtype))},
           {"native_expert_dtype", std::string(name(m.native_expert_dtype))},
           {"weight_bytes_native", m.weight_bytes(m.native_weight_dtype, m.native_expert_dtype).si()},
           {"max_context", m.max_context}};
  if (m.is_moe()) {
    out["experts"] = m.moe.experts;
    out["experts_per_token"] = m.moe.top_k;
    out["expert_ffn"] = m.moe.expert_ffn;
    out["shared_ffn"] = m.moe.shared_ffn;
  }
  if (const ModelEntry* e = models_.entry(m.name)) {
    out["source"] = e->source;
    out["published"] = {{"total", e->published.total}, {"active", e->published.active}, {"source", e->published.source}};
  }
  return out;
}

Result<RooflineResult> Engine::evaluate(const Json& args) const {
  TRY(ok, only_keys(args, kRooflineKeys));
  (void)ok;
  TRY(res, resolve(*this, args));
  res.in.model = &res.model;
  TRY(r, llmecon::roofline(res.in));
  // The result must not point into `res`; detach the model pointer for callers.
  r.in.model = nullptr;
  return r;
}

Json to_json(const RooflineResult& r) {
  const auto& in = r.in;
  // Built key by key into reserved storage: an initializer list makes every pair a JSON array
  // first, and this runs once per sweep row and per server request.
  Json out = Json::object();
  auto& o = out.get_ref<Json::object_t&>();
  o.reserve(31);
  auto put = [&o](const char* key, Json v) { o.emplace_back(key, std::move(v)); };
  put("model", in.model ? Json(in.model->name) : Json());
  put("hardware", in.hw->name);
  put("chips", in.chips);
  put("phase", std::string(name(in.step.phase)));
  put("batch", count(in.step.batch));
  put("context", count(in.step.cached + (in.step.phase == Phase::kPrefill ? in.step.new_tokens : 0.0)));
  put("new_tokens", count(in.step.new_tokens));
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
  put("t_step_s", r.t_step.si());
  put("t_upper_s", r.t_upper.si());
  put("bound", std::string(name(r.bound)));
  put("tokens_per_s", r.tokens_per_s.si());
  put("usd_per_mtok", r.usd_per_token.si() * 1e6);
  put("mfu", r.mfu);
  put("arithmetic_intensity", r.intensity.si());
  put("mem_weights_bytes", r.mem_weights.si());
  put("mem_kv_bytes", r.mem_kv.si());
  put("mem_capacity_bytes", r.mem_capacity.si());
  put("fits", r.fits);
  put("fit_reason", r.fit_reason);
  return out;
}

Result<Json> Engine::roofline(const Json& args) const {
  TRY(ok, only_keys(args, kRooflineKeys));
  (void)ok;
  TRY(res, resolve(*this, args));
  res.in.model = &res.model;
  TRY(r, llmecon::roofline(res.in));
  Json out = to_json(r);
  if (get_flag(args, "explain")) out["explain"] = explain(r);
  if (get_flag(args, "range")) {
    // p10/p50/p90 over spec ranges and efficiency priors (model.md §21); the pure roofline keeps
    // only the catalog's ranges.
    const bool ideal = get_flag(args, "ideal");
    Uncertainty u;
    if (ideal) u = Uncertainty{0, 0, 1, 1, true};
    const RooflineRange rr = roofline_range(res.in, u);
    auto q = [](const Quantiles& x) { return Json{{"p10", x.p10}, {"p50", x.p50}, {"p90", x.p90}}; };
    out["range"] = {{"samples", rr.samples},
                    {"t_step_s", q(rr.t_step_s)},
                    {"tokens_per_s", q(rr.tokens_per_s)},
                    {"usd_per_mtok", q(rr.usd_per_mtok)}};
  }
  if (args.contains("ops") && args["ops"].is_boolean() && args["ops"].get<bool>()) {
    // Per layer and operator (model.md §4), and the same summed by operator kind.
    const StepCost detail = step_cost(res.model, res.in.step, res.in.precision, res.in.touch, true);
    Json ops = Json::array();
    std::vector<OpCost> by_kind(kOpKindCount);
    for (const auto& op : detail.ops) {
      ops.push_back({{"layer", op.layer}, {"op", std::string(name(op.kind))}, {"flops", op.flops.si()},
                     {"bytes_weights", op.weights.si()}, {"bytes_kv_read", op.kv_read.si()},
                     {"bytes_kv_write", op.kv_write.si()}, {"bytes_act", op.act.si()}});
      OpCost& k = by_kind[static_cast<std::size_t>(op.kind)];
      k.kind = op.kind;
      k.flops += op.flops;
      k.weights += op.weights;
      k.kv_read += op.kv_read;
      k.kv_write += op.kv_write;
      k.act += op.act;
    }
    Json kinds = Json::array();
    for (std::size_t i = 0; i < kOpKindCount; ++i) {
      const OpCost& k = by_kind[i];
      if (k.flops.si() == 0 && k.weights.si() == 0 && k.kv_read.si() == 0 && k.kv_write.si() == 0) continue;
      kinds.push_back({{"op", std::string(name(static_cast<OpKind>(i)))}, {"flops", k.flops.si()},
                       {"bytes_weights", k.weights.si()}, {"bytes_kv_read", k.kv_read.si()},
                       {"bytes_kv_write", k.kv_write.si()}, {"bytes_act", k.act.si()}});
    }
    out["ops_by_kind"] = kinds;
    out["ops"] = ops;
  }
  return out;
}

Result<Json> Engine::sweep(const Json& args, const Progress& progress) const {
  TRY(ok, only_keys(args, kRooflineKeys));
  (void)ok;
  auto as_list = [&](const char* key, double fallback) -> Result<std::vector<Json>> {
    std::vector<Json> out;
    if (!args.contains(key) || args[key].is_null()) {
      out.emplace_back(fallback);
    } else if (args[key].is_array()) {
      if (args[key].empty()) return Error{flag(key), "", "the list is empty", "give at least one value"};
      for (const auto& v : args[key]) out.push_back(v);
    } else {
      out.push_back(args[key]);
    }
    return out;
  };
  TRY(batches, as_list("batch", 1));
  TRY(contexts, as_list("context", 4096));
  if (batches.size() * contexts.size() > 100000) {
    return Error{"--batch", "", fmt::format("{} x {} = {} rows; at most 100000", batches.size(), contexts.size(),
                                            batches.size() * contexts.size()),
                 "use geometric ranges (1:16384:x2) or fewer contexts"};
  }
  Json base = args;
  base.erase("batch");
  base.erase("context");
  TRY(res, resolve(*this, base, batches.front(), contexts.front()));
  Json rows = Json::array();
  const double total = static_cast<double>(contexts.size() * batches.size());
  for (const auto& c : contexts) {
    for (const auto& b : batches) {
      if (progress) progress(static_cast<double>(rows.size()) / total);
      TRY(one, resolve(*this, base, b, c));
      one.in.model = &res.model;  // parsed once
      TRY(r, llmecon::roofline(one.in));
      rows.push_back(to_json(r));
    }
  }
  if (progress) progress(1.0);
  return Json{{"model", res.model.name}, {"hardware", res.hw->name}, {"chips", res.in.chips}, {"rows", rows}};
}

Result<Json> Engine::report(const Json& args) const {
  TRY(ok, only_keys(args, kRooflineKeys));
  (void)ok;
  Json base = args;
  base.erase("batch");
  TRY(res, resolve(*this, base));
  res.in.model = &res.model;
  const RooflineInput in0 = res.in;
  auto at = [&](double b) {
    RooflineInput in = in0;
    in.step.batch = b;
    return roofline_unchecked(in);
  };
  TRY(show, model_show(Json{{"model", args.at("model")}, {"kv_dtype", std::string(name(in0.precision.kv))}}));
  const Hardware& hw = *res.hw;
  const double n = in0.chips;
  Json hardware{{"name", hw.name},
                {"display_name", hw.display_name},
                {"chips", in0.chips},
                {"flops_per_s", (hw.peak(wider(in0.precision.weights, in0.precision.act)) * n).si()},
                {"hbm_bytes_per_s", (hw.hbm_bandwidth.value * n).si()},
                {"hbm_bytes", (hw.hbm_capacity.value * n).si()},
                {"drain_time_s", hw.drain_time().si()},
                {"usd_per_hour", hw.price.value.si() * 3600.0 * n}};
  // Largest batch whose weights and KV fit in the domain's HBM (F21).
  const RooflineResult one = at(1);
  const double kv_seq = one.mem_kv.si();
  const double free_bytes = one.mem_capacity.si() - one.mem_weights.si();
  const double max_batch = free_bytes <= 0 ? 0.0 : std::floor(free_bytes / kv_seq);
  // Balance batch: the smallest B whose step is compute-bound (F6), by bisection.
  Json balance = nullptr;
  if (at(1e7).bound == Bound::kCompute) {
    double lo = 1, hi = 1e7;
    if (at(1).bound == Bound::kCompute) hi = 1;
    while (hi - lo > 1) {
      const double mid = std::floor((lo + hi) / 2);
      (at(mid).bound == Bound::kCompute ? hi : lo) = mid;
    }
    balance = count(hi);
  }
  Json rows = Json::array();
  double best_cost = std::numeric_limits<double>::infinity();
  Json best = nullptr;
  for (double b = 1; b <= 65536; b *= 2) {
    const RooflineResult r = at(b);
    Json row = to_json(r);
    rows.push_back(row);
    if (r.fits && r.usd_per_token.si() < best_cost) {
      best_cost = r.usd_per_token.si();
      best = row;
    }
    if (!r.fits && b > 1) break;
  }
  Json out{{"model", show},
           {"hardware", hardware},
           {"phase", std::string(name(in0.step.phase))},
           {"context", count(in0.step.cached + (in0.step.phase == Phase::kPrefill ? in0.step.new_tokens : 0.0))},
           {"weight_dtype", std::string(name(in0.precision.weights))},
           {"kv_dtype", std::string(name(in0.precision.kv))},
           {"max_batch_fits", count(max_batch)},
           {"balance_batch", balance},
           {"best", best},
           {"unbatched_penalty", best.is_null() ? Json(nullptr) : Json(one.usd_per_token.si() / best_cost)},
           {"rows", rows}};
  return out;
}

std::string to_csv(const std::vector<Json>& rows) {
  if (rows.empty()) return "";
  std::vector<std::string> keys;
  for (const auto& [k, v] : rows.front().items()) {
    if (v.is_primitive()) keys.push_back(k);
  }
  auto cell = [](const Json& v) -> std::string {
    if (v.is_string()) {
      std::string s = v.get<std::string>();
      if (s.find_first_of(",\"\n") == std::string::npos) return s;
      std::string q = "\"";
      for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      return q + "\"";
    }
    if (v.is_null()) return "";
    return v.dump();
  };
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) out += (i ? "," : "") + keys[i];
  out += "\n";
  for (const auto& r : rows) {
    for (std::size_t i = 0; i < keys.size(); ++i) out += (i ? "," : "") + cell(r.value(keys[i], Json()));
    out += "\n";
  }
  return out;
}

}  // namespace llmecon

// ---------------------------------------------------------------------------------------------
// The blackboard analyses

namespace llmecon {
namespace {

Json cell_json(const Cell& c) { return c.text ? Json(*c.text) : count(c.value); }

constexpr std::initializer_list<const char*> kBoardKeys = {"model",     "hw",        "chips",    "weight_dtype",
                                                           "expert_dtype", "act_dtype", "kv_dtype"};

// Rejects keys outside the board keys and `extra`.
Result<bool> only_board_keys(const Json& args, std::initializer_list<const char*> extra) {
  if (!args.is_object()) return Error{"request", "", "expected a JSON object of arguments", ""};
  for (const auto& [k, v] : args.items()) {
    bool ok = false;
    for (const char* a : kBoardKeys) ok = ok || k == a;
    for (const char* a : extra) ok = ok || k == a;
    if (!ok) {
      std::string list;
      for (const char* a : kBoardKeys) list += (list.empty() ? "" : ", ") + flag(a);
      for (const char* a : extra) list += ", " + flag(a);
      return Error{flag(k), "", "unknown argument", "known: " + list};
    }
  }
  return true;
}

struct BoardArgs {
  ModelSpec model;
  Board board;
};

Result<BoardArgs> board_args(const Engine& e, const Json& args) {
  BoardArgs out;
  TRY(model, get_model(e.model_catalog(), args, false, "deepseek-v3"));
  out.model = std::move(model);
  TRY(hw_name, get_string(args, "hw", false, "gb200"));
  TRY(hw, e.hardware_catalog().get(hw_name, "--hw"));
  TRY(chips, get_number(args, "chips", hw->domain_size, 1, true));
  if (chips > hw->domain_size) {
    return Error{"--chips", "", fmt::format("{} chips exceed the {}-chip scale-up domain of {}", chips, hw->domain_size, hw->name),
                 "the blackboard analyses pool one scale-up domain"};
  }
  const Precision native = Precision::native(out.model);
  TRY(wd, get_dtype(args, "weight_dtype", native.weights));
  const bool weight_given = args.contains("weight_dtype") && !args["weight_dtype"].is_null();
  TRY(ed, get_dtype(args, "expert_dtype", weight_given ? wd : native.experts));
  TRY(ad, get_dtype(args, "act_dtype", weight_given ? wd : native.act));
  TRY(kd, get_dtype(args, "kv_dtype", native.kv));
  out.board = board_from(out.model, *hw, static_cast<int>(chips), Precision{wd, ed, ad, kd});
  return out;
}

Json with_board(Json j, const Board& b) {
  Json out{{"model", b.model}, {"hardware", b.hardware}, {"chips", b.chips}};
  for (auto& [k, v] : j.items()) out[k] = v;
  return out;
}

}  // namespace

Json to_json(const Analysis& a) {
  Json out{{"analysis", a.title}};
  Json figs = Json::array();
  for (const auto& f : a.figures) {
    out[f.key] = std::isfinite(f.value) ? Json(f.unit == "bool" ? Json(f.value != 0) : count(f.value)) : Json(nullptr);
    figs.push_back({{"key", f.key}, {"value", std::isfinite(f.value) ? Json(f.value) : Json(nullptr)},
                    {"unit", f.unit}, {"label", f.label}});
  }
  for (const auto& t : a.tables) {
    Json rows = Json::array();
    for (const auto& r : t.rows) {
      Json row = Json::object();
      for (std::size_t i = 0; i < t.columns.size() && i < r.size(); ++i) row[t.columns[i].key] = cell_json(r[i]);
      rows.push_back(row);
    }
    out[t.key] = rows;
  }
  out["figures"] = figs;
  Json units = Json::object();
  for (const auto& t : a.tables)
    for (const auto& c : t.columns) units[t.key + "." + c.key] = c.unit;
  out["table_units"] = units;
  out["notes"] = a.notes;
  out["explain"] = a.derivation;
  return out;
}

Result<Json> Engine::batch(const Json& args) const {
  TRY(ok, only_board_keys(args, {"context", "price_multiple", "speed_multiple"}));
  (void)ok;
  TRY(b, board_args(*this, args));
  TRY(ctx, get_number(args, "context", 0, 0, false));
  Json out = to_json(batch_analysis(b.board, ctx));
  const bool fast = args.contains("price_multiple") || args.contains("speed_multiple");
  if (fast) {
    TRY(p, get_number(args, "price_multiple", 6, 1, false));
    TRY(s, get_number(args, "speed_multiple", 2.5, 1, false));
    out["fast_mode"] = to_json(fast_mode_analysis(b.board, ctx, p, s));
  }
  out["context"] = count(ctx);
  return with_board(out, b.board);
}

Result<Json> Engine::step(const Json& args) const {
  TRY(ok, only_board_keys(args, {"batch", "context", "provider_tokens_per_s"}));
  (void)ok;
  TRY(b, board_args(*this, args));
  TRY(ctx, get_number(args, "context", 0, 0, false));
  const double bstar = b.board.R() * b.board.S();
  TRY(batch, get_number(args, "batch", std::ceil(2.5 * bstar), 1, false));
  TRY(provider, get_number(args, "provider_tokens_per_s", 5e8, 0, false));
  return with_board(to_json(step_analysis(b.board, batch, ctx, provider)), b.board);
}

Result<Json> Engine::context(const Json& args) const {
  TRY(ok, only_board_keys(args, {"batch", "knee", "topk", "index_bytes", "sqrt_block"}));
  (void)ok;
  TRY(b, board_args(*this, args));
  TRY(batch, get_number(args, "batch", std::ceil(2.5 * b.board.R() * b.board.S()), 1, false));
  TRY(knee, get_number(args, "knee", 0, 0, false));
  TRY(topk, get_number(args, "topk", 2048, 1, true));
  TRY(ib, get_number(args, "index_bytes", 128, 0, false));
  TRY(block, get_number(args, "sqrt_block", 64, 1, true));
  return with_board(to_json(context_analysis(b.board, batch, knee, topk, ib, block)), b.board);
}

Result<Json> Engine::price(const Json& args) const {
  TRY(ok, only_board_keys(args, {"context", "batch", "sheet", "n_active"}));
  (void)ok;
  TRY(b, board_args(*this, args));
  TRY(ctx, get_number(args, "context", 8192, 1, false));
  TRY(batch, get_number(args, "batch", std::ceil(2.5 * b.board.R() * b.board.S()), 1, false));
  Json out = with_board(to_json(price_forward(b.board, ctx, batch)), b.board);
  TRY(sheet_name, get_string(args, "sheet", false));
  if (!sheet_name.empty()) {
    const PriceSheet* s = prices_.find(sheet_name);
    if (s == nullptr) {
      std::vector<std::string> names;
      for (const auto& p : prices_.all()) names.push_back(p.model);
      return Error{"--sheet", "", "unknown price sheet '" + sheet_name + "'",
                   "known: " + closest_names(sheet_name, names) + "; add one with --price-file"};
    }
    TRY(na, get_number(args, "n_active", b.board.n_active, 1, false));
    Json inv = to_json(price_inverse(*s, b.board, na));
    inv["sources"] = s->sources;
    out["inverse"] = inv;
  }
  return out;
}

Result<Json> Engine::layout(const Json& args) const {
  TRY(ok, only_board_keys(args, {"context", "micro_batch", "racks", "stages", "layers_per_stage", "hop_ms"}));
  (void)ok;
  TRY(b, board_args(*this, args));
  TRY(ctx, get_number(args, "context", 8192, 0, false));
  TRY(mb, get_number(args, "micro_batch", std::ceil(b.board.R() * b.board.S()), 1, false));
  TRY(racks, get_number(args, "racks", 2, 1, true));
  TRY(stages, get_number(args, "stages", 4, 1, true));
  TRY(lps, get_number(args, "layers_per_stage", 1, 1, true));
  TRY(hop, get_number(args, "hop_ms", 2, 0, false));
  Board board = b.board;
  board.hop_latency = units::ms(hop);
  return with_board(to_json(layout_analysis(board, ctx, mb, static_cast<int>(racks), static_cast<int>(stages),
                                            static_cast<int>(lps))),
                    board);
}

Result<Json> Engine::cache(const Json& args) const {
  TRY(ok, only_board_keys(args, {"hold_s"}));
  (void)ok;
  TRY(b, board_args(*this, args));
  std::vector<double> holds{1, 10, 60, 300, 1800, 3600, 6 * 3600.0, 86400};
  if (args.contains("hold_s") && !args["hold_s"].is_null()) {
    holds.clear();
    const Json& h = args["hold_s"];
    for (const auto& v : h.is_array() ? h : Json::array({h})) {
      if (!v.is_number() || v.get<double>() <= 0) return Error{"--hold-s", "", "hold times are positive seconds", ""};
      holds.push_back(v.get<double>());
    }
  }
  return with_board(to_json(cache_analysis(b.board, holds)), b.board);
}

Result<Json> Engine::lifecycle(const Json& args) const {
  TRY(ok, only_keys(args, {"model", "n_active", "traffic_tokens_per_s", "lifetime_days", "models", "rl_multiplier",
                           "rl_inefficiency", "inference_inefficiency", "policy"}));
  (void)ok;
  LifecycleInputs in;
  if (args.contains("model") && !args["model"].is_null()) {
    TRY(m, get_model(models_, args, true));
    in.n_active = m.params_active_matmul();
  }
  TRY(na, get_number(args, "n_active", in.n_active, 1, false));
  TRY(tr, get_number(args, "traffic_tokens_per_s", in.traffic_tokens_per_s, 0, false));
  TRY(days, get_number(args, "lifetime_days", in.lifetime_s / 86400, 0, false));
  TRY(mods, get_number(args, "models", in.models_sharing_traffic, 1, false));
  TRY(rlm, get_number(args, "rl_multiplier", in.rl_multiplier, 0, false));
  TRY(rli, get_number(args, "rl_inefficiency", in.rl_inefficiency, 1, false));
  TRY(ii, get_number(args, "inference_inefficiency", in.inference_inefficiency, 1, false));
  TRY(policy, get_string(args, "policy", false, "thirds"));
  if (policy != "thirds" && policy != "half") return Error{"--policy", "", "unknown policy '" + policy + "'", "use thirds or half"};
  if (rlm < 2 || rlm > 6) return Error{"--rl-multiplier", "", "must lie in [2, 6]", "2 = rollouts only, 6 = train on all (F25)"};
  in.n_active = na;
  in.traffic_tokens_per_s = tr;
  in.lifetime_s = days * 86400;
  in.models_sharing_traffic = mods;
  in.rl_multiplier = rlm;
  in.rl_inefficiency = rli;
  in.inference_inefficiency = ii;
  in.policy = policy;
  return to_json(lifecycle_analysis(in));
}

Result<Json> Engine::revnet(const Json& args) const {
  TRY(ok, only_keys(args, {"model", "batch", "seq_len", "act_dtype"}));
  (void)ok;
  TRY(m, get_model(models_, args, false, "deepseek-v3"));
  TRY(batch, get_number(args, "batch", 8, 1, true));
  TRY(seq, get_number(args, "seq_len", 4096, 1, true));
  TRY(act, get_dtype(args, "act_dtype", DType::kBf16));
  Json out = to_json(revnet_analysis(m, batch, seq, act));
  out["model"] = m.name;
  return out;
}

Result<Json> Engine::lecture(const Json& args) const {
  TRY(ok, only_keys(args, {}));
  (void)ok;
  TRY(claims, lecture_claims(hw_, models_));
  Json out = Json::array();
  for (const auto& c : claims) {
    const bool text = c.check == Check::kEqual;
    Json real = Json::array();
    for (const auto& r : c.real) {
      real.push_back({{"label", r.label}, {"computed", r.text.empty() ? Json(r.computed) : Json(r.text)}, {"why", r.why}});
    }
    out.push_back({{"id", c.id},
                   {"claim", c.claim},
                   {"expected", text ? Json(c.expected_text) : Json(c.expected)},
                   {"computed", text ? Json(c.computed_text) : Json(c.computed)},
                   {"unit", c.unit},
                   {"tolerance", c.tolerance},
                   {"check", std::string(name(c.check))},
                   {"pass", c.pass},
                   {"inputs", c.inputs},
                   {"corrected", c.corrected ? Json(*c.corrected) : Json(nullptr)},
                   {"corrected_note", c.corrected_note},
                   {"real", real},
                   {"source", c.source},
                   {"explain", c.derivation}});
  }
  return out;
}

namespace {

// Every command by name, in the order the CLI lists them: run() dispatches through it and
// commands() lists it, so the two cannot disagree.
struct Command {
  const char* name;
  Result<Json> (*run)(const Engine&, const Json&, const Progress&);
};
constexpr Command kCommands[] = {
    {"models", [](const Engine& e, const Json&, const Progress&) -> Result<Json> { return e.models(); }},
    {"hardware", [](const Engine& e, const Json&, const Progress&) -> Result<Json> { return e.hardware(); }},
    {"model", [](const Engine& e, const Json& a, const Progress&) { return e.model_show(a); }},
    {"roofline", [](const Engine& e, const Json& a, const Progress&) { return e.roofline(a); }},
    {"sweep", [](const Engine& e, const Json& a, const Progress& p) { return e.sweep(a, p); }},
    {"report", [](const Engine& e, const Json& a, const Progress&) { return e.report(a); }},
    {"batch", [](const Engine& e, const Json& a, const Progress&) { return e.batch(a); }},
    {"step", [](const Engine& e, const Json& a, const Progress&) { return e.step(a); }},
    {"context", [](const Engine& e, const Json& a, const Progress&) { return e.context(a); }},
    {"price", [](const Engine& e, const Json& a, const Progress&) { return e.price(a); }},
    {"layout", [](const Engine& e, const Json& a, const Progress&) { return e.layout(a); }},
    {"cache", [](const Engine& e, const Json& a, const Progress&) { return e.cache(a); }},
    {"lifecycle", [](const Engine& e, const Json& a, const Progress&) { return e.lifecycle(a); }},
    {"revnet", [](const Engine& e, const Json& a, const Progress&) { return e.revnet(a); }},
    {"lecture", [](const Engine& e, const Json& a, const Progress&) { return e.lecture(a); }},
    {"plan", [](const Engine& e, const Json& a, const Progress& p) { return e.plan(a, p); }},
    {"validate", [](const Engine& e, const Json& a, const Progress&) { return e.validate(a); }},
    {"calibrate", [](const Engine& e, const Json& a, const Progress&) { return e.calibrate(a); }},
    {"measure", [](const Engine& e, const Json& a, const Progress&) { return e.measure(a); }},
};

}  // namespace

Result<Json> Engine::run(const std::string& command, const Json& args, const Progress& progress) const {
  for (const Command& c : kCommands) {
    if (command == c.name) return c.run(*this, args, progress);
  }
  std::string list;
  for (const auto& c : commands()) list += (list.empty() ? "" : ", ") + c;
  return Error{"command", "", "unknown command '" + command + "'", "one of " + list};
}

const std::vector<std::string>& Engine::commands() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Command& c : kCommands) out.emplace_back(c.name);
    return out;
  }();
  return names;
}


namespace {

Json point_json(const PlanPoint& p) {
  return Json{{"tp", p.map.tp},
              {"pp", p.map.pp},
              {"ep", p.map.ep},
              {"dp", p.map.dp},
              {"dp_attn", p.map.dp_attn},
              {"cp", p.map.cp},
              {"mapping", p.map.str()},
              {"batch", count(p.batch)},
              {"weight_dtype", std::string(name(p.weights))},
              {"kv_dtype", std::string(name(p.kv))},
              {"tokens_per_s_per_chip", p.decode.tokens_per_s_per_chip.si()},
              {"tokens_per_s_per_user", p.decode.tokens_per_s_per_user.si()},
              {"ttft_s", p.prefill.latency.si()},
              {"tpot_ms", p.decode.latency.si() * 1e3},
              {"usd_per_mtok", p.usd_per_token.si() * 1e6},
              {"usd_per_mtok_input", p.input_usd_per_token.si() * 1e6},
              {"usd_per_mtok_output", p.decode.usd_per_token.si() * 1e6},
              {"bound_decode", std::string(p.decode.bound)},
              {"bound_prefill", std::string(p.prefill.bound)},
              {"mem_per_chip_bytes", p.decode.memory.total().si()},
              {"meets_slo", p.meets_slo},
              {"prefill_mapping", p.prefill_map ? Json(p.prefill_map->str()) : Json(nullptr)},
              {"kv_transfer_s", p.kv_transfer.si()}};
}

Json plan_json(const PlanResult& r, std::size_t frontier_max) {
  Json frontier = Json::array();
  // Keep the frontier readable: an even thinning when it is longer than asked.
  const std::size_t n = r.frontier.size();
  const std::size_t stride = frontier_max > 0 && n > frontier_max ? (n + frontier_max - 1) / frontier_max : 1;
  for (std::size_t i = 0; i < n; i += stride) frontier.push_back(point_json(r.frontier[i]));
  if (n > 0 && (n - 1) % stride != 0) frontier.push_back(point_json(r.frontier.back()));
  Json rejected = Json::object();
  for (const auto& [k, v] : r.rejected) rejected[k] = v;
  // The ten best distinct mappings under the SLO, each at its best batch and formats.
  Json top = Json::array();
  std::vector<std::string> seen;
  for (const auto& pt : r.ranked) {
    const std::string key = pt.map.str();
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    top.push_back(point_json(pt));
    if (top.size() == 10) break;
  }
  return Json{{"evaluated", r.evaluated},
              {"feasible", r.feasible},
              {"meeting_slo", r.meeting_slo},
              {"frontier", frontier},
              {"best", r.best ? point_json(*r.best) : Json(nullptr)},
              {"top", top},
              {"rejected", rejected},
              {"empty_reason", r.empty_reason}};
}

Result<std::vector<DType>> dtype_list(const Json& args, const char* key) {
  std::vector<DType> out;
  if (!args.contains(key) || args[key].is_null()) return out;
  const Json& v = args[key];
  for (const auto& e : v.is_array() ? v : Json::array({v})) {
    if (!e.is_string()) return Error{flag(key), "", "expected format names", "e.g. bf16,fp8"};
    auto d = parse_dtype(e.get<std::string>());
    if (!d) return d.error().at(flag(key));
    out.push_back(*d);
  }
  return out;
}

}  // namespace

Result<Json> Engine::plan(const Json& args, const Progress& progress) const {
  TRY(ok, only_keys(args, {"model", "hw", "chips", "racks", "isl", "osl", "ttft_ms", "tpot_ms", "max_usd_per_mtok",
                           "scaleup", "weight_dtypes", "kv_dtypes", "overlap", "threads", "spec_acceptance",
                           "spec_draft", "frontier_max", "batches", "prefill_hw", "prefill_chips", "ideal", "range"}));
  (void)ok;
  TRY(model, get_model(models_, args, false, "deepseek-v3"));
  TRY(hw_name, get_string(args, "hw", false, "gb200"));
  TRY(hw, hw_.get(hw_name, "--hw"));
  PlanRequest rq;
  rq.model = &model;
  rq.hw = hw;
  const bool ideal = get_flag(args, "ideal");
  rq.eff = ideal ? Efficiency{} : efficiency(*hw);
  if (args.contains("chips") && args.contains("racks")) {
    return Error{"--racks", "", "give --chips or --racks, not both", ""};
  }
  TRY(racks, get_number(args, "racks", 0, 1, true));
  TRY(chips, get_number(args, "chips", racks > 0 ? racks * hw->domain_size : hw->domain_size, 1, true));
  if (chips > 1e6) return Error{"--chips", "", "more than a million chips", ""};
  rq.chips = static_cast<int>(chips);
  TRY(isl, get_number(args, "isl", 2048, 1, true));
  TRY(osl, get_number(args, "osl", 256, 1, true));
  rq.isl = isl;
  rq.osl = osl;
  for (const char* k : {"ttft_ms", "tpot_ms", "max_usd_per_mtok"}) {
    if (args.contains(k) && !args[k].is_null()) {
      TRY(v, get_number(args, k, 0, 0, false));
      if (v <= 0) return Error{flag(k), "", "an SLO must be positive, got " + args[k].dump(), "no deployment can meet it"};
      if (std::string(k) == "ttft_ms") rq.ttft = units::ms(v);
      if (std::string(k) == "tpot_ms") rq.tpot = units::ms(v);
      if (std::string(k) == "max_usd_per_mtok") rq.max_cost = units::usd_per_mtok(v);
    }
  }
  TRY(wd, dtype_list(args, "weight_dtypes"));
  TRY(kd, dtype_list(args, "kv_dtypes"));
  rq.weight_dtypes = wd;
  rq.kv_dtypes = kd;
  TRY(overlap, get_number(args, "overlap", 0, 0, false));
  if (overlap > 1) return Error{"--overlap", "", "a fraction in [0, 1]", ""};
  rq.overlap = overlap;
  TRY(threads, get_number(args, "threads", 1, 1, true));
  rq.threads = static_cast<int>(std::min(threads, 64.0));
  rq.progress = progress;
  TRY(acc, get_number(args, "spec_acceptance", 0, 0, false));
  if (acc >= 1) return Error{"--spec-acceptance", "", "an acceptance rate in [0, 1)", ""};
  TRY(draft, get_number(args, "spec_draft", 0, 0, true));
  rq.spec_acceptance = acc;
  rq.spec_draft = static_cast<int>(draft);
  TRY(fmax, get_number(args, "frontier_max", 0, 0, true));
  TRY(phw_name, get_string(args, "prefill_hw", false));
  if (!phw_name.empty() || args.contains("prefill_chips")) {
    TRY(phw, hw_.get(phw_name.empty() ? hw_name : phw_name, "--prefill-hw"));
    TRY(pchips, get_number(args, "prefill_chips", phw->domain_size, 1, true));
    rq.prefill_hw = phw;
    rq.prefill_chips = static_cast<int>(pchips);
  }
  if (args.contains("batches") && args["batches"].is_array()) {
    for (const auto& b : args["batches"]) {
      if (!b.is_number() || b.get<double>() < 1) return Error{"--batches", "", "batches are at least 1", ""};
      rq.batches.push_back(b.get<double>());
    }
  }
  Json out{{"model", model.name}, {"hardware", hw->name}, {"chips", rq.chips}, {"domain", hw->domain_size},
           {"prefill_pool", rq.prefill_hw ? Json{{"hardware", rq.prefill_hw->name}, {"chips", rq.prefill_chips}} : Json(nullptr)},
           {"isl", count(isl)}, {"osl", count(osl)}};
  Json slo = Json::object();
  if (rq.ttft) slo["ttft_ms"] = rq.ttft->si() * 1e3;
  if (rq.tpot) slo["tpot_ms"] = rq.tpot->si() * 1e3;
  if (rq.max_cost) slo["max_usd_per_mtok"] = rq.max_cost->si() * 1e6;
  out["slo"] = slo;
  const PlanResult main = llmecon::plan(rq);
  const Json planned = plan_json(main, static_cast<std::size_t>(fmax));
  for (const auto& [k, v] : planned.items()) out[k] = v;
  if (main.best && get_flag(args, "range")) {
    // p10/p50/p90 of the best deployment over spec ranges and efficiency priors (model.md §21).
    const PlanPoint& b = *main.best;
    Uncertainty u;
    if (ideal) u = Uncertainty{0, 0, 1, 1, true};
    std::mt19937_64 rng(1);
    std::vector<double> tpc, tpot, ttft, usd;
    for (int i = 0; i < 200; ++i) {
      const Hardware h = sample_hardware(*hw, u, rng);
      DeploymentInput in;
      in.model = &model;
      in.hw = &h;
      in.map = b.map;
      in.precision = Precision::with_weights(model, b.weights, b.weights, b.kv);
      in.overlap = rq.overlap;
      in.eff = sample_efficiency(rq.eff, u, rng);
      const double tps = rq.spec_draft > 0 ? speculative_tokens_per_step(rq.spec_acceptance, rq.spec_draft) : 1.0;
      const PhaseResult d = evaluate_decode(in, b.batch, rq.isl + rq.osl / 2, tps, rq.spec_draft > 0 ? rq.spec_draft + 1.0 : 1.0);
      const PhaseResult p = evaluate_prefill(in, 1, rq.isl);
      tpc.push_back(d.tokens_per_s_per_chip.si());
      tpot.push_back(d.latency.si() * 1e3);
      ttft.push_back(p.latency.si() + b.kv_transfer.si());
      usd.push_back(d.usd_per_token.si() * 1e6);
    }
    auto q = [](const Quantiles& x) { return Json{{"p10", x.p10}, {"p50", x.p50}, {"p90", x.p90}}; };
    out["best_range"] = {{"samples", 200},
                         {"tokens_per_s_per_chip", q(quantiles(tpc))},
                         {"tpot_ms", q(quantiles(tpot))},
                         {"ttft_s", q(quantiles(ttft))},
                         {"usd_per_mtok_output", q(quantiles(usd))}};
  }
  if (args.contains("scaleup") && !args["scaleup"].is_null()) {
    Json rows = Json::array();
    const Json& s = args["scaleup"];
    for (const auto& dv : s.is_array() ? s : Json::array({s})) {
      if (!dv.is_number_integer() || dv.get<long long>() < 1 || dv.get<long long>() > 1000000) {
        return Error{"--scaleup", "", "domain sizes are whole chips, 1 to 10^6", "e.g. 8,72,576"};
      }
      PlanRequest r2 = rq;
      r2.domain = dv.get<int>();
      r2.chips = dv.get<int>();
      const PlanResult pr = llmecon::plan(r2);
      rows.push_back({{"domain", r2.domain},
                      {"chips", r2.chips},
                      {"best", pr.best ? point_json(*pr.best) : Json(nullptr)},
                      {"meeting_slo", pr.meeting_slo},
                      {"empty_reason", pr.empty_reason}});
    }
    out["scaleup"] = rows;
  }
  return out;
}


Efficiency Engine::efficiency(const Hardware& hw, std::string* source) const {
  return efficiency_for(hw, families_, source);
}

namespace {

Result<std::vector<Measurement>> read_measurements(const Json& args, std::string& dir) {
  TRY(file, get_string(args, "file", true));
  TRY(text, read_text_file(file, "give the path of a measurement CSV (schema: shared/validation/README.md)"));
  dir = std::filesystem::path(file).parent_path().string();
  return read_validation_csv(text, file);
}

}  // namespace

Result<Json> Engine::validate(const Json& args) const {
  TRY(ok, only_keys(args, {"file", "ideal"}));
  (void)ok;
  std::string dir;
  TRY(rows, read_measurements(args, dir));
  ValidationContext ctx;
  ctx.hw = &hw_;
  ctx.models = &models_;
  ctx.csv_dir = dir;
  const bool ideal = get_flag(args, "ideal");
  if (!ideal) ctx.efficiency = [this](const Hardware& h) { return efficiency(h); };
  const ValidationReport rep = llmecon::validate(rows, ctx);
  Json out_rows = Json::array();
  for (const auto& r : rep.rows) {
    out_rows.push_back({{"id", r.id},
                        {"metric", r.metric},
                        {"scenario", r.scenario},
                        {"hardware", r.hardware},
                        {"predicted", r.predicted ? Json(*r.predicted) : Json(nullptr)},
                        {"measured", r.measured},
                        {"error_pct", r.error_pct ? Json(*r.error_pct) : Json(nullptr)},
                        {"envelope", r.envelope},
                        {"skipped", !r.skip_reason.empty()},
                        {"skip_reason", r.skip_reason}});
  }
  Json summary = Json::object();
  for (const auto& [metric, s] : rep.summary) {
    summary[metric] = {{"n", s.n}, {"median_ape", s.median_ape}, {"p90_ape", s.p90_ape}, {"max_ape", s.max_ape}};
  }
  return Json{{"file", args["file"]}, {"efficiency", ideal ? "ideal" : "calibrated defaults"}, {"rows", out_rows},
              {"summary", summary}};
}

Result<Json> Engine::calibrate(const Json& args) const {
  TRY(ok, only_keys(args, {"file", "hw", "folds"}));
  (void)ok;
  std::string dir;
  TRY(rows, read_measurements(args, dir));
  TRY(hw_name, get_string(args, "hw", true));
  TRY(hw, hw_.get(hw_name, "--hw"));
  TRY(folds, get_number(args, "folds", 5, 2, true));
  ValidationContext ctx;
  ctx.hw = &hw_;
  ctx.models = &models_;
  ctx.csv_dir = dir;
  ctx.efficiency = [this](const Hardware& h) { return efficiency(h); };
  TRY(cal, llmecon::calibrate(rows, ctx, hw->name, static_cast<int>(folds)));
  return Json{{"hardware", cal.hardware},
              {"rows", cal.rows},
              {"folds", cal.folds},
              {"in_sample_median_ape", cal.in_sample_median_ape},
              {"cv_median_ape", cal.cv_median_ape},
              {"efficiency",
               {{"compute", cal.eff.compute},
                {"gemm_half_m", cal.eff.gemm_half_m},
                {"memory", cal.eff.memory},
                {"comm", cal.eff.comm},
                {"step_overhead_s", cal.eff.step_overhead.si()},
                {"layer_overhead_s", cal.eff.layer_overhead.si()}}},
              {"toml", cal.toml}};
}


Result<Json> Engine::measure(const Json& args) const {
  TRY(ok, only_keys(args, {"decode", "quick", "d_model", "layers", "threads"}));
  (void)ok;
  TRY(quick, get_bool(args, "quick"));
  TRY(decode, get_bool(args, "decode"));
  MeasureOptions mo;
  TRY(threads, get_number(args, "threads", 0, 0, true));
  mo.threads = static_cast<int>(threads);
  if (quick) {
    mo.stream_bytes = 64e6;
    mo.gemm_sizes = {256, 512};
    mo.repeats = 2;
  }
  const MachineProfile p = measure_machine(mo);
  Json gemm = Json::array();
  for (const auto& g : p.gemm_sizes) gemm.push_back({{"n", g.n}, {"flops_per_s", g.rate.si()}});
  Json out{{"cpu", p.cpu},
           {"threads", p.threads},
           {"stream_bytes_per_s", p.stream.si()},
           {"gemm_flops_per_s", p.gemm.si()},
           {"gemm", gemm},
           {"l1_bytes", p.l1.si()},
           {"l2_bytes", p.l2.si()},
           {"l3_bytes", p.l3.si()},
           {"memory_bytes", p.memory.si()},
           {"toml", machine_toml(p)}};
  if (decode) {
    DecodeOptions d;
    if (quick) {
      // Enough layers that the weights are twice the last-level cache (2 to 8 layers of d = 1024).
      d.d_model = 1024;
      const double layer_bytes = 12.0 * 1024 * 1024 * 4;
      d.layers = static_cast<int>(std::clamp(std::ceil(2 * p.l3.si() / layer_bytes), 2.0, 8.0));
      d.batches = {1, 2, 4, 8, 16, 32, 64, 128, 256};
      d.repeats = 2;
    }
    TRY(dm, get_number(args, "d_model", d.d_model, 64, true));
    TRY(layers, get_number(args, "layers", d.layers, 1, true));
    d.d_model = static_cast<int>(dm);
    d.layers = static_cast<int>(layers);
    const DecodeSweep s = measure_decode(p, d);
    Json pts = Json::array();
    for (const auto& pt : s.points) {
      pts.push_back({{"batch", pt.batch},
                     {"measured_s", pt.measured.si()},
                     {"predicted_s", pt.predicted.si()},
                     {"measured_s_per_token", pt.measured.si() / pt.batch},
                     {"predicted_s_per_token", pt.predicted.si() / pt.batch},
                     {"error_pct", 100 * (pt.predicted.si() - pt.measured.si()) / pt.measured.si()}});
    }
    out["decode"] = {{"d_model", d.d_model},
                     {"layers", d.layers},
                     {"params", s.params},
                     {"weight_bytes", s.weight_bytes.si()},
                     {"knee_predicted", s.knee_predicted},
                     {"knee_measured", s.knee_measured},
                     {"points", pts}};
  }
  return out;
}

}  // namespace llmecon
