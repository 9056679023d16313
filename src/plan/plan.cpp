// The deployment planner (docs/model.md §17).
#include "plan/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <iterator>
#include <random>
#include <thread>

namespace llmecon {

namespace {
std::vector<int> powers_of_two_upto(int n) {
  std::vector<int> out;
  for (int v = 1; v <= n; v *= 2) out.push_back(v);
  return out;
}

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int v = 1; v <= n; ++v)
    if (n % v == 0) out.push_back(v);
  return out;
}
}  // namespace

std::vector<Mapping> candidate_mappings(const ModelSpec& m, int chips, double isl,
                                        std::map<std::string, long>* rejected) {
  auto reject = [&](const std::string& why) {
    if (rejected != nullptr) ++(*rejected)["mapping: " + why];
  };
  std::vector<Mapping> out;
  const bool moe = m.is_moe();
  const std::vector<int> cps = isl >= 32768 ? std::vector<int>{1, 2, 4, 8} : std::vector<int>{1};
  for (int pp : powers_of_two_upto(std::min(chips, 64))) {
    if (chips % pp != 0 || pp > m.n_layers()) continue;
    for (int tp : powers_of_two_upto(chips / pp)) {
      if (m.attn.heads % tp != 0) {
        reject(fmt::format("TP={} does not divide {} attention heads", tp, m.attn.heads));
        continue;
      }
      // Attention data parallelism inside a stage only pays for MoE (experts shared by the
      // stage); for dense models it is the same as more replicas.
      for (int dpa : moe ? divisors(chips / (pp * tp)) : std::vector<int>{1}) {
        for (int cp : cps) {
          const int g = tp * dpa * cp;
          if (g * pp > chips || chips % (g * pp) != 0) continue;
          // EP over every divisor of the stage up to the expert count; a non-divisor of the
          // expert count leaves redundant slots (as DeepSeek's EP144).
          std::vector<int> eps{1};
          if (moe) {
            for (int ep : divisors(g))
              if (ep > 1 && ep <= m.moe.experts) eps.push_back(ep);
          }
          for (int ep : eps) {
            Mapping mp{tp, dpa, ep, cp, pp, chips / (g * pp)};
            if (auto why = validate(mp, m, chips)) {
              reject(*why);
            } else {
              out.push_back(mp);
            }
          }
        }
      }
    }
  }
  return out;
}

bool dominates(const PlanPoint& a, const PlanPoint& b) {
  const double ax = a.decode.tokens_per_s_per_chip.si(), ay = a.decode.tokens_per_s_per_user.si();
  const double bx = b.decode.tokens_per_s_per_chip.si(), by = b.decode.tokens_per_s_per_user.si();
  return ax >= bx && ay >= by && (ax > bx || ay > by);
}

