// The blackboard analyses (docs/model.md §6-§13).
#include "economics/economics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace llmecon {

namespace {
using units::bytes;
using units::seconds;
constexpr double kInf = std::numeric_limits<double>::infinity();
std::string num(double v) {
  return format_number(v);
}
std::string secs(double s) {
  return format(seconds(s));
}
std::string usd_mtok(DollarsPerToken c) {
  return "$" + format_number(c.si() * 1e6) + "/Mtok";
}
}  // namespace

Seconds Board::t_compute(double batch, double new_tokens) const {
  return units::flops(2.0 * batch * new_tokens * n_active) / flops;
}
Seconds Board::t_weights() const {
  return weight_bytes() / mem_bw;
}
Seconds Board::t_kv(double batch, double context) const {
  return bytes(batch * context * kv.si()) / mem_bw;
}
Seconds Board::t_step(double batch, double context, double new_tokens) const {
  return max(t_compute(batch, new_tokens), t_weights() + t_kv(batch, context));
}
DollarsPerToken Board::cost(double batch, double context, double new_tokens) const {
  return price * t_step(batch, context, new_tokens) / units::tokens(batch * new_tokens);
}

Board board_from(const ModelSpec& m, const Hardware& hw, int chips, const Precision& p) {
  Board b;
  b.model = m.name;
  b.hardware = hw.name;
  b.n_total = m.params_total();
  b.n_active = m.params_active_matmul();
  b.bytes_per_param = m.weight_bytes(p.weights, p.experts).si() / b.n_total;
  b.kv = m.kv_bytes_per_token(p.kv);
  b.experts = m.moe.experts;
  b.top_k = m.moe.top_k;
  b.layers = m.n_layers();
  b.chips = chips;
  const double n = chips;
  b.flops = hw.peak(wider(p.weights, p.act)) * n;
  b.mem_bw = hw.hbm_bandwidth.value * n;
  b.hbm = hw.hbm_capacity.value * n;
  b.price = hw.price.value * n;
  b.scale_up_bw = hw.scale_up.bandwidth;
  b.scale_out_bw = hw.scale_out.bandwidth;
  b.tiers = hw.host_tiers;
  return b;
}

// ---------------------------------------------------------------------------------------------
// §6 batch

