// plan: the deployment search (plan.hpp) under SLOs, its frontier, and its uncertainty.
#include <fmt/format.h>

#include <algorithm>

#include "commands.hpp"
#include "io/encode.hpp"
#include "plan/plan.hpp"
#include "plan/plan_args.hpp"
#include "scenario/capacity.hpp"
#include "scenario/scaleup.hpp"
#include "simulate/simulate.hpp"
#include "units/json_text.hpp"

namespace llmecon::cmd {
namespace {

// The frontier points listed: an even thinning when it is longer than asked, keeping the last.
std::vector<std::size_t> listed(const PlanResult& r, std::size_t frontier_max) {
  const std::size_t n = r.frontier.size();
  const std::size_t stride = frontier_max > 0 && n > frontier_max ? (n + frontier_max - 1) / frontier_max : 1;
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < n; i += stride) out.push_back(i);
  if (n > 0 && (n - 1) % stride != 0) out.push_back(n - 1);
  return out;
}

// What the engine loads: the HuggingFace id of a catalog model, else its name or path.
std::string model_id(const Engine& e, const Args& a, const ModelSpec& m) {
  for (const auto& entry : e.model_catalog().entries()) {
    if (entry.name != m.name) continue;
    constexpr std::string_view kHf = "https://huggingface.co/";
    if (entry.source.rfind(kHf, 0) == 0) {
      const std::string rest = entry.source.substr(kHf.size());
      // The id ends at the first character no repository name holds (a space, '(', ':').
      return rest.substr(0, rest.find_first_of(" (:,;"));
    }
  }
  return a.raw("model").is_string() ? a.text("model") : m.name;
}

// plan --emit: the launch configuration of the best point, or of frontier point --point.
Result<Json> launch_json(const Engine& e, const Args& a, const PlanRequest& rq, const PlanResult& r, const ModelSpec& m,
                         LaunchText& said) {
  TRY(engine, e.serving_engine(a.text("emit"), "--emit"));
  const PlanPoint* p = r.best ? &*r.best : nullptr;
  if (a.has("point")) {
    const auto i = static_cast<std::size_t>(a.number("point"));
    if (i >= r.frontier.size()) {
      return Error{"--point", "", fmt::format("the frontier has {} points", r.frontier.size()),
                   "count from 0 in the order plan lists them"};
    }
    p = &r.frontier[i];
  }
  if (p == nullptr) return Error{"--emit", "", "no deployment meets the targets", "relax the SLO or add chips"};
  const LaunchConfig c = launch_config(*engine, m, model_id(e, a, m), rq, *p);
  Json pools = Json::array();
  for (const auto& lp : c.pools) {
    pools.push_back({{"pool", lp.pool},
                     {"chips_per_instance", lp.chips_per_instance},
                     {"instances", lp.instances},
                     {"command", lp.command}});
  }
  Json files = Json::array();
  for (const auto& f : c.files) files.push_back({{"name", f.name}, {"text", f.text}});
  said = LaunchText{c.engine, p->map.str(), p->batch, c.text};
  return Json{{"engine", c.engine}, {"mapping", p->map.str()}, {"batch", whole_json(p->batch)},
              {"pools", pools},     {"files", files},          {"notes", c.notes},
              {"text", c.text}};
}

// The planner's request: the scenario's model, chip, efficiency, power and engine, and plan's own
// arguments (lengths, SLO, formats, speculation, the prefill pool).
Result<PlanRequest> plan_request(const Engine& e, const Args& a, const Scenario& sc, const LengthDist& isl,
                                 const LengthDist& osl, std::shared_ptr<const Hardware>& prefill_owner) {
  const ModelSpec& model = *sc.model;
  const Hardware* hw = sc.hw.get();
  PlanRequest rq;
  rq.model = &model;
  rq.hw = hw;
  rq.eff = sc.eff;
  rq.power = sc.power;
  rq.prefill_power = sc.power;
  // The table checked the choice: it is one of the enum's names.
  rq.rank = value_in(kPlanRankNames, a.text("rank")).value_or(PlanRank::kThroughput);
  rq.engine = sc.engine;
  rq.chips = sc.chips;
  if (sc.chips > 1e6) return Error{"--racks", "", "more than a million chips", ""};  // the planner's bound
  // Lengths as simulate takes them: the search prices the means, an engine's context limit holds
  // the longest (p99.9) request, and --rate simulates the distributions themselves.
  rq.isl = isl.mean();
  rq.osl = osl.mean();
  if (!isl.is_fixed() || !osl.is_fixed()) rq.max_context = isl.quantile(0.999) + osl.quantile(0.999);
  // An SLO of 0 passes the table's bound (>= 0) but no deployment can meet it.
  for (const char* k : {"ttft_ms", "tpot_ms", "max_usd_per_mtok"}) {
    if (a.has(k) && a.number(k) <= 0) {
      return Error{flag_of(k), "", "an SLO must be positive, got " + json_text(a.raw(k)), "no deployment can meet it"};
    }
  }
  if (a.has("ttft_ms")) rq.ttft = units::ms(a.number("ttft_ms"));
  if (a.has("tpot_ms")) rq.tpot = units::ms(a.number("tpot_ms"));
  if (a.has("slo")) {
    // One SLO syntax with simulate's (docs/cli.md); the plan holds its targets at p99.
    if (a.has("ttft_ms") || a.has("tpot_ms")) {
      return Error{"--slo", "", "given with --ttft-ms or --tpot-ms", "choose one: --slo ttft_p99=2s,tpot_p99=50ms"};
    }
    TRY(slo, parse_slo(a.text("slo"), "--slo"));
    if (slo.e2e_s) return Error{"--slo", "", "plan has no end-to-end target", "use ttft_p99 and tpot_p99"};
    if ((slo.ttft_s && slo.ttft_pct != 99) || (slo.tpot_s && slo.tpot_pct != 99)) {
      return Error{"--slo", "", "plan holds its targets at p99", "ttft_p99=2s,tpot_p99=50ms"};
    }
    if (slo.ttft_s) rq.ttft = units::seconds(*slo.ttft_s);
    if (slo.tpot_s) rq.tpot = units::seconds(*slo.tpot_s);
  }
  if (a.has("max_usd_per_mtok")) rq.max_cost = units::usd_per_mtok(a.number("max_usd_per_mtok"));
  rq.search_formats = a.text("formats") == "search";
  if (a.has("weight_dtypes")) rq.weight_dtypes = a.dtypes("weight_dtypes");
  if (a.has("kv_dtypes")) rq.kv_dtypes = a.dtypes("kv_dtypes");
  rq.overlap = a.number("overlap");
  rq.threads = static_cast<int>(a.number("threads"));
  rq.spec_acceptance = a.number("spec_acceptance");
  if (rq.spec_acceptance >= 1) return Error{"--spec-acceptance", "", "an acceptance rate in [0, 1)", ""};
  rq.spec_draft = static_cast<int>(a.number("spec_draft"));
  if (a.has("prefill_hw") || a.has("prefill_chips")) {
    const Hardware* phw = hw;  // without --prefill-hw, the decode pool's chip at its price
    if (a.has("prefill_hw")) {
      TRY(ph, prefill_hardware(e.catalogs(), a, prefill_owner));
      phw = ph;
    }
    rq.prefill_hw = phw;
    TRY(ppower, power_model(a, *phw));
    rq.prefill_power = ppower;
    rq.prefill_chips = static_cast<int>(a.number_or("prefill_chips", phw->domain_size));
  }
  if (a.has("batches")) rq.batches = a.numbers("batches");
  return rq;
}

}  // namespace

