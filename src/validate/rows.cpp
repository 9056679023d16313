// A validation row mapped onto the model and predicted (docs/model.md §18-§19, §23-§24).
#include "validate/validate.hpp"

#include "notes.hpp"

#include "args/arg_builders.hpp"
#include "plan/plan.hpp"
#include "scenario/layout.hpp"
#include "scenario/scenario.hpp"
#include "simulate/simulate.hpp"
#include "train/train.hpp"
#include "train/train_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "parallel/comm.hpp"
#include "parallel/parallel.hpp"
#include "units/embedded.hpp"
#include "units/units_parse.hpp"

#include "rows.hpp"
#include "units/json_text.hpp"

namespace llmecon::validate_internal {

// The serving engine a row ran on: `engine=NAME` in its notes, else an engine the notes name
// (TensorRT-LLM, vLLM, SGLang), else none (model.md §19).
const ServingEngine* row_engine(const Measurement& m, const ValidationContext& ctx, bool& inferred) {
  inferred = true;
  if (!ctx.engines) return nullptr;
  const std::vector<ServingEngine>& engines = ctx.catalogs->engines;
  // A stated version picks the engine's release line where one profile runs it (vllm-v0).
  const std::string version =
      m.settings.contains("engine_version") ? m.settings["engine_version"].get<std::string>() : std::string();
  auto find = [&](std::string_view name) { return find_engine(engines, name, version); };
  inferred = false;
  if (!m.engine.empty()) return find(m.engine);
  if (m.settings.contains("engine")) return find(m.settings["engine"].get<std::string>());
  // Else the engine the notes name first, by the words its profile lists (data/engines).
  inferred = true;
  std::string lower;
  for (char c : m.notes) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const ServingEngine* first = nullptr;
  std::size_t at = std::string::npos;
  for (const auto& e : engines) {
    for (const std::string& word : e.mentioned_as) {
      const std::size_t pos = lower.find(word);
      if (pos < at) {
        at = pos;
        first = &e;
      }
    }
  }
  return first;
}

// A row's model, chip and formats as the command-line flags that say them (scenario.hpp): the
// model (a built-in name, or a config.json beside the CSV), the chip, and the formats: the
// weight_dtype and kv_dtype columns, and the notes' formats per tensor class (dense for
// --weight-dtype, experts, act, kv). Weights in int8 or int4 are weight-only: matmuls at bf16
// (the schema).
const CommandSpec& row_spec() {
  static const CommandSpec spec = [] {
    CommandSpec c;
    c.name = "row";
    c.help = "a validation row's model, chip and formats";
    c.args = {argspec::model(nullptr), argspec::hw(nullptr), argspec::ideal()};
    for (ArgSpec& f : argspec::formats()) c.args.push_back(std::move(f));
    return c;
  }();
  return spec;
}

Json row_question(const Measurement& m, const ValidationContext& ctx) {
  Json q{{"hw", m.hardware}};
  const bool path = m.model.find('/') != std::string::npos || m.model.find(".json") != std::string::npos;
  q["model"] = path ? (std::filesystem::path(ctx.csv_dir) / m.model).string() : m.model;
  if (!m.weight_dtype.empty()) q["weight_dtype"] = m.weight_dtype;
  if (!m.kv_dtype.empty()) q["kv_dtype"] = m.kv_dtype;
  for (const auto& [cls, d] : m.formats) {
    if (cls == "dense") q["weight_dtype"] = name(d);
    if (cls == "experts") q["expert_dtype"] = name(d);
    if (cls == "act") q["act_dtype"] = name(d);
    if (cls == "kv") q["kv_dtype"] = name(d);
  }
  if (q.contains("weight_dtype") && !q.contains("act_dtype")) {
    const auto w = parse_dtype(q["weight_dtype"].get<std::string>());
    if (w && (*w == DType::kInt8 || *w == DType::kInt4)) q["act_dtype"] = "bf16";
  }
  return q;
}

// The row's layout by the one rule for unstated degrees (scenario/layout.hpp, model.md §17.5).
// The schema's degrees: chips = tp x pp x dp x cp; with EP in a MoE model, dp is the attention
// data parallelism inside the EP group. A training row's layout is the training model's to read.
void place(const Measurement& m, Setup& s, std::size_t notes_at) {
  const bool attention = s.model.is_moe() && m.ep && *m.ep > 1;
  Mapping given{m.tp.value_or(0), 0, m.ep.value_or(0), m.cp.value_or(0), m.pp.value_or(0), m.dp.value_or(0)};
  if (attention && m.dp) {
    given.dp_attn = *m.dp;
    given.dp = 1;
  }
  const bool stated = m.tp || m.pp || m.dp || m.cp;
  if (m.scenario != "training_step") {
    // The planner's layout, when it chooses one, holds the row's batch (or 32 sequences a chip when
    // the engine chose it) at its mean context.
    const double isl = m.isl.value_or(1024), osl = m.osl.value_or(0);
    const LayoutLoad load{m.batch.value_or(32.0 * m.chips), isl + osl / 2, isl};
    if (const auto l = complete_layout(s.in, m.chips, given, load)) {
      s.in.map = l->map;
      s.replicas = l->map.dp;
      if (l->inferred) {
        s.envelope.push_back(fmt::format("layout not {}: the planner's best for it, {}",
                                         stated ? "fully stated" : "stated", l->map.str()));
      }
      return;
    }
  }
  // What the row states, unstated degrees 1 but the data-parallel one, which takes the rest (tensor
  // parallelism over the chips, up to the heads and the domain, when nothing is stated).
  Mapping map;
  if (stated) {
    map = fill_stated(s.model, m.chips, given);
  } else {
    int tp = m.chips;
    while (tp > 1 && (s.model.attn.heads % tp != 0 || tp > s.hw->domain_size)) --tp;
    map.tp = tp;
    map.ep = std::max(1, given.ep);
    map.dp = m.chips / tp;
  }
  // What is wrong with the stated layout reads first, before the formats and the engine.
  std::vector<std::string> wrong;
  if (attention && map.stage_chips() % map.ep != 0) {
    wrong.emplace_back("EP does not divide the stage: experts spread over the stage");
    map.ep = map.stage_chips();
  }
  if (auto why = validate(map, s.model, map.chips())) wrong.push_back(*why);
  s.envelope.insert(s.envelope.begin() + static_cast<std::ptrdiff_t>(notes_at), wrong.begin(), wrong.end());
  s.in.map = map;
  s.replicas = map.dp;
  if (m.scenario != "training_step" && (!stated || map.chips() != m.chips)) {
    s.envelope.emplace_back(stated ? "degrees do not multiply to chips, and the planner finds no layout that fits"
                                   : "parallel degrees not stated: tensor parallel over the chips assumed (no "
                                     "layout the planner tried fits)");
  }
}

Result<Setup> setup(const Measurement& m, const ValidationContext& ctx) {
  Setup s;
  const bool training = m.scenario == "training_step";
  bool inferred = false;
  s.engine = training ? nullptr : row_engine(m, ctx, inferred);
  if (s.engine == nullptr && !inferred && ctx.engines && !training) {
    return Error{"engine", "", "unknown serving engine in row " + m.id, "generic, vllm, sglang or trtllm"};
  }
  // The row resolves as a command resolves its flags (scenario.hpp): model, chip, the engine's
  // KV format where none is stated, and its memory rule (model.md §18.4).
  TRY(question, Args::parse(row_spec(), row_question(m, ctx)));
  ScenarioDefaults d;
  if (s.engine != nullptr) d.engine = s.engine->name;
  TRY(sc, resolve_scenario(*ctx.catalogs, question, d));
  s.model = *sc.model;
  s.hw = sc.hw.get();
  s.in = sc.deployment();
  s.in.model = &s.model;
  s.in.eff = ctx.efficiency ? ctx.efficiency(*s.hw) : Efficiency{};
  const std::size_t layout_notes_at = s.envelope.size();
  if (!m.formats.empty()) {
    std::string said;
    for (const auto& [cls, dt] : m.formats) said += (said.empty() ? "" : ", ") + cls + " " + std::string(name(dt));
    s.envelope.push_back("formats from the notes: " + said);
  }
  if (!sc.kv_stated && !training) {
    s.envelope.push_back(fmt::format("KV format not stated: {} assumed{}", name(s.in.precision.kv),
                                     s.engine != nullptr ? " (the engine's default)" : ""));
  }
  if (s.engine != nullptr) {
    s.envelope.push_back(
        fmt::format("engine {}{}: KV in {} of {}, at most {} sequences{}{}", s.engine->name,
                    inferred ? " (named in the notes)" : "", format_number(s.engine->memory_fraction),
                    memory_rule_words(s.engine->memory_rule), format_number(s.engine->max_seqs),
                    s.engine->compute_sustained != 1.0
                        ? fmt::format(", GEMMs at {} of the chip's rate", format_number(s.engine->compute_sustained))
                        : "",
                    host_time_clause(*s.engine)));
  }
  place(m, s, layout_notes_at);
  return s;
}

// The largest batch per replica whose KV fits at `context` (for rows where the engine chose it).
double max_batch(const Setup& s, double context) {
  auto fits = [&](double b) { return evaluate_decode(s.in, b, context).feasible; };
  if (!fits(s.in.map.pp)) return 0;
  double lo = s.in.map.pp, hi = lo;
  while (fits(hi * 2) && hi < 1 << 20) hi *= 2;
  hi *= 2;
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

double peak_bf16(const Hardware& hw) {
  return hw.peak(DType::kBf16).si();
}

// Model FLOPs of a pass per token (inference: 2 N + attention), from the ideal step cost.
double model_flops(const ModelSpec& m, const Step& st, const Precision& p) {
  return step_cost(m, st, p, ExpertTouch::kExpected, false).flops_total().si();
}

TrainStack row_stack(const Measurement& m) {
  return value_in(kStackNames, m.settings.value("stack", std::string("any"))).value_or(TrainStack::kAny);
}

bool layout_unstated(const Measurement& m) {
  return !m.tp && !m.pp && !m.dp && !m.cp && !m.ep;
}

}  // namespace llmecon::validate_internal
