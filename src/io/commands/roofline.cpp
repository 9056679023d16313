// roofline, sweep and report: one step on one scale-up domain, over lists, and as a report.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "io/encode.hpp"

namespace llmecon::cmd {
namespace {

// Everything roofline needs, resolved (scenario.hpp); the model is owned here.
struct Resolved {
  Scenario scenario;
  const ModelSpec& model() const { return *scenario.model; }
  RooflineInput in;
};

// The step at `batch` and `context` for the phase and --chunk the arguments give.
Result<Step> step_for(Phase phase, std::optional<double> chunk_arg, double batch, double context) {
  Step step;
  step.phase = phase;
  step.batch = batch;
  if (step.phase == Phase::kDecode) {
    step.new_tokens = 1;
    step.cached = context;
    return step;
  }
  if (context < 1) return Error{"--context", "", "a prompt has at least 1 token", "prefill processes the prompt"};
  const double chunk = chunk_arg.value_or(context);
  if (chunk > context)
    return Error{"--chunk", "", "must not exceed --context", "the chunk is the last part of the prompt"};
  step.new_tokens = chunk;
  step.cached = context - chunk;
  return step;
}

Phase phase_of(const Args& a) {
  return value_in(kPhaseNames, a.text("phase")).value_or(Phase::kDecode);
}
std::optional<double> chunk_of(const Args& a) {
  const double chunk = a.number_or("chunk", std::numeric_limits<double>::quiet_NaN());
  return std::isnan(chunk) ? std::nullopt : std::optional<double>(chunk);
}

// The step of `a` at this batch and context (sweep passes each of its rows').
Result<Step> step_at(const Args& a, double batch, double context) {
  return step_for(phase_of(a), chunk_of(a), batch, context);
}

Result<Resolved> resolve(const Engine& e, const Args& a) {
  Resolved r;
  TRY(sc, resolve_scenario(e.catalogs(), a));
  r.scenario = std::move(sc);
  const Scenario& s = r.scenario;
  r.in.model = s.model.get();
  r.in.hw = s.hw.get();
  r.in.chips = s.chips;
  r.in.precision = s.precision;
  r.in.touch = value_in(kExpertTouchNames, a.text("expert_touch")).value_or(ExpertTouch::kExpected);
  r.in.eff = s.eff;
  r.in.power = s.power;
  if (!s.ideal) apply_engine(r.in, *s.engine);  // the pure roofline fills all of HBM (F21)
  return r;
}

}  // namespace

Result<RooflineResult> evaluate(const Engine& e, const Args& a) {
  TRY(res, resolve(e, a));
  TRY(step, step_at(a, a.number("batch"), a.number("context")));
  res.in.step = step;
  TRY(r, llmecon::roofline(res.in));
  // The result must not point into `res`; detach the model pointer for callers.
  r.in.model = nullptr;
  return r;
}

struct RooflinePoints::Impl {
  Args args;
  Resolved res;
  Phase phase = Phase::kDecode;  // the arguments' phase and --chunk, read once
  std::optional<double> chunk;
};

Result<RooflinePoints> RooflinePoints::open(const Engine& e, const Args& a) {
  TRY(res, resolve(e, a));
  res.in.weight_bytes = res.model().weight_bytes(res.in.precision.weights, res.in.precision.experts);
  RooflinePoints p;
  p.impl_ = std::make_shared<const Impl>(Impl{a, std::move(res), phase_of(a), chunk_of(a)});
  return p;
}

bool RooflinePoints::plain(const Args& a) {
  return !a.flag("explain") && !a.flag("range") && !a.flag("ops");
}

Result<RooflineResult> RooflinePoints::at(double batch, double context) {
  TRY(step, step_for(impl_->phase, impl_->chunk, batch, context));
  RooflineInput in = impl_->res.in;
  in.step = step;
  const double tokens = step.cached + step.new_tokens;
  for (std::size_t i = 0; i < kv_known_ && !in.kv_sequence; ++i) {
    if (kv_[i].first == tokens) in.kv_sequence = kv_[i].second;
  }
  if (!in.kv_sequence && in.model != nullptr) {
    in.kv_sequence = in.model->kv_bytes_sequence(tokens, in.precision.kv);
    kv_[kv_next_] = {tokens, *in.kv_sequence};
    kv_next_ = (kv_next_ + 1) % kv_.size();
    kv_known_ = std::max(kv_known_, kv_next_ == 0 ? kv_.size() : kv_next_);
  }
  return llmecon::roofline(in);
}

const std::string& RooflinePoints::price_source() const {
  return impl_->res.scenario.hw->price_source;
}

namespace {
// Contexts past the model's max_position_embeddings: priced, but the model was not trained for them.
std::vector<std::string> past_max_context(const ModelSpec& m, double context) {
  if (m.max_context <= 0 || context <= m.max_context) return {};
  return {fmt::format("context {} exceeds {}'s max_position_embeddings ({}): the model was not trained that far",
                      format_number(context), m.name, m.max_context)};
}
}  // namespace

Result<Answer> roofline(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(res, resolve(e, a));
  TRY(step, step_at(a, a.number("batch"), a.number("context")));
  res.in.step = step;
  TRY(r, llmecon::roofline(res.in));
  RooflineText x;
  x.model = res.model().name;
  x.price_source = res.scenario.hw->price_source;
  x.warnings = past_max_context(res.model(), a.number("context"));
  Json out = to_json(r);
  out["price_source"] = x.price_source;
  if (!x.warnings.empty()) out["warnings"] = x.warnings;
  if (a.flag("explain")) {
    x.derivation = llmecon::explain(r);
    out["explain"] = x.derivation;
  }
  if (a.flag("range") && r.fits) {
    x.range = roofline_range(res.in, uncertainty(a));
    out["range"] = {
        {"samples", x.range->samples},
        {"t_step_s", quantiles_json(x.range->t_step_s)},
        {"tokens_per_s", quantiles_json(x.range->tokens_per_s)},
        {std::string("usd_per_mtok_") + priced_tokens(res.in.step.phase), quantiles_json(x.range->usd_per_mtok)}};
  }
  if (a.flag("ops")) {
    // Per layer and operator (model.md §4), and the same summed by operator kind.
    const StepCost detail = step_cost(res.model(), res.in.step, res.in.precision, res.in.touch, true);
    x.ops_by_kind = ops_by_kind(detail.ops);
    Json kinds = Json::array(), ops = Json::array();
    for (const OpCost& op : *x.ops_by_kind) kinds.push_back(to_json(op, false));
    for (const OpCost& op : detail.ops) ops.push_back(to_json(op, true));
    out["ops_by_kind"] = std::move(kinds);
    out["ops"] = std::move(ops);
  }
  // The text keeps the chip alive (a priced copy is the scenario's); the model pointer is not read.
  return Answer{std::move(out), [r = std::move(r), x = std::move(x), hw = res.scenario.hw] { return text(r, x); }};
}

Result<Answer> sweep(const Engine& e, const Args& a, const Progress& progress, const Cancel& cancel) {
  const std::vector<double> batches = a.numbers("batch");
  const std::vector<double> contexts = a.numbers("context");
  if (batches.size() * contexts.size() > 100000) {
    return Error{"--batch", "",
                 fmt::format("{} x {} = {} rows; at most 100000", batches.size(), contexts.size(),
                             batches.size() * contexts.size()),
                 "use geometric ranges (1:16384:x2) or fewer contexts"};
  }
  TRY(res, resolve(e, a));
  Json rows = Json::array();
  std::vector<RooflineResult> results;
  std::vector<std::vector<std::string>> derivations;
  const bool with_explain = a.flag("explain");
  const double total = static_cast<double>(contexts.size() * batches.size());
  for (const double c : contexts) {
    for (const double b : batches) {
      if (progress) progress(static_cast<double>(rows.size()) / total);
      if (cancel && rows.size() % 256 == 0 && cancel()) return cancelled_error();
      TRY(step, step_at(a, b, c));
      RooflineInput in = res.in;
      in.step = step;
      TRY(r, llmecon::roofline(in));
      Json row = to_json(r);
      if (with_explain) {
        derivations.push_back(llmecon::explain(r));
        row["explain"] = derivations.back();
      }
      rows.push_back(std::move(row));
      results.push_back(std::move(r));
    }
  }
  if (progress) progress(1.0);
  Json out{{"model", res.model().name},
           {"hardware", res.scenario.hw->name},
           {"chips", res.in.chips},
           {"price_source", res.scenario.hw->price_source},
           {"rows", rows}};
  std::vector<std::string> warnings =
      past_max_context(res.model(), *std::max_element(contexts.begin(), contexts.end()));
  if (!warnings.empty()) out["warnings"] = warnings;
  return Answer{std::move(out),
                [results = std::move(results), derivations = std::move(derivations), warnings = std::move(warnings),
                 name = res.model().name, with_explain,
                 hw = res.scenario.hw] { return sweep_text(name, results, with_explain, derivations, warnings); }};
}

Result<Answer> report(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(res, resolve(e, a));
  TRY(step, step_at(a, 1, a.number("context")));
  res.in.step = step;
  const RooflineInput in0 = res.in;
  TRY(first, llmecon::roofline(in0));  // checks the chips against the domain
  auto at = [&](double b) {
    RooflineInput in = in0;
    in.step.batch = b;
    return roofline_unchecked(in);
  };
  TRY(show, e.run("model", Json{{"model", a.raw("model")}, {"kv_dtype", std::string(name(in0.precision.kv))}}));
  const Hardware& hw = *res.scenario.hw;
  const double n = in0.chips;
  Json hardware{{"name", hw.name},
                {"display_name", hw.display_name},
                {"chips", in0.chips},
                {"flops_per_s", (hw.peak(wider(in0.precision.weights, in0.precision.act)) * n).si()},
                {"hbm_bytes_per_s", (hw.hbm_bandwidth.value * n).si()},
                {"hbm_bytes", (hw.hbm_capacity.value * n).si()},
                {"drain_time_s", hw.drain_time().si()},
                {"usd_per_hour", hw.price.value.si() * 3600.0 * n},
                {"price_source", hw.price_source}};
  const double max_batch = max_fitting_batch(in0);
  const std::optional<double> balance = balance_batch(in0);
  Json rows = Json::array();
  double best_cost = std::numeric_limits<double>::infinity();
  Json best = nullptr;
  auto report = std::make_shared<ReportText>();
  ReportText& rt = *report;
  for (double b = 1; b <= 65536; b *= 2) {
    const RooflineResult r = at(b);
    Json row = to_json(r);
    if (a.flag("explain")) row["explain"] = llmecon::explain(r);
    rows.push_back(row);
    rt.rows.push_back(r);
    if (r.fits && r.usd_per_token.si() < best_cost) {
      best_cost = r.usd_per_token.si();
      best = row;
      rt.best = rt.rows.size() - 1;
    }
    if (!r.fits && b > 1) break;
  }
  Json out{{"model", show},
           {"hardware", hardware},
           {"phase", std::string(name(in0.step.phase))},
           {"context", whole_json(in0.step.cached + (in0.step.phase == Phase::kPrefill ? in0.step.new_tokens : 0.0))},
           {"weight_dtype", std::string(name(in0.precision.weights))},
           {"kv_dtype", std::string(name(in0.precision.kv))},
           {"feasible", !best.is_null()},
           {"max_batch_fits", whole_json(max_batch)},
           {"balance_batch", balance ? whole_json(*balance) : Json(nullptr)},
           {"best", best},
           {"penalty_vs_cheapest", best.is_null() ? Json(nullptr) : Json(first.usd_per_token.si() / best_cost)},
           {"rows", rows}};
  if (best.is_null()) out["reason"] = "no batch fits: " + first.fit_reason;
  rt.warnings = past_max_context(res.model(), a.number("context"));
  if (!rt.warnings.empty()) out["warnings"] = rt.warnings;
  if (a.flag("explain")) {
    // The report's own figures: the balance batch (F6) and the largest batch that fits (F21).
    std::vector<std::string> lines = llmecon::explain(first);
    lines.push_back(fmt::format(
        "max batch that fits (F21) = floor((HBM - weights) / KV per sequence) = floor(({} - {}) / {}) = {}",
        format(first.mem_capacity), format(first.mem_weights), format(first.mem_kv), format_number(max_batch)));
    lines.push_back(balance ? fmt::format("balance batch (F6) = smallest B with t_compute >= t_weights + t_kv = {}",
                                          format_number(*balance))
                            : std::string("balance batch (F6): no batch up to 1e7 is compute-bound"));
    lines.push_back(best.is_null()
                        ? std::string("no batch fits")
                        : fmt::format("unbatched penalty = cost(B = 1) / cheapest cost = {} / {} = {}",
                                      format_number(first.usd_per_token.si() * 1e6), format_number(best_cost * 1e6),
                                      format_number(first.usd_per_token.si() / best_cost)));
    out["explain"] = lines;
    rt.derivation = std::move(lines);
  }
  rt.model = res.scenario.model.get();
  rt.display_name = hw.display_name;
  rt.flops = hw.peak(wider(in0.precision.weights, in0.precision.act)) * n;
  rt.hbm_bandwidth = hw.hbm_bandwidth.value * n;
  rt.hbm = hw.hbm_capacity.value * n;
  rt.drain_time = hw.drain_time();
  rt.usd_per_hour = hw.price.value.si() * 3600.0 * n;
  rt.context = in0.step.cached + (in0.step.phase == Phase::kPrefill ? in0.step.new_tokens : 0.0);
  rt.max_batch = max_batch;
  rt.balance_batch = balance;
  if (rt.best) rt.unbatched_penalty = first.usd_per_token.si() / best_cost;
  // The text holds the model and the chip the rows point to.
  return Answer{std::move(out), [report, model = res.scenario.model, chip = res.scenario.hw] { return text(*report); }};
}

// The roofline family's commands in the table (commands.hpp).
std::vector<Command> roofline_commands() {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  std::vector<Command> out;
  auto add = [&out](CommandSpec c, Fn run) { out.push_back(Command{std::move(c), run}); };
  {
    CommandSpec c =
        command("roofline", "one decode step or prefill chunk on one scale-up domain", roofline_arguments(false));
    c.args.push_back(flag("ops", "per-operator FLOPs and bytes (JSON: per layer too)"));
    c.args.push_back(flag("range", "p10/p50/p90 over spec ranges and efficiency priors"));
    c.args.push_back(explain());
    c.redirects = {{"isl", "roofline takes --context and, for a prompt, --phase prefill"},
                   {"osl", "roofline is one step; plan takes --isl/--osl"}};
    add(std::move(c), roofline);
  }
  {
    CommandSpec c =
        command("sweep", "the roofline over lists or ranges of batch sizes and contexts", roofline_arguments(true));
    c.args.push_back(explain());
    c.long_running = true;
    c.chart = "svg+html";
    add(std::move(c), sweep);
  }
  {
    std::vector<ArgSpec> a = roofline_arguments(false);
    a.erase(std::remove_if(a.begin(), a.end(), [](const ArgSpec& s) { return s.key == "batch"; }), a.end());
    a.push_back(explain());
    CommandSpec c = command("report", "a deployment report: memory fit and decode cost across batch sizes", a);
    c.long_running = true;
    c.redirects = {{"batch", "report sweeps batch sizes itself; roofline takes --batch"}};
    add(std::move(c), report);
  }
  return out;
}

}  // namespace llmecon::cmd
