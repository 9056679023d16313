// Validation against published measurements, and calibration (docs/model.md §18-§19).
#include "llmecon/validate.hpp"

#include "notes.hpp"

#include "llmecon/plan.hpp"
#include "llmecon/simulate.hpp"
#include "llmecon/train.hpp"
#include "llmecon/train_args.hpp"

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

#include "llmecon/comm.hpp"
#include "llmecon/embedded.hpp"
#include "llmecon/parallel.hpp"
#include "llmecon/units_parse.hpp"

namespace llmecon {

// ---------------------------------------------------------------------------------------------
// Predictions

namespace {

struct Setup {
  ModelSpec model;
  const Hardware* hw = nullptr;
  DeploymentInput in;
  double replicas = 1;
  const ServingEngine* engine = nullptr;  ///< the row's engine, when its notes name one
  std::vector<std::string> envelope;
};

// The serving engine a row ran on: `engine=NAME` in its notes, else an engine the notes name
// (TensorRT-LLM, vLLM, SGLang), else none (model.md §19).
const ServingEngine* row_engine(const Measurement& m, const ValidationContext& ctx, bool& inferred) {
  inferred = true;
  if (ctx.engines == nullptr) return nullptr;
  auto find = [&](std::string_view name) -> const ServingEngine* {
    for (const auto& e : *ctx.engines)
      if (e.name == name) return &e;
    return nullptr;
  };
  inferred = false;
  if (!m.engine.empty()) return find(m.engine);
  if (const auto pos = m.notes.find("engine="); pos != std::string::npos) {
    std::size_t end = pos + 7;
    while (end < m.notes.size() && (std::isalnum(static_cast<unsigned char>(m.notes[end])) != 0)) ++end;
    return find(m.notes.substr(pos + 7, end - pos - 7));
  }
  inferred = true;
  std::string lower;
  for (char c : m.notes) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("trt-llm") != std::string::npos || lower.find("tensorrt-llm") != std::string::npos ||
      lower.find("trtllm") != std::string::npos)
    return find("trtllm");
  if (lower.find("sglang") != std::string::npos) return find("sglang");
  if (lower.find("vllm") != std::string::npos) return find("vllm");
  return nullptr;
}

Result<Setup> setup(const Measurement& m, const ValidationContext& ctx) {
  Setup s;
  Result<ModelSpec> model = Error{};
  if (m.model.find('/') != std::string::npos || m.model.find(".json") != std::string::npos) {
    std::filesystem::path p = std::filesystem::path(ctx.csv_dir) / m.model;
    model = load_model_file(p.string());
  } else {
    model = ctx.models->resolve(m.model, "model");
  }
  if (!model) return model.error();
  s.model = std::move(model).value();
  auto hw = ctx.hw->get(m.hardware, "hardware");
  if (!hw) return hw.error();
  s.hw = *hw;
  const bool moe = s.model.is_moe();
  // The schema's degrees: chips = tp x pp x dp x cp; with DP attention (MoE) dp is the attention
  // data parallelism inside the EP group.
  const bool stated = m.tp || m.pp || m.dp || m.cp;
  int tp = m.tp.value_or(1), pp = m.pp.value_or(1), dp = m.dp.value_or(1), cp = m.cp.value_or(1);
  // Degrees left unstated (none, or EP without TP, or degrees that do not multiply to the chips)
  // are the planner's choice (model.md §17.5); this guess stands only when it finds nothing.
  bool infer = !stated || (moe && m.ep && !m.tp);
  if (!stated) {
    tp = m.chips;
    while (tp > 1 && (s.model.attn.heads % tp != 0 || tp > s.hw->domain_size)) --tp;
    dp = m.chips / tp;
  } else if (static_cast<double>(tp) * pp * dp * cp != m.chips) {
    // Each degree is at most the chips (10^6), so the product is computed in doubles.
    const double known_d = static_cast<double>(tp) * pp * cp;
    const int known = known_d > m.chips ? m.chips + 1 : static_cast<int>(known_d);
    if (m.chips % known == 0 && !m.dp) {
      dp = m.chips / known;
    } else {
      infer = true;
    }
  }
  Mapping map;
  map.tp = tp;
  map.pp = pp;
  map.cp = cp;
  if (moe && m.ep && *m.ep > 1) {
    map.dp_attn = dp;
    map.ep = *m.ep;
    map.dp = 1;
    if ((map.stage_chips()) % map.ep != 0) {
      s.envelope.emplace_back("EP does not divide the stage: experts spread over the stage");
      map.ep = map.stage_chips();
    }
  } else {
    map.dp = dp;
  }
  if (auto why = validate(map, s.model, map.chips())) s.envelope.push_back(*why);
  s.replicas = map.dp;
  s.in.model = &s.model;
  s.in.hw = s.hw;
  s.in.map = map;
  auto dt = [](const std::string& name, DType fallback) {
    if (name.empty()) return fallback;
    auto d = parse_dtype(name);
    return d ? *d : fallback;
  };
  const Precision native = Precision::native(s.model);
  const DType w = dt(m.weight_dtype, native.weights);
  // int8/int4 are weight-only: matmuls run at bf16 (schema).
  const bool weight_only = w == DType::kInt8 || w == DType::kInt4;
  bool inferred = false;
  s.engine = m.scenario == "training_step" ? nullptr : row_engine(m, ctx, inferred);
  if (s.engine == nullptr && !inferred && ctx.engines != nullptr && m.scenario != "training_step") {
    return Error{"engine", "", "unknown serving engine in row " + m.id, "generic, vllm, sglang or trtllm"};
  }
  // An unstated KV format is what the row's engine gives this checkpoint (model.md §18.4).
  const DType kv_default = default_kv(s.engine, w);
  s.in.precision = Precision::with_weights(s.model, w, weight_only ? DType::kBf16 : w, dt(m.kv_dtype, kv_default));
  if (!m.formats.empty()) {
    // Per tensor class, as the notes state them (model.md §19).
    Precision& p = s.in.precision;
    std::string said;
    for (const auto& [cls, d] : m.formats) {
      if (cls == "experts") p.experts = d;
      if (cls == "dense") p.weights = d;
      if (cls == "act") p.act = d;
      if (cls == "kv") p.kv = d;
      said += (said.empty() ? "" : ", ") + cls + " " + std::string(name(d));
    }
    s.envelope.push_back("formats from the notes: " + said);
  }
  if (m.kv_dtype.empty() && m.formats.count("kv") == 0 && m.scenario != "training_step") {
    s.envelope.push_back(fmt::format("KV format not stated: {} assumed{}", name(kv_default),
                                     s.engine != nullptr ? " (the engine's default)" : ""));
  }
  s.in.eff = ctx.efficiency ? ctx.efficiency(*s.hw) : Efficiency{};
  if (s.engine != nullptr) {
    apply_engine(s.in, *s.engine);
    s.envelope.push_back(
        fmt::format("engine {}{}: KV in {} of {} memory, at most {} sequences{}", s.engine->name,
                    inferred ? " (named in the notes)" : "", format_number(s.engine->memory_fraction),
                    s.engine->fraction_of_free ? "the free" : "all", format_number(s.engine->max_seqs),
                    s.engine->compute_sustained != 1.0
                        ? fmt::format(", GEMMs at {} of the chip's rate", format_number(s.engine->compute_sustained))
                        : ""));
  }
  if (infer && m.scenario != "training_step") {
    // Keep what the row states; the planner picks the rest for the row's batch (or 32 sequences a
    // chip when the engine chose it) at its mean context.
    Mapping require{0, 0, 0, 0, 0, 0};
    if (m.tp) require.tp = *m.tp;
    if (m.pp) require.pp = *m.pp;
    if (m.cp) require.cp = *m.cp;
    if (m.ep) require.ep = *m.ep;
    const double isl = m.isl.value_or(1024), osl = m.osl.value_or(0);
    const double batch = m.batch.value_or(32.0 * m.chips);
    if (auto best = infer_mapping(s.in, m.chips, require, batch, isl + osl / 2, isl)) {
      s.in.map = *best;
      s.replicas = best->dp;
      s.envelope.push_back(
          fmt::format("layout not {}: the planner's best for it, {}", stated ? "fully stated" : "stated", best->str()));
    } else {
      s.envelope.emplace_back(stated ? "degrees do not multiply to chips, and the planner finds no layout that fits"
                                     : "parallel degrees not stated: tensor parallel over the chips assumed (no "
                                       "layout the planner tried fits)");
    }
  }
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
std::optional<double> predict_training(const Measurement& m, Setup& s, std::optional<double> k_override,
                                       std::optional<double> host_override) {
  if (!m.batch || !m.isl) return std::nullopt;
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
  ts.seq_len = *m.isl;
  ts.global_batch = *m.batch;
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
  const double chips = m.chips;
  if (m.metric == "mfu") return best->mfu;
  if (m.metric == "hfu") return best->hfu;
  if (m.metric == "tflops_per_gpu") return best->model_flops.si() / best->time.step.si() / chips / 1e12;
  if (m.metric == "training_gpu_hours") return best->run.gpu_hours;
  if (m.metric == "training_tokens_per_s_per_gpu") return best->tokens_per_s.si() / chips;
  return std::nullopt;
}

// A row under traffic through the serving simulator (model.md §23): offline (every request at
// t = 0, the batch as a cap when given) or online (a closed loop of `batch` clients, or Poisson
// arrivals at qps=), with the row's engine scheduler. Rates are the benchmark's: every request's
// tokens over the whole run; latencies are means over every request.
std::optional<double> simulate_row(const Measurement& m, const Setup& s, const std::optional<RowWorkload>& workload,
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
  // chunked_prefill=true|false in the notes; else the benchmark harness's own default: trtllm-bench
  // runs with chunked context on (ExecutorSettingsConfig.chunking = True in tensorrt_llm/bench),
  // unlike trtllm-serve (model.md §19).
  if (m.settings.contains("chunked_prefill")) {
    k.chunked_prefill = m.settings["chunked_prefill"] == "true";
  } else if (m.notes.find("trtllm-bench") != std::string::npos && !k.chunked_prefill) {
    k.chunked_prefill = true;
    envelope.emplace_back("trtllm-bench: chunked context on (the harness's default)");
  }
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
  auto requests_or = [&](double fallback) { return counted ? serve["requests"].get<double>() : fallback; };
  std::string how;
  const bool server = workload && workload->mode != "offline" && !serve.contains("rate") && !m.batch;
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
  } else if (serve.contains("rate")) {
    const double qps = serve["rate"].get<double>();
    w.arrivals = Arrivals{ArrivalKind::kPoisson, qps};
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
  envelope.push_back(fmt::format("simulated ({}): {} scheduler, {} tokens and {} sequences per iteration", how,
                                 k.chunked_prefill ? "chunked-prefill" : "whole-prompt",
                                 format_number(k.max_batched_tokens), format_number(k.max_seqs)));
  if (r->preemptions > 0) envelope.push_back(fmt::format("{} preemptions", r->preemptions));
  const double span = std::max(1e-12, r->makespan_s);
  if (m.metric == "output_tokens_per_s") return static_cast<double>(r->output_tokens) / span;
  if (m.metric == "input_tokens_per_s") return static_cast<double>(r->input_tokens) / span;
  if (m.metric == "total_tokens_per_s") return static_cast<double>(r->input_tokens + r->output_tokens) / span;
  if (m.metric == "requests_per_s") return static_cast<double>(r->completed) / span;
  if (m.metric == "ttft_s") return r->ttft_s.mean;
  if (m.metric == "tpot_ms") return r->tpot_s.mean * 1e3;
  if (m.metric == "e2e_latency_s") return r->e2e_s.mean;
  return std::nullopt;
}

}  // namespace

namespace {

// model.md §24.3: the training kernel efficiency k_t and the MoE host time per local expert c_e,
// fitted together. A row's step is its kernels' time over k_t plus its host time, units x c_e
// (units: local experts x MoE layers x micro-batches on the critical path, read off two
// predictions a step of c_e apart). k_t is the median over the rows of their kernels' time at
// k_t = 1 over the measured step less the host time; c_e is the median over the MoE rows of the
// host time that would make each exact. The two alternate until they settle (each round starts at
// the last one's fit, so the search picks its layouts there); the
// k-fold and leave-one-source-out errors refit both on the rows they keep.
std::optional<ValidationReport::TrainingFit> fit_training(const std::vector<Measurement>& rows,
                                                          const ValidationContext& ctx) {
  std::vector<Measurement> tr;
  for (const auto& m : rows)
    if (m.scenario == "training_step") tr.push_back(m);
  if (tr.empty()) return std::nullopt;
  ValidationContext c = ctx;
  c.fit_training = false;
  using Take = std::function<bool(std::size_t)>;
  // The prediction of each row `take` selects at (k, host); NaN for the rest and where none.
  auto predictions = [&](double k, double host, const Take& take) {
    ValidationContext ck = c;
    ck.train_kernel_efficiency = k;
    ck.train_expert_host = host;
    std::vector<Measurement> part;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < tr.size(); ++i) {
      if (!take(i)) continue;
      part.push_back(tr[i]);
      at.push_back(i);
    }
    std::vector<double> p(tr.size(), std::nan(""));
    const ValidationReport r = validate(part, ck);
    for (std::size_t j = 0; j < at.size(); ++j)
      if (r.rows[j].predicted && *r.rows[j].predicted > 0) p[at[j]] = *r.rows[j].predicted;
    return p;
  };
  // A metric proportional to the step time (GPU-hours) or to its inverse (throughput, MFU).
  auto step_of = [&](std::size_t i, double v) { return tr[i].metric == "training_gpu_hours" ? v : 1.0 / v; };
  auto median = [](const std::vector<double>& v) { return v.empty() ? std::nan("") : quantiles(v).p50; };
  constexpr int kMaxRounds = 40;
  struct Fit {
    double k = 1, host = 0;
    int moe = 0;
    bool settled = false;
    std::vector<double> units;  ///< each row's seconds of step per second of c_e (0: no routed experts)
  };
  auto fit = [&](const Take& take, Fit f) {
    constexpr double kDelta = 10e-6;
    for (int round = 0; round < kMaxRounds; ++round) {
      const Fit before = f;
      // At the current fit: each row's step, and its units of host time (its step's rise per
      // second of c_e), read off two predictions a step of c_e apart.
      const std::vector<double> p = predictions(f.k, f.host, take), pd = predictions(f.k, f.host + kDelta, take);
      std::vector<double> units(tr.size(), 0.0), ratio;
      for (std::size_t i = 0; i < tr.size(); ++i) {
        if (!std::isfinite(p[i]) || !std::isfinite(pd[i])) continue;
        units[i] = std::max(0.0, (step_of(i, pd[i]) - step_of(i, p[i])) / kDelta);
        // The kernels' share scales as 1/k, the host's does not.
        const double host = f.host * units[i], measured = step_of(i, tr[i].value) - host;
        const double r = (step_of(i, p[i]) - host) / measured;
        if (measured > 0 && std::isfinite(r) && r > 0) ratio.push_back(r);
      }
      f.k *= median(ratio);
      if (!std::isfinite(f.k)) return f;
      const std::vector<double> p0 = predictions(f.k, f.host, take);
      std::vector<double> implied;
      for (std::size_t i = 0; i < tr.size(); ++i) {
        if (!(units[i] > 0) || !std::isfinite(p0[i])) continue;  // no routed experts
        implied.push_back(f.host + (step_of(i, tr[i].value) - step_of(i, p0[i])) / units[i]);
      }
      f.moe = static_cast<int>(implied.size());
      f.units = units;
      f.host = implied.empty() ? 0.0 : std::max(0.0, median(implied));
      f.settled = std::fabs(f.k - before.k) <= 1e-5 * f.k && std::fabs(f.host - before.host) <= 1e-5 * f.host + 1e-9;
      if (f.settled) break;
    }
    return f;
  };
  // The absolute errors of rows `take` at a fit.
  auto errors_at = [&](const Fit& f, const Take& take) {
    std::vector<double> out;
    if (!std::isfinite(f.k)) return out;
    const std::vector<double> p = predictions(f.k, f.host, take);
    for (std::size_t i = 0; i < tr.size(); ++i)
      if (std::isfinite(p[i])) out.push_back(std::fabs(100.0 * (p[i] - tr[i].value) / tr[i].value));
    return out;
  };
  ValidationReport::TrainingFit f;
  const Fit all = fit([](std::size_t) { return true; }, Fit{});
  f.fitted = all.k;
  f.expert_host = all.host;
  f.moe_rows = all.moe;
  f.settled = all.settled;
  std::vector<double> in = errors_at(all, [](std::size_t) { return true; });
  if (in.empty()) return std::nullopt;
  f.rows = static_cast<int>(in.size());
  f.in_sample_median_ape = quantiles(in).p50;
  f.in_sample_max_ape = *std::max_element(in.begin(), in.end());
  std::set<std::string> sources;
  for (const auto& m : tr) sources.insert(m.source);
  f.sources = static_cast<int>(sources.size());
  // Each held-out row's error, and its measured step over the predicted one, the MoE rows (those
  // the full fit found host time in) apart.
  std::vector<double> loso, ratio_dense, ratio_moe;
  for (const auto& src : sources) {
    const Fit kept = fit([&](std::size_t i) { return tr[i].source != src; }, all);  // from the full fit
    if (!std::isfinite(kept.k)) continue;
    const std::vector<double> p = predictions(kept.k, kept.host, [&](std::size_t i) { return tr[i].source == src; });
    for (std::size_t i = 0; i < tr.size(); ++i) {
      if (!std::isfinite(p[i])) continue;
      loso.push_back(std::fabs(100.0 * (p[i] - tr[i].value) / tr[i].value));
      const bool moe = i < all.units.size() && all.units[i] > 0;
      (moe ? ratio_moe : ratio_dense).push_back(step_of(i, tr[i].value) / step_of(i, p[i]));
    }
  }
  if (!loso.empty()) {
    const Quantiles q = quantiles(loso);
    f.loso_median_ape = q.p50;
    f.loso_p90_ape = q.p90;
    f.loso_max_ape = *std::max_element(loso.begin(), loso.end());
  }
  if (!ratio_dense.empty()) f.loso_step_ratio_dense = quantiles(ratio_dense);
  if (!ratio_moe.empty()) f.loso_step_ratio_moe = quantiles(ratio_moe);
  f.dense_rows = static_cast<int>(ratio_dense.size());
  std::vector<double> kfold;
  for (std::size_t fold = 0; fold < 5; ++fold) {
    const Fit kept = fit([&](std::size_t i) { return i % 5 != fold; }, all);
    for (double e : errors_at(kept, [&](std::size_t i) { return i % 5 == fold; })) kfold.push_back(e);
  }
  if (!kfold.empty()) f.kfold_median_ape = quantiles(kfold).p50;
  return f;
}

}  // namespace