Analysis batch_analysis(const Board& b, double context) {
  Analysis a("batch");
  a.step_model = kStepIdealPooled;
  const double R = b.R(), S = b.S();
  const double bstar = R * S;  // F6
  a.figure("r", R, "", "R = FLOPS / (2 x params fetched per s), MACs per parameter read (F7)");
  a.figure("sparsity", S, "x", "S = N_total / N_active");
  a.figure("b_star", bstar, "", "optimal batch without KV, R x S (F6)");
  a.explain(fmt::format("R = FLOPS x bytes/param / (2 x BW) (F7) = {} x {} / (2 x {}) = {}", format(b.flops),
                        num(b.bytes_per_param), format(b.mem_bw), num(R)));
  a.explain(fmt::format("S = N_total / N_active = {} / {} = {}", num(b.n_total), num(b.n_active), num(S)));
  a.explain(fmt::format("B* = R x S (F6) = {} x {} = {}", num(R), num(S), num(bstar)));
  // With KV: t_w = B (2 N_a / F - c kv / BW).
  const double per_seq_compute = (units::flops(2.0 * b.n_active) / b.flops).si();
  const double per_seq_kv = (bytes(context * b.kv.si()) / b.mem_bw).si();
  const double bstar_kv = per_seq_compute > per_seq_kv ? b.t_weights().si() / (per_seq_compute - per_seq_kv) : kInf;
  a.figure("b_star_kv", bstar_kv, "", "optimal batch with the KV term at this context (F6 with KV)",
           std::isfinite(bstar_kv) ? ""
                                   : fmt::format("KV-bound at every batch: per sequence, KV fetch {} >= compute {} "
                                                 "(past the F10 crossover)",
                                                 secs(per_seq_kv), secs(per_seq_compute)));
  if (std::isfinite(bstar_kv)) {
    a.explain(fmt::format("B*_kv = t_weights / (2 N_active / FLOPS - c kv / BW) = {} / ({} - {}) = {}",
                          secs(b.t_weights().si()), secs(per_seq_compute), secs(per_seq_kv), num(bstar_kv)));
  } else {
    a.explain(fmt::format("B*_kv is infinite: per sequence, KV fetch {} >= compute {} (past the F10 crossover)",
                          secs(per_seq_kv), secs(per_seq_compute)));
  }
  // F21: the largest batch whose KV fits beside the weights. A recommendation is only ever a batch
  // that fits: the practical range 2-3 B* is capped there, and says so.
  const double kv_seq = (b.kv * units::tokens(context)).si();
  const double max_fit = b.hbm < b.weight_bytes() ? 0.0 : (kv_seq > 0 ? std::floor(b.batch_fills_hbm(context)) : kInf);
  a.figure("max_batch_fits", max_fit, "", "largest batch whose KV fits beside the weights (F21)",
           std::isfinite(max_fit) ? "" : "no KV per token: every batch fits");
  if (max_fit < 1) {
    a.set_infeasible(fmt::format("the weights ({}) do not fit in {} of HBM on {} chips", format(b.weight_bytes()),
                                 format(b.hbm), b.chips));
    return a;
  }
  const double lo = std::min(2 * bstar, max_fit), hi = std::min(3 * bstar, max_fit);
  a.figure("practical_batch_low", lo, "",
           "practical batch, low: 2 B* (operators run 2-3x above, T 00:17), at most the largest that fits");
  a.figure("practical_batch_high", hi, "", "practical batch, high: 3 B*, at most the largest that fits");
  if (hi < 3 * bstar) {
    a.note(fmt::format("the practical batch 2-3 B* = {}-{} does not fit at context {}: capped at {} (F21)",
                       num(2 * bstar), num(3 * bstar), num(context), num(max_fit)));
  }
  a.note(
      "ideal roofline: the lecture's closed forms (F1-F7), no efficiency factors or fixed costs; `roofline` and "
      "`report` give the calibrated step");
  const Seconds floor = b.t_weights();  // F4
  a.figure("latency_floor_s", floor, "weight fetch over the pooled bandwidth (F4)");
  a.explain(fmt::format("latency floor = N_total x bytes/param / BW (F4) = {} / {} = {}", format(b.weight_bytes()),
                        format(b.mem_bw), format(floor)));
  // Prices only at batches that fit (F21): a cost at a batch past HBM is withheld with its reason.
  const double at_bstar = std::max(1.0, bstar);
  const std::string past_hbm =
      fmt::format("does not fit: at most {} sequences of context {} fit (F21)", num(max_fit), num(context));
  const DollarsPerToken c1 = b.cost(1, context), cstar = b.cost(at_bstar, context);
  const bool bstar_fits = at_bstar <= max_fit;
  a.figure("cost_b1_usd_per_mtok_output", c1, "cost per output token at B = 1");
  if (bstar_fits) {
    a.figure("cost_bstar_usd_per_mtok_output", cstar, "cost per output token at B*");
    a.figure("unbatched_penalty", c1 / cstar, "x", "cost(B=1) / cost(B*) (D3)");
    a.explain(fmt::format("unbatched penalty = cost(1) / cost(B*) (D3) = {} / {} = {}x", usd_mtok(c1), usd_mtok(cstar),
                          num(c1 / cstar)));
  } else {
    a.figure("cost_bstar_usd_per_mtok_output", kInf, "$/Mtok", "cost per token at B*",
             "B* = " + num(at_bstar) + " " + past_hbm);
    a.figure("unbatched_penalty", kInf, "x", "cost(B=1) / cost(B*) (D3)", "B* = " + num(at_bstar) + " " + past_hbm);
  }
  // Slow mode: B -> infinity leaves max(compute, KV) per token (F5).
  const DollarsPerToken slow = b.price * seconds(std::max(per_seq_compute, per_seq_kv)) / units::tokens(1);
  a.figure("slow_mode_floor_usd_per_mtok_output", slow, "cost per output token as B -> infinity (F5)");
  if (2.5 * bstar <= max_fit) {
    const DollarsPerToken practical = b.cost(std::max(1.0, 2.5 * bstar), context);
    a.figure("slow_mode_saving", 1.0 - slow / practical, "x", "fraction saved by infinite batching beyond 2.5 B*");
    a.explain(fmt::format("slow-mode floor = price x max(2 N_active / FLOPS, c kv / BW) (F5) = {} vs {} at 2.5 B*",
                          usd_mtok(slow), usd_mtok(practical)));
  } else {
    a.figure("slow_mode_saving", kInf, "x", "fraction saved by infinite batching beyond 2.5 B*",
             "2.5 B* = " + num(2.5 * bstar) + " " + past_hbm);
  }
  // Batches whose KV does not fit in HBM are listed, marked (F21): their cost is a bound, not a price.
  Table t{"curve",
          {{"batch", ""},
           {"t_step_s", "s", "t_step (ideal)"},
           {"usd_per_mtok_output", "$/Mtok", "$/Mtok out (ideal)"},
           {"bound", ""},
           {"feasible", "bool"},
           {"reason", ""}},
          {}};
  const double top = std::max(64.0, 16 * (std::isfinite(bstar_kv) ? std::max(bstar, bstar_kv) : bstar));
  for (double B = 1; B <= top; B *= 2) {
    const Seconds tc = b.t_compute(B), tm = b.t_weights() + b.t_kv(B, context);
    const char* bound = tc >= tm ? "compute" : (b.t_weights() >= b.t_kv(B, context) ? "weights" : "kv");
    const bool fits = b.fits(B, context);
    t.rows.push_back({B, b.t_step(B, context).si(), b.cost(B, context).si() * 1e6, bound, fits ? 1.0 : 0.0,
                      fits ? "" : "weights + KV past HBM (F21)"});
    if (!fits) t.withhold_row(t.rows.size() - 1);
  }
  a.tables.push_back(std::move(t));
  return a;
}

