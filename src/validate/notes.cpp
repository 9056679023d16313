// A validation row's notes (shared/validation/README.md, "Machine-readable keys"): each `key=value`
// item read through the argument the analysis that uses it declares (train_args.hpp,
// simulate_args.hpp), or through the few keys only a measurement has. A misspelled key or a bad
// value is the row's error, never a silent fallback.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <system_error>

#include "args/arg_builders.hpp"
#include "notes.hpp"
#include "simulate/simulate.hpp"
#include "simulate/simulate_args.hpp"
#include "train/train_args.hpp"
#include "units/json_text.hpp"
#include "validate/validate.hpp"

namespace llmecon {
namespace {

using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
using T = ArgType;

// A notes key and the argument of an analysis it sets (its key there; the notes may spell it
// as the benchmark does: qps for --rate, max_num_seqs for --max-seqs).
struct Borrowed {
  const char* note;
  const char* arg;
};
constexpr Borrowed kTrainKeys[] = {
    {"zero", "zero"},
    {"recompute", "recompute"},
    {"recompute_modules", "recompute_modules"},
    {"offload_modules", "offload_modules"},
    {"offload_optimizer_states", "offload_optimizer_states"},
    {"schedule", "schedule"},
    {"chunks", "chunks"},
    {"micro_batch", "micro_batch"},
    {"microbatch", "micro_batch"},  // the schema's spelling
    {"train_dtype", "train_dtype"},
    {"attention_dtype", "attention_dtype"},
    {"optimizer", "optimizer"},
    {"fp8_recipe", "fp8_recipe"},
    {"attention_kernel", "attention_kernel"},
    {"pipeline_split", "pipeline_split"},
    {"grad_dtype", "grad_dtype"},
    {"dp_overlap", "dp_overlap"},
    {"tp_overlap", "tp_overlap"},
    {"ep_overlap", "ep_overlap"},
    {"ep_comm_sms", "ep_comm_sms"},
    {"moe_imbalance", "moe_imbalance"},
    {"train_tokens", "tokens"},
    {"stack", "stack"},
};
constexpr Borrowed kServeKeys[] = {
    {"qps", "rate"},
    {"requests", "requests"},
    {"max_num_seqs", "max_seqs"},
    {"max_num_batched_tokens", "max_batched_tokens"},
    {"kv_cache_tokens", "kv_tokens"},
    {"num_scheduler_steps", "scheduler_steps"},
    {"isl_dist", "isl"},
    {"stages", "stages"},
    {"report_stage", "report_stage"},
    {"arrival", "arrival"},
    {"osl_dist", "osl"},
    {"shared_prefix", "shared_prefix"},
};
// The row's own columns may be restated in the notes (a table's "batch=16 tp=4"); they must agree.
constexpr const char* kColumnKeys[] = {"chips", "tp", "pp", "ep", "dp", "cp", "batch", "isl", "osl"};

ArgSpec renamed(const std::vector<ArgSpec>& from, const Borrowed& b) {
  for (const ArgSpec& a : from) {
    if (a.key == b.arg) {
      ArgSpec x = a;
      x.key = b.note;
      return x;
    }
  }
  LLMECON_ASSERT(false, "a notes key borrows an argument its analysis does not declare");
  return {};
}

CommandSpec build_notes_spec() {
  CommandSpec c;
  c.name = "notes";
  c.help = "the machine-readable keys of a validation row's notes";
  const std::vector<ArgSpec> train = train_arguments();
  const std::vector<ArgSpec> serve = simulate_arguments();
  for (const Borrowed& b : kTrainKeys) c.args.push_back(renamed(train, b));
  for (const Borrowed& b : kServeKeys) c.args.push_back(renamed(serve, b));
  // Keys only a measurement has.
  c.args.push_back(arg("engine", T::kString, "the serving engine: vllm, sglang, trtllm, tgi, jax, megatron, ..."));
  c.args.push_back(arg("engine_version", T::kString, "the engine's version as published"));
  c.args.push_back(arg("formats", T::kString, "formats per tensor class: experts:fp4,attn:fp8,kv:fp8"));
  c.args.push_back(arg("workload", T::kString,
                       "a named benchmark workload and scenario: NAME:offline, NAME:server or NAME:interactive"));
  c.args.push_back(choice("chunked_prefill", "the engine chunked its prefills", {"true", "false"}));
  c.args.push_back(
      choice("stream", "the client streamed the answers (false: TTFT is the end-to-end time)", {"true", "false"}));
  c.args.push_back(choice("ignore_eos", "every request generated its whole output length (false: lengths are caps)",
                          {"true", "false"}));
  c.args.push_back(integer("dropout", "dropout masks stored (1) or not (0)", "", 0, 0, 1));
  c.args.push_back(integer("flash", "a fused attention kernel (1) or scores stored (0)", "", 1, 0, 1));
  c.args.push_back(
      arg("mfu_peak", T::kString,
          "the peak the source's MFU and HFU divide by: bf16 (the chip's dense 16-bit peak, as "
          "llmecon's), fp8 (its FP8 peak, as llm-foundry's FP8 tables), or TFLOP/s (another chip's peak)"));
  return c;
}

bool key_char(char c) {
  return std::islower(static_cast<unsigned char>(c)) != 0 || std::isdigit(static_cast<unsigned char>(c)) != 0 ||
         c == '_';
}

Error notes_error(const Measurement& m, const std::string& key, std::string what, std::string hint) {
  return Error{"row " + m.id, "notes " + key, std::move(what), std::move(hint)};
}

}  // namespace

std::optional<double> mfu_peak_tflops(const std::string& text) {
  if (text == "bf16" || text == "fp8") return 0.0;
  double v = 0;
  const auto* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc{} || p != end || !(v > 0) || !std::isfinite(v)) return std::nullopt;
  return v;
}