namespace {

// The prefill pool's choice per format pair when serving is disaggregated.
struct PrefillChoice {
  Mapping map;
  PhaseResult ttft;
  PhaseResult batch;
  Seconds transfer{};
  bool ok = false;
};
using PrefillChoices = std::map<std::pair<DType, DType>, PrefillChoice>;

struct Partial {
  std::vector<PlanPoint> points;  // feasible points
  std::map<std::string, long> rejected;
  long evaluated = 0;
};

std::vector<DType> weight_choices(const PlanRequest& rq) {
  if (!rq.weight_dtypes.empty()) return rq.weight_dtypes;
  std::vector<DType> out{rq.model->native_weight_dtype};
  if (!rq.search_formats) return out;  // as released (model.md §17)
  if (out.front() != DType::kFp8 && out.front() != DType::kFp4) out.push_back(DType::kFp8);
  if (rq.hw->compute[static_cast<std::size_t>(DType::kFp4)] && out.front() != DType::kFp4) out.push_back(DType::kFp4);
  return out;
}

// The KV formats to search: as given; with search_formats bf16 and fp8; else what the engine
// gives this checkpoint (an FP8 checkpoint may get an FP8 cache), bf16 without an engine.
std::vector<DType> kv_choices(const PlanRequest& rq) {
  if (!rq.kv_dtypes.empty()) return rq.kv_dtypes;
  if (rq.search_formats) return {DType::kBf16, DType::kFp8};
  return {default_kv(rq.engine, rq.model->native_weight_dtype)};
}

// Work items are (weights, KV) format pairs: step costs depend on the formats, not the mapping,
// so a thread that owns a pair computes each step cost once (model.md §17.2).
void search(const PlanRequest& rq, const std::vector<Mapping>& maps, const PrefillChoices& pool, std::size_t begin,
            std::size_t step, std::atomic<long>& done, Partial& part) {
  StepCostCache cache;
  std::vector<double> batches = rq.batches;
  if (batches.empty()) {
    for (double b = 1; b <= 16384; b *= 2) batches.push_back(b);
  }
  const std::vector<DType> kvs = kv_choices(rq);
  const double tokens_per_step =
      rq.spec_draft > 0 ? speculative_tokens_per_step(rq.spec_acceptance, rq.spec_draft) : 1.0;
  const double verify = rq.spec_draft > 0 ? rq.spec_draft + 1.0 : 1.0;
  const double decode_ctx = rq.isl + rq.osl / 2;  // mean context over the generation
  std::vector<std::pair<DType, DType>> formats;
  for (DType w : weight_choices(rq))
    for (DType kv : kvs) formats.emplace_back(w, kv);
  const double total = static_cast<double>(formats.size() * maps.size());
  for (std::size_t fi = begin; fi < formats.size(); fi += step) {
    const auto [w, kv] = formats[fi];
    for (const Mapping& mp : maps) {
      if (rq.cancelled && rq.cancelled()) return;
      const long finished = done.fetch_add(1, std::memory_order_relaxed);
      if (begin == 0 && rq.progress) rq.progress(static_cast<double>(finished) / total);
      {
        DeploymentInput in = deployment_input(rq, mp, w, kv);
        in.cache = &cache;
        PhaseResult ttft, pre;
        const PrefillChoice* choice = nullptr;
        if (rq.prefill_hw != nullptr) {
          auto it = pool.find({w, kv});
          if (it == pool.end() || !it->second.ok) {
            ++part.rejected["memory: no prefill-pool mapping holds the prompt"];
            continue;
          }
          choice = &it->second;
          ttft = choice->ttft;
          ttft.latency += choice->transfer;
          pre = choice->batch;
        } else {
          ttft = evaluate_prefill(in, 1, rq.isl);
          // Prefill cost: a batch of about 8K tokens per attention group, so no group idles.
          const double prompts = std::ceil(8192.0 / rq.isl) * mp.dp_attn;
          pre = evaluate_prefill(in, prompts, rq.isl);
        }
        for (double b : batches) {
          if (b < mp.pp) continue;
          // The engine holds no more: its cap binds each attention-DP rank where it applies it so.
          if (rq.engine != nullptr && b > rq.engine->max_seqs * rq.engine->cap_scopes(mp.dp_attn)) continue;
          ++part.evaluated;
          PlanPoint pt;
          pt.map = mp;
          pt.batch = b;
          pt.weights = w;
          pt.kv = kv;
          pt.decode = evaluate_decode(in, b, decode_ctx, tokens_per_step, verify);
          // Memory must hold every sequence at its final length.
          const PhaseResult end = evaluate_decode(in, b, rq.isl + rq.osl, tokens_per_step, verify);
          if (!end.feasible) {
            ++part.rejected["memory: weights + KV + buffers exceed HBM"];
            continue;
          }
          if (!ttft.feasible) {
            ++part.rejected["memory: the prompt's activations exceed HBM"];
            continue;
          }
          pt.prefill = ttft;
          if (choice != nullptr) {
            pt.prefill_map = choice->map;
            pt.kv_transfer = choice->transfer;
          }
          pt.usd_per_token = (pre.usd_per_token * rq.isl + pt.decode.usd_per_token * rq.osl) / (rq.isl + rq.osl);
          pt.input_usd_per_token = pre.usd_per_token;
          pt.energy_per_token =
              (pre.energy_per_token * rq.isl + pt.decode.energy_per_token * rq.osl) / (rq.isl + rq.osl);
          pt.input_energy_per_token = pre.energy_per_token;
          pt.meets_slo = true;
          part.points.push_back(pt);
        }
      }
    }
  }
}

}  // namespace

