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

// A training step through the training model (model.md §24): the row's layout, and in its notes
// zero=, recompute=, recompute_modules= (Megatron's names joined by '+'; selective implied), schedule=, chunks=,
// micro_batch=, train_dtype=, attention_dtype=, optimizer=, grad_dtype=, dp_overlap=, tp_overlap=, ep_overlap=,
// ep_comm_sms=, moe_imbalance= and offload_modules= (Megatron's names joined by '+'). An unstated micro-batch or
// recomputation is the fastest that fits (as `train
// --search` would choose); an unstated ZeRO stage is 1 and the schedule 1F1B.
namespace {
TrainStack row_stack(const Measurement& m) {
  return value_in(kStackNames, m.settings.value("stack", std::string("any"))).value_or(TrainStack::kAny);
}
}  // namespace

bool layout_unstated(const Measurement& m) {
  return !m.tp && !m.pp && !m.dp && !m.cp && !m.ep;
}

std::optional<double> training_seq_len(const Measurement& m) {
  if (m.isl) return m.isl;
  if (layout_unstated(m) && row_stack(m) == TrainStack::kMaxText) return 2048.0;
  return std::nullopt;
}

std::optional<double> predict_training(const Measurement& m, Setup& s, std::optional<double> k_override,
                                       std::optional<double> host_override) {
  // A row that states no degrees is predicted with the layout the search chooses under its stack's
  // constraints (model.md §24.6), flagged as inferred; its batch, when unstated too, is the
  // per-device batch the search finds fastest, and its sequence the stack's default.
  const bool inferred = layout_unstated(m);
  const TrainStack stack = row_stack(m);
  const std::optional<double> isl = training_seq_len(m);
  if (!isl || (!m.batch && !inferred)) return std::nullopt;
  if (!m.isl) s.envelope.emplace_back("sequence length unstated: MaxText's default 2048");
  TrainSetup ts;
  ts.model = &s.model;
  ts.hw = s.hw;
  ts.eff = s.in.eff;
  if (s.in.eff.ideal()) {
    ts.kernel_efficiency = 1.0;
    ts.expert_host = Seconds{};
  }
  if (k_override) ts.kernel_efficiency = *k_override;
  if (host_override) ts.expert_host = units::seconds(*host_override);
  ts.seq_len = *isl;
  ts.global_batch = m.batch.value_or(m.chips);
  ts.price = s.hw->price.value;
  // The notes' training settings through `train`'s own arguments and readers (train_args.hpp).
  static const CommandSpec train_spec = [] {
    CommandSpec c;
    c.name = "train";
    c.args = train_arguments();
    return c;
  }();
  Json given = train_settings(m);
  if (m.weight_dtype == "fp8") given["train_dtype"] = "fp8";  // FP8 weights: FP8 GEMMs
  auto args = Args::parse(train_spec, given);
  if (!args) return std::nullopt;  // read_row_notes checked these values
  const Args& a = *args;
  const Seconds host = ts.expert_host;
  const double kernel = ts.kernel_efficiency;
  if (!read_train_settings(a, ts)) return std::nullopt;
  ts.expert_host = host;  // the fitted constant (or none when ideal), not the flag's rounding of it
  ts.kernel_efficiency = kernel;
  ts.failures = FailureModel{};  // a measured step: no interruptions
  ts.dropout = m.settings.value("dropout", 0) != 0;
  ts.flash_attention = m.settings.value("flash", 1) != 0;
  if (m.metric == "training_gpu_hours") {
    if (!a.has("tokens")) return std::nullopt;
    ts.tokens = a.number("tokens");
  }
  // A source's MFU over another peak (mfu_peak: the FP8 peak, or another chip's in TFLOP/s) is
  // llmecon's over the bf16 peak times bf16 peak / that peak.
  double per_peak = 1.0;
  if (m.settings.contains("mfu_peak")) {
    const std::string peak = m.settings["mfu_peak"].get<std::string>();
    const double divisor = peak == "fp8"    ? s.hw->peak(DType::kFp8).si()
                           : peak == "bf16" ? peak_bf16(*s.hw)
                                            : mfu_peak_tflops(peak).value_or(0.0) * 1e12;
    if (divisor > 0) per_peak = peak_bf16(*s.hw) / divisor;
  }
  auto metric_of = [&](const TrainResult& r) -> std::optional<double> {
    const double chips = m.chips;
    if (m.metric == "mfu") return r.mfu * per_peak;
    if (m.metric == "hfu") return r.hfu * per_peak;
    if (m.metric == "tflops_per_gpu") return r.model_flops.si() / r.time.step.si() / chips / 1e12;
    if (m.metric == "training_gpu_hours") return r.run.gpu_hours;
    if (m.metric == "training_tokens_per_s_per_gpu") return r.tokens_per_s.si() / chips;
    return std::nullopt;
  };
  if (inferred) {
    TrainSearchSpace space = stack_space(stack);
    if (a.has("zero")) space.zero = {static_cast<int>(a.number("zero"))};
    if (a.has("recompute") || a.has("recompute_modules")) {
      const auto rc = read_train_layout(a, s.model);
      if (!rc) return std::nullopt;
      space.recompute = {rc->recompute};
      space.module_sets = {rc->modules};
    }
    // Per-device batches when the row states none; the fastest per token wins.
    std::vector<double> batches{ts.global_batch};
    if (!m.batch) {
      batches.clear();
      for (double per_device : {1.0, 2.0, 4.0, 8.0, 16.0}) batches.push_back(per_device * static_cast<double>(m.chips));
    }
    std::optional<TrainResult> best;
    double best_per_token = 0;
    std::vector<double> top;
    for (double gb : batches) {
      TrainSetup x = ts;
      x.global_batch = gb;
      TrainSearch found = search_training(x, m.chips, TrainObjective::kTime, space, 5);
      if (found.ranked.empty()) {
        // The row ran, so where no layout fits the memory model is what is off: rank them as if
        // HBM held them, and say so.
        x.usable_hbm *= 8.0;
        found = search_training(x, m.chips, TrainObjective::kTime, space, 5);
        if (found.ranked.empty()) continue;
        found.ranked.front().reason = "predicted not to fit in HBM";
      }
      const double per_token = found.ranked.front().time.step.si() / gb;
      if (!best || per_token < best_per_token) {
        best_per_token = per_token;
        top.clear();
        for (const TrainResult& r : found.ranked)
          if (auto v = metric_of(r)) top.push_back(*v);
        best = std::move(found.ranked.front());
      }
    }
    if (!best || top.empty()) return std::nullopt;
    const auto [lo, hi] = std::minmax_element(top.begin(), top.end());
    if (!best->reason.empty()) s.envelope.push_back(best->reason + " at the inferred layouts");
    s.envelope.push_back(fmt::format("training: {} (layout: inferred, {} search{}; the top {} layouts give {}-{})",
                                     best->layout.str(), name(stack), m.batch ? "" : ", per-device batch searched",
                                     top.size(), format_number(*lo), format_number(*hi)));
    return metric_of(*best);
  }
  const Mapping& mp = s.in.map;
  auto stated = read_train_layout(a, s.model);
  if (!stated) return std::nullopt;
  TrainLayout l = *stated;
  l.tp = mp.tp;
  l.pp = mp.pp;
  l.cp = mp.cp;
  l.ep = m.ep.value_or(1);
  const int slice = l.tp * l.pp * l.cp;
  if (slice <= 0 || m.chips % slice != 0) return std::nullopt;
  l.dp = m.chips / slice;
  // Unstated micro-batch or recomputation: the fastest that fits, as `train --search` chooses.
  std::vector<double> micro{1, 2, 4, 8};
  if (a.has("micro_batch")) micro = {l.micro_batch};
  std::vector<std::pair<Recompute, unsigned>> rec;
  if (a.has("recompute") || a.has("recompute_modules")) {
    rec = {{l.recompute, l.modules}};
  } else {
    rec = recompute_choices(s.model, TrainSearchSpace{});
  }
  // The fastest layout that fits; when none fits, the one needing the least memory, noted (the
  // row ran, so the memory model is what is off).
  std::optional<TrainResult> best, least;
  for (double mb : micro) {
    for (const auto& [r, mods] : rec) {
      TrainLayout x = l;
      x.micro_batch = mb;
      x.recompute = r;
      x.modules = mods;
      TrainResult res = evaluate_training(ts, x, false);
      if (res.time.step.si() <= 0) continue;  // the layout itself is invalid
      if (!res.feasible) {
        if (!least || res.memory.total() < least->memory.total()) least = std::move(res);
        continue;
      }
      if (!best || res.time.step < best->time.step) best = std::move(res);
    }
  }
  if (!best && least) {
    s.envelope.push_back("predicted not to fit in HBM: " + least->reason);
    best = std::move(least);
  }
  if (!best) return std::nullopt;
  if (micro.size() > 1 || rec.size() > 1) {
    s.envelope.push_back("training: " + best->layout.str() +
                         " (unstated micro-batch or recomputation: the fastest that fits)");
  } else {
    s.envelope.push_back("training: " + best->layout.str());
  }
  return metric_of(*best);
}