const CommandSpec& notes_spec() {
  static const CommandSpec spec = build_notes_spec();
  return spec;
}

std::vector<std::pair<std::string, std::string>> note_items(std::string_view notes) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t i = 0; i < notes.size(); ++i) {
    // A key starts an item: at the start, or after ';', a space or a tab; lowercase letters,
    // digits and '_', beginning with a letter (prose such as "DP=4" is not a key).
    if (i > 0 && notes[i - 1] != ';' && notes[i - 1] != ' ' && notes[i - 1] != '\t') continue;
    if (std::islower(static_cast<unsigned char>(notes[i])) == 0) continue;
    std::size_t end = i;
    while (end < notes.size() && key_char(notes[end])) ++end;
    if (end >= notes.size() || notes[end] != '=') continue;
    const std::size_t start = end + 1;
    const std::size_t stop = std::min(notes.find_first_of("; \t", start), notes.size());
    out.emplace_back(std::string(notes.substr(i, end - i)), std::string(notes.substr(start, stop - start)));
    i = stop;
  }
  return out;
}

Status read_row_notes(Measurement& m) {
  const CommandSpec& spec = notes_spec();
  Json raw = Json::object();
  for (const auto& [key, text] : note_items(m.notes)) {
    if (std::find(std::begin(kColumnKeys), std::end(kColumnKeys), key) != std::end(kColumnKeys)) {
      // A column restated: it must say what the column says.
      std::optional<double> column;
      if (key == "chips") column = m.chips;
      if (key == "tp" && m.tp) column = *m.tp;
      if (key == "pp" && m.pp) column = *m.pp;
      if (key == "ep" && m.ep) column = *m.ep;
      if (key == "dp" && m.dp) column = *m.dp;
      if (key == "cp" && m.cp) column = *m.cp;
      if (key == "batch") column = m.batch;
      if (key == "isl") column = m.isl;
      if (key == "osl") column = m.osl;
      const auto v = parse_number_text(text);
      if (!v || !column || *v != *column) {
        return notes_error(m, key,
                           fmt::format("'{}' does not match the {} column ({})", text, key,
                                       column ? format_number(*column) : std::string("empty")),
                           "state the value once, in its column");
      }
      continue;
    }
    const ArgSpec* a = spec.arg(key);
    if (a == nullptr) {
      std::vector<std::string> known;
      for (const ArgSpec& x : spec.args) known.push_back(x.key);
      // A key longer than any declared one has no near miss worth the edit distances.
      const std::string near =
          key.size() > 64 ? std::string() : closest_names(key, known, std::max<std::size_t>(2, key.size() / 3));
      std::string all;
      for (const std::string& k : known) all += (all.empty() ? "" : ", ") + k;
      return notes_error(m, key, "unknown key",
                         near.empty() ? "the notes' keys are " + all : "did you mean " + near + "?");
    }
    auto v = Args::from_text(*a, text);
    if (!v) return notes_error(m, key, v.error().what, v.error().hint);
    if (raw.contains(key) && raw[key] != *v) {
      return notes_error(m, key, fmt::format("given twice, as {} and {}", json_text(raw[key]), json_text(*v)),
                         "state each key once");
    }
    raw[key] = *v;
  }
  auto parsed = Args::parse(spec, raw);
  if (!parsed) {
    const Error& e = parsed.error();
    // The argument's flag names the key: --max-num-seqs is max_num_seqs.
    std::string key = e.where.rfind("--", 0) == 0 ? e.where.substr(2) : e.where;
    std::replace(key.begin(), key.end(), '-', '_');
    return notes_error(m, key, e.what, e.hint);
  }
  const Args& a = *parsed;
  // What the analyses parse further, checked here so a bad value is this row's error.
  for (const char* key : {"isl_dist", "osl_dist"}) {
    if (a.has(key)) {
      if (auto d = parse_length_dist(a.text(key), key); !d) return notes_error(m, key, d.error().what, d.error().hint);
    }
  }
  if (a.has("stages")) {
    if (auto s = parse_stages(a.text("stages"), "stages"); !s)
      return notes_error(m, "stages", s.error().what, s.error().hint);
  }
  if (a.has("shared_prefix")) {
    if (auto sp = parse_shared_prefix(a.text("shared_prefix"), "shared_prefix"); !sp)
      return notes_error(m, "shared_prefix", sp.error().what, sp.error().hint);
  }
  if (a.has("arrival") && a.text("arrival") != "poisson" && a.text("arrival") != "poisson-exact") {
    return notes_error(m, "arrival", "a measured run's arrivals are poisson or poisson-exact", "arrival=poisson-exact");
  }
  if (a.has("recompute_modules")) {
    if (!parse_recompute_modules(a.text("recompute_modules"))) {
      return notes_error(m, "recompute_modules", fmt::format("unknown module in '{}'", a.text("recompute_modules")),
                         "name core_attn, layernorm, moe_act, mla_up_proj, mlp, shared_experts or moe, joined by '+'");
    }
    if (a.has("recompute") && a.text("recompute") != "selective") {
      return notes_error(m, "recompute_modules", "modules apply to selective recomputation only",
                         fmt::format("drop recompute={} or recompute_modules", a.text("recompute")));
    }
  }
  if (a.has("offload_modules") && !parse_offload_modules(a.text("offload_modules"))) {
    return notes_error(m, "offload_modules", fmt::format("unknown module in '{}'", a.text("offload_modules")),
                       "name core_attn, attn_proj, expert_fc1 or moe_act, joined by '+'");
  }
  if (a.has("mfu_peak") && !mfu_peak_tflops(a.text("mfu_peak"))) {
    return notes_error(m, "mfu_peak", fmt::format("'{}' is not bf16, fp8 or a peak in TFLOP/s", a.text("mfu_peak")),
                       "mfu_peak=fp8, or mfu_peak=989.4 for the H100 SXM's bf16 peak");
  }
  if (a.has("workload")) {
    auto w = row_workload(a.text("workload"), m.scenario);
    if (!w) return notes_error(m, "workload", w.error().what, w.error().hint);
  }
  m.settings = a.json();
  return {};
}