Result<Answer> plan(const Engine& e, const Args& a, const Progress& progress, const Cancel& cancel) {
  // --emit ENGINE plans under that engine's limits unless --engine names another.
  const bool emit = a.text("emit") != "none";
  ScenarioDefaults defaults;
  if (emit && a.text("engine") == "generic") defaults.engine = a.text("emit");
  TRY(sc, resolve_scenario(e.catalogs(), a, defaults));
  const ModelSpec& model = *sc.model;
  const Hardware* hw = sc.hw.get();
  std::shared_ptr<const Hardware> prefill_owner;  // the prefill pool's chip, owned-priced under --cost owned
  TRY(isl, parse_length_dist(a.text("isl"), "--isl"));
  TRY(osl, parse_length_dist(a.text("osl"), "--osl"));
  TRY(rq, plan_request(e, a, sc, isl, osl, prefill_owner));
  rq.progress = progress;
  rq.cancelled = cancel;
  Json out{{"model", model.name},
           {"hardware", hw->name},
           {"price_source", hw->price_source},
           {"rank", a.text("rank")},
           {"chips", rq.chips},
           {"domain", hw->domain_size},
           {"prefill_pool",
            rq.prefill_hw ? Json{{"hardware", rq.prefill_hw->name}, {"chips", rq.prefill_chips}} : Json(nullptr)},
           {"isl", whole_json(rq.isl)},
           {"osl", whole_json(rq.osl)}};
  // A distribution is stated beside its mean, which the search priced.
  if (!isl.is_fixed()) out["isl_dist"] = isl.str();
  if (!osl.is_fixed()) out["osl_dist"] = osl.str();
  Json slo = Json::object();
  if (rq.ttft) slo["ttft_ms"] = rq.ttft->si() * 1e3;
  if (rq.tpot) slo["tpot_ms"] = rq.tpot->si() * 1e3;
  if (rq.max_cost) slo["max_usd_per_mtok"] = rq.max_cost->si() * 1e6;
  out["slo"] = slo;
  out["engine"] = sc.engine->name;
  // Each point is a mapped layout (TP/PP/EP with their collectives), calibrated (docs/quantities.md).
  out["step_model"] = kStepCalibratedMapped;
  out["formats"] = a.text("formats");
  // Whether the chip's efficiency rests on measurements or is a prior (model.md §18.3).
  const bool prior = !a.flag("ideal") && e.efficiency_is_prior(*hw);
  out["efficiency"] = a.flag("ideal") ? "ideal" : prior ? "prior" : "sourced";
  std::vector<std::string> warnings;
  if (prior) {
    warnings.push_back(fmt::format(
        "efficiency: prior: {} has no measured calibration in the validation set; its step times are estimates",
        hw->name));
    out["warnings"] = warnings;
  }
  auto said = std::make_shared<PlanText>();
  PlanText& x = *said;
  x.model = model.name;
  x.hardware = hw->name;
  x.price_source = hw->price_source;
  x.rank = a.text("rank");
  x.native_weights = model.native_weight_dtype;
  x.chips = rq.chips;
  x.domain = hw->domain_size;
  x.isl = rq.isl;
  x.osl = rq.osl;
  if (!isl.is_fixed()) x.isl_dist = isl.str();
  if (!osl.is_fixed()) x.osl_dist = osl.str();
  x.warnings = std::move(warnings);
  x.result = llmecon::plan(rq);
  const PlanResult& main = x.result;
  if (main.cancelled) return cancelled_error();
  x.frontier = listed(main, static_cast<std::size_t>(a.number("frontier_max")));
  const Json planned = to_json(main, model, x.frontier, a.flag("explain") ? &rq : nullptr);
  for (const auto& [k, v] : planned.items()) out[k] = v;
  if (main.best && a.flag("range")) {
    const PlanRange r = plan_range(rq, *main.best, uncertainty(a));
    x.best_range = r;
    out["best_range"] = {{"samples", r.samples},
                         {"tokens_per_s_per_chip", quantiles_json(r.tokens_per_s_per_chip)},
                         {"tpot_ms", quantiles_json(r.tpot_ms)},
                         {"ttft_s", quantiles_json(r.ttft_s)},
                         {"usd_per_mtok_output", quantiles_json(r.usd_per_mtok_output)}};
  }
  if (main.best && a.flag("explain")) {
    x.derivation = explain_plan_point(rq, *main.best);
    out["explain"] = x.derivation;
  }
  if (a.text("emit") != "none") {
    LaunchText launched;
    TRY(launch, launch_json(e, a, rq, main, model, launched));
    out["launch"] = std::move(launch);
    x.launch = std::move(launched);
  }
  if (a.has("rate")) {
    auto cap = size_capacity(
        rq, main, CapacityAsk{units::requests_per_s(a.number("rate")), a.number("sim_requests"), cancel, isl, osl});
    if (!cap) return cap.error().what.rfind("cancelled", 0) == 0 ? cancelled_error() : cap.error();
    out["capacity"] = to_json(*cap, rq.osl);
    x.capacity = std::move(cap).value();
  }
  if (a.has("scaleup")) {
    // Each domain size carries its own scale-up fabric (model.md §25.5), recovered as the capital
    // of --cost's owner profile, else the default owner's, on top of the price (rented or owned).
    TRY(cat, tco_catalog(a));
    TRY(owner, owner_profile(a));
    TRY(profile, cat->profile(owner.value_or("cluster"), "--cost"));
    const ScaleUpSweep sweep = sweep_scaleup(rq, *cat, *profile, a.numbers("scaleup"));
    if (sweep.cancelled) return cancelled_error();
    Json rows = Json::array();
    for (const ScaleUpOption& o : sweep.rows) {
      rows.push_back({{"domain", o.domain},
                      {"chips", o.domain},
                      {"fabric_capex_per_chip_usd", o.fabric_capex ? Json(o.fabric_capex->si()) : Json(nullptr)},
                      {"fabric_usd_per_chip_hour", o.fabric_rent ? Json(o.fabric_rent->si() * 3600.0) : Json(nullptr)},
                      {"usd_per_chip_hour", o.chip_rent.si() * 3600.0},
                      {"best", o.plan.best ? to_json(*o.plan.best, model) : Json(nullptr)},
                      {"meeting_slo", o.plan.meeting_slo},
                      {"empty_reason", o.plan.empty_reason}});
    }
    out["scaleup"] = rows;
    if (!sweep.unpriced.empty()) out["scaleup_fabric"] = sweep.unpriced;
    x.scaleup = sweep.rows;
  }
  return Answer{std::move(out), [said] { return text(*said); }};
}

// The plan family's commands in the table (commands.hpp).
std::vector<Command> plan_commands() {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  std::vector<Command> out;
  auto add = [&out](CommandSpec c, Fn run) { out.push_back(Command{std::move(c), run}); };
  {
    CommandSpec c =
        command("plan", "search mappings x batch x formats for the best deployment under SLOs; the Pareto frontier",
                plan_arguments(), true);
    c.chart = "svg+html";
    c.redirects = {{"context", "plan takes --isl (prompt tokens) and --osl (output tokens)"},
                   {"batch", "plan searches batch sizes itself; --batches limits them"},
                   {"weight_dtype", "plan searches formats; --weight-dtypes limits them"},
                   {"kv_dtype", "plan searches formats; --kv-dtypes limits them"},
                   {"phase", "plan covers prefill and decode; --prefill-hw disaggregates them"}};
    add(std::move(c), plan);
  }
  return out;
}

}  // namespace llmecon::cmd
