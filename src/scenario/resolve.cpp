// A command's arguments resolved into one scenario (scenario.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "scenario/scenario.hpp"
#include "units/json_text.hpp"

namespace llmecon {
namespace {
// A chip data/tco.toml does not price idles at a tenth of its TDP and carries a host of half of
// it, as an HGX H100 system does (70 W and 350 W of 700 W; model.md §25.6, estimate).
constexpr double kUnpricedIdleShare = 0.1;
constexpr double kUnpricedHostShare = 0.5;
}  // namespace

Result<ModelSpec> load_model(const Catalogs& cat, const Args& a) {
  const Json& m = a.raw("model");
  if (m.is_object()) {
    // A config.json pasted into the page or passed from Python, named after its
    // _name_or_path (or model_type).
    std::string name = "pasted-config";
    const char* key = m.contains("_name_or_path") ? "_name_or_path" : "model_type";
    if (m.contains(key) && m[key].is_string()) {
      name = m[key].get<std::string>();
      if (auto slash = name.find_last_of('/'); slash != std::string::npos) name = name.substr(slash + 1);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      name = name.empty() ? "pasted-config" : "pasted:" + name;
    }
    return parse_model_config(json_text(m), "--model", name);
  }
  return cat.models.resolve(m.get<std::string>(), "--model");
}

Result<std::shared_ptr<const TcoCatalog>> tco_catalog(const Args& a) {
  static const Result<std::shared_ptr<const TcoCatalog>> builtin = []() -> Result<std::shared_ptr<const TcoCatalog>> {
    TRY(c, TcoCatalog::builtin());
    return std::make_shared<const TcoCatalog>(std::move(c));
  }();
  if (!builtin) return builtin.error();
  if (!a.has("tco_file")) return *builtin;
  const std::string path = a.text("tco_file");
  TRY(text, read_text_file(path, "give a TOML file in the layout of data/tco.toml"));
  TRY(parsed, TcoCatalog::parse(text, path, builtin->get()));
  return std::make_shared<const TcoCatalog>(std::move(parsed));
}

Result<std::optional<std::string>> owner_profile(const Args& a) {
  const std::string cost = a.has("cost") ? a.text("cost") : "rented";
  if (cost == "rented") return std::optional<std::string>{};
  if (cost == "owned") return std::optional<std::string>{"cluster"};
  if (cost.rfind("owned:", 0) == 0 && cost.size() > 6) return std::optional<std::string>{cost.substr(6)};
  return Error{"--cost", "", "unknown cost basis '" + cost + "'",
               "rented (the catalog's price), owned (data/tco.toml's cluster profile) or owned:PROFILE"};
}

Result<PowerModel> power_model(const Args& a, const Hardware& hw) {
  TRY(cat, tco_catalog(a));
  TRY(profile_name, owner_profile(a));
  const TcoDefaults& d = cat->defaults();
  PowerModel pm;
  pm.pue = d.pue.value;
  pm.host_load = d.load.value;
  pm.compute_weight = d.compute_weight;
  pm.memory_weight = d.memory_weight;
  if (profile_name) {
    TRY(p, cat->profile(*profile_name, "--cost"));
    pm.pue = p->pue.value_or(pm.pue);
  }
  if (auto sys = cat->system(hw.name)) {
    pm.idle = (*sys)->idle_power;
    pm.host = (*sys)->host_power;
  } else {
    // A chip data/tco.toml does not price: an HGX-like system (model.md §25.6, estimate).
    pm.idle = hw.tdp * kUnpricedIdleShare;
    pm.host = hw.tdp * kUnpricedHostShare;
  }
  return pm;
}

Result<std::shared_ptr<const Hardware>> priced_hardware(const Catalogs& cat, const Args& a, const std::string& name) {
  TRY(hw, cat.hw.get(name, "--hw"));
  TRY(profile_name, owner_profile(a));
  if (profile_name && a.has("usd_per_hour")) {
    return Error{"--cost", "", "--usd-per-hour is a rental price", "give --usd-per-hour or --cost owned, not both"};
  }
  if (!a.has("usd_per_hour") && !profile_name) {
    return std::shared_ptr<const Hardware>(std::shared_ptr<const Hardware>(), hw);
  }
  auto own = std::make_shared<Hardware>(*hw);
  if (!profile_name) {
    // A user's own rate is a point: it replaces the catalog's range too.
    own->price = Ranged<DollarsPerSecond>{units::usd_per_hour(a.number("usd_per_hour")), std::nullopt, std::nullopt};
    own->price_source = "--usd-per-hour";
    return std::shared_ptr<const Hardware>(std::move(own));
  }
  // Owned (model.md §25.4): the profile's cluster at its utilization; the range spans p10-p90
  // of data/tco.toml's sourced ranges, as `tco --range` draws them.
  TRY(tco, tco_catalog(a));
  TRY(profile, tco->profile(*profile_name, "--cost"));
  TRY(sys, tco->system(hw->name));
  const TcoInputs in = profile_inputs(*profile);
  const TcoResult r = compute_tco(*hw, *sys, tco->defaults(), in);
  const Quantiles q = tco_range(*hw, *sys, tco->defaults(), in, 200).owned_usd_per_hour;
  own->price = Ranged<DollarsPerSecond>{r.owned, units::usd_per_hour(std::min(q.p10, r.owned.si() * 3600.0)),
                                        units::usd_per_hour(std::max(q.p90, r.owned.si() * 3600.0))};
  own->price_source = fmt::format("owned ({}: {} accelerators at utilization {}; data/tco.toml)", profile->name,
                                  format_number(profile->chips), format_number(profile->utilization));
  return std::shared_ptr<const Hardware>(std::move(own));
}

Result<const Hardware*> prefill_hardware(const Catalogs& cat, const Args& a, std::shared_ptr<const Hardware>& holder) {
  TRY(phw, cat.hw.get(a.text("prefill_hw"), "--prefill-hw"));
  TRY(owner, owner_profile(a));
  if (!owner) return phw;
  auto owned = priced_hardware(cat, a, phw->name);
  if (!owned) return owned.error().at("--prefill-hw");
  holder = *owned;
  return holder.get();
}

Precision precision_from(const Args& a, const ModelSpec& m, const ServingEngine* engine) {
  // A command that does not take a format (plan searches lists of them) keeps the released one.
  auto given = [&a](const char* key) { return a.spec().arg(key) != nullptr ? a.dtype(key) : std::nullopt; };
  Precision p = Precision::native(m);
  if (auto w = given("weight_dtype")) p = Precision::with_weights(m, *w, *w, p.kv);
  if (auto x = given("expert_dtype")) p.experts = *x;
  if (auto x = given("act_dtype")) p.act = *x;
  if (auto x = given("kv_dtype")) {
    p.kv = *x;
  } else if (engine != nullptr) {
    p.kv = default_kv(engine, p.weights);
  }
  return p;
}

Efficiency efficiency_from(const Catalogs& cat, const Args& a, const Hardware& hw) {
  return a.flag("ideal") ? Efficiency{} : cat.efficiency(hw);
}

DeploymentInput Scenario::deployment() const {
  DeploymentInput in;
  in.model = model.get();
  in.hw = hw.get();
  in.precision = precision;
  in.eff = eff;
  in.power = power;
  if (engine != nullptr) serve_on(in, *engine);
  return in;
}

void Scenario::serve_on(DeploymentInput& in, const ServingEngine& on) const {
  in.precision = precision;
  if (!kv_stated) in.precision.kv = default_kv(&on, precision.weights);
  if (!ideal) apply_engine(in, on);
}

Result<Scenario> resolve_scenario(const Catalogs& cat, const Args& a, const ScenarioDefaults& d) {
  Scenario s;
  TRY(model, load_model(cat, a));
  s.model = std::make_shared<const ModelSpec>(std::move(model));
  TRY(hw, priced_hardware(cat, a, a.text("hw")));
  s.hw = std::move(hw);
  const CommandSpec& spec = a.spec();
  if (spec.arg("engine") != nullptr || d.engine) {
    TRY(engine, cat.serving_engine(d.engine ? *d.engine : a.text("engine")));
    s.engine = engine;
  }
  s.ideal = a.flag("ideal");
  s.precision = precision_from(a, *s.model, s.engine);
  s.kv_stated = spec.arg("kv_dtype") != nullptr && a.has("kv_dtype");
  s.eff = efficiency_from(cat, a, *s.hw);
  TRY(power, power_model(a, *s.hw));
  s.power = power;
  auto given = [&](const char* key) { return spec.arg(key) != nullptr && a.has(key); };
  if (given("chips") && given("racks")) return Error{"--racks", "", "give --chips or --racks, not both", ""};
  const int domain = s.hw->domain_size;
  const ArgSpec* chips = spec.arg("chips");
  double n = d.chips_up_to > 0 ? std::min(domain, d.chips_up_to) : domain;
  if (given("racks")) {
    n = a.number("racks") * domain;
  } else if (given("chips") || (chips != nullptr && !chips->def.is_null())) {
    n = a.number("chips");
  }
  // The table bounds --chips; racks of a large domain can pass what one count may hold.
  if (given("racks") && n > 1e6) return Error{"--racks", "", "more than a million chips", ""};
  s.chips = static_cast<int>(n);
  for (const auto& [key, degree] :
       {std::pair{"tp", &Mapping::tp}, std::pair{"pp", &Mapping::pp}, std::pair{"ep", &Mapping::ep},
        std::pair{"dp_attn", &Mapping::dp_attn}, std::pair{"cp", &Mapping::cp}}) {
    if (given(key)) s.stated.*degree = static_cast<int>(a.number(key));
  }
  return s;
}

}  // namespace llmecon
