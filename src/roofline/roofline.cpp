// The single-domain roofline (docs/model.md §5).
#include "roofline/roofline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace llmecon {

std::string_view name(Bound b) {
  switch (b) {
    case Bound::kCompute:
      return "compute";
    case Bound::kWeights:
      return "weights";
    case Bound::kKv:
      return "kv";
  }
  return "?";
}

OperatorTimes operator_times(const StepCost& c, const Hardware& hw, const Precision& p, const Efficiency& e,
                             const ChipShare& share, double layers, bool detail) {
  OperatorTimes t;
  const BytesPerSecond bw = hw.hbm_bandwidth.value;
  const FlopsPerSecond dense = hw.peak(wider(p.weights, p.act)), expert = hw.peak(wider(p.experts, p.act));
  const FlopsPerSecond attention = hw.peak(wider(p.kv, p.act));
  const FlopsPerSecond sixteen = hw.peak(DType::kBf16);
  Seconds by_compute{}, by_weights{}, by_kv{};
  for (const Kernel& k : c.kernels) {
    // One chip's share of one launch (model.md §18.2).
    double rows = k.rows, cols = k.cols, depth = k.depth, flops_share = share.dense_flops,
           weight_share = share.dense_weights;
    FlopsPerSecond peak = dense;
    if (k.cls == ComputeClass::kExpert) {
      peak = expert;
      flops_share = weight_share = share.experts;  // whole experts per chip: rows and columns stay,
      if (share.expert_cols > 1) {
        // unless each expert is split over expert_cols chips (expert tensor parallelism): gate and
        // up keep 1/expert_cols of their columns, the down projection of its depth (model.md §18.2).
        cols /= share.expert_cols;
        if (k.inner > 0 && depth > 0) depth = 1.0 / (1.0 / depth + (share.expert_cols - 1.0) / (3.0 * k.inner));
      }
    } else if (k.cls == ComputeClass::kAttention) {
      peak = attention;
      flops_share = share.attention;
    } else {
      rows /= share.rows;
      (k.split_k ? depth : cols) /= share.cols;
    }
    // Attention and other non-GEMM kernels (no rows) run at the large-GEMM fraction.
    const double rate = sixteen.si() > 0 ? peak / sixteen : 1.0;
    const double frac = k.rows > 0 ? e.compute_at(std::max(rows, 1.0), cols, depth, rate) : e.compute;
    const Seconds compute = k.flops / (peak * (flops_share * frac));
    const Bytes weights = k.weights / weight_share, kv = k.kv / share.kv;
    const Bytes act = k.act / flops_share;
    const Bytes read = weights + kv + act;
    // A kernel that reads mostly KV (decode attention) ramps up over kv_half (model.md §18.1).
    const bool kv_kernel = e.kv_half.si() > 0 && kv.si() > weights.si() + act.si();
    const BytesPerSecond achieved = bw * e.memory_at(read, kv_kernel ? e.kv_half : e.memory_half);
    const Seconds memory = read / achieved;
    const double launches = k.count / share.stages;
    t.compute += compute * launches;
    t.weights += weights / achieved * launches;
    t.kv += kv / achieved * launches;
    t.act += act / achieved * launches;
    const Seconds busy = max(compute, memory) * launches;
    t.busy += busy;
    Bound bound = Bound::kCompute;
    if (compute >= memory) {
      by_compute += busy;
    } else if (weights.si() + kv.si() > 0) {
      by_weights += busy * (weights.si() / (weights.si() + kv.si()));
      by_kv += busy * (kv.si() / (weights.si() + kv.si()));
      bound = weights >= kv ? Bound::kWeights : Bound::kKv;
    }
    if (detail) {
      t.detail.push_back(
          KernelTime{k.kind, launches, k.rows > 0 ? rows : 0, cols, depth, frac, compute, memory, bound});
    }
    t.kernels += launches;
  }
  t.kernels += e.layer_kernels * layers / share.stages;
  t.launches = e.kernel_overhead * t.kernels;
  if (by_compute >= by_weights && by_compute >= by_kv) {
    t.bound = Bound::kCompute;
  } else {
    t.bound = by_weights >= by_kv ? Bound::kWeights : Bound::kKv;
  }
  return t;
}

