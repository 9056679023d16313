// A replica split across chips: per-chip memory, time and communication (docs/model.md §16).
#include "parallel/parallel.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "parallel/collectives.hpp"

namespace llmecon {

std::string Mapping::str() const {
  std::string s = fmt::format("tp{}", tp);
  if (dp_attn > 1) s += fmt::format(" dpa{}", dp_attn);
  if (ep > 1) s += fmt::format(" ep{}", ep);
  if (cp > 1) s += fmt::format(" cp{}", cp);
  if (pp > 1) s += fmt::format(" pp{}", pp);
  if (dp > 1) s += fmt::format(" dp{}", dp);
  return s;
}

std::optional<std::string> validate(const Mapping& m, const ModelSpec& model, int chips) {
  if (m.tp < 1 || m.dp_attn < 1 || m.ep < 1 || m.cp < 1 || m.pp < 1 || m.dp < 1) {
    return std::string("every parallel degree must be at least 1");
  }
  if (m.chips() != chips) {
    return fmt::format("tp x dp_attn x cp x pp x dp = {}, not {} chips", m.chips(), chips);
  }
  if (model.attn.heads % m.tp != 0) {
    return fmt::format("TP={} does not divide {} attention heads", m.tp, model.attn.heads);
  }
  if (model.attn.kind == AttentionKind::kGqa && model.attn.kv_heads % m.tp != 0 && m.tp % model.attn.kv_heads != 0) {
    return fmt::format("TP={} does not divide {} KV heads", m.tp, model.attn.kv_heads);
  }
  if (!model.is_moe() && m.ep > 1) return fmt::format("EP={} on a dense model", m.ep);
  if (model.is_moe()) {
    // EP need not divide the expert count: the remainder becomes redundant expert slots, as
    // DeepSeek (EP144, 256 + 32 slots) and SGLang's EPLB deploy it (model.md §16.2).
    if (m.ep > model.moe.experts) return fmt::format("EP={} exceeds {} experts", m.ep, model.moe.experts);
    if (m.stage_chips() % m.ep != 0) {
      return fmt::format("EP={} does not divide the {}-chip stage", m.ep, m.stage_chips());
    }
  }
  if (m.pp > model.n_layers()) return fmt::format("PP={} exceeds {} layers", m.pp, model.n_layers());
  return std::nullopt;
}

const StepCost& StepCostCache::get(const ModelSpec& m, const Step& s, const Precision& p) {
  const Key key{static_cast<int>(s.phase),
                s.batch,
                s.new_tokens,
                s.cached,
                static_cast<int>(p.weights),
                static_cast<int>(p.experts),
                static_cast<int>(p.act),
                static_cast<int>(p.kv)};
  auto it = entries_.find(key);
  if (it != entries_.end()) return it->second;
  return entries_.emplace(key, step_cost(m, s, p, ExpertTouch::kExpected, false)).first->second;
}

Bytes StepCostCache::kv_sequence(const ModelSpec& m, double context, DType kv) {
  const auto key = std::make_pair(context, static_cast<int>(kv));
  auto it = kv_.find(key);
  if (it != kv_.end()) return it->second;
  return kv_.emplace(key, m.kv_bytes_sequence(context, kv)).first->second;
}

std::pair<double, double> StepCostCache::weight_split(const ModelSpec& m, DType dense, DType experts) {
  const auto key = std::make_pair(static_cast<int>(dense), static_cast<int>(experts));
  auto it = weights_.find(key);
  if (it != weights_.end()) return it->second;
  const double routed = m.params_routed_experts() * bytes_per_element(experts);
  return weights_.emplace(key, std::make_pair(m.weight_bytes(dense, experts).si() - routed, routed)).first->second;
}

double speculative_tokens_per_step(double a, int k) {
  if (a >= 1.0) return k + 1.0;
  return (1.0 - std::pow(a, k + 1)) / (1.0 - a);
}

Seconds kv_transfer_time(const ModelSpec& m, double isl, DType kv, const Hardware& from, int from_chips) {
  const Bytes bytes = m.kv_bytes_sequence(isl, kv);
  return from.scale_out.latency + bytes / (from.scale_out.bandwidth * static_cast<double>(std::max(1, from_chips)));
}

namespace {

double d(int v) {
  return static_cast<double>(v);
}

struct StageEval {
  ChipMemory mem;
  StageTime time;
};

// A stage's communication per micro-batch of T new tokens, before the efficiency: the sum of
// its collectives (collectives.hpp, model.md §16.3-16.4).
Seconds stage_comm(const DeploymentInput& in, const StepCost& sc, double T, double head_split, int domain) {
  const parallel_internal::CommPass pass(in, sc, T, head_split, domain);
  Seconds comm{};
  for (const parallel_internal::CollectiveOp* op : parallel_internal::stage_collectives()) op->add(pass, comm);
  return comm;
}

// Memory per chip of a stage holding `held` times the micro-batch's sequences (model.md §16.2).
ChipMemory stage_memory(const DeploymentInput& in, std::span<const SeqGroup> groups, double held, double T,
                        double head_split) {
  const ModelSpec& m = *in.model;
  const Mapping& mp = in.map;
  const Precision& p = in.precision;
  const double g = mp.stage_chips(), pp = mp.pp;
  const double ba = bytes_per_element(p.act);
  const double dm = d(m.d_model);
  ChipMemory mem;
  // F21 generalized.
  // Routed experts occupy ceil(E / ep) slots on each EP rank (redundant slots when ep does not
  // divide E), each slot split over the stage / ep chips of expert tensor parallelism.
  const double slots = m.is_moe() ? std::ceil(d(m.moe.experts) / d(mp.ep)) * d(mp.ep) / d(m.moe.experts) : 1.0;
  std::pair<double, double> split;
  if (in.cache != nullptr) {
    split = in.cache->weight_split(m, p.weights, p.experts);
  } else {
    const double r = m.params_routed_experts() * bytes_per_element(p.experts);
    split = {m.weight_bytes(p.weights, p.experts).si() - r, r};
  }
  const double routed = split.second * slots;
  const double dense = split.first;
  mem.weights = units::bytes((dense / d(mp.tp) + routed / g) / pp);
  Bytes kv_held{};
  for (const SeqGroup& sg : groups) {
    const double ctx = sg.cached + sg.new_tokens;
    kv_held += (in.cache != nullptr ? in.cache->kv_sequence(m, ctx, p.kv) : m.kv_bytes_sequence(ctx, p.kv)) * sg.count;
  }
  mem.kv = kv_held * (held / (pp * d(mp.dp_attn) * d(mp.cp) * head_split));
  double ffn = m.layers.empty() ? 0.0 : d(m.layers.front().dense_ffn);
  for (const auto& l : m.layers) ffn = std::max(ffn, d(l.dense_ffn));
  ffn = std::max(ffn, d(m.moe.expert_ffn) * d(std::max(1, m.moe.top_k)));
  const double tokens_chip = T / (d(mp.dp_attn) * d(mp.cp));
  mem.activations = units::bytes(tokens_chip * (4.0 * dm + 2.0 * ffn / d(mp.tp)) * ba);
  mem.comm_buffers = units::bytes((m.is_moe() ? 2.0 * T / g * d(m.moe.top_k) * dm * ba : 0.0) + tokens_chip * dm * ba);
  mem.capacity = usable_memory(in.hw->hbm_capacity.value, mem.weights, in.usable_hbm, in.memory_rule);
  return mem;
}

// One stage of a replica processing a micro-batch of sequence groups (each adding new tokens after
// its cached ones); the replica holds `held` times the micro-batch's sequences in all
// (model.md §16.2-16.3, §23.2). `memory`: whether the stage's memory is wanted too (an
// iteration's time alone skips it).
StageEval stage(const DeploymentInput& in, std::span<const SeqGroup> groups, double held, bool memory = true) {
  const ModelSpec& m = *in.model;
  const Hardware& hw = *in.hw;
  // The chip's rates as the serving engine sustains them (model.md §18.4).
  const Efficiency eff = in.eff.sustained(in.compute_sustained);
  const Mapping& mp = in.map;
  const Precision& p = in.precision;
  const int domain = in.domain > 0 ? in.domain : hw.domain_size;
  const double g = mp.stage_chips(), pp = mp.pp;
  const double head_split =
      m.attn.kind == AttentionKind::kMla ? 1.0 : std::min(d(mp.tp), d(std::max(1, m.attn.kv_heads)));
  // Sequences and tokens, and of them the prompt chunks' (for the busiest attention group below).
  double micro = 0, T = 0, decode_tokens = 0, chunks = 0, chunk_tokens = 0;
  for (const SeqGroup& sg : groups) {
    micro += sg.count;
    T += sg.count * sg.new_tokens;
    if (sg.phase == Phase::kDecode) {
      decode_tokens += sg.count * sg.new_tokens;
    } else {
      chunks += sg.count;
      chunk_tokens += sg.count * sg.new_tokens;
    }
  }
  // One group goes through the search's cache; a mixed pass is costed afresh.
  const bool cached_step = in.cache != nullptr && groups.size() == 1;
  StepCost local;
  if (!cached_step) local = step_cost(m, groups, p, ExpertTouch::kExpected, false);
  const StepCost& sc =
      cached_step ? in.cache->get(m, Step{groups[0].phase, groups[0].count, groups[0].new_tokens, groups[0].cached}, p)
                  : local;

  StageEval e;
  // Sequences cannot split across attention data-parallel groups: the busiest group holds
  // ceil(micro / dp_attn) of them, so the effective attention parallelism is micro / that.
  const double dpa = micro / std::ceil(micro / d(mp.dp_attn));
  // A prompt's chunk runs on the one group that holds its sequence, so the busiest group computes
  // its share of the decodes and the largest chunks (model.md §16.3): the attention and dense work
  // spread over T / (the busiest group's tokens) groups, not dp_attn.
  double dpa_work = dpa;
  if (mp.dp_attn > 1 && chunks > 0) {
    const double busiest = decode_tokens / d(mp.dp_attn) + std::ceil(chunks / d(mp.dp_attn)) * (chunk_tokens / chunks);
    dpa_work = std::clamp(T / busiest, 1.0, dpa);
  }
  const double attn_chips = d(mp.tp) * dpa_work * d(mp.cp);
  // Compute: attention and dense work over the busy attention chips, experts over the stage.
  // HBM traffic per chip: dense weights sharded by tp (replicated over dp_attn and cp), experts
  // over the whole stage, KV over sequences (dp_attn), context (cp) and heads.
  const double kv_share = dpa * d(mp.cp) * head_split;
  const BytesPerSecond bw = hw.hbm_bandwidth.value * eff.memory;
  OperatorTimes ops;
  if (eff.ideal()) {
    e.time.compute = (sc.flops_dense / hw.peak(wider(p.weights, p.act)) / attn_chips +
                      sc.flops_expert / hw.peak(wider(p.experts, p.act)) / g +
                      sc.flops_attention / hw.peak(wider(p.kv, p.act)) / attn_chips) /
                     pp;
    const Bytes dense_read = (sc.weights - sc.weights_expert) / (d(mp.tp) * pp);
    const Bytes expert_read = sc.weights_expert / (g * pp);
    e.time.weights = (dense_read + expert_read) / bw;
    e.time.kv = sc.kv_bytes() / (pp * kv_share) / bw;
  } else {
    // model.md §18.2: each kernel on one chip's share; the stage runs 1/pp of the layers.
    ops = operator_times(sc, hw, p, eff,
                         ChipShare{attn_chips, d(mp.tp), dpa_work * d(mp.cp), d(mp.tp), g, attn_chips, kv_share, pp,
                                   g / d(std::max(1, mp.ep))},
                         d(m.n_layers()));
    e.time.compute = ops.compute;
    e.time.weights = ops.weights;
    e.time.kv = ops.kv;
  }

  Seconds comm = stage_comm(in, sc, T, head_split, domain);
  comm = comm / eff.comm;
  e.time.comm = comm;
  const Seconds mem = e.time.weights + e.time.kv;
  const bool ideal = eff.ideal();
  const Seconds roof = ideal ? max(e.time.compute, mem) : ops.busy;
  // model.md §18.4: the engine's host time, per step and per sequence of each rank's scheduler
  // (an attention data-parallel rank schedules its own sequences).
  const Seconds host = (eff.step_overhead + in.host_overhead) / pp + in.host_per_sequence * (micro / d(mp.dp_attn));
  e.time.total = roof + comm - min(comm, roof) * std::clamp(in.overlap, 0.0, 1.0) + ops.launches + host;
  if (ideal) {
    e.time.bound =
        e.time.compute >= mem ? Bound::kCompute : (e.time.weights >= e.time.kv ? Bound::kWeights : Bound::kKv);
  } else {
    e.time.bound = ops.bound;
  }
  e.time.comm_bound = comm > roof;

  if (memory) e.mem = stage_memory(in, groups, held, T, head_split);
  return e;
}

std::string_view bound_name(const StageTime& t) {
  return t.comm_bound ? "comm" : name(t.bound);
}

std::string memory_reason(const ChipMemory& mem, const std::string& what) {
  return fmt::format("{} needs {} per chip (weights {} + KV {} + buffers {}) > {}", what, format(mem.total()),
                     format(mem.weights), format(mem.kv), format(mem.activations + mem.comm_buffers),
                     format(mem.capacity));
}

}  // namespace

Watts stage_power(const DeploymentInput& in, const StageTime& t) {
  if (!(t.total.si() > 0)) return facility_power(in.power, board_power(*in.hw, in.power, 0, 0));
  const double uc = t.compute / t.total * in.eff.sustained(in.compute_sustained).compute;
  const double um = (t.weights + t.kv) / t.total * in.eff.memory;
  return facility_power(in.power, board_power(*in.hw, in.power, uc, um));
}

IterationTime iteration_time(const DeploymentInput& in, std::span<const SeqGroup> groups) {
  const double pp = in.map.pp;
  if (pp <= 1) {
    const StageEval e = stage(in, groups, 1, false);
    return {e.time.total, bound_name(e.time), stage_power(in, e.time)};
  }
  std::vector<SeqGroup> micro(groups.begin(), groups.end());
  for (SeqGroup& g : micro) g.count /= pp;
  const StageEval e = stage(in, micro, pp, false);
  return {(e.time.total + in.hop_latency) * pp, bound_name(e.time), stage_power(in, e.time)};
}

KvCapacity kv_capacity(const DeploymentInput& in, double max_batched_tokens) {
  // One sequence at a reference context gives the per-chip KV of a cached token; the buffers are
  // those of a prefill pass of max_batched_tokens.
  constexpr double kReference = 4096;
  const SeqGroup one{Phase::kDecode, 1, 1, kReference - 1};
  const StageEval e1 = stage(in, std::span<const SeqGroup>(&one, 1), 1);
  const SeqGroup pass{Phase::kPrefill, 1, std::max(1.0, max_batched_tokens), 0};
  const StageEval ep = stage(in, std::span<const SeqGroup>(&pass, 1), 1);
  KvCapacity k;
  const Bytes per_chip_token = e1.mem.kv / kReference;
  k.bytes_per_token = in.model->kv_bytes_sequence(kReference, in.precision.kv) / kReference;
  const Bytes free = e1.mem.capacity - e1.mem.weights - ep.mem.activations - ep.mem.comm_buffers;
  if (free.si() <= 0 || per_chip_token.si() <= 0) return k;
  k.tokens = std::floor(free / per_chip_token);
  return k;
}

void apply_engine(DeploymentInput& in, const ServingEngine& e) {
  in.usable_hbm = e.memory_fraction;
  in.memory_rule = e.memory_rule;
  in.host_overhead = e.host_overhead;
  in.host_per_sequence = e.host_per_sequence;
  in.compute_sustained = e.compute_sustained;
}

PhaseResult evaluate_decode(const DeploymentInput& in, double batch, double context, double tokens_per_step,
                            double verify_tokens) {
  PhaseResult r;
  const double pp = in.map.pp;
  const double micro = batch / pp;
  const SeqGroup g{Phase::kDecode, micro, verify_tokens, context};
  const StageEval e = stage(in, std::span<const SeqGroup>(&g, 1), pp);
  r.memory = e.mem;
  r.stage = e.time;
  r.bound = bound_name(e.time);
  const Seconds hop = in.map.pp > 1 ? in.hop_latency : Seconds{};
  r.latency = (e.time.total + hop) * pp;  // TPOT: every stage once per token
  const double chips = in.map.replica_chips();
  r.tokens_per_s_per_user = units::tokens_per_s(tokens_per_step / r.latency.si());
  r.tokens_per_s_per_chip = units::tokens_per_s(batch * tokens_per_step / r.latency.si() / chips);
  r.usd_per_token = in.hw->price.value * chips * r.latency / units::tokens(batch * tokens_per_step);
  r.power_per_chip = stage_power(in, e.time);
  r.energy_per_token = r.power_per_chip * chips * r.latency / units::tokens(batch * tokens_per_step);
  r.feasible = e.mem.total() <= e.mem.capacity;
  if (!r.feasible) {
    r.reason = memory_reason(e.mem, fmt::format("batch {} at {} tokens", format_number(batch), format_number(context)));
  }
  return r;
}

PhaseResult evaluate_prefill(const DeploymentInput& in, double prompts, double isl) {
  PhaseResult r;
  const SeqGroup g{Phase::kPrefill, prompts, isl, 0};
  const StageEval e = stage(in, std::span<const SeqGroup>(&g, 1), 1);
  r.memory = e.mem;
  r.stage = e.time;
  r.bound = bound_name(e.time);
  const double pp = in.map.pp;
  const Seconds hop = in.map.pp > 1 ? in.hop_latency : Seconds{};
  r.latency = e.time.total * pp + hop * (pp - 1);  // TTFT: the prompt passes every stage
  const double chips = in.map.replica_chips();
  r.tokens_per_s_per_chip = units::tokens_per_s(prompts * isl / e.time.total.si() / chips);
  r.tokens_per_s_per_user = units::tokens_per_s(isl / r.latency.si());
  r.usd_per_token = in.hw->price.value * chips * e.time.total / units::tokens(prompts * isl);
  r.power_per_chip = stage_power(in, e.time);
  r.energy_per_token = r.power_per_chip * chips * e.time.total / units::tokens(prompts * isl);
  r.feasible = e.mem.total() <= e.mem.capacity;
  if (!r.feasible) {
    r.reason =
        memory_reason(e.mem, fmt::format("prefill of {} x {} tokens", format_number(prompts), format_number(isl)));
  }
  return r;
}

}  // namespace llmecon
