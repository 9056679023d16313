// `train` and `scale`: a training run and scaling laws in dollars (model.md §24).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "io/encode.hpp"
#include "scenario/scale.hpp"
#include "train/train.hpp"
#include "train/train_args.hpp"

namespace llmecon::cmd {
namespace {

// The setup points into the model and chip, which live on the heap so the value can move.
struct TrainArgs {
  std::shared_ptr<const ModelSpec> model;
  std::shared_ptr<const Hardware> hw;
  TrainSetup setup;
  int chips = 0;
};

Result<TrainArgs> train_args(const Engine& e, const Args& a, bool run_flags) {
  TrainArgs t;
  TRY(sc, resolve_scenario(e.catalogs(), a));
  t.model = sc.model;
  t.hw = sc.hw;
  t.chips = sc.chips;
  TrainSetup& s = t.setup;
  s.model = t.model.get();
  s.hw = t.hw.get();
  s.eff = sc.eff;
  if (a.flag("ideal")) s.kernel_efficiency = 1.0;
  s.seq_len = a.number("seq_len");
  s.price = t.hw->price.value;
  if (!run_flags) return t;
  s.tokens = a.number("tokens");
  s.global_batch = a.has("global_batch") ? a.number("global_batch")
                                         : std::max(1.0, std::round(a.number("batch_tokens") / s.seq_len));
  TRY_STATUS(read_train_settings(a, s));
  s.power = sc.power;
  if (a.has("pue")) s.power.pue = a.number("pue");
  TRY(cat, tco_catalog(a));
  TRY(profile_name, owner_profile(a));
  DollarsPerJoule electricity = cat->defaults().electricity.value;
  if (profile_name) {
    TRY(p, cat->profile(*profile_name, "--cost"));
    electricity = p->electricity.value_or(electricity);
  }
  s.usd_per_kwh = a.has("usd_per_kwh") ? a.number("usd_per_kwh") : electricity.si() * 3.6e6;
  return t;
}

bool layout_given(const Args& a) {
  for (const char* k :
       {"tp", "pp", "ep", "cp", "dp", "zero", "recompute", "recompute_modules", "schedule", "micro_batch"})
    if (a.has(k)) return true;
  return false;
}

// The global batch nearest the stated one (the smaller on a tie) that this layout splits, in
// sequences: micro-batch x dp, and the schedule's own multiple of micro-batches. None within a
// factor of two, or within 2^16 sequences (a bound on the work a hostile batch can ask for).
std::optional<double> nearest_global_batch(TrainSetup s, const TrainLayout& l, int chips) {
  const double g0 = std::round(s.global_batch);
  for (double step = 0; step <= std::min(g0, 65536.0); step += 1) {
    for (double g : {g0 - step, g0 + step}) {
      if (g < 1) continue;
      s.global_batch = g;
      if (!check_layout(s, l, chips)) return g;
    }
  }
  return std::nullopt;
}

// The layout the flags state; unstated degrees are 1 and dp fills the chips.
Result<TrainLayout> stated_layout(const Args& a, const TrainSetup& s, int chips) {
  TRY(l, read_train_layout(a, *s.model));
  l.tp = static_cast<int>(a.number_or("tp", 1));
  l.pp = static_cast<int>(a.number_or("pp", 1));
  l.ep = static_cast<int>(a.number_or("ep", 1));
  l.cp = static_cast<int>(a.number_or("cp", 1));
  const int slice = l.tp * l.pp * l.cp;
  if (!a.has("dp") && chips % slice != 0) {
    // The flag to change is the largest degree given; --chips only when the degrees are small.
    std::string flag = "--chips";
    int largest = 1;
    for (const char* key : {"tp", "pp", "cp"}) {
      const int v = static_cast<int>(a.number_or(key, 1));
      if (a.has(key) && v > largest) {
        largest = v;
        flag = flag_of(key);
      }
    }
    if (slice <= chips && flag != "--chips" && chips % largest == 0) flag = "--chips";
    return Error{flag, "", fmt::format("tp x pp x cp = {} slices do not divide {} chips", slice, chips),
                 slice > chips ? "degrees whose product divides --chips"
                               : "give a chip count that is a multiple of tp x pp x cp, or other degrees"};
  }
  l.dp = a.has("dp") ? static_cast<int>(a.number("dp")) : chips / slice;
  if (auto issue = check_layout(s, l, chips)) {
    std::string hint = "change " + flag_of(issue->key) + " (or run --search for a layout)";
    if (issue->key == "global_batch") {
      if (auto g = nearest_global_batch(s, l, chips)) {
        hint = fmt::format(
            "change --global-batch ({} sequences is the nearest that splits), or run --search for a "
            "layout",
            format_number(*g, 12));
      }
    }
    return Error{flag_of(issue->key), "", issue->why, hint};
  }
  return l;
}

// One layout's result as an analysis: figures with units, the memory and time tables.
Analysis result_analysis(const TrainSetup& s, const TrainResult& r, int chips) {
  Analysis an("train");
  // Infeasible layouts still carry their figures; one that has no finite value says why.
  const std::string why = r.reason.empty() ? "not computed for this layout" : r.reason;
  const TrainMemory& mem = r.memory;
  const TrainTime& t = r.time;
  const TrainRun& run = r.run;
  an.note("layout: " + r.layout.str());
  an.note("price: " + (s.hw->price_source.empty() ? std::string("catalog rental") : s.hw->price_source));
  an.figure("chips", chips, "", "GPUs");
  an.figure("global_batch", s.global_batch, "", "sequences per step");
  an.figure("micro_batches", t.micro_batches, "", "micro-batches per replica per step");
  an.figure("memory_bytes", mem.total(), "per GPU, worst stage (§24.2)");
  an.figure("memory_capacity_bytes", mem.capacity, "usable HBM per GPU");
  an.figure("step_s", t.step, "time per optimizer step (§24.3)");
  // The band the published runs put around a prediction (model.md §24.3); none for the pure roofline.
  const bool banded = !s.eff.ideal();
  const bool moe = s.model->is_moe();
  const ValidatedBand& band = validated_band(*s.model);
  if (banded) {
    an.figure("step_s_published_p10", t.step * band.p10,
              fmt::format("x p10 of measured/predicted, {} published {} rows ({:.2f}x)", band.rows,
                          moe ? "MoE" : "dense", band.p10));
    an.figure("step_s_published_p90", t.step * band.p90, fmt::format("x p90 of the same ({:.2f}x)", band.p90));
  }
  an.figure("bubble_fraction", t.bubble_fraction, "", "pipeline bubble over the step");
  an.figure("mfu", r.mfu, "", "model FLOPs utilization (PaLM)");
  an.figure("hfu", r.hfu, "", "hardware FLOPs utilization, recomputation included");
  an.figure("tokens_per_s", r.tokens_per_s, "the cluster's training tokens/s");
  an.figure("tokens_per_s_per_gpu", r.tokens_per_s.si() / chips, "tok/s", "per GPU");
  an.figure("model_flops_per_step", r.model_flops, "6 N + 12 L H Q T per token x tokens per step");
  an.figure("steps", run.steps, "", "optimizer steps for --tokens");
  const double days = run.wall.si() / 86400.0;
  an.figure("days", days, "day", "wall-clock, failures and checkpoints included (§24.4)");
  if (banded) {
    an.figure("days_published_p10", days * band.p10, "day", "x the same p10");
    an.figure("days_published_p90", days * band.p90, "day", "x the same p90");
  }
  an.figure("wall_s", run.wall, "wall-clock");
  an.figure("gpu_hours", run.gpu_hours, "GPU-h", "chips x wall");
  an.figure("usd", run.usd, "chips x wall x $/chip-hour");
  an.figure("mwh", run.energy.si() / 3.6e9, "MWh", "chips x facility power at the step's HFU x wall (§25.6)");
  an.figure("joules_per_token", r.run.energy.si() / std::max(1.0, s.tokens), "J/tok",
            "facility energy per training token");
  an.figure("energy_usd", run.energy_usd, "MWh x $/kWh (inside the $/GPU-hour, rented or owned)");
  an.figure("goodput", run.goodput, "", "useful time over wall time (§24.5)");
  an.figure("failures", run.failures, "", "expected interruptions");
  an.figure("mtbf_s", run.mtbf, "the cluster's mean time between failures (0: none)");
  an.figure("checkpoint_bytes", run.checkpoint_bytes, "weights and optimizer states");
  an.figure("checkpoint_write_s", run.checkpoint_write, "checkpoint bytes / storage bandwidth");
  an.figure("checkpoint_interval_s", run.checkpoint_interval, "Young-Daly sqrt(2 delta M) unless given");
  Table m{"memory",
          {{"term", "", "term"}, {"bytes", "B", "per GPU"}},
          {{"weights", mem.weights.si()},
           {"gradients", mem.gradients.si()},
           {"optimizer", mem.optimizer.si()},
           {"activations", mem.activations.si()},
           {"buffers", mem.comm_buffers.si()},
           {"total", mem.total().si()},
           {"usable", mem.capacity.si()},
           {"host", mem.host.si()}},
          "memory per GPU"};
  an.tables.push_back(std::move(m));
  Table tt{"time",
           {{"term", "", "term"}, {"exposed_s", "s", "on the step"}, {"total_s", "s", "before overlap"}},
           {{"forward", t.forward.si(), t.forward.si()},
            {"backward", t.backward.si(), t.backward.si()},
            {"recompute", t.recompute.si(), t.recompute.si()},
            {"tp comm", t.tp_comm.si(), t.tp_comm_total.si()},
            {"cp comm", t.cp_comm.si(), t.cp_comm_total.si()},
            {"ep comm", t.ep_comm.si(), t.ep_comm_total.si()},
            {"pp comm", t.pp_comm.si(), t.pp_comm_total.si()},
            {"dp comm", t.dp_comm.si(), t.dp_comm_total.si()},
            {"host", t.host.si(), t.host.si()},
            {"offload", t.offload.si(), t.offload_total.si()},
            {"bubble", t.bubble.si(), t.bubble.si()},
            {"optimizer", t.optimizer.si(), t.optimizer.si()},
            {"of which host", t.optimizer_host.si(), t.optimizer_host.si()},
            {"step", t.step.si(), t.step.si()}},
           "time per step"};
  an.tables.push_back(std::move(tt));
  for (std::size_t i = 0; i < r.derivation.size(); ++i) {
    if (i < r.derivation_facts) {
      an.explain_fact(r.derivation[i]);
    } else {
      an.explain(r.derivation[i]);
    }
  }
  for (auto& f : an.figures)
    if (!std::isfinite(f.value) && f.reason.empty()) f.reason = why;
  for (auto& table : an.tables)
    for (auto& row : table.rows)
      for (auto& c : row)
        if (!c.text && !std::isfinite(c.value)) c = Cell("-");
  return an;
}

// The layouts as a table; with a band (model.md §24.6), each says whether its step lies within
// the published band's width (p90 / p10 of measured over predicted) of the fastest's, where the
// model cannot rank it behind.
// The named stacks that run a layout (model.md §24.6), joined by '+', or "none named".
std::string stacks_running(const TrainLayout& l, double global_batch) {
  std::string out;
  for (const TrainStack st : kNamedStacks) {
    if (stack_runs(st, l, global_batch)) out += (out.empty() ? "" : "+") + std::string(name(st));
  }
  return out.empty() ? "none named" : out;
}

Table layouts_table(const std::string& key, const std::vector<TrainResult>& rs, const std::string& title,
                    const ValidatedBand* band, double global_batch) {
  std::vector<Column> cols{{"layout", "", "layout"},
                           {"step_s", "s", "step"},
                           {"mfu", "", "MFU"},
                           {"memory_bytes", "B", "memory"},
                           {"headroom_bytes", "B", "headroom"},
                           {"days", "", "days"},
                           {"usd", "$", "$"}};
  if (band != nullptr) cols.push_back({"within_band", "", "within band"});
  cols.push_back({"stacks", "", "stacks"});
  Table t{key, std::move(cols), {}, title};
  const double best = rs.empty() ? 0.0 : rs.front().time.step.si();
  for (const auto& r : rs) {
    t.rows.push_back({r.layout.str(), r.time.step.si(), r.mfu, r.memory.total().si(),
                      (r.memory.capacity - r.memory.total()).si(), r.run.wall.si() / 86400.0, r.run.usd.si()});
    if (band != nullptr) t.rows.back().push_back(Cell(band->within(r.time.step.si(), best) ? "yes" : "no"));
    t.rows.back().push_back(Cell(stacks_running(r.layout, global_batch)));
  }
  return t;
}

// The fastest (or cheapest) layout each named stack runs, against the search's best (model.md §24.6).
Table per_stack_table(const TrainSearch& found) {
  Table t{"per_stack",
          {{"stack", "", "stack"},
           {"layout", "", "layout"},
           {"step_s", "s", "step"},
           {"mfu", "", "MFU"},
           {"vs_best", "", "x the best's step"}},
          {},
          "the fastest layout each stack runs"};
  const double best = found.ranked.empty() ? 0.0 : found.ranked.front().time.step.si();
  for (const auto& [stack, r] : found.per_stack) {
    t.rows.push_back({Cell(std::string(name(stack))), Cell(r.layout.str()), r.time.step.si(), r.mfu,
                      best > 0 ? r.time.step.si() / best : 0.0});
  }
  return t;
}

// What to change when no layout fits, from what rejected them (model.md §24.6): a global batch
// that splits over more data-parallel ranks where divisibility rejected layouts (a multiple of the
// largest data-parallel degree a searched shape leaves with tp x pp x cp at least 8 and no more
// ranks than sequences), more chips or FP8 where memory did, fewer chips or faster checkpoints and
// restarts where failures outran progress.
// The flag the user should change when no layout fits: the one behind most rejections when the
// user gave it (failures: --mtbf-hours or --failures-per-gpu-hour; the batch: --global-batch),
// else --chips.
std::string no_layout_flag(const TrainSearch& found, const Args& a) {
  long top = 0;
  std::string issue;
  for (const auto& rej : found.rejected) {
    if (rej.count > top) {
      top = rej.count;
      issue = rej.issue;
    }
  }
  if (issue == "failures") {
    for (const char* key : {"mtbf_hours", "failures_per_gpu_hour"}) {
      if (a.spec().arg(key) != nullptr && a.has(key)) return flag_of(key);
    }
  }
  if (issue == "global_batch") {
    for (const char* key : {"global_batch", "batch_tokens"}) {
      if (a.spec().arg(key) != nullptr && a.has(key)) return flag_of(key);
    }
  }
  return "--chips";
}

std::string no_layout_hint(const TrainSearch& found, const TrainSetup& s, int chips) {
  bool memory = false, batch = false, failures = false;
  std::string why;
  for (const auto& rej : found.rejected) {
    why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", rej.reason, rej.count);
    memory = memory || rej.issue == "memory";
    batch = batch || rej.issue == "global_batch";
    failures = failures || rej.issue == "failures";
  }
  std::vector<std::string> tips;
  if (batch && !found.dp_degrees.empty()) {
    // The most data-parallel ranks the batch can split over with tp x pp x cp at least 8 (else any).
    int m = 0;
    for (int d : found.dp_degrees) {
      if (d <= s.global_batch && 8 * d <= chips) m = d;
    }
    if (m == 0) m = found.dp_degrees.front();
    const double g = std::max(static_cast<double>(m), std::round(s.global_batch / m) * m);
    if (g != s.global_batch) {
      tips.push_back(fmt::format("--global-batch {} (a multiple of {}; now {} sequences)", format_number(g, 12), m,
                                 format_number(s.global_batch, 12)));
    }
    // Every shape leaves more data-parallel ranks than the batch has sequences.
    if (m > s.global_batch) tips.emplace_back("fewer chips");
  }
  if (failures) {
    tips.emplace_back(
        "fewer chips (failures scale with them), faster checkpoints (--storage-tb-per-s) or shorter restarts "
        "(--restart-min)");
  }
  if (memory || tips.empty())
    tips.emplace_back(s.gemm == DType::kFp8 ? "more chips" : "more chips or --train-dtype fp8");
  std::string hint = why.empty() ? "Try " : "rejected: " + why + ". Try ";
  for (std::size_t i = 0; i < tips.size(); ++i) hint += (i == 0 ? "" : ", or ") + tips[i];
  return hint;
}

}  // namespace

Result<Answer> train(const Engine& e, const Args& a, const Progress& progress, const Cancel& cancel) {
  TRY(t, train_args(e, a, true));
  const TrainSetup& s = t.setup;
  const bool search = a.flag("search") || !layout_given(a);
  TrainLayout layout;
  TrainSearch found;
  if (search) {
    if (layout_given(a) && a.flag("search")) {
      return Error{"--search", "", "--search chooses the layout itself",
                   "drop --tp/--pp/--ep/--cp/--dp/--zero/--recompute(-modules)/--schedule/--micro-batch, or --search"};
    }
    auto report = [&](double done, double total) {
      if (progress && total > 0) progress(done / total);
    };
    found = search_training(s, t.chips, value_in(kObjectiveNames, a.text("objective")).value_or(TrainObjective::kTime),
                            stack_space(value_in(kStackNames, a.text("stack")).value_or(TrainStack::kAny)),
                            static_cast<std::size_t>(a.number("top")), report);
    if (cancel && cancel()) return cancelled_error();
    if (found.over_cap > 0) return layouts_over_cap(found, t.chips);
    if (found.ranked.empty()) {
      return Error{no_layout_flag(found, a), "",
                   fmt::format("no layout of {} chips fits {} ({} evaluated)", t.chips, t.model->name, found.evaluated),
                   no_layout_hint(found, s, t.chips)};
    }
    layout = found.ranked.front().layout;
  } else {
    TRY(l, stated_layout(a, s, t.chips));
    layout = l;
  }
  const TrainResult r = evaluate_training(s, layout, a.flag("explain"));
  Analysis an = result_analysis(s, r, t.chips);
  if (!r.feasible) an.set_infeasible(r.reason);
  if (search) {
    const ValidatedBand* band = s.eff.ideal() ? nullptr : &validated_band(*t.model);
    an.tables.push_back(layouts_table("ranked", found.ranked, "fastest layouts", band, s.global_batch));
    if (band != nullptr) {
      const double best = found.ranked.front().time.step.si();
      const auto close = std::count_if(found.ranked.begin(), found.ranked.end(),
                                       [&](const TrainResult& x) { return band->within(x.time.step.si(), best); });
      an.note(fmt::format(
          "{} of the {} listed layouts lie within x{:.2f} of the fastest's step (p90 / p10 of measured over "
          "predicted on the published {} rows): the model does not rank them apart",
          close, found.ranked.size(), band->width(), t.model->is_moe() ? "MoE" : "dense"));
    }
    an.tables.push_back(
        layouts_table("frontier", found.frontier, "step time against memory headroom", band, s.global_batch));
    if (!found.per_stack.empty()) an.tables.push_back(per_stack_table(found));
    if (!found.ranked.empty() && stacks_running(found.ranked.front().layout, s.global_batch) == "none named") {
      an.note(
          "the fastest layout runs on none of the named stacks (megatron, torchtitan, maxtext, llm-foundry: its "
          "schedule or sharding is none of theirs, e.g. DualPipe, or ZeRO-2/3 under a pipeline outside torchtitan); "
          "the fastest each stack runs is in the per-stack table, --stack NAME searches one");
    }
    Table rej{"rejected", {{"reason", "", "reason"}, {"count", "", "layouts"}}, {}, "rejected layouts"};
    for (const auto& x : found.rejected) rej.rows.push_back({x.reason, static_cast<double>(x.count)});
    an.tables.push_back(std::move(rej));
    an.note(fmt::format("searched {} layouts of {} chips; {} feasible listed", found.evaluated, t.chips,
                        found.ranked.size()));
  }
  Json out = to_json(an);
  out["model"] = t.model->name;
  out["hardware"] = t.hw->name;
  out["layout"] = to_json(layout);
  out["layout_searched"] = search;
  std::optional<RangeText> range;
  if (a.flag("range") && r.feasible) {
    const TrainRange rr = train_range(s, layout, uncertainty(a), 200);
    range = RangeText{rr.samples, {{"step_s", rr.step_s}, {"mfu", rr.mfu}, {"days", rr.days}, {"usd", rr.usd}}};
    Json q = {{"samples", rr.samples}};
    for (const RangeRow& row : range->rows) q[row.key] = quantiles_json(row.q);
    out["range"] = std::move(q);
  }
  return Answer{std::move(out),
                [an = std::move(an), head = TextHead{t.model->name, t.hw->name, static_cast<double>(t.chips)},
                 explain = a.flag("explain"), range] { return text(an, head, explain, range); }};
}

Result<Answer> scale(const Engine& e, const Args& a, const Progress& progress, const Cancel& cancel) {
  TRY(t, train_args(e, a, false));
  auto report = [&](double done, double total) {
    if (progress && total > 0) progress(0.9 * done / total);
  };
  TRY(in, scale_reference(t.setup, t.chips, report));
  if (cancel && cancel()) return cancelled_error();
  in.fit = find_loss_fit(a.text("fit"));
  in.budget_flops = a.has("loss") && !a.has("budget_flops") ? 0.0 : a.number_or("budget_flops", 3.8e25);
  in.target_loss = a.number_or("loss", 0);
  in.inference_tokens = a.number("inference_tokens");
  in.rl_multiplier = a.number("rl_multiplier");
  if (progress) progress(1.0);
  Analysis an = scale_analysis(in);
  Json out = to_json(an);
  out["model"] = t.model->name;
  out["hardware"] = t.hw->name;
  out["chips"] = t.chips;
  out["fit"] = in.fit->name;
  return Answer{std::move(out),
                [an = std::move(an), head = TextHead{t.model->name, t.hw->name, static_cast<double>(t.chips)},
                 explain = a.flag("explain")] { return text(an, head, explain); }};
}

// The train family's commands in the table (commands.hpp).
std::vector<Command> train_commands() {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  std::vector<Command> out;
  auto add = [&out](CommandSpec c, Fn run) { out.push_back(Command{std::move(c), run}); };
  {
    CommandSpec c = command("train",
                            "a training run: memory per GPU, time per step, MFU, failures, days, GPU-hours, $ and "
                            "energy; --search for the layout",
                            train_arguments(), true);
    c.redirects = {{"batch", "train takes --global-batch (sequences) or --batch-tokens"},
                   {"context", "train takes --seq-len"}};
    add(std::move(c), train);
  }
  {
    CommandSpec c =
        command("scale",
                "scaling laws tied to dollars: compute-optimal and inference-aware N and D, training and lifetime "
                "inference $",
                scale_arguments(), true);
    c.chart = "svg";
    add(std::move(c), scale);
  }
  return out;
}

}  // namespace llmecon::cmd
