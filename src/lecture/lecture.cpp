// The lecture's claims C1-C24 (docs/model.md §14), each recomputed with the lecture's inputs and
// re-run on real catalog entries.
#include "lecture/lecture.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "economics/economics.hpp"
#include "economics/pricing.hpp"

namespace llmecon {

std::string_view name(Check c) {
  switch (c) {
    case Check::kRelative:
      return "relative";
    case Check::kLog10:
      return "log10";
    case Check::kEqual:
      return "equal";
  }
  return "?";
}

int feistel_round_trips(int trials, unsigned seed) {
  // f is deliberately not invertible (it squares and truncates); the network still is (F34).
  auto f = [](std::uint32_t x) { return static_cast<std::uint32_t>((static_cast<std::uint64_t>(x) * x) >> 7); };
  std::uint64_t s = seed;
  auto next = [&s]() {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(s >> 32);
  };
  int ok = 0;
  for (int i = 0; i < trials; ++i) {
    const std::uint32_t x = next(), y = next();
    // Two rounds with the halves swapped between them: (x, y) -> (x, y + f(x)) -> swap.
    std::uint32_t a = x, b = y;
    b = b + f(a);
    std::swap(a, b);
    b = b + f(a);
    // Inverse: undo in reverse order.
    b = b - f(a);
    std::swap(a, b);
    b = b - f(a);
    ok += (a == x && b == y) ? 1 : 0;
  }
  return ok;
}

namespace {

using units::bytes;
using units::seconds;

bool judge(Check c, double expected, double computed, double tol) {
  switch (c) {
    case Check::kRelative:
      return std::fabs(computed - expected) <= tol * std::fabs(expected) + 1e-12;
    case Check::kLog10:
      return computed > 0 && std::fabs(std::log10(computed / expected)) <= tol;
    case Check::kEqual:
      return false;  // categorical claims compare text
  }
  return false;
}

class Claims {
 public:
  Claim& numeric(std::string id, std::string claim, std::string inputs, double expected, double computed,
                 std::string unit, Check check, double tol, std::string source) {
    Claim c;
    c.id = std::move(id);
    c.claim = std::move(claim);
    c.inputs = std::move(inputs);
    c.expected = expected;
    c.computed = computed;
    c.unit = std::move(unit);
    c.check = check;
    c.tolerance = tol;
    c.pass = judge(check, expected, computed, tol);
    c.source = std::move(source);
    out.push_back(std::move(c));
    return out.back();
  }
  Claim& categorical(std::string id, std::string claim, std::string inputs, std::string expected, std::string computed,
                     std::string source) {
    Claim c;
    c.id = std::move(id);
    c.claim = std::move(claim);
    c.inputs = std::move(inputs);
    c.check = Check::kEqual;
    c.pass = expected == computed;
    c.expected_text = std::move(expected);
    c.computed_text = std::move(computed);
    c.source = std::move(source);
    out.push_back(std::move(c));
    return out.back();
  }
  std::vector<Claim> out;
};

// A board from the lecture's abstract numbers on `chips` blackboard accelerators.
Board abstract_board(const Hardware& hw, int chips, double n_total, double n_active, double bytes_per_param,
                     double kv) {
  Board b;
  b.model = "lecture";
  b.hardware = hw.name;
  b.n_total = n_total;
  b.n_active = n_active;
  b.bytes_per_param = bytes_per_param;
  b.kv = units::bytes_per_token(kv);
  b.chips = chips;
  b.flops = hw.peak(DType::kFp8) * static_cast<double>(chips);
  b.mem_bw = hw.hbm_bandwidth.value * static_cast<double>(chips);
  b.hbm = hw.hbm_capacity.value * static_cast<double>(chips);
  b.price = hw.price.value * static_cast<double>(chips);
  b.scale_up_bw = hw.scale_up.bandwidth;
  b.scale_out_bw = hw.scale_out.bandwidth;
  b.tiers = hw.host_tiers;
  return b;
}

std::string n(double v) {
  return format_number(v);
}

// What every claim reads: the lecture's blackboard chip and its DeepSeek-like model on 64 of
// them, and the real chips and models the claims are checked against.
struct Setting {
  const HardwareCatalog& hwc;
  const ModelCatalog& models;
  const Hardware& bb;
  const Hardware& gb;
  const Hardware& h100;
  const ModelSpec& ds;
  const ModelSpec& ll;
  const Board& ds_gb;  ///< deepseek-v3 fp8 on 72 GB200
  const Board& ll_h;   ///< llama-3.1-70b bf16 on 8 H100
  const Board& lec;    ///< 700B total, S = 8, 1 byte/param on 64 blackboard chips
};

// C1-C6: the batch, the step as the HBM drain, throughput, the latency floor, slow modes, batching.
void claims_c1_c6(const Setting& set, Claims& cl) {
  const HardwareCatalog& hwc = set.hwc;
  const Hardware& bb = set.bb;
  const Hardware& h100 = set.h100;
  const ModelSpec& ds = set.ds;
  const Board& ds_gb = set.ds_gb;
  const Board& ll_h = set.ll_h;
  const Board& lec = set.lec;
  // C1 ---------------------------------------------------------------------------------------
  {
    const Analysis a = batch_analysis(lec, 0);
    Claim& c = cl.numeric("C1", "Optimal batch = 300 x sparsity, independent of model scale",
                          "R = 300 (blackboard), S = 256/32 = 8", 2400, a.get("b_star"), "sequences", Check::kRelative,
                          1e-9, "T 00:17; FC");
    c.derivation = a.derivation;
    c.corrected = 300.0 * 700.0 / 37.0;
    c.corrected_note = "the lecture's own 700B total / 37B active gives S = 18.9 and B* = 5,676 (lecture.md §5)";
    const Analysis r1 = batch_analysis(ds_gb, 0), r2 = batch_analysis(ll_h, 0);
    c.real.push_back({"deepseek-v3 fp8 on gb200 x72", r1.get("b_star"), "",
                      fmt::format("R = {} from 5 PFLOP/s fp8 / 8 TB/s, and S = {} (8 of 256 routed experts plus "
                                  "attention and a shared expert, not 32 of 256)",
                                  n(r1.get("r")), n(r1.get("sparsity")))});
    c.real.push_back(
        {"llama-3.1-70b bf16 on h100-sxm x8", r2.get("b_star"), "",
         fmt::format("dense (S = {}); R = {} with 2-byte weights", n(r2.get("sparsity")), n(r2.get("r")))});
    // Scale independence: a 10x larger model at the same sparsity has the same B*.
    const Board big = abstract_board(bb, 64, 7000e9, 7000e9 / 8, 1.0, 2048);
    c.derivation.push_back(fmt::format("a 10x larger model at S = 8: B* = {} (scale does not enter)",
                                       n(batch_analysis(big, 0).get("b_star"))));
  }
  // C2 ---------------------------------------------------------------------------------------
  {
    Hardware rubin_like = bb;
    rubin_like.hbm_capacity.value = units::gb(288);
    rubin_like.hbm_bandwidth.value = units::tb_per_s(20);
    const Board rb = abstract_board(rubin_like, 72, 700e9, 87.5e9, 1.0, 2048);
    const Analysis a = step_analysis(rb, 2000, 0, TokensPerSecond{});
    Claim& c =
        cl.numeric("C2", "The step ('the train') is the HBM drain time: Rubin ~15 ms", "Rubin: 288 GB HBM, 20 TB/s",
                   15e-3, a.get("drain_time_s"), "s", Check::kRelative, 0.05, "T; FC");
    c.derivation = a.derivation;
    c.corrected = 14.4e-3;
    c.corrected_note = "exact: 288 GB / 20 TB/s = 14.4 ms (the lecture rounds to 15)";
    for (const char* h : {"rubin", "gb200", "h100-sxm"}) {
      const Hardware* hw = hwc.find(h);
      c.real.push_back(
          {h, hw->drain_time().si(), "",
           fmt::format("{} / {} from the catalog", format(hw->hbm_capacity.value), format(hw->hbm_bandwidth.value))});
    }
    const Analysis w = step_analysis(lec, 2000, 0, TokensPerSecond{});
    Claim& c2 = cl.numeric("C2b", "Worst-case queueing latency is twice the step: 40 ms", "20 ms drain (blackboard)",
                           40e-3, w.get("worst_latency_s"), "s", Check::kRelative, 1e-9, "T; FC");
    c2.derivation = w.derivation;
  }
  // C3 ---------------------------------------------------------------------------------------
  {
    Hardware h64 = bb;
    h64.hbm_capacity.value = h64.hbm_bandwidth.value * seconds(1.0 / 64);  // 64 steps per second
    const Board b64 = abstract_board(h64, 64, 700e9, 87.5e9, 1.0, 2048);
    const Analysis a = step_analysis(b64, 2000, 0, units::tokens_per_s(500e6));
    Claim& c = cl.numeric("C3", "Tokens per second per serving unit = B x steps/s = 2000 x 64",
                          "B = 2,000 sequences, 64 steps/s", 128000, a.get("tokens_per_s"), "tok/s", Check::kRelative,
                          1e-9, "T; PD; CCM");
    c.derivation = a.derivation;
    c.corrected = 100000;
    c.corrected_note = "with the 20 ms train the same batch gives 100,000 tok/s; 2,400 x 64 gives 153,600";
    const Analysis g =
        step_analysis(ds_gb, 2.5 * batch_analysis(ds_gb, 0).get("b_star"), 0, units::tokens_per_s(500e6));
    c.real.push_back({"deepseek-v3 on gb200 x72 at 2.5 B*", g.get("tokens_per_s"), "",
                      fmt::format("drain {} and B = 2.5 x {}; {} such units carry 500M tok/s",
                                  format(seconds(g.get("drain_time_s"))), n(batch_analysis(ds_gb, 0).get("b_star")),
                                  n(g.get("units_to_serve_provider")))});
  }
  // C4 ---------------------------------------------------------------------------------------
  {
    const double w = ds.params_total();  // fp8: 1 byte per parameter
    const Board on_bb = abstract_board(bb, 64, w, ds.params_active_matmul(), 1.0, 0);
    const Board on_h = abstract_board(h100, 8, w, ds.params_active_matmul(), 1.0, 0);
    Claim& c = cl.numeric("C4", "Latency floor = weight fetch: DeepSeek 671 GB over 64 x 8 TB/s ~ 1.3 ms",
                          "deepseek-v3 at fp8, 64 blackboard chips", 1.3e-3, on_bb.t_weights().si(), "s",
                          Check::kRelative, 0.05, "T; FC; PD");
    c.derivation = batch_analysis(on_bb, 0).derivation;
    Claim& c2 = cl.numeric("C4b", "... and over 8 x H100 (26.8 TB/s) ~ 25 ms", "deepseek-v3 at fp8, h100-sxm x8", 25e-3,
                           on_h.t_weights().si(), "s", Check::kRelative, 0.05, "T; FC");
    c2.real.push_back({"deepseek-v3 on gb200 x72", ds_gb.t_weights().si(), "", "576 TB/s pooled over the NVL72 rack"});
  }
  // C5 ---------------------------------------------------------------------------------------
  {
    const double bstar = batch_analysis(lec, 0).get("b_star");
    const double practical = lec.cost(2.5 * bstar, 0).si();
    const double floor = (lec.price * lec.t_compute(1) / units::tokens(1)).si();
    Claim& c = cl.numeric("C5", "A slow mode barely saves money: beyond B* the cost is at its floor",
                          "cost at 2.5 B* over the B -> infinity floor, context 0", 1.0, practical / floor, "x",
                          Check::kRelative, 0.05, "T; FC");
    c.derivation = batch_analysis(lec, 0).derivation;
  }
  // C6 ---------------------------------------------------------------------------------------
  {
    const Analysis a = batch_analysis(lec, 0);
    Claim& c = cl.numeric("C6", "Not batching is 'a thousand times worse'", "cost(B=1) / cost(B*), S = 8, R = 300",
                          1000, a.get("unbatched_penalty"), "x", Check::kLog10, 0.5, "T 00:00 (~4:00)");
    c.derivation = a.derivation;
    const Board dense = abstract_board(bb, 64, 70e9, 70e9, 1.0, 2048);
    c.derivation.push_back(
        fmt::format("a dense model (S = 1): penalty = {}x", n(batch_analysis(dense, 0).get("unbatched_penalty"))));
    c.real.push_back({"deepseek-v3 on gb200 x72", batch_analysis(ds_gb, 0).get("unbatched_penalty"), "",
                      "closed form with every expert read each step: the penalty is B*"});
    c.real.push_back(
        {"llama-3.1-70b on h100-sxm x8", batch_analysis(ll_h, 0).get("unbatched_penalty"), "", "dense: R x S ~ 300"});
  }
}

// C7-C12: fast modes, MoE across racks, pipelining's cost and what it saves.
void claims_c7_c12(const Setting& set, Claims& cl) {
  const Hardware& bb = set.bb;
  const Hardware& gb = set.gb;
  const ModelSpec& ds = set.ds;
  const ModelSpec& ll = set.ll;
  const Board& ds_gb = set.ds_gb;
  const Board& ll_h = set.ll_h;
  const Board& lec = set.lec;
  // C7 ---------------------------------------------------------------------------------------
  {
    const Analysis a = fast_mode_analysis(lec, 100000, 6, 2.5);
    Claim& c = cl.numeric("C7", "Fast mode (6x price, 2.5x speed) is a 15x smaller batch", "p = 6, s = 2.5", 15,
                          a.get("batch_ratio"), "x", Check::kRelative, 1e-9, "T 00:00; D2");
    c.derivation = a.derivation;
    Claim& c2 = cl.numeric("C7b", "... which needs KV fetch at the standard batch = 1.8x the weight fetch",
                           "memory-bound roofline, p = 6, s = 2.5", 1.8, a.get("kv_share_of_weights"), "x",
                           Check::kRelative, 1e-9, "lecture.md C7 [derived]");
    c2.derivation = a.derivation;
  }
  // C8 ---------------------------------------------------------------------------------------
  {
    const Board s8 = abstract_board(bb, 64, 700e9, 87.5e9, 1.0, 0);
    const Board s16 = abstract_board(bb, 64, 1400e9, 87.5e9, 1.0, 0);
    const double b8 = batch_analysis(s8, 0).get("b_star"), b16 = batch_analysis(s16, 0).get("b_star");
    Claim& c = cl.numeric("C8",
                          "Sparsity is a pure win for bandwidth: doubling total parameters at fixed active "
                          "leaves the cost at B* unchanged",
                          "700B vs 1.4T total, 87.5B active", 1.0, s16.cost(b16, 0) / s8.cost(b8, 0), "x",
                          Check::kRelative, 1e-9, "T 00:20s");
    c.derivation.push_back(
        fmt::format("B* grows {} -> {}: it needs twice the users and twice the memory", n(b8), n(b16)));
  }
  // C9 ---------------------------------------------------------------------------------------
  {
    Board moe = lec;
    moe.experts = 256;
    moe.top_k = 32;
    const Analysis a = layout_analysis(moe, 0, 2400, 2, 1, 1);
    Claim& c = cl.numeric("C9", "An MoE layer split over 2 racks sends half its routed tokens over scale-out",
                          "2 racks, scale-out 8x slower", 0.5, a.get("cross_domain_fraction"), "x", Check::kRelative,
                          1e-9, "T 00:32; FC");
    c.derivation = a.derivation;
    const Board ds64 = board_from(ds, gb, 72, Precision{DType::kFp8, DType::kFp8, DType::kFp8, DType::kBf16});
    const Analysis r = layout_analysis(ds64, 0, 1, 2, 1, 1);
    c.real.push_back({"deepseek-v3 on gb200 x72: experts per chip", r.get("experts_per_chip"), "",
                      fmt::format("256 experts on {} of 72 chips ({} idle), as the lecture says",
                                  n(r.get("chips_used")), n(r.get("chips_idle")))});
  }
  // C10 --------------------------------------------------------------------------------------
  {
    const double ratio = ll_h.t_weights() / board_from(ll, gb, 72, Precision{}).t_weights();
    Claim& c = cl.numeric("C10",
                          "Scale-up size is worth bandwidth: Hopper (8) -> Blackwell (72) cuts the weight "
                          "fetch ~8x from the domain and 1.5-2x from per-chip bandwidth",
                          "llama-3.1-70b weight fetch, h100-sxm x8 vs gb200 x72", 14, ratio, "x", Check::kLog10, 0.2,
                          "T ~01:15");
    c.derivation.push_back(fmt::format("(72 x 8 TB/s) / (8 x 3.35 TB/s) = 9 x {} = {}", n(8.0 / 3.35), n(ratio)));
    c.corrected_note =
        "the domain grew 9x (8 -> 72) and per-chip bandwidth 2.4x (3.35 -> 8 TB/s): 21.5x, above the lecture's 12-16x";
  }
  // C11 --------------------------------------------------------------------------------------
  {
    Board moe = lec;
    moe.top_k = 8;
    const Analysis a = layout_analysis(moe, 0, 2400, 2, 2, 1);
    Claim& c = cl.numeric("C11", "Pipelining across racks is cheap: (BW_out/BW_up) x k x 2 x L_stage >= 1",
                          "BW ratio 1/8, k = 8, L_stage = 1", 2.0, a.get("pipeline_boundary_ratio"), "x",
                          Check::kRelative, 1e-9, "T 00:47; AS p.24");
    c.derivation = a.derivation;
    const Analysis r = layout_analysis(ds_gb, 0, 1, 2, 2, 1);
    c.real.push_back({"deepseek-v3 on gb200 x72", r.get("pipeline_boundary_ratio"), "",
                      fmt::format("NVLink 900 GB/s vs 400 Gb/s (50 GB/s) scale-out is {}x, not 8x: one layer per "
                                  "stage is not enough, two are",
                                  n(r.get("scaleup_over_scaleout")))});
  }
  // C12 --------------------------------------------------------------------------------------
  {
    const Board tb = abstract_board(bb, 64, 1e12, 1e12 / 8, 1.0, 2048);
    const Analysis a = layout_analysis(tb, 100000, 2400, 1, 1, 1);
    const Table* t = a.table("memory_per_chip");
    auto at = [&](int P, std::size_t col) {
      for (const auto& r : t->rows)
        if (r[0].value == P) return r[col].value;
      return 0.0;
    };
    Claim& c = cl.numeric("C12", "Pipelining saves weight memory: 1 TB over 64 chips = 15.6 GB per chip at P = 1",
                          "N_total = 1 TB, E = 64", 15.6e9, at(1, 1), "B", Check::kRelative, 0.01, "T 01:03; FC");
    c.derivation = a.derivation;
    cl.numeric("C12b", "... and 3.9 GB per chip at P = 4", "N_total = 1 TB, E = 64, P = 4", 3.9e9, at(4, 1), "B",
               Check::kRelative, 0.01, "T 01:03; FC");
    Claim& c3 = cl.numeric("C12c", "... but not KV memory: b x c x kv / E = 7.7 GB per chip for any P",
                           "b = 2,400, c = 100K, kv = 2 KB, E = 64; P = 1 and 16", 7.7e9, at(16, 2), "B",
                           Check::kRelative, 0.01, "T 01:11; SK");
    c3.pass = c3.pass && at(1, 2) == at(16, 2);
    c3.derivation.push_back(
        fmt::format("KV per chip at P = 1: {}; at P = 16: {}", format(bytes(at(1, 2))), format(bytes(at(16, 2)))));
  }
}

// C13-C18: training balance (over-training, RL tokens), the long-context price knee, output vs input.
void claims_c13_c18(const Setting& set, Claims& cl) {
  const Hardware& bb = set.bb;
  const Board& ds_gb = set.ds_gb;
  const Board& lec = set.lec;
  // C13 --------------------------------------------------------------------------------------
  {
    Board b = lec;
    b.hop_latency = units::ms(2.5);  // "a few milliseconds"
    const Seconds train = bb.drain_time();
    const Seconds piped = train + b.hop_latency * 4.0;
    Claim& c = cl.numeric("C13",
                          "Pipelining is latency- and batch-neutral in inference except for hops: 4 stages "
                          "take the ~20 ms step to ~30 ms",
                          "20 ms train, 4 stages, 2.5 ms per rack hop", 30e-3, piped.si(), "s", Check::kRelative, 0.05,
                          "T 01:03");
    c.derivation.push_back(fmt::format("step = t_drain + P x hop (F22) = {} + 4 x {} = {}", format(train),
                                       format(b.hop_latency), format(piped)));
  }
  // C14, C15 ---------------------------------------------------------------------------------
  {
    LifecycleInputs in;
    const Analysis a = lifecycle_analysis(in);
    Claim& c = cl.numeric("C14", "Models are ~100x over-trained relative to Chinchilla",
                          "500M tok/s x 2 months / 10 models, N_active = 100B, thirds", 100, a.get("overtraining"), "x",
                          Check::kRelative, 0.3, "T 01:18-01:32; FC");
    c.derivation = a.derivation;
    c.corrected = a.get("overtraining");
    c.corrected_note = "exact arithmetic: 2.592e14 / 2e12 = 129.6x (the lecture rounds 2.59e14 to '~200T')";
    Claim& c2 =
        cl.numeric("C15", "RL gets fewer tokens than pre-training: D_pre = 1.5 D_RL", "RL multiplier 3, inefficiency 3",
                   1.5, a.get("pretrain_over_rl"), "x", Check::kRelative, 1e-9, "FC; T");
    c2.derivation = a.derivation;
  }
  // C16 --------------------------------------------------------------------------------------
  {
    PriceCatalog prices = PriceCatalog::builtin().value();
    const PriceSheet* gem = prices.find("gemini-3.1-pro");
    const Analysis a = price_inverse(*gem, lec, 100e9);
    Claim& c = cl.numeric("C16", "Gemini's +50% above 200K marks the crossover and implies ~1.7 KB of KV per token",
                          "N_active = 100B, knee = 200K, R = 300", 1666.7, a.get("kv_bytes_per_token"), "B/tok",
                          Check::kRelative, 1e-3, "T 01:33; FC");
    c.derivation = a.derivation;
    const Board two_kb = abstract_board(bb, 64, 700e9, 100e9, 1.0, 2048);
    const Analysis k = context_analysis(two_kb, 2400, 0, 2048, 0, 64);
    Claim& c2 =
        cl.numeric("C16b", "... and 2 KB per token puts the knee at ~163K", "N_active = 100B, kv = 2,048 B", 163000,
                   k.get("crossover_context"), "tok", Check::kRelative, 0.01, "lecture.md C16 [derived]");
    c2.derivation = k.derivation;
    c2.real.push_back({"deepseek-v3 (MLA, 70 KB/token at bf16) on gb200 x72",
                       context_analysis(ds_gb, 1, 0, 2048, 128, 64).get("crossover_context"), "",
                       "70 KB per token is 35x the lecture's 2 KB: dense MLA decode turns KV-bound at a few thousand "
                       "tokens, which is why V3.2 adds top-k sparse attention"});
  }
  // C17 --------------------------------------------------------------------------------------
  {
    PriceCatalog prices = PriceCatalog::builtin().value();
    const Analysis a = price_inverse(*prices.find("claude-opus-4.6"), lec, 100e9);
    Claim& c =
        cl.numeric("C17", "Output costs ~5x input because decode is memory-bound: decode MFU ~ 1/5",
                   "Claude Opus 4.6: $5 in, $25 out", 0.2, a.get("decode_mfu"), "x", Check::kRelative, 1e-9, "T; FC");
    c.derivation = a.derivation;
    const Analysis f = price_forward(ds_gb, 8192, 2.5 * batch_analysis(ds_gb, 0).get("b_star"));
    c.real.push_back({"deepseek-v3 on gb200 x72, c = 8K, B = 2.5 B*: output/input cost", f.get("output_over_input"), "",
                      "the forward ratio from the roofline; list prices add margin and differ by provider"});
  }
  // C18 --------------------------------------------------------------------------------------
  {
    const Board frontier = abstract_board(bb, 64, 700e9, 100e9, 1.0, 2048);
    const Analysis a = context_analysis(frontier, 2400, 0, 2048, 0, 64);
    Claim& c = cl.numeric("C18", "Context lengths stay around 100-200K: the memory wall",
                          "crossover for N_active = 100B, kv = 2 KB, R = 300", 150000, a.get("crossover_context"),
                          "tok", Check::kRelative, 1.0 / 3.0, "T 01:33");
    c.derivation = a.derivation;
  }
}

// C19-C24: cache prices and tiers, equal-cost minima, RevNets and Feistel networks.
void claims_c19_c24(const Setting& set, Claims& cl) {
  const Hardware& bb = set.bb;
  const Hardware& gb = set.gb;
  const ModelSpec& ds = set.ds;
  // C19 --------------------------------------------------------------------------------------
  {
    const Board b = abstract_board(bb, 64, 700e9, 37e9, 1.0, 70272);
    const Analysis f = price_forward(b, 8192, 2400);
    // Two-sided (lecture.md: hit ~0.1 x base input, write 1.25 x): within half a decade, and 25%.
    Claim& c = cl.numeric("C19", "Cache hits are ~10x cheaper than recomputing the prefix",
                          "hit = retrieve from the 5-minute tier; miss = prefill (blackboard tiers, 70 KB/token)", 0.1,
                          f.get("cache_hit_5m_over_input"), "x", Check::kLog10, 0.5, "T 01:47; SP 1:47:30");
    c.derivation = f.derivation;
    c.corrected_note = fmt::format(
        "at cost, a hit is {}x of recomputing the prefix, {}x cheaper than the lecture's 10x: the 0.1x is the price "
        "providers charge for a hit (a $0.50 read against $5 input), not the cost of reading flash",
        n(f.get("cache_hit_5m_over_input")), n(0.1 / f.get("cache_hit_5m_over_input")));
    Claim& c2 = cl.numeric("C19b", "... and a 5-minute write costs more than base input",
                           "write = prefill + hold for 5 minutes", 1.25, f.get("cache_write_5m_over_input"), "x",
                           Check::kRelative, 0.25, "T 01:47");
    c2.derivation = f.derivation;
  }
  // C20 --------------------------------------------------------------------------------------
  {
    const Board b = abstract_board(bb, 64, 700e9, 37e9, 1.0, 70272);
    const auto tiers = tier_costs(b);
    const std::string five = tiers[drain_rule_tier(tiers, units::minutes(5))].name;
    const std::string hour = tiers[drain_rule_tier(tiers, units::hours(1))].name;
    Claim& c =
        cl.categorical("C20", "The 5-minute cache TTL lands on flash (drain ~1 min)",
                       "blackboard tiers: DDR 5 s, flash 60 s, disk 1 h drain times", "flash", five, "T 01:47-02:04");
    Claim& c2 = cl.categorical("C20b", "... and the 1-hour TTL on spinning disk (drain ~1 h)", "blackboard tiers",
                               "disk", hour, "T 01:47-02:04");
    const Board g = board_from(ds, gb, 72, Precision{DType::kFp8, DType::kFp8, DType::kFp8, DType::kBf16});
    const auto gt = tier_costs(g);
    c.real.push_back({"gb200 host tiers", 0, gt[drain_rule_tier(gt, units::minutes(5))].name,
                      "a 7.68 TB NVMe drive per GPU at 7 GB/s drains in 18 minutes"});
    c2.real.push_back({"gb200 host tiers", 0, gt[drain_rule_tier(gt, units::hours(1))].name,
                       "a 24 TB disk at 250 MB/s drains in 27 hours, so the drain-time rule picks flash for 1 h"});
  }
  // C21 --------------------------------------------------------------------------------------
  {
    const double surplus = (gb.hbm_capacity.value * 72.0).si() / 1e12;
    Claim& c = cl.numeric("C21",
                          "Memory capacity is in surplus: a 1T-parameter model needs ~1 TB of a rack's many "
                          "TB, so pipelining lets hardware trade HBM for bandwidth",
                          "gb200 x72 HBM / 1 TB (\"many TB\" against ~1 TB: about 10x, within half a decade)", 10.0,
                          surplus, "x", Check::kLog10, 0.5, "T 00:47; CU");
    c.corrected_note = fmt::format("the rack holds {} of HBM, not 'many tens of TB' (lecture.md §5)",
                                   format(gb.hbm_capacity.value * 72.0));
  }
  // C22 --------------------------------------------------------------------------------------
  {
    // Minimize a/x + b x numerically; at the optimum the two terms are equal (F27).
    const double a = 3.0, b = 0.5;
    double lo = 1e-6, hi = 1e6;
    auto cost = [&](double x) { return a / x + b * x; };
    for (int i = 0; i < 400; ++i) {
      const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
      if (cost(m1) < cost(m2)) {
        hi = m2;
      } else {
        lo = m1;
      }
    }
    const double x = (lo + hi) / 2;
    Claim& c = cl.numeric("C22", "Minimizing a rising plus a falling cost lands where they are equal",
                          "a/x + b x with a = 3, b = 0.5, ternary search", 1.0, (a / x) / (b * x), "x",
                          Check::kRelative, 1e-6, "T 01:18");
    c.derivation.push_back(fmt::format("optimum x = {} (sqrt(a/b) = {}); a/x = {}, b x = {}", n(x), n(std::sqrt(a / b)),
                                       n(a / x), n(b * x)));
  }
  // C23 --------------------------------------------------------------------------------------
  {
    const Analysis a = revnet_analysis(ds, 8, 4096, DType::kBf16);
    // Constant in depth: about one layer's activations of L, so 1 / L of storing them all (within 2x).
    const double one_layer = 1.0 / ds.n_layers();
    Claim& c = cl.numeric("C23", "RevNets make activation memory roughly constant in depth, at the cost of recompute",
                          fmt::format("deepseek-v3 ({} layers), batch 8 x 4,096 tokens; expected 1 / L", ds.n_layers()),
                          one_layer, a.get("revnet_over_store_all"), "x", Check::kLog10, 0.3, "T 02:04; SK 02:08");
    c.derivation = a.derivation;
  }
  // C24 --------------------------------------------------------------------------------------
  {
    const int ok = feistel_round_trips(1000, 42);
    Claim& c = cl.numeric("C24", "A Feistel network is invertible even when its round function is not",
                          "1,000 random (x, y) through two rounds with f(x) = x^2 >> 7 and back", 1000, ok, "",
                          Check::kRelative, 0, "T 02:04");
    c.derivation.emplace_back("(x, y) -> (x, y + f(x)); inverse: y = z - f(x) (F34)");
  }
}

}  // namespace

Result<std::vector<Claim>> lecture_claims(const HardwareCatalog& hwc, const ModelCatalog& models) {
  auto need_hw = [&](const char* name) { return hwc.get(name, "lecture"); };
  auto bb_r = need_hw("blackboard");
  if (!bb_r) return bb_r.error();
  auto gb_r = need_hw("gb200");
  if (!gb_r) return gb_r.error();
  auto h100_r = need_hw("h100-sxm");
  if (!h100_r) return h100_r.error();
  auto ds_r = models.load("deepseek-v3");
  if (!ds_r) return ds_r.error();
  auto ll_r = models.load("llama-3.1-70b");
  if (!ll_r) return ll_r.error();
  const Hardware& bb = **bb_r;
  const Hardware& gb = **gb_r;
  const Hardware& h100 = **h100_r;
  const ModelSpec& ds = *ds_r;
  const ModelSpec& ll = *ll_r;
  const Board ds_gb = board_from(ds, gb, 72, Precision{DType::kFp8, DType::kFp8, DType::kFp8, DType::kBf16});
  const Board ll_h = board_from(ll, h100, 8, Precision{});

  Claims cl;
  // The lecture's DeepSeek-like model: 700B total, "32 of 256 experts" -> S = 8, 1 byte/param,
  // on a 64-chip blackboard rack.
  const Board lec = abstract_board(bb, 64, 700e9, 700e9 / 8, 1.0, 2048);
  const Setting set{hwc, models, bb, gb, h100, ds, ll, ds_gb, ll_h, lec};
  claims_c1_c6(set, cl);
  claims_c7_c12(set, cl);
  claims_c13_c18(set, cl);
  claims_c19_c24(set, cl);
  return cl.out;
}

}  // namespace llmecon