PlanResult plan(const PlanRequest& rq) {
  LLMECON_ASSERT(rq.model != nullptr && rq.hw != nullptr, "plan needs a model and hardware");
  PlanResult out;
  const std::vector<Mapping> maps = candidate_mappings(*rq.model, rq.chips, rq.isl, &out.rejected);
  if (maps.empty()) {
    out.empty_reason = fmt::format("no mapping of {} chips divides the model's heads and layers", rq.chips);
    return out;
  }
  // Disaggregated: pick the prefill pool's fastest-TTFT mapping per format pair first.
  PrefillChoices prefill;
  if (rq.prefill_hw != nullptr) {
    const std::vector<Mapping> pmaps = candidate_mappings(*rq.model, rq.prefill_chips, rq.isl);
    StepCostCache cache;
    for (DType w : weight_choices(rq)) {
      for (DType kv : kv_choices(rq)) {
        PrefillChoice best;
        for (const Mapping& mp : pmaps) {
          DeploymentInput in;
          in.model = rq.model;
          in.hw = rq.prefill_hw;
          in.map = mp;
          in.precision = Precision::with_weights(*rq.model, w, w, kv);
          in.overlap = rq.overlap;
          in.eff = rq.eff;
          in.power = rq.prefill_power;
          in.cache = &cache;
          if (rq.engine != nullptr) apply_engine(in, *rq.engine);
          const PhaseResult t = evaluate_prefill(in, 1, rq.isl);
          if (!t.feasible || (best.ok && t.latency >= best.ttft.latency)) continue;
          best.ok = true;
          best.map = mp;
          best.ttft = t;
          best.batch = evaluate_prefill(in, std::ceil(8192.0 / rq.isl) * mp.dp_attn, rq.isl);
          best.transfer = kv_transfer_time(*rq.model, rq.isl, kv, *rq.prefill_hw, mp.replica_chips());
        }
        prefill[{w, kv}] = best;
      }
    }
  }
  const int threads = std::max(1, rq.threads);
  std::vector<Partial> parts(static_cast<std::size_t>(threads));
  std::atomic<long> done{0};
  if (threads == 1) {
    search(rq, maps, prefill, 0, 1, done, parts[0]);
  } else {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back(search, std::cref(rq), std::cref(maps), std::cref(prefill), static_cast<std::size_t>(t),
                        static_cast<std::size_t>(threads), std::ref(done),
                        std::ref(parts[static_cast<std::size_t>(t)]));
    }
    for (auto& th : pool) th.join();
  }
  if (rq.cancelled && rq.cancelled()) {
    out.cancelled = true;
    out.empty_reason = "cancelled";
    return out;
  }
  if (rq.progress) rq.progress(1.0);
  std::vector<PlanPoint> points;
  for (auto& p : parts) {
    out.evaluated += p.evaluated;
    for (const auto& [k, v] : p.rejected) out.rejected[k] += v;
    points.insert(points.end(), std::make_move_iterator(p.points.begin()), std::make_move_iterator(p.points.end()));
  }
  out.feasible = static_cast<long>(points.size());
  // SLO filters.
  for (auto& pt : points) {
    if (rq.ttft && pt.prefill.latency > *rq.ttft) {
      pt.meets_slo = false;
      ++out.rejected[fmt::format("slo: TTFT above {}", format(*rq.ttft))];
    } else if (rq.tpot && pt.decode.latency > *rq.tpot) {
      pt.meets_slo = false;
      ++out.rejected[fmt::format("slo: TPOT above {}", format(*rq.tpot))];
    } else if (rq.max_cost && pt.usd_per_token > *rq.max_cost) {
      pt.meets_slo = false;
      ++out.rejected[fmt::format("slo: cost above {}", format(*rq.max_cost))];
    }
  }
  // Pareto frontier over every feasible point: sort by throughput per chip, keep rising speed.
  std::sort(points.begin(), points.end(), [](const PlanPoint& a, const PlanPoint& b) {
    const double ax = a.decode.tokens_per_s_per_chip.si(), bx = b.decode.tokens_per_s_per_chip.si();
    if (ax != bx) return ax > bx;
    return a.decode.tokens_per_s_per_user.si() > b.decode.tokens_per_s_per_user.si();
  });
  double best_user = -1;
  for (const auto& pt : points) {
    if (pt.decode.tokens_per_s_per_user.si() > best_user) {
      out.frontier.push_back(pt);
      best_user = pt.decode.tokens_per_s_per_user.si();
    }
  }
  out.ranked.reserve(points.size());
  for (auto& pt : points) {
    if (!pt.meets_slo) continue;
    ++out.meeting_slo;
    out.ranked.push_back(std::move(pt));  // already sorted by tokens/s per chip
  }
  // Cheapest or most frugal first; ties keep the throughput order.
  if (rq.rank == PlanRank::kCost) {
    std::stable_sort(out.ranked.begin(), out.ranked.end(),
                     [](const PlanPoint& a, const PlanPoint& b) { return a.usd_per_token < b.usd_per_token; });
  } else if (rq.rank == PlanRank::kEnergy) {
    std::stable_sort(out.ranked.begin(), out.ranked.end(),
                     [](const PlanPoint& a, const PlanPoint& b) { return a.energy_per_token < b.energy_per_token; });
  }
  if (!out.ranked.empty()) out.best = out.ranked.front();
  if (!out.best) {
    out.empty_reason = points.empty() ? "no mapping and batch fits in HBM" : "no feasible point meets the SLO";
  }
  return out;
}