Analysis fast_mode_analysis(const Board& b, double context, double p, double s) {
  Analysis a("fast mode");
  a.step_model = kStepIdealPooled;
  a.figure("price_multiple", p, "x", "fast price / standard price");
  a.figure("speed_multiple", s, "x", "fast tokens/s per user / standard");
  const double ratio = p * s;  // D2
  a.figure("batch_ratio", ratio, "x", "B_std / B_fast = price x speed multiples (D2)");
  a.explain(fmt::format("cost/token = t / B, so B_fast = B_std / (p x s) (D2) = B_std / {}", num(ratio)));
  // Memory-bound closed form: W + (B/ps) k = (W + B k) / s  =>  B k = W p (s-1) / (p-1).
  if (p > 1 && s > 1) {
    const double share = p * (s - 1) / (p - 1);
    a.figure("kv_share_of_weights", share, "x", "KV fetch time at B_std over weight fetch time, if memory-bound");
    a.explain(fmt::format(
        "memory-bound: t_w + (B/{}) t_kv1 = (t_w + B t_kv1) / {} => B t_kv1 = t_w x {} ({}-1)/({}-1) = {} t_w",
        num(ratio), num(s), num(p), num(s), num(p), num(share)));
  }
  // Solve the full roofline: s * t(B/ps) = t(B) for B_std by bisection.
  auto f = [&](double B) { return s * b.t_step(B / ratio, context).si() - b.t_step(B, context).si(); };
  bool consistent = false;
  std::string why;
  double bstd = 0;
  if (p <= 1 || s <= 1) {
    why = "a fast mode must cost more (p > 1) and run faster (s > 1)";
  } else if (f(ratio) <= 0) {
    bstd = ratio;
    consistent = true;
    a.note("already at B_fast = 1 the step is at least " + num(s) + "x faster than at B_std = " + num(ratio));
  } else {
    double lo = ratio, hi = ratio;
    while (f(hi) > 0 && hi < 1e9) hi *= 2;
    if (f(hi) > 0) {
      why = "no standard batch makes the small-batch step that much faster: the weight fetch floors the step";
    } else {
      for (int i = 0; i < 200 && hi - lo > 1e-6 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (f(mid) > 0 ? lo : hi) = mid;
      }
      bstd = hi;
      consistent = true;
    }
  }
  if (consistent) {
    const double bfast = bstd / ratio;
    a.figure("b_std", bstd, "", "standard batch that explains the pair at this context");
    a.figure("b_fast", bfast, "", "fast-mode batch");
    a.figure("t_std_s", b.t_step(bstd, context), "standard step");
    a.figure("t_fast_s", b.t_step(bfast, context), "fast step");
    a.explain(fmt::format("solve s x t(B/{}) = t(B): B_std = {}, B_fast = {}, steps {} -> {}", num(ratio), num(bstd),
                          num(bfast), secs(b.t_step(bstd, context).si()), secs(b.t_step(bfast, context).si())));
    if (bfast < 1) {
      consistent = false;
      why = "the fast batch would be below one sequence";
    }
  }
  a.figure("consistent", consistent ? 1 : 0, "bool", "the roofline admits the pair");
  if (!consistent) a.note("inconsistent: " + why);
  return a;
}