// A row under traffic through the serving simulator (model.md §23): offline (every request at
// t = 0, the batch as a cap when given) or online (a closed loop of `batch` clients, or Poisson
// arrivals at qps=), with the row's engine scheduler. Rates are the benchmark's: every request's
// tokens over the whole run; latencies are means over every request.
namespace {

std::optional<SimResult> simulate_run(const Measurement& m, const Setup& s, const std::optional<RowWorkload>& workload,
                                      std::vector<std::string>& envelope, double isl, double osl) {
  SimConfig c;
  c.decode = s.in;
  c.decode.map.dp = 1;
  c.replicas = std::max(1, static_cast<int>(s.replicas));
  Scheduler& k = c.scheduler;
  if (s.engine != nullptr) {
    apply_engine(k, *s.engine);
  } else {
    k.max_seqs = 1e5;  // no engine named: the batch is what fits
  }
  k.prefix_caching = false;  // benchmark prompts are random
  const Json serve = serve_settings(m);
  if (serve.contains("max_seqs")) k.max_seqs = serve["max_seqs"].get<double>();
  if (serve.contains("max_batched_tokens")) k.max_batched_tokens = serve["max_batched_tokens"].get<double>();
  if (serve.contains("kv_tokens")) k.kv_tokens = serve["kv_tokens"].get<double>();
  if (serve.contains("scheduler_steps")) k.decode_steps = static_cast<int>(serve["scheduler_steps"].get<double>());
  if (s.engine != nullptr) scale_caps_to_ranks(k, *s.engine, c.decode.map.dp_attn);
  // chunked_prefill=true|false in the notes; else the benchmark harness's own default: trtllm-bench
  // runs with chunked context on (ExecutorSettingsConfig.chunking = True in tensorrt_llm/bench),
  // unlike trtllm-serve (model.md §19).
  if (m.settings.contains("chunked_prefill")) {
    k.chunked_prefill = m.settings["chunked_prefill"] == "true";
  } else if (m.notes.find("trtllm-bench") != std::string::npos && !k.chunked_prefill) {
    k.chunked_prefill = true;
    envelope.emplace_back("trtllm-bench: chunked context on (the harness's default)");
  }
  const double context = static_cast<double>(c.decode.model->max_context);
  if (s.engine != nullptr) apply_unchunked(k, *s.engine, context, serve.contains("max_batched_tokens"));
  Workload& w = c.workload;
  w.isl = LengthDist::fixed(std::max(1.0, isl));
  w.osl = LengthDist::fixed(std::max(1.0, osl));
  if (workload) {
    if (workload->preset.isl) w.isl = *workload->preset.isl;
    if (workload->preset.osl) w.osl = *workload->preset.osl;
  }
  for (const char* key : {"isl", "osl"}) {
    if (!serve.contains(key)) continue;
    auto dist = parse_length_dist(serve[key].get<std::string>(), key);
    if (dist) (std::string_view(key) == "isl" ? w.isl : w.osl) = *dist;
  }
  const bool counted = serve.contains("requests");  // the run's request count is published
  std::optional<long> shared_requests;              // groups x users, when the notes state the users
  auto requests_or = [&](double fallback) {
    return counted           ? serve["requests"].get<double>()
           : shared_requests ? static_cast<double>(*shared_requests)
                             : fallback;
  };
  std::string how;
  if (serve.contains("shared_prefix")) {
    // read_row_notes checked it; the shared prompts are what a prefix cache is for.
    const SharedPrefix sp = parse_shared_prefix(serve["shared_prefix"].get<std::string>(), "shared_prefix").value();
    sp.apply(w);
    if (sp.users > 0) shared_requests = w.requests;
    k.prefix_caching = s.engine == nullptr || s.engine->prefix_caching;
    envelope.push_back("shared prefix: " + sp.str());
  }
  w.stream = !(m.settings.contains("stream") && m.settings["stream"] == "false");
  if (m.settings.contains("ignore_eos") && m.settings["ignore_eos"] == "false") {
    envelope.emplace_back("ignore_eos off: the output lengths were caps, simulated as generated in full");
  }
  const bool server = workload && (workload->mode == "server" || workload->mode == "interactive") &&
                      !serve.contains("rate") && !serve.contains("stages") && !m.batch;
  if (m.scenario == "offline_throughput" || (workload && workload->mode == "offline")) {
    w.arrivals.kind = ArrivalKind::kOffline;
    if (m.batch) k.max_seqs = std::max(1.0, *m.batch / c.replicas);
    w.requests = static_cast<long>(requests_or(3000));
    how = fmt::format("offline: {} requests at t = 0{}", w.requests, counted ? "" : " (not published: 3000 assumed)");
  } else if (m.batch) {
    w.arrivals = Arrivals{ArrivalKind::kClosed, 1, 1, static_cast<int>(*m.batch), 0};
    w.requests = static_cast<long>(requests_or(std::max(500.0, 10 * *m.batch)));
    how = fmt::format("closed loop of {} clients, {} requests{}", format_number(*m.batch), w.requests,
                      counted ? "" : " (count not published)");
  } else if (serve.contains("stages")) {
    // Staged load: the row's metric is its reported stage's (read_row_notes checked the stages).
    w.arrivals = Arrivals{ArrivalKind::kPoisson, 1};
    w.arrivals.stages = parse_stages(serve["stages"].get<std::string>(), "stages").value();
    if (serve.contains("report_stage")) w.arrivals.report_stage = serve["report_stage"].get<int>();
    w.arrivals.exact_count = serve.contains("arrival") && serve["arrival"].get<std::string>() == "poisson-exact";
    w.requests = 1;
    how = fmt::format("staged Poisson arrivals ({}), stage {} reported", serve["stages"].get<std::string>(),
                      w.arrivals.reported_stage());
  } else if (serve.contains("rate")) {
    const double qps = serve["rate"].get<double>();
    w.arrivals = Arrivals{ArrivalKind::kPoisson, qps};
    w.arrivals.exact_count = serve.contains("arrival") && serve["arrival"].get<std::string>() == "poisson-exact";
    w.requests = static_cast<long>(requests_or(1000));
    how = fmt::format("Poisson arrivals at {} req/s, {} requests", format_number(qps), w.requests);
  } else if (server) {
    // A benchmark's server scenario: the highest Poisson rate that meets its latency limits, and
    // the metric there (as `simulate --find-rate` finds it).
    w.arrivals = Arrivals{ArrivalKind::kPoisson, 1};
    w.requests = static_cast<long>(requests_or(1000));
  } else {
    return std::nullopt;
  }
  w.requests = std::clamp(w.requests, 1L, 200000L);
  c.warmup_fraction = 0;
  Result<SimResult> r = Error{};
  if (server) {
    c.slo = workload->slo;
    auto found = find_rate(c);
    if (!found) {
      envelope.push_back("rate search refused: " + found.error().what);
      return std::nullopt;
    }
    how = fmt::format("{} {}: the highest Poisson rate meeting its limits, {} req/s, {} requests",
                      workload->preset.name, workload->mode, format_number(found->rate), w.requests);
    r = std::move(found->at);
  } else {
    r = simulate(c);
  }
  if (!r) {
    envelope.push_back("simulation refused: " + r.error().what);
    return std::nullopt;
  }
  envelope.push_back(
      fmt::format("simulated ({}): {} scheduler, {} tokens and {} sequences per iteration{}", how,
                  k.chunked_prefill ? "chunked-prefill" : "whole-prompt", format_number(k.max_batched_tokens),
                  format_number(k.max_seqs),
                  k.decode_steps > 1 ? fmt::format(", {} decode steps per scheduling", k.decode_steps) : ""));
  if (r->preemptions > 0) envelope.push_back(fmt::format("{} preemptions", r->preemptions));
  return std::move(r).value();
}

}  // namespace