long rank_of(const PlanResult& r, const Mapping& m) {
  for (std::size_t i = 0; i < r.ranked.size(); ++i) {
    const Mapping& x = r.ranked[i].map;
    if (x.tp == m.tp && x.dp_attn == m.dp_attn && x.ep == m.ep && x.cp == m.cp && x.pp == m.pp && x.dp == m.dp) {
      return static_cast<long>(i);
    }
  }
  return -1;
}

DeploymentInput deployment_input(const PlanRequest& rq, const Mapping& m, DType weights, DType kv) {
  DeploymentInput in;
  in.model = rq.model;
  in.hw = rq.hw;
  in.map = m;
  in.precision = Precision::with_weights(*rq.model, weights, weights, kv);
  in.domain = rq.domain;
  in.overlap = rq.overlap;
  in.eff = rq.eff;
  in.power = rq.power;
  if (rq.engine != nullptr) apply_engine(in, *rq.engine);
  return in;
}

PlanRange plan_range(const PlanRequest& rq, const PlanPoint& b, const Uncertainty& u, int samples, unsigned seed) {
  PlanRange out;
  out.samples = std::max(1, samples);
  std::mt19937_64 rng(seed);
  std::vector<double> tpc, tpot, ttft, usd;
  const double tokens_per_step =
      rq.spec_draft > 0 ? speculative_tokens_per_step(rq.spec_acceptance, rq.spec_draft) : 1.0;
  const double verified = rq.spec_draft > 0 ? rq.spec_draft + 1.0 : 1.0;
  for (int i = 0; i < out.samples; ++i) {
    const Hardware h = sample_hardware(*rq.hw, u, rng);
    DeploymentInput in = deployment_input(rq, b.map, b.weights, b.kv);
    in.hw = &h;
    in.eff = sample_efficiency(rq.eff, u, rng);
    const PhaseResult d = evaluate_decode(in, b.batch, rq.isl + rq.osl / 2, tokens_per_step, verified);
    const PhaseResult p = evaluate_prefill(in, 1, rq.isl);
    tpc.push_back(d.tokens_per_s_per_chip.si());
    tpot.push_back(d.latency.si() * 1e3);
    ttft.push_back(p.latency.si() + b.kv_transfer.si());
    usd.push_back(d.usd_per_token.si() * 1e6);
  }
  out.tokens_per_s_per_chip = quantiles(tpc);
  out.tpot_ms = quantiles(tpot);
  out.ttft_s = quantiles(ttft);
  out.usd_per_mtok_output = quantiles(usd);
  return out;
}