Bytes usable_memory(Bytes hbm, Bytes weights, double fraction, MemoryRule rule) {
  switch (rule) {
    case MemoryRule::kFree:
      return weights + max(hbm - weights, Bytes{}) * fraction;
    case MemoryRule::kKv:
      return min(weights + hbm * fraction, hbm);
    case MemoryRule::kTotal:
      break;
  }
  return hbm * fraction;
}

void apply_engine(RooflineInput& in, const ServingEngine& e) {
  in.usable_hbm = e.memory_fraction;
  in.memory_rule = e.memory_rule;
  in.host_overhead = e.host_overhead;
  in.host_per_sequence = e.host_per_sequence;
  in.compute_sustained = e.compute_sustained;
}

Result<RooflineResult> roofline(const RooflineInput& in) {
  LLMECON_ASSERT(in.model != nullptr && in.hw != nullptr, "roofline needs a model and hardware");
  if (in.chips < 1) return Error{"--chips", "", "must be at least 1, got " + std::to_string(in.chips), ""};
  if (in.chips > in.hw->domain_size) {
    return Error{"--chips", "",
                 std::to_string(in.chips) + " chips exceed the " + std::to_string(in.hw->domain_size) +
                     "-chip scale-up domain of " + in.hw->name,
                 "the single-domain roofline pools at most one scale-up domain; use at most " +
                     std::to_string(in.hw->domain_size)};
  }
  if (!(in.step.batch >= 1)) return Error{"--batch", "", "must be at least 1", ""};
  if (!(in.step.new_tokens >= 1)) return Error{"--context", "", "a pass processes at least one token", ""};
  if (!(in.step.cached >= 0)) return Error{"--context", "", "must not be negative", ""};
  if (!(in.eff.compute > 0 && in.eff.compute <= 1 && in.eff.memory > 0 && in.eff.memory <= 1 && in.eff.comm > 0 &&
        in.eff.comm <= 1 && in.eff.tile_m >= 0 && in.eff.tile_n >= 0 && in.eff.compute_units >= 0 &&
        in.eff.memory_half.si() >= 0 && in.eff.kv_half.si() >= 0 && in.eff.layer_kernels >= 0)) {
    return Error{"efficiency", "", "fractions of peak must lie in (0, 1]", ""};
  }
  return roofline_unchecked(in);
}