std::optional<double> simulate_row(const Measurement& m, const Setup& s, const std::optional<RowWorkload>& workload,
                                   std::vector<std::string>& envelope, double isl, double osl, SimRuns* runs) {
  // The run: every column and note but the metric, its value, the id and the free text (of which
  // simulate_run reads only whether it names trtllm-bench).
  const std::string key =
      runs == nullptr
          ? std::string()
          : fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", m.model, m.hardware, m.chips,
                        m.tp.value_or(0), m.pp.value_or(0), m.ep.value_or(0), m.dp.value_or(0), m.cp.value_or(0),
                        m.weight_dtype, m.kv_dtype, m.scenario, m.batch.value_or(-1), isl, osl, m.engine,
                        json_text(m.settings), m.notes.find("trtllm-bench") != std::string::npos);
  if (runs != nullptr) {
    if (auto it = runs->find(key); it != runs->end()) {
      envelope.insert(envelope.end(), it->second.envelope.begin(), it->second.envelope.end());
      return it->second.result ? serving_metric(*it->second.result, m.metric) : std::nullopt;
    }
  }
  const std::size_t before = envelope.size();
  std::optional<SimResult> r = simulate_run(m, s, workload, envelope, isl, osl);
  std::optional<double> value = r ? serving_metric(*r, m.metric) : std::nullopt;
  if (runs != nullptr) {
    (*runs)[key] = SimRun{
        std::move(r), std::vector<std::string>(envelope.begin() + static_cast<std::ptrdiff_t>(before), envelope.end())};
  }
  return value;
}

