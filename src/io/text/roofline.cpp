// The text of roofline, sweep and report (text.hpp).
#include <fmt/format.h>

#include "args/args.hpp"
#include "io/text.hpp"
#include "units/json_text.hpp"

namespace llmecon {
namespace {

double context_of(const RooflineInput& in) {
  return in.step.cached + (in.step.phase == Phase::kPrefill ? in.step.new_tokens : 0.0);
}

// The step, its throughput, price, energy and memory: only for a configuration that fits.
std::string fitting_text(const RooflineResult& r, const RooflineText& x) {
  std::string out;
  out += fmt::format("  t_compute   {}\n  t_weights   {}\n  t_kv        {}\n", format(r.t_compute), format(r.t_weights),
                     format(r.t_kv));
  if (r.t_overhead.si() > 0) out += fmt::format("  t_overhead  {}\n", format(r.t_overhead));
  // Which step (docs/quantities.md): the chips pooled as one, no collectives; plan maps layouts.
  out += fmt::format("  t_step      {}  ({}-bound; no-overlap bound {}; {}, {} chips pooled)\n", format(r.t_step),
                     name(r.bound), format(r.t_upper), r.in.eff.ideal() ? "ideal" : "calibrated", r.in.chips);
  out += fmt::format("  throughput  {}   MFU {}%\n", format(r.tokens_per_s), format_number(100 * r.mfu, 3));
  // A price other than the catalog's rent says what it is.
  const std::string& basis = x.price_source;
  const std::string priced = basis.rfind("owned", 0) == 0 ? ", " + basis
                             : basis == "--usd-per-hour"  ? ", at --usd-per-hour"
                                                          : std::string();
  // A pass's price divides by its tokens: a decode step's output tokens, a prefill chunk's input.
  out += fmt::format("  cost        ${}/Mtok {}{}\n", format_number(r.usd_per_token.si() * 1e6),
                     priced_tokens(r.in.step.phase), priced);
  if (r.facility_power.si() > 0) {
    out += fmt::format("  energy      {:.3g} J/token at the facility ({} per board, {} for the domain)\n",
                       r.energy_per_token.si(), format(r.board_power), format(r.facility_power));
  }
  out += fmt::format("  memory      {} weights + {} KV of {} HBM: fits\n", format(r.mem_weights), format(r.mem_kv),
                     format(r.mem_capacity));
  if (x.range) {
    const RooflineRange& g = *x.range;
    auto line = [&out](const char* label, const Quantiles& q, std::string (*show)(double)) {
      out += fmt::format("  {:<11} p10 {}  p50 {}  p90 {}\n", label, show(q.p10), show(q.p50), show(q.p90));
    };
    out += fmt::format("\nrange ({} samples over spec ranges and efficiency priors):\n", g.samples);
    line("t_step", g.t_step_s, [](double v) { return format(units::seconds(v)); });
    line("throughput", g.tokens_per_s, [](double v) { return format(units::tokens_per_s(v)); });
    line("cost", g.usd_per_mtok, [](double v) { return "$" + format_number(v) + "/Mtok"; });
  }
  return out;
}

}  // namespace

std::string text(const RooflineResult& r, const RooflineText& x) {
  const RooflineInput& in = r.in;
  std::string out = fmt::format("{} on {} x {}, {} batch {} context {} ({} weights, {} KV)\n", x.model, in.chips,
                                in.hw->name, name(in.step.phase), format_number(in.step.batch),
                                format_number(context_of(in)), name(in.precision.weights), name(in.precision.kv));
  if (!r.fits) {
    // Infeasible: the reason leads, and no step time, throughput, price or energy follows.
    out += fmt::format("  INFEASIBLE: {}\n", r.fit_reason);
    out += fmt::format("  memory      {} weights + {} KV of {} HBM\n", format(r.mem_weights), format(r.mem_kv),
                       format(r.mem_capacity));
    out += fmt::format("  work        {} per step\n", format(r.cost.flops_total()));
    out += "  (hint: more chips, a smaller weight or KV format, a smaller batch or context)\n";
  } else {
    out += fitting_text(r, x);
  }
  if (x.ops_by_kind) {
    out += "\noperators (summed over layers):\n";
    std::vector<std::vector<std::string>> rows;
    for (const OpCost& k : *x.ops_by_kind) {
      rows.push_back({std::string(name(k.kind)), format(k.flops), format(k.weights), format(k.kv_read),
                      format(k.kv_write), format(k.act)});
    }
    out += text_table({"op", "FLOPs", "weights", "KV read", "KV write", "activations"}, rows);
  }
  if (!x.derivation.empty()) out += text_lines("\nderivation (docs/model.md):\n", x.derivation, "  ");
  return out + warnings_text(x.warnings);
}

std::string sweep_text(const std::string& model, const std::vector<RooflineResult>& rows, bool explain,
                       const std::vector<std::vector<std::string>>& derivations,
                       const std::vector<std::string>& warnings) {
  const RooflineInput& in0 = rows.front().in;
  std::string out = fmt::format("{} on {} x {}\n", model, in0.chips, in0.hw->name);
  std::vector<std::vector<std::string>> t;
  t.reserve(rows.size());
  for (const RooflineResult& r : rows) {
    if (!r.fits) {  // no time, throughput or price for a point that does not fit
      t.push_back(
          {format_number(r.in.step.batch), format_number(context_of(r.in)), "-", "-", "-", "-", "-", "-", "-", "no"});
      continue;
    }
    t.push_back({format_number(r.in.step.batch), format_number(context_of(r.in)), format(r.t_compute),
                 format(r.t_weights), format(r.t_kv), format(r.t_step), std::string(name(r.bound)),
                 format(r.tokens_per_s), format_number(r.usd_per_token.si() * 1e6), "yes"});
  }
  const std::string price = in0.step.phase == Phase::kPrefill ? "$/Mtok in" : "$/Mtok out";
  out += text_table(
      {"batch", "context", "t_compute", "t_weights", "t_kv", "t_step", "bound", "tokens/s", price, "fits"}, t);
  if (explain) {
    for (std::size_t i = 0; i < rows.size() && i < derivations.size(); ++i) {
      // The batch and context as JSON writes them (64, 1.5).
      out += fmt::format("\nbatch {}, context {}:\n", json_text(whole_json(rows[i].in.step.batch)),
                         json_text(whole_json(context_of(rows[i].in))));
      out += text_lines("", derivations[i], "  ");
    }
  }
  return out + warnings_text(warnings);
}

std::string text(const ReportText& r) {
  const RooflineInput& in0 = r.rows.front().in;
  const ModelSpec& m = *r.model;
  std::string out =
      fmt::format("llmecon report: {} on {} x {} ({})\n\n", m.name, in0.chips, in0.hw->name, r.display_name);
  out += fmt::format("model     {} total, {} active parameters; KV {} per token ({}); weights {} at {}\n",
                     params_text(m.params_total()), params_text(m.params_active()),
                     format(units::bytes(m.kv_bytes_per_token(in0.precision.kv).si())), name(in0.precision.kv),
                     format(r.rows.front().mem_weights), name(in0.precision.weights));
  out += fmt::format("hardware  {} compute, {} HBM bandwidth, {} HBM, drain time {}, ${}/h\n", format(r.flops),
                     format(r.hbm_bandwidth), format(r.hbm), format(r.drain_time), format_number(r.usd_per_hour));
  if (!r.best) out += fmt::format("INFEASIBLE: no batch fits: {}\n", r.rows.front().fit_reason);
  out += fmt::format("memory    at {} tokens of context, at most {} sequences fit\n\n", format_number(r.context),
                     format_number(r.max_batch));
  std::vector<std::vector<std::string>> t;
  for (const RooflineResult& row : r.rows) {
    if (!row.fits) {
      t.push_back({format_number(row.in.step.batch), "-", "-", "-", "-", "-", "no"});
      continue;
    }
    t.push_back({format_number(row.in.step.batch), format(row.t_step), std::string(name(row.bound)),
                 format(row.tokens_per_s), format_number(row.usd_per_token.si() * 1e6), format_number(100 * row.mfu, 3),
                 row.fits ? "yes" : "no"});
  }
  out += text_table({"batch", "t_step", "bound", "tokens/s",
                     in0.step.phase == Phase::kPrefill ? "$/Mtok in" : "$/Mtok out", "MFU %", "fits"},
                    t);
  out += "\n";
  if (!r.balance_batch) {
    out += "balance   the step never turns compute-bound at this context: KV traffic outgrows compute\n";
  } else {
    out += fmt::format("balance   decode turns compute-bound at batch {} (F6)\n", format_number(*r.balance_batch));
  }
  if (r.best) {
    const RooflineResult& b = r.rows[*r.best];
    out += fmt::format("cheapest  batch {}: ${}/Mtok {}, {} per step; unbatched (B=1) costs {}x more\n",
                       format_number(b.in.step.batch), format_number(b.usd_per_token.si() * 1e6),
                       priced_tokens(b.in.step.phase), format(b.t_step), format_number(r.unbatched_penalty, 3));
  }
  if (!r.derivation.empty()) out += text_lines("\nderivation:\n", r.derivation, "  ");
  return out + warnings_text(r.warnings);
}

}  // namespace llmecon