// ---------------------------------------------------------------------------------------------
// §7 step

Analysis step_analysis(const Board& b, double batch, double context, TokensPerSecond provider_rate) {
  const double provider = provider_rate.si();
  Analysis a("step");
  a.step_model = kStepIdealPooled;
  const Seconds drain = b.hbm / b.mem_bw;  // F8
  a.figure("drain_time_s", drain, "HBM capacity / HBM bandwidth: the step interval (F8)");
  a.figure("worst_latency_s", drain * 2.0, "just miss a train, wait one interval, ride one (F8)");
  a.figure("steps_per_s", 1 / drain.si(), "", "trains per second");
  a.explain(fmt::format("t_drain = HBM / BW (F8) = {} / {} = {}", format(b.hbm), format(b.mem_bw), format(drain)));
  a.explain(fmt::format("worst-case latency = 2 x t_drain = {}", format(drain * 2.0)));
  const double tps = batch / drain.si();  // F9
  a.figure("tokens_per_s", tps, "tok/s", "tokens per second per serving unit, B / t_drain (F9)");
  a.explain(fmt::format("tokens/s = B / t_drain (F9) = {} / {} = {}", num(batch), format(drain),
                        format(units::tokens_per_s(tps))));
  // The batch whose weights plus KV fill HBM: then one step reads all of memory once.
  const double kv_seq = context * b.kv.si();
  if (kv_seq > 0 && b.hbm > b.weight_bytes()) {
    const double bfull = b.batch_fills_hbm(context);
    a.figure("batch_fills_hbm", bfull, "", "sequences whose KV fills the HBM left after weights (F21)");
    a.explain(fmt::format("B_full = (HBM - weights) / (c x kv) = ({} - {}) / {} = {}", format(b.hbm),
                          format(b.weight_bytes()), format(bytes(kv_seq)), num(bfull)));
  }
  if (provider > 0) {
    a.figure("provider_tokens_per_s", provider, "tok/s", "reference traffic");
    a.figure("units_to_serve_provider", provider / tps, "", "serving units to carry the reference traffic");
    a.figure("share_of_provider", tps / provider, "x", "one unit's share of the reference traffic");
    a.explain(fmt::format("one unit carries {} of {} = 1/{}", format(units::tokens_per_s(tps)),
                          format(units::tokens_per_s(provider)), num(provider / tps)));
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// §8 context

Analysis context_analysis(const Board& b, double batch, double knee, double topk, double index_bytes, double block) {
  Analysis a("context");
  a.step_model = kStepIdealPooled;
  const double compute_per_tok = (units::flops(2.0 * b.n_active) / b.flops).si();  // s per token
  const double kv_time_per_ctx = b.kv.si() / b.mem_bw.si();                        // s per cached token
  const double crossover = compute_per_tok / kv_time_per_ctx;                      // F10
  a.figure("crossover_context", crossover, "tok", "context where KV fetch equals compute, N_active / (R kv) (F10)");
  a.explain(fmt::format(
      "len* = 2 N_active BW / (FLOPS kv) = N_active x bytes/param / (R x kv) (F10) = {} x {} / ({} x {}) = {}",
      num(b.n_active), num(b.bytes_per_param), num(b.R()), format(b.kv), num(crossover)));
  if (knee > 0) {
    const double kv_implied = compute_per_tok * b.mem_bw.si() / knee;  // F11
    a.figure("kv_bytes_per_token_from_knee", kv_implied, "B/tok", "KV bytes per token implied by a pricing knee (F11)");
    a.explain(fmt::format("kv = N_active x bytes/param / (R x len_knee) (F11) = {} x {} / ({} x {}) = {}",
                          num(b.n_active), num(b.bytes_per_param), num(b.R()), num(knee),
                          format(units::bytes_per_token(kv_implied))));
  }
  Table t{"curve",
          {{"context", "tok"},
           {"usd_per_mtok_output", "$/Mtok", "$/Mtok out (ideal)"},
           {"mfu", "x"},
           {"bound", ""},
           {"feasible", "bool"},
           {"reason", ""}},
          {}};
  for (double c = 1024; c <= 4.2e6; c *= 2) {
    const Seconds tc = b.t_compute(batch), tm = b.t_weights() + b.t_kv(batch, c);
    const char* bound = tc >= tm ? "compute" : (b.t_weights() >= b.t_kv(batch, c) ? "weights" : "kv");
    const bool fits = b.fits(batch, c);
    t.rows.push_back({c, b.cost(batch, c).si() * 1e6, tc / b.t_step(batch, c), bound, fits ? 1.0 : 0.0,
                      fits ? "" : "weights + KV past HBM (F21)"});
    if (!fits) t.withhold_row(t.rows.size() - 1);
  }
  a.tables.push_back(std::move(t));
  // Sparse attention (F13): KV bytes read per generated token.
  Table s{"sparse",
          {{"context", "tok"}, {"dense_bytes", "B"}, {"topk_bytes", "B"}, {"sqrt_bytes", "B"}, {"cheapest", ""}},
          {}};
  for (double c = 1024; c <= 4.2e6; c *= 4) {
    const double dense = c * b.kv.si();
    const double tk = std::min(c, topk) * b.kv.si() + c * index_bytes;
    const double sq = std::min(c, std::sqrt(block * c)) * b.kv.si();
    const char* best = dense <= tk && dense <= sq ? "dense" : (tk <= sq ? "topk" : "sqrt");
    s.rows.push_back({c, dense, tk, sq, best});
  }
  a.tables.push_back(std::move(s));
  // Crossover contexts where each variant's KV fetch equals compute.
  const double budget = compute_per_tok * b.mem_bw.si();  // bytes per token the compute time can hide
  double topk_cross = kInf;
  if (budget <= topk * b.kv.si()) {
    topk_cross = budget / (b.kv.si() + index_bytes);  // below top-k every token is read, plus its index key
  } else if (index_bytes > 0) {
    topk_cross = (budget - topk * b.kv.si()) / index_bytes;
  }
  a.figure("crossover_context_topk", topk_cross, "tok", "crossover with top-k attention and its indexer",
           std::isfinite(topk_cross) ? ""
                                     : "top-k reads a fixed number of tokens and its indexer costs nothing: "
                                       "KV fetch never reaches compute");
  a.figure("crossover_context_sqrt", (budget / b.kv.si()) * (budget / b.kv.si()) / block, "tok",
           "crossover with sqrt(block x context) attention");
  a.explain(fmt::format("top-k: min(c, {}) kv + c x {} B; sqrt: sqrt({} c) kv; dense: c kv (F13)", num(topk),
                        num(index_bytes), num(block)));
  return a;
}

// ---------------------------------------------------------------------------------------------
// §10 layout

Analysis layout_analysis(const Board& b, double context, double micro_batch, int racks, int stages,
                         int layers_per_stage) {
  Analysis a("layout");
  a.step_model = kStepIdealPooled;
  const int n = b.chips;
  // F16: experts spread over the largest power of two of chips that divides the expert count.
  int used = n;
  if (b.experts > 0) {
    used = 1;
    while (used * 2 <= n && std::fmod(b.experts, used * 2) == 0) used *= 2;
    a.figure("experts", b.experts, "", "routed experts per MoE layer");
    a.figure("chips_used", used, "", "chips holding experts (a power of two dividing the experts)");
    a.figure("experts_per_chip", b.experts / used, "", "experts per chip (F16)");
    a.figure("chips_idle", n - used, "", "chips left without experts");
    a.explain(fmt::format("experts per chip = {} / {} = {} ({} of {} chips idle) (F16)", num(b.experts), used,
                          num(b.experts / used), n - used, n));
  }
  // F17: with the layer split over r racks, (r-1)/r of routed tokens leave the rack.
  const double cross = 1.0 - 1.0 / racks;
  a.figure("cross_domain_fraction", cross, "x", "share of all-to-all traffic crossing racks, 1 - 1/racks (F17)");
  const double up_over_out = b.scale_up_bw / b.scale_out_bw;
  a.figure("scaleup_over_scaleout", up_over_out, "x", "scale-up / scale-out bandwidth per chip");
  a.figure("all_to_all_slowdown", std::max(1.0, cross * up_over_out), "x",
           "all-to-all time relative to one rack (the slow link dominates)");
  a.explain(fmt::format("cross-rack fraction = 1 - 1/{} = {}; at {}x slower scale-out the layer is {}x slower (F17)",
                        racks, num(cross), num(up_over_out), num(std::max(1.0, cross * up_over_out))));
  // F18: the pipeline-boundary check.
  const double k = b.top_k > 0 ? b.top_k : 1;
  const double check = (1.0 / up_over_out) * k * 2 * layers_per_stage;
  a.figure("pipeline_boundary_ratio", check, "x",
           "t_scaleup / t_scaleout at a stage boundary = (BW_out / BW_up) x k x 2 x L_stage (F18); >= 1 is fine");
  a.explain(fmt::format("(BW_out/BW_up) x k x 2 x L_stage (F18) = (1/{}) x {} x 2 x {} = {} -> {}", num(up_over_out),
                        num(k), layers_per_stage, num(check), check >= 1 ? "fine" : "scale-out bound"));
  // F21: memory per chip with P stages and B = P x b.
  Table t{"memory_per_chip",
          {{"stages", "", "pipeline stages"},
           {"weights_bytes", "B", "weights"},
           {"kv_bytes", "B", "KV"},
           {"total_bytes", "B", "total"}},
          {},
          "memory per chip against pipeline stages (F21)"};
  for (int P : {1, 2, 4, 8, 16}) {
    const double w = b.weight_bytes().si() / (n * P);
    const double kv = (P * micro_batch) * context * b.kv.si() / (n * P);
    t.rows.push_back({static_cast<double>(P), w, kv, w + kv});
  }
  a.tables.push_back(std::move(t));
  const double w1 = b.weight_bytes().si() / n, kv1 = micro_batch * context * b.kv.si() / n;
  a.figure("weights_per_chip_bytes", b.weight_bytes() / (n * stages), "N_total bytes / (E x P) (F21)");
  a.figure("kv_per_chip_bytes", kv1, "B", "b x c x kv / E, independent of P (F21)");
  a.explain(fmt::format(
      "per chip: weights N/(E P) = {} / ({} x {}) = {}; KV b c kv / E = {} x {} x {} / {} = {} for any P (F21)",
      format(b.weight_bytes()), n, stages, format(bytes(w1 / stages)), num(micro_batch), num(context), format(b.kv), n,
      format(bytes(kv1))));
  // F22: pipeline latency in inference adds a hop per stage to each token's loop.
  const Seconds t1 = b.t_step(micro_batch, context);
  const Seconds tp = t1 + b.hop_latency * (stages > 1 ? stages : 0);
  a.figure("step_s", t1, "step with one stage");
  a.figure("pipelined_step_s", tp, "step with P stages: the same work plus P hops (F22)");
  a.explain(fmt::format("pipelined step = t_step + P x hop (F22) = {} + {} x {} = {}", format(t1),
                        stages > 1 ? stages : 0, format(b.hop_latency), format(tp)));
  // F19: scale-up generations for this chip.
  Table g{"scaleup_generations",
          {{"domain_chips", "", "scale-up domain (chips)"},
           {"weight_fetch_s", "s", "weight fetch"},
           {"hbm_bytes", "B", "HBM"},
           {"largest_model_params", "param", "largest model that fits"}},
          {},
          "scale-up generations (F19)"};
  for (int d : {8, 72, 576}) {
    const double bw = b.mem_bw.si() / n * d, cap = b.hbm.si() / n * d;
    g.rows.push_back({static_cast<double>(d), b.weight_bytes().si() / bw, cap, cap / b.bytes_per_param});
  }
  a.tables.push_back(std::move(g));
  return a;
}

// ---------------------------------------------------------------------------------------------
// §11 cache tiers

std::vector<TierCost> tier_costs(const Board& b) {
  std::vector<TierCost> out;
  const double kv = b.kv.si();
  const DollarsPerSecond chip_price = b.price / static_cast<double>(b.chips);
  const Bytes chip_hbm = b.hbm / static_cast<double>(b.chips);
  const BytesPerSecond chip_bw = b.mem_bw / static_cast<double>(b.chips);
  // HBM: holding occupies the chip's memory and so its price; the KV is already in place.
  out.push_back(TierCost{"hbm", chip_price * (kv / chip_hbm.si()), Dollars{}, chip_hbm / chip_bw});
  for (const auto& t : b.tiers) {
    out.push_back(TierCost{t.name, t.price * (kv / t.capacity.si()), t.price * (bytes(kv) / t.bandwidth),
                           t.capacity / t.bandwidth});
  }
  // Recompute from token IDs: nothing held, one prefill token of compute to retrieve (F31).
  out.push_back(TierCost{"recompute", DollarsPerSecond{}, b.price * b.t_compute(1), Seconds{}});
  return out;
}

std::size_t best_tier(const std::vector<TierCost>& tiers, Seconds hold) {
  std::size_t best = 0;
  double best_cost = kInf;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const double c = (tiers[i].hold_rate * hold + tiers[i].retrieve).si();
    if (c < best_cost) {
      best_cost = c;
      best = i;
    }
  }
  return best;
}

std::size_t drain_rule_tier(const std::vector<TierCost>& tiers, Seconds hold) {
  std::size_t rule = 0;
  double dist = kInf;
  for (std::size_t j = 0; j < tiers.size(); ++j) {
    if (tiers[j].drain.si() <= 0) continue;
    const double d = std::fabs(std::log(tiers[j].drain / hold));
    if (d < dist) {
      dist = d;
      rule = j;
    }
  }
  return rule;
}

std::string ttl_tier_note(const Board& b, const std::vector<TierCost>& tiers, Seconds ttl) {
  // model.md §11: a TTL lands on the cheapest tier for that hold (hold x TTL + retrieve); the
  // drain-time rule (F33) is the lecture's shortcut. Tiers are the chip's own.
  const std::size_t i = best_tier(tiers, ttl);
  const std::size_t rule = drain_rule_tier(tiers, ttl);
  std::string note = fmt::format("a {} TTL lands on {} ({}'s host tiers): the cheapest tier for that hold", format(ttl),
                                 tiers[i].name, b.hardware);
  note += rule == i ? fmt::format(", and the drain-time rule (F33) agrees ({} drains in {})", tiers[rule].name,
                                  format(tiers[rule].drain))
                    : fmt::format("; the drain-time rule (F33) would pick {} (drains in {})", tiers[rule].name,
                                  format(tiers[rule].drain));
  return note;
}

Analysis cache_analysis(const Board& b, const std::vector<double>& holds) {
  Analysis a("cache");
  const auto tiers = tier_costs(b);
  Table t{"tiers",
          {{"tier", "", "tier"},
           {"hold_usd_per_mtok_hour", "$/Mtok/h", "hold, per hour"},
           {"retrieve_usd_per_mtok", "$/Mtok", "retrieve"},
           {"drain_s", "s", "drain time (capacity / bandwidth)"}},
          {},
          "KV storage tiers"};
  for (const auto& c : tiers) {
    t.rows.push_back({c.name, c.hold_rate.si() * 3600 * 1e6, c.retrieve.si() * 1e6, c.drain.si()});
    a.explain(fmt::format(
        "{}: hold = kv / capacity x $/s (F32) = {}/Mtok/h; retrieve = kv / bandwidth x $/s = {}/Mtok; drain {}", c.name,
        "$" + num(c.hold_rate.si() * 3600 * 1e6), "$" + num(c.retrieve.si() * 1e6), format(c.drain)));
  }
  a.tables.push_back(std::move(t));
  Table h{"by_hold_time",
          {{"hold_s", "s", "hold"},
           {"best_tier", "", "cheapest tier"},
           {"usd_per_mtok_cached", "$/Mtok", "hold + retrieve"},
           {"drain_rule_tier", "", "drain-time rule (F33)"}},
          {},
          "the cheapest tier for each hold time"};
  for (double hold : holds) {
    const std::size_t i = best_tier(tiers, seconds(hold));
    const std::size_t rule = drain_rule_tier(tiers, seconds(hold));
    h.rows.push_back(
        {hold, tiers[i].name, (tiers[i].hold_rate * seconds(hold) + tiers[i].retrieve).si() * 1e6, tiers[rule].name});
  }
  a.tables.push_back(std::move(h));
  for (double ttl : {300.0, 3600.0}) a.note(ttl_tier_note(b, tiers, seconds(ttl)));
  return a;
}

}  // namespace llmecon
