// Serving-engine profiles (data/engines/*.toml; docs/model.md §18.4).
#include "catalog/serving_engine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "catalog/toml_reader.hpp"
#include "units/embedded.hpp"

namespace llmecon {

namespace {

constexpr const char* kScheduleHint =
    "decode-first (the running decodes, then new prefills), prefill-first, or a registered schedule";
constexpr const char* kAdmissionHint =
    "on-demand (blocks as tokens arrive, preempting when out), reserve (the whole output up front), token-ratio "
    "(SGLang's estimate), or a registered policy";

// A scheduling policy's name under [batching] (absent: nullopt). The simulator's registry (a
// layer above the catalog) is checked when a simulation starts; here only its spelling.
Result<std::optional<std::string>> policy_name(const TomlReader& rd, const toml::table& batching,
                                               const std::string& origin, const char* key, const char* hint) {
  TRY(name, rd.str(batching, "batching", key, false));
  if (name.empty()) return std::optional<std::string>{};
  const bool spelled = std::all_of(name.begin(), name.end(),
                                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
  if (!spelled || name.size() > 64) {
    return Error{origin, std::string("batching.") + key, "'" + name + "' is not a policy's name",
                 std::string(hint) + " (lowercase letters, digits and '-')"};
  }
  return std::optional<std::string>{name};
}

// [batching]: the scheduler's caps, chunking, KV blocks, prefix caching, order and KV admission.
Status read_batching(const TomlReader& rd, const toml::table& root, const std::string& origin, ServingEngine& e) {
  TRY(batching, rd.table(root, "", "batching", true));
  TRY_STATUS(rd.only_keys(*batching, "batching",
                          {"max_seqs", "max_batched_tokens", "chunked_prefill", "kv_block_tokens", "prefix_caching",
                           "schedule", "unchunked_schedule", "unchunked_budget", "kv_admission", "caps_per"}));
  TRY(seqs, rd.number(*batching, "batching", "max_seqs", true, 1, 1e8));
  TRY(tokens, rd.number(*batching, "batching", "max_batched_tokens", true, 1, 1e8));
  e.max_seqs = *seqs;
  e.max_batched_tokens = *tokens;
  TRY(chunked, rd.boolean(*batching, "batching", "chunked_prefill"));
  if (!chunked) return Error{origin, "batching.chunked_prefill", "missing required field", "true or false"};
  e.chunked_prefill = *chunked;
  TRY(block, rd.number(*batching, "batching", "kv_block_tokens", false, 1, 4096));
  if (block) {
    if (*block != std::floor(*block)) return Error{origin, "batching.kv_block_tokens", "a whole number of tokens", ""};
    e.kv_block_tokens = static_cast<int>(*block);
  }
  TRY(prefix, rd.boolean(*batching, "batching", "prefix_caching"));
  if (prefix) e.prefix_caching = *prefix;
  TRY(schedule, policy_name(rd, *batching, origin, "schedule", kScheduleHint));
  if (schedule) e.schedule = *schedule;
  TRY(unchunked, policy_name(rd, *batching, origin, "unchunked_schedule", kScheduleHint));
  e.unchunked_schedule = unchunked;
  TRY(budget, rd.str(*batching, "batching", "unchunked_budget", false));
  if (!budget.empty() && budget != "context") {
    return Error{origin, "batching.unchunked_budget", "unknown budget '" + budget + "'",
                 "context (max(the model's context, 2048) tokens when prefills are not chunked)"};
  }
  e.unchunked_budget_context = budget == "context";
  TRY(admission, policy_name(rd, *batching, origin, "kv_admission", kAdmissionHint));
  if (admission) e.admission = *admission;
  TRY(caps, rd.str(*batching, "batching", "caps_per", false));
  if (!caps.empty() && caps != "rank" && caps != "instance") {
    return Error{origin, "batching.caps_per", "unknown scope '" + caps + "'",
                 "rank (each attention data-parallel rank's scheduler) or instance"};
  }
  e.caps_per_rank = caps == "rank";
  return {};
}

// [admission]: the token-ratio rule's constants, required with kv_admission = "token-ratio".
Status read_admission(const TomlReader& rd, const toml::table& root, const std::string& origin, ServingEngine& e) {
  TRY(t, rd.table(root, "", "admission"));
  if (t == nullptr) {
    if (e.admission == kTokenRatioAdmission) {
      return Error{origin, "admission", "token-ratio admission needs its constants",
                   "an [admission] table: init_ratio, min_ratio_factor, decay_steps, clip_new_tokens, retract_steps"};
    }
    return {};
  }
  if (e.admission != kTokenRatioAdmission) {
    return Error{origin, "admission", "only token-ratio admission has constants", "kv_admission = \"token-ratio\""};
  }
  TRY_STATUS(rd.only_keys(*t, "admission",
                          {"init_ratio", "min_ratio_factor", "decay_steps", "clip_new_tokens", "retract_steps"}));
  TRY(init, rd.number(*t, "admission", "init_ratio", true, 1e-3, 1));
  TRY(factor, rd.number(*t, "admission", "min_ratio_factor", true, 0, 1));
  TRY(steps, rd.number(*t, "admission", "decay_steps", true, 1, 1e7));
  TRY(clip, rd.number(*t, "admission", "clip_new_tokens", true, 1, 1e8));
  TRY(retract, rd.number(*t, "admission", "retract_steps", true, 0, 1e6));
  e.token_ratio = TokenRatio{*init, *factor, *steps, *clip, *retract};
  return {};
}

// [launch]: how the engine's launch command spells a layout (plan --emit; model.md §17.4).
Status read_launch(const TomlReader& rd, const toml::table& root, const std::string& origin, ServingEngine& e) {
  TRY(launch, rd.table(root, "", "launch"));
  if (launch != nullptr) {
    TRY_STATUS(
        rd.only_keys(*launch, "launch", {"tp_counts", "ep", "attention_dp", "fp8_weights", "kv_fp8", "multinode"}));
    auto one_of = [&](const char* key, std::initializer_list<const char*> choices) -> Result<std::string> {
      TRY(v, rd.str(*launch, "launch", key, true));
      for (const char* c : choices)
        if (v == c) return v;
      std::string all;
      for (const char* c : choices) all += (all.empty() ? "" : " or ") + std::string(c);
      return Error{origin, std::string("launch.") + key, "unknown value '" + v + "'", all};
    };
    ServingEngine::Launch l;
    TRY(tp, one_of("tp_counts", {"tensor", "instance"}));
    TRY(ep, one_of("ep", {"switch", "degree"}));
    TRY(dp, one_of("attention_dp", {"flags", "options"}));
    TRY(w8, one_of("fp8_weights", {"flag", "checkpoint"}));
    TRY(kv_value, rd.str(*launch, "launch", "kv_fp8", true));
    l.tp_counts_instance = tp == "instance";
    l.ep_switch = ep == "switch";
    l.options_file = dp == "options";
    l.fp8_from_checkpoint = w8 == "checkpoint";
    l.kv_fp8 = kv_value;
    if (launch->contains("multinode")) {
      TRY(multi, one_of("multinode", {"ranks", "dp-local", "mpi"}));
      l.multinode = multi;
    }
    if (e.flags.count("launch") == 0) {
      return Error{origin, "flags.launch", "a [launch] table needs the command", "launch = \"serve {model}\""};
    }
    e.launch = l;
  }
  return {};
}

}  // namespace

Result<ServingEngine> parse_engine_toml(std::string_view text, const std::string& origin) {
  TRY(root, TomlReader::parse(text, origin));
  const TomlReader rd(root, origin);
  TRY_STATUS(rd.only_keys(root, "",
                          {"name", "display_name", "sources", "notes", "memory", "batching", "admission", "kv",
                           "overhead", "efficiency", "flags", "launch", "mentioned_as", "engine", "versions"}));
  ServingEngine e;
  TRY(name, rd.str(root, "", "name", true));
  TRY(display, rd.str(root, "", "display_name", true));
  TRY(sources, rd.strings(root, "", "sources", false));
  TRY(notes, rd.str(root, "", "notes", true));
  TRY(mentioned, rd.strings(root, "", "mentioned_as", false));
  for (std::string& x : mentioned) {
    for (char& c : x) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (x.empty()) return Error{origin, "mentioned_as", "an empty name", "the words a text names this engine by"};
  }
  e.mentioned_as = mentioned;
  TRY(base, rd.str(root, "", "engine", false));
  TRY(versions, rd.strings(root, "", "versions", false));
  if (base.empty() != versions.empty()) {
    return Error{origin, base.empty() ? "engine" : "versions", "a release line names its engine and its versions",
                 "engine = \"vllm\" with versions = [\"0.6\", \"0.7\"]"};
  }
  for (const std::string& v : versions) {
    if (v.empty()) return Error{origin, "versions", "an empty version", "a release prefix such as \"0.6\""};
  }
  e.engine = base;
  e.versions = versions;
  e.name = name;
  e.display_name = display;
  e.sources = sources;
  e.notes = notes;
  if (e.name.empty()) return Error{origin, "name", "must not be empty", ""};

  TRY(memory, rd.table(root, "", "memory", true));
  TRY_STATUS(rd.only_keys(*memory, "memory", {"rule", "fraction"}));
  TRY(rule, rd.str(*memory, "memory", "rule", true));
  const auto memory_rule = value_in(kMemoryRuleNames, rule);
  if (!memory_rule) {
    return Error{origin, "memory.rule", "unknown rule '" + rule + "'",
                 "total: a fraction of all memory; free: of what the weights leave; kv: of all memory for the KV "
                 "alone"};
  }
  e.memory_rule = *memory_rule;
  TRY(fraction, rd.number(*memory, "memory", "fraction", true, 0.05, 1.0));
  e.memory_fraction = *fraction;

  TRY_STATUS(read_batching(rd, root, origin, e));
  TRY_STATUS(read_admission(rd, root, origin, e));

  TRY(kv, rd.table(root, "", "kv", true));
  TRY_STATUS(rd.only_keys(*kv, "kv", {"fp8_checkpoint"}));
  TRY(fp8kv, rd.str(*kv, "kv", "fp8_checkpoint", true));
  auto d = parse_dtype(fp8kv);
  if (!d) return Error{origin, "kv.fp8_checkpoint", d.error().what, d.error().hint};
  e.fp8_checkpoint_kv = *d;

  TRY(overhead, rd.table(root, "", "overhead", true));
  TRY_STATUS(rd.only_keys(*overhead, "overhead", {"host", "host_per_sequence", "cuda_graphs"}));
  TRY(host, rd.quantity<Seconds>(*overhead, "overhead", "host", true));
  if (host->si() > 1) return Error{origin, "overhead.host", "at most 1 s per step", ""};
  e.host_overhead = *host;
  TRY(per_seq, rd.quantity<Seconds>(*overhead, "overhead", "host_per_sequence", false));
  if (per_seq) {
    if (per_seq->si() < 0 || per_seq->si() > 0.01) {
      return Error{origin, "overhead.host_per_sequence", "from 0 to 10 ms per sequence", "e.g. \"40 us\""};
    }
    e.host_per_sequence = *per_seq;
  }
  TRY(graphs, rd.boolean(*overhead, "overhead", "cuda_graphs"));
  if (!graphs) return Error{origin, "overhead.cuda_graphs", "missing required field", "true or false"};
  e.cuda_graphs = *graphs;

  TRY(efficiency, rd.table(root, "", "efficiency"));
  if (efficiency != nullptr) {
    TRY_STATUS(rd.only_keys(*efficiency, "efficiency", {"compute_sustained", "source"}));
    TRY(sustained, rd.number(*efficiency, "efficiency", "compute_sustained", true, 0.05, 1.0));
    TRY(why, rd.str(*efficiency, "efficiency", "source", true));
    if (why.empty()) return Error{origin, "efficiency.source", "must not be empty", "where the value comes from"};
    e.compute_sustained = *sustained;
    e.compute_sustained_source = why;
  }

  TRY(flags, rd.table(root, "", "flags"));
  if (flags != nullptr) {
    for (const auto& [k, v] : *flags) {
      auto s = v.value<std::string>();
      if (!s) return Error{origin, "flags." + std::string(k.str()), "expected a string", ""};
      e.flags[std::string(k.str())] = *s;
    }
  }
  TRY_STATUS(read_launch(rd, root, origin, e));
  return e;
}

bool ServingEngine::runs_version(std::string_view version) const {
  for (const std::string& v : versions) {
    if (version.substr(0, v.size()) != v) continue;
    if (version.size() == v.size() || version[v.size()] == '.') return true;
  }
  return false;
}

const ServingEngine* find_engine(const std::vector<ServingEngine>& engines, std::string_view name,
                                 std::string_view version) {
  if (!version.empty()) {
    for (const auto& e : engines)
      if (e.engine == name && e.runs_version(version)) return &e;
  }
  for (const auto& e : engines)
    if (e.name == name) return &e;
  return nullptr;
}

std::string host_time_clause(const ServingEngine& e) {
  std::string out;
  if (e.host_overhead.si() > 0) out = ", host " + format(e.host_overhead) + " per step";
  if (e.host_per_sequence.si() > 0) {
    out += (out.empty() ? ", host " : " + ") + format(e.host_per_sequence) + " per sequence";
  }
  return out;
}

Result<std::vector<ServingEngine>> builtin_engines() {
  std::vector<ServingEngine> out;
  for (const auto& f : embedded_engines()) {
    TRY(e, parse_engine_toml(f.content, "builtin:" + std::string(f.path)));
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace llmecon