namespace {
Json borrowed(const Measurement& m, const Borrowed* begin, const Borrowed* end) {
  Json out = Json::object();
  for (const Borrowed* b = begin; b != end; ++b) {
    if (m.settings.contains(b->note)) out[b->arg] = m.settings[b->note];
  }
  return out;
}
}  // namespace

Json train_settings(const Measurement& m) {
  return borrowed(m, std::begin(kTrainKeys), std::end(kTrainKeys));
}
Json serve_settings(const Measurement& m) {
  return borrowed(m, std::begin(kServeKeys), std::end(kServeKeys));
}

Result<RowWorkload> row_workload(std::string_view text, const std::string& scenario) {
  RowWorkload w;
  const std::size_t colon = text.find(':');
  const std::string name(text.substr(0, colon));
  w.mode = colon == std::string_view::npos ? (scenario == "offline_throughput" ? "offline" : "server")
                                           : std::string(text.substr(colon + 1));
  if (w.mode != "offline" && w.mode != "server" && w.mode != "interactive") {
    return Error{"", "", fmt::format("unknown scenario '{}' of workload {}", w.mode, name),
                 "NAME:offline, NAME:server or NAME:interactive"};
  }
  // The embedded presets, parsed once: every row that names a workload is read twice (its notes
  // at CSV time, its prediction later), and a file may hold thousands.
  static const Result<std::vector<WorkloadPreset>> presets = builtin_workloads();
  if (!presets) return presets.error();
  std::vector<std::string> names;
  for (const WorkloadPreset& p : *presets) {
    names.push_back(p.name);
    if (p.name == name) w.preset = p;
  }
  if (w.preset.name.empty()) {
    return Error{"", "", fmt::format("unknown workload '{}'", name),
                 "did you mean " + closest_names(name, names) + "?"};
  }
  const std::string& slo = w.mode == "server" ? w.preset.slo_server : w.preset.slo_interactive;
  // A preset of lengths alone (a dataset's) names no scenario: the row states its load.
  if (colon == std::string_view::npos && w.mode == "server" && slo.empty()) w.mode = "lengths";
  if (w.mode != "offline" && w.mode != "lengths") {
    if (slo.empty()) {
      return Error{"", "", fmt::format("workload {} publishes no {} latency limits", name, w.mode),
                   "use NAME:offline, or state qps= for a fixed rate"};
    }
    auto s = parse_slo(slo, "workload");
    if (!s) return s.error();
    w.slo = *s;
  }
  return w;
}

}  // namespace llmecon