namespace {

void explain_phase(std::vector<std::string>& out, const char* phase, const PhaseResult& r, double overlap) {
  const StageTime& t = r.stage;
  const Seconds mem = t.weights + t.kv;
  const Seconds roof = max(t.compute, mem);
  const Seconds exposed = t.comm - min(t.comm, roof) * overlap;
  const Seconds fixed = t.total - roof - exposed;
  out.push_back(fmt::format(
      "{} stage = max(t_compute, t_weights + t_kv) + exposed comm + fixed = max({}, {} + {}) + {} + {} = {} ({}-bound)",
      phase, format(t.compute), format(t.weights), format(t.kv), format(exposed), format(fixed), format(t.total),
      r.bound));
  if (overlap > 0) {
    out.push_back(fmt::format("  exposed comm = comm - min(comm, roof) x overlap = {} - min({}, {}) x {} = {}",
                              format(t.comm), format(t.comm), format(roof), format_number(overlap), format(exposed)));
  }
  const ChipMemory& m = r.memory;
  out.push_back(fmt::format(
      "  memory per chip = weights + KV + activations + comm buffers = {} + {} + {} + {} = {} of {}", format(m.weights),
      format(m.kv), format(m.activations), format(m.comm_buffers), format(m.total()), format(m.capacity)));
}

}  // namespace

std::vector<std::string> explain_plan_point(const PlanRequest& rq, const PlanPoint& p) {
  std::vector<std::string> out;
  const double chips = p.map.replica_chips();
  out.push_back(fmt::format(
      "mapping {} = {} chips per replica, {} replicas on {} chips; batch {} per replica, weights {}, KV {}",
      p.map.str(), format_number(chips), p.map.dp, rq.chips, format_number(p.batch), name(p.weights), name(p.kv)));
  const double pp = p.map.pp;
  explain_phase(out, "decode", p.decode, rq.overlap);
  out.push_back(pp > 1 ? fmt::format("TPOT = pp x (stage + hop) = {} x ({} + hop) = {}", format_number(pp),
                                     format(p.decode.stage.total), format(p.decode.latency))
                       : fmt::format("TPOT = stage = {}", format(p.decode.latency)));
  // Tokens per step per sequence: 1, or the expected accepted tokens with speculative decoding.
  const double per_step = p.decode.tokens_per_s_per_chip.si() * p.decode.latency.si() * chips / p.batch;
  out.push_back(fmt::format("tokens/s per chip = batch x tokens per step / TPOT / chips = {} x {} / {} / {} = {}",
                            format_number(p.batch), format_number(per_step), format(p.decode.latency),
                            format_number(chips), format(p.decode.tokens_per_s_per_chip)));
  explain_phase(out, "prefill", p.prefill, rq.overlap);
  out.push_back(fmt::format("TTFT = pp x stage + (pp - 1) x hop{} = {}", p.prefill_map ? " + KV transfer" : "",
                            format(p.prefill.latency)));
  if (p.prefill_map) out.push_back(fmt::format("  KV transfer to the decode pool = {}", format(p.kv_transfer)));
  out.push_back(fmt::format(
      "cost = (isl x input cost + osl x output cost) / (isl + osl) = ({} x ${}/Mtok + {} x ${}/Mtok) / {} = ${}/Mtok",
      format_number(rq.isl), format_number(p.input_usd_per_token.si() * 1e6), format_number(rq.osl),
      format_number(p.decode.usd_per_token.si() * 1e6), format_number(rq.isl + rq.osl),
      format_number(p.usd_per_token.si() * 1e6)));
  return out;
}

std::optional<Mapping> infer_mapping(const DeploymentInput& base, int chips, const Mapping& require, double total_batch,
                                     double context, double isl) {
  std::optional<Mapping> best;
  double best_rate = -1;
  for (const Mapping& mp : candidate_mappings(*base.model, chips, isl)) {
    if ((require.tp > 0 && mp.tp != require.tp) || (require.pp > 0 && mp.pp != require.pp) ||
        (require.ep > 0 && mp.ep != require.ep) || (require.cp > 0 && mp.cp != require.cp) ||
        (require.dp > 0 && mp.dp != require.dp) || (require.dp_attn > 0 && mp.dp_attn != require.dp_attn)) {
      continue;
    }
    DeploymentInput in = base;
    in.map = mp;
    const double per_replica = std::max(static_cast<double>(mp.pp), std::ceil(total_batch / mp.dp));
    const PhaseResult d = evaluate_decode(in, per_replica, context);
    if (!d.feasible) continue;
    if (d.tokens_per_s_per_chip.si() > best_rate) {
      best_rate = d.tokens_per_s_per_chip.si();
      best = mp;
    }
  }
  return best;
}

}  // namespace llmecon