std::optional<double> serving_metric(const SimResult& r, const std::string& metric) {
  // The run's rates: with every request counted, over the whole run as the harness timed it; a
  // staged run's, over its reported stage (model.md §23.6).
  if (metric == "output_tokens_per_s") return r.output_throughput.si();
  if (metric == "input_tokens_per_s") return r.input_throughput.si();
  if (metric == "total_tokens_per_s") return (r.input_throughput + r.output_throughput).si();
  if (metric == "requests_per_s") return r.requests_per_s;
  // "<family>[_pNN]_<unit>": the mean, or the NN-th percentile, of a latency in s or ms.
  const std::pair<const char*, const Latency*> families[] = {
      {"ttft", &r.ttft}, {"tpot", &r.tpot}, {"itl", &r.itl}, {"e2e", &r.e2e}};
  for (const auto& [family, dist] : families) {
    const std::string f = family;
    if (metric.rfind(f + "_", 0) != 0) continue;
    std::string rest = metric.substr(f.size() + 1);
    if (rest == "latency_s") rest = "s";  // e2e_latency_s: the mean
    const bool ms = rest.size() >= 2 && rest.compare(rest.size() - 2, 2, "ms") == 0;
    const double scale = ms ? 1e3 : 1.0;
    if (rest == "s" || rest == "ms") return dist->mean.si() * scale;
    for (const auto& [name, q] :
         {std::pair{"p50_", &dist->p50}, std::pair{"p90_", &dist->p90}, std::pair{"p99_", &dist->p99}}) {
      if (rest.rfind(name, 0) == 0) return q->si() * scale;
    }
  }
  return std::nullopt;
}

}  // namespace llmecon::validate_internal
