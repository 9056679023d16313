// plan/plan.hpp: search every mapping x batch x format for the cheapest deployment that meets
// latency targets, and the Pareto frontier of throughput per chip against speed per user
// (docs/model.md §17).
//
//   PlanRequest rq;  rq.model = &m;  rq.hw = &hw;  rq.chips = 72;  rq.isl = 4096;  rq.osl = 512;
//   rq.tpot = units::ms(50);
//   PlanResult r = plan(rq);   // r.frontier, r.best, r.rejected
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parallel/parallel.hpp"

namespace llmecon {

/// What `best` and `ranked` put first among the points that meet the SLO.
enum class PlanRank { kThroughput, kCost, kEnergy };
inline constexpr NameTable<PlanRank, 3> kPlanRankNames{
    {{PlanRank::kThroughput, "throughput"}, {PlanRank::kCost, "cost"}, {PlanRank::kEnergy, "energy"}}};

struct PlanRequest {
  const ModelSpec* model = nullptr;
  const Hardware* hw = nullptr;
  int chips = 1;
  int domain = 0;     ///< chips per scale-up domain (0 = the hardware's)
  double isl = 2048;  ///< mean input tokens per request (the search prices the means)
  double osl = 256;   ///< mean output tokens per request
  /// The longest request's input + output tokens, for an engine's context limit (max_model_len);
  /// 0: isl + osl (fixed lengths).
  double max_context = 0;
  std::optional<Seconds> ttft;
  std::optional<Seconds> tpot;
  std::optional<DollarsPerToken> max_cost;
  std::vector<DType> weight_dtypes;  ///< empty: as released (search_formats: also fp8, and fp4 where the chip has it)
  std::vector<DType> kv_dtypes;      ///< empty: the engine's for this checkpoint (search_formats: bf16 and fp8)
  bool search_formats = false;       ///< search quantized formats too, not just the released ones
  std::vector<double> batches;       ///< per replica; empty: 1, 2, 4, ... 16384
  double overlap = 0.0;
  Efficiency eff;
  const ServingEngine* engine = nullptr;  ///< its memory rule, host time and sequence cap; none: generic
  int threads = 1;
  /// Disaggregated serving: prompts run on a separate pool (possibly other chips) and their KV
  /// moves to the decode pool over scale-out (model.md §16.6). Unset: one pool does both.
  const Hardware* prefill_hw = nullptr;
  int prefill_chips = 0;
  PowerModel power;          ///< what a chip of hw draws (model.md §25.6)
  PowerModel prefill_power;  ///< what a chip of prefill_hw draws
  /// Tokens/s per chip (the default), $ per token blended over isl and osl, or joules per token.
  PlanRank rank = PlanRank::kThroughput;
  double spec_acceptance = 0;  ///< speculative decoding / MTP: acceptance rate (0 = off)
  int spec_draft = 0;          ///< drafted tokens per step
  /// Called now and then with the fraction of the search done (0..1), from one thread; the
  /// library never prints, so a shell draws the bar.
  std::function<void(double)> progress;
  /// Polled as the search goes; once it returns true the search stops and the result says
  /// `cancelled` (a server's deadline). Called from the search threads.
  std::function<bool()> cancelled;
};

struct PlanPoint {
  Mapping map;
  double batch = 0;
  DType weights = DType::kBf16;
  DType kv = DType::kBf16;
  PhaseResult decode;
  PhaseResult prefill;                 ///< one prompt: TTFT (with the KV transfer when disaggregated)
  std::optional<Mapping> prefill_map;  ///< the prefill pool's mapping when disaggregated
  Seconds kv_transfer{};
  DollarsPerToken usd_per_token{};        ///< blended over isl input and osl output tokens
  DollarsPerToken input_usd_per_token{};  ///< prefill cost per input token
  JoulesPerToken energy_per_token{};      ///< blended as usd_per_token (model.md §25.6)
  JoulesPerToken input_energy_per_token{};
  bool meets_slo = false;
};

struct PlanResult {
  std::vector<PlanPoint> frontier;       ///< non-dominated in (tokens/s/chip, tokens/s/user)
  std::optional<PlanPoint> best;         ///< the first of `ranked`
  std::vector<PlanPoint> ranked;         ///< every point meeting the SLO, best first by PlanRequest::rank
  std::map<std::string, long> rejected;  ///< reason -> count
  long evaluated = 0;
  long feasible = 0;
  long meeting_slo = 0;
  std::string empty_reason;  ///< set when nothing meets the SLO
  bool cancelled = false;    ///< the search was stopped by PlanRequest::cancelled
};

/// Every mapping of `chips` chips this planner considers (model.md §17.1).
/// Mappings rejected on the way are counted by reason in `rejected` when given.
std::vector<Mapping> candidate_mappings(const ModelSpec& m, int chips, double isl,
                                        std::map<std::string, long>* rejected = nullptr);

PlanResult plan(const PlanRequest& rq);

/// p10/p50/p90 of one planned deployment over the catalog's spec ranges and the efficiency
/// priors (model.md §21), with roofline_range's sampler and sample count.
struct PlanRange {
  Quantiles tokens_per_s_per_chip;
  Quantiles tpot_ms;
  Quantiles ttft_s;
  Quantiles usd_per_mtok_output;
  int samples = 0;
};
/// One deployment of the request on mapping `m` at these formats: its model, chip, domain,
/// overlap, efficiency and engine (the search's step, the range's and the capacity's replica).
DeploymentInput deployment_input(const PlanRequest& rq, const Mapping& m, DType weights, DType kv);

PlanRange plan_range(const PlanRequest& rq, const PlanPoint& p, const Uncertainty& u, int samples = kRangeSamples,
                     unsigned seed = 1);

/// The derivation of one planned point (model.md §16-17) with values substituted: the mapping,
/// each phase's stage time terms (compute, weights, KV, communication, fixed costs), memory per
/// chip, TPOT, TTFT and cost.
std::vector<std::string> explain_plan_point(const PlanRequest& rq, const PlanPoint& p);

/// The layout the planner would choose when a measurement or a user states only some degrees
/// (model.md §17.5): among the candidates on `chips` chips that keep every degree `require` states
/// (0: free), the one with the most decode tokens/s per chip for `total_batch` sequences at
/// `context` tokens, on `base`'s model, chip, formats, efficiency and engine. nullopt when none fits.
std::optional<Mapping> infer_mapping(const DeploymentInput& base, int chips, const Mapping& require, double total_batch,
                                     double context, double isl);

/// One pool's launch: the command for one engine instance and how many to run.
struct LaunchPool {
  std::string pool;  ///< "serve", or "prefill" and "decode" when disaggregated
  int chips_per_instance = 1;
  int instances = 1;  ///< replicas behind a router
  std::string command;
};
/// What `plan --emit ENGINE` writes (model.md §17.4).
struct LaunchConfig {
  std::string engine;
  std::vector<LaunchPool> pools;
  struct File {
    std::string name, text;
  };
  std::vector<File> files;         ///< options files the commands name
  std::vector<std::string> notes;  ///< what the flags cannot say
  std::string text;                ///< all of it, as a shell script
};
/// The engine's launch configuration for a planned point, with the flag names of its profile.
/// `model_id` is what the engine loads (a HuggingFace id or a path).
LaunchConfig launch_config(const ServingEngine& e, const ModelSpec& m, const std::string& model_id,
                           const PlanRequest& rq, const PlanPoint& p);

/// True when a is at least as good as b on both axes and better on one.
bool dominates(const PlanPoint& a, const PlanPoint& b);

/// 0-based rank of the best point using `m` among the ranked points, or -1 when none meets the SLO.
long rank_of(const PlanResult& r, const Mapping& m);

}  // namespace llmecon