ValidationReport validate(const std::vector<Measurement>& rows, const ValidationContext& ctx) {
  ValidationReport rep;
  std::map<std::string, std::vector<double>> apes, scenario_apes;
  for (const auto& m : rows) {
    RowResult r;
    r.id = m.id;
    r.metric = m.metric;
    r.scenario = m.scenario;
    r.hardware = m.hardware;
    r.measured = m.value;
    if (!m.notes_error.empty()) {
      r.skip_reason = m.notes_error;
      r.envelope = "error: the notes";
      rep.rows.push_back(r);
      continue;
    }
    auto s_r = setup(m, ctx);
    if (!s_r) {
      r.skip_reason = s_r.error().message();
      r.envelope = "outside: " + s_r.error().what;
      rep.rows.push_back(r);
      continue;
    }
    Setup s = std::move(s_r).value();
    s.in.model = &s.model;
    // A named workload gives the lengths the row leaves out (means for the one-step formula).
    std::optional<RowWorkload> workload;
    if (m.settings.contains("workload")) {
      auto w = row_workload(m.settings["workload"].get<std::string>(), m.scenario);
      if (w) workload = std::move(w).value();  // read_row_notes checked it
    }
    const double isl = m.isl ? *m.isl : workload && workload->preset.isl ? workload->preset.isl->mean() : 0;
    const double osl = m.osl ? *m.osl : workload && workload->preset.osl ? workload->preset.osl->mean() : 0;
    if (workload) {
      auto length = [](const std::optional<double>& column, const std::optional<LengthDist>& preset) {
        return column ? format_number(*column) : preset ? preset->str() : std::string("not published");
      };
      s.envelope.push_back(fmt::format("workload {} ({}): input {}, output {}", workload->preset.name, workload->mode,
                                       length(m.isl, workload->preset.isl), length(m.osl, workload->preset.osl)));
    }
    if (!m.isl && !(workload && workload->preset.isl) && m.scenario != "training_step") {
      r.skip_reason = workload ? "input length published by neither the row nor workload " + workload->preset.name
                               : "input length not published (production traffic)";
      r.envelope = "outside: no sequence lengths";
      rep.rows.push_back(r);
      continue;
    }
    std::optional<double> pred;
    const std::size_t setup_notes = s.envelope.size();  // before the one-step prediction adds its own
    if (m.scenario == "training_step") {
      pred = predict_training(m, s, ctx.train_kernel_efficiency, ctx.train_expert_host);
    } else if (m.scenario == "decode_fixed_batch" || m.scenario == "offline_throughput" ||
               m.scenario == "online_load") {
      const double ctxlen = isl + osl / 2;
      double batch = m.batch ? *m.batch / s.replicas : 0;
      if (!m.batch) {
        batch = max_batch(s, isl + osl);
        if (s.engine != nullptr && batch > s.engine->max_seqs) {
          batch = s.engine->max_seqs;
          s.envelope.emplace_back("batch not published: the engine's sequence cap is assumed");
        } else {
          s.envelope.emplace_back("batch not published: the largest that fits is assumed");
        }
      }
      if (m.scenario == "online_load" && !m.batch) s.envelope.emplace_back("request-rate load: queueing not modelled");
      if (batch < 1) {
        r.skip_reason = "the model does not fit on this mapping";
        r.envelope = "outside: does not fit";
        rep.rows.push_back(r);
        continue;
      }
      batch = std::max(batch, static_cast<double>(s.in.map.pp));
      const PhaseResult d = evaluate_decode(s.in, batch, ctxlen);
      if (!d.feasible) s.envelope.push_back("predicted not to fit in HBM: " + d.reason);
      const double tpot = d.latency.si();
      const double total_batch = batch * s.replicas;
      const PhaseResult pre = isl > 0 ? evaluate_prefill(s.in, batch, isl) : PhaseResult{};
      const double t_pre = isl > 0 ? pre.latency.si() : 0.0;
      const bool includes_prefill = m.scenario != "decode_fixed_batch";
      const double wave = (includes_prefill ? t_pre : 0.0) + std::max(osl, 1.0) * tpot;
      if (m.metric == "ms_per_output_token" || m.metric == "tpot_ms") pred = tpot * 1e3;
      if (m.metric == "decode_latency_s") pred = osl * tpot;
      if (m.metric == "e2e_latency_s") pred = t_pre + osl * tpot;
      if (m.metric == "output_tokens_per_s") pred = includes_prefill ? total_batch * osl / wave : total_batch / tpot;
      if (m.metric == "input_tokens_per_s") pred = total_batch * isl / wave;
      if (m.metric == "total_tokens_per_s") pred = total_batch * (isl + osl) / wave;
      if (m.metric == "ttft_s") {
        pred = evaluate_prefill(s.in, 1, isl).latency.si();
        s.envelope.emplace_back("TTFT without queueing");
      }
      if (m.metric == "mfu") {
        const double f = model_flops(s.model, Step{Phase::kDecode, batch, 1, ctxlen}, s.in.precision);
        const double rate =
            includes_prefill
                ? (f * osl + model_flops(s.model, Step{Phase::kPrefill, batch, isl, 0}, s.in.precision)) / wave
                : f / tpot;
        pred = rate * s.replicas / (m.chips * peak_bf16(*s.hw));
      }
    } else if (m.scenario == "prefill") {
      // Unpublished batch: the notes' tokens per device per pass when given, else 8K tokens per
      // attention group.
      double per_group = 8192;
      if (const auto pos = m.notes.find(" tokens per device per forward pass"); pos != std::string::npos) {
        std::size_t b = pos;
        while (b > 0 && (std::isdigit(static_cast<unsigned char>(m.notes[b - 1])) || m.notes[b - 1] == ',')) --b;
        std::string digits;
        for (std::size_t i = b; i < pos; ++i)
          if (m.notes[i] != ',') digits += m.notes[i];
        if (!digits.empty()) per_group = std::stod(digits);
      }
      double batch =
          m.batch ? *m.batch / s.replicas : std::max(1.0, std::ceil(per_group / std::max(isl, 1.0))) * s.in.map.dp_attn;
      if (!m.batch) {
        s.envelope.push_back(fmt::format("batch not published: {} tokens per attention group per pass assumed",
                                         format_number(per_group)));
      }
      const PhaseResult p = evaluate_prefill(s.in, batch, isl);
      const double t = p.latency.si();
      if (m.metric == "prefill_latency_s" || m.metric == "ttft_s") pred = t;
      if (m.metric == "input_tokens_per_s") pred = batch * isl * s.replicas / t;
      if (m.metric == "mfu") {
        pred = model_flops(s.model, Step{Phase::kPrefill, batch, isl, 0}, s.in.precision) / t * s.replicas /
               (m.chips * peak_bf16(*s.hw));
      }
    }
    // Traffic through the simulator; the one-step formula stays as the comparison.
    if (ctx.simulate_traffic && (m.scenario == "offline_throughput" || m.scenario == "online_load") &&
        m.metric != "mfu") {
      std::vector<std::string> notes(s.envelope.begin(), s.envelope.begin() + static_cast<std::ptrdiff_t>(setup_notes));
      if (auto sim = simulate_row(m, s, workload, notes, isl, osl)) {
        r.fixed_batch = pred;
        pred = sim;
        s.envelope = std::move(notes);
      }
    }
    if (!pred) {
      r.skip_reason = "no prediction for metric " + m.metric + " in scenario " + m.scenario;
      r.envelope = "outside: unsupported metric";
      rep.rows.push_back(r);
      continue;
    }
    r.predicted = *pred;
    r.error_pct = 100.0 * (*pred - m.value) / m.value;
    std::string env;
    for (const auto& e : s.envelope) env += (env.empty() ? "" : "; ") + e;
    r.envelope = env.empty() ? "ok" : env;
    apes[m.metric].push_back(std::fabs(*r.error_pct));
    if (r.fixed_batch) {
      scenario_apes[m.scenario].push_back(std::fabs(*r.error_pct));
      scenario_apes[m.scenario + " fixed batch"].push_back(100.0 * std::fabs(*r.fixed_batch - m.value) / m.value);
    }
    if (is_speed_metric(m.metric)) apes["overall"].push_back(std::fabs(*r.error_pct));
    rep.rows.push_back(r);
  }
  auto summarize = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    MetricSummary ms;
    ms.n = static_cast<int>(v.size());
    const Quantiles q = quantiles(v);
    ms.median_ape = q.p50;
    ms.p90_ape = q.p90;
    ms.max_ape = v.back();
    return ms;
  };
  for (auto& [metric, v] : apes) rep.summary[metric] = summarize(v);
  for (auto& [scenario, v] : scenario_apes) rep.by_scenario[scenario] = summarize(v);
  if (ctx.fit_training) rep.training_fit = fit_training(rows, ctx);
  return rep;
}

}  // namespace llmecon