RooflineResult roofline_unchecked(const RooflineInput& given) {
  RooflineResult r;
  // The engine's sustained share of the GEMM rates (model.md §18.4), applied once.
  RooflineInput in = given;
  in.eff = given.eff.sustained(given.compute_sustained);
  in.compute_sustained = 1.0;
  r.compute_sustained = in.eff.ideal() ? 1.0 : given.compute_sustained;
  r.in = in;
  const ModelSpec& m = *in.model;
  const Hardware& hw = *in.hw;
  const Precision& p = in.precision;
  const double n = in.chips;
  r.cost = step_cost(m, in.step, p, in.touch, /*detail=*/false);

  // model.md §5.1: GEMMs run at the wider of weight and activation format, attention at the
  // wider of KV and activation format.
  r.flops_per_s_dense = hw.peak(wider(p.weights, p.act)) * (n * in.eff.compute);
  r.flops_per_s_expert = hw.peak(wider(p.experts, p.act)) * (n * in.eff.compute);
  r.flops_per_s_attention = hw.peak(wider(p.kv, p.act)) * (n * in.eff.compute);
  r.mem_bw = hw.hbm_bandwidth.value * (n * in.eff.memory);
  if (in.eff.ideal()) {
    // The pure roofline (F1): the domain pools its FLOP/s and bandwidth perfectly.
    r.t_compute = r.cost.flops_dense / r.flops_per_s_dense + r.cost.flops_expert / r.flops_per_s_expert +
                  r.cost.flops_attention / r.flops_per_s_attention;
    r.t_weights = r.cost.weights / r.mem_bw;
    r.t_kv = r.cost.kv_bytes() / r.mem_bw;
    const Seconds t_mem = r.t_weights + r.t_kv;
    r.t_step = max(r.t_compute, t_mem);
    r.t_upper = r.t_compute + t_mem;
    if (r.t_compute >= t_mem) {
      r.bound = Bound::kCompute;
    } else {
      r.bound = r.t_weights >= r.t_kv ? Bound::kWeights : Bound::kKv;
    }
  } else {
    // model.md §18: operator by operator, each chip a 1/n share (tensor parallelism over the domain).
    r.ops = operator_times(r.cost, hw, p, in.eff, ChipShare{n, n, 1, n, n, n, n, 1, 1}, m.n_layers());
    r.t_compute = r.ops.compute;
    r.t_weights = r.ops.weights;
    r.t_kv = r.ops.kv;
    r.t_overhead = in.eff.step_overhead + in.host_overhead + in.host_per_sequence * in.step.batch + r.ops.launches;
    r.t_step = r.ops.busy + r.t_overhead;
    r.t_upper = r.t_compute + r.t_weights + r.t_kv + r.ops.act + r.t_overhead;
    r.bound = r.ops.bound;
  }
  const Tokens toks = units::tokens(in.step.tokens());
  r.tokens_per_s = toks / r.t_step;
  r.usd_per_s = hw.price.value * n;
  r.usd_per_token = r.usd_per_s * r.t_step / toks;  // D1

  // Memory footprint (F21): all weights plus every sequence's KV after this pass.
  r.mem_weights = in.weight_bytes ? *in.weight_bytes : m.weight_bytes(p.weights, p.experts);
  r.mem_kv = (in.kv_sequence ? *in.kv_sequence : m.kv_bytes_sequence(in.step.cached + in.step.new_tokens, p.kv)) *
             in.step.batch;
  r.mem_capacity = usable_memory(hw.hbm_capacity.value * n, r.mem_weights, in.usable_hbm, in.memory_rule);
  r.fits = r.mem_weights + r.mem_kv <= r.mem_capacity;
  if (!r.fits) {
    r.fit_reason = fmt::format("weights {} + KV {} = {} > {} HBM on {} x {}", format(r.mem_weights), format(r.mem_kv),
                               format(r.mem_weights + r.mem_kv), format(r.mem_capacity), in.chips, hw.name);
  }
  const FlopsPerSecond peak_dense = hw.peak(wider(p.weights, p.act)) * n;
  r.mfu = (r.cost.flops_total() / r.t_step) / peak_dense;
  const Bytes moved = r.cost.weights + r.cost.kv_bytes();
  r.intensity = r.cost.flops_total() / moved;
  // model.md §25.6: power from the achieved shares of peak; energy per token at the facility.
  r.hbm_utilization = ((moved + r.cost.act) / r.t_step / (hw.hbm_bandwidth.value * n));
  r.board_power = llmecon::board_power(hw, in.power, r.mfu, r.hbm_utilization);
  r.facility_power = facility_power(in.power, r.board_power) * n;
  r.energy_per_token = r.facility_power * r.t_step / toks;
  return r;
}

Watts board_power(const Hardware& hw, const PowerModel& pm, double u_compute, double u_memory) {
  const double uc = std::clamp(u_compute, 0.0, 1.0), um = std::clamp(u_memory, 0.0, 1.0);
  const double a = std::min(1.0, pm.compute_weight * uc + pm.memory_weight * um);
  const Watts idle = min(pm.idle, hw.tdp);
  return idle + (hw.tdp - idle) * a;
}

Watts facility_power(const PowerModel& pm, Watts board) {
  return (board + pm.host * pm.host_load) * pm.pue;
}

Watts idle_power(const Hardware& hw, const PowerModel& pm) {
  return (min(pm.idle, hw.tdp) + pm.host * pm.host_idle) * pm.pue;
}

std::vector<std::string> explain(const RooflineResult& r) {
  const auto& in = r.in;
  const Step& s = in.step;
  std::vector<std::string> out;
  out.push_back(fmt::format("model {} on {} x {} ({}), {} B={} new_tokens={} cached={}", in.model->name, in.chips,
                            in.hw->name, name(in.hw->topology), name(s.phase), format_number(s.batch),
                            format_number(s.new_tokens), format_number(s.cached)));
  out.push_back(fmt::format("precision: weights {}, experts {}, activations {}, KV {}", name(in.precision.weights),
                            name(in.precision.experts), name(in.precision.act), name(in.precision.kv)));
  out.push_back(fmt::format("FLOPs = 2*m*n*k over every GEMM (model.md §4.1) = {} dense + {} expert + {} attention",
                            format(r.cost.flops_dense), format(r.cost.flops_expert), format(r.cost.flops_attention)));
  std::string memory = fmt::format("memory = weights + B * KV(seq) (F21) = {} + {} = {} of {} -> {}",
                                   format(r.mem_weights), format(r.mem_kv), format(r.mem_weights + r.mem_kv),
                                   format(r.mem_capacity), r.fits ? "fits" : "does not fit");
  // A point that does not fit is what it is (the model, its work) and why (its memory): no step
  // time, throughput or price to derive (docs/quantities.md).
  if (!r.fits) {
    out.push_back(std::move(memory));
    return out;
  }
  if (in.eff.ideal()) {
    out.push_back(
        fmt::format("t_compute = FLOPs / (chips * peak * eff) (F2, model.md §5.1) = {} / {} + {} / {} + {} / {} = {}",
                    format(r.cost.flops_dense), format(r.flops_per_s_dense), format(r.cost.flops_expert),
                    format(r.flops_per_s_expert), format(r.cost.flops_attention), format(r.flops_per_s_attention),
                    format(r.t_compute)));
    if (in.model->is_moe()) {
      out.push_back(
          fmt::format("experts read per MoE layer = E*(1-(1-k/E)^T) (model.md §4.4) = {} of {} (T = {} tokens, k = {})",
                      format_number(r.cost.experts_read_per_layer), in.model->moe.experts, format_number(s.tokens()),
                      in.model->moe.top_k));
    }
    out.push_back(fmt::format("t_weights = weight bytes / (chips * HBM bw) (F3, F19) = {} / ({} x {}) = {}",
                              format(r.cost.weights), in.chips, format(in.hw->hbm_bandwidth.value * in.eff.memory),
                              format(r.t_weights)));
    out.push_back(fmt::format("t_kv = (KV read + KV write) / (chips * HBM bw) (F3) = ({} + {}) / {} = {}",
                              format(r.cost.kv_read), format(r.cost.kv_write), format(r.mem_bw), format(r.t_kv)));
  }
  if (!in.eff.ideal()) {
    out.push_back(fmt::format(
        "efficiency (model.md §18): compute {} of peak{}, in tiles of {} rows x {} columns over {} units, half of "
        "it at depth {} (16-bit), {} of a narrower format's speed-up kept; memory {} of peak, half of it at {} per "
        "kernel ({} of KV per attention kernel)",
        format_number(in.eff.compute),
        r.compute_sustained != 1.0
            ? fmt::format(" (the chip's {} x {} sustained by the engine, §18.4)",
                          format_number(in.eff.compute / r.compute_sustained), format_number(r.compute_sustained))
            : "",
        format_number(in.eff.tile_m), format_number(in.eff.tile_n), format_number(in.eff.compute_units),
        format_number(in.eff.k_half), format_number(in.eff.narrow_speedup), format_number(in.eff.memory),
        format(in.eff.memory_half), format(in.eff.kv_half.si() > 0 ? in.eff.kv_half : in.eff.memory_half)));
    // Each kernel group on one chip, as the sum below takes it.
    const OperatorTimes ops = operator_times(
        r.cost, *in.hw, in.precision, in.eff,
        ChipShare{static_cast<double>(in.chips), static_cast<double>(in.chips), 1, static_cast<double>(in.chips),
                  static_cast<double>(in.chips), static_cast<double>(in.chips), static_cast<double>(in.chips), 1, 1},
        in.model->n_layers(), true);
    for (const KernelTime& k : ops.detail) {
      out.push_back(fmt::format("  {} x {}{}: compute {} (at {} of peak), memory {} -> {}", format_number(k.launches),
                                name(k.kind),
                                k.rows > 0 ? fmt::format(" ({} x {} x depth {} per chip)", format_number(k.rows),
                                                         format_number(k.cols), format_number(k.depth))
                                           : "",
                                format(k.compute), format_number(k.fraction), format(k.memory), name(k.bound)));
    }
    out.push_back(fmt::format(
        "per operator (model.md §18.1): t_busy = Σ over {} kernels of max(FLOPs / achievable FLOP/s, bytes / "
        "achievable bandwidth) = {} (compute {}, weights {}, KV {}, activations {})",
        format_number(r.ops.kernels), format(r.ops.busy), format(r.t_compute), format(r.t_weights), format(r.t_kv),
        format(r.ops.act)));
    std::string host;
    if (in.host_overhead.si() > 0) host += fmt::format(" + engine host {}", format(in.host_overhead));
    if (in.host_per_sequence.si() > 0) {
      host += fmt::format(" + {} sequences x {}", format_number(in.step.batch), format(in.host_per_sequence));
    }
    out.push_back(fmt::format("t_overhead = step {}{} + {} launches x {} = {} (model.md §18.4)",
                              format(in.eff.step_overhead), host, format_number(r.ops.kernels),
                              format(in.eff.kernel_overhead), format(r.t_overhead)));
    out.push_back(fmt::format(
        "t_step = t_busy + t_overhead = {} + {} = {}  -> {}-bound (the term binding most of t_busy; pure roofline "
        "max(t_compute, t_mem) = {})",
        format(r.ops.busy), format(r.t_overhead), format(r.t_step), name(r.bound),
        format(max(r.t_compute, r.t_weights + r.t_kv))));
  } else {
    out.push_back(fmt::format("t_step = max(t_compute, t_weights + t_kv) (F1) = max({}, {}) = {}  -> {}-bound",
                              format(r.t_compute), format(r.t_weights + r.t_kv), format(r.t_step), name(r.bound)));
  }
  out.push_back(fmt::format("t_upper = t_compute + t_weights + t_kv = {}", format(r.t_upper)));
  out.push_back(fmt::format("tokens/s = B * new_tokens / t_step (F9) = {} / {} = {}", format_number(s.tokens()),
                            format(r.t_step), format(r.tokens_per_s)));
  out.push_back(fmt::format("$/token = chips * $/chip-h * t_step / tokens (D1) = {} x {} x {} / {} = {}", in.chips,
                            format(in.hw->price.value), format(r.t_step), format_number(s.tokens()),
                            format(r.usd_per_token)));
  out.push_back(fmt::format(
      "power (model.md §25.6) = (idle {} + (TDP {} - idle) x min(1, {} x MFU {} + {} x HBM use {}) + host {} x {}) x "
      "PUE {} = {} per chip; J/token = {} x {} chips x t_step / tokens = {}",
      format(in.power.idle), format(in.hw->tdp), format_number(in.power.compute_weight), format_number(r.mfu),
      format_number(in.power.memory_weight), format_number(r.hbm_utilization), format(in.power.host),
      format_number(in.power.host_load), format_number(in.power.pue), format(r.facility_power / in.chips),
      format(r.facility_power / in.chips), in.chips, format(r.energy_per_token)));
  out.push_back(std::move(memory));
  return out;
}

double triangular(double lo, double mode, double hi, double u) {
  if (hi <= lo) return mode;
  const double f = (mode - lo) / (hi - lo);
  return u < f ? lo + std::sqrt(u * (hi - lo) * (mode - lo)) : hi - std::sqrt((1 - u) * (hi - lo) * (hi - mode));
}

namespace {

template <class Q>
Q draw(const Ranged<Q>& r, double u) {
  return Q(detail::RawTag{}, triangular(r.low().si(), r.value.si(), r.high().si(), u));
}

}  // namespace

Quantiles quantiles(std::vector<double> v, std::optional<double> point) {
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = static_cast<std::size_t>(std::ceil(pos));
    return v[lo] + (v[hi] - v[lo]) * (pos - std::floor(pos));
  };
  Quantiles q{at(0.1), at(0.5), at(0.9), std::nullopt, std::nullopt};
  if (point && !v.empty()) {
    q.point = *point;
    const auto below = std::lower_bound(v.begin(), v.end(), *point) - v.begin();
    const auto upto = std::upper_bound(v.begin(), v.end(), *point) - v.begin();
    // Ties count half: a range that is a point puts the point at its median.
    q.point_rank = 0.5 * static_cast<double>(below + upto) / static_cast<double>(v.size());
  }
  return q;
}

Hardware sample_hardware(const Hardware& in, const Uncertainty& u, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  Hardware hw = in;
  const double a = uni(rng), b = uni(rng), c = uni(rng), d = uni(rng);
  if (!u.spec_ranges) return hw;
  hw.hbm_bandwidth.value = draw(hw.hbm_bandwidth, a);
  hw.hbm_capacity.value = draw(hw.hbm_capacity, b);
  hw.price.value = draw(hw.price, c);
  for (auto& r : hw.compute)
    if (r) r->value = draw(*r, d);  // one draw for every format: rates move together
  return hw;
}

Efficiency sample_efficiency(const Efficiency& in, const Uncertainty& u, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  Efficiency e = in;
  e.compute = std::min(1.0, e.compute * triangular(1 - u.compute_rel, 1, 1 + u.compute_rel, uni(rng)));
  e.memory = std::min(1.0, e.memory * triangular(1 - u.memory_rel, 1, 1 + u.memory_rel, uni(rng)));
  const double lo = std::log(u.overhead_factor), lh = std::log(u.half_bytes_factor);
  const double fo = std::exp(triangular(-lo, 0, lo, uni(rng))), fh = std::exp(triangular(-lh, 0, lh, uni(rng)));
  e.step_overhead = e.step_overhead * fo;
  e.kernel_overhead = e.kernel_overhead * fo;
  e.memory_half = e.memory_half * fh;
  e.kv_half = e.kv_half * fh;
  return e;
}

std::optional<double> balance_batch(const RooflineInput& in) {
  auto bound_at = [&in](double b) {
    RooflineInput x = in;
    x.step.batch = b;
    return roofline_unchecked(x).bound;
  };
  constexpr double kMax = 1e7;
  if (bound_at(kMax) != Bound::kCompute) return std::nullopt;
  if (bound_at(1) == Bound::kCompute) return 1.0;
  double lo = 1, hi = kMax;
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (bound_at(mid) == Bound::kCompute ? hi : lo) = mid;
  }
  return hi;
}

double max_fitting_batch(const RooflineInput& in) {
  RooflineInput one = in;
  one.step.batch = 1;
  const RooflineResult r = roofline_unchecked(one);
  const double free_bytes = r.mem_capacity.si() - r.mem_weights.si();
  return free_bytes <= 0 ? 0.0 : std::floor(free_bytes / r.mem_kv.si());
}

RooflineRange roofline_range(const RooflineInput& in, const Uncertainty& u, int samples, unsigned seed) {
  RooflineRange out;
  out.samples = std::max(1, samples);
  std::mt19937_64 rng(seed);
  std::vector<double> t, tps, usd;
  for (int i = 0; i < out.samples; ++i) {
    const Hardware hw = sample_hardware(*in.hw, u, rng);
    RooflineInput s = in;
    s.hw = &hw;
    s.eff = sample_efficiency(in.eff, u, rng);
    const RooflineResult r = roofline_unchecked(s);
    t.push_back(r.t_step.si());
    tps.push_back(r.tokens_per_s.si());
    usd.push_back(r.usd_per_token.si() * 1e6);
  }
  out.t_step_s = quantiles(t);
  out.tokens_per_s = quantiles(tps);
  out.usd_per_mtok = quantiles(usd);
  return out;
}

}  // namespace llmecon
